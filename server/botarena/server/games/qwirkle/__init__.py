"""Qwirkle: the pure rules engine (shared/games/qwirkle/RULES.md, official English rules).

``QWIRKLE`` implements ``Rules[QwirkleConfig, QwirkleState, QwirkleMove, QwirkleView]``.
A move is ``Place(placements)``, ``Exchange(tiles)`` or ``Pass()``; placements from
``legal_moves`` carry their ``score``.

Rulings implemented (RULES.md, each tested in ``tests/games/qwirkle``):

* 2 to 4 seats; anything else is a ``ValueError``.
* Opening-size ties are broken by a seeded random pick among the tied seats, recorded in
  the first history entry (``OpeningPicked``); play then goes by ascending seat index.
* The first move is one line of exactly the opening size and must cover cell (0, 0);
  no exchange or pass on it. A lone opening tile scores 1.
* An exchange swaps at most as many tiles as the bag holds; none with an empty bag.
* If the bag is empty and every seat in turn had to pass, the game ends ("blocked"),
  with no bonus.

Decisions where RULES.md is silent (see also the package's tests):

* An opening of six tiles is a completed line of six and scores 12, like any move.
* Drawing picks a uniformly random tile of the bag (from ``seed`` and the draw counter),
  which is drawing from a shuffled bag; "shuffle after an exchange" needs no extra step.
* The history shows every seat's opening size, as the rulebook has the players announce
  them.

Version history:

* 1 -- first version.
"""

from __future__ import annotations

from botarena.server.games.qwirkle.errors import QwirkleReason
from botarena.server.games.qwirkle.moves import (
    Cell,
    Exchange,
    Pass,
    Place,
    Placement,
    QwirkleMove,
)
from botarena.server.games.qwirkle.rules import QWIRKLE, QwirkleRules
from botarena.server.games.qwirkle.state import (
    EndReason,
    Exchanged,
    GameEnded,
    HistoryEntry,
    OpeningPicked,
    Passed,
    Placed,
    QwirkleConfig,
    QwirkleState,
    opening_size,
)
from botarena.server.games.qwirkle.tiles import COPIES, FULL_BAG, Colour, Shape, Tile
from botarena.server.games.qwirkle.views import QwirkleView

__all__ = [
    "COPIES",
    "FULL_BAG",
    "QWIRKLE",
    "Cell",
    "Colour",
    "EndReason",
    "Exchange",
    "Exchanged",
    "GameEnded",
    "HistoryEntry",
    "OpeningPicked",
    "Pass",
    "Passed",
    "Place",
    "Placed",
    "Placement",
    "QwirkleConfig",
    "QwirkleMove",
    "QwirkleReason",
    "QwirkleRules",
    "QwirkleState",
    "QwirkleView",
    "Shape",
    "Tile",
    "opening_size",
]
