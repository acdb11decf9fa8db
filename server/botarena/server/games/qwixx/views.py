"""What one seat (or a spectator) may see of a Qwixx match (RULES.md: What each seat may see).

Everything in Qwixx is public (sheets, dice, locks, penalties, the history) except the
sealed action-1 choices of the other seats until all are applied. A seat sees its own
pending choice; a spectator sees none.
"""

from __future__ import annotations

from dataclasses import dataclass

from botarena.server.games._core import Seat
from botarena.server.games.qwixx.moves import WhiteSumChoice
from botarena.server.games.qwixx.sheet import Colour, Sheet
from botarena.server.games.qwixx.state import Action, Dice, HistoryEntry

__all__ = ["QwixxView"]


@dataclass(frozen=True, slots=True)
class QwixxView:
    """One seat's (or a spectator's) picture of the match.

    Attributes:
        seat: The seat this view is for, ``None`` for a spectator.
        sheets: Every seat's sheet.
        scores: Every seat's total as the sheets stand.
        dice: The current roll (removed dice are ``None``).
        locked_rows: The closed rows.
        active: The active seat.
        action: The action being asked for; ``None`` once the game is over.
        to_act: The seats that still owe a decision (in action 1: those that have not
            submitted yet; whether a seat has submitted is public, what it chose is not).
        own_choice: The seat's own sealed action-1 choice while action 1 is pending;
            ``None`` for a spectator, a seat that has not chosen, or outside action 1.
        history: The public history.
    """

    seat: Seat | None
    sheets: tuple[Sheet, ...]
    scores: tuple[int, ...]
    dice: Dice
    locked_rows: frozenset[Colour]
    active: Seat
    action: Action | None
    to_act: frozenset[Seat]
    own_choice: WhiteSumChoice | None
    history: tuple[HistoryEntry, ...]
