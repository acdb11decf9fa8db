"""Whole Qwirkle matches through the real server: play, timeouts, concurrency, resume."""

from __future__ import annotations

import asyncio
import time
from typing import Any

from botarena.v1 import match_pb2, match_service_pb2


def test_full_qwirkle_match_played_by_two_stream_clients(serve: Any, client_tools: Any) -> None:
    async def scenario(client: Any) -> None:
        created = await client.create(seed=11)
        name = created.match.name
        tokens = [seat.token for seat in created.seat_tokens]
        spectator = client.stub.StreamMatchEvents(
            match_service_pb2.StreamMatchEventsRequest(match=name)
        )
        seat_events, spectator_events = await asyncio.gather(
            asyncio.gather(*(client_tools.play_seat(client, name, token) for token in tokens)),
            _collect(spectator),
        )
        kinds = [event.WhichOneof("kind") for event in spectator_events]
        assert kinds[0] == "match_started"
        assert kinds[-1] == "match_finished"
        assert "decision_requested" not in kinds
        versions = [event.state_version for event in spectator_events]
        assert versions == list(range(len(versions)))
        moves = [e for e in spectator_events if e.WhichOneof("kind") == "move_applied"]
        assert len(moves) > 10
        assert not any(e.move_applied.by_timeout_policy for e in moves)
        for events in seat_events:
            assert events[-1].WhichOneof("kind") == "match_finished"
            assert any(e.WhichOneof("kind") == "decision_requested" for e in events)
        final = await client.stub.GetMatch(match_service_pb2.GetMatchRequest(name=name))
        assert final.match.state == match_pb2.Match.STATE_FINISHED
        assert final.match.outcome.reason in {"went_out", "blocked"}
        outcome = spectator_events[-1].match_finished.outcome
        assert outcome == final.match.outcome
        assert sorted(result.rank for result in outcome.results)[0] == 1
        scores = [seat.score for seat in final.match.seats]
        assert scores == [result.score for result in outcome.results]

    serve(scenario)


async def _collect(stream: Any) -> list[Any]:
    return [response.event async for response in stream]


def test_a_sleeping_seat_forfeits_after_its_deadline_and_the_match_finishes(
    serve: Any, client_tools: Any
) -> None:
    async def scenario(client: Any) -> None:
        created = await client.create(limit=0.2, on_timeout=match_pb2.TIMEOUT_POLICY_FORFEIT)
        name = created.match.name
        view = await client.view(name, None)
        sleeper = view.seats_to_act[0]
        token = created.seat_tokens[sleeper].token
        started = time.monotonic()
        events = await client_tools.play_seat(client, name, token, sleep=1.0)
        assert time.monotonic() - started < 5
        forfeits = [e.seat_forfeited for e in events if e.WhichOneof("kind") == "seat_forfeited"]
        assert [(f.seat, f.reason) for f in forfeits] == [(sleeper, "timeout")]
        outcome = events[-1].match_finished.outcome
        assert outcome.reason == "forfeit"
        assert outcome.results[sleeper].rank == 2
        assert outcome.results[sleeper].forfeited
        assert outcome.results[1 - sleeper].rank == 1

    serve(scenario)


def test_sleeping_seats_get_stand_ins_then_the_match_is_abandoned(
    serve: Any, client_tools: Any
) -> None:
    async def scenario(client: Any) -> None:
        created = await client.create(limit=0.01, on_timeout=match_pb2.TIMEOUT_POLICY_DEFAULT_MOVE)
        name = created.match.name
        # Both seats show up (their streams start their clocks), then never move.
        sleepers = [
            client_tools.play_seat(client, name, seat.token, sleep=0.05)
            for seat in created.seat_tokens
        ]
        events, *_ = await asyncio.gather(
            _collect(
                client.stub.StreamMatchEvents(
                    match_service_pb2.StreamMatchEventsRequest(match=name)
                )
            ),
            *sleepers,
        )
        kinds = [e.WhichOneof("kind") for e in events]
        # The first mover's third stand-in in a row (the fifth move) makes it absent, and
        # the other seat, which let the server move for it too, wins nothing.
        assert kinds == ["match_started", *["move_applied"] * 5, "seat_forfeited", "match_finished"]
        moves = [e.move_applied for e in events if e.WhichOneof("kind") == "move_applied"]
        assert all(move.by_timeout_policy for move in moves)
        assert all(move.think_time.ToNanoseconds() >= 10_000_000 for move in moves)
        first = moves[0].seat
        assert (events[-2].seat_forfeited.seat, events[-2].seat_forfeited.reason) == (
            first,
            "absent",
        )
        outcome = events[-1].match_finished.outcome
        assert outcome.reason == "abandoned"
        assert [result.rank for result in outcome.results] == [2, 2]
        assert [result.forfeit_reason for result in outcome.results] == ["absent", "absent"]
        got = await client.stub.GetMatch(match_service_pb2.GetMatchRequest(name=name))
        assert got.match.state == match_pb2.Match.STATE_ABANDONED
        assert [seat.stand_in_moves for seat in got.match.seats] == [
            3 if seat == first else 2 for seat in range(2)
        ]

    serve(scenario)


def test_fifty_matches_at_once_all_finish(serve: Any, client_tools: Any) -> None:
    async def scenario(client: Any) -> None:
        created = await asyncio.gather(*(client.create(seed=seed) for seed in range(50)))
        results = await asyncio.gather(
            *(
                client_tools.play_seat(client, match.match.name, seat.token)
                for match in created
                for seat in match.seat_tokens
            )
        )
        assert all(events[-1].WhichOneof("kind") == "match_finished" for events in results)
        listed = await client.stub.ListMatches(
            match_service_pb2.ListMatchesRequest(
                page_size=100, state=match_pb2.Match.STATE_FINISHED
            )
        )
        assert len(listed.matches) == 50

    serve(scenario, timeout=100)


def test_a_reconnecting_stream_resumes_without_gaps_or_repeats(
    serve: Any, client_tools: Any
) -> None:
    async def scenario(client: Any) -> None:
        created = await client.create(seed=5)
        name = created.match.name
        for _ in range(6):
            view = await client.view(name, None)
            seat = view.seats_to_act[0]
            token = created.seat_tokens[seat].token
            own = await client.view(name, token)
            move = client_tools.best_move(own.legal_moves)
            await client.submit(name, token, move, own.state_version)
        first: list[int] = []
        stream = client.stub.StreamMatchEvents(
            match_service_pb2.StreamMatchEventsRequest(match=name)
        )
        async for response in stream:
            first.append(response.event.state_version)
            if len(first) == 3:
                stream.cancel()
                break
        rest: list[int] = []
        resumed = client.stub.StreamMatchEvents(
            match_service_pb2.StreamMatchEventsRequest(match=name, after_state_version=first[-1])
        )
        async for response in resumed:
            rest.append(response.event.state_version)
            if response.event.state_version == 6:
                resumed.cancel()
                break
        assert first + rest == list(range(7))

    serve(scenario)
