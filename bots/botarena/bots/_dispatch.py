"""One bot for several games: hands each decision to the bot of the match's game."""

from __future__ import annotations

import random
from collections.abc import Callable, Mapping, Sequence

from botarena.bots._checks import UnsupportedGameError
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

    def on_match_start(self, match: match_pb2.Match, seat: int) -> None:
        """Make the game's bot now and hand it the match when it wants it."""
        # The Game enum names every game GAME_<NAME> (match.proto).
        game = match_pb2.Game.Name(match.config.game).removeprefix("GAME_").lower()
        if game not in self._factories:
            return  # choose_move says so
        bot = self._bot(game)
        hook = getattr(bot, "on_match_start", None)
        if hook is not None:
            hook(match, seat)

    def _bot(self, game: str) -> Bot:
        bot = self._bots.get(game)
        if bot is None:
            factory = self._factories.get(game)
            if factory is None:
                known = ", ".join(sorted(self._factories))
                raise UnsupportedGameError(f"the {self._kind} bot plays {known}, not {game}")
            bot = self._bots[game] = factory()
        return bot

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
        return self._bot(view.WhichOneof("game_view") or "").choose_move(view, legal_moves, rng)
