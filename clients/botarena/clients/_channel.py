# mypy: disable-error-code="import-untyped"
"""The channel plumbing every client shares: one gRPC channel opened from a
:class:`~botarena.clients.ServerTarget` (plaintext or TLS) and options, the bearer token,
closing, the context manager, and unary calls whose failures become
:class:`~botarena.clients.BotarenaError`\\ s (a failed TLS agreement a
:class:`~botarena.clients.TlsError` naming its likely cause).

:class:`ChannelClient` holds what the blocking and the asyncio clients have in common;
:class:`AsyncChannelClient` adds the ``grpc.aio`` side (``AsyncMatchClient``,
``AsyncLadderClient``). The blocking ``MatchClient`` adds its own ``close``, ``with``,
``_unary`` and ``_failure``.

Every channel carries :data:`KEEPALIVE_CHANNEL_OPTIONS`: a server that stops answering
(a frozen or partitioned node, whose TCP connection the kernel keeps open) fails the
channel's calls and streams within seconds, so that a client moves on (another node, a
reconnect) instead of waiting on a dead connection.
"""

from __future__ import annotations

import abc
import asyncio
from collections.abc import Sequence
from types import ModuleType, TracebackType
from typing import Any, ClassVar, Generic, Self, TypeVar

import grpc

from botarena.clients._common import DEFAULT_TIMEOUT, bearer_metadata
from botarena.clients._errors import BotarenaError, from_grpc_error
from botarena.clients._target import ServerTarget, explain_tls_failure, speaks_tls, worth_probing

__all__ = ["KEEPALIVE_CHANNEL_OPTIONS", "AsyncChannelClient", "ChannelClient"]

StubT = TypeVar("StubT")

KEEPALIVE_CHANNEL_OPTIONS: tuple[tuple[str, int], ...] = (
    # An HTTP/2 ping after 2 s without a read from the server, on every connection (with
    # calls or without), however many pings go without data, and the connection closed
    # when no answer comes within 3 s: its open streams and calls fail UNAVAILABLE, at
    # most 5 s after the server last answered. (grpc 1.85 times a keepalive ping out
    # after grpc.http2.ping_timeout_ms, 60 s by default, whatever keepalive_timeout_ms
    # says: both are set.) botarena servers accept pings this often
    # (``botarena.server.service.KEEPALIVE_OPTIONS``).
    ("grpc.keepalive_time_ms", 2_000),
    ("grpc.keepalive_timeout_ms", 3_000),
    ("grpc.http2.ping_timeout_ms", 3_000),
    ("grpc.keepalive_permit_without_calls", 1),
    ("grpc.http2.max_pings_without_data", 0),
    # A connection attempt gives up after 5 s (grpc's default: 20 s): a frozen server's
    # kernel accepts the TCP connection, but the HTTP/2 handshake never completes.
    ("grpc.min_reconnect_backoff_ms", 5_000),
)
"""The liveness options of every SDK channel (``channel_options`` given to a client
override them one by one); docs/decisions.md: Liveness."""


class ChannelClient(abc.ABC, Generic[StubT]):
    """A client of one service over one gRPC channel.

    A subclass names its stub in :meth:`_new_stub` and adds one method per RPC.

    Args:
        target: The server: ``host:port`` (plaintext), ``botarena+tls://host:port[?ca=PATH]``
            or a :class:`ServerTarget`.
        token: Sent as ``authorization: Bearer <token>``; ``None`` sends no credentials.
        timeout: Seconds each unary call may take; ``None`` waits forever. Streams have
            no timeout.
        credentials: TLS credentials that replace the target's (``None``: the target's).
        channel_options: Extra gRPC channel arguments, after (and over)
            :data:`KEEPALIVE_CHANNEL_OPTIONS`.

    Raises:
        ValueError: The target is malformed or its TLS files cannot be read.
    """

    _channels: ClassVar[ModuleType] = grpc
    """Opens the channel: ``grpc`` (blocking) or ``grpc.aio``."""

    def __init__(
        self,
        *,
        target: str | ServerTarget,
        token: str | None = None,
        timeout: float | None = DEFAULT_TIMEOUT,
        credentials: grpc.ChannelCredentials | None = None,
        channel_options: Sequence[tuple[str, Any]] = (),
    ) -> None:
        server = ServerTarget.parse(target)
        if credentials is None:
            credentials = server.credentials()
        elif not server.tls:
            server = server.with_tls()
        options = list({**dict(KEEPALIVE_CHANNEL_OPTIONS), **dict(channel_options)}.items())
        if credentials is None:
            channel = self._channels.insecure_channel(server.address, options=options)
        else:
            channel = self._channels.secure_channel(server.address, credentials, options=options)
        self._setup(channel, server, token, timeout, owns_channel=True)

    @staticmethod
    @abc.abstractmethod
    def _new_stub(channel: Any) -> StubT:
        """Return the service's stub on ``channel``."""

    def _setup(
        self,
        channel: Any,
        server: ServerTarget,
        token: str | None,
        timeout: float | None,
        *,
        owns_channel: bool,
    ) -> None:
        self._channel = channel
        self._stub: StubT = self._new_stub(channel)
        self._metadata = bearer_metadata(token)
        self._owns_channel = owns_channel
        self.server = server
        """The server and how this client connects to it."""
        self.target = str(server)
        """The server's one-string form (``ServerTarget.parse`` reads it back)."""
        self.token = token
        self.timeout = timeout

    def _sharing_channel(self, token: str | None) -> Self:
        """Return a client of the same class on this client's channel that sends ``token``;
        closing it leaves the channel open."""
        other = object.__new__(type(self))
        other._setup(self._channel, self.server, token, self.timeout, owns_channel=False)
        return other


class AsyncChannelClient(ChannelClient[StubT]):
    """A :class:`ChannelClient` over a ``grpc.aio`` channel: awaited calls, ``async with``."""

    _channels: ClassVar[ModuleType] = grpc.aio

    async def close(self) -> None:
        """Close the channel (if this client opened it); calls in flight are cancelled."""
        if self._owns_channel:
            await self._channel.close()

    async def __aenter__(self) -> Self:
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        await self.close()

    async def _unary(self, method: Any, request: Any) -> Any:
        try:
            return await method(request, metadata=self._metadata, timeout=self.timeout)
        except grpc.RpcError as exc:
            raise await self._failure(exc) from exc

    async def _failure(self, exc: grpc.RpcError) -> BotarenaError:
        """Return the typed error of a failed call; a failed TLS agreement names its cause
        (a plaintext client asks the server in a worker thread whether it speaks TLS)."""
        error = from_grpc_error(exc)
        probed = worth_probing(error, self.server) and await asyncio.to_thread(
            speaks_tls, self.server.address
        )
        return explain_tls_failure(error, self.server, probed)
