"""The ``Store`` protocol: the one interface the server persists through."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Protocol

from botarena.server.store._records import (
    Lease,
    LeaseHolder,
    StoredEvent,
    StoredMatch,
    StoredResult,
    StoredSeat,
)

if TYPE_CHECKING:
    from botarena.server.store.ladder import LadderStore

__all__ = ["Store"]


class Store(Protocol):
    """Durable matches, event logs and results.

    Methods are synchronous: the embedded SQLite commits in tens of microseconds, a
    PostgreSQL on the same host in hundreds, and the server calls them from its one event
    loop thread. Every write method is one transaction: when it returns, its data
    survives a crash of the process.

    Several nodes that share one database hold each unfinished match through a lease
    (:class:`Lease`): the writes of a match take the node's lease, and fail with
    :class:`LeaseLostError` once another node holds it.
    """

    def create_match(
        self, match: StoredMatch, events: Sequence[StoredEvent], *, lease: Lease | None = None
    ) -> None:
        """Store a new match with its seats and first log entries, and with ``lease``
        hold it for that node.

        Raises:
            StoreError: ``match.match_id`` or ``match.sequence`` is taken.
        """
        ...

    def record(
        self,
        match_id: str,
        events: Sequence[StoredEvent],
        seats: Sequence[StoredSeat],
        result: StoredResult | None = None,
        *,
        lease: Lease | None = None,
    ) -> None:
        """Append log entries, update the seats' clocks, counters and token hashes, and
        store the result if the match has finished, all in one transaction.

        With ``lease`` the write happens only while that node holds the match's lease,
        which it renews; a result ends the lease.

        Raises:
            LeaseLostError: Another node holds the lease; nothing was written.
            StoreError: An entry's version is taken or the match is unknown.
        """
        ...

    def load_match(self, match_id: str) -> StoredMatch | None:
        """Return the match ``match_id``, or ``None``."""
        ...

    def events(self, match_id: str) -> list[StoredEvent]:
        """Return the event log of a match in version order (empty if unknown)."""
        ...

    def match_created_by(self, request_id: str) -> str | None:
        """Return the id of the match that a CreateMatch with ``request_id`` made, or
        ``None``."""
        ...

    def unfinished_matches(self) -> list[StoredMatch]:
        """Return every match without a result, oldest first."""
        ...

    def list_matches(
        self,
        *,
        game: str = "",
        finished: bool | None = None,
        end_reason: str = "",
        before_sequence: int | None = None,
        limit: int = 50,
    ) -> list[StoredMatch]:
        """Return matches newest first, each with its seats and result (a summary needs
        nothing else).

        Args:
            game: Only this game; empty for every game.
            finished: Only finished (True) or unfinished (False) matches; ``None``: both.
            end_reason: Only finished matches whose result has this reason; empty: any.
            before_sequence: Only matches older than this sequence number.
            limit: At most this many.
        """
        ...

    def last_sequence(self) -> int:
        """Return the largest match sequence number stored, 0 when there is none."""
        ...

    def next_sequence(self) -> int:
        """Return a match sequence number larger than every stored one and every one
        given before (by any store on the database, for PostgreSQL)."""
        ...

    def lease_holder(self, match_id: str) -> LeaseHolder | None:
        """Return who holds the lease of ``match_id`` (expired or not), or ``None``."""
        ...

    def lease_holders(self, match_ids: Sequence[str]) -> dict[str, LeaseHolder]:
        """Return who holds the lease of each of ``match_ids`` that has one."""
        ...

    def renew_leases(self, lease: Lease) -> set[str]:
        """Extend every lease ``lease.owner`` holds by ``lease.ttl``; return their
        matches (a match missing from it is no longer this node's)."""
        ...

    def claim_leases(
        self, lease: Lease, *, match_id: str | None = None, limit: int = 100
    ) -> list[str]:
        """Take for ``lease`` the expired leases and the unfinished matches that have
        none (only ``match_id`` when given), at most ``limit`` of each; return them."""
        ...

    def fair_share(self, owner: str) -> int:
        """Return how many expired leases ``owner`` may take over now: the expired ones
        shared out over the live nodes (the owners of unexpired leases, and ``owner``),
        rounded up, at least 1, so the survivors of a dead node split its matches."""
        ...

    def take_back_leases(self, lease: Lease, *, match_id: str | None = None) -> list[str]:
        """Take for ``lease`` the leases, expired or not, that another owner holds at
        ``lease.address``: an earlier start of the same node (only ``match_id`` when
        given); return them. The earlier owner writes nothing more (``LeaseLostError``)."""
        ...

    def release_leases(self, owner: str) -> None:
        """Let every lease of ``owner`` expire now (a node that stops cleanly)."""
        ...

    def ladder_store(self) -> LadderStore:
        """Return the ladder's tables, on this store's database."""
        ...

    def close(self) -> None:
        """Release the store; further calls fail."""
        ...
