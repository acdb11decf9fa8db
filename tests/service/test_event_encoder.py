"""The stream's events are assembled from serialized parts (views spliced, a decision's
legal moves appended as wire entries); each parses to exactly the message built field by
field with the codec."""

from __future__ import annotations

import asyncio

import pytest

from botarena.server.games import get_rules
from botarena.server.match import EventKind, MatchManager, MatchSettings, StreamItem
from botarena.server.service import PLUGINS, codec_for_game, plugin_for
from botarena.server.service._convert import (
    EventEncoder,
    WireEncoders,
    _encode_outcome,
    encode_decision,
    encode_match,
    encode_view,
)
from botarena.server.service.codecs import set_duration, set_timestamp
from botarena.server.service.wire import MessageWire
from botarena.v1 import match_pb2, match_service_pb2

GAME_SEATS = [(plugin.name, min(plugin.max_seats, 2 + n)) for n, plugin in enumerate(PLUGINS)]
"""Every game, each at another seat count (2, 3, 4, ...) where it allows."""


def _expected(
    manager: MatchManager, item: StreamItem
) -> match_service_pb2.StreamMatchEventsResponse:
    """The decision's response built from its parts, the legal moves as messages."""
    decision = item.decision
    assert decision is not None
    match = manager.matches()[0]
    response = match_service_pb2.StreamMatchEventsResponse()
    event = response.event
    event.state_version = item.state_version
    requested_at = decision.deadline_time - decision.move_time_limit - decision.time_bank
    set_timestamp(event.time, requested_at)
    requested = event.decision_requested
    encode_decision(decision, requested.decision)
    state = match.state_at(item.state_version)
    encode_view(match, state, decision.seat, with_history=False, out=requested.view)
    codec = codec_for_game(match.settings.game)
    requested.legal_moves.extend(codec.encode_moves(match.legal_moves(decision.seat)))
    return response


async def _decision_item(game: str, seats: int, moves: int) -> tuple[MatchManager, StreamItem]:
    """Play ``moves`` first legal moves, then return the next decision's stream item."""
    manager = MatchManager()
    rules = get_rules(game)
    settings = MatchSettings(
        game=game, seat_count=seats, seed=11, game_config=rules.default_config()
    )
    match, _ = manager.create(settings)
    for _ in range(moves):
        seat = match.seats_to_act()[0]
        manager.submit(
            match.match_id,
            match.tokens[seat],
            match.legal_moves(seat)[-1],
            expected_state_version=match.state_version,
        )
    seat = match.seats_to_act()[0]
    async for item in manager.stream(match.match_id, seat, match.state_version):
        if item.decision is not None:
            return manager, item
    raise AssertionError("no decision")


@pytest.mark.parametrize(("game", "seats"), GAME_SEATS)
@pytest.mark.parametrize("prepared", [False, True], ids=["on-demand", "prepared"])
@pytest.mark.parametrize("cached", [False, True], ids=["uncached", "cached"])
def test_decision_bytes_parse_to_the_decision_built_field_by_field(
    game: str, seats: int, prepared: bool, cached: bool
) -> None:
    async def scenario() -> None:
        manager, item = await _decision_item(game, seats, moves=6)
        assert item.decision is not None
        assert manager.matches()[0].legal_moves(item.decision.seat)
        caches = WireEncoders() if cached else None
        encoder = EventEncoder(manager.matches()[0], item.decision.seat, caches)
        if prepared:
            encoder.prepare_decision(item.decision)
        fast = match_service_pb2.StreamMatchEventsResponse.FromString(encoder.event_bytes(item))
        assert fast == _expected(manager, item)
        moves = manager.matches()[0].legal_moves(item.decision.seat)
        assert len(fast.event.decision_requested.legal_moves) == len(moves)
        manager.close()

    asyncio.run(scenario())


def test_a_prepared_decision_that_was_answered_meanwhile_is_not_used() -> None:
    async def scenario() -> None:
        manager, item = await _decision_item("qwirkle", 2, moves=2)
        match = manager.matches()[0]
        decision = item.decision
        assert decision is not None
        encoder = EventEncoder(match, decision.seat)
        manager.submit(
            match.match_id,
            match.tokens[decision.seat],
            match.legal_moves(decision.seat)[0],
            expected_state_version=item.state_version,
        )
        # The seat's decision is no longer pending: preparing it does nothing.
        encoder.prepare_decision(decision)
        assert encoder._prepared is None
        manager.close()

    asyncio.run(scenario())


def _expected_entry(
    manager: MatchManager, item: StreamItem, viewer: int | None
) -> match_service_pb2.StreamMatchEventsResponse:
    """A log entry's response built field by field."""
    entry = item.entry
    assert entry is not None
    match = manager.matches()[0]
    codec = codec_for_game(match.settings.game)
    response = match_service_pb2.StreamMatchEventsResponse()
    event = response.event
    event.state_version = item.state_version
    set_timestamp(event.time, entry.time)
    if entry.kind is EventKind.MATCH_STARTED:
        encode_match(match, event.match_started.match, at_start=True)
    elif entry.kind is EventKind.MOVE_APPLIED:
        applied = event.move_applied
        applied.seat = entry.seat or 0
        redact = viewer != entry.seat and not match.finished
        applied.move.CopyFrom(codec.encode_move(entry.move, redact=redact))
        applied.by_timeout_policy = entry.by_timeout
        set_duration(applied.think_time, entry.think_time or 0.0)
        state = match.state_at(item.state_version)
        encode_view(match, state, viewer, with_history=False, out=applied.view)
    elif entry.kind is EventKind.SEAT_FORFEITED:
        event.seat_forfeited.seat = entry.seat or 0
        event.seat_forfeited.reason = entry.reason or ""
    else:
        assert entry.result is not None
        _encode_outcome(entry.result, event.match_finished.outcome, entry.result.forfeit_reasons)
    return response


