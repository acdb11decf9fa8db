"""Forward models for search bots: engine states from a seat's view, and the pure engines.

A search bot looks ahead with the same rules the server plays by: the pure engines of
``botarena.server.games`` (``legal_moves``, ``apply``, ``to_act``, ``outcome``; they never
mutate a state, so a search can branch from any). What it lacks is the state itself: a
seat sees only its view. A *determinization* is an engine state consistent with
everything the seat has seen, its hidden parts drawn at random:

==============  ==========================================================================
game            what a determinization draws
==============  ==========================================================================
Qwirkle         the other racks and the bag, from the tiles the seat has not seen, the
                tiles it exchanged only where another seat drew after the exchange
Qwixx           the future dice (a match seed of its own), and the sealed action-1 choices
                of the seats that have already chosen
Queendomino     the order of the deck and of the building pile, from what is unseen
==============  ==========================================================================

>>> import random
>>> from botarena.v1 import match_pb2
>>> view = match_pb2.PlayerView(seat=1)
>>> view.qwixx.action = 1   # action 1, seat 1 still to choose
>>> view.qwixx.to_act.append(1)
>>> view.qwixx.dice.white.extend([3, 4])
>>> view.qwixx.dice.red, view.qwixx.dice.yellow, view.qwixx.dice.green = 1, 2, 3
>>> view.qwixx.dice.blue = 4
>>> for seat in range(2):
...     _ = view.qwixx.sheets.add(seat=seat)
>>> model = forward_model(view)
>>> state = model.determinize(view, random.Random(7))
>>> [model.message(move).qwixx.WhichOneof("action") for move in model.rules.legal_moves(state, 1)]
['decline', 'mark_white_sum', 'mark_white_sum', 'mark_white_sum', 'mark_white_sum']

The converters between view messages and engine values are here too: ``tile_of`` and
``tile_message`` (Qwirkle), ``domino_of``, ``building_of``, ``kingdom_of``,
``placement_of``, ``player_of`` and ``config_of`` (Queendomino).

A determinization never reads what the seat may not see: the model is given only the
views and the seat's own moves, and every hidden part comes from the ``rng`` it is handed.
docs/bots.md ("Search bots") has a whole bot built on it.
"""

from __future__ import annotations

import random
from typing import Any

from botarena.clients.search._base import ForwardModel, ThinkBudget, think_budget
from botarena.clients.search._queendomino import (
    QueendominoModel,
    building_of,
    config_of,
    domino_of,
    kingdom_of,
    placement_of,
    player_of,
)
from botarena.clients.search._qwirkle import QwirkleModel, tile_message, tile_of
from botarena.clients.search._qwixx import QwixxModel, SealedChoice
from botarena.v1 import match_pb2

__all__ = [
    "ForwardModel",
    "QueendominoModel",
    "QwirkleModel",
    "QwixxModel",
    "SealedChoice",
    "ThinkBudget",
    "building_of",
    "config_of",
    "determinize",
    "domino_of",
    "forward_model",
    "kingdom_of",
    "placement_of",
    "player_of",
    "think_budget",
    "tile_message",
    "tile_of",
]

_MODELS: dict[str, type[QwirkleModel] | type[QwixxModel] | type[QueendominoModel]] = {
    model.game: model for model in (QwirkleModel, QwixxModel, QueendominoModel)
}


def forward_model(
    view: match_pb2.PlayerView | str, config: match_pb2.MatchConfig | None = None
) -> ForwardModel[Any, Any]:
    """Return a new forward model for the game of ``view`` (or the game named so).

    Keep one per seat and match, and let it observe every view (``determinize`` does):
    it remembers what the seat has seen. ``config`` is the match's config, as
    ``on_match_start`` receives it in ``Match.config`` (Queendomino's tax bonus).

    Raises:
        ValueError: No forward model for that game.
    """
    game = view if isinstance(view, str) else view.WhichOneof("game_view") or ""
    if game == "queendomino":
        return QueendominoModel(config_of(config))
    model = _MODELS.get(game)
    if model is None:
        raise ValueError(f"no forward model for {game!r}; games: {', '.join(sorted(_MODELS))}")
    return model()


def determinize(view: match_pb2.PlayerView, rng: random.Random) -> Any:
    """Return one engine state consistent with ``view`` alone (a new model's guess).

    A model that has followed the match knows more (the tiles a Qwirkle seat exchanged,
    the Queendomino dominoes already placed): prefer ``forward_model(view)`` kept for
    the match, and its ``determinize``.

    Raises:
        ValueError: No forward model for the view's game, a spectator's view, or the
            game is over.
    """
    return forward_model(view).determinize(view, rng)
