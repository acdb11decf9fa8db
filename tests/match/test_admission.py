"""Admission: the server-wide and per-caller limits and the creation rate (fake clock)."""

from __future__ import annotations

import pytest

from botarena.server.match import (
    Admission,
    AdmissionLimits,
    CallBudget,
    CallBudgetLimits,
    Caller,
    CreateRateLimitedError,
    RateLimitedError,
    TooManyMatchesError,
)

ALICE = Caller("10.0.0.1")
BOB = Caller("10.0.0.2")
ADMIN = Caller("admin", admin=True)


class FakeClock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


def _admission(
    active: int = 1000, per_caller: int = 0, per_minute: int = 0, reserved: int = 0, **options: int
) -> tuple[Admission, FakeClock]:
    clock = FakeClock()
    limits = AdmissionLimits(active, per_caller, per_minute, reserved)
    return Admission(limits, clock=clock, **options), clock


def _admit(admission: Admission, caller: Caller | None, match_id: str, active: int = 0) -> None:
    admission.check(caller, active)
    admission.admitted(match_id, caller)


@pytest.mark.parametrize("caller", [ALICE, ADMIN, None], ids=["caller", "admin", "in-process"])
def test_the_server_wide_limit_binds_every_caller(caller: Caller | None) -> None:
    admission, _ = _admission(active=3)
    admission.check(caller, 2)
    with pytest.raises(TooManyMatchesError) as refused:
        admission.check(caller, 3)
    assert refused.value.metadata == {"limit": "active_matches", "max": "3"}
    assert refused.value.retry_after


def test_a_caller_at_its_limit_is_refused_until_a_match_finishes() -> None:
    admission, _ = _admission(per_caller=2)
    _admit(admission, ALICE, "m1")
    _admit(admission, ALICE, "m2")
    with pytest.raises(TooManyMatchesError) as refused:
        admission.check(ALICE, 2)
    assert refused.value.metadata["limit"] == "active_matches_per_caller"
    admission.check(BOB, 2)  # another caller has its own count
    admission.finished("m1")
    admission.finished("m1")  # told twice: counted once
    admission.check(ALICE, 1)
    assert admission.active_of(ALICE) == 1


@pytest.mark.parametrize("caller", [ADMIN, None], ids=["admin", "in-process"])
def test_admin_and_in_process_creations_are_not_limited_per_caller(caller: Caller | None) -> None:
    admission, _ = _admission(per_caller=1, per_minute=10)
    for number in range(5):
        _admit(admission, caller, f"m{number}")


def test_the_rate_allows_a_tenth_of_a_minute_at_once_then_says_when_to_retry() -> None:
    admission, clock = _admission(per_minute=60)  # 1 a second, 6 at once
    for number in range(6):
        _admit(admission, ALICE, f"m{number}")
    with pytest.raises(CreateRateLimitedError) as refused:
        admission.check(ALICE, 0)
    assert refused.value.metadata == {"limit": "creates_per_minute", "max": "60"}
    assert refused.value.retry_after == pytest.approx(1.0)
    clock.now += 0.5
    with pytest.raises(CreateRateLimitedError) as again:
        admission.check(ALICE, 0)
    assert again.value.retry_after == pytest.approx(0.5)
    admission.check(BOB, 0)
    clock.now += 0.5
    _admit(admission, ALICE, "m6")


def test_refusals_spend_no_tokens() -> None:
    admission, _ = _admission(per_caller=1, per_minute=20)  # 2 at once
    _admit(admission, ALICE, "m1")
    for _ in range(10):
        with pytest.raises(TooManyMatchesError):
            admission.check(ALICE, 1)
    admission.finished("m1")
    _admit(admission, ALICE, "m2")


def test_zero_turns_a_per_caller_limit_off() -> None:
    admission, _ = _admission(per_caller=0, per_minute=0)
    for number in range(500):
        _admit(admission, ALICE, f"m{number}")


