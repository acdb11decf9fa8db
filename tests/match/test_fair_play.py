"""Fair play (issue 14): weak, reproducible stand-in moves; forfeits of absent seats.

On the race test game (conftest) with a fake clock: the stand-in is a uniformly random
legal move drawn from (seed, state version, seat); ``max_stand_ins_in_a_row`` stand-ins in
a row forfeit a seat as ``absent``, and so does not showing up within ``join_timeout``; a
match nobody joined, or whose last playing seats left as absent while every seat left let
the server move for it, ends ``abandoned``. A seat that has not shown up has no clock: its
decisions wait for the join deadline, with no stand-in before it, and showing up starts a
full clock (``move_time_limit`` + bank) then. ``Match.restore`` replays all of it.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Sequence
from typing import Any

import pytest

from botarena.server.games import Rules, Seat
from botarena.server.match import (
    EventKind,
    ForfeitReason,
    GameHooks,
    IllegalMoveRejectedError,
    InvalidRequestError,
    Match,
    NotYourTurnError,
    Policies,
    SeatForfeitedError,
    SeatTokenInvalidError,
    TimeoutPolicy,
)
from botarena.server.match._match import ABANDONED
from botarena.server.match._settings import DEFAULT_JOIN_TIMEOUT, DEFAULT_MAX_STAND_INS_IN_A_ROW

from .conftest import TOKENS, FakeClock, make_match

NewMatch = Any
START = 1000.0  # the fake clock's start (conftest.FakeClock)
ABSENT = ForfeitReason.ABSENT.value


# ---------------------------------------------------------------------------- helpers


def _time_out(match: Match, clock: FakeClock) -> None:
    """Let the pending decisions run out of time (the race matches have no time bank)."""
    clock.advance(match.settings.time_control.move_time_limit)
    assert match.expire()


def _move(match: Match, move: int = 1) -> None:
    """The seat to act moves itself."""
    seat = match.seats_to_act()[0]
    match.submit(TOKENS[seat], move, expected_state_version=match.state_version)


def _show_up(match: Match, *seats: Seat) -> None:
    # What the manager does for a seat's stream or view (MatchManager.settle).
    for seat in seats:
        match.show_up(match.authenticate(TOKENS[seat]))


def _show_up_changes(match: Match, seat: Seat) -> bool:
    """Let ``seat`` show up; return whether that settled an overdue deadline."""
    return match.show_up(match.authenticate(TOKENS[seat]))


def _forfeits(match: Match) -> list[tuple[Seat | None, str | None]]:
    return [(e.seat, e.reason) for e in match.events if e.kind is EventKind.SEAT_FORFEITED]


def _stand_ins(match: Match, seat: Seat) -> int:
    return sum(
        e.kind is EventKind.MOVE_APPLIED and e.seat == seat and e.by_timeout for e in match.events
    )


def _restored(match: Match, clock: FakeClock) -> Match:
    """Rebuild ``match`` from its log and seat records, as the manager does after a restart."""
    return Match.restore(
        match.match_id,
        match.rules,
        match.settings,
        log=list(match.events),
        token_hashes=match.token_hashes,
        seats=[match.seat_record(seat) for seat in range(match.seat_count)],
        created_time=match.created_time,
        clock=clock,
        wall_clock=lambda: 1.7e9,
        hooks=match.hooks,
    )


class _RecordingHooks(GameHooks):
    """Generic stand-ins that note every draw: (state version, seat) -> a draw from 2**32."""

    def __init__(self) -> None:
        self.match: Match | None = None
        self.draws: dict[tuple[int, Seat], int] = {}

    def stand_in_move(
        self, rules: Rules[Any, Any, Any, Any], state: Any, seat: Seat, pick: Any
    ) -> object:
        assert self.match is not None
        self.draws[(self.match.state_version, seat)] = pick(range(2**32))
        return super().stand_in_move(rules, state, seat, pick)


def _recorded(
    new_match: NewMatch, clock: FakeClock, *, seed: int, own_moves: Sequence[Seat] = ()
) -> dict[tuple[int, Seat], int]:
    """A simultaneous 3-seat race every seat showed up for: ``own_moves`` seats move
    themselves, then the others time out; return the draws of the stand-ins."""
    hooks = _RecordingHooks()
    match: Match = new_match(seats=3, simultaneous=True, seed=seed, hooks=hooks, present="all")
    hooks.match = match
    for seat in own_moves:
        match.submit(TOKENS[seat], 1, expected_state_version=match.state_version)
    _time_out(match, clock)
    return hooks.draws


# ---------------------------------------------------------------------------- stand-ins


def test_the_stand_in_draw_is_the_same_for_the_same_seed_version_and_seat(
    new_match: NewMatch, clock: FakeClock
) -> None:
    first = _recorded(new_match, clock, seed=7)
    assert sorted(first) == [(0, 0), (1, 1), (2, 2)]
    assert _recorded(new_match, clock, seed=7) == first


def test_the_stand_in_draw_varies_with_the_seed(new_match: NewMatch, clock: FakeClock) -> None:
    draws = [_recorded(new_match, clock, seed=seed) for seed in (7, 8, 9)]
    for key in draws[0]:
        assert len({seed_draws[key] for seed_draws in draws}) == 3


def test_the_stand_in_draw_varies_with_the_state_version(
    new_match: NewMatch, clock: FakeClock
) -> None:
    # Seat 1 times out at version 1 (seats 0 and 2 time out too, before and after it) or,
    # once seat 2 moved itself, at version 2: same seed, same seat, another version.
    late = _recorded(new_match, clock, seed=7)
    after_two = _recorded(new_match, clock, seed=7, own_moves=[2])
    assert sorted(after_two) == [(1, 0), (2, 1)]
    assert after_two[(2, 1)] != late[(1, 1)]
    # And what depends on (seed, version, seat) only is the same whatever came before.
    assert _recorded(new_match, clock, seed=7, own_moves=[0, 1]) == {(2, 2): late[(2, 2)]}


def test_the_stand_in_draw_varies_with_the_seat(new_match: NewMatch, clock: FakeClock) -> None:
    # At version 1 the first seat to time out is seat 1 (seat 0 moved) or seat 0 (seat 1
    # moved): same seed, same version, another seat.
    after_zero = _recorded(new_match, clock, seed=7, own_moves=[0])
    after_one = _recorded(new_match, clock, seed=7, own_moves=[1])
    assert (1, 1) in after_zero
    assert (1, 0) in after_one
    assert after_zero[(1, 1)] != after_one[(1, 0)]


def test_the_stand_in_is_uniform_over_the_legal_moves(
    new_match: NewMatch, clock: FakeClock
) -> None:
    seeds = 600
    moves: Counter[object] = Counter()
    for seed in range(seeds):
        match = new_match(seed=seed)
        _show_up(match, 0, 1)
        _time_out(match, clock)
        moves[match.events[1].move] += 1
    assert set(moves) == {1, 2, 3}
    for count in moves.values():  # 200 expected, sd ~ 11.5: a bound of 5 sd
        assert abs(count - seeds / 3) < 60, moves


def test_the_turns_of_a_forfeited_seat_are_reproducible_stand_ins(new_match: NewMatch) -> None:
    def play() -> list[object]:
        match: Match = new_match(seats=3, target=30)
        match.resign("tok-0")
        while not match.finished:
            _move(match, 1)
        return [e.move for e in match.events if e.seat == 0 and e.by_timeout]

    first = play()
    assert len(first) > 3
    assert set(first) <= {1, 2, 3}
    assert len(set(first)) > 1  # not a fixed move
    assert play() == first


# ---------------------------------------------------------------------------- streaks


@pytest.mark.parametrize("limit", [1, 2, 3, 5])
def test_a_seat_forfeits_as_absent_after_exactly_n_stand_ins_in_a_row(
    new_match: NewMatch, clock: FakeClock, limit: int
) -> None:
    match: Match = new_match(target=1000, max_stand_ins_in_a_row=limit)
    _show_up(match, 0)  # present, but it never moves
    for stand_in in range(1, limit + 1):
        assert match.seats_to_act() == (0,)
        _time_out(match, clock)
        assert match.stand_in_moves(0) == stand_in
        if stand_in < limit:
            assert not match.is_forfeited(0)
            _move(match)  # seat 1 plays
    assert match.forfeit_reason(0) is ForfeitReason.ABSENT
    assert _forfeits(match) == [(0, ABSENT)]
    # The forfeit follows the limit-th stand-in at once.
    assert [e.kind for e in match.events[-3:]] == [
        EventKind.MOVE_APPLIED,
        EventKind.SEAT_FORFEITED,
        EventKind.MATCH_FINISHED,
    ]
    assert match.events[-3].by_timeout
    assert match.result is not None
    assert (match.result.reason, match.result.ranks) == ("forfeit", (2, 1))


def test_the_default_streak_limit_is_three() -> None:
    assert Policies().max_stand_ins_in_a_row == DEFAULT_MAX_STAND_INS_IN_A_ROW == 3


# Seat 0's decisions, in order: "s" it times out, "i" its illegal move uses up the allowance
# (max_illegal_moves=1), "m" it moves itself. Seat 1 always moves. Limit 3.
@pytest.mark.parametrize(
    ("decisions", "forfeit_at"),
    [
        ("sss", 3),
        ("iii", 3),
        ("sis", 3),
        ("ssmss", None),
        ("ssmsss", 6),
        ("msss", 4),
        ("smsmsm", None),
        ("ssmssmss", None),
    ],
)
def test_only_stand_ins_in_a_row_count_and_the_seats_own_move_resets_them(
    new_match: NewMatch, clock: FakeClock, decisions: str, forfeit_at: int | None
) -> None:
    match: Match = new_match(target=1000, max_illegal_moves=1, max_stand_ins_in_a_row=3)
    _show_up(match, 0)
    for index, decision in enumerate(decisions, 1):
        assert match.seats_to_act() == (0,)
        if decision == "s":
            _time_out(match, clock)
        elif decision == "i":
            with pytest.raises(IllegalMoveRejectedError):
                match.submit("tok-0", 9, expected_state_version=match.state_version)
        else:
            _move(match)
        if index == forfeit_at:
            assert _forfeits(match) == [(0, ABSENT)]
            break
        assert not match.is_forfeited(0)
        _move(match)
    else:
        assert forfeit_at is None
        assert not match.finished
    played = decisions[:forfeit_at] if forfeit_at else decisions
    assert match.stand_in_moves(0) == len(played) - played.count("m")


def test_another_seats_stand_ins_do_not_count_towards_the_streak(
    new_match: NewMatch, clock: FakeClock
) -> None:
    match: Match = new_match(seats=3, target=1000, max_stand_ins_in_a_row=2)
    _show_up(match, 0, 1, 2)
    _time_out(match, clock)  # seat 0
    _move(match)  # seat 1
    _time_out(match, clock)  # seat 2
    _move(match)  # seat 0 moves itself
    assert _forfeits(match) == []
    assert [match.stand_in_moves(seat) for seat in range(3)] == [1, 0, 1]


def test_under_the_forfeit_policy_there_are_no_stand_ins(
    new_match: NewMatch, clock: FakeClock
) -> None:
    match: Match = new_match(on_timeout=TimeoutPolicy.FORFEIT, max_stand_ins_in_a_row=1)
    _show_up(match, 0, 1)
    _time_out(match, clock)
    assert _forfeits(match) == [(0, "timeout")]
    assert match.stand_in_moves(0) == 0


@pytest.mark.parametrize(
    "options",
    [
        {"max_stand_ins_in_a_row": 0},
        {"max_stand_ins_in_a_row": 101},
        {"join_timeout": 0.0},
        {"join_timeout": 3601.0},
        {"join_timeout": float("nan")},
    ],
    ids=["streak-0", "streak-101", "join-0", "join-over-1h", "join-nan"],
)
def test_out_of_range_fair_play_policies_are_refused(options: dict[str, Any]) -> None:
    with pytest.raises(InvalidRequestError):
        Policies(**options)


@pytest.mark.parametrize(
    "options",
    [{"max_stand_ins_in_a_row": 1}, {"max_stand_ins_in_a_row": 100}, {"join_timeout": 0.01}],
    ids=["streak-1", "streak-100", "join-10ms"],
)
def test_fair_play_policies_at_their_bounds_are_accepted(options: dict[str, Any]) -> None:
    Policies(**options)


# ---------------------------------------------------------------------------- joining


def test_the_default_join_timeout_is_thirty_seconds() -> None:
    assert Policies().join_timeout == DEFAULT_JOIN_TIMEOUT == 30.0


@pytest.mark.parametrize(
    ("seats", "shown_up", "forfeits", "ranks"),
    [
        (2, {0, 1}, [], None),
        (2, {0}, [1], (1, 2)),
        (2, {1}, [0], (2, 1)),
        (3, {0, 1}, [2], None),
        (3, {1}, [0, 2], (3, 1, 2)),
        (4, {0, 3}, [1, 2], None),
    ],
    ids=["all", "2-seat-0", "2-seat-1", "3-seat-0-1", "3-seat-1", "4-seat-0-3"],
)
def test_seats_that_never_showed_up_forfeit_as_absent_at_the_join_deadline(
    new_match: NewMatch,
    clock: FakeClock,
    seats: int,
    shown_up: set[int],
    forfeits: list[int],
    ranks: tuple[int, ...] | None,
) -> None:
    match: Match = new_match(seats=seats, limit=100.0)
    _show_up(match, *shown_up)
    clock.advance(29.99)
    assert not match.expire()
    clock.advance(0.01)
    match.expire()
    assert _forfeits(match) == [(seat, ABSENT) for seat in forfeits]
    for seat in range(seats):
        assert match.is_forfeited(seat) == (seat in forfeits)
    if ranks is None:
        assert not match.finished
        assert set(match.seats_to_act()) <= shown_up
    else:
        assert match.result is not None
        assert (match.result.reason, match.result.ranks) == ("forfeit", ranks)


def _by_a_stream_or_view(match: Match) -> None:
    _show_up(match, 1)


def _by_a_move(match: Match) -> None:
    _move(match)  # seat 0
    _move(match)  # seat 1


def _by_a_move_out_of_turn(match: Match) -> None:
    with pytest.raises(NotYourTurnError):
        match.submit("tok-1", 1, expected_state_version=0)


def _by_an_illegal_move(match: Match) -> None:
    _move(match)  # seat 0
    with pytest.raises(IllegalMoveRejectedError):
        match.submit("tok-1", 9, expected_state_version=match.state_version)


@pytest.mark.parametrize(
    "show_up",
    [_by_a_stream_or_view, _by_a_move, _by_a_move_out_of_turn, _by_an_illegal_move],
    ids=["stream-or-view", "move", "move-out-of-turn", "illegal-move"],
)
def test_any_call_with_the_seats_token_counts_as_showing_up(
    new_match: NewMatch, clock: FakeClock, show_up: Callable[[Match], None]
) -> None:
    match: Match = new_match(limit=100.0)
    _show_up(match, 0)
    show_up(match)
    clock.advance(30.0)
    match.expire()
    assert _forfeits(match) == []
    assert not match.finished


def test_a_call_with_a_wrong_token_does_not_count_as_showing_up(
    new_match: NewMatch, clock: FakeClock
) -> None:
    match: Match = new_match(limit=100.0)
    _show_up(match, 0)
    with pytest.raises(SeatTokenInvalidError):
        match.authenticate("tok-9")
    clock.advance(30.0)
    match.expire()
    assert _forfeits(match) == [(1, ABSENT)]


@pytest.mark.parametrize("join_timeout", [0.5, 5.0, 120.0])
def test_the_join_deadline_is_join_timeout_after_the_creation(
    new_match: NewMatch, clock: FakeClock, join_timeout: float
) -> None:
    match: Match = new_match(limit=1000.0, join_timeout=join_timeout)
    _show_up(match, 0)
    assert match.next_deadline() == START + join_timeout
    clock.advance(join_timeout - 0.01)
    match.expire()
    assert _forfeits(match) == []
    clock.advance(0.01)
    match.expire()
    assert _forfeits(match) == [(1, ABSENT)]


@pytest.mark.parametrize("seats", [2, 3, 4])
def test_a_match_nobody_joined_is_abandoned(
    new_match: NewMatch, clock: FakeClock, seats: int
) -> None:
    match: Match = new_match(seats=seats, limit=100.0)
    clock.advance(30.0)
    assert match.expire()
    # One entry: the finish, with reason "abandoned"; no forfeit entries.
    assert [e.kind for e in match.events] == [EventKind.MATCH_STARTED, EventKind.MATCH_FINISHED]
    assert match.events[-1].reason == ABANDONED
    result = match.result
    assert result is not None
    assert result.abandoned
    assert result.reason == ABANDONED
    assert result.ranks == (seats,) * seats  # nobody wins
    assert result.forfeited == (True,) * seats
    assert result.forfeit_reasons == (ABSENT,) * seats
    assert match.events[-1].result == result
    for seat in range(seats):
        assert match.forfeit_reason(seat) is ForfeitReason.ABSENT
        assert match.seat_record(seat).forfeit_reason == ABSENT
    assert match.pending == {}
    assert match.next_deadline() is None


def test_a_match_nobody_joined_gets_no_stand_ins_before_it_is_abandoned(
    new_match: NewMatch, clock: FakeClock
) -> None:
    # Decisions of 10 s, but nobody showed up, so no clock runs: the seats wait for the
    # join deadline, which abandons the match at 30 s without a move made for anyone.
    match: Match = new_match(limit=10.0, target=1000)
    for _ in range(2):
        clock.advance(10.0)
        assert not match.expire()
    clock.advance(10.0)
    assert match.expire()
    assert [(e.kind, e.seat, e.by_timeout) for e in match.events[1:]] == [
        (EventKind.MATCH_FINISHED, None, False),
    ]
    assert match.result is not None
    assert match.result.abandoned
    assert [match.stand_in_moves(seat) for seat in range(2)] == [0, 0]
    assert [match.timeouts(seat) for seat in range(2)] == [0, 0]


_PLAYED_FOR_1 = (EventKind.MOVE_APPLIED, 1)  # the race engine cannot drop a seat


@pytest.mark.parametrize(
    ("limit", "entries"),
    [
        # Seat 0's decision deadline (10 s) comes first: its stand-in, then seat 1's
        # absent forfeit at the join deadline (30 s), then seat 1's turn played for it.
        (10.0, [(EventKind.MOVE_APPLIED, 0), (EventKind.SEAT_FORFEITED, 1), _PLAYED_FOR_1]),
        # The join deadline (30 s) comes first: the forfeit, then seat 0's stand-in (100 s).
        (100.0, [(EventKind.SEAT_FORFEITED, 1), (EventKind.MOVE_APPLIED, 0), _PLAYED_FOR_1]),
    ],
    ids=["decision-first", "join-first"],
)
def test_expire_settles_decision_and_join_deadlines_in_time_order(
    new_match: NewMatch,
    clock: FakeClock,
    limit: float,
    entries: list[tuple[EventKind, Seat]],
) -> None:
    # Seat 0, first to act, is there but never moves; seat 1 never shows up; seat 2 is
    # there and plays on.
    match: Match = new_match(seats=3, limit=limit, target=1000, present=(0, 2))
    clock.advance(max(limit, 30.0) + 1.0)  # past both deadlines: one expire settles them
    match.expire()
    assert [(e.kind, e.seat) for e in match.events[1:]] == entries
    assert _forfeits(match) == [(1, ABSENT)]
    assert not match.finished
    assert match.seats_to_act() == (2,)


def test_next_deadline_includes_the_join_deadline_until_every_seat_showed_up(
    new_match: NewMatch,
) -> None:
    match: Match = new_match(seats=3, limit=100.0)
    assert match.next_deadline() == START + 30.0
    _show_up(match, 0)
    assert match.next_deadline() == START + 30.0
    _show_up(match, 2)
    assert match.next_deadline() == START + 30.0
    _show_up(match, 1)
    assert match.next_deadline() == START + 100.0  # the decision's, nothing else


@pytest.mark.parametrize(
    ("limit", "deadline"), [(10.0, START + 10.0), (100.0, START + 30.0)], ids=["clock", "join"]
)
def test_next_deadline_is_the_earlier_of_the_join_and_decision_deadlines(
    new_match: NewMatch, clock: FakeClock, limit: float, deadline: float
) -> None:
    match: Match = new_match(limit=limit, target=1000, present=[0])  # seat 1 never shows up
    assert match.next_deadline() == deadline
    clock.advance(5.0)
    _move(match)  # seat 0; seat 1's decision has no clock: it waits for the join deadline
    assert match.pending[1].deadline == START + 30.0
    assert match.next_deadline() == START + 30.0


def test_next_deadline_drops_the_join_deadline_once_it_passed(
    new_match: NewMatch, clock: FakeClock
) -> None:
    match: Match = new_match(seats=3, limit=100.0)
    _show_up(match, 0, 1)
    clock.advance(30.0)
    match.expire()
    assert _forfeits(match) == [(2, ABSENT)]
    assert match.next_deadline() == START + 100.0


# ---------------------------------------------------------------------------- first clocks


def test_an_unjoined_seats_decision_has_the_join_deadline_and_no_stand_in_before_it(
    new_match: NewMatch, clock: FakeClock
) -> None:
    match: Match = new_match(limit=1.0, bank=2.0)  # nobody showed up
    decision = match.pending[0]
    assert decision.deadline == START + 30.0
    assert decision.deadline_time == 1.7e9 + 30.0
    assert match.next_deadline() == START + 30.0
    for _ in range(29):  # well past move_time_limit + bank, again and again
        clock.advance(1.0)
        assert not match.expire()
    clock.advance(0.99)
    assert not match.expire()
    assert match.state_version == 0
    assert match.pending[0] is decision  # the same decision, still waiting
    assert [(match.stand_in_moves(seat), match.timeouts(seat)) for seat in range(2)] == [
        (0, 0),
        (0, 0),
    ]
    assert match.seat_record(0).time_bank == 2.0


def test_every_unjoined_seat_of_a_simultaneous_step_waits_for_the_join_deadline(
    new_match: NewMatch, clock: FakeClock
) -> None:
    match: Match = new_match(seats=3, simultaneous=True, limit=1.0, present=[1])
    assert {seat: d.deadline for seat, d in match.pending.items()} == {
        0: START + 30.0,
        1: START + 1.0,
        2: START + 30.0,
    }
    clock.advance(1.0)
    match.expire()  # seat 1, which is there, times out; the others have no clock
    assert [(e.kind, e.seat, e.by_timeout) for e in match.events[1:]] == [
        (EventKind.MOVE_APPLIED, 1, True)
    ]
    assert [match.stand_in_moves(seat) for seat in range(3)] == [0, 1, 0]


@pytest.mark.parametrize("at", [0.0, 10.0, 29.5])
def test_showing_up_starts_a_full_clock_then_and_the_think_time_counts_from_it(
    new_match: NewMatch, clock: FakeClock, at: float
) -> None:
    match: Match = new_match(limit=2.0, bank=3.0, increment=0.5, present=[1])
    decision = match.pending[0]
    clock.advance(at)
    assert not _show_up_changes(match, 0)
    assert match.pending[0] is decision  # the same decision: its clock started
    assert decision.started_at == START + at
    assert decision.deadline == START + at + 2.0 + 3.0
    assert decision.deadline_time == 1.7e9 + 2.0 + 3.0
    assert match.time_bank(0) == 3.0
    clock.advance(4.0)  # 2 s over the limit: the bank pays them
    match.submit("tok-0", 1, expected_state_version=0)
    assert match.events[1].think_time == pytest.approx(4.0)
    assert not match.events[1].by_timeout
    assert match.time_bank(0) == pytest.approx(3.0 - 2.0 + 0.5)


@pytest.mark.parametrize("at", [0.0, 10.0, 29.5])
def test_a_seat_that_showed_up_times_out_on_its_own_clock_from_then(
    new_match: NewMatch, clock: FakeClock, at: float
) -> None:
    match: Match = new_match(limit=2.0, bank=3.0, present=[1])
    clock.advance(at)
    _show_up(match, 0)
    clock.advance(4.99)
    assert not match.expire()
    clock.advance(0.01)
    assert match.expire()
    entry = match.events[1]
    assert (entry.kind, entry.seat, entry.by_timeout) == (EventKind.MOVE_APPLIED, 0, True)
    assert entry.think_time == pytest.approx(5.0)
    assert (match.timeouts(0), match.stand_in_moves(0), match.time_bank(0)) == (1, 1, 0.0)


def test_showing_up_again_does_not_restart_the_clock(new_match: NewMatch, clock: FakeClock) -> None:
    match: Match = new_match(limit=10.0)
    clock.advance(5.0)
    _show_up(match, 0)
    clock.advance(8.0)
    _show_up(match, 0)  # a reconnecting stream, a view: the clock runs on
    _show_up(match, 1)
    assert match.pending[0].started_at == START + 5.0
    assert match.next_deadline() == START + 15.0
    clock.advance(2.0)
    assert match.expire()
    assert match.events[1].by_timeout
    assert match.events[1].think_time == pytest.approx(10.0)


def test_a_seat_that_showed_up_before_its_turn_gets_its_clock_at_its_turn(
    new_match: NewMatch, clock: FakeClock
) -> None:
    match: Match = new_match(limit=10.0, present=[1])  # seat 1 is there early
    clock.advance(20.0)
    _show_up(match, 0)
    clock.advance(3.0)
    _move(match)  # seat 0, at 23 s
    assert match.pending[1].started_at == START + 23.0
    assert match.pending[1].deadline == START + 33.0  # its own clock, past the join time
    clock.advance(7.0)
    assert not match.expire()  # the join deadline passed with everybody there
    assert match.next_deadline() == START + 33.0


def test_a_seat_showing_up_after_the_join_deadline_still_forfeits_and_gets_no_clock(
    new_match: NewMatch, clock: FakeClock
) -> None:
    match: Match = new_match(seats=3, limit=1.0, target=1000, present=[1, 2])
    clock.advance(30.5)  # no timer has settled the join deadline yet
    assert _show_up_changes(match, 0)  # its stream or view comes too late
    assert _forfeits(match) == [(0, ABSENT)]
    assert match.stand_in_moves(0) == 1  # its turn, played after it left (no streak)
    assert match.timeouts(0) == 0
    assert 0 not in match.pending
    assert match.seats_to_act() == (1,)
    assert match.pending[1].started_at == START + 30.5


def test_a_two_seat_match_is_won_by_the_seat_that_showed_up_when_the_other_comes_late(
    new_match: NewMatch, clock: FakeClock
) -> None:
    match: Match = new_match(limit=1.0, present=[1])
    clock.advance(30.0)
    _show_up(match, 0)
    assert [(e.kind, e.seat) for e in match.events[1:]] == [
        (EventKind.SEAT_FORFEITED, 0),
        (EventKind.MATCH_FINISHED, None),
    ]
    assert match.result is not None
    assert (match.result.reason, match.result.ranks) == ("forfeit", (2, 1))


def test_next_deadline_follows_the_clocks_started_by_showing_up(
    new_match: NewMatch, clock: FakeClock
) -> None:
    match: Match = new_match(seats=3, limit=10.0, target=1000)
    assert match.next_deadline() == START + 30.0  # nobody is here: only the join deadline
    clock.advance(5.0)
    _show_up(match, 0)
    assert match.next_deadline() == START + 15.0  # seat 0's clock, before the join deadline
    clock.advance(7.0)
    _move(match)  # seat 0 at 12 s; seat 1 is not here: it waits for the join deadline
    assert match.next_deadline() == START + 30.0
    clock.advance(13.0)
    _show_up(match, 1)  # at 25 s: its clock runs to 35 s, after the join deadline
    assert match.pending[1].deadline == START + 35.0
    assert match.next_deadline() == START + 30.0  # seat 2 is still awaited
    clock.advance(1.0)
    _show_up(match, 2)  # everybody is here: the join deadline is gone
    assert match.next_deadline() == START + 35.0


def test_a_time_bank_does_not_drain_before_the_seat_shows_up_and_its_clock_starts(
    new_match: NewMatch, clock: FakeClock
) -> None:
    match: Match = new_match(limit=1.0, bank=2.0, present=[1])
    clock.advance(20.0)
    # The seat's bank as the match reports it (GetMatch's time_bank_remaining) is the bank
    # it will get: its clock has not started.
    assert match.time_bank(0) == 2.0
    _show_up(match, 0)
    assert match.time_bank(0) == 2.0
    assert match.pending[0].deadline == START + 20.0 + 3.0


def test_a_restored_match_gives_an_unjoined_seat_a_new_join_window_and_no_clock(
    new_match: NewMatch, clock: FakeClock
) -> None:
    match: Match = new_match(limit=1.0, bank=2.0, target=1000, present=[1])
    _move(match)  # seat 0 moved itself; seat 1 only showed up: after a restart it is new
    clock.advance(60.0)  # the server is down for a minute
    again = _restored(match, clock)
    restart = clock.now
    decision = again.pending[1]
    assert decision.deadline == restart + 30.0
    assert again.next_deadline() == restart + 30.0
    clock.advance(29.99)
    assert not again.expire()  # no stand-in for a seat that has not come back yet
    assert again.stand_in_moves(1) == 0
    _show_up(again, 1)  # it comes back: a full clock from now, with its bank
    assert decision.started_at == restart + 29.99
    assert again.next_deadline() == pytest.approx(restart + 29.99 + 3.0)
    clock.advance(3.0)
    assert again.expire()
    assert again.events[-1].seat == 1
    assert again.events[-1].by_timeout
    assert again.events[-1].think_time == pytest.approx(3.0)


def test_a_restored_match_abandons_at_its_new_join_deadline_if_nobody_comes_back(
    new_match: NewMatch, clock: FakeClock
) -> None:
    match: Match = new_match(limit=1.0, target=1000, present="all")
    _time_out(match, clock)  # a stand-in for seat 0: both were there but never moved
    clock.advance(60.0)
    again = _restored(match, clock)
    assert {seat: d.deadline for seat, d in again.pending.items()} == {1: clock.now + 30.0}
    clock.advance(30.0)
    assert again.expire()
    assert again.stand_in_moves(1) == 0
    assert again.result is not None
    assert again.result.abandoned


class _TickingClock(FakeClock):
    """A fake monotonic clock that moves on by ``tick`` at every reading while ``ticking``:
    a real clock does, while a long log replays."""

    def __init__(self, now: float, tick: float) -> None:
        super().__init__(now)
        self.tick = tick
        self.ticking = False

    def __call__(self) -> float:
        now = self.now
        if self.ticking:
            self.now += self.tick
        return now


def test_a_restored_unjoined_seat_gets_no_stand_in_even_if_the_replay_took_time() -> None:
    clock = _TickingClock(START, tick=0.1)
    match: Match = make_match(clock=clock, limit=1.0, bank=2.0, target=1000, present=[1])
    _move(match)  # seat 0 moved itself; seat 1 only showed up: after a restart it is new
    clock.advance(60.0)
    began = clock.now
    clock.ticking = True  # the replay takes a while
    again = _restored(match, clock)
    clock.ticking = False
    assert clock.now > began
    # Whatever the new join deadline is, it is 30 s after the restart began at the earliest.
    clock.now = began + 30.0
    again.expire()  # seat 1 may forfeit as absent here, but the server must not move for it
    assert again.stand_in_moves(1) == 0
    assert again.timeouts(1) == 0


# ---------------------------------------------------------------------------- abandonment


# Seat 0 never moves (it times out every decision, limit 3); seat 1's two decisions before
# seat 0's third stand-in: "s" a stand-in, "m" its own move.
@pytest.mark.parametrize(
    ("survivor", "reason", "ranks", "reasons"),
    [
        ("ss", ABANDONED, (2, 2), (ABSENT, ABSENT)),
        ("ms", ABANDONED, (2, 2), (ABSENT, ABSENT)),
        ("sm", "forfeit", (2, 1), (ABSENT, "")),
        ("mm", "forfeit", (2, 1), (ABSENT, "")),
    ],
)
def test_the_match_is_abandoned_when_the_survivor_let_the_server_move_last(
    new_match: NewMatch,
    clock: FakeClock,
    survivor: str,
    reason: str,
    ranks: tuple[int, ...],
    reasons: tuple[str, ...],
) -> None:
    match: Match = new_match(target=1000, max_stand_ins_in_a_row=3)
    _show_up(match, 0, 1)
    for decision in survivor:
        _time_out(match, clock)  # seat 0
        if decision == "s":
            _time_out(match, clock)
        else:
            _move(match)
    _time_out(match, clock)  # seat 0's third in a row
    assert _forfeits(match) == [(0, ABSENT)]  # the survivor leaves without an entry
    assert match.events[-1].kind is EventKind.MATCH_FINISHED
    assert match.events[-1].reason == reason
    result = match.result
    assert result is not None
    assert (result.reason, result.ranks, result.forfeit_reasons) == (reason, ranks, reasons)
    assert result.abandoned == (reason == ABANDONED)
    assert result.forfeited == (True, reason == ABANDONED)
    assert match.seat_record(1).forfeit_reason == (reasons[1] or None)


def test_an_absent_forfeit_at_the_join_deadline_abandons_an_idle_survivor(
    new_match: NewMatch, clock: FakeClock
) -> None:
    match: Match = new_match(limit=10.0, target=1000)
    _show_up(match, 0)  # seat 1 never shows up; seat 0 is there but lets the server move
    for _ in range(3):  # a stand-in at 10 s (seat 0); seat 1 waits for the join at 30 s
        clock.advance(10.0)
        match.expire()
    assert [match.stand_in_moves(seat) for seat in range(2)] == [1, 0]
    assert _forfeits(match) == [(1, ABSENT)]
    assert match.result is not None
    assert (match.result.reason, match.result.ranks) == (ABANDONED, (2, 2))
    assert match.result.forfeit_reasons == (ABSENT, ABSENT)


def test_an_absent_forfeit_at_the_join_deadline_leaves_a_playing_survivor_the_winner(
    new_match: NewMatch, clock: FakeClock
) -> None:
    match: Match = new_match(limit=10.0, target=1000)
    _show_up(match, 0)  # seat 1 never shows up
    _move(match)  # seat 0 at 0 s: its last decision is its own
    clock.advance(29.99)
    assert not match.expire()  # seat 1 has no clock: no stand-in while it may still come
    clock.advance(0.01)
    match.expire()  # the join deadline at 30 s
    assert _forfeits(match) == [(1, ABSENT)]
    assert match.stand_in_moves(1) == 0
    assert match.result is not None
    assert (match.result.reason, match.result.ranks) == ("forfeit", (1, 2))
    assert match.result.forfeit_reasons == ("", ABSENT)


def test_three_seats_go_on_after_an_absent_forfeit_even_if_idle(
    new_match: NewMatch, clock: FakeClock
) -> None:
    match: Match = new_match(seats=3, target=1000, max_stand_ins_in_a_row=1)
    _show_up(match, 0, 1, 2)
    _time_out(match, clock)  # seat 0: forfeits at once
    assert _forfeits(match) == [(0, ABSENT)]
    assert not match.finished
    _time_out(match, clock)  # seat 1: forfeits; seat 2 never decided, so it plays: it wins
    assert _forfeits(match) == [(0, ABSENT), (1, ABSENT)]
    assert match.result is not None
    assert (match.result.reason, match.result.ranks) == ("forfeit", (3, 2, 1))


@pytest.mark.parametrize("reason", [ForfeitReason.RESIGNED, ForfeitReason.BOT_EXITED])
def test_a_resignation_next_to_an_idle_survivor_is_a_forfeit_not_an_abandonment(
    new_match: NewMatch, clock: FakeClock, reason: ForfeitReason
) -> None:
    match: Match = new_match(target=1000)
    _show_up(match, 0, 1)
    _move(match)  # seat 0
    _time_out(match, clock)  # seat 1: a stand-in, its streak is 1
    match.resign("tok-0", reason=reason)
    assert match.result is not None
    assert (match.result.reason, match.result.ranks) == ("forfeit", (2, 1))
    assert match.result.forfeit_reasons == (reason.value, "")


# ---------------------------------------------------------------------------- resignation


def test_a_seat_resigns_as_bot_exited(new_match: NewMatch) -> None:
    match: Match = new_match(seats=3)
    result = match.resign("tok-1", reason=ForfeitReason.BOT_EXITED)
    assert _forfeits(match) == [(1, "bot_exited")]
    assert result.state_version == match.state_version
    assert match.forfeit_reason(1) is ForfeitReason.BOT_EXITED
    assert match.seat_record(1).forfeit_reason == "bot_exited"


def test_resign_defaults_to_resigned(new_match: NewMatch) -> None:
    match: Match = new_match(seats=3)
    match.resign("tok-1")
    assert _forfeits(match) == [(1, "resigned")]


@pytest.mark.parametrize(
    "reason", [ForfeitReason.TIMEOUT, ForfeitReason.ILLEGAL_MOVES, ForfeitReason.ABSENT]
)
def test_a_seat_cannot_resign_for_another_reason(
    new_match: NewMatch, reason: ForfeitReason
) -> None:
    match: Match = new_match()
    with pytest.raises(ValueError, match=reason.value):
        match.resign("tok-0", reason=reason)
    assert match.state_version == 0
    assert not match.is_forfeited(0)


def test_a_bot_exited_resignation_with_a_request_id_is_answered_once(new_match: NewMatch) -> None:
    match: Match = new_match(seats=3)
    first = match.resign("tok-1", request_id="r", reason=ForfeitReason.BOT_EXITED)
    assert match.resign("tok-1", request_id="r", reason=ForfeitReason.BOT_EXITED) == first
    assert _forfeits(match) == [(1, "bot_exited")]


# ---------------------------------------------------------------------------- counters


def test_stand_in_moves_count_timeouts_illegal_moves_and_a_forfeited_seats_turns(
    new_match: NewMatch, clock: FakeClock
) -> None:
    match: Match = new_match(seats=3, target=1000, max_illegal_moves=1)
    _show_up(match, 0, 1, 2)
    _time_out(match, clock)  # seat 0
    with pytest.raises(IllegalMoveRejectedError):  # seat 1
        match.submit("tok-1", 9, expected_state_version=match.state_version)
    _move(match)  # seat 2
    match.resign("tok-0")  # seat 0 resigns on its turn: the server plays it at once
    for _ in range(4):
        _move(match)  # seats 1 and 2; seat 0's turns in between are stand-ins
    assert [match.stand_in_moves(seat) for seat in range(3)] == [
        _stand_ins(match, seat) for seat in range(3)
    ]
    assert match.stand_in_moves(0) == 1 + 1 + 2  # timeout, its resigned turn, two more
    assert match.stand_in_moves(1) == 1
    assert match.stand_in_moves(2) == 0
    # A forfeited seat's stand-ins do not forfeit it again, however many there are.
    assert _forfeits(match) == [(0, "resigned")]
    records = [match.seat_record(seat) for seat in range(3)]
    assert [record.stand_in_moves for record in records] == [4, 1, 0]
    assert [record.timeouts for record in records] == [1, 0, 0]
    assert [record.illegal_moves for record in records] == [0, 1, 0]
    assert [record.forfeit_reason for record in records] == ["resigned", None, None]


def _by_timeout(match: Match, clock: FakeClock) -> None:
    _show_up(match, 0, 1)
    _time_out(match, clock)


def _by_illegal_moves(match: Match, clock: FakeClock) -> None:
    _show_up(match, 1)
    with pytest.raises(IllegalMoveRejectedError):
        match.submit("tok-0", 9, expected_state_version=0)


def _by_resigning(match: Match, clock: FakeClock) -> None:
    match.resign("tok-0")


def _by_bot_exit(match: Match, clock: FakeClock) -> None:
    match.resign("tok-0", reason=ForfeitReason.BOT_EXITED)


def _by_a_streak(match: Match, clock: FakeClock) -> None:
    _show_up(match, 0, 1)
    for _ in range(2):
        _time_out(match, clock)
        _move(match)
    _time_out(match, clock)


def _by_not_showing_up(match: Match, clock: FakeClock) -> None:
    _show_up(match, 1)
    clock.advance(30.0)
    match.expire()


_FORFEITS: dict[str, tuple[Callable[[Match, FakeClock], None], TimeoutPolicy, str]] = {
    "timeout": (_by_timeout, TimeoutPolicy.FORFEIT, "timeout"),
    "illegal_moves": (_by_illegal_moves, TimeoutPolicy.FORFEIT, "illegal_moves"),
    "resigned": (_by_resigning, TimeoutPolicy.DEFAULT_MOVE, "resigned"),
    "bot_exited": (_by_bot_exit, TimeoutPolicy.DEFAULT_MOVE, "bot_exited"),
    "absent-streak": (_by_a_streak, TimeoutPolicy.DEFAULT_MOVE, ABSENT),
    "absent-join": (_by_not_showing_up, TimeoutPolicy.DEFAULT_MOVE, ABSENT),
}


@pytest.mark.parametrize("case", list(_FORFEITS), ids=list(_FORFEITS))
def test_forfeit_reasons_are_in_the_result_and_the_seat_record(
    new_match: NewMatch, clock: FakeClock, case: str
) -> None:
    play, policy, reason = _FORFEITS[case]
    match: Match = new_match(
        target=1000, limit=10.0, on_timeout=policy, max_illegal_moves=1, max_stand_ins_in_a_row=3
    )
    play(match, clock)
    assert _forfeits(match) == [(0, reason)]
    assert match.result is not None
    assert match.result.reason == "forfeit"
    assert match.result.ranks == (2, 1)
    assert match.result.forfeit_reasons == (reason, "")
    assert match.result.forfeited == (True, False)
    assert (match.seat_record(0).forfeit_reason, match.seat_record(1).forfeit_reason) == (
        reason,
        None,
    )
    assert match.forfeit_reason(0) == ForfeitReason(reason)
    assert match.forfeit_reason(1) is None


def test_a_match_without_forfeits_has_empty_forfeit_reasons(new_match: NewMatch) -> None:
    match: Match = new_match(target=3)
    _move(match, 3)
    assert match.result is not None
    assert match.result.forfeit_reasons == ("", "")
    assert not match.result.abandoned


# ---------------------------------------------------------------------------- recovery


def _streak_win(new_match: NewMatch, clock: FakeClock) -> Match:
    match: Match = new_match(target=1000, limit=10.0)
    _by_a_streak(match, clock)
    return match


def _streak_three_seats_go_on(new_match: NewMatch, clock: FakeClock) -> Match:
    match: Match = new_match(seats=3, target=1000, max_stand_ins_in_a_row=2)
    _show_up(match, 0, 1, 2)
    for _ in range(2):
        _time_out(match, clock)  # seat 0
        _move(match)
        _move(match)
    _move(match)  # seat 1: seat 0 is played for from now on
    _move(match)
    return match


def _streak_half_way(new_match: NewMatch, clock: FakeClock) -> Match:
    match: Match = new_match(target=1000)
    _show_up(match, 0, 1)
    for _ in range(2):
        _time_out(match, clock)
        _time_out(match, clock)
    return match


def _join_absent(new_match: NewMatch, clock: FakeClock) -> Match:
    match: Match = new_match(target=1000, limit=100.0)
    _by_not_showing_up(match, clock)
    return match


def _join_absent_three_seats(new_match: NewMatch, clock: FakeClock) -> Match:
    match: Match = new_match(seats=3, target=1000, limit=100.0)
    _show_up(match, 0, 2)
    clock.advance(30.0)
    match.expire()
    _move(match)
    _move(match)
    return match


def _nobody_joined(new_match: NewMatch, clock: FakeClock) -> Match:
    match: Match = new_match(target=1000, limit=100.0)
    clock.advance(30.0)
    match.expire()
    return match


def _nobody_joined_with_a_short_clock(new_match: NewMatch, clock: FakeClock) -> Match:
    match: Match = new_match(target=1000, limit=10.0)  # no clock runs: no stand-ins
    for _ in range(3):
        clock.advance(10.0)
        match.expire()
    return match


def _idle_survivor(new_match: NewMatch, clock: FakeClock) -> Match:
    match: Match = new_match(target=1000)
    _show_up(match, 0, 1)
    for _ in range(5):
        _time_out(match, clock)
    return match


def _idle_survivor_at_the_join_deadline(new_match: NewMatch, clock: FakeClock) -> Match:
    match: Match = new_match(limit=10.0, target=1000)
    _show_up(match, 0)
    for _ in range(3):
        clock.advance(10.0)
        match.expire()
    return match


def _bot_exited_with_stand_ins(new_match: NewMatch, clock: FakeClock) -> Match:
    match: Match = new_match(seats=3, target=1000)
    _show_up(match, 0, 1, 2)
    _move(match)
    match.resign("tok-1", reason=ForfeitReason.BOT_EXITED, request_id="bye")
    for _ in range(4):
        _move(match)
    return match


_RECOVERED: dict[str, tuple[Callable[[NewMatch, FakeClock], Match], str | None]] = {
    # name: (how the match was played, its result's reason or None if it goes on)
    "streak-win": (_streak_win, "forfeit"),
    "streak-three-seats-go-on": (_streak_three_seats_go_on, None),
    "streak-half-way": (_streak_half_way, None),
    "join-absent": (_join_absent, "forfeit"),
    "join-absent-three-seats": (_join_absent_three_seats, None),
    "nobody-joined": (_nobody_joined, ABANDONED),
    "nobody-joined-with-a-short-clock": (_nobody_joined_with_a_short_clock, ABANDONED),
    "idle-survivor": (_idle_survivor, ABANDONED),
    "idle-survivor-at-the-join-deadline": (_idle_survivor_at_the_join_deadline, ABANDONED),
    "bot-exited-with-stand-ins": (_bot_exited_with_stand_ins, None),
}


@pytest.mark.parametrize("case", list(_RECOVERED))
def test_restore_makes_the_same_entries_result_stand_ins_and_forfeit_reasons(
    new_match: NewMatch, clock: FakeClock, case: str
) -> None:
    play, reason = _RECOVERED[case]
    match = play(new_match, clock)
    assert (match.result.reason if match.result else None) == reason
    clock.advance(60.0)  # the server was down
    again = _restored(match, clock)
    assert again.events == match.events
    assert again.result == match.result
    assert again.state == match.state
    assert again.seats_to_act() == match.seats_to_act()
    for seat in range(match.seat_count):
        assert again.stand_in_moves(seat) == match.stand_in_moves(seat)
        assert again.forfeit_reason(seat) == match.forfeit_reason(seat)
        assert again.is_forfeited(seat) == match.is_forfeited(seat)
        assert again.seat_record(seat) == match.seat_record(seat)


def test_a_restored_streak_goes_on_where_it_stopped(new_match: NewMatch, clock: FakeClock) -> None:
    match = _streak_half_way(new_match, clock)  # two stand-ins in a row each
    again = _restored(match, clock)
    _show_up(again, 0, 1)
    again.submit("tok-0", 1, expected_state_version=again.state_version)  # seat 0 resets
    _time_out(again, clock)  # seat 1: its third
    assert _forfeits(again) == [(1, ABSENT)]
    assert again.result is not None
    assert (again.result.reason, again.result.ranks) == ("forfeit", (1, 2))


def test_a_restored_match_restarts_the_join_window_for_seats_that_never_moved(
    new_match: NewMatch, clock: FakeClock
) -> None:
    match: Match = new_match(seats=3, target=1000, limit=100.0)
    _show_up(match, 0, 1)  # seat 1 only showed up; seat 2 never did
    _move(match)  # seat 0 moved itself
    clock.advance(10.0)
    clock.advance(60.0)  # the server is down for a minute; the first window has passed
    again = _restored(match, clock)
    restart = clock.now
    assert again.next_deadline() == restart + 30.0
    again.show_up(again.authenticate("tok-1"))  # seat 1 comes back; seat 2 does not
    clock.advance(29.99)
    again.expire()
    assert _forfeits(again) == []
    clock.advance(0.01)
    again.expire()
    assert _forfeits(again) == [(2, ABSENT)]  # seat 0 moved before the restart: it stays
    assert not again.finished


def test_a_seat_that_only_showed_up_before_the_restart_must_show_up_again(
    new_match: NewMatch, clock: FakeClock
) -> None:
    match: Match = new_match(target=1000, limit=100.0)
    _show_up(match, 1)
    _move(match)  # seat 0
    again = _restored(match, clock)
    clock.advance(30.0)
    again.expire()
    assert _forfeits(again) == [(1, ABSENT)]
    assert again.result is not None
    assert (again.result.reason, again.result.ranks) == ("forfeit", (1, 2))


def test_a_restored_match_whose_seats_all_moved_has_no_join_deadline(
    new_match: NewMatch, clock: FakeClock
) -> None:
    match: Match = new_match(target=1000, limit=100.0)
    _move(match)
    _move(match)
    again = _restored(match, clock)
    assert again.next_deadline() == clock.now + 100.0


def test_a_restored_finished_match_has_no_deadline(new_match: NewMatch, clock: FakeClock) -> None:
    again = _restored(_idle_survivor(new_match, clock), clock)
    assert again.finished
    assert again.next_deadline() is None
    assert not again.expire()


# ---------------------------------------------------------------------------- regressions


def test_a_seat_that_never_showed_up_does_not_win_at_the_join_deadline(
    new_match: NewMatch, clock: FakeClock
) -> None:
    match: Match = new_match(seats=3, target=1000, limit=100.0)
    match.resign("tok-0")  # seat 0 showed up, and left; seats 1 and 2 never show up
    clock.advance(30.0)
    match.expire()
    assert match.result is not None
    assert match.forfeit_reason(2) is ForfeitReason.ABSENT
    assert match.result.ranks[2] != 1


def test_a_seat_that_shows_up_after_the_join_deadline_still_forfeits(
    new_match: NewMatch, clock: FakeClock
) -> None:
    match: Match = new_match(seats=3, limit=100.0)
    _show_up(match, 0, 1)
    clock.advance(31.0)  # the deadline passed at 30 s; no timer has settled it yet
    with pytest.raises(SeatForfeitedError):
        match.submit("tok-2", 1, expected_state_version=0)
    assert _forfeits(match) == [(2, ABSENT)]


def test_a_restored_match_has_no_join_deadline_for_a_seat_that_already_resigned(
    new_match: NewMatch, clock: FakeClock
) -> None:
    match: Match = new_match(seats=3, target=1000, limit=100.0)
    match.resign("tok-0")  # seat 0 showed up and left; seats 1 and 2 move themselves
    _move(match)
    _move(match)
    assert match.next_deadline() == START + 100.0  # live: nothing but the decision
    again = _restored(match, clock)
    assert again.next_deadline() == clock.now + 100.0
    clock.advance(30.0)
    assert not again.expire()
