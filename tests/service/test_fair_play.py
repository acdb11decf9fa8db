# mypy: disable-error-code="import-untyped"
"""Through gRPC: the seed stays secret while a match runs, and a bot that does not play
never wins through the server's stand-in moves (issue 14; match.proto: MatchPolicies)."""

from __future__ import annotations

import asyncio
from typing import Any

from botarena.v1 import match_pb2, match_service_pb2


def _config(
    *, seed: int | None = 5, limit: float = 10.0, join_timeout: float = 30.0
) -> match_pb2.MatchConfig:
    config = match_pb2.MatchConfig(game=match_pb2.GAME_QWIRKLE, seat_count=2)
    if seed is not None:
        config.seed = seed
    config.time_control.move_time_limit.FromNanoseconds(int(limit * 1e9))
    config.policies.join_timeout.FromNanoseconds(int(join_timeout * 1e9))
    return config


async def _create(client: Any, config: match_pb2.MatchConfig) -> Any:
    return await client.stub.CreateMatch(match_service_pb2.CreateMatchRequest(config=config))


async def _first_event(client: Any, tools: Any, name: str, token: str | None) -> Any:
    stream = client.stub.StreamMatchEvents(
        match_service_pb2.StreamMatchEventsRequest(match=name), metadata=tools.bearer(token)
    )
    async for response in stream:
        stream.cancel()
        return response.event
    raise AssertionError("the stream sent nothing")


async def _configs_seen(client: Any, tools: Any, created: Any) -> list[match_pb2.MatchConfig]:
    """Every config a seat or a spectator can read of the match now."""
    name = created.match.name
    seen = [(await client.stub.GetMatch(match_service_pb2.GetMatchRequest(name=name))).match.config]
    listed = await client.stub.ListMatches(match_service_pb2.ListMatchesRequest())
    seen += [match.config for match in listed.matches if match.name == name]
    for token in (None, *(seat.token for seat in created.seat_tokens)):
        seen.append((await client.view(name, token)).match.config)
        started = await _first_event(client, tools, name, token)
        seen.append(started.match_started.match.config)
    return seen


def test_only_the_creator_learns_the_seed_until_the_match_ends(
    serve: Any, client_tools: Any
) -> None:
    async def scenario(client: Any) -> None:
        created = await _create(client, _config(seed=4242))
        assert created.match.config.seed == 4242
        running = await _configs_seen(client, client_tools, created)
        assert len(running) == 8
        assert not any(config.HasField("seed") for config in running)
        name = created.match.name
        await client.stub.ResignMatch(  # one of two seats resigns: the match ends
            match_service_pb2.ResignMatchRequest(match=name),
            metadata=client_tools.bearer(created.seat_tokens[0].token),
        )
        finished = await _configs_seen(client, client_tools, created)
        assert [config.seed for config in finished] == [4242] * len(finished)

    serve(scenario)


def test_a_seed_the_server_picks_has_64_random_bits(serve: Any) -> None:
    async def scenario(client: Any) -> None:
        created = [await _create(client, _config(seed=None)) for _ in range(24)]
        seeds = [response.match.config.seed for response in created]
        assert len(set(seeds)) == len(seeds)
        # A 63-bit pick would never set the top bit; 24 picks all without it: 2**-24.
        assert any(seed >= 2**63 for seed in seeds)

    serve(scenario)


def test_a_seat_that_never_shows_up_forfeits_at_the_join_deadline_and_loses(
    serve: Any, client_tools: Any
) -> None:
    async def scenario(client: Any) -> None:
        created = await _create(client, _config(join_timeout=0.3))
        name = created.match.name
        player = created.seat_tokens[0].token
        events = await client_tools.play_seat(client, name, player)
        forfeits = [e.seat_forfeited for e in events if e.WhichOneof("kind") == "seat_forfeited"]
        assert [(f.seat, f.reason) for f in forfeits] == [(1, "absent")]
        outcome = events[-1].match_finished.outcome
        assert outcome.reason == "forfeit"
        assert [(r.rank, r.forfeited, r.forfeit_reason) for r in outcome.results] == [
            (1, False, ""),
            (2, True, "absent"),
        ]

    serve(scenario)