def test_rate_buckets_are_bounded_and_a_dropped_one_comes_back_full() -> None:
    admission, _ = _admission(per_minute=10, max_callers=2)  # 1 at once
    callers = [Caller(f"10.0.1.{number}") for number in range(5)]
    for number, caller in enumerate(callers):
        _admit(admission, caller, f"m{number}")
    assert admission.tracked_callers == 2
    _admit(admission, callers[0], "again")  # its bucket was dropped: full again
    with pytest.raises(CreateRateLimitedError):
        admission.check(callers[0], 0)


def test_request_ids_are_scoped_per_caller() -> None:
    assert ALICE.scoped("r" * 32) == ALICE.scoped("r" * 32)
    assert ALICE.scoped("r" * 32) != BOB.scoped("r" * 32)
    assert ALICE.scoped("r" * 32).endswith(":" + "r" * 32)
    assert "10.0.0.1" not in ALICE.scoped("r" * 32)


@pytest.mark.parametrize(
    "limits", [(0, 1, 1), (1, -1, 1), (1, 1, -1)], ids=["no-active", "per-caller", "rate"]
)
def test_limits_out_of_range_are_refused(limits: tuple[int, int, int]) -> None:
    with pytest.raises(ValueError, match="must"):
        AdmissionLimits(*limits)


def test_a_caller_that_retries_before_its_retry_after_has_its_refusals_held() -> None:
    admission, clock = _admission(per_caller=1)
    _admit(admission, ALICE, "m1")
    for expected_hold in (0.0, 5.0, 5.0):  # told to wait 5 s, it retries at once
        with pytest.raises(TooManyMatchesError):
            admission.check(ALICE, 1)
        assert admission.refusals.hold(ALICE.key) == expected_hold
    clock.now += 6.0  # it waited: its next refusal is answered at once
    with pytest.raises(TooManyMatchesError):
        admission.check(ALICE, 1)
    assert admission.refusals.hold(ALICE.key) == 0.0
    assert admission.refusals.hold(BOB.key) == 0.0


def test_a_rate_limited_caller_is_held_until_its_next_token_at_most() -> None:
    admission, _ = _admission(per_minute=600)  # 10 a second, 60 at once
    for number in range(60):
        _admit(admission, ALICE, f"m{number}")
    for _ in range(2):
        with pytest.raises(CreateRateLimitedError) as refused:
            admission.check(ALICE, 0)
    assert admission.refusals.hold(ALICE.key) == refused.value.retry_after == pytest.approx(0.1)


CAROL = Caller("10.0.0.3")


def test_the_reserve_is_left_to_the_ladder_and_the_admin_token() -> None:
    admission, _ = _admission(active=10, reserved=2)
    with pytest.raises(TooManyMatchesError) as refused:
        admission.check(ALICE, 8)
    assert refused.value.metadata == {"limit": "active_matches", "max": "10"}
    admission.check(ADMIN, 8)
    admission.check(None, 9)


def test_a_caller_over_its_fair_share_is_refused_while_another_waits() -> None:
    admission, _ = _admission(active=9, reserved=1)  # 8 for the callers
    for number in range(6):
        _admit(admission, ALICE, f"a{number}")
    _admit(admission, BOB, "b0")
    _admit(admission, BOB, "b1")
    with pytest.raises(TooManyMatchesError):  # full: Carol waits (share 8 // 3 = 2)
        admission.check(CAROL, 8)
    for number in range(3):  # Alice's matches end; she may not take the slots back
        admission.finished(f"a{number}")
    with pytest.raises(TooManyMatchesError) as refused:
        admission.check(ALICE, 5)
    assert refused.value.metadata == {"limit": "fair_share", "max": "2"}
    with pytest.raises(TooManyMatchesError):  # Bob holds his share: no more either
        admission.check(BOB, 5)
    _admit(admission, CAROL, "c0", active=5)
    _admit(admission, CAROL, "c1", active=6)  # her share reached: she waits no more
    admission.check(ALICE, 7)


