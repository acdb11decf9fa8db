"""Warnings and errors of one kind are rate-limited (issue 26): a storm of one error
writes a bounded few lines, and the next line let through says how many were not."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap

from botarena.server.service import LOG_BURST
from botarena.server.service._logging import RateLimiter


class _Clock:
    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


def test_a_kind_past_its_burst_is_held_back_and_counted_until_the_period_ends() -> None:
    clock = _Clock()
    limiter = RateLimiter(burst=3, period=10.0, clock=clock)
    assert [limiter.admit("accept") for _ in range(5)] == [0, 0, 0, None, None]
    assert limiter.admit("another kind") == 0  # kinds are counted apart
    clock.now = 9.9
    assert limiter.admit("accept") is None
    clock.now = 10.0
    # A new period: let through, saying how many were held back in the last one.
    assert limiter.admit("accept") == 3
    assert limiter.admit("accept") == 0


def test_our_own_warning_storm_logs_a_burst() -> None:
    program = textwrap.dedent(
        """
        import logging, structlog
        from botarena.server.service import configure_logging
        configure_logging(level=logging.INFO, json=True)
        log = structlog.get_logger("botarena.test")
        for number in range(1000):
            log.warning("web connection refused", peer="127.0.0.2", refused=number)
            log.info("serving", number=number)
        """
    )
    output = subprocess.run(
        [sys.executable, "-c", program], capture_output=True, text=True, check=True, timeout=60
    ).stdout
    events = [json.loads(line)["event"] for line in output.splitlines()]
    assert events.count("web connection refused") == LOG_BURST
    assert events.count("serving") == 1000  # info is never held back


def test_lines_from_two_threads_never_share_a_line() -> None:
    # structlog's lines and the standard library's (psycopg's pool logs from a thread
    # of its own) go to one stdout: print() wrote a line and its newline apart, and two
    # JSON records ended up on one line.
    program = textwrap.dedent(
        """
        import logging, threading, structlog
        from botarena.server.service import configure_logging
        configure_logging(json=True)
        log = structlog.get_logger("botarena.test")

        def library():
            for i in range(2000):  # a logger each: kinds of their own, never held back
                logging.getLogger(f"library.{i}").warning("pool worker %d", i)

        thread = threading.Thread(target=library)
        thread.start()
        for i in range(4000):
            log.info("ours", i=i)
        thread.join()
        """
    )
    done = subprocess.run(
        [sys.executable, "-c", program], capture_output=True, text=True, timeout=120, check=True
    )
    records = [json.loads(line) for line in done.stdout.splitlines()]
    assert sum(record.get("event") == "ours" for record in records) == 4000
    assert sum(str(record.get("event", "")).startswith("pool worker") for record in records) > 0
