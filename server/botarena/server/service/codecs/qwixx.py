"""Qwixx engine values <-> ``botarena.v1`` Qwixx messages, with input validation.

Validation happens here, before the engine sees a move: a colour that names a row, a
white-sum number from 2 to 12, a white die 0 or 1. Whether the move is *legal* is the
engine's call.

Redaction (match.proto: MoveApplied): another seat's ``MarkWhiteSum`` or ``Decline`` is
sent with no action set while the match runs. An action-1 choice is sealed until every
seat has chosen, and a decline must look the same in both actions (this codec sees the
move, not the action it answered), else hiding the marks would reveal them. The view's
``last_white_sums`` and ``last_colour_sum`` (and the history in ``GetPlayerView``) show
the choices once they are applied; a ``MarkColourSum`` is action 2 and always public.
"""

from __future__ import annotations

from collections.abc import Sequence

from botarena.server.games import Seat
from botarena.server.games.qwixx import (
    Colour,
    ColourSumApplied,
    Decline,
    Dice,
    GameEnded,
    MarkColourSum,
    MarkWhiteSum,
    Penalised,
    QwixxConfig,
    QwixxView,
    Rolled,
    RowLocked,
    Sheet,
    StarterPicked,
    WhiteSumsApplied,
)
from botarena.server.match import InvalidRequestError
from botarena.v1 import match_pb2, qwixx_pb2

__all__ = ["QwixxCodec", "decode_move", "encode_move"]

MIN_NUMBER = 2
MAX_NUMBER = 12

# The engine's Colour is 0-based in the proto's order; the proto reserves 0 for
# UNSPECIFIED, so proto value = engine value + 1.
_COLOUR_COUNT = 4


def _decode_colour(field: str, value: int) -> Colour:
    if not 1 <= value <= _COLOUR_COUNT:
        raise InvalidRequestError(field, f"{value} is not a row colour")
    return Colour(value - 1)


def _proto_colour(colour: Colour) -> qwixx_pb2.QwixxColour.ValueType:
    return qwixx_pb2.QwixxColour.ValueType(int(colour) + 1)


def _qwixx_move(move: object, *, redact: bool) -> qwixx_pb2.QwixxMove:
    if isinstance(move, MarkColourSum):
        return qwixx_pb2.QwixxMove(
            mark_colour_sum=qwixx_pb2.QwixxMarkColourSum(
                white=move.white, colour=_proto_colour(move.colour)
            )
        )
    if redact and isinstance(move, MarkWhiteSum | Decline):
        return qwixx_pb2.QwixxMove()
    if isinstance(move, MarkWhiteSum):
        return qwixx_pb2.QwixxMove(
            mark_white_sum=qwixx_pb2.QwixxMarkWhiteSum(
                colour=_proto_colour(move.colour), number=move.number
            )
        )
    if isinstance(move, Decline):
        return qwixx_pb2.QwixxMove(decline=qwixx_pb2.QwixxDecline())
    raise TypeError(f"{move!r} is not a Qwixx move")


# A decision lists at most a dozen moves out of 53 distinct ones.


def _dice(dice: Dice, out: qwixx_pb2.QwixxDice) -> None:
    out.white.extend(dice.white)
    red, yellow, green, blue = dice.colours
    if red is not None:
        out.red = red
    if yellow is not None:
        out.yellow = yellow
    if green is not None:
        out.green = green
    if blue is not None:
        out.blue = blue


def _sheet(seat: Seat, sheet: Sheet, out: qwixx_pb2.QwixxSheet) -> None:
    out.seat = seat
    add_row = out.rows.add
    for colour in Colour:
        add_row(
            colour=_proto_colour(colour),
            numbers=sheet.marks(colour),
            lock=sheet.has_lock(colour),
            score=sheet.row_score(colour),
        )
    out.penalties = sheet.penalties
    out.score = sheet.score


def _colour_sum_applied(entry: ColourSumApplied, out: qwixx_pb2.QwixxColourSumApplied) -> None:
    out.seat = entry.seat
    out.choice.CopyFrom(_qwixx_move(entry.choice, redact=False))
    if entry.number is not None:
        out.number = entry.number


