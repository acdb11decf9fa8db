"""The Qwixx search bot: play-outs of every sensible choice, on the same dice.

Qwixx hides nothing but the future dice (and, in action 1, the sealed choices of seats
that have chosen). Each decision the bot takes the legal moves worth considering (declining,
and the marks that skip at most ``max_skip`` numbers), and plays the game out from each
of them ``playouts`` times with :class:`QwixxPolicy` deciding for every seat. Every
candidate sees the same dice in its i-th play-out (the i-th determinization's seed,
:class:`~botarena.clients.search.QwixxModel`), so that their difference is the choice's,
not the dice's. The value of a play-out is 1 for a win, 1/2 for a shared first place,
0 for a loss, plus ``margin_weight`` x the score difference; the bot plays the choice
with the best mean. A sealed choice of another seat is guessed with the same policy.

:class:`QwixxPolicy` is the heuristic bot's rule (``botarena.bots.HeuristicQwixxBot``)
with its thresholds as knobs, on engine states, fast enough for play-outs.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import dataclass

from botarena.bots._checks import check_decision
from botarena.bots._heuristic import skip as heuristic_skip
from botarena.clients.search import QwixxModel, think_budget
from botarena.server.games import Seat
from botarena.server.games.qwixx import (
    LAST_NUMBER,
    QWIXX,
    Action,
    Colour,
    Decline,
    Dice,
    MarkColourSum,
    MarkWhiteSum,
    QwixxMove,
    QwixxState,
    WhiteSumChoice,
)
from botarena.v1 import match_pb2

__all__ = [
    "HEURISTIC",
    "TUNED",
    "QwixxPolicy",
    "QwixxSearchSettings",
    "SearchQwixxBot",
    "play_out",
    "skip",
]

_DECLINE = Decline()
_RED_YELLOW = (Colour.RED, Colour.YELLOW)


def marked(state: QwixxState, move: QwixxMove) -> tuple[Colour, int] | None:
    """The row and the number a mark marks in ``state`` (``None``: a decline)."""
    if isinstance(move, MarkWhiteSum):
        return move.colour, move.number
    if isinstance(move, MarkColourSum):
        die = state.dice.colours[move.colour]
        assert die is not None
        return move.colour, state.dice.white[move.white] + die
    return None


def skip(row: tuple[int, ...], colour: Colour, number: int) -> float:
    """The heuristic bot's skip (``_heuristic.skip``) of an engine row."""
    return heuristic_skip(row, colour in _RED_YELLOW, number)


