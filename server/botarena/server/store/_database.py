"""One small interface over the two databases the store runs on: SQLite and PostgreSQL.

The store's SQL is written once, with ``?`` placeholders and portable types
(``_schema``); a :class:`Database` runs it on its back end. :class:`SqliteDatabase`
holds one autocommit ``sqlite3`` connection (used from one thread, the server's event
loop); :class:`PostgresDatabase` holds a ``psycopg_pool.ConnectionPool`` of autocommit
connections and turns ``?`` into psycopg's ``%s``. Reads run outside any transaction;
writes run in :meth:`Database.transaction`, which nests: a transaction opened inside
another (on the same thread) is part of it.

Both raise :class:`StoreError` for a broken constraint, so the code above never names a
driver's exceptions. :class:`PostgresDatabase` raises :class:`DatabaseUnavailableError`
when the server cannot be reached (it restarts): at once, without waiting for the pool,
for a moment after each such failure, so a server whose database is away answers its
callers quickly instead of stalling its event loop on every call.
"""

from __future__ import annotations

import contextlib
import re
import sqlite3
import threading
import time
from collections.abc import Iterator, Sequence
from typing import Any, Literal, Protocol

from botarena.server.store._errors import DatabaseUnavailableError, StoreError

__all__ = [
    "NOW",
    "Database",
    "Dialect",
    "PostgresDatabase",
    "Session",
    "SqliteDatabase",
    "is_postgres_url",
    "redacted_url",
]

Dialect = Literal["sqlite", "postgresql"]
"""The SQL dialect a :class:`Database` speaks."""

NOW: dict[Dialect, str] = {
    "sqlite": "((julianday('now') - 2440587.5) * 86400.0)",
    "postgresql": "EXTRACT(EPOCH FROM clock_timestamp())::DOUBLE PRECISION",
}
"""Epoch seconds by the database's clock, in SQL (leases keep time by it)."""

Row = tuple[Any, ...]


def is_postgres_url(target: str) -> bool:
    """Whether ``target`` names a PostgreSQL server (``postgresql://…``) rather than a
    SQLite file."""
    return target.startswith(("postgresql://", "postgres://"))


class Session(Protocol):
    """Statements on one connection (inside a transaction when it came from one)."""

    def rows(self, sql: str, parameters: Sequence[Any] = ()) -> list[Row]:
        """Run a query; return every row."""
        ...

    def row(self, sql: str, parameters: Sequence[Any] = ()) -> Row | None:
        """Run a query; return its first row, or ``None``."""
        ...

    def run(self, sql: str, parameters: Sequence[Any] = ()) -> int:
        """Run a statement; return how many rows it changed."""
        ...

    def run_many(self, sql: str, parameters: Sequence[Sequence[Any]]) -> None:
        """Run a statement once for each parameter tuple."""
        ...


class Database(Protocol):
    """A database the store's SQL runs on."""

    dialect: Dialect
    errors: tuple[type[Exception], ...]
    """The driver's own errors, for the messages of failed migrations."""

    def session(self) -> contextlib.AbstractContextManager[Session]:
        """A connection for reads (the open transaction's, when there is one)."""
        ...

    def transaction(self) -> contextlib.AbstractContextManager[Session]:
        """One transaction, committed when the block ends, rolled back if it raises.

        Raises:
            StoreError: A constraint failed (the transaction is rolled back).
        """
        ...

    def close(self) -> None:
        """Close every connection."""
        ...


class _SqliteSession:
    def __init__(self, connection: sqlite3.Connection) -> None:
        self._connection = connection

    def rows(self, sql: str, parameters: Sequence[Any] = ()) -> list[Row]:
        return self._connection.execute(sql, parameters).fetchall()

    def row(self, sql: str, parameters: Sequence[Any] = ()) -> Row | None:
        row: Row | None = self._connection.execute(sql, parameters).fetchone()
        return row

    def run(self, sql: str, parameters: Sequence[Any] = ()) -> int:
        return self._connection.execute(sql, parameters).rowcount

    def run_many(self, sql: str, parameters: Sequence[Sequence[Any]]) -> None:
        self._connection.executemany(sql, parameters)


class SqliteDatabase:
    """One autocommit ``sqlite3`` connection; transactions are ``BEGIN IMMEDIATE``.

    Use it from one thread at a time.
    """

    dialect: Dialect = "sqlite"
    errors: tuple[type[Exception], ...] = (sqlite3.Error,)

    def __init__(self, connection: sqlite3.Connection) -> None:
        self.connection = connection
        self._session = _SqliteSession(connection)

    @contextlib.contextmanager
    def session(self) -> Iterator[Session]:
        yield self._session

    @contextlib.contextmanager
    def transaction(self) -> Iterator[Session]:
        if self.connection.in_transaction:
            yield self._session  # part of the caller's transaction
            return
        self.connection.execute("BEGIN IMMEDIATE")
        try:
            yield self._session
        except sqlite3.IntegrityError as error:
            self.connection.execute("ROLLBACK")
            raise StoreError(str(error)) from error
        except BaseException:
            self.connection.execute("ROLLBACK")
            raise
        self.connection.execute("COMMIT")

    def close(self) -> None:
        self.connection.close()


_PLACEHOLDER = re.compile(r"\?")


