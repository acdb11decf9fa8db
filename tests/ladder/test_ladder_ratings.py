"""OpenSkill ratings move the right way: winners up, losers down, shared places shared."""

from __future__ import annotations

import itertools

import pytest

from botarena.server.ladder import DEFAULT_RATING, Rating, rate
from botarena.server.ladder.ratings import win_shares


def test_a_bot_that_always_wins_climbs_and_grows_more_certain() -> None:
    winner = loser = DEFAULT_RATING
    history = [winner]
    for _ in range(10):
        winner, loser = rate([winner, loser], [1, 2])
        history.append(winner)
    assert all(a.mu < b.mu for a, b in itertools.pairwise(history))
    assert all(a.conservative < b.conservative for a, b in itertools.pairwise(history))
    assert winner.sigma < DEFAULT_RATING.sigma
    assert loser.mu < DEFAULT_RATING.mu < winner.mu


@pytest.mark.parametrize("seat_of_winner", [0, 1, 2, 3], ids=lambda seat: f"seat{seat}")
def test_the_winner_of_a_four_seat_match_gains_most_whatever_its_seat(seat_of_winner: int) -> None:
    ranks = [2, 3, 4]
    ranks.insert(seat_of_winner, 1)
    after = rate([DEFAULT_RATING] * 4, ranks)
    by_rank = sorted(zip(ranks, after, strict=True))
    assert [r.mu for _, r in by_rank] == sorted((r.mu for r in after), reverse=True)
    assert after[seat_of_winner].mu > DEFAULT_RATING.mu


def test_shared_places_share_the_rating_change() -> None:
    first, second, third = rate([DEFAULT_RATING] * 3, [1, 1, 3])
    assert first == second
    assert first.mu > DEFAULT_RATING.mu > third.mu
    even = rate([DEFAULT_RATING, DEFAULT_RATING], [1, 1])
    assert even[0] == even[1]
    assert even[0].mu == pytest.approx(DEFAULT_RATING.mu)


def test_beating_a_stronger_bot_gains_more_than_beating_an_equal_one() -> None:
    strong = Rating(35.0, 4.0)
    upset, _ = rate([DEFAULT_RATING, strong], [1, 2])
    expected, _ = rate([DEFAULT_RATING, DEFAULT_RATING], [1, 2])
    assert upset.mu > expected.mu


def test_win_shares_split_a_shared_first_place() -> None:
    assert win_shares([1, 1, 3]) == [0.5, 0.5, 0.0]
    assert win_shares([2, 1]) == [0.0, 1.0]


def test_rate_refuses_mismatched_input() -> None:
    with pytest.raises(ValueError, match="ratings"):
        rate([DEFAULT_RATING], [1])
    with pytest.raises(ValueError, match="ratings"):
        rate([DEFAULT_RATING, DEFAULT_RATING], [1, 2, 3])
