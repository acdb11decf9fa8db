# mypy: disable-error-code="import-untyped"
"""Status -> exception mapping: the reason decides first, then the illegal-move category,
then the status code (google api-core ``from_grpc_error``)."""

from __future__ import annotations

import grpc
import pytest
from google.protobuf import any_pb2
from google.rpc import error_details_pb2, status_pb2

from botarena import clients
from botarena.clients import (
    AdmissionRefusedError,
    AlreadyExistsError,
    AuthenticationError,
    BotarenaError,
    BotNotFoundError,
    CallCancelledError,
    DeadlineExceededError,
    FailedPreconditionError,
    IllegalMoveError,
    InvalidRequestError,
    MatchFinishedError,
    MatchNotFoundError,
    NotFoundError,
    NotYourTurnError,
    PermissionDeniedError,
    SeatForfeitedError,
    StaleStateError,
    StateVersionAheadError,
    UnavailableError,
    from_grpc_error,
)
from botarena.v1 import match_service_pb2


class FakeCallError(grpc.RpcError):  # type: ignore[misc]  # grpc is untyped: RpcError is Any
    """What a failed call raises: code, details and trailing metadata."""

    def __init__(
        self,
        code: grpc.StatusCode,
        details: str = "",
        trailing: tuple[tuple[str, bytes], ...] = (),
    ) -> None:
        super().__init__()
        self._code, self._details, self._trailing = code, details, trailing

    def code(self) -> grpc.StatusCode:
        return self._code

    def details(self) -> str:
        return self._details

    def trailing_metadata(self) -> tuple[tuple[str, bytes], ...]:
        return self._trailing


def rich_error(
    code: grpc.StatusCode,
    reason: str,
    *,
    metadata: dict[str, str] | None = None,
    domain: str = "botarena",
    message: str = "a sentence",
    violations: dict[str, str] | None = None,
) -> FakeCallError:
    details = []
    info = any_pb2.Any()
    info.Pack(error_details_pb2.ErrorInfo(reason=reason, domain=domain, metadata=metadata or {}))
    details.append(info)
    if violations:
        bad = any_pb2.Any()
        bad.Pack(
            error_details_pb2.BadRequest(
                field_violations=[
                    error_details_pb2.BadRequest.FieldViolation(field=f, description=d)
                    for f, d in violations.items()
                ]
            )
        )
        details.append(bad)
    status = status_pb2.Status(code=code.value[0], message=message, details=details)
    return FakeCallError(code, message, (("grpc-status-details-bin", status.SerializeToString()),))


CASES = [
    (grpc.StatusCode.INVALID_ARGUMENT, "MALFORMED_REQUEST", InvalidRequestError),
    (grpc.StatusCode.INVALID_ARGUMENT, "UNKNOWN_GAME", InvalidRequestError),
    (grpc.StatusCode.INVALID_ARGUMENT, "MOVE_GAME_MISMATCH", InvalidRequestError),
    (grpc.StatusCode.UNAUTHENTICATED, "ADMIN_TOKEN_REQUIRED", AuthenticationError),
    (grpc.StatusCode.UNAUTHENTICATED, "SEAT_TOKEN_REQUIRED", AuthenticationError),
    (grpc.StatusCode.PERMISSION_DENIED, "SEAT_TOKEN_INVALID", PermissionDeniedError),
    (grpc.StatusCode.RESOURCE_EXHAUSTED, "TOO_MANY_MATCHES", AdmissionRefusedError),
    (grpc.StatusCode.RESOURCE_EXHAUSTED, "CREATE_RATE_LIMITED", AdmissionRefusedError),
    (grpc.StatusCode.ALREADY_EXISTS, "REQUEST_ID_CONFLICT", AlreadyExistsError),
    (grpc.StatusCode.NOT_FOUND, "MATCH_NOT_FOUND", MatchNotFoundError),
    (grpc.StatusCode.NOT_FOUND, "BOT_NOT_FOUND", BotNotFoundError),
    (grpc.StatusCode.NOT_FOUND, "SOMETHING_NEW", NotFoundError),
    (grpc.StatusCode.ABORTED, "STALE_STATE_VERSION", StaleStateError),
    (grpc.StatusCode.OUT_OF_RANGE, "STATE_VERSION_AHEAD", StateVersionAheadError),
    (grpc.StatusCode.FAILED_PRECONDITION, "NOT_YOUR_TURN", NotYourTurnError),
    (grpc.StatusCode.FAILED_PRECONDITION, "MATCH_FINISHED", MatchFinishedError),
    (grpc.StatusCode.FAILED_PRECONDITION, "SEAT_FORFEITED", SeatForfeitedError),
    # The reason wins over the code.
    (grpc.StatusCode.UNKNOWN, "NOT_YOUR_TURN", NotYourTurnError),
    # A reason the SDK does not know falls back to the code's class.
    (grpc.StatusCode.FAILED_PRECONDITION, "SOMETHING_NEW", FailedPreconditionError),
    (grpc.StatusCode.INTERNAL, "SOMETHING_NEW", BotarenaError),
]


