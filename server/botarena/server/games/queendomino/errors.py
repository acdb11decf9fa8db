"""The stable reason codes with which the Queendomino engine rejects a move.

Every rejection raises :class:`~botarena.server.games._core.IllegalMoveError` whose
``reason`` is one of these codes. The codes are part of the public protocol: add new
ones, never rename or reuse one.
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
    MALFORMED_MOVE = "MALFORMED_MOVE"
    """The move is not a Queendomino move, or a field has the wrong type or range."""
    WRONG_STEP = "WRONG_STEP"
    """The move belongs to another step of the turn than the one due now (3)."""
    SKIP_NOT_ALLOWED = "SKIP_NOT_ALLOWED"
    """``Skip`` in a mandatory step: placing (A) and choosing (E) cannot be skipped (3)."""
    DISCARD_NOT_ALLOWED = "DISCARD_NOT_ALLOWED"
    """The domino fits somewhere, so it must be placed, not discarded (3A)."""
    NOT_ENOUGH_KNIGHTS = "NOT_ENOUGH_KNIGHTS"
    """The seat has fewer unplaced knights than the tax names (3B)."""
    KNIGHT_NOT_ON_DOMINO = "KNIGHT_NOT_ON_DOMINO"
    """A knight must stand on a square of the domino just placed, one per square (3B)."""
    BUILDING_NOT_AVAILABLE = "BUILDING_NOT_AVAILABLE"
    """The builders' board space is empty or does not exist (3C, 3D)."""
    NOT_AN_OPEN_TOWN_SQUARE = "NOT_AN_OPEN_TOWN_SQUARE"
    """A building must go on a town square of the seat's kingdom without a building (3C)."""
    NOT_ENOUGH_COINS = "NOT_ENOUGH_COINS"
    """The seat cannot pay the building's price or the dragon's coin (3C, 3D)."""
    DRAGON_NOT_AVAILABLE = "DRAGON_NOT_AVAILABLE"
    """The dragon already left its cave this round, or the seat hosts the queen (3D)."""
    DOMINO_NOT_AVAILABLE = "DOMINO_NOT_AVAILABLE"
    """The chosen domino is not in the next line or already has a king on it (3E)."""
