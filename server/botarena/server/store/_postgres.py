"""``PostgresStore``: the store on a PostgreSQL server, shared by several server nodes.

The same SQL and migrations as ``SqliteStore`` (:mod:`._sql`, :mod:`._schema`), over a
``psycopg_pool`` pool of autocommit connections (psycopg 3). Every write method is one
transaction committed before it returns, with the server's ``synchronous_commit`` (on by
default): a move is durable before the next decision is announced, as on SQLite
(docs/decisions.md: Persistence). Like ``SqliteStore`` it is called from the server's
event loop: a commit to a server on the same host takes a few hundred microseconds.
"""

from __future__ import annotations

from collections.abc import Sequence

from botarena.server.store._database import PostgresDatabase
from botarena.server.store._errors import StoreError
from botarena.server.store._schema import MIGRATIONS, Migration
from botarena.server.store._sql import SqlStore

__all__ = ["PostgresStore"]


class PostgresStore(SqlStore):
    """The :class:`~botarena.server.store.Store` on a PostgreSQL database.

    Args:
        url: ``postgresql://user[:password]@host:port/database``.
        migrations: The schema migrations to apply; the default is the full schema.
        max_connections: The size of the connection pool.

    Raises:
        StoreError: The server cannot be reached, or the database has a newer schema
            than ``migrations``.
    """

    def __init__(
        self,
        url: str,
        *,
        migrations: Sequence[Migration] = MIGRATIONS,
        max_connections: int = 4,
    ) -> None:
        self.url = url
        database = PostgresDatabase(url, max_connections=max_connections)
        try:
            super().__init__(database, migrations=migrations)
        except database.errors as error:
            database.close()
            raise StoreError(f"cannot use {url} as a botarena database: {error}") from error
        except BaseException:
            database.close()
            raise
