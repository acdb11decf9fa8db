"""The store's back ends as a fixture: each Store test runs on SQLite and PostgreSQL."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import NamedTuple

import pytest

from botarena.server.store import MIGRATIONS, Migration, PostgresStore, SqliteStore, SqlStore
from botarena.server.store.local_postgres import scratch_database


class StoreBackend(NamedTuple):
    """One empty database of a back end: a SQLite file or a PostgreSQL database."""

    name: str
    target: str

    def open(self, migrations: Sequence[Migration] = MIGRATIONS) -> SqlStore:
        """Open (again) the store on this database."""
        if self.name == "sqlite":
            return SqliteStore(self.target, migrations=migrations)
        return PostgresStore(self.target, migrations=migrations)


@pytest.fixture(params=["sqlite", "postgresql"])
def store_backend(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[StoreBackend]:
    """An empty database on each back end in turn (a database of its own per test)."""
    if request.param == "sqlite":
        yield StoreBackend("sqlite", str(tmp_path / "botarena.db"))
        return
    server_url: str = request.getfixturevalue("postgres_url")
    with scratch_database(server_url, "store") as url:
        yield StoreBackend("postgresql", url)
