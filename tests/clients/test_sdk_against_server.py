# mypy: disable-error-code="import-untyped"
"""MatchClient and AsyncMatchClient against a real in-process server: each RPC, each
refusal mapped to its exception and reason, idempotent retries, resumable streams."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Iterator
from types import SimpleNamespace

import grpc
import pytest

from botarena.clients import (
    AsyncMatchClient,
    AuthenticationError,
    BotarenaError,
    IllegalMoveError,
    InvalidRequestError,
    MatchClient,
    MatchFinishedError,
    MatchNotFoundError,
    NotYourTurnError,
    PermissionDeniedError,
    StaleStateError,
    StateVersionAheadError,
    UnavailableError,
)
from botarena.clients.testing import start_server, start_server_async
from botarena.v1 import match_pb2, match_service_pb2


def pass_move() -> match_pb2.Move:
    move = match_pb2.Move()
    # `pass` is a Python keyword: the field is reachable by name only.
    getattr(move.qwirkle, "pass").SetInParent()
    return move


@pytest.fixture(scope="module")
def address() -> Iterator[str]:
    with start_server() as served:
        yield served


@pytest.fixture
def client(address: str) -> Iterator[MatchClient]:
    with MatchClient(target=address, timeout=10) as spectator:
        yield spectator


def new_match(client: MatchClient, sdk_tools: SimpleNamespace, seed: int = 3) -> SimpleNamespace:
    """Create a match; return its name, tokens and the seat to act with its client."""
    created = client.create_match(sdk_tools.qwirkle_config(seed=seed))
    name = created.match.name
    tokens = [seat.token for seat in created.seat_tokens]
    first = client.get_player_view(name).seats_to_act[0]
    return SimpleNamespace(
        name=name,
        config=created.match.config,
        tokens=tokens,
        mover=client.with_token(tokens[first]),
        waiter=client.with_token(tokens[1 - first]),
    )


def best_move(view: match_service_pb2.GetPlayerViewResponse) -> match_pb2.Move:
    moves = list(view.legal_moves)
    return max(moves, key=lambda move: move.qwirkle.place.score)


def test_create_get_list_and_view_return_the_generated_messages(
    client: MatchClient, sdk_tools: SimpleNamespace
) -> None:
    match = new_match(client, sdk_tools, seed=21)
    fetched = client.get_match(match.name).match
    assert fetched.name == match.name
    assert match.config.seed == 21  # the creator's answer; secret to everyone else
    assert not fetched.config.HasField("seed")
    assert fetched.state == match_pb2.Match.STATE_ACTIVE
    listed = client.list_matches(page_size=500, game=match_pb2.GAME_QWIRKLE)
    assert match.name in [m.name for m in listed.matches]
    own = match.mover.get_player_view(match.name)
    assert own.decision.seat == own.view.seat
    assert own.legal_moves
    assert len(own.view.qwirkle.rack) == 6
    spectator = client.get_player_view(match.name)
    assert not spectator.view.HasField("seat")
    assert not spectator.view.qwirkle.rack


def test_submit_applies_a_move_and_returns_its_score(
    client: MatchClient, sdk_tools: SimpleNamespace
) -> None:
    match = new_match(client, sdk_tools)
    view = match.mover.get_player_view(match.name)
    move = best_move(view)
    applied = match.mover.submit_move(match.name, move, expected_state_version=view.state_version)
    assert applied.state_version == view.state_version + 1
    assert applied.applied_move.qwirkle.place.score == move.qwirkle.place.score


def test_a_retry_with_the_same_request_id_returns_the_first_answer_and_applies_once(
    client: MatchClient, sdk_tools: SimpleNamespace
) -> None:
    match = new_match(client, sdk_tools)
    view = match.mover.get_player_view(match.name)
    move = best_move(view)
    version = view.state_version
    first = match.mover.submit_move(
        match.name, move, expected_state_version=version, request_id="retry-me"
    )
    again = match.mover.submit_move(
        match.name, move, expected_state_version=version, request_id="retry-me"
    )
    assert again == first
    assert client.get_match(match.name).match.state_version == first.state_version


def test_an_illegal_move_raises_illegal_move_error_with_the_engine_reason(
    client: MatchClient, sdk_tools: SimpleNamespace
) -> None:
    match = new_match(client, sdk_tools)
    view = match.mover.get_player_view(match.name)
    passing = pass_move()
    with pytest.raises(IllegalMoveError) as caught:
        match.mover.submit_move(match.name, passing, expected_state_version=view.state_version)
    assert caught.value.code == grpc.StatusCode.FAILED_PRECONDITION
    assert caught.value.reason == "PASS_NOT_ALLOWED"
    assert caught.value.illegal_moves == 1
    assert not caught.value.policy_applied


def test_the_waiting_seat_gets_not_your_turn(
    client: MatchClient, sdk_tools: SimpleNamespace
) -> None:
    match = new_match(client, sdk_tools)
    view = match.mover.get_player_view(match.name)
    with pytest.raises(NotYourTurnError) as caught:
        match.waiter.submit_move(
            match.name, best_move(view), expected_state_version=view.state_version
        )
    assert caught.value.reason == "NOT_YOUR_TURN"


def test_an_old_state_version_gets_stale_state(
    client: MatchClient, sdk_tools: SimpleNamespace
) -> None:
    match = new_match(client, sdk_tools)
    view = match.mover.get_player_view(match.name)
    with pytest.raises(StaleStateError) as caught:
        match.mover.submit_move(
            match.name, best_move(view), expected_state_version=view.state_version + 5
        )
    assert (caught.value.code, caught.value.reason) == (
        grpc.StatusCode.ABORTED,
        "STALE_STATE_VERSION",
    )


@pytest.mark.parametrize(
    ("token", "expected", "reason"),
    [
        (None, AuthenticationError, "SEAT_TOKEN_REQUIRED"),
        ("not-a-seat-token", PermissionDeniedError, "SEAT_TOKEN_INVALID"),
    ],
    ids=["no-token", "foreign-token"],
)
def test_submitting_without_a_seat_token_is_refused(
    client: MatchClient,
    sdk_tools: SimpleNamespace,
    token: str | None,
    expected: type[BotarenaError],
    reason: str,
) -> None:
    match = new_match(client, sdk_tools)
    view = match.mover.get_player_view(match.name)
    with pytest.raises(expected) as caught:
        client.with_token(token).submit_move(
            match.name, best_move(view), expected_state_version=view.state_version
        )
    assert caught.value.reason == reason


def test_an_unknown_match_raises_match_not_found(client: MatchClient) -> None:
    with pytest.raises(MatchNotFoundError) as caught:
        client.get_match("matches/0000000000000000")
    assert caught.value.reason == "MATCH_NOT_FOUND"


def test_a_malformed_name_raises_invalid_request_naming_the_field(client: MatchClient) -> None:
    with pytest.raises(InvalidRequestError) as caught:
        client.get_match("not a name")
    assert caught.value.reason == "MALFORMED_REQUEST"
    assert "name" in caught.value.field_violations


def test_a_bad_seat_count_raises_invalid_request(
    client: MatchClient, sdk_tools: SimpleNamespace
) -> None:
    with pytest.raises(InvalidRequestError) as caught:
        client.create_match(sdk_tools.qwirkle_config(seats=9))
    assert caught.value.reason == "INVALID_SEAT_COUNT"


def test_moving_after_a_resignation_ends_the_match_raises_match_finished(
    client: MatchClient, sdk_tools: SimpleNamespace
) -> None:
    match = new_match(client, sdk_tools)
    view = match.mover.get_player_view(match.name)
    match.waiter.resign_match(match.name)
    assert client.get_match(match.name).match.state == match_pb2.Match.STATE_FINISHED
    with pytest.raises(MatchFinishedError) as caught:
        match.mover.submit_move(
            match.name, best_move(view), expected_state_version=view.state_version + 1
        )
    assert caught.value.reason == "MATCH_FINISHED"


def test_a_stream_resumed_after_the_last_version_seen_has_no_gaps_or_repeats(
    client: MatchClient, sdk_tools: SimpleNamespace
) -> None:
    match = new_match(client, sdk_tools)
    for _ in range(4):
        seat = client.get_player_view(match.name).seats_to_act[0]
        player = client.with_token(match.tokens[seat])
        view = player.get_player_view(match.name)
        player.submit_move(match.name, best_move(view), expected_state_version=view.state_version)
    first = []
    events = client.stream_match_events(match.name)
    for event in events:
        first.append(event.state_version)
        if len(first) == 2:
            break
    events.close()  # cancels the call, as a dropped connection would end it
    rest = []
    with contextlib.closing(
        client.stream_match_events(match.name, after_state_version=first[-1])
    ) as resumed:
        for event in resumed:
            rest.append(event.state_version)
            if event.state_version == 4:
                break
    assert first + rest == [0, 1, 2, 3, 4]


def test_resuming_after_a_future_version_raises_state_version_ahead(
    client: MatchClient, sdk_tools: SimpleNamespace
) -> None:
    match = new_match(client, sdk_tools)
    with pytest.raises(StateVersionAheadError) as caught:
        next(iter(client.stream_match_events(match.name, after_state_version=99)))
    assert caught.value.reason == "STATE_VERSION_AHEAD"


def test_no_server_raises_a_retryable_unavailable_error() -> None:
    with (
        start_server() as address,
        MatchClient(target=address, timeout=5) as client,
    ):
        pass  # the server is gone now, its port closed
    with (
        MatchClient(target=address, timeout=5) as client,
        pytest.raises(UnavailableError) as caught,
    ):
        client.get_match("matches/0000000000000000")
    assert caught.value.retryable


def test_the_async_client_plays_and_maps_errors_like_the_sync_one(
    sdk_tools: SimpleNamespace,
) -> None:
    async def scenario() -> None:
        async with (
            start_server_async() as address,
            AsyncMatchClient(target=address, timeout=10) as client,
        ):
            created = await client.create_match(sdk_tools.qwirkle_config(seed=8))
            name = created.match.name
            seat = (await client.get_player_view(name)).seats_to_act[0]
            player = client.with_token(created.seat_tokens[seat].token)
            view = await player.get_player_view(name)
            move = best_move(view)
            applied = await player.submit_move(
                name, move, expected_state_version=view.state_version
            )
            assert applied.state_version == 1
            other = client.with_token(created.seat_tokens[1 - seat].token)
            with pytest.raises(StaleStateError):
                await other.submit_move(name, move, expected_state_version=0)
            kinds = []
            async with contextlib.aclosing(client.stream_match_events(name)) as events:
                async for event in events:
                    kinds.append(event.WhichOneof("kind"))
                    if event.state_version == 1:
                        break
            assert kinds == ["match_started", "move_applied"]
            with pytest.raises(MatchNotFoundError):
                await client.get_match("matches/0000000000000000")

    asyncio.run(scenario())
