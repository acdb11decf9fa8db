"""The ladder's tables: registered bots with their ratings, ladder matches and their seats.

The tables are migration 2 of the store's schema (``_schema.LADDER_V1``), so they live
in the server's one database beside the matches, SQLite or PostgreSQL.
:class:`LadderStore` is the protocol the ladder reads and writes them through;
:class:`SqlLadderStore` implements it on the core store's database (``Store.ladder_store()``),
one SQL for both back ends. Each write is one transaction, so a recorded result and the
ratings it moved are durable together (DESIGN.md: Persistence and scale). Never imports
grpc.
"""

from __future__ import annotations

from collections.abc import Collection, Iterator, Sequence
from dataclasses import dataclass
from typing import Any, Protocol

from botarena.server.store._database import NOW, Database, Session
from botarena.server.store._errors import LeadLostError, StoreError

__all__ = [
    "LEADERBOARD_ORDER",
    "BotRecord",
    "LadderMatchRecord",
    "LadderStore",
    "MatchRequest",
    "NodeAssignment",
    "Presence",
    "ResumedSeat",
    "SeatRecord",
    "SeatResult",
    "SqlLadderStore",
]


@dataclass(frozen=True, slots=True)
class BotRecord:
    """A registered bot with its rating and counters.

    Attributes:
        bot_id: The bot's id (its resource name is ``bots/{bot_id}``).
        name: Display name, unique within the game.
        owner: Who runs it.
        game: The game's registry name.
        secret_hash: SHA-256 of the secret, hex; the secret itself is never stored.
        mu: Rating mean.
        sigma: Rating uncertainty.
        games: Rated matches played.
        wins: Wins, a first place shared by k seats counting 1/k.
        score_sum: Sum of final scores over rated matches.
        timeouts: Times the bot ran out of time.
        crashes: Matches the bot crashed in.
        bad_streak: Matches in a row with a timeout or a crash.
        paused: Whether the scheduler leaves the bot out.
    """

    bot_id: str
    name: str
    owner: str
    game: str
    secret_hash: str
    mu: float
    sigma: float
    games: int = 0
    wins: float = 0.0
    score_sum: float = 0.0
    timeouts: int = 0
    crashes: int = 0
    bad_streak: int = 0
    paused: bool = False


@dataclass(frozen=True, slots=True)
class SeatRecord:
    """One seat of a ladder match, as stored.

    ``score``, ``rank``, ``mu_after`` and ``sigma_after`` are ``None`` until the match
    has a recorded result.
    """

    seat: int
    bot_id: str
    mu_before: float
    sigma_before: float
    score: int | None = None
    rank: int | None = None
    forfeited: bool = False
    timeouts: int = 0
    crashed: bool = False
    mu_after: float | None = None
    sigma_after: float | None = None


@dataclass(frozen=True, slots=True)
class LadderMatchRecord:
    """A ladder match: when it started and ended, and its seats by seat index."""

    match_id: str
    game: str
    started: float
    finished: float | None
    abandoned: bool
    seats: tuple[SeatRecord, ...]


@dataclass(frozen=True, slots=True)
class SeatResult:
    """What one seat's bot gets from a finished match, ratings already computed.

    Attributes:
        score: Final score.
        rank: Place, 1 = first.
        win: The part of a win (1/k for a first place shared by k seats).
        forfeited: Whether the seat forfeited.
        timeouts: Times the seat ran out of time.
        crashed: Whether the bot crashed in the match.
        mu: The bot's new rating mean.
        sigma: The bot's new rating uncertainty.
    """

    score: int
    rank: int
    win: float
    forfeited: bool
    timeouts: int
    crashed: bool
    mu: float
    sigma: float


@dataclass(frozen=True, slots=True)
class Presence:
    """A bot's Connect stream as every node of a cluster sees it (``ladder_presence``).

    Attributes:
        bot_id: The bot.
        game: The bot's game.
        node: The lease owner id of the node that holds the stream.
        capacity: The stream's capacity.
        resume_seats: The stream's ``resume_seats``.
        generation: Grows with every Connect of the bot (a reconnect shows here).
        connected: The stream is open and its node renewed the row lately.
        dropped: When the stream ended, or ``None`` (open, or its node died).
    """

    bot_id: str
    game: str
    node: str
    capacity: int
    resume_seats: bool
    generation: int
    connected: bool
    dropped: float | None


@dataclass(frozen=True, slots=True)
class NodeAssignment:
    """An assignment waiting in ``ladder_assignments`` for the node of the bot's stream.

    Attributes:
        match_id: The match.
        seat: The seat index.
        bot_id: The bot that plays it.
        node: The lease owner id of the node that holds the bot's stream.
        game: The match's game.
        seat_token: The seat's token.
        address: ``HOST:PORT`` of the node that runs the match.
    """

    match_id: str
    seat: int
    bot_id: str
    node: str
    game: str
    seat_token: str
    address: str


