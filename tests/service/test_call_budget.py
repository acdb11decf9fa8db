# mypy: disable-error-code="import-untyped"
"""Per-caller call budgets and the fair share of the server, through real gRPC on
127.0.0.1 and a Unix socket of the same server (two callers; issue 26, point 2)."""

from __future__ import annotations

import asyncio
import tempfile
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import grpc
import pytest

from botarena.bots import RandomBot
from botarena.clients import AsyncMatchClient, RateLimitedError, run_ladder_bot_async
from botarena.clients._retry import is_retryable
from botarena.server.games import get_rules
from botarena.server.ladder import Ladder, LadderSettings
from botarena.server.match import CallBudgetLimits, MatchManager, MatchSettings
from botarena.server.service import create_server
from botarena.server.store import SqliteStore
from botarena.v1 import (
    ladder_pb2,
    ladder_pb2_grpc,
    match_pb2,
    match_service_pb2,
    match_service_pb2_grpc,
)

ADMIN = "admin-token-of-the-test-server"


Channels = list[grpc.aio.Channel]
Tools = Any  # the client_tools fixture


async def _create(
    stub: Any, *, seed: int = 1, admin: str | None = None
) -> match_service_pb2.CreateMatchResponse:
    config = match_pb2.MatchConfig(game=match_pb2.GAME_QWIRKLE, seat_count=2, seed=seed)
    response: match_service_pb2.CreateMatchResponse = await stub.CreateMatch(
        match_service_pb2.CreateMatchRequest(config=config),
        metadata=None if admin is None else _bearer(admin),
    )
    return response


async def _refusal(call: Awaitable[Any], tools: Tools) -> Any:
    """Await a call that must fail; return its RpcFailure (conftest)."""
    try:
        await call
    except grpc.aio.AioRpcError as error:
        return tools.failure_of(error)
    raise AssertionError("the call succeeded")


def _serve(scenario: Callable[[Channels, int], Awaitable[None]], **options: Any) -> None:
    """Run ``scenario`` with a channel over 127.0.0.1 and one over a Unix socket (peer
    ``unix:``): two callers."""

    async def main() -> None:
        with tempfile.TemporaryDirectory() as folder:
            second = f"unix:{folder}/server.sock"
            server, port = await create_server(["127.0.0.1:0", second], **options)
            channels = [
                grpc.aio.insecure_channel(f"127.0.0.1:{port}"),
                grpc.aio.insecure_channel(second),
            ]
            await _run(server, channels, port)

    async def _run(server: Any, channels: Channels, port: int) -> None:
        try:
            await asyncio.wait_for(scenario(channels, port), 60)
        finally:
            for channel in channels:
                await channel.close()
            await server.stop(None)

    asyncio.run(main())


def _serve_ladder(
    scenario: Callable[[Channels, int, Ladder], Awaitable[None]],
    folder: Path,
    budget: CallBudgetLimits,
) -> None:
    """Run ``scenario`` as :func:`_serve` does, against a server with a ladder (on a
    SQLite file in ``folder``), which it is given too."""
    store = SqliteStore(folder / "ladder.db")
    ladder = Ladder(MatchManager(), store.ladder_store(), LadderSettings())
    try:
        _serve(
            lambda channels, port: scenario(channels, port, ladder),
            ladder=ladder,
            call_budget=budget,
        )
    finally:
        store.close()


def _stubs(channels: Channels) -> list[Any]:
    return [match_service_pb2_grpc.MatchServiceStub(channel) for channel in channels]


def _bearer(token: str) -> tuple[tuple[str, str], ...]:
    return (("authorization", f"Bearer {token}"),)


_BIG_PAGE = match_service_pb2.ListMatchesRequest(page_size=500)


def test_a_caller_over_its_budget_is_refused_with_retry_info_while_another_is_served(
    client_tools: Tools,
) -> None:
    async def scenario(channels: Channels, _port: int) -> None:
        greedy, other = _stubs(channels)
        # 20 units a second, 40 at once: a page of 500 costs 63.5, more than the bucket
        # holds, so it takes a full one and leaves it 23.5 in debt: 3.2 s to the next.
        await greedy.ListMatches(_BIG_PAGE)
        failure = await _refusal(greedy.ListMatches(_BIG_PAGE), client_tools)
        assert failure.code == grpc.StatusCode.RESOURCE_EXHAUSTED
        assert failure.reason == "RATE_LIMITED"
        assert failure.metadata == {"limit": "call_budget", "max": "20"}
        assert failure.retry_after is not None
        assert failure.retry_after >= 1.0
        get = match_service_pb2.GetMatchRequest(name="matches/0123456789abcdef")
        assert (await _refusal(greedy.GetMatch(get), client_tools)).reason == "RATE_LIMITED"
        # The other caller has its own budget: served (it finds no match).
        assert (await _refusal(other.GetMatch(get), client_tools)).reason == "MATCH_NOT_FOUND"

    _serve(scenario, call_budget=CallBudgetLimits(units_per_second=20))


