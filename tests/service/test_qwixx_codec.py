"""The Qwixx codec: round trips, redaction of sealed choices, validation, reason codes."""

from __future__ import annotations

import pytest

from botarena.server.games.qwixx import (
    QWIXX,
    Action,
    Colour,
    Decline,
    MarkColourSum,
    MarkWhiteSum,
    QwixxConfig,
    QwixxReason,
    QwixxState,
    Sheet,
)
from botarena.server.match import InvalidRequestError
from botarena.server.service import codec_for_game, codec_for_proto
from botarena.server.service._convert import decode_settings
from botarena.server.service.wire import MessageWire, add_legal_moves
from botarena.v1 import match_pb2, match_service_pb2, qwixx_pb2

CODEC = codec_for_game("qwixx")


def test_the_codec_is_registered_for_the_proto_game() -> None:
    assert codec_for_proto(match_pb2.GAME_QWIXX) is CODEC
    assert CODEC.oneof_case == "qwixx"


@pytest.mark.parametrize(
    "move",
    [
        Decline(),
        MarkWhiteSum(Colour.RED, 2),
        MarkWhiteSum(Colour.BLUE, 12),
        MarkColourSum(0, Colour.YELLOW),
        MarkColourSum(1, Colour.GREEN),
    ],
    ids=["decline", "white-red-2", "white-blue-12", "colour-0-yellow", "colour-1-green"],
)
def test_moves_round_trip(move: object) -> None:
    assert CODEC.decode_move(CODEC.encode_move(move, redact=False)) == move


def test_colours_keep_their_names() -> None:
    for colour in Colour:
        message = CODEC.encode_move(MarkWhiteSum(colour, 7), redact=False)
        name = qwixx_pb2.QwixxColour.Name(message.qwixx.mark_white_sum.colour)
        assert name == f"QWIXX_COLOUR_{colour.name}"


@pytest.mark.parametrize("move", [Decline(), MarkWhiteSum(Colour.GREEN, 7)])
def test_redaction_hides_white_sums_and_declines_alike(move: object) -> None:
    message = CODEC.encode_move(move, redact=True)
    assert message.WhichOneof("game_move") == "qwixx"
    assert message.qwixx.WhichOneof("action") is None


def test_a_colour_sum_is_public_even_redacted() -> None:
    message = CODEC.encode_move(MarkColourSum(1, Colour.RED), redact=True)
    assert message.qwixx.mark_colour_sum.white == 1


def _white(colour: int, number: int) -> match_pb2.Move:
    return match_pb2.Move(
        qwixx=qwixx_pb2.QwixxMove(
            mark_white_sum=qwixx_pb2.QwixxMarkWhiteSum(
                colour=qwixx_pb2.QwixxColour.ValueType(colour), number=number
            )
        )
    )


def _colour(white: int, colour: int) -> match_pb2.Move:
    return match_pb2.Move(
        qwixx=qwixx_pb2.QwixxMove(
            mark_colour_sum=qwixx_pb2.QwixxMarkColourSum(
                white=white, colour=qwixx_pb2.QwixxColour.ValueType(colour)
            )
        )
    )


