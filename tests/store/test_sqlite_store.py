"""SqliteStore alone: WAL, foreign files, an old file upgraded, the default path (the
Store itself is tested on both back ends in test_store_conformance.py)."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from botarena.server.store import (
    MIGRATIONS,
    SqliteStore,
    StoredEvent,
    StoreError,
    default_database_path,
)

_START = StoredEvent(state_version=0, time=1.7e9, kind="match_started")


def _tables(path: Path) -> set[str]:
    with sqlite3.connect(path) as db:
        return {row[0] for row in db.execute("SELECT name FROM sqlite_master WHERE type='table'")}


def test_an_empty_file_gets_every_migration_and_wal(tmp_path: Path) -> None:
    store = SqliteStore(tmp_path / "sub" / "botarena.db")
    assert store.schema_version == len(MIGRATIONS)
    assert store.journal_mode == "wal"
    store.close()
    assert {"matches", "match_seats", "events", "results", "schema_version"} <= _tables(
        tmp_path / "sub" / "botarena.db"
    )


def test_a_log_written_before_request_ids_were_kept_loads_after_the_upgrade(
    tmp_path: Path,
) -> None:
    path = tmp_path / "db"
    old = SqliteStore(path, migrations=MIGRATIONS[:2])  # the schema of the last release
    old.connection.execute(
        "INSERT INTO matches (match_id, sequence, game, seat_count, seed, config, finished, "
        "state_version, created_time) VALUES ('m1', 1, 'qwirkle', 2, '1', x'00', 0, 0, 1.7e9)"
    )
    old.connection.execute(
        "INSERT INTO events (match_id, state_version, time, kind, by_timeout) "
        "VALUES ('m1', 0, 1.7e9, 'match_started', 0)"
    )
    old.close()
    store = SqliteStore(path)
    assert store.events("m1") == [_START]  # no request_id: None
    resigned = StoredEvent(
        1, 1.7e9 + 1, "seat_forfeited", seat=0, reason="resigned", request_id="r1"
    )
    store.record("m1", [resigned], (), None)
    assert store.events("m1") == [_START, resigned]
    store.close()


def test_a_file_that_is_no_database_is_refused_with_a_clear_message(tmp_path: Path) -> None:
    path = tmp_path / "notes.txt"
    path.write_bytes(b"this is not a database, just text " * 200)
    with pytest.raises(StoreError, match=r"cannot use .*notes\.txt as a botarena database"):
        SqliteStore(path)


@pytest.mark.parametrize(
    ("environ", "expected"),
    [
        ({"XDG_DATA_HOME": "/data"}, Path("/data/botarena/botarena.db")),
        ({}, Path.home() / ".local/share/botarena/botarena.db"),
    ],
    ids=["xdg", "home"],
)
def test_the_default_database_is_under_the_user_data_dir(
    environ: dict[str, str], expected: Path
) -> None:
    assert default_database_path(environ) == expected
