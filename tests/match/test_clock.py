"""The clock rules (``_clock.DecisionClock``), alone and as the match applies them.

Each rule is written once; these tests pin how every way a decision ends sets the bank
its seat keeps (match.proto: TimeControl, TIMEOUT_POLICY_DEFAULT_MOVE).
"""

from __future__ import annotations

from typing import Any

import pytest

from botarena.server.match import IllegalMoveRejectedError, TimeControl, TimeoutPolicy
from botarena.server.match._clock import DecisionClock, DecisionEnd, PendingDecision

NewMatch = Any

_CLOCK = DecisionClock(move_time_limit=1.0, increment=0.5)


def _decision(*, bank: float = 2.0, started_at: float = 100.0) -> PendingDecision:
    return _CLOCK.open(1, 0, 0, bank, started_at, 1.7e9)


def test_a_clock_takes_the_limit_and_increment_of_its_time_control() -> None:
    control = TimeControl(move_time_limit=3.0, time_bank=9.0, increment=0.25)
    assert DecisionClock.of(control) == DecisionClock(3.0, 0.25)


def test_a_decision_is_due_after_its_limit_and_bank() -> None:
    decision = _decision(bank=2.0, started_at=100.0)
    assert (decision.started_at, decision.deadline) == (100.0, 103.0)
    assert decision.deadline_time == 1.7e9 + 3.0
    assert (decision.move_time_limit, decision.time_bank) == (1.0, 2.0)


def test_a_decision_knows_the_wall_time_its_clock_started() -> None:
    decision = _decision(started_at=100.0)
    assert decision.started_time == pytest.approx(1.7e9)
    DecisionClock.start(decision, 120.0, 1.8e9)
    assert decision.started_time == pytest.approx(1.8e9)


def test_a_held_decision_waits_for_the_given_deadline() -> None:
    decision = _decision()
    DecisionClock.wait_until(decision, 130.0, 100.0, 1.7e9)
    assert (decision.deadline, decision.deadline_time) == (130.0, 1.7e9 + 30.0)
    # The time it was requested stays its start time: not the join deadline less the
    # limit and bank, which the encoder once took it for.
    assert decision.started_time == pytest.approx(1.7e9)


def test_starting_a_clock_gives_the_whole_limit_and_bank_from_now() -> None:
    decision = _decision(started_at=100.0)
    DecisionClock.start(decision, 120.0, 1.8e9)
    assert (decision.started_at, decision.deadline, decision.deadline_time) == (
        120.0,
        123.0,
        1.8e9 + 3.0,
    )


@pytest.mark.parametrize(
    ("think", "left"),
    [(0.5, 2.0), (1.0, 2.0), (2.5, 0.5), (3.0, 0.0), (9.0, 0.0)],
    ids=["within-limit", "at-limit", "overrun", "at-deadline", "past-deadline"],
)
def test_the_bank_drains_only_by_the_overrun(think: float, left: float) -> None:
    decision = _decision(bank=2.0, started_at=100.0)
    assert DecisionClock.bank_left(decision, 100.0 + think) == pytest.approx(left)


@pytest.mark.parametrize(
    ("end", "bank"),
    [
        (DecisionEnd.OWN_MOVE, 2.0 - 0.5 + 0.5),
        (DecisionEnd.STAND_IN, 2.0 - 0.5),
        (DecisionEnd.OUT_OF_TIME, 0.0),
    ],
    ids=["own-move-earns-the-increment", "stand-in-keeps-the-rest", "out-of-time-empties"],
)
def test_how_a_decision_ends_sets_the_bank_kept(end: DecisionEnd, bank: float) -> None:
    decision = _decision(bank=2.0, started_at=100.0)
    assert _CLOCK.bank_after(decision, 101.5, end) == pytest.approx(bank)


def test_an_illegal_move_stand_in_keeps_the_bank_minus_the_overrun(
    new_match: NewMatch, clock: Any
) -> None:
    # Regression: the illegal-move policy's stand-in must not empty the bank as a real
    # timeout does.
    match = new_match(
        limit=1.0,
        bank=2.0,
        increment=0.5,
        max_illegal_moves=2,
        on_timeout=TimeoutPolicy.DEFAULT_MOVE,
        present="all",
    )
    clock.advance(1.5)
    for _ in range(2):
        with pytest.raises(IllegalMoveRejectedError):
            match.submit("tok-0", 0, expected_state_version=0)
    assert match.events[1].by_timeout  # the stand-in was played
    assert match.seat_record(0).time_bank == pytest.approx(0.5 + 1.0)  # no increment
    assert match.time_bank(0) == pytest.approx(1.5)
    match.submit("tok-1", 1, expected_state_version=1)
    assert match.pending[0].deadline == pytest.approx(clock.now + 1.0 + 1.5)


def test_only_a_real_timeout_empties_the_bank_under_the_default_move_policy(
    new_match: NewMatch, clock: Any
) -> None:
    match = new_match(limit=1.0, bank=2.0, on_timeout=TimeoutPolicy.DEFAULT_MOVE, present="all")
    clock.advance(3.0)
    assert match.expire()
    assert match.events[1].by_timeout
    assert match.seat_record(0).time_bank == 0.0
    match.submit("tok-1", 1, expected_state_version=1)
    assert match.pending[0].deadline == pytest.approx(clock.now + 1.0)


def test_an_illegal_move_forfeit_empties_the_bank(new_match: NewMatch, clock: Any) -> None:
    match = new_match(
        seats=3, limit=1.0, bank=2.0, max_illegal_moves=1, on_timeout=TimeoutPolicy.FORFEIT
    )
    match.show_up(0)
    clock.advance(0.5)
    with pytest.raises(IllegalMoveRejectedError):
        match.submit("tok-0", 0, expected_state_version=0)
    assert match.is_forfeited(0)
    assert match.seat_record(0).time_bank == 0.0
