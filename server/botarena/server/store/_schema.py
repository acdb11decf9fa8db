"""The database schema as ordered forward migrations, and the code that applies them.

Migration ``n`` (1-based) is ``MIGRATIONS[n - 1]``: a sequence of SQL statements run in
one transaction, after which ``schema_version`` holds a row for ``n``. A database is
brought up to date by applying every migration it has not seen, in order; one that has
seen more migrations than this code knows is refused (:class:`SchemaTooNewError`), never
guessed at. Migrations are append-only: never edit one that has shipped.

To add a migration, write its statements as a tuple of strings and append it to
:data:`MIGRATIONS` (``MIGRATIONS = (MATCHES_V1, LADDER_V1, REQUEST_IDS)``); the next
open applies it.

One history serves both back ends (``SqliteStore`` and ``PostgresStore``). The SQL is
portable (docs/decisions.md: Persistence): ``TEXT``, ``INTEGER``/``BIGINT``, ``DOUBLE
PRECISION`` epoch seconds, ``BOOLEAN``, and ``BLOB``, which PostgreSQL spells ``BYTEA``
(:func:`statement_for` rewrites that one word); no ``AUTOINCREMENT``, ``WITHOUT ROWID``
or PRAGMAs. A statement that has no portable form is a :class:`PerDialect`, with the
SQL of each back end (empty: nothing to do there).
"""

from __future__ import annotations

import re
import time
from collections.abc import Sequence
from typing import NamedTuple

from botarena.server.store._database import Database, Dialect, Session
from botarena.server.store._errors import SchemaTooNewError, StoreError

__all__ = [
    "CLUSTER",
    "FAIR_PLAY",
    "LADDER_BOARD",
    "LADDER_CLUSTER",
    "LADDER_RESUME",
    "LADDER_V1",
    "MATCHES_V1",
    "MIGRATIONS",
    "REQUEST_IDS",
    "Migration",
    "PerDialect",
    "migrate",
    "schema_version",
    "statement_for",
]


class PerDialect(NamedTuple):
    """A migration statement written for each back end (an empty one: nothing there)."""

    sqlite: str
    postgresql: str


Migration = Sequence[str | PerDialect]
"""One migration: SQL statements applied together in one transaction."""

_BLOB = re.compile(r"\bBLOB\b")


def statement_for(statement: str | PerDialect, dialect: Dialect) -> str:
    """Return the SQL of a migration statement in ``dialect`` (empty: nothing to run)."""
    if isinstance(statement, PerDialect):
        return statement.sqlite if dialect == "sqlite" else statement.postgresql
    return statement if dialect == "sqlite" else _BLOB.sub("BYTEA", statement)


MATCHES_V1: Migration = (
    # One row per match: what it was created with and where it stands. `config` is the
    # match's full configuration in a game-neutral encoding chosen by the match layer's
    # codec (the server uses the wire bytes of botarena.v1.MatchConfig).
    """CREATE TABLE matches (
        match_id TEXT PRIMARY KEY,
        sequence BIGINT NOT NULL UNIQUE,
        game TEXT NOT NULL,
        seat_count INTEGER NOT NULL,
        seed TEXT NOT NULL,
        config BLOB NOT NULL,
        finished BOOLEAN NOT NULL,
        state_version INTEGER NOT NULL,
        created_time DOUBLE PRECISION NOT NULL,
        end_time DOUBLE PRECISION,
        end_reason TEXT
    )""",
    "CREATE INDEX matches_by_state ON matches (finished, sequence)",
    "CREATE INDEX matches_by_game ON matches (game, sequence)",
    # A seat's credentials (a SHA-256 hash of its token, never the token) and the clock
    # state it keeps between decisions.
    """CREATE TABLE match_seats (
        match_id TEXT NOT NULL REFERENCES matches (match_id),
        seat INTEGER NOT NULL,
        name TEXT NOT NULL,
        token_hash TEXT NOT NULL,
        time_bank DOUBLE PRECISION NOT NULL,
        timeouts INTEGER NOT NULL,
        illegal_moves INTEGER NOT NULL,
        PRIMARY KEY (match_id, seat)
    )""",
    # The append-only event log: one row per state version.
    """CREATE TABLE events (
        match_id TEXT NOT NULL REFERENCES matches (match_id),
        state_version INTEGER NOT NULL,
        time DOUBLE PRECISION NOT NULL,
        kind TEXT NOT NULL,
        seat INTEGER,
        move BLOB,
        think_time DOUBLE PRECISION,
        by_timeout BOOLEAN NOT NULL,
        reason TEXT,
        PRIMARY KEY (match_id, state_version)
    )""",
    # Final results, one row per seat; the end reason and time are on the match.
    """CREATE TABLE results (
        match_id TEXT NOT NULL REFERENCES matches (match_id),
        seat INTEGER NOT NULL,
        score INTEGER NOT NULL,
        rank INTEGER NOT NULL,
        forfeited BOOLEAN NOT NULL,
        PRIMARY KEY (match_id, seat)
    )""",
)
"""Migration 1: matches, their seats, event logs and results."""

