"""Live feeds: a running match's steps as server-sent events, encoded once for all pages.

One :class:`LiveFeed` per watched match follows the match as one spectator stream of the
match layer (``MatchManager.stream(match, None, 0)``, the stream gRPC spectators read)
and encodes each log entry once, as the SSE frame every page of that match is sent: a
``botarena.v1.Replay`` holding the match as GetMatch shows it now and the entry's
:func:`encode_spectator_step` (the spectator's event and view; no seat's view, no seed
while the match runs), in base64. The frames are kept in order, so a page that opens
mid-match or reconnects (``Last-Event-ID``) gets the frames it lacks from the list, and
nothing is encoded again for it.

A page never holds up the match: the feed appends and wakes its readers (at most every
``flush_interval``, so a fast match wakes them a few times a second rather than per
move), and each page's writer copies what is new at its own pace. A page that lags is
sent everything it missed in one write; one whose connection accepts nothing for
``write_timeout`` is dropped (``docs/decisions.md``: the web UI).

The feeds follow and encode on the matches' loop (the server's), where the matches
are; the pages are served, counted and woken on the web UI's own loop, in a thread of
its own (:class:`Feeds` crosses between the two). A feed outlives its last page by
``linger``, a finished match's too, so pages that come and go encode nothing again.
"""

from __future__ import annotations

import asyncio
import base64
import contextlib
from collections.abc import Callable

import structlog

from botarena.server.match import EventKind, MatchError, MatchManager
from botarena.server.service._convert import encode_match
from botarena.server.service._replays import encode_spectator_step
from botarena.v1 import match_pb2

__all__ = ["END_FRAME", "Feeds", "LiveFeed"]

_logger = structlog.get_logger("botarena.web")

END_FRAME = b"event: end\ndata: \n\n"
"""The last frame of every feed: the match has ended (or the server is stopping)."""


class LiveFeed:
    """The SSE frames of one match, ``frames[v]`` being the step of version ``v``.

    It runs on the matches' loop; its readers may wait on another (the web UI's own
    thread): ``notify`` runs a callable there (``loop.call_soon_threadsafe``), and the
    readers only read ``frames`` (appended to, never changed) and ``ended``.

    Args:
        manager: The match's manager.
        match_id: The match.
        flush_interval: The longest the readers are left unwoken after a new frame.
        notify: Runs a callable on the readers' loop; ``None``: they share this one.
    """

    def __init__(
        self,
        manager: MatchManager,
        match_id: str,
        flush_interval: float,
        notify: Callable[[Callable[[], None]], object] | None = None,
    ) -> None:
        self.match_id = match_id
        self.frames: list[bytes] = []
        self.encoded = 0
        """Log entries this feed has encoded."""
        self.ended = False
        self.readers = 0
        self._manager = manager
        self._flush_interval = flush_interval
        self._wake = asyncio.Event()
        self._notify = notify
        self._flush: asyncio.TimerHandle | None = None
        self._task: asyncio.Task[None] | None = None

    def start(self) -> None:
        """Start following the match (on the matches' loop)."""
        self._task = asyncio.create_task(self._follow(), name=f"botarena-web-feed-{self.match_id}")

    @property
    def wake(self) -> asyncio.Event:
        """Set once frames arrive after this moment (a new event each time)."""
        return self._wake

    def cancel(self) -> None:
        """Stop following the match (nobody watches it, or the server is stopping)."""
        if self._task is not None:
            self._task.cancel()
        self._end()

    async def _follow(self) -> None:
        manager, match_id = self._manager, self.match_id
        try:
            match = await manager.load(match_id)
            async for item in manager.stream(match_id, None, 0):
                entry = item.entry
                if entry is None:  # a spectator is never asked to decide
                    continue
                chunk = match_pb2.Replay()
                encode_match(match, chunk.match)
                encode_spectator_step(match, entry, chunk.steps.add())
                data = base64.b64encode(chunk.SerializeToString()).decode("ascii")
                version = entry.state_version
                if version != len(self.frames):
                    raise RuntimeError(f"feed of {match_id}: version {version} out of order")
                self.frames.append(f"id: {version}\nevent: step\ndata: {data}\n\n".encode())
                self.encoded += 1
                self._schedule_flush()
                if entry.kind is EventKind.MATCH_FINISHED:
                    break
                # A page opened mid-match has the whole log encoded for it: entry by entry,
                # with the loop's other work (the match's moves) in between.
                await asyncio.sleep(0)
        except MatchError as error:
            _logger.info("live feed ended", match=match_id, error=str(error))
        except Exception:
            _logger.exception("live feed failed", match=match_id)
        finally:
            self._end()

    def _end(self) -> None:
        if not self.ended:
            # The frame first: a reader in the web UI's thread that sees ``ended`` finds
            # the end frame in the list.
            self.frames.append(END_FRAME)
            self.ended = True
        self._wake_readers()

    def _schedule_flush(self) -> None:
        if self._flush is None:
            loop = asyncio.get_running_loop()
            self._flush = loop.call_later(self._flush_interval, self._wake_readers)

    def _wake_readers(self) -> None:
        if self._flush is not None:
            self._flush.cancel()
            self._flush = None
        wake, self._wake = self._wake, asyncio.Event()
        if self._notify is None:
            wake.set()
        else:  # the readers wait on the web UI's loop
            with contextlib.suppress(RuntimeError):  # closed: nobody waits any more
                self._notify(wake.set)


