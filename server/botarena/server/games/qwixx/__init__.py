"""Qwixx: the pure rules engine (shared/games/qwixx/RULES.md, the official rules).

``QWIXX`` implements ``Rules[QwixxConfig, QwixxState, QwixxMove, QwixxView]``. A turn asks
for two decisions (``QwixxState.action``): in action 1 every seat submits
``MarkWhiteSum(colour, number)`` or ``Decline()``, sealed; in action 2 the active seat
submits ``MarkColourSum(white, colour)`` or ``Decline()``.

Rulings implemented (RULES.md, each tested in ``tests/games/qwixx``):

* 2 to 5 seats; anything else is a ``ValueError``.
* The first active seat is a seeded random pick, logged as the first history entry
  (``StarterPicked``); the turn then passes by ascending seat index.
* Action 1 is a sealed simultaneous decision of every seat: ``to_act`` is every seat that
  has not submitted; ``apply`` stores the choice in the state (``choices``); the last
  submission applies all choices together. No view shows another seat's pending choice;
  a seat's own is in its view (``own_choice``). The choices are revealed in the history
  (``WhiteSumsApplied``) only once applied.
* Action 2 sees the sheets as they stand after action 1: a row locked in action 1 is closed
  and its die gone, and a second mark in one row must lie right of the first.
* The penalty hits the active seat only, when it marked nothing in both actions.
* Several seats may lock one row in the same action 1 (each gets its lock cross), and
  several rows may lock in the same action 1.
* The game ends at once on a 4th penalty or when a 2nd row is locked (counting all rows
  locked so far); if action 1 ends it, action 2 and the penalty step are skipped.
* Equal totals share a place; totals may be negative.

Decisions where RULES.md is silent (engine choices; see also the package's tests):

* Each action-1 choice is checked against the sheets as they stood when the dice were
  rolled, and every accepted choice is applied. As every seat marks the same white sum,
  the only marks that can meet in one row are several seats locking it together.
* A roll is one draw ``random_below(seed, draws, 6 ** n)`` for the ``n`` dice in play,
  read as base-6 digits in the order white 0, white 1, red, yellow, green, blue (removed
  dice skipped): ``n`` independent uniform faces from one hash. The starter pick
  (``random_below(seed, 0, seats)``) comes before the first roll. Golden tests pin both.
* Every step asks for a decision even when declining is the only legal move (for example
  action 2 with every number dead): the match layer and the event log stay uniform.
* ``MarkWhiteSum`` states its number, which must equal the white sum (``WRONG_SUM``);
  ``MarkColourSum`` names a white die (0 or 1) and a colour, and both white dice are listed
  even when they show the same face.
* A second action-1 submission of one seat is ``ALREADY_DECIDED``; a seat other than the
  active one that offers a colour-sum move in action 1 gets ``NOT_ACTIVE_SEAT``; in action 2
  the other seats owe nothing (``NOT_YOUR_TURN``).
* Whether a seat has submitted its action-1 choice is public (``to_act`` in the view);
  what it chose is not.
* The lock cross is not stored: a row holds its lock exactly when it holds its last number.

Version history:

* 1 -- first version.
"""

from __future__ import annotations

from botarena.server.games.qwixx.errors import QwixxReason
from botarena.server.games.qwixx.moves import (
    ColourSumChoice,
    Decline,
    MarkColourSum,
    MarkWhiteSum,
    QwixxMove,
    WhiteSumChoice,
)
from botarena.server.games.qwixx.rules import QWIXX, QwixxRules
from botarena.server.games.qwixx.sheet import (
    LAST_NUMBER,
    LOCK_MINIMUM,
    MAX_PENALTIES,
    PENALTY_POINTS,
    ROW_NUMBERS,
    Colour,
    Sheet,
    triangle,
)
from botarena.server.games.qwixx.state import (
    Action,
    ColourSumApplied,
    Dice,
    EndReason,
    GameEnded,
    HistoryEntry,
    Penalised,
    QwixxConfig,
    QwixxState,
    Rolled,
    RowLocked,
    StarterPicked,
    WhiteSumsApplied,
)
from botarena.server.games.qwixx.views import QwixxView

__all__ = [
    "LAST_NUMBER",
    "LOCK_MINIMUM",
    "MAX_PENALTIES",
    "PENALTY_POINTS",
    "QWIXX",
    "ROW_NUMBERS",
    "Action",
    "Colour",
    "ColourSumApplied",
    "ColourSumChoice",
    "Decline",
    "Dice",
    "EndReason",
    "GameEnded",
    "HistoryEntry",
    "MarkColourSum",
    "MarkWhiteSum",
    "Penalised",
    "QwixxConfig",
    "QwixxMove",
    "QwixxReason",
    "QwixxRules",
    "QwixxState",
    "QwixxView",
    "Rolled",
    "RowLocked",
    "Sheet",
    "StarterPicked",
    "WhiteSumChoice",
    "WhiteSumsApplied",
    "triangle",
]
