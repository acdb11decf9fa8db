"""Qwirkle's match policies: placements annotated with their score, and live scores.

The stand-in move (match.proto: TIMEOUT_POLICY_DEFAULT_MOVE) is the generic one, a
uniformly random legal move (placement, exchange or pass): a timed-out seat never plays
better than the ``random`` bot (docs/decisions.md: Fair play).
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from botarena.server.games import Rules, Seat
from botarena.server.games.qwirkle import Place, QwirkleView
from botarena.server.match._hooks import GameHooks

__all__ = ["QwirkleHooks"]


class QwirkleHooks(GameHooks):
    """Qwirkle's annotations and scores (see the module docstring)."""

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
