"""The clock rules of a match's decisions, written once (match.proto: TimeControl).

A decision may take ``move_time_limit`` seconds, then draws on the seat's time bank; its
deadline is ``start + move_time_limit + bank``. How a decision ends sets the bank the seat
keeps (:class:`DecisionEnd`): its own move keeps what is left plus ``increment``, a
stand-in for illegal moves keeps what is left, and running out of time empties it.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum

from botarena.server.games import Seat
from botarena.server.match._settings import TimeControl

__all__ = ["DecisionClock", "DecisionEnd", "PendingDecision"]


@dataclass(slots=True)
class PendingDecision:
    """A decision the match is waiting for.

    Attributes:
        decision_id: Unique within the match; a new decision gets a new id.
        seat: The seat that must decide.
        requested_version: The state version at which the decision was requested.
        started_at: Monotonic time the decision's clock started (requested, or the seat
            showed up).
        started_time: The same instant in wall-clock epoch seconds.
        deadline: Monotonic time the seat's clock runs out (time bank included).
        deadline_time: The same instant in wall-clock epoch seconds.
        move_time_limit: The per-decision limit.
        time_bank: The seat's bank when the decision was requested.
        illegal_moves: Rejected moves so far in this decision.
    """

    decision_id: int
    seat: Seat
    requested_version: int
    started_at: float
    started_time: float
    deadline: float
    deadline_time: float
    move_time_limit: float
    time_bank: float
    illegal_moves: int = 0


class DecisionEnd(Enum):
    """How a decision ended, which sets the bank its seat keeps."""

    OWN_MOVE = "own_move"
    """The seat moved itself: it keeps what is left of its bank, plus the increment."""
    STAND_IN = "stand_in"
    """The illegal-move policy played a stand-in: the seat keeps what is left."""
    OUT_OF_TIME = "out_of_time"
    """A timeout, or a forfeit by the policy: the bank is empty."""


@dataclass(frozen=True, slots=True)
class DecisionClock:
    """Opens, starts and settles decisions under one match's :class:`TimeControl`."""

    move_time_limit: float
    increment: float

    @classmethod
    def of(cls, time_control: TimeControl) -> DecisionClock:
        """Return the clock of ``time_control``."""
        return cls(time_control.move_time_limit, time_control.increment)

    def open(
        self,
        decision_id: int,
        seat: Seat,
        version: int,
        bank: float,
        now: float,
        wall_now: float,
    ) -> PendingDecision:
        """Return a new decision of ``seat`` whose clock starts at ``now``."""
        total = self.move_time_limit + bank
        return PendingDecision(
            decision_id=decision_id,
            seat=seat,
            requested_version=version,
            started_at=now,
            started_time=wall_now,
            deadline=now + total,
            deadline_time=wall_now + total,
            move_time_limit=self.move_time_limit,
            time_bank=bank,
        )

    @staticmethod
    def wait_until(decision: PendingDecision, until: float, now: float, wall_now: float) -> None:
        """Hold ``decision``'s clock: its deadline becomes ``until`` (the join deadline)."""
        decision.deadline = until
        decision.deadline_time = wall_now + max(0.0, until - now)

    @staticmethod
    def start(decision: PendingDecision, now: float, wall_now: float) -> None:
        """Start ``decision``'s clock at ``now``, with its whole limit and bank."""
        total = decision.move_time_limit + decision.time_bank
        decision.started_at = now
        decision.started_time = wall_now
        decision.deadline = now + total
        decision.deadline_time = wall_now + total

    @staticmethod
    def bank_left(decision: PendingDecision, now: float) -> float:
        """Return what is left of the seat's bank at ``now`` (the overrun drains it)."""
        overrun = now - decision.started_at - decision.move_time_limit
        return max(0.0, decision.time_bank - max(0.0, overrun))

    def bank_after(self, decision: PendingDecision, now: float, end: DecisionEnd) -> float:
        """Return the bank the seat keeps after ``decision`` ended at ``now`` by ``end``."""
        if end is DecisionEnd.OUT_OF_TIME:
            return 0.0
        left = self.bank_left(decision, now)
        return left + self.increment if end is DecisionEnd.OWN_MOVE else left
