"""The match layer's typed errors, each carrying its protocol reason and status category.

Every error a command can raise is a :class:`MatchError` whose ``reason`` is an
``ErrorReason`` name of ``match_service.proto`` (without the ``ERROR_REASON_`` prefix) or,
for illegal moves, the engine's reason code. ``category`` names the gRPC status code the
service layer sends, so the service maps errors in one place without knowing each class
(and this layer never imports grpc).
"""

from __future__ import annotations

from collections.abc import Mapping
from enum import StrEnum
from types import MappingProxyType

__all__ = [
    "CreateRateLimitedError",
    "ErrorCategory",
    "IllegalMoveRejectedError",
    "InvalidRequestError",
    "MatchError",
    "MatchFinishedError",
    "MatchNotFoundError",
    "MatchOnOtherNodeError",
    "NotYourTurnError",
    "RateLimitedError",
    "RecoveryError",
    "RequestIdConflictError",
    "RequestIdUsedError",
    "SeatForfeitedError",
    "SeatTokenInvalidError",
    "SeatTokenRequiredError",
    "StaleStateVersionError",
    "StateVersionAheadError",
    "StoreUnavailableError",
    "TooManyMatchesError",
]


class ErrorCategory(StrEnum):
    """The kind of failure; the names are the gRPC status codes the service sends."""

    INVALID_ARGUMENT = "INVALID_ARGUMENT"
    NOT_FOUND = "NOT_FOUND"
    ALREADY_EXISTS = "ALREADY_EXISTS"
    UNAUTHENTICATED = "UNAUTHENTICATED"
    PERMISSION_DENIED = "PERMISSION_DENIED"
    FAILED_PRECONDITION = "FAILED_PRECONDITION"
    ABORTED = "ABORTED"
    OUT_OF_RANGE = "OUT_OF_RANGE"
    RESOURCE_EXHAUSTED = "RESOURCE_EXHAUSTED"
    UNAVAILABLE = "UNAVAILABLE"


class MatchError(Exception):
    """A command the match layer refuses.

    Attributes:
        reason: The machine-readable reason (an ``ErrorReason`` name or an engine code).
        message: A sentence a human understands.
        category: The status category the service maps the error to.
        metadata: Extra ``ErrorInfo`` metadata (string to string).
    """

    category: ErrorCategory = ErrorCategory.FAILED_PRECONDITION

    def __init__(
        self, reason: str, message: str, metadata: Mapping[str, str] | None = None
    ) -> None:
        super().__init__(f"{reason}: {message}")
        self.reason = reason
        self.message = message
        self.metadata: Mapping[str, str] = MappingProxyType(dict(metadata or {}))
        self.retry_after: float | None = None


class InvalidRequestError(MatchError):
    """A request field is missing, out of range or of the wrong form.

    ``reason`` is ``MALFORMED_REQUEST`` unless a more precise one applies
    (``UNKNOWN_GAME``, ``INVALID_SEAT_COUNT``, ``INVALID_TIME_CONTROL``, ``MOVE_EMPTY``,
    ``MOVE_GAME_MISMATCH``, ``INVALID_PAGE_TOKEN``). ``field`` names the offending field.
    """

    category = ErrorCategory.INVALID_ARGUMENT

    def __init__(self, field: str, message: str, reason: str = "MALFORMED_REQUEST") -> None:
        super().__init__(reason, f"{field}: {message}", {"field": field})
        self.field = field


class MatchNotFoundError(MatchError):
    """No match has the requested id."""

    category = ErrorCategory.NOT_FOUND

    def __init__(self, match_id: str) -> None:
        super().__init__("MATCH_NOT_FOUND", f"no match {match_id!r}", {"match": match_id})


class SeatTokenRequiredError(MatchError):
    """The command needs a seat token and the call has none."""

    category = ErrorCategory.UNAUTHENTICATED

    def __init__(self, reason: str = "SEAT_TOKEN_REQUIRED", message: str = "") -> None:
        super().__init__(reason, message or "this call needs a seat token")


class SeatTokenInvalidError(MatchError):
    """The token is not a seat token of the match."""

    category = ErrorCategory.PERMISSION_DENIED

    def __init__(self) -> None:
        super().__init__("SEAT_TOKEN_INVALID", "the token is not a seat token of this match")


class MatchFinishedError(MatchError):
    """The match is over; it accepts no more commands."""

    def __init__(self) -> None:
        super().__init__("MATCH_FINISHED", "the match is over")


class MatchNotFinishedError(MatchError):
    """The match is still running; what exists only after the end (its replay) does not
    exist yet."""

    def __init__(self, match_id: str) -> None:
        super().__init__(
            "MATCH_NOT_FINISHED", f"match {match_id} is still running", {"match": match_id}
        )


class SeatForfeitedError(MatchError):
    """The seat has forfeited and takes no further turns."""

    def __init__(self, seat: int) -> None:
        super().__init__("SEAT_FORFEITED", f"seat {seat} has forfeited", {"seat": str(seat)})


class NotYourTurnError(MatchError):
    """The seat is not among the seats that must act now."""

    def __init__(self, seat: int, to_act: frozenset[int]) -> None:
        waiting = ", ".join(str(s) for s in sorted(to_act)) or "nobody"
        super().__init__(
            "NOT_YOUR_TURN",
            f"seat {seat} may not act now; waiting for {waiting}",
            {"seat": str(seat)},
        )


class StaleStateVersionError(MatchError):
    """``expected_state_version`` does not match the state the decision was asked at."""

    category = ErrorCategory.ABORTED

    def __init__(self, expected: int, current: int) -> None:
        super().__init__(
            "STALE_STATE_VERSION",
            f"the move was chosen at version {expected}; the match is at {current}",
            {"expected_state_version": str(expected), "state_version": str(current)},
        )


