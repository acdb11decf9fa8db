# mypy: disable-error-code="import-untyped"
"""Qwixx through the real server: sealed action-1 choices on the event stream, timeouts."""

from __future__ import annotations

import asyncio
import random
from collections.abc import Sequence
from typing import Any

import grpc

from botarena.v1 import match_pb2, match_service_pb2


async def _create(
    client: Any, *, seats: int, seed: int, limit: float | None = None
) -> match_service_pb2.CreateMatchResponse:
    config = match_pb2.MatchConfig(game=match_pb2.GAME_QWIXX, seat_count=seats, seed=seed)
    if limit is not None:
        config.time_control.move_time_limit.FromNanoseconds(int(limit * 1e9))
        config.policies.on_timeout = match_pb2.TIMEOUT_POLICY_DEFAULT_MOVE
    created: match_service_pb2.CreateMatchResponse = await client.stub.CreateMatch(
        match_service_pb2.CreateMatchRequest(config=config)
    )
    return created


class _Events(asyncio.Queue[match_pb2.MatchEvent | None]):
    """A stream's events, read in the background by ``task`` (``None`` marks the end)."""

    task: asyncio.Future[None]


def _follow(client: Any, tools: Any, match: str, token: str | None) -> _Events:
    """Read a stream into a queue in the background."""
    queue = _Events()

    async def read() -> None:
        stream = client.stub.StreamMatchEvents(
            match_service_pb2.StreamMatchEventsRequest(match=match), metadata=tools.bearer(token)
        )
        async for response in stream:
            await queue.put(response.event)
        await queue.put(None)

    queue.task = asyncio.ensure_future(read())
    return queue


async def _next(queue: _Events, kind: str) -> match_pb2.MatchEvent:
    while True:
        event = await asyncio.wait_for(queue.get(), 10)
        assert event is not None, f"the stream ended before a {kind} event"
        if event.WhichOneof("kind") == kind:
            return event


def _mark_or_decline(moves: Sequence[match_pb2.Move]) -> match_pb2.Move:
    marks = [move for move in moves if move.qwixx.WhichOneof("action") == "mark_white_sum"]
    return marks[0] if marks else moves[0]


def test_a_sealed_choice_stays_hidden_on_other_streams_until_all_are_applied(
    serve: Any, client_tools: Any
) -> None:
    async def scenario(client: Any) -> None:
        # A seed whose first roll offers every seat a white-sum mark (a choice to hide).
        created = await _create(client, seats=3, seed=2)
        match, tokens = created.match.name, [seat.token for seat in created.seat_tokens]
        streams = [_follow(client, client_tools, match, token) for token in tokens]
        spectator = _follow(client, client_tools, match, None)
        decisions = [await _next(stream, "decision_requested") for stream in streams]
        assert all(d.decision_requested.view.qwixx.action == 1 for d in decisions)
        choice = _mark_or_decline(decisions[0].decision_requested.legal_moves)
        assert choice.qwixx.WhichOneof("action") == "mark_white_sum"
        await client.submit(match, tokens[0], choice, decisions[0].state_version)

        # The choice is applied to seat 0's own stream in full, to everyone else sealed.
        own = await _next(streams[0], "move_applied")
        assert own.move_applied.move == choice
        assert own.move_applied.view.qwixx.own_choice == choice.qwixx
        for stream in (streams[1], streams[2], spectator):
            applied = (await _next(stream, "move_applied")).move_applied
            assert applied.seat == 0
            assert applied.move.qwixx.WhichOneof("action") is None
            assert not applied.view.qwixx.HasField("own_choice")
            assert list(applied.view.qwixx.last_white_sums) == []
            assert list(applied.view.qwixx.to_act) == [1, 2]
            # Nothing of the choice anywhere in the event, not even its number's row.
            for sheet in applied.view.qwixx.sheets:
                assert all(not row.numbers for row in sheet.rows)
        other = await client.view(match, tokens[1])
        assert not other.view.qwixx.HasField("own_choice")
        assert not any(e.HasField("white_sums_applied") for e in other.view.qwixx.history)

        # Seat 1 chooses (sealed, still); seat 2's choice, the last, applies all three.
        for seat in (1, 2):
            move = _mark_or_decline(decisions[seat].decision_requested.legal_moves)
            await client.submit(match, tokens[seat], move, decisions[seat].state_version)
        for stream in (streams[1], streams[2], spectator):
            await _next(stream, "move_applied")  # seat 1's, sealed on seat 2's stream
        for stream in (streams[1], spectator):
            applied = (await _next(stream, "move_applied")).move_applied
            assert applied.seat == 2
            assert applied.view.qwixx.last_white_sums[0] == choice.qwixx
            assert applied.view.qwixx.action == 2  # action 2 of the active seat
            assert sum(len(row.numbers) for row in applied.view.qwixx.sheets[0].rows) == 1
        for stream in (*streams, spectator):
            stream.task.cancel()

    serve(scenario)


