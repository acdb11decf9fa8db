"""Qwirkle engine values <-> ``botarena.v1`` Qwirkle messages, with input validation.

Validation happens here, before the engine sees a move: cells within ``|x|, |y| <=
MAX_COORDINATE``, at most six tiles, colours and shapes that name a real value. Whether
the move is *legal* is the engine's call. Another seat's exchange is redacted to its tile
count (match.proto: MoveApplied).
"""

from __future__ import annotations

from collections.abc import Sequence

from botarena.server.games import Seat
from botarena.server.games.qwirkle import (
    Exchange,
    Exchanged,
    Pass,
    Passed,
    Place,
    Placed,
    QwirkleConfig,
    QwirkleView,
    Tile,
)
from botarena.server.match import InvalidRequestError
from botarena.server.service.codecs._qwirkle_bytes import (
    board_bytes,
    checked_view,
    fill_view,
    move_bytes,
    place_bytes,
    qwirkle_move,
)
from botarena.v1 import match_pb2, qwirkle_pb2

__all__ = [
    "MAX_COORDINATE",
    "MAX_TILES_PER_MOVE",
    "QwirkleCodec",
    "decode_move",
    "encode_move",
]

MAX_COORDINATE = 256
"""The largest ``|x|`` or ``|y|`` accepted; 108 tiles never reach further from (0, 0)."""

MAX_TILES_PER_MOVE = 6
"""A rack holds six tiles: no move places or exchanges more."""

_TILES: tuple[Tile, ...] = tuple(Tile)  # by value: Tile(value) is a slow Enum call

# The engine's Colour and Shape are 0-based in the proto's order; the proto reserves 0
# for UNSPECIFIED, so proto value = engine value + 1.
_ATTRIBUTE_COUNT = 6


_PLACED_TILE_FIELD = "move.qwirkle.place.placements[%d].tile"


def _decode_tile(tile: qwirkle_pb2.QwirkleTile, field: str, index: int) -> Tile:
    """Return the tile of ``tile``, the ``index``-th of the request's field ``field``
    (the field's path is only spelled out for an error)."""
    colour, shape = int(tile.colour), int(tile.shape)
    if not 1 <= colour <= _ATTRIBUTE_COUNT:
        raise InvalidRequestError(f"{field % index}.colour", f"{colour} is not a colour")
    if not 1 <= shape <= _ATTRIBUTE_COUNT:
        raise InvalidRequestError(f"{field % index}.shape", f"{shape} is not a shape")
    return _TILES[(colour - 1) * _ATTRIBUTE_COUNT + (shape - 1)]


