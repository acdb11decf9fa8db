# mypy: disable-error-code="import-untyped"
"""The service method handlers, registered with lenient request deserializers.

The generated ``add_MatchServiceServicer_to_server`` lets grpc fail an undecodable request
with a bare ``INTERNAL``; our deserializers hand the servicer an :class:`Undecodable`
instead, so the caller gets the documented ``INVALID_ARGUMENT`` / ``MALFORMED_REQUEST``.
With a :class:`BudgetGate`, every call is charged to its caller's budget before the
servicer runs (``_budget``).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import grpc
from google.protobuf.message import DecodeError, Message

from botarena.server.service._budget import BudgetGate
from botarena.server.service._errors import Undecodable
from botarena.server.service._servicer import MatchServicer
from botarena.v1 import ladder_pb2, match_service_pb2

__all__ = ["LADDER_SERVICE_NAME", "SERVICE_NAME", "ladder_service_handler", "match_service_handler"]

SERVICE_NAME = match_service_pb2.DESCRIPTOR.services_by_name["MatchService"].full_name
"""``botarena.v1.MatchService``."""

LADDER_SERVICE_NAME = ladder_pb2.DESCRIPTOR.services_by_name["LadderService"].full_name
"""``botarena.v1.LadderService``."""


def _lenient(message_type: type[Message]) -> Callable[[bytes], object]:
    def deserialize(data: bytes) -> object:
        try:
            return message_type.FromString(data)
        except (DecodeError, RuntimeError, ValueError) as error:
            return Undecodable(error)

    return deserialize


def _serialize(message: Message | bytes) -> bytes:
    # A servicer may hand over a message it serialized itself (stream events: see
    # EventEncoder.event_bytes).
    return message if isinstance(message, bytes) else message.SerializeToString()


def match_service_handler(servicer: MatchServicer, gate: BudgetGate | None = None) -> Any:
    """Return the generic handler serving ``servicer`` as ``botarena.v1.MatchService``,
    each call charged to its caller's budget first when there is a ``gate``."""
    return _service_handler(servicer, match_service_pb2, "MatchService", gate)


def ladder_service_handler(servicer: object, gate: BudgetGate | None = None) -> Any:
    """Return the generic handler serving ``servicer`` as ``botarena.v1.LadderService``,
    each call charged to its caller's budget first when there is a ``gate``."""
    return _service_handler(servicer, ladder_pb2, "LadderService", gate)


def _service_handler(servicer: object, module: Any, name: str, gate: BudgetGate | None) -> Any:
    service = module.DESCRIPTOR.services_by_name[name]
    handlers: dict[str, Any] = {}
    for method in service.methods:
        request_type = getattr(module, method.input_type.name)
        behaviour = getattr(servicer, method.name)
        factory = (
            grpc.unary_stream_rpc_method_handler
            if method.server_streaming
            else grpc.unary_unary_rpc_method_handler
        )
        if gate is not None:
            budgeted = gate.stream if method.server_streaming else gate.unary
            behaviour = budgeted(method.name, behaviour)
        handlers[method.name] = factory(
            behaviour,
            request_deserializer=_lenient(request_type),
            response_serializer=_serialize,
        )
    return grpc.method_handlers_generic_handler(service.full_name, handlers)
