"""Qwirkle's wire encoder: legal move entries and views from bounded per-server caches.

The bytes come from the codec's byte builders (``codecs._qwirkle_bytes``); this module
only keeps them. The tests check every result against the codec's messages.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from botarena.server.games import Seat
from botarena.server.games.qwirkle import Exchange, Place, Tile
from botarena.server.service.codecs import GameCodec
from botarena.server.service.codecs._qwirkle_bytes import (
    PLACE_TAG,
    SCORE_TAG,
    SMALL_VARINTS,
    build_placement,
    checked_view,
    exchange_bytes,
    length_delimited,
    move_bytes,
    player_view_bytes,
    varint,
)
from botarena.server.service.wire._base import remember

__all__ = ["QwirkleWire"]


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

    def __init__(self, field_number: int, placements: QwirkleWire, size: int) -> None:
        self._tag = varint(field_number << 3 | 2)
        self._placements = placements
        self._size = size
        self._places: dict[tuple[tuple[int, int, Tile], ...], tuple[int | None, bytes]] = {}
        self._exchanges: dict[tuple[Tile, ...], bytes] = {}

    def sizes(self) -> tuple[int, int]:
        """The number of placement and exchange entries held."""
        return len(self._places), len(self._exchanges)

    def wire(self, moves: Sequence[object]) -> bytes:
        places, exchanges, tag, varints = self._places, self._exchanges, self._tag, SMALL_VARINTS
        size, score_tag, place_tag = self._size, SCORE_TAG, PLACE_TAG
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
                    payload += score_tag + varints[score]
                # place_bytes framed inline: Move.qwirkle (one byte tag) holds
                # QwirkleMove.place (the same tag) holds the payload. Calling it costs
                # ~13 us per decision of ~100 moves (20 %, measured on warm caches) on
                # the hot path of issue 4.
                payload_size = len(payload)
                place_size = payload_size + place_tag_size + len(varints[payload_size])
                move_size = place_size + place_tag_size + len(varints[place_size])
                entry = (
                    tag
                    + varints[move_size]
                    + place_tag
                    + varints[place_size]
                    + place_tag
                    + varints[payload_size]
                    + payload
                )
                if size:  # remember inlined: a call per new move costs ~5 us a decision
                    if len(places) >= size:
                        del places[next(iter(places))]
                    places[placements] = (score, entry)
                append(entry)
            elif isinstance(move, Exchange):
                known_exchange = exchanges.get(move.tiles)
                if known_exchange is None:
                    known_exchange = length_delimited(tag, exchange_bytes(move))
                    remember(exchanges, move.tiles, known_exchange, size)
                append(known_exchange)
            else:
                append(length_delimited(tag, move_bytes(move)))
        return b"".join(parts)


class QwirkleWire:
    """Qwirkle's wire encoder of one server, with bounded caches of placements, legal
    move entries and the last board (at most ``size`` entries each, the oldest evicted
    first, one at a time; 0 keeps nothing).

    With its caches each placement and each legal move's entry is built once: about
    0.3 us a move seen before and 1 us a new one (a third of them), ~120 us a decision.
    Without them every call builds its bytes afresh, with the same result.

    Args:
        codec: The Qwirkle codec (the bytes are its messages'; unused otherwise).
        size: The bound of each cache.
    """

    def __init__(self, codec: GameCodec | None = None, size: int = 0) -> None:
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
        """The bytes of ``placement`` (see ``build_placement``), kept."""
        data = self._placements.get(placement)
        if data is None:
            data = build_placement(placement)
            remember(self._placements, placement, data, self.size)
        return data

    def entries(self, field_number: int) -> _LegalMoveEntries:
        """The legal move entries of the repeated ``Move`` field ``field_number``."""
        entries = self._entries.get(field_number)
        if entries is None:
            entries = _LegalMoveEntries(field_number, self, self.size)
            if self.size:
                self._entries[field_number] = entries
        return entries

    def legal_move_entries(self, moves: Sequence[object], field_number: int) -> bytes:
        """Return legal moves as entries of a repeated ``Move`` field (from the caches'
        bytes where they have them)."""
        return self.entries(field_number).wire(moves)

    def view_bytes(self, view: object, seat: Seat | None) -> bytes:
        """Return the serialized ``PlayerView`` of a :class:`QwirkleView`, without history,
        the board from the last board's bytes or the placements' (see ``board_bytes``)."""
        view = checked_view(view)
        return player_view_bytes(view, seat, self.board_bytes(view.board))

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
