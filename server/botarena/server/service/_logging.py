"""structlog configuration for the server: JSON lines off a terminal, console on one."""

from __future__ import annotations

import logging
import sys

import structlog

__all__ = ["configure_logging"]


def configure_logging(*, level: int = logging.INFO, json: bool | None = None) -> None:
    """Configure structlog for the process.

    Args:
        level: The lowest level logged.
        json: JSON lines when true, a console renderer when false; by default JSON
            unless stdout is a terminal.
    """
    if json is None:
        json = not sys.stdout.isatty()
    renderer: structlog.typing.Processor = (
        structlog.processors.JSONRenderer() if json else structlog.dev.ConsoleRenderer()
    )
    structlog.configure(
        processors=[
            structlog.contextvars.merge_contextvars,
            structlog.processors.add_log_level,
            structlog.processors.TimeStamper(fmt="iso", utc=True),
            structlog.processors.StackInfoRenderer(),
            structlog.processors.format_exc_info,
            renderer,
        ],
        wrapper_class=structlog.make_filtering_bound_logger(level),
        logger_factory=structlog.PrintLoggerFactory(sys.stdout),
        cache_logger_on_first_use=True,
    )
