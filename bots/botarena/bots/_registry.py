"""The built-in bots by name, for the match runner and for ``get_bot``.

The one place that names the game-specific bots: each declares its ``game`` (a registry
name of the server's games), and the lists of games below derive from them."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from types import MappingProxyType
from typing import Any

from botarena.bots._dispatch import ByGameBot
from botarena.bots._greedy import GreedyQwirkleBot
from botarena.bots._greedy_queendomino import GreedyQueendominoBot
from botarena.bots._heuristic import HeuristicQwixxBot
from botarena.bots._random import RandomBot
from botarena.bots._search_queendomino import SearchQueendominoBot
from botarena.bots._search_qwirkle import SearchQwirkleBot
from botarena.bots._search_qwixx import SearchQwixxBot
from botarena.clients import Bot

__all__ = [
    "BUILTIN_BOTS",
    "GREEDY_GAMES",
    "SEARCH_GAMES",
    "BuiltinBot",
    "GreedyBot",
    "SearchBot",
    "get_bot",
    "search_bot_for",
]

_GREEDY_BOTS: Mapping[str, Callable[[], Bot]] = MappingProxyType(
    {bot.game: bot for bot in (GreedyQwirkleBot, GreedyQueendominoBot)}
)
GREEDY_GAMES = frozenset(_GREEDY_BOTS)
"""The games (registry names, equal to the view's oneof case) a greedy bot exists for."""
_HEURISTIC_GAMES = frozenset({HeuristicQwixxBot.game})
_SEARCH_BOTS: Mapping[str, Any] = MappingProxyType(
    {bot.game: bot for bot in (SearchQwirkleBot, SearchQwixxBot, SearchQueendominoBot)}
)
SEARCH_GAMES = frozenset(_SEARCH_BOTS)
"""The games a search bot exists for."""


def _titles(games: Iterable[str]) -> str:
    return ", ".join(game.title() for game in games)


class GreedyBot(ByGameBot):
    """Hands every decision to the greedy bot of the match's game (see ``GREEDY_GAMES``)."""

    def __init__(self) -> None:
        super().__init__(_GREEDY_BOTS, kind="greedy")


class SearchBot(ByGameBot):
    """Hands every decision to the search bot of the match's game (see ``SEARCH_GAMES``)."""

    def __init__(self) -> None:
        super().__init__(_SEARCH_BOTS, kind="search")


def search_bot_for(game: str, overrides: Sequence[str] = ()) -> Bot:
    """Return the search bot of ``game`` with its settings changed by ``name=value`` texts
    (for tuning: ``["samples=4", "time_limit=0.1"]``).

    Raises:
        KeyError: No search bot for ``game``.
        ValueError: An override names no setting or its value does not parse.
    """
    bot_type = _SEARCH_BOTS[game]
    settings = bot_type().settings
    changes: dict[str, object] = {}
    fields = {field.name: field for field in dataclasses.fields(settings)}
    for text in overrides:
        name, _, value = text.partition("=")
        field = fields.get(name)
        if field is None:
            raise ValueError(f"no setting {name!r}; settings: {', '.join(sorted(fields))}")
        kind = type(getattr(settings, name))
        changes[name] = kind(value) if kind is not bool else value.lower() in ("1", "true")
    bot: Bot = bot_type(dataclasses.replace(settings, **changes))
    return bot


@dataclass(frozen=True, slots=True)
class BuiltinBot:
    """A reference bot the runner can play in-process or start as a command.

    Attributes:
        name: The name the runner accepts (``--bot greedy``).
        summary: One line for listings.
        games: The games it plays (registry names of the server's games); ``None`` means
            every game.
        factory: Returns a new instance.
        module: Run ``python -m <module> --server ... --token ...`` to play it
            as a command (docs/bots.md).
    """

    name: str
    summary: str
    games: frozenset[str] | None
    factory: Callable[[], Bot]
    module: str

    def plays(self, game: str) -> bool:
        """Return True when the bot can play ``game`` (a registry name)."""
        return self.games is None or game in self.games


BUILTIN_BOTS: Mapping[str, BuiltinBot] = MappingProxyType(
    {
        bot.name: bot
        for bot in (
            BuiltinBot(
                name="random",
                summary="a uniformly random legal move (every game)",
                games=None,
                factory=RandomBot,
                module="botarena.bots.random",
            ),
            BuiltinBot(
                name="greedy",
                summary=f"the best immediate score gain ({_titles(_GREEDY_BOTS)})",
                games=GREEDY_GAMES,
                factory=GreedyBot,
                module="botarena.bots.greedy",
            ),
            BuiltinBot(
                name="search",
                summary="look-ahead on sampled hidden information, within a time budget "
                f"({_titles(_SEARCH_BOTS)})",
                games=SEARCH_GAMES,
                factory=SearchBot,
                module="botarena.bots.search",
            ),
            BuiltinBot(
                name="heuristic",
                summary="marks what skips little, avoids penalties, locks when ahead "
                f"({_titles(_HEURISTIC_GAMES)})",
                games=_HEURISTIC_GAMES,
                factory=HeuristicQwixxBot,
                module="botarena.bots.heuristic",
            ),
        )
    }
)
"""The built-in bots by name."""


def get_bot(name: str) -> Bot:
    """Return a new instance of the built-in bot ``name``.

    Raises:
        KeyError: No such bot; the message lists the names that exist.
    """
    try:
        return BUILTIN_BOTS[name].factory()
    except KeyError:
        known = ", ".join(sorted(BUILTIN_BOTS))
        raise KeyError(f"no built-in bot {name!r}; built-in bots: {known}") from None
