"""Through gRPC on 127.0.0.1: thousands of calls at once on one channel are all served.

grpc's server holds calls its event loop has not taken yet in a queue, and drops new ones
(CANCELLED, no details) once that queue is long: by default from 1,000 calls, which a
reconnect storm of 2,000 streams exceeded (docs/decisions.md). ``create_server`` sets the
limit far higher; past it the SDK retries the dropped calls (``CallCancelledError``).
"""

from __future__ import annotations

import asyncio
import collections
import contextlib
import random
import threading
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from botarena.clients import (
    AsyncMatchClient,
    BotarenaError,
    RetryPolicy,
    run_bot_async,
)
from botarena.clients.testing import start_server_async
from botarena.server.service import create_server
from botarena.server.store import SqliteStore
from botarena.v1 import match_pb2, qwirkle_pb2

MATCHES = 1_000
"""Two seats each: 2,000 seat streams, twice grpc's default queue of pending calls."""

QUICK = RetryPolicy(initial_backoff=0.05, max_backoff=0.5, max_elapsed=30.0)

# One client makes every match here: the per-caller admission limits are not under test.
_UNLIMITED: dict[str, Any] = {
    "max_active_matches": 5000,
    "max_matches_per_caller": 0,
    "max_creates_per_minute": 0,
}


def _config() -> match_pb2.MatchConfig:
    """A two-seat Qwirkle match that ends at the first illegal move (a forfeit)."""
    config = match_pb2.MatchConfig(game=match_pb2.GAME_QWIRKLE, seed=3)
    config.time_control.move_time_limit.FromSeconds(600)
    config.policies.on_timeout = match_pb2.TIMEOUT_POLICY_FORFEIT
    config.policies.max_illegal_moves = 1
    return config


async def _create(client: AsyncMatchClient, count: int) -> list[str]:
    """Create ``count`` matches; return their seat tokens."""
    created = [await client.create_match(_config()) for _ in range(count)]
    return [seat.token for match in created for seat in match.seat_tokens]


async def _first_events(
    client: AsyncMatchClient, tokens: Sequence[str]
) -> collections.Counter[str]:
    """Open one seat stream per token at once on ``client``'s channel; count how each
    ended: ``OK`` once its first event arrived, else the (retryable) error's class."""

    async def first(token: str) -> str:
        events = client.with_token(token).stream_match_events("")
        async with contextlib.aclosing(events):
            try:
                await anext(events)
            except BotarenaError as error:
                return type(error).__name__ if error.retryable else f"not retryable: {error}"
        return "OK"

    return collections.Counter(await asyncio.gather(*(first(token) for token in tokens)))


def test_2000_streams_opened_at_once_on_one_channel_all_get_their_first_event() -> None:
    async def scenario() -> collections.Counter[str]:
        async with (
            start_server_async(**_UNLIMITED) as address,
            AsyncMatchClient(target=address) as client,
        ):
            tokens = await _create(client, MATCHES)
            return await _first_events(client, tokens)

    # With grpc's default queue, about 200 of them ended CANCELLED.
    assert asyncio.run(scenario()) == {"OK": 2 * MATCHES}


def test_calls_grpc_drops_are_retryable_and_bots_retry_them() -> None:
    async def scenario() -> tuple[collections.Counter[str], list[match_pb2.MatchOutcome]]:
        # No queue at all: a call that arrives while the server's loop is busy with another
        # is dropped, as every call past the limit would be in a larger storm.
        async with (
            start_server_async(max_pending_calls=0, **_UNLIMITED) as address,
            AsyncMatchClient(target=address) as client,
        ):
            ended = await _first_events(client, await _create(client, 100))
            release = threading.Event()
            release.set()
            started: asyncio.Queue[int] = asyncio.Queue()
            # A move whose resubmits all fail is resent until its deadline (600 s here),
            # not dropped after resubmit.max_attempts: an open stream never asks again.
            # One try per resubmit round makes that path certain to run.
            bots = [
                run_bot_async(
                    PassingBot(release, started),
                    server=client,
                    token=token,
                    reconnect=QUICK,
                    resubmit=RetryPolicy(max_attempts=1, max_backoff=0.2, max_elapsed=0.0),
                )
                for token in await _create(client, 100)
            ]
            return ended, await asyncio.gather(*bots)

    ended, outcomes = asyncio.run(scenario())
    assert set(ended) == {"OK", "CallCancelledError"}
    assert len(outcomes) == 200
    assert all(outcome.reason for outcome in outcomes)


