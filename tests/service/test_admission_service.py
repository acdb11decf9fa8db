# mypy: disable-error-code="import-untyped"
"""Admission and CreateMatch request_id scopes, through real gRPC (issue 14, points 3-4)."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import grpc
import pytest
from google.rpc import error_details_pb2, status_pb2

from botarena.server.service import create_server
from botarena.server.service._auth import peer_host
from botarena.v1 import match_pb2, match_service_pb2, match_service_pb2_grpc

from .conftest import ipv6_loopback

ADMIN = "admin-token-of-the-test-server"
REQUEST_ID = "7f3c0d5e9a8b4c21b0e6f1a2d3c4b5a6"


def _config(seed: int = 1) -> match_pb2.MatchConfig:
    return match_pb2.MatchConfig(game=match_pb2.GAME_QWIRKLE, seat_count=2, seed=seed)


async def _create(
    stub: Any, *, request_id: str = "", seed: int = 1, admin: str | None = None
) -> match_service_pb2.CreateMatchResponse:
    metadata = None if admin is None else (("authorization", f"Bearer {admin}"),)
    response: match_service_pb2.CreateMatchResponse = await stub.CreateMatch(
        match_service_pb2.CreateMatchRequest(config=_config(seed), request_id=request_id),
        metadata=metadata,
    )
    return response


async def _refusal(call: Awaitable[Any]) -> tuple[grpc.StatusCode, Any, float | None]:
    """Await a call that must fail; return its code, ErrorInfo and RetryInfo delay."""
    try:
        await call
    except grpc.aio.AioRpcError as error:
        info = error_details_pb2.ErrorInfo()
        delay = None
        for key, value in error.trailing_metadata() or ():
            if key != "grpc-status-details-bin":
                continue
            for detail in status_pb2.Status.FromString(value).details:
                retry = error_details_pb2.RetryInfo()
                if detail.Unpack(retry):
                    delay = retry.retry_delay.ToNanoseconds() / 1e9
                else:
                    detail.Unpack(info)
        return error.code(), info, delay
    raise AssertionError("the call succeeded")


Stubs = list[Any]


def _serve(
    scenario: Callable[[Stubs], Awaitable[None]],
    second: str | None = None,
    **options: Any,
) -> None:
    """Run ``scenario`` with a stub over 127.0.0.1 and, with ``second`` (another address
    of the same server: another caller), one over it."""

    async def main() -> None:
        addresses = ["127.0.0.1:0", *([second] if second else [])]
        server, port = await create_server(addresses, **options)
        targets = [f"127.0.0.1:{port}"]
        if second:
            targets.append(second.replace(":0", f":{port}"))
        channels = [grpc.aio.insecure_channel(target) for target in targets]
        try:
            stubs = [match_service_pb2_grpc.MatchServiceStub(channel) for channel in channels]
            await asyncio.wait_for(scenario(stubs), 60)
        finally:
            for channel in channels:
                await channel.close()
            await server.stop(None)

    asyncio.run(main())


def test_a_caller_at_its_limit_is_refused_until_one_of_its_matches_ends() -> None:
    async def scenario(stubs: Stubs) -> None:
        (stub,) = stubs
        first = await _create(stub)
        await _create(stub)
        code, info, delay = await _refusal(_create(stub))
        assert code == grpc.StatusCode.RESOURCE_EXHAUSTED
        assert info.reason == "TOO_MANY_MATCHES"
        assert dict(info.metadata) == {"limit": "active_matches_per_caller", "max": "2"}
        assert delay is not None
        assert delay > 0
        # Retried at once, against its RetryInfo: held (Admission), then refused alike.
        assert (await _refusal(_create(stub)))[:2] == (code, info)
        token = first.seat_tokens[0].token
        await stub.ResignMatch(
            match_service_pb2.ResignMatchRequest(), metadata=(("authorization", f"Bearer {token}"),)
        )
        await _create(stub)

    _serve(scenario, max_matches_per_caller=2)


def test_the_server_wide_limit_refuses_everyone() -> None:
    async def scenario(stubs: Stubs) -> None:
        (stub,) = stubs
        await _create(stub, admin=ADMIN)
        code, info, _ = await _refusal(_create(stub, admin=ADMIN))
        assert code == grpc.StatusCode.RESOURCE_EXHAUSTED
        assert (info.reason, dict(info.metadata)) == (
            "TOO_MANY_MATCHES",
            {"limit": "active_matches", "max": "1"},
        )

    _serve(scenario, admin_token=ADMIN, max_active_matches=1)


def test_a_caller_creating_too_fast_is_told_when_to_retry() -> None:
    async def scenario(stubs: Stubs) -> None:
        (stub,) = stubs
        await _create(stub)  # 10 a minute: one at once
        code, info, delay = await _refusal(_create(stub))
        assert code == grpc.StatusCode.RESOURCE_EXHAUSTED
        assert (info.reason, dict(info.metadata)) == (
            "CREATE_RATE_LIMITED",
            {"limit": "creates_per_minute", "max": "10"},
        )
        assert delay is not None
        assert 0 < delay <= 6

    _serve(scenario, max_creates_per_minute=10)


def test_the_admin_tokens_holder_is_not_limited_per_caller() -> None:
    async def scenario(stubs: Stubs) -> None:
        (stub,) = stubs
        for seed in range(5):
            await _create(stub, seed=seed, admin=ADMIN)

    _serve(scenario, admin_token=ADMIN, max_matches_per_caller=1, max_creates_per_minute=1)


_SECOND_CALLERS = [
    pytest.param(
        "[::1]:0",
        marks=pytest.mark.skipif(not ipv6_loopback(), reason="no IPv6 loopback"),
        id="ipv6-host",
    ),
    pytest.param("unix", id="unix-socket"),
]


@pytest.mark.parametrize("second", _SECOND_CALLERS)
def test_a_request_id_answers_only_its_caller_and_its_config(second: str, tmp_path: Path) -> None:
    if second == "unix":
        second = f"unix:{tmp_path / 'server.sock'}"

    async def scenario(stubs: Stubs) -> None:
        mine, theirs = stubs
        first = await _create(mine, request_id=REQUEST_ID)
        again = await _create(mine, request_id=REQUEST_ID)
        assert again == first  # the first answer, seat tokens included
        for call in (
            _create(theirs, request_id=REQUEST_ID),
            _create(mine, request_id=REQUEST_ID, seed=2),
        ):
            code, info, _ = await _refusal(call)
            assert (code, info.reason) == (grpc.StatusCode.ALREADY_EXISTS, "REQUEST_ID_CONFLICT")
            assert first.match.name.split("/")[-1] not in info.metadata.values()

    _serve(scenario, second)


def test_with_an_admin_token_the_request_id_belongs_to_the_tokens_holder(tmp_path: Path) -> None:
    async def scenario(stubs: Stubs) -> None:
        mine, other_host = stubs
        first = await _create(mine, request_id=REQUEST_ID, admin=ADMIN)
        assert await _create(other_host, request_id=REQUEST_ID, admin=ADMIN) == first

    _serve(scenario, f"unix:{tmp_path / 'server.sock'}", admin_token=ADMIN)


def test_a_short_create_request_id_is_refused() -> None:
    async def scenario(stubs: Stubs) -> None:
        (stub,) = stubs
        code, info, _ = await _refusal(_create(stub, request_id="x" * 15))
        assert (code, info.reason) == (grpc.StatusCode.INVALID_ARGUMENT, "MALFORMED_REQUEST")
        assert info.metadata["field"] == "request_id"
        await _create(stub, request_id="x" * 16)

    _serve(scenario)


@pytest.mark.parametrize(
    ("peer", "host"),
    [
        ("ipv4:127.0.0.1:54321", "127.0.0.1"),
        ("ipv6:[::1]:5555", "::1"),
        ("ipv6:%5B::1%5D:5555", "::1"),
        ("ipv6:[2001:db8:1:2:3:4:5:6]:443", "2001:db8:1:2::/64"),
        ("ipv6:%5B2001:db8:1:2:ffff::1%5D:443", "2001:db8:1:2::/64"),
        ("ipv6:[::ffff:10.0.0.7]:80", "10.0.0.7"),
        ("unix:", "unix:"),
    ],
    ids=["ipv4", "ipv6-loopback", "ipv6-quoted", "ipv6-net", "ipv6-same-net", "mapped", "unix"],
)
def test_the_caller_is_the_peers_host(peer: str, host: str) -> None:
    assert peer_host(peer) == host
