# mypy: disable-error-code="import-untyped"
"""Seat tokens name their match; per-seat counters; the full log is public after the end."""

from __future__ import annotations

import asyncio
from typing import Any

import grpc

from botarena.v1 import match_pb2, match_service_pb2


async def _events(client: Any, match: str, token: str | None = None) -> list[Any]:
    stream = client.stub.StreamMatchEvents(
        match_service_pb2.StreamMatchEventsRequest(match=match),
        metadata=(("authorization", f"Bearer {token}"),) if token else None,
    )
    events = []
    async for response in stream:
        events.append(response.event)
        if response.event.WhichOneof("kind") in ("match_finished", "decision_requested"):
            stream.cancel()
            break
    return events


def test_a_seat_token_alone_finds_its_match(serve: Any, client_tools: Any) -> None:
    async def scenario(client: Any) -> None:
        created = await client.create(seed=3)
        to_act = created.match.seats_to_act[0]
        token = created.seat_tokens[to_act].token
        view = await client.view("", token)
        assert view.view.seat == to_act
        assert view.match.name == created.match.name
        events = await _events(client, "", token)
        assert events[0].WhichOneof("kind") == "match_started"
        move = client_tools.best_move(view.legal_moves)
        submitted = await client.submit("", token, move, view.state_version)
        assert submitted.state_version == 1

    serve(scenario)


def test_an_empty_match_without_a_seat_token_is_malformed(serve: Any) -> None:
    async def scenario(client: Any) -> None:
        failure = await client.failure(client.view("", None))
        assert failure.code == grpc.StatusCode.INVALID_ARGUMENT
        assert failure.reason == "MALFORMED_REQUEST"
        await client.still_serving()

    serve(scenario)


def test_illegal_moves_and_timeouts_are_counted_per_seat(serve: Any) -> None:
    async def scenario(client: Any) -> None:
        created = await client.create(
            seed=5, limit=0.2, on_timeout=match_pb2.TIMEOUT_POLICY_DEFAULT_MOVE
        )
        name = created.match.name
        seat = created.match.seats_to_act[0]
        token = created.seat_tokens[seat].token
        view = await client.view(name, token)
        bad = match_pb2.Move()
        getattr(bad.qwirkle, "pass").SetInParent()  # no pass on the opening move
        failure = await client.failure(client.submit(name, token, bad, view.state_version))
        assert failure.reason == "PASS_NOT_ALLOWED"
        await asyncio.sleep(0.5)  # let the opening seat's clock run out
        match = (await client.stub.GetMatch(match_service_pb2.GetMatchRequest(name=name))).match
        assert match.seats[seat].illegal_moves == 1
        assert match.seats[seat].timeouts >= 1
        assert match.seats[1 - seat].illegal_moves == 0

    serve(scenario)


def test_exchanged_tiles_are_hidden_until_the_match_ends(serve: Any) -> None:
    async def scenario(client: Any) -> None:
        created = await client.create(seed=9)
        name = created.match.name
        tokens = [seat.token for seat in created.seat_tokens]
        starter = created.match.seats_to_act[0]
        view = await client.view(name, tokens[starter])
        opening = max(view.legal_moves, key=lambda move: move.qwirkle.place.score)
        await client.submit(name, tokens[starter], opening, view.state_version)
        other = 1 - starter
        view = await client.view(name, tokens[other])
        exchange = next(m for m in view.legal_moves if m.qwirkle.WhichOneof("action") == "exchange")
        await client.submit(name, tokens[other], exchange, view.state_version)

        def exchanged(events: list[Any]) -> Any:
            applied = [e.move_applied for e in events if e.WhichOneof("kind") == "move_applied"]
            return applied[1].move.qwirkle.exchange

        live = await _events(client, name, tokens[starter])
        assert exchanged(live).tile_count == len(exchange.qwirkle.exchange.tiles)
        assert list(exchanged(live).tiles) == []
        await client.stub.ResignMatch(
            match_service_pb2.ResignMatchRequest(match=name),
            metadata=(("authorization", f"Bearer {tokens[starter]}"),),
        )
        after = await _events(client, name)
        assert after[-1].WhichOneof("kind") == "match_finished"
        assert list(exchanged(after).tiles) == list(exchange.qwirkle.exchange.tiles)

    serve(scenario)
