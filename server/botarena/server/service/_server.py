# mypy: disable-error-code="import-untyped"
"""``create_server``: a grpc.aio server with the MatchService (and, with a ladder, the
LadderService), health and reflection, over plaintext or TLS."""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

import grpc
import structlog
from grpc_health.v1 import health, health_pb2, health_pb2_grpc
from grpc_reflection.v1alpha import reflection

from botarena.server.ladder import Ladder
from botarena.server.match import CallBudget, CallBudgetLimits, MatchManager
from botarena.server.service._budget import BudgetGate, RefusalHold
from botarena.server.service._connections import (
    HANDSHAKE_TIMEOUT,
    IDLE_TIMEOUT,
    MAX_CONNECTIONS_PER_PEER,
    MIN_CONNECTIONS,
    connection_budget,
)
from botarena.server.service._handlers import (
    LADDER_SERVICE_NAME,
    SERVICE_NAME,
    ladder_service_handler,
    match_service_handler,
)
from botarena.server.service._keepalive import KEEPALIVE_OPTIONS
from botarena.server.service._ladder import LadderServicer
from botarena.server.service._registry import ConfigOverrides, config_overrides, operator_options
from botarena.server.service._servicer import MatchServicer
from botarena.server.service._storage import ProtobufMatchCodec
from botarena.server.service._warden import DEFAULT_SWEEP_INTERVAL, PeerWarden
from botarena.server.store import Store

if TYPE_CHECKING:  # aiohttp is imported only when a web UI is asked for
    from botarena.server.service.web import WebSettings

__all__ = [
    "DURABLE_FINISHED_MATCHES",
    "MAX_PENDING_CALLS",
    "MAX_RECEIVE_MESSAGE_BYTES",
    "MAX_SEND_MESSAGE_BYTES",
    "create_server",
    "durable_manager",
]

_logger = structlog.get_logger("botarena.service")

MAX_RECEIVE_MESSAGE_BYTES = 64 * 1024
"""Largest request accepted; a real request is a few hundred bytes."""

MAX_SEND_MESSAGE_BYTES = 4 * 1024 * 1024
"""Largest response sent (a full view with history and legal moves is far smaller)."""

MAX_PENDING_CALLS = 10_000
"""Calls grpc holds for the server before its event loop takes them; beyond this many it
drops new calls at random, all of them at twice as many.

grpc's default, 1,000, dropped about one call in ten of 2,000 streams opened at once
(a reconnect storm after a restart): the asyncio server takes one call at a time, so a
burst waits in that queue, and a dropped call ends CANCELLED with no details
(docs/decisions.md). The SDK retries such a call (``CallCancelledError``). 10,000 calls
on one channel drain in ~6 s on 2 cores, well before grpc drops a call that has waited
30 s (``grpc.server_max_unrequested_time_in_server``).
"""


DURABLE_FINISHED_MATCHES = 256
"""Finished matches a durable server keeps in memory (bench/bench_flood.py: a full GC pass
over 200 held matches of tile placements took ~350 ms)."""


def durable_manager(
    store: Store, overrides: ConfigOverrides | None = None, **manager_options: Any
) -> MatchManager:
    """Return a :class:`MatchManager` whose matches ``store`` keeps, as protobuf bytes.

    Call its ``recover()`` (``create_server`` does) to resume the unfinished matches.

    Args:
        store: The store.
        overrides: The server's :func:`config_overrides`: a recovered match must decode
            with the defaults it was created with.
        **manager_options: Passed to :class:`MatchManager`. ``max_finished_matches``
            defaults to :data:`DURABLE_FINISHED_MATCHES` here: the store lists finished
            matches from their rows and rebuilds one off the loop when a view needs it,
            while every match held costs the garbage collector thousands of objects.
    """
    manager_options.setdefault("max_finished_matches", DURABLE_FINISHED_MATCHES)
    return MatchManager(store=store, codec=ProtobufMatchCodec(overrides), **manager_options)


