"""The stable reason codes with which the Queendomino engine rejects a move.

Every rejection raises :class:`~botarena.server.games._core.IllegalMoveError` whose
``reason`` is one of these codes. The codes are part of the public protocol: add new
ones, never rename or reuse one. So far only the kingdom's placement codes exist.
"""

from __future__ import annotations

from enum import StrEnum

__all__ = ["QueendominoReason"]


class QueendominoReason(StrEnum):
    """Why a Queendomino move was rejected (the sections are RULES.md's)."""

    SQUARE_OCCUPIED = "SQUARE_OCCUPIED"
    """A square of the domino would cover the castle or a placed square (3A)."""
    KINGDOM_TOO_LARGE = "KINGDOM_TOO_LARGE"
    """The kingdom would no longer fit in its 5x5 or 7x7 box (2.7, 3A)."""
    NOT_CONNECTED = "NOT_CONNECTED"
    """No square of the domino touches the castle or a placed square edge to edge (3A)."""
    TERRAIN_MISMATCH = "TERRAIN_MISMATCH"
    """The domino touches the kingdom, but neither square touches the castle or a square
    of its own terrain (3A)."""
