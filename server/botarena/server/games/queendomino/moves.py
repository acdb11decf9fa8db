"""The decisions of a Queendomino turn (RULES.md 3), one move per step.

A turn is a sequence of decisions by the same seat, in the order of RULES.md 3:

====================  ===========================================  ==============
Step (:class:`Step`)  Moves                                        Skippable
====================  ===========================================  ==============
A ``PLACE``           :class:`Place`, or :class:`Discard` only     no
                      when the domino fits nowhere
B ``TAX``             :class:`Tax` (1 or 2 knights)                :class:`Skip`
C ``BUILD``           :class:`Build`                               :class:`Skip`
D ``DRAGON``          :class:`Bribe`                               :class:`Skip`
E ``CHOOSE``          :class:`Choose` (not in the final round)     no
====================  ===========================================  ==============

The engine never asks for an optional step in which ``Skip`` would be the only legal
move (no unplaced knight, nothing affordable, the dragon gone, ...): the turn moves on
by itself. A forced discard, by contrast, is asked for, with ``Discard()`` as the one
legal move, so that the log shows who lost the domino.

Moves are small immutable values; the engine validates every field (``MALFORMED_MOVE``),
so a decoder may build them from untrusted input.

>>> Place((1, 0), Rotation.EAST).placement.cells
((1, 0), (2, 0))
>>> Tax(((2, 0), (1, 0))).cells
((1, 0), (2, 0))
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum
from typing import TypeAlias

from botarena.server.games.queendomino.kingdom import Cell, DominoPlacement, Rotation

__all__ = [
    "BOARD_PRICES",
    "Bribe",
    "Build",
    "Choose",
    "Discard",
    "Place",
    "QueendominoMove",
    "Skip",
    "Step",
    "Tax",
]

BOARD_PRICES: tuple[int, ...] = (5, 4, 3, 2, 1, 0)
"""The price of each builders' board space, by space index (RULES.md 2.2): space 0 lies
next to the draw pile and costs 5, space 5 is the farthest and costs 0."""


class Step(StrEnum):
    """The step of a turn a decision belongs to (RULES.md 3)."""

    PLACE = "place"
    """A: place the domino under the king (or discard it if it fits nowhere)."""
    TAX = "tax"
    """B: collect tax with 1 or 2 unplaced knights on the domino just placed."""
    BUILD = "build"
    """C: buy one building from the builders' board for an open town square."""
    DRAGON = "dragon"
    """D: pay 1 coin to burn one building on the builders' board."""
    CHOOSE = "choose"
    """E: move the king onto a free domino of the next line."""


@dataclass(frozen=True, slots=True)
class Place:
    """Step A: put the domino's first half on ``cell``, its second half towards ``rotation``.

    Attributes:
        cell: The cell of the first half (``Domino.halves[0]``), relative to the castle.
        rotation: Where the second half lies, seen from the first.
    """

    cell: Cell
    rotation: Rotation

    @property
    def placement(self) -> DominoPlacement:
        """The placement as the kingdom model spells it."""
        return DominoPlacement(self.cell, self.rotation)


@dataclass(frozen=True, slots=True)
class Discard:
    """Step A: give the domino up; legal only when it fits nowhere (RULES.md 3A)."""


@dataclass(frozen=True, slots=True)
class Tax:
    """Step B: stand one knight on each of ``cells``, squares of the domino just placed.

    Attributes:
        cells: One or two distinct cells, kept sorted by ``(y, x)`` so that equal taxes
            compare equal.
    """

    cells: tuple[Cell, ...]

    def __post_init__(self) -> None:
        if isinstance(self.cells, tuple | list):
            try:
                ordered = tuple(sorted(self.cells, key=lambda cell: (cell[1], cell[0])))
            except (TypeError, IndexError):
                return  # left as given; the engine rejects it as MALFORMED_MOVE
            object.__setattr__(self, "cells", ordered)


@dataclass(frozen=True, slots=True)
class Build:
    """Step C: buy the building on board ``space`` and put it on the town square ``cell``.

    Attributes:
        space: The builders' board space, 0..5 (its price is ``BOARD_PRICES[space]``, one
            coin less for the queen's host, never below 0).
        cell: An open town square of the seat's kingdom.
    """

    space: int
    cell: Cell


@dataclass(frozen=True, slots=True)
class Bribe:
    """Step D: pay 1 coin, burn the building on board ``space``; the dragon takes its place.

    Attributes:
        space: The builders' board space, 0..5.
    """

    space: int


@dataclass(frozen=True, slots=True)
class Choose:
    """Step E: put the king on the free domino numbered ``domino`` of the next line.

    Attributes:
        domino: The domino's number (1..48).
    """

    domino: int


@dataclass(frozen=True, slots=True)
class Skip:
    """Skip the optional step due now (tax, build or dragon)."""


QueendominoMove: TypeAlias = Place | Discard | Tax | Build | Bribe | Choose | Skip
"""Any Queendomino move."""
