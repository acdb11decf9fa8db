"""The decisions of a Qwixx turn (RULES.md: A turn).

Action 1 (every seat, sealed): :class:`MarkWhiteSum` or :class:`Decline`.
Action 2 (the active seat): :class:`MarkColourSum` or :class:`Decline`.

Moves are small immutable values. Colours given as plain ints are converted to
:class:`~botarena.server.games.qwixx.sheet.Colour`; anything that is not a colour is left
as it is for ``check`` to reject with ``MALFORMED_MOVE``.

>>> MarkWhiteSum(0, 7)
MarkWhiteSum(colour=<Colour.RED: 0>, number=7)
>>> MarkColourSum(white=1, colour=Colour.BLUE) == MarkColourSum(1, 3)
True
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TypeAlias

from botarena.server.games.qwixx.sheet import Colour

__all__ = [
    "ColourSumChoice",
    "Decline",
    "MarkColourSum",
    "MarkWhiteSum",
    "QwixxMove",
    "WhiteSumChoice",
]


@dataclass(frozen=True, slots=True)
class Decline:
    """Mark nothing in this action (either action; RULES.md: A turn)."""


@dataclass(frozen=True, slots=True)
class MarkWhiteSum:
    """Action 1: mark the sum of the two white dice in one row of the seat's own sheet.

    Attributes:
        colour: The row to mark.
        number: The number to mark; it must equal the white sum (it is stated so that a
            choice made for an older roll cannot be applied to a new one by mistake).
    """

    colour: Colour
    number: int

    def __post_init__(self) -> None:
        object.__setattr__(self, "colour", _as_colour(self.colour))


@dataclass(frozen=True, slots=True)
class MarkColourSum:
    """Action 2, active seat only: mark one white die plus one coloured die in that row.

    Attributes:
        white: Which white die, 0 or 1 (``Dice.white`` order).
        colour: The coloured die, which is also the row marked.
    """

    white: int
    colour: Colour

    def __post_init__(self) -> None:
        object.__setattr__(self, "colour", _as_colour(self.colour))


WhiteSumChoice: TypeAlias = MarkWhiteSum | Decline
"""A seat's action-1 choice."""

ColourSumChoice: TypeAlias = MarkColourSum | Decline
"""The active seat's action-2 choice."""

QwixxMove: TypeAlias = MarkWhiteSum | MarkColourSum | Decline
"""Any Qwixx move."""


def _as_colour(value: object) -> Colour:
    if isinstance(value, int) and not isinstance(value, bool) and 0 <= value < 4:
        return Colour(value)
    return value  # type: ignore[return-value]  # check() rejects it as MALFORMED_MOVE
