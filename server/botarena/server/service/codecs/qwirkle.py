"""Qwirkle engine values <-> ``botarena.v1`` Qwirkle messages, with input validation.

Validation happens here, before the engine sees a move: cells within ``|x|, |y| <=
MAX_COORDINATE``, at most six tiles, colours and shapes that name a real value. Whether
the move is *legal* is the engine's call. Another seat's exchange is redacted to its tile
count (match.proto: MoveApplied).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

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
from botarena.server.service.codecs._base import encode_varint, field_tag
from botarena.v1 import match_pb2, qwirkle_pb2

__all__ = ["MAX_COORDINATE", "MAX_TILES_PER_MOVE", "QwirkleCodec", "decode_move", "encode_move"]

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


# A decision sends every legal move, often hundreds of placements: the server's costliest
# encoding. Building those messages with the protobuf API costs 2-4 us a move (~400-700 us
# a decision), so the wire bytes are written here instead: each placement is serialized
# once per (x, y, tile) by protobuf and cached, a move's bytes are joined from them, each
# legal move's entry is cached, and a decision's entries are parsed in one C call. About
# 0.3 us a move seen before and 1 us a new one (a third of them): ~120 us a decision.
# encode_moves (the same bytes, move by move) is checked against encode_move in the tests.
_PLACEMENT_BYTES: dict[tuple[int, int, int], bytes] = {}
_PLACEMENT_CACHE_LIMIT = 200_000


_SMALL_VARINTS: tuple[bytes, ...] = tuple(encode_varint(value) for value in range(1 << 14))


def _varint(value: int) -> bytes:
    return _SMALL_VARINTS[value] if value < 1 << 14 else encode_varint(value)


def _length_delimited(field_number: int, payload: bytes) -> bytes:
    return _varint(field_number << 3 | 2) + _varint(len(payload)) + payload


def _placement_bytes(placement: tuple[int, int, Tile]) -> bytes:
    """Return ``(x, y, tile)`` as a length-delimited field 1 holding a ``QwirklePlacement``.

    Both ``QwirklePlace.placements`` and ``QwirkleView.board`` are field 1, so the same
    bytes serve moves and boards. A ``Placement`` is such a tuple: it is its own key.
    """
    cached = _PLACEMENT_BYTES.get(placement)
    if cached is None:
        x, y, tile = placement
        message = qwirkle_pb2.QwirklePlacement(x=x, y=y, tile=_TILE_MESSAGES[tile])
        cached = _length_delimited(1, message.SerializeToString())
        if len(_PLACEMENT_BYTES) >= _PLACEMENT_CACHE_LIMIT:
            _PLACEMENT_BYTES.clear()
        _PLACEMENT_BYTES[placement] = cached
    return cached


def _place_bytes(move: Place) -> bytes:
    """Return the serialized ``Move`` of a placement, its score included."""
    payload = b"".join([_placement_bytes(placement) for placement in move.placements])
    if move.score:
        payload += b"\x10" + _varint(move.score)  # QwirklePlace.score, field 2, varint
    place = b"\x0a" + _varint(len(payload)) + payload  # QwirkleMove.place, field 1
    return b"\x0a" + _varint(len(place)) + place  # Move.qwirkle, field 1


# Each tile as a length-delimited field 1 (QwirkleExchange.tiles).
_TILE_FIELDS: tuple[bytes, ...] = tuple(
    _length_delimited(1, message.SerializeToString()) for message in _TILE_MESSAGES
)


def _exchange_bytes(move: Exchange) -> bytes:
    """Return the serialized ``Move`` of an unredacted exchange."""
    tiles = _TILE_FIELDS
    payload = b"".join([tiles[tile] for tile in move.tiles])
    if move.tiles:
        payload += b"\x10" + _varint(len(move.tiles))  # QwirkleExchange.tile_count, field 2
    exchange = b"\x12" + _varint(len(payload)) + payload  # QwirkleMove.exchange, field 2
    return b"\x0a" + _varint(len(exchange)) + exchange  # Move.qwirkle, field 1


def _move_bytes(move: object) -> bytes:
    """Return the serialized ``Move`` of any move (unredacted)."""
    if isinstance(move, Place):
        return _place_bytes(move)
    if isinstance(move, Exchange):
        return _exchange_bytes(move)
    return match_pb2.Move(qwirkle=_qwirkle_move(move, redact=False)).SerializeToString()


class _LegalMoveEntries:
    """Legal moves as entries of one repeated ``Move`` field, built from cached parts.

    A placement's entry is cached by its placements, with the score it was built for:
    about two thirds of a seat's placements are offered again, with the same score, at
    its next decision (the board changes in one place per move, the rack keeps the tiles
    it did not play), and a hit costs one C-level tuple hash and compare instead of
    joining and framing. A miss builds the entry from its placements' cached bytes.
    Exchanges, the same few subsets of a rack, are cached by their tiles. A pass is rare
    and built each time.
    """

    _LIMIT = 100_000

    def __init__(self, field_number: int) -> None:
        self._tag = _varint(field_number << 3 | 2)
        self._places: dict[tuple[tuple[int, int, Tile], ...], tuple[int | None, bytes]] = {}
        self._exchanges: dict[tuple[Tile, ...], bytes] = {}

    def wire(self, moves: Sequence[object]) -> bytes:
        places, exchanges, tag, varint = self._places, self._exchanges, self._tag, _SMALL_VARINTS
        if len(places) >= self._LIMIT:
            places.clear()
        if len(exchanges) >= self._LIMIT:
            exchanges.clear()
        cached, build = _PLACEMENT_BYTES.get, _placement_bytes
        parts: list[bytes] = []
        append = parts.append
        for move in moves:
            if type(move) is Place:
                placements, score = move.placements, move.score
                known = places.get(placements)
                if known is not None and known[0] == score:
                    append(known[1])
                    continue
                if len(placements) == 1:
                    payload = cached(placements[0]) or build(placements[0])
                else:
                    payload = b"".join([cached(p) or build(p) for p in placements])
                if score:  # QwirklePlace.score, field 2 (a score is far below 2**14)
                    payload += b"\x10" + varint[score]
                # _place_bytes framed inline: Move.qwirkle (field 1) holds QwirkleMove.place
                # (field 1) holds the payload. Calling it costs ~13 us per decision of ~100
                # moves (20 %, measured on warm caches) on the hot path of issue 4.
                size = len(payload)
                place_size = size + 1 + len(varint[size])
                move_size = place_size + 1 + len(varint[place_size])
                entry = (
                    tag
                    + varint[move_size]
                    + b"\x0a"
                    + varint[place_size]
                    + b"\x0a"
                    + varint[size]
                    + payload
                )
                places[placements] = (score, entry)
                append(entry)
            elif isinstance(move, Exchange):
                known_exchange = exchanges.get(move.tiles)
                if known_exchange is None:
                    body = _exchange_bytes(move)
                    known_exchange = exchanges[move.tiles] = tag + _varint(len(body)) + body
                append(known_exchange)
            else:
                body = _move_bytes(move)
                append(tag + _varint(len(body)) + body)
        return b"".join(parts)


_ENTRIES: dict[int, _LegalMoveEntries] = {}

# The last board encoded and its bytes (see _board_bytes).
_last_board: tuple[Mapping[tuple[int, int], Tile], bytes] | None = None


def _board_bytes(board: Mapping[tuple[int, int], Tile]) -> bytes:
    """Return the board as ``QwirkleView.board`` entries (field 1, like a move's placements).

    The board is the bulk of a view, and every seat's stream gets a view of the same
    version (each MoveApplied): the last board is kept and recognised by comparing
    contents, a C-level dict comparison far cheaper than sorting and joining again.
    """
    global _last_board
    last = _last_board  # read once: the pair stays consistent whoever replaces it
    if last is not None and last[0] == board:
        return last[1]
    # Flat (x, y, tile) tuples sort faster than ((x, y), tile) pairs, in the same order.
    cells = sorted([(x, y, tile) for (x, y), tile in board.items()])
    cached = _PLACEMENT_BYTES.get
    data = b"".join([cached(cell) or _placement_bytes(cell) for cell in cells])
    _last_board = (board, data)
    return data


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
            # Every move event and answer carries one: parsing the cached placement bytes
            # costs half of building the message field by field.
            return match_pb2.Move.FromString(_place_bytes(move))
        return match_pb2.Move(qwirkle=_qwirkle_move(move, redact=redact))

    def encode_moves(self, moves: Sequence[object]) -> list[match_pb2.Move]:
        """Return a seat's own legal moves as messages (placements with their scores)."""
        parse = match_pb2.Move.FromString
        return [parse(_move_bytes(move)) for move in moves]

    def legal_move_entries(self, moves: Sequence[object], field_number: int) -> bytes:
        """Return legal moves as entries of a repeated ``Move`` field, from cached bytes."""
        entries = _ENTRIES.get(field_number)
        if entries is None:
            entries = _ENTRIES[field_number] = _LegalMoveEntries(field_number)
        return entries.wire(moves)

    def encode_view(
        self, view: object, seat: Seat | None, *, with_history: bool, out: match_pb2.PlayerView
    ) -> None:
        """Write a :class:`QwirkleView` into the empty ``PlayerView`` ``out``."""
        view = _checked_view(view)
        if seat is not None:
            out.seat = seat
        message = out.qwirkle
        message.SetInParent()
        message.MergeFromString(_board_bytes(view.board))
        _fill_view(view, message)
        if with_history:
            message.history.extend(_history(view))

    def view_bytes(self, view: object, seat: Seat | None) -> bytes:
        """Return the serialized ``PlayerView`` of a :class:`QwirkleView`, without history.

        The board, the bulk of it, is spliced in as cached bytes rather than parsed into
        the message to be serialized again: the board is ``QwirkleView`` field 1, so the
        result is what protobuf itself would write.
        """
        view = _checked_view(view)
        message = qwirkle_pb2.QwirkleView()
        _fill_view(view, message)
        body = _board_bytes(view.board) + message.SerializeToString()
        # PlayerView.seat (field 1, varint) and PlayerView.qwirkle (field 10).
        head = b"" if seat is None else b"\x08" + _varint(seat)
        return head + _PLAYER_VIEW_QWIRKLE_TAG + _varint(len(body)) + body


_PLAYER_VIEW_QWIRKLE_TAG = field_tag(match_pb2.PlayerView, "qwirkle")


def _checked_view(view: object) -> QwirkleView:
    if not isinstance(view, QwirkleView):
        raise TypeError(f"{view!r} is not a QwirkleView")
    return view


def _fill_view(view: QwirkleView, message: qwirkle_pb2.QwirkleView) -> None:
    """Set everything of ``message`` but the board and the history."""
    tiles = _TILE_MESSAGES
    message.rack.extend([tiles[tile] for tile in view.rack or ()])
    add_seat = message.seats.add
    for index, (score, rack_size) in enumerate(zip(view.scores, view.rack_sizes, strict=True)):
        add_seat(seat=index, score=score, rack_size=rack_size)
    message.bag_size = view.bag_size
    if view.to_act is not None:
        message.current_seat = view.to_act
    opening = view.history[0] if view.history else None
    if isinstance(opening, OpeningPicked):  # always the first entry (engine docs)
        message.starting_seat = opening.starter
        message.opening_sizes.extend(opening.opening_sizes)


def _history(view: QwirkleView) -> list[qwirkle_pb2.QwirkleTurn]:
    history: list[qwirkle_pb2.QwirkleTurn] = []
    for entry in view.history:
        if isinstance(entry, Placed):
            move = _qwirkle_move(Place(entry.placements, score=entry.score), redact=True)
            history.append(qwirkle_pb2.QwirkleTurn(seat=entry.seat, move=move))
        elif isinstance(entry, Exchanged):
            exchange = qwirkle_pb2.QwirkleExchange(tile_count=entry.count)
            move = qwirkle_pb2.QwirkleMove(exchange=exchange)
            history.append(qwirkle_pb2.QwirkleTurn(seat=entry.seat, move=move))
        elif isinstance(entry, Passed):
            move = _qwirkle_move(Pass(), redact=True)
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
