"""Persistence: matches, append-only event logs, results, bots and ratings (SQLite default).

The server persists through the small :class:`Store` protocol; :class:`SqliteStore` is
the embedded implementation (stdlib ``sqlite3``, WAL, one file). The store knows no
engine types: configurations and moves arrive as bytes, encoded by the match layer's
injected codec, so a PostgreSQL store can implement the same protocol later
(docs/decisions.md: Persistence). The schema is a list of forward migrations in
:mod:`botarena.server.store._schema`. Never imports grpc (DESIGN.md: Persistence and scale).
"""

from __future__ import annotations

from botarena.server.store._errors import SchemaTooNewError, StoreError
from botarena.server.store._protocol import Store
from botarena.server.store._records import StoredEvent, StoredMatch, StoredResult, StoredSeat
from botarena.server.store._schema import MATCHES_V1, MIGRATIONS, Migration, migrate
from botarena.server.store._sqlite import MEMORY, SqliteStore, default_database_path

__all__ = [
    "MATCHES_V1",
    "MEMORY",
    "MIGRATIONS",
    "Migration",
    "SchemaTooNewError",
    "SqliteStore",
    "Store",
    "StoreError",
    "StoredEvent",
    "StoredMatch",
    "StoredResult",
    "StoredSeat",
    "default_database_path",
    "migrate",
]