class QwixxCodec:
    """The Qwixx codec (see the module docstring)."""

    game = "qwixx"
    proto_game = match_pb2.GAME_QWIXX
    oneof_case = "qwixx"

    def decode_config(self, config: match_pb2.MatchConfig, default: object) -> object:
        """Return the engine config; Qwixx has no options."""
        return default if isinstance(default, QwixxConfig) else QwixxConfig()

    def encode_config(self, game_config: object, out: match_pb2.MatchConfig) -> None:
        """Mark the Qwixx case of ``out``'s options (there are no options)."""
        out.qwixx.SetInParent()

    def decode_move(self, move: match_pb2.Move) -> object:
        """Return the engine move of a Qwixx ``Move`` message.

        Raises:
            InvalidRequestError: No action, a colour that is no row, a number outside
                2..12 or a white die other than 0 or 1.
        """
        action = move.qwixx.WhichOneof("action")
        if action == "decline":
            return Decline()
        if action == "mark_white_sum":
            mark = move.qwixx.mark_white_sum
            colour = _decode_colour("move.qwixx.mark_white_sum.colour", int(mark.colour))
            if not MIN_NUMBER <= mark.number <= MAX_NUMBER:
                raise InvalidRequestError(
                    "move.qwixx.mark_white_sum.number",
                    f"{mark.number} is not {MIN_NUMBER} to {MAX_NUMBER}",
                )
            return MarkWhiteSum(colour, mark.number)
        if action == "mark_colour_sum":
            colour_sum = move.qwixx.mark_colour_sum
            if colour_sum.white not in (0, 1):
                raise InvalidRequestError(
                    "move.qwixx.mark_colour_sum.white", f"{colour_sum.white} is not 0 or 1"
                )
            colour = _decode_colour("move.qwixx.mark_colour_sum.colour", int(colour_sum.colour))
            return MarkColourSum(colour_sum.white, colour)
        raise InvalidRequestError(
            "move.qwixx.action", "required: decline, mark_white_sum or mark_colour_sum"
        )

    def encode_move(self, move: object, *, redact: bool) -> match_pb2.Move:
        """Return ``move`` as a message; ``redact`` hides a white-sum mark or a decline."""
        return match_pb2.Move(qwixx=_qwixx_move(move, redact=redact))

    def encode_moves(self, moves: Sequence[object]) -> list[match_pb2.Move]:
        """Return a seat's own legal moves as messages."""
        return [match_pb2.Move(qwixx=_qwixx_move(move, redact=False)) for move in moves]

    def encode_secrets(self, state: object, out: match_pb2.Replay) -> None:
        """Nothing: every hidden holding is some seat's view (the replay holds them all)."""

    def encode_view(
        self, view: object, seat: Seat | None, *, with_history: bool, out: match_pb2.PlayerView
    ) -> None:
        """Write a :class:`QwixxView` into the empty ``PlayerView`` ``out``."""
        if not isinstance(view, QwixxView):
            raise TypeError(f"{view!r} is not a QwixxView")
        if seat is not None:
            out.seat = seat
        message = out.qwixx
        message.SetInParent()
        for index, sheet in enumerate(view.sheets):
            _sheet(index, sheet, message.sheets.add())
        _dice(view.dice, message.dice)
        message.locked_rows.extend(_proto_colour(colour) for colour in sorted(view.locked_rows))
        message.active_seat = view.active
        if view.action is not None:
            message.action = qwixx_pb2.QwixxAction.ValueType(int(view.action))
        message.to_act.extend(sorted(view.to_act))
        if view.own_choice is not None:
            message.own_choice.CopyFrom(_qwixx_move(view.own_choice, redact=False))
        last_white: WhiteSumsApplied | None = None
        last_colour: ColourSumApplied | None = None
        for entry in reversed(view.history):
            if last_white is None and isinstance(entry, WhiteSumsApplied):
                last_white = entry
            elif last_colour is None and isinstance(entry, ColourSumApplied):
                last_colour = entry
            if last_white is not None and last_colour is not None:
                break
        if last_white is not None:
            message.last_white_sums.extend(
                [_qwixx_move(choice, redact=False) for choice in last_white.choices]
            )
        if last_colour is not None:
            _colour_sum_applied(last_colour, message.last_colour_sum)
        if with_history:
            _history(view, message)


def _history(view: QwixxView, out: qwixx_pb2.QwixxView) -> None:
    add = out.history.add
    for entry in view.history:
        item = add()
        if isinstance(entry, StarterPicked):
            item.starter_picked = entry.seat
        elif isinstance(entry, Rolled):
            item.rolled.seat = entry.seat
            _dice(entry.dice, item.rolled.dice)
        elif isinstance(entry, WhiteSumsApplied):
            item.white_sums_applied.choices.extend(
                [_qwixx_move(choice, redact=False) for choice in entry.choices]
            )
        elif isinstance(entry, ColourSumApplied):
            _colour_sum_applied(entry, item.colour_sum_applied)
        elif isinstance(entry, RowLocked):
            item.row_locked.colour = _proto_colour(entry.colour)
            item.row_locked.seats.extend(entry.seats)
        elif isinstance(entry, Penalised):
            item.penalised.seat = entry.seat
            item.penalised.penalties = entry.penalties
        elif isinstance(entry, GameEnded):
            item.game_ended = entry.reason.value


_CODEC = QwixxCodec()


def decode_move(move: match_pb2.Move) -> object:
    """Return the engine move of a Qwixx ``Move`` message (see ``QwixxCodec``).

    Raises:
        InvalidRequestError: The message is not a valid Qwixx move.
    """
    return _CODEC.decode_move(move)


def encode_move(move: object, *, redact: bool = False) -> match_pb2.Move:
    """Return an engine move as a ``Move`` message (see ``QwixxCodec``)."""
    return _CODEC.encode_move(move, redact=redact)
