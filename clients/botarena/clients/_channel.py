# mypy: disable-error-code="import-untyped"
"""The channel plumbing every client shares: one gRPC channel opened from a target,
credentials and options, the bearer token, closing, the context manager, and unary calls
whose failures become :class:`~botarena.clients.BotarenaError`\\ s.

:class:`ChannelClient` holds what the blocking and the asyncio clients have in common;
:class:`AsyncChannelClient` adds the ``grpc.aio`` side (``AsyncMatchClient``,
``AsyncLadderClient``). The blocking ``MatchClient`` adds its own ``close``, ``with`` and
``_unary``.
"""

from __future__ import annotations

import abc
from collections.abc import Sequence
from types import ModuleType, TracebackType
from typing import Any, ClassVar, Generic, Self, TypeVar

import grpc

from botarena.clients._common import DEFAULT_TIMEOUT, bearer_metadata
from botarena.clients._errors import from_grpc_error

__all__ = ["AsyncChannelClient", "ChannelClient"]

StubT = TypeVar("StubT")


class ChannelClient(abc.ABC, Generic[StubT]):
    """A client of one service over one gRPC channel.

    A subclass names its stub in :meth:`_new_stub` and adds one method per RPC.

    Args:
        target: The server address, ``host:port``.
        token: Sent as ``authorization: Bearer <token>``; ``None`` sends no credentials.
        timeout: Seconds each unary call may take; ``None`` waits forever. Streams have
            no timeout.
        credentials: TLS credentials; ``None`` opens an insecure channel.
        channel_options: Extra gRPC channel arguments.
    """

    _channels: ClassVar[ModuleType] = grpc
    """Opens the channel: ``grpc`` (blocking) or ``grpc.aio``."""

    def __init__(
        self,
        *,
        target: str,
        token: str | None = None,
        timeout: float | None = DEFAULT_TIMEOUT,
        credentials: grpc.ChannelCredentials | None = None,
        channel_options: Sequence[tuple[str, Any]] = (),
    ) -> None:
        options = list(channel_options)
        if credentials is None:
            channel = self._channels.insecure_channel(target, options=options)
        else:
            channel = self._channels.secure_channel(target, credentials, options=options)
        self._setup(channel, target, token, timeout, owns_channel=True)

    @staticmethod
    @abc.abstractmethod
    def _new_stub(channel: Any) -> StubT:
        """Return the service's stub on ``channel``."""

    def _setup(
        self,
        channel: Any,
        target: str,
        token: str | None,
        timeout: float | None,
        *,
        owns_channel: bool,
    ) -> None:
        self._channel = channel
        self._stub: StubT = self._new_stub(channel)
        self._metadata = bearer_metadata(token)
        self._owns_channel = owns_channel
        self.target = target
        self.token = token
        self.timeout = timeout

    def _sharing_channel(self, token: str | None) -> Self:
        """Return a client of the same class on this client's channel that sends ``token``;
        closing it leaves the channel open."""
        other = object.__new__(type(self))
        other._setup(self._channel, self.target, token, self.timeout, owns_channel=False)
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
            raise from_grpc_error(exc) from exc
