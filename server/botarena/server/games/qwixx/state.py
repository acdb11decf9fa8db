"""Qwixx's configuration, dice, match state and public history.

The state is an immutable value: ``apply`` returns a new one and never changes its input.
Everything in it is public (RULES.md: What each seat may see) except ``choices``, the
sealed action-1 choices collected so far this turn; only
:meth:`~botarena.server.games.qwixx.rules.QwixxRules.view` may hand a seat its own.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from enum import IntEnum, StrEnum
from typing import NamedTuple, TypeAlias

from botarena.server.games._core import Seat
from botarena.server.games.qwixx.moves import ColourSumChoice, WhiteSumChoice
from botarena.server.games.qwixx.sheet import Colour, Sheet

__all__ = [
    "Action",
    "ColourSumApplied",
    "Dice",
    "EndReason",
    "GameEnded",
    "HistoryEntry",
    "Penalised",
    "QwixxConfig",
    "QwixxState",
    "Rolled",
    "RowLocked",
    "StarterPicked",
    "WhiteSumsApplied",
]


@dataclass(frozen=True, slots=True)
class QwixxConfig:
    """Match options for Qwixx. RULES.md has no *(option)* rulings, so there are none."""


class Action(IntEnum):
    """The decision a turn is waiting for (RULES.md: A turn)."""

    WHITE_SUM = 1
    """Action 1: every seat, sealed and simultaneous, marks the white sum or declines."""
    COLOUR_SUM = 2
    """Action 2: the active seat marks a white die plus a coloured die, or declines."""


class EndReason(StrEnum):
    """Why a Qwixx game ended (``Outcome.reason``)."""

    PENALTIES = "penalties"
    """A seat crossed its fourth penalty box."""
    TWO_ROWS_LOCKED = "two_rows_locked"
    """A second row was locked (two or more rows are locked)."""


@dataclass(frozen=True, slots=True)
class Dice:
    """The dice of the current roll.

    Attributes:
        white: The two white dice.
        colours: The coloured dice by colour (red, yellow, green, blue); ``None`` for a
            die removed with its locked row (RULES.md: Marking).
    """

    white: tuple[int, int]
    colours: tuple[int | None, int | None, int | None, int | None]

    @property
    def white_sum(self) -> int:
        """The sum of the two white dice (action 1)."""
        return self.white[0] + self.white[1]


@dataclass(frozen=True, slots=True)
class StarterPicked:
    """The first active seat, a seeded random pick (RULES.md: A turn, ruling)."""

    seat: Seat


@dataclass(frozen=True, slots=True)
class Rolled:
    """``seat`` became the active seat and rolled the dice still in play."""

    seat: Seat
    dice: Dice


@dataclass(frozen=True, slots=True)
class WhiteSumsApplied:
    """Action 1 ended: every seat's sealed choice, revealed and applied together.

    Attributes:
        choices: Each seat's choice, by seat.
    """

    choices: tuple[WhiteSumChoice, ...]


@dataclass(frozen=True, slots=True)
class ColourSumApplied:
    """Action 2: the active seat's choice and the number it marked (``None``: declined)."""

    seat: Seat
    choice: ColourSumChoice
    number: int | None


@dataclass(frozen=True, slots=True)
class RowLocked:
    """A row was locked: it is closed and its die removed.

    Attributes:
        colour: The row.
        seats: The seats that locked it (several in one action 1), ascending.
    """

    colour: Colour
    seats: tuple[Seat, ...]


@dataclass(frozen=True, slots=True)
class Penalised:
    """The active seat marked nothing in both actions and crossed a penalty box.

    Attributes:
        seat: The active seat.
        penalties: Its penalties now (1 to 4).
    """

    seat: Seat
    penalties: int


@dataclass(frozen=True, slots=True)
class GameEnded:
    """The game ended; the last history entry of a finished game."""

    reason: EndReason