@pytest.mark.parametrize(
    ("code", "reason", "expected"), CASES, ids=[f"{c.name}-{r}" for c, r, _ in CASES]
)
def test_the_reason_then_the_code_picks_the_class(
    code: grpc.StatusCode, reason: str, expected: type[BotarenaError]
) -> None:
    error = from_grpc_error(rich_error(code, reason, metadata={"seat": "1"}))
    assert type(error) is expected
    assert (error.code, error.reason, error.message) == (code, reason, "a sentence")
    assert dict(error.metadata) == {"seat": "1"}
    # Only admission refusals (a limit that frees up) and transport failures are retryable.
    assert error.retryable is (expected is AdmissionRefusedError)


def test_every_error_reason_of_the_proto_has_a_class() -> None:
    names = [
        name.removeprefix("ERROR_REASON_")
        for name, number in match_service_pb2.ErrorReason.items()
        if 0 < number < 100  # 100+ are the illegal Qwirkle moves, told by their category
    ]
    for name in names:
        # UNKNOWN has no class of its own: only the reason can pick one.
        error = from_grpc_error(rich_error(grpc.StatusCode.UNKNOWN, name))
        assert type(error) is not BotarenaError, name


def test_an_illegal_move_is_told_by_its_category_and_keeps_the_engine_reason() -> None:
    metadata = {"category": "ILLEGAL_MOVE", "illegal_moves": "2", "max_illegal_moves": "3"}
    error = from_grpc_error(
        rich_error(grpc.StatusCode.FAILED_PRECONDITION, "CELL_OCCUPIED", metadata=metadata)
    )
    assert isinstance(error, IllegalMoveError)
    assert isinstance(error, FailedPreconditionError)
    assert error.reason == "CELL_OCCUPIED"
    assert (error.illegal_moves, error.max_illegal_moves, error.policy_applied) == (2, 3, False)


def test_the_last_allowed_illegal_move_reports_the_policy_applied() -> None:
    metadata = {"category": "ILLEGAL_MOVE", "illegal_moves": "3", "max_illegal_moves": "3"}
    error = from_grpc_error(
        rich_error(grpc.StatusCode.FAILED_PRECONDITION, "GAP_IN_LINE", metadata=metadata)
    )
    assert isinstance(error, IllegalMoveError)
    assert error.policy_applied


def test_field_violations_of_bad_requests_are_kept() -> None:
    error = from_grpc_error(
        rich_error(
            grpc.StatusCode.INVALID_ARGUMENT,
            "INVALID_SEAT_COUNT",
            violations={"config.seat_count": "qwirkle takes 2..4 seats, not 9"},
        )
    )
    assert isinstance(error, InvalidRequestError)
    assert dict(error.field_violations) == {"config.seat_count": "qwirkle takes 2..4 seats, not 9"}


def test_error_info_of_another_domain_is_ignored() -> None:
    error = from_grpc_error(
        rich_error(grpc.StatusCode.FAILED_PRECONDITION, "NOT_YOUR_TURN", domain="example.com")
    )
    assert type(error) is FailedPreconditionError
    assert error.reason is None


@pytest.mark.parametrize(
    ("code", "expected"),
    [
        (grpc.StatusCode.UNAVAILABLE, UnavailableError),
        (grpc.StatusCode.DEADLINE_EXCEEDED, DeadlineExceededError),
        # A call grpc dropped in a burst (test_sdk_reconnect_storm.py).
        (grpc.StatusCode.CANCELLED, CallCancelledError),
        (grpc.StatusCode.PERMISSION_DENIED, PermissionDeniedError),
        (grpc.StatusCode.INTERNAL, BotarenaError),
    ],
    ids=lambda value: getattr(value, "name", getattr(value, "__name__", "")),
)
def test_a_status_without_details_is_classed_by_its_code(
    code: grpc.StatusCode, expected: type[BotarenaError]
) -> None:
    error = from_grpc_error(FakeCallError(code, "Socket closed"))
    assert type(error) is expected
    assert (error.reason, error.message) == (None, "Socket closed")
    assert error.retryable == (
        expected in {UnavailableError, DeadlineExceededError, CallCancelledError}
    )


def test_garbled_details_keep_the_code_and_message() -> None:
    trailing = (("grpc-status-details-bin", b"\xff\x00not a status"),)
    error = from_grpc_error(FakeCallError(grpc.StatusCode.NOT_FOUND, "gone", trailing))
    assert type(error) is NotFoundError
    assert (error.reason, error.message) == (None, "gone")


def test_the_string_names_code_reason_and_message() -> None:
    error = from_grpc_error(rich_error(grpc.StatusCode.ABORTED, "STALE_STATE_VERSION"))
    assert str(error) == "ABORTED STALE_STATE_VERSION: a sentence"
    assert str(from_grpc_error(FakeCallError(grpc.StatusCode.UNAVAILABLE, "down"))) == (
        "UNAVAILABLE: down"
    )


def test_every_exception_class_is_exported() -> None:
    exported = {getattr(clients, name) for name in clients.__all__}
    classes = {cls for _, _, cls in CASES} | {IllegalMoveError, UnavailableError}
    assert classes <= exported