@dataclass(frozen=True, slots=True)
class MatchRequest:
    """A ladder match the scheduling node asked ``node`` to create (``ladder_requests``).

    Attributes:
        request_id: The request.
        node: The lease owner id of the node that is to create and run the match.
        game: The match's game.
        bot_ids: The seats' bots, in seat order.
        match_id: The match it started, once ``node`` created it; ``None`` before.
    """

    request_id: str
    node: str
    game: str
    bot_ids: tuple[str, ...]
    match_id: str | None = None


@dataclass(frozen=True, slots=True)
class ResumedSeat:
    """A seat of a running ladder match whose bot connected with ``resume_seats`` since
    the seat's token was issued: the bot holds no token for it any more.

    Attributes:
        match_id: The match.
        seat: The seat index.
        bot_id: The bot that plays it.
        node: The lease owner id of the node that holds the bot's stream.
        generation: The presence generation of that Connect (``resumed_generation``).
    """

    match_id: str
    seat: int
    bot_id: str
    node: str
    generation: int


LEADERBOARD_ORDER = "3 * sigma - mu, -games, name"
"""The leaderboard's order in SQL: best conservative rating (``mu - 3 * sigma``) first,
then more rated matches, then the name (unique within a game). The index
``ladder_bots_board`` (migration 8) holds these very expressions, so a page is a walk
along it rather than a sort of every bot."""

# At most this many ids in one ``IN (...)`` list (SQLite allows 32,766 parameters).
_IDS_PER_QUERY = 500

_BOT_COLUMNS = (
    "bot_id, name, owner, game, secret_hash, mu, sigma, games, wins, score_sum, timeouts, "
    "crashes, bad_streak, paused"
)
_SEAT_COLUMNS = (
    "seat, bot_id, mu_before, sigma_before, score, rank, forfeited, timeouts, crashed, "
    "mu_after, sigma_after"
)


def _chunks(ids: Collection[str]) -> Iterator[list[str]]:
    """``ids`` in lists short enough for one ``IN (...)``."""
    listed = list(ids)
    for start in range(0, len(listed), _IDS_PER_QUERY):
        yield listed[start : start + _IDS_PER_QUERY]


def _marks(chunk: Sequence[str]) -> str:
    return ", ".join("?" * len(chunk))


def _bot(row: Any) -> BotRecord:
    values = list(row)
    values[-1] = bool(values[-1])
    return BotRecord(*values)


def _seat(row: Any) -> SeatRecord:
    (seat, bot_id, mu_before, sigma_before, score, rank, forfeited, timeouts, crashed) = row[:9]
    mu_after, sigma_after = row[9:]
    return SeatRecord(
        seat=int(seat),
        bot_id=str(bot_id),
        mu_before=float(mu_before),
        sigma_before=float(sigma_before),
        score=None if score is None else int(score),
        rank=None if rank is None else int(rank),
        forfeited=bool(forfeited),
        timeouts=int(timeouts),
        crashed=bool(crashed),
        mu_after=None if mu_after is None else float(mu_after),
        sigma_after=None if sigma_after is None else float(sigma_after),
    )


