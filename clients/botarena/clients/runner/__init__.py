"""The match runner behind ``botarena match``: schedules games, collects results, reports.

See :func:`run_match`; the ``botarena`` command (``botarena.clients.cli``) wires it up.
"""

from __future__ import annotations

from botarena.clients.runner._plan import BotSpec, GamePlan, parse_bot_spec, plan_games
from botarena.clients.runner._play import GAMES, REPLAY_SCHEMA_VERSION, GameOptions
from botarena.clients.runner._results import RESULTS_SCHEMA_VERSION, GameRecord, SeatRecord
from botarena.clients.runner._run import BuiltinBot, add_match_arguments, run_match

__all__ = [
    "GAMES",
    "REPLAY_SCHEMA_VERSION",
    "RESULTS_SCHEMA_VERSION",
    "BotSpec",
    "BuiltinBot",
    "GameOptions",
    "GamePlan",
    "GameRecord",
    "SeatRecord",
    "add_match_arguments",
    "parse_bot_spec",
    "plan_games",
    "run_match",
]
