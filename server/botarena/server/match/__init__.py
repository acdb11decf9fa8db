"""Matches in progress: seats, clocks, timeout/illegal-move/disconnect policies, event log.

Sits above the pure engines (``botarena.server.games``) and below the gRPC service; it
never imports grpc (DESIGN.md: Match layer). :class:`Match` is the synchronous aggregate
(testable with a fake clock); :class:`MatchManager` holds matches in an asyncio loop, runs
their deadline timers and streams their events, and with a ``botarena.server.store``
commits every change before announcing it and recovers unfinished matches after a restart.
"""

from __future__ import annotations

from botarena.server.match._admission import (
    DEFAULT_CALL_BUDGET,
    DEFAULT_MAX_ACTIVE_MATCHES,
    DEFAULT_MAX_CREATES_PER_MINUTE,
    DEFAULT_MAX_MATCHES_PER_CALLER,
    DEFAULT_MAX_REGISTRATIONS_PER_HOUR,
    DEFAULT_PLAY_BUDGET,
    DEFAULT_RESERVED_MATCHES,
    Admission,
    AdmissionLimits,
    CallBudget,
    CallBudgetLimits,
    Caller,
    Refusals,
)
from botarena.server.match._errors import (
    CreateRateLimitedError,
    ErrorCategory,
    IllegalMoveRejectedError,
    InvalidRequestError,
    MatchError,
    MatchFinishedError,
    MatchNotFinishedError,
    MatchNotFoundError,
    MatchOnOtherNodeError,
    NotYourTurnError,
    RateLimitedError,
    RecoveryError,
    RequestIdConflictError,
    RequestIdUsedError,
    SeatForfeitedError,
    SeatTokenInvalidError,
    SeatTokenRequiredError,
    StaleStateVersionError,
    StateVersionAheadError,
    TooManyMatchesError,
)
from botarena.server.match._hooks import GameHooks, GenericHooks, hooks_for, register_hooks
from botarena.server.match._manager import MatchManager, StreamItem
from botarena.server.match._match import (
    Clock,
    EventKind,
    ForfeitReason,
    LogEntry,
    Match,
    MatchResult,
    PendingDecision,
    ResignResult,
    SeatRecord,
    SubmitResult,
    hash_token,
)
from botarena.server.match._persistence import MatchCodec
from botarena.server.match._ranking import ABANDONED
from botarena.server.match._settings import (
    DEFAULT_MAX_ILLEGAL_MOVES,
    DEFAULT_MOVE_TIME_LIMIT,
    MatchSettings,
    Policies,
    TimeControl,
    TimeoutPolicy,
)

__all__ = [
    "ABANDONED",
    "DEFAULT_CALL_BUDGET",
    "DEFAULT_MAX_ACTIVE_MATCHES",
    "DEFAULT_MAX_CREATES_PER_MINUTE",
    "DEFAULT_MAX_ILLEGAL_MOVES",
    "DEFAULT_MAX_MATCHES_PER_CALLER",
    "DEFAULT_MAX_REGISTRATIONS_PER_HOUR",
    "DEFAULT_MOVE_TIME_LIMIT",
    "DEFAULT_PLAY_BUDGET",
    "DEFAULT_RESERVED_MATCHES",
    "Admission",
    "AdmissionLimits",
    "CallBudget",
    "CallBudgetLimits",
    "Caller",
    "Clock",
    "CreateRateLimitedError",
    "ErrorCategory",
    "EventKind",
    "ForfeitReason",
    "GameHooks",
    "GenericHooks",
    "IllegalMoveRejectedError",
    "InvalidRequestError",
    "LogEntry",
    "Match",
    "MatchCodec",
    "MatchError",
    "MatchFinishedError",
    "MatchManager",
    "MatchNotFinishedError",
    "MatchNotFoundError",
    "MatchOnOtherNodeError",
    "MatchResult",
    "MatchSettings",
    "NotYourTurnError",
    "PendingDecision",
    "Policies",
    "RateLimitedError",
    "RecoveryError",
    "Refusals",
    "RequestIdConflictError",
    "RequestIdUsedError",
    "ResignResult",
    "SeatForfeitedError",
    "SeatRecord",
    "SeatTokenInvalidError",
    "SeatTokenRequiredError",
    "StaleStateVersionError",
    "StateVersionAheadError",
    "StreamItem",
    "SubmitResult",
    "TimeControl",
    "TimeoutPolicy",
    "TooManyMatchesError",
    "hash_token",
    "hooks_for",
    "register_hooks",
]
