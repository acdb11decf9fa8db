"""A finished match's places (``_ranking.places``) and its result."""

from __future__ import annotations

import pytest

from botarena.server.match._ranking import ABANDONED, MatchResult, places


@pytest.mark.parametrize(
    ("engine_ranks", "forfeit_orders", "expected"),
    [
        ((1, 2, 3), (None, None, None), (1, 2, 3)),
        ((2, 1, 1), (None, None, None), (3, 1, 1)),
        ((1, 2, 3), (1, None, None), (3, 1, 2)),
        ((1, 1, 1, 1), (2, None, 1, None), (3, 1, 4, 1)),
        ((1, 2), (1, 2), (2, 1)),
    ],
    ids=[
        "engine-order",
        "ties-share-a-place",
        "a-forfeit-ranks-last-even-when-best",
        "the-later-to-leave-ranks-better",
        "everybody-left",
    ],
)
def test_places(
    engine_ranks: tuple[int, ...],
    forfeit_orders: tuple[int | None, ...],
    expected: tuple[int, ...],
) -> None:
    assert places(engine_ranks, forfeit_orders, abandoned=False) == expected


def test_an_abandoned_match_ranks_every_seat_last() -> None:
    assert places((1, 2, 3), (1, None, None), abandoned=True) == (3, 3, 3)


def test_a_result_is_abandoned_only_for_the_abandoned_reason() -> None:
    def result(reason: str) -> MatchResult:
        return MatchResult((0, 0), (2, 2), (True, True), reason)

    assert result(ABANDONED).abandoned
    assert not result("forfeit").abandoned
