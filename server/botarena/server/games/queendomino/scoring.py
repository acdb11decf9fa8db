"""End-game scoring of one kingdom: territories, the queen's crown, buildings and coins.

Rulings implemented so far (RULES.md 5, 6, 7):

* A territory is a set of orthogonally connected squares of one terrain (town squares
  with or without buildings included); the castle belongs to none (``dominoes.json``:
  starting_tile).
* A territory's crowns are its printed crowns plus the crowns of the buildings on it;
  it scores squares x crowns (0 without crowns). Unconnected territories of one terrain
  score separately.
* The queen's host puts her on their largest territory as one extra crown: this adds
  that territory's size whichever of several largest ones she goes on (RULES.md 5).
* Coins score ``coins // 3``.
* Building points: flat; ``points_each`` per separate territory of the shown terrain
  (any size, crowns or not); per tower in the kingdom; per knight owned.

>>> from botarena.server.games.queendomino.components import Square, Terrain
>>> wheat, crowned = Square(Terrain.WHEAT), Square(Terrain.WHEAT, 1)
>>> kingdom = Kingdom.of(5, {(1, 0): crowned, (2, 0): wheat, (-1, 0): wheat})
>>> [(t.terrain.value, t.size, t.crowns) for t in territories(kingdom)]
[('wheat', 1, 0), ('wheat', 2, 1)]
>>> territory_points(kingdom), territory_points(kingdom, hosts_queen=True)
(2, 4)
"""

from __future__ import annotations

import functools
from dataclasses import dataclass

from botarena.server.games.queendomino.components import ScoringKind, Terrain
from botarena.server.games.queendomino.kingdom import Cell, Kingdom, neighbours

__all__ = [
    "ScoreBreakdown",
    "Territory",
    "building_points",
    "coin_points",
    "largest_territory_size",
    "score_kingdom",
    "territories",
    "territory_points",
]


@dataclass(frozen=True, slots=True)
class Territory:
    """A connected area of one terrain (RULES.md 3B, 7).

    Attributes:
        terrain: The terrain of every square in it.
        cells: Its cells.
        crowns: Printed crowns plus the crowns of buildings standing in it (no queen).
    """

    terrain: Terrain
    cells: frozenset[Cell]
    crowns: int

    @property
    def size(self) -> int:
        """The number of squares."""
        return len(self.cells)

    @property
    def points(self) -> int:
        """Squares x crowns (RULES.md 7.2)."""
        return self.size * self.crowns


@functools.lru_cache(maxsize=4096)
def territories(kingdom: Kingdom) -> tuple[Territory, ...]:
    """Return every territory of ``kingdom``, ordered by their first cell in ``(y, x)``.

    Kept for the last 4,096 kingdoms (immutable, hashed by content): every view of a
    state scores every kingdom, and a kingdom changes once per placement or building,
    while a match shows each state to every seat and spectator (measured: 1.2 ms a call
    for a 2-seat kingdom late in the game, ~5 us a hit).
    """
    squares = kingdom.squares
    buildings = kingdom.buildings
    seen: set[Cell] = set()
    found: list[tuple[Cell, Territory]] = []
    for start in sorted(squares, key=lambda cell: (cell[1], cell[0])):
        if start in seen:
            continue
        terrain = squares[start].terrain
        area = {start}
        frontier = [start]
        while frontier:
            cell = frontier.pop()
            for neighbour in neighbours(cell):
                square = squares.get(neighbour)
                if square is not None and square.terrain is terrain and neighbour not in area:
                    area.add(neighbour)
                    frontier.append(neighbour)
        seen |= area
        crowns = sum(squares[cell].crowns for cell in area)
        crowns += sum(buildings[cell].crowns for cell in area if cell in buildings)
        found.append((start, Territory(terrain, frozenset(area), crowns)))
    return tuple(territory for _, territory in found)


def largest_territory_size(kingdom: Kingdom) -> int:
    """Return the size of the largest territory, 0 for a bare castle (RULES.md 5, 7)."""
    return max((territory.size for territory in territories(kingdom)), default=0)


def territory_points(kingdom: Kingdom, *, hosts_queen: bool = False) -> int:
    """Return the points of all territories, with the queen's crown if ``hosts_queen``.

    RULES.md 5: the queen is one extra crown on the largest territory, so she adds its size.
    """
    points = sum(territory.points for territory in territories(kingdom))
    if hosts_queen:
        points += largest_territory_size(kingdom)
    return points


def building_points(kingdom: Kingdom, *, towers: int, knights: int) -> int:
    """Return the end-game points of the buildings in ``kingdom`` (RULES.md 6, 7.3).

    Args:
        kingdom: The kingdom whose buildings score.
        towers: The towers in the kingdom.
        knights: The knights the player owns, placed or not.
    """
    per_terrain: dict[Terrain, int] = {}
    for territory in territories(kingdom):
        per_terrain[territory.terrain] = per_terrain.get(territory.terrain, 0) + 1
    points = 0
    for building in kingdom.buildings.values():
        scoring = building.end_game_scoring
        if scoring is None:
            continue
        if scoring.kind is ScoringKind.FLAT:
            points += scoring.points
        elif scoring.kind is ScoringKind.PER_TOWER:
            points += scoring.points * towers
        elif scoring.kind is ScoringKind.PER_KNIGHT:
            points += scoring.points * knights
        else:
            assert scoring.terrain is not None  # the data loader guarantees it
            points += scoring.points * per_terrain.get(scoring.terrain, 0)
    return points


def coin_points(coins: int) -> int:
    """Return the points for ``coins``: one per full three (RULES.md 7.1)."""
    return coins // 3


@dataclass(frozen=True, slots=True)
class ScoreBreakdown:
    """One player's final score by source (RULES.md 7).

    Attributes:
        coins: Points for coins.
        territories: Points for territories, the queen's crown included.
        buildings: Points printed on buildings.
    """

    coins: int
    territories: int
    buildings: int

    @property
    def total(self) -> int:
        """The sum of the three."""
        return self.coins + self.territories + self.buildings


def score_kingdom(
    kingdom: Kingdom, *, coins: int, towers: int, knights: int, hosts_queen: bool
) -> ScoreBreakdown:
    """Return a player's final score.

    Args:
        kingdom: The player's kingdom with its buildings.
        coins: The player's coins.
        towers: The towers in the kingdom.
        knights: The knights the player owns, placed or not.
        hosts_queen: Whether the player hosts the queen at the end.
    """
    return ScoreBreakdown(
        coins=coin_points(coins),
        territories=territory_points(kingdom, hosts_queen=hosts_queen),
        buildings=building_points(kingdom, towers=towers, knights=knights),
    )
