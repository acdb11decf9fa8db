"""A player's kingdom: the castle, the placed dominoes' squares and the buildings on them.

Pure and immutable: :meth:`Kingdom.place` returns a new kingdom.

Coordinates: a :data:`Cell` is ``(x, y)`` with x growing to the right and y downwards;
the castle is always at :data:`CASTLE` ``(0, 0)``. RULES.md 3A lets the castle end
anywhere in the final box ("The castle does not have to be in the middle"), so the grid
reachable from it spans ``-(size - 1)`` to ``size - 1`` on each axis with the castle in
its middle, and the limit is on the box around everything placed: at most ``size``
columns and ``size`` rows.

A :class:`DominoPlacement` puts the domino's first half on ``cell`` and its second half
on the neighbour in the direction of ``rotation``.

Rulings implemented so far (RULES.md 2.7 and 3A):

* Size: 7x7 for 2 seats, 5x5 for 3 or 4 seats, the castle square included.
* A placement is legal iff both squares are free (``SQUARE_OCCUPIED``), the kingdom
  still fits its box (``KINGDOM_TOO_LARGE``), a square touches the kingdom edge to edge
  (``NOT_CONNECTED``), and a square touches the castle (wild) or a square of its own
  terrain, town matching town with or without a building (``TERRAIN_MISMATCH``); the
  first failing check, in this order, is the reason.
* :meth:`Kingdom.legal_placements` lists every legal ``(cell, rotation)`` pair once. A
  domino with two identical halves therefore lists each footprint twice (the two
  rotations that swap its halves): they are distinct moves with the same result.

>>> from botarena.server.games.queendomino.components import Domino, Square, Terrain
>>> lake = Domino(9, (Square(Terrain.LAKE), Square(Terrain.LAKE)))
>>> kingdom = Kingdom.for_seats(4)
>>> kingdom.size, len(kingdom.legal_placements(lake))
(5, 24)
>>> kingdom = kingdom.place(lake, DominoPlacement((1, 0), Rotation.EAST))
>>> kingdom.square((2, 0)), kingdom.bounds
(Square(terrain=<Terrain.LAKE: 'lake'>, crowns=0), (0, 0, 2, 0))
>>> reason, message = kingdom.placement_problem(lake, DominoPlacement((-2, 0), Rotation.WEST))
>>> print(reason, message, sep=": ")
KINGDOM_TOO_LARGE: the kingdom would span 6 columns and 1 rows; it must fit 5x5
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from enum import IntEnum
from types import MappingProxyType
from typing import TypeAlias

from botarena.server.games._core import IllegalMoveError
from botarena.server.games.queendomino.components import Building, Domino, Square, Terrain
from botarena.server.games.queendomino.errors import QueendominoReason

__all__ = [
    "CASTLE",
    "Cell",
    "DominoPlacement",
    "Kingdom",
    "Rotation",
    "kingdom_size",
    "neighbours",
]

Cell: TypeAlias = tuple[int, int]
"""A square of a kingdom, ``(x, y)`` relative to the castle."""

CASTLE: Cell = (0, 0)
"""Where the castle stands in every kingdom."""

_STEPS: tuple[Cell, ...] = ((1, 0), (0, 1), (-1, 0), (0, -1))


class Rotation(IntEnum):
    """Where a domino's second half lies, seen from its first half."""

    EAST = 0
    """To the right: ``(x + 1, y)``."""
    SOUTH = 1
    """Below: ``(x, y + 1)``."""
    WEST = 2
    """To the left: ``(x - 1, y)``."""
    NORTH = 3
    """Above: ``(x, y - 1)``."""

    @property
    def step(self) -> Cell:
        """The offset from the first half to the second."""
        return _STEPS[self]


def neighbours(cell: Cell) -> Iterator[Cell]:
    """Yield the four cells sharing an edge with ``cell``."""
    x, y = cell
    for dx, dy in _STEPS:
        yield (x + dx, y + dy)


def kingdom_size(seat_count: int) -> int:
    """Return the side of the kingdom's box: 7 for 2 seats, 5 for 3 or 4 (RULES.md 2.7).

    Raises:
        ValueError: The seat count is not 2, 3 or 4.
    """
    if seat_count == 2:
        return 7
    if seat_count in (3, 4):
        return 5
    raise ValueError(f"Queendomino is played by 2 to 4 seats, not {seat_count}")


