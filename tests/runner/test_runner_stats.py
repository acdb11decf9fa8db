"""Run statistics: fractional wins, Wilson intervals, means and Elo differences."""

from __future__ import annotations

import math

import pytest

from botarena.clients.runner._stats import (
    elo_difference,
    mean_interval,
    wilson_interval,
    win_share,
)


@pytest.mark.parametrize(
    ("rank", "ranks", "share"),
    [
        (1, [1, 2], 1.0),
        (2, [1, 2], 0.0),
        (1, [1, 1], 0.5),
        (1, [1, 1, 1, 4], 1 / 3),
        (3, [1, 1, 3], 0.0),
    ],
    ids=["sole-winner", "loser", "two-way-tie", "three-way-tie", "behind-a-tie"],
)
def test_win_share(rank: int, ranks: list[int], share: float) -> None:
    assert win_share(rank, ranks) == pytest.approx(share)


def test_wilson_interval_matches_the_textbook_value() -> None:
    estimate = wilson_interval(95, 100)
    assert estimate.value == pytest.approx(0.95)
    assert (estimate.low, estimate.high) == pytest.approx((0.8882, 0.9785), abs=1e-4)


@pytest.mark.parametrize(("wins", "games"), [(0, 10), (10, 10), (0.5, 1)])
def test_wilson_interval_stays_within_zero_and_one(wins: float, games: int) -> None:
    estimate = wilson_interval(wins, games)
    assert 0.0 <= estimate.low <= estimate.value <= estimate.high <= 1.0
    assert estimate.high - estimate.low > 0


def test_wilson_interval_narrows_with_more_games() -> None:
    assert wilson_interval(500, 1000).margin < wilson_interval(5, 10).margin


@pytest.mark.parametrize(("wins", "games"), [(1, 0), (-1, 10), (11, 10)])
def test_wilson_interval_rejects_impossible_counts(wins: float, games: int) -> None:
    with pytest.raises(ValueError, match="must be"):
        wilson_interval(wins, games)


def test_mean_interval_uses_the_sample_standard_error() -> None:
    estimate = mean_interval([1.0, 2.0, 3.0, 4.0])
    # sample sd = 1.29099; se = 0.645497; 1.959964 * se = 1.265151
    assert estimate.value == 2.5
    assert estimate.margin == pytest.approx(1.265151, abs=1e-6)


def test_mean_interval_of_one_value_is_that_value() -> None:
    assert mean_interval([7.0]).margin == 0.0


def test_elo_difference_is_zero_for_an_even_score() -> None:
    estimate = elo_difference([1.0, 0.0] * 50)
    assert estimate.value == pytest.approx(0.0)
    assert estimate.low < 0 < estimate.high
    assert estimate.low == pytest.approx(-estimate.high)


def test_elo_difference_of_a_75_percent_score() -> None:
    # 400 * log10(3) = 190.85 Elo for a 75 % score.
    assert elo_difference([1.0] * 75 + [0.0] * 25).value == pytest.approx(190.85, abs=0.01)


def test_elo_difference_counts_shared_wins_as_half() -> None:
    assert elo_difference([0.5] * 10).value == pytest.approx(0.0)


def test_elo_difference_is_infinite_when_every_game_went_one_way() -> None:
    assert elo_difference([1.0] * 20).value == math.inf
    assert elo_difference([0.0] * 20).value == -math.inf
