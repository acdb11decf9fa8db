"""The codec protocol and shared scalar and wire-format conversions.

Each game's plugin record (``botarena.server.service._registry``) names its codec; the
registry finds a game's codec by name or proto value."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol

from google.protobuf import duration_pb2, timestamp_pb2
from google.protobuf.descriptor import FieldDescriptor
from google.protobuf.message import Message

from botarena.server.games import Seat
from botarena.server.match import InvalidRequestError
from botarena.v1 import match_pb2

__all__ = [
    "GameCodec",
    "duration_seconds",
    "encode_varint",
    "field_tag",
    "set_duration",
    "set_timestamp",
]

_MAX_DURATION_SECONDS = 315_576_000_000  # google.protobuf.Duration's documented range


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

    def encode_view(
        self, view: object, seat: Seat | None, *, with_history: bool, out: match_pb2.PlayerView
    ) -> None:
        """Write an engine view for ``seat`` (``None``: spectator) into the empty ``out``."""
        ...

    def encode_secrets(self, state: object, out: match_pb2.Replay) -> None:
        """Write what no view of the engine state ``state`` (a match's first) shows into
        ``out``'s ``game_secrets``, for a finished match's replay; nothing for a game
        whose every secret is some seat's view."""
        ...


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
