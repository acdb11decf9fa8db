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
    OpeningPicked,
    Pass,
    Passed,
    Place,
    Placed,
    QwirkleConfig,
    QwirkleView,
    Tile,
)
from botarena.server.match import InvalidRequestError
from botarena.v1 import match_pb2, qwirkle_pb2

__all__ = ["MAX_COORDINATE", "MAX_TILES_PER_MOVE", "QwirkleCodec", "decode_move", "encode_move"]

MAX_COORDINATE = 256
"""The largest ``|x|`` or ``|y|`` accepted; 108 tiles never reach further from (0, 0)."""

MAX_TILES_PER_MOVE = 6
"""A rack holds six tiles: no move places or exchanges more."""

# The engine's Colour and Shape are 0-based in the proto's order; the proto reserves 0
# for UNSPECIFIED, so proto value = engine value + 1.
_ATTRIBUTE_COUNT = 6


def _decode_tile(field: str, tile: qwirkle_pb2.QwirkleTile) -> Tile:
    colour, shape = int(tile.colour), int(tile.shape)
    if not 1 <= colour <= _ATTRIBUTE_COUNT:
        raise InvalidRequestError(f"{field}.colour", f"{colour} is not a colour")
    if not 1 <= shape <= _ATTRIBUTE_COUNT:
        raise InvalidRequestError(f"{field}.shape", f"{shape} is not a shape")
    return Tile((colour - 1) * _ATTRIBUTE_COUNT + (shape - 1))


def _tile_message(tile: Tile) -> qwirkle_pb2.QwirkleTile:
    return qwirkle_pb2.QwirkleTile(
        colour=qwirkle_pb2.QwirkleColour.ValueType(tile.colour + 1),
        shape=qwirkle_pb2.QwirkleShape.ValueType(tile.shape + 1),
    )


# Encoding is the server's hot path (every decision sends every legal move): build each
# message with one constructor call from these prebuilt tiles instead of field by field.
_TILE_MESSAGES: tuple[qwirkle_pb2.QwirkleTile, ...] = tuple(_tile_message(tile) for tile in Tile)


def _placement_messages(
    placements: Sequence[tuple[int, int, Tile]],
) -> list[qwirkle_pb2.QwirklePlacement]:
    tiles = _TILE_MESSAGES
    return [qwirkle_pb2.QwirklePlacement(x=x, y=y, tile=tiles[tile]) for x, y, tile in placements]


def _qwirkle_move(move: object, *, redact: bool) -> qwirkle_pb2.QwirkleMove:
    if isinstance(move, Place):
        return qwirkle_pb2.QwirkleMove(
            place=qwirkle_pb2.QwirklePlace(
                placements=_placement_messages(move.placements), score=move.score or 0
            )
        )
    if isinstance(move, Exchange):
        tiles = () if redact else [_TILE_MESSAGES[tile] for tile in move.tiles]
        return qwirkle_pb2.QwirkleMove(
            exchange=qwirkle_pb2.QwirkleExchange(tiles=tiles, tile_count=len(move.tiles))
        )
    if isinstance(move, Pass):
        message = qwirkle_pb2.QwirkleMove()
        getattr(message, "pass").SetInParent()  # `pass` is a Python keyword
        return message
    raise TypeError(f"{move!r} is not a Qwirkle move")


# A decision sends every legal move, often hundreds of placements, which is the server's
# costliest encoding. Building those messages field by field in Python dominated the
# round trip, so placements are serialized once per (x, y, tile) and cached as wire bytes,
# a move's bytes are joined from them, and the C parser builds the message.
_PLACEMENT_BYTES: dict[tuple[int, int, int], bytes] = {}
_PLACEMENT_CACHE_LIMIT = 200_000


def _encode_varint(value: int) -> bytes:
    out = bytearray()
    while value > 0x7F:
        out.append((value & 0x7F) | 0x80)
        value >>= 7
    out.append(value)
    return bytes(out)


_SMALL_VARINTS: tuple[bytes, ...] = tuple(_encode_varint(value) for value in range(1 << 14))


def _varint(value: int) -> bytes:
    return _SMALL_VARINTS[value] if value < 1 << 14 else _encode_varint(value)


def _length_delimited(field_number: int, payload: bytes) -> bytes:
    return _varint(field_number << 3 | 2) + _varint(len(payload)) + payload


def _placement_field(x: int, y: int, tile: Tile) -> bytes:
    key = (x, y, tile)
    cached = _PLACEMENT_BYTES.get(key)
    if cached is None:
        message = qwirkle_pb2.QwirklePlacement(x=x, y=y, tile=_TILE_MESSAGES[tile])
        # QwirklePlace.placements is field 1.
        cached = _length_delimited(1, message.SerializeToString())
        if len(_PLACEMENT_BYTES) >= _PLACEMENT_CACHE_LIMIT:
            _PLACEMENT_BYTES.clear()
        _PLACEMENT_BYTES[key] = cached
    return cached


_MOVE_BYTES: dict[object, bytes] = {}
_MOVE_CACHE_LIMIT = 100_000