@dataclass(frozen=True, slots=True)
class QwixxPolicy:
    """The heuristic bot's rule (its module docstring) with its thresholds as knobs.

    The defaults are the heuristic bot's own: ``QwixxPolicy()`` chooses as
    ``HeuristicQwixxBot`` does.

    Attributes:
        white_limit: Action 1 marks skipping at most this (plus urgency x
            ``urgency_weight``).
        marked_limit: Action 2 after an action-1 mark.
        unmarked_limit: Action 2 without one (a penalty looms), plus urgency x
            ``unmarked_urgency``.
        urgency_weight: How much the nearness of the end raises the limits.
        unmarked_urgency: The same for ``unmarked_limit``.
        lock_only_ahead: Lock a row only while the seat's total is at least every other.
        plan_turn: The active seat picks its action 1 together with the action 2 its rule
            would play after it (the dice of both are known when it chooses).
        penalty_cost: What a turn without any mark costs in such a plan, in skips.
    """

    white_limit: float = 1.5
    marked_limit: float = 0.5
    unmarked_limit: float = 3.0
    urgency_weight: float = 0.5
    unmarked_urgency: float = 1.0
    lock_only_ahead: bool = True
    plan_turn: bool = False
    penalty_cost: float = 2.0

    def choose(self, state: QwixxState, seat: Seat) -> QwixxMove:
        """Return the policy's move for ``seat``, which must owe a decision."""
        if self.plan_turn and state.action is Action.WHITE_SUM and seat == state.active:
            return self._plan(state, seat)
        return self._rule(state, seat)[0]

    def _plan(self, state: QwixxState, seat: Seat) -> QwixxMove:
        """The active seat's action 1, chosen with the action 2 its rule would play after
        it: the most (limit - skip) over both marks, less ``penalty_cost`` for none."""
        sheets = state.sheets
        rows = sheets[seat].rows
        urgency = max(other.penalties for other in sheets) + 2 * len(state.locked_rows)
        ahead = all(other.score <= sheets[seat].score for other in sheets)
        best_value = float("-inf")
        best_move: QwixxMove = _DECLINE
        for move in QWIXX.legal_moves(state, seat):
            value = 0.0
            after = state
            if isinstance(move, MarkWhiteSum):
                if move.number == LAST_NUMBER[move.colour] and self.lock_only_ahead and not ahead:
                    continue
                value += self.white_limit + self.urgency_weight * urgency
                value -= skip(rows[move.colour], move.colour, move.number)
                marked = list(sheets)
                marked[seat] = marked[seat].with_mark(move.colour, move.number)
                after = state._replace(sheets=tuple(marked))
                if move.number == LAST_NUMBER[move.colour]:
                    colours = list(state.dice.colours)
                    colours[move.colour] = None
                    after = after._replace(
                        locked_rows=state.locked_rows | {move.colour},
                        dice=Dice(
                            state.dice.white, (colours[0], colours[1], colours[2], colours[3])
                        ),
                    )
            second = after._replace(
                action=Action.COLOUR_SUM, marked_white_sum=isinstance(move, MarkWhiteSum)
            )
            colour_move, colour_skip, limit = self._rule(second, seat)
            if isinstance(colour_move, MarkColourSum):
                value += limit - colour_skip
            elif not isinstance(move, MarkWhiteSum):
                value -= self.penalty_cost
            if value > best_value:
                best_value, best_move = value, move
        return best_move

    def _rule(self, state: QwixxState, seat: Seat) -> tuple[QwixxMove, float, float]:
        """The heuristic's rule: its move, the move's skip and the limit it was held to."""
        sheets = state.sheets
        sheet = sheets[seat]
        rows = sheet.rows
        score = sheet.score
        ahead = all(other.score <= score for other in sheets)
        best: tuple[float, int, int] | None = None
        best_move: QwixxMove = _DECLINE
        for index, move in enumerate(QWIXX.legal_moves(state, seat)):
            mark = marked(state, move)
            if mark is None:
                continue
            colour, number = mark
            if number == LAST_NUMBER[colour] and self.lock_only_ahead and not ahead:
                continue
            row = rows[colour]
            key = (skip(row, colour, number), -len(row), index)
            if best is None or key < best:
                best, best_move = key, move
        if best is None:
            return _DECLINE, 0.0, 0.0
        urgency = max(other.penalties for other in sheets) + 2 * len(state.locked_rows)
        if state.action is Action.WHITE_SUM:
            limit = self.white_limit + self.urgency_weight * urgency
        elif state.marked_white_sum:
            limit = self.marked_limit + self.urgency_weight * urgency
        elif sheet.penalties >= 3:
            limit = float("inf")
        else:
            limit = self.unmarked_limit + self.unmarked_urgency * urgency
        return (best_move if best[0] <= limit else _DECLINE), best[0], limit

    def sealed(self, state: QwixxState, seat: Seat, rng: random.Random) -> WhiteSumChoice:
        """Guess a seat's sealed action-1 choice (a ``SealedChoice``): the policy's own."""
        del rng
        move = self.choose(state, seat)
        assert isinstance(move, MarkWhiteSum | Decline)
        return move


HEURISTIC = QwixxPolicy()
"""The heuristic bot's rule."""

TUNED = QwixxPolicy(marked_limit=1.0, unmarked_limit=4.0, lock_only_ahead=False)
"""The rule with the knobs that won most often against it in 2 seats: locks whenever it
can, and marks more freely in action 2 (bench/bench_search.py, docs/bots.md)."""