class LadderStore(Protocol):
    """The ladder's bots, matches and seats. Every write is one transaction."""

    def add_bot(self, bot: BotRecord, created: float) -> bool:
        """Insert a new bot; return False when its name is taken in its game."""
        ...

    def bot(self, bot_id: str) -> BotRecord | None:
        """Return the bot ``bot_id``, or ``None``."""
        ...

    def bots(self, game: str) -> list[BotRecord]:
        """Return every bot of ``game``, in registration order."""
        ...

    def bots_by_id(self, bot_ids: Collection[str]) -> dict[str, BotRecord]:
        """Return the bots of ``bot_ids`` that exist, by id."""
        ...

    def leaderboard(self, game: str, *, offset: int, limit: int) -> list[BotRecord]:
        """Return up to ``limit`` bots of ``game`` in leaderboard order
        (:data:`LEADERBOARD_ORDER`), after the first ``offset``."""
        ...

    def rank(self, bot: BotRecord) -> int:
        """Return the bot's place in its game's leaderboard order, 1 = first."""
        ...

    def resume_bot(self, bot_id: str) -> bool:
        """Un-pause ``bot_id`` and reset its bad streak; return False when there is no such
        bot."""
        ...

    def add_match(
        self,
        match_id: str,
        game: str,
        started: float,
        seats: Sequence[SeatRecord],
        *,
        leader: str | None = None,
    ) -> None:
        """Record a new ladder match and its seats (no result yet); with ``leader``, only
        while that node holds the scheduling lease (:meth:`lead`).

        Raises:
            LeadLostError: ``leader`` does not hold the lease; nothing was written.
        """
        ...

    def record_result(
        self,
        match_id: str,
        finished: float,
        results: Sequence[SeatResult],
        *,
        pause_after: int,
        leader: str | None = None,
    ) -> None:
        """Store a finished match's result and update every seat's bot, in one transaction
        (nothing when it has one already); ``leader`` fences it as in :meth:`add_match`."""
        ...

    def abandon(self, match_id: str, finished: float) -> None:
        """Mark a match the server lost as finished without a result."""
        ...

    def match(self, match_id: str) -> LadderMatchRecord | None:
        """Return the ladder match ``match_id`` with its seats, or ``None``."""
        ...

    def unfinished_matches(self) -> list[LadderMatchRecord]:
        """Return the matches without a recorded result, oldest first."""
        ...

    def bot_matches(self, bot_id: str, limit: int) -> list[LadderMatchRecord]:
        """Return up to ``limit`` matches of ``bot_id``, newest first."""
        ...

    def pair_counts(
        self, game: str, since: float | None = None, *, bot_ids: Collection[str] | None = None
    ) -> dict[frozenset[str], int]:
        """Return how many matches each pair of bots of ``game`` shared (only pairs of
        ``bot_ids`` when given)."""
        ...

    def seat_counts(
        self, game: str, *, bot_ids: Collection[str] | None = None
    ) -> dict[str, dict[int, int]]:
        """Return, per bot of ``game`` (of ``bot_ids`` when given), how many matches it
        played in each seat."""
        ...

    def ended_matches(self) -> list[str]:
        """Return the ladder matches without a recorded result whose match has finished
        (by whichever node ran it), oldest first."""
        ...

    # Several nodes on one database (docs/decisions.md: Several nodes).

    def lead(self, owner: str, ttl: float) -> bool:
        """Take, or renew, the ladder's scheduling lease for ``ttl`` seconds by the
        database's clock; return whether ``owner`` holds it now. The one node holding
        it schedules and writes ratings; another takes it once it has expired."""
        ...

    def release_lead(self, owner: str) -> None:
        """Let the scheduling lease of ``owner`` expire now, if it holds it."""
        ...

    def present(
        self, bot_id: str, node: str, capacity: int, resume_seats: bool, now: float
    ) -> None:
        """Note that ``node`` holds a new Connect stream of ``bot_id``."""
        ...

    def renew_presence(self, node: str, now: float) -> set[str]:
        """Renew the open streams ``node`` holds; return their bots (a bot missing from
        it has connected to another node since)."""
        ...

    def absent(self, bot_id: str, node: str, dropped: float | None) -> None:
        """Note that the stream ``node`` held for ``bot_id`` ended at ``dropped``
        (``None``: the node stops, which is not the bot's doing)."""
        ...

    def presence(
        self,
        *,
        fresh_since: float,
        game: str = "",
        bot_ids: Collection[str] | None = None,
        connected_only: bool = False,
    ) -> list[Presence]:
        """Return the presence of every bot (of ``game``, of ``bot_ids`` when given) that
        has connected (only those connected now with ``connected_only``); a stream counts
        as connected while open and renewed at ``fresh_since`` or later."""
        ...

    def add_assignments(self, assignments: Sequence[NodeAssignment]) -> None:
        """Queue assignments for the nodes of the bots' streams."""
        ...

    def claim_assignments(self, node: str) -> list[NodeAssignment]:
        """Take (delete and return) the assignments queued for ``node``."""
        ...

    def resumed_seats(self, node: str, *, fresh_since: float) -> list[ResumedSeat]:
        """Return the seats of unfinished ladder matches whose lease ``node`` holds and
        whose bot, connected (renewed at ``fresh_since`` or later), asked to resume its
        seats after the seat's token was issued."""
        ...

    def node_loads(self) -> dict[str, int]:
        """Return, per node (lease owner id), its unfinished matches under an unexpired
        lease plus the match requests it has not started: how busy each live node is."""
        ...

    def request_matches(self, requests: Sequence[MatchRequest], *, leader: str) -> None:
        """Queue match requests for their nodes, while ``leader`` holds the scheduling
        lease.

        Raises:
            LeadLostError: ``leader`` does not hold the lease; nothing was written.
        """
        ...

    def match_requests(self, *, node: str | None = None) -> list[MatchRequest]:
        """Return the queued requests (only the unstarted ones of ``node`` when given),
        by request id."""
        ...

    def start_requested(
        self, request_id: str, node: str, match_id: str, started: float, seats: Sequence[SeatRecord]
    ) -> bool:
        """Record that ``node`` created ``match_id`` for the request, and the ladder match
        with its seats, in one transaction; False (nothing written) when the request is
        gone, another node's, or started already: a request starts at most one match."""
        ...

    def drop_requests(
        self, request_ids: Collection[str], *, leader: str, unstarted_only: bool = False
    ) -> set[str]:
        """Delete the requests (only those not started with ``unstarted_only``) while
        ``leader`` holds the scheduling lease; return those deleted.

        Raises:
            LeadLostError: ``leader`` does not hold the lease; nothing was deleted.
        """
        ...

    def mark_resumed(self, match_id: str, seat: int, generation: int, node: str) -> bool:
        """Note that the seat's token was issued again for the bot's ``generation``;
        fenced by the match's lease (False: ``node`` does not hold it, or a newer
        generation was noted)."""
        ...


