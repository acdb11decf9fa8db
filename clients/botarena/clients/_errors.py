# mypy: disable-error-code="import-untyped"
"""The one place that turns a failed gRPC call into a typed :class:`BotarenaError`.

The server reports every failure as a ``google.rpc.Status`` whose details hold an
``ErrorInfo(reason, domain="botarena", metadata)`` (match_service.proto: ErrorReason).
:func:`from_grpc_error` picks the exception class from the reason first, then from the
status code, as google api-core's ``from_grpc_error`` does, so a caller can catch
``NotYourTurnError`` without knowing codes, or ``FailedPreconditionError`` for a whole
family. Illegal moves carry the engine's own reason (``CELL_OCCUPIED``, ...) and
``metadata["category"] == "ILLEGAL_MOVE"``; they all become :class:`IllegalMoveError`
without the SDK listing every game's reasons.
"""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType
from typing import Any, ClassVar

import grpc
from google.rpc import error_details_pb2, status_pb2

__all__ = [
    "DOMAIN",
    "AdmissionRefusedError",
    "AlreadyExistsError",
    "AuthenticationError",
    "BotNotFoundError",
    "BotarenaError",
    "CallCancelledError",
    "DeadlineExceededError",
    "FailedPreconditionError",
    "IllegalMoveError",
    "InvalidRequestError",
    "MatchFinishedError",
    "MatchNotFinishedError",
    "MatchNotFoundError",
    "MatchOnOtherNodeError",
    "NotFoundError",
    "NotYourTurnError",
    "PermissionDeniedError",
    "RateLimitedError",
    "ResourceExhaustedError",
    "SeatForfeitedError",
    "StaleStateError",
    "StateVersionAheadError",
    "StoreUnavailableError",
    "TlsError",
    "TransientError",
    "UnavailableError",
    "from_grpc_error",
]

DOMAIN = "botarena"
"""The ``ErrorInfo.domain`` of every error the botarena server returns."""

_STATUS_DETAILS_KEY = "grpc-status-details-bin"
_ILLEGAL_MOVE_CATEGORY = "ILLEGAL_MOVE"


class BotarenaError(Exception):
    """A call to the botarena server failed.

    Attributes:
        code: The gRPC status code.
        reason: ``ErrorInfo.reason``: an ``ErrorReason`` name without its prefix
            (``NOT_YOUR_TURN``) or a game's illegal-move reason (``CELL_OCCUPIED``);
            ``None`` when the status carried no botarena ``ErrorInfo`` (transport errors).
        message: The status message, a sentence for humans.
        metadata: ``ErrorInfo.metadata`` (for example ``{"field": "config.seat_count"}``).
        field_violations: ``BadRequest`` details, field name to description.
        retryable: True when repeating the same call (with the same ``request_id``) may
            succeed: the server was unreachable, the call ran out of time or was dropped
            (CANCELLED), or the server refused a new match for now (admission control).
        retry_after: The server's ``RetryInfo`` hint in seconds, or ``None``.
    """

    retryable: ClassVar[bool] = False

    def __init__(
        self,
        code: grpc.StatusCode,
        reason: str | None,
        message: str,
        metadata: Mapping[str, str] | None = None,
        *,
        field_violations: Mapping[str, str] | None = None,
        retry_after: float | None = None,
    ) -> None:
        super().__init__(code, reason, message)
        self.retry_after = retry_after
        self.code = code
        self.reason = reason
        self.message = message
        self.metadata: Mapping[str, str] = MappingProxyType(dict(metadata or {}))
        self.field_violations: Mapping[str, str] = MappingProxyType(dict(field_violations or {}))

    def __str__(self) -> str:
        label = self.code.name if self.reason is None else f"{self.code.name} {self.reason}"
        return f"{label}: {self.message}"


class InvalidRequestError(BotarenaError):
    """INVALID_ARGUMENT: a field is missing or malformed (``field_violations`` names it)."""


class NotFoundError(BotarenaError):
    """NOT_FOUND: the match or bot the call names does not exist."""


class MatchNotFoundError(NotFoundError):
    """``MATCH_NOT_FOUND``: no match has that name."""


class BotNotFoundError(NotFoundError):
    """``BOT_NOT_FOUND``: no ladder bot has that name."""


class AlreadyExistsError(BotarenaError):
    """ALREADY_EXISTS: the name is taken (``BOT_NAME_TAKEN``: a bot of that game has it),
    or a CreateMatch ``request_id`` made a match before a server restart
    (``REQUEST_ID_USED``; ``metadata["match"]`` names it) or was used by another caller
    or for another config (``REQUEST_ID_CONFLICT``)."""


class AuthenticationError(BotarenaError):
    """UNAUTHENTICATED: the call needs a token (``SEAT_TOKEN_REQUIRED``,
    ``ADMIN_TOKEN_REQUIRED``) or a ladder bot's secret (``BOT_SECRET_REQUIRED``,
    ``BOT_SECRET_INVALID``)."""


class PermissionDeniedError(BotarenaError):
    """PERMISSION_DENIED: the token is not a seat token of this match."""


