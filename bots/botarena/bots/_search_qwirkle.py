"""The Qwirkle search bot: sampled racks, the other seat's best reply, and the leave.

Each decision it draws ``samples`` determinizations (the other racks and the bag dealt
from the unseen tiles, :class:`~botarena.clients.search.QwirkleModel`) and plays out every
candidate move in each of them (the same samples for every candidate, so that their
differences are not noise):

1. *Candidates*: the placements with the best ``score + leave`` (the leave is what the
   rack keeps: tiles sharing a colour or a shape are worth keeping, copies of one tile
   are not), and a few exchanges that keep the rack's best groups.
2. *Play-out*: the move, then the next seat's highest-scoring placement (the reply a
   greedy player makes, which is how a set-up line of five costs), then the bot's own
   best placement after it (what the move leaves it to play with).
3. *Value*: own points - the reply's points + ``follow_weight`` x the follow-up's points
   + ``leave_weight`` x the leave of the rack after the draw, averaged over the samples.

Once the bag is empty nothing is hidden in two seats (the other rack is every unseen
tile): it searches the rest of the game exactly, to a depth the time allows, the
``endgame_width`` best placements of each rack, ending the game (+6) when it can.
The budget per decision is ``samples`` play-outs per candidate, cut short at
``time_limit`` seconds (default 0.25; at most half of what the decision's clock has
left); with the full sample count it is deterministic for its seed.
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass

from botarena.bots._checks import check_decision
from botarena.clients.search import QwirkleModel, ThinkBudget, think_budget
from botarena.server.games import Seat
from botarena.server.games.qwirkle import (
    QWIRKLE,
    Exchange,
    Pass,
    Place,
    QwirkleMove,
    QwirkleState,
    Tile,
)
from botarena.v1 import match_pb2

__all__ = ["QwirkleSearchSettings", "SearchQwirkleBot", "leave_value"]


@dataclass(frozen=True, slots=True)
class QwirkleSearchSettings:
    """The search bot's knobs (the defaults are the tuned ones, docs/bots.md).

    Attributes:
        samples: Determinizations per decision.
        prune_after: After this many samples only the ``keep`` best candidates are
            played out in the rest (successive halving; off at the default, which measured
            weaker than playing every candidate out in every sample).
        keep: Candidates kept after ``prune_after`` samples.
        candidates: Placements kept for the play-out, by ``score + leave``.
        exchanges: Exchanges kept for the play-out (0: never exchange while it can place).
        follow_weight: Weight of the bot's own best placement after the reply.
        leave_weight: Weight of the leave of the rack after the move and its draw.
        endgame_width: Placements of each rack searched once the bag is empty.
        endgame_depth: Moves searched ahead once the bag is empty, at most.
        time_limit: Seconds per decision at most (less when the clock says so).
    """

    samples: int = 10
    prune_after: int = 10
    keep: int = 4
    candidates: int = 8
    exchanges: int = 2
    follow_weight: float = 0.5
    leave_weight: float = 0.0
    endgame_width: int = 6
    endgame_depth: int = 4
    time_limit: float = 0.25


_RANDOM_LEAVE = (0.0, 0.5, 0.75, 1.214, 1.815, 2.549, 3.423)
"""The mean raw leave of n tiles drawn from a full bag (200,000 samples each), so that a
leave says how much better the tiles kept are than as many drawn instead."""


def leave_value(rack: Sequence[Tile]) -> float:
    """Return how much better a kept rack is than as many random tiles: pairs of distinct
    tiles that share a colour or a shape count, copies of one tile count against, the
    largest group counts most.

    >>> round(leave_value([Tile.RED_CIRCLE, Tile.RED_SQUARE, Tile.RED_DIAMOND]), 3)
    3.286
    >>> leave_value([Tile.RED_CIRCLE, Tile.RED_CIRCLE])
    -1.75
    """
    return _raw_leave(rack) - _RANDOM_LEAVE[len(rack)]


def _raw_leave(rack: Sequence[Tile]) -> float:
    if not rack:
        return 0.0
    distinct = sorted(set(rack))
    copies = len(rack) - len(distinct)
    colours = Counter(tile // 6 for tile in distinct)
    shapes = Counter(tile % 6 for tile in distinct)
    pairs = sum(n * (n - 1) // 2 for n in colours.values()) + sum(
        n * (n - 1) // 2 for n in shapes.values()
    )
    largest = max(max(colours.values()), max(shapes.values()))
    return 0.5 * pairs + 0.5 * largest + 0.5 * largest * (largest >= 3) - 1.5 * copies


def _after(rack: Sequence[Tile], move: QwirkleMove) -> list[Tile]:
    left = list(rack)
    tiles = move.tiles if isinstance(move, Place | Exchange) else ()
    for tile in tiles:
        left.remove(tile)
    return left


def _best_score(state: QwirkleState, seat: Seat) -> tuple[int, Place | None]:
    best: Place | None = None
    score = 0
    for move in QWIRKLE.placements(state, seat):
        if move.score is not None and move.score > score:
            score, best = move.score, move
    return score, best


class SearchQwirkleBot:
    """Plays Qwirkle by sampled look-ahead (see the module docstring).

    Attributes:
        game: The game it plays (the server's registry name).

    Args:
        settings: The knobs; the defaults are the tuned ones.
    """

    game = "qwirkle"

    def __init__(self, settings: QwirkleSearchSettings | None = None) -> None:
        self.settings = settings or QwirkleSearchSettings()
        self.model = QwirkleModel()

    def choose_move(
        self,
        view: match_pb2.PlayerView,
        legal_moves: Sequence[match_pb2.Move],
        rng: random.Random,
    ) -> match_pb2.Move:
        """Return the move with the best sampled value.

        Raises:
            UnsupportedGameError: The match is not a Qwirkle match.
            ValueError: ``legal_moves`` is empty.
        """
        check_decision(view, legal_moves, "qwirkle", "search")
        budget = think_budget(self.settings.time_limit)
        self.model.observe(view)
        if len(legal_moves) == 1:
            choice = legal_moves[0]
        else:
            moves = [self.model.engine_move(move) for move in legal_moves]
            scores = [move.qwirkle.place.score for move in legal_moves]
            best = self._search(view, moves, scores, rng, budget)
            choice = legal_moves[best]
        self.model.played(choice)
        return choice

    # ------------------------------------------------------------------ search

    def _candidates(
        self, rack: Sequence[Tile], moves: Sequence[QwirkleMove], scores: Sequence[int]
    ) -> list[int]:
        settings = self.settings
        places = [i for i, move in enumerate(moves) if isinstance(move, Place)]
        exchanges = [i for i, move in enumerate(moves) if isinstance(move, Exchange)]
        static = {
            i: scores[i] + settings.leave_weight * leave_value(_after(rack, moves[i]))
            for i in places
        }
        chosen = sorted(places, key=lambda i: -static[i])[: settings.candidates]
        if settings.exchanges and exchanges:
            kept = sorted(
                exchanges,
                key=lambda i: -leave_value(_after(rack, moves[i])) - 0.1 * len(moves[i].tiles),  # type: ignore[union-attr]
            )
            chosen += kept[: settings.exchanges]
        if not chosen:
            chosen = [i for i, move in enumerate(moves) if isinstance(move, Pass)][:1] or [0]
        return chosen

    def _search(
        self,
        view: match_pb2.PlayerView,
        moves: Sequence[QwirkleMove],
        scores: Sequence[int],
        rng: random.Random,
        budget: ThinkBudget,
    ) -> int:
        settings = self.settings
        seat = view.seat
        game = view.qwirkle
        state0 = self.model.determinize(view, rng)
        my_rack = state0.racks[seat]
        candidates = self._candidates(my_rack, moves, scores)
        if len(candidates) == 1:
            return candidates[0]
        if game.bag_size == 0 and len(game.seats) == 2 and settings.endgame_depth:
            return self._endgame(state0, seat, moves, candidates, budget)
        if settings.samples == 0:
            return candidates[0]
        totals = dict.fromkeys(candidates, 0.0)
        alive = list(candidates)
        for sample in range(settings.samples):
            if sample and budget.exhausted():
                break
            state = state0 if sample == 0 else self.model.determinize(view, rng)
            for index in alive:
                totals[index] += self._play_out(state, seat, moves[index])
            if sample + 1 == settings.prune_after and len(alive) > settings.keep:
                # Successive halving: the rest of the samples go to the leaders.
                alive = sorted(alive, key=lambda i: (-totals[i], -scores[i], i))[: settings.keep]
        return max(alive, key=lambda i: (totals[i], scores[i], -i))

    def _play_out(self, state: QwirkleState, seat: Seat, move: QwirkleMove) -> float:
        settings = self.settings
        before = state.scores[seat]
        after = QWIRKLE.apply(state, seat, move)
        value = float(after.scores[seat] - before)
        if after.turn is None:
            return value
        reply_seat = after.turn
        reply_score, reply = _best_score(after, reply_seat)
        value -= reply_score
        if reply is None or settings.follow_weight == 0:
            return value + settings.leave_weight * leave_value(after.racks[seat])
        replied = QWIRKLE.apply(after, reply_seat, reply)
        if replied.turn is None:
            # The reply went out: its bonus counts, and the bot has no follow-up.
            return value - (replied.scores[reply_seat] - after.scores[reply_seat] - reply_score)
        follow = _best_score(replied, seat)[0] if replied.turn == seat else 0
        return (
            value
            + settings.follow_weight * follow
            + settings.leave_weight * leave_value(replied.racks[seat])
        )

    # ------------------------------------------------------------------ endgame

    def _endgame(
        self,
        state: QwirkleState,
        seat: Seat,
        moves: Sequence[QwirkleMove],
        candidates: Sequence[int],
        budget: ThinkBudget,
    ) -> int:
        """Search the rest of the game: nothing is hidden with an empty bag in 2 seats."""
        width = self.settings.endgame_width
        best_index = candidates[0]
        for depth in range(1, self.settings.endgame_depth + 1):
            results: dict[int, float] = {}
            for index in candidates:
                after = QWIRKLE.apply(state, seat, moves[index])
                value = self._minimax(after, seat, depth - 1, width, budget)
                if value is None:
                    return best_index
                results[index] = value
            best_index = max(candidates, key=lambda i: (results[i], -i))
            if budget.exhausted():
                break
        return best_index

    def _minimax(
        self, state: QwirkleState, seat: Seat, depth: int, width: int, budget: ThinkBudget
    ) -> float | None:
        """Return the score difference for ``seat`` with best play to ``depth`` more moves,
        or ``None`` when the budget ran out."""
        if budget.exhausted():
            return None
        other = 1 - seat
        if state.turn is None or depth == 0:
            return float(state.scores[seat] - state.scores[other])
        mover = state.turn
        options: list[QwirkleMove] = list(
            sorted(QWIRKLE.placements(state, mover), key=lambda m: -(m.score or 0))[:width]
        )
        if not options:
            options = list(QWIRKLE.legal_moves(state, mover))[:1]
        best: float | None = None
        for move in options:
            value = self._minimax(QWIRKLE.apply(state, mover, move), seat, depth - 1, width, budget)
            if value is None:
                return None
            if best is None or (value > best if mover == seat else value < best):
                best = value
        return best
