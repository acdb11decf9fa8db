"""How the match layer persists: the codec it is given, and log entries as store records.

The store keeps bytes (``botarena.server.store``); the match layer keeps engine values.
A :class:`MatchCodec`, injected by whoever builds the :class:`MatchManager` (the service
layer supplies one built on the protobuf game codecs), turns settings and moves into
bytes and back. This module converts between :class:`LogEntry` and ``StoredEvent``.
"""

from __future__ import annotations

from typing import Any, Protocol

from botarena.server.games import Rules
from botarena.server.match._match import EventKind, LogEntry, Match, MatchResult
from botarena.server.match._settings import MatchSettings
from botarena.server.store import StoredEvent, StoredMatch, StoredResult, StoredSeat

__all__ = [
    "MatchCodec",
    "entry_of",
    "stored_event",
    "stored_match",
    "stored_result",
    "stored_seats",
]


class MatchCodec(Protocol):
    """Encodes what the store keeps of a match: its settings and its moves.

    Encodings must be stable across versions of the server: stored matches are decoded
    by later releases.
    """

    def encode_settings(self, settings: MatchSettings) -> bytes:
        """Return ``settings`` (game config included) as bytes."""
        ...

    def decode_settings(self, data: bytes, rules: Rules[Any, Any, Any, Any]) -> MatchSettings:
        """Return the settings encoded in ``data``, a match of ``rules``' game."""
        ...

    def encode_move(self, game: str, move: object) -> bytes:
        """Return an engine move of ``game`` as bytes, unredacted."""
        ...

    def decode_move(self, game: str, data: bytes) -> object:
        """Return the engine move of ``game`` encoded in ``data``."""
        ...


def stored_event(entry: LogEntry, game: str, codec: MatchCodec) -> StoredEvent:
    """Return a log entry as a store record (its result goes to ``stored_result``)."""
    return StoredEvent(
        state_version=entry.state_version,
        time=entry.time,
        kind=entry.kind.value,
        seat=entry.seat,
        move=None if entry.move is None else codec.encode_move(game, entry.move),
        think_time=entry.think_time,
        by_timeout=entry.by_timeout,
        reason=entry.reason,
        request_id=entry.request_id,
    )


def entry_of(event: StoredEvent, game: str, codec: MatchCodec) -> LogEntry:
    """Return the log entry of a store record (``MATCH_FINISHED`` without its result).

    Raises:
        ValueError: An unknown kind.
    """
    return LogEntry(
        state_version=event.state_version,
        time=event.time,
        kind=EventKind(event.kind),
        seat=event.seat,
        move=None if event.move is None else codec.decode_move(game, event.move),
        think_time=event.think_time,
        by_timeout=event.by_timeout,
        reason=event.reason,
        request_id=event.request_id,
    )


def stored_result(match: Match) -> StoredResult | None:
    """Return the result of a finished match as a store record, else ``None``."""
    result: MatchResult | None = match.result
    if result is None:
        return None
    return StoredResult(
        scores=result.scores,
        ranks=result.ranks,
        forfeited=result.forfeited,
        reason=result.reason,
        end_time=match.end_time if match.end_time is not None else match.last_entry().time,
    )


def stored_seats(match: Match) -> tuple[StoredSeat, ...]:
    """Return every seat of ``match`` as a store record."""
    hashes = match.token_hashes
    seats: list[StoredSeat] = []
    for seat in range(match.seat_count):
        record = match.seat_record(seat)
        seats.append(
            StoredSeat(
                seat=seat,
                name=match.seat_name(seat),
                token_hash=hashes[seat],
                time_bank=record.time_bank,
                timeouts=record.timeouts,
                illegal_moves=record.illegal_moves,
                stand_in_moves=record.stand_in_moves,
                forfeit_reason=record.forfeit_reason,
            )
        )
    return tuple(seats)


def stored_match(
    match: Match, sequence: int, codec: MatchCodec, request_id: str | None = None
) -> StoredMatch:
    """Return a new match as a store record (``request_id``: of the call that made it)."""
    settings = match.settings
    return StoredMatch(
        match_id=match.match_id,
        sequence=sequence,
        game=settings.game,
        seat_count=settings.seat_count,
        seed=settings.seed,
        config=codec.encode_settings(settings),
        created_time=match.created_time,
        state_version=match.state_version,
        seats=stored_seats(match),
        request_id=request_id,
    )