class Feeds:
    """The live feeds of one web UI, by match, and the count of pages reading them.

    Runs on the loop the pages are served from; each feed follows its match on
    :attr:`matches_loop` (the server's loop, where the matches are) when that is
    another, and wakes its readers here.

    Args:
        manager: The matches.
        max_readers: Event streams open at once at most (:meth:`open` refuses more).
        flush_interval: Passed to each :class:`LiveFeed`.
        linger: Seconds a feed is kept once its last page has gone (a reload, a
            reconnect or the next page finds it: nothing is encoded again).
    """

    def __init__(
        self,
        manager: MatchManager,
        *,
        max_readers: int,
        flush_interval: float = 0.05,
        linger: float = 30.0,
    ) -> None:
        self._manager = manager
        self._feeds: dict[str, LiveFeed] = {}
        self._retire_timers: dict[str, asyncio.TimerHandle] = {}
        self.max_readers = max_readers
        self.readers = 0
        self._flush_interval = flush_interval
        self._linger = linger
        self._closed = False
        self.matches_loop: asyncio.AbstractEventLoop | None = None
        """The loop the matches run on, if not the one the pages are served from."""
        self.made = 0
        """Feeds made so far."""
        self._retired_encoded = 0

    @property
    def feeds(self) -> int:
        """The number of feeds (matches being followed)."""
        return len(self._feeds)

    @property
    def encoded(self) -> int:
        """Log entries encoded so far by every feed (retired ones included)."""
        feeds = list(self._feeds.values())  # one step: the web UI's thread adds feeds
        return self._retired_encoded + sum(feed.encoded for feed in feeds)

    @property
    def full(self) -> bool:
        """Whether :meth:`open` would refuse a reader (:attr:`max_readers` are reading,
        or the web UI is closing)."""
        return self._closed or self.readers >= self.max_readers

    def open(self, match_id: str) -> LiveFeed | None:
        """Count a new reader of ``match_id``'s feed (made on first use) and return the
        feed; ``None`` when :attr:`full`. Every feed returned is given back with
        :meth:`release`."""
        if self.full:
            return None
        feed = self._feeds.get(match_id)
        if feed is None:
            notify = None
            if self.matches_loop is not None:
                notify = asyncio.get_running_loop().call_soon_threadsafe
            feed = LiveFeed(self._manager, match_id, self._flush_interval, notify)
            self._feeds[match_id] = feed
            self.made += 1
            self._on_matches_loop(feed.start)
        timer = self._retire_timers.pop(match_id, None)
        if timer is not None:
            timer.cancel()
        feed.readers += 1
        self.readers += 1
        return feed

    def release(self, feed: LiveFeed) -> None:
        """A reader of ``feed`` has gone."""
        feed.readers -= 1
        self.readers -= 1
        if feed.readers or self._closed:
            return
        # A finished match's feed lingers too: it holds the whole match encoded, and a
        # page opened (or reopened) at the end would otherwise encode it all again.
        loop = asyncio.get_running_loop()
        self._retire_timers[feed.match_id] = loop.call_later(
            self._linger, self._retire, feed.match_id
        )

    def _retire(self, match_id: str) -> None:
        self._retire_timers.pop(match_id, None)
        feed = self._feeds.get(match_id)
        if feed is not None and not feed.readers:
            del self._feeds[match_id]
            self._retired_encoded += feed.encoded
            self._on_matches_loop(feed.cancel)

    def _on_matches_loop(self, call: Callable[[], None]) -> None:
        if self.matches_loop is None:
            call()
        else:
            self.matches_loop.call_soon_threadsafe(call)

    def close(self) -> None:
        """End every feed: their readers send the end frame and stop."""
        self._closed = True
        for timer in self._retire_timers.values():
            timer.cancel()
        self._retire_timers.clear()
        for feed in list(self._feeds.values()):
            with contextlib.suppress(RuntimeError):  # the matches' loop has closed
                self._on_matches_loop(feed.cancel)
        self._feeds.clear()
