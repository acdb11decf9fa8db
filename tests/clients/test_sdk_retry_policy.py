# mypy: disable-error-code="import-untyped"
"""RetryPolicy and Retry: retries stop only once both the attempts and the time are used
up, progress resets them, and a server's RetryInfo is honoured."""

from __future__ import annotations

import random

import grpc
import pytest

from botarena.clients import AdmissionRefusedError, RetryPolicy
from botarena.clients._retry import Retry


@pytest.mark.parametrize(
    ("failures", "elapsed", "gives_up"),
    [(2, 0.0, False), (3, 0.0, False), (3, 9.9, False), (3, 10.0, True), (50, 5.0, False)],
    ids=["few-tries", "tries-used-time-left", "almost", "both-used", "many-tries-time-left"],
)
def test_retries_go_on_until_attempts_and_time_are_both_used(
    failures: int, elapsed: float, gives_up: bool
) -> None:
    policy = RetryPolicy(max_attempts=3, max_elapsed=10.0)
    assert policy.gives_up(failures, elapsed) is gives_up


def test_without_a_time_the_attempts_alone_count() -> None:
    assert not RetryPolicy(max_attempts=3).gives_up(2, 100.0)
    assert RetryPolicy(max_attempts=3).gives_up(3, 0.0)


def test_progress_resets_the_failures_in_a_row() -> None:
    now = [0.0]
    retry = Retry(RetryPolicy(max_attempts=2), random.Random(1), clock=lambda: now[0])
    assert retry.failed() is not None
    retry.succeeded()
    assert retry.failed() is not None  # the first failure in a row again
    assert retry.failed() is None


def test_a_servers_retry_after_is_waited_at_least() -> None:
    retry = Retry(RetryPolicy(max_attempts=3, max_backoff=0.2), random.Random(1))
    refused = AdmissionRefusedError(grpc.StatusCode.RESOURCE_EXHAUSTED, "TOO_MANY_MATCHES", "full")
    refused.retry_after = 1.5
    assert retry.failed(refused) == 1.5
    delay = retry.failed()
    assert delay is not None
    assert delay <= 0.2


def test_the_ladder_bot_reconnects_forever_at_most_10_s_apart() -> None:
    from botarena.clients._ladder import LADDER_RECONNECT

    now = [0.0]
    retry = Retry(LADDER_RECONNECT, random.Random(1), clock=lambda: now[0])
    delays = []
    for _ in range(10_000):
        delay = retry.failed()
        assert delay is not None
        delays.append(delay)
        now[0] += 3600.0  # a day's outage and more: it never gives up
    assert max(delays) <= 10.0
