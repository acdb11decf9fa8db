"""Queendomino's match policies: the documented default move and live scores.

The default move (match.proto: TIMEOUT_POLICY_DEFAULT_MOVE) keeps a timed-out seat's
kingdom growing without spending anything (RULES.md 3):

* step A: the first legal move, which is the first legal placement in the engine's
  order, or ``Discard()`` when the domino fits nowhere (then it is the only legal move);
* the optional steps B, C and D: ``Skip()`` (no knight placed, nothing bought or burned);
* step E: ``Choose`` the free domino with the lowest number (the king acts early in the
  next round).
"""

from __future__ import annotations

from typing import Any

from botarena.server.games import Rules, Seat
from botarena.server.games.queendomino.moves import Choose, Skip
from botarena.server.games.queendomino.views import QueendominoView
from botarena.server.match._hooks import GameHooks

__all__ = ["QueendominoHooks"]


class QueendominoHooks(GameHooks):
    """Queendomino's default move and scores (see the module docstring)."""

    def default_move(self, rules: Rules[Any, Any, Any, Any], state: Any, seat: Seat) -> object:
        """Return Queendomino's default move for ``seat`` (see the module docstring).

        Raises:
            LookupError: The seat has no legal move.
        """
        moves = rules.legal_moves(state, seat)
        if not moves:
            raise LookupError(f"seat {seat} has no legal move")
        if any(isinstance(move, Skip) for move in moves):
            return Skip()
        choices = [move for move in moves if isinstance(move, Choose)]
        if choices:
            return min(choices, key=lambda move: move.domino)
        return moves[0]

    def scores(
        self, rules: Rules[Any, Any, Any, Any], state: Any, seat_count: int
    ) -> tuple[int, ...]:
        """Return every seat's score if the game ended now, as the public view shows it."""
        view: QueendominoView = rules.view(state, None)
        return tuple(view.scores)
