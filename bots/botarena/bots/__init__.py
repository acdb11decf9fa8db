"""Reference bots, built on the SDK (``botarena.clients``) only.

* :class:`RandomBot` (``random``): a uniformly random legal move, for every game.
* :class:`GreedyBot` (``greedy``): hands each decision to the game's greedy bot:
  :class:`GreedyQwirkleBot` (the highest-scoring placement, with the exchange rule
  documented in its module) or :class:`GreedyQueendominoBot` (the best immediate gain of
  its own score, coins included).
* :class:`HeuristicQwixxBot` (``heuristic``): Qwixx marks that skip few numbers, penalties
  only when every mark skips too many, locks only when ahead (rule in its module).
* :class:`SearchBot` (``search``): hands each decision to the game's search bot, which
  looks ahead on determinized states (``botarena.clients.search``) within a think budget
  per decision: :class:`SearchQwirkleBot`, :class:`SearchQwixxBot`,
  :class:`SearchQueendominoBot`.

Each is also a command following the bot executable convention (docs/bots.md):
``python -m botarena.bots.random``, ``python -m botarena.bots.greedy``,
``python -m botarena.bots.heuristic`` and ``python -m botarena.bots.search``.
:data:`BUILTIN_BOTS` lists them by name for the match runner.
"""

from __future__ import annotations

from botarena.bots._greedy import (
    DEFAULT_EXCHANGE_THRESHOLD,
    GreedyQwirkleBot,
    UnsupportedGameError,
)
from botarena.bots._greedy_queendomino import GreedyQueendominoBot
from botarena.bots._heuristic import HeuristicQwixxBot
from botarena.bots._random import RandomBot
from botarena.bots._registry import BUILTIN_BOTS, BuiltinBot, GreedyBot, SearchBot, get_bot
from botarena.bots._search_queendomino import SearchQueendominoBot
from botarena.bots._search_qwirkle import SearchQwirkleBot
from botarena.bots._search_qwixx import SearchQwixxBot

__all__ = [
    "BUILTIN_BOTS",
    "DEFAULT_EXCHANGE_THRESHOLD",
    "BuiltinBot",
    "GreedyBot",
    "GreedyQueendominoBot",
    "GreedyQwirkleBot",
    "HeuristicQwixxBot",
    "RandomBot",
    "SearchBot",
    "SearchQueendominoBot",
    "SearchQwirkleBot",
    "SearchQwixxBot",
    "UnsupportedGameError",
    "get_bot",
]
