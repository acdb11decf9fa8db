"""Game-agnostic conversions: requests to match settings, matches and events to messages.

Game-specific payloads go through the game's codec (:mod:`.codecs`); this module builds
the envelopes around them and validates the envelope fields.
"""

from __future__ import annotations

import asyncio
import dataclasses
import re
import secrets
from collections.abc import AsyncGenerator, AsyncIterator, Sequence
from typing import Any

import structlog
from google.protobuf.message import DecodeError

from botarena.server.games import Rules, Seat
from botarena.server.match import (
    EventKind,
    InvalidRequestError,
    LogEntry,
    Match,
    MatchResult,
    MatchSettings,
    PendingDecision,
    Policies,
    StreamItem,
    TimeControl,
    TimeoutPolicy,
)
from botarena.server.service._registry import (
    ConfigOverrides,
    codec_for_game,
    codec_for_proto,
    plugin_for,
)
from botarena.server.service.codecs import (
    GameCodec,
    duration_seconds,
    encode_varint,
    field_tag,
    set_duration,
    set_timestamp,
)
from botarena.server.service.wire import WireEncoder
from botarena.server.store import StoredMatch, StoredResult
from botarena.v1 import match_pb2, match_service_pb2

__all__ = [
    "ABANDONED",
    "MAX_ID_LENGTH",
    "EventEncoder",
    "WireEncoders",
    "decode_settings",
    "default_config",
    "encode_decision",
    "encode_event",
    "encode_match",
    "encode_settings",
    "encode_stored_match",
    "encode_summary",
    "end_state",
    "match_id_of",
    "match_name",
]

_logger = structlog.get_logger("botarena.service")

MAX_ID_LENGTH = 64
"""The longest ``request_id`` accepted."""

ABANDONED = "abandoned"
"""The result reason of a match nobody played (``STATE_ABANDONED``)."""

_NAME = re.compile(r"matches/([0-9a-f]{1,32})")
_MAX_SEAT_NAMES = 16

_TIMEOUT_POLICIES = {
    match_pb2.TIMEOUT_POLICY_UNSPECIFIED: TimeoutPolicy.DEFAULT_MOVE,
    match_pb2.TIMEOUT_POLICY_DEFAULT_MOVE: TimeoutPolicy.DEFAULT_MOVE,
    match_pb2.TIMEOUT_POLICY_FORFEIT: TimeoutPolicy.FORFEIT,
}
_TIMEOUT_POLICY_VALUES = {
    TimeoutPolicy.DEFAULT_MOVE: match_pb2.TIMEOUT_POLICY_DEFAULT_MOVE,
    TimeoutPolicy.FORFEIT: match_pb2.TIMEOUT_POLICY_FORFEIT,
}


def match_name(match_id: str) -> str:
    """Return the resource name of a match."""
    return f"matches/{match_id}"


def match_id_of(field: str, name: str) -> str:
    """Return the id in a resource name ``matches/{id}``.

    Raises:
        InvalidRequestError: The name is not of that form.
    """
    found = _NAME.fullmatch(name)
    if found is None:
        raise InvalidRequestError(field, f"{name[:80]!r} is not a match name 'matches/{{id}}'")
    return found.group(1)


def check_request_id(field: str, request_id: str, min_length: int = 0) -> str:
    """Return ``request_id`` after checking its length (empty: no key, always allowed).

    Raises:
        InvalidRequestError: Longer than :data:`MAX_ID_LENGTH`, or shorter than
            ``min_length``.
    """
    if len(request_id) > MAX_ID_LENGTH:
        raise InvalidRequestError(field, f"longer than {MAX_ID_LENGTH} characters")
    if request_id and len(request_id) < min_length:
        raise InvalidRequestError(field, f"shorter than {min_length} characters; use a random UUID")
    return request_id


def default_config(rules: Rules[Any, Any, Any, Any], overrides: ConfigOverrides) -> object:
    """Return the engine's default config with this server's overrides applied."""
    default = rules.default_config()
    fields = overrides.get(rules.name)
    return dataclasses.replace(default, **fields) if fields else default


