# mypy: disable-error-code="import-untyped"
"""Through gRPC and a durable store: a CreateMatch request_id after a server restart
(issue 26, point 5b).

The proto promises ``REQUEST_ID_USED`` naming the match to the caller whose key made a
match before the restart, even when another caller has used the same key since.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import grpc
from google.rpc import error_details_pb2, status_pb2

from botarena.server.service import create_server
from botarena.server.store import SqliteStore
from botarena.v1 import match_pb2, match_service_pb2, match_service_pb2_grpc

REQUEST_ID = "0d9c8b7a6f5e4d3c2b1a09f8e7d6c5b4"

Stubs = tuple[Any, Any]


def _serve(database: Path, socket: Path, scenario: Callable[[Stubs], Awaitable[None]]) -> None:
    """Run ``scenario`` against a server on ``database``, with two callers: one over
    127.0.0.1, one over a unix socket (another peer host)."""

    async def main() -> None:
        store = SqliteStore(database)
        server, port = await create_server(["127.0.0.1:0", f"unix:{socket}"], store=store)
        channels = [
            grpc.aio.insecure_channel(f"127.0.0.1:{port}"),
            grpc.aio.insecure_channel(f"unix:{socket}"),
        ]
        try:
            mine, theirs = (match_service_pb2_grpc.MatchServiceStub(c) for c in channels)
            await asyncio.wait_for(scenario((mine, theirs)), 60)
        finally:
            for channel in channels:
                await channel.close()
            await server.stop(None)
            store.close()

    asyncio.run(main())


async def _create(stub: Any, seed: int = 1) -> match_service_pb2.CreateMatchResponse:
    config = match_pb2.MatchConfig(game=match_pb2.GAME_QWIRKLE, seat_count=2, seed=seed)
    response: match_service_pb2.CreateMatchResponse = await stub.CreateMatch(
        match_service_pb2.CreateMatchRequest(config=config, request_id=REQUEST_ID)
    )
    return response


async def _refusal(call: Awaitable[Any]) -> tuple[grpc.StatusCode, error_details_pb2.ErrorInfo]:
    try:
        await call
    except grpc.aio.AioRpcError as error:
        info = error_details_pb2.ErrorInfo()
        for key, value in error.trailing_metadata() or ():
            if key == "grpc-status-details-bin":
                for detail in status_pb2.Status.FromString(value).details:
                    detail.Unpack(info)
        return error.code(), info
    raise AssertionError("the call succeeded")


def test_after_a_restart_the_first_caller_is_told_its_match_though_another_used_the_key(
    tmp_path: Path,
) -> None:
    database, socket = tmp_path / "botarena.db", tmp_path / "server.sock"
    created: list[str] = []

    async def before(stubs: Stubs) -> None:
        mine, _ = stubs
        created.append((await _create(mine)).match.name.removeprefix("matches/"))

    async def after(stubs: Stubs) -> None:
        mine, theirs = stubs
        # Another caller's key is its own after the restart: a match of its own.
        theirs_first = await _create(theirs)
        assert theirs_first.match.name.removeprefix("matches/") != created[0]
        assert theirs_first.seat_tokens
        for _ in range(2):  # and so it stays, however often the first caller retries
            code, info = await _refusal(_create(mine))
            assert (code, info.reason) == (grpc.StatusCode.ALREADY_EXISTS, "REQUEST_ID_USED")
            assert dict(info.metadata) == {"match": created[0]}
        assert await _create(theirs) == theirs_first
        # Another config is still another caller's conflict, not the first caller's match.
        code, info = await _refusal(_create(theirs, seed=2))
        assert (code, info.reason) == (grpc.StatusCode.ALREADY_EXISTS, "REQUEST_ID_CONFLICT")
        assert created[0] not in info.metadata.values()

    _serve(database, socket, before)
    _serve(database, socket, after)
