"""The store's SQL, written once for both back ends (:mod:`._database` runs it).

:class:`SqlStore` implements the :class:`~botarena.server.store.Store` protocol over a
:class:`~botarena.server.store._database.Database`; ``SqliteStore`` and
``PostgresStore`` only open their database. Leases (several nodes on one PostgreSQL)
keep time by the database's clock, so nodes need not agree on theirs.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from botarena.server.store._database import NOW, Database, Session
from botarena.server.store._errors import LeaseLostError, StoreError
from botarena.server.store._records import (
    Lease,
    LeaseHolder,
    StoredEvent,
    StoredMatch,
    StoredResult,
    StoredSeat,
)
from botarena.server.store._schema import MIGRATIONS, Migration, migrate

if TYPE_CHECKING:
    from botarena.server.store.ladder import SqlLadderStore

__all__ = ["SqlStore"]

_MATCH_COLUMNS = (
    "match_id, sequence, game, seat_count, seed, config, finished, state_version, "
    "created_time, end_time, end_reason, request_id"
)


class SqlStore:
    """The :class:`~botarena.server.store.Store` on a :class:`Database`.

    Args:
        database: The database (its migrations are applied here).
        migrations: The schema migrations to apply; the default is the full schema.

    Raises:
        StoreError: The database has a newer schema than ``migrations``, or a migration
            failed.
    """

    def __init__(self, database: Database, *, migrations: Sequence[Migration] = MIGRATIONS) -> None:
        self.database = database
        self._now = NOW[database.dialect]
        self._sequence: int | None = None
        self.schema_version = migrate(database, migrations)

    # ------------------------------------------------------------------ writes

    def create_match(
        self, match: StoredMatch, events: Sequence[StoredEvent], *, lease: Lease | None = None
    ) -> None:
        """Store a new match with its seats and first log entries (see ``Store``)."""
        result = match.result
        with self.database.transaction() as db:
            db.run(
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
            db.run_many(
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
            if lease is not None:
                db.run(
                    "INSERT INTO match_leases (match_id, owner, address, expiry) "
                    f"VALUES (?, ?, ?, {self._now} + ?)",
                    (match.match_id, lease.owner, lease.address, lease.ttl),
                )
            self._write(db, match.match_id, events, (), result)

    def record(
        self,
        match_id: str,
        events: Sequence[StoredEvent],
        seats: Sequence[StoredSeat],
        result: StoredResult | None = None,
        *,
        lease: Lease | None = None,
    ) -> None:
        """Append entries, update seats, store a result, in one transaction (see ``Store``)."""
        with self.database.transaction() as db:
            if lease is not None:
                # The fence: the row lock this takes orders the write against any claim,
                # so a node whose lease was taken writes nothing (docs/decisions.md).
                kept = db.run(
                    f"UPDATE match_leases SET expiry = {self._now} + ? "
                    "WHERE match_id = ? AND owner = ?",
                    (lease.ttl, match_id, lease.owner),
                )
                if kept != 1:
                    raise LeaseLostError(match_id)
            self._write(db, match_id, events, seats, result)
            if lease is not None and result is not None:
                db.run("DELETE FROM match_leases WHERE match_id = ?", (match_id,))

    @staticmethod
    def _write(
        db: Session,
        match_id: str,
        events: Sequence[StoredEvent],
        seats: Sequence[StoredSeat],
        result: StoredResult | None,
    ) -> None:
        db.run_many(
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
        db.run_many(
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
            updated = db.run(
                "UPDATE matches SET state_version = ? WHERE match_id = ?",
                (events[-1].state_version, match_id),
            )
            if updated != 1:
                raise StoreError(f"no match {match_id!r} in the store")
        if result is None:
            return
        db.run_many(
            "INSERT INTO results (match_id, seat, score, rank, forfeited) VALUES (?, ?, ?, ?, ?)",
            [
                (match_id, seat, score, rank, forfeited)
                for seat, (score, rank, forfeited) in enumerate(
                    zip(result.scores, result.ranks, result.forfeited, strict=True)
                )
            ],
        )
        db.run(
            "UPDATE matches SET finished = ?, end_time = ?, end_reason = ? WHERE match_id = ?",
            (True, result.end_time, result.reason, match_id),
        )

    # ------------------------------------------------------------------ reads

    def load_match(self, match_id: str) -> StoredMatch | None:
        """Return the match ``match_id``, or ``None`` (see ``Store``)."""
        with self.database.session() as db:
            rows = db.rows(f"SELECT {_MATCH_COLUMNS} FROM matches WHERE match_id = ?", (match_id,))
            matches = self._matches(db, rows)
        return matches[0] if matches else None

    def events(self, match_id: str) -> list[StoredEvent]:
        """Return the event log of a match in version order (see ``Store``)."""
        with self.database.session() as db:
            rows = db.rows(
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
        with self.database.session() as db:
            rows = db.rows(
                f"SELECT {_MATCH_COLUMNS} FROM matches WHERE finished = ? ORDER BY sequence",
                (False,),
            )
            return self._matches(db, rows)

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
        with self.database.session() as db:
            rows = db.rows(
                f"SELECT {_MATCH_COLUMNS} FROM matches {where} ORDER BY sequence DESC LIMIT ?",
                (*parameters, limit),
            )
            return self._matches(db, rows)

    def last_sequence(self) -> int:
        """Return the largest match sequence number stored (see ``Store``)."""
        with self.database.session() as db:
            row = db.row("SELECT COALESCE(MAX(sequence), 0) FROM matches")
        return int(row[0]) if row is not None else 0

    def next_sequence(self) -> int:
        """Return a new match sequence number (see ``Store``)."""
        if self.database.dialect == "postgresql":
            with self.database.session() as db:
                row = db.row("SELECT nextval('match_sequence')")
            assert row is not None
            return int(row[0])
        # One process per SQLite file: its own counter, from the file's largest.
        if self._sequence is None:
            self._sequence = self.last_sequence()
        self._sequence += 1
        return self._sequence

    def close(self) -> None:
        """Close the connections (see ``Store``)."""
        self.database.close()

    @staticmethod
    def _matches(db: Session, rows: Sequence[Any]) -> list[StoredMatch]:
        if not rows:
            return []
        ids = [row[0] for row in rows]
        marks = ", ".join("?" * len(ids))
        seats: dict[str, list[StoredSeat]] = {match_id: [] for match_id in ids}
        for match_id, *fields in db.rows(
            "SELECT match_id, seat, name, token_hash, time_bank, timeouts, illegal_moves, "
            "stand_in_moves, forfeit_reason FROM match_seats "
            f"WHERE match_id IN ({marks}) ORDER BY match_id, seat",
            ids,
        ):
            seats[match_id].append(StoredSeat(*fields))
        results: dict[str, list[tuple[int, int, bool]]] = {match_id: [] for match_id in ids}
        for match_id, score, rank, forfeited in db.rows(
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
        with self.database.session() as db:
            row = db.row(
                "SELECT match_id FROM matches WHERE request_id = ? ORDER BY sequence LIMIT 1",
                (request_id,),
            )
        return None if row is None else str(row[0])

    # ------------------------------------------------------------------ leases

    def lease_holder(self, match_id: str) -> LeaseHolder | None:
        """Return who holds the lease of ``match_id``, or ``None`` (see ``Store``)."""
        with self.database.session() as db:
            row = db.row(
                f"SELECT owner, address, expiry < {self._now} FROM match_leases WHERE match_id = ?",
                (match_id,),
            )
        return None if row is None else LeaseHolder(str(row[0]), str(row[1]), bool(row[2]))

    def lease_holders(self, match_ids: Sequence[str]) -> dict[str, LeaseHolder]:
        """Return who holds the lease of each of ``match_ids`` (see ``Store``)."""
        if not match_ids:
            return {}
        marks = ", ".join("?" * len(match_ids))
        with self.database.session() as db:
            rows = db.rows(
                f"SELECT match_id, owner, address, expiry < {self._now} FROM match_leases "
                f"WHERE match_id IN ({marks})",
                list(match_ids),
            )
        return {str(row[0]): LeaseHolder(str(row[1]), str(row[2]), bool(row[3])) for row in rows}

    def renew_leases(self, lease: Lease) -> set[str]:
        """Extend every lease ``lease.owner`` holds; return their matches (see ``Store``)."""
        with self.database.transaction() as db:
            rows = db.rows(
                f"UPDATE match_leases SET expiry = {self._now} + ?, address = ? "
                "WHERE owner = ? RETURNING match_id",
                (lease.ttl, lease.address, lease.owner),
            )
        return {str(row[0]) for row in rows}

    def claim_leases(
        self, lease: Lease, *, match_id: str | None = None, limit: int = 100
    ) -> list[str]:
        """Take the expired leases, and the unfinished matches without one (see ``Store``)."""
        only = "" if match_id is None else "AND match_id = ? "
        only_parameters: tuple[Any, ...] = () if match_id is None else (match_id,)
        # Another node claiming at the same moment skips the rows this one locked.
        skip_locked = " FOR UPDATE SKIP LOCKED" if self.database.dialect == "postgresql" else ""
        with self.database.transaction() as db:
            taken = db.rows(
                f"UPDATE match_leases SET owner = ?, address = ?, expiry = {self._now} + ? "
                "WHERE match_id IN (SELECT match_id FROM match_leases "
                f"WHERE expiry < {self._now} {only}ORDER BY expiry LIMIT ?{skip_locked}) "
                "RETURNING match_id",
                (lease.owner, lease.address, lease.ttl, *only_parameters, limit),
            )
            unleased = db.rows(
                "INSERT INTO match_leases (match_id, owner, address, expiry) "
                f"SELECT match_id, ?, ?, {self._now} + ? FROM matches "
                "WHERE finished = ? AND match_id NOT IN (SELECT match_id FROM match_leases) "
                f"{only}ORDER BY sequence LIMIT ? ON CONFLICT DO NOTHING RETURNING match_id",
                (lease.owner, lease.address, lease.ttl, False, *only_parameters, limit),
            )
        return [str(row[0]) for row in (*taken, *unleased)]

    def fair_share(self, owner: str) -> int:
        """Return the expired leases ``owner`` may take over now (see ``Store``)."""
        with self.database.session() as db:
            row = db.row(
                f"SELECT COUNT(*) FROM match_leases WHERE expiry < {self._now}",
            )
            live = db.rows(
                f"SELECT DISTINCT owner FROM match_leases WHERE expiry >= {self._now}",
            )
        expired = int(row[0]) if row is not None else 0
        nodes = len({str(node) for (node,) in live} | {owner})
        return max(1, -(-expired // nodes))

    def take_back_leases(self, lease: Lease, *, match_id: str | None = None) -> list[str]:
        """Take the leases an earlier start of this node holds (see ``Store``)."""
        only = "" if match_id is None else " AND match_id = ?"
        only_parameters: tuple[Any, ...] = () if match_id is None else (match_id,)
        # No SKIP LOCKED: a write the earlier owner has in flight is waited for, then
        # fenced (its UPDATE ... WHERE owner = it finds the new owner).
        with self.database.transaction() as db:
            rows = db.rows(
                f"UPDATE match_leases SET owner = ?, expiry = {self._now} + ? "
                f"WHERE address = ? AND owner <> ?{only} RETURNING match_id",
                (lease.owner, lease.ttl, lease.address, lease.owner, *only_parameters),
            )
        return [str(row[0]) for row in rows]

    def release_leases(self, owner: str) -> None:
        """Let the leases of ``owner`` expire now (see ``Store``)."""
        with self.database.transaction() as db:
            db.run("UPDATE match_leases SET expiry = 0 WHERE owner = ?", (owner,))

    # ------------------------------------------------------------------ ladder

    def ladder_store(self) -> SqlLadderStore:
        """The ladder's tables, on this store's database (see ``Store``)."""
        from botarena.server.store.ladder import SqlLadderStore

        return SqlLadderStore(self.database)
