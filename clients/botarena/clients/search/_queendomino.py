"""Queendomino's forward model: the table is public; the deck and the pile order are not.

Everything on the table is public (RULES.md 2): kingdoms, coins, knights, towers, the
queen, the dragon, the builders' board and both lines. Hidden: the order of the face-down
domino deck and of the building draw pile; a view tells only how many are left. A
determinization deals the dominoes and buildings the seat has not seen, in a random order,
into the deck and the pile.

What has been seen accumulates over the views a model observes: every domino of a line
(all 48 pass through the lines a seat sees each round) and every building that stood on
the board or in a kingdom, so a building the dragon burned is known to be gone. A model
that starts mid-game cannot tell the dominoes already placed from the deck, and deals the
deck from every domino it has not seen; it is exact once it has seen every line. Buildings
it never saw are taken from ``config.buildings`` (the shipped table unless the operator's
is given).
"""

from __future__ import annotations

import dataclasses
import random
from collections.abc import Iterable

from botarena.clients.search._base import SeatFollower
from botarena.server.games import Seat
from botarena.server.games.queendomino import (
    QUEENDOMINO,
    Bribe,
    Build,
    Building,
    Choose,
    Discard,
    Domino,
    DominoPlacement,
    EndGameScoring,
    Kingdom,
    LineSlot,
    OngoingEffect,
    Place,
    PlayerState,
    QueendominoConfig,
    QueendominoMove,
    QueendominoRules,
    QueendominoState,
    Rotation,
    ScoringKind,
    Skip,
    Square,
    Step,
    Tax,
    Terrain,
    load_dominoes,
)
from botarena.server.games.queendomino.kingdom import Cell
from botarena.v1 import match_pb2, queendomino_pb2

__all__ = [
    "QueendominoModel",
    "building_of",
    "config_of",
    "domino_of",
    "kingdom_of",
    "placement_of",
    "player_of",
]

# Proto enums are the engine's members by name, plus UNSPECIFIED = 0.
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
_STEP = {queendomino_pb2.QueendominoStep.Value(f"QUEENDOMINO_STEP_{s.name}"): s for s in Step}
_ROTATION_MESSAGE = {rotation: value for value, rotation in _ROTATION.items()}


def _square(square: queendomino_pb2.QueendominoSquare) -> Square:
    return Square(_TERRAIN[square.terrain], square.crowns)


def _cell(cell: queendomino_pb2.QueendominoCell) -> Cell:
    return (cell.x, cell.y)


def domino_of(domino: queendomino_pb2.QueendominoDomino) -> Domino:
    """Return the engine domino of a domino message."""
    first, second = domino.halves
    return Domino(domino.number, (_square(first), _square(second)))


def building_of(building: queendomino_pb2.QueendominoBuilding) -> Building:
    """Return the engine building of a building message (its values as the server has them)."""
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


def placement_of(place: queendomino_pb2.QueendominoPlace) -> DominoPlacement:
    """Return the engine placement of a placement message.

    Raises:
        ValueError: The rotation is UNSPECIFIED or unknown.
    """
    rotation = _ROTATION.get(place.rotation)
    if rotation is None:
        raise ValueError("a placement needs a rotation")
    return DominoPlacement(_cell(place.cell), rotation)


def kingdom_of(kingdom: queendomino_pb2.QueendominoKingdom) -> Kingdom:
    """Return the engine kingdom of a kingdom message."""
    squares: dict[Cell, Square] = {}
    buildings: dict[Cell, Building] = {}
    for entry in kingdom.squares:
        cell = _cell(entry.cell)
        squares[cell] = _square(entry.square)
        if entry.HasField("building"):
            buildings[cell] = building_of(entry.building)
    return Kingdom.of(kingdom.size, squares, buildings)


def player_of(player: queendomino_pb2.QueendominoPlayer) -> PlayerState:
    """Return the engine holdings of a player message."""
    cells = sorted((_cell(cell) for cell in player.knight_cells), key=lambda c: (c[1], c[0]))
    return PlayerState(
        kingdom_of(player.kingdom), player.coins, player.knights, tuple(cells), player.towers
    )


