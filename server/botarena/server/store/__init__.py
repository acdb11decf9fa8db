"""Persistence: matches, append-only event logs, results, bots and ratings (SQLite default).

The server persists through the small :class:`Store` protocol; :class:`SqliteStore` is
the embedded implementation (stdlib ``sqlite3``, WAL, one file), :class:`PostgresStore`
the shared one several server nodes run on (psycopg 3 with a pool; leases say which node
runs each match). :func:`open_store` picks one from a ``--db`` value. The store knows no
engine types: configurations and moves arrive as bytes, encoded by the match layer's
injected codec (docs/decisions.md: Persistence). The schema is one list of forward
migrations for both back ends, in :mod:`botarena.server.store._schema`. Never imports
grpc (DESIGN.md: Persistence and scale).
"""

from __future__ import annotations

from botarena.server.store._database import is_postgres_url, redacted_url
from botarena.server.store._errors import (
    DatabaseUnavailableError,
    LeadLostError,
    LeaseLostError,
    SchemaTooNewError,
    StoreError,
)
from botarena.server.store._postgres import PostgresStore
from botarena.server.store._protocol import Store
from botarena.server.store._records import (
    Lease,
    LeaseHolder,
    StoredEvent,
    StoredMatch,
    StoredResult,
    StoredSeat,
)
from botarena.server.store._schema import MATCHES_V1, MIGRATIONS, Migration, PerDialect, migrate
from botarena.server.store._sql import SqlStore
from botarena.server.store._sqlite import MEMORY, SqliteStore, default_database_path

__all__ = [
    "MATCHES_V1",
    "MEMORY",
    "MIGRATIONS",
    "DatabaseUnavailableError",
    "LeadLostError",
    "Lease",
    "LeaseHolder",
    "LeaseLostError",
    "Migration",
    "PerDialect",
    "PostgresStore",
    "SchemaTooNewError",
    "SqlStore",
    "SqliteStore",
    "Store",
    "StoreError",
    "StoredEvent",
    "StoredMatch",
    "StoredResult",
    "StoredSeat",
    "default_database_path",
    "is_postgres_url",
    "migrate",
    "open_store",
    "redacted_url",
]


def open_store(target: str) -> SqlStore:
    """Open the store ``target`` names: a ``postgresql://`` URL, else a SQLite file (or
    ``":memory:"``).

    Raises:
        StoreError: It cannot be opened or used (see each store).
    """
    if is_postgres_url(target):
        return PostgresStore(target)
    return SqliteStore(target)
