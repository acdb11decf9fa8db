"""The codec protocol, the codecs by game and shared scalar conversions.

The game registry (``botarena.server.service._registry``) registers every game's codec."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Protocol

from google.protobuf import duration_pb2, timestamp_pb2
from google.protobuf.descriptor import FieldDescriptor
from google.protobuf.message import Message

from botarena.server.games import Seat
from botarena.server.match import InvalidRequestError
from botarena.v1 import match_pb2

__all__ = [
    "ByteCache",
    "GameCodec",
    "LegalMoveCache",
    "codec_for_game",
    "codec_for_proto",
    "duration_seconds",
    "encode_varint",
    "field_tag",
    "register_codec",
    "serialized_view",
    "set_duration",
    "set_timestamp",
]

_MAX_DURATION_SECONDS = 315_576_000_000  # google.protobuf.Duration's documented range


class ByteCache:
    """The base of a codec's byte caches (``GameCodec.new_byte_cache``).

    A cache belongs to one server, which creates it and passes it back to the codec that
    made it; it is bounded, and optional: a codec given none (or another codec's) builds
    the same bytes afresh.
    """


class GameCodec(Protocol):
    """Converts one game's engine values to and from protobuf."""

    @property
    def game(self) -> str:
        """The engine's registry name (``Rules.name``)."""
        ...

    @property
    def proto_game(self) -> match_pb2.Game.ValueType:
        """The game's ``botarena.v1.Game`` value."""
        ...

    @property
    def oneof_case(self) -> str:
        """The game's case name in the envelopes' oneofs (the game's name)."""
        ...

    def decode_config(self, config: match_pb2.MatchConfig, default: object) -> object:
        """Return the engine config of ``config`` (``default`` when no options are set).

        ``decode_settings`` has already checked that the options, if any, are this game's.

        Raises:
            InvalidRequestError: The options are invalid.
        """
        ...

    def encode_config(self, game_config: object, out: match_pb2.MatchConfig) -> None:
        """Write the engine config into ``out``'s game_config oneof."""
        ...

    def decode_move(self, move: match_pb2.Move) -> object:
        """Return the engine move of ``move`` (its case is this game's), validated.

        Raises:
            InvalidRequestError: A field is out of range or missing.
        """
        ...

    def encode_move(self, move: object, *, redact: bool) -> match_pb2.Move:
        """Return ``move`` as a message; ``redact`` hides what only its author may see."""
        ...

    def encode_moves(self, moves: Sequence[object]) -> list[match_pb2.Move]:
        """Return the messages of a seat's own legal moves."""
        ...

    def new_byte_cache(self, size: int) -> ByteCache | None:
        """Return a new cache of the bytes :meth:`legal_move_entries` and :meth:`view_bytes`
        build, bounded by ``size`` entries a table; ``None`` for a codec that keeps none."""
        ...

    def legal_move_entries(
        self, moves: Sequence[object], field_number: int, cache: ByteCache | None = None
    ) -> bytes:
        """Return a seat's own legal moves as the wire entries of a repeated ``Move`` field.

        Each entry is the field's tag, the length and the move's bytes, so the result can
        be appended to any serialized message that has a repeated ``Move`` field numbered
        ``field_number``; parsed, it equals :meth:`encode_moves`. The hot path of every
        decision: ``cache`` (from :meth:`new_byte_cache`) may keep each move's entry.
        """
        ...

    def encode_view(
        self, view: object, seat: Seat | None, *, with_history: bool, out: match_pb2.PlayerView
    ) -> None:
        """Write an engine view for ``seat`` (``None``: spectator) into the empty ``out``."""
        ...

    def view_bytes(self, view: object, seat: Seat | None, cache: ByteCache | None = None) -> bytes:
        """Return the serialized ``PlayerView`` of an engine view, without history.

        Parsed, it equals what :meth:`encode_view` writes with ``with_history=False``.
        Every stream event of a move carries one (see ``EventEncoder``).
        """
        ...


def serialized_view(codec: GameCodec, view: object, seat: Seat | None) -> bytes:
    """:meth:`GameCodec.view_bytes` by way of the message, for codecs with no faster path."""
    out = match_pb2.PlayerView()
    codec.encode_view(view, seat, with_history=False, out=out)
    return out.SerializeToString()


_LENGTH_DELIMITED_TYPES = frozenset(
    {FieldDescriptor.TYPE_MESSAGE, FieldDescriptor.TYPE_STRING, FieldDescriptor.TYPE_BYTES}
)
_VARINT_TYPES = frozenset(
    {
        FieldDescriptor.TYPE_INT32,
        FieldDescriptor.TYPE_INT64,
        FieldDescriptor.TYPE_UINT32,
        FieldDescriptor.TYPE_UINT64,
        FieldDescriptor.TYPE_BOOL,
        FieldDescriptor.TYPE_ENUM,
    }
)


def field_tag(message: type[Message], field: str) -> bytes:
    """Return the wire tag of ``field`` of ``message``, from its descriptor.

    Raises:
        ValueError: A field neither length-delimited nor a plain varint (a packed
            repeated scalar, a zigzag or fixed-width number): no fast path writes one.
    """
    descriptor = message.DESCRIPTOR.fields_by_name[field]
    if descriptor.type in _LENGTH_DELIMITED_TYPES:
        return encode_varint(descriptor.number << 3 | 2)
    if descriptor.type in _VARINT_TYPES and not descriptor.is_repeated:
        return encode_varint(descriptor.number << 3)
    raise ValueError(f"{message.DESCRIPTOR.full_name}.{field}: no tag for its wire type")


def encode_varint(value: int) -> bytes:
    """Return the protobuf varint encoding of a non-negative ``value``."""
    out = bytearray()
    while value > 0x7F:
        out.append((value & 0x7F) | 0x80)
        value >>= 7
    out.append(value)
    return bytes(out)


def add_legal_moves(
    codec: GameCodec,
    moves: Sequence[object],
    out: Message,
    field: str,
    cache: ByteCache | None = None,
) -> None:
    """Append ``moves`` (engine moves of ``codec``'s game) to ``out``'s repeated ``field``
    (``cache``: the codec's byte cache, if any)."""
    number = out.DESCRIPTOR.fields_by_name[field].number
    out.MergeFromString(codec.legal_move_entries(moves, number, cache))


class LegalMoveCache:
    """Appends legal moves to a repeated ``Move`` field from cached wire bytes.

    For games with a bounded set of distinct moves: each move's entry of a repeated field
    (tag, length, bytes) is encoded once, and a decision's moves are parsed in one call.

    Args:
        encode: Returns the ``Move`` message of an engine move (hashable).
    """

    def __init__(self, encode: Callable[[object], match_pb2.Move]) -> None:
        self._encode = encode
        self._entries: dict[tuple[int, object], bytes] = {}

    def _entry(self, field_number: int, move: object) -> bytes:
        key = (field_number, move)
        entry = self._entries.get(key)
        if entry is None:
            body = self._encode(move).SerializeToString()
            entry = encode_varint(field_number << 3 | 2) + encode_varint(len(body)) + body
            self._entries[key] = entry
        return entry

    def entries(self, moves: Sequence[object], field_number: int) -> bytes:
        """Return ``moves`` as entries of a repeated ``Move`` field ``field_number``."""
        return b"".join([self._entry(field_number, move) for move in moves])


_BY_GAME: dict[str, GameCodec] = {}
_BY_PROTO: dict[int, GameCodec] = {}


def register_codec(codec: GameCodec) -> None:
    """Register ``codec`` under its game's name and ``botarena.v1.Game`` value.

    Raises:
        ValueError: Another codec is registered for that game or proto value.
    """
    by_game = _BY_GAME.get(codec.game, codec)
    by_proto = _BY_PROTO.get(int(codec.proto_game), codec)
    if by_game is not codec or by_proto is not codec:
        raise ValueError(f"another codec is registered for game {codec.game!r}")
    _BY_GAME[codec.game] = codec
    _BY_PROTO[int(codec.proto_game)] = codec


def codec_for_game(game: str) -> GameCodec:
    """Return the codec registered for the engine named ``game``.

    Raises:
        KeyError: No codec for that game.
    """
    return _BY_GAME[game]


def codec_for_proto(game: int) -> GameCodec:
    """Return the codec registered for a ``botarena.v1.Game`` value.

    Raises:
        InvalidRequestError: ``MALFORMED_REQUEST`` for ``GAME_UNSPECIFIED``,
            ``UNKNOWN_GAME`` for a game the server does not host.
    """
    if game == match_pb2.GAME_UNSPECIFIED:
        raise InvalidRequestError("config.game", "required")
    codec = _BY_PROTO.get(game)
    if codec is None:
        raise InvalidRequestError(
            "config.game", f"the server does not host game {game}", reason="UNKNOWN_GAME"
        )
    return codec


def duration_seconds(field: str, duration: duration_pb2.Duration) -> float:
    """Return a Duration in seconds after checking it is well formed.

    Raises:
        InvalidRequestError: ``INVALID_TIME_CONTROL`` for a malformed duration.
    """
    seconds, nanos = duration.seconds, duration.nanos
    if (
        abs(seconds) > _MAX_DURATION_SECONDS
        or abs(nanos) > 999_999_999
        or (seconds > 0 > nanos)
        or (seconds < 0 < nanos)
    ):
        raise InvalidRequestError(field, "not a valid duration", reason="INVALID_TIME_CONTROL")
    return seconds + nanos / 1e9


def set_duration(out: duration_pb2.Duration, seconds: float) -> None:
    """Set ``out`` to ``seconds`` (nanosecond precision)."""
    out.FromNanoseconds(round(seconds * 1e9))


def set_timestamp(out: timestamp_pb2.Timestamp, epoch_seconds: float) -> None:
    """Set ``out`` to ``epoch_seconds`` (microsecond precision)."""
    out.FromMicroseconds(round(epoch_seconds * 1e6))
