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
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import hmac
import secrets
import time
from collections.abc import AsyncIterator
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
    Clock,
    EventKind,
    ForfeitReason,
    InvalidRequestError,
    Match,
    MatchFinishedError,
    MatchManager,
    MatchNotFoundError,
    MatchSettings,
    Policies,
    TimeControl,
    TimeoutPolicy,
    TooManyMatchesError,
)
from botarena.server.store.ladder import (
    BotRecord,
    LadderMatchRecord,
    LadderStore,
    SeatRecord,
    SeatResult,
)

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
    """A seat a connected bot must play (ladder.proto: Assignment)."""

    match_id: str
    seat_token: str
    game: str
    seat: int


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

    # ------------------------------------------------------------------ bots

    def register(self, name: str, owner: str, game: str) -> tuple[BotRecord, str]:
        """Register a bot; return it and its secret (``{bot_id}.{random}``, shown once).

        Raises:
            InvalidRequestError: A bad name or owner, or an unknown game.
            BotNameTakenError: The game has a bot of that name.
        """
        name = name.strip()
        if not 1 <= len(name) <= _MAX_NAME or not name.isprintable():
            raise InvalidRequestError("display_name", f"must be 1..{_MAX_NAME} printable chars")
        if len(owner) > _MAX_NAME or not owner.isprintable():
            raise InvalidRequestError("owner", f"must be at most {_MAX_NAME} printable chars")
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

    def leaderboard(self, game: str) -> list[LeaderboardRow]:
        """Return the bots of ``game``, best conservative rating first.

        Raises:
            InvalidRequestError: Unknown game.
        """
        self.manager.rules(game)
        bots = sorted(
            self.store.bots(game),
            key=lambda bot: (-Rating(bot.mu, bot.sigma).conservative, -bot.games, bot.name),
        )
        connected = self._state.connections
        return [
            LeaderboardRow(rank, bot, bot.bot_id in connected)
            for rank, bot in enumerate(bots, start=1)
        ]

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
        if not self._closing:
            self._state.last_drop[bot_id] = self._wall_clock()
            _logger.info("bot disconnected", bot=bot_id)

    # ------------------------------------------------------------------ lifecycle

    async def start(self) -> None:
        """Re-attach to unfinished matches and start the scheduling loop."""
        self._wake = asyncio.Event()
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

    def schedule_now(self) -> list[str]:
        """Run the scheduler once; return the ids of the matches it started."""
        started: list[str] = []
        games = {c.bot.game for c in self._state.connections.values()}
        for game in sorted(games):
            started += self._schedule_game(game)
        return started

    # ------------------------------------------------------------------ internals

    def _poke(self) -> None:
        if self._wake is not None:
            self._wake.set()

    async def _loop(self) -> None:
        assert self._wake is not None
        while not self._closing:
            try:
                self.schedule_now()
            except Exception:  # a bad tick must not stop the ladder
                _logger.exception("ladder tick failed")
            self._wake.clear()
            with contextlib.suppress(TimeoutError):
                async with asyncio.timeout(self.settings.tick_seconds):
                    await self._wake.wait()

    def _running_counts(self) -> dict[str, int]:
        counts: dict[str, int] = {}
        for running in self._state.running.values():
            for bot_id in running.bot_ids:
                counts[bot_id] = counts.get(bot_id, 0) + 1
        return counts

    def _schedule_game(self, game: str) -> list[str]:
        rules = self.manager.rules(game)
        seats = min(max(self.settings.seats, rules.min_seats), rules.max_seats)
        bots = {bot.bot_id: bot for bot in self.store.bots(game)}
        running = self._running_counts()
        seat_counts = self.store.seat_counts(game)
        candidates = [
            Candidate(
                bot_id=bot_id,
                free_capacity=connection.capacity - running.get(bot_id, 0),
                sigma=bots[bot_id].sigma,
                games=bots[bot_id].games,
                seat_counts=seat_counts.get(bot_id, {}),
            )
            for bot_id, connection in self._state.connections.items()
            if bot_id in bots
            and not bots[bot_id].paused
            and connection.capacity > running.get(bot_id, 0)
        ]
        if len(candidates) < seats:
            return []
        now = self._wall_clock()
        last_hour = self.store.pair_counts(game, since=now - _HOUR)
        groups = schedule(
            candidates,
            seats=seats,
            pair_games=self.store.pair_counts(game),
            pair_games_last_hour=last_hour,
            pair_cap_per_hour=self.settings.pair_cap_per_hour,
        )
        self._say_capped(game, candidates, last_hour, bots)
        started: list[str] = []
        for group in groups:
            match_id = self._start_match(game, [bots[bot_id] for bot_id in group])
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

    def _start_match(self, game: str, group: list[BotRecord]) -> str | None:
        rules = self.manager.rules(game)
        settings = MatchSettings(
            game=game,
            seat_count=len(group),
            # Secret and unguessable: 64 bits from the OS's cryptographic source.
            seed=secrets.randbits(64),
            game_config=rules.default_config(),
            time_control=TimeControl(move_time_limit=self.settings.move_time_limit),
            policies=Policies(on_timeout=TimeoutPolicy.FORFEIT),
            seat_names=tuple(bot.name for bot in group),
        )
        try:
            match, _ = self.manager.create(settings)
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
        for seat, bot in enumerate(group):
            self._state.connections[bot.bot_id].push(_assignment(match, seat))
        _logger.info("ladder match started", match=match.match_id, bots=running.bot_ids)
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
            self._record(running, match)
        finally:
            self._state.running.pop(running.match_id, None)
            self._poke()

    def _record(self, running: _Running, match: Match) -> None:
        result = match.result
        assert result is not None
        if result.abandoned:
            # Nobody played (match.proto: STATE_ABANDONED): nothing to rate.
            finished = match.end_time if match.end_time is not None else self._wall_clock()
            self.store.abandon(running.match_id, finished)
            _logger.info("ladder match abandoned", match=running.match_id)
            return
        forfeits = {
            entry.seat: entry.reason
            for entry in match.entries_after(-1)
            if entry.kind is EventKind.SEAT_FORFEITED
        }
        bots = [self.bot(bot_id) for bot_id in running.bot_ids]
        ratings = rate([Rating(bot.mu, bot.sigma) for bot in bots], result.ranks)
        shares = win_shares(result.ranks)
        results = []
        for seat, bot in enumerate(bots):
            dropped = (
                bot.bot_id not in self._state.connections
                and self._state.last_drop.get(bot.bot_id, -1.0) >= running.started
            )
            results.append(
                SeatResult(
                    score=result.scores[seat],
                    rank=result.ranks[seat],
                    win=shares[seat],
                    forfeited=result.forfeited[seat],
                    timeouts=match.timeouts(seat),
                    crashed=forfeits.get(seat) in _CRASH_REASONS or dropped,
                    mu=ratings[seat].mu,
                    sigma=ratings[seat].sigma,
                )
            )
        finished = match.end_time if match.end_time is not None else self._wall_clock()
        self.store.record_result(
            running.match_id, finished, results, pause_after=self.settings.pause_after
        )
        _logger.info("ladder match recorded", match=running.match_id, ranks=result.ranks)


def _assignment(match: Match, seat: int, token: str = "") -> Assignment:
    return Assignment(match.match_id, token or match.tokens[seat], match.settings.game, seat)


def _hash(secret: str) -> str:
    return hashlib.sha256(secret.encode()).hexdigest()
