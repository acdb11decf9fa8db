# mypy: disable-error-code="import-untyped"
"""Retrying calls to a server that may be away for a while (a restart, a full server).

:class:`RetryPolicy` says how often, how fast and for how long; :class:`Retry` counts the
failures in a row of one operation under a policy (progress resets it), and
:func:`call_with_retry` repeats one call until it succeeds or the policy gives up. Every
retry loop of the SDK and the match runner is built from these two.
"""

from __future__ import annotations

import asyncio
import random
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import TypeVar

import grpc

from botarena.clients._errors import BotarenaError, TlsError

__all__ = [
    "RECONNECT_CHANNEL_OPTIONS",
    "RECONNECT_CODES",
    "Retry",
    "RetryPolicy",
    "call_with_retry",
    "is_retryable",
]

T = TypeVar("T")

RECONNECT_CHANNEL_OPTIONS = (("grpc.max_reconnect_backoff_ms", 2000),)
"""Channel options that make a channel retry its connection at least every 2 s (grpc's
default grows to 120 s), so a client notices a restarted server within seconds."""

RECONNECT_CODES = frozenset(
    {grpc.StatusCode.UNAVAILABLE, grpc.StatusCode.DEADLINE_EXCEEDED, grpc.StatusCode.CANCELLED}
)
"""Stream failures worth a reconnect: the connection dropped or the server went away (a
server stopping with a grace period cancels its calls)."""


@dataclass(frozen=True, slots=True)
class RetryPolicy:
    """Bounded exponential backoff with jitter, for reconnects and resubmits.

    Tries stop once both limits are reached: ``max_attempts`` failed tries in a row and
    ``max_elapsed`` seconds since the first of them.

    Attributes:
        max_attempts: Tries in a row, the first included, before giving up.
        initial_backoff: Seconds before the second try.
        max_backoff: Longest wait between tries.
        multiplier: Growth of the wait after each failed try.
        max_elapsed: Seconds to keep trying (past ``max_attempts``) after the first
            failure in a row, e.g. while a server restarts.
    """

    max_attempts: int = 8
    initial_backoff: float = 0.1
    max_backoff: float = 2.0
    multiplier: float = 2.0
    max_elapsed: float = 0.0

    def gives_up(self, failures: int, elapsed: float) -> bool:
        """Return whether to stop after ``failures`` failed tries in ``elapsed`` seconds."""
        return failures >= self.max_attempts and elapsed >= self.max_elapsed

    def backoff(self, failures: int, jitter: random.Random) -> float:
        """Return the seconds to wait after ``failures`` failed tries in a row (>= 1)."""
        # The exponent is capped: a retry that goes on for hours must not overflow a float.
        growth = self.multiplier ** min(failures - 1, 64)
        ceiling = min(self.max_backoff, self.initial_backoff * growth)
        # "Equal jitter": at least half the ceiling, so retries never hammer the server.
        return ceiling / 2 + jitter.uniform(0, ceiling / 2)


class Retry:
    """The failures in a row of one operation under a :class:`RetryPolicy`.

    Call :meth:`failed` after each failed try and wait the seconds it returns (``None``:
    give up); call :meth:`succeeded` whenever the operation makes progress (a stream
    delivered an event), so that only failures in a row count.

    Args:
        policy: How often, how fast and how long.
        jitter: The random source of the backoff's jitter (default: a new one).
        clock: Seconds on a monotonic clock.
    """

    __slots__ = ("_clock", "_first_failure", "_jitter", "failures", "policy")

    def __init__(
        self,
        policy: RetryPolicy,
        jitter: random.Random | None = None,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.policy = policy
        self.failures = 0
        self._first_failure = 0.0
        self._jitter = jitter or random.Random()
        self._clock = clock

    def succeeded(self) -> None:
        """Note progress: the next failure is the first in a row again."""
        self.failures = 0

    def failed(self, error: BotarenaError | None = None) -> float | None:
        """Count one failed try; return the seconds to wait before the next, or ``None``.

        Args:
            error: The failure; its ``retry_after`` (the server's ``RetryInfo``) is
                waited at least.

        Returns:
            The wait, or ``None`` once the policy gives up.
        """
        self.failures += 1
        now = self._clock()
        if self.failures == 1:
            self._first_failure = now
        if self.policy.gives_up(self.failures, now - self._first_failure):
            return None
        delay = self.policy.backoff(self.failures, self._jitter)
        if error is not None and error.retry_after is not None:
            delay = max(delay, error.retry_after)
        return delay


def is_retryable(error: BotarenaError) -> bool:
    """Return True when repeating the call (same ``request_id``) may succeed: the server
    was unreachable, the call ran out of time or was cancelled by a stopping server, or
    the server admits no new match for now; never for a :class:`TlsError`, which no
    retry mends."""
    if isinstance(error, TlsError):
        return False
    return error.retryable or error.code in RECONNECT_CODES


async def call_with_retry(
    call: Callable[[], Awaitable[T]],
    policy: RetryPolicy,
    *,
    retry_on: Callable[[BotarenaError], bool] = is_retryable,
    jitter: random.Random | None = None,
) -> T:
    """Await ``call()`` until it succeeds, retrying the failures ``retry_on`` accepts.

    ``call`` must be safe to repeat: a command carries the same ``request_id`` each time.

    Returns:
        What ``call()`` returned.

    Raises:
        BotarenaError: A failure ``retry_on`` refuses, or the last one once ``policy``
            gives up.
    """
    retry = Retry(policy, jitter)
    while True:
        try:
            return await call()
        except BotarenaError as error:
            if not retry_on(error):
                raise
            delay = retry.failed(error)
            if delay is None:
                raise
        await asyncio.sleep(delay)
