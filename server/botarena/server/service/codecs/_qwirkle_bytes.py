"""Qwirkle values as messages and as wire bytes, with no caches: the encoders the codec
(:mod:`.qwirkle`) and the service's Qwirkle wire encoder (``service.wire.qwirkle``) share.

A decision sends every legal move, often hundreds of placements: the server's costliest
encoding. Building those messages with the protobuf API costs 2-4 us a move (~400-700 us
a decision), so the wire bytes are written here instead: each placement is serialized by
protobuf, a move's bytes are joined from them, and a decision's entries are parsed in one
C call. Every tag comes from the messages' descriptors (``field_tag``). The tests check
each function against the message protobuf itself builds.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence

from botarena.server.games import Seat
from botarena.server.games.qwirkle import (
    Exchange,
    OpeningPicked,
    Pass,
    Place,
    QwirkleView,
    Tile,
)
from botarena.server.service.codecs._base import encode_varint, field_tag
from botarena.v1 import match_pb2, qwirkle_pb2

__all__ = [
    "PLACE_TAG",
    "SCORE_TAG",
    "SMALL_VARINTS",
    "TILE_MESSAGES",
    "board_bytes",
    "build_placement",
    "checked_view",
    "exchange_bytes",
    "fill_view",
    "length_delimited",
    "move_bytes",
    "place_bytes",
    "player_view_bytes",
    "qwirkle_move",
    "varint",
]


def tile_message(tile: Tile) -> qwirkle_pb2.QwirkleTile:
    return qwirkle_pb2.QwirkleTile(
        colour=qwirkle_pb2.QwirkleColour.ValueType(tile.colour + 1),
        shape=qwirkle_pb2.QwirkleShape.ValueType(tile.shape + 1),
    )


# Encoding is the server's hot path (every decision sends every legal move): build each
# message with one constructor call from these prebuilt tiles instead of field by field.
TILE_MESSAGES: tuple[qwirkle_pb2.QwirkleTile, ...] = tuple(tile_message(tile) for tile in Tile)


def placement_messages(
    placements: Sequence[tuple[int, int, Tile]],
) -> list[qwirkle_pb2.QwirklePlacement]:
    tiles = TILE_MESSAGES
    return [qwirkle_pb2.QwirklePlacement(x=x, y=y, tile=tiles[tile]) for x, y, tile in placements]


def qwirkle_move(move: object, *, redact: bool) -> qwirkle_pb2.QwirkleMove:
    if isinstance(move, Place):
        return qwirkle_pb2.QwirkleMove(
            place=qwirkle_pb2.QwirklePlace(
                placements=placement_messages(move.placements), score=move.score or 0
            )
        )
    if isinstance(move, Exchange):
        tiles = () if redact else [TILE_MESSAGES[tile] for tile in move.tiles]
        return qwirkle_pb2.QwirkleMove(
            exchange=qwirkle_pb2.QwirkleExchange(tiles=tiles, tile_count=len(move.tiles))
        )
    if isinstance(move, Pass):
        message = qwirkle_pb2.QwirkleMove()
        getattr(message, "pass").SetInParent()  # `pass` is a Python keyword
        return message
    raise TypeError(f"{move!r} is not a Qwirkle move")


SMALL_VARINTS: tuple[bytes, ...] = tuple(encode_varint(value) for value in range(1 << 14))


def varint(value: int) -> bytes:
    return SMALL_VARINTS[value] if value < 1 << 14 else encode_varint(value)


PLACEMENTS_TAG = field_tag(qwirkle_pb2.QwirklePlace, "placements")
BOARD_TAG = field_tag(qwirkle_pb2.QwirkleView, "board")
SCORE_TAG = field_tag(qwirkle_pb2.QwirklePlace, "score")
PLACE_TAG = field_tag(qwirkle_pb2.QwirkleMove, "place")
EXCHANGE_TAG = field_tag(qwirkle_pb2.QwirkleMove, "exchange")
EXCHANGE_TILES_TAG = field_tag(qwirkle_pb2.QwirkleExchange, "tiles")
TILE_COUNT_TAG = field_tag(qwirkle_pb2.QwirkleExchange, "tile_count")
MOVE_QWIRKLE_TAG = field_tag(match_pb2.Move, "qwirkle")
PLAYER_VIEW_SEAT_TAG = field_tag(match_pb2.PlayerView, "seat")
PLAYER_VIEW_QWIRKLE_TAG = field_tag(match_pb2.PlayerView, "qwirkle")
# The same placement bytes serve moves and boards, and the framing of a place is inlined
# in the wire encoder's legal move entries: both need these tags to agree.
assert PLACEMENTS_TAG == BOARD_TAG
assert PLACE_TAG == MOVE_QWIRKLE_TAG


def length_delimited(tag: bytes, payload: bytes) -> bytes:
    return tag + varint(len(payload)) + payload


def build_placement(placement: tuple[int, int, Tile]) -> bytes:
    """Return ``(x, y, tile)`` as a ``QwirklePlace.placements`` entry.

    ``QwirkleView.board`` has the same field number, so the same bytes serve moves and
    boards. A ``Placement`` is such a tuple: it is its own key in a cache.
    """
    x, y, tile = placement
    message = qwirkle_pb2.QwirklePlacement(x=x, y=y, tile=TILE_MESSAGES[tile])
    return length_delimited(PLACEMENTS_TAG, message.SerializeToString())


PlacementBytes = Callable[[tuple[int, int, Tile]], bytes]


def place_bytes(move: Place, placement_bytes: PlacementBytes = build_placement) -> bytes:
    """Return the serialized ``Move`` of a placement, its score included."""
    payload = b"".join([placement_bytes(placement) for placement in move.placements])
    if move.score:
        payload += SCORE_TAG + varint(move.score)
    return length_delimited(MOVE_QWIRKLE_TAG, length_delimited(PLACE_TAG, payload))


# Each tile as a QwirkleExchange.tiles entry.
TILE_FIELDS: tuple[bytes, ...] = tuple(
    length_delimited(EXCHANGE_TILES_TAG, message.SerializeToString()) for message in TILE_MESSAGES
)


def exchange_bytes(move: Exchange) -> bytes:
    """Return the serialized ``Move`` of an unredacted exchange."""
    tiles = TILE_FIELDS
    payload = b"".join([tiles[tile] for tile in move.tiles])
    if move.tiles:
        payload += TILE_COUNT_TAG + varint(len(move.tiles))
    return length_delimited(MOVE_QWIRKLE_TAG, length_delimited(EXCHANGE_TAG, payload))


def move_bytes(move: object, placement_bytes: PlacementBytes = build_placement) -> bytes:
    """Return the serialized ``Move`` of any move (unredacted)."""
    if isinstance(move, Place):
        return place_bytes(move, placement_bytes)
    if isinstance(move, Exchange):
        return exchange_bytes(move)
    return match_pb2.Move(qwirkle=qwirkle_move(move, redact=False)).SerializeToString()


def checked_view(view: object) -> QwirkleView:
    if not isinstance(view, QwirkleView):
        raise TypeError(f"{view!r} is not a QwirkleView")
    return view


def fill_view(view: QwirkleView, message: qwirkle_pb2.QwirkleView) -> None:
    """Set everything of ``message`` but the board and the history."""
    tiles = TILE_MESSAGES
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


def board_bytes(
    board: Mapping[tuple[int, int], Tile], placement_bytes: PlacementBytes = build_placement
) -> bytes:
    """Return the board as ``QwirkleView.board`` entries (the bytes of a move's placements)."""
    # Flat (x, y, tile) tuples sort faster than ((x, y), tile) pairs, in the same order.
    cells = sorted([(x, y, tile) for (x, y), tile in board.items()])
    return b"".join([placement_bytes(cell) for cell in cells])


def player_view_bytes(view: QwirkleView, seat: Seat | None, board: bytes) -> bytes:
    """Return the serialized ``PlayerView`` of ``view`` without history, ``board`` being
    its :func:`board_bytes`.

    The board, the bulk of it, is spliced in as bytes rather than parsed into the message
    to be serialized again: the board is ``QwirkleView`` field 1, so the result is what
    protobuf itself would write.
    """
    message = qwirkle_pb2.QwirkleView()
    fill_view(view, message)
    body = board + message.SerializeToString()
    head = b"" if seat is None else PLAYER_VIEW_SEAT_TAG + varint(seat)
    return head + length_delimited(PLAYER_VIEW_QWIRKLE_TAG, body)