def _move_bytes(move: Place | Exchange) -> bytes:
    # Keyed on the move and its score: Place equality ignores the score.
    key = (move, move.score) if isinstance(move, Place) else move
    cached = _MOVE_BYTES.get(key)
    if cached is not None:
        return cached
    if isinstance(move, Place):
        payload = b"".join(_placement_field(x, y, tile) for x, y, tile in move.placements)
        if move.score:
            payload += b"\x10" + _varint(move.score)  # QwirklePlace.score, field 2, varint
        # Move.qwirkle (field 1) holding QwirkleMove.place (field 1).
        encoded = _length_delimited(1, _length_delimited(1, payload))
    else:
        encoded = match_pb2.Move(qwirkle=_qwirkle_move(move, redact=False)).SerializeToString()
    if len(_MOVE_BYTES) >= _MOVE_CACHE_LIMIT:
        _MOVE_BYTES.clear()
    _MOVE_BYTES[key] = encoded
    return encoded


class QwirkleCodec:
    """The Qwirkle codec (see the module docstring)."""

    game = "qwirkle"
    proto_game = match_pb2.GAME_QWIRKLE
    oneof_case = "qwirkle"

    def decode_config(self, config: match_pb2.MatchConfig, default: object) -> object:
        """Return the engine config; Qwirkle has no options yet.

        Raises:
            InvalidRequestError: The config's options are another game's.
        """
        case = config.WhichOneof("game_config")
        if case not in (None, self.oneof_case):
            raise InvalidRequestError("config.game_config", f"{case} options for a Qwirkle match")
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
                field = f"move.qwirkle.place.placements[{index}]"
                if abs(placement.x) > MAX_COORDINATE or abs(placement.y) > MAX_COORDINATE:
                    raise InvalidRequestError(
                        field,
                        f"cell ({placement.x}, {placement.y}) is beyond |{MAX_COORDINATE}|",
                    )
                decoded.append(
                    (placement.x, placement.y, _decode_tile(f"{field}.tile", placement.tile))
                )
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
                    _decode_tile(f"move.qwirkle.exchange.tiles[{index}]", tile)
                    for index, tile in enumerate(tiles)
                )
            )
        if action == "pass":
            return Pass()
        raise InvalidRequestError("move.qwirkle.action", "required: place, exchange or pass")

    def encode_move(self, move: object, *, redact: bool) -> match_pb2.Move:
        """Return ``move`` as a message; ``redact`` keeps only an exchange's tile count."""
        return match_pb2.Move(qwirkle=_qwirkle_move(move, redact=redact))

    def encode_moves(self, moves: Sequence[object]) -> list[match_pb2.Move]:
        """Return a seat's own legal moves as messages (placements with their scores)."""
        parse = match_pb2.Move.FromString
        return [
            parse(_move_bytes(move))
            if isinstance(move, Place | Exchange)
            else self.encode_move(move, redact=False)
            for move in moves
        ]

    def encode_view(
        self, view: object, seat: Seat | None, *, with_history: bool
    ) -> match_pb2.PlayerView:
        """Return a :class:`QwirkleView` as a ``PlayerView``."""
        if not isinstance(view, QwirkleView):
            raise TypeError(f"{view!r} is not a QwirkleView")
        message = match_pb2.PlayerView()
        if seat is not None:
            message.seat = seat
        history: list[qwirkle_pb2.QwirkleTurn] = []
        starting_seat = 0
        opening_sizes: tuple[int, ...] = ()
        for entry in view.history:
            if isinstance(entry, OpeningPicked):
                starting_seat, opening_sizes = entry.starter, entry.opening_sizes
            elif not with_history:
                continue
            elif isinstance(entry, Placed):
                move = _qwirkle_move(Place(entry.placements, score=entry.score), redact=True)
                history.append(qwirkle_pb2.QwirkleTurn(seat=entry.seat, move=move))
            elif isinstance(entry, Exchanged):
                exchange = qwirkle_pb2.QwirkleExchange(tile_count=entry.count)
                move = qwirkle_pb2.QwirkleMove(exchange=exchange)
                history.append(qwirkle_pb2.QwirkleTurn(seat=entry.seat, move=move))
            elif isinstance(entry, Passed):
                move = _qwirkle_move(Pass(), redact=True)
                history.append(qwirkle_pb2.QwirkleTurn(seat=entry.seat, move=move))
        tiles = _TILE_MESSAGES
        message.qwirkle.CopyFrom(
            qwirkle_pb2.QwirkleView(
                board=[
                    qwirkle_pb2.QwirklePlacement(x=x, y=y, tile=tiles[tile])
                    for (x, y), tile in sorted(view.board.items())
                ],
                rack=[tiles[tile] for tile in view.rack or ()],
                seats=[
                    qwirkle_pb2.QwirkleSeatView(seat=index, score=score, rack_size=rack_size)
                    for index, (score, rack_size) in enumerate(
                        zip(view.scores, view.rack_sizes, strict=True)
                    )
                ],
                bag_size=view.bag_size,
                current_seat=view.to_act,
                starting_seat=starting_seat,
                opening_sizes=opening_sizes,
                history=history,
            )
        )
        return message


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
