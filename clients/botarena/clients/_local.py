"""Play bots against the pure engine in this process, with no server: fast and exact.

:func:`play_in_process` hands each bot what ``run_bot`` would (the decision's view and
legal moves, encoded by the server's own codec, and a seeded ``rng``) and applies its
answer to the engine directly. It is for developing and tuning bots, hundreds of games a
minute; the match runner measures them as a real match is played.
"""

from __future__ import annotations

import random
import time
from collections.abc import Sequence
from dataclasses import dataclass, field

from botarena.clients._bot import _CURRENT_DECISION, Bot, DecisionClock
from botarena.v1 import match_pb2

__all__ = ["IllegalBotMoveError", "InProcessGame", "play_in_process"]


class IllegalBotMoveError(ValueError):
    """A bot answered with a move the engine refuses (a bug in the bot)."""


@dataclass(frozen=True, slots=True)
class InProcessGame:
    """The result of one game played by :func:`play_in_process`.

    Attributes:
        scores: Every seat's final score.
        ranks: Every seat's place, 1 = first (shared places share the number).
        reason: Why the game ended (the engine's code).
        think_seconds: Per seat, how long each of its ``choose_move`` calls took.
    """

    scores: tuple[int, ...]
    ranks: tuple[int, ...]
    reason: str
    think_seconds: tuple[tuple[float, ...], ...] = field(repr=False)


def play_in_process(
    game: str,
    bots: Sequence[Bot],
    *,
    seed: int,
    bot_seeds: Sequence[int] | None = None,
    move_time: float | None = None,
) -> InProcessGame:
    """Play one game of ``game`` between ``bots`` (one per seat) on the engine alone.

    Args:
        game: The game's registry name (``"qwirkle"``).
        bots: One bot per seat, in seat order; the hooks ``on_match_start`` and
            ``on_match_end`` are called when defined.
        seed: The engine's match seed.
        bot_seeds: Seeds of each seat's ``rng`` (default ``seed * 100 + seat``).
        move_time: When set, ``current_decision()`` inside ``choose_move`` reports a clock
            of this many seconds per decision (no bank), as ``run_bot`` would; the
            harness itself never plays for a slow bot.

    Returns:
        The scores, ranks and think times.

    Raises:
        IllegalBotMoveError: A bot's move was refused by the engine.
        KeyError: ``game`` is not a registered game.
    """
    # Imported here, as for the test servers: the SDK needs the server only to test.
    from botarena.server.games import IllegalMoveError
    from botarena.server.service import plugin_for

    plugin = plugin_for(game)
    rules, codec = plugin.rules, plugin.codec
    config = rules.default_config()
    seats = len(bots)
    state = rules.new_match(config, seats, seed)
    seeds = list(bot_seeds) if bot_seeds is not None else [seed * 100 + s for s in range(seats)]
    rngs = [random.Random(s) for s in seeds]
    match = match_pb2.Match(name="matches/in-process", state=match_pb2.Match.STATE_ACTIVE)
    match.config.game = plugin.proto_game
    match.config.seat_count = seats
    codec.encode_config(config, match.config)
    for seat, bot in enumerate(bots):
        hook = getattr(bot, "on_match_start", None)
        if hook is not None:
            hook(match, seat)
    times: list[list[float]] = [[] for _ in range(seats)]
    version = 0
    while rules.outcome(state) is None:
        # Every seat that must decide is asked before any answer is applied, as the
        # server asks the seats of a simultaneous decision at once.
        asked = []
        for seat in sorted(rules.to_act(state)):
            view = match_pb2.PlayerView()
            codec.encode_view(rules.view(state, seat), seat, with_history=False, out=view)
            legal = rules.legal_moves(state, seat)
            asked.append((seat, view, codec.encode_moves(legal)))
        for seat, view, messages in asked:
            token = None
            if move_time is not None:
                clock = DecisionClock(seat, version, time.monotonic(), move_time, 0.0)
                token = _CURRENT_DECISION.set(clock)
            started = time.perf_counter()
            try:
                answer = bots[seat].choose_move(view, messages, rngs[seat])
            finally:
                times[seat].append(time.perf_counter() - started)
                if token is not None:
                    _CURRENT_DECISION.reset(token)
            move = codec.decode_move(answer)
            try:
                state = rules.apply(state, seat, move)
            except IllegalMoveError as error:
                raise IllegalBotMoveError(f"seat {seat} played an illegal move: {error}") from error
            version += 1
    outcome = rules.outcome(state)
    assert outcome is not None
    result = match_pb2.MatchOutcome(reason=outcome.reason)
    for seat, (score, rank) in enumerate(zip(outcome.scores, outcome.ranks, strict=True)):
        result.results.add(seat=seat, score=score, rank=rank)
    for bot in bots:
        hook = getattr(bot, "on_match_end", None)
        if hook is not None:
            hook(result)
    return InProcessGame(
        outcome.scores, outcome.ranks, outcome.reason, tuple(tuple(t) for t in times)
    )