def test_calls_rejected_for_their_credentials_are_charged_twice_and_refuse_plays_not_admins(
    client_tools: Tools,
) -> None:
    async def scenario(channels: Channels, _port: int) -> None:
        player, flooder = _stubs(channels)
        created = await _create(player, admin=ADMIN)
        token = created.seat_tokens[0].token
        # CreateMatch costs 5, and 5 more when rejected: 1 unit a second, 2 at once, are
        # 8 in debt after one.
        failure = await _refusal(_create(flooder), client_tools)
        assert (failure.code, failure.reason) == (
            grpc.StatusCode.UNAUTHENTICATED,
            "ADMIN_TOKEN_REQUIRED",
        )
        failure = await _refusal(_create(flooder), client_tools)
        assert (failure.code, failure.reason) == (
            grpc.StatusCode.RESOURCE_EXHAUSTED,
            "RATE_LIMITED",
        )
        assert failure.retry_after is not None
        # The flooder's budget is in debt: its plays wait too (a seat's token does not
        # help it), while the other caller plays on.
        view = match_service_pb2.GetPlayerViewRequest()
        failure = await _refusal(flooder.GetPlayerView(view, metadata=_bearer(token)), client_tools)
        assert failure.reason == "RATE_LIMITED"
        for _ in range(5):
            await player.GetPlayerView(view, metadata=_bearer(token))
        # Calls with the admin token are not charged: 4 creations of 5 units pass 5.
        for seed in range(4):
            await _create(flooder, seed=seed, admin=ADMIN)

    _serve(
        scenario,
        admin_token=ADMIN,
        call_budget=CallBudgetLimits(units_per_second=1, play_units_per_second=1000),
    )


def test_a_seats_own_calls_spend_the_play_budget_not_the_call_budget(
    client_tools: Tools,
) -> None:
    async def scenario(channels: Channels, _port: int) -> None:
        stub, creator = _stubs(channels)
        created = await _create(creator)  # another caller's budget
        seat = created.match.seats_to_act[0]
        token = created.seat_tokens[seat].token
        name = match_service_pb2.GetMatchRequest(name=created.match.name)
        # A unit in 4 s, half of one at once: a GetMatch takes a full bucket and leaves it
        # in debt, 4 s from the next call.
        await stub.GetMatch(name)
        failure = await _refusal(stub.GetMatch(name), client_tools)
        assert (failure.code, failure.metadata) == (
            grpc.StatusCode.RESOURCE_EXHAUSTED,
            {"limit": "call_budget", "max": "0.25"},
        )
        # A spectator's view and stream (no token) are no plays: refused too.
        spectator = match_service_pb2.GetPlayerViewRequest(match=created.match.name)
        assert (await _refusal(stub.GetPlayerView(spectator), client_tools)).reason == (
            "RATE_LIMITED"
        )
        watch = match_service_pb2.StreamMatchEventsRequest(match=created.match.name)
        failure = await _refusal(stub.StreamMatchEvents(watch).read(), client_tools)
        assert failure.reason == "RATE_LIMITED"
        # The seat plays on: views, a move and its event stream, with its token, cost
        # the play budget.
        for _ in range(20):
            view = await stub.GetPlayerView(
                match_service_pb2.GetPlayerViewRequest(), metadata=_bearer(token)
            )
        await stub.SubmitMove(
            match_service_pb2.SubmitMoveRequest(
                move=view.legal_moves[0], expected_state_version=view.state_version
            ),
            metadata=_bearer(token),
        )
        events = stub.StreamMatchEvents(
            match_service_pb2.StreamMatchEventsRequest(), metadata=_bearer(token)
        )
        first = await events.read()
        assert first.event.state_version == 0
        events.cancel()

    _serve(
        scenario,
        call_budget=CallBudgetLimits(units_per_second=0.25, play_units_per_second=1000),
    )


def test_the_sdk_raises_a_retryable_error_with_the_servers_delay() -> None:
    async def scenario(_channels: Channels, port: int) -> None:
        async with AsyncMatchClient(target=f"127.0.0.1:{port}") as client:
            await client.list_matches(page_size=500)
            with pytest.raises(RateLimitedError) as refused:
                await client.list_matches(page_size=500)
        assert is_retryable(refused.value)
        assert refused.value.retry_after is not None
        assert refused.value.retry_after >= 1.0

    _serve(scenario, call_budget=CallBudgetLimits(units_per_second=10))


