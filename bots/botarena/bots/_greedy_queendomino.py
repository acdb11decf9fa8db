"""The greedy Queendomino bot: the best immediate change of its own score, coins included.

It rebuilds its kingdom from the view as the pure engine's :class:`Kingdom` (bots may
import the ``games`` package for look-ahead, DESIGN.md) and values a position as

    territory points + building points + coins / 3

(RULES.md 7, with coins counted as a fraction so that every coin matters). Each step:

* **Place**: the placement with the largest gain; a forced ``Discard`` when it is the
  only move.
* **Tax**: the knights that bring the most coins (territory sizes; every tax beats
  keeping the knight, since a greedy bot does not plan ahead).
* **Build**: the building and town square with the largest gain after paying the price
  (the queen's host pays one coin less, never below 0), if that gain is positive; a
  building's towers and knights count through its own and other buildings' end-game
  points.
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

from botarena.bots._greedy import UnsupportedGameError
from botarena.server.games.queendomino import (
    Building,
    Domino,
    DominoPlacement,
    EndGameScoring,
    Kingdom,
    OngoingEffect,
    Rotation,
    ScoringKind,
    Square,
    Terrain,
    building_points,
    territories,
    territory_points,
)
from botarena.server.games.queendomino.kingdom import Cell
from botarena.v1 import match_pb2, queendomino_pb2

__all__ = ["GreedyQueendominoBot"]

# The codec names every proto enum value after the engine's member (QUEENDOMINO_TERRAIN_LAKE).
_TERRAIN = {
    queendomino_pb2.QueendominoTerrain.Value(f"QUEENDOMINO_TERRAIN_{t.name}"): t for t in Terrain
}
_ROTATION = {
    queendomino_pb2.QueendominoRotation.Value(f"QUEENDOMINO_ROTATION_{r.name}"): r for r in Rotation
}
_EFFECT = {
    queendomino_pb2.QueendominoOngoingEffect.Value(f"QUEENDOMINO_ONGOING_EFFECT_{e.name}"): e
    for e in OngoingEffect
}
_KIND = {
    queendomino_pb2.QueendominoScoringKind.Value(f"QUEENDOMINO_SCORING_KIND_{k.name}"): k
    for k in ScoringKind
}


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
        if view.WhichOneof("game_view") != "queendomino":
            raise UnsupportedGameError(
                f"this greedy bot plays Queendomino, not {view.WhichOneof('game_view')}"
            )
        if not legal_moves:
            raise ValueError("no legal moves to choose from")
        if len(legal_moves) == 1:
            return legal_moves[0]
        game = view.queendomino
        me = game.players[game.turn.seat]
        position = _Position.of(me, hosts_queen=game.HasField("queen") and game.queen == me.seat)
        return _best(legal_moves, lambda move: position.gain(game, move.queendomino), rng)


class _Position:
    """The acting seat's holdings as the engine's scoring functions take them."""

    def __init__(
        self, kingdom: Kingdom, *, coins: int, knights: int, towers: int, hosts_queen: bool
    ) -> None:
        self.kingdom = kingdom
        self.coins = coins
        self.knights = knights
        self.towers = towers
        self.hosts_queen = hosts_queen
        self.value = self._value(kingdom, coins=coins, knights=knights, towers=towers)

    @classmethod
    def of(cls, player: queendomino_pb2.QueendominoPlayer, *, hosts_queen: bool) -> _Position:
        squares: dict[Cell, Square] = {}
        buildings: dict[Cell, Building] = {}
        for entry in player.kingdom.squares:
            cell = (entry.cell.x, entry.cell.y)
            squares[cell] = _square(entry.square)
            if entry.HasField("building"):
                buildings[cell] = _building(entry.building)
        return cls(
            Kingdom.of(player.kingdom.size, squares, buildings),
            coins=player.coins,
            knights=player.knights + len(player.knight_cells),
            towers=player.towers,
            hosts_queen=hosts_queen,
        )

    def _value(self, kingdom: Kingdom, *, coins: int, knights: int, towers: int) -> float:
        return (
            territory_points(kingdom)
            + building_points(kingdom, towers=towers, knights=knights)
            + coins / 3
        )

    def gain(
        self, game: queendomino_pb2.QueendominoView, move: queendomino_pb2.QueendominoMove
    ) -> float:
        """Return how much ``move`` changes the position's value now."""
        action = move.WhichOneof("action")
        if action == "place":
            return self._placement_gain(_domino(game.turn.domino), move.place)
        if action == "tax":
            sizes = self._territory_sizes
            return sum(sizes[(c.x, c.y)] for c in move.tax.cells) / 3
        if action == "build":
            return self._build_gain(game, move.build)
        if action == "choose":
            for slot in game.next_line:
                if slot.domino.number == move.choose.domino:
                    return (
                        self._best_placement_gain(_domino(slot.domino)) - slot.domino.number / 1000
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
        placement = DominoPlacement((place.cell.x, place.cell.y), _ROTATION[place.rotation])
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
        building = _building(space.building)
        price = max(0, space.price - 1) if self.hosts_queen else space.price
        kingdom = self.kingdom.with_building((build.cell.x, build.cell.y), building)
        value = self._value(
            kingdom,
            coins=self.coins - price,
            knights=self.knights + building.knights,
            towers=self.towers + building.towers,
        )
        return value - self.value


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


def _square(square: queendomino_pb2.QueendominoSquare) -> Square:
    return Square(_TERRAIN[square.terrain], square.crowns)


def _domino(domino: queendomino_pb2.QueendominoDomino) -> Domino:
    first, second = domino.halves
    return Domino(domino.number, (_square(first), _square(second)))


def _building(building: queendomino_pb2.QueendominoBuilding) -> Building:
    scoring: EndGameScoring | None = None
    if building.HasField("end_game_scoring"):
        shield = building.end_game_scoring
        terrain = _TERRAIN[shield.terrain] if shield.terrain else None
        scoring = EndGameScoring(_KIND[shield.kind], shield.points, terrain)
    return Building(
        id=building.id,
        type_id=building.type_id,
        name=building.name,
        crowns=building.crowns,
        knights=building.knights,
        towers=building.towers,
        ongoing_effect=_EFFECT[building.ongoing_effect],
        end_game_scoring=scoring,
    )
