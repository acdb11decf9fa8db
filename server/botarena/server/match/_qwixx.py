"""Qwixx's match policies: the documented stand-in move and live scores.

The stand-in move (match.proto: TIMEOUT_POLICY_DEFAULT_MOVE) is ``Decline()`` in either
action: always legal, it marks nothing (in action 2 the active seat then takes the
penalty if it marked nothing in action 1, as RULES.md says for a seat that declines), so
it is weaker than any player that marks: a random mark could be a good one.
"""

from __future__ import annotations

from typing import Any

from botarena.server.games import Rules, Seat
from botarena.server.games.qwixx import Decline, QwixxView
from botarena.server.match._hooks import GameHooks, Pick

__all__ = ["QwixxHooks"]


class QwixxHooks(GameHooks):
    """Qwixx's stand-in move and scores (see the module docstring)."""

    def stand_in_move(
        self, rules: Rules[Any, Any, Any, Any], state: Any, seat: Seat, pick: Pick
    ) -> object:
        """Return ``Decline()``, Qwixx's stand-in move.

        Raises:
            LookupError: The seat owes no decision now.
        """
        if seat not in rules.to_act(state):
            raise LookupError(f"seat {seat} has no legal move")
        return Decline()

    def scores(
        self, rules: Rules[Any, Any, Any, Any], state: Any, seat_count: int
    ) -> tuple[int, ...]:
        """Return every seat's current total, as the public view shows it."""
        view: QwixxView = rules.view(state, None)
        return tuple(view.scores)
