"""The web UI's aiohttp application, served from a thread and event loop of its own.

Read-only: every handler reads what a gRPC call would answer (the same encoders:
``encode_summary``, ``leaderboard_page``, ``bot_match_entries``,
``encode_spectator_step``, ``encode_replay``) and renders it; a finished match's replay
is built in a worker thread, as GetReplay builds it.

The HTTP side (connections, requests, the live pages' writes and their timeouts) runs on
the web UI's own loop, so that no page costs the matches' loop its time
(``docs/decisions.md``: the web UI off the matches' loop). What reads the matches or the
ladder runs on the server's loop, where they live: every handler but the live event
stream's (:meth:`WebUI._on_matches_loop_middleware`), and the live feeds' encoding.
"""

from __future__ import annotations

import asyncio
import gzip
import socket
import threading
from collections import OrderedDict
from collections.abc import Coroutine
from dataclasses import dataclass
from typing import Any, TypeVar
from urllib.parse import urlencode

import structlog
from aiohttp import web
from aiohttp.typedefs import Handler

from botarena.server.ladder import Ladder
from botarena.server.match import Match, MatchError, MatchManager
from botarena.server.service._connections import (
    HANDSHAKE_TIMEOUT,
    IDLE_TIMEOUT,
    WEB_MAX_CONNECTIONS,
    WEB_MAX_CONNECTIONS_PER_PEER,
)
from botarena.server.service._convert import encode_summary, match_id_of
from botarena.server.service._ladder import bot_entry, bot_match_entries, leaderboard_page
from botarena.server.service._paging import match_page
from botarena.server.service._plugin import GamePlugin
from botarena.server.service._registry import PLUGINS, plugin_for
from botarena.server.service._replays import encode_replay
from botarena.server.service.viewers.html import build_html, build_live_html
from botarena.server.service.web._feeds import Feeds, LiveFeed
from botarena.server.service.web._pages import (
    Board,
    MatchList,
    bot_page,
    error_page,
    ladder_page,
    matches_page,
)
from botarena.server.service.web._site import ConnectionGate, GatedSite
from botarena.v1 import match_pb2

__all__ = ["DEFAULT_MAX_STREAMS", "WebSettings", "WebUI", "start_web_ui"]

_logger = structlog.get_logger("botarena.web")

T = TypeVar("T")

DEFAULT_MAX_STREAMS = 1000
"""Live event streams (open match pages) served at once; more are refused with 503."""


# The match lists of the front page, by their ?state= name.
_LISTS = {"running": match_pb2.Match.STATE_ACTIVE, "finished": match_pb2.Match.STATE_FINISHED}
_BOT_MATCHES_SHOWN = 50
_RATING_HISTORY = 500
# Finished matches' pages and replay files kept built (a finished match never changes).
_FINISHED_CACHE = 32
# A comment line this often keeps proxies and the browser from closing a quiet stream.
_KEEPALIVE = 15.0
_RETRY_AFTER = "10"
_EVENTS = "events"
_HTML = "text/html"


@dataclass(frozen=True, slots=True)
class WebSettings:
    """How the web UI serves its live pages (``docs/decisions.md``: the web UI).

    Attributes:
        max_streams: Live event streams (open match pages) served at once; more are
            refused with 503 and ``Retry-After``.
        write_timeout: Seconds a page's connection may take nothing while more than
            ``max_unsent`` bytes wait for it; then the page is dropped (its socket
            aborted; a browser's ``EventSource`` reconnects and resumes after its
            ``Last-Event-ID``).
        max_unsent: Bytes of a page's stream that may wait unsent in the kernel (its
            socket's ``SO_SNDBUF``, which Linux doubles) and again in the server's
            transport (its high-water mark); past that the page's writer waits, at
            most ``write_timeout``. So a stalled page holds about three times this,
            plus what one write sends (a page that lags gets what it missed at once).
        flush_interval: The longest a new step waits before the pages are woken.
        page_size: Matches on a page of a match list, bots on a page of a leaderboard.
        handshake_timeout: Seconds a new connection has to send its first request's
            headers; then it is aborted.
        idle_timeout: Seconds a connection may wait for its next request (aiohttp's
            keep-alive timeout); then it is closed.
        max_connections: Connections held at once; past it a new one is aborted as it
            is accepted. ``create_server`` keeps as many descriptors from the gRPC port.
        max_connections_per_peer: Connections one peer host holds at once; past it
            its new ones are aborted as they are accepted.
    """

    max_streams: int = DEFAULT_MAX_STREAMS
    write_timeout: float = 10.0
    max_unsent: int = 64 * 1024
    flush_interval: float = 0.05
    page_size: int = 50
    handshake_timeout: float = HANDSHAKE_TIMEOUT
    idle_timeout: float = IDLE_TIMEOUT
    max_connections: int = WEB_MAX_CONNECTIONS
    max_connections_per_peer: int = WEB_MAX_CONNECTIONS_PER_PEER

    def __post_init__(self) -> None:
        if self.max_streams < 1:
            raise ValueError("max_streams must be at least 1")
        if self.write_timeout <= 0 or self.flush_interval <= 0:
            raise ValueError("write_timeout and flush_interval must be positive")
        if self.max_unsent < 1 or self.page_size < 1:
            raise ValueError("max_unsent and page_size must be at least 1")
        if self.handshake_timeout <= 0 or self.idle_timeout <= 0:
            raise ValueError("handshake_timeout and idle_timeout must be positive")
        if self.max_connections < 1 or self.max_connections_per_peer < 1:
            raise ValueError("max_connections and max_connections_per_peer must be at least 1")


