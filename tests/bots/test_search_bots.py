"""The search bots: they beat the random bot at a tiny budget, repeat themselves for a seed,
answer within a spent clock, and play through a real server.

Strength is sampled small and seeded (in-process games, a fixed sample count per
decision and a time limit that never binds); the measured rates against the greedy and
heuristic bots are in docs/bots.md, from ``bench/bench_search.py`` and the runner.
"""

from __future__ import annotations

import asyncio
import random
import time

import pytest

from botarena.bots import (
    RandomBot,
    SearchBot,
    SearchQueendominoBot,
    SearchQwirkleBot,
    SearchQwixxBot,
)
from botarena.bots._search_queendomino import QueendominoSearchSettings
from botarena.bots._search_qwirkle import QwirkleSearchSettings
from botarena.bots._search_qwixx import HEURISTIC, TUNED, QwixxSearchSettings
from botarena.clients import AsyncMatchClient, Bot, DecisionClock, run_bot_async
from botarena.clients._bot import _CURRENT_DECISION
from botarena.clients.testing import play_in_process, start_server_async
from botarena.server.games.qwixx import QWIXX, Action, QwixxState, Sheet
from botarena.server.service import plugin_for
from botarena.v1 import match_pb2

NEVER = 600.0  # a time limit that never binds: the sample counts alone set the work


def tiny(game: str) -> Bot:
    """The game's search bot with a few samples per decision."""
    if game == "qwirkle":
        return SearchQwirkleBot(
            QwirkleSearchSettings(
                samples=2, prune_after=1, keep=2, endgame_depth=1, time_limit=NEVER
            )
        )
    if game == "qwixx":
        return SearchQwixxBot(QwixxSearchSettings(playouts=2, time_limit=NEVER))
    return SearchQueendominoBot(QueendominoSearchSettings(time_limit=NEVER))


GAMES = ("qwirkle", "qwixx", "queendomino")


@pytest.mark.parametrize("game", GAMES)
def test_search_beats_random_in_four_seeded_games_of_four(game: str) -> None:
    for seed in (1, 2):
        for searcher in (0, 1):
            bots = [tiny(game), RandomBot()]
            if searcher:
                bots.reverse()
            result = play_in_process(game, bots, seed=seed)
            assert result.ranks[searcher] == 1
            assert result.scores[searcher] > result.scores[1 - searcher]


@pytest.mark.parametrize("game", GAMES)
def test_a_search_bot_plays_the_same_game_again_for_the_same_seeds(game: str) -> None:
    first = play_in_process(game, [tiny(game), tiny(game)], seed=4, bot_seeds=[7, 8])
    again = play_in_process(game, [tiny(game), tiny(game)], seed=4, bot_seeds=[7, 8])
    assert (first.scores, first.ranks) == (again.scores, again.ranks)
    assert [len(t) for t in first.think_seconds] == [len(t) for t in again.think_seconds]


@pytest.mark.parametrize("game", GAMES)
def test_with_no_time_left_a_search_bot_still_answers_a_legal_move(game: str) -> None:
    plugin = plugin_for(game)
    rules, codec = plugin.rules, plugin.codec
    state = rules.new_match(rules.default_config(), 2, 3)
    for _ in range(6):  # a few moves in, so that there is something to choose
        seat = min(rules.to_act(state))
        state = rules.apply(state, seat, rules.legal_moves(state, seat)[-1])
    seat = min(rules.to_act(state))
    view = match_pb2.PlayerView()
    codec.encode_view(rules.view(state, seat), seat, with_history=False, out=view)
    legal = rules.legal_moves(state, seat)
    spent = DecisionClock(
        seat, 0, received_at=time.monotonic() - 10, move_time_limit=1, time_bank=0
    )
    token = _CURRENT_DECISION.set(spent)
    try:
        answer = SearchBot().choose_move(view, codec.encode_moves(legal), random.Random(1))
    finally:
        _CURRENT_DECISION.reset(token)
    assert rules.is_legal(state, seat, codec.decode_move(answer))


def test_the_tuned_qwixx_rule_locks_when_behind_where_the_heuristic_does_not() -> None:
    # Seat 0 trails; a white 12 can only go on its red row, which locks it.
    behind = Sheet.of(red=(7, 8, 9, 10, 11), green=(12,), blue=(12,))
    ahead = Sheet.of(green=(12, 11, 10, 9, 8, 7, 6), blue=(12, 11, 10, 9))
    state = QwixxState.from_position(sheets=[behind, ahead], white=(6, 6), action=Action.WHITE_SUM)
    assert HEURISTIC.choose(state, 0) != TUNED.choose(state, 0)
    assert TUNED.choose(state, 0) in QWIXX.legal_moves(state, 0)
    assert getattr(TUNED.choose(state, 0), "number", None) == 12


def test_every_search_bot_plays_a_match_through_a_real_server() -> None:
    async def play(game: str) -> match_pb2.MatchOutcome:
        async with start_server_async() as address, AsyncMatchClient(target=address) as client:
            proto_game = plugin_for(game).proto_game
            created = await client.create_match(
                match_pb2.MatchConfig(game=proto_game, seat_count=2, seed=5)
            )
            outcomes = await asyncio.gather(
                *(
                    run_bot_async(bot, server=client, token=seat.token, seed=index)
                    for index, (bot, seat) in enumerate(
                        zip([tiny(game), RandomBot()], created.seat_tokens, strict=True)
                    )
                )
            )
            return outcomes[0]

    for game in GAMES:
        outcome = asyncio.run(play(game))
        assert outcome.results[0].rank == 1, game