class _PostgresSession:
    def __init__(self, connection: Any) -> None:
        self._connection = connection

    def rows(self, sql: str, parameters: Sequence[Any] = ()) -> list[Row]:
        rows: list[Row] = self._connection.execute(_postgres(sql), parameters).fetchall()
        return rows

    def row(self, sql: str, parameters: Sequence[Any] = ()) -> Row | None:
        row: Row | None = self._connection.execute(_postgres(sql), parameters).fetchone()
        return row

    def run(self, sql: str, parameters: Sequence[Any] = ()) -> int:
        count: int = self._connection.execute(_postgres(sql), parameters).rowcount
        return count

    def run_many(self, sql: str, parameters: Sequence[Sequence[Any]]) -> None:
        if parameters:
            with self._connection.cursor() as cursor:
                cursor.executemany(_postgres(sql), parameters)


_TRANSLATED: dict[str, str] = {}


def _postgres(sql: str) -> str:
    """``sql`` with psycopg's placeholders (the store's SQL has no literal ``?`` or ``%``)."""
    translated = _TRANSLATED.get(sql)
    if translated is None:
        translated = _TRANSLATED[sql] = _PLACEHOLDER.sub("%s", sql)
    return translated


# A borrow waits this long for a pooled connection (the event loop waits with it: the
# loop uses one connection at a time, so only a database away leaves none), and the pool
# gives up a reconnect attempt (its backoff doubles from 1 s) after _RECONNECT_TIMEOUT
# and starts a fresh one on the next borrow: a database back from a restart is used
# again within about a second (docs/decisions.md: Database faults).
_BORROW_TIMEOUT = 0.25
_RECONNECT_TIMEOUT = 1.0
# After the database was found away, calls fail at once for this long.
_AWAY_PAUSE = 0.5
# Every session: a transaction left open for 2 s (its node froze, SIGSTOP, between two
# statements) is ended by the server, which lets its row locks go (a lease's, the
# ladder's), and a statement waits at most 1 s for a row lock (the event loop waits with
# it) before it fails as the database being away for now; TCP keepalives notice a peer
# that vanished (docs/decisions.md: Database faults).
_SESSION_OPTIONS = "-c idle_in_transaction_session_timeout=2000 -c lock_timeout=1000"
_KEEPALIVES = {"keepalives": 1, "keepalives_idle": 5, "keepalives_interval": 2}


class PostgresDatabase:
    """A pool of autocommit psycopg connections to one PostgreSQL database.

    A statement that cannot reach the server raises :class:`DatabaseUnavailableError`;
    the pool replaces its broken connections by itself once the server is back.

    Args:
        url: ``postgresql://user@host:port/database`` (libpq's URI form).
        max_connections: The pool's size: the event loop needs one at a time, a
            heartbeat task or a tool a second.

    Raises:
        StoreError: The server cannot be reached.
    """

    dialect: Dialect = "postgresql"

    def __init__(self, url: str, *, max_connections: int = 4) -> None:
        import psycopg
        import psycopg.errors
        import psycopg_pool

        self.url = url
        self.errors: tuple[type[Exception], ...] = (psycopg.Error,)
        self._integrity_error = psycopg.IntegrityError
        # PoolTimeout is an OperationalError too: no connection within _BORROW_TIMEOUT.
        self._unreachable = psycopg.OperationalError
        # Waits that ran out, on a database that is there: no pause after them.
        self._timed_out = (psycopg.errors.LockNotAvailable, psycopg.errors.QueryCanceled)
        self._away_until = 0.0
        self._away_reason = ""
        self._local = threading.local()
        try:
            self._pool = psycopg_pool.ConnectionPool(
                url,
                min_size=1,
                max_size=max_connections,
                kwargs={"autocommit": True, "options": _SESSION_OPTIONS, **_KEEPALIVES},
                open=False,
                name="botarena",
                timeout=_BORROW_TIMEOUT,
                reconnect_timeout=_RECONNECT_TIMEOUT,
            )
            self._pool.open(wait=True, timeout=10.0)
        except (psycopg.Error, psycopg_pool.PoolTimeout) as error:
            raise StoreError(
                f"cannot connect to the database {redacted_url(url)}: {error}"
            ) from error

    @contextlib.contextmanager
    def _connection(self) -> Iterator[Any]:
        """A pooled connection; the server unreachable comes out as
        :class:`DatabaseUnavailableError` (at once while it was just found away)."""
        if time.monotonic() < self._away_until:
            raise DatabaseUnavailableError(self._away_reason)
        try:
            with self._pool.connection() as connection:
                yield connection
        except self._unreachable as error:
            detail = str(error).strip().splitlines()
            reason = (
                f"the database {redacted_url(self.url)} is unavailable: "
                f"{detail[0] if detail else type(error).__name__}"
            )
            if not isinstance(error, self._timed_out):
                self._away_until, self._away_reason = time.monotonic() + _AWAY_PAUSE, reason
            raise DatabaseUnavailableError(reason) from error

    @contextlib.contextmanager
    def session(self) -> Iterator[Session]:
        current: _PostgresSession | None = getattr(self._local, "session", None)
        if current is not None:
            yield current
            return
        with self._connection() as connection:
            yield _PostgresSession(connection)

    @contextlib.contextmanager
    def transaction(self) -> Iterator[Session]:
        current: _PostgresSession | None = getattr(self._local, "session", None)
        if current is not None:
            yield current  # part of the caller's transaction
            return
        with self._connection() as connection:
            session = _PostgresSession(connection)
            self._local.session = session
            try:
                with connection.transaction():
                    yield session
            except self._integrity_error as error:
                raise StoreError(str(error)) from error
            finally:
                self._local.session = None

    def close(self) -> None:
        self._pool.close()


def redacted_url(url: str) -> str:
    """``url`` without a password."""
    return re.sub(r"://([^:@/]+):[^@/]*@", r"://\1:***@", url)