@dataclass(frozen=True, slots=True)
class _Finished:
    page: str
    replay_file: bytes


class WebUI:
    """The web UI of one server: its aiohttp application and what it serves from.

    Args:
        manager: The matches.
        ladder: The ladder, if the server runs one.
        settings: How live pages are served.
    """

    def __init__(
        self,
        manager: MatchManager,
        ladder: Ladder | None = None,
        settings: WebSettings | None = None,
    ) -> None:
        self.manager = manager
        self.ladder = ladder
        self.settings = settings = settings or WebSettings()
        self.feeds = Feeds(
            manager, max_readers=settings.max_streams, flush_interval=settings.flush_interval
        )
        self._finished: OrderedDict[str, _Finished] = OrderedDict()
        self._runner: web.AppRunner | None = None
        self._matches_loop: asyncio.AbstractEventLoop | None = None
        self._thread: _LoopThread | None = None
        self.dropped = 0
        """Pages dropped so far for taking nothing for ``settings.write_timeout``."""
        self.refused = 0
        """Event streams refused so far (503: ``settings.max_streams`` were open)."""
        self.connections = ConnectionGate(
            settings.max_connections, settings.max_connections_per_peer
        )
        """The port's open connections, and those refused or timed out."""
        self.port = 0
        self.host = ""
        self.app = web.Application(middlewares=[_errors, self._on_matches_loop_middleware])
        self.app.add_routes(
            [
                web.get("/", self.matches),
                web.get("/matches/{match_id}", self.match),
                web.get("/matches/{match_id}/events", self.events, name=_EVENTS),
                web.get("/matches/{match_id}/replay.binpb.gz", self.replay_file),
                web.get("/ladder", self.ladder_index),
                web.get("/ladder/{game}", self.ladder_game),
                web.get("/bots/{bot_id}", self.bot),
                # Browsers ask for it; the pages have none (and load nothing else).
                web.get("/favicon.ico", _no_content),
            ]
        )

    @property
    def url(self) -> str:
        """The address of the front page, ``http://HOST:PORT/``."""
        host = f"[{self.host}]" if ":" in self.host else self.host
        return f"http://{host}:{self.port}/"

    async def start(self, host: str, port: int) -> int:
        """Serve on ``host:port`` (0: a free port) from a thread with its own event loop;
        return the port. The running loop (the server's, where the matches are) runs
        what reads the matches and the ladder."""
        self._matches_loop = self.feeds.matches_loop = asyncio.get_running_loop()
        thread = self._thread = _LoopThread("botarena-web")
        try:
            return await thread.run(self._serve(host, port))
        except BaseException:
            self._thread = None
            await thread.stop()
            raise

    async def _serve(self, host: str, port: int) -> int:
        """Start the site (on the web UI's loop)."""
        # handler_cancellation: a page that goes ends its stream's handler at once, so
        # closed pages never hold places under the cap (they did until the next write).
        settings = self.settings
        runner = web.AppRunner(
            self.app,
            access_log=None,
            shutdown_timeout=1.0,
            handler_cancellation=True,
            keepalive_timeout=settings.idle_timeout,
        )
        await runner.setup()
        site = GatedSite(
            runner,
            host,
            port,
            gate=self.connections,
            handshake_timeout=settings.handshake_timeout,
        )
        await site.start()
        self._runner = runner
        sockets = runner.addresses
        self.host = host
        self.port = int(sockets[0][1]) if sockets else port
        return self.port

    async def close(self) -> None:
        """End the live streams, then stop serving (from the loop that started it)."""
        thread, self._thread = self._thread, None
        if thread is None:
            self.feeds.close()
            return
        try:
            await thread.run(self._stop_serving())
        finally:
            await thread.stop()

    async def _stop_serving(self) -> None:
        """End the live streams and the site (on the web UI's loop)."""
        self.feeds.close()
        if self._runner is not None:
            await self._runner.cleanup()
            self._runner = None

    @web.middleware
    async def _on_matches_loop_middleware(
        self, request: web.Request, handler: Handler
    ) -> web.StreamResponse:
        """Run every handler but the live event stream's on the matches' loop: they read
        the matches and the ladder (and its store), which live there, and build their
        answer there; the web UI's loop sends it."""
        if request.match_info.route.name == _EVENTS:
            return await handler(request)

        async def handle() -> web.StreamResponse:
            return await handler(request)

        return await self._on_matches_loop(handle())

    async def _on_matches_loop(self, coroutine: Coroutine[Any, Any, T]) -> T:
        """Run ``coroutine`` on the matches' loop and return its result."""
        loop = self._matches_loop
        if loop is None or loop is asyncio.get_running_loop():
            return await coroutine
        return await asyncio.wrap_future(asyncio.run_coroutine_threadsafe(coroutine, loop))

    # ------------------------------------------------------------------ matches

    async def matches(self, request: web.Request) -> web.Response:
        """``/``: the first page of the running and of the finished matches;
        ``?state=running`` or ``?state=finished`` one of them, a page at a time
        (``&page_token=``: ListMatches' token); ``?game=NAME`` for one game."""
        game = request.query.get("game", "")
        if game:
            _known_game(game)
        shown = request.query.get("state", "")
        page_token = request.query.get("page_token", "")
        if shown and shown not in _LISTS:
            raise _HttpError(400, "state is running or finished.")
        if page_token and not shown:
            raise _HttpError(400, "A page_token goes with a state (running or finished).")
        lists = []
        for key, state in _LISTS.items():
            if shown and key != shown:
                continue
            matches, next_token = match_page(
                self.manager,
                game=game,
                state=state,
                page_token=page_token,
                size=self.settings.page_size,
            )
            following = ""
            if next_token:
                query = {"state": key, "page_token": next_token} | ({"game": game} if game else {})
                following = "/?" + urlencode(query)
            lists.append(MatchList(key, matches, following, first=not page_token))
        return web.Response(text=matches_page(lists, game), content_type=_HTML)

    async def match(self, request: web.Request) -> web.Response:
        """``/matches/{id}``: a running match live, a finished one's full replay."""
        match_id = _match_id(request)
        found = self.manager.find(match_id)
        if isinstance(found, Match) and not found.finished:
            summary = match_pb2.Match()
            encode_summary(found, summary)
            base = f"/matches/{match_id}"
            page = build_live_html(
                summary, events=f"{base}/events", replay=f"{base}/replay.binpb.gz", index="/"
            )
            return web.Response(text=page, content_type=_HTML)
        finished = await self._finished_match(match_id)
        return web.Response(text=finished.page, content_type=_HTML)

    async def replay_file(self, request: web.Request) -> web.Response:
        """``/matches/{id}/replay.binpb.gz``: a finished match's replay file."""
        match_id = _match_id(request)
        found = self.manager.find(match_id)
        if isinstance(found, Match) and not found.finished:
            raise _HttpError(409, "The match is still running: its replay comes at the end.")
        finished = await self._finished_match(match_id)
        return web.Response(
            body=finished.replay_file,
            content_type="application/octet-stream",
            headers={"Content-Disposition": f'attachment; filename="{match_id}.binpb.gz"'},
        )

    async def _finished_match(self, match_id: str) -> _Finished:
        cached = self._finished.get(match_id)
        if cached is not None:
            self._finished.move_to_end(match_id)
            return cached
        match = await self.manager.load(match_id)
        # Hundreds of views to encode: off the loop, as GetReplay does (a finished match
        # no longer changes).
        built = await asyncio.to_thread(_build_finished, match)
        self._finished[match_id] = built
        while len(self._finished) > _FINISHED_CACHE:
            self._finished.popitem(last=False)
        return built

    async def events(self, request: web.Request) -> web.StreamResponse:
        """``/matches/{id}/events``: the match's steps as server-sent events, from the
        beginning or after ``Last-Event-ID``, until its end."""
        match_id = _match_id(request)
        if self.feeds.full:  # refused here: nothing of it reaches the matches' loop
            raise self._refuse()
        await self._on_matches_loop(self._find(match_id))
        after = _last_event_id(request)
        feed = self.feeds.open(match_id)
        if feed is None:  # others came in meanwhile
            raise self._refuse()
        try:
            response = web.StreamResponse(
                headers={
                    "Content-Type": "text/event-stream",
                    "Cache-Control": "no-cache",
                    "X-Accel-Buffering": "no",
                }
            )
            await response.prepare(request)
            _bound_unsent(request, self.settings.max_unsent)
            if not await _send(request, response, feed, after + 1, self.settings.write_timeout):
                self.dropped += 1
            return response
        finally:
            self.feeds.release(feed)

    def _refuse(self) -> _HttpError:
        """Count a page refused over the cap; return its 503."""
        self.refused += 1
        return _HttpError(
            503,
            "Too many live pages are open on this server; try again later.",
            {"Retry-After": _RETRY_AFTER},
        )

    async def _find(self, match_id: str) -> None:
        """Raise ``MatchNotFoundError`` if there is no match ``match_id``."""
        self.manager.find(match_id)

    # ------------------------------------------------------------------ ladder

    def _ladder(self) -> Ladder:
        if self.ladder is None:
            raise _HttpError(404, "This server runs no ladder (botarena serve --ladder).")
        return self.ladder

    async def ladder_index(self, request: web.Request) -> web.Response:
        """``/ladder``: the first page of every game's leaderboard."""
        ladder = self._ladder()
        boards = [self._board(ladder, plugin, "") for plugin in PLUGINS]
        return web.Response(text=ladder_page(boards), content_type=_HTML)

    async def ladder_game(self, request: web.Request) -> web.Response:
        """``/ladder/{game}``: one game's leaderboard, a page at a time
        (``?page_token=``)."""
        ladder = self._ladder()
        plugin = _known_game(request.match_info["game"])
        board = self._board(ladder, plugin, request.query.get("page_token", ""))
        return web.Response(text=ladder_page([board]), content_type=_HTML)

    def _board(self, ladder: Ladder, plugin: GamePlugin, page_token: str) -> Board:
        """A page of a game's leaderboard, as GetLeaderboard pages it: the entries after
        the rank the token holds (each page is read from the board as it is then)."""
        size = self.settings.page_size
        page, token = leaderboard_page(ladder, plugin.name, page_token, size)
        following = f"/ladder/{plugin.name}?" + urlencode({"page_token": token}) if token else ""
        return Board(plugin.name, plugin.title, page, following, first=not page_token)

    async def bot(self, request: web.Request) -> web.Response:
        """``/bots/{id}``: a bot's standing, recent matches and rating history."""
        ladder = self._ladder()
        bot_id = request.match_info["bot_id"]
        entry = bot_entry(ladder, bot_id)
        history = bot_match_entries(ladder, bot_id, _RATING_HISTORY)
        page = bot_page(entry, history[:_BOT_MATCHES_SHOWN], history)
        return web.Response(text=page, content_type=_HTML)


