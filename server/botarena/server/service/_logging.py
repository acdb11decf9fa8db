"""structlog configuration for the server: JSON lines off a terminal, console on one."""

from __future__ import annotations

import logging
import sys

import structlog

from botarena.server.text import printable

__all__ = ["configure_logging"]

_MULTILINE = frozenset({"exception", "stack"})
"""The event keys whose text keeps its line breaks (tracebacks)."""


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
    """Configure structlog for the process.

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
    structlog.configure(
        processors=[
            structlog.contextvars.merge_contextvars,
            structlog.processors.add_log_level,
            structlog.processors.TimeStamper(fmt="iso", utc=True),
            structlog.processors.StackInfoRenderer(),
            structlog.processors.format_exc_info,
            *renderers,
        ],
        wrapper_class=structlog.make_filtering_bound_logger(level),
        logger_factory=structlog.PrintLoggerFactory(sys.stdout),
        cache_logger_on_first_use=True,
    )
