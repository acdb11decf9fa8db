"""The random bot: a uniform choice among the legal moves, for every game."""

from __future__ import annotations

import random
from collections.abc import Sequence

from botarena.v1 import match_pb2

__all__ = ["RandomBot"]


class RandomBot:
    """Plays a uniformly random legal move; the seeded ``rng`` makes it reproducible.

    It knows no rules, so it plays every game the server offers (where every subset of a
    hand may be exchanged, each subset counts as one move, so it exchanges often).
    """

    def choose_move(
        self,
        view: match_pb2.PlayerView,
        legal_moves: Sequence[match_pb2.Move],
        rng: random.Random,
    ) -> match_pb2.Move:
        """Return one of ``legal_moves``, each with the same probability.

        Raises:
            ValueError: ``legal_moves`` is empty.
        """
        if not legal_moves:
            raise ValueError("no legal moves to choose from")
        return legal_moves[rng.randrange(len(legal_moves))]
