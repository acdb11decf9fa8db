"""The ``Store`` protocol: the one interface the server persists through."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol

from botarena.server.store._records import StoredEvent, StoredMatch, StoredResult, StoredSeat

__all__ = ["Store"]


class Store(Protocol):
    """Durable matches, event logs and results.

    Methods are synchronous: the embedded SQLite commits in tens of microseconds, and the
    server calls them from its one event loop thread. Every write method is one
    transaction: when it returns, its data survives a crash of the process.
    """

    def create_match(self, match: StoredMatch, events: Sequence[StoredEvent]) -> None:
        """Store a new match with its seats and first log entries.

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
    ) -> None:
        """Append log entries, update the seats' clocks, counters and token hashes, and
        store the result if the match has finished, all in one transaction.

        Raises:
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

    def close(self) -> None:
        """Release the store; further calls fail."""
        ...
