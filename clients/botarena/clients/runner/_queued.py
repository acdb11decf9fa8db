"""A queued run as data: the document a coordinator stores and a worker plays from.

The document holds what a worker needs to play any game of the run as a local run plays
it: the lineup (built-in bot names and commands), how games are played (``GameOptions``
without the coordinator's folder), and each bot's first game (a crash there stops the
run, as in a local run). It also keeps the options that defined the run (``plan.json``'s),
so that ``botarena match --queue URL --run ID`` can plan the same games again.
"""

from __future__ import annotations

import importlib.util
import shutil
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from botarena.clients.runner._plan import BotSpec, GamePlan
from botarena.clients.runner._play import GameOptions

__all__ = [
    "RUN_SCHEMA_VERSION",
    "QueuedRun",
    "first_games",
    "game_sets",
    "missing_commands",
    "queued_run",
    "require_psycopg",
    "run_document",
]

RUN_SCHEMA_VERSION = 1

_PLAYED_OPTIONS = (
    "game",
    "move_time_limit",
    "time_bank",
    "forfeit_on_timeout",
    "max_illegal_moves",
    "max_stand_ins",
    "join_timeout",
    "exit_grace",
)
"""The ``GameOptions`` a worker plays with; the rest are the coordinator's."""


@dataclass(frozen=True, slots=True)
class QueuedRun:
    """What a worker plays a queued run's games with; ``keep_files``: send each game's
    replay and bots' stderr with its result (the coordinator has an ``--out`` folder)."""

    lineup: list[BotSpec]
    options: GameOptions
    first_game: dict[str, int]
    keep_files: bool


def first_games(lineup: Sequence[BotSpec], plans: Sequence[GamePlan]) -> dict[str, int]:
    """Return each bot's first game of ``plans`` by name (a crash there stops the run)."""
    first: dict[str, int] = {}
    for plan in reversed(plans):
        for index in plan.lineup_at_seat:
            first[lineup[index].name] = plan.number
    return first


def game_sets(plans: Sequence[GamePlan]) -> list[list[GamePlan]]:
    """Return ``plans`` as game sets, the queue's unit of work: the games of one label and
    one group of bots (every seat rotation), in plan order.

    >>> from botarena.clients.runner._plan import SeedKey, plan_games
    >>> plans = plan_games(2, 4, 1, SeedKey("k", "some-game"), [(0, 1), (0, 2)])
    >>> [[plan.number for plan in games] for games in game_sets(plans)]
    [[1, 2], [3, 4], [5, 6], [7, 8]]
    """
    sets: dict[tuple[int, tuple[int, ...]], list[GamePlan]] = {}
    for plan in plans:
        sets.setdefault((plan.label, tuple(sorted(plan.lineup_at_seat))), []).append(plan)
    return list(sets.values())


def run_document(
    plan_options: Mapping[str, Any],
    lineup: Sequence[BotSpec],
    options: GameOptions,
    first_game: Mapping[str, int],
    *,
    keep_files: bool,
) -> dict[str, Any]:
    """Return the document a queued run is stored with."""
    return {
        "schema_version": RUN_SCHEMA_VERSION,
        "options": dict(plan_options),
        "lineup": [
            {
                "name": spec.name,
                "builtin": spec.builtin,
                "command": list(spec.command) if spec.command is not None else None,
            }
            for spec in lineup
        ],
        "play": {name: getattr(options, name) for name in _PLAYED_OPTIONS},
        "first_game": dict(first_game),
        "keep_files": keep_files,
    }


def queued_run(document: Mapping[str, Any]) -> QueuedRun:
    """Return what a worker plays the run of ``document`` with.

    Raises:
        ValueError: Not a run document this botarena can play (another schema version).
    """
    if document.get("schema_version") != RUN_SCHEMA_VERSION:
        raise ValueError(
            f"a run of schema version {document.get('schema_version')}, which this "
            f"botarena cannot play (it plays version {RUN_SCHEMA_VERSION})"
        )
    try:
        lineup = [
            BotSpec(
                str(bot["name"]),
                builtin=bot["builtin"],
                command=tuple(bot["command"]) if bot["command"] is not None else None,
            )
            for bot in document["lineup"]
        ]
        options = GameOptions(**{name: document["play"][name] for name in _PLAYED_OPTIONS})
        first = {str(name): int(number) for name, number in document["first_game"].items()}
        keep_files = bool(document["keep_files"])
    except (KeyError, TypeError) as error:
        raise ValueError(f"not a run document: {error!r}") from None
    return QueuedRun(lineup, options, first, keep_files)


def missing_commands(lineup: Sequence[BotSpec], builtin: Sequence[str]) -> list[str]:
    """Return why this machine cannot play ``lineup``: each built-in bot it does not
    have, each command whose program is not here (on ``PATH``, or the path given)."""
    missing = []
    for spec in lineup:
        if spec.builtin is not None and spec.builtin not in builtin:
            missing.append(f"{spec.name}: no built-in bot {spec.builtin!r} here")
        elif spec.command is not None and shutil.which(spec.command[0]) is None:
            missing.append(f"{spec.name}: the command {spec.command[0]!r} is not found here")
    return missing


def require_psycopg(program: str) -> None:
    """Stop with one line when the PostgreSQL driver (the ``postgres`` extra) is missing.

    Raises:
        SystemExit: psycopg is not installed.
    """
    if importlib.util.find_spec("psycopg") is None:
        raise SystemExit(
            f"{program}: a queue needs the PostgreSQL driver: pip install 'botarena[postgres]'"
        )
