# mypy: disable-error-code="import-untyped"
"""A real server with its web UI on 127.0.0.1 (gRPC and HTTP on free ports), matches
played through gRPC one decision at a time, a ladder run, and an SSE reader.

The server runs its event loop in a thread of its own: the tests call it with blocking
clients (urllib, the SDK's ``MatchClient``) and drive Chromium with Playwright's sync
API, which keeps an event loop of its own in the test's thread.
"""

from __future__ import annotations

import asyncio
import base64
import contextlib
import http.client
import random
import socket
import threading
import time
import urllib.error
import urllib.request
from collections.abc import Callable, Coroutine, Iterator, Sequence
from concurrent.futures import Future
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TypeVar

import pytest
from google.protobuf import duration_pb2

from botarena.bots import BUILTIN_BOTS
from botarena.clients import MatchClient, run_ladder_bot_async
from botarena.server.ladder import Ladder, LadderSettings
from botarena.server.match import MatchManager
from botarena.server.service import create_server, durable_manager
from botarena.server.store import SqliteStore
from botarena.v1 import match_pb2

T = TypeVar("T")

_GAMES = {
    "qwirkle": match_pb2.GAME_QWIRKLE,
    "qwixx": match_pb2.GAME_QWIXX,
    "queendomino": match_pb2.GAME_QUEENDOMINO,
}
# Generous clocks: a browser test waits for the page between two moves.
_MOVE_TIME = duration_pb2.Duration(seconds=300)


@dataclass
class WebServer:
    """A running server with its web UI.

    Attributes:
        address: The gRPC address, ``127.0.0.1:PORT``.
        url: The web UI's front page, ``http://127.0.0.1:PORT/``.
        loop: The server's event loop (in its own thread).
        manager: Its matches.
        ladder: Its ladder, if it runs one.
    """

    address: str
    url: str
    loop: asyncio.AbstractEventLoop
    manager: MatchManager
    ladder: Ladder | None
    web: Any

    def run(self, coroutine: Coroutine[Any, Any, T], timeout: float = 60.0) -> T:
        """Run ``coroutine`` on the server's loop and return its result."""
        future: Future[T] = asyncio.run_coroutine_threadsafe(coroutine, self.loop)
        return future.result(timeout)

    def get(self, path: str, headers: dict[str, str] | None = None) -> tuple[int, str, bytes]:
        """GET ``path``: the status, the content type and the body."""
        request = urllib.request.Request(self.url.rstrip("/") + path, headers=headers or {})
        try:
            with urllib.request.urlopen(request, timeout=60) as response:
                return response.status, response.headers.get("Content-Type", ""), response.read()
        except urllib.error.HTTPError as error:
            return error.code, error.headers.get("Content-Type", ""), error.read()

    def page(self, path: str) -> str:
        """The text of the page at ``path``, which must answer 200."""
        status, kind, body = self.get(path)
        assert status == 200, body[:500]
        assert kind.startswith("text/html")
        return body.decode("utf-8")


@contextlib.contextmanager
def serve_web(database: Path | None = None, **options: Any) -> Iterator[WebServer]:
    """Serve the gRPC API and the web UI while the ``with`` block runs; with a
    ``database``, the ladder too."""
    ready = threading.Event()
    started: list[WebServer] = []
    failures: list[BaseException] = []
    stopping: list[asyncio.Event] = []

    async def serve() -> None:
        stop = asyncio.Event()
        stopping.append(stop)
        store = None
        ladder = None
        if database is not None:
            store = SqliteStore(database)
            ladder = Ladder(
                durable_manager(store),
                store.ladder_store(),
                LadderSettings(tick_seconds=0.2),
            )
        try:
            server, port = await create_server(
                "127.0.0.1:0", ladder=ladder, http_address=("127.0.0.1", 0), **options
            )
        except BaseException as error:
            failures.append(error)
            ready.set()
            raise
        web = server.web
        manager = ladder.manager if ladder is not None else web.manager
        started.append(
            WebServer(
                f"127.0.0.1:{port}", web.url, asyncio.get_running_loop(), manager, ladder, web
            )
        )
        ready.set()
        try:
            await stop.wait()
        finally:
            await server.stop(1.0)
            if store is not None:
                store.close()

    def run() -> None:
        with contextlib.suppress(BaseException):
            asyncio.run(serve())
        ready.set()

    thread = threading.Thread(target=run, name="botarena-web-test-server", daemon=True)
    thread.start()
    ready.wait(60)
    if not started:
        thread.join(10)
        raise failures[0] if failures else RuntimeError("the web test server did not start")
    server = started[0]
    try:
        yield server
    finally:
        server.loop.call_soon_threadsafe(stopping[0].set)
        thread.join(30)


@pytest.fixture
def web_server() -> Iterator[WebServer]:
    """A server with its web UI, matches in memory, no ladder."""
    with serve_web() as server:
        yield server


