"""``SqliteStore``: the embedded default store, one SQLite file through the stdlib.

The file runs in WAL mode with ``synchronous=NORMAL``: a commit appends to the WAL
without an fsync, so it costs tens of microseconds and survives a crash of the process
(``kill -9``); only a power loss or an OS crash may lose the last commits (SQLite: WAL,
"Performance Considerations"). The connection is opened in autocommit mode and every
write method is one explicit ``BEGIN IMMEDIATE ... COMMIT``.
"""

from __future__ import annotations

import os
import sqlite3
from collections.abc import Mapping, Sequence
from pathlib import Path

from botarena.server.store._database import SqliteDatabase
from botarena.server.store._errors import StoreError
from botarena.server.store._schema import MIGRATIONS, Migration
from botarena.server.store._sql import SqlStore

__all__ = ["MEMORY", "SqliteStore", "default_database_path"]

MEMORY = ":memory:"
"""The path of a throwaway in-memory database."""


def default_database_path(environ: Mapping[str, str] | None = None) -> Path:
    """Return the default database file: ``$XDG_DATA_HOME/botarena/botarena.db``, or
    ``~/.local/share/botarena/botarena.db`` when ``XDG_DATA_HOME`` is unset."""
    environ = os.environ if environ is None else environ
    base = environ.get("XDG_DATA_HOME") or str(Path.home() / ".local" / "share")
    return Path(base) / "botarena" / "botarena.db"


class SqliteStore(SqlStore):
    """The :class:`~botarena.server.store.Store` on one SQLite file.

    Use it from one thread at a time (the server's event loop); it may be created in
    another thread.

    Args:
        path: The database file (created with its folder if missing), or ``":memory:"``.
        migrations: The schema migrations to apply; the default is the full schema.

    Raises:
        StoreError: The file is not a database, is corrupt, cannot be created, or has a
            newer schema than ``migrations``.
    """

    def __init__(
        self, path: str | os.PathLike[str], *, migrations: Sequence[Migration] = MIGRATIONS
    ) -> None:
        self.path = str(path)
        try:
            if self.path != MEMORY:
                Path(self.path).parent.mkdir(parents=True, exist_ok=True)
            db = sqlite3.connect(self.path, isolation_level=None, check_same_thread=False)
        except (OSError, sqlite3.Error) as error:
            raise StoreError(f"cannot open the database {self.path}: {error}") from error
        try:
            self.journal_mode = str(db.execute("PRAGMA journal_mode=WAL").fetchone()[0])
            db.execute("PRAGMA synchronous=NORMAL")
            db.execute("PRAGMA foreign_keys=ON")
            db.execute("PRAGMA busy_timeout=5000")
            super().__init__(SqliteDatabase(db), migrations=migrations)
        except StoreError:
            db.close()
            raise
        except sqlite3.DatabaseError as error:
            db.close()
            raise StoreError(
                f"cannot use {self.path} as a botarena database ({error}); "
                "is it another program's file, or corrupt?"
            ) from error

    @property
    def connection(self) -> sqlite3.Connection:
        """The autocommit connection, for tools and tests that look at the file."""
        database = self.database
        assert isinstance(database, SqliteDatabase)
        return database.connection
