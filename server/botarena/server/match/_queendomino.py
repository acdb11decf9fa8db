"""Queendomino's match policies: the documented stand-in move and live scores.

The stand-in move (match.proto: TIMEOUT_POLICY_DEFAULT_MOVE) is weak (RULES.md 3):

* the optional steps B, C and D: ``Skip()`` (no knight placed, nothing bought or burned);
* the mandatory steps A and E: a uniformly random legal move (a random placement, or
  ``Discard()`` when the domino fits nowhere; a random free domino).
"""

from __future__ import annotations

from typing import Any

from botarena.server.games import Rules, Seat
from botarena.server.games.queendomino.moves import Skip
from botarena.server.games.queendomino.views import QueendominoView
from botarena.server.match._hooks import GameHooks, Pick

__all__ = ["QueendominoHooks"]


class QueendominoHooks(GameHooks):
    """Queendomino's stand-in move and scores (see the module docstring)."""

    def stand_in_move(
        self, rules: Rules[Any, Any, Any, Any], state: Any, seat: Seat, pick: Pick
    ) -> object:
        """Return Queendomino's stand-in move for ``seat`` (see the module docstring).

        Raises:
            LookupError: The seat has no legal move.
        """
        moves = rules.legal_moves(state, seat)
        if not moves:
            raise LookupError(f"seat {seat} has no legal move")
        if any(isinstance(move, Skip) for move in moves):
            return Skip()
        return pick(moves)

    def scores(
        self, rules: Rules[Any, Any, Any, Any], state: Any, seat_count: int
    ) -> tuple[int, ...]:
        """Return every seat's score if the game ended now, as the public view shows it."""
        view: QueendominoView = rules.view(state, None)
        return tuple(view.scores)
