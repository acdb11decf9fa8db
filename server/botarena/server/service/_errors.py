# mypy: disable-error-code="import-untyped"
"""The one place that turns domain errors into ``google.rpc.Status`` replies.

Every :class:`~botarena.server.match.MatchError` becomes a status whose code is the
error's category and whose details hold ``ErrorInfo(reason, domain="botarena",
metadata)``, plus ``BadRequest`` naming the field for invalid arguments
(grpc ``examples/python/errors``; match_service.proto: ErrorReason). A database that
cannot be reached, wherever the call met it, is UNAVAILABLE with ``STORE_UNAVAILABLE``
(never UNKNOWN): clients retry it like any transient failure.
"""

from __future__ import annotations

import functools
from collections.abc import AsyncIterator, Awaitable, Callable
from typing import Any, NoReturn, TypeVar, cast

import grpc
import structlog
from google.protobuf import any_pb2
from google.rpc import code_pb2, error_details_pb2, status_pb2
from grpc_status import rpc_status

from botarena.server.match import InvalidRequestError, MatchError, StoreUnavailableError
from botarena.server.store import DatabaseUnavailableError

__all__ = ["DOMAIN", "abort", "handle_errors", "handle_stream_errors", "refuse", "status_of"]

DOMAIN = "botarena"
"""The ``ErrorInfo.domain`` of every error the service returns."""

_logger = structlog.get_logger("botarena.service")

_ServicerT = TypeVar("_ServicerT")
_RequestT = TypeVar("_RequestT")
_ResponseT = TypeVar("_ResponseT")


class Undecodable:
    """Stands in for a request whose bytes did not parse (see ``_handlers``)."""

    def __init__(self, error: Exception) -> None:
        self.error = error


def status_of(error: MatchError) -> grpc.Status:
    """Return the gRPC status that reports ``error``."""
    field = error.field if isinstance(error, InvalidRequestError) else None
    metadata = tuple(sorted(error.metadata.items()))
    return _status(
        error.category.value, error.reason, error.message, metadata, field, error.retry_after
    )


# Refusals repeat (a flood meets the same limit again and again): built once each.
@functools.lru_cache(maxsize=256)
def _status(
    category: str,
    reason: str,
    message: str,
    metadata: tuple[tuple[str, str], ...],
    field: str | None,
    retry_after: float | None,
) -> grpc.Status:
    code: grpc.StatusCode = grpc.StatusCode[category]
    info = error_details_pb2.ErrorInfo(reason=reason, domain=DOMAIN, metadata=dict(metadata))
    details = [_packed(info)]
    if field is not None:
        violation = error_details_pb2.BadRequest.FieldViolation(field=field, description=message)
        details.append(_packed(error_details_pb2.BadRequest(field_violations=[violation])))
    if retry_after is not None:
        retry = error_details_pb2.RetryInfo()
        retry.retry_delay.FromNanoseconds(round(retry_after * 1e9))
        details.append(_packed(retry))
    return rpc_status.to_status(
        status_pb2.Status(code=getattr(code_pb2, code.name), message=message, details=details)
    )


def _packed(message: Any) -> any_pb2.Any:
    packed = any_pb2.Any()
    packed.Pack(message)
    return packed


async def abort(context: grpc.aio.ServicerContext[Any, Any], error: MatchError) -> NoReturn:
    """End the call with the status of ``error``."""
    _logger.debug("request refused", reason=error.reason, detail=error.message)
    await context.abort_with_status(status_of(error))
    raise AssertionError("abort_with_status returned")  # it always raises


def refuse(context: grpc.aio.ServicerContext[Any, Any], error: MatchError) -> bytes:
    """Set the status of ``error`` on a unary call; return the body, which grpc drops.

    Cheaper than :func:`abort`, whose exception unwinds through grpc's handler: a flood's
    refusals cost the server less (bench/bench_flood.py).
    """
    _logger.debug("request refused", reason=error.reason, detail=error.message)
    status = status_of(error)
    context.set_code(status.code)
    context.set_details(status.details)
    context.set_trailing_metadata(status.trailing_metadata)
    return b""


def _check_decoded(request: object) -> None:
    if isinstance(request, Undecodable):
        raise InvalidRequestError("request", f"the message does not parse: {request.error}")


def handle_errors(
    method: Callable[[_ServicerT, _RequestT, Any], Awaitable[_ResponseT]],
) -> Callable[[_ServicerT, _RequestT, Any], Awaitable[_ResponseT]]:
    """Decorate a unary servicer method so a :class:`MatchError` ends the call properly."""

    @functools.wraps(method)
    async def wrapper(self: _ServicerT, request: _RequestT, context: Any) -> _ResponseT:
        try:
            _check_decoded(request)
            return await method(self, request, context)
        except MatchError as error:
            return cast(_ResponseT, refuse(context, error))
        except DatabaseUnavailableError as error:
            _logger.debug("database unavailable", rpc=method.__name__, error=str(error))
            return cast(_ResponseT, refuse(context, StoreUnavailableError()))
        except Exception:
            # grpc answers UNKNOWN without saying why; the operator needs the traceback.
            _log_unexpected(method.__name__)
            raise

    return wrapper


def _log_unexpected(rpc: str) -> None:
    # A logger looked up when needed, not the module's cached one: such errors are rare,
    # and this one honours the logging configuration in force now.
    structlog.get_logger("botarena.service").exception("unexpected error", rpc=rpc)


def handle_stream_errors(
    method: Callable[[_ServicerT, _RequestT, Any], AsyncIterator[_ResponseT]],
) -> Callable[[_ServicerT, _RequestT, Any], AsyncIterator[_ResponseT]]:
    """Decorate a server-streaming servicer method like :func:`handle_errors`."""

    @functools.wraps(method)
    async def wrapper(
        self: _ServicerT, request: _RequestT, context: Any
    ) -> AsyncIterator[_ResponseT]:
        try:
            _check_decoded(request)
            async for response in method(self, request, context):
                yield response
        except MatchError as error:
            await abort(context, error)
        except DatabaseUnavailableError as error:
            _logger.debug("database unavailable", rpc=method.__name__, error=str(error))
            await abort(context, StoreUnavailableError())
        except Exception:
            _log_unexpected(method.__name__)
            raise

    return wrapper
