"""The runner's work queue in PostgreSQL: queued runs, their game sets, the games' results.

``botarena match --queue URL`` puts a run here (:meth:`QueueDatabase.create_run`): its
plan and one row per *game set*, the games of one seed label and one group of bots in
every seat rotation (the runner's sample, ``_samples``). ``botarena worker --queue URL``
processes on any number of machines claim sets (:meth:`QueueDatabase.claim`: ``SELECT
... FOR UPDATE SKIP LOCKED``, so two claimers never get one set and none waits for
another), hold them under a lease they renew (:meth:`QueueDatabase.renew`), report each
game (:meth:`QueueDatabase.report_game`) and mark the set done. A worker that dies stops
renewing; once its lease has expired the set is claimed again, and its new holder plays
only the games not reported yet.

A game is reported once: its result's key is (run, game number), and a second report
(a worker whose lease was reclaimed, finishing late) is ignored. Each accepted result
also takes the run's next sequence number under the run's row lock, so a coordinator
that follows ``seq > last`` sees every result once, in commit order, with no gaps.

The database may go away for a while (a PostgreSQL restart): every operation that
cannot reach it (``psycopg.OperationalError``) reconnects with backoff and runs again,
with one warning line when the database goes and one when it is back, for up to
``RECONNECT.max_elapsed`` seconds before it fails with :class:`QueueError` (each one is
safe to repeat: a game is reported once, a run is created once).

Times are the database's (``now()``), so the machines' clocks need not agree. The tables
are the runner's own (``runner_*``, with their own schema version), beside whatever else
the database holds; the server's store does not know them.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import secrets
import sys
import time
from collections.abc import AsyncIterator, Awaitable, Callable, Collection, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Concatenate, ParamSpec, Self, TypeVar

import psycopg
from psycopg.types.json import Jsonb

from botarena.clients._retry import Retry, RetryPolicy

__all__ = [
    "MIGRATIONS",
    "RECONNECT",
    "ClaimedSet",
    "QueueDatabase",
    "QueueError",
    "QueueUnavailableError",
    "ReportedGame",
    "RunRow",
    "RunStatus",
    "redacted",
]

Migration = Sequence[str]
"""One migration: SQL statements applied together in one transaction."""

QUEUE_V1: Migration = (
    # One row per queued run: its plan (the options, the lineup, how games are played)
    # and where it stands: open (sets to play), finished, or failed (a bot that cannot
    # play stopped it). `reported` is the last result's sequence number; `position`
    # orders the runs (oldest first) for the claims.
    """CREATE TABLE runner_runs (
        run_id TEXT PRIMARY KEY,
        position BIGINT GENERATED ALWAYS AS IDENTITY UNIQUE,
        created TIMESTAMPTZ NOT NULL DEFAULT now(),
        document JSONB NOT NULL,
        state TEXT NOT NULL,
        failure JSONB,
        reported INTEGER NOT NULL DEFAULT 0,
        messages INTEGER NOT NULL DEFAULT 0
    )""",
    # The unit of work: a game set (the games of one label and one group of bots).
    # pending -> claimed (a worker holds its lease) -> done | failed; pending ->
    # cancelled once the run's SPRT decided or the run failed. `position` is the run's.
    """CREATE TABLE runner_game_sets (
        run_id TEXT NOT NULL REFERENCES runner_runs (run_id) ON DELETE CASCADE,
        set_index INTEGER NOT NULL,
        position BIGINT NOT NULL,
        games JSONB NOT NULL,
        state TEXT NOT NULL,
        worker TEXT,
        lease_expires TIMESTAMPTZ,
        attempts INTEGER NOT NULL DEFAULT 0,
        error TEXT,
        PRIMARY KEY (run_id, set_index)
    )""",
    # A claim walks this index in order and stops at the first set it can lock: the
    # open sets only, oldest run first (bench/bench_queue.py).
    """CREATE INDEX runner_game_sets_open ON runner_game_sets (position, set_index)
        WHERE state IN ('pending', 'claimed')""",
    "CREATE INDEX runner_game_sets_worker ON runner_game_sets (worker) WHERE state = 'claimed'",
    # One row per game, reported once (the primary key); `seq` orders them for the
    # coordinator. The replay (gzip'd binary protobuf) and the tail of each bot's stderr
    # come along, so the coordinator can write the run folder as a local run does.
    """CREATE TABLE runner_game_results (
        run_id TEXT NOT NULL REFERENCES runner_runs (run_id) ON DELETE CASCADE,
        game_number INTEGER NOT NULL,
        seq INTEGER NOT NULL,
        worker TEXT NOT NULL,
        reported TIMESTAMPTZ NOT NULL DEFAULT now(),
        result JSONB NOT NULL,
        replay BYTEA,
        stderr JSONB NOT NULL,
        PRIMARY KEY (run_id, game_number),
        UNIQUE (run_id, seq)
    )""",
    # What workers have to say about a run (a command bot missing on a machine), shown
    # by the coordinator.
    """CREATE TABLE runner_messages (
        run_id TEXT NOT NULL REFERENCES runner_runs (run_id) ON DELETE CASCADE,
        seq INTEGER NOT NULL,
        worker TEXT NOT NULL,
        text TEXT NOT NULL,
        PRIMARY KEY (run_id, seq)
    )""",
)
"""Migration 1: runs, game sets, results and workers' messages."""

