"""``SqliteStore``: the embedded default store, one SQLite file through the stdlib.

The file runs in WAL mode with ``synchronous=NORMAL``: a commit appends to the WAL
without an fsync, so it costs tens of microseconds and survives a crash of the process
(``kill -9``); only a power loss or an OS crash may lose the last commits (SQLite: WAL,
"Performance Considerations"). The connection is opened in autocommit mode and every
write method is one explicit ``BEGIN IMMEDIATE ... COMMIT``.
"""

from __future__ import annotations

import contextlib
import os
import sqlite3
from collections.abc import Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any

from botarena.server.store._errors import StoreError
from botarena.server.store._records import StoredEvent, StoredMatch, StoredResult, StoredSeat
from botarena.server.store._schema import MIGRATIONS, Migration, migrate

__all__ = ["MEMORY", "SqliteStore", "default_database_path"]

MEMORY = ":memory:"
"""The path of a throwaway in-memory database."""

_MATCH_COLUMNS = (
    "match_id, sequence, game, seat_count, seed, config, finished, state_version, "
    "created_time, end_time, end_reason, request_id"
)


def default_database_path(environ: Mapping[str, str] | None = None) -> Path:
    """Return the default database file: ``$XDG_DATA_HOME/botarena/botarena.db``, or
    ``~/.local/share/botarena/botarena.db`` when ``XDG_DATA_HOME`` is unset."""
    environ = os.environ if environ is None else environ
    base = environ.get("XDG_DATA_HOME") or str(Path.home() / ".local" / "share")
    return Path(base) / "botarena" / "botarena.db"