async def _no_content(request: web.Request) -> web.Response:
    return web.Response(status=204)


class _HttpError(Exception):
    def __init__(self, status: int, message: str, headers: dict[str, str] | None = None) -> None:
        super().__init__(message)
        self.status = status
        self.message = message
        self.headers = headers or {}


@web.middleware
async def _errors(request: web.Request, handler: Handler) -> web.StreamResponse:
    """Every error as a page of the web UI: unknown things are 404s, never a traceback."""
    try:
        return await handler(request)
    except _HttpError as error:
        status, message, headers = error.status, error.message, error.headers
    except MatchError as error:  # no such match, bot or game, a malformed id: 404
        status = 400 if error.reason == "INVALID_PAGE_TOKEN" else 404
        message, headers = error.message, {}
    except web.HTTPException as error:
        if error.status < 400:
            raise
        status, message, headers = error.status, error.reason, {}
    return web.Response(
        status=status, text=error_page(status, message), content_type=_HTML, headers=headers
    )


def _match_id(request: web.Request) -> str:
    return match_id_of("match", f"matches/{request.match_info['match_id']}")


def _known_game(game: str) -> GamePlugin:
    try:
        return plugin_for(game)
    except KeyError:
        raise _HttpError(404, f"This server hosts no game {game[:40]!r}.") from None


