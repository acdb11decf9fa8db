"""MatchManager: creation, stream fan-out and resume, deadline timers (real event loop)."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
from structlog.testing import capture_logs

from botarena.server.match import (
    Caller,
    EventKind,
    ForfeitReason,
    InvalidRequestError,
    MatchManager,
    MatchNotFoundError,
    MatchSettings,
    Policies,
    RequestIdConflictError,
    SeatTokenRequiredError,
    StateVersionAheadError,
    StreamItem,
    TimeControl,
    TimeoutPolicy,
    TooManyMatchesError,
)


def _manager(race_rules: Any, **options: Any) -> MatchManager:
    def games(name: str) -> Any:
        if name != "race":
            raise KeyError(name)
        return race_rules(target=4)

    return MatchManager(games=games, **options)


def _settings(seats: int = 2, limit: float = 5.0, **policies: Any) -> MatchSettings:
    return MatchSettings(
        game="race",
        seat_count=seats,
        seed=1,
        game_config=None,
        time_control=TimeControl(move_time_limit=limit),
        policies=Policies(**policies),
    )


def _show_up(manager: MatchManager, match_id: str, seats: int = 2) -> None:
    """Let every seat show up (what a seat's view or stream does): their clocks run."""
    for seat in range(seats):
        manager.settle(match_id, seat)


async def _collect(stream: Any, count: int) -> list[StreamItem]:
    items: list[StreamItem] = []
    async for item in stream:
        items.append(item)
        if len(items) == count:
            break
    return items


def test_create_checks_the_game_and_the_seat_count(race_rules: Any) -> None:
    async def scenario() -> None:
        manager = _manager(race_rules)
        with pytest.raises(InvalidRequestError) as unknown:
            manager.create(MatchSettings(game="chess", seat_count=2, seed=1, game_config=None))
        assert unknown.value.reason == "UNKNOWN_GAME"
        with pytest.raises(InvalidRequestError) as seats:
            manager.create(_settings(seats=5))
        assert seats.value.reason == "INVALID_SEAT_COUNT"
        manager.close()

    asyncio.run(scenario())


def test_create_with_a_repeated_request_id_returns_the_first_match(race_rules: Any) -> None:
    async def scenario() -> None:
        manager = _manager(race_rules)
        first, created = manager.create(_settings(), request_id="abc")
        again, created_again = manager.create(_settings(), request_id="abc")
        assert (created, created_again) == (True, False)
        assert again is first
        manager.close()

    asyncio.run(scenario())


def test_a_repeated_request_id_answers_only_its_caller_for_its_config(race_rules: Any) -> None:
    async def scenario() -> None:
        manager = _manager(race_rules)
        alice, bob = Caller("10.0.0.1"), Caller("10.0.0.2")
        first, _ = manager.create(_settings(), request_id="r" * 32, caller=alice, fingerprint="a")
        again, created = manager.create(
            _settings(), request_id="r" * 32, caller=alice, fingerprint="a"
        )
        assert (again, created) == (first, False)
        with pytest.raises(RequestIdConflictError) as other_caller:
            manager.create(_settings(), request_id="r" * 32, caller=bob, fingerprint="a")
        with pytest.raises(RequestIdConflictError):
            manager.create(_settings(), request_id="r" * 32, caller=alice, fingerprint="b")
        assert other_caller.value.reason == "REQUEST_ID_CONFLICT"
        assert other_caller.value.category.value == "ALREADY_EXISTS"
        assert len(manager.matches()) == 1
        manager.close()

    asyncio.run(scenario())


def test_a_callers_matches_count_until_they_finish(race_rules: Any) -> None:
    async def scenario() -> None:
        manager = _manager(race_rules, max_matches_per_caller=1)
        alice = Caller("10.0.0.1")
        match, _ = manager.create(_settings(), caller=alice)
        with pytest.raises(TooManyMatchesError):
            manager.create(_settings(), caller=alice)
        manager.create(_settings())  # the ladder's, in-process: not Alice's
        manager.resign(match.match_id, match.tokens[0])
        assert match.finished
        manager.create(_settings(), caller=alice)
        manager.close()

    asyncio.run(scenario())


def test_too_many_active_matches_are_refused(race_rules: Any) -> None:
    async def scenario() -> None:
        manager = _manager(race_rules, max_active_matches=1)
        manager.create(_settings())
        with pytest.raises(TooManyMatchesError):
            manager.create(_settings())
        manager.close()

    asyncio.run(scenario())


def test_missing_token_is_reported_before_an_unknown_match(race_rules: Any) -> None:
    async def scenario() -> None:
        manager = _manager(race_rules)
        with pytest.raises(SeatTokenRequiredError):
            manager.submit("nope", None, 1, expected_state_version=0)
        with pytest.raises(MatchNotFoundError):
            manager.submit("nope", "tok", 1, expected_state_version=0)

    asyncio.run(scenario())


def test_seat_stream_announces_its_decision_and_follows_moves(race_rules: Any) -> None:
    async def scenario() -> None:
        manager = _manager(race_rules)
        match, _ = manager.create(_settings())
        stream = manager.stream(match.match_id, 1, 0)
        first = await _collect(stream, 1)
        assert first[0].entry is not None
        assert first[0].entry.kind is EventKind.MATCH_STARTED
        manager.submit(match.match_id, match.tokens[0], 2, expected_state_version=0)
        items = await _collect(stream, 2)
        assert items[0].entry is not None
        assert items[0].entry.kind is EventKind.MOVE_APPLIED
        assert items[1].decision is not None
        assert (items[1].decision.seat, items[1].state_version) == (1, 1)
        assert list(match.legal_moves(1)) == [1, 2, 3]
        manager.close()

    asyncio.run(scenario())


def test_stream_resumes_without_gaps_or_repeats(race_rules: Any) -> None:
    async def scenario() -> None:
        manager = _manager(race_rules)
        match, _ = manager.create(_settings())
        for version in range(3):
            seat = match.seats_to_act()[0]
            manager.submit(match.match_id, match.tokens[seat], 1, expected_state_version=version)
        seen: list[int] = []
        async for item in manager.stream(match.match_id, None, 0):
            seen.append(item.state_version)
            if len(seen) == 2:
                break
        async for item in manager.stream(match.match_id, None, seen[-1]):
            seen.append(item.state_version)
            if item.state_version == match.state_version:
                break
        assert seen == [0, 1, 2, 3]
        manager.close()

    asyncio.run(scenario())


def test_stream_after_the_current_version_is_refused(race_rules: Any) -> None:
    async def scenario() -> None:
        manager = _manager(race_rules)
        match, _ = manager.create(_settings())
        with pytest.raises(StateVersionAheadError):
            await _collect(manager.stream(match.match_id, None, 5), 1)
        manager.close()

    asyncio.run(scenario())


def test_stream_of_a_finished_match_ends_after_match_finished(race_rules: Any) -> None:
    async def scenario() -> None:
        manager = _manager(race_rules)
        match, _ = manager.create(_settings())
        manager.resign(match.match_id, match.tokens[0])
        kinds = [
            item.entry.kind async for item in manager.stream(match.match_id, 1, 0) if item.entry
        ]
        assert kinds[-1] is EventKind.MATCH_FINISHED
        resumed = [item async for item in manager.stream(match.match_id, 1, match.state_version)]
        assert resumed == []

    asyncio.run(scenario())


def test_the_seed_is_logged_only_once_the_match_is_over(race_rules: Any) -> None:
    # The engine seed is secret while a match runs (DESIGN.md: Fair play); the server's
    # log is read by more people than the match's creator.
    async def scenario() -> None:
        manager = _manager(race_rules)
        settings = _settings()
        with capture_logs() as running:
            match, _ = manager.create(settings)
            _show_up(manager, match.match_id)
        assert any(log["event"] == "match created" for log in running)
        assert all("seed" not in log for log in running), running
        with capture_logs() as ended:
            manager.resign(match.match_id, match.tokens[0])
        (finished,) = [log for log in ended if log["event"] == "match finished"]
        assert finished["seed"] == settings.seed

    asyncio.run(scenario())


def test_deadline_timer_applies_the_policy_and_the_match_finishes(race_rules: Any) -> None:
    async def scenario() -> None:
        manager = _manager(race_rules)
        match, _ = manager.create(_settings(limit=0.02, on_timeout=TimeoutPolicy.DEFAULT_MOVE))
        _show_up(manager, match.match_id)
        kinds = [
            item.entry
            async for item in manager.stream(match.match_id, None, 0)
            if item.entry is not None
        ]
        assert kinds[-1].kind is EventKind.MATCH_FINISHED
        assert all(e.by_timeout for e in kinds if e.kind is EventKind.MOVE_APPLIED)
        assert match.finished

    asyncio.run(asyncio.wait_for(scenario(), 10))


def test_deadline_timer_forfeit_ends_a_two_seat_match(race_rules: Any) -> None:
    async def scenario() -> None:
        manager = _manager(race_rules)
        match, _ = manager.create(_settings(limit=0.02, on_timeout=TimeoutPolicy.FORFEIT))
        _show_up(manager, match.match_id)
        async for _ in manager.stream(match.match_id, None, 0):
            pass
        assert match.result is not None
        assert match.result.reason == "forfeit"
        assert manager.active_count == 0

    asyncio.run(asyncio.wait_for(scenario(), 10))


def test_a_resumed_seat_stream_announces_the_pending_decision_again(race_rules: Any) -> None:
    async def scenario() -> None:
        manager = _manager(race_rules)
        match, _ = manager.create(_settings())
        first = await _collect(manager.stream(match.match_id, 0, 0), 2)
        assert first[1].decision is not None
        again = await _collect(manager.stream(match.match_id, 0, 0), 2)
        assert again[1].decision is not None
        assert again[1].decision.decision_id == first[1].decision.decision_id
        manager.close()

    asyncio.run(scenario())


def test_close_ends_waiting_streams(race_rules: Any) -> None:
    async def scenario() -> None:
        manager = _manager(race_rules)
        match, _ = manager.create(_settings())

        async def drain() -> int:
            return len([item async for item in manager.stream(match.match_id, None, 0)])

        task = asyncio.create_task(drain())
        await asyncio.sleep(0.01)
        manager.close()
        assert await asyncio.wait_for(task, 1) == 1

    asyncio.run(scenario())


@pytest.mark.parametrize("limit", [60.0, 0.01], ids=["long-clock", "short-clock"])
def test_the_join_deadline_timer_abandons_a_match_nobody_joined(
    race_rules: Any, limit: float
) -> None:
    # Nobody showed up, so no clock ran: not even a short one makes a stand-in move.
    async def scenario() -> None:
        manager = _manager(race_rules)
        match, _ = manager.create(_settings(limit=limit, join_timeout=0.05))
        entries = [
            item.entry
            async for item in manager.stream(match.match_id, None, 0)
            if item.entry is not None
        ]
        assert [entry.kind for entry in entries] == [
            EventKind.MATCH_STARTED,
            EventKind.MATCH_FINISHED,
        ]
        assert match.result is not None
        assert match.result.abandoned
        assert manager.active_count == 0

    asyncio.run(asyncio.wait_for(scenario(), 10))


def test_a_seat_that_showed_up_wins_when_the_other_never_does(race_rules: Any) -> None:
    async def scenario() -> None:
        manager = _manager(race_rules)
        match, _ = manager.create(_settings(limit=60.0, join_timeout=0.05))
        async for _ in manager.stream(match.match_id, 1, 0):  # seat 1 shows up
            pass
        assert match.result is not None
        assert (match.result.reason, match.result.ranks) == ("forfeit", (2, 1))
        assert match.result.forfeit_reasons == ("absent", "")

    asyncio.run(asyncio.wait_for(scenario(), 10))


def test_the_timer_follows_a_clock_that_starts_when_a_seat_shows_up(race_rules: Any) -> None:
    # The timer is set for the join deadline at the creation; seat 0 (first to act) shows
    # up later with a short clock and sleeps: its stand-in comes from a re-armed timer,
    # long before the join deadline (which the wait_for bound does not reach).
    async def scenario() -> None:
        manager = _manager(race_rules)
        match, _ = manager.create(_settings(limit=0.05, join_timeout=30.0))
        spectator = manager.stream(match.match_id, None, 0)
        first = await _collect(spectator, 1)
        assert first[0].entry is not None
        assert first[0].entry.kind is EventKind.MATCH_STARTED
        await asyncio.sleep(0.1)
        manager.settle(match.match_id, 0)  # its view or stream: no new version
        assert match.state_version == 0
        (item,) = await _collect(spectator, 1)
        assert item.entry is not None
        assert (item.entry.kind, item.entry.seat, item.entry.by_timeout) == (
            EventKind.MOVE_APPLIED,
            0,
            True,
        )
        assert not match.finished  # seat 1 still has until the join deadline
        assert match.stand_in_moves(1) == 0
        manager.close()

    asyncio.run(asyncio.wait_for(scenario(), 10))


def test_a_seat_showing_up_through_its_stream_starts_its_clock(race_rules: Any) -> None:
    async def scenario() -> None:
        manager = _manager(race_rules)
        match, _ = manager.create(_settings(limit=0.05, join_timeout=30.0))
        await asyncio.sleep(0.1)
        stream = manager.stream(match.match_id, 0, 0)  # seat 0 shows up and sleeps
        items = await _collect(stream, 3)
        assert items[1].decision is not None
        entry = items[2].entry
        assert entry is not None
        assert (entry.kind, entry.seat, entry.by_timeout) == (EventKind.MOVE_APPLIED, 0, True)
        # Seat 1 never showed up: its decision waits for the join deadline, not a clock.
        assert match.seats_to_act() == (1,)
        assert match.next_deadline() == match.pending[1].deadline
        assert match.stand_in_moves(1) == 0
        manager.close()

    asyncio.run(asyncio.wait_for(scenario(), 10))


def test_resign_as_bot_exited_forfeits_with_that_reason(race_rules: Any) -> None:
    async def scenario() -> None:
        manager = _manager(race_rules)
        match, _ = manager.create(_settings())
        manager.resign(match.match_id, match.tokens[0], reason=ForfeitReason.BOT_EXITED)
        assert match.result is not None
        assert match.result.forfeit_reasons == ("bot_exited", "")
        manager.close()

    asyncio.run(scenario())


def test_admission_is_checked_early_except_for_a_request_id_already_answered(
    race_rules: Any,
) -> None:
    async def scenario() -> None:
        manager = _manager(race_rules, max_matches_per_caller=1)
        alice = Caller("10.0.0.1")
        manager.check_admission(alice)
        first, _ = manager.create(_settings(), request_id="r" * 32, caller=alice)
        with pytest.raises(TooManyMatchesError):
            manager.check_admission(alice)
        manager.check_admission(alice, "r" * 32)  # its repeat gets the first answer
        assert manager.create(_settings(), request_id="r" * 32, caller=alice) == (first, False)
        manager.close()

    asyncio.run(scenario())
