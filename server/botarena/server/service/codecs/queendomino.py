"""Queendomino engine values <-> ``botarena.v1`` Queendomino messages, with input validation.

Validation happens here, before the engine sees a move: a cell set and within the
reach of the largest kingdom (``|x|, |y| <= 6``), a rotation that names one, one or two
distinct tax cells, a board space 0..5, a domino number 1..48. Anything else refuses the
request as ``MALFORMED_REQUEST`` naming the field, so the engine's ``MALFORMED_MOVE``
never reaches the wire. Whether the move is *legal* is the engine's call.

The match options (``QueendominoConfig``) carry ``tax_bonus``, the engine's
``tax_bonus_per_knight`` (RULES.md 3B **[engine choice]**); a match reports the value in
force, PER_KNIGHT when it was left UNSPECIFIED. The building table is not an option: it
is the server operator's.

Nothing about a Queendomino move is secret (RULES.md 2: everything on the table is
public), so redaction changes nothing; the view hides only the order of the domino deck
and of the building draw pile, which the engine's view does not hold.

Enumerations on the wire are the engine's plus one (0 is ``UNSPECIFIED``): the rotation
``EAST`` is 0 in the engine and 1 on the wire. Terrains, ongoing effects and scoring
kinds map by name.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable, Sequence

from google.protobuf.internal.containers import RepeatedCompositeFieldContainer
from google.protobuf.message import Message

from botarena.server.games import Seat
from botarena.server.games.queendomino import (
    DOMINO_COUNT,
    Building,
    Cell,
    Domino,
    DominoPlacement,
    Kingdom,
    OngoingEffect,
    QueendominoConfig,
    QueendominoState,
    Rotation,
    ScoringKind,
    Terrain,
)
from botarena.server.games.queendomino.moves import (
    BOARD_PRICES,
    Bribe,
    Build,
    Choose,
    Discard,
    Place,
    Skip,
    Step,
    Tax,
)
from botarena.server.games.queendomino.views import (
    LineSlot,
    PlayerState,
    QueendominoView,
    TurnView,
)
from botarena.server.match import InvalidRequestError
from botarena.v1 import match_pb2, queendomino_pb2

__all__ = ["MAX_COORDINATE", "QueendominoCodec", "decode_move", "encode_move"]

MAX_COORDINATE = 6
"""The largest ``|x|`` or ``|y|`` of a cell: a 7x7 kingdom reaches 6 squares from its castle."""

_MAX_TAX_KNIGHTS = 2

_TERRAIN: dict[Terrain, queendomino_pb2.QueendominoTerrain.ValueType] = {
    terrain: queendomino_pb2.QueendominoTerrain.Value(f"QUEENDOMINO_TERRAIN_{terrain.name}")
    for terrain in Terrain
}
_EFFECT: dict[OngoingEffect, queendomino_pb2.QueendominoOngoingEffect.ValueType] = {
    effect: queendomino_pb2.QueendominoOngoingEffect.Value(
        f"QUEENDOMINO_ONGOING_EFFECT_{effect.name}"
    )
    for effect in OngoingEffect
}
_SCORING: dict[ScoringKind, queendomino_pb2.QueendominoScoringKind.ValueType] = {
    kind: queendomino_pb2.QueendominoScoringKind.Value(f"QUEENDOMINO_SCORING_KIND_{kind.name}")
    for kind in ScoringKind
}
_TAX_BONUS_PER_KNIGHT: dict[int, bool] = {
    queendomino_pb2.QUEENDOMINO_TAX_BONUS_PER_KNIGHT: True,
    queendomino_pb2.QUEENDOMINO_TAX_BONUS_PER_TURN: False,
}
"""``QueendominoConfig.tax_bonus_per_knight`` by ``QueendominoTaxBonus`` (RULES.md 3B)."""
_STEP: dict[Step, queendomino_pb2.QueendominoStep.ValueType] = {
    step: queendomino_pb2.QueendominoStep.Value(f"QUEENDOMINO_STEP_{step.name}") for step in Step
}


# ---------------------------------------------------------------------------- decoding


def _decode_cell(field: str, parent: Message, name: str) -> Cell:
    if not parent.HasField(name):
        raise InvalidRequestError(f"{field}.{name}", "required")
    cell: queendomino_pb2.QueendominoCell = getattr(parent, name)
    return _decode_cell_value(f"{field}.{name}", cell)


def _decode_cell_value(field: str, cell: queendomino_pb2.QueendominoCell) -> Cell:
    for axis, value in (("x", cell.x), ("y", cell.y)):
        if not -MAX_COORDINATE <= value <= MAX_COORDINATE:
            raise InvalidRequestError(
                f"{field}.{axis}", f"{value} is not within -{MAX_COORDINATE}..{MAX_COORDINATE}"
            )
    return (cell.x, cell.y)


def _decode_space(field: str, space: int) -> int:
    if not 0 <= space < len(BOARD_PRICES):
        raise InvalidRequestError(field, f"{space} is not a board space 0..{len(BOARD_PRICES) - 1}")
    return space


def _decode_place(place: queendomino_pb2.QueendominoPlace) -> Place:
    field = "move.queendomino.place"
    cell = _decode_cell(field, place, "cell")
    rotation = int(place.rotation)
    if not 1 <= rotation <= len(Rotation):
        raise InvalidRequestError(f"{field}.rotation", f"{rotation} is not a rotation")
    return Place(cell, Rotation(rotation - 1))


def _decode_tax(tax: queendomino_pb2.QueendominoTax) -> Tax:
    field = "move.queendomino.tax.cells"
    if not 1 <= len(tax.cells) <= _MAX_TAX_KNIGHTS:
        raise InvalidRequestError(field, f"{len(tax.cells)} cells; a tax names 1 or 2")
    cells = [_decode_cell_value(f"{field}[{index}]", cell) for index, cell in enumerate(tax.cells)]
    if len(set(cells)) != len(cells):
        raise InvalidRequestError(field, "the cells must differ (one knight per square)")
    return Tax(tuple(cells))


def _decode(move: queendomino_pb2.QueendominoMove) -> object:
    action = move.WhichOneof("action")
    if action == "place":
        return _decode_place(move.place)
    if action == "discard":
        return Discard()
    if action == "tax":
        return _decode_tax(move.tax)
    if action == "build":
        field = "move.queendomino.build"
        space = _decode_space(f"{field}.space", move.build.space)
        return Build(space, _decode_cell(field, move.build, "cell"))
    if action == "bribe":
        return Bribe(_decode_space("move.queendomino.bribe.space", move.bribe.space))
    if action == "choose":
        number = move.choose.domino
        if not 1 <= number <= DOMINO_COUNT:
            raise InvalidRequestError(
                "move.queendomino.choose.domino", f"{number} is not a domino 1..{DOMINO_COUNT}"
            )
        return Choose(number)
    if action == "skip":
        return Skip()
    raise InvalidRequestError(
        "move.queendomino.action",
        "required: place, discard, tax, build, bribe, choose or skip",
    )


# ---------------------------------------------------------------------------- encoding


def _cell(out: queendomino_pb2.QueendominoCell, cell: Cell) -> None:
    out.x, out.y = cell


def _add_cells(
    cells: Iterable[Cell],
    repeated: RepeatedCompositeFieldContainer[queendomino_pb2.QueendominoCell],
) -> None:
    for cell in cells:
        _cell(repeated.add(), cell)


def _placement(out: queendomino_pb2.QueendominoPlace, cell: Cell, rotation: Rotation) -> None:
    _cell(out.cell, cell)
    out.rotation = queendomino_pb2.QueendominoRotation.ValueType(int(rotation) + 1)


def _queendomino_move(move: object) -> queendomino_pb2.QueendominoMove:
    message = queendomino_pb2.QueendominoMove()
    if isinstance(move, Place):
        _placement(message.place, move.cell, move.rotation)
    elif isinstance(move, Discard):
        message.discard.SetInParent()
    elif isinstance(move, Tax):
        _add_cells(move.cells, message.tax.cells)
    elif isinstance(move, Build):
        message.build.space = move.space
        _cell(message.build.cell, move.cell)
    elif isinstance(move, Bribe):
        message.bribe.space = move.space
    elif isinstance(move, Choose):
        message.choose.domino = move.domino
    elif isinstance(move, Skip):
        message.skip.SetInParent()
    else:
        raise TypeError(f"{move!r} is not a Queendomino move")
    return message


def _domino(domino: Domino, out: queendomino_pb2.QueendominoDomino) -> None:
    out.number = domino.number
    for half in domino.halves:
        out.halves.add(terrain=_TERRAIN[half.terrain], crowns=half.crowns)


def _building(building: Building, out: queendomino_pb2.QueendominoBuilding) -> None:
    out.id = building.id
    out.type_id = building.type_id
    out.name = building.name
    out.crowns = building.crowns
    out.knights = building.knights
    out.towers = building.towers
    out.ongoing_effect = _EFFECT[building.ongoing_effect]
    scoring = building.end_game_scoring
    if scoring is not None:
        out.end_game_scoring.kind = _SCORING[scoring.kind]
        out.end_game_scoring.points = scoring.points
        if scoring.terrain is not None:
            out.end_game_scoring.terrain = _TERRAIN[scoring.terrain]


def _kingdom(kingdom: Kingdom, out: queendomino_pb2.QueendominoKingdom) -> None:
    out.size = kingdom.size
    buildings = kingdom.buildings
    for cell, square in sorted(kingdom.squares.items(), key=lambda item: item[0][::-1]):
        entry = out.squares.add()
        _cell(entry.cell, cell)
        entry.square.terrain = _TERRAIN[square.terrain]
        entry.square.crowns = square.crowns
        building = buildings.get(cell)
        if building is not None:
            _building(building, entry.building)


def _player(
    seat: Seat, player: PlayerState, score: int, out: queendomino_pb2.QueendominoPlayer
) -> None:
    out.seat = seat
    _kingdom(player.kingdom, out.kingdom)
    out.coins = player.coins
    out.knights = player.knights
    _add_cells(player.knight_cells, out.knight_cells)
    out.towers = player.towers
    out.score = score


def _line(
    slots: Sequence[LineSlot],
    out: RepeatedCompositeFieldContainer[queendomino_pb2.QueendominoLineSlot],
) -> None:
    for slot in slots:
        entry = out.add()
        _domino(slot.domino, entry.domino)
        if slot.king is not None:
            entry.king = slot.king
        entry.done = slot.done


def _turn(turn: TurnView, out: queendomino_pb2.QueendominoTurn) -> None:
    out.seat = turn.seat
    out.step = _STEP[turn.step]
    if turn.domino is not None:
        _domino(turn.domino, out.domino)
    placement: DominoPlacement | None = turn.placement
    if placement is not None:
        _placement(out.placement, placement.cell, placement.rotation)


class QueendominoCodec:
    """The Queendomino codec (see the module docstring)."""

    game = "queendomino"
    proto_game = match_pb2.GAME_QUEENDOMINO
    oneof_case = "queendomino"

    def decode_config(self, config: match_pb2.MatchConfig, default: object) -> object:
        """Return the engine config: the server's default with the match's options applied.

        The building table in it is the server operator's (``--queendomino-buildings``);
        ``tax_bonus`` UNSPECIFIED keeps the default's (per knight).

        Raises:
            InvalidRequestError: ``tax_bonus`` is not a ``QueendominoTaxBonus`` value.
        """
        if not isinstance(default, QueendominoConfig):
            default = QueendominoConfig()
        tax_bonus = int(config.queendomino.tax_bonus)
        if tax_bonus == queendomino_pb2.QUEENDOMINO_TAX_BONUS_UNSPECIFIED:
            return default
        per_knight = _TAX_BONUS_PER_KNIGHT.get(tax_bonus)
        if per_knight is None:
            raise InvalidRequestError(
                "config.queendomino.tax_bonus", f"{tax_bonus} is not a QueendominoTaxBonus"
            )
        return dataclasses.replace(default, tax_bonus_per_knight=per_knight)

    def encode_config(self, game_config: object, out: match_pb2.MatchConfig) -> None:
        """Write the match's options into ``out``, the default filled in (``PER_KNIGHT``)."""
        per_knight = not isinstance(game_config, QueendominoConfig) or (
            game_config.tax_bonus_per_knight
        )
        out.queendomino.tax_bonus = (
            queendomino_pb2.QUEENDOMINO_TAX_BONUS_PER_KNIGHT
            if per_knight
            else queendomino_pb2.QUEENDOMINO_TAX_BONUS_PER_TURN
        )

    def decode_move(self, move: match_pb2.Move) -> object:
        """Return the engine move of a Queendomino ``Move`` message.

        Raises:
            InvalidRequestError: No action, a missing or out-of-range cell, no rotation,
                not 1 or 2 distinct tax cells, a board space outside 0..5 or a domino
                number outside 1..48.
        """
        return _decode(move.queendomino)

    def encode_move(self, move: object, *, redact: bool) -> match_pb2.Move:
        """Return ``move`` as a message; every Queendomino move is public (``redact`` is moot)."""
        return match_pb2.Move(queendomino=_queendomino_move(move))

    def encode_moves(self, moves: Sequence[object]) -> list[match_pb2.Move]:
        """Return a seat's own legal moves as messages."""
        return [match_pb2.Move(queendomino=_queendomino_move(move)) for move in moves]

    def encode_secrets(self, state: object, out: match_pb2.Replay) -> None:
        """Write the deck's and the building pile's order (top first) at ``state``."""
        if not isinstance(state, QueendominoState):
            raise TypeError(f"{state!r} is not a QueendominoState")
        out.queendomino.SetInParent()
        out.queendomino.deck.extend(domino.number for domino in state.deck)
        out.queendomino.pile.extend(building.id for building in state.pile)

    def encode_view(
        self, view: object, seat: Seat | None, *, with_history: bool, out: match_pb2.PlayerView
    ) -> None:
        """Write a :class:`QueendominoView` into the empty ``PlayerView`` ``out``.

        The engine's view keeps no history (the stream is the history), so
        ``with_history`` changes nothing.
        """
        if not isinstance(view, QueendominoView):
            raise TypeError(f"{view!r} is not a QueendominoView")
        if seat is not None:
            out.seat = seat
        message = out.queendomino
        message.SetInParent()
        message.round = view.round
        message.final_round = view.final_round
        for index, player in enumerate(view.players):
            _player(index, player, view.scores[index], message.players.add())
        _line(view.current_line, message.current_line)
        _line(view.next_line, message.next_line)
        for space, building in enumerate(view.board):
            entry = message.board.add(space=space, price=BOARD_PRICES[space])
            if building is not None:
                _building(building, entry.building)
        if view.dragon_space is not None:
            message.dragon_space = view.dragon_space
        if view.queen is not None:
            message.queen = view.queen
        if view.turn is not None:
            _turn(view.turn, message.turn)
        message.deck_left = view.deck_left
        message.pile_left = view.pile_left
        message.removed.extend(view.removed)


_CODEC = QueendominoCodec()


def decode_move(move: match_pb2.Move) -> object:
    """Return the engine move of a Queendomino ``Move`` message (see ``QueendominoCodec``).

    Raises:
        InvalidRequestError: The message is not a valid Queendomino move.
    """
    return _CODEC.decode_move(move)


def encode_move(move: object, *, redact: bool = False) -> match_pb2.Move:
    """Return an engine move as a ``Move`` message (see ``QueendominoCodec``)."""
    return _CODEC.encode_move(move, redact=redact)
