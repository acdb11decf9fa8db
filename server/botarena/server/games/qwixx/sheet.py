"""Qwixx's score sheet: four rows of numbers, their lock boxes and four penalty boxes.

RULES.md: Components, Marking and Scoring. Rows red and yellow print 2 to 12, rows green
and blue print 12 down to 2. A :class:`Sheet` keeps, per row, the numbers marked in that
row from left to right, and the number of penalties. The lock cross needs no field of its
own: marking the row's last number always marks the lock too (RULES.md: Marking), so a
row holds its lock exactly when it holds its last number.

>>> sheet = Sheet.of(red=(4, 5, 6, 7), yellow=(2, 3, 4), green=(12, 11, 10, 9, 8, 7, 6),
...                  blue=(12, 11, 10, 9, 8, 7, 6, 5), penalties=2)
>>> [sheet.row_score(colour) for colour in Colour], sheet.score
([10, 6, 28, 36], 70)
>>> Sheet.of(red=(2, 3, 4, 5, 6, 12)).crosses(Colour.RED)
7
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from enum import IntEnum
from typing import TypeAlias

__all__ = [
    "FIRST_NUMBER",
    "LAST_NUMBER",
    "LOCK_MINIMUM",
    "MAX_PENALTIES",
    "PENALTY_POINTS",
    "ROW_NUMBERS",
    "Colour",
    "Row",
    "Sheet",
    "position",
    "triangle",
]


class Colour(IntEnum):
    """A row of the sheet, and the coloured die of the same colour."""

    RED = 0
    YELLOW = 1
    GREEN = 2
    BLUE = 3

    @property
    def label(self) -> str:
        """The colour in lower case, for messages (``"red"``)."""
        return self.name.lower()


Row: TypeAlias = tuple[int, ...]
"""The numbers marked in one row, from left to right."""

ROW_NUMBERS: tuple[tuple[int, ...], ...] = (
    tuple(range(2, 13)),
    tuple(range(2, 13)),
    tuple(range(12, 1, -1)),
    tuple(range(12, 1, -1)),
)
"""The numbers each row prints, left to right, by colour (RULES.md: Components)."""

FIRST_NUMBER: tuple[int, ...] = tuple(numbers[0] for numbers in ROW_NUMBERS)
"""The left-most number of each row, by colour."""

LAST_NUMBER: tuple[int, ...] = tuple(numbers[-1] for numbers in ROW_NUMBERS)
"""The right-most number of each row, by colour: marking it locks the row."""

LOCK_MINIMUM = 5
"""Marks a seat needs in a row before it may mark the row's last number (RULES.md: Marking)."""

MAX_PENALTIES = 4
"""Penalty boxes per sheet; crossing the last one ends the game (RULES.md: End)."""

PENALTY_POINTS = 5
"""Points each penalty costs (RULES.md: Scoring)."""

_TRIANGLE = tuple(n * (n + 1) // 2 for n in range(13))


def triangle(crosses: int) -> int:
    """Return what a row with ``crosses`` crosses scores: ``n(n+1)/2`` (RULES.md: Scoring).

    >>> [triangle(n) for n in range(13)]
    [0, 1, 3, 6, 10, 15, 21, 28, 36, 45, 55, 66, 78]
    """
    return _TRIANGLE[crosses]


def position(colour: Colour, number: int) -> int:
    """Return the 0-based place of ``number`` in the row, counted from the left.

    >>> position(Colour.RED, 2), position(Colour.GREEN, 2)
    (0, 10)
    """
    return number - 2 if colour < Colour.GREEN else 12 - number


@dataclass(frozen=True, slots=True)
class Sheet:
    """One seat's score sheet. Build arbitrary ones with :meth:`of`.

    Attributes:
        rows: The numbers marked in each row, left to right, by colour. A row that holds
            its last number also holds its lock cross.
        penalties: How many penalty boxes are crossed (0 to 4).
    """

    rows: tuple[Row, Row, Row, Row] = ((), (), (), ())
    penalties: int = 0

    @classmethod
    def of(
        cls,
        *,
        red: Iterable[int] = (),
        yellow: Iterable[int] = (),
        green: Iterable[int] = (),
        blue: Iterable[int] = (),
        penalties: int = 0,
    ) -> Sheet:
        """Return the sheet with these marks, for tests, puzzles and analysis.

        Raises:
            ValueError: A row's numbers are not strictly left to right on the row, its
                last number comes with fewer than five marks before it, or ``penalties``
                is not 0 to 4.
        """
        rows = (tuple(red), tuple(yellow), tuple(green), tuple(blue))
        for colour, row in zip(Colour, rows, strict=True):
            places = [position(colour, n) if n in ROW_NUMBERS[colour] else -1 for n in row]
            if -1 in places or places != sorted(set(places)):
                raise ValueError(f"{colour.label} marks {row} are not left to right in 2..12")
            if LAST_NUMBER[colour] in row and len(row) - 1 < LOCK_MINIMUM:
                raise ValueError(f"{colour.label} {LAST_NUMBER[colour]} needs five marks first")
        if not 0 <= penalties <= MAX_PENALTIES:
            raise ValueError(f"penalties must be 0 to {MAX_PENALTIES}, not {penalties}")
        return cls(rows, penalties)

    def marks(self, colour: Colour) -> Row:
        """Return the numbers marked in the row, left to right."""
        return self.rows[colour]

    def has_lock(self, colour: Colour) -> bool:
        """Return whether this seat locked the row (it holds the row's last number)."""
        row = self.rows[colour]
        return bool(row) and row[-1] == LAST_NUMBER[colour]

    def crosses(self, colour: Colour) -> int:
        """Return the crosses in the row, its lock cross included (RULES.md: Scoring)."""
        row = self.rows[colour]
        return len(row) + (1 if row and row[-1] == LAST_NUMBER[colour] else 0)

    def row_score(self, colour: Colour) -> int:
        """Return what the row scores now."""
        return _TRIANGLE[self.crosses(colour)]

    @property
    def score(self) -> int:
        """The sheet's total: the four rows minus 5 per penalty; may be negative."""
        return sum(self.row_score(colour) for colour in Colour) - PENALTY_POINTS * self.penalties

    def with_mark(self, colour: Colour, number: int) -> Sheet:
        """Return the sheet with ``number`` marked in the row (unchecked; see the rules)."""
        rows = list(self.rows)
        rows[colour] = (*rows[colour], number)
        return Sheet((rows[0], rows[1], rows[2], rows[3]), self.penalties)

    def with_penalty(self) -> Sheet:
        """Return the sheet with one more penalty box crossed."""
        return Sheet(self.rows, self.penalties + 1)
