"""The statistics of a match run: win rates, means and Elo differences with their errors.

Intervals are 95 % by default and use the normal approximation, as cutechess-cli and
fastchess do; the win-rate interval is Wilson's, which stays inside [0, 1] and behaves at
0 % and 100 %. A shared win counts as a fraction: a first place shared by k seats is worth
1/k of a win to each of them.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from statistics import NormalDist, fmean

__all__ = ["Estimate", "elo_difference", "mean_interval", "wilson_interval", "win_share"]

_DEFAULT_CONFIDENCE = 0.95


@dataclass(frozen=True, slots=True)
class Estimate:
    """A point estimate with a symmetric or asymmetric confidence interval."""

    value: float
    low: float
    high: float

    @property
    def margin(self) -> float:
        """Half the interval's width: the "±" of the estimate."""
        return (self.high - self.low) / 2


def _z(confidence: float) -> float:
    if not 0 < confidence < 1:
        raise ValueError(f"confidence must be in (0, 1), got {confidence}")
    return NormalDist().inv_cdf(0.5 + confidence / 2)


def win_share(rank: int, ranks: Sequence[int]) -> float:
    """Return the part of a win a seat with ``rank`` earns among ``ranks`` (all seats).

    >>> win_share(1, [1, 2])
    1.0
    >>> win_share(1, [1, 1, 3])
    0.5
    >>> win_share(2, [1, 2])
    0.0
    """
    if rank != 1:
        return 0.0
    return 1.0 / sum(1 for other in ranks if other == 1)


def wilson_interval(wins: float, games: int, confidence: float = _DEFAULT_CONFIDENCE) -> Estimate:
    """Return the win rate ``wins / games`` with its Wilson score interval.

    >>> estimate = wilson_interval(95, 100)
    >>> round(estimate.value, 2), round(estimate.low, 3), round(estimate.high, 3)
    (0.95, 0.888, 0.978)

    Raises:
        ValueError: ``games`` is not positive or ``wins`` is outside ``[0, games]``.
    """
    if games <= 0:
        raise ValueError(f"games must be positive, got {games}")
    if not 0 <= wins <= games:
        raise ValueError(f"wins must be within [0, {games}], got {wins}")
    z = _z(confidence)
    rate = wins / games
    denominator = 1 + z * z / games
    centre = (rate + z * z / (2 * games)) / denominator
    spread = z * math.sqrt(rate * (1 - rate) / games + z * z / (4 * games * games)) / denominator
    # Rounding can put an end a hair past the rate at 0 % or 100 %; the interval holds it.
    return Estimate(
        rate, max(0.0, min(rate, centre - spread)), min(1.0, max(rate, centre + spread))
    )


def mean_interval(values: Sequence[float], confidence: float = _DEFAULT_CONFIDENCE) -> Estimate:
    """Return the mean of ``values`` with a normal-approximation confidence interval.

    With a single value the interval is that value.

    Raises:
        ValueError: ``values`` is empty.
    """
    if not values:
        raise ValueError("no values")
    mean = fmean(values)
    if len(values) == 1:
        return Estimate(mean, mean, mean)
    variance = sum((value - mean) ** 2 for value in values) / (len(values) - 1)
    margin = _z(confidence) * math.sqrt(variance / len(values))
    return Estimate(mean, mean - margin, mean + margin)


def _elo(score: float) -> float:
    if score <= 0:
        return -math.inf
    if score >= 1:
        return math.inf
    return -400 * math.log10(1 / score - 1)


def elo_difference(
    game_scores: Sequence[float], confidence: float = _DEFAULT_CONFIDENCE
) -> Estimate:
    """Return the Elo difference implied by per-game scores (1 win, 0.5 shared, 0 loss).

    The interval maps the score's normal interval through the Elo curve, as cutechess-cli
    does; it is infinite when every game went one way.

    >>> estimate = elo_difference([1.0] * 75 + [0.0] * 25)
    >>> round(estimate.value), round(estimate.low), round(estimate.high)
    (191, 119, 282)

    Raises:
        ValueError: ``game_scores`` is empty.
    """
    if not game_scores:
        raise ValueError("no games")
    score = mean_interval(game_scores, confidence)
    return Estimate(_elo(score.value), _elo(score.low), _elo(score.high))
