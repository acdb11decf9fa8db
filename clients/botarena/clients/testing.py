"""Start a real botarena server in-process, for your own tests (after ``temporalio.testing``).

The server is the production one (``botarena.server.service.create_server``) on
``127.0.0.1`` and a free port; both helpers yield its address, ``"127.0.0.1:PORT"``::

    from botarena.clients import MatchClient
    from botarena.clients.testing import start_server

    def test_my_bot_finishes_a_match() -> None:
        with start_server() as address, MatchClient(target=address) as client:
            created = client.create_match(MatchConfig(game=MY_GAME, seed=7))
            ...

:func:`start_server` runs the server's event loop on a background thread, so blocking
code (``MatchClient``, ``run_bot``, subprocesses) can use it; in async code use
:func:`start_server_async`, which serves from the running loop. :class:`ServerProcess`
runs ``botarena serve`` in a child process, for tests that kill it (``kill -9``) and
start it again on the same port and database.

:class:`SlowBot` makes a bot think longer, so a match outlasts what a test does to its
server. :func:`play_in_process` plays bots against the pure engine with no server at all: the
same views and legal moves (the server's codec encodes them), hundreds of games a
minute, for developing and tuning a bot.

Being the production server, it applies the production admission limits (README: Run
the server): a test that holds more than 100 unfinished matches at once, or creates more
than 300 in a burst, from one process passes ``max_matches_per_caller=0`` and
``max_creates_per_minute=0`` (and ``max_active_matches=`` above 500 if it needs more).
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import random
import signal
import socket
import subprocess
import sys
import threading
import time
from collections.abc import AsyncIterator, Iterator, Sequence
from pathlib import Path
from types import TracebackType
from typing import IO, Any, Self

from botarena.clients._bot import Bot
from botarena.clients._local import IllegalBotMoveError, InProcessGame, play_in_process
from botarena.v1 import match_pb2

__all__ = [
    "IllegalBotMoveError",
    "InProcessGame",
    "ServerProcess",
    "SlowBot",
    "free_port",
    "play_in_process",
    "start_server",
    "start_server_async",
]

_HOST = "127.0.0.1"
_STARTUP_TIMEOUT = 30.0


@contextlib.asynccontextmanager
async def start_server_async(**options: Any) -> AsyncIterator[str]:
    """Serve from the running event loop while the ``async with`` block runs.

    Args:
        **options: Passed to ``create_server`` (for example ``admin_token=``,
            ``credentials=grpc.ssl_server_credentials(...)`` to serve TLS, or
            ``MatchManager`` options such as ``max_active_matches=``).

    Yields:
        The server's address, ``"127.0.0.1:PORT"`` (over TLS, clients connect to
        ``f"botarena+tls://{address}?ca=PATH"``).
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


class SlowBot:
    """``bot`` thinking ``seconds`` longer over each move (in ``run_bot``'s worker thread),
    so that a match lasts while a test stops, freezes or kills a server under it.

    Args:
        bot: The player that chooses the moves.
        seconds: The wait before each move.
    """

    def __init__(self, bot: Bot, seconds: float) -> None:
        self.bot = bot
        self.seconds = seconds

    def choose_move(
        self,
        view: match_pb2.PlayerView,
        legal_moves: Sequence[match_pb2.Move],
        rng: random.Random,
    ) -> match_pb2.Move:
        """Wait, then return ``bot``'s move."""
        time.sleep(self.seconds)
        return self.bot.choose_move(view, legal_moves, rng)


def free_port() -> int:
    """Return a TCP port of 127.0.0.1 that was free a moment ago (for a node that must
    know its address before it starts: ``botarena serve --advertise``)."""
    with socket.socket() as probe:
        probe.bind((_HOST, 0))
        port: int = probe.getsockname()[1]
        return port