class StaleStateError(BotarenaError):
    """ABORTED ``STALE_STATE_VERSION``: the match moved on since the move was chosen."""


class StateVersionAheadError(BotarenaError):
    """OUT_OF_RANGE ``STATE_VERSION_AHEAD``: a stream asked to resume after a version the
    match has not reached (the server lost the match's later history)."""


class ResourceExhaustedError(BotarenaError):
    """RESOURCE_EXHAUSTED: a limit of the server; a request larger than it accepts gets
    this class itself (no reason)."""


class AdmissionRefusedError(ResourceExhaustedError):
    """``TOO_MANY_MATCHES``, ``CREATE_RATE_LIMITED``: the server admits no new match now
    (``metadata["limit"]`` names the limit). Retryable: wait ``retry_after`` seconds and
    repeat the call with the same ``request_id``."""

    retryable = True


class RateLimitedError(ResourceExhaustedError):
    """``RATE_LIMITED``: the caller spends its call budget (or its bot registrations)
    faster than the server allows (``metadata["limit"]`` names the budget). Retryable:
    wait ``retry_after`` seconds and repeat the call (the same ``request_id``); a caller
    that repeats it sooner has its next refusal held until then."""

    retryable = True


class FailedPreconditionError(BotarenaError):
    """FAILED_PRECONDITION: the match's state refuses the command."""


class NotYourTurnError(FailedPreconditionError):
    """``NOT_YOUR_TURN``: the seat is not among the seats that must act now."""


class MatchFinishedError(FailedPreconditionError):
    """``MATCH_FINISHED``: the match is over."""


class MatchNotFinishedError(FailedPreconditionError):
    """``MATCH_NOT_FINISHED``: the match is still running (its replay comes at the end)."""


class MatchOnOtherNodeError(FailedPreconditionError):
    """``MATCH_ON_OTHER_NODE``: another node of a cluster (servers sharing one
    PostgreSQL) runs the match; :attr:`node` is where. ``run_bot`` and the ladder's bots
    follow it by themselves."""

    @property
    def node(self) -> str:
        """The ``HOST:PORT`` of the node that runs the match."""
        return self.metadata.get("node", "")


class SeatForfeitedError(FailedPreconditionError):
    """``SEAT_FORFEITED``: the seat has forfeited and takes no further turns."""


class IllegalMoveError(FailedPreconditionError):
    """The game's rules reject the move; ``reason`` is the engine's code.

    The server counts rejected moves per decision; after ``max_illegal_moves`` it applies
    the match's timeout policy to the seat.
    """

    @property
    def illegal_moves(self) -> int | None:
        """How many moves the seat has had rejected in this decision, if reported."""
        return _int_or_none(self.metadata.get("illegal_moves"))

    @property
    def max_illegal_moves(self) -> int | None:
        """The rejections allowed per decision, if reported."""
        return _int_or_none(self.metadata.get("max_illegal_moves"))

    @property
    def policy_applied(self) -> bool:
        """True when this rejection used up the allowance and the timeout policy applied."""
        used, limit = self.illegal_moves, self.max_illegal_moves
        return used is not None and limit is not None and used >= limit


class TransientError(BotarenaError):
    """The server could not be reached, did not answer in time or dropped the call;
    retrying may work."""

    retryable = True


class UnavailableError(TransientError):
    """UNAVAILABLE: no connection to the server, or it dropped."""


class StoreUnavailableError(UnavailableError):
    """UNAVAILABLE (``STORE_UNAVAILABLE``): the server is up but cannot reach its
    database for now (a PostgreSQL restart); nothing the call asked for happened yet.
    Retried like any :class:`UnavailableError`, after the server's ``retry_after``."""


class DeadlineExceededError(TransientError):
    """DEADLINE_EXCEEDED: the call's timeout passed before the server answered."""


class CallCancelledError(TransientError):
    """CANCELLED by the server's side: grpc dropped the call before the server took it
    (too many calls arrived at once, as in a reconnect storm after a restart), or the
    server stopped while serving it. A ``grpc.aio`` call this process cancels, or whose
    channel it closes, raises ``asyncio.CancelledError`` instead."""


class TlsError(BotarenaError):
    """UNAVAILABLE because client and server do not agree on TLS: the server's certificate
    is not signed by a trusted CA or does not name the host, or one side speaks TLS and
    the other plaintext. The message names the likely cause. Not retryable: the
    connection's settings must change (``ServerTarget``, docs/bots.md)."""


