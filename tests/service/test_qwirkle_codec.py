"""The Qwirkle codec: round trips, per-viewer redaction, input validation, reason codes."""

from __future__ import annotations

import pytest

from botarena.server.games.qwirkle import Exchange, Pass, Place, Placement, QwirkleReason, Tile
from botarena.server.match import InvalidRequestError
from botarena.server.service import codec_for_game
from botarena.server.service.wire import add_legal_moves
from botarena.server.service.wire.qwirkle import QwirkleWire
from botarena.v1 import match_pb2, match_service_pb2, qwirkle_pb2

CODEC = codec_for_game("qwirkle")
WIRE = QwirkleWire(CODEC, 1_000)


@pytest.mark.parametrize(
    "move",
    [
        Place((Placement(0, 0, Tile.RED_CIRCLE), Placement(1, 0, Tile.RED_SQUARE)), score=2),
        Place((Placement(-256, 256, Tile.PURPLE_STAR8),)),
        Exchange((Tile.BLUE_CLOVER, Tile.BLUE_CLOVER)),
        Pass(),
    ],
    ids=["place", "place-at-bounds", "exchange", "pass"],
)
def test_moves_round_trip(move: object) -> None:
    assert CODEC.decode_move(CODEC.encode_move(move, redact=False)) == move


def test_every_tile_round_trips_with_its_colour_and_shape() -> None:
    for tile in Tile:
        message = CODEC.encode_move(Exchange((tile,)), redact=False)
        proto_tile = message.qwirkle.exchange.tiles[0]
        assert qwirkle_pb2.QwirkleColour.Name(proto_tile.colour).endswith(tile.colour.name)
        assert CODEC.decode_move(message) == Exchange((tile,))


def test_redacted_exchange_keeps_only_the_count() -> None:
    message = CODEC.encode_move(Exchange((Tile.RED_CIRCLE,) * 3), redact=True)
    assert list(message.qwirkle.exchange.tiles) == []
    assert message.qwirkle.exchange.tile_count == 3


def test_placements_keep_their_score() -> None:
    message = CODEC.encode_move(Place((Placement(0, 0, Tile.RED_CIRCLE),), score=7), redact=True)
    assert message.qwirkle.place.score == 7


def _placing(x: int, y: int, colour: int, shape: int, count: int = 1) -> match_pb2.Move:
    move = match_pb2.Move()
    for index in range(count):
        placement = move.qwirkle.place.placements.add(x=x + index, y=y)
        placement.tile.colour = qwirkle_pb2.QwirkleColour.ValueType(colour)
        placement.tile.shape = qwirkle_pb2.QwirkleShape.ValueType(shape)
    return move


