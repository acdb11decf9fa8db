"""structlog configuration for the server: JSON lines off a terminal, console on one.

Warnings and errors of one kind are rate-limited (``RateLimiter``), ours and the standard
library's (asyncio's accept errors, aiohttp's): a storm of one error must not fill the
disk (docs/decisions.md: Connections).
"""

from __future__ import annotations

import logging
import sys
import time
from collections.abc import Callable, Hashable, MutableMapping
from typing import Any

import structlog

from botarena.server.text import printable

__all__ = ["LOG_BURST", "LOG_PERIOD", "RateLimiter", "configure_logging"]

LOG_BURST = 10
"""Warnings and errors of one kind logged per ``LOG_PERIOD``; the rest are counted."""

LOG_PERIOD = 60.0
"""Seconds of a ``LOG_BURST``."""

_MAX_KINDS = 1024

_MULTILINE = frozenset({"exception", "stack"})
"""The event keys whose text keeps its line breaks (tracebacks)."""


class RateLimiter:
    """Lets ``burst`` records of one kind through per ``period`` seconds and counts the
    ones it holds back, so that the next one let through can say how many there were.

    Args:
        burst: Records of a kind let through per period.
        period: Seconds of a period, from the first record of a kind.
        clock: The time, in seconds.
    """

    def __init__(
        self,
        burst: int = LOG_BURST,
        period: float = LOG_PERIOD,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        if burst < 1 or period <= 0:
            raise ValueError("burst must be at least 1 and period positive")
        self.burst = burst
        self.period = period
        self._clock = clock
        # kind -> [start of its period, records let through in it, records held back]
        self._kinds: dict[Hashable, list[float]] = {}

    def admit(self, kind: Hashable) -> int | None:
        """Return ``None`` to hold a record of ``kind`` back, else how many of its kind
        were held back since the last one let through."""
        now = self._clock()
        state = self._kinds.get(kind)
        if state is None or now - state[0] >= self.period:
            if state is None and len(self._kinds) >= _MAX_KINDS:
                self._kinds.clear()  # a flood of distinct kinds: start counting again
            held = 0 if state is None else int(state[2])
            self._kinds[kind] = [now, 1, 0]
            return held
        if state[1] < self.burst:
            state[1] += 1
            held, state[2] = int(state[2]), 0
            return held
        state[2] += 1
        return None


class _RateLimitFilter(logging.Filter):
    """The standard library's side: warnings and errors of one call site and exception
    type past the burst are dropped; the next one let through says how many.

    By call site, not by message: asyncio's exception handler writes the socket or the
    callback into each message. On EMFILE it logs once per connection waiting to be
    accepted, every second, and at shutdown once per accept retry it had scheduled:
    6,000 lines (10 MB) in a 3 s storm on the web port before this filter.
    """

    def __init__(self, limiter: RateLimiter) -> None:
        super().__init__()
        self._limiter = limiter

    def filter(self, record: logging.LogRecord) -> bool:
        if record.levelno < logging.WARNING:
            return True
        error = record.exc_info[0] if record.exc_info else None
        held = self._limiter.admit((record.name, record.pathname, record.lineno, error))
        if held is None:
            return False
        if held:
            record.msg = f"{record.msg} [{held} more like it not logged]"
        return True


def _rate_limit(limiter: RateLimiter) -> structlog.typing.Processor:
    """structlog's side: warnings and errors of one event past the burst are dropped;
    the next one let through carries ``not_logged``, how many."""

    def processor(
        logger: Any, method: str, event_dict: MutableMapping[str, Any]
    ) -> MutableMapping[str, Any]:
        if method not in ("warning", "error", "critical", "exception"):
            return event_dict
        held = limiter.admit((method, str(event_dict.get("event"))))
        if held is None:
            raise structlog.DropEvent
        if held:
            event_dict["not_logged"] = held
        return event_dict

    return processor


def _printable_values(
    logger: object, method: str, event_dict: structlog.typing.EventDict
) -> structlog.typing.EventDict:
    """Escape the control characters of every text value (a name, the event itself): a
    console line shows them, never obeys them. JSON escapes its own."""
    for key, value in event_dict.items():
        if isinstance(value, str):
            event_dict[key] = printable(value, newlines=key in _MULTILINE)
    return event_dict


def configure_logging(*, level: int = logging.INFO, json: bool | None = None) -> None:
    """Configure structlog for the process, and the standard library's logging (asyncio,
    aiohttp) to the same stream and format when nothing else has configured it.

    Args:
        level: The lowest level logged.
        json: JSON lines when true, a console renderer when false (text values with
            their control characters escaped); by default JSON unless stdout is a
            terminal.
    """
    if json is None:
        json = not sys.stdout.isatty()
    renderers: list[structlog.typing.Processor] = (
        [structlog.processors.JSONRenderer()]
        if json
        else [_printable_values, structlog.dev.ConsoleRenderer()]
    )
    limiter = RateLimiter()
    shared: list[structlog.typing.Processor] = [
        structlog.processors.add_log_level,
        structlog.processors.TimeStamper(fmt="iso", utc=True),
    ]
    structlog.configure(
        processors=[
            structlog.contextvars.merge_contextvars,
            _rate_limit(limiter),
            *shared,
            structlog.processors.StackInfoRenderer(),
            structlog.processors.format_exc_info,
            *renderers,
        ],
        wrapper_class=structlog.make_filtering_bound_logger(level),
        # One write per line: print() writes the line and its newline apart, and a line
        # of the standard library's handler (psycopg's pool, in its own thread) landed
        # between them, two JSON records on one line.
        logger_factory=structlog.WriteLoggerFactory(sys.stdout),
        cache_logger_on_first_use=True,
    )
    root = logging.getLogger()
    if root.handlers:  # an embedding application's own set-up: left alone
        return
    handler = logging.StreamHandler(sys.stdout)
    handler.setFormatter(
        structlog.stdlib.ProcessorFormatter(
            processors=[
                structlog.stdlib.ProcessorFormatter.remove_processors_meta,
                structlog.processors.format_exc_info,
                *renderers,
            ],
            foreign_pre_chain=[structlog.stdlib.add_logger_name, *shared],
        )
    )
    handler.addFilter(_RateLimitFilter(limiter))
    root.addHandler(handler)
    root.setLevel(max(level, logging.WARNING))
