"""``greedy``: one name for the greedy bot of every game that has one, chosen by the view."""

from __future__ import annotations

import random
from collections.abc import Sequence

from botarena.bots._greedy import GreedyQwirkleBot, UnsupportedGameError
from botarena.bots._greedy_queendomino import GreedyQueendominoBot
from botarena.clients import Bot
from botarena.v1 import match_pb2

__all__ = ["GREEDY_GAMES", "GreedyBot"]

GREEDY_GAMES = frozenset({"qwirkle", "queendomino"})
"""The games (registry names, equal to the view's oneof case) a greedy bot exists for."""


class GreedyBot:
    """Hands every decision to the greedy bot of the match's game.

    Each game's bot is made on first use and kept, so a bot that keeps state between
    decisions keeps it for the whole match.
    """

    def __init__(self) -> None:
        self._bots: dict[str, Bot] = {}

    def choose_move(
        self,
        view: match_pb2.PlayerView,
        legal_moves: Sequence[match_pb2.Move],
        rng: random.Random,
    ) -> match_pb2.Move:
        """Return the move the game's greedy bot picks.

        Raises:
            UnsupportedGameError: No greedy bot plays this game.
        """
        game = view.WhichOneof("game_view")
        bot = self._bots.get(game or "")
        if bot is None:
            if game == "qwirkle":
                bot = GreedyQwirkleBot()
            elif game == "queendomino":
                bot = GreedyQueendominoBot()
            else:
                known = ", ".join(sorted(GREEDY_GAMES))
                raise UnsupportedGameError(f"the greedy bot plays {known}, not {game}")
            self._bots[game] = bot
        return bot.choose_move(view, legal_moves, rng)
