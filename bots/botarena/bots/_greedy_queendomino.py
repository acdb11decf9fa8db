"""The greedy Queendomino bot: the best immediate change of its own score, coins included.

It rebuilds its kingdom from the view as the pure engine's :class:`Kingdom` (bots may
import the ``games`` package for look-ahead, DESIGN.md) and values a position as

    territory points + building points + coins / 3
    + 2 per unplaced knight x the share of the 12 rounds still to come
    + 1/2 per open town square, before the final round

(RULES.md 7, with coins counted as a fraction so that every coin matters; a knight is
worth the tax it can still collect, a town square the building it can still hold). Each
step:

* **Place**: the placement with the largest gain; a forced ``Discard`` when it is the
  only move.
* **Tax**: the knights whose coins (territory sizes) are worth more than keeping them.
* **Build**: the building and town square with the largest gain after paying the price
  (the queen's host pays one coin less, never below 0), if that gain is positive; a
  building's towers and knights count through its own and other buildings' end-game
  points and the knights' worth, and before the final round a building that scores per
  territory of a terrain counts one territory more than the kingdom has (it still grows).
* **Dragon**: never (burning a building costs a coin and gains nothing now).
* **Choose**: the free domino of the next line whose best placement in its kingdom gains
  the most now; lower numbers (earlier turns) break ties.

Ties between moves of equal value go to a seeded random pick, except that ``Skip`` wins
a tie: an optional action is taken only when it gains something (a building worth
exactly its price is not built).
"""

from __future__ import annotations

import functools
import random
from collections.abc import Callable, Sequence

from botarena.bots._checks import check_decision
from botarena.clients.search import building_of, domino_of, kingdom_of, placement_of
from botarena.server.games.queendomino import (
    Domino,
    DominoPlacement,
    Kingdom,
    ScoringKind,
    building_points,
    territories,
    territory_points,
)
from botarena.server.games.queendomino.kingdom import Cell
from botarena.v1 import match_pb2, queendomino_pb2

__all__ = ["GreedyQueendominoBot"]

KNIGHT_WORTH = 2.0
"""Points an unplaced knight is worth in round 0; it falls to 0 by round 12."""
TOWN_WORTH = 0.5
"""Points an open town square is worth before the final round."""
_ROUNDS = 12


class GreedyQueendominoBot:
    """Plays the Queendomino move with the best immediate value (see the module docstring).

    Attributes:
        game: The game it plays (the server's registry name).
    """

    game = "queendomino"

    def choose_move(
        self,
        view: match_pb2.PlayerView,
        legal_moves: Sequence[match_pb2.Move],
        rng: random.Random,
    ) -> match_pb2.Move:
        """Return the legal move with the best immediate value.

        Raises:
            UnsupportedGameError: The match is not a Queendomino match.
            ValueError: ``legal_moves`` is empty.
        """
        check_decision(view, legal_moves, "queendomino", "greedy")
        if len(legal_moves) == 1:
            return legal_moves[0]
        game = view.queendomino
        me = game.players[game.turn.seat]
        position = _Position.of(
            me,
            hosts_queen=game.HasField("queen") and game.queen == me.seat,
            round_=game.round,
            final_round=game.final_round,
        )
        return _best(legal_moves, lambda move: position.gain(game, move.queendomino), rng)


