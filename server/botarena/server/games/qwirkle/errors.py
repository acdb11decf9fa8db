"""The stable reason codes with which the Qwirkle engine rejects a move.

Every rejection raises :class:`~botarena.server.games._core.IllegalMoveError` (or one of
its subclasses) whose ``reason`` is one of these codes. The codes are part of the public
protocol: add new ones, never rename or reuse one.
"""

from __future__ import annotations

from enum import StrEnum

__all__ = ["QwirkleReason"]


class QwirkleReason(StrEnum):
    """Why a Qwirkle move was rejected (the numbers are the checks in RULES.md)."""

    MALFORMED_MOVE = "MALFORMED_MOVE"
    """The move is not a Place, an Exchange or a Pass, or holds something not a tile."""
    EMPTY_MOVE = "EMPTY_MOVE"
    """A placement of no tiles or an exchange of no tiles (check 1)."""
    TILE_NOT_IN_RACK = "TILE_NOT_IN_RACK"
    """The rack does not hold the tiles, counted as a multiset (check 1)."""
    DUPLICATE_CELL = "DUPLICATE_CELL"
    """Two tiles of one placement target the same cell (check 2)."""
    CELL_OCCUPIED = "CELL_OCCUPIED"
    """A target cell already holds a tile (check 2)."""
    NOT_IN_ONE_LINE = "NOT_IN_ONE_LINE"
    """The placed cells do not share one row or one column (check 3)."""
    GAP_IN_LINE = "GAP_IN_LINE"
    """An empty cell lies between the placed cells (check 4)."""
    NOT_CONNECTED = "NOT_CONNECTED"
    """No placed tile touches a tile on the board orthogonally (check 5)."""
    LINE_TOO_LONG = "LINE_TOO_LONG"
    """A line would hold more than six tiles (check 6)."""
    DUPLICATE_IN_LINE = "DUPLICATE_IN_LINE"
    """A line would hold two identical tiles (check 6)."""
    LINE_MIXES_ATTRIBUTES = "LINE_MIXES_ATTRIBUTES"
    """A line would be neither one colour nor one shape (check 6)."""
    OPENING_TOO_SMALL = "OPENING_TOO_SMALL"
    """The first move places fewer tiles than the starter's opening size (setup 4)."""
    OPENING_NOT_AT_ORIGIN = "OPENING_NOT_AT_ORIGIN"
    """The first move does not cover the cell (0, 0) (setup 4, ruling)."""
    EXCHANGE_TOO_LARGE = "EXCHANGE_TOO_LARGE"
    """More tiles to exchange than the bag holds, or more than six (turn 2, ruling)."""
    EXCHANGE_NOT_ALLOWED = "EXCHANGE_NOT_ALLOWED"
    """No exchange now: the bag is empty (ruling) or it is the opening move."""
    PASS_NOT_ALLOWED = "PASS_NOT_ALLOWED"
    """A pass while the bag still has tiles or a placement exists (turn 3)."""
    NOT_YOUR_TURN = "NOT_YOUR_TURN"
    """The seat is not the one to act (raised as ``NotYourTurnError``)."""
    GAME_OVER = "GAME_OVER"
    """The game has ended (raised as ``GameOverError``)."""
