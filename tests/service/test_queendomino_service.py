"""Queendomino through the real server: a full 3-seat match, multi-step turns, rejections."""

from __future__ import annotations

import asyncio
import contextlib

import pytest

from botarena.bots import get_bot
from botarena.clients import AsyncMatchClient, IllegalMoveError, run_bot_async
from botarena.clients.testing import start_server_async
from botarena.v1 import match_pb2, queendomino_pb2


def _config(seats: int, seed: int) -> match_pb2.MatchConfig:
    return match_pb2.MatchConfig(game=match_pb2.GAME_QUEENDOMINO, seat_count=seats, seed=seed)


async def _spectate(client: AsyncMatchClient, match: str) -> list[match_pb2.MatchEvent]:
    events: list[match_pb2.MatchEvent] = []
    async with contextlib.aclosing(client.stream_match_events(match)) as stream:
        async for event in stream:
            events.append(event)
    return events


def test_three_bots_play_a_full_match_in_multi_step_turns() -> None:
    async def scenario() -> None:
        async with (
            start_server_async() as address,
            AsyncMatchClient(target=address) as client,
        ):
            created = await client.create_match(_config(3, seed=7))
            match = created.match.name
            spectator = asyncio.ensure_future(_spectate(client, match))
            outcomes = await asyncio.gather(
                *(
                    run_bot_async(
                        get_bot(name),
                        server=client,
                        token=seat.token,
                        match=match,
                        seed=index,
                    )
                    for index, (name, seat) in enumerate(
                        zip(("greedy", "random", "random"), created.seat_tokens, strict=True)
                    )
                )
            )
            events = await asyncio.wait_for(spectator, 30)
            finished = await client.get_match(match)

        assert finished.match.state == match_pb2.Match.STATE_FINISHED
        results = outcomes[0].results
        assert len(results) == 3
        assert sorted(r.rank for r in results)[0] == 1
        moves = [e.move_applied for e in events if e.WhichOneof("kind") == "move_applied"]
        kinds = [m.move.queendomino.WhichOneof("action") for m in moves]
        # 3 seats: 3 setup choices, then 12 rounds of 3 turns; each turn places or
        # discards once and chooses in every round but the last.
        assert kinds.count("place") + kinds.count("discard") == 36
        assert kinds.count("choose") == 3 + 11 * 3
        # A turn is several decisions of the same seat in a row: place, then choose.
        first_place = kinds.index("place")
        assert moves[first_place].seat == moves[first_place + 1].seat
        # Every final view shows the 3-seat removals: one free domino of each line.
        last_view = events[-2].move_applied.view.queendomino
        assert len(last_view.removed) >= 12
        assert last_view.deck_left == 0
        scores = [player.score for player in last_view.players]
        assert scores == [r.score for r in results]

    asyncio.run(scenario())


def test_a_move_of_the_wrong_step_is_rejected_with_its_reason() -> None:
    async def scenario() -> None:
        async with (
            start_server_async() as address,
            AsyncMatchClient(target=address) as client,
        ):
            created = await client.create_match(_config(4, seed=3))
            match = created.match.name
            seats = [client.with_token(seat.token) for seat in created.seat_tokens]
            views = [await seat.get_player_view(match) for seat in seats]
            acting = [v for v in views if v.HasField("decision")]
            assert len(acting) == 1, "one seat acts at a time"
            view = acting[0]
            assert view.view.queendomino.turn.step == queendomino_pb2.QUEENDOMINO_STEP_CHOOSE
            seat = seats[view.decision.seat]
            wrong = match_pb2.Move()
            wrong.queendomino.skip.SetInParent()
            with pytest.raises(IllegalMoveError) as rejected:
                await seat.submit_move(match, wrong, expected_state_version=view.state_version)
            assert rejected.value.reason == "SKIP_NOT_ALLOWED"
            # The seat may retry with a legal move while its clock runs.
            answer = await seat.submit_move(
                match, view.legal_moves[0], expected_state_version=view.state_version
            )
            assert answer.state_version == view.state_version + 1

    asyncio.run(scenario())
