"""Pure rule engines, one subpackage per game, and the registry that names them.

Everything here is deterministic and free of I/O: no grpc, no protobuf, no logging, no
clock (DESIGN.md: Layers). See :mod:`botarena.server.games._core` for the protocol.
"""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType
from typing import Any

from botarena.server.games._core import (
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
    "GameOverError",
    "IllegalMoveError",
    "NotYourTurnError",
    "Outcome",
    "Rules",
    "Seat",
    "get_rules",
    "random_below",
    "rank_by_score",
]


def _registry() -> Mapping[str, Rules[Any, Any, Any, Any]]:
    # Games are imported here, not at module top, so that each game can import the shared
    # vocabulary from this package without a cycle.
    from botarena.server.games.queendomino import QUEENDOMINO
    from botarena.server.games.qwirkle import QWIRKLE
    from botarena.server.games.qwixx import QWIXX

    games: list[Rules[Any, Any, Any, Any]] = [QWIRKLE, QWIXX, QUEENDOMINO]
    return MappingProxyType({rules.name: rules for rules in games})


GAMES: Mapping[str, Rules[Any, Any, Any, Any]] = _registry()
"""Every game the server offers, by name."""


def get_rules(name: str) -> Rules[Any, Any, Any, Any]:
    """Return the engine registered as ``name``.

    Raises:
        KeyError: No such game; the message lists the games that exist.
    """
    try:
        return GAMES[name]
    except KeyError:
        known = ", ".join(sorted(GAMES))
        raise KeyError(f"unknown game {name!r}; known games: {known}") from None
