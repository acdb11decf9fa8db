"""The Match aggregate on a fake clock: validation order, clocks, policies, forfeits, log.

Tests of clocks let their seats show up at the creation (``present="all"``): a seat's
clock starts when it shows up (test_fair_play.py has the rule itself).
"""

from __future__ import annotations

from typing import Any

import pytest

from botarena.server.match import (
    EventKind,
    IllegalMoveRejectedError,
    MatchError,
    MatchFinishedError,
    NotYourTurnError,
    SeatForfeitedError,
    SeatTokenInvalidError,
    SeatTokenRequiredError,
    StaleStateVersionError,
    TimeoutPolicy,
)

NewMatch = Any


def test_new_match_logs_match_started_at_version_zero_and_asks_the_first_seat(
    new_match: NewMatch,
) -> None:
    match = new_match()
    assert match.state_version == 0
    assert [entry.kind for entry in match.events] == [EventKind.MATCH_STARTED]
    assert match.seats_to_act() == (0,)
    assert match.pending[0].requested_version == 0


def test_submit_applies_the_move_and_logs_version_seat_and_think_time(
    new_match: NewMatch, clock: Any
) -> None:
    match = new_match(present="all")
    clock.advance(0.25)
    result = match.submit("tok-0", 3, expected_state_version=0)
    assert result.state_version == 1
    entry = match.events[1]
    assert (entry.kind, entry.seat, entry.move, entry.by_timeout) == (
        EventKind.MOVE_APPLIED,
        0,
        3,
        False,
    )
    assert entry.think_time == pytest.approx(0.25)
    assert match.seats_to_act() == (1,)
    assert match.pending[1].started_at == clock.now


@pytest.mark.parametrize(
    ("token", "error"),
    [(None, SeatTokenRequiredError), ("", SeatTokenRequiredError), ("nope", SeatTokenInvalidError)],
    ids=["none", "empty", "wrong"],
)
def test_submit_without_a_valid_token_is_refused(
    new_match: NewMatch, token: str | None, error: type[MatchError]
) -> None:
    match = new_match()
    with pytest.raises(error):
        match.submit(token, 1, expected_state_version=0)
    assert match.state_version == 0


def test_auth_is_checked_before_the_match_state(new_match: NewMatch) -> None:
    match = new_match()
    match.resign("tok-0")
    assert match.finished
    with pytest.raises(SeatTokenInvalidError):
        match.submit("nope", 1, expected_state_version=2)
    with pytest.raises(MatchFinishedError):
        match.submit("tok-1", 1, expected_state_version=2)


def test_out_of_turn_move_is_refused_before_the_version_is_checked(new_match: NewMatch) -> None:
    match = new_match()
    with pytest.raises(NotYourTurnError) as caught:
        match.submit("tok-1", 1, expected_state_version=99)
    assert caught.value.reason == "NOT_YOUR_TURN"


@pytest.mark.parametrize("expected", [-1, 1, 5], ids=["negative", "future", "far-future"])
def test_stale_or_future_version_is_refused(new_match: NewMatch, expected: int) -> None:
    match = new_match()
    with pytest.raises(StaleStateVersionError) as caught:
        match.submit("tok-0", 1, expected_state_version=expected)
    assert caught.value.metadata["state_version"] == "0"


def test_an_old_version_is_stale_after_the_seat_moved(new_match: NewMatch) -> None:
    match = new_match()
    match.submit("tok-0", 1, expected_state_version=0)
    match.submit("tok-1", 1, expected_state_version=1)
    with pytest.raises(StaleStateVersionError):
        match.submit("tok-0", 1, expected_state_version=0)


def test_repeated_request_id_returns_the_first_answer(new_match: NewMatch) -> None:
    match = new_match()
    first = match.submit("tok-0", 2, expected_state_version=0, request_id="r1")
    again = match.submit("tok-0", 3, expected_state_version=0, request_id="r1")
    assert again == first
    assert match.state_version == 1
    assert match.state.totals == (2, 0)


def test_repeated_request_id_repeats_the_first_error_without_a_new_strike(
    new_match: NewMatch,
) -> None:
    match = new_match(max_illegal_moves=2)
    with pytest.raises(IllegalMoveRejectedError):
        match.submit("tok-0", 9, expected_state_version=0, request_id="bad")
    with pytest.raises(IllegalMoveRejectedError):
        match.submit("tok-0", 9, expected_state_version=0, request_id="bad")
    assert match.pending[0].illegal_moves == 1


def test_request_ids_are_per_seat(new_match: NewMatch) -> None:
    match = new_match()
    match.submit("tok-0", 1, expected_state_version=0, request_id="same")
    result = match.submit("tok-1", 2, expected_state_version=1, request_id="same")
    assert result.state_version == 2