def test_bot_registrations_have_their_own_hourly_rate_per_caller(
    tmp_path: Path, client_tools: Tools
) -> None:
    async def scenario(channels: Channels, _port: int, _ladder: Ladder) -> None:
        first, second = (ladder_pb2_grpc.LadderServiceStub(channel) for channel in channels)

        def register(stub: Any, name: str) -> Any:
            return stub.RegisterBot(
                ladder_pb2.RegisterBotRequest(
                    display_name=name, owner="test", game=match_pb2.GAME_QWIRKLE
                )
            )

        # 8 an hour, 2 at once; a refused registration (a name taken) counts too.
        await register(first, "alpha")
        failure = await _refusal(register(first, "alpha"), client_tools)
        assert failure.code == grpc.StatusCode.ALREADY_EXISTS
        failure = await _refusal(register(first, "beta"), client_tools)
        assert failure.code == grpc.StatusCode.RESOURCE_EXHAUSTED
        assert failure.metadata == {"limit": "registrations_per_hour", "max": "8"}
        assert failure.retry_after is not None
        assert failure.retry_after > 60  # an eighth of an hour, less what passed
        await register(second, "beta")  # another caller registers

    _serve_ladder(scenario, tmp_path, CallBudgetLimits(registrations_per_hour=8))


def test_a_waiting_caller_gets_its_fair_share_and_the_reserve_stays_for_the_ladder(
    client_tools: Tools,
) -> None:
    manager = MatchManager(max_active_matches=5, max_matches_per_caller=0, reserved_matches=1)

    async def scenario(channels: Channels, _port: int) -> None:
        big, small = _stubs(channels)
        held = [await _create(big, seed=seed) for seed in range(4)]  # all but the reserve
        failure = await _refusal(_create(small), client_tools)
        assert (failure.code, failure.metadata["limit"]) == (
            grpc.StatusCode.RESOURCE_EXHAUSTED,
            "active_matches",
        )
        # One of big's matches ends: the slot goes to small, which waits, not to big,
        # which holds more than its share (4 // 2).
        token = held[0].seat_tokens[0].token
        await big.ResignMatch(match_service_pb2.ResignMatchRequest(), metadata=_bearer(token))
        failure = await _refusal(_create(big), client_tools)
        assert failure.metadata == {"limit": "fair_share", "max": "2"}
        await _create(small)
        # Full again for the callers; the reserve is the ladder's (an in-process
        # creation, no caller).
        failure = await _refusal(_create(small), client_tools)
        assert failure.metadata["limit"] == "active_matches"
        manager.create(MatchSettings("qwirkle", 2, 7, get_rules("qwirkle").default_config()))
        assert manager.active_count == 5

    _serve(scenario, manager=manager)


def test_a_ladder_bot_refused_by_the_budget_connects_once_its_retry_info_has_passed(
    tmp_path: Path, client_tools: Tools
) -> None:
    async def scenario(channels: Channels, port: int, ladder: Ladder) -> None:
        bot_host, registrar = (ladder_pb2_grpc.LadderServiceStub(channel) for channel in channels)
        registered = await registrar.RegisterBot(
            ladder_pb2.RegisterBotRequest(
                display_name="patient", owner="test", game=match_pb2.GAME_QWIRKLE
            )
        )
        connect = ladder_pb2.ConnectRequest(capacity=1)
        # 1 unit a second, 2 at once: two Connects with a bad secret (2 units each,
        # charged again when rejected) leave the bot's host 2 units in debt.
        for _ in range(2):
            call = bot_host.Connect(connect, metadata=_bearer("not-a-secret"))
            assert (await _refusal(call.read(), client_tools)).reason == "BOT_SECRET_INVALID"
        call = bot_host.Connect(connect, metadata=_bearer(registered.secret))
        assert (await _refusal(call.read(), client_tools)).reason == "RATE_LIMITED"
        # The SDK's ladder bot waits the RetryInfo and gets in.
        task = asyncio.create_task(
            run_ladder_bot_async(RandomBot, server=f"127.0.0.1:{port}", secret=registered.secret)
        )
        try:
            while not any(row.connected for row in ladder.leaderboard("qwirkle")):
                assert not task.done(), task
                await asyncio.sleep(0.05)
        finally:
            task.cancel()
            await asyncio.gather(task, return_exceptions=True)

    budget = CallBudgetLimits(units_per_second=1, play_units_per_second=1000)
    _serve_ladder(scenario, tmp_path, budget)
