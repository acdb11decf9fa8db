# mypy: disable-error-code="import-untyped"
"""Every character of a credential counts, through real gRPC (issue 26, point 6).

A seat token, a ladder bot's secret and the admin token, each changed in any single
character (the first, every character of the secret part, the last), cut short or made
longer, is refused; so is a seat token once the seat got a new one. A check that read
only the first 20 characters (the match id and 3 secret characters) passed every older
test, and a forged token sharing them played as seat 0.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator, Awaitable, Callable
from pathlib import Path
from typing import Any

import grpc
import pytest
from google.rpc import error_details_pb2, status_pb2

from botarena.clients.testing import start_server_async
from botarena.server.ladder import Ladder, LadderSettings
from botarena.server.match import MatchManager
from botarena.server.service import durable_manager
from botarena.server.store import SqliteStore
from botarena.v1 import (
    ladder_pb2,
    ladder_pb2_grpc,
    match_pb2,
    match_service_pb2,
    match_service_pb2_grpc,
)

ADMIN = "admin-7q2YcN0vX8kLw4Rt9HsJd3FbG6mP1zUe"
"""The test server's admin token: 38 characters, every one of them checked."""

INVALID = (grpc.StatusCode.PERMISSION_DENIED, "SEAT_TOKEN_INVALID")
NO_MATCH = (grpc.StatusCode.NOT_FOUND, "MATCH_NOT_FOUND")
BAD_SECRET = (grpc.StatusCode.UNAUTHENTICATED, "BOT_SECRET_INVALID")
NOT_ADMIN = (grpc.StatusCode.UNAUTHENTICATED, "ADMIN_TOKEN_REQUIRED")


def forgeries(real: str, secret_from: int) -> dict[str, tuple[int | None, str]]:
    """Return ``real`` changed in one character (the first, each from ``secret_from``
    on, the last), cut short (by one; to ``secret_from`` + 3 characters) and made longer,
    by name, each with the position it changed (``None``: its length changed)."""

    def changed(position: int) -> str:
        other = "A" if real[position] != "A" else "B"
        return real[:position] + other + real[position + 1 :]

    positions = sorted({0, *range(secret_from, len(real)), len(real) - 1})
    cases: dict[str, tuple[int | None, str]] = {
        f"character {position}": (position, changed(position)) for position in positions
    }
    cases["one character short"] = (None, real[:-1])
    cases[f"its first {secret_from + 3} characters"] = (None, real[: secret_from + 3])
    cases["one character more"] = (None, real + "A")
    cases["its secret twice"] = (None, real + real[secret_from:])
    assert real not in {forged for _, forged in cases.values()}
    return cases


def _bearer(token: str) -> tuple[tuple[str, str]]:
    return (("authorization", f"Bearer {token}"),)


def _reason(error: grpc.aio.AioRpcError) -> tuple[grpc.StatusCode, str]:
    for key, value in error.trailing_metadata() or ():
        if key == "grpc-status-details-bin":
            for detail in status_pb2.Status.FromString(value).details:
                info = error_details_pb2.ErrorInfo()
                if detail.Unpack(info):
                    return error.code(), info.reason
    return error.code(), ""


async def _refusal(call: Awaitable[Any]) -> tuple[grpc.StatusCode, str]:
    try:
        await call
    except grpc.aio.AioRpcError as error:
        return _reason(error)
    raise AssertionError("the forged credential was accepted")


class _Seat:
    """A fresh match on a server: seat 0's real token, its first legal move, and the
    MatchService stub."""

    def __init__(self, stub: Any, token: str, move: match_pb2.Move, version: int) -> None:
        self.stub, self.token, self.move, self.version = stub, token, move, version

    def calls(self, token: str) -> dict[str, Awaitable[Any]]:
        """The three calls a seat token authorises, with ``token``."""
        metadata = _bearer(token)
        return {
            "GetPlayerView": self.stub.GetPlayerView(
                match_service_pb2.GetPlayerViewRequest(), metadata=metadata
            ),
            "SubmitMove": self.stub.SubmitMove(
                match_service_pb2.SubmitMoveRequest(
                    move=self.move, expected_state_version=self.version
                ),
                metadata=metadata,
            ),
            "ResignMatch": self.stub.ResignMatch(
                match_service_pb2.ResignMatchRequest(), metadata=metadata
            ),
        }


async def _first_decision(stub: Any, token: str) -> tuple[match_pb2.Move, int]:
    """The seat's first legal move and the state version it is asked at."""
    stream = stub.StreamMatchEvents(
        match_service_pb2.StreamMatchEventsRequest(), metadata=_bearer(token)
    )
    try:
        async for response in stream:
            event = response.event
            if event.WhichOneof("kind") == "decision_requested":
                return event.decision_requested.legal_moves[0], event.state_version
    finally:
        stream.cancel()
    raise AssertionError("the seat was never asked to move")


