"""A finished match's places: the engine's ranks among the seats that stayed, then the
forfeited seats, the last to leave first; an abandoned match ranks every seat last."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

__all__ = ["ABANDONED", "MatchResult", "places"]

ABANDONED = "abandoned"
"""The end reason of a match nobody played (see the ``_match`` module docstring)."""


@dataclass(frozen=True, slots=True)
class MatchResult:
    """The final result of a match, forfeits taken into account.

    Attributes:
        scores: Final score by seat.
        ranks: Place by seat, 1 = first; forfeited seats rank after all others.
        forfeited: Whether each seat forfeited.
        reason: The engine's end reason, ``"forfeit"`` when fewer than two seats remained,
            or ``"abandoned"`` (:data:`ABANDONED`; every seat ranks last).
        forfeit_reasons: Each seat's :class:`ForfeitReason` value, ``""`` if it did not.
    """

    scores: tuple[int, ...]
    ranks: tuple[int, ...]
    forfeited: tuple[bool, ...]
    reason: str
    forfeit_reasons: tuple[str, ...] = ()

    @property
    def abandoned(self) -> bool:
        """Whether nobody played the match (no seat wins)."""
        return self.reason == ABANDONED


def places(
    engine_ranks: Sequence[int], forfeit_orders: Sequence[int | None], *, abandoned: bool
) -> tuple[int, ...]:
    """Return every seat's place, 1 = first.

    Args:
        engine_ranks: The engine's rank by seat (equal ranks tie).
        forfeit_orders: By seat, when it forfeited (1 = first to leave), ``None`` if not.
        abandoned: Whether nobody played: every seat then ranks last.
    """
    seat_count = len(engine_ranks)
    if abandoned:
        return (seat_count,) * seat_count
    survivors = [seat for seat, order in enumerate(forfeit_orders) if order is None]
    left = [order for order in forfeit_orders if order is not None]
    ranks = [0] * seat_count
    for seat, order in enumerate(forfeit_orders):
        if order is None:
            ranks[seat] = 1 + sum(engine_ranks[o] < engine_ranks[seat] for o in survivors)
        else:
            # The later a seat dropped out, the better its place.
            ranks[seat] = len(survivors) + 1 + sum(other > order for other in left)
    return tuple(ranks)