@pytest.mark.parametrize(("game", "seats"), GAME_SEATS)
@pytest.mark.parametrize("viewer", [None, 0, 1], ids=["spectator", "seat0", "seat1"])
@pytest.mark.parametrize("cached", [False, True], ids=["uncached", "cached"])
def test_every_log_entry_parses_to_the_event_built_field_by_field(
    game: str, seats: int, viewer: int | None, cached: bool
) -> None:
    async def scenario() -> None:
        manager, _ = await _decision_item(game, seats, moves=8)
        match = manager.matches()[0]
        match_id = match.match_id
        encoder = EventEncoder(match, viewer, WireEncoders() if cached else None)
        kinds = set()

        async def check_log() -> None:
            async for item in manager.stream(match_id, viewer, 0):
                if item.entry is None:  # the viewer's decision: the log is through
                    break
                kinds.add(item.entry.kind)
                fast = match_service_pb2.StreamMatchEventsResponse.FromString(
                    encoder.event_bytes(item)
                )
                assert fast == _expected_entry(manager, item, viewer)
                if item.state_version == match.state_version:
                    break

        await check_log()  # while it runs: other seats' moves may be redacted
        # Resignations end it: forfeits and the finish are in the log too.
        for seat in range(seats - 1):
            manager.resign(match_id, match.tokens[seat])
        assert match.finished
        await check_log()
        assert kinds == set(EventKind)
        manager.close()

    asyncio.run(scenario())


@pytest.mark.parametrize(("game", "seats"), GAME_SEATS)
def test_view_bytes_are_the_serialized_view_byte_for_byte(game: str, seats: int) -> None:
    async def scenario() -> None:
        manager, _ = await _decision_item(game, seats, moves=10)
        match = manager.matches()[0]
        codec = codec_for_game(game)
        wires = [plugin_for(game).wire(codec, size) for size in (0, 100)]
        for version in (0, 1, match.state_version):
            state = match.state_at(version)
            for viewer in (None, *range(seats)):
                view = match.rules.view(state, viewer)
                plain = match_pb2.PlayerView()
                codec.encode_view(view, viewer, with_history=False, out=plain)
                for wire in wires:
                    assert wire.view_bytes(view, viewer) == plain.SerializeToString()
        manager.close()

    asyncio.run(scenario())


def test_each_server_keeps_its_own_wire_encoders() -> None:
    first, second = WireEncoders(), WireEncoders()
    for plugin in PLUGINS:
        assert first.for_game(plugin.name) is first.for_game(plugin.name)
        assert first.for_game(plugin.name) is not second.for_game(plugin.name)
    assert isinstance(first.for_game("qwixx"), MessageWire)  # no faster one declared


def test_the_generic_wire_encoder_keeps_a_bounded_table_of_entries() -> None:
    codec = codec_for_game("qwixx")
    wire, nothing = MessageWire(codec, 3), MessageWire(codec, 0)
    state = get_rules("qwixx").new_match(get_rules("qwixx").default_config(), 2, 5)
    for seat in (0, 1):
        moves = get_rules("qwixx").legal_moves(state, seat)
        expected = b"".join(
            b"\x1a" + bytes([len(body)]) + body
            for body in (m.SerializeToString() for m in codec.encode_moves(moves))
        )
        assert wire.legal_move_entries(moves, 3) == expected
        assert nothing.legal_move_entries(moves, 3) == expected
        assert 0 < wire.table_sizes()["entries"] <= 3
    assert nothing.table_sizes()["entries"] == 0


def _prepared_id(encoder: EventEncoder) -> int | None:
    prepared = encoder._prepared
    return None if prepared is None else prepared[0]


def test_the_stream_prepares_a_decision_while_the_event_before_it_goes_out() -> None:
    async def scenario() -> None:
        manager, item = await _decision_item("qwirkle", 2, moves=3)
        match = manager.matches()[0]
        decision = item.decision
        assert decision is not None
        encoder = EventEncoder(match, decision.seat, WireEncoders())
        items = manager.stream(match.match_id, decision.seat, match.state_version - 1)
        stream = encoder.stream(items)
        applied = match_service_pb2.StreamMatchEventsResponse.FromString(await anext(stream))
        assert applied.event.WhichOneof("kind") == "move_applied"
        assert _prepared_id(encoder) is None
        await asyncio.sleep(0)  # the loop runs the callback (grpc sending the event)
        assert _prepared_id(encoder) == decision.decision_id
        requested = match_service_pb2.StreamMatchEventsResponse.FromString(await anext(stream))
        assert requested == _expected(manager, item)
        await stream.aclose()
        manager.close()

    asyncio.run(scenario())
