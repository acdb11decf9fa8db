"""Qwirkle engine values <-> ``botarena.v1`` Qwirkle messages, with input validation.

Validation happens here, before the engine sees a move: cells within ``|x|, |y| <=
MAX_COORDINATE``, at most six tiles, colours and shapes that name a real value. Whether
the move is *legal* is the engine's call. Another seat's exchange is redacted to its tile
count (match.proto: MoveApplied).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import TypeVar

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
from botarena.server.service.codecs._base import ByteCache, encode_varint, field_tag
from botarena.v1 import match_pb2, qwirkle_pb2

__all__ = [
    "MAX_COORDINATE",
    "MAX_TILES_PER_MOVE",
    "QwirkleByteCache",
    "QwirkleCodec",
    "decode_move",
    "encode_move",
]

_K = TypeVar("_K")
_V = TypeVar("_V")

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
# by protobuf, a move's bytes are joined from them, and a decision's entries are parsed
# in one C call. With a QwirkleByteCache (one per server, owned by the service) each
# placement and each legal move's entry is built once: about 0.3 us a move seen before
# and 1 us a new one (a third of them), ~120 us a decision. Without one, every call
# builds its bytes afresh, with the same result.
# encode_moves (the same bytes, move by move) is checked against encode_move in the tests.

_SMALL_VARINTS: tuple[bytes, ...] = tuple(encode_varint(value) for value in range(1 << 14))


def _varint(value: int) -> bytes:
    return _SMALL_VARINTS[value] if value < 1 << 14 else encode_varint(value)


_PLACEMENTS_TAG = field_tag(qwirkle_pb2.QwirklePlace, "placements")
_BOARD_TAG = field_tag(qwirkle_pb2.QwirkleView, "board")
_SCORE_TAG = field_tag(qwirkle_pb2.QwirklePlace, "score")
_PLACE_TAG = field_tag(qwirkle_pb2.QwirkleMove, "place")
_EXCHANGE_TAG = field_tag(qwirkle_pb2.QwirkleMove, "exchange")
_EXCHANGE_TILES_TAG = field_tag(qwirkle_pb2.QwirkleExchange, "tiles")
_TILE_COUNT_TAG = field_tag(qwirkle_pb2.QwirkleExchange, "tile_count")
_MOVE_QWIRKLE_TAG = field_tag(match_pb2.Move, "qwirkle")
_PLAYER_VIEW_SEAT_TAG = field_tag(match_pb2.PlayerView, "seat")
_PLAYER_VIEW_QWIRKLE_TAG = field_tag(match_pb2.PlayerView, "qwirkle")
# The same placement bytes serve moves and boards, and the framing of a place is inlined
# in _LegalMoveEntries.wire: both need these tags to agree.
assert _PLACEMENTS_TAG == _BOARD_TAG
assert _PLACE_TAG == _MOVE_QWIRKLE_TAG


def _length_delimited(tag: bytes, payload: bytes) -> bytes:
    return tag + _varint(len(payload)) + payload


def _build_placement(placement: tuple[int, int, Tile]) -> bytes:
    """Return ``(x, y, tile)`` as a ``QwirklePlace.placements`` entry.

    ``QwirkleView.board`` has the same field number, so the same bytes serve moves and
    boards. A ``Placement`` is such a tuple: it is its own key in a cache.
    """
    x, y, tile = placement
    message = qwirkle_pb2.QwirklePlacement(x=x, y=y, tile=_TILE_MESSAGES[tile])
    return _length_delimited(_PLACEMENTS_TAG, message.SerializeToString())


_PlacementBytes = Callable[[tuple[int, int, Tile]], bytes]


def _place_bytes(move: Place, placement_bytes: _PlacementBytes = _build_placement) -> bytes:
    """Return the serialized ``Move`` of a placement, its score included."""
    payload = b"".join([placement_bytes(placement) for placement in move.placements])
    if move.score:
        payload += _SCORE_TAG + _varint(move.score)
    return _length_delimited(_MOVE_QWIRKLE_TAG, _length_delimited(_PLACE_TAG, payload))


# Each tile as a QwirkleExchange.tiles entry.
_TILE_FIELDS: tuple[bytes, ...] = tuple(
    _length_delimited(_EXCHANGE_TILES_TAG, message.SerializeToString())
    for message in _TILE_MESSAGES
)


def _exchange_bytes(move: Exchange) -> bytes:
    """Return the serialized ``Move`` of an unredacted exchange."""
    tiles = _TILE_FIELDS
    payload = b"".join([tiles[tile] for tile in move.tiles])
    if move.tiles:
        payload += _TILE_COUNT_TAG + _varint(len(move.tiles))
    return _length_delimited(_MOVE_QWIRKLE_TAG, _length_delimited(_EXCHANGE_TAG, payload))


def _move_bytes(move: object, placement_bytes: _PlacementBytes = _build_placement) -> bytes:
    """Return the serialized ``Move`` of any move (unredacted)."""
    if isinstance(move, Place):
        return _place_bytes(move, placement_bytes)
    if isinstance(move, Exchange):
        return _exchange_bytes(move)
    return match_pb2.Move(qwirkle=_qwirkle_move(move, redact=False)).SerializeToString()


def _remember(table: dict[_K, _V], key: _K, value: _V, size: int) -> None:
    """Store ``value`` in ``table``, a cache of at most ``size`` entries: when it is full,
    the oldest entry goes (insertion order), one at a time."""
    if size:
        if len(table) >= size:
            del table[next(iter(table))]
        table[key] = value


class _LegalMoveEntries:
    """Legal moves as entries of one repeated ``Move`` field, built from cached parts.

    A placement's entry is cached by its placements, with the score it was built for:
    about two thirds of a seat's placements are offered again, with the same score, at
    its next decision (the board changes in one place per move, the rack keeps the tiles
    it did not play), and a hit costs one C-level tuple hash and compare instead of
    joining and framing. A miss builds the entry from its placements' cached bytes.
    Exchanges, the same few subsets of a rack, are cached by their tiles. A pass is rare
    and built each time. Both tables keep at most ``size`` entries (0: none), the oldest
    going first: a hit leaves the order alone, since reordering on every hit costs ~10 us
    a decision (measured) and the entries that come back do so at the seat's next turn.
    """

    def __init__(self, field_number: int, placements: QwirkleByteCache, size: int) -> None:
        self._tag = _varint(field_number << 3 | 2)
        self._placements = placements
        self._size = size
        self._places: dict[tuple[tuple[int, int, Tile], ...], tuple[int | None, bytes]] = {}
        self._exchanges: dict[tuple[Tile, ...], bytes] = {}

    def sizes(self) -> tuple[int, int]:
        """The number of placement and exchange entries held."""
        return len(self._places), len(self._exchanges)

    def wire(self, moves: Sequence[object]) -> bytes:
        places, exchanges, tag, varint = self._places, self._exchanges, self._tag, _SMALL_VARINTS
        size, score_tag, place_tag = self._size, _SCORE_TAG, _PLACE_TAG
        place_tag_size = len(place_tag)
        cached, build = self._placements.cached_placement, self._placements.placement_bytes
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
                if score:  # a score is far below 2**14
                    payload += score_tag + varint[score]
                # _place_bytes framed inline: Move.qwirkle (one byte tag) holds
                # QwirkleMove.place (the same tag) holds the payload. Calling it costs
                # ~13 us per decision of ~100 moves (20 %, measured on warm caches) on
                # the hot path of issue 4.
                payload_size = len(payload)
                place_size = payload_size + place_tag_size + len(varint[payload_size])
                move_size = place_size + place_tag_size + len(varint[place_size])
                entry = (
                    tag
                    + varint[move_size]
                    + place_tag
                    + varint[place_size]
                    + place_tag
                    + varint[payload_size]
                    + payload
                )
                if size:  # _remember inlined: a call per new move costs ~5 us a decision
                    if len(places) >= size:
                        del places[next(iter(places))]
                    places[placements] = (score, entry)
                append(entry)
            elif isinstance(move, Exchange):
                known_exchange = exchanges.get(move.tiles)
                if known_exchange is None:
                    known_exchange = _length_delimited(tag, _exchange_bytes(move))
                    _remember(exchanges, move.tiles, known_exchange, size)
                append(known_exchange)
            else:
                append(_length_delimited(tag, _move_bytes(move)))
        return b"".join(parts)


class QwirkleByteCache(ByteCache):
    """The Qwirkle codec's byte caches of one server: placements, legal move entries and
    the last board, each bounded (at most ``size`` entries, the oldest evicted first, one
    at a time; 0 keeps nothing).

    The service creates one per server (``GameCodec.new_byte_cache``) and hands it to
    :meth:`QwirkleCodec.legal_move_entries` and :meth:`QwirkleCodec.view_bytes`; two
    servers in one process never share or empty each other's caches. Not thread-safe:
    a server's encoding runs on its event loop.
    """

    def __init__(self, size: int) -> None:
        if size < 0:
            raise ValueError(f"a cache size of {size}")
        self.size = size
        self._placements: dict[tuple[int, int, Tile], bytes] = {}
        self.cached_placement = self._placements.get
        self._entries: dict[int, _LegalMoveEntries] = {}
        self._last_board: tuple[Mapping[tuple[int, int], Tile], bytes] | None = None

    def table_sizes(self) -> dict[str, int]:
        """The number of entries each table holds (each at most ``size``)."""
        sizes = {"placements": len(self._placements), "boards": 0}
        if self._last_board is not None:
            sizes["boards"] = 1
        for number, entries in self._entries.items():
            sizes[f"places[{number}]"], sizes[f"exchanges[{number}]"] = entries.sizes()
        return sizes

    def placement_bytes(self, placement: tuple[int, int, Tile]) -> bytes:
        """The bytes of ``placement`` (see ``_build_placement``), kept."""
        data = self._placements.get(placement)
        if data is None:
            data = _build_placement(placement)
            _remember(self._placements, placement, data, self.size)
        return data

    def entries(self, field_number: int) -> _LegalMoveEntries:
        """The legal move entries of the repeated ``Move`` field ``field_number``."""
        entries = self._entries.get(field_number)
        if entries is None:
            entries = _LegalMoveEntries(field_number, self, self.size)
            if self.size:
                self._entries[field_number] = entries
        return entries

    def board_bytes(self, board: Mapping[tuple[int, int], Tile]) -> bytes:
        """Return the board as ``QwirkleView.board`` entries (like a move's placements).

        The board is the bulk of a view, and every seat's stream gets a view of the same
        version (each MoveApplied): the last board is kept and recognised by comparing
        contents, a C-level dict comparison far cheaper than sorting and joining again.
        """
        last = self._last_board
        if last is not None and last[0] == board:
            return last[1]
        # Flat (x, y, tile) tuples sort faster than ((x, y), tile) pairs, in the same order.
        cells = sorted([(x, y, tile) for (x, y), tile in board.items()])
        cached, build = self._placements.get, self.placement_bytes
        data = b"".join([cached(cell) or build(cell) for cell in cells])
        if self.size:
            self._last_board = (board, data)
        return data


def _byte_cache(cache: ByteCache | None) -> QwirkleByteCache:
    """``cache`` if it is the Qwirkle codec's, else one that keeps nothing."""
    return cache if isinstance(cache, QwirkleByteCache) else QwirkleByteCache(0)


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
            return match_pb2.Move.FromString(_place_bytes(move))
        return match_pb2.Move(qwirkle=_qwirkle_move(move, redact=redact))

    def encode_moves(self, moves: Sequence[object]) -> list[match_pb2.Move]:
        """Return a seat's own legal moves as messages (placements with their scores)."""
        parse = match_pb2.Move.FromString
        return [parse(_move_bytes(move)) for move in moves]

    def new_byte_cache(self, size: int) -> QwirkleByteCache:
        """Return a new, empty :class:`QwirkleByteCache` of LRUs of ``size`` entries."""
        return QwirkleByteCache(size)

    def legal_move_entries(
        self, moves: Sequence[object], field_number: int, cache: ByteCache | None = None
    ) -> bytes:
        """Return legal moves as entries of a repeated ``Move`` field (from ``cache``'s
        bytes where it has them)."""
        return _byte_cache(cache).entries(field_number).wire(moves)

    def encode_view(
        self, view: object, seat: Seat | None, *, with_history: bool, out: match_pb2.PlayerView
    ) -> None:
        """Write a :class:`QwirkleView` into the empty ``PlayerView`` ``out``."""
        view = _checked_view(view)
        if seat is not None:
            out.seat = seat
        message = out.qwirkle
        message.SetInParent()
        message.MergeFromString(QwirkleByteCache(0).board_bytes(view.board))
        _fill_view(view, message)
        if with_history:
            message.history.extend(_history(view))

    def view_bytes(self, view: object, seat: Seat | None, cache: ByteCache | None = None) -> bytes:
        """Return the serialized ``PlayerView`` of a :class:`QwirkleView`, without history.

        The board, the bulk of it, is spliced in as bytes (``cache``'s where it has them)
        rather than parsed into the message to be serialized again: the board is
        ``QwirkleView`` field 1, so the result is what protobuf itself would write.
        """
        view = _checked_view(view)
        message = qwirkle_pb2.QwirkleView()
        _fill_view(view, message)
        body = _byte_cache(cache).board_bytes(view.board) + message.SerializeToString()
        head = b"" if seat is None else _PLAYER_VIEW_SEAT_TAG + _varint(seat)
        return head + _length_delimited(_PLAYER_VIEW_QWIRKLE_TAG, body)


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