class SqliteStore:
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
            self._db = sqlite3.connect(self.path, isolation_level=None, check_same_thread=False)
        except (OSError, sqlite3.Error) as error:
            raise StoreError(f"cannot open the database {self.path}: {error}") from error
        try:
            self.journal_mode = str(self._db.execute("PRAGMA journal_mode=WAL").fetchone()[0])
            self._db.execute("PRAGMA synchronous=NORMAL")
            self._db.execute("PRAGMA foreign_keys=ON")
            self._db.execute("PRAGMA busy_timeout=5000")
            self.schema_version = migrate(self._db, migrations)
        except StoreError:
            self._db.close()
            raise
        except sqlite3.DatabaseError as error:
            self._db.close()
            raise StoreError(
                f"cannot use {self.path} as a botarena database ({error}); "
                "is it another program's file, or corrupt?"
            ) from error

    @property
    def connection(self) -> sqlite3.Connection:
        """The autocommit connection, for tables kept beside the core ones (the ladder's)."""
        return self._db

    @contextlib.contextmanager
    def transaction(self) -> Iterator[sqlite3.Connection]:
        """Run the block in one ``BEGIN IMMEDIATE`` transaction; roll back if it raises.

        Raises:
            StoreError: A constraint failed (the transaction is rolled back).
        """
        self._db.execute("BEGIN IMMEDIATE")
        try:
            yield self._db
        except sqlite3.IntegrityError as error:
            self._db.execute("ROLLBACK")
            raise StoreError(str(error)) from error
        except BaseException:
            self._db.execute("ROLLBACK")
            raise
        self._db.execute("COMMIT")

    # ------------------------------------------------------------------ writes

    def create_match(self, match: StoredMatch, events: Sequence[StoredEvent]) -> None:
        """Store a new match with its seats and first log entries (see ``Store``)."""
        result = match.result
        with self.transaction() as db:
            db.execute(
                f"INSERT INTO matches ({_MATCH_COLUMNS}) "
                "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                (
                    match.match_id,
                    match.sequence,
                    match.game,
                    match.seat_count,
                    str(match.seed),
                    match.config,
                    False,
                    match.state_version,
                    match.created_time,
                    None,
                    None,
                    match.request_id,
                ),
            )
            db.executemany(
                "INSERT INTO match_seats (match_id, seat, name, token_hash, time_bank, "
                "timeouts, illegal_moves, stand_in_moves, forfeit_reason) "
                "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
                [
                    (
                        match.match_id,
                        seat.seat,
                        seat.name,
                        seat.token_hash,
                        seat.time_bank,
                        seat.timeouts,
                        seat.illegal_moves,
                        seat.stand_in_moves,
                        seat.forfeit_reason,
                    )
                    for seat in match.seats
                ],
            )
            self._write(db, match.match_id, events, (), result)

    def record(
        self,
        match_id: str,
        events: Sequence[StoredEvent],
        seats: Sequence[StoredSeat],
        result: StoredResult | None = None,
    ) -> None:
        """Append entries, update seats, store a result, in one transaction (see ``Store``)."""
        with self.transaction() as db:
            self._write(db, match_id, events, seats, result)

    @staticmethod
    def _write(
        db: sqlite3.Connection,
        match_id: str,
        events: Sequence[StoredEvent],
        seats: Sequence[StoredSeat],
        result: StoredResult | None,
    ) -> None:
        db.executemany(
            "INSERT INTO events (match_id, state_version, time, kind, seat, move, think_time, "
            "by_timeout, reason, request_id) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            [
                (
                    match_id,
                    event.state_version,
                    event.time,
                    event.kind,
                    event.seat,
                    event.move,
                    event.think_time,
                    event.by_timeout,
                    event.reason,
                    event.request_id,
                )
                for event in events
            ],
        )
        db.executemany(
            "UPDATE match_seats SET time_bank = ?, timeouts = ?, illegal_moves = ?, "
            "stand_in_moves = ?, forfeit_reason = ?, token_hash = ? "
            "WHERE match_id = ? AND seat = ?",
            [
                (
                    seat.time_bank,
                    seat.timeouts,
                    seat.illegal_moves,
                    seat.stand_in_moves,
                    seat.forfeit_reason,
                    seat.token_hash,
                    match_id,
                    seat.seat,
                )
                for seat in seats
            ],
        )
        if events:
            updated = db.execute(
                "UPDATE matches SET state_version = ? WHERE match_id = ?",
                (events[-1].state_version, match_id),
            )
            if updated.rowcount != 1:
                raise StoreError(f"no match {match_id!r} in the store")
        if result is None:
            return
        db.executemany(
            "INSERT INTO results (match_id, seat, score, rank, forfeited) VALUES (?, ?, ?, ?, ?)",
            [
                (match_id, seat, score, rank, forfeited)
                for seat, (score, rank, forfeited) in enumerate(
                    zip(result.scores, result.ranks, result.forfeited, strict=True)
                )
            ],
        )
        db.execute(
            "UPDATE matches SET finished = ?, end_time = ?, end_reason = ? WHERE match_id = ?",
            (True, result.end_time, result.reason, match_id),
        )

    # ------------------------------------------------------------------ reads

    def load_match(self, match_id: str) -> StoredMatch | None:
        """Return the match ``match_id``, or ``None`` (see ``Store``)."""
        rows = self._db.execute(
            f"SELECT {_MATCH_COLUMNS} FROM matches WHERE match_id = ?", (match_id,)
        ).fetchall()
        matches = self._matches(rows)
        return matches[0] if matches else None

    def events(self, match_id: str) -> list[StoredEvent]:
        """Return the event log of a match in version order (see ``Store``)."""
        rows = self._db.execute(
            "SELECT state_version, time, kind, seat, move, think_time, by_timeout, reason, "
            "request_id FROM events WHERE match_id = ? ORDER BY state_version",
            (match_id,),
        )
        return [
            StoredEvent(
                state_version=version,
                time=time,
                kind=kind,
                seat=seat,
                move=None if move is None else bytes(move),
                think_time=think_time,
                by_timeout=bool(by_timeout),
                reason=reason,
                request_id=request_id,
            )
            for version, time, kind, seat, move, think_time, by_timeout, reason, request_id in rows
        ]

    def unfinished_matches(self) -> list[StoredMatch]:
        """Return every match without a result, oldest first (see ``Store``)."""
        rows = self._db.execute(
            f"SELECT {_MATCH_COLUMNS} FROM matches WHERE finished = ? ORDER BY sequence",
            (False,),
        ).fetchall()
        return self._matches(rows)

    def list_matches(
        self,
        *,
        game: str = "",
        finished: bool | None = None,
        end_reason: str = "",
        before_sequence: int | None = None,
        limit: int = 50,
    ) -> list[StoredMatch]:
        """Return matches newest first, filtered (see ``Store``)."""
        conditions: list[str] = []
        parameters: list[Any] = []
        if game:
            conditions.append("game = ?")
            parameters.append(game)
        if finished is not None:
            conditions.append("finished = ?")
            parameters.append(finished)
        if end_reason:
            conditions.append("end_reason = ?")
            parameters.append(end_reason)
        if before_sequence is not None:
            conditions.append("sequence < ?")
            parameters.append(before_sequence)
        where = f"WHERE {' AND '.join(conditions)}" if conditions else ""
        rows = self._db.execute(
            f"SELECT {_MATCH_COLUMNS} FROM matches {where} ORDER BY sequence DESC LIMIT ?",
            (*parameters, limit),
        ).fetchall()
        return self._matches(rows)

    def last_sequence(self) -> int:
        """Return the largest match sequence number stored (see ``Store``)."""
        row = self._db.execute("SELECT COALESCE(MAX(sequence), 0) FROM matches").fetchone()
        return int(row[0])

    def close(self) -> None:
        """Close the connection (see ``Store``)."""
        self._db.close()

    def _matches(self, rows: Sequence[Any]) -> list[StoredMatch]:
        if not rows:
            return []
        ids = [row[0] for row in rows]
        marks = ", ".join("?" * len(ids))
        seats: dict[str, list[StoredSeat]] = {match_id: [] for match_id in ids}
        for match_id, *fields in self._db.execute(
            "SELECT match_id, seat, name, token_hash, time_bank, timeouts, illegal_moves, "
            "stand_in_moves, forfeit_reason FROM match_seats "
            f"WHERE match_id IN ({marks}) ORDER BY match_id, seat",
            ids,
        ):
            seats[match_id].append(StoredSeat(*fields))
        results: dict[str, list[tuple[int, int, bool]]] = {match_id: [] for match_id in ids}
        for match_id, score, rank, forfeited in self._db.execute(
            "SELECT match_id, score, rank, forfeited FROM results "
            f"WHERE match_id IN ({marks}) ORDER BY match_id, seat",
            ids,
        ):
            results[match_id].append((score, rank, bool(forfeited)))
        matches: list[StoredMatch] = []
        for row in rows:
            match_id, sequence, game, seat_count, seed, config, finished, version = row[:8]
            created_time, end_time, end_reason, request_id = row[8:]
            result = None
            if finished:
                scores, ranks, forfeited = zip(*results[match_id], strict=True)
                result = StoredResult(
                    scores=tuple(scores),
                    ranks=tuple(ranks),
                    forfeited=tuple(forfeited),
                    reason=end_reason or "",
                    end_time=end_time,
                )
            matches.append(
                StoredMatch(
                    match_id=match_id,
                    sequence=sequence,
                    game=game,
                    seat_count=seat_count,
                    seed=int(seed),
                    config=bytes(config),
                    created_time=created_time,
                    state_version=version,
                    seats=tuple(seats[match_id]),
                    result=result,
                    request_id=request_id,
                )
            )
        return matches

    def match_created_by(self, request_id: str) -> str | None:
        """Return the match a CreateMatch with ``request_id`` made (see ``Store``)."""
        row = self._db.execute(
            "SELECT match_id FROM matches WHERE request_id = ? ORDER BY sequence LIMIT 1",
            (request_id,),
        ).fetchone()
        return None if row is None else str(row[0])