class SqlLadderStore:
    """The :class:`LadderStore` on the core store's :class:`Database` (SQLite or
    PostgreSQL): get one from ``Store.ladder_store()``, which closes the database.

    Args:
        database: A database at the current schema.
    """

    def __init__(self, database: Database) -> None:
        self.database = database
        self._now = NOW[database.dialect]

    # ------------------------------------------------------------------ bots

    def add_bot(self, bot: BotRecord, created: float) -> bool:
        """Insert a new bot; return False when its name is taken in its game."""
        try:
            with self.database.transaction() as db:
                db.run(
                    "INSERT INTO ladder_bots (bot_id, name, owner, game, secret_hash, created, "
                    "mu, sigma) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                    (
                        bot.bot_id,
                        bot.name,
                        bot.owner,
                        bot.game,
                        bot.secret_hash,
                        created,
                        bot.mu,
                        bot.sigma,
                    ),
                )
        except StoreError:  # the name is taken in its game (UNIQUE)
            return False
        return True

    def bot(self, bot_id: str) -> BotRecord | None:
        """Return the bot ``bot_id``, or ``None``."""
        with self.database.session() as db:
            row = db.row(f"SELECT {_BOT_COLUMNS} FROM ladder_bots WHERE bot_id = ?", (bot_id,))
        return None if row is None else _bot(row)

    def bots(self, game: str) -> list[BotRecord]:
        """Return every bot of ``game``, in registration order: a read of them all, for
        tools and tests (the server reads pages, :meth:`leaderboard`, and the bots it
        names, :meth:`bots_by_id`)."""
        with self.database.session() as db:
            rows = db.rows(
                f"SELECT {_BOT_COLUMNS} FROM ladder_bots WHERE game = ? ORDER BY created, bot_id",
                (game,),
            )
        return [_bot(row) for row in rows]

    def bots_by_id(self, bot_ids: Collection[str]) -> dict[str, BotRecord]:
        """Return the bots of ``bot_ids`` that exist, by id."""
        found: dict[str, BotRecord] = {}
        with self.database.session() as db:
            for chunk in _chunks(bot_ids):
                rows = db.rows(
                    f"SELECT {_BOT_COLUMNS} FROM ladder_bots WHERE bot_id IN ({_marks(chunk)})",
                    chunk,
                )
                found.update((bot.bot_id, bot) for bot in map(_bot, rows))
        return found

    def leaderboard(self, game: str, *, offset: int, limit: int) -> list[BotRecord]:
        """Return up to ``limit`` bots of ``game`` in leaderboard order, after the first
        ``offset``: a walk along the index ``ladder_bots_board``."""
        with self.database.session() as db:
            rows = db.rows(
                f"SELECT {_BOT_COLUMNS} FROM ladder_bots WHERE game = ? "
                f"ORDER BY {LEADERBOARD_ORDER} LIMIT ? OFFSET ?",
                (game, limit, offset),
            )
        return [_bot(row) for row in rows]

    def rank(self, bot: BotRecord) -> int:
        """Return the bot's place in its game's leaderboard order, 1 = first: one more
        than the bots before it, counted along the index ``ladder_bots_board``."""
        order = 3 * bot.sigma - bot.mu  # the index's expression, the same IEEE arithmetic
        with self.database.session() as db:
            row = db.row(
                "SELECT COUNT(*) FROM ladder_bots WHERE game = ? AND 3 * sigma - mu <= ? "
                "AND (3 * sigma - mu < ? OR -games < ? OR (-games = ? AND name < ?))",
                (bot.game, order, order, -bot.games, -bot.games, bot.name),
            )
        return 1 + (int(row[0]) if row is not None else 0)

    def resume_bot(self, bot_id: str) -> bool:
        """Un-pause ``bot_id`` and reset its bad streak; return False when there is no such
        bot."""
        with self.database.transaction() as db:
            changed = db.run(
                "UPDATE ladder_bots SET paused = FALSE, bad_streak = 0 WHERE bot_id = ?",
                (bot_id,),
            )
        return changed == 1

    # ------------------------------------------------------------------ matches

    def add_match(
        self,
        match_id: str,
        game: str,
        started: float,
        seats: Sequence[SeatRecord],
        *,
        leader: str | None = None,
    ) -> None:
        """Record a new ladder match and its seats (see ``LadderStore``)."""
        with self.database.transaction() as db:
            self._fence(db, leader)
            self._insert_match(db, match_id, game, started, seats)

    @staticmethod
    def _insert_match(
        db: Session, match_id: str, game: str, started: float, seats: Sequence[SeatRecord]
    ) -> None:
        db.run(
            "INSERT INTO ladder_matches (match_id, game, started) VALUES (?, ?, ?)",
            (match_id, game, started),
        )
        # Each token is issued for the bot's Connect as it stands now (with several
        # nodes, its presence generation; see resumed_seats).
        db.run_many(
            "INSERT INTO ladder_seats (match_id, seat, bot_id, mu_before, sigma_before, "
            "token_generation) VALUES (?, ?, ?, ?, ?, COALESCE((SELECT generation FROM "
            "ladder_presence WHERE bot_id = ?), 0))",
            [(match_id, s.seat, s.bot_id, s.mu_before, s.sigma_before, s.bot_id) for s in seats],
        )

    def record_result(
        self,
        match_id: str,
        finished: float,
        results: Sequence[SeatResult],
        *,
        pause_after: int,
        leader: str | None = None,
    ) -> None:
        """Store a finished match's result and update every seat's bot, in one transaction
        (fenced by ``leader``'s scheduling lease when given).

        A bot's bad streak grows with a match it timed out or crashed in and resets
        otherwise; the bot is paused once the streak reaches ``pause_after``.
        """
        seats = self.match(match_id)
        if seats is None or seats.finished is not None:
            return
        with self.database.transaction() as db:
            self._fence(db, leader)
            # The guard is part of the write: of two writers at once (a scheduling node
            # that lost its lease and does not know it yet), the second changes nothing.
            if (
                db.run(
                    "UPDATE ladder_matches SET finished = ? "
                    "WHERE match_id = ? AND finished IS NULL",
                    (finished, match_id),
                )
                != 1
            ):
                return
            for seat, result in zip(seats.seats, results, strict=True):
                bad = result.timeouts > 0 or result.crashed
                db.run(
                    "UPDATE ladder_seats SET score = ?, rank = ?, forfeited = ?, timeouts = ?, "
                    "crashed = ?, mu_after = ?, sigma_after = ? WHERE match_id = ? AND seat = ?",
                    (
                        result.score,
                        result.rank,
                        result.forfeited,
                        result.timeouts,
                        result.crashed,
                        result.mu,
                        result.sigma,
                        match_id,
                        seat.seat,
                    ),
                )
                db.run(
                    "UPDATE ladder_bots SET mu = ?, sigma = ?, games = games + 1, wins = wins + ?, "
                    "score_sum = score_sum + ?, timeouts = timeouts + ?, crashes = crashes + ?, "
                    "bad_streak = CASE WHEN ? THEN bad_streak + 1 ELSE 0 END, "
                    "paused = CASE WHEN ? AND bad_streak + 1 >= ? THEN TRUE ELSE paused END "
                    "WHERE bot_id = ?",
                    (
                        result.mu,
                        result.sigma,
                        result.win,
                        result.score,
                        result.timeouts,
                        int(result.crashed),
                        bad,
                        bad,
                        pause_after,
                        seat.bot_id,
                    ),
                )

    def abandon(self, match_id: str, finished: float) -> None:
        """Mark a match the server lost as finished without a result: it counts for nobody."""
        with self.database.transaction() as db:
            db.run(
                "UPDATE ladder_matches SET finished = ?, abandoned = TRUE "
                "WHERE match_id = ? AND finished IS NULL",
                (finished, match_id),
            )

    def match(self, match_id: str) -> LadderMatchRecord | None:
        """Return the ladder match ``match_id`` with its seats, or ``None``."""
        with self.database.session() as db:
            row = db.row(
                "SELECT match_id, game, started, finished, abandoned FROM ladder_matches "
                "WHERE match_id = ?",
                (match_id,),
            )
        return None if row is None else self._with_seats(row)

    def unfinished_matches(self) -> list[LadderMatchRecord]:
        """Return the matches without a recorded result, oldest first."""
        with self.database.session() as db:
            rows = db.rows(
                "SELECT match_id, game, started, finished, abandoned FROM ladder_matches "
                "WHERE finished IS NULL ORDER BY started, match_id"
            )
        return [self._with_seats(row) for row in rows]

    def bot_matches(self, bot_id: str, limit: int) -> list[LadderMatchRecord]:
        """Return up to ``limit`` matches of ``bot_id``, newest first."""
        with self.database.session() as db:
            rows = db.rows(
                "SELECT m.match_id, m.game, m.started, m.finished, m.abandoned "
                "FROM ladder_matches m WHERE m.match_id IN "
                "(SELECT match_id FROM ladder_seats WHERE bot_id = ?) "
                "ORDER BY m.started DESC, m.match_id LIMIT ?",
                (bot_id, limit),
            )
        return [self._with_seats(row) for row in rows]

    def pair_counts(
        self, game: str, since: float | None = None, *, bot_ids: Collection[str] | None = None
    ) -> dict[frozenset[str], int]:
        """Return how many matches each pair of bots of ``game`` shared (abandoned ones
        included: they took the pair's time), only those started at ``since`` or later
        when given, and only pairs of ``bot_ids`` when given (read through the seats of
        those bots alone: the scheduler asks for the connected ones)."""
        query = (
            "SELECT a.bot_id, b.bot_id, COUNT(*) FROM ladder_seats a "
            "JOIN ladder_seats b ON a.match_id = b.match_id AND a.bot_id <> b.bot_id "
            "JOIN ladder_matches m ON m.match_id = a.match_id "
            "WHERE m.game = ? AND m.started >= ?"
        )
        start = -1.0 if since is None else since
        counts: dict[frozenset[str], int] = {}
        with self.database.session() as db:
            if bot_ids is None:
                rows = db.rows(
                    f"{query} AND a.bot_id < b.bot_id GROUP BY a.bot_id, b.bot_id", (game, start)
                )
            else:
                wanted = set(bot_ids)
                rows = []
                for chunk in _chunks(wanted):
                    rows += db.rows(
                        f"{query} AND a.bot_id IN ({_marks(chunk)}) GROUP BY a.bot_id, b.bot_id",
                        (game, start, *chunk),
                    )
                # Each pair came once from each side: keep it from its smaller id's.
                rows = [row for row in rows if row[1] in wanted and row[0] < row[1]]
        for first, second, count in rows:
            counts[frozenset((first, second))] = int(count)
        return counts

    def seat_counts(
        self, game: str, *, bot_ids: Collection[str] | None = None
    ) -> dict[str, dict[int, int]]:
        """Return, per bot of ``game`` (of ``bot_ids`` when given), how many matches it
        played in each seat."""
        query = (
            "SELECT s.bot_id, s.seat, COUNT(*) FROM ladder_seats s "
            "JOIN ladder_matches m ON m.match_id = s.match_id WHERE m.game = ?"
        )
        counts: dict[str, dict[int, int]] = {}
        with self.database.session() as db:
            if bot_ids is None:
                rows = db.rows(f"{query} GROUP BY s.bot_id, s.seat", (game,))
            else:
                rows = []
                for chunk in _chunks(bot_ids):
                    rows += db.rows(
                        f"{query} AND s.bot_id IN ({_marks(chunk)}) GROUP BY s.bot_id, s.seat",
                        (game, *chunk),
                    )
        for bot_id, seat, count in rows:
            counts.setdefault(bot_id, {})[seat] = int(count)
        return counts

    def ended_matches(self) -> list[str]:
        """Return the unrecorded ladder matches whose match has finished, oldest first."""
        with self.database.session() as db:
            rows = db.rows(
                "SELECT l.match_id FROM ladder_matches l JOIN matches m "
                "ON m.match_id = l.match_id WHERE l.finished IS NULL AND m.finished = ? "
                "ORDER BY l.started, l.match_id",
                (True,),
            )
        return [str(row[0]) for row in rows]

    # ------------------------------------------------------------------ several nodes

    def lead(self, owner: str, ttl: float) -> bool:
        """Take or renew the scheduling lease (see ``LadderStore``)."""
        with self.database.transaction() as db:
            # One statement: of two nodes at once the row lock orders them, and the
            # second sees the first's fresh lease (docs/decisions.md: Database faults).
            row = db.row(
                f"INSERT INTO ladder_lead (id, owner, expiry) VALUES (1, ?, {self._now} + ?) "
                "ON CONFLICT (id) DO UPDATE SET owner = excluded.owner, expiry = excluded.expiry "
                f"WHERE ladder_lead.owner = excluded.owner OR ladder_lead.expiry < {self._now} "
                "RETURNING owner",
                (owner, ttl),
            )
        return row is not None

    def release_lead(self, owner: str) -> None:
        """Let ``owner``'s scheduling lease expire now (see ``LadderStore``)."""
        with self.database.transaction() as db:
            db.run("UPDATE ladder_lead SET expiry = 0 WHERE id = 1 AND owner = ?", (owner,))

    def _fence(self, db: Session, leader: str | None) -> None:
        """Raise :class:`LeadLostError` unless ``leader`` (if any) holds an unexpired
        scheduling lease; the row lock this takes orders the write against a takeover."""
        if leader is None:
            return
        held = db.run(
            f"UPDATE ladder_lead SET owner = owner WHERE id = 1 AND owner = ? "
            f"AND expiry >= {self._now}",
            (leader,),
        )
        if held != 1:
            raise LeadLostError(leader)

    def present(
        self, bot_id: str, node: str, capacity: int, resume_seats: bool, now: float
    ) -> None:
        """Note that ``node`` holds a new Connect stream of ``bot_id``."""
        with self.database.transaction() as db:
            db.run(
                "INSERT INTO ladder_presence (bot_id, node, capacity, resume_seats, generation, "
                "seen, dropped, resumed_generation) VALUES (?, ?, ?, ?, 1, ?, NULL, ?) "
                "ON CONFLICT (bot_id) DO UPDATE "
                "SET node = excluded.node, capacity = excluded.capacity, "
                "resume_seats = excluded.resume_seats, "
                "generation = ladder_presence.generation + 1, seen = excluded.seen, "
                "dropped = NULL, resumed_generation = CASE WHEN excluded.resume_seats "
                "THEN ladder_presence.generation + 1 ELSE ladder_presence.resumed_generation END",
                (bot_id, node, capacity, resume_seats, now, 1 if resume_seats else 0),
            )

    def renew_presence(self, node: str, now: float) -> set[str]:
        """Renew the open streams ``node`` holds; return their bots."""
        with self.database.transaction() as db:
            rows = db.rows(
                "UPDATE ladder_presence SET seen = ? WHERE node = ? AND dropped IS NULL "
                "RETURNING bot_id",
                (now, node),
            )
        return {str(row[0]) for row in rows}

    def absent(self, bot_id: str, node: str, dropped: float | None) -> None:
        """Note that the stream ``node`` held for ``bot_id`` ended (see ``LadderStore``)."""
        with self.database.transaction() as db:
            if dropped is None:  # not the bot's doing: just no longer connected
                db.run(
                    "UPDATE ladder_presence SET seen = 0 WHERE bot_id = ? AND node = ?",
                    (bot_id, node),
                )
                return
            db.run(
                "UPDATE ladder_presence SET dropped = ? "
                "WHERE bot_id = ? AND node = ? AND dropped IS NULL",
                (dropped, bot_id, node),
            )

    def presence(
        self,
        *,
        fresh_since: float,
        game: str = "",
        bot_ids: Collection[str] | None = None,
        connected_only: bool = False,
    ) -> list[Presence]:
        """Return the presence of every bot (of ``game``, of ``bot_ids``) that has
        connected (that is connected, with ``connected_only``)."""
        query = (
            "SELECT p.bot_id, b.game, p.node, p.capacity, p.resume_seats, p.generation, "
            "p.dropped IS NULL AND p.seen >= ?, p.dropped FROM ladder_presence p "
            "JOIN ladder_bots b ON b.bot_id = p.bot_id WHERE (b.game = ? OR ? = '')"
        )
        start: tuple[Any, ...] = (fresh_since, game, game)
        if connected_only:
            query += " AND p.dropped IS NULL AND p.seen >= ?"
            start += (fresh_since,)
        with self.database.session() as db:
            if bot_ids is None:
                rows = db.rows(f"{query} ORDER BY p.bot_id", start)
            else:
                rows = []
                for chunk in _chunks(sorted(bot_ids)):
                    rows += db.rows(
                        f"{query} AND p.bot_id IN ({_marks(chunk)}) ORDER BY p.bot_id",
                        (*start, *chunk),
                    )
        return [
            Presence(
                bot_id=str(bot_id),
                game=str(bot_game),
                node=str(node),
                capacity=int(capacity),
                resume_seats=bool(resume_seats),
                generation=int(generation),
                connected=bool(connected),
                dropped=None if dropped is None else float(dropped),
            )
            for bot_id, bot_game, node, capacity, resume_seats, generation, connected, dropped in (
                rows
            )
        ]

    def add_assignments(self, assignments: Sequence[NodeAssignment]) -> None:
        """Queue assignments for the nodes of the bots' streams."""
        with self.database.transaction() as db:
            db.run_many(
                "INSERT INTO ladder_assignments (match_id, seat, bot_id, node, game, seat_token, "
                "address) VALUES (?, ?, ?, ?, ?, ?, ?) ON CONFLICT (match_id, seat) DO UPDATE "
                "SET bot_id = excluded.bot_id, node = excluded.node, "
                "seat_token = excluded.seat_token, address = excluded.address",
                [
                    (a.match_id, a.seat, a.bot_id, a.node, a.game, a.seat_token, a.address)
                    for a in assignments
                ],
            )

    def claim_assignments(self, node: str) -> list[NodeAssignment]:
        """Take (delete and return) the assignments queued for ``node``."""
        with self.database.transaction() as db:
            rows = db.rows(
                "DELETE FROM ladder_assignments WHERE node = ? "
                "RETURNING match_id, seat, bot_id, node, game, seat_token, address",
                (node,),
            )
        return sorted(
            (
                NodeAssignment(str(m), int(s), str(b), str(n), str(g), str(t), str(a))
                for m, s, b, n, g, t, a in rows
            ),
            key=lambda assignment: (assignment.match_id, assignment.seat),
        )

    def resumed_seats(self, node: str, *, fresh_since: float) -> list[ResumedSeat]:
        """Return the seats whose bot resumed since their token was issued, of the
        unfinished ladder matches ``node`` holds (see ``LadderStore``)."""
        with self.database.session() as db:
            rows = db.rows(
                "SELECT s.match_id, s.seat, s.bot_id, p.node, p.resumed_generation "
                "FROM ladder_seats s JOIN ladder_matches m ON m.match_id = s.match_id "
                "JOIN match_leases l ON l.match_id = s.match_id "
                "JOIN ladder_presence p ON p.bot_id = s.bot_id "
                "WHERE m.finished IS NULL AND l.owner = ? "
                "AND p.resumed_generation > s.token_generation "
                "AND p.dropped IS NULL AND p.seen >= ? ORDER BY s.match_id, s.seat",
                (node, fresh_since),
            )
        return [
            ResumedSeat(str(match_id), int(seat), str(bot_id), str(bot_node), int(generation))
            for match_id, seat, bot_id, bot_node, generation in rows
        ]

    def mark_resumed(self, match_id: str, seat: int, generation: int, node: str) -> bool:
        """Note that the seat's token was issued again for ``generation`` (fenced by the
        match's lease)."""
        with self.database.transaction() as db:
            changed = db.run(
                "UPDATE ladder_seats SET token_generation = ? "
                "WHERE match_id = ? AND seat = ? AND token_generation < ? AND EXISTS "
                "(SELECT 1 FROM match_leases WHERE match_id = ? AND owner = ?)",
                (generation, match_id, seat, generation, match_id, node),
            )
        return changed == 1

    def node_loads(self) -> dict[str, int]:
        """Return each live node's unfinished leased matches plus its unstarted requests."""
        with self.database.session() as db:
            rows = db.rows(
                "SELECT l.owner, COUNT(*) FROM match_leases l JOIN matches m "
                f"ON m.match_id = l.match_id WHERE m.finished = ? AND l.expiry >= {self._now} "
                "GROUP BY l.owner",
                (False,),
            )
            rows += db.rows(
                "SELECT node, COUNT(*) FROM ladder_requests WHERE match_id IS NULL GROUP BY node"
            )
        loads: dict[str, int] = {}
        for node, count in rows:
            loads[str(node)] = loads.get(str(node), 0) + int(count)
        return loads

    def request_matches(self, requests: Sequence[MatchRequest], *, leader: str) -> None:
        """Queue match requests for their nodes (fenced by the scheduling lease)."""
        with self.database.transaction() as db:
            self._fence(db, leader)
            db.run_many(
                "INSERT INTO ladder_requests (request_id, node, game, bots) VALUES (?, ?, ?, ?)",
                [(r.request_id, r.node, r.game, ",".join(r.bot_ids)) for r in requests],
            )

    def match_requests(self, *, node: str | None = None) -> list[MatchRequest]:
        """Return the queued requests (the unstarted ones of ``node`` when given)."""
        query = "SELECT request_id, node, game, bots, match_id FROM ladder_requests"
        with self.database.session() as db:
            if node is None:
                rows = db.rows(f"{query} ORDER BY request_id")
            else:
                rows = db.rows(
                    f"{query} WHERE node = ? AND match_id IS NULL ORDER BY request_id", (node,)
                )
        return [
            MatchRequest(
                str(request_id),
                str(to),
                str(game),
                tuple(str(bots).split(",")),
                None if match_id is None else str(match_id),
            )
            for request_id, to, game, bots, match_id in rows
        ]

    def start_requested(
        self, request_id: str, node: str, match_id: str, started: float, seats: Sequence[SeatRecord]
    ) -> bool:
        """Record the match ``node`` created for the request (see ``LadderStore``)."""
        with self.database.transaction() as db:
            # The guard is the write: of two starts of one request, the second finds it
            # started (or deleted by the scheduler as expired) and writes nothing.
            if (
                db.run(
                    "UPDATE ladder_requests SET match_id = ? "
                    "WHERE request_id = ? AND node = ? AND match_id IS NULL",
                    (match_id, request_id, node),
                )
                != 1
            ):
                return False
            row = db.row("SELECT game FROM ladder_requests WHERE request_id = ?", (request_id,))
            assert row is not None
            self._insert_match(db, match_id, str(row[0]), started, seats)
        return True

    def drop_requests(
        self, request_ids: Collection[str], *, leader: str, unstarted_only: bool = False
    ) -> set[str]:
        """Delete the requests (fenced by the scheduling lease; see ``LadderStore``)."""
        unstarted = " AND match_id IS NULL" if unstarted_only else ""
        dropped: set[str] = set()
        with self.database.transaction() as db:
            self._fence(db, leader)
            for chunk in _chunks(request_ids):
                rows = db.rows(
                    f"DELETE FROM ladder_requests WHERE request_id IN ({_marks(chunk)})"
                    f"{unstarted} RETURNING request_id",
                    tuple(chunk),
                )
                dropped |= {str(row[0]) for row in rows}
        return dropped

    def _with_seats(self, row: Any) -> LadderMatchRecord:
        match_id, game, started, finished, abandoned = row
        with self.database.session() as db:
            seats = db.rows(
                f"SELECT {_SEAT_COLUMNS} FROM ladder_seats WHERE match_id = ? ORDER BY seat",
                (match_id,),
            )
        return LadderMatchRecord(
            match_id=str(match_id),
            game=str(game),
            started=float(started),
            finished=None if finished is None else float(finished),
            abandoned=bool(abandoned),
            seats=tuple(_seat(seat) for seat in seats),
        )

    def close(self) -> None:
        """Close the database (for a ladder store opened on its own, in tools and tests)."""
        self.database.close()
