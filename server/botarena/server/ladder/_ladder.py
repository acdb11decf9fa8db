"""The :class:`Ladder`: registered bots, their connections, the scheduling loop, results.

It lives in the server's event loop beside the :class:`MatchManager`. A tick (every
``tick_seconds``, and at once when a bot connects or a match ends) asks the pure
:func:`~botarena.server.ladder.scheduler.schedule` for new groups among the connected,
unpaused bots of each game, creates their matches through the manager, records them in
the :class:`LadderStore` and pushes one :class:`Assignment` per seat to the bots'
connections. A follower task per match waits for its end as a spectator of the manager's
stream, then rates the seats and stores result and ratings in one transaction.

What counts against a bot (docs/decisions.md: Ladder):

* a *timeout*: the match layer applied the timeout policy to its seat (ladder matches
  use the forfeit policy, so a bot that hangs loses that match at once);
* a *crash*: its seat forfeited by illegal moves, resignation or absence (it never
  showed up within the join window: ``Policies.join_timeout``), or its Connect stream
  ended during the match and it had not reconnected when the match ended;
* a match nobody played ends abandoned and is not rated;
* after ``pause_after`` matches in a row with a timeout or a crash the bot is paused: it
  may stay connected, it is shown as paused, and it is not scheduled until an operator
  resumes it (:meth:`Ladder.resume`, the ResumeBot RPC).

On :meth:`Ladder.start` the ladder re-attaches to the matches without a recorded result
that the manager holds (recovered by the store) and marks the others abandoned.

Several nodes on one PostgreSQL (the manager has a lease; docs/decisions.md: Several
nodes): every node keeps the Connect streams it holds in ``ladder_presence`` (renewed
every fifth of the lease time), and one node at a time schedules: the one holding the
ladder's scheduling lease (:meth:`LadderStore.lead`: a row with an expiry by the
database's clock, renewed every tick, taken over by another node's tick once expired, so
a frozen node loses it within the lease time; every scheduling write is fenced by it).
It sees the bots of every node through the presence rows and asks the live node with
the fewest matches (:meth:`LadderStore.node_loads`: its leased unfinished matches and
the requests it has not started) to create each match (``ladder_requests``, fenced by
the lease). Every node, each poll, creates the matches asked of it (so the match runs
there, under its lease, and its :class:`Assignment` names it), records each with its
request in one transaction (a request starts at most one match), pushes the
assignments of its own streams and queues the others in ``ladder_assignments``, which
each node claims every poll and pushes down its streams. The scheduler follows a
started request as a running match and drops a request not started within twice the
lease time (its node died or is full: the bots are scheduled again). It learns the end
of a match from the store, whichever node finished it, and is the only writer of
results and ratings. A node that takes the lock over adopts the running ladder matches
and the requests; a bot that reconnects (to any node) is sent its running matches again
by the nodes that hold them.
A bot that reconnects with ``resume_seats`` (its process restarted: it holds no seat
tokens) is given its seats again by whichever node holds each match, at once or once
that node has taken the match over (``ladder_seats.token_generation``, every tick).
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import hmac
import secrets
import time
from collections.abc import AsyncIterator, Callable, Collection, Iterable, Sequence
from dataclasses import dataclass, field

import structlog

from botarena.server.ladder._errors import (
    BotNameTakenError,
    BotNotFoundError,
    BotSecretInvalidError,
    BotSecretRequiredError,
)
from botarena.server.ladder.ratings import DEFAULT_RATING, Rating, rate, win_shares
from botarena.server.ladder.scheduler import Candidate, capped_pairs, schedule
from botarena.server.match import (
    ABANDONED,
    Clock,
    EventKind,
    ForfeitReason,
    InvalidRequestError,
    Match,
    MatchError,
    MatchFinishedError,
    MatchManager,
    MatchNotFoundError,
    MatchSettings,
    Policies,
    StoreUnavailableError,
    TimeControl,
    TimeoutPolicy,
    TooManyMatchesError,
)
from botarena.server.store import DatabaseUnavailableError, LeadLostError, StoredMatch
from botarena.server.store.ladder import (
    BotRecord,
    LadderMatchRecord,
    LadderStore,
    MatchRequest,
    NodeAssignment,
    Presence,
    SeatRecord,
    SeatResult,
)
from botarena.server.text import name_problem

__all__ = [
    "Assignment",
    "Connection",
    "KeepAlive",
    "Ladder",
    "LadderSettings",
    "LeaderboardRow",
]

_logger = structlog.get_logger("botarena.ladder")

_MAX_NAME = 64
_MAX_CAPACITY = 64
_HOUR = 3600.0
# With several nodes: how often a node claims the assignments queued for its streams
# (and the scheduling node looks for ended matches), at most.
_POLL_SECONDS = 0.2
_CRASH_REASONS = frozenset(
    reason.value
    for reason in (
        ForfeitReason.ILLEGAL_MOVES,
        ForfeitReason.RESIGNED,
        ForfeitReason.ABSENT,
        ForfeitReason.BOT_EXITED,
    )
)


@dataclass(frozen=True, slots=True)
class LadderSettings:
    """How the ladder schedules and judges matches.

    Attributes:
        seats: Seats per ladder match (clamped to each game's range).
        pair_cap_per_hour: Matches a pair of bots may start within an hour.
        pause_after: Matches in a row with a timeout or crash before a bot is paused.
        move_time_limit: Seconds per decision in ladder matches.
        keepalive_seconds: A quiet Connect stream gets a keep-alive this often.
        tick_seconds: The scheduler runs at least this often.
    """

    seats: int = 2
    pair_cap_per_hour: int = 60
    pause_after: int = 3
    move_time_limit: float = 10.0
    keepalive_seconds: float = 15.0
    tick_seconds: float = 1.0

    def __post_init__(self) -> None:
        for name in ("seats", "pair_cap_per_hour", "pause_after"):
            if getattr(self, name) < (2 if name == "seats" else 1):
                raise ValueError(f"{name} is too small: {getattr(self, name)}")
        for name in ("move_time_limit", "keepalive_seconds", "tick_seconds"):
            if not getattr(self, name) > 0:
                raise ValueError(f"{name} must be positive")


@dataclass(frozen=True, slots=True)
class Assignment:
    """A seat a connected bot must play (ladder.proto: Assignment).

    ``node`` is the ``HOST:PORT`` of the node that runs the match when several nodes
    share the database, empty otherwise (this server runs it).
    """

    match_id: str
    seat_token: str
    game: str
    seat: int
    node: str = ""


@dataclass(frozen=True, slots=True)
class KeepAlive:
    """Nothing new on a connection."""


@dataclass(frozen=True, slots=True)
class LeaderboardRow:
    """One bot's line of a leaderboard.

    Attributes:
        rank: Place, 1 = best conservative rating.
        bot: The bot with its counters.
        connected: Whether the bot is connected now.
    """

    rank: int
    bot: BotRecord
    connected: bool

    @property
    def rating(self) -> Rating:
        """The bot's rating."""
        return Rating(self.bot.mu, self.bot.sigma)

    @property
    def mean_score(self) -> float:
        """Mean final score over its rated matches (0 before the first)."""
        return self.bot.score_sum / self.bot.games if self.bot.games else 0.0


@dataclass(frozen=True, slots=True)
class _Outcome:
    """What the ratings need of a finished match, from the match or its stored record."""

    scores: tuple[int, ...]
    ranks: tuple[int, ...]
    forfeited: tuple[bool, ...]
    abandoned: bool
    timeouts: tuple[int, ...]
    forfeit_reasons: tuple[str | None, ...]
    end_time: float | None

    @staticmethod
    def of_match(match: Match) -> _Outcome:
        result = match.result
        assert result is not None
        forfeits = {
            entry.seat: entry.reason
            for entry in match.entries_after(-1)
            if entry.kind is EventKind.SEAT_FORFEITED
        }
        seats = range(match.settings.seat_count)
        return _Outcome(
            scores=tuple(result.scores),
            ranks=tuple(result.ranks),
            forfeited=tuple(result.forfeited),
            abandoned=result.abandoned,
            timeouts=tuple(match.timeouts(seat) for seat in seats),
            forfeit_reasons=tuple(forfeits.get(seat) for seat in seats),
            end_time=match.end_time,
        )

    @staticmethod
    def of_record(record: StoredMatch) -> _Outcome:
        result = record.result
        assert result is not None
        return _Outcome(
            scores=result.scores,
            ranks=result.ranks,
            forfeited=result.forfeited,
            abandoned=result.reason == ABANDONED,
            timeouts=tuple(seat.timeouts for seat in record.seats),
            forfeit_reasons=tuple(seat.forfeit_reason for seat in record.seats),
            end_time=result.end_time,
        )


@dataclass(slots=True)
class _Running:
    match_id: str
    game: str
    bot_ids: tuple[str, ...]
    started: float
    task: asyncio.Task[None] | None = None


class Connection:
    """One Connect stream of a bot: iterate it for assignments and keep-alives.

    Made by :meth:`Ladder.connect`; :meth:`close` it when the stream ends.
    """

    def __init__(self, ladder: Ladder, bot: BotRecord, capacity: int) -> None:
        self.ladder = ladder
        self.bot = bot
        self.capacity = capacity
        self._queue: asyncio.Queue[Assignment | None] = asyncio.Queue()
        self._closed = False

    def push(self, item: Assignment | None) -> None:
        """Queue an assignment, or ``None`` to end the stream."""
        self._queue.put_nowait(item)

    def __aiter__(self) -> AsyncIterator[Assignment | KeepAlive]:
        return self._items()

    async def _items(self) -> AsyncIterator[Assignment | KeepAlive]:
        while not self._closed:
            # asyncio.timeout, not wait_for: on 3.11 wait_for can swallow a cancellation
            # that arrives as the inner await completes.
            try:
                async with asyncio.timeout(self.ladder.settings.keepalive_seconds):
                    item = await self._queue.get()
            except TimeoutError:
                yield KeepAlive()
                continue
            if item is None:
                return
            yield item

    def close(self) -> None:
        """End this connection (idempotent); a dropped current connection is noted."""
        if self._closed:
            return
        self._closed = True
        self.ladder._disconnected(self)


@dataclass(slots=True)
class _State:
    connections: dict[str, Connection] = field(default_factory=dict)
    running: dict[str, _Running] = field(default_factory=dict)
    last_drop: dict[str, float] = field(default_factory=dict)
    # Per game, the pairs the hourly cap keeps apart, each logged once when it starts.
    capped: dict[str, set[frozenset[str]]] = field(default_factory=dict)
    # With several nodes: whether this node schedules (holds the ladder's lock), and
    # the Connect generation it last saw of each bot (a new one: it reconnected).
    leading: bool = False
    generations: dict[str, int] = field(default_factory=dict)
    # On the scheduling node: the match requests its nodes have not started yet, with
    # when they were made (time.monotonic), and the load of each node this tick.
    requested: dict[str, tuple[_Running, float]] = field(default_factory=dict)
    loads: dict[str, int] = field(default_factory=dict)
    # On every node: the requests it could not start yet (full), each warned of once.
    full: set[str] = field(default_factory=set)


class Ladder:
    """Registration, connections, scheduling and results of the bot ladder.

    Args:
        manager: Creates and runs the ladder's matches.
        store: The ladder's tables.
        settings: Scheduling and pause settings.
        wall_clock: Epoch seconds, for match times and the hourly pair cap.
    """

    def __init__(
        self,
        manager: MatchManager,
        store: LadderStore,
        settings: LadderSettings | None = None,
        *,
        wall_clock: Clock = time.time,
    ) -> None:
        self.manager = manager
        self.store = store
        self.settings = settings or LadderSettings()
        self._wall_clock = wall_clock
        self._state = _State()
        self._wake: asyncio.Event | None = None
        self._loop_task: asyncio.Task[None] | None = None
        self._closing = False
        # Several nodes share the database when the manager holds matches by lease.
        self._node = manager.lease
        self._renew_at = 0.0
        self._lead_at = 0.0
        self._database_away = False

    # ------------------------------------------------------------------ bots

    def register(self, name: str, owner: str, game: str) -> tuple[BotRecord, str]:
        """Register a bot; return it and its secret (``{bot_id}.{random}``, shown once).

        Raises:
            InvalidRequestError: A bad name or owner, or an unknown game.
            BotNameTakenError: The game has a bot of that name.
        """
        name = name.strip()
        if not 1 <= len(name) <= _MAX_NAME:
            raise InvalidRequestError("display_name", f"must be 1..{_MAX_NAME} characters")
        if len(owner) > _MAX_NAME:
            raise InvalidRequestError("owner", f"must be at most {_MAX_NAME} characters")
        for field_name, text in (("display_name", name), ("owner", owner)):
            if (problem := name_problem(text)) is not None:
                raise InvalidRequestError(field_name, f"{problem}: names are printable text")
        self.manager.rules(game)
        bot_id = secrets.token_hex(8)
        secret = f"{bot_id}.{secrets.token_urlsafe(24)}"
        bot = BotRecord(
            bot_id=bot_id,
            name=name,
            owner=owner,
            game=game,
            secret_hash=_hash(secret),
            mu=DEFAULT_RATING.mu,
            sigma=DEFAULT_RATING.sigma,
        )
        if not self.store.add_bot(bot, self._wall_clock()):
            raise BotNameTakenError(name, game)
        _logger.info("bot registered", bot=bot_id, name=name, game=game)
        return bot, secret

    def authenticate(self, secret: str | None) -> BotRecord:
        """Return the bot whose secret ``secret`` is.

        Raises:
            BotSecretRequiredError: No secret.
            BotSecretInvalidError: Not a registered bot's secret.
        """
        if not secret:
            raise BotSecretRequiredError()
        bot_id, _, _ = secret.partition(".")
        bot = self.store.bot(bot_id)
        # Compare even for an unknown id, so the answer takes the same time either way.
        expected = bot.secret_hash if bot is not None else _hash("")
        if not hmac.compare_digest(_hash(secret), expected) or bot is None:
            raise BotSecretInvalidError()
        return bot

    def bot(self, bot_id: str) -> BotRecord:
        """Return the bot ``bot_id``.

        Raises:
            BotNotFoundError: No such bot.
        """
        bot = self.store.bot(bot_id)
        if bot is None:
            raise BotNotFoundError(bot_id)
        return bot

    def resume(self, bot_id: str) -> BotRecord:
        """Un-pause the bot ``bot_id`` and reset its bad streak; return it as it is now.

        The next tick schedules it again if it is connected. A match it is playing still
        counts when it ends, so a bad one starts a new streak.

        Raises:
            BotNotFoundError: No such bot.
        """
        before = self.bot(bot_id)
        if not self.store.resume_bot(bot_id):
            raise BotNotFoundError(bot_id)
        _logger.info(
            "bot resumed", bot=bot_id, was_paused=before.paused, bad_streak=before.bad_streak
        )
        self._poke()
        return self.bot(bot_id)

    def leaderboard(self, game: str, *, offset: int = 0, limit: int = 50) -> list[LeaderboardRow]:
        """Return up to ``limit`` bots of ``game``, best conservative rating first, after
        the first ``offset`` (a page of the board, read along the store's index: never a
        sort of every bot).

        Raises:
            InvalidRequestError: Unknown game.
        """
        self.manager.rules(game)
        bots = self.store.leaderboard(game, offset=offset, limit=limit)
        connected = self._connected(bot.bot_id for bot in bots)
        return [
            LeaderboardRow(rank, bot, bot.bot_id in connected)
            for rank, bot in enumerate(bots, start=offset + 1)
        ]

    def leaderboard_row(self, bot_id: str) -> LeaderboardRow:
        """Return the bot's line of its game's leaderboard.

        Raises:
            BotNotFoundError: No such bot.
        """
        bot = self.bot(bot_id)
        return LeaderboardRow(self.store.rank(bot), bot, bot_id in self._connected([bot_id]))

    def _connected(self, bot_ids: Iterable[str]) -> set[str]:
        """Which of ``bot_ids`` are connected now (to any node, with several)."""
        wanted = set(bot_ids)
        if self._node is None:
            return wanted & self._state.connections.keys()
        return {p.bot_id for p in self._presence(bot_ids=wanted, connected_only=True)}

    @property
    def leading(self) -> bool:
        """Whether this node schedules: always with one node, else while it holds the
        ladder's lock."""
        return self._node is None or self._state.leading

    def bot_matches(self, bot_id: str, limit: int) -> list[LadderMatchRecord]:
        """Return up to ``limit`` matches of the bot, newest first.

        Raises:
            BotNotFoundError: No such bot.
        """
        self.bot(bot_id)
        return self.store.bot_matches(bot_id, limit)

    # ------------------------------------------------------------------ connections

    def connect(self, bot: BotRecord, capacity: int, *, resume_seats: bool = False) -> Connection:
        """Open a connection for ``bot``; it replaces the bot's previous one.

        The connection first repeats the assignments of the bot's running matches, those
        whose seat tokens the server still knows. A match recovered after a restart keeps
        only hashes of its tokens: a bot process that kept running still holds them
        (``run_ladder_bot`` plays on through the restart), so such a match is left to
        it, unless ``resume_seats`` says the bot holds no tokens (its process restarted
        too): then the seat gets a new token, sent with the assignment.

        Raises:
            InvalidRequestError: ``capacity`` outside 1..64.
        """
        if not 1 <= capacity <= _MAX_CAPACITY:
            raise InvalidRequestError("capacity", f"must be within 1..{_MAX_CAPACITY}")
        connection = Connection(self, bot, capacity)
        previous = self._state.connections.get(bot.bot_id)
        self._state.connections[bot.bot_id] = connection
        if previous is not None:
            previous.push(None)
            previous.close()
        if self._node is not None:
            # The scheduling node sees the new generation and repeats the assignments.
            self.store.present(
                bot.bot_id, self._node.owner, capacity, resume_seats, self._wall_clock()
            )
            _logger.info("bot connected", bot=bot.bot_id, capacity=capacity, paused=bot.paused)
            self._poke()
            return connection
        for running in self._state.running.values():
            for seat, bot_id in enumerate(running.bot_ids):
                if bot_id == bot.bot_id:
                    with contextlib.suppress(MatchNotFoundError, MatchFinishedError):
                        match = self.manager.get(running.match_id)
                        if match.tokens:
                            connection.push(_assignment(match, seat))
                        elif resume_seats:
                            token = self.manager.reissue_token(match.match_id, seat)
                            connection.push(_assignment(match, seat, token))
        _logger.info("bot connected", bot=bot.bot_id, capacity=capacity, paused=bot.paused)
        self._poke()
        return connection

    def _disconnected(self, connection: Connection) -> None:
        bot_id = connection.bot.bot_id
        if self._state.connections.get(bot_id) is not connection:
            return  # replaced by a newer connection
        del self._state.connections[bot_id]
        if self._node is not None:
            dropped = None if self._closing else self._wall_clock()
            try:
                self.store.absent(bot_id, self._node.owner, dropped)
            except DatabaseUnavailableError as error:  # the row goes stale anyway
                _logger.warning("ladder presence not updated", bot=bot_id, error=str(error))
            except Exception:  # as above, but unexpected
                _logger.exception("ladder presence not updated", bot=bot_id)
        if not self._closing:
            self._state.last_drop[bot_id] = self._wall_clock()
            _logger.info("bot disconnected", bot=bot_id)

    # ------------------------------------------------------------------ lifecycle

    async def start(self) -> None:
        """Re-attach to unfinished matches and start the scheduling loop."""
        self._wake = asyncio.Event()
        if self._node is not None:  # the scheduling node adopts them (_lead)
            self._loop_task = asyncio.create_task(self._loop(), name="botarena-ladder")
            return
        for record in self.store.unfinished_matches():
            try:
                self.manager.get(record.match_id)
            except MatchNotFoundError:
                _logger.warning("ladder match lost; abandoned", match=record.match_id)
                self.store.abandon(record.match_id, self._wall_clock())
                continue
            bot_ids = tuple(seat.bot_id for seat in record.seats)
            self._follow(_Running(record.match_id, record.game, bot_ids, record.started))
        self._loop_task = asyncio.create_task(self._loop(), name="botarena-ladder")

    async def close(self) -> None:
        """Stop scheduling, end every connection and stop following matches.

        Results not yet recorded stay unrecorded: the next :meth:`start` picks them up.
        """
        self._closing = True
        for connection in list(self._state.connections.values()):
            connection.push(None)
        tasks = [r.task for r in self._state.running.values() if r.task is not None]
        if self._loop_task is not None:
            tasks.append(self._loop_task)
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
        if self._node is not None and self._state.leading:
            self._state.leading = False
            try:
                self.store.release_lead(self._node.owner)
            except DatabaseUnavailableError:  # it expires by itself
                _logger.warning("ladder scheduling lease not released: the database is away")

    def schedule_now(self) -> list[str]:
        """Run the scheduler once; return the ids of the matches it started (with several
        nodes: of the match requests it made; none on a node that does not hold the
        ladder's lock)."""
        started: list[str] = []
        if self._node is None:
            free = {
                bot_id: (connection.bot.game, connection.capacity)
                for bot_id, connection in self._state.connections.items()
            }
            presence: dict[str, Presence] = {}
        elif self._state.leading:
            presence = {p.bot_id: p for p in self._presence(connected_only=True)}
            free = {p.bot_id: (p.game, p.capacity) for p in presence.values()}
            if free:
                self._state.loads = self.store.node_loads()
        else:
            return []
        for game in sorted({game for game, _ in free.values()}):
            capacities = {bot_id: cap for bot_id, (g, cap) in free.items() if g == game}
            started += self._schedule_game(game, capacities, presence)
        return started

    # ------------------------------------------------------------------ internals

    def _poke(self) -> None:
        if self._wake is not None:
            self._wake.set()

    async def _loop(self) -> None:
        assert self._wake is not None
        interval = self.settings.tick_seconds
        if self._node is not None:
            interval = min(interval, _POLL_SECONDS)
        while not self._closing:
            try:
                if self._node is not None:
                    self._cluster_tick()
                self.schedule_now()
                if self._database_away:
                    self._database_away = False
                    _logger.info("ladder: the database is back")
            except (DatabaseUnavailableError, StoreUnavailableError) as error:
                # Tried again next tick; the leases keep what this node holds meanwhile.
                if not self._database_away:
                    self._database_away = True
                    _logger.warning("ladder waits for the database", error=str(error))
            except LeadLostError:  # another node took the lease over (this one froze)
                self._lead(False)
            except Exception:  # a bad tick must not stop the ladder
                _logger.exception("ladder tick failed")
            self._wake.clear()
            with contextlib.suppress(TimeoutError):
                async with asyncio.timeout(interval):
                    await self._wake.wait()

    # ------------------------------------------------------------------ several nodes

    def _presence(
        self, *, bot_ids: Collection[str] | None = None, connected_only: bool = False
    ) -> list[Presence]:
        assert self._node is not None
        fresh_since = self._wall_clock() - self._node.ttl
        return self.store.presence(
            fresh_since=fresh_since, bot_ids=bot_ids, connected_only=connected_only
        )

    def _cluster_tick(self) -> None:
        """Renew this node's streams, push the assignments queued for them, and take
        (or confirm) the ladder's lock; the node holding it collects ended matches."""
        node = self._node
        assert node is not None
        now = time.monotonic()
        if now >= self._renew_at:
            self._renew_at = now + node.ttl / 5
            kept = self.store.renew_presence(node.owner, self._wall_clock())
            for bot_id, moved in list(self._state.connections.items()):
                if bot_id not in kept:  # the bot connected to another node since
                    moved.push(None)
                    moved.close()
        for request in self.store.match_requests(node=node.owner):
            self._create_requested(request)
        for queued in self.store.claim_assignments(node.owner):
            connection = self._state.connections.get(queued.bot_id)
            if connection is not None:  # else it reconnected elsewhere: repeated there
                connection.push(
                    Assignment(
                        queued.match_id, queued.seat_token, queued.game, queued.seat, queued.address
                    )
                )
        self._give_back()
        self._repeat(self._presence(connected_only=True))
        if self._state.leading or now >= self._lead_at:
            self._lead_at = now + self.settings.tick_seconds
            self._lead(self.store.lead(node.owner, node.ttl))
        if self._state.leading:
            self._settle_requests()
            self._collect()

    def _lead(self, leading: bool) -> None:
        """Start or stop scheduling as the ladder's lock was taken or lost."""
        if leading == self._state.leading:
            return
        self._state.leading = leading
        if not leading:
            _logger.warning("ladder scheduling lost to another node")
            self._state.running.clear()
            self._state.requested.clear()
            return
        # Adopt the matches the last scheduling node started (it may have died).
        self._state.running = {
            record.match_id: _Running(
                record.match_id,
                record.game,
                tuple(seat.bot_id for seat in record.seats),
                record.started,
            )
            for record in self.store.unfinished_matches()
        }
        # And the requests it made that their nodes have not started or it not settled.
        made = time.monotonic()
        self._state.requested = {
            request.request_id: (
                _Running(request.request_id, request.game, request.bot_ids, self._wall_clock()),
                made,
            )
            for request in self.store.match_requests()
        }
        _logger.info(
            "ladder scheduling on this node",
            running=len(self._state.running),
            requested=len(self._state.requested),
        )

    def _settle_requests(self) -> None:
        """Follow the requested matches their nodes started (the end is collected from
        the store), and drop the requests that waited past twice the lease time: their
        node died or is full, and the bots are scheduled again."""
        node = self._node
        assert node is not None
        requested = self._state.requested
        if not requested:
            return
        queued = {request.request_id: request for request in self.store.match_requests()}
        started: list[str] = []
        late: list[str] = []
        deadline = time.monotonic() - 2 * node.ttl
        for request_id, (running, made) in list(requested.items()):
            request = queued.get(request_id)
            if request is None:  # settled by an earlier scheduling node
                del requested[request_id]
            elif request.match_id is not None:
                del requested[request_id]
                started.append(request_id)
                record = self.store.match(request.match_id)
                if record is not None and record.finished is None:
                    running.match_id = request.match_id
                    self._state.running[request.match_id] = running
            elif made < deadline:
                late.append(request_id)
        if started:
            self.store.drop_requests(started, leader=node.owner)
        if late:
            for request_id in self.store.drop_requests(
                late, leader=node.owner, unstarted_only=True
            ):
                running, _ = requested.pop(request_id)
                _logger.warning(
                    "ladder match request not started in time; dropped",
                    request=request_id,
                    node=queued[request_id].node,
                    bots=running.bot_ids,
                )

    def _collect(self) -> None:
        """Record the ladder matches that ended, on whichever node (from the store)."""
        store = self.manager.store
        ended = self.store.ended_matches()
        if store is None or not ended:
            return
        for match_id in ended:
            record = store.load_match(match_id)
            if record is None or record.result is None:
                continue
            running = self._state.running.pop(match_id, None)
            if running is None:
                ladder_record = self.store.match(match_id)
                if ladder_record is None:
                    continue
                bot_ids = tuple(seat.bot_id for seat in ladder_record.seats)
                running = _Running(match_id, record.game, bot_ids, ladder_record.started)
            # The presence of this match's bots only, never of every bot that connected.
            presence = {p.bot_id: p for p in self._presence(bot_ids=running.bot_ids)}

            def dropped(
                bot_id: str,
                started: float = running.started,
                presence: dict[str, Presence] = presence,
            ) -> bool:
                seen = presence.get(bot_id)
                return (
                    seen is not None
                    and not seen.connected
                    and seen.dropped is not None
                    and seen.dropped >= started
                )

            self._record(running, _Outcome.of_record(record), dropped)

    def _give_back(self) -> None:
        """Give each seat of a match held here whose bot connected with ``resume_seats``
        since the seat's token was issued (it lost the token) its token again.

        Level-triggered, on every node and every tick: the node that takes a match over
        gives its seats back even when the bot came back long before. A token known here
        (the match was created here) is sent again; else the seat gets a new one,
        committed under the match's lease. The generation is noted only after the
        assignment went out, so a node that dies in between leaves the seat to the next
        owner (a second new token, which the SDK takes as the seat's replacement).
        """
        node = self._node
        assert node is not None
        fresh_since = self._wall_clock() - node.ttl
        for resumed in self.store.resumed_seats(node.owner, fresh_since=fresh_since):
            match = self.manager.held(resumed.match_id)
            if match is None or match.finished:
                continue
            if match.tokens:
                token = match.tokens[resumed.seat]
            else:
                try:
                    token = self.manager.reissue_token(match.match_id, resumed.seat)
                except MatchError:  # finished or lost meanwhile: no longer this node's
                    continue
            assignment = _assignment(match, resumed.seat, token, node.address)
            self._deliver(resumed.bot_id, resumed.node, assignment)
            self.store.mark_resumed(match.match_id, resumed.seat, resumed.generation, node.owner)
            _logger.info(
                "ladder seat given back",
                match=match.match_id,
                seat=resumed.seat,
                bot=resumed.bot_id,
            )

    def _repeat(self, presence: Collection[Presence]) -> None:
        """Send a bot that reconnected (to any node) its running ladder matches held here
        whose tokens this node knows (a seat it must be given a new token for:
        _give_back). Every node does it for the matches it runs."""
        assert self._node is not None
        moved: dict[str, Presence] = {}
        for seen in presence:
            known = self._state.generations.get(seen.bot_id)
            self._state.generations[seen.bot_id] = seen.generation
            if known is not None and known != seen.generation:
                moved[seen.bot_id] = seen
        if not moved:
            return
        for record in self.store.unfinished_matches():
            match = self.manager.held(record.match_id)
            if match is None or match.finished or not match.tokens:
                continue
            for seat in record.seats:
                if (bot := moved.get(seat.bot_id)) is not None:
                    assignment = _assignment(match, seat.seat, node=self._node.address)
                    self._deliver(bot.bot_id, bot.node, assignment)

    def _deliver(self, bot_id: str, node: str, assignment: Assignment) -> None:
        """Push ``assignment`` down this node's stream of the bot, or queue it for
        ``node``, the node that holds the stream."""
        assert self._node is not None
        connection = self._state.connections.get(bot_id)
        if node == self._node.owner and connection is not None:
            connection.push(assignment)
            return
        self.store.add_assignments(
            [
                NodeAssignment(
                    match_id=assignment.match_id,
                    seat=assignment.seat,
                    bot_id=bot_id,
                    node=node,
                    game=assignment.game,
                    seat_token=assignment.seat_token,
                    address=assignment.node,
                )
            ]
        )

    def _running_counts(self) -> dict[str, int]:
        counts: dict[str, int] = {}
        requested = (running for running, _ in self._state.requested.values())
        for running in (*self._state.running.values(), *requested):
            for bot_id in running.bot_ids:
                counts[bot_id] = counts.get(bot_id, 0) + 1
        return counts

    def _schedule_game(
        self, game: str, capacities: dict[str, int], presence: dict[str, Presence]
    ) -> list[str]:
        rules = self.manager.rules(game)
        seats = min(max(self.settings.seats, rules.min_seats), rules.max_seats)
        running = self._running_counts()
        free = {bot_id: cap for bot_id, cap in capacities.items() if cap > running.get(bot_id, 0)}
        if len(free) < seats:
            return []
        # Only the connected bots with room, never every registered bot of the game: a
        # tick's reads grow with the bots that can play (docs/decisions.md: A large ladder).
        bots = {
            bot_id: bot
            for bot_id, bot in self.store.bots_by_id(free).items()
            if bot.game == game and not bot.paused
        }
        if len(bots) < seats:
            return []
        seat_counts = self.store.seat_counts(game, bot_ids=bots)
        candidates = [
            Candidate(
                bot_id=bot_id,
                free_capacity=capacity - running.get(bot_id, 0),
                sigma=bots[bot_id].sigma,
                games=bots[bot_id].games,
                seat_counts=seat_counts.get(bot_id, {}),
            )
            for bot_id, capacity in free.items()
            if bot_id in bots
        ]
        now = self._wall_clock()
        last_hour = self.store.pair_counts(game, since=now - _HOUR, bot_ids=bots)
        groups = schedule(
            candidates,
            seats=seats,
            pair_games=self.store.pair_counts(game, bot_ids=bots),
            pair_games_last_hour=last_hour,
            pair_cap_per_hour=self.settings.pair_cap_per_hour,
        )
        self._say_capped(game, candidates, last_hour, bots)
        started: list[str] = []
        for group in groups:
            match_id = self._start_match(game, [bots[bot_id] for bot_id in group], presence)
            if match_id is None:
                break
            started.append(match_id)
        return started

    def _say_capped(
        self,
        game: str,
        candidates: list[Candidate],
        last_hour: dict[frozenset[str], int],
        bots: dict[str, BotRecord],
    ) -> None:
        """Log once why a pair of waiting bots is not seated together: the hourly cap."""
        capped = capped_pairs(
            candidates,
            pair_games_last_hour=last_hour,
            pair_cap_per_hour=self.settings.pair_cap_per_hour,
        )
        for pair in capped - self._state.capped.get(game, set()):
            _logger.info(
                "ladder pair reached its hourly cap; not scheduled together for now",
                game=game,
                bots=sorted(bots[bot_id].name for bot_id in pair),
                matches_last_hour=last_hour[pair],
                pair_cap_per_hour=self.settings.pair_cap_per_hour,
                option="--ladder-pair-cap-per-hour",
            )
        self._state.capped[game] = capped

    def _match_settings(self, game: str, group: Sequence[BotRecord]) -> MatchSettings:
        return MatchSettings(
            game=game,
            seat_count=len(group),
            # Secret and unguessable: 64 bits from the OS's cryptographic source.
            seed=secrets.randbits(64),
            game_config=self.manager.rules(game).default_config(),
            time_control=TimeControl(move_time_limit=self.settings.move_time_limit),
            policies=Policies(on_timeout=TimeoutPolicy.FORFEIT),
            seat_names=tuple(bot.name for bot in group),
        )

    def _request_match(
        self, game: str, group: list[BotRecord], presence: dict[str, Presence]
    ) -> str:
        """Ask the live node with the fewest matches (running and requested) to create
        the match: the node that runs it is the one with room, not the scheduler."""
        node = self._node
        assert node is not None
        loads = self._state.loads
        live = {p.node for p in presence.values()} | {node.owner}
        chosen = min(live, key=lambda owner: (loads.get(owner, 0), owner != node.owner, owner))
        request = MatchRequest(
            secrets.token_hex(8), chosen, game, tuple(bot.bot_id for bot in group)
        )
        try:
            self.store.request_matches([request], leader=node.owner)
        except LeadLostError:
            _logger.warning("ladder match not requested: the scheduling lease was lost")
            raise
        loads[chosen] = loads.get(chosen, 0) + 1
        running = _Running(request.request_id, game, request.bot_ids, self._wall_clock())
        self._state.requested[request.request_id] = (running, time.monotonic())
        _logger.info(
            "ladder match requested", request=request.request_id, node=chosen, bots=running.bot_ids
        )
        return request.request_id

    def _create_requested(self, request: MatchRequest) -> None:
        """Create here the match the scheduling node asked this node for, record it with
        the request (at most once), and send its seats to the bots' nodes."""
        node = self._node
        assert node is not None
        bots = self.store.bots_by_id(request.bot_ids)
        if len(bots) != len(request.bot_ids):
            return  # a bot is gone: the request waits out its time and is dropped
        group = [bots[bot_id] for bot_id in request.bot_ids]
        try:
            match, _ = self.manager.create(self._match_settings(request.game, group))
        except TooManyMatchesError:  # tried again next poll, until the scheduler drops it
            if request.request_id not in self._state.full:
                self._state.full.add(request.request_id)
                _logger.warning("ladder cannot start a requested match: the server is full")
            return
        self._state.full.discard(request.request_id)
        seats = [
            SeatRecord(seat=seat, bot_id=bot.bot_id, mu_before=bot.mu, sigma_before=bot.sigma)
            for seat, bot in enumerate(group)
        ]
        if not self.store.start_requested(
            request.request_id, node.owner, match.match_id, self._wall_clock(), seats
        ):
            # Dropped as late meanwhile: nobody is told of it, it ends abandoned.
            _logger.warning("ladder match request gone; not started", request=request.request_id)
            return
        _logger.info(
            "ladder match started", match=match.match_id, bots=request.bot_ids, node=node.address
        )
        presence = {p.bot_id: p for p in self._presence(bot_ids=request.bot_ids)}
        for seat, bot_id in enumerate(request.bot_ids):
            if (seen := presence.get(bot_id)) is not None:
                self._deliver(bot_id, seen.node, _assignment(match, seat, node=node.address))

    def _start_match(
        self, game: str, group: list[BotRecord], presence: dict[str, Presence]
    ) -> str | None:
        if self._node is not None:
            return self._request_match(game, group, presence)
        try:
            match, _ = self.manager.create(self._match_settings(game, group))
        except TooManyMatchesError:
            _logger.warning("ladder cannot start a match: the server is full")
            return None
        now = self._wall_clock()
        seats = [
            SeatRecord(seat=seat, bot_id=bot.bot_id, mu_before=bot.mu, sigma_before=bot.sigma)
            for seat, bot in enumerate(group)
        ]
        self.store.add_match(match.match_id, game, now, seats)
        running = _Running(match.match_id, game, tuple(bot.bot_id for bot in group), now)
        _logger.info("ladder match started", match=match.match_id, bots=running.bot_ids)
        for seat, bot in enumerate(group):
            self._state.connections[bot.bot_id].push(_assignment(match, seat))
        self._follow(running)
        return match.match_id

    def _follow(self, running: _Running) -> None:
        self._state.running[running.match_id] = running
        running.task = asyncio.create_task(
            self._await_end(running), name=f"botarena-ladder-{running.match_id}"
        )

    async def _await_end(self, running: _Running) -> None:
        match = self.manager.get(running.match_id)
        with contextlib.suppress(MatchNotFoundError):
            async for _ in self.manager.stream(running.match_id, None, match.state_version):
                pass
        if self._closing or not match.finished:
            return  # the server is stopping: the next start re-attaches
        try:
            self._record(running, _Outcome.of_match(match), self._dropped_here)
        finally:
            self._state.running.pop(running.match_id, None)
            self._poke()

    def _dropped_here(self, bot_id: str, started: float) -> bool:
        """Whether the bot's stream to this server ended since ``started`` and it has
        not reconnected."""
        return (
            bot_id not in self._state.connections
            and self._state.last_drop.get(bot_id, -1.0) >= started
        )

    def _record(
        self, running: _Running, outcome: _Outcome, dropped: Callable[[str, float], bool]
    ) -> None:
        if outcome.abandoned:
            # Nobody played (match.proto: STATE_ABANDONED): nothing to rate.
            finished = outcome.end_time if outcome.end_time is not None else self._wall_clock()
            self.store.abandon(running.match_id, finished)
            _logger.info("ladder match abandoned", match=running.match_id)
            return
        bots = [self.bot(bot_id) for bot_id in running.bot_ids]
        ratings = rate([Rating(bot.mu, bot.sigma) for bot in bots], outcome.ranks)
        shares = win_shares(outcome.ranks)
        results = []
        for seat, bot in enumerate(bots):
            crashed = outcome.forfeit_reasons[seat] in _CRASH_REASONS
            results.append(
                SeatResult(
                    score=outcome.scores[seat],
                    rank=outcome.ranks[seat],
                    win=shares[seat],
                    forfeited=outcome.forfeited[seat],
                    timeouts=outcome.timeouts[seat],
                    crashed=crashed or dropped(bot.bot_id, running.started),
                    mu=ratings[seat].mu,
                    sigma=ratings[seat].sigma,
                )
            )
        finished = outcome.end_time if outcome.end_time is not None else self._wall_clock()
        self.store.record_result(
            running.match_id,
            finished,
            results,
            pause_after=self.settings.pause_after,
            leader=self._node.owner if self._node is not None else None,
        )
        _logger.info("ladder match recorded", match=running.match_id, ranks=outcome.ranks)


def _assignment(match: Match, seat: int, token: str = "", node: str = "") -> Assignment:
    return Assignment(match.match_id, token or match.tokens[seat], match.settings.game, seat, node)


def _hash(secret: str) -> str:
    return hashlib.sha256(secret.encode()).hexdigest()
