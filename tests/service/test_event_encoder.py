"""The stream's decision path: a decision serialized by hand, its legal moves appended as
wire entries, parses to exactly the message built field by field with the codec."""

from __future__ import annotations

import asyncio

import pytest

from botarena.server.games import get_rules
from botarena.server.match import MatchManager, MatchSettings, StreamItem
from botarena.server.service._convert import EventEncoder, encode_decision, encode_view
from botarena.server.service.codecs import codec_for_game, set_timestamp
from botarena.v1 import match_service_pb2


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
    encode_view(match, item.state, decision.seat, with_history=False, out=requested.view)
    codec = codec_for_game(match.settings.game)
    requested.legal_moves.extend(codec.encode_moves(item.legal_moves))
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


@pytest.mark.parametrize(("game", "seats"), [("qwirkle", 2), ("qwixx", 3), ("queendomino", 4)])
@pytest.mark.parametrize("prepared", [False, True], ids=["on-demand", "prepared"])
def test_decision_bytes_parse_to_the_decision_built_field_by_field(
    game: str, seats: int, prepared: bool
) -> None:
    async def scenario() -> None:
        manager, item = await _decision_item(game, seats, moves=6)
        assert item.decision is not None
        assert item.legal_moves
        encoder = EventEncoder(manager.matches()[0], item.decision.seat)
        if prepared:
            encoder.prepare_decision(item.decision)
        fast = match_service_pb2.StreamMatchEventsResponse.FromString(encoder.decision_bytes(item))
        assert fast == _expected(manager, item)
        assert len(fast.event.decision_requested.legal_moves) == len(item.legal_moves)
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
            item.legal_moves[0],
            expected_state_version=item.state_version,
        )
        # The seat's decision is no longer pending: preparing it does nothing.
        encoder.prepare_decision(decision)
        assert encoder._prepared is None
        manager.close()

    asyncio.run(scenario())
