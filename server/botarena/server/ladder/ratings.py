"""Ladder ratings: OpenSkill's Plackett-Luce model over a match's places.

Each seat is a team of one; the places come from the match result's ranks
(:class:`~botarena.server.match.MatchResult`), which are competition ranks (seats the
rules cannot separate share a place) with forfeited seats already after every other
seat. Plackett-Luce handles 2 to 5 seats and shared places. The leaderboard ranks by the
conservative estimate ``mu - 3 * sigma``, which a bot raises by winning and by playing
(its uncertainty shrinks).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from openskill.models import PlackettLuce

__all__ = ["DEFAULT_RATING", "Rating", "rate", "win_shares"]

_MODEL = PlackettLuce()


@dataclass(frozen=True, slots=True)
class Rating:
    """A skill estimate: a normal distribution with mean ``mu`` and deviation ``sigma``."""

    mu: float
    sigma: float

    @property
    def conservative(self) -> float:
        """``mu - 3 * sigma``: the skill the bot has with about 99.9 % confidence."""
        return self.mu - 3 * self.sigma


DEFAULT_RATING = Rating(_MODEL.mu, _MODEL.sigma)
"""A new bot's rating: mu 25, sigma 25/3 (conservative estimate 0)."""


def rate(ratings: Sequence[Rating], ranks: Sequence[int]) -> list[Rating]:
    """Return every seat's rating after a match with ``ranks`` (1 = first, ties shared).

    >>> winner, loser = rate([DEFAULT_RATING, DEFAULT_RATING], [1, 2])
    >>> winner.mu > 25 > loser.mu, winner.sigma < DEFAULT_RATING.sigma
    (True, True)

    Raises:
        ValueError: Fewer than two seats, or ``ranks`` does not match ``ratings``.
    """
    if len(ratings) < 2 or len(ranks) != len(ratings):
        raise ValueError(f"{len(ratings)} ratings and {len(ranks)} ranks")
    teams = [[_MODEL.rating(mu=rating.mu, sigma=rating.sigma)] for rating in ratings]
    rated = _MODEL.rate(teams, ranks=[float(rank) for rank in ranks])
    return [Rating(team[0].mu, team[0].sigma) for team in rated]


def win_shares(ranks: Sequence[int]) -> list[float]:
    """Return each seat's part of a win: 1/k for a first place shared by k seats.

    >>> win_shares([1, 1, 3])
    [0.5, 0.5, 0.0]
    """
    winners = sum(1 for rank in ranks if rank == 1)
    return [1.0 / winners if rank == 1 else 0.0 for rank in ranks]