class StateVersionAheadError(MatchError):
    """A stream asked to start after a version the match has not reached."""

    category = ErrorCategory.OUT_OF_RANGE

    def __init__(self, after: int, current: int) -> None:
        super().__init__(
            "STATE_VERSION_AHEAD",
            f"after_state_version {after} is beyond the current version {current}",
            {"state_version": str(current)},
        )


class IllegalMoveRejectedError(MatchError):
    """The engine rejected the move; ``reason`` is the engine's code.

    Attributes:
        illegal_moves: How many illegal moves the seat has made in this decision.
        policy_applied: True when this rejection used up the seat's allowance and the
            timeout policy was applied.
    """

    def __init__(self, reason: str, message: str, *, illegal_moves: int, limit: int) -> None:
        super().__init__(
            reason,
            message,
            {
                "category": "ILLEGAL_MOVE",
                "illegal_moves": str(illegal_moves),
                "max_illegal_moves": str(limit),
            },
        )
        self.illegal_moves = illegal_moves
        self.policy_applied = illegal_moves >= limit


_WHOSE = {
    "active_matches_per_caller": "for this caller",
    "fair_share": "for this caller while others wait (its fair share)",
}


class TooManyMatchesError(MatchError):
    """The server holds as many active matches as it may, in all or for this caller.

    ``metadata["limit"]`` names the limit (``active_matches``,
    ``active_matches_per_caller``, ``fair_share``: this caller holds its share of the
    server while others wait); ``retry_after`` is a hint in seconds.
    """

    category = ErrorCategory.RESOURCE_EXHAUSTED

    def __init__(
        self, limit: int, *, scope: str = "active_matches", retry_after: float = 1.0
    ) -> None:
        whose = _WHOSE.get(scope, "in all")
        super().__init__(
            "TOO_MANY_MATCHES",
            f"the server holds its limit of {limit} active matches {whose}; retry once "
            "some have ended",
            {"limit": scope, "max": str(limit)},
        )
        self.retry_after = retry_after


class StoreUnavailableError(MatchError):
    """The server cannot reach its database now (a restart of PostgreSQL): nothing the
    call asked for is done or shown yet; retry it with backoff and the same
    ``request_id``. ``retry_after`` is a hint in seconds. The database's own words (its
    address among them) stay in the server's log: callers are told only this."""

    category = ErrorCategory.UNAVAILABLE

    def __init__(self, *, retry_after: float = 0.5) -> None:
        super().__init__(
            "STORE_UNAVAILABLE", "the server's database is unavailable for now; retry soon"
        )
        self.retry_after = retry_after


class CreateRateLimitedError(MatchError):
    """The caller creates matches faster than the server allows."""

    category = ErrorCategory.RESOURCE_EXHAUSTED

    def __init__(self, per_minute: int, retry_after: float) -> None:
        super().__init__(
            "CREATE_RATE_LIMITED",
            f"this caller may create {per_minute} matches a minute; retry in {retry_after:.1f} s",
            {"limit": "creates_per_minute", "max": str(per_minute)},
        )
        self.retry_after = retry_after


class RateLimitedError(MatchError):
    """The caller spends its budget of calls, or of bot registrations, faster than the
    server allows (``metadata["limit"]``: ``call_budget``, ``play_budget``,
    ``registrations_per_hour``)."""

    category = ErrorCategory.RESOURCE_EXHAUSTED

    def __init__(self, scope: str, limit: float, retry_after: float) -> None:
        what = _BUDGETS.get(scope, scope)
        super().__init__(
            "RATE_LIMITED",
            f"this caller may spend {limit:g} {what}; retry in {retry_after:.1f} s",
            {"limit": scope, "max": f"{limit:g}"},
        )
        self.retry_after = retry_after


_BUDGETS = {
    "call_budget": "cost units of calls a second",
    "play_budget": "cost units of seats' and bots' own calls a second",
    "registrations_per_hour": "bot registrations an hour",
}


class RequestIdConflictError(MatchError):
    """A CreateMatch ``request_id`` was used by another caller or for another config."""

    category = ErrorCategory.ALREADY_EXISTS

    def __init__(self, request_id: str) -> None:
        super().__init__(
            "REQUEST_ID_CONFLICT",
            f"request_id {request_id[:64]!r} was used before by another caller or for "
            "another config; pick a new random one (a UUID)",
        )


class RequestIdUsedError(MatchError):
    """A CreateMatch ``request_id`` made a match whose seat tokens can no longer be shown.

    The first answer held the tokens, and the server keeps only their hashes once the
    match has left its memory (a restart): it names the match instead of making another.
    """

    category = ErrorCategory.ALREADY_EXISTS

    def __init__(self, request_id: str, match_id: str) -> None:
        super().__init__(
            "REQUEST_ID_USED",
            f"request_id {request_id[:64]!r} made match {match_id} before the server "
            "restarted; its seat tokens were shown only in that answer",
            {"match": match_id},
        )


class MatchOnOtherNodeError(MatchError):
    """Another node that shares the database runs the match; ``node`` is where bots reach
    it (``MATCH_ON_OTHER_NODE``, metadata ``node`` and ``match``)."""

    def __init__(self, match_id: str, node: str) -> None:
        super().__init__(
            "MATCH_ON_OTHER_NODE",
            f"match {match_id} runs on the node at {node}: call it there",
            {"node": node, "match": match_id},
        )
        self.node = node


class RecoveryError(Exception):
    """A stored match cannot be rebuilt: its log does not replay through the engine.

    Not a :class:`MatchError`: no client request causes it. The manager logs it and
    leaves the match out, so one damaged match never stops a server from starting.
    """