@pytest.mark.parametrize(
    ("move", "field"),
    [
        (match_pb2.Move(qwixx=qwixx_pb2.QwixxMove()), "move.qwixx.action"),
        (_white(0, 7), "move.qwixx.mark_white_sum.colour"),
        (_white(5, 7), "move.qwixx.mark_white_sum.colour"),
        (_white(1, 1), "move.qwixx.mark_white_sum.number"),
        (_white(1, 13), "move.qwixx.mark_white_sum.number"),
        (_colour(2, 1), "move.qwixx.mark_colour_sum.white"),
        (_colour(-1, 1), "move.qwixx.mark_colour_sum.white"),
        (_colour(0, 0), "move.qwixx.mark_colour_sum.colour"),
        (_colour(0, 5), "move.qwixx.mark_colour_sum.colour"),
    ],
    ids=[
        "no-action",
        "white-no-colour",
        "white-colour-5",
        "number-1",
        "number-13",
        "white-die-2",
        "white-die-minus-1",
        "colour-sum-no-colour",
        "colour-sum-colour-5",
    ],
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
    # MALFORMED_MOVE cannot reach the engine (the codec builds well-formed moves); the
    # match layer answers NOT_YOUR_TURN itself, also for a second action-1 choice (before
    # the engine's ALREADY_DECIDED), and GAME_OVER as MATCH_FINISHED.
    handled_before_the_engine = {"MALFORMED_MOVE", "ALREADY_DECIDED", "NOT_YOUR_TURN", "GAME_OVER"}
    engine = {reason.value for reason in QwixxReason} - handled_before_the_engine
    assert engine <= documented
    assert {"NOT_YOUR_TURN", "MATCH_FINISHED"} <= documented


def test_legal_moves_from_cached_wire_bytes_equal_the_plain_encoding() -> None:
    state = QWIXX.new_match(QwixxConfig(), 3, 5)
    for _ in range(40):
        if state.is_over:
            break
        seat = min(QWIXX.to_act(state))
        moves = QWIXX.legal_moves(state, seat)
        requested = match_pb2.DecisionRequested()
        add_legal_moves(MessageWire(CODEC, 100), moves, requested, "legal_moves")
        assert list(requested.legal_moves) == CODEC.encode_moves(moves)
        assert [CODEC.decode_move(message) for message in requested.legal_moves] == list(moves)
        state = QWIXX.apply(state, seat, moves[-1])


def _view(state: QwixxState, seat: int | None, *, history: bool = False) -> qwixx_pb2.QwixxView:
    out = match_pb2.PlayerView()
    CODEC.encode_view(QWIXX.view(state, seat), seat, with_history=history, out=out)
    assert out.HasField("seat") == (seat is not None)
    return out.qwixx


def test_a_view_shows_sheets_dice_locks_and_the_action() -> None:
    sheets = [
        Sheet.of(red=(2, 3, 4, 5, 6, 12), penalties=1),
        Sheet.of(green=(12, 10)),
    ]
    state = QwixxState.from_position(sheets=sheets, white=(3, 4), colours=(1, 2, 5, 6), active=1)
    view = _view(state, 0)
    red = view.sheets[0].rows[0]
    assert (list(red.numbers), red.lock, red.score) == ([2, 3, 4, 5, 6, 12], True, 28)
    assert (view.sheets[0].penalties, view.sheets[0].score) == (1, 23)
    assert list(view.sheets[1].rows[2].numbers) == [12, 10]
    assert list(view.dice.white) == [3, 4]
    assert not view.dice.HasField("red")  # removed with its locked row
    assert (view.dice.yellow, view.dice.green, view.dice.blue) == (2, 5, 6)
    assert list(view.locked_rows) == [qwixx_pb2.QWIXX_COLOUR_RED]
    assert (view.active_seat, view.action) == (1, qwixx_pb2.QWIXX_ACTION_WHITE_SUM)
    assert list(view.to_act) == [0, 1]


def test_a_sealed_choice_is_in_its_own_view_only_until_applied() -> None:
    state = QWIXX.new_match(QwixxConfig(), 3, 11)
    total = state.dice.white_sum
    mark = MarkWhiteSum(Colour.RED, total) if total != 12 else MarkWhiteSum(Colour.GREEN, total)
    state = QWIXX.apply(state, 0, mark)
    own, other, spectator = _view(state, 0, history=True), _view(state, 1), _view(state, None)
    assert CODEC.decode_move(match_pb2.Move(qwixx=own.own_choice)) == mark
    for view in (other, spectator):
        assert not view.HasField("own_choice")
        assert list(view.last_white_sums) == []
    assert list(other.to_act) == [1, 2]
    assert not any(entry.HasField("white_sums_applied") for entry in own.history)
    state = QWIXX.apply(QWIXX.apply(state, 1, Decline()), 2, Decline())
    assert state.action is Action.COLOUR_SUM
    other = _view(state, 1, history=True)
    revealed = [CODEC.decode_move(match_pb2.Move(qwixx=m)) for m in other.last_white_sums]
    assert revealed == [mark, Decline(), Decline()]
    applied = [entry for entry in other.history if entry.HasField("white_sums_applied")]
    assert len(applied) == 1
    assert list(applied[0].white_sums_applied.choices) == list(other.last_white_sums)


def test_the_history_of_a_finished_game_is_complete() -> None:
    state = QWIXX.new_match(QwixxConfig(), 2, 3)
    while not state.is_over:
        seat = min(QWIXX.to_act(state))
        state = QWIXX.apply(state, seat, Decline())  # penalties end the game
    view = _view(state, None, history=True)
    kinds = [entry.WhichOneof("kind") for entry in view.history]
    assert kinds[0] == "starter_picked"
    assert kinds[-1] == "game_ended"
    assert view.history[-1].game_ended == "penalties"
    assert kinds.count("penalised") == sum(sheet.penalties for sheet in view.sheets) == 7
    assert max(sheet.penalties for sheet in view.sheets) == 4
    assert view.action == qwixx_pb2.QWIXX_ACTION_UNSPECIFIED
    assert view.last_colour_sum.choice.WhichOneof("action") == "decline"
    assert not view.last_colour_sum.HasField("number")
    assert len(view.history) == len(state.history)


def test_config_accepts_only_qwixx_options() -> None:
    config = match_pb2.MatchConfig(game=match_pb2.GAME_QWIXX)
    assert CODEC.decode_config(config, QwixxConfig()) == QwixxConfig()
    CODEC.encode_config(QwixxConfig(), config)
    assert config.WhichOneof("game_config") == "qwixx"
    config.qwirkle.SetInParent()
    with pytest.raises(InvalidRequestError):
        decode_settings(config, QWIXX.min_seats, QwixxConfig())