def play_out(state: QwixxState, policies: Sequence[QwixxPolicy]) -> QwixxState:
    """Return the end of the game from ``state``, every seat playing its policy."""
    while state.action is not None:
        if state.action is Action.WHITE_SUM:
            for seat, choice in enumerate(state.choices):
                if choice is None:
                    state = QWIXX.apply(state, seat, policies[seat].choose(state, seat))
        else:
            seat = state.active
            state = QWIXX.apply(state, seat, policies[seat].choose(state, seat))
    return state


@dataclass(frozen=True, slots=True)
class QwixxSearchSettings:
    """The search bot's knobs (the defaults are the tuned ones, docs/bots.md).

    Attributes:
        playouts: Play-outs per candidate move.
        max_skip: Marks that skip more numbers than this are not considered.
        margin_weight: Weight of the score difference beside the win (per point).
        policy: How every seat plays in the play-outs.
        time_limit: Seconds per decision at most (less when the clock says so).
    """

    playouts: int = 48
    max_skip: float = 4.0
    margin_weight: float = 0.01
    policy: QwixxPolicy = TUNED
    time_limit: float = 0.25


class SearchQwixxBot:
    """Plays Qwixx by play-outs on common dice (see the module docstring).

    Attributes:
        game: The game it plays (the server's registry name).

    Args:
        settings: The knobs; the defaults are the tuned ones.
    """

    game = "qwixx"

    def __init__(self, settings: QwixxSearchSettings | None = None) -> None:
        self.settings = settings or QwixxSearchSettings()
        self.model = QwixxModel(sealed=self.settings.policy.sealed)

    def choose_move(
        self,
        view: match_pb2.PlayerView,
        legal_moves: Sequence[match_pb2.Move],
        rng: random.Random,
    ) -> match_pb2.Move:
        """Return the move with the best mean play-out value.

        Raises:
            UnsupportedGameError: The match is not a Qwixx match.
            ValueError: ``legal_moves`` is empty.
        """
        check_decision(view, legal_moves, "qwixx", "search")
        if len(legal_moves) == 1:
            return legal_moves[0]
        budget = think_budget(self.settings.time_limit)
        seat = view.seat
        first = self.model.determinize(view, rng)
        moves = [self.model.engine_move(move) for move in legal_moves]
        if self.settings.playouts == 0:
            return legal_moves[moves.index(self.settings.policy.choose(first, seat))]
        candidates = self._candidates(first, seat, moves)
        if len(candidates) == 1:
            return legal_moves[candidates[0]]
        settings = self.settings
        policies = [settings.policy] * first.seats
        totals = dict.fromkeys(candidates, 0.0)
        for playout in range(settings.playouts):
            if playout and budget.exhausted():
                break
            state = first if playout == 0 else self.model.determinize(view, rng)
            for index in candidates:
                end = play_out(QWIXX.apply(state, seat, moves[index]), policies)
                totals[index] += self._value(end, seat)
        best = max(candidates, key=lambda i: (totals[i], -i))
        return legal_moves[best]

    def _candidates(self, state: QwixxState, seat: Seat, moves: Sequence[QwixxMove]) -> list[int]:
        rows = state.sheets[seat].rows
        chosen = []
        for index, move in enumerate(moves):
            mark = marked(state, move)
            if mark is None:
                chosen.append(index)
                continue
            colour, number = mark
            # Two white dice of one face mark the same number: keep the first.
            if isinstance(move, MarkColourSum) and any(
                isinstance(other, MarkColourSum) and marked(state, other) == mark
                for other in moves[:index]
            ):
                continue
            if skip(rows[colour], colour, number) <= self.settings.max_skip:
                chosen.append(index)
        return chosen

    def _value(self, end: QwixxState, seat: Seat) -> float:
        scores = end.scores
        mine = scores[seat]
        best_other = max(score for s, score in enumerate(scores) if s != seat)
        if mine > best_other:
            win = 1.0
        elif mine == best_other:
            win = 0.5
        else:
            win = 0.0
        return win + self.settings.margin_weight * (mine - best_other)