def decode_settings(
    config: match_pb2.MatchConfig, min_seats: int, default: object
) -> MatchSettings:
    """Return the validated settings of a ``MatchConfig`` (defaults filled in).

    Args:
        config: The request's config.
        min_seats: The game's minimum, used when ``seat_count`` is 0.
        default: The engine's default config.

    Raises:
        InvalidRequestError: A field is out of range.
    """
    codec = codec_for_proto(int(config.game))
    # The options' oneof case must be the match's game, whatever the game (the same rule
    # as a move's case, checked in SubmitMove).
    case = config.WhichOneof("game_config")
    if case not in (None, codec.oneof_case):
        raise InvalidRequestError("config.game_config", f"{case} options for a {codec.game} match")
    if config.seat_count < 0:
        raise InvalidRequestError(
            "config.seat_count", "must not be negative", reason="INVALID_SEAT_COUNT"
        )
    time_control = config.time_control
    control = TimeControl(
        **{
            name: duration_seconds(f"config.time_control.{name}", getattr(time_control, name))
            for name in ("move_time_limit", "time_bank", "increment")
            if time_control.HasField(name)
        }
    )
    on_timeout = _TIMEOUT_POLICIES.get(config.policies.on_timeout)
    if on_timeout is None:
        raise InvalidRequestError(
            "config.policies.on_timeout", f"{config.policies.on_timeout} is not a policy"
        )
    given = config.policies
    defaults = Policies()
    policies = Policies(
        on_timeout=on_timeout,
        max_illegal_moves=given.max_illegal_moves or defaults.max_illegal_moves,
        max_stand_ins_in_a_row=given.max_stand_ins_in_a_row or defaults.max_stand_ins_in_a_row,
        join_timeout=(
            duration_seconds("config.policies.join_timeout", given.join_timeout)
            if given.HasField("join_timeout")
            else defaults.join_timeout
        ),
    )
    if len(config.seat_names) > _MAX_SEAT_NAMES:
        raise InvalidRequestError("config.seat_names", f"more than {_MAX_SEAT_NAMES} names")
    return MatchSettings(
        game=codec.game,
        seat_count=config.seat_count or min_seats,
        # Unset: 64 bits from the OS's cryptographic source (the seed must be unguessable).
        seed=config.seed if config.HasField("seed") else secrets.randbits(64),
        game_config=codec.decode_config(config, default),
        time_control=control,
        policies=policies,
        seat_names=tuple(config.seat_names),
    )


def encode_settings(settings: MatchSettings, codec: GameCodec, out: match_pb2.MatchConfig) -> None:
    """Write ``settings`` (every default filled in) into the empty ``out``."""
    out.game = codec.proto_game
    out.seat_count = settings.seat_count
    out.seed = settings.seed
    control = settings.time_control
    set_duration(out.time_control.move_time_limit, control.move_time_limit)
    set_duration(out.time_control.time_bank, control.time_bank)
    set_duration(out.time_control.increment, control.increment)
    out.policies.on_timeout = _TIMEOUT_POLICY_VALUES[settings.policies.on_timeout]
    out.policies.max_illegal_moves = settings.policies.max_illegal_moves
    out.policies.max_stand_ins_in_a_row = settings.policies.max_stand_ins_in_a_row
    set_duration(out.policies.join_timeout, settings.policies.join_timeout)
    out.seat_names.extend(settings.seat_names)
    codec.encode_config(settings.game_config, out)


def _encode_outcome(
    result: MatchResult | StoredResult, out: match_pb2.MatchOutcome, reasons: Sequence[str] = ()
) -> None:
    reasons = reasons or ("",) * len(result.scores)
    for seat, (score, rank, forfeited, reason) in enumerate(
        zip(result.scores, result.ranks, result.forfeited, reasons, strict=True)
    ):
        out.results.add(
            seat=seat, score=score, rank=rank, forfeited=forfeited, forfeit_reason=reason
        )
    out.reason = result.reason


