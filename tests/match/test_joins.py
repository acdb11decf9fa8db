"""Attendance and nobody_plays (match/_joins.py): the join window, who is missing when it
closes, and when a match nobody plays any more is abandoned."""

from __future__ import annotations

import pytest

from botarena.server.match._joins import Attendance, nobody_plays

IN = (False, False, False)  # nobody forfeited


def test_the_window_opens_for_its_timeout_and_nobody_has_shown_up() -> None:
    attendance = Attendance(3, 30.0, now=100.0)
    assert attendance.deadline == 130.0
    assert [attendance.joined(seat) for seat in range(3)] == [False] * 3
    assert attendance.due(IN) == 130.0


def test_showing_up_counts_once_and_the_window_closes_when_everybody_is_here() -> None:
    attendance = Attendance(2, 30.0, now=0.0)
    assert attendance.show_up(0, (False, False))
    assert not attendance.show_up(0, (False, False))  # the second call is not a first
    assert attendance.due((False, False)) == 30.0
    assert attendance.show_up(1, (False, False))
    assert (attendance.deadline, attendance.due((False, False))) == (None, None)


def test_a_forfeited_seat_is_not_waited_for() -> None:
    attendance = Attendance(2, 30.0, now=0.0)
    attendance.show_up(0, (False, True))
    assert not attendance.awaiting((False, True))
    assert attendance.deadline is None


@pytest.mark.parametrize(
    ("shown_up", "forfeited", "absent"),
    [
        ((0,), IN, [1, 2]),
        ((0, 2), IN, [1]),
        ((1,), (False, False, True), [0]),
        ((), IN, None),  # nobody: abandoned
        ((0,), (True, False, False), None),  # the only one who came has left: abandoned
    ],
    ids=["one-came", "two-came", "a-forfeit-is-not-missing", "nobody", "only-a-leaver"],
)
def test_closing_the_window_names_the_absent_or_abandons(
    shown_up: tuple[int, ...], forfeited: tuple[bool, ...], absent: list[int] | None
) -> None:
    attendance = Attendance(3, 30.0, now=0.0)
    for seat in shown_up:
        attendance.show_up(seat, IN)
    assert attendance.close(forfeited) == absent
    assert attendance.deadline is None


def test_reopening_gives_the_missing_a_fresh_window_and_none_when_nobody_is_missing() -> None:
    attendance = Attendance(2, 30.0, now=0.0)
    attendance.show_up(0, (False, False))
    attendance.reopen(500.0, (False, False))
    assert attendance.deadline == 530.0
    attendance.reopen(600.0, (False, True))  # the missing seat has left meanwhile
    assert attendance.deadline is None


@pytest.mark.parametrize(
    ("absent_last", "streaks", "abandoned"),
    [(True, [2], True), (True, [0], False), (False, [3], False), (True, [], True)],
    ids=["idle-survivor", "playing-survivor", "resigned-last", "nobody-left"],
)
def test_a_match_nobody_plays_any_more_is_abandoned(
    absent_last: bool, streaks: list[int], abandoned: bool
) -> None:
    assert nobody_plays(absent_last, streaks) is abandoned
