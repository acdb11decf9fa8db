"""The store's errors: a database that cannot be opened, is away for now or is newer
than the code, and writes fenced out by a lease another node holds."""

from __future__ import annotations

__all__ = [
    "DatabaseUnavailableError",
    "LeadLostError",
    "LeaseLostError",
    "SchemaTooNewError",
    "StoreError",
]


class StoreError(Exception):
    """The database cannot be used; the message says why and what to do."""


class DatabaseUnavailableError(StoreError):
    """The database cannot be reached now (it restarts, or the network to it is down):
    the operation did not happen, or, for a commit cut off on its way, may have. Retry
    it with backoff; psycopg-pool reconnects on its own (docs/decisions.md: Database
    faults)."""


class SchemaTooNewError(StoreError):
    """The database was written by a newer botarena (it has unknown migrations).

    Args:
        found: The database's schema version.
        known: The newest version this code knows.
    """

    def __init__(self, found: int, known: int) -> None:
        super().__init__(
            f"the database has schema version {found}, newer than this botarena "
            f"understands ({known}); upgrade botarena or use another --db file"
        )
        self.found = found
        self.known = known


class LeaseLostError(StoreError):
    """A write for a match whose lease this node no longer holds: another node runs it
    now, and nothing of the write was kept."""

    def __init__(self, match_id: str) -> None:
        super().__init__(f"the lease of match {match_id} is held by another node")
        self.match_id = match_id


class LeadLostError(StoreError):
    """A ladder scheduling write by a node that no longer holds the ladder's lease:
    another node schedules now (it took the lease over after it expired), and nothing of
    the write was kept."""

    def __init__(self, owner: str) -> None:
        super().__init__(f"node {owner} no longer holds the ladder's scheduling lease")
        self.owner = owner
