"""The plain records the store reads and writes: no engine types, moves are bytes."""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["Lease", "LeaseHolder", "StoredEvent", "StoredMatch", "StoredResult", "StoredSeat"]


@dataclass(frozen=True, slots=True)
class StoredSeat:
    """A seat of a stored match.

    Attributes:
        seat: The seat index.
        name: Its display name.
        token_hash: SHA-256 of the seat token, hex; the token itself is never stored.
        time_bank: The seat's time bank between decisions, seconds.
        timeouts: Times the seat ran out of time.
        illegal_moves: Moves of the seat rejected as illegal.
        stand_in_moves: Moves the server played for the seat.
        forfeit_reason: Why the seat forfeited, or ``None``.
    """

    seat: int
    name: str
    token_hash: str
    time_bank: float
    timeouts: int = 0
    illegal_moves: int = 0
    stand_in_moves: int = 0
    forfeit_reason: str | None = None


@dataclass(frozen=True, slots=True)
class StoredEvent:
    """One entry of a match's event log.

    Attributes:
        state_version: The version after the entry (0 for the start).
        time: Epoch seconds.
        kind: The match layer's event kind (``"move_applied"``, ...).
        seat: The seat that moved or forfeited.
        move: The move in the match codec's encoding.
        think_time: Seconds the seat used.
        by_timeout: Whether the server chose the move.
        reason: A forfeit or end reason.
        request_id: The ``request_id`` of the seat's command that made the entry.
    """

    state_version: int
    time: float
    kind: str
    seat: int | None = None
    move: bytes | None = None
    think_time: float | None = None
    by_timeout: bool = False
    reason: str | None = None
    request_id: str | None = None


@dataclass(frozen=True, slots=True)
class StoredResult:
    """The result of a finished match.

    Attributes:
        scores: Final score by seat.
        ranks: Place by seat, 1 = first.
        forfeited: Whether each seat forfeited.
        reason: The end reason.
        end_time: Epoch seconds.
    """

    scores: tuple[int, ...]
    ranks: tuple[int, ...]
    forfeited: tuple[bool, ...]
    reason: str
    end_time: float


@dataclass(frozen=True, slots=True)
class StoredMatch:
    """A stored match without its event log (:meth:`Store.events` reads that).

    Attributes:
        match_id: The match's id.
        sequence: Creation order, unique and increasing (larger is newer).
        game: The game's registry name.
        seat_count: Number of seats.
        seed: The match's seed.
        config: The full configuration, in the match codec's encoding.
        created_time: Epoch seconds.
        state_version: The version of the last stored log entry.
        seats: Every seat, by index.
        result: The result once finished.
        request_id: The ``request_id`` of the CreateMatch that made it, if any.
    """

    match_id: str
    sequence: int
    game: str
    seat_count: int
    seed: int
    config: bytes
    created_time: float
    state_version: int
    seats: tuple[StoredSeat, ...]
    result: StoredResult | None = None
    request_id: str | None = None

    @property
    def finished(self) -> bool:
        """Whether the match has a result."""
        return self.result is not None


@dataclass(frozen=True, slots=True)
class Lease:
    """A node's claim on the matches it runs, in a database several nodes share.

    Attributes:
        owner: The node's id, unique among the nodes (new at every start).
        address: Where bots reach the node (``botarena serve --advertise HOST:PORT``),
            which is also who the node is across restarts: started again at the same
            address, it takes back the leases its earlier start holds.
        ttl: Seconds a lease lasts unless renewed.
    """

    owner: str
    address: str
    ttl: float


@dataclass(frozen=True, slots=True)
class LeaseHolder:
    """Who holds a match's lease.

    Attributes:
        owner: The holding node's id.
        address: Where bots reach it.
        expired: Whether the lease has run out (the node stopped renewing it).
    """

    owner: str
    address: str
    expired: bool