def test_illegal_move_is_rejected_with_the_engine_reason_and_the_seat_may_retry(
    new_match: NewMatch,
) -> None:
    match = new_match()
    with pytest.raises(IllegalMoveRejectedError) as caught:
        match.submit("tok-0", 7, expected_state_version=0)
    assert caught.value.reason == "BAD_STEP"
    assert caught.value.metadata["category"] == "ILLEGAL_MOVE"
    assert match.state_version == 0
    assert match.submit("tok-0", 1, expected_state_version=0).state_version == 1


def test_nth_illegal_move_plays_a_legal_stand_in_move(new_match: NewMatch) -> None:
    match = new_match(max_illegal_moves=3)
    for strike in (1, 2, 3):
        with pytest.raises(IllegalMoveRejectedError) as caught:
            match.submit("tok-0", 0, expected_state_version=0)
        assert caught.value.illegal_moves == strike
    assert caught.value.policy_applied
    entry = match.events[1]
    assert (entry.kind, entry.seat, entry.by_timeout) == (EventKind.MOVE_APPLIED, 0, True)
    assert entry.move in (1, 2, 3)
    assert match.state.totals == (entry.move, 0)
    assert match.stand_in_moves(0) == 1
    assert match.seats_to_act() == (1,)
    # The same match makes the same stand-in move: it is drawn from the seed, not chance.
    again = new_match(max_illegal_moves=1)
    with pytest.raises(IllegalMoveRejectedError):
        again.submit("tok-0", 0, expected_state_version=0)
    assert again.events[1].move == entry.move


def test_nth_illegal_move_forfeits_under_the_forfeit_policy(new_match: NewMatch) -> None:
    match = new_match(max_illegal_moves=1, on_timeout=TimeoutPolicy.FORFEIT)
    with pytest.raises(IllegalMoveRejectedError):
        match.submit("tok-0", 0, expected_state_version=0)
    assert match.is_forfeited(0)
    assert match.events[1].kind is EventKind.SEAT_FORFEITED
    assert match.events[1].reason == "illegal_moves"
    assert match.result is not None
    assert match.result.reason == "forfeit"
    assert match.result.ranks == (2, 1)


def test_illegal_moves_count_per_decision(new_match: NewMatch) -> None:
    match = new_match(max_illegal_moves=2)
    with pytest.raises(IllegalMoveRejectedError):
        match.submit("tok-0", 0, expected_state_version=0)
    match.submit("tok-0", 1, expected_state_version=0)
    match.submit("tok-1", 1, expected_state_version=1)
    with pytest.raises(IllegalMoveRejectedError) as caught:
        match.submit("tok-0", 0, expected_state_version=2)
    assert caught.value.illegal_moves == 1
    assert not caught.value.policy_applied


def test_timeout_plays_a_legal_stand_in_move(new_match: NewMatch, clock: Any) -> None:
    match = new_match(limit=1.0, present="all")
    clock.advance(0.99)
    assert not match.expire()
    clock.advance(0.01)
    assert match.expire()
    entry = match.events[1]
    assert (entry.seat, entry.by_timeout) == (0, True)
    assert entry.move in (1, 2, 3)
    assert match.state.totals == (entry.move, 0)
    assert entry.think_time == pytest.approx(1.0)
    assert (match.timeouts(0), match.stand_in_moves(0)) == (1, 1)
    assert match.seats_to_act() == (1,)


def test_timeout_forfeits_in_two_seats_and_the_match_ends_by_forfeit(
    new_match: NewMatch, clock: Any
) -> None:
    match = new_match(on_timeout=TimeoutPolicy.FORFEIT, present="all")
    clock.advance(1.0)
    match.expire()
    assert [e.kind for e in match.events] == [
        EventKind.MATCH_STARTED,
        EventKind.SEAT_FORFEITED,
        EventKind.MATCH_FINISHED,
    ]
    assert match.events[1].reason == "timeout"
    assert match.result is not None
    assert (match.result.ranks, match.result.forfeited) == ((2, 1), (True, False))


def test_a_late_move_loses_to_its_own_timeout(new_match: NewMatch, clock: Any) -> None:
    match = new_match(present="all")
    clock.advance(1.5)
    with pytest.raises(NotYourTurnError):
        match.submit("tok-0", 3, expected_state_version=0)
    assert match.events[1].by_timeout


def test_forfeited_seat_ranks_last_even_with_the_best_score(
    new_match: NewMatch, clock: Any
) -> None:
    match = new_match(seats=3, target=6)
    match.submit("tok-0", 3, expected_state_version=0)
    match.resign("tok-0")
    assert match.is_forfeited(0)
    assert not match.finished
    with pytest.raises(SeatForfeitedError):
        match.submit("tok-0", 1, expected_state_version=match.state_version)
    # Seat 0's turns are played for it (the race engine cannot drop a seat) and it
    # reaches the target first; it still ranks after the seats that did not forfeit.
    while not match.finished:
        seat = match.seats_to_act()[0]
        match.submit(f"tok-{seat}", 1, expected_state_version=match.state_version)
    assert match.result is not None
    assert match.result.scores[0] == max(match.result.scores)
    assert match.result.ranks[0] == 3
    assert match.result.forfeited == (True, False, False)
    stand_ins = [e for e in match.events if e.kind is EventKind.MOVE_APPLIED and e.seat == 0]
    assert all(e.by_timeout for e in stand_ins[1:])