def _last_event_id(request: web.Request) -> int:
    """The version a reconnecting page saw last (``Last-Event-ID``), else -1."""
    value = request.headers.get("Last-Event-ID", "")
    try:
        version = int(value)
    except ValueError:
        return -1
    return version if version >= 0 else -1


def _bound_unsent(request: web.Request, max_unsent: int) -> None:
    """Let ``max_unsent`` bytes of the stream wait in the kernel and as many in the
    transport, past which a write waits for the page (``_send``).

    Without it a stalled page was never found out: on Linux the kernel grows a
    socket's send buffer by itself (up to ``net.ipv4.tcp_wmem``, 4 MiB), and on
    127.0.0.1 a socket that reads nothing took 1.6 MB before the transport held a byte,
    far more than a whole match's stream (a Qwirkle match: ~60 kB), so aiohttp's drain
    never waited. A fixed ``SO_SNDBUF`` (which the kernel doubles) turns that off.
    """
    transport = request.transport
    if transport is None:
        return
    sock = transport.get_extra_info("socket")
    if sock is not None:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF, max_unsent)
    transport.set_write_buffer_limits(high=max_unsent)


async def _send(
    request: web.Request,
    response: web.StreamResponse,
    feed: LiveFeed,
    cursor: int,
    write_timeout: float,
) -> bool:
    """Write the feed's frames from ``cursor`` on as they come, until its end frame.

    Each write is followed by a drain, which waits while the transport holds more than
    its high-water mark (``WebSettings.max_unsent``): aiohttp's own ``write`` drains
    only once 64 KiB have been written since its last drain. A page that takes nothing
    for ``write_timeout`` meanwhile is dropped (its socket aborted).

    Returns:
        False when the page was dropped, else True (the end, or the page went).
    """
    while True:
        # Read before the frames: the feed (on the matches' loop) appends a frame before
        # it swaps the event, and its end frame before ``ended``.
        wake = feed.wake
        ended = feed.ended
        frames = feed.frames
        if cursor < len(frames):
            data = b"".join(frames[cursor:])
            cursor = len(frames)
        elif ended:
            return True
        else:
            try:
                await asyncio.wait_for(wake.wait(), _KEEPALIVE)
                continue
            except TimeoutError:
                data = b": keep-alive\n\n"
        try:
            async with asyncio.timeout(write_timeout):
                await response.write(data)
                await request.writer.drain()
        except TimeoutError:
            _logger.info(
                "slow page dropped",
                match=feed.match_id,
                peer=request.remote,
                unsent=request.transport.get_write_buffer_size() if request.transport else 0,
            )
            if request.transport is not None:
                request.transport.abort()
            return False
        except (ConnectionError, RuntimeError):  # the page has gone
            return True