def test_a_seat_that_stops_playing_forfeits_after_three_stand_ins_in_a_row(
    serve: Any, client_tools: Any
) -> None:
    async def scenario(client: Any) -> None:
        created = await _create(client, _config(limit=0.05))
        name = created.match.name
        player, sleeper = (seat.token for seat in created.seat_tokens)
        events, _ = await asyncio.gather(
            client_tools.play_seat(client, name, player),
            # Shows up, reads its decisions, never moves.
            client_tools.play_seat(client, name, sleeper, sleep=1.0),
        )
        stand_ins = [
            e.move_applied
            for e in events
            if e.WhichOneof("kind") == "move_applied" and e.move_applied.by_timeout_policy
        ]
        assert [move.seat for move in stand_ins] == [1, 1, 1]
        forfeit = next(e.seat_forfeited for e in events if e.WhichOneof("kind") == "seat_forfeited")
        assert (forfeit.seat, forfeit.reason) == (1, "absent")
        outcome = events[-1].match_finished.outcome
        assert [result.rank for result in outcome.results] == [1, 2]
        got = await client.stub.GetMatch(match_service_pb2.GetMatchRequest(name=name))
        assert got.match.state == match_pb2.Match.STATE_FINISHED
        assert got.match.seats[1].stand_in_moves >= 3
        assert got.match.seats[1].forfeit_reason == "absent"

    serve(scenario)


def test_a_match_nobody_joins_is_abandoned_without_stand_in_moves(serve: Any) -> None:
    async def scenario(client: Any) -> None:
        created = await _create(client, _config(join_timeout=0.2, limit=60.0))
        name = created.match.name
        events = [
            response.event
            async for response in client.stub.StreamMatchEvents(
                match_service_pb2.StreamMatchEventsRequest(match=name)
            )
        ]
        assert [e.WhichOneof("kind") for e in events] == ["match_started", "match_finished"]
        outcome = events[-1].match_finished.outcome
        assert outcome.reason == "abandoned"
        assert [(r.rank, r.forfeit_reason) for r in outcome.results] == [(2, "absent")] * 2
        got = await client.stub.GetMatch(match_service_pb2.GetMatchRequest(name=name))
        assert got.match.state == match_pb2.Match.STATE_ABANDONED
        assert got.match.config.seed == 5  # public once the match is over

    serve(scenario)


def test_a_seat_whose_bot_exited_is_resigned_by_its_starter_and_loses(
    serve: Any, client_tools: Any
) -> None:
    async def scenario(client: Any) -> None:
        created = await _create(client, _config())
        name = created.match.name
        exited = created.seat_tokens[1].token
        await client.stub.ResignMatch(
            match_service_pb2.ResignMatchRequest(
                match=name, reason=match_service_pb2.RESIGN_REASON_BOT_EXITED
            ),
            metadata=client_tools.bearer(exited),
        )
        got = await client.stub.GetMatch(match_service_pb2.GetMatchRequest(name=name))
        assert got.match.state == match_pb2.Match.STATE_FINISHED
        assert got.match.seats[1].forfeit_reason == "bot_exited"
        assert [result.rank for result in got.match.outcome.results] == [1, 2]
        assert got.match.outcome.results[1].forfeit_reason == "bot_exited"

    serve(scenario)


def test_an_unknown_resign_reason_is_refused(serve: Any, client_tools: Any) -> None:
    async def scenario(client: Any) -> None:
        created = await _create(client, _config())
        failure = await client.failure(
            client.stub.ResignMatch(
                match_service_pb2.ResignMatchRequest(
                    match=created.match.name,
                    reason=match_service_pb2.ResignReason.ValueType(99),
                ),
                metadata=client_tools.bearer(created.seat_tokens[0].token),
            )
        )
        assert (failure.reason, failure.metadata["field"]) == ("MALFORMED_REQUEST", "reason")

    serve(scenario)