def test_forfeited_seats_rank_by_elimination_order(new_match: NewMatch) -> None:
    match = new_match(seats=4)
    match.resign("tok-2")
    match.resign("tok-0")
    match.resign("tok-3")
    assert match.result is not None
    assert match.result.reason == "forfeit"
    assert match.result.ranks == (3, 1, 4, 2)


def test_resign_after_the_end_is_refused(new_match: NewMatch) -> None:
    match = new_match()
    match.resign("tok-1")
    with pytest.raises(MatchFinishedError):
        match.resign("tok-0")


def test_time_bank_pays_for_overrun_and_increment_is_added(new_match: NewMatch, clock: Any) -> None:
    match = new_match(limit=1.0, bank=2.0, increment=0.5, present="all")
    assert match.pending[0].deadline == pytest.approx(clock.now + 3.0)
    clock.advance(2.5)
    assert match.time_bank(0) == pytest.approx(0.5)
    match.submit("tok-0", 1, expected_state_version=0)
    assert match.time_bank(0) == pytest.approx(2.0 - 1.5 + 0.5)
    match.submit("tok-1", 1, expected_state_version=1)
    assert match.pending[0].deadline == pytest.approx(clock.now + 1.0 + 1.0)


def test_a_move_within_the_limit_keeps_the_bank_and_earns_the_increment(
    new_match: NewMatch, clock: Any
) -> None:
    match = new_match(limit=1.0, bank=2.0, increment=0.25, present="all")
    clock.advance(0.5)
    match.submit("tok-0", 1, expected_state_version=0)
    assert match.time_bank(0) == pytest.approx(2.25)


def test_time_bank_runs_out_then_the_policy_applies(new_match: NewMatch, clock: Any) -> None:
    match = new_match(limit=1.0, bank=2.0, present="all")
    clock.advance(2.999)
    assert not match.expire()
    clock.advance(0.001)
    assert match.expire()
    assert match.events[1].by_timeout
    assert match.time_bank(0) == 0.0


def test_simultaneous_decisions_are_all_pending_and_apply_together(new_match: NewMatch) -> None:
    match = new_match(seats=3, simultaneous=True)
    assert match.seats_to_act() == (0, 1, 2)
    decisions = dict(match.pending)
    match.submit("tok-1", 2, expected_state_version=0)
    assert match.seats_to_act() == (0, 2)
    # The other seats' decisions go on: same decision, same deadline, and a move chosen
    # at the version they were requested at is not stale.
    assert match.pending[0] is decisions[0]
    match.submit("tok-0", 3, expected_state_version=0)
    match.submit("tok-2", 1, expected_state_version=1)
    assert match.state.totals == (3, 2, 1)
    assert match.seats_to_act() == (0, 1, 2)
    assert all(d.requested_version == 3 for d in match.pending.values())


def test_simultaneous_seat_cannot_move_twice(new_match: NewMatch) -> None:
    match = new_match(seats=2, simultaneous=True)
    match.submit("tok-0", 1, expected_state_version=0)
    with pytest.raises(NotYourTurnError):
        match.submit("tok-0", 1, expected_state_version=1)


def test_simultaneous_timeouts_settle_every_overdue_seat(new_match: NewMatch, clock: Any) -> None:
    match = new_match(seats=3, simultaneous=True, present="all")
    match.submit("tok-1", 2, expected_state_version=0)
    clock.advance(1.0)
    match.expire()
    stand_ins = match.events[2:4]
    assert [(e.seat, e.by_timeout) for e in stand_ins] == [(0, True), (2, True)]
    assert all(e.move in (1, 2, 3) for e in stand_ins)
    assert match.state.totals == (stand_ins[0].move, 2, stand_ins[1].move)
    assert match.seats_to_act() == (0, 1, 2)  # the round was applied: a new one starts


def test_move_after_the_end_is_refused(new_match: NewMatch) -> None:
    match = new_match(target=3)
    match.submit("tok-0", 3, expected_state_version=0)
    assert match.finished
    assert match.events[-1].kind is EventKind.MATCH_FINISHED
    assert match.result is not None
    assert match.result.reason == "reached_target"
    assert match.pending == {}
    with pytest.raises(MatchFinishedError):
        match.submit("tok-1", 1, expected_state_version=match.state_version)


def test_the_log_versions_are_consecutive_and_states_are_kept_per_version(
    new_match: NewMatch,
) -> None:
    match = new_match(target=4)
    while not match.finished:
        seat = match.seats_to_act()[0]
        match.submit(f"tok-{seat}", 2, expected_state_version=match.state_version)
    assert [e.state_version for e in match.events] == list(range(len(match.events)))
    assert match.state_at(1).totals == (2, 0)
    assert match.state_at(match.state_version) is match.state
