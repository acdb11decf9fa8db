# mypy: disable-error-code="import-untyped"
"""A real MatchService on 127.0.0.1:0 and helpers to call it through real gRPC."""

from __future__ import annotations

import asyncio
import socket
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass
from types import SimpleNamespace
from typing import Any

import grpc
import pytest
from google.rpc import error_details_pb2, status_pb2

from botarena.server.service import create_server
from botarena.v1 import match_pb2, match_service_pb2, match_service_pb2_grpc


def ipv6_loopback() -> bool:
    """Whether this machine can bind ::1 (some containers have no IPv6)."""
    try:
        with socket.socket(socket.AF_INET6) as probe:
            probe.bind(("::1", 0))
    except OSError:
        return False
    return True


@dataclass
class RpcFailure:
    """What a failed call returned: its code and the ErrorInfo (and RetryInfo delay, in
    seconds) of its rich status."""

    code: grpc.StatusCode
    reason: str | None
    domain: str | None
    metadata: dict[str, str]
    field_violations: list[str]
    retry_after: float | None = None


def failure_of(error: grpc.aio.AioRpcError) -> RpcFailure:
    """Decode the google.rpc.Status details of a failed call."""
    reason = domain = None
    metadata: dict[str, str] = {}
    fields: list[str] = []
    retry_after = None
    for key, value in error.trailing_metadata() or ():
        if key != "grpc-status-details-bin":
            continue
        status = status_pb2.Status.FromString(value)
        for detail in status.details:
            info = error_details_pb2.ErrorInfo()
            bad = error_details_pb2.BadRequest()
            retry = error_details_pb2.RetryInfo()
            if detail.Unpack(info):
                reason, domain, metadata = info.reason, info.domain, dict(info.metadata)
            elif detail.Unpack(bad):
                fields = [violation.field for violation in bad.field_violations]
            elif detail.Unpack(retry):
                retry_after = retry.retry_delay.ToNanoseconds() / 1e9
    return RpcFailure(error.code(), reason, domain, metadata, fields, retry_after)


def bearer(token: str | None) -> tuple[tuple[str, str], ...] | None:
    """Return call metadata carrying ``token``."""
    return None if token is None else (("authorization", f"Bearer {token}"),)


class Client:
    """A channel to the test server with a MatchService stub and small helpers."""

    def __init__(self, channel: grpc.aio.Channel, port: int) -> None:
        self.channel = channel
        self.port = port
        self.stub = match_service_pb2_grpc.MatchServiceStub(channel)

    async def create(
        self,
        *,
        seats: int = 2,
        seed: int = 1,
        limit: float | None = None,
        on_timeout: match_pb2.TimeoutPolicy.ValueType = match_pb2.TIMEOUT_POLICY_UNSPECIFIED,
        admin: str | None = None,
    ) -> match_service_pb2.CreateMatchResponse:
        config = match_pb2.MatchConfig(game=match_pb2.GAME_QWIRKLE, seat_count=seats, seed=seed)
        if limit is not None:
            config.time_control.move_time_limit.FromNanoseconds(int(limit * 1e9))
        config.policies.on_timeout = on_timeout
        response: match_service_pb2.CreateMatchResponse = await self.stub.CreateMatch(
            match_service_pb2.CreateMatchRequest(config=config), metadata=bearer(admin)
        )
        return response

    async def view(self, match: str, token: str | None) -> match_service_pb2.GetPlayerViewResponse:
        response: match_service_pb2.GetPlayerViewResponse = await self.stub.GetPlayerView(
            match_service_pb2.GetPlayerViewRequest(match=match), metadata=bearer(token)
        )
        return response

    async def submit(
        self,
        match: str,
        token: str | None,
        move: match_pb2.Move,
        version: int,
        request_id: str = "",
    ) -> match_service_pb2.SubmitMoveResponse:
        response: match_service_pb2.SubmitMoveResponse = await self.stub.SubmitMove(
            match_service_pb2.SubmitMoveRequest(
                match=match, move=move, expected_state_version=version, request_id=request_id
            ),
            metadata=bearer(token),
        )
        return response

    async def failure(self, call: Awaitable[Any]) -> RpcFailure:
        """Await ``call``, which must fail, and return its failure."""
        try:
            await call
        except grpc.aio.AioRpcError as error:
            return failure_of(error)
        raise AssertionError("the call succeeded")

    async def still_serving(self) -> None:
        """Assert the server still answers: health SERVING and a fresh match works."""
        from grpc_health.v1 import health_pb2, health_pb2_grpc

        health = health_pb2_grpc.HealthStub(self.channel)
        reply = await health.Check(health_pb2.HealthCheckRequest())
        assert reply.status == health_pb2.HealthCheckResponse.SERVING
        created = await self.create()
        assert created.match.state_version == 0


def best_move(moves: Sequence[match_pb2.Move]) -> match_pb2.Move:
    """The in-test bot: the highest-scoring placement, else the first legal move."""
    places = [move for move in moves if move.qwirkle.WhichOneof("action") == "place"]
    if places:
        return max(places, key=lambda move: move.qwirkle.place.score)
    return moves[0]


async def play_seat(client: Client, match: str, token: str, *, sleep: float = 0.0) -> list[Any]:
    """Play one seat from its event stream until the match ends; return its events."""
    events: list[Any] = []
    stream = client.stub.StreamMatchEvents(
        match_service_pb2.StreamMatchEventsRequest(match=match), metadata=bearer(token)
    )
    async for response in stream:
        event = response.event
        events.append(event)
        if event.WhichOneof("kind") == "decision_requested":
            if sleep:
                await asyncio.sleep(sleep)
                continue
            move = best_move(event.decision_requested.legal_moves)
            try:
                await client.submit(match, token, move, event.state_version)
            except grpc.aio.AioRpcError as error:
                # A timeout may have moved the match on first; the stream tells what next.
                if failure_of(error).reason not in {"STALE_STATE_VERSION", "NOT_YOUR_TURN"}:
                    raise
    return events


Scenario = Callable[[Client], Awaitable[None]]


@pytest.fixture
def serve() -> Callable[..., None]:
    """Run an async scenario against a fresh server: ``serve(scenario, **server_options)``."""

    def run(scenario: Scenario, *, timeout: float = 60.0, **options: Any) -> None:
        async def main() -> None:
            server, port = await create_server("127.0.0.1:0", **options)
            try:
                async with grpc.aio.insecure_channel(f"127.0.0.1:{port}") as channel:
                    await asyncio.wait_for(scenario(Client(channel, port)), timeout)
            finally:
                await server.stop(None)

        asyncio.run(main())

    return run


@pytest.fixture
def client_tools() -> Any:
    """The helpers of this conftest, for tests (importlib mode cannot import conftest)."""

    return SimpleNamespace(
        failure_of=failure_of, bearer=bearer, best_move=best_move, play_seat=play_seat
    )