@pytest.mark.parametrize(
    ("move", "field"),
    [
        (_placing(257, 0, 1, 1), "move.qwirkle.place.placements[0]"),
        (_placing(0, -257, 1, 1), "move.qwirkle.place.placements[0]"),
        (_placing(0, 0, 0, 1), "move.qwirkle.place.placements[0].tile.colour"),
        (_placing(0, 0, 7, 1), "move.qwirkle.place.placements[0].tile.colour"),
        (_placing(0, 0, 1, 0), "move.qwirkle.place.placements[0].tile.shape"),
        (_placing(0, 0, 1, 1, count=7), "move.qwirkle.place.placements"),
        (match_pb2.Move(qwirkle=qwirkle_pb2.QwirkleMove()), "move.qwirkle.action"),
        (
            match_pb2.Move(
                qwirkle=qwirkle_pb2.QwirkleMove(
                    exchange=qwirkle_pb2.QwirkleExchange(tiles=[qwirkle_pb2.QwirkleTile()] * 7)
                )
            ),
            "move.qwirkle.exchange.tiles",
        ),
    ],
    ids=["x", "y", "no-colour", "colour-7", "no-shape", "seven", "no-action", "exchange-7"],
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
    # MALFORMED_MOVE cannot reach the engine (the codec builds well-formed moves) and the
    # match layer answers NOT_YOUR_TURN and GAME_OVER (as MATCH_FINISHED) itself.
    handled_before_the_engine = {"MALFORMED_MOVE", "NOT_YOUR_TURN", "GAME_OVER"}
    engine = {reason.value for reason in QwirkleReason} - handled_before_the_engine
    assert engine <= documented


def test_legal_moves_from_cached_wire_bytes_equal_the_plain_encoding() -> None:
    from botarena.server.games.qwirkle import QWIRKLE, QwirkleConfig

    state = QWIRKLE.new_match(QwirkleConfig(), 2, 4)
    for _ in range(6):
        seat = next(iter(QWIRKLE.to_act(state)))
        moves = QWIRKLE.legal_moves(state, seat)
        fast = CODEC.encode_moves(moves)
        plain = [CODEC.encode_move(move, redact=False) for move in moves]
        assert [m.SerializeToString() for m in fast] == [m.SerializeToString() for m in plain]
        state = QWIRKLE.apply(state, seat, moves[-1 if len(moves) < 2 else 1])


def test_legal_moves_appended_in_one_parse_equal_the_plain_encoding() -> None:
    from botarena.server.games.qwirkle import QWIRKLE, QwirkleConfig

    state = QWIRKLE.new_match(QwirkleConfig(), 3, 8)
    for turn in range(12):
        seat = next(iter(QWIRKLE.to_act(state)))
        moves = QWIRKLE.legal_moves(state, seat)
        for _ in range(2):  # the second round is served from the caches
            out = match_pb2.DecisionRequested()
            out.decision.seat = seat  # a field set before must survive the merge
            add_legal_moves(WIRE, moves, out, "legal_moves")
            plain = [CODEC.encode_move(move, redact=False) for move in moves]
            assert list(out.legal_moves) == plain
            assert out.decision.seat == seat
        state = QWIRKLE.apply(state, seat, moves[turn % len(moves)])


def test_a_cached_legal_move_entry_is_rebuilt_when_its_score_changes() -> None:
    # Entries are cached by placements; the same placements score differently once the
    # board around them changes.
    placements = (Placement(0, 0, Tile.RED_CIRCLE), Placement(1, 0, Tile.RED_SQUARE))
    for score in (2, 5, 2):
        out = match_pb2.DecisionRequested()
        add_legal_moves(WIRE, [Place(placements, score=score)], out, "legal_moves")
        assert out.legal_moves[0].qwirkle.place.score == score


def _decisions(turns: int) -> list[tuple[list[object], object]]:
    """The legal moves and the view of the first ``turns`` decisions of a seeded match."""
    from botarena.server.games.qwirkle import QWIRKLE, QwirkleConfig

    state = QWIRKLE.new_match(QwirkleConfig(), 2, 11)
    decisions: list[tuple[list[object], object]] = []
    for turn in range(turns):
        seat = next(iter(QWIRKLE.to_act(state)))
        moves = list(QWIRKLE.legal_moves(state, seat))
        decisions.append((list(moves), QWIRKLE.view(state, seat)))
        state = QWIRKLE.apply(state, seat, moves[turn % len(moves)])
    return decisions


def test_bytes_are_the_same_with_and_without_caches() -> None:
    cached, uncached = QwirkleWire(CODEC, 50), QwirkleWire(CODEC, 0)
    for moves, view in _decisions(10):
        for _ in range(2):  # the second time from the cache
            assert cached.legal_move_entries(moves, 3) == uncached.legal_move_entries(moves, 3)
            assert cached.view_bytes(view, 1) == uncached.view_bytes(view, 1)


def test_wire_caches_are_independent_and_bounded() -> None:
    first, second = QwirkleWire(CODEC, 20), QwirkleWire(CODEC, 20)
    for moves, view in _decisions(8):
        first.legal_move_entries(moves, 3)
        first.view_bytes(view, 0)
        sizes = first.table_sizes()
        assert sizes["placements"] > 0
        assert max(sizes.values()) <= 20
    assert set(second.table_sizes().values()) == {0}  # the other encoder saw nothing
    nothing = QwirkleWire(CODEC, 0)
    for moves, view in _decisions(2):
        nothing.legal_move_entries(moves, 3)
        nothing.view_bytes(view, 0)
    assert set(nothing.table_sizes().values()) == {0}