HistoryEntry: TypeAlias = (
    StarterPicked | Rolled | WhiteSumsApplied | ColourSumApplied | RowLocked | Penalised | GameEnded
)
"""One public event of a Qwixx match."""


class QwixxState(NamedTuple):
    """A Qwixx match in progress or finished. Build it with ``QWIXX.new_match``.

    A named tuple, not a frozen dataclass: every decision builds a new state, and a
    tuple is built several times faster (bench/bench_qwixx.py). It is as immutable and
    hashable; copy it with ``state._replace(field=value)``.

    Attributes:
        config: The match options.
        seed: The match seed; with ``draws`` it determines every die roll.
        draws: How many random numbers the match has used so far.
        sheets: Every seat's sheet, by seat.
        active: The active seat (the one that rolled).
        action: The action the turn waits for; ``None`` once the game is over.
        dice: The current roll.
        locked_rows: The closed rows; their dice are out of play.
        choices: The sealed action-1 choices by seat, ``None`` for a seat that has not
            decided yet (hidden from the other seats); all ``None`` outside action 1.
        marked_white_sum: Whether the active seat marked in this turn's action 1 (action
            2 needs it for the penalty, RULES.md: A turn, 3).
        history: The public history, oldest first.
        end_reason: Why the game ended, or ``None`` while it goes on.
    """

    config: QwixxConfig
    seed: int
    draws: int
    sheets: tuple[Sheet, ...]
    active: Seat
    action: Action | None
    dice: Dice
    locked_rows: frozenset[Colour]
    choices: tuple[WhiteSumChoice | None, ...]
    marked_white_sum: bool
    history: tuple[HistoryEntry, ...]
    end_reason: EndReason | None

    @property
    def seats(self) -> int:
        """The number of seats."""
        return len(self.sheets)

    @property
    def is_over(self) -> bool:
        """Whether the game has ended."""
        return self.end_reason is not None

    @property
    def scores(self) -> tuple[int, ...]:
        """Every seat's total as the sheets stand (RULES.md: Scoring)."""
        return tuple(sheet.score for sheet in self.sheets)

    @classmethod
    def from_position(
        cls,
        *,
        sheets: Sequence[Sheet],
        white: tuple[int, int],
        colours: Iterable[int] = (1, 1, 1, 1),
        active: Seat = 0,
        action: Action = Action.WHITE_SUM,
        choices: Sequence[WhiteSumChoice | None] | None = None,
        marked_white_sum: bool = False,
        seed: int = 0,
        draws: int = 0,
        config: QwixxConfig | None = None,
    ) -> QwixxState:
        """Return a state for an arbitrary position, for tests, puzzles and analysis.

        The locked rows are those in which some sheet holds the lock; their dice are set
        to ``None`` whatever ``colours`` says.

        Raises:
            ValueError: Fewer than one sheet, ``active`` is not a seat, or a die is not
                1 to 6.
        """
        if not sheets or not 0 <= active < len(sheets):
            raise ValueError(f"active seat {active} is not a seat of {len(sheets)}")
        faces = (*white, *colours)
        if len(faces) != 6 or any(not 1 <= face <= 6 for face in faces):
            raise ValueError(f"dice must be six faces 1 to 6, not {faces}")
        locked = frozenset(
            colour for colour in Colour if any(sheet.has_lock(colour) for sheet in sheets)
        )
        dice_colours = tuple(None if colour in locked else faces[2 + colour] for colour in Colour)
        return cls(
            config=config or QwixxConfig(),
            seed=seed,
            draws=draws,
            sheets=tuple(sheets),
            active=active,
            action=action,
            dice=Dice(
                (white[0], white[1]),
                (dice_colours[0], dice_colours[1], dice_colours[2], dice_colours[3]),
            ),
            locked_rows=locked,
            choices=tuple(choices) if choices is not None else (None,) * len(sheets),
            marked_white_sum=marked_white_sum,
            history=(),
            end_reason=None,
        )
