"""The ladder's scheduler: which bots play together next, and in which seats. Pure.

:func:`schedule` is greedy and deterministic. While a group can be formed, it takes the
available bot with the highest rating uncertainty (sigma; then fewer games, then id) and
completes its group one partner at a time, each time choosing the bot that has played
the fewest matches with the group so far, then the most uncertain one. A partner must
keep every pair of the group under the per-pair hourly cap. A bot is available while the
matches scheduled for it stay within its free capacity. When the most uncertain bot
cannot complete a group (the cap), it sits out this round and the next one tries.

Seats rotate: within a group, each seat in turn goes to the member that has played that
seat least often so far (ties to the earlier-chosen member), so over time every bot
plays every seat about equally often.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

__all__ = ["Candidate", "capped_pairs", "schedule"]


@dataclass(frozen=True, slots=True)
class Candidate:
    """A connected, unpaused bot the scheduler may seat.

    Attributes:
        bot_id: The bot.
        free_capacity: How many more matches it may be in now (declared capacity minus
            running matches).
        sigma: Its rating uncertainty.
        games: Rated matches played.
        seat_counts: Matches played so far in each seat index.
    """

    bot_id: str
    free_capacity: int
    sigma: float
    games: int = 0
    seat_counts: Mapping[int, int] = field(default_factory=dict)


def schedule(
    candidates: Sequence[Candidate],
    *,
    seats: int,
    pair_games: Mapping[frozenset[str], int],
    pair_games_last_hour: Mapping[frozenset[str], int],
    pair_cap_per_hour: int,
) -> list[tuple[str, ...]]:
    """Return the matches to start now, each as its bots' ids in seat order.

    Args:
        candidates: The bots that may play (distinct ids).
        seats: Seats per match (at least 2).
        pair_games: Matches each pair has played together, ever.
        pair_games_last_hour: Matches each pair started within the last hour (running
            ones included).
        pair_cap_per_hour: A pair never starts more matches than this within an hour.

    Returns:
        The new matches; no bot appears in more of them than its free capacity, no bot
        twice in one, and no pair goes over the cap.

    Raises:
        ValueError: ``seats`` below 2.
    """
    if seats < 2:
        raise ValueError(f"a match needs at least 2 seats, not {seats}")
    by_id = {candidate.bot_id: candidate for candidate in candidates}
    free = {candidate.bot_id: candidate.free_capacity for candidate in candidates}
    together = dict(pair_games)
    recent = dict(pair_games_last_hour)
    seat_counts = {c.bot_id: dict(c.seat_counts) for c in candidates}
    sitting_out: set[str] = set()
    matches: list[tuple[str, ...]] = []

    def uncertainty_order(bot_id: str) -> tuple[float, int, str]:
        candidate = by_id[bot_id]
        return (-candidate.sigma, candidate.games, bot_id)

    while True:
        available = sorted(
            (bot for bot, count in free.items() if count > 0 and bot not in sitting_out),
            key=uncertainty_order,
        )
        if len(available) < seats:
            return matches
        anchor = available[0]
        group = [anchor]
        for _ in range(seats - 1):
            options = [
                bot
                for bot in available
                if bot not in group
                and all(recent.get(frozenset((bot, m)), 0) < pair_cap_per_hour for m in group)
            ]
            if not options:
                break
            group.append(
                min(
                    options,
                    key=lambda bot: (
                        sum(together.get(frozenset((bot, m)), 0) for m in group),
                        uncertainty_order(bot),
                    ),
                )
            )
        if len(group) < seats:
            sitting_out.add(anchor)
            continue
        ordered = _rotate(group, seat_counts)
        matches.append(tuple(ordered))
        for index, bot in enumerate(ordered):
            free[bot] -= 1
            counts = seat_counts[bot]
            counts[index] = counts.get(index, 0) + 1
            for other in ordered[index + 1 :]:
                pair = frozenset((bot, other))
                together[pair] = together.get(pair, 0) + 1
                recent[pair] = recent.get(pair, 0) + 1


def capped_pairs(
    candidates: Sequence[Candidate],
    *,
    pair_games_last_hour: Mapping[frozenset[str], int],
    pair_cap_per_hour: int,
) -> set[frozenset[str]]:
    """Return the pairs of ``candidates`` that :func:`schedule` will not seat together
    now: they started ``pair_cap_per_hour`` matches within the last hour."""
    ids = {candidate.bot_id for candidate in candidates}
    return {
        pair
        for pair, count in pair_games_last_hour.items()
        if count >= pair_cap_per_hour and pair <= ids
    }


def _rotate(group: Sequence[str], seat_counts: Mapping[str, Mapping[int, int]]) -> list[str]:
    remaining = list(group)
    ordered: list[str] = []
    for seat in range(len(group)):
        # min() keeps the first of equal keys: ties go to the earlier-chosen member.
        chosen = min(remaining, key=lambda bot: seat_counts[bot].get(seat, 0))
        remaining.remove(chosen)
        ordered.append(chosen)
    return ordered
