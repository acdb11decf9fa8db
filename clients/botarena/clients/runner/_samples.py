"""The samples of a run: sets of games on one deal, and each bot's score in a set.

A *set* is the games of one seed label played by one group of bots, in every rotation of
the seats (a pair of games for two seats). Its games share a deal, so they are one sample,
not several: a lucky deal is lucky for every seat in turn. In a game of three to five
seats a bot meets several opponents at once, and those pairwise results share the game
too. So a bot's score in a set is its mean pairwise result against each opponent over
the set's games (1 for a better place, 1/2 for the same, 0 for a worse one); intervals
and the SPRT count sets, never games or pairs within a game.

Abandoned games (nobody played) are left out of every sample: they measure no play.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from statistics import fmean

from botarena.clients.runner._records import GameRecord

__all__ = [
    "DealSet",
    "PairTally",
    "deal_sets",
    "margin_samples",
    "pairwise_result",
    "score_samples",
    "versus_samples",
]


@dataclass(frozen=True, slots=True)
class DealSet:
    """The played (not abandoned) games of one label and one group of bots.

    Attributes:
        label: The seed label.
        bots: The group's lineup indices, sorted.
        games: Its played games, by game number.
    """

    label: int
    bots: tuple[int, ...]
    games: tuple[GameRecord, ...]

    @property
    def complete(self) -> bool:
        """Whether every rotation of the seats was played."""
        return len(self.games) == len(self.bots)


def deal_sets(records: Iterable[GameRecord]) -> list[DealSet]:
    """Return the sets of ``records``, by label then group; abandoned games left out."""
    grouped: dict[tuple[int, tuple[int, ...]], list[GameRecord]] = {}
    for record in records:
        if record.abandoned:
            continue
        key = (record.plan.label, tuple(sorted(record.plan.lineup_at_seat)))
        grouped.setdefault(key, []).append(record)
    return [
        DealSet(label, bots, tuple(sorted(games, key=lambda game: game.plan.number)))
        for (label, bots), games in sorted(grouped.items())
    ]


def pairwise_result(record: GameRecord, bot: int, opponent: int) -> float:
    """Return ``bot``'s result against ``opponent`` in one game: 1 for a better place,
    1/2 for the same place, 0 for a worse one (a forfeited seat ranks last)."""
    seats = record.plan.lineup_at_seat
    mine = record.seats[seats.index(bot)].rank
    theirs = record.seats[seats.index(opponent)].rank
    return 1.0 if mine < theirs else 0.5 if mine == theirs else 0.0


def _margin(record: GameRecord, bot: int) -> float:
    seats = record.plan.lineup_at_seat
    mine = record.seats[seats.index(bot)].score
    others = [record.seats[seat].score for seat, index in enumerate(seats) if index != bot]
    return mine - fmean(others)


def score_samples(sets: Sequence[DealSet], bot: int) -> list[float]:
    """Return ``bot``'s score in each set it played: its mean pairwise result against
    each opponent over the set's games."""
    return [
        fmean(
            pairwise_result(game, bot, opponent)
            for game in deal.games
            for opponent in deal.bots
            if opponent != bot
        )
        for deal in sets
        if bot in deal.bots
    ]


def margin_samples(sets: Sequence[DealSet], bot: int) -> list[float]:
    """Return ``bot``'s points margin in each set it played: its score minus the mean
    score of the other seats, averaged over the set's games."""
    return [fmean(_margin(game, bot) for game in deal.games) for deal in sets if bot in deal.bots]


def versus_samples(sets: Sequence[DealSet], bot: int, opponent: int) -> list[float]:
    """Return ``bot``'s mean pairwise result against ``opponent`` in each set where both
    played (in games of three or more seats, alongside others)."""
    return [
        fmean(pairwise_result(game, bot, opponent) for game in deal.games)
        for deal in sets
        if bot in deal.bots and opponent in deal.bots
    ]


class PairTally:
    """The pentanomial counts of lineup bot ``first`` against ``second``, pair by pair as
    games end: pairs (two-seat sets) scoring 0, 1/4, 1/2, 3/4 and 1 for ``first``.

    A pair counts once both of its games are played; an abandoned game leaves its pair
    uncounted, as does a game that failed or is still running.
    """

    def __init__(self, first: int = 0, second: int = 1) -> None:
        self.first = first
        self.second = second
        self.counts = [0] * 5
        self._waiting: dict[int, GameRecord] = {}

    @property
    def games(self) -> int:
        """The games in the counted pairs."""
        return 2 * sum(self.counts)

    def add(self, record: GameRecord) -> None:
        """Count ``record`` (a game of another group, or abandoned, changes nothing)."""
        if record.abandoned or sorted(record.plan.lineup_at_seat) != sorted(
            (self.first, self.second)
        ):
            return
        partner = self._waiting.pop(record.plan.label, None)
        if partner is None:
            self._waiting[record.plan.label] = record
            return
        points = sum(pairwise_result(game, self.first, self.second) for game in (partner, record))
        self.counts[round(points * 2)] += 1