LADDER_V1: Migration = (
    # Registered bots with their rating and counters; the secret only as a SHA-256 hash.
    """CREATE TABLE ladder_bots (
        bot_id TEXT PRIMARY KEY,
        name TEXT NOT NULL,
        owner TEXT NOT NULL,
        game TEXT NOT NULL,
        secret_hash TEXT NOT NULL,
        created DOUBLE PRECISION NOT NULL,
        mu DOUBLE PRECISION NOT NULL,
        sigma DOUBLE PRECISION NOT NULL,
        games INTEGER NOT NULL DEFAULT 0,
        wins DOUBLE PRECISION NOT NULL DEFAULT 0,
        score_sum DOUBLE PRECISION NOT NULL DEFAULT 0,
        timeouts INTEGER NOT NULL DEFAULT 0,
        crashes INTEGER NOT NULL DEFAULT 0,
        bad_streak INTEGER NOT NULL DEFAULT 0,
        paused BOOLEAN NOT NULL DEFAULT FALSE,
        UNIQUE (game, name)
    )""",
    """CREATE TABLE ladder_matches (
        match_id TEXT PRIMARY KEY,
        game TEXT NOT NULL,
        started DOUBLE PRECISION NOT NULL,
        finished DOUBLE PRECISION,
        abandoned BOOLEAN NOT NULL DEFAULT FALSE
    )""",
    "CREATE INDEX ladder_matches_started ON ladder_matches (started)",
    """CREATE TABLE ladder_seats (
        match_id TEXT NOT NULL REFERENCES ladder_matches (match_id),
        seat INTEGER NOT NULL,
        bot_id TEXT NOT NULL REFERENCES ladder_bots (bot_id),
        mu_before DOUBLE PRECISION NOT NULL,
        sigma_before DOUBLE PRECISION NOT NULL,
        score INTEGER,
        rank INTEGER,
        forfeited BOOLEAN NOT NULL DEFAULT FALSE,
        timeouts INTEGER NOT NULL DEFAULT 0,
        crashed BOOLEAN NOT NULL DEFAULT FALSE,
        mu_after DOUBLE PRECISION,
        sigma_after DOUBLE PRECISION,
        PRIMARY KEY (match_id, seat)
    )""",
    "CREATE INDEX ladder_seats_bot ON ladder_seats (bot_id)",
)
"""Migration 2: the ladder's bots, their matches and seats (botarena.server.store.ladder)."""

REQUEST_IDS: Migration = (
    # The request_id of the SubmitMove or ResignMatch that made an entry, so that a
    # retry after a restart still gets the first answer (NULL: none, or made by the
    # server).
    "ALTER TABLE events ADD COLUMN request_id TEXT",
    # The request_id of the CreateMatch that made a match: a retry after a restart is
    # told which match it made instead of making a second one.
    "ALTER TABLE matches ADD COLUMN request_id TEXT",
    "CREATE INDEX matches_by_request ON matches (request_id)",
)
"""Migration 3: the request_ids of the commands that made matches and log entries."""