def test_a_waiting_caller_is_forgotten_15_s_after_its_last_refusal() -> None:
    admission, clock = _admission(active=3, reserved=0)
    for number in range(3):
        _admit(admission, ALICE, f"a{number}")
    with pytest.raises(TooManyMatchesError):
        admission.check(BOB, 3)
    admission.finished("a0")
    with pytest.raises(TooManyMatchesError) as refused:
        admission.check(ALICE, 2)
    assert refused.value.metadata["limit"] == "fair_share"
    clock.now += 16.0  # Bob did not come back
    admission.check(ALICE, 2)


def _budget(**limits: float) -> tuple[CallBudget, FakeClock]:
    clock = FakeClock()
    return CallBudget(CallBudgetLimits(**limits), clock=clock), clock  # type: ignore[arg-type]


def test_a_call_budget_refuses_with_a_retry_of_1_s_at_least_and_holds_repeats_longer() -> None:
    budget, clock = _budget(units_per_second=10)  # 20 at once
    for _ in range(4):
        budget.charge("10.0.0.1", 5)
    with pytest.raises(RateLimitedError) as refused:
        budget.charge("10.0.0.1", 5)
    assert refused.value.metadata == {"limit": "call_budget", "max": "10"}
    assert refused.value.retry_after == 1.0  # 0.5 s would do: 1 s at least
    assert budget.refusals.hold("10.0.0.1") == 0.0
    for expected_hold in (1.0, 2.0, 4.0, 5.0):  # it did not wait: doubled, 5 s at most
        with pytest.raises(RateLimitedError):
            budget.charge("10.0.0.1", 5)
        assert budget.refusals.hold("10.0.0.1") == expected_hold
    budget.charge("10.0.0.2", 5)  # another caller
    clock.now += 1.0
    budget.charge("10.0.0.1", 5)


def test_a_call_above_the_burst_needs_a_full_bucket_and_leaves_it_in_debt() -> None:
    budget, clock = _budget(units_per_second=10)
    budget.charge("10.0.0.1", 50)  # a full bucket (20) pays; 30 in debt
    with pytest.raises(RateLimitedError) as refused:
        budget.charge("10.0.0.1", 1)
    assert refused.value.retry_after == pytest.approx(3.1)
    clock.now += 3.2
    budget.charge("10.0.0.1", 1)


def test_plays_have_their_own_budget_but_wait_while_rejected_calls_are_in_debt() -> None:
    budget, clock = _budget(units_per_second=1, play_units_per_second=100)  # 2 and 200
    budget.charge("10.0.0.1", 2)
    for _ in range(150):
        budget.charge("10.0.0.1", 1, play=True)
    with pytest.raises(RateLimitedError) as refused:
        budget.charge("10.0.0.1", 100, play=True)
    assert refused.value.metadata["limit"] == "play_budget"
    clock.now += 2.0
    budget.penalize("10.0.0.1", 100)  # rejected calls: in debt down to 10 s of rate
    with pytest.raises(RateLimitedError) as refused:
        budget.charge("10.0.0.1", 1, play=True)
    assert refused.value.metadata["limit"] == "call_budget"
    assert refused.value.retry_after == pytest.approx(10.0)


def test_registrations_have_an_hourly_rate_of_their_own() -> None:
    budget, _ = _budget(registrations_per_hour=40)  # 10 at once
    for _ in range(10):
        budget.charge_registration("10.0.0.1")
    with pytest.raises(RateLimitedError) as refused:
        budget.charge_registration("10.0.0.1")
    assert refused.value.metadata == {"limit": "registrations_per_hour", "max": "40"}
    assert refused.value.retry_after == pytest.approx(90.0)
    budget.charge("10.0.0.1", 1)  # the call budget is another


def test_zero_turns_a_call_budget_off() -> None:
    budget, _ = _budget(units_per_second=0, play_units_per_second=0, registrations_per_hour=0)
    for _ in range(1000):
        budget.charge("10.0.0.1", 100)
        budget.charge("10.0.0.1", 100, play=True)
        budget.charge_registration("10.0.0.1")
