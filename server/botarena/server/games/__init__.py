"""Pure rule engines, one subpackage per game, and the registry of engines by name.

Everything here is deterministic and free of I/O: no grpc, no protobuf, no logging, no
clock (DESIGN.md: Layers). See :mod:`botarena.server.games._core` for the protocol.
"""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType
from typing import Any

from botarena.server.games._core import (
    GameInfo,
    GameOverError,
    IllegalMoveError,
    NotYourTurnError,
    Outcome,
    Rules,
    Seat,
    rank_by_score,
)
from botarena.server.games._random import random_below

__all__ = [
    "GAMES",
    "GameInfo",
    "GameOverError",
    "IllegalMoveError",
    "NotYourTurnError",
    "Outcome",
    "Rules",
    "Seat",
    "get_rules",
    "random_below",
    "rank_by_score",
    "register_rules",
]


_GAMES: dict[str, Rules[Any, Any, Any, Any]] = {}

GAMES: Mapping[str, Rules[Any, Any, Any, Any]] = MappingProxyType(_GAMES)
"""Every registered engine, by name: a read-only view that :func:`register_rules` fills.

The server's game registry (``botarena.server.service.PLUGINS``) registers every game it
hosts when the service layer is imported; this package names no game itself."""


def register_rules(rules: Rules[Any, Any, Any, Any]) -> None:
    """Register ``rules`` under its ``name``; registering the same engine again is a no-op.

    Raises:
        ValueError: Another engine is registered under that name.
    """
    known = _GAMES.setdefault(rules.name, rules)
    if known is not rules:
        raise ValueError(f"another engine is registered as game {rules.name!r}")


def get_rules(name: str) -> Rules[Any, Any, Any, Any]:
    """Return the engine registered as ``name``.

    Raises:
        KeyError: No game registered as ``name``; the message lists the games that are.
    """
    try:
        return GAMES[name]
    except KeyError:
        known = ", ".join(sorted(GAMES))
        raise KeyError(f"unknown game {name!r}; known games: {known}") from None