class PassingBot:
    """Passes, which is illegal while the bag has tiles: with ``max_illegal_moves`` 1 the
    seat forfeits and the match ends. It answers only once ``release`` is set."""

    def __init__(self, release: threading.Event, started: asyncio.Queue[int]) -> None:
        self.release = release
        self.started = started

    def on_match_start(self, match: match_pb2.Match, seat: int) -> None:
        self.started.put_nowait(seat)

    def choose_move(
        self,
        view: match_pb2.PlayerView,
        legal_moves: Sequence[match_pb2.Move],
        rng: random.Random,
    ) -> match_pb2.Move:
        self.release.wait()
        move = qwirkle_pb2.QwirkleMove()
        getattr(move, "pass").SetInParent()  # a Python keyword
        return match_pb2.Move(qwirkle=move)


async def _until_started(
    started: asyncio.Queue[int], count: int, bots: Sequence[asyncio.Task[object]]
) -> None:
    """Wait until ``count`` bots have seen MatchStarted; raise a bot's error if one ends."""

    async def all_started() -> None:
        for _ in range(count):
            await started.get()

    waiting = asyncio.create_task(all_started())
    await asyncio.wait({waiting, *bots}, return_when=asyncio.FIRST_COMPLETED)
    if not waiting.done():
        waiting.cancel()
        for bot in bots:
            if bot.done():
                bot.result()
        raise AssertionError("a bot ended before every stream had started")


def test_bots_outlive_a_restart_and_resume_their_2000_streams_at_once(tmp_path: Path) -> None:
    """Every bot of 1,000 matches has its stream open when the server stops; they all
    reconnect to the restarted server (same port, same SQLite store) at once."""
    path = tmp_path / "botarena.db"

    async def scenario() -> list[match_pb2.MatchOutcome]:
        store = SqliteStore(path)
        server, port = await create_server("127.0.0.1:0", store=store, **_UNLIMITED)
        address = f"127.0.0.1:{port}"
        async with AsyncMatchClient(target=address) as admin:
            tokens = await _create(admin, MATCHES)
        release = threading.Event()
        started: asyncio.Queue[int] = asyncio.Queue()
        # One channel for every seat, as a runner of many bots would share it; it retries
        # its connection often, so that the bots find the restarted server at once.
        options = (("grpc.max_reconnect_backoff_ms", 200),)
        async with AsyncMatchClient(target=address, channel_options=options) as shared:
            bots = [
                asyncio.create_task(
                    run_bot_async(
                        PassingBot(release, started),
                        server=shared,
                        token=token,
                        reconnect=QUICK,
                        resubmit=QUICK,  # the channel may still be reconnecting
                    )
                )
                for token in tokens
            ]
            try:
                await _until_started(started, len(tokens), bots)
                await server.stop(0)
                store.close()
                store = SqliteStore(path)
                server, bound = await create_server(address, store=store, **_UNLIMITED)
                assert bound == port
                release.set()
                return await asyncio.gather(*bots)
            finally:
                release.set()
                for bot in bots:
                    bot.cancel()
                await asyncio.gather(*bots, return_exceptions=True)
                await server.stop(1.0)
                store.close()

    outcomes = asyncio.run(scenario())
    assert len(outcomes) == 2 * MATCHES
    assert all(outcome.reason for outcome in outcomes)
