"""The Queendomino codec: every move kind both ways, validation, hand-built views, reasons."""

from __future__ import annotations

from dataclasses import replace

import pytest

from botarena.server.games.queendomino import (
    Building,
    Domino,
    DominoPlacement,
    EndGameScoring,
    Kingdom,
    OngoingEffect,
    QueendominoConfig,
    QueendominoReason,
    Rotation,
    ScoringKind,
    Square,
    Terrain,
    load_buildings,
    load_dominoes,
)
from botarena.server.games.queendomino.moves import (
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
from botarena.server.service import codec_for_game, codec_for_proto
from botarena.server.service.wire import MessageWire, add_legal_moves
from botarena.v1 import match_pb2, match_service_pb2, queendomino_pb2

CODEC = codec_for_game("queendomino")
Q = queendomino_pb2

MOVES = [
    Place((1, 0), Rotation.EAST),
    Place((-6, 6), Rotation.NORTH),
    Discard(),
    Tax(((1, 0),)),
    Tax(((2, 0), (1, 0))),
    Build(0, (0, 1)),
    Build(5, (-2, -3)),
    Bribe(3),
    Choose(1),
    Choose(48),
    Skip(),
]
MOVE_IDS = [
    "place-east",
    "place-corner-north",
    "discard",
    "tax-one",
    "tax-two",
    "build-space-0",
    "build-space-5",
    "bribe",
    "choose-1",
    "choose-48",
    "skip",
]


def test_the_codec_is_registered_for_the_proto_game() -> None:
    assert codec_for_proto(match_pb2.GAME_QUEENDOMINO) is CODEC
    assert CODEC.oneof_case == "queendomino"


@pytest.mark.parametrize("move", MOVES, ids=MOVE_IDS)
def test_moves_round_trip(move: object) -> None:
    message = CODEC.encode_move(move, redact=False)
    assert message.WhichOneof("game_move") == "queendomino"
    assert CODEC.decode_move(message) == move


@pytest.mark.parametrize("move", MOVES, ids=MOVE_IDS)
def test_redaction_hides_nothing(move: object) -> None:
    assert CODEC.encode_move(move, redact=True) == CODEC.encode_move(move, redact=False)


def test_a_placement_is_spelled_with_named_rotations() -> None:
    message = CODEC.encode_move(Place((2, -1), Rotation.SOUTH), redact=False).queendomino.place
    assert (message.cell.x, message.cell.y) == (2, -1)
    assert message.rotation == Q.QUEENDOMINO_ROTATION_SOUTH
    for rotation in Rotation:
        encoded = CODEC.encode_move(Place((1, 0), rotation), redact=False)
        name = Q.QueendominoRotation.Name(encoded.queendomino.place.rotation)
        assert name == f"QUEENDOMINO_ROTATION_{rotation.name}"


def test_legal_moves_from_cached_wire_bytes_equal_the_plain_encoding() -> None:
    for moves in (MOVES, MOVES[::-1], MOVES[:3]):
        requested = match_pb2.DecisionRequested()
        add_legal_moves(MessageWire(CODEC, 100), moves, requested, "legal_moves")
        assert list(requested.legal_moves) == CODEC.encode_moves(moves)
        assert [CODEC.decode_move(message) for message in requested.legal_moves] == moves


def _move(**action: object) -> match_pb2.Move:
    # ``action`` is one case of the QueendominoMove oneof, forwarded unchecked.
    return match_pb2.Move(queendomino=Q.QueendominoMove(**action))  # type: ignore[arg-type]


def _cell(x: int, y: int) -> queendomino_pb2.QueendominoCell:
    return Q.QueendominoCell(x=x, y=y)


INVALID = [
    ("no-action", _move(), "move.queendomino.action"),
    (
        "place-no-cell",
        _move(place=Q.QueendominoPlace(rotation=Q.QUEENDOMINO_ROTATION_EAST)),
        "move.queendomino.place.cell",
    ),
    (
        "place-x-7",
        _move(place=Q.QueendominoPlace(cell=_cell(7, 0), rotation=Q.QUEENDOMINO_ROTATION_EAST)),
        "move.queendomino.place.cell.x",
    ),
    (
        "place-y-minus-7",
        _move(place=Q.QueendominoPlace(cell=_cell(0, -7), rotation=Q.QUEENDOMINO_ROTATION_EAST)),
        "move.queendomino.place.cell.y",
    ),
    (
        "place-no-rotation",
        _move(place=Q.QueendominoPlace(cell=_cell(1, 0))),
        "move.queendomino.place.rotation",
    ),
    (
        "place-rotation-5",
        _move(
            place=Q.QueendominoPlace(cell=_cell(1, 0), rotation=Q.QueendominoRotation.ValueType(5))
        ),
        "move.queendomino.place.rotation",
    ),
    ("tax-no-cell", _move(tax=Q.QueendominoTax()), "move.queendomino.tax.cells"),
    (
        "tax-three-cells",
        _move(tax=Q.QueendominoTax(cells=[_cell(1, 0), _cell(2, 0), _cell(3, 0)])),
        "move.queendomino.tax.cells",
    ),
    (
        "tax-same-cell-twice",
        _move(tax=Q.QueendominoTax(cells=[_cell(1, 0), _cell(1, 0)])),
        "move.queendomino.tax.cells",
    ),
    (
        "tax-cell-out-of-reach",
        _move(tax=Q.QueendominoTax(cells=[_cell(1, 0), _cell(1, 9)])),
        "move.queendomino.tax.cells[1].y",
    ),
    (
        "build-space-6",
        _move(build=Q.QueendominoBuild(space=6, cell=_cell(1, 0))),
        "move.queendomino.build.space",
    ),
    (
        "build-space-minus-1",
        _move(build=Q.QueendominoBuild(space=-1, cell=_cell(1, 0))),
        "move.queendomino.build.space",
    ),
    ("build-no-cell", _move(build=Q.QueendominoBuild(space=2)), "move.queendomino.build.cell"),
    (
        "build-cell-out-of-reach",
        _move(build=Q.QueendominoBuild(space=2, cell=_cell(-8, 0))),
        "move.queendomino.build.cell.x",
    ),
    ("bribe-space-6", _move(bribe=Q.QueendominoBribe(space=6)), "move.queendomino.bribe.space"),
    ("choose-0", _move(choose=Q.QueendominoChoose(domino=0)), "move.queendomino.choose.domino"),
    ("choose-49", _move(choose=Q.QueendominoChoose(domino=49)), "move.queendomino.choose.domino"),
]


@pytest.mark.parametrize(
    ("move", "field"), [(move, field) for _, move, field in INVALID], ids=[i for i, *_ in INVALID]
)
def test_invalid_moves_are_refused_before_the_engine(move: match_pb2.Move, field: str) -> None:
    with pytest.raises(InvalidRequestError) as caught:
        CODEC.decode_move(move)
    assert (caught.value.reason, caught.value.field) == ("MALFORMED_REQUEST", field)


def test_every_engine_rejection_reason_is_in_the_protocol() -> None:
    documented = {
        value.name.removeprefix("ERROR_REASON_")
        for value in match_service_pb2.ErrorReason.DESCRIPTOR.values
    }
    # MALFORMED_MOVE cannot reach the engine: the codec checks every field's form and
    # range and answers MALFORMED_REQUEST itself.
    engine = {reason.value for reason in QueendominoReason} - {"MALFORMED_MOVE"}
    assert engine <= documented
    numbers = {
        reason: match_service_pb2.ErrorReason.Value(f"ERROR_REASON_{reason}") for reason in engine
    }
    # NOT_CONNECTED is shared with Qwirkle (same name, same meaning); the rest are 300+.
    assert numbers.pop("NOT_CONNECTED") == match_service_pb2.ERROR_REASON_NOT_CONNECTED
    assert all(300 <= number < 400 for number in numbers.values())


# ---------------------------------------------------------------------------- views

SAWMILL = Building(
    id=7,
    type_id="sawmill",
    name="The Sawmill",
    crowns=0,
    knights=0,
    towers=0,
    ongoing_effect=OngoingEffect.NONE,
    end_game_scoring=EndGameScoring(ScoringKind.PER_TERRITORY_OF_TERRAIN, 2, Terrain.FOREST),
)
GUARDTOWER = Building(
    id=21,
    type_id="guardtower",
    name="The Guardtower",
    crowns=1,
    knights=1,
    towers=2,
    ongoing_effect=OngoingEffect.COIN_PER_TOWER,
    end_game_scoring=EndGameScoring(ScoringKind.FLAT, 3),
)
PLAIN = Building(
    id=30,
    type_id="plain",
    name="A Plain House",
    crowns=0,
    knights=2,
    towers=0,
    ongoing_effect=OngoingEffect.COIN_PER_KNIGHT,
    end_game_scoring=None,
)
TOWN_MINE = Domino(45, (Square(Terrain.MINE, 3), Square(Terrain.TOWN)))
LAKES = Domino(9, (Square(Terrain.LAKE), Square(Terrain.LAKE)))
FOREST = Domino(12, (Square(Terrain.FOREST, 1), Square(Terrain.WHEAT)))


def _kingdom() -> Kingdom:
    squares = {
        (1, 0): Square(Terrain.MINE, 3),
        (2, 0): Square(Terrain.TOWN),
        (0, -1): Square(Terrain.LAKE),
        (0, -2): Square(Terrain.LAKE),
    }
    return Kingdom.of(5, squares, {(2, 0): GUARDTOWER})


def _view(*, over: bool = False) -> QueendominoView:
    players = (
        PlayerState(_kingdom(), coins=11, knights=2, knight_cells=((0, -2), (1, 0)), towers=2),
        PlayerState(Kingdom.for_seats(3), coins=7, knights=1, knight_cells=(), towers=0),
        PlayerState(Kingdom.for_seats(3), coins=4, knights=0, knight_cells=(), towers=0),
    )
    turn = TurnView(1, Step.TAX, LAKES, DominoPlacement((0, 1), Rotation.SOUTH))
    return QueendominoView(
        seat=0,
        round=3,
        final_round=False,
        players=players,
        current_line=(LineSlot(LAKES, 1, done=False), LineSlot(TOWN_MINE, 0, done=True)),
        next_line=(LineSlot(FOREST, 0), LineSlot(Domino(40, FOREST.halves), None)),
        board=(SAWMILL, None, PLAIN, None, None, GUARDTOWER),
        dragon_space=3,
        queen=0,
        turn=None if over else turn,
        deck_left=28,
        pile_left=17,
        removed=(33, 2),
        scores=(40, 2, 1),
    )


def _encode(view: QueendominoView, seat: int | None) -> queendomino_pb2.QueendominoView:
    out = match_pb2.PlayerView()
    CODEC.encode_view(view, seat, with_history=True, out=out)
    assert out.WhichOneof("game_view") == "queendomino"
    assert out.HasField("seat") == (seat is not None)
    return out.queendomino


def _building(message: queendomino_pb2.QueendominoBuilding) -> tuple[object, ...]:
    scoring = message.end_game_scoring if message.HasField("end_game_scoring") else None
    return (
        message.id,
        message.type_id,
        message.name,
        message.crowns,
        message.knights,
        message.towers,
        Q.QueendominoOngoingEffect.Name(message.ongoing_effect),
        None
        if scoring is None
        else (Q.QueendominoScoringKind.Name(scoring.kind), scoring.points, scoring.terrain),
    )


def test_a_view_shows_every_kingdom_with_its_buildings_and_knights() -> None:
    view = _encode(_view(), 0)
    assert [player.seat for player in view.players] == [0, 1, 2]
    first = view.players[0]
    assert (first.coins, first.knights, first.towers, first.score) == (11, 2, 2, 40)
    assert [(cell.x, cell.y) for cell in first.knight_cells] == [(0, -2), (1, 0)]
    assert first.kingdom.size == 5
    squares = [
        (
            square.cell.x,
            square.cell.y,
            Q.QueendominoTerrain.Name(square.square.terrain),
            square.square.crowns,
            square.HasField("building"),
        )
        for square in first.kingdom.squares
    ]
    assert squares == [  # sorted by (y, x); the castle is not listed
        (0, -2, "QUEENDOMINO_TERRAIN_LAKE", 0, False),
        (0, -1, "QUEENDOMINO_TERRAIN_LAKE", 0, False),
        (1, 0, "QUEENDOMINO_TERRAIN_MINE", 3, False),
        (2, 0, "QUEENDOMINO_TERRAIN_TOWN", 0, True),
    ]
    assert _building(first.kingdom.squares[3].building) == (
        21,
        "guardtower",
        "The Guardtower",
        1,
        1,
        2,
        "QUEENDOMINO_ONGOING_EFFECT_COIN_PER_TOWER",
        ("QUEENDOMINO_SCORING_KIND_FLAT", 3, Q.QUEENDOMINO_TERRAIN_UNSPECIFIED),
    )
    assert list(view.players[1].kingdom.squares) == []
    assert view.players[1].kingdom.size == 5


def test_a_view_shows_the_board_with_prices_dragon_queen_and_lines() -> None:
    view = _encode(_view(), None)
    assert [(space.space, space.price) for space in view.board] == [
        (0, 5),
        (1, 4),
        (2, 3),
        (3, 2),
        (4, 1),
        (5, 0),
    ]
    assert [space.HasField("building") for space in view.board] == [
        True,
        False,
        True,
        False,
        False,
        True,
    ]
    assert _building(view.board[0].building)[6:] == (
        "QUEENDOMINO_ONGOING_EFFECT_NONE",
        ("QUEENDOMINO_SCORING_KIND_PER_TERRITORY_OF_TERRAIN", 2, Q.QUEENDOMINO_TERRAIN_FOREST),
    )
    assert _building(view.board[2].building)[4:] == (
        2,
        0,
        "QUEENDOMINO_ONGOING_EFFECT_COIN_PER_KNIGHT",
        None,
    )
    assert (view.dragon_space, view.queen) == (3, 0)
    assert (view.round, view.final_round, view.deck_left, view.pile_left) == (3, False, 28, 17)
    assert list(view.removed) == [33, 2]
    current = [(slot.domino.number, slot.king, slot.done) for slot in view.current_line]
    assert current == [(9, 1, False), (45, 0, True)]
    assert [(slot.domino.number, slot.HasField("king")) for slot in view.next_line] == [
        (12, True),
        (40, False),
    ]
    halves = [(half.terrain, half.crowns) for half in view.current_line[1].domino.halves]
    assert halves == [(Q.QUEENDOMINO_TERRAIN_MINE, 3), (Q.QUEENDOMINO_TERRAIN_TOWN, 0)]


def test_a_view_shows_the_turn_and_its_placement() -> None:
    turn = _encode(_view(), 2).turn
    assert (turn.seat, turn.step, turn.domino.number) == (1, Q.QUEENDOMINO_STEP_TAX, 9)
    placement = turn.placement
    assert (placement.cell.x, placement.cell.y) == (0, 1)
    assert placement.rotation == Q.QUEENDOMINO_ROTATION_SOUTH


def test_a_finished_game_has_no_turn_and_unset_optionals_stay_unset() -> None:
    assert not _encode(_view(over=True), 0).HasField("turn")
    setup = replace(
        _view(),
        round=0,
        current_line=(),
        dragon_space=None,
        queen=None,
        turn=TurnView(2, Step.CHOOSE, None, None),
    )
    message = _encode(setup, None)
    assert not message.HasField("dragon_space")
    assert not message.HasField("queen")
    assert list(message.current_line) == []
    assert message.turn.step == Q.QUEENDOMINO_STEP_CHOOSE
    assert not message.turn.HasField("domino")
    assert not message.turn.HasField("placement")


def test_the_shipped_components_encode_with_named_enumerations() -> None:
    buildings = load_buildings().buildings
    encoded = []
    for start in range(0, len(buildings), 6):
        board: tuple[Building | None, ...] = tuple(buildings[start : start + 6])
        board += (None,) * (6 - len(board))
        message = _encode(replace(_view(), board=board), None)
        encoded += [space.building for space in message.board if space.HasField("building")]
    assert [building.id for building in encoded] == [building.id for building in buildings]
    assert all(building.ongoing_effect != 0 for building in encoded)
    assert all(
        building.end_game_scoring.kind != 0
        for building in encoded
        if building.HasField("end_game_scoring")
    )
    line = tuple(LineSlot(domino, None) for domino in load_dominoes())
    terrains = {
        Q.QueendominoTerrain.Name(half.terrain)
        for slot in _encode(replace(_view(), next_line=line), None).next_line
        for half in slot.domino.halves
    }
    assert terrains == {f"QUEENDOMINO_TERRAIN_{terrain.name}" for terrain in Terrain}


# ---------------------------------------------------------------------------- options


@pytest.mark.parametrize(
    ("tax_bonus", "per_knight"),
    [
        (Q.QUEENDOMINO_TAX_BONUS_UNSPECIFIED, True),
        (Q.QUEENDOMINO_TAX_BONUS_PER_KNIGHT, True),
        (Q.QUEENDOMINO_TAX_BONUS_PER_TURN, False),
    ],
    ids=["unspecified-is-per-knight", "per-knight", "per-turn"],
)
def test_the_tax_bonus_option_sets_the_engine_config(
    tax_bonus: queendomino_pb2.QueendominoTaxBonus.ValueType, per_knight: bool
) -> None:
    config = match_pb2.MatchConfig(
        game=match_pb2.GAME_QUEENDOMINO, queendomino=Q.QueendominoConfig(tax_bonus=tax_bonus)
    )
    operator = QueendominoConfig(buildings=replace(load_buildings(), source="mine.json"))
    decoded = CODEC.decode_config(config, operator)
    assert isinstance(decoded, QueendominoConfig)
    assert decoded.tax_bonus_per_knight is per_knight
    assert decoded.buildings is operator.buildings  # the operator's table stays
    out = match_pb2.MatchConfig()
    CODEC.encode_config(decoded, out)
    expected = (
        Q.QUEENDOMINO_TAX_BONUS_PER_KNIGHT if per_knight else Q.QUEENDOMINO_TAX_BONUS_PER_TURN
    )
    assert out.queendomino.tax_bonus == expected  # the value in force, never UNSPECIFIED


def test_an_unknown_tax_bonus_is_refused_naming_the_field() -> None:
    config = match_pb2.MatchConfig(game=match_pb2.GAME_QUEENDOMINO)
    config.queendomino.tax_bonus = Q.QueendominoTaxBonus.ValueType(9)  # no such value
    with pytest.raises(InvalidRequestError) as caught:
        CODEC.decode_config(config, QueendominoConfig())
    assert caught.value.field == "config.queendomino.tax_bonus"