def test_a_second_action_one_choice_is_not_your_turn(serve: Any, client_tools: Any) -> None:
    async def scenario(client: Any) -> None:
        created = await _create(client, seats=2, seed=4)
        match, token = created.match.name, created.seat_tokens[0].token
        decline = match_pb2.Move()
        decline.qwixx.decline.SetInParent()
        first = await client.submit(match, token, decline, 0)
        failure = await client.failure(client.submit(match, token, decline, first.state_version))
        assert failure.reason == "NOT_YOUR_TURN"
        bad = match_pb2.Move()
        bad.qwixx.mark_white_sum.number = 7
        failure = await client.failure(
            client.submit(match, created.seat_tokens[1].token, bad, first.state_version)
        )
        assert (failure.reason, failure.field_violations) == (
            "MALFORMED_REQUEST",
            ["move.qwixx.mark_white_sum.colour"],
        )

    serve(scenario)


def test_four_seats_one_times_out_in_action_one_and_the_match_finishes(
    serve: Any, client_tools: Any
) -> None:
    async def seat_loop(client: Any, match: str, token: str, seat: int, sleeper: bool) -> list[Any]:
        rng = random.Random(seat)
        events: list[Any] = []
        slept = False
        stream = client.stub.StreamMatchEvents(
            match_service_pb2.StreamMatchEventsRequest(match=match),
            metadata=client_tools.bearer(token),
        )
        async for response in stream:
            event = response.event
            events.append(event)
            if event.WhichOneof("kind") != "decision_requested":
                continue
            requested = event.decision_requested
            if sleeper and not slept and requested.view.qwixx.action == 1:
                slept = True  # let the clock run out on this action-1 decision
                continue
            moves = list(requested.legal_moves)
            move = moves[rng.randrange(len(moves))]
            try:
                await client.submit(match, token, move, event.state_version)
            except grpc.aio.AioRpcError as error:  # the timeout policy may have moved on
                reason = client_tools.failure_of(error).reason
                assert reason in {"STALE_STATE_VERSION", "NOT_YOUR_TURN"}, reason
        return events

    async def scenario(client: Any) -> None:
        # 2 s a move: ample for the three seats that answer, on a loaded machine too.
        created = await _create(client, seats=4, seed=9, limit=2.0)
        match = created.match.name
        results = await asyncio.gather(
            *(
                seat_loop(client, match, seat.token, index, index == 3)
                for index, seat in enumerate(created.seat_tokens)
            )
        )
        for events in results:
            assert events[-1].WhichOneof("kind") == "match_finished"
        timed_out = [
            e.move_applied
            for e in results[3]
            if e.WhichOneof("kind") == "move_applied" and e.move_applied.by_timeout_policy
        ]
        assert len(timed_out) == 1
        assert timed_out[0].seat == 3
        assert timed_out[0].move.qwixx.WhichOneof("action") == "decline"  # the stand-in move
        final = await client.stub.GetMatch(match_service_pb2.GetMatchRequest(name=match))
        assert final.match.state == match_pb2.Match.STATE_FINISHED
        assert [seat.timeouts for seat in final.match.seats] == [0, 0, 0, 1]
        assert len(final.match.outcome.results) == 4
        assert not any(result.forfeited for result in final.match.outcome.results)

    serve(scenario)