class _LoopThread:
    """An event loop running in a daemon thread of its own."""

    def __init__(self, name: str) -> None:
        self.loop = asyncio.new_event_loop()
        self._thread = threading.Thread(target=self.loop.run_forever, name=name, daemon=True)
        self._thread.start()

    async def run(self, coroutine: Coroutine[Any, Any, T]) -> T:
        """Run ``coroutine`` on the thread's loop; wait for its result on the running one."""
        return await asyncio.wrap_future(asyncio.run_coroutine_threadsafe(coroutine, self.loop))

    async def stop(self) -> None:
        """Stop the thread's loop, wait for the thread and close the loop."""
        self.loop.call_soon_threadsafe(self.loop.stop)
        await asyncio.to_thread(self._thread.join)
        self.loop.close()


def _build_finished(match: Match) -> _Finished:
    """A finished match's replay page and file (in a worker thread)."""
    replay = match_pb2.Replay()
    encode_replay(match, replay)
    binary = replay.SerializeToString(deterministic=True)
    encoded = gzip.compress(binary, compresslevel=6, mtime=0)
    return _Finished(build_html(replay, encoded=encoded, index="/"), encoded)


async def start_web_ui(
    manager: MatchManager,
    host: str,
    port: int,
    *,
    ladder: Ladder | None = None,
    settings: WebSettings | None = None,
) -> WebUI:
    """Start the web UI on ``host:port`` (0: a free port) from the running event loop.

    Raises:
        OSError: The address cannot be bound.
    """
    web_ui = WebUI(manager, ladder, settings)
    await web_ui.start(host, port)
    _logger.info(
        "web UI",
        url=web_ui.url,
        max_streams=web_ui.settings.max_streams,
        write_timeout=web_ui.settings.write_timeout,
        max_connections=web_ui.settings.max_connections,
        max_connections_per_peer=web_ui.settings.max_connections_per_peer,
    )
    return web_ui