MIGRATIONS: Sequence[Migration] = (QUEUE_V1,)
"""Every migration in order; append new ones at the end, never edit a shipped one."""

_VERSION_TABLE = """CREATE TABLE IF NOT EXISTS runner_schema_version (
    version INTEGER PRIMARY KEY,
    applied TIMESTAMPTZ NOT NULL DEFAULT now()
)"""

_MIGRATION_LOCK = 0x626F7461_7175  # any constant: serialises migrations of one database

_OPEN = ("pending", "claimed")


RECONNECT = RetryPolicy(max_attempts=1, initial_backoff=0.2, max_backoff=5.0, max_elapsed=900.0)
"""How an operation waits for a database that went away: up to 15 minutes."""

_P = ParamSpec("_P")
_T = TypeVar("_T")


class QueueError(Exception):
    """The queue cannot be used; the message says why in one line."""


class QueueUnavailableError(QueueError):
    """The queue's database cannot be reached now (``psycopg.OperationalError``)."""


def redacted(url: str) -> str:
    """Return ``url`` with its password hidden (for messages and logs).

    >>> redacted("postgresql://me:secret@db.example:5432/runs")
    'postgresql://me:***@db.example:5432/runs'
    >>> redacted("postgresql://db.example/runs")
    'postgresql://db.example/runs'
    """
    scheme, separator, rest = url.partition("://")
    credentials, at, host = rest.rpartition("@")
    if not separator or not at or ":" not in credentials:
        return url
    user = credentials.split(":", 1)[0]
    return f"{scheme}://{user}:***@{host}"


@dataclass(frozen=True, slots=True)
class RunRow:
    """A queued run: its plan document, its state and, for a failed one, why."""

    run_id: str
    document: dict[str, Any]
    state: str
    failure: dict[str, Any] | None


@dataclass(frozen=True, slots=True)
class ClaimedSet:
    """A game set a worker holds: its run, index, games (plan documents) and attempt."""

    run_id: str
    set_index: int
    games: list[dict[str, Any]]
    attempts: int


@dataclass(frozen=True, slots=True)
class ReportedGame:
    """One game's reported result, in the order results were accepted."""

    seq: int
    game_number: int
    worker: str
    result: dict[str, Any]
    replay: bytes | None
    stderr: dict[str, str]


@dataclass(frozen=True, slots=True)
class RunStatus:
    """Where a run's sets stand, for the coordinator.

    Attributes:
        state: The run's state (open, finished, failed).
        failure: Why it failed, or ``None``.
        sets: The number of sets in each state.
        workers: The workers holding a live lease on one of its sets.
        failed_sets: ``(set index, error)`` of the sets a worker could not play.
    """

    state: str
    failure: dict[str, Any] | None
    sets: dict[str, int]
    workers: int
    failed_sets: list[tuple[int, str]]

    @property
    def open_sets(self) -> int:
        """Sets still to play or being played."""
        return sum(self.sets.get(state, 0) for state in _OPEN)


def _print_warning(text: str) -> None:
    print(f"{time.strftime('%H:%M:%S')} botarena: {text}", file=sys.stderr, flush=True)


