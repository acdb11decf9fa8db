# mypy: disable-error-code="import-untyped"
"""``Route``: the node of a cluster that one match's calls go to, and how they get there.

Several server nodes on one PostgreSQL redirect a call for a match they do not run to
its owner (``MATCH_ON_OTHER_NODE`` naming it), and a node that cannot be reached (dead,
frozen, restarting) sends the caller back to where it was sent, which by then runs the
match (it took the lease over) or names its new owner. A :class:`Route` holds that
choice for one caller of one match: a seat's follower and decider (``run_bot``), the
match runner's spectator and its resigns. :meth:`Route.call` retries one call along it,
:meth:`Route.events` follows the match's event stream to its end across reconnects and
redirects.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import random
from collections.abc import AsyncGenerator, Awaitable, Callable, Sequence
from dataclasses import replace
from typing import TypeVar

import grpc

from botarena.clients._aio import AsyncMatchClient
from botarena.clients._errors import (
    BotarenaError,
    MatchOnOtherNodeError,
    TransientError,
    UnavailableError,
)
from botarena.clients._retry import (
    RECONNECT_CHANNEL_OPTIONS,
    Retry,
    RetryPolicy,
    call_with_retry,
    is_retryable,
)
from botarena.v1 import match_pb2

__all__ = ["Route"]

T = TypeVar("T")

_logger = logging.getLogger("botarena.clients.bot")


class Route:
    """Where one caller's calls for one match go: its homes, and the node they go to now.

    Args:
        homes: Where the caller was sent: one server, or every node it knows (a ladder
            bot's). Their clients (and channels) belong to the caller.
        first: The client to talk to first (the node that runs the match, when known);
            by default ``homes[0]``.
        label: Names the caller in log lines ("seat 1", "spectator"); may be changed.

    Raises:
        ValueError: No home.
    """

    def __init__(
        self,
        homes: Sequence[AsyncMatchClient],
        first: AsyncMatchClient | None = None,
        *,
        label: str = "",
    ) -> None:
        if not homes:
            raise ValueError("a route needs at least one home")
        self.homes = list(homes)
        self.home_index = 0
        self.client = first or self.homes[0]
        """The node the calls go to now."""
        self.label = label
        # The clients of nodes named in redirects that are not homes, opened here.
        self._nodes: dict[str, AsyncMatchClient] = {}

    async def close(self) -> None:
        """Close the clients this route opened (the homes stay open)."""
        nodes, self._nodes = list(self._nodes.values()), {}
        for node in nodes:
            await node.close()

    def reroute(self, error: BotarenaError, via: AsyncMatchClient) -> bool:
        """Follow a redirect to the node that runs the match, or go home from a node that
        cannot be reached; return whether the calls now go to another node than ``via``,
        the client of the call that failed.

        Several tasks may share a route (a seat's follower and decider): when one of them
        has moved it already, the other's call to the old node fails the same way and
        finds the route moved (and goes there too).
        """
        if isinstance(error, MatchOnOtherNodeError) and error.node not in (
            "",
            via.server.address,
        ):
            if self.client.server.address != error.node:
                _logger.info("%s: match runs on %s, following it", self.label, error.node)
                self.client = self._node(error.node)
            return True
        if isinstance(error, TransientError):
            if self.client is not via:
                return True  # another task of the route moved on already
            home = self.homes[self.home_index]
            if home.server.address == via.server.address:
                # The home itself is away: the next one, in turn (none with one home).
                self.home_index = (self.home_index + 1) % len(self.homes)
                home = self.homes[self.home_index]
            if home is via:
                return False
            _logger.info("%s: %s unreachable, asking %s", self.label, via.target, home.target)
            self.client = home
            return True
        return False

    def _node(self, address: str) -> AsyncMatchClient:
        """The client of the node at ``address``: a home's, or one opened here with the
        first home's token, timeout and TLS settings."""
        for home in self.homes:
            if home.server.address == address:
                return home
        client = self._nodes.get(address)
        if client is None:
            home = self.homes[0]
            client = self._nodes[address] = AsyncMatchClient(
                target=replace(home.server, address=address),
                token=home.token,
                timeout=home.timeout,
                channel_options=RECONNECT_CHANNEL_OPTIONS,
            )
        return client

    async def call(
        self,
        call: Callable[[AsyncMatchClient], Awaitable[T]],
        policy: RetryPolicy,
        *,
        jitter: random.Random | None = None,
    ) -> T:
        """Await ``call(client)`` on the route's node until it succeeds, following
        redirects and going home from an unreachable node, and retrying transient
        failures under ``policy``.

        ``call`` must be safe to repeat: a command carries the same ``request_id``.

        Raises:
            BotarenaError: A failure that is not transient, or the last one once
                ``policy`` gives up.
        """
        via = self.client

        async def once() -> T:
            nonlocal via
            via = self.client
            return await call(via)

        return await call_with_retry(
            once,
            policy,
            retry_on=lambda error: self.reroute(error, via) or is_retryable(error),
            jitter=jitter,
        )

    async def events(
        self,
        match: str,
        policy: RetryPolicy,
        *,
        jitter: random.Random | None = None,
        after_state_version: int = 0,
    ) -> AsyncGenerator[match_pb2.MatchEvent, None]:
        """Yield the match's events (StreamMatchEvents on the route's node) until
        ``MatchFinished``, across reconnects and redirects.

        A stream that fails transiently, or ends before the match does, is opened again
        after the last version seen, on the node the route names then, under ``policy``
        (every event resets its count); a redirect is followed at once.

        Raises:
            BotarenaError: A failure that is not transient, or the last one once
                ``policy`` gives up.
        """
        retry = Retry(policy, jitter)
        last_version = after_state_version
        while True:
            error: BotarenaError | None = None
            client = self.client
            try:
                async with contextlib.aclosing(
                    client.stream_match_events(match, after_state_version=last_version)
                ) as stream:
                    async for event in stream:
                        retry.succeeded()
                        last_version = max(last_version, event.state_version)
                        yield event
                        if event.WhichOneof("kind") == "match_finished":
                            return
            except BotarenaError as exc:
                rerouted = self.reroute(exc, client)
                if isinstance(exc, MatchOnOtherNodeError) and rerouted:
                    continue  # at once: the match is alive on the node named
                if not is_retryable(exc):
                    raise
                error = exc
            delay = retry.failed(error)
            if delay is None:
                raise error or UnavailableError(
                    grpc.StatusCode.UNAVAILABLE,
                    None,
                    f"the event stream ended {retry.failures} times before the match finished",
                )
            _logger.info(
                "event stream of %s lost (%s); resuming after version %d in %.2f s",
                self.label,
                error or "ended early",
                last_version,
                delay,
            )
            await asyncio.sleep(delay)
