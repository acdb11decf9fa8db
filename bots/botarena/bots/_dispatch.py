"""One bot for several games: hands each decision to the bot of the match's game."""

from __future__ import annotations

import random
from collections.abc import Callable, Mapping, Sequence

from botarena.bots._greedy import UnsupportedGameError
from botarena.clients import Bot
from botarena.v1 import match_pb2

__all__ = ["ByGameBot"]


class ByGameBot:
    """Hands every decision to the bot of the match's game, chosen by the view.

    Each game's bot is made on first use and kept, so a bot that keeps state between
    decisions keeps it for the whole match.

    Args:
        bots: Per game (registry name, equal to the view's oneof case), a bot factory.
        kind: What the bots are, for errors (``"greedy"``).
    """

    def __init__(self, bots: Mapping[str, Callable[[], Bot]], *, kind: str) -> None:
        self._factories = bots
        self._kind = kind
        self._bots: dict[str, Bot] = {}

    def choose_move(
        self,
        view: match_pb2.PlayerView,
        legal_moves: Sequence[match_pb2.Move],
        rng: random.Random,
    ) -> match_pb2.Move:
        """Return the move the game's bot picks.

        Raises:
            UnsupportedGameError: No bot of this kind plays this game.
        """
        game = view.WhichOneof("game_view") or ""
        bot = self._bots.get(game)
        if bot is None:
            factory = self._factories.get(game)
            if factory is None:
                known = ", ".join(sorted(self._factories))
                raise UnsupportedGameError(f"the {self._kind} bot plays {known}, not {game}")
            bot = self._bots[game] = factory()
        return bot.choose_move(view, legal_moves, rng)
