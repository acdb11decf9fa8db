"""Start a real botarena server in-process, for your own tests (after ``temporalio.testing``).

The server is the production one (``botarena.server.service.create_server``) on
``127.0.0.1`` and a free port; both helpers yield its address, ``"127.0.0.1:PORT"``::

    from botarena.clients import MatchClient
    from botarena.clients.testing import start_server

    def test_my_bot_finishes_a_match() -> None:
        with start_server() as address, MatchClient(target=address) as client:
            created = client.create_match(MatchConfig(game=GAME_QWIRKLE, seed=7))
            ...

:func:`start_server` runs the server's event loop on a background thread, so blocking
code (``MatchClient``, ``run_bot``, subprocesses) can use it; in async code use
:func:`start_server_async`, which serves from the running loop.
"""

from __future__ import annotations

import asyncio
import contextlib
import threading
from collections.abc import AsyncIterator, Iterator
from typing import Any

__all__ = ["start_server", "start_server_async"]

_HOST = "127.0.0.1"
_STARTUP_TIMEOUT = 30.0


@contextlib.asynccontextmanager
async def start_server_async(**options: Any) -> AsyncIterator[str]:
    """Serve from the running event loop while the ``async with`` block runs.

    Args:
        **options: Passed to ``create_server`` (for example ``admin_token=``, or
            ``MatchManager`` options such as ``max_active_matches=``).

    Yields:
        The server's address, ``"127.0.0.1:PORT"``.
    """
    # Imported here: the SDK does not need the server unless a test starts one.
    from botarena.server.service import create_server

    server, port = await create_server(f"{_HOST}:0", **options)
    try:
        yield f"{_HOST}:{port}"
    finally:
        # A short grace lets open calls end cleanly: without it the clients' channels get
        # an abrupt GOAWAY, which grpc's C core logs on stderr at the end of every run.
        await server.stop(1.0)


@contextlib.contextmanager
def start_server(**options: Any) -> Iterator[str]:
    """Serve from a background thread while the ``with`` block runs.

    Args:
        **options: As for :func:`start_server_async`.

    Yields:
        The server's address, ``"127.0.0.1:PORT"``.

    Raises:
        Exception: Whatever starting the server raised.
    """
    started: list[str] = []
    failures: list[BaseException] = []
    ready = threading.Event()
    stop: list[tuple[asyncio.AbstractEventLoop, asyncio.Event]] = []

    async def serve() -> None:
        stopping = asyncio.Event()
        stop.append((asyncio.get_running_loop(), stopping))
        try:
            async with start_server_async(**options) as address:
                started.append(address)
                ready.set()
                await stopping.wait()
        except BaseException as exc:
            failures.append(exc)
            raise

    def run() -> None:
        # asyncio.run, not a bare loop: it cancels leftovers and shuts down the executor.
        with contextlib.suppress(BaseException):
            asyncio.run(serve())
        ready.set()

    thread = threading.Thread(target=run, name="botarena-test-server", daemon=True)
    thread.start()
    ready.wait(_STARTUP_TIMEOUT)
    if not started:
        thread.join(_STARTUP_TIMEOUT)
        if failures:
            raise failures[0]
        raise RuntimeError("the botarena test server did not start")
    try:
        yield started[0]
    finally:
        loop, stopping = stop[0]
        loop.call_soon_threadsafe(stopping.set)
        thread.join()
