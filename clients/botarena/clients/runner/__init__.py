"""The match runner behind ``botarena match``: schedules games, collects results, reports.

See :func:`run_match`; the ``botarena`` command (``botarena.clients.cli``) wires it up.
"""

from __future__ import annotations

from botarena.clients.runner._plan import (
    BotSpec,
    GamePlan,
    SeedKey,
    new_seed_key,
    parse_bot_spec,
    plan_games,
)
from botarena.clients.runner._play import (
    GAMES,
    RUNNER_RETRY,
    BotFailedError,
    GameOptions,
    create_game_match,
)
from botarena.clients.runner._results import RESULTS_SCHEMA_VERSION, GameRecord, SeatRecord
from botarena.clients.runner._run import BuiltinBot, add_match_arguments, run_match

__all__ = [
    "GAMES",
    "RESULTS_SCHEMA_VERSION",
    "RUNNER_RETRY",
    "BotFailedError",
    "BotSpec",
    "BuiltinBot",
    "GameOptions",
    "GamePlan",
    "GameRecord",
    "SeatRecord",
    "SeedKey",
    "add_match_arguments",
    "create_game_match",
    "new_seed_key",
    "parse_bot_spec",
    "plan_games",
    "run_match",
]