class _Position:
    """The acting seat's holdings as the engine's scoring functions take them."""

    def __init__(
        self,
        kingdom: Kingdom,
        *,
        coins: int,
        knights: int,
        towers: int,
        hosts_queen: bool,
        round_: int = 0,
        final_round: bool = False,
    ) -> None:
        self.kingdom = kingdom
        self.coins = coins
        self.knights = knights
        self.towers = towers
        self.hosts_queen = hosts_queen
        self.final_round = final_round
        self.knight_worth = KNIGHT_WORTH * max(0, _ROUNDS - round_) / _ROUNDS
        self.town_worth = 0.0 if final_round else TOWN_WORTH
        self.value = self._value(kingdom, coins=coins, knights=knights, towers=towers)

    @classmethod
    def of(
        cls,
        player: queendomino_pb2.QueendominoPlayer,
        *,
        hosts_queen: bool,
        round_: int = 0,
        final_round: bool = False,
    ) -> _Position:
        return cls(
            kingdom_of(player.kingdom),
            coins=player.coins,
            knights=player.knights + len(player.knight_cells),
            towers=player.towers,
            hosts_queen=hosts_queen,
            round_=round_,
            final_round=final_round,
        )

    def _value(self, kingdom: Kingdom, *, coins: int, knights: int, towers: int) -> float:
        return (
            territory_points(kingdom)
            + building_points(kingdom, towers=towers, knights=knights)
            + coins / 3
            + self.town_worth * len(kingdom.open_town_squares())
        )

    def gain(
        self, game: queendomino_pb2.QueendominoView, move: queendomino_pb2.QueendominoMove
    ) -> float:
        """Return how much ``move`` changes the position's value now."""
        action = move.WhichOneof("action")
        if action == "place":
            return self._placement_gain(domino_of(game.turn.domino), move.place)
        if action == "tax":
            sizes = self._territory_sizes
            return sum(sizes[(c.x, c.y)] / 3 - self.knight_worth for c in move.tax.cells)
        if action == "build":
            return self._build_gain(game, move.build)
        if action == "choose":
            for slot in game.next_line:
                if slot.domino.number == move.choose.domino:
                    return (
                        self._best_placement_gain(domino_of(slot.domino))
                        - slot.domino.number / 1000
                    )
            return float("-inf")
        if action == "bribe":
            return -1 / 3
        return 0.0  # skip, discard

    @functools.cached_property
    def _territory_sizes(self) -> dict[Cell, int]:
        """The size of the territory of every square (the tax a knight there collects)."""
        return {cell: len(t.cells) for t in territories(self.kingdom) for cell in t.cells}

    def _placed_gain(self, domino: Domino, placement: DominoPlacement) -> float:
        kingdom = self.kingdom.place(domino, placement)
        value = self._value(kingdom, coins=self.coins, knights=self.knights, towers=self.towers)
        return value - self.value

    def _placement_gain(self, domino: Domino, place: queendomino_pb2.QueendominoPlace) -> float:
        placement = placement_of(place)
        return self._placed_gain(domino, placement)

    def _best_placement_gain(self, domino: Domino) -> float:
        placements = self.kingdom.legal_placements(domino)
        if not placements:
            return -10.0  # it would be discarded
        return max(self._placed_gain(domino, placement) for placement in placements)

    def _build_gain(
        self, game: queendomino_pb2.QueendominoView, build: queendomino_pb2.QueendominoBuild
    ) -> float:
        space = game.board[build.space]
        building = building_of(space.building)
        price = max(0, space.price - 1) if self.hosts_queen else space.price
        kingdom = self.kingdom.with_building((build.cell.x, build.cell.y), building)
        value = self._value(
            kingdom,
            coins=self.coins - price,
            knights=self.knights + building.knights,
            towers=self.towers + building.towers,
        )
        gain = value - self.value + building.knights * self.knight_worth
        scoring = building.end_game_scoring
        if (
            scoring is not None
            and scoring.kind is ScoringKind.PER_TERRITORY_OF_TERRAIN
            and not self.final_round
        ):
            gain += scoring.points  # the kingdom still grows: one territory more to come
        return gain


def _best(
    moves: Sequence[match_pb2.Move],
    value: Callable[[match_pb2.Move], float],
    rng: random.Random,
) -> match_pb2.Move:
    """Return ``Skip`` if it is among the moves of the highest value, else a seeded random
    pick among them."""
    scored = [(value(move), move) for move in moves]
    top = max(score for score, _ in scored)
    best = [move for score, move in scored if score >= top - 1e-9]
    for move in best:
        if move.queendomino.WhichOneof("action") == "skip":
            return move
    return best[rng.randrange(len(best))]