class Table:
    """A match on the server whose seats the test plays one decision at a time, through
    gRPC, with the game's best built-in bot in every seat."""

    def __init__(
        self,
        server: WebServer,
        game: str = "qwirkle",
        names: Sequence[str] = ("greedy", "random"),
        seed: int | None = None,
    ) -> None:
        self.client = MatchClient(target=server.address)
        config = match_pb2.MatchConfig(
            game=_GAMES[game], seat_count=len(names), seat_names=list(names)
        )
        if seed is not None:
            config.seed = seed
        config.time_control.move_time_limit.CopyFrom(_MOVE_TIME)
        config.policies.join_timeout.CopyFrom(_MOVE_TIME)
        created = self.client.create_match(config)
        self.name = created.match.name
        self.match_id = self.name.removeprefix("matches/")
        self.seed = created.match.config.seed
        self.seats = [self.client.with_token(token.token) for token in created.seat_tokens]
        best = next(
            BUILTIN_BOTS[bot] for bot in ("greedy", "heuristic") if BUILTIN_BOTS[bot].plays(game)
        )
        self.bots = [best.factory() for _ in names]
        self.rng = random.Random(7)

    def match(self) -> match_pb2.Match:
        """The match as GetMatch shows it."""
        return self.client.get_match(self.name).match

    def step(self, decisions: int = 1) -> match_pb2.Match:
        """Play up to ``decisions`` decisions (fewer if the match ends); return the match."""
        match = self.match()
        for _ in range(decisions):
            if match.state != match_pb2.Match.STATE_ACTIVE:
                break
            seat = match.seats_to_act[0]
            view = self.seats[seat].get_player_view(self.name)
            move = self.bots[seat].choose_move(view.view, list(view.legal_moves), self.rng)
            self.seats[seat].submit_move(self.name, move, expected_state_version=view.state_version)
            match = self.match()
        return match

    def finish(self) -> match_pb2.Match:
        """Play the match to its end; return it."""
        match = self.match()
        while match.state == match_pb2.Match.STATE_ACTIVE:
            match = self.step(20)
        return match

    def close(self) -> None:
        """Close the channel."""
        self.client.close()


@dataclass
class Event:
    """One server-sent event."""

    event: str
    id: str
    data: str

    def replay(self) -> match_pb2.Replay:
        """A step event's payload."""
        return match_pb2.Replay.FromString(base64.b64decode(self.data))


@dataclass
class EventReader:
    """Reads a match page's event stream in a thread of its own until its end."""

    url: str
    path: str
    headers: dict[str, str] = field(default_factory=dict)
    status: int = 0
    response_headers: dict[str, str] = field(default_factory=dict)
    events: list[Event] = field(default_factory=list)
    done: threading.Event = field(default_factory=threading.Event)
    connected: threading.Event = field(default_factory=threading.Event)

    def start(self) -> EventReader:
        """Connect and read in the background; return self once the answer's head is in."""
        threading.Thread(target=self._read, daemon=True).start()
        assert self.connected.wait(60), "the event stream did not answer"
        return self

    def _read(self) -> None:
        host, port = self.url.removeprefix("http://").rstrip("/").rsplit(":", 1)
        connection = http.client.HTTPConnection(host, int(port), timeout=120)
        try:
            connection.request("GET", self.path, headers=self.headers)
            response = connection.getresponse()
            self.status = response.status
            self.response_headers = dict(response.getheaders())
            self.connected.set()
            if response.status != 200:
                return
            fields: dict[str, str] = {}
            for raw in response:
                line = raw.decode("utf-8").rstrip("\n")
                if line.startswith(":"):
                    continue
                if line:
                    name, _, value = line.partition(": ")
                    fields[name] = value
                    continue
                event = Event(
                    fields.get("event", "message"), fields.get("id", ""), fields.get("data", "")
                )
                fields = {}
                self.events.append(event)
                if event.event == "end":
                    return
        finally:
            connection.close()
            self.connected.set()
            self.done.set()

    def wait(self) -> list[Event]:
        """Wait for the end of the stream; return its events."""
        assert self.done.wait(120), "the event stream did not end"
        return self.events

    def wait_for_version(self, version: int) -> list[Event]:
        """Wait until the step of ``version`` has arrived (or the stream ended)."""
        wait_until(
            lambda: self.done.is_set() or any(event.id == str(version) for event in self.events)
        )
        return list(self.events)


def stalled_page(server: WebServer, match_id: str, receive_buffer: int = 4096) -> socket.socket:
    """A page that asks for the event stream and never reads a byte of it."""
    host, port = server.url.removeprefix("http://").rstrip("/").rsplit(":", 1)
    sock = socket.socket()
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, receive_buffer)
    # Small segments: on 127.0.0.1 (MTU 64 KiB) a single segment of a lagging page's
    # catch-up would fill the window, however small the buffer, and get in whole.
    sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_MAXSEG, 536)
    sock.connect((host, int(port)))
    request = f"GET /matches/{match_id}/events HTTP/1.1\r\nHost: {host}\r\n\r\n"
    sock.sendall(request.encode())
    return sock


def wait_until(condition: Callable[[], bool], timeout: float = 60.0) -> bool:
    """Wait until ``condition()`` holds (checked every 10 ms); return whether it did
    within ``timeout`` seconds."""
    deadline = time.monotonic() + timeout
    while not condition():
        if time.monotonic() >= deadline:
            return False
        time.sleep(0.01)
    return True


def run_ladder(server: WebServer, games: int = 3) -> dict[str, str]:
    """Register greedy and random for Qwirkle on the server's ladder, connect them until
    each has played ``games`` rated matches; return their bot ids by name."""
    ladder = server.ladder
    assert ladder is not None

    async def play() -> dict[str, str]:
        ids = {}
        players = []
        for name in ("greedy", "random"):
            bot, secret = ladder.register(name, "tests", "qwirkle")
            ids[name] = bot.bot_id
            players.append(
                asyncio.create_task(
                    run_ladder_bot_async(
                        BUILTIN_BOTS[name].factory,
                        server=server.address,
                        secret=secret,
                        capacity=2,
                    )
                )
            )
        try:
            async with asyncio.timeout(100):
                while min(row.bot.games for row in ladder.leaderboard("qwirkle")) < games:
                    await asyncio.sleep(0.1)
        finally:
            for player in players:
                player.cancel()
            await asyncio.gather(*players, return_exceptions=True)
        return ids

    return server.run(play(), timeout=120)