@contextlib.asynccontextmanager
async def _seat_zero(channel: grpc.aio.Channel) -> AsyncIterator[_Seat]:
    """A fresh two-seat match whose seat 1 has joined (its stream open meanwhile), at
    seat 0's first decision."""
    stub = match_service_pb2_grpc.MatchServiceStub(channel)
    config = match_pb2.MatchConfig(game=match_pb2.GAME_QWIRKLE, seat_count=2, seed=5)
    created = await stub.CreateMatch(match_service_pb2.CreateMatchRequest(config=config))
    other = stub.StreamMatchEvents(
        match_service_pb2.StreamMatchEventsRequest(),
        metadata=_bearer(created.seat_tokens[1].token),
    )
    joined = asyncio.create_task(other.read())  # a seat joins by opening its stream
    try:
        token = created.seat_tokens[0].token
        yield _Seat(stub, token, *await _first_decision(stub, token))
    finally:
        other.cancel()
        await asyncio.gather(joined, return_exceptions=True)


async def _assert_seat_plays(seat: _Seat) -> None:
    """The real token still acts for seat 0, and no forgery moved the match."""
    view = await seat.stub.GetPlayerView(
        match_service_pb2.GetPlayerViewRequest(), metadata=_bearer(seat.token)
    )
    assert (view.view.seat, view.state_version) == (0, seat.version)
    await seat.stub.SubmitMove(
        match_service_pb2.SubmitMoveRequest(move=seat.move, expected_state_version=seat.version),
        metadata=_bearer(seat.token),
    )


def _ladder(tmp_path: Path) -> Ladder:
    return Ladder(
        MatchManager(), SqliteStore(tmp_path / "ladder.db").ladder_store(), LadderSettings()
    )


def _in_a_server(scenario: Callable[[grpc.aio.Channel], Awaitable[None]], **options: Any) -> None:
    async def main() -> None:
        async with (
            start_server_async(**options) as address,
            grpc.aio.insecure_channel(address) as channel,
        ):
            await asyncio.wait_for(scenario(channel), 60)

    asyncio.run(main())


def test_a_seat_token_differing_in_any_character_or_length_is_refused() -> None:
    async def scenario(channel: grpc.aio.Channel) -> None:
        async with _seat_zero(channel) as seat:
            match_id = seat.token.partition(".")[0]
            refused: dict[str, tuple[grpc.StatusCode, str]] = {}
            expected: dict[str, tuple[grpc.StatusCode, str]] = {}
            for name, (position, forged) in forgeries(seat.token, len(match_id) + 1).items():
                # A changed match id names no match; anything else is a wrong secret.
                changed_id = position is not None and position < len(match_id)
                for rpc, call in seat.calls(forged).items():
                    refused[f"{rpc}, {name}"] = await _refusal(call)
                    expected[f"{rpc}, {name}"] = NO_MATCH if changed_id else INVALID
            assert refused == expected
            await _assert_seat_plays(seat)

    _in_a_server(scenario)


def test_the_admin_token_differing_in_any_character_or_length_is_refused(
    tmp_path: Path,
) -> None:
    ladder = _ladder(tmp_path)

    async def scenario(channel: grpc.aio.Channel) -> None:
        matches = match_service_pb2_grpc.MatchServiceStub(channel)
        bots = ladder_pb2_grpc.LadderServiceStub(channel)
        config = match_pb2.MatchConfig(game=match_pb2.GAME_QWIRKLE, seat_count=2)
        create = match_service_pb2.CreateMatchRequest(config=config)
        register = ladder_pb2.RegisterBotRequest(display_name="b", game=match_pb2.GAME_QWIRKLE)
        refused = {}
        for name, (_, forged) in forgeries(ADMIN, 0).items():
            for rpc, call in (
                ("CreateMatch", matches.CreateMatch(create, metadata=_bearer(forged))),
                ("RegisterBot", bots.RegisterBot(register, metadata=_bearer(forged))),
            ):
                refused[f"{rpc}, {name}"] = await _refusal(call)
        assert set(refused.values()) == {NOT_ADMIN}
        assert (await matches.CreateMatch(create, metadata=_bearer(ADMIN))).seat_tokens
        assert (await bots.RegisterBot(register, metadata=_bearer(ADMIN))).secret

    _in_a_server(scenario, admin_token=ADMIN, ladder=ladder, manager=ladder.manager)


