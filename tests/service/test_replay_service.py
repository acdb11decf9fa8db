# mypy: disable-error-code="import-untyped"
"""Replays: what ``encode_replay`` builds from a finished match, and ``GetReplay``."""

from __future__ import annotations

import asyncio
import random
from typing import Any

import grpc
import pytest

from botarena.server.games import get_rules
from botarena.server.match import Match, MatchManager, MatchNotFinishedError, MatchSettings
from botarena.server.service import PLUGINS, codec_for_game
from botarena.server.service._replays import REPLAY_FORMAT_VERSION, encode_replay
from botarena.v1 import match_pb2, match_service_pb2

GAME_SEATS = [(plugin.name, min(plugin.max_seats, 2 + n)) for n, plugin in enumerate(PLUGINS)]


def _played(manager: MatchManager, game: str, seats: int, seed: int = 5) -> Match:
    """A match of ``game`` played to its end with random legal moves."""
    rules = get_rules(game)
    settings = MatchSettings(
        game=game, seat_count=seats, seed=seed, game_config=rules.default_config()
    )
    match, _ = manager.create(settings)
    rng = random.Random(seed)
    while not match.finished:
        seat = match.seats_to_act()[0]
        manager.submit(
            match.match_id,
            match.tokens[seat],
            rng.choice(match.legal_moves(seat)),
            expected_state_version=match.state_version,
        )
    return match


@pytest.mark.parametrize(("game", "seats"), GAME_SEATS)
def test_a_replay_holds_every_event_and_every_view_after_it(game: str, seats: int) -> None:
    async def scenario() -> None:
        manager = MatchManager()
        match = _played(manager, game, seats)
        replay = match_pb2.Replay()
        encode_replay(match, replay)
        codec = codec_for_game(game)
        assert replay.format_version == REPLAY_FORMAT_VERSION
        assert replay.match.config.seed == match.settings.seed  # public after the end
        assert replay.match.state == match_pb2.Match.STATE_FINISHED
        assert [step.event.state_version for step in replay.steps] == list(
            range(match.state_version + 1)
        )
        assert replay.steps[0].event.WhichOneof("kind") == "match_started"
        assert replay.steps[-1].event.WhichOneof("kind") == "match_finished"
        for step, entry in zip(replay.steps, match.events, strict=True):
            state = match.state_at(entry.state_version)
            assert len(step.seat_views) == seats
            for viewer, view in [(None, step.spectator_view), *enumerate(step.seat_views)]:
                expected = match_pb2.PlayerView()
                codec.encode_view(
                    match.rules.view(state, viewer), viewer, with_history=False, out=expected
                )
                assert view == expected
            if step.event.WhichOneof("kind") == "move_applied":
                applied = step.event.move_applied
                assert not applied.HasField("view")  # the step's spectator_view is it
                assert applied.move == codec.encode_move(entry.move, redact=False)
        manager.close()

    asyncio.run(scenario())


def test_a_qwirkle_replay_shows_what_each_seat_held() -> None:
    async def scenario() -> None:
        manager = MatchManager()
        match = _played(manager, "qwirkle", 3)
        replay = match_pb2.Replay()
        encode_replay(match, replay)
        first = replay.steps[0]
        assert not first.spectator_view.qwirkle.rack  # a spectator sees no rack
        for seat, view in enumerate(first.seat_views):
            assert view.seat == seat
            assert len(view.qwirkle.rack) == 6
        manager.close()

    asyncio.run(scenario())


def test_a_queendomino_replay_reveals_the_order_of_both_piles() -> None:
    async def scenario() -> None:
        manager = MatchManager()
        match = _played(manager, "queendomino", 2)
        replay = match_pb2.Replay()
        encode_replay(match, replay)
        initial: Any = match.state_at(0)
        assert replay.WhichOneof("game_secrets") == "queendomino"
        assert list(replay.queendomino.deck) == [domino.number for domino in initial.deck]
        assert list(replay.queendomino.pile) == [building.id for building in initial.pile]
        assert len(set(replay.queendomino.deck)) == len(replay.queendomino.deck) > 0
        manager.close()

    asyncio.run(scenario())


def test_games_with_no_secret_beyond_the_views_leave_the_secrets_unset() -> None:
    async def scenario() -> None:
        manager = MatchManager()
        for game in ("qwirkle", "qwixx"):
            replay = match_pb2.Replay()
            encode_replay(_played(manager, game, 2), replay)
            assert replay.WhichOneof("game_secrets") is None
        manager.close()

    asyncio.run(scenario())


def test_a_running_match_has_no_replay_yet() -> None:
    async def scenario() -> None:
        manager = MatchManager()
        rules = get_rules("qwixx")
        match, _ = manager.create(
            MatchSettings(game="qwixx", seat_count=2, seed=3, game_config=rules.default_config())
        )
        with pytest.raises(MatchNotFinishedError, match="still running"):
            encode_replay(match, match_pb2.Replay())
        manager.close()

    asyncio.run(scenario())


def test_get_replay_serves_anyone_after_the_end_and_nobody_before(
    serve: Any, client_tools: Any
) -> None:
    async def scenario(client: Any) -> None:
        created = await client.create(seats=2, seed=9)
        name = created.match.name
        request = match_service_pb2.GetReplayRequest(name=name)
        early = await client.failure(client.stub.GetReplay(request))
        assert (early.code, early.reason) == (
            grpc.StatusCode.FAILED_PRECONDITION,
            "MATCH_NOT_FINISHED",
        )
        await asyncio.gather(
            *(client_tools.play_seat(client, name, seat.token) for seat in created.seat_tokens)
        )
        # A spectator (no token) gets every seat's rack and the seed.
        response = await client.stub.GetReplay(request)
        replay = response.replay
        assert replay.match.config.seed == 9
        assert replay.match.state == match_pb2.Match.STATE_FINISHED
        assert len(replay.steps) == replay.match.state_version + 1
        assert all(len(step.seat_views[0].qwirkle.rack) <= 6 for step in replay.steps)
        assert replay.steps[0].seat_views[1].qwirkle.rack
        missing = await client.failure(
            client.stub.GetReplay(
                match_service_pb2.GetReplayRequest(name="matches/0123456789abcdef")
            )
        )
        assert (missing.code, missing.reason) == (grpc.StatusCode.NOT_FOUND, "MATCH_NOT_FOUND")

    serve(scenario)
