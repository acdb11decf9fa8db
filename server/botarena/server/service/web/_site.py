"""The web UI's listening site: aiohttp's request handler behind a gate that counts the
port's connections, in all and by peer, and closes one that sends no request's headers
in time (docs/decisions.md: Connections).

aiohttp's own keep-alive timeout closes a connection waiting for its next request, and
one that never completes its first, but it is one number for both; and aiohttp takes
every connection the listener accepts. Here a connection past the caps is aborted as it
is accepted, before aiohttp sees it, and one whose first request's headers have not
ended ``handshake_timeout`` after it opened is aborted too (a slow-headers client used to
hold its descriptor for aiohttp's default, an hour).
"""

from __future__ import annotations

import asyncio
from collections import Counter
from typing import TYPE_CHECKING

import structlog
from aiohttp import web

from botarena.server.service._auth import address_host

if TYPE_CHECKING:
    from aiohttp.web_protocol import RequestHandler

__all__ = ["ConnectionGate", "GatedSite"]

_logger = structlog.get_logger("botarena.web")

# The end of a request's headers (aiohttp's parser also takes bare line feeds).
_HEADERS_END = (b"\r\n\r\n", b"\n\n")


class ConnectionGate:
    """The web port's open connections, in all and by peer host (an IPv6 peer's /64, as
    admission counts callers).

    Args:
        max_connections: Connections held at once.
        max_per_peer: Connections one peer host holds at once.
    """

    def __init__(self, max_connections: int, max_per_peer: int) -> None:
        self.max_connections = max_connections
        self.max_per_peer = max_per_peer
        self.open = 0
        self.by_peer: Counter[str] = Counter()
        self.refused = 0
        """Connections aborted as they were accepted, past a cap."""
        self.timed_out = 0
        """Connections aborted for sending no request's headers in time."""

    def admit(self, peer: str) -> bool:
        """Count a new connection of ``peer`` in, or return False past a cap."""
        if self.open >= self.max_connections or self.by_peer[peer] >= self.max_per_peer:
            self.refused += 1
            _logger.warning(
                "web connection refused",
                peer=peer,
                open=self.open,
                of_peer=self.by_peer[peer],
                refused=self.refused,
            )
            return False
        self.open += 1
        self.by_peer[peer] += 1
        return True

    def release(self, peer: str) -> None:
        """Count a closed connection of ``peer`` out."""
        self.open -= 1
        self.by_peer[peer] -= 1
        if self.by_peer[peer] <= 0:
            del self.by_peer[peer]


class _GatedConnection(asyncio.Protocol):
    """One connection: counted by the gate, then served by aiohttp's handler."""

    def __init__(self, gate: ConnectionGate, handler: RequestHandler, timeout: float) -> None:
        self._gate = gate
        self._handler = handler
        self._timeout = timeout
        self._peer: str | None = None
        self._transport: asyncio.Transport | None = None
        self._timer: asyncio.TimerHandle | None = None
        self._tail = b""

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        assert isinstance(transport, asyncio.Transport)
        peer = _peer(transport.get_extra_info("peername"))
        if not self._gate.admit(peer):
            transport.abort()
            return
        self._peer = peer
        self._transport = transport
        self._timer = asyncio.get_running_loop().call_later(self._timeout, self._expire)
        self._handler.connection_made(transport)

    def _expire(self) -> None:
        self._timer = None
        if self._transport is not None:
            self._gate.timed_out += 1
            self._transport.abort()

    def data_received(self, data: bytes) -> None:
        if self._timer is not None:
            seen = self._tail + data
            if any(end in seen for end in _HEADERS_END):
                self._timer.cancel()
                self._timer = None
            else:
                self._tail = seen[-3:]
        self._handler.data_received(data)

    def eof_received(self) -> None:
        if self._peer is not None:
            self._handler.eof_received()

    def pause_writing(self) -> None:
        self._handler.pause_writing()

    def resume_writing(self) -> None:
        self._handler.resume_writing()

    def connection_lost(self, exc: Exception | None) -> None:
        if self._peer is None:
            return
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None
        self._transport = None
        self._gate.release(self._peer)
        self._handler.connection_lost(exc)


def _peer(peername: object) -> str:
    """A connection's peer host as admission names callers (an IPv6 peer's /64)."""
    if not isinstance(peername, tuple):
        return "unix"
    try:
        return address_host(str(peername[0]))
    except ValueError:
        return str(peername[0])


class GatedSite(web.BaseSite):
    """A TCP site whose connections pass ``gate`` and must send a request's headers
    within ``handshake_timeout`` seconds.

    Args:
        runner: The set-up runner.
        host: The address to bind.
        port: The port (0: a free one).
        gate: Counts and caps the connections.
        handshake_timeout: Seconds from a connection's opening to the end of its first
            request's headers.
    """

    __slots__ = ("_gate", "_handshake_timeout", "_host", "_port")

    def __init__(
        self,
        runner: web.BaseRunner,
        host: str,
        port: int,
        *,
        gate: ConnectionGate,
        handshake_timeout: float,
    ) -> None:
        super().__init__(runner)
        self._host = host
        self._port = port
        self._gate = gate
        self._handshake_timeout = handshake_timeout

    @property
    def name(self) -> str:
        host = f"[{self._host}]" if ":" in self._host else self._host
        return f"http://{host}:{self._port}"

    async def start(self) -> None:
        await super().start()
        server = self._runner.server
        assert server is not None

        def connection() -> _GatedConnection:
            return _GatedConnection(self._gate, server(), self._handshake_timeout)

        loop = asyncio.get_running_loop()
        self._server = await loop.create_server(
            connection, self._host, self._port, backlog=self._backlog
        )
