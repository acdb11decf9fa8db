"""The store's errors: a database that cannot be opened or is newer than the code."""

from __future__ import annotations

__all__ = ["LeaseLostError", "SchemaTooNewError", "StoreError"]


class StoreError(Exception):
    """The database cannot be used; the message says why and what to do."""


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