class ServerProcess:
    """``botarena serve --db DB`` in a child process on ``127.0.0.1``.

    The first :meth:`start` binds a free port; later starts bind the same one, so clients
    (and bots holding seat tokens) find the server again after :meth:`kill`. Its JSON
    logs are appended to ``log_path`` (``DB.log`` by default). Leaving the ``with`` block
    kills the server::

        with ServerProcess(tmp_path / "botarena.db") as server:
            address = server.start()
            ...
            server.kill()  # kill -9: nothing is stopped cleanly
            server.start()  # the same port; unfinished matches are recovered

    :meth:`freeze` and :meth:`thaw` stop it and let it go on (SIGSTOP, SIGCONT).

    Args:
        db: The SQLite database, or a ``postgresql://`` URL (``--db``).
        options: More ``botarena serve`` options.
        log_path: Where the server's output goes (required with a URL).
        port: The port to bind; 0 (the default) picks a free one. A node of several on
            one PostgreSQL gives it, with ``--advertise 127.0.0.1:PORT`` in ``options``.
    """

    def __init__(
        self,
        db: Path | str,
        *,
        options: Sequence[str] = (),
        log_path: Path | None = None,
        port: int = 0,
    ) -> None:
        if log_path is None and isinstance(db, str):
            raise ValueError("a database URL needs a log_path")
        self.db = db
        self.options = tuple(options)
        self.log_path = log_path or Path(db).with_suffix(".log")
        self.port = port
        self._process: subprocess.Popen[bytes] | None = None
        self._log: IO[bytes] | None = None

    @property
    def address(self) -> str:
        """``"127.0.0.1:PORT"`` (the port is known once started)."""
        return f"{_HOST}:{self.port}"

    @property
    def pid(self) -> int:
        """The running server's process id (to signal it: SIGSTOP freezes a node)."""
        if self._process is None:
            raise RuntimeError("the server process is not running")
        return self._process.pid

    def start(self) -> str:
        """Start the server and wait until it serves; return its address.

        Raises:
            RuntimeError: It exited or did not serve within 30 s (its log says why).
        """
        if self._process is not None:
            raise RuntimeError("the server process is running already")
        self._log = open(self.log_path, "ab")  # noqa: SIM115
        offset = self._log.tell()
        command = [sys.executable, "-m", "botarena.clients.cli", "serve", "--db", str(self.db)]
        command += ["--port", str(self.port), "--log-format", "json", *self.options]
        self._process = subprocess.Popen(
            command, stdin=subprocess.DEVNULL, stdout=self._log, stderr=subprocess.STDOUT
        )
        deadline = time.monotonic() + _STARTUP_TIMEOUT
        while time.monotonic() < deadline and self._process.poll() is None:
            port = self._serving_port(offset)
            if port is not None:
                self.port = port
                return self.address
            time.sleep(0.05)
        self.kill()
        raise RuntimeError(f"botarena serve did not start; see {self.log_path}")

    def _serving_port(self, offset: int) -> int | None:
        for entry in self._log_entries(offset):
            if entry.get("event") == "serving":
                return int(entry["port"])
        return None

    def events(self, name: str) -> list[dict[str, Any]]:
        """Return the entries of its JSON log (every start's so far) named ``name``."""
        return [entry for entry in self._log_entries(0) if entry.get("event") == name]

    def _log_entries(self, offset: int) -> Iterator[dict[str, Any]]:
        """The JSON objects of its log from byte ``offset`` on (other lines skipped)."""
        with open(self.log_path, "rb") as log:
            log.seek(offset)
            for line in log:
                with contextlib.suppress(ValueError):
                    entry = json.loads(line)
                    if isinstance(entry, dict):
                        yield entry

    def kill(self) -> None:
        """Kill the server at once (SIGKILL, as ``kill -9``) and reap it."""
        self._end(signal.SIGKILL)

    def freeze(self) -> None:
        """Stop the server where it is (SIGSTOP), as a network partition looks from
        outside: its connections stay open and nothing on them is answered."""
        self._signal(signal.SIGSTOP)

    def thaw(self) -> None:
        """Let a frozen server go on (SIGCONT) from where :meth:`freeze` stopped it."""
        self._signal(signal.SIGCONT)

    def _signal(self, signum: signal.Signals) -> None:
        if self._process is None:
            raise RuntimeError("the server process is not running")
        self._process.send_signal(signum)

    def stop(self) -> None:
        """Stop the server gracefully (SIGTERM) and wait for it."""
        self._end(signal.SIGTERM)

    def _end(self, signum: signal.Signals) -> None:
        process, self._process = self._process, None
        if process is not None:
            with contextlib.suppress(ProcessLookupError):
                process.send_signal(signum)
            process.wait()
        if self._log is not None:
            self._log.close()
            self._log = None

    def __enter__(self) -> Self:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        self.kill()
