"""What every reference bot checks of a decision before it thinks."""

from __future__ import annotations

from collections.abc import Sequence

from botarena.v1 import match_pb2

__all__ = ["UnsupportedGameError", "check_decision"]


class UnsupportedGameError(ValueError):
    """The bot was asked to play a game it does not know."""


def check_decision(
    view: match_pb2.PlayerView, legal_moves: Sequence[match_pb2.Move], game: str, bot: str
) -> None:
    """Return if the decision is one of ``game`` with moves to choose from.

    Raises:
        UnsupportedGameError: The view is another game's (``bot`` names the bot).
        ValueError: ``legal_moves`` is empty.
    """
    case = view.WhichOneof("game_view")
    if case != game:
        raise UnsupportedGameError(f"the {bot} bot plays {game.title()} here, not {case}")
    if not legal_moves:
        raise ValueError("no legal moves to choose from")