async def create_server(
    address: str | Sequence[str],
    *,
    manager: MatchManager | None = None,
    store: Store | None = None,
    admin_token: str | None = None,
    operator_options: Mapping[str, object] | None = None,
    ladder: Ladder | None = None,
    credentials: grpc.ServerCredentials | None = None,
    max_receive_message_bytes: int = MAX_RECEIVE_MESSAGE_BYTES,
    max_send_message_bytes: int = MAX_SEND_MESSAGE_BYTES,
    max_pending_calls: int = MAX_PENDING_CALLS,
    handshake_timeout: float = HANDSHAKE_TIMEOUT,
    idle_timeout: float = IDLE_TIMEOUT,
    max_connections: int | None = None,
    max_connections_per_peer: int = MAX_CONNECTIONS_PER_PEER,
    sweep_interval: float = DEFAULT_SWEEP_INTERVAL,
    announce_options: bool = True,
    http_address: tuple[str, int] | None = None,
    http_settings: WebSettings | None = None,
    call_budget: CallBudgetLimits | None = None,
    **manager_options: Any,
) -> tuple[Any, int]:
    """Create and start a server listening on ``address``, over TLS with ``credentials``.

    Args:
        address: ``host:port``; port 0 picks a free port. Several addresses listen
            alike; those after the first that give port 0 take the first one's port (so
            ``["127.0.0.1:0", "[::1]:0"]`` are two hosts of one port).
        manager: The matches to serve; a new :class:`MatchManager` by default.
        store: Makes a new manager's matches durable, with the protobuf codec; its
            unfinished matches are recovered before the server starts. ``None`` (the
            default) keeps matches in memory only. The caller closes it after ``stop``.
        admin_token: When set, CreateMatch and RegisterBot require it.
        operator_options: The loaded values of games' operator options, by
            ``OperatorOption.dest`` (``PLUGINS``), applied to every match of their game,
            created or recovered; each given value is announced once at start (a building
            table logs the unknown values it replaced by stand-ins). Absent: the shipped
            defaults, silently.
        ladder: Serve the LadderService for this ladder, which is started here and
            closed when the server stops; its manager serves the matches (``manager``
            must then be unset or the same).
        credentials: Serve TLS on every address with these credentials
            (``grpc.ssl_server_credentials``; with client CAs it can require client
            certificates); ``None`` serves plaintext, for loopback or a TLS proxy in front.
        max_receive_message_bytes: Cap on request size.
        max_send_message_bytes: Cap on response size.
        max_pending_calls: Calls queued before the server takes them, past which grpc
            starts dropping new ones (``MAX_PENDING_CALLS``).
        handshake_timeout: Seconds a new connection has for its TLS and HTTP/2
            handshake (the preface and SETTINGS); then it is closed
            (``HANDSHAKE_TIMEOUT``; the web UI's is in ``http_settings``).
        idle_timeout: Seconds a connection may hold no call before the server sends
            it GOAWAY and closes it; the client reconnects on its next call
            (``IDLE_TIMEOUT``).
        max_connections: Connections the port holds at once (grpc closes the ones
            past it as it accepts them); ``None``: what the open-files limit leaves
            (``connection_budget``: less ``FD_RESERVE``) less the web UI's
            ``max_connections``, which is cut to half of that if it is more.
        max_connections_per_peer: Connections one peer host holds on the gRPC port;
            every ``sweep_interval`` seconds those past it (roughly the newest) are shut down
            (``PeerWarden``, Linux only). 0: no cap.
        sweep_interval: Seconds between two counts of the connections by peer.
        announce_options: Announce the operator options' values in the log; a tool
            that says them to its user in its own words turns this off.
        http_address: Also serve the read-only web UI (``service.web``) on this
            ``(host, port)`` (port 0: a free one), from the same event loop; it starts
            and stops with the server, and ``server.web`` is its :class:`WebUI` (its
            ``port`` and ``url``). ``None`` (the default): no web UI, ``server.web`` None.
        http_settings: How the web UI serves its live pages (:class:`WebSettings`:
            streams at once, the write timeout and the unsent bytes a page may hold);
            the defaults when ``None``.
        call_budget: Charge every call of the MatchService and the LadderService to
            its caller's budget before it runs, and refuse those over budget
            (``RESOURCE_EXHAUSTED`` / ``RATE_LIMITED``; ``service._budget``). ``None``
            (the default, as for the match runner's own servers): no call budget;
            ``botarena serve`` sets one.
        **manager_options: Passed to a new :class:`MatchManager` (``lease=`` makes this
            one of several nodes on ``store``: its leases are renewed every fifth of
            their time while it serves).

    Returns:
        The started ``grpc.aio.Server`` and the port it listens on. Stop it with
        ``await server.stop(grace)``; its ``max_connections`` is the gRPC port's cap.

    Raises:
        RuntimeError: The address cannot be bound.
    """
    overrides = config_overrides(operator_options)
    if handshake_timeout <= 0 or idle_timeout <= 0:
        raise ValueError("handshake_timeout and idle_timeout must be positive")
    budget = connection_budget()
    if http_address is not None:
        from botarena.server.service.web import WebSettings

        # The web port takes at most half of what the open-files limit leaves.
        http_settings = http_settings or WebSettings()
        web_connections = min(http_settings.max_connections, max(MIN_CONNECTIONS, budget // 2))
        http_settings = dataclasses.replace(http_settings, max_connections=web_connections)
        budget -= web_connections
    if max_connections is None:
        max_connections = max(MIN_CONNECTIONS, budget)
    elif max_connections < 1:
        raise ValueError("max_connections must be at least 1")
    if max_connections_per_peer < 0 or sweep_interval <= 0:
        raise ValueError("max_connections_per_peer is at least 0, sweep_interval positive")
    if ladder is not None:
        if manager is not None and manager is not ladder.manager:
            raise ValueError("the ladder runs its matches on another manager")
        manager = ladder.manager
    if manager is None:
        manager = (
            durable_manager(store, overrides, **manager_options)
            if store is not None
            else MatchManager(**manager_options)
        )
    elif store is not None:
        raise ValueError("pass a store either to create_server or to the manager, not both")
    server = grpc.aio.server(
        options=[
            ("grpc.max_receive_message_length", max_receive_message_bytes),
            ("grpc.max_send_message_length", max_send_message_bytes),
            # grpc drops a new call with a probability that grows from 0 at the soft limit
            # to 1 at the hard one (random early detection over its pending queue).
            ("grpc.server.max_pending_requests", max_pending_calls),
            ("grpc.server.max_pending_requests_hard_limit", 2 * max_pending_calls),
            # A connection that sends nothing, or half a preface, held a descriptor for
            # grpc's default 120 s: 20,000 of them ran the process out of files.
            ("grpc.server_handshake_timeout_ms", _milliseconds(handshake_timeout)),
            ("grpc.max_connection_idle_ms", _milliseconds(idle_timeout)),
            ("grpc.max_allowed_incoming_connections", max_connections),
            *KEEPALIVE_OPTIONS,
            # grpc binds with SO_REUSEPORT by default: a second start on a port in use
            # (a restart beside a frozen, not dead, old start; two nodes given one
            # address) shared its connections with the first. It is refused instead.
            ("grpc.so_reuseport", 0),
        ]
    )
    if announce_options:
        _announce(operator_options or {})
    # One record of refusals, and one hold, for admission and the call budget.
    hold = RefusalHold(manager.admission.refusals)
    gate = None
    if call_budget is not None:
        gate = BudgetGate(
            CallBudget(call_budget, refusals=hold.refusals), hold, admin_token=admin_token
        )
    servicer = MatchServicer(
        manager, admin_token=admin_token, config_overrides=overrides, hold=hold
    )
    server.add_generic_rpc_handlers((match_service_handler(servicer, gate),))
    services = [SERVICE_NAME]
    if ladder is not None:
        ladder_servicer = LadderServicer(ladder, admin_token=admin_token)
        server.add_generic_rpc_handlers((ladder_service_handler(ladder_servicer, gate),))
        services.append(LADDER_SERVICE_NAME)
    health_servicer = health.aio.HealthServicer()
    health_pb2_grpc.add_HealthServicer_to_server(health_servicer, server)
    reflection.enable_server_reflection(
        (*services, health.SERVICE_NAME, reflection.SERVICE_NAME), server
    )

    def listen(where: str) -> int:
        try:
            if credentials is None:
                return int(server.add_insecure_port(where))
            return int(server.add_secure_port(where, credentials))
        except RuntimeError as error:  # grpc's "Failed to bind to address ..."
            raise RuntimeError(f"cannot listen on {where}: {error}") from None

    first, *others = [address] if isinstance(address, str) else address
    port = listen(first)
    if port == 0:
        raise RuntimeError(f"cannot listen on {first}")
    ports = {port}
    for other in others:
        if other.endswith(":0"):
            other = f"{other[:-2]}:{port}"
        bound = listen(other)
        if bound == 0:
            raise RuntimeError(f"cannot listen on {other}")
        ports.add(bound)
    # The ports are bound (a port in use fails above, before this start takes back any
    # match), and not yet served: a bot that reconnects once they are finds its match.
    manager.recover()
    heartbeat: asyncio.Task[None] | None = None
    if manager.lease is not None:
        # Renewed five times per lease: a late beat or two never loses a match.
        heartbeat = asyncio.create_task(
            manager.run_leases(manager.lease.ttl / 5), name="botarena-leases"
        )
    await server.start()
    warden: asyncio.Task[None] | None = None
    if max_connections_per_peer and PeerWarden.available():
        warden = asyncio.create_task(
            PeerWarden(ports, max_connections_per_peer, sweep_interval).run(),
            name="botarena-peer-warden",
        )
    web_ui = None
    if http_address is not None:
        # Imported only when asked for: every embedded server (runner workers) starts
        # without aiohttp.
        from botarena.server.service.web import start_web_ui

        try:
            web_ui = await start_web_ui(
                manager, *http_address, ladder=ladder, settings=http_settings
            )
        except OSError as error:
            await server.stop(None)
            manager.close()
            raise RuntimeError(f"cannot serve the web UI on {http_address}: {error}") from error
    if ladder is not None:
        await ladder.start()
    serving = health_pb2.HealthCheckResponse.SERVING
    await health_servicer.set("", serving)
    for service in services:
        await health_servicer.set(service, serving)
    original_stop = server.stop

    async def stop(grace: float | None) -> None:
        # End the web pages' streams, then the ladder's connections and followers, then
        # stop the clocks, so that no timer fires into a closing server.
        if web_ui is not None:
            await web_ui.close()
        if ladder is not None:
            await ladder.close()
        for task in (heartbeat, warden):
            if task is not None:
                task.cancel()
                with contextlib.suppress(asyncio.CancelledError):
                    await task
        manager.close()
        await health_servicer.enter_graceful_shutdown()
        await original_stop(grace)

    server.stop = stop
    server.web = web_ui
    server.max_connections = max_connections
    return server, port


def _milliseconds(seconds: float) -> int:
    return max(1, round(seconds * 1000))


def _announce(values: Mapping[str, object]) -> None:
    """Announce every given operator option's value (a warning about stand-ins, say)."""
    for _, option in operator_options():
        value = values.get(option.dest)
        if value is not None and option.announce is not None:
            option.announce(value)