def _reconnecting(
    method: Callable[Concatenate[QueueDatabase, _P], Awaitable[_T]],
) -> Callable[Concatenate[QueueDatabase, _P], Awaitable[_T]]:
    """Run a :class:`QueueDatabase` operation again, on a new connection after a backoff
    (:data:`RECONNECT`), while its database cannot be reached."""

    @functools.wraps(method)
    async def wrapper(database: QueueDatabase, /, *args: _P.args, **kwargs: _P.kwargs) -> _T:
        retry: Retry | None = None
        while True:
            try:
                result = await method(database, *args, **kwargs)
            except QueueUnavailableError as error:
                if retry is None:
                    retry = Retry(RECONNECT)
                    database._warn(f"{error}; reconnecting with backoff")
                delay = retry.failed()
                if delay is None:
                    raise
                await asyncio.sleep(delay)
                await database._reconnect()
                continue
            if retry is not None:
                database._warn(f"the queue {database._url} is back")
            return result

    return wrapper


def _one_line(error: BaseException) -> str:
    text = str(error).strip()
    return text.splitlines()[0] if text else type(error).__name__


class QueueDatabase:
    """One connection to the queue's database, for one process (a worker or a
    coordinator); its calls may come from several tasks, one at a time.

    Open with :meth:`connect` (which brings the schema up to date); close with
    :meth:`close` or ``async with``.
    """

    def __init__(
        self,
        connection: psycopg.AsyncConnection[Any],
        url: str,
        warn: Callable[[str], None] | None = None,
    ) -> None:
        self._connection = connection
        self._lock = asyncio.Lock()
        self._dsn = url
        self._url = redacted(url)
        self._warn = warn or _print_warning

    @contextlib.asynccontextmanager
    async def _cursor(self, *, transaction: bool = False) -> AsyncIterator[Any]:
        """Hold the connection (in one transaction with ``transaction``) and yield a
        cursor; a database error comes out as a :class:`QueueError` in one line."""
        async with self._lock:
            try:
                if transaction:
                    async with self._connection.transaction():
                        yield self._connection.cursor()
                else:
                    yield self._connection.cursor()
            except psycopg.OperationalError as error:
                raise QueueUnavailableError(
                    f"the queue {self._url} is unavailable: {_one_line(error)}"
                ) from error
            except psycopg.Error as error:
                raise QueueError(f"the queue {self._url} failed: {_one_line(error)}") from error

    async def _reconnect(self) -> None:
        """Replace a lost connection with a new one, if the database answers."""
        async with self._lock:
            if not self._connection.closed:
                return  # still good (another task reconnected first)
            with contextlib.suppress(psycopg.Error):
                await self._connection.close()
            with contextlib.suppress(psycopg.Error):
                self._connection = await psycopg.AsyncConnection.connect(
                    self._dsn, autocommit=True, connect_timeout=5
                )

    @classmethod
    async def connect(cls, url: str, *, warn: Callable[[str], None] | None = None) -> Self:
        """Connect to ``url`` and apply the migrations the database has not seen.

        Args:
            url: The queue's database.
            warn: Shows a line when the database goes away and when it is back (default:
                standard error).

        Raises:
            QueueError: The database cannot be reached, or its queue schema is newer
                than this botarena's.
        """
        try:
            connection = await psycopg.AsyncConnection.connect(url, autocommit=True)
        except psycopg.Error as error:
            raise QueueError(
                f"cannot connect to the queue {redacted(url)}: {_one_line(error)}"
            ) from None
        database = cls(connection, url, warn)
        try:
            await database._migrate()
        except BaseException:
            await connection.close()
            raise
        return database

    async def __aenter__(self) -> Self:
        return self

    async def __aexit__(self, *exc_info: object) -> None:
        await self.close()

    async def close(self) -> None:
        """Close the connection."""
        await self._connection.close()

    async def _migrate(self) -> int:
        async with self._cursor(transaction=True) as cursor:
            # The lock first: two processes creating one new schema would collide.
            await cursor.execute("SELECT pg_advisory_xact_lock(%s)", (_MIGRATION_LOCK,))
            await cursor.execute(_VERSION_TABLE)
            await cursor.execute("SELECT COALESCE(MAX(version), 0) FROM runner_schema_version")
            row = await cursor.fetchone()
            current = int(row[0]) if row else 0
            if current > len(MIGRATIONS):
                raise QueueError(
                    f"the queue's schema version is {current}, newer than this botarena "
                    f"understands ({len(MIGRATIONS)}): upgrade botarena on this machine"
                )
            for version in range(current, len(MIGRATIONS)):
                for statement in MIGRATIONS[version]:
                    await cursor.execute(statement.encode())
                await cursor.execute(
                    "INSERT INTO runner_schema_version (version) VALUES (%s)", (version + 1,)
                )
            return len(MIGRATIONS)

    async def _fetch(
        self, query: str, params: Sequence[Any] | Mapping[str, Any] = ()
    ) -> list[tuple[Any, ...]]:
        async with self._cursor() as cursor:
            await cursor.execute(query.encode(), params)
            rows: list[tuple[Any, ...]] = await cursor.fetchall() if cursor.description else []
            return rows

    # ------------------------------------------------------------------ coordinator

    async def create_run(
        self, document: Mapping[str, Any], sets: Sequence[Sequence[Mapping[str, Any]]]
    ) -> str:
        """Queue a run: its plan ``document`` and its game ``sets`` (each a list of game
        plan documents), all pending; return the run's new id."""
        run_id = secrets.token_hex(6)
        await self._insert_run(run_id, document, sets)
        return run_id

    @_reconnecting
    async def _insert_run(
        self, run_id: str, document: Mapping[str, Any], sets: Sequence[Sequence[Mapping[str, Any]]]
    ) -> None:
        async with self._cursor(transaction=True) as cursor:
            # A commit cut off by the database going away may have happened: once only.
            await cursor.execute("SELECT 1 FROM runner_runs WHERE run_id = %s", (run_id,))
            if await cursor.fetchone() is not None:
                return
            await cursor.execute(
                "INSERT INTO runner_runs (run_id, document, state) VALUES (%s, %s, 'open') "
                "RETURNING position",
                (run_id, Jsonb(document)),
            )
            row = await cursor.fetchone()
            assert row is not None
            await cursor.executemany(
                "INSERT INTO runner_game_sets (run_id, set_index, position, games, state) "
                "VALUES (%s, %s, %s, %s, 'pending')",
                [(run_id, index, row[0], Jsonb(list(games))) for index, games in enumerate(sets)],
            )

    @_reconnecting
    async def run(self, run_id: str) -> RunRow | None:
        """Return the run ``run_id``, or ``None`` if the queue has none."""
        rows = await self._fetch(
            "SELECT document, state, failure FROM runner_runs WHERE run_id = %s", (run_id,)
        )
        if not rows:
            return None
        document, state, failure = rows[0]
        return RunRow(run_id, document, state, failure)

    @_reconnecting
    async def status(self, run_id: str) -> RunStatus:
        """Return where the run's sets stand."""
        async with self._cursor() as cursor:
            await cursor.execute(
                "SELECT state, failure FROM runner_runs WHERE run_id = %s", (run_id,)
            )
            row = await cursor.fetchone()
            if row is None:
                raise QueueError(f"the queue has no run {run_id}")
            state, failure = row
            await cursor.execute(
                "SELECT state, count(*), "
                "count(DISTINCT worker) FILTER (WHERE lease_expires > now()) "
                "FROM runner_game_sets WHERE run_id = %s GROUP BY state",
                (run_id,),
            )
            counts = await cursor.fetchall()
            await cursor.execute(
                "SELECT set_index, error FROM runner_game_sets "
                "WHERE run_id = %s AND state = 'failed' ORDER BY set_index",
                (run_id,),
            )
            failed = [(int(index), str(error)) for index, error in await cursor.fetchall()]
        sets = {str(name): int(count) for name, count, _ in counts}
        workers = sum(int(live) for name, _, live in counts if name == "claimed")
        return RunStatus(state, failure, sets, workers, failed)

    @_reconnecting
    async def results_after(self, run_id: str, seq: int, limit: int = 500) -> list[ReportedGame]:
        """Return the run's results accepted after sequence number ``seq``, in order."""
        rows = await self._fetch(
            "SELECT seq, game_number, worker, result, replay, stderr FROM runner_game_results "
            "WHERE run_id = %s AND seq > %s ORDER BY seq LIMIT %s",
            (run_id, seq, limit),
        )
        return [
            ReportedGame(int(s), int(number), worker, result, replay, stderr)
            for s, number, worker, result, replay, stderr in rows
        ]

    @_reconnecting
    async def messages_after(self, run_id: str, seq: int) -> list[tuple[int, str, str]]:
        """Return ``(seq, worker, text)`` of the run's messages after ``seq``."""
        rows = await self._fetch(
            "SELECT seq, worker, text FROM runner_messages WHERE run_id = %s AND seq > %s "
            "ORDER BY seq",
            (run_id, seq),
        )
        return [(int(s), str(worker), str(text)) for s, worker, text in rows]

    @_reconnecting
    async def cancel_pending(self, run_id: str) -> int:
        """Cancel the run's sets no worker holds (its SPRT decided); return how many.
        Sets being played finish."""
        async with self._cursor() as cursor:
            await cursor.execute(
                "UPDATE runner_game_sets SET state = 'cancelled' "
                "WHERE run_id = %s AND (state = 'pending' OR (state = 'claimed' "
                "AND lease_expires <= now()))",
                (run_id,),
            )
            return int(cursor.rowcount)

    @_reconnecting
    async def finish_run(self, run_id: str) -> None:
        """Mark an open run finished (every set is done, failed or cancelled)."""
        await self._fetch(
            "UPDATE runner_runs SET state = 'finished' WHERE run_id = %s AND state = 'open'",
            (run_id,),
        )

    # ------------------------------------------------------------------ workers

    @_reconnecting
    async def claim(
        self,
        worker: str,
        lease: float,
        *,
        run_id: str | None = None,
        skip_runs: Collection[str] = (),
    ) -> ClaimedSet | None:
        """Claim the first pending set (or one whose lease expired), oldest run first,
        for ``worker`` for ``lease`` seconds; ``None`` when there is none.

        Sets locked by another claim in flight are skipped, not waited for. The run's
        state is not looked at: a run that is not open has no pending set
        (:meth:`fail_run`, :meth:`cancel_pending`), and joining the runs made the
        planner sort every open set instead of walking the index to the first one.
        """
        rows = await self._fetch(
            """UPDATE runner_game_sets AS s
               SET state = 'claimed', worker = %(worker)s, attempts = s.attempts + 1,
                   lease_expires = now() + make_interval(secs => %(lease)s)
               WHERE (s.run_id, s.set_index) = (
                   SELECT c.run_id, c.set_index FROM runner_game_sets AS c
                   WHERE c.state IN ('pending', 'claimed')
                     AND (c.state = 'pending' OR c.lease_expires < now())
                     AND (%(run)s::text IS NULL OR c.run_id = %(run)s::text)
                     AND NOT (c.run_id = ANY(%(skip)s::text[]))
                   ORDER BY c.position, c.set_index
                   FOR UPDATE OF c SKIP LOCKED
                   LIMIT 1)
               RETURNING s.run_id, s.set_index, s.games, s.attempts""",
            {"worker": worker, "lease": lease, "run": run_id, "skip": list(skip_runs)},
        )
        if not rows:
            return None
        claimed_run, index, games, attempts = rows[0]
        return ClaimedSet(claimed_run, int(index), list(games), int(attempts))

    @_reconnecting
    async def renew(self, worker: str, lease: float) -> set[tuple[str, int]]:
        """Extend the leases ``worker`` still holds by ``lease`` seconds from now; return
        those sets (a set missing from it was reclaimed after its lease expired)."""
        rows = await self._fetch(
            "UPDATE runner_game_sets SET lease_expires = now() + make_interval(secs => %s) "
            "WHERE worker = %s AND state = 'claimed' RETURNING run_id, set_index",
            (lease, worker),
        )
        return {(str(run), int(index)) for run, index in rows}

    @_reconnecting
    async def reported_games(self, run_id: str, numbers: Collection[int]) -> set[int]:
        """Return which of the games ``numbers`` of the run have a result already."""
        rows = await self._fetch(
            "SELECT game_number FROM runner_game_results "
            "WHERE run_id = %s AND game_number = ANY(%s)",
            (run_id, list(numbers)),
        )
        return {int(number) for (number,) in rows}

    @_reconnecting
    async def report_game(
        self,
        run_id: str,
        game_number: int,
        worker: str,
        result: Mapping[str, Any],
        *,
        replay: bytes | None = None,
        stderr: Mapping[str, str] | None = None,
    ) -> bool:
        """Keep a game's result; return False when the game had one already (a late
        report of a reclaimed set), which is then left as it was."""
        async with self._cursor(transaction=True) as cursor:
            # The run's row lock orders the results: seq is taken and committed under it.
            await cursor.execute(
                "SELECT reported FROM runner_runs WHERE run_id = %s FOR UPDATE", (run_id,)
            )
            row = await cursor.fetchone()
            if row is None:
                raise QueueError(f"the queue has no run {run_id}")
            seq = int(row[0]) + 1
            await cursor.execute(
                "INSERT INTO runner_game_results "
                "(run_id, game_number, seq, worker, result, replay, stderr) "
                "VALUES (%s, %s, %s, %s, %s, %s, %s) ON CONFLICT (run_id, game_number) DO NOTHING",
                (run_id, game_number, seq, worker, Jsonb(result), replay, Jsonb(stderr or {})),
            )
            if cursor.rowcount != 1:
                return False
            await cursor.execute(
                "UPDATE runner_runs SET reported = %s WHERE run_id = %s", (seq, run_id)
            )
            return True

    @_reconnecting
    async def finish_set(
        self,
        run_id: str,
        set_index: int,
        worker: str,
        *,
        error: str | None = None,
        cancelled: bool = False,
    ) -> bool:
        """Mark a set ``worker`` holds done: played, failed (with ``error``), or cancelled
        (its run failed on it); return False when the worker no longer held it."""
        state = "cancelled" if cancelled else "done" if error is None else "failed"
        rows = await self._fetch(
            "UPDATE runner_game_sets SET state = %s, error = %s, lease_expires = NULL "
            "WHERE run_id = %s AND set_index = %s AND worker = %s AND state = 'claimed' "
            "RETURNING set_index",
            (state, error, run_id, set_index, worker),
        )
        return bool(rows)

    @_reconnecting
    async def release_set(
        self, run_id: str, set_index: int, worker: str, *, count_attempt: bool = False
    ) -> None:
        """Give a set ``worker`` holds back to the queue (pending): as if never claimed
        (Ctrl-C), or with ``count_attempt`` as a failed attempt."""
        await self._fetch(
            "UPDATE runner_game_sets SET state = 'pending', worker = NULL, "
            "lease_expires = NULL, attempts = attempts - %s "
            "WHERE run_id = %s AND set_index = %s AND worker = %s AND state = 'claimed'",
            (0 if count_attempt else 1, run_id, set_index, worker),
        )

    @_reconnecting
    async def fail_run(self, run_id: str, failure: Mapping[str, Any]) -> None:
        """Stop the run: it failed (``failure`` says how) and the sets no worker holds
        are cancelled; sets in flight finish. The first failure is kept."""
        async with self._cursor(transaction=True) as cursor:
            await cursor.execute(
                "UPDATE runner_runs SET state = 'failed', failure = %s "
                "WHERE run_id = %s AND state = 'open'",
                (Jsonb(failure), run_id),
            )
            await cursor.execute(
                "UPDATE runner_game_sets SET state = 'cancelled' WHERE run_id = %s "
                "AND (state = 'pending' OR (state = 'claimed' AND lease_expires <= now()))",
                (run_id,),
            )

    @_reconnecting
    async def say(self, run_id: str, worker: str, text: str) -> None:
        """Leave a message about the run for its coordinator."""
        async with self._cursor(transaction=True) as cursor:
            await cursor.execute(
                "UPDATE runner_runs SET messages = messages + 1 WHERE run_id = %s "
                "RETURNING messages",
                (run_id,),
            )
            row = await cursor.fetchone()
            if row is None:
                return
            await cursor.execute(
                "INSERT INTO runner_messages (run_id, seq, worker, text) VALUES (%s, %s, %s, %s)",
                (run_id, int(row[0]), worker, text),
            )
