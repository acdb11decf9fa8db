"""The shared engine vocabulary: ranks, outcomes and move errors."""

from __future__ import annotations

import pytest

from botarena.server.games._core import (
    GameOverError,
    IllegalMoveError,
    NotYourTurnError,
    Outcome,
    rank_by_score,
)


@pytest.mark.parametrize(
    ("keys", "ranks"),
    [
        ([10, 12, 10], (2, 1, 2)),
        ([3, 3], (1, 1)),
        ([1, 2, 3, 4], (4, 3, 2, 1)),
        ([5, 5, 4], (1, 1, 3)),
        ([(5, 2), (5, 3), (5, 3)], (3, 1, 1)),
        ([(7, 0), (6, 9)], (1, 2)),
    ],
    ids=["plain", "all-tied", "distinct", "shared-first-skips-second", "tie-break", "score-first"],
)
def test_rank_by_score(keys: list[int] | list[tuple[int, int]], ranks: tuple[int, ...]) -> None:
    assert rank_by_score(keys) == ranks


def test_outcome_winners_are_the_seats_ranked_first() -> None:
    outcome = Outcome(scores=(20, 31, 31), ranks=(3, 1, 1), reason="went_out")
    assert outcome.winners == frozenset({1, 2})


def test_illegal_move_error_carries_code_and_sentence() -> None:
    error = IllegalMoveError("CELL_OCCUPIED", "cell (1, 2) already holds a tile")
    assert isinstance(error, ValueError)
    assert (error.reason, error.message) == ("CELL_OCCUPIED", "cell (1, 2) already holds a tile")
    assert str(error) == "CELL_OCCUPIED: cell (1, 2) already holds a tile"


def test_not_your_turn_names_who_is_awaited() -> None:
    error = NotYourTurnError(2, frozenset({0, 1}))
    assert error.reason == "NOT_YOUR_TURN"
    assert "seat 2" in error.message
    assert "0, 1" in error.message


def test_game_over_error_reason() -> None:
    assert GameOverError().reason == "GAME_OVER"
