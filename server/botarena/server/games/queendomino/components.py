"""Queendomino's printed components: terrains, dominoes and building tiles (RULES.md 1, 6).

These are plain frozen values; :mod:`botarena.server.games.queendomino.data` builds them
from the JSON files shipped in the package.

>>> square = Square(Terrain.MINE, crowns=3)
>>> domino = Domino(45, (square, Square(Terrain.TOWN)))
>>> domino.first.terrain, domino.second.is_construction_square, domino.crowns
(<Terrain.MINE: 'mine'>, True, 3)
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum

__all__ = [
    "Building",
    "Domino",
    "EndGameScoring",
    "OngoingEffect",
    "ScoringKind",
    "Square",
    "Terrain",
]


class Terrain(StrEnum):
    """One of the seven terrains (RULES.md 1); the value is the name in ``dominoes.json``."""

    WHEAT = "wheat"
    FOREST = "forest"
    LAKE = "lake"
    GRASSLAND = "grassland"
    SWAMP = "swamp"
    MINE = "mine"
    TOWN = "town"


@dataclass(frozen=True, slots=True)
class Square:
    """One half of a domino: a terrain and its printed crowns.

    Attributes:
        terrain: The square's terrain.
        crowns: Crowns printed on the square (0 to 3).
    """

    terrain: Terrain
    crowns: int = 0

    @property
    def is_construction_square(self) -> bool:
        """Whether a building may stand here: every town square is one (RULES.md 1)."""
        return self.terrain is Terrain.TOWN


@dataclass(frozen=True, slots=True)
class Domino:
    """A domino: the number on its back and its two squares, in the data file's order.

    Attributes:
        number: The number printed on the back (1 to 48); lines are sorted by it.
        halves: The two squares. Their order only names them; dominoes rotate freely.
    """

    number: int
    halves: tuple[Square, Square]

    @property
    def first(self) -> Square:
        """The first half (the one a placement's ``cell`` names)."""
        return self.halves[0]

    @property
    def second(self) -> Square:
        """The second half."""
        return self.halves[1]

    @property
    def crowns(self) -> int:
        """The crowns printed on both halves together."""
        return self.halves[0].crowns + self.halves[1].crowns


class OngoingEffect(StrEnum):
    """A building's lower-left box (RULES.md 3B, 6): extra coins each time tax is collected."""

    NONE = "none"
    """No ongoing effect."""
    COIN_PER_KNIGHT = "coin_per_knight"
    """One more coin per knight the player owns, placed or not."""
    COIN_PER_TOWER = "coin_per_tower"
    """One more coin per tower in the player's kingdom."""


class ScoringKind(StrEnum):
    """The kind of a building's end-game points (its lower-right shield, RULES.md 6)."""

    FLAT = "flat"
    """A fixed number of points."""
    PER_TERRITORY_OF_TERRAIN = "per_territory_of_terrain"
    """Points for every separate territory of one terrain, whatever its size or crowns."""
    PER_TOWER = "per_tower"
    """Points per tower in the kingdom."""
    PER_KNIGHT = "per_knight"
    """Points per knight the player owns, placed or not."""


@dataclass(frozen=True, slots=True)
class EndGameScoring:
    """A building's end-game points.

    Attributes:
        kind: What the points are counted for.
        points: The flat points (``FLAT``) or the points per item (every other kind).
        terrain: The terrain whose territories count (``PER_TERRITORY_OF_TERRAIN`` only).
    """

    kind: ScoringKind
    points: int
    terrain: Terrain | None = None


@dataclass(frozen=True, slots=True)
class Building:
    """One of the 32 building tiles (RULES.md 6, ``buildings.json``).

    Unknown values in the data (``null``) are already replaced by their stand-ins here
    (0 knights, 0 towers, no ongoing effect); :class:`~botarena.server.games.queendomino.
    data.BuildingTable` lists which fields were.

    Attributes:
        id: The tile's id in the data file (1 to 32), unique.
        type_id: The building type (``"sawmill"``); copies of a building share it.
        name: The printed name (``"The Sawmill"``).
        crowns: Crowns in the upper-right corner; they count for the town territory.
        knights: Knights taken from the supply when built (grey side, upper left).
        towers: Towers taken from the supply and stood on the building when built.
        ongoing_effect: The lower-left box.
        end_game_scoring: The lower-right shield, or ``None`` when the tile has none.
    """

    id: int
    type_id: str
    name: str
    crowns: int
    knights: int
    towers: int
    ongoing_effect: OngoingEffect
    end_game_scoring: EndGameScoring | None
