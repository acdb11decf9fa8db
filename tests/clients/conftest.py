"""Shared tools of the SDK tests: match configs, a stream-cutting manager, a TCP proxy.

Tests run in importlib mode and cannot import this module, so the ``sdk_tools`` fixture
hands its helpers over.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncGenerator
from types import SimpleNamespace
from typing import Any

import pytest

from botarena.server.match import MatchManager, StreamItem
from botarena.v1 import match_pb2


def qwirkle_config(
    *,
    seed: int = 1,
    seats: int = 2,
    limit: float | None = None,
    on_timeout: match_pb2.TimeoutPolicy.ValueType = match_pb2.TIMEOUT_POLICY_UNSPECIFIED,
) -> match_pb2.MatchConfig:
    """A two-seat Qwirkle match config; ``limit`` is the move time limit in seconds."""
    config = match_pb2.MatchConfig(game=match_pb2.GAME_QWIRKLE, seat_count=seats, seed=seed)
    if limit is not None:
        config.time_control.move_time_limit.FromNanoseconds(int(limit * 1e9))
    config.policies.on_timeout = on_timeout
    return config


class StreamCuttingManager(MatchManager):
    """A MatchManager whose event streams end early (status OK, no MatchFinished).

    The first ``cuts`` streams opened end after ``every`` items each, as a server that
    closes streams while matches go on (a restart, a load balancer) would.
    """

    def __init__(self, *, every: int, cuts: int, **options: Any) -> None:
        super().__init__(**options)
        self.every = every
        self.cuts_left = cuts
        self.opened: list[int] = []

    async def stream(
        self, match_id: str, seat: int | None, after_state_version: int
    ) -> AsyncGenerator[StreamItem, None]:
        self.opened.append(after_state_version)
        cut = self.cuts_left > 0
        self.cuts_left -= cut
        sent = 0
        async for item in super().stream(match_id, seat, after_state_version):
            yield item
            sent += 1
            if cut and sent >= self.every:
                return


class DroppingProxy:
    """A TCP proxy in front of a server whose :meth:`drop` cuts every open connection.

    To a client this is a network failure: its calls fail with UNAVAILABLE and its
    channel reconnects through the proxy, which keeps listening.
    """

    def __init__(self, upstream: str) -> None:
        host, port = upstream.rsplit(":", 1)
        self.upstream = (host, int(port))
        self.drops = 0
        self._server: asyncio.Server | None = None
        self._links: set[tuple[asyncio.StreamWriter, asyncio.StreamWriter]] = set()
        self._pipes: set[asyncio.Task[None]] = set()

    async def start(self) -> str:
        self._server = await asyncio.start_server(self._accept, "127.0.0.1", 0)
        port = self._server.sockets[0].getsockname()[1]
        return f"127.0.0.1:{port}"

    async def _accept(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        up_reader, up_writer = await asyncio.open_connection(*self.upstream)
        link = (writer, up_writer)
        self._links.add(link)
        pipes = [
            asyncio.create_task(self._pipe(reader, up_writer)),
            asyncio.create_task(self._pipe(up_reader, writer)),
        ]
        self._pipes.update(pipes)
        try:
            await asyncio.gather(*pipes, return_exceptions=True)
        finally:
            self._pipes.difference_update(pipes)
            self._links.discard(link)
            for end in link:
                end.transport.abort()

    @staticmethod
    async def _pipe(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        with contextlib.suppress(ConnectionError, OSError):
            while data := await reader.read(65536):
                writer.write(data)
                await writer.drain()
        writer.transport.abort()

    def drop(self) -> None:
        """Cut every open connection, both ways, at once (an RST, not a clean close)."""
        self.drops += 1
        for link in list(self._links):
            for end in link:
                end.transport.abort()

    async def close(self) -> None:
        if self._server is not None:
            self._server.close()
        self.drop()
        for task in list(self._pipes):
            task.cancel()
        await asyncio.gather(*self._pipes, return_exceptions=True)
        if self._server is not None:
            await self._server.wait_closed()


@pytest.fixture
def sdk_tools() -> SimpleNamespace:
    """The helpers of this conftest (importlib mode cannot import conftest modules)."""
    return SimpleNamespace(
        qwirkle_config=qwirkle_config,
        StreamCuttingManager=StreamCuttingManager,
        DroppingProxy=DroppingProxy,
    )