def test_a_bot_secret_differing_in_any_character_or_length_is_refused(tmp_path: Path) -> None:
    ladder = _ladder(tmp_path)

    async def connect(stub: Any, secret: str) -> ladder_pb2.ConnectResponse:
        call = stub.Connect(ladder_pb2.ConnectRequest(capacity=1), metadata=_bearer(secret))
        try:
            first: ladder_pb2.ConnectResponse = await call.read()
            return first
        finally:
            call.cancel()

    async def scenario(channel: grpc.aio.Channel) -> None:
        stub = ladder_pb2_grpc.LadderServiceStub(channel)
        registered = await stub.RegisterBot(
            ladder_pb2.RegisterBotRequest(display_name="b", game=match_pb2.GAME_QWIRKLE)
        )
        secret = registered.secret
        bot_id = secret.partition(".")[0]
        refused = {
            name: await _refusal(connect(stub, forged))
            for name, (_, forged) in forgeries(secret, len(bot_id) + 1).items()
        }
        assert set(refused.values()) == {BAD_SECRET}, refused
        connected = await connect(stub, secret)
        assert connected.connected.bot.name == registered.bot.name

    _in_a_server(scenario, ladder=ladder, manager=ladder.manager)


class _Connection:
    """A bot's raw Connect stream: the seat tokens it is assigned."""

    def __init__(self, channel: grpc.aio.Channel, secret: str, *, resume: bool) -> None:
        stub = ladder_pb2_grpc.LadderServiceStub(channel)
        request = ladder_pb2.ConnectRequest(capacity=1, resume_seats=resume)
        self.call = stub.Connect(request, metadata=_bearer(secret))

    async def assignment(self) -> ladder_pb2.Assignment:
        async for response in self.call:
            if response.WhichOneof("kind") == "assignment":
                assignment: ladder_pb2.Assignment = response.assignment
                return assignment
        raise AssertionError("the stream ended without an assignment")


@contextlib.asynccontextmanager
async def _ladder_server(path: Path) -> AsyncIterator[tuple[Ladder, grpc.aio.Channel]]:
    """A durable ladder server on ``path`` (its unfinished matches recovered)."""
    core = SqliteStore(path)
    manager = durable_manager(core)
    manager.recover()
    fast = LadderSettings(tick_seconds=0.05, keepalive_seconds=0.2, pair_cap_per_hour=1)
    ladder = Ladder(manager, core.ladder_store(), fast)
    try:
        async with (
            start_server_async(ladder=ladder, manager=manager) as address,
            grpc.aio.insecure_channel(address) as channel,
        ):
            yield ladder, channel
    finally:
        await ladder.close()
        manager.close()
        core.close()


def test_a_reissued_seat_tokens_predecessor_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "botarena.db"

    async def main() -> None:
        async with _ladder_server(path) as (ladder, channel):
            secrets = [ladder.register(name, "", "qwirkle")[1] for name in ("a", "b")]
            connections = [_Connection(channel, secret, resume=False) for secret in secrets]
            first = await connections[0].assignment()
            for connection in connections:
                connection.call.cancel()
        # After a restart the server keeps only the tokens' hashes: the old one still
        # plays, until the bot, which lost it, asks for its seat again.
        async with _ladder_server(path) as (ladder, channel):
            stub = match_service_pb2_grpc.MatchServiceStub(channel)
            old = first.seat_token
            view = await stub.GetPlayerView(
                match_service_pb2.GetPlayerViewRequest(), metadata=_bearer(old)
            )
            assert view.view.seat == first.seat
            connection = _Connection(channel, secrets[0], resume=True)
            again = await connection.assignment()
            assert (again.match, again.seat) == (first.match, first.seat)
            assert again.seat_token != old
            seat = _Seat(stub, again.seat_token, match_pb2.Move(), 0)
            refused = {rpc: await _refusal(call) for rpc, call in seat.calls(old).items()}
            assert refused == dict.fromkeys(refused, INVALID)
            assert set(refused) == {"GetPlayerView", "SubmitMove", "ResignMatch"}
            view = await stub.GetPlayerView(
                match_service_pb2.GetPlayerViewRequest(), metadata=_bearer(again.seat_token)
            )
            assert view.view.seat == first.seat
            connection.call.cancel()

    asyncio.run(asyncio.wait_for(main(), 60))


@pytest.mark.parametrize("secret_from", [0, 17])
def test_the_forgeries_cover_every_position_from_the_secret_and_both_lengths(
    secret_from: int,
) -> None:
    real = "0123456789abcdef.ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefgh"
    cases = forgeries(real, secret_from)
    changed = {position for position, _ in cases.values() if position is not None}
    assert changed == {0, *range(secret_from, len(real))}
    lengths = {len(forged) for position, forged in cases.values() if position is None}
    assert {len(real) - 1, secret_from + 3, len(real) + 1} <= lengths
