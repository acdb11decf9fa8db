"""The scheduler's properties: capacity, the hourly pair cap, preferences, seat rotation."""

from __future__ import annotations

from collections import Counter
from itertools import combinations, pairwise

import pytest
from hypothesis import given
from hypothesis import strategies as st

from botarena.server.ladder import Candidate, schedule


@st.composite
def situations(draw: st.DrawFn) -> tuple[list[Candidate], int, dict[frozenset[str], int], int]:
    count = draw(st.integers(0, 8))
    names = [f"bot{index}" for index in range(count)]
    candidates = [
        Candidate(
            bot_id=name,
            free_capacity=draw(st.integers(0, 4)),
            sigma=draw(st.floats(0.5, 9.0)),
            games=draw(st.integers(0, 50)),
            seat_counts={seat: draw(st.integers(0, 5)) for seat in range(4)},
        )
        for name in names
    ]
    recent = {frozenset(pair): draw(st.integers(0, 3)) for pair in combinations(names, 2)}
    return candidates, draw(st.integers(2, 4)), recent, draw(st.integers(1, 3))


@given(situations())
def test_no_bot_is_scheduled_beyond_its_capacity_or_twice_in_a_match(
    situation: tuple[list[Candidate], int, dict[frozenset[str], int], int],
) -> None:
    candidates, seats, recent, cap = situation
    matches = schedule(
        candidates,
        seats=seats,
        pair_games=recent,
        pair_games_last_hour=recent,
        pair_cap_per_hour=cap,
    )
    seated = Counter(bot for match in matches for bot in match)
    for candidate in candidates:
        assert seated[candidate.bot_id] <= candidate.free_capacity
    for match in matches:
        assert len(match) == seats
        assert len(set(match)) == seats


@given(situations())
def test_no_pair_goes_over_its_hourly_cap(
    situation: tuple[list[Candidate], int, dict[frozenset[str], int], int],
) -> None:
    candidates, seats, recent, cap = situation
    matches = schedule(
        candidates, seats=seats, pair_games={}, pair_games_last_hour=recent, pair_cap_per_hour=cap
    )
    started = Counter(frozenset(pair) for match in matches for pair in combinations(match, 2))
    for pair, count in started.items():
        assert recent.get(pair, 0) + count <= cap


@given(situations())
def test_the_most_uncertain_bot_plays_when_it_can(
    situation: tuple[list[Candidate], int, dict[frozenset[str], int], int],
) -> None:
    candidates, seats, _, _ = situation
    available = [c for c in candidates if c.free_capacity > 0]
    matches = schedule(
        candidates, seats=seats, pair_games={}, pair_games_last_hour={}, pair_cap_per_hour=1000
    )
    if len(available) >= seats:
        top = min(available, key=lambda c: (-c.sigma, c.games, c.bot_id))
        assert top.bot_id in matches[0]
    else:
        assert matches == []


def test_a_bot_meets_the_opponent_it_has_played_least() -> None:
    candidates = [Candidate("a", 1, 8.0), Candidate("b", 1, 7.0), Candidate("c", 1, 1.0)]
    together = {frozenset(("a", "b")): 5, frozenset(("a", "c")): 0}
    matches = schedule(
        candidates, seats=2, pair_games=together, pair_games_last_hour={}, pair_cap_per_hour=10
    )
    assert [set(match) for match in matches] == [{"a", "c"}]


def test_among_equal_histories_the_more_uncertain_partner_is_chosen() -> None:
    candidates = [Candidate("a", 1, 8.0), Candidate("b", 1, 2.0), Candidate("c", 1, 6.0)]
    matches = schedule(
        candidates, seats=2, pair_games={}, pair_games_last_hour={}, pair_cap_per_hour=10
    )
    assert [set(match) for match in matches] == [{"a", "c"}]


def test_a_capped_pair_is_not_scheduled_and_the_next_bot_gets_a_turn() -> None:
    candidates = [Candidate("a", 1, 8.0), Candidate("b", 1, 7.0), Candidate("c", 1, 6.0)]
    recent = {frozenset(("a", "b")): 2, frozenset(("a", "c")): 2}
    matches = schedule(
        candidates, seats=2, pair_games={}, pair_games_last_hour=recent, pair_cap_per_hour=2
    )
    assert [set(match) for match in matches] == [{"b", "c"}]


def test_seats_rotate_between_repeated_opponents() -> None:
    counts: dict[str, dict[int, int]] = {"a": {}, "b": {}}
    first_seats = []
    for _ in range(6):
        candidates = [Candidate(bot, 1, 5.0, seat_counts=counts[bot]) for bot in ("a", "b")]
        (match,) = schedule(
            candidates, seats=2, pair_games={}, pair_games_last_hour={}, pair_cap_per_hour=100
        )
        first_seats.append(match[0])
        for seat, bot in enumerate(match):
            counts[bot][seat] = counts[bot].get(seat, 0) + 1
    assert first_seats.count("a") == first_seats.count("b") == 3
    assert all(x != y for x, y in pairwise(first_seats))


def test_a_bot_with_more_first_seats_gets_a_later_seat() -> None:
    candidates = [
        Candidate("a", 1, 8.0, seat_counts={0: 4, 1: 1}),
        Candidate("b", 1, 7.0, seat_counts={0: 1, 1: 4}),
    ]
    (match,) = schedule(
        candidates, seats=2, pair_games={}, pair_games_last_hour={}, pair_cap_per_hour=10
    )
    assert match == ("b", "a")


def test_a_match_needs_two_seats() -> None:
    with pytest.raises(ValueError, match="2 seats"):
        schedule([], seats=1, pair_games={}, pair_games_last_hour={}, pair_cap_per_hour=1)
