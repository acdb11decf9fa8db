"""RetryPolicy: retries stop only once both the attempts and the time are used up."""

from __future__ import annotations

import pytest

from botarena.clients import RetryPolicy


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