_BY_REASON: Mapping[str, type[BotarenaError]] = MappingProxyType(
    {
        "MALFORMED_REQUEST": InvalidRequestError,
        "UNKNOWN_GAME": InvalidRequestError,
        "INVALID_SEAT_COUNT": InvalidRequestError,
        "INVALID_TIME_CONTROL": InvalidRequestError,
        "INVALID_PAGE_TOKEN": InvalidRequestError,
        "MOVE_EMPTY": InvalidRequestError,
        "MOVE_GAME_MISMATCH": InvalidRequestError,
        "ADMIN_TOKEN_REQUIRED": AuthenticationError,
        "SEAT_TOKEN_REQUIRED": AuthenticationError,
        "SEAT_TOKEN_INVALID": PermissionDeniedError,
        "TOO_MANY_MATCHES": AdmissionRefusedError,
        "CREATE_RATE_LIMITED": AdmissionRefusedError,
        "RATE_LIMITED": RateLimitedError,
        "MATCH_NOT_FOUND": MatchNotFoundError,
        "BOT_NOT_FOUND": BotNotFoundError,
        "STALE_STATE_VERSION": StaleStateError,
        "STATE_VERSION_AHEAD": StateVersionAheadError,
        "NOT_YOUR_TURN": NotYourTurnError,
        "MATCH_FINISHED": MatchFinishedError,
        "MATCH_NOT_FINISHED": MatchNotFinishedError,
        "MATCH_ON_OTHER_NODE": MatchOnOtherNodeError,
        "SEAT_FORFEITED": SeatForfeitedError,
        "BOT_SECRET_REQUIRED": AuthenticationError,
        "BOT_SECRET_INVALID": AuthenticationError,
        "BOT_NAME_TAKEN": AlreadyExistsError,
        "REQUEST_ID_USED": AlreadyExistsError,
        "REQUEST_ID_CONFLICT": AlreadyExistsError,
        "STORE_UNAVAILABLE": StoreUnavailableError,
    }
)

_BY_CODE: Mapping[grpc.StatusCode, type[BotarenaError]] = MappingProxyType(
    {
        grpc.StatusCode.INVALID_ARGUMENT: InvalidRequestError,
        grpc.StatusCode.NOT_FOUND: NotFoundError,
        grpc.StatusCode.ALREADY_EXISTS: AlreadyExistsError,
        grpc.StatusCode.UNAUTHENTICATED: AuthenticationError,
        grpc.StatusCode.PERMISSION_DENIED: PermissionDeniedError,
        grpc.StatusCode.ABORTED: StaleStateError,
        grpc.StatusCode.OUT_OF_RANGE: StateVersionAheadError,
        grpc.StatusCode.RESOURCE_EXHAUSTED: ResourceExhaustedError,
        grpc.StatusCode.FAILED_PRECONDITION: FailedPreconditionError,
        grpc.StatusCode.UNAVAILABLE: UnavailableError,
        grpc.StatusCode.DEADLINE_EXCEEDED: DeadlineExceededError,
        grpc.StatusCode.CANCELLED: CallCancelledError,
    }
)


def from_grpc_error(error: grpc.RpcError) -> BotarenaError:
    """Return the typed exception for a failed call (sync or ``grpc.aio``).

    The class is chosen by ``ErrorInfo.reason`` when the status carries a botarena
    ``ErrorInfo``, by the illegal-move category next, by the status code last, and is
    :class:`BotarenaError` itself when nothing matches.

    Args:
        error: The error the gRPC call raised; it must be a call error (with ``code()``).

    Returns:
        The exception to raise, typically ``raise from_grpc_error(exc) from exc``.
    """
    code = _call(error, "code") or grpc.StatusCode.UNKNOWN
    message = _call(error, "details") or ""
    reason: str | None = None
    metadata: dict[str, str] = {}
    violations: dict[str, str] = {}
    retry_after: float | None = None
    status = _rich_status(_call(error, "trailing_metadata") or ())
    if status is not None:
        message = status.message or message
        for detail in status.details:
            info = error_details_pb2.ErrorInfo()
            bad_request = error_details_pb2.BadRequest()
            retry = error_details_pb2.RetryInfo()
            if detail.Unpack(info):
                if info.domain == DOMAIN:
                    reason, metadata = info.reason, dict(info.metadata)
            elif detail.Unpack(bad_request):
                for violation in bad_request.field_violations:
                    violations[violation.field] = violation.description
            elif detail.Unpack(retry):
                retry_after = retry.retry_delay.ToNanoseconds() / 1e9
    cls = _class_for(code, reason, metadata)
    return cls(
        code, reason, message, metadata, field_violations=violations, retry_after=retry_after
    )


def _class_for(
    code: grpc.StatusCode, reason: str | None, metadata: Mapping[str, str]
) -> type[BotarenaError]:
    if reason is not None and reason in _BY_REASON:
        return _BY_REASON[reason]
    if reason is not None and metadata.get("category") == _ILLEGAL_MOVE_CATEGORY:
        return IllegalMoveError
    return _BY_CODE.get(code, BotarenaError)


def _rich_status(trailing_metadata: Any) -> Any:
    for key, value in trailing_metadata:
        if key == _STATUS_DETAILS_KEY:
            try:
                return status_pb2.Status.FromString(value)
            except Exception:  # a garbled detail must not hide the status code itself
                return None
    return None


def _call(error: grpc.RpcError, name: str) -> Any:
    # grpc.RpcError itself has no methods; the call errors that subclass it do.
    method = getattr(error, name, None)
    return method() if callable(method) else None


def _int_or_none(text: str | None) -> int | None:
    try:
        return None if text is None else int(text)
    except ValueError:
        return None
