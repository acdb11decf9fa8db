"""The three kinds of Qwirkle turn: place tiles, exchange tiles, pass (RULES.md: A turn).

Moves are small immutable values. A :class:`Place` keeps its placements in canonical
order (sorted by cell, then tile), so two placements of the same tiles on the same cells
are equal whatever order a bot listed them in. A ``Place`` that comes from
``legal_moves`` also carries its ``score``; the score is information only, it takes no
part in equality and the engine ignores it when it checks a move.

>>> from botarena.server.games.qwirkle.tiles import Tile
>>> a = Place(((1, 0, Tile.RED_SQUARE), (0, 0, Tile.RED_CIRCLE)))
>>> a.placements[0]
Placement(x=0, y=0, tile=<Tile.RED_CIRCLE: 0>)
>>> a == Place(((0, 0, Tile.RED_CIRCLE), (1, 0, Tile.RED_SQUARE)), score=2)
True
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import NamedTuple, TypeAlias

from botarena.server.games.qwirkle.tiles import Tile

__all__ = ["Cell", "Exchange", "Pass", "Place", "Placement", "QwirkleMove"]

Cell: TypeAlias = tuple[int, int]
"""A board cell ``(x, y)``; the grid is unbounded and the first move covers ``(0, 0)``."""


# Tile(value) runs two Python-level Enum calls; a dict look-up is one C call, with the
# same answers (a Tile or an int of 0..35; KeyError where Tile() raises ValueError).
_TILE_OF: dict[int, Tile] = {tile.value: tile for tile in Tile}


class Placement(NamedTuple):
    """One tile put on one cell."""

    x: int
    y: int
    tile: Tile

    @property
    def cell(self) -> Cell:
        """The target cell ``(x, y)``."""
        return (self.x, self.y)


@dataclass(frozen=True, slots=True)
class Place:
    """Put one or more tiles from the rack on the board, then refill the rack.

    Attributes:
        placements: The tiles and their cells, sorted by cell (plain ``(x, y, tile)``
            tuples are accepted and converted).
        score: The points this placement scores, when the engine computed it (moves from
            ``legal_moves`` carry it); ``None`` otherwise. Not part of equality.
    """

    placements: tuple[Placement, ...]
    score: int | None = field(default=None, compare=False)

    def __post_init__(self) -> None:
        canonical = _canonical_placements(self.placements)
        if canonical is not None:
            object.__setattr__(self, "placements", canonical)

    @property
    def tiles(self) -> tuple[Tile, ...]:
        """The placed tiles, in placement order."""
        return tuple(placement.tile for placement in self.placements)

    @property
    def cells(self) -> tuple[Cell, ...]:
        """The target cells, in placement order."""
        return tuple((placement.x, placement.y) for placement in self.placements)


@dataclass(frozen=True, slots=True)
class Exchange:
    """Swap tiles of the rack for as many tiles from the bag; scores nothing.

    Attributes:
        tiles: The tiles handed back, sorted (a multiset of the rack).
    """

    tiles: tuple[Tile, ...]

    def __post_init__(self) -> None:
        try:
            canonical = tuple(sorted([_TILE_OF[tile] for tile in self.tiles]))
        except (TypeError, KeyError):
            return  # check() reports the malformed move with a reason code
        object.__setattr__(self, "tiles", canonical)


@dataclass(frozen=True, slots=True)
class Pass:
    """Do nothing; legal only when the bag is empty and no placement exists."""


QwirkleMove: TypeAlias = Place | Exchange | Pass
"""Any Qwirkle move."""


def _canonical_placements(
    placements: Iterable[tuple[int, int, int]],
) -> tuple[Placement, ...] | None:
    try:
        return tuple(sorted([Placement(x, y, _TILE_OF[tile]) for x, y, tile in placements]))
    except (TypeError, ValueError, KeyError):
        return None  # check() reports the malformed move with a reason code
