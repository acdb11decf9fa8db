"""SqliteStore: migrations, refusal of newer schemas and foreign files, round trips, WAL."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from botarena.server.store import (
    MATCHES_V1,
    MEMORY,
    MIGRATIONS,
    SchemaTooNewError,
    SqliteStore,
    StoredEvent,
    StoredMatch,
    StoredResult,
    StoredSeat,
    StoreError,
    default_database_path,
)

_EXTRA = ("CREATE TABLE notes (match_id TEXT NOT NULL REFERENCES matches (match_id), note TEXT)",)


def _match(match_id: str = "m1", sequence: int = 1, game: str = "qwirkle") -> StoredMatch:
    return StoredMatch(
        match_id=match_id,
        sequence=sequence,
        game=game,
        seat_count=2,
        seed=2**64 - 1,  # the protocol's seed is a uint64: beyond SQLite's INTEGER
        config=b"\x00config\xff",
        created_time=1.7e9,
        state_version=0,
        seats=(StoredSeat(0, "alice", "aa" * 32, 5.0), StoredSeat(1, "bob", "bb" * 32, 5.0)),
    )


_START = StoredEvent(state_version=0, time=1.7e9, kind="match_started")


def _move(version: int, seat: int) -> StoredEvent:
    return StoredEvent(
        state_version=version,
        time=1.7e9 + version,
        kind="move_applied",
        seat=seat,
        move=bytes([version, 0, 255]),
        think_time=0.25,
        by_timeout=version % 2 == 0,
    )


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


def test_a_database_at_version_n_gets_the_later_migrations_only(tmp_path: Path) -> None:
    path = tmp_path / "db"
    store = SqliteStore(path)
    store.create_match(_match(), [_START])
    store.close()
    upgraded = SqliteStore(path, migrations=(*MIGRATIONS, _EXTRA))
    assert upgraded.schema_version == len(MIGRATIONS) + 1
    upgraded.connection.execute("INSERT INTO notes VALUES ('m1', 'kept')")
    assert upgraded.load_match("m1") == _match()  # the earlier migrations were not run again
    versions = [row[0] for row in upgraded.connection.execute("SELECT version FROM schema_version")]
    assert versions == list(range(1, len(MIGRATIONS) + 2))
    upgraded.close()


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


def test_a_failing_migration_is_rolled_back(tmp_path: Path) -> None:
    path = tmp_path / "db"
    with pytest.raises(StoreError, match="schema migration 2 failed"):
        SqliteStore(path, migrations=(MATCHES_V1, ("CREATE TABLE t (x TEXT)", "NOT SQL")))
    assert "t" not in _tables(path)
    assert SqliteStore(path, migrations=(MATCHES_V1,)).schema_version == 1


def test_a_newer_schema_is_refused_with_a_clear_message(tmp_path: Path) -> None:
    path = tmp_path / "db"
    SqliteStore(path, migrations=(MATCHES_V1, _EXTRA)).close()
    with pytest.raises(SchemaTooNewError, match="schema version 2, newer than this botarena"):
        SqliteStore(path, migrations=(MATCHES_V1,))


def test_a_file_that_is_no_database_is_refused_with_a_clear_message(tmp_path: Path) -> None:
    path = tmp_path / "notes.txt"
    path.write_bytes(b"this is not a database, just text " * 200)
    with pytest.raises(StoreError, match=r"cannot use .*notes\.txt as a botarena database"):
        SqliteStore(path)


def test_a_match_round_trips_with_its_log_seats_and_result() -> None:
    store = SqliteStore(MEMORY)
    store.create_match(_match(), [_START])
    store.record("m1", [_move(1, 0), _move(2, 1)], [StoredSeat(0, "alice", "aa" * 32, 3.5, 1, 2)])
    result = StoredResult((10, 7), (1, 2), (False, True), "bag_empty", 1.8e9)
    finish = StoredEvent(state_version=3, time=1.8e9, kind="match_finished", reason="bag_empty")
    store.record("m1", [finish], [], result)
    loaded = store.load_match("m1")
    assert loaded is not None
    assert loaded.finished
    assert loaded.result == result
    assert loaded.state_version == 3
    assert loaded.seed == 2**64 - 1
    assert loaded.config == b"\x00config\xff"
    assert loaded.seats[0] == StoredSeat(0, "alice", "aa" * 32, 3.5, 1, 2)
    assert loaded.seats[1] == StoredSeat(1, "bob", "bb" * 32, 5.0)
    assert store.events("m1") == [_START, _move(1, 0), _move(2, 1), finish]
    assert store.unfinished_matches() == []


def test_a_taken_version_is_refused_and_nothing_of_the_transaction_is_kept() -> None:
    store = SqliteStore(MEMORY)
    store.create_match(_match(), [_START])
    with pytest.raises(StoreError):
        store.record("m1", [_move(1, 0), _START], [StoredSeat(0, "alice", "aa" * 32, 0.0)])
    assert store.events("m1") == [_START]
    assert store.load_match("m1") == _match()


def test_recording_for_an_unknown_match_fails() -> None:
    store = SqliteStore(MEMORY)
    with pytest.raises(StoreError):
        store.record("nope", [_move(1, 0)], [])


def test_matches_list_newest_first_with_filters_and_paging() -> None:
    store = SqliteStore(MEMORY)
    for sequence in range(1, 6):
        game = "qwixx" if sequence % 2 else "qwirkle"
        store.create_match(_match(f"m{sequence}", sequence, game), [_START])
    store.record("m4", [], [], StoredResult((1, 0), (1, 2), (False, False), "end", 1.8e9))
    store.record("m2", [], [], StoredResult((0, 0), (2, 2), (True, True), "abandoned", 1.8e9))

    def ids(matches: list[StoredMatch]) -> list[str]:
        return [match.match_id for match in matches]

    assert ids(store.list_matches()) == ["m5", "m4", "m3", "m2", "m1"]
    assert ids(store.list_matches(game="qwirkle")) == ["m4", "m2"]
    assert ids(store.list_matches(finished=True)) == ["m4", "m2"]
    assert ids(store.list_matches(end_reason="abandoned")) == ["m2"]
    assert ids(store.list_matches(finished=False, before_sequence=4, limit=2)) == ["m3", "m1"]
    assert store.last_sequence() == 5
    assert [match.match_id for match in store.unfinished_matches()] == ["m1", "m3", "m5"]


def test_data_survives_closing_and_reopening_the_file(tmp_path: Path) -> None:
    store = SqliteStore(tmp_path / "db")
    store.create_match(_match(), [_START])
    store.record("m1", [_move(1, 0)], [])
    store.close()
    again = SqliteStore(tmp_path / "db")
    assert again.events("m1") == [_START, _move(1, 0)]
    assert again.load_match("nope") is None


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