FAIR_PLAY: Migration = (
    # How many moves the server played for a seat, and why a seat forfeited: the
    # results a listing shows without replaying the log (docs/decisions.md: Fair play).
    "ALTER TABLE match_seats ADD COLUMN stand_in_moves INTEGER NOT NULL DEFAULT 0",
    "ALTER TABLE match_seats ADD COLUMN forfeit_reason TEXT",
)
"""Migration 4: the seats' stand-in moves and forfeit reasons."""

CLUSTER: Migration = (
    # Which node runs each unfinished match (docs/decisions.md: Several nodes): the
    # owner's id and the address bots reach it at, until `expiry` (epoch seconds of the
    # database's clock) unless the owner renews it. A row goes when its match finishes.
    """CREATE TABLE match_leases (
        match_id TEXT PRIMARY KEY REFERENCES matches (match_id),
        owner TEXT NOT NULL,
        address TEXT NOT NULL,
        expiry DOUBLE PRECISION NOT NULL
    )""",
    "CREATE INDEX match_leases_by_owner ON match_leases (owner)",
    # Nodes sharing one database take match sequence numbers from one counter (SQLite
    # has one process: MAX(sequence) + 1 is enough).
    PerDialect(
        sqlite="",
        postgresql="CREATE SEQUENCE match_sequence OWNED BY matches.sequence",
    ),
    PerDialect(
        sqlite="",
        postgresql="SELECT setval('match_sequence', COALESCE(MAX(sequence), 0) + 1, false) "
        "FROM matches",
    ),
)
"""Migration 5: match leases, and one sequence for every node."""

LADDER_CLUSTER: Migration = (
    # Which node holds each bot's Connect stream (docs/decisions.md: Several nodes), so
    # that the one node that schedules (the ladder's lease, migration 9) sees the bots of
    # every node: the node's lease owner id, the capacity and resume_seats of the
    # stream, a generation that grows with every Connect (a reconnect), when the node
    # last renewed the row and when the stream ended (NULL while open); times are the
    # ladder's epoch seconds, like its other tables.
    """CREATE TABLE ladder_presence (
        bot_id TEXT PRIMARY KEY REFERENCES ladder_bots (bot_id),
        node TEXT NOT NULL,
        capacity INTEGER NOT NULL,
        resume_seats BOOLEAN NOT NULL,
        generation BIGINT NOT NULL,
        seen DOUBLE PRECISION NOT NULL,
        dropped DOUBLE PRECISION
    )""",
    # Assignments the scheduling node made for bots connected to another node, until
    # that node claims (deletes) them and pushes them down the bot's stream: the seat's
    # token waits here for at most a poll interval, then only its hash is kept.
    # `address` is the HOST:PORT of the node that runs the match.
    """CREATE TABLE ladder_assignments (
        match_id TEXT NOT NULL,
        seat INTEGER NOT NULL,
        bot_id TEXT NOT NULL,
        node TEXT NOT NULL,
        game TEXT NOT NULL,
        seat_token TEXT NOT NULL,
        address TEXT NOT NULL,
        PRIMARY KEY (match_id, seat)
    )""",
    "CREATE INDEX ladder_assignments_by_node ON ladder_assignments (node)",
)
"""Migration 6: the ladder's bots as every node sees them, and assignments between nodes."""

LADDER_RESUME: Migration = (
    # The generation of the bot's latest Connect that asked for its seats again
    # (resume_seats: its process restarted and holds no seat tokens); 0: none yet.
    "ALTER TABLE ladder_presence ADD COLUMN resumed_generation BIGINT NOT NULL DEFAULT 0",
    # The bot's presence generation the seat's token was issued (or last re-issued) for:
    # a resumed_generation above it means the bot lost that token, and the node that
    # holds the match gives the seat a new one (docs/decisions.md: Several nodes).
    "ALTER TABLE ladder_seats ADD COLUMN token_generation BIGINT NOT NULL DEFAULT 0",
)
"""Migration 7: which seats a restarted ladder bot must be given again, on any node."""

LADDER_BOARD: Migration = (
    # The leaderboard's order within a game (store.ladder: LEADERBOARD_ORDER): best
    # conservative rating mu - 3 * sigma first, then more games, then the name. A page
    # of the board walks this index instead of sorting every bot of the game
    # (docs/decisions.md: A large ladder); the expressions are those of the ORDER BY.
    "CREATE INDEX ladder_bots_board ON ladder_bots (game, (3 * sigma - mu), (-games), name)",
)
"""Migration 8: the leaderboard's order as an index."""

