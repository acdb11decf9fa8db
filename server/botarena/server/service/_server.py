# mypy: disable-error-code="import-untyped"
"""``create_server``: a grpc.aio server with the MatchService, health and reflection."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import grpc
import structlog
from grpc_health.v1 import health, health_pb2, health_pb2_grpc
from grpc_reflection.v1alpha import reflection

from botarena.server.match import MatchManager
from botarena.server.service._handlers import SERVICE_NAME, match_service_handler
from botarena.server.service._servicer import MatchServicer
from botarena.server.service._storage import ProtobufMatchCodec
from botarena.server.store import Store

if TYPE_CHECKING:
    from botarena.server.games.queendomino import BuildingTable

__all__ = ["MAX_RECEIVE_MESSAGE_BYTES", "MAX_SEND_MESSAGE_BYTES", "create_server"]

_logger = structlog.get_logger("botarena.service")

MAX_RECEIVE_MESSAGE_BYTES = 64 * 1024
"""Largest request accepted; a real request is a few hundred bytes."""

MAX_SEND_MESSAGE_BYTES = 4 * 1024 * 1024
"""Largest response sent (a full view with history and legal moves is far smaller)."""


async def create_server(
    address: str,
    *,
    manager: MatchManager | None = None,
    store: Store | None = None,
    admin_token: str | None = None,
    queendomino_buildings: BuildingTable | None = None,
    max_receive_message_bytes: int = MAX_RECEIVE_MESSAGE_BYTES,
    max_send_message_bytes: int = MAX_SEND_MESSAGE_BYTES,
    **manager_options: Any,
) -> tuple[Any, int]:
    """Create and start a server listening on ``address`` (insecure).

    Args:
        address: ``host:port``; port 0 picks a free port.
        manager: The matches to serve; a new :class:`MatchManager` by default.
        store: Makes a new manager's matches durable, with the protobuf codec; its
            unfinished matches are recovered before the server starts. ``None`` (the
            default) keeps matches in memory only. The caller closes it after ``stop``.
        admin_token: When set, CreateMatch requires it.
        queendomino_buildings: The building table of every Queendomino match, created
            or recovered (the operator's ``--queendomino-buildings``, validated by
            ``load_buildings``). When given, the server logs one warning at start naming
            the table's unknown values replaced by stand-ins, if any. ``None``: the
            shipped table, silently.
        max_receive_message_bytes: Cap on request size.
        max_send_message_bytes: Cap on response size.
        **manager_options: Passed to a new :class:`MatchManager`.

    Returns:
        The started ``grpc.aio.Server`` and the port it listens on. Stop it with
        ``await server.stop(grace)``.

    Raises:
        RuntimeError: The address cannot be bound.
    """
    overrides: dict[str, dict[str, object]] = {}
    if queendomino_buildings is not None:
        overrides["queendomino"] = {"buildings": queendomino_buildings}
    if manager is None:
        if store is not None:
            manager_options.update(store=store, codec=ProtobufMatchCodec(overrides))
        manager = MatchManager(**manager_options)
    elif store is not None:
        raise ValueError("pass a store either to create_server or to the manager, not both")
    # Before the port opens: a bot that reconnects finds its match.
    manager.recover()
    server = grpc.aio.server(
        options=[
            ("grpc.max_receive_message_length", max_receive_message_bytes),
            ("grpc.max_send_message_length", max_send_message_bytes),
        ]
    )
    if queendomino_buildings is not None:
        _warn_stand_ins(queendomino_buildings)
    servicer = MatchServicer(manager, admin_token=admin_token, config_overrides=overrides)
    server.add_generic_rpc_handlers((match_service_handler(servicer),))
    health_servicer = health.aio.HealthServicer()
    health_pb2_grpc.add_HealthServicer_to_server(health_servicer, server)
    reflection.enable_server_reflection(
        (SERVICE_NAME, health.SERVICE_NAME, reflection.SERVICE_NAME), server
    )
    port = server.add_insecure_port(address)
    if port == 0:
        raise RuntimeError(f"cannot listen on {address}")
    await server.start()
    serving = health_pb2.HealthCheckResponse.SERVING
    await health_servicer.set("", serving)
    await health_servicer.set(SERVICE_NAME, serving)
    original_stop = server.stop

    async def stop(grace: float | None) -> None:
        # Stop the clocks first so no timer fires into a closing server.
        manager.close()
        await health_servicer.enter_graceful_shutdown()
        await original_stop(grace)

    server.stop = stop
    return server, port


def _warn_stand_ins(table: BuildingTable) -> None:
    """Log one warning naming the building fields that were unknown (README: Queendomino)."""
    warning = table.warning()
    if warning is None:
        return
    _logger.warning(
        "queendomino buildings use stand-in values",
        source=table.source,
        defaulted=[f"{d.name} (id {d.building_id}) {d.field}" for d in table.defaulted],
        detail=warning,
        override="--queendomino-buildings PATH",
    )