def encode_match(
    match: Match, out: match_pb2.Match, *, at_start: bool = False, for_creator: bool = False
) -> None:
    """Write the public state of ``match`` into ``out``.

    The engine seed predicts every hidden draw, so it is left out while the match runs
    (match.proto: MatchConfig.seed), except in the creator's own answer.

    Args:
        match: The match.
        out: The message to fill.
        at_start: Describe the match as it was at version 0 (for ``MatchStarted``).
        for_creator: The answer of CreateMatch, which carries the seed.
    """
    codec = codec_for_game(match.settings.game)
    out.name = match_name(match.match_id)
    encode_settings(match.settings, codec, out.config)
    if not (match.finished or for_creator):
        out.config.ClearField("seed")
    set_timestamp(out.create_time, match.created_time)
    finished = match.finished and not at_start
    result = match.result if finished else None
    out.state = match_pb2.Match.STATE_ACTIVE if result is None else end_state(result.reason)
    if at_start:
        state = match.state_at(0)
        scores = match.hooks.scores(match.rules, state, match.seat_count)
        to_act = sorted(match.rules.to_act(state))
        out.state_version = 0
    else:
        scores = match.scores()
        to_act = list(match.seats_to_act())
        out.state_version = match.state_version
    for seat in range(match.seat_count):
        status = out.seats.add(
            seat=seat,
            display_name=match.seat_name(seat),
            score=scores[seat],
            forfeited=match.is_forfeited(seat) and not at_start,
            timeouts=0 if at_start else match.timeouts(seat),
            illegal_moves=0 if at_start else match.illegal_moves(seat),
            stand_in_moves=0 if at_start else match.stand_in_moves(seat),
        )
        reason = match.forfeit_reason(seat)
        if reason is not None and not at_start:
            status.forfeit_reason = reason.value
        bank = match.settings.time_control.time_bank if at_start else match.time_bank(seat)
        set_duration(status.time_bank_remaining, bank)
    out.seats_to_act.extend(to_act)
    if result is not None:
        _encode_outcome(result, out.outcome, result.forfeit_reasons)
        if match.end_time is not None:
            set_timestamp(out.end_time, match.end_time)


def end_state(reason: str) -> match_pb2.Match.State.ValueType:
    """Return the state of a match that ended for ``reason``: ``STATE_ABANDONED`` for
    ``"abandoned"``, else ``STATE_FINISHED``."""
    if reason == ABANDONED:
        return match_pb2.Match.STATE_ABANDONED
    return match_pb2.Match.STATE_FINISHED


def encode_stored_match(record: StoredMatch, out: match_pb2.Match) -> None:
    """Write the public state of a match from its stored record into the empty ``out``,
    as :func:`encode_match` writes it for the match held in memory, without decoding a
    move or calling the engine.

    The stored config is the ``MatchConfig`` :func:`encode_settings` wrote when the match
    was created (every default filled in), seed included: public once the match is over,
    left out before. An unfinished match (another node runs it) has no scores or seats to
    act in the store: they are left unset (match.proto: Match.node).

    Raises:
        ValueError: Its config is not a ``MatchConfig``.
    """
    result = record.result
    out.name = match_name(record.match_id)
    try:
        out.config.MergeFromString(record.config)
    except DecodeError as error:
        raise ValueError(f"match {record.match_id}: its config does not decode: {error}") from None
    set_timestamp(out.create_time, record.created_time)
    out.state = match_pb2.Match.STATE_ACTIVE if result is None else end_state(result.reason)
    out.state_version = record.state_version
    for seat in record.seats:
        status = out.seats.add(
            seat=seat.seat,
            display_name=seat.name,
            score=0 if result is None else result.scores[seat.seat],
            forfeited=seat.forfeit_reason is not None
            if result is None
            else result.forfeited[seat.seat],
            timeouts=seat.timeouts,
            illegal_moves=seat.illegal_moves,
            stand_in_moves=seat.stand_in_moves,
            forfeit_reason=seat.forfeit_reason or "",
        )
        set_duration(status.time_bank_remaining, seat.time_bank)
    if result is None:
        out.config.ClearField("seed")  # the engine seed predicts every hidden draw
        return
    reasons = [seat.forfeit_reason or "" for seat in record.seats]
    _encode_outcome(result, out.outcome, reasons)
    set_timestamp(out.end_time, result.end_time)


def encode_summary(match: Match | StoredMatch, out: match_pb2.Match) -> bool:
    """Write a held match (:func:`encode_match`), or the stored record of a finished one
    (:func:`encode_stored_match`), into ``out``: what GetMatch and ListMatches show.

    Returns:
        False when a stored record cannot be described (logged; ``out`` is partly
        written): the match is then treated as missing, like one whose log does not
        replay.
    """
    if isinstance(match, Match):
        encode_match(match, out)
        return True
    try:
        encode_stored_match(match, out)
    except ValueError as error:
        _logger.error("stored match not described", match=match.match_id, error=str(error))
        return False
    return True


def encode_decision(decision: PendingDecision, out: match_pb2.Decision) -> None:
    """Write a pending decision into ``out``."""
    out.seat = decision.seat
    set_timestamp(out.deadline_time, decision.deadline_time)
    set_duration(out.move_time_limit, decision.move_time_limit)
    set_duration(out.time_bank_remaining, decision.time_bank)