LADDER_LEAD: Migration = (
    # The ladder's scheduling lease (docs/decisions.md: Database faults), replacing a
    # PostgreSQL advisory lock that a frozen node kept for as long as its session
    # lived: one row, the node that schedules (its match lease owner id) and when its
    # lease ends, in epoch seconds by the database's clock like match_leases.expiry.
    # The leader renews it every tick, another node takes it once expired, and every
    # scheduling write checks it in its own transaction.
    """CREATE TABLE ladder_lead (
        id INTEGER PRIMARY KEY,
        owner TEXT NOT NULL,
        expiry DOUBLE PRECISION NOT NULL
    )""",
)
"""Migration 9: the ladder's scheduling lease."""

LADDER_REQUESTS: Migration = (
    # Ladder matches the scheduling node asked another node (or itself) to create, so
    # each match runs on the node with the most room (docs/decisions.md: Ladder matches
    # spread over the nodes): the node (its match lease owner id), the game and the
    # seats' bots in seat order (comma-separated ids). match_id stays NULL until that
    # node created the match and recorded it (one transaction: a request starts at most
    # one match); the scheduler deletes a started request, and an unstarted one that
    # waited too long (its node died).
    """CREATE TABLE ladder_requests (
        request_id TEXT PRIMARY KEY,
        node TEXT NOT NULL,
        game TEXT NOT NULL,
        bots TEXT NOT NULL,
        match_id TEXT
    )""",
    "CREATE INDEX ladder_requests_node ON ladder_requests (node)",
)
"""Migration 10: ladder matches requested of a node."""

MIGRATIONS: Sequence[Migration] = (
    MATCHES_V1,
    LADDER_V1,
    REQUEST_IDS,
    FAIR_PLAY,
    CLUSTER,
    LADDER_CLUSTER,
    LADDER_RESUME,
    LADDER_BOARD,
    LADDER_LEAD,
    LADDER_REQUESTS,
)
"""Every migration in order; append new ones at the end."""

_VERSION_TABLE = """CREATE TABLE IF NOT EXISTS schema_version (
    version INTEGER PRIMARY KEY,
    applied_time DOUBLE PRECISION NOT NULL
)"""


def schema_version(session: Session) -> int:
    """Return the number of migrations applied to the database (0 for an empty one)."""
    session.run(_VERSION_TABLE)
    row = session.row("SELECT COALESCE(MAX(version), 0) FROM schema_version")
    return int(row[0]) if row is not None else 0


# Any constant: the advisory lock that serialises PostgreSQL migrations.
_MIGRATION_LOCK = 0x6274_6172_656E_6101


def migrate(database: Database, migrations: Sequence[Migration] = MIGRATIONS) -> int:
    """Apply the migrations the database has not seen, each in its own transaction.

    Args:
        database: The database.
        migrations: The migrations this code knows, in order.

    Returns:
        The schema version after migrating (``len(migrations)``).

    Raises:
        SchemaTooNewError: The database has seen more migrations than ``migrations``.
        StoreError: A statement of a migration failed; that migration is rolled back.
        Exception: One of ``database.errors``: the database cannot be read.
    """
    while True:
        # Each round holds the write lock (SQLite: BEGIN IMMEDIATE; PostgreSQL: an
        # advisory lock) before reading the version, so two processes opening one new
        # database cannot both apply a migration.
        with database.transaction() as session:
            if database.dialect == "postgresql":
                session.row("SELECT pg_advisory_xact_lock(?)", (_MIGRATION_LOCK,))
            current = schema_version(session)
            if current > len(migrations):
                raise SchemaTooNewError(current, len(migrations))
            if current == len(migrations):
                return current
            try:
                for statement in migrations[current]:
                    sql = statement_for(statement, database.dialect)
                    if sql:
                        session.run(sql)
            except database.errors as error:
                raise StoreError(f"schema migration {current + 1} failed: {error}") from error
            session.run(
                "INSERT INTO schema_version (version, applied_time) VALUES (?, ?)",
                (current + 1, time.time()),
            )
