"""The wire encoder protocol, the generic encoder and the per-server set of them."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Protocol, TypeVar

from google.protobuf.message import Message

from botarena.server.games import Seat
from botarena.server.service.codecs import GameCodec, encode_varint
from botarena.v1 import match_pb2

__all__ = ["MessageWire", "WireEncoder", "WireFactory", "add_legal_moves", "remember"]

_K = TypeVar("_K")
_V = TypeVar("_V")


class WireEncoder(Protocol):
    """Writes one game's two hottest payloads as wire bytes, for one server.

    What it returns is exactly what its codec's messages serialize to; how it gets
    there (cached parts, bytes written by hand) is its own business. It may keep caches,
    each bounded by the size it was made with; it is used from its server's event loop
    only (not thread-safe).
    """

    def legal_move_entries(self, moves: Sequence[object], field_number: int) -> bytes:
        """Return a seat's own legal moves as the wire entries of a repeated ``Move`` field.

        Each entry is the field's tag, the length and the move's bytes, so the result can
        be appended to any serialized message whose repeated ``Move`` field is numbered
        ``field_number``; parsed, it equals ``codec.encode_moves(moves)``.
        """
        ...

    def view_bytes(self, view: object, seat: Seat | None) -> bytes:
        """Return the serialized ``PlayerView`` of an engine view, without history: what
        ``codec.encode_view(view, seat, with_history=False, ...)`` writes, serialized."""
        ...

    def table_sizes(self) -> dict[str, int]:
        """The number of entries each of its caches holds (each at most its size)."""
        ...


WireFactory = Callable[[GameCodec, int], WireEncoder]
"""Makes a game's wire encoder for one server: ``(codec, size)``, ``size`` bounding each
cache it keeps (0: none)."""


def remember(table: dict[_K, _V], key: _K, value: _V, size: int) -> None:
    """Store ``value`` in ``table``, a cache of at most ``size`` entries: when it is full,
    the oldest entry goes (insertion order), one at a time."""
    if size:
        if len(table) >= size:
            del table[next(iter(table))]
        table[key] = value


class MessageWire:
    """The wire encoder of any game, built on its codec's messages.

    Each legal move's entry (moves are hashable engine values) is serialized once and
    kept, at most ``size`` of them; a decision's entries are then a join. Views are
    serialized messages.
    """

    def __init__(self, codec: GameCodec, size: int) -> None:
        if size < 0:
            raise ValueError(f"a cache size of {size}")
        self._codec = codec
        self._size = size
        self._entries: dict[tuple[int, object], bytes] = {}

    def legal_move_entries(self, moves: Sequence[object], field_number: int) -> bytes:
        """Return ``moves`` as entries of a repeated ``Move`` field ``field_number``."""
        entries, size = self._entries, self._size
        parts: list[bytes] = []
        for move in moves:
            key = (field_number, move)
            entry = entries.get(key)
            if entry is None:
                body = self._codec.encode_moves([move])[0].SerializeToString()
                entry = encode_varint(field_number << 3 | 2) + encode_varint(len(body)) + body
                remember(entries, key, entry, size)
            parts.append(entry)
        return b"".join(parts)

    def view_bytes(self, view: object, seat: Seat | None) -> bytes:
        """Return the serialized ``PlayerView`` of ``view``, without history."""
        out = match_pb2.PlayerView()
        self._codec.encode_view(view, seat, with_history=False, out=out)
        return out.SerializeToString()

    def table_sizes(self) -> dict[str, int]:
        """The number of legal move entries kept."""
        return {"entries": len(self._entries)}


def add_legal_moves(
    wire: WireEncoder, moves: Sequence[object], out: Message, field: str = "legal_moves"
) -> None:
    """Append ``moves`` (engine moves of ``wire``'s game) to ``out``'s repeated ``field``."""
    number = out.DESCRIPTOR.fields_by_name[field].number
    out.MergeFromString(wire.legal_move_entries(moves, number))