def encode_view(
    match: Match, state: Any, seat: Seat | None, *, with_history: bool, out: match_pb2.PlayerView
) -> None:
    """Write the view of ``state`` for ``seat`` (``None``: spectator) into the empty ``out``."""
    codec = codec_for_game(match.settings.game)
    codec.encode_view(match.rules.view(state, seat), seat, with_history=with_history, out=out)


_EVENT_TAG = field_tag(match_service_pb2.StreamMatchEventsResponse, "event")
_DECISION_REQUESTED_TAG = field_tag(match_pb2.MatchEvent, "decision_requested")
_MOVE_APPLIED_TAG = field_tag(match_pb2.MatchEvent, "move_applied")
_APPLIED_VIEW_TAG = field_tag(match_pb2.MoveApplied, "view")
_DECISION_VIEW_TAG = field_tag(match_pb2.DecisionRequested, "view")
_LEGAL_MOVES_FIELD = match_pb2.DecisionRequested.DESCRIPTOR.fields_by_name["legal_moves"].number


def _length_delimited(tag: bytes, payload: bytes) -> bytes:
    return tag + encode_varint(len(payload)) + payload


def _response_bytes(event: match_pb2.MatchEvent, tag: bytes = b"", payload: bytes = b"") -> bytes:
    """A ``StreamMatchEventsResponse`` holding ``event``, with ``payload`` (its ``kind``,
    serialized) appended under ``tag`` when given."""
    event_bytes = event.SerializeToString()
    if tag:
        event_bytes += _length_delimited(tag, payload)
    return _length_delimited(_EVENT_TAG, event_bytes)


class WireEncoders:
    """The wire encoders of one server (``service.wire``): one per game, made on first use
    by the game's ``GamePlugin.wire``.

    The servicer owns one and hands it to every :class:`EventEncoder` it makes; two
    servers in one process keep theirs apart. Each encoder's caches hold at most ``size``
    entries a table; ``size=0`` keeps nothing, with the same bytes.
    """

    DEFAULT_SIZE = 100_000

    def __init__(self, size: int = DEFAULT_SIZE) -> None:
        self._size = size
        self._encoders: dict[str, WireEncoder] = {}

    def for_game(self, game: str) -> WireEncoder:
        """Return this server's wire encoder of the game registered as ``game``."""
        try:
            return self._encoders[game]
        except KeyError:
            plugin = plugin_for(game)
            encoder = self._encoders[game] = plugin.wire(plugin.codec, self._size)
            return encoder


def encode_event(
    match: Match, entry: LogEntry, viewer: Seat | None, out: match_pb2.MatchEvent
) -> None:
    """Write the log entry ``entry`` as the ``MatchEvent`` ``viewer`` sees (``None``: a
    spectator) into the empty ``out``; a ``MoveApplied`` without its view."""
    out.state_version = entry.state_version
    set_timestamp(out.time, entry.time)
    if entry.kind is EventKind.MOVE_APPLIED:
        codec = codec_for_game(match.settings.game)
        _encode_applied(match, codec, entry, viewer, out.move_applied)
    elif entry.kind is EventKind.MATCH_STARTED:
        encode_match(match, out.match_started.match, at_start=True)
    elif entry.kind is EventKind.SEAT_FORFEITED:
        out.seat_forfeited.seat = entry.seat or 0
        out.seat_forfeited.reason = entry.reason or ""
    elif entry.result is not None:
        _encode_outcome(entry.result, out.match_finished.outcome, entry.result.forfeit_reasons)


def _encode_applied(
    match: Match,
    codec: GameCodec,
    entry: LogEntry,
    viewer: Seat | None,
    out: match_pb2.MoveApplied,
) -> None:
    """A ``MoveApplied`` without its view; another seat's hidden move is redacted while
    the match runs (RULES.md: it may be public once the match ends)."""
    redact = viewer != entry.seat and not match.finished
    out.seat = entry.seat or 0
    out.move.CopyFrom(codec.encode_move(entry.move, redact=redact))
    out.by_timeout_policy = entry.by_timeout
    set_duration(out.think_time, entry.think_time or 0.0)


