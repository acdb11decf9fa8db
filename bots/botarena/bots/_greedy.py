"""The greedy Qwirkle bot: the highest-scoring placement now, with a simple exchange rule.

It works from the view and the legal moves alone (the server scores every legal
placement), so it needs no engine. The rule, in order:

1. If some placement scores more than ``exchange_threshold`` (default 2), or no exchange
   is legal (the opening move, an empty bag), play the highest-scoring placement; ties
   go to a seeded random pick among them.
2. Otherwise, if an exchange is legal, keep the rack's best *group*: the largest set of
   distinct tiles sharing a colour or a shape (ties picked at random), one tile of each;
   exchange every other tile (duplicates included: a line never holds a tile twice). If
   that keeps the whole rack, exchange the whole rack. When the bag holds fewer tiles than
   that, exchange only as many, taking the tiles outside the group first in tile order.
3. Otherwise (no placement, no exchange) play the only move left, the pass.
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Sequence

from botarena.bots._checks import UnsupportedGameError, check_decision
from botarena.v1 import match_pb2, qwirkle_pb2

__all__ = ["DEFAULT_EXCHANGE_THRESHOLD", "GreedyQwirkleBot", "UnsupportedGameError"]

DEFAULT_EXCHANGE_THRESHOLD = 2
"""Placements scoring at most this are traded for an exchange when one is legal."""

_TileKey = tuple[int, int]


class GreedyQwirkleBot:
    """Plays the highest-scoring Qwirkle placement; exchanges when it has only small ones.

    Attributes:
        game: The game it plays (the server's registry name).

    Args:
        exchange_threshold: Exchange instead of placing when the best placement scores at
            most this (and an exchange is legal); -1 never exchanges while it can place.
    """

    game = "qwirkle"

    def __init__(self, *, exchange_threshold: int = DEFAULT_EXCHANGE_THRESHOLD) -> None:
        self.exchange_threshold = exchange_threshold

    def choose_move(
        self,
        view: match_pb2.PlayerView,
        legal_moves: Sequence[match_pb2.Move],
        rng: random.Random,
    ) -> match_pb2.Move:
        """Return the move the module's rule picks.

        Raises:
            UnsupportedGameError: The match is not a Qwirkle match.
            ValueError: ``legal_moves`` is empty.
        """
        check_decision(view, legal_moves, "qwirkle", "greedy")
        # One pass, each field read once: every decision goes through here (~130 moves).
        places: list[tuple[int, match_pb2.Move]] = []
        exchanges: list[match_pb2.Move] = []
        for move in legal_moves:
            action = move.qwirkle
            kind = action.WhichOneof("action")
            if kind == "place":
                places.append((action.place.score, move))
            elif kind == "exchange":
                exchanges.append(move)
        best_score = max((score for score, _ in places), default=None)
        if best_score is not None and (best_score > self.exchange_threshold or not exchanges):
            best = [move for score, move in places if score == best_score]
            return best[rng.randrange(len(best))]
        if exchanges:
            return _exchange_move(view.qwirkle, exchanges, rng)
        return legal_moves[0]


def _exchange_move(
    view: qwirkle_pb2.QwirkleView, exchanges: Sequence[match_pb2.Move], rng: random.Random
) -> match_pb2.Move:
    """Return the legal exchange of the tiles outside the rack's best group."""
    rack = sorted(_key(tile) for tile in view.rack)
    keep = _best_group(rack, rng)
    remaining = Counter(rack)
    remaining.subtract(keep)
    outside = sorted(remaining.elements()) or rack
    wanted = Counter(outside[: view.bag_size])
    for move in exchanges:
        if Counter(_key(tile) for tile in move.qwirkle.exchange.tiles) == wanted:
            return move
    # The server lists every exchange the bag allows, so this is unreachable unless the
    # server changes; the largest legal exchange is the closest to the rule.
    return max(exchanges, key=lambda move: len(move.qwirkle.exchange.tiles))


def _best_group(rack: Sequence[_TileKey], rng: random.Random) -> list[_TileKey]:
    """Return one tile of each distinct tile in the rack's largest colour or shape group."""
    distinct = sorted(set(rack))
    groups: list[list[_TileKey]] = []
    for attribute in (0, 1):
        for value in sorted({tile[attribute] for tile in distinct}):
            groups.append([tile for tile in distinct if tile[attribute] == value])
    if not groups:
        return []
    largest = max(len(group) for group in groups)
    candidates = [group for group in groups if len(group) == largest]
    return candidates[rng.randrange(len(candidates))]


def _key(tile: qwirkle_pb2.QwirkleTile) -> _TileKey:
    return (int(tile.colour), int(tile.shape))
