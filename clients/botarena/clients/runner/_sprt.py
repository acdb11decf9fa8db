"""The sequential probability ratio test of ``botarena match --sprt``: pentanomial, logistic Elo.

The unit is a pair of games on one seed with the seats swapped, as in fastchess: the
first bot's pair score is one of 0, 1/4, 1/2, 3/4, 1 (two losses .. two wins; a shared
first place is half a win), so the five counts are a pentanomial sample. Counting games
instead would treat the two games of a deal as independent, while the deal ties them
(a lucky deal is lucky for both seats in turn), and overstate the variance.

H0 says the first bot is ``elo0`` stronger than the second, H1 says ``elo1``, in logistic
Elo (expected score ``1 / (1 + 10 ** (-elo / 400))``, the scale of the results table).
The log-likelihood ratio is the generalised one (GSPRT): for each hypothesis, the most
likely pentanomial distribution with that expected score, given the observed frequencies
(M. Van den Bergh, "Comments on normalized Elo", proposition 1.1), then the ratio of the
two likelihoods of the sample. The test accepts H1 at ``log((1 - beta) / alpha)`` and H0
at ``log(beta / (1 - alpha))`` (Wald's bounds).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

__all__ = ["PAIR_SCORES", "Sprt", "SprtStatus", "elo_score", "pentanomial_llr"]

PAIR_SCORES = (0.0, 0.25, 0.5, 0.75, 1.0)
"""The first bot's score in a pair of games, by pentanomial category."""

Decision = Literal["H0", "H1"]

# An outcome never seen still gets this much of a count: without it the most likely
# distribution with a given mean may not exist (every pair won: no mass below the mean).
_EMPTY_COUNT = 1e-3
_BISECTIONS = 200


def elo_score(elo: float) -> float:
    """Return the expected score of a bot ``elo`` logistic Elo stronger than its opponent.

    >>> elo_score(0.0)
    0.5
    >>> round(elo_score(400.0), 4)
    0.9091
    """
    return 1 / (1 + 10 ** (-elo / 400))


def _most_likely(frequencies: Sequence[float], mean: float) -> list[float]:
    """Return the distribution over :data:`PAIR_SCORES` with expectation ``mean`` that
    gives the observed ``frequencies`` the highest likelihood.

    It is ``f_i / (1 + theta * (a_i - mean))`` for the one ``theta`` that makes its
    expectation ``mean`` (a Lagrange multiplier); the condition below falls strictly
    with ``theta`` on the interval where every term stays positive, so bisection finds it.
    """
    offsets = [score - mean for score in PAIR_SCORES]
    low = -1 / max(offsets)
    high = -1 / min(offsets)

    def excess(theta: float) -> float:
        return sum(f * d / (1 + theta * d) for f, d in zip(frequencies, offsets, strict=True))

    for _ in range(_BISECTIONS):
        middle = (low + high) / 2
        if middle in (low, high):
            break
        if excess(middle) > 0:
            low = middle
        else:
            high = middle
    theta = (low + high) / 2
    return [f / (1 + theta * d) for f, d in zip(frequencies, offsets, strict=True)]


def pentanomial_llr(counts: Sequence[int], elo0: float, elo1: float) -> float:
    """Return the log-likelihood ratio of H1 (``elo1``) over H0 (``elo0``) given the
    pentanomial ``counts`` (pairs scoring 0, 1/4, 1/2, 3/4 and 1 for the first bot).

    >>> pentanomial_llr([0, 0, 0, 0, 0], 0, 10)
    0.0
    >>> abs(pentanomial_llr([10, 20, 40, 20, 10], -10, 10)) < 1e-9
    True
    >>> pentanomial_llr([0, 5, 10, 40, 20], 0, 20) > 0
    True

    Raises:
        ValueError: Not five counts, a negative count, or ``elo0 >= elo1``.
    """
    if len(counts) != len(PAIR_SCORES) or min(counts) < 0:
        raise ValueError(f"need five counts of pairs, none negative, got {list(counts)}")
    if elo0 >= elo1:
        raise ValueError(f"elo0 must be below elo1, got {elo0} and {elo1}")
    if not sum(counts):
        return 0.0
    regularised = [count or _EMPTY_COUNT for count in counts]
    total = sum(regularised)
    frequencies = [count / total for count in regularised]
    under_h0 = _most_likely(frequencies, elo_score(elo0))
    under_h1 = _most_likely(frequencies, elo_score(elo1))
    return total * sum(
        f * (math.log(p1) - math.log(p0))
        for f, p0, p1 in zip(frequencies, under_h0, under_h1, strict=True)
    )


@dataclass(frozen=True, slots=True)
class SprtStatus:
    """Where the test stands.

    Attributes:
        llr: The log-likelihood ratio so far.
        decision: ``"H1"`` (the first bot is ``elo1`` stronger), ``"H0"`` (``elo0``), or
            ``None`` while the LLR is between the bounds.
        pairs: Pairs counted.
    """

    llr: float
    decision: Decision | None
    pairs: int


@dataclass(frozen=True, slots=True)
class Sprt:
    """An SPRT of the first bot against the second, with its bounds.

    >>> test = Sprt(elo0=0, elo1=50, alpha=0.05, beta=0.05)
    >>> round(test.lower, 3), round(test.upper, 3)
    (-2.944, 2.944)
    >>> test.status([0, 1, 3, 40, 57]).decision
    'H1'
    >>> test.status([20, 40, 80, 40, 20]).decision
    'H0'

    Attributes:
        elo0: The Elo difference under H0.
        elo1: The Elo difference under H1 (above ``elo0``).
        alpha: The chance of accepting H1 when H0 holds.
        beta: The chance of accepting H0 when H1 holds.
    """

    elo0: float
    elo1: float
    alpha: float = 0.05
    beta: float = 0.05

    def __post_init__(self) -> None:
        if not self.elo0 < self.elo1:
            raise ValueError(f"ELO0 must be below ELO1, got {self.elo0:g},{self.elo1:g}")
        for name, value in (("alpha", self.alpha), ("beta", self.beta)):
            if not 0 < value < 1:
                raise ValueError(f"{name} must be between 0 and 1, got {value:g}")
        if self.alpha + self.beta >= 1:
            raise ValueError("alpha + beta must be below 1")

    @property
    def lower(self) -> float:
        """The LLR at or below which the test accepts H0."""
        return math.log(self.beta / (1 - self.alpha))

    @property
    def upper(self) -> float:
        """The LLR at or above which the test accepts H1."""
        return math.log((1 - self.beta) / self.alpha)

    def status(self, counts: Sequence[int]) -> SprtStatus:
        """Return the test's state after the pairs ``counts`` (see :func:`pentanomial_llr`)."""
        llr = pentanomial_llr(counts, self.elo0, self.elo1)
        decision: Decision | None = None
        if llr >= self.upper:
            decision = "H1"
        elif llr <= self.lower:
            decision = "H0"
        return SprtStatus(llr, decision, sum(counts))
