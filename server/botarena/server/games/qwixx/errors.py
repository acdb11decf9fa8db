"""The stable reason codes with which the Qwixx engine rejects a move.

Every rejection raises :class:`~botarena.server.games._core.IllegalMoveError` (or one of
its subclasses) whose ``reason`` is one of these codes. The codes are part of the public
protocol: add new ones, never rename or reuse one.
"""

from __future__ import annotations

from enum import StrEnum

__all__ = ["QwixxReason"]


class QwixxReason(StrEnum):
    """Why a Qwixx move was rejected, with the RULES.md section each code enforces."""

    MALFORMED_MOVE = "MALFORMED_MOVE"
    """The move is not a Qwixx move, or names no row colour, number or white die."""
    WRONG_ACTION = "WRONG_ACTION"
    """A colour-sum move in action 1 or a white-sum move in action 2 (A turn)."""
    NOT_ACTIVE_SEAT = "NOT_ACTIVE_SEAT"
    """A seat other than the active one tried to mark a colour sum (A turn, 2)."""
    ALREADY_DECIDED = "ALREADY_DECIDED"
    """The seat has already submitted its sealed action-1 choice this turn (A turn, 1)."""
    WRONG_SUM = "WRONG_SUM"
    """An action-1 mark of a number other than the sum of the white dice (A turn, 1)."""
    ROW_LOCKED = "ROW_LOCKED"
    """The row is locked: nobody may mark it and its die is out of play (Marking)."""
    NUMBER_NOT_AVAILABLE = "NUMBER_NOT_AVAILABLE"
    """The number is already marked or lies left of the row's right-most mark (Marking)."""
    LOCK_NEEDS_FIVE_MARKS = "LOCK_NEEDS_FIVE_MARKS"
    """The row's last number, with fewer than five marks in that row (Marking)."""
    NOT_YOUR_TURN = "NOT_YOUR_TURN"
    """The seat owes no decision now (raised as ``NotYourTurnError``)."""
    GAME_OVER = "GAME_OVER"
    """The game has ended (raised as ``GameOverError``)."""
