"""Qwirkle's match policies: the documented default move and live scores.

The default move (match.proto: TIMEOUT_POLICY_DEFAULT_MOVE) is the highest-scoring
placement, ties to the first in legal-move order; else an exchange of the whole rack (when
the bag holds fewer tiles than the rack, the rack's first tiles in tile order, as many as
the bag holds); else a pass.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from botarena.server.games import Rules, Seat
from botarena.server.games.qwirkle import Exchange, Pass, Place, QwirkleView
from botarena.server.match._hooks import GameHooks, first_with_best_score

__all__ = ["QwirkleHooks"]


class QwirkleHooks(GameHooks):
    """Qwirkle's default move and scores (see the module docstring)."""

    def default_move(self, rules: Rules[Any, Any, Any, Any], state: Any, seat: Seat) -> object:
        """Return Qwirkle's default move for ``seat``.

        Raises:
            LookupError: The seat has no legal move (it is not to act).
        """
        moves = rules.legal_moves(state, seat)
        best = first_with_best_score([move for move in moves if isinstance(move, Place)])
        if best is not None:
            return best
        view: QwirkleView = rules.view(state, seat)
        rack = view.rack or ()
        count = min(len(rack), view.bag_size)
        if count:
            exchange = Exchange(rack[:count])
            if exchange in moves:
                return exchange
        if Pass() in moves:
            return Pass()
        if not moves:
            raise LookupError(f"seat {seat} has no legal move")
        return moves[0]

    def annotate(
        self, rules: Rules[Any, Any, Any, Any], state: Any, seat: Seat, move: object
    ) -> object:
        """Return a placement with its score (what ``legal_moves`` lists); others as given.

        Scores one placement instead of generating every legal move: a replay does this
        for every logged placement.
        """
        if isinstance(move, Place) and move.score is None:
            return replace(move, score=rules.score(state, seat, move))  # type: ignore[attr-defined]
        return move

    def scores(
        self, rules: Rules[Any, Any, Any, Any], state: Any, seat_count: int
    ) -> tuple[int, ...]:
        """Return every seat's current score, as the public view shows it."""
        view: QwirkleView = rules.view(state, None)
        return tuple(view.scores)