@dataclass(frozen=True, slots=True)
class DominoPlacement:
    """Where a domino goes: its first half's cell and the direction of its second half.

    Attributes:
        cell: The cell of the domino's first half.
        rotation: Where the second half lies relative to the first.
    """

    cell: Cell
    rotation: Rotation

    @property
    def cells(self) -> tuple[Cell, Cell]:
        """The cells of the first and the second half."""
        x, y = self.cell
        dx, dy = self.rotation.step
        return (self.cell, (x + dx, y + dy))


@dataclass(frozen=True, slots=True, eq=False)
class Kingdom:
    """One player's kingdom. Build with :meth:`for_seats`, :meth:`empty` or :meth:`of`.

    Attributes:
        size: The side of the box the kingdom must fit in (5 or 7).
    """

    size: int
    _squares: Mapping[Cell, Square] = field(repr=False)
    _buildings: Mapping[Cell, Building] = field(repr=False)

    @classmethod
    def empty(cls, size: int) -> Kingdom:
        """Return a kingdom holding only its castle, in a ``size`` x ``size`` box."""
        return cls.of(size, {})

    @classmethod
    def for_seats(cls, seat_count: int) -> Kingdom:
        """Return the empty kingdom for a game of ``seat_count`` seats (RULES.md 2.7)."""
        return cls.empty(kingdom_size(seat_count))

    @classmethod
    def of(
        cls,
        size: int,
        squares: Mapping[Cell, Square],
        buildings: Mapping[Cell, Building] | None = None,
    ) -> Kingdom:
        """Return a kingdom with these squares and buildings (for tests and views).

        Only the shape is checked, not that real dominoes could have been placed so.

        Raises:
            ValueError: ``size`` is below 1, a square covers the castle, the squares do not
                fit the box, or a building stands on no town square.
        """
        if size < 1:
            raise ValueError(f"a kingdom's size must be positive, not {size}")
        if CASTLE in squares:
            raise ValueError(f"the castle stands on {CASTLE}; no square may cover it")
        kingdom = cls(size, dict(squares), dict(buildings or {}))
        min_x, min_y, max_x, max_y = kingdom.bounds
        if max_x - min_x >= size or max_y - min_y >= size:
            raise ValueError(f"the squares do not fit a {size}x{size} box")
        for cell in kingdom._buildings:
            square = kingdom._squares.get(cell)
            if square is None or square.terrain is not Terrain.TOWN:
                raise ValueError(f"a building stands on {cell}, which is no town square")
        return kingdom

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Kingdom):
            return NotImplemented
        return (
            self.size == other.size
            and self._squares == other._squares
            and self._buildings == other._buildings
        )

    def __hash__(self) -> int:
        return hash(
            (self.size, frozenset(self._squares.items()), frozenset(self._buildings.items()))
        )

    @property
    def squares(self) -> Mapping[Cell, Square]:
        """Every placed square by cell (the castle is not a square)."""
        return MappingProxyType(self._squares)

    @property
    def buildings(self) -> Mapping[Cell, Building]:
        """Every building by the town square it stands on."""
        return MappingProxyType(self._buildings)

    @property
    def bounds(self) -> tuple[int, int, int, int]:
        """The box around the castle and every square: ``(min_x, min_y, max_x, max_y)``."""
        xs = [CASTLE[0], *(x for x, _ in self._squares)]
        ys = [CASTLE[1], *(y for _, y in self._squares)]
        return (min(xs), min(ys), max(xs), max(ys))

    def square(self, cell: Cell) -> Square | None:
        """Return the square on ``cell``, or ``None`` (free cell or the castle)."""
        return self._squares.get(cell)

    def is_occupied(self, cell: Cell) -> bool:
        """Whether ``cell`` holds the castle or a square."""
        return cell == CASTLE or cell in self._squares

    def open_town_squares(self) -> tuple[Cell, ...]:
        """Return the town squares without a building, sorted by ``(y, x)`` (RULES.md 3C)."""
        return tuple(
            sorted(
                (
                    cell
                    for cell, square in self._squares.items()
                    if square.terrain is Terrain.TOWN and cell not in self._buildings
                ),
                key=lambda cell: (cell[1], cell[0]),
            )
        )

    def placement_problem(
        self, domino: Domino, placement: DominoPlacement
    ) -> tuple[QueendominoReason, str] | None:
        """Return why ``placement`` of ``domino`` is illegal, or ``None`` when it is legal.

        Returns:
            ``(reason, message)`` for the first failing check of RULES.md 3A, in the order
            occupied, box, connection, terrain; ``None`` if all pass.
        """
        return self._problem(domino, placement, self.bounds)

    def _problem(
        self, domino: Domino, placement: DominoPlacement, bounds: tuple[int, int, int, int]
    ) -> tuple[QueendominoReason, str] | None:
        # placement_problem with the kingdom's bounds computed once by the caller
        # (legal_placements tries ~100 candidates; bench/bench_queendomino.py).
        cells = placement.cells
        for cell in cells:
            if self.is_occupied(cell):
                what = "the castle" if cell == CASTLE else "a placed square"
                return (QueendominoReason.SQUARE_OCCUPIED, f"{cell} already holds {what}")
        # RULES.md 3A: the whole kingdom must fit a size x size box after placement.
        min_x, min_y, max_x, max_y = bounds
        for x, y in cells:
            min_x, max_x = min(min_x, x), max(max_x, x)
            min_y, max_y = min(min_y, y), max(max_y, y)
        width, height = max_x - min_x + 1, max_y - min_y + 1
        if width > self.size or height > self.size:
            return (
                QueendominoReason.KINGDOM_TOO_LARGE,
                f"the kingdom would span {width} columns and {height} rows; "
                f"it must fit {self.size}x{self.size}",
            )
        touches = False
        for cell, half in zip(cells, domino.halves, strict=True):
            for neighbour in neighbours(cell):
                if neighbour == CASTLE:
                    # RULES.md 3A: the castle is wild, it matches any terrain.
                    return None
                square = self._squares.get(neighbour)
                if square is None:
                    continue
                touches = True
                if square.terrain is half.terrain:
                    return None
        if not touches:
            return (
                QueendominoReason.NOT_CONNECTED,
                f"neither {cells[0]} nor {cells[1]} touches the castle or a placed square",
            )
        return (
            QueendominoReason.TERRAIN_MISMATCH,
            f"neither the {domino.first.terrain} on {cells[0]} nor the {domino.second.terrain}"
            f" on {cells[1]} touches the castle or a square of its own terrain",
        )

    def is_legal_placement(self, domino: Domino, placement: DominoPlacement) -> bool:
        """Whether ``placement`` of ``domino`` is legal here (RULES.md 3A)."""
        return self.placement_problem(domino, placement) is None

    def legal_placements(self, domino: Domino) -> tuple[DominoPlacement, ...]:
        """Return every legal placement of ``domino``, each once, in a stable order.

        The order is by the first half's ``(y, x)``, then by rotation. An empty result
        means the domino fits nowhere and must be discarded (RULES.md 3A).
        """
        candidates: set[DominoPlacement] = set()
        # A legal placement has a square next to the kingdom, so one of its halves lies on
        # a free cell next to an occupied one; try both halves there in every direction.
        for occupied in (CASTLE, *self._squares):
            for cell in neighbours(occupied):
                if self.is_occupied(cell):
                    continue
                for rotation in Rotation:
                    dx, dy = rotation.step
                    candidates.add(DominoPlacement(cell, rotation))
                    candidates.add(DominoPlacement((cell[0] - dx, cell[1] - dy), rotation))
        bounds = self.bounds
        legal = (p for p in candidates if self._problem(domino, p, bounds) is None)
        return tuple(sorted(legal, key=lambda p: (p.cell[1], p.cell[0], p.rotation)))

    def place(self, domino: Domino, placement: DominoPlacement) -> Kingdom:
        """Return the kingdom with ``domino`` placed.

        Raises:
            IllegalMoveError: The placement is illegal; ``reason`` is a
                :class:`~botarena.server.games.queendomino.errors.QueendominoReason`.
        """
        problem = self.placement_problem(domino, placement)
        if problem is not None:
            raise IllegalMoveError(*problem)
        squares = dict(self._squares)
        for cell, half in zip(placement.cells, domino.halves, strict=True):
            squares[cell] = half
        return Kingdom(self.size, squares, self._buildings)

    def with_building(self, cell: Cell, building: Building) -> Kingdom:
        """Return the kingdom with ``building`` on the open town square ``cell`` (RULES.md 3C).

        Raises:
            ValueError: ``cell`` is not an open town square.
        """
        square = self._squares.get(cell)
        if square is None or square.terrain is not Terrain.TOWN:
            raise ValueError(f"{cell} is not a town square")
        if cell in self._buildings:
            raise ValueError(f"{cell} already holds {self._buildings[cell].name}")
        return Kingdom(self.size, self._squares, {**self._buildings, cell: building})