class QwirkleCodec:
    """The Qwirkle codec (see the module docstring)."""

    game = "qwirkle"
    proto_game = match_pb2.GAME_QWIRKLE
    oneof_case = "qwirkle"

    def decode_config(self, config: match_pb2.MatchConfig, default: object) -> object:
        """Return the engine config; Qwirkle has no options yet."""
        return default if isinstance(default, QwirkleConfig) else QwirkleConfig()

    def encode_config(self, game_config: object, out: match_pb2.MatchConfig) -> None:
        """Mark the Qwirkle case of ``out``'s options (there are no options yet)."""
        out.qwirkle.SetInParent()

    def decode_move(self, move: match_pb2.Move) -> object:
        """Return the engine move of a Qwirkle ``Move`` message.

        Raises:
            InvalidRequestError: No action, too many tiles, a cell out of bounds or an
                unknown colour or shape.
        """
        action = move.qwirkle.WhichOneof("action")
        if action == "place":
            placements = move.qwirkle.place.placements
            if len(placements) > MAX_TILES_PER_MOVE:
                raise InvalidRequestError(
                    "move.qwirkle.place.placements",
                    f"{len(placements)} placements; at most {MAX_TILES_PER_MOVE}",
                )
            decoded: list[tuple[int, int, Tile]] = []
            for index, placement in enumerate(placements):
                x, y = placement.x, placement.y
                if abs(x) > MAX_COORDINATE or abs(y) > MAX_COORDINATE:
                    raise InvalidRequestError(
                        f"move.qwirkle.place.placements[{index}]",
                        f"cell ({x}, {y}) is beyond |{MAX_COORDINATE}|",
                    )
                tile = _decode_tile(placement.tile, _PLACED_TILE_FIELD, index)
                decoded.append((x, y, tile))
            return Place(tuple(decoded))  # type: ignore[arg-type]
        if action == "exchange":
            tiles = move.qwirkle.exchange.tiles
            if len(tiles) > MAX_TILES_PER_MOVE:
                raise InvalidRequestError(
                    "move.qwirkle.exchange.tiles",
                    f"{len(tiles)} tiles; at most {MAX_TILES_PER_MOVE}",
                )
            return Exchange(
                tuple(
                    _decode_tile(tile, "move.qwirkle.exchange.tiles[%d]", index)
                    for index, tile in enumerate(tiles)
                )
            )
        if action == "pass":
            return Pass()
        raise InvalidRequestError("move.qwirkle.action", "required: place, exchange or pass")

    def encode_move(self, move: object, *, redact: bool) -> match_pb2.Move:
        """Return ``move`` as a message; ``redact`` keeps only an exchange's tile count."""
        if type(move) is Place:
            # Every move event and answer carries one: parsing the placement bytes costs
            # less than building the message field by field.
            return match_pb2.Move.FromString(place_bytes(move))
        return match_pb2.Move(qwirkle=qwirkle_move(move, redact=redact))

    def encode_moves(self, moves: Sequence[object]) -> list[match_pb2.Move]:
        """Return a seat's own legal moves as messages (placements with their scores)."""
        parse = match_pb2.Move.FromString
        return [parse(move_bytes(move)) for move in moves]

    def encode_secrets(self, state: object, out: match_pb2.Replay) -> None:
        """Nothing: every hidden holding is some seat's view (the replay holds them all)."""

    def encode_view(
        self, view: object, seat: Seat | None, *, with_history: bool, out: match_pb2.PlayerView
    ) -> None:
        """Write a :class:`QwirkleView` into the empty ``PlayerView`` ``out``."""
        view = checked_view(view)
        if seat is not None:
            out.seat = seat
        message = out.qwirkle
        message.SetInParent()
        message.MergeFromString(board_bytes(view.board))
        fill_view(view, message)
        if with_history:
            message.history.extend(_history(view))


def _history(view: QwirkleView) -> list[qwirkle_pb2.QwirkleTurn]:
    history: list[qwirkle_pb2.QwirkleTurn] = []
    for entry in view.history:
        if isinstance(entry, Placed):
            move = qwirkle_move(Place(entry.placements, score=entry.score), redact=True)
            history.append(qwirkle_pb2.QwirkleTurn(seat=entry.seat, move=move))
        elif isinstance(entry, Exchanged):
            exchange = qwirkle_pb2.QwirkleExchange(tile_count=entry.count)
            move = qwirkle_pb2.QwirkleMove(exchange=exchange)
            history.append(qwirkle_pb2.QwirkleTurn(seat=entry.seat, move=move))
        elif isinstance(entry, Passed):
            move = qwirkle_move(Pass(), redact=True)
            history.append(qwirkle_pb2.QwirkleTurn(seat=entry.seat, move=move))
    return history


_CODEC = QwirkleCodec()


def decode_move(move: match_pb2.Move) -> object:
    """Return the engine move of a Qwirkle ``Move`` message (see ``QwirkleCodec``).

    Raises:
        InvalidRequestError: The message is not a valid Qwirkle move.
    """
    return _CODEC.decode_move(move)


def encode_move(move: object, *, redact: bool = False) -> match_pb2.Move:
    """Return an engine move as a ``Move`` message (see ``QwirkleCodec``)."""
    return _CODEC.encode_move(move, redact=redact)