def config_of(
    config: match_pb2.MatchConfig | None, buildings: QueendominoConfig | None = None
) -> QueendominoConfig:
    """Return the engine config of a match's config (its tax bonus), on ``buildings``'s
    table (the shipped one by default)."""
    base = buildings or QueendominoConfig()
    if config is None:
        return base
    tax_bonus = config.queendomino.tax_bonus
    if tax_bonus == queendomino_pb2.QUEENDOMINO_TAX_BONUS_PER_TURN:
        return dataclasses.replace(base, tax_bonus_per_knight=False)
    if tax_bonus == queendomino_pb2.QUEENDOMINO_TAX_BONUS_PER_KNIGHT:
        return dataclasses.replace(base, tax_bonus_per_knight=True)
    return base


def _line(slots: Iterable[queendomino_pb2.QueendominoLineSlot]) -> tuple[LineSlot, ...]:
    return tuple(
        LineSlot(domino_of(slot.domino), slot.king if slot.HasField("king") else None, slot.done)
        for slot in slots
    )


class QueendominoModel(SeatFollower):
    """The forward model of one Queendomino seat (see the module docstring).

    Args:
        config: The match's engine config (:func:`config_of` makes it from the
            ``Match.config`` that ``on_match_start`` receives); by default the shipped
            buildings and the default tax bonus.
    """

    game = "queendomino"

    def __init__(self, config: QueendominoConfig | None = None) -> None:
        super().__init__()
        self.config = config or QueendominoConfig()
        self._seen_dominoes: set[int] = set()
        self._seen_buildings: dict[int, Building] = {}
        self._template: QueendominoState | None = None
        self._deck_left = 0
        self._pile_left = 0
        self._order_left: tuple[Seat, ...] = ()
        self._unseen_dominoes: tuple[Domino, ...] = ()
        self._unseen_buildings: tuple[Building, ...] = ()

    @property
    def rules(self) -> QueendominoRules:
        """The engine, :data:`~botarena.server.games.queendomino.QUEENDOMINO`."""
        return QUEENDOMINO

    @property
    def unseen_dominoes(self) -> tuple[Domino, ...]:
        """The dominoes the seat has not seen in a line, by number (the deck's contents
        once every line has been seen)."""
        return self._unseen_dominoes

    @property
    def unseen_buildings(self) -> tuple[Building, ...]:
        """The buildings the seat has not seen on the board or in a kingdom (the pile's
        contents, and any building burned before the seat saw it)."""
        return self._unseen_buildings

    def observe(self, view: match_pb2.PlayerView) -> None:
        """Take in a view of the seat (see :class:`~botarena.clients.search.ForwardModel`).

        Raises:
            ValueError: Not a Queendomino view, a spectator's, or another seat's.
        """
        if not self._is_new(view):
            return
        game = view.queendomino
        players = tuple(player_of(player) for player in game.players)
        current_line, next_line = _line(game.current_line), _line(game.next_line)
        board = tuple(
            building_of(space.building) if space.HasField("building") else None
            for space in game.board
        )
        self._seen_dominoes.update(slot.domino.number for slot in (*current_line, *next_line))
        self._seen_dominoes.update(game.removed)
        for building in board:
            if building is not None:
                self._seen_buildings[building.id] = building
        for player in players:
            for building in player.kingdom.buildings.values():
                self._seen_buildings[building.id] = building
        self._deck_left, self._pile_left = game.deck_left, game.pile_left
        self._unseen_dominoes = tuple(
            domino for domino in load_dominoes() if domino.number not in self._seen_dominoes
        )
        self._unseen_buildings = tuple(
            building
            for building in self.config.buildings.buildings
            if building.id not in self._seen_buildings
        )
        self._template = None
        if (
            not game.HasField("turn")
            or game.turn.step == queendomino_pb2.QUEENDOMINO_STEP_UNSPECIFIED
        ):
            return
        turn = game.turn
        seats = len(players)
        order: tuple[Seat, ...] | None = None
        self._order_left = ()
        if game.round == 0:
            # RULES.md 2.9: 2 seats choose first, other, other, first; 3-4 seats in a
            # shuffled order, of which only the seats that have chosen are known.
            placed = tuple(slot.king for slot in next_line if slot.king is not None)
            if seats == 2:
                first = turn.seat if len(placed) in (0, 3) else 1 - turn.seat
                order = (first, 1 - first, 1 - first, first)
            else:
                done = [s for s in range(seats) if s in placed]
                self._order_left = tuple(
                    s for s in range(seats) if s not in placed and s != turn.seat
                )
                order = (*done, turn.seat, *self._order_left)
        placement = placement_of(turn.placement) if turn.HasField("placement") else None
        self._template = QueendominoState.from_position(
            players=players,
            round=game.round,
            current_line=current_line,
            next_line=next_line,
            step=_STEP[turn.step],
            placement=placement,
            board=board,
            dragon_space=game.dragon_space if game.HasField("dragon_space") else None,
            queen=game.queen if game.HasField("queen") else None,
            removed=tuple(game.removed),
            setup_order=order,
            config=self.config,
        )

    def played(self, move: match_pb2.Move | QueendominoMove) -> None:
        """Nothing to remember: every Queendomino move is public."""

    def determinize(self, view: match_pb2.PlayerView, rng: random.Random) -> QueendominoState:
        """Return the view's position with the unseen dominoes and buildings shuffled into
        the deck and the pile.

        Raises:
            ValueError: Not a Queendomino view of the seat, or the game is over.
        """
        self.observe(view)
        state = self._template
        if state is None:
            raise ValueError("the game is over: there is nothing to search")
        deck = list(self._unseen_dominoes)
        rng.shuffle(deck)
        pile = list(self._unseen_buildings)
        rng.shuffle(pile)
        replaced: dict[str, object] = {
            "deck": tuple(deck[: self._deck_left]),
            "pile": tuple(pile[: self._pile_left]),
        }
        if len(self._order_left) > 1:
            rest = list(self._order_left)
            rng.shuffle(rest)
            known = len(state.setup_order) - len(rest)
            replaced["setup_order"] = (*state.setup_order[:known], *rest)
        return state._replace(**replaced)  # type: ignore[arg-type]

    def engine_move(self, move: match_pb2.Move) -> QueendominoMove:
        """Return the engine move of a Queendomino move message.

        Raises:
            ValueError: The message is not a Queendomino move.
        """
        message = move.queendomino
        action = message.WhichOneof("action")
        if action == "place":
            placement = placement_of(message.place)
            return Place(placement.cell, placement.rotation)
        if action == "discard":
            return Discard()
        if action == "tax":
            return Tax(tuple(_cell(cell) for cell in message.tax.cells))
        if action == "build":
            return Build(message.build.space, _cell(message.build.cell))
        if action == "bribe":
            return Bribe(message.bribe.space)
        if action == "choose":
            return Choose(message.choose.domino)
        if action == "skip":
            return Skip()
        raise ValueError("not a Queendomino move: no action is set")

    def message(self, move: QueendominoMove) -> match_pb2.Move:
        """Return the move message of an engine move."""
        out = match_pb2.Move()
        message = out.queendomino
        if isinstance(move, Place):
            message.place.cell.x, message.place.cell.y = move.cell
            message.place.rotation = _ROTATION_MESSAGE[move.rotation]
        elif isinstance(move, Discard):
            message.discard.SetInParent()
        elif isinstance(move, Tax):
            for x, y in move.cells:
                message.tax.cells.add(x=x, y=y)
        elif isinstance(move, Build):
            message.build.space = move.space
            message.build.cell.x, message.build.cell.y = move.cell
        elif isinstance(move, Bribe):
            message.bribe.space = move.space
        elif isinstance(move, Choose):
            message.choose.domino = move.domino
        else:
            message.skip.SetInParent()
        return out