class EventEncoder:
    """Encodes the stream items of one subscriber of one match, as ``viewer`` may see them.

    Every item goes out as the serialized ``StreamMatchEventsResponse``
    (:meth:`event_bytes`), assembled from serialized parts:

    - The view, the bulk of a ``MoveApplied``, is serialized once per state and spliced in.
      A seat's stream carries the view of one version twice in a row (in the
      ``MoveApplied`` that reaches it and in the ``DecisionRequested`` that follows), so
      the second is free.
    - A decision's legal moves are the wire encoder's entries appended to the rest, never
      parsed into messages to be serialized again. :meth:`prepare_decision` encodes them
      ahead of time, so that a stream can do it while the event before the decision is
      still being sent.

    Args:
        match: The match the items come from.
        viewer: The subscriber's seat, ``None`` for a spectator.
        wires: The server's wire encoders; without them the bytes are built afresh by
            an encoder that keeps nothing (the same bytes).
    """

    def __init__(
        self, match: Match, viewer: Seat | None, wires: WireEncoders | None = None
    ) -> None:
        self._match = match
        self._viewer = viewer
        self._codec = codec_for_game(match.settings.game)
        self._wire = (wires or WireEncoders(0)).for_game(match.settings.game)
        self._last_view: tuple[Any, bytes] | None = None
        self._prepared: tuple[int, bytes] | None = None

    async def stream(self, items: AsyncIterator[StreamItem]) -> AsyncGenerator[bytes, None]:
        """Yield the serialized ``StreamMatchEventsResponse`` of each of ``items``.

        When the item about to go out leaves the viewer's seat to decide (its decision
        is pending at the current version), its legal moves are encoded in a loop
        callback (:meth:`prepare_decision`), which runs while grpc sends that item: the
        decision is then ready when grpc asks for the next one.
        """
        loop = asyncio.get_running_loop()
        match, seat = self._match, self._viewer
        async for item in items:
            if item.decision is None and seat is not None:
                decision = match.pending_decision(seat)
                if decision is not None and item.state_version == match.state_version:
                    loop.call_soon(self.prepare_decision, decision)
            yield self.event_bytes(item)

    def prepare_decision(self, decision: PendingDecision) -> None:
        """Encode ``decision``'s legal moves now, if it is still pending (a loop callback)."""
        match = self._match
        if match.pending_decision(decision.seat) is not decision:
            return
        moves = match.legal_moves(decision.seat)
        entries = self._wire.legal_move_entries(moves, _LEGAL_MOVES_FIELD)
        self._prepared = (decision.decision_id, entries)

    def event_bytes(self, item: StreamItem) -> bytes:
        """Return the serialized ``StreamMatchEventsResponse`` of ``item``."""
        if item.decision is not None:
            return self._decision_bytes(item, item.decision)
        entry: LogEntry | None = item.entry
        if entry is None:
            raise ValueError("a stream item with neither a log entry nor a decision")
        match = self._match
        if entry.kind is not EventKind.MOVE_APPLIED:
            event = match_pb2.MatchEvent()
            encode_event(match, entry, self._viewer, event)
            return _response_bytes(event)
        event = match_pb2.MatchEvent(state_version=item.state_version)
        set_timestamp(event.time, entry.time)
        applied = match_pb2.MoveApplied()
        _encode_applied(match, self._codec, entry, self._viewer, applied)
        state = match.state_at(item.state_version)
        view = _length_delimited(_APPLIED_VIEW_TAG, self._view_bytes(state))
        return _response_bytes(event, _MOVE_APPLIED_TAG, applied.SerializeToString() + view)

    def _decision_bytes(self, item: StreamItem, decision: PendingDecision) -> bytes:
        # DecisionRequested: the decision, the viewer's view, the legal moves.
        prepared = self._prepared
        if prepared is not None and prepared[0] == decision.decision_id:
            entries = prepared[1]
        else:
            moves = self._match.legal_moves(decision.seat)
            entries = self._wire.legal_move_entries(moves, _LEGAL_MOVES_FIELD)
        self._prepared = None
        event = match_pb2.MatchEvent(state_version=item.state_version)
        set_timestamp(event.time, decision.started_time)
        requested = match_pb2.DecisionRequested()
        encode_decision(decision, requested.decision)
        body = (
            requested.SerializeToString()
            + _length_delimited(
                _DECISION_VIEW_TAG, self._view_bytes(self._match.state_at(item.state_version))
            )
            + entries
        )
        return _response_bytes(event, _DECISION_REQUESTED_TAG, body)

    def _view_bytes(self, state: Any) -> bytes:
        """The serialized ``PlayerView`` of ``state`` for the viewer."""
        # Engine states are immutable: the same state object means the same view.
        last = self._last_view
        if last is not None and last[0] is state:
            return last[1]
        viewer = self._viewer
        data = self._wire.view_bytes(self._match.rules.view(state, viewer), viewer)
        self._last_view = (state, data)
        return data
