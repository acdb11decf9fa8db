"""The samples of a run: sets of games on one deal, pairwise scores, margins, pair tallies."""

from __future__ import annotations

import pytest

from botarena.clients.runner import GamePlan, GameRecord, SeatRecord
from botarena.clients.runner._plan import BotSpec
from botarena.clients.runner._records import record_document, record_from_document
from botarena.clients.runner._results import head_to_head, results_document, versus
from botarena.clients.runner._samples import (
    PairTally,
    deal_sets,
    margin_samples,
    pairwise_result,
    score_samples,
    versus_samples,
)


def _game(
    number: int,
    label: int,
    lineup: tuple[int, ...],
    ranks: list[int],
    scores: list[int] | None = None,
    *,
    abandoned: bool = False,
) -> GameRecord:
    """A finished game; ``ranks`` and ``scores`` are by seat."""
    scores = scores or [0] * len(ranks)
    seats = [SeatRecord(score=score, rank=rank) for score, rank in zip(scores, ranks, strict=True)]
    plan = GamePlan(number, label, 1000 + label, lineup, tuple(range(len(lineup))))
    reason = "abandoned" if abandoned else "went_out"
    return GameRecord(plan, f"matches/{number}", seats, reason, abandoned=abandoned)


def _three_seat_set() -> list[GameRecord]:
    # Bots 0, 1, 2 on one deal, in the three rotations; bot 0 wins twice, bot 2 once.
    return [
        _game(1, 1, (0, 1, 2), [1, 2, 3], [30, 20, 10]),
        _game(2, 1, (1, 2, 0), [3, 2, 1], [5, 15, 25]),
        _game(3, 1, (2, 0, 1), [1, 2, 3], [40, 20, 0]),
    ]


def test_a_pairwise_result_is_one_half_or_zero_by_place() -> None:
    game = _game(1, 1, (2, 0, 1), [1, 2, 2])
    assert pairwise_result(game, 2, 0) == 1.0
    assert pairwise_result(game, 0, 1) == 0.5
    assert pairwise_result(game, 1, 2) == 0.0


def test_the_rotations_of_one_deal_are_one_sample_not_nine_pairs() -> None:
    sets = deal_sets(_three_seat_set())
    assert len(sets) == 1
    assert sets[0].complete
    # Bot 0 beat both opponents in games 1 and 2, and bot 1 only in game 3: 5 of 6.
    assert score_samples(sets, 0) == [pytest.approx(5 / 6)]
    assert score_samples(sets, 2) == [pytest.approx(3 / 6)]
    assert versus_samples(sets, 0, 2) == [pytest.approx(2 / 3)]


def test_a_margin_is_the_points_over_the_other_seats_mean() -> None:
    sets = deal_sets(_three_seat_set())
    # Game 1: 30 - 15; game 2: 25 - 10; game 3: 20 - 20.
    assert margin_samples(sets, 0) == [pytest.approx((15 + 15 + 0) / 3)]


def test_each_deal_and_group_is_its_own_set_and_abandoned_games_are_left_out() -> None:
    records = [
        _game(1, 1, (0, 1), [1, 2]),
        _game(2, 1, (1, 0), [1, 2]),
        _game(3, 1, (0, 2), [1, 2]),
        _game(4, 1, (2, 0), [2, 2], abandoned=True),
        _game(5, 2, (0, 1), [2, 1]),
    ]
    sets = deal_sets(records)
    assert [(deal.label, deal.bots, len(deal.games)) for deal in sets] == [
        (1, (0, 1), 2),
        (1, (0, 2), 1),
        (2, (0, 1), 1),
    ]
    assert [deal.complete for deal in sets] == [True, False, False]
    assert score_samples(sets, 1) == [0.5, 1.0]


def test_a_pair_counts_once_both_its_games_are_played() -> None:
    tally = PairTally()
    tally.add(_game(1, 1, (0, 1), [1, 2]))
    assert tally.counts == [0, 0, 0, 0, 0]
    tally.add(_game(2, 1, (1, 0), [1, 1]))  # a shared first place: half a win
    tally.add(_game(3, 2, (0, 1), [2, 1]))
    tally.add(_game(4, 2, (1, 0), [1, 2]))
    tally.add(_game(5, 3, (0, 1), [1, 2]))
    tally.add(_game(6, 3, (1, 0), [1, 2], abandoned=True))
    assert tally.counts == [1, 0, 0, 1, 0]
    assert tally.games == 4


def test_the_elo_difference_counts_pairs_and_versus_sees_each_pair_of_bots() -> None:
    lineup = [BotSpec("a", builtin="random"), BotSpec("b", builtin="random")]
    records = [_game(n, (n + 1) // 2, (0, 1) if n % 2 else (1, 0), [1, 2]) for n in range(1, 9)]
    # Each deal splits 1-1: bot 0 is even with bot 1, pair by pair, with no doubt.
    elo = head_to_head(records)
    assert elo is not None
    assert (elo.value, elo.low, elo.high) == (0, 0, 0)
    (pair,) = versus(lineup, records)
    assert (pair.first, pair.second, pair.sets) == (0, 1, 4)
    assert pair.score.value == 0.5


def test_a_game_record_reads_back_equal_from_its_json() -> None:
    record = _game(7, 3, (1, 0), [1, 2], [12, 9])
    record.seats[1].think_seconds = [0.25, 0.5]
    record.seats[1].failure, record.seats[1].crashed = "exited with status 1", True
    record.replay = "games/00007/replay.jsonl"
    assert record_from_document(record_document(record)) == record


def test_results_json_reports_margins_versus_and_endings() -> None:
    lineup = [BotSpec(name, builtin="random") for name in ("a", "b", "c")]
    document = results_document(
        {}, lineup, _three_seat_set(), planned_games=3, interrupted=False, seed_key="k"
    )
    a = document["bots"][0]
    assert a["pairwise_score"] == pytest.approx(5 / 6, abs=1e-4)
    assert a["margin"] == pytest.approx(10.0)
    assert [(row["bot"], row["opponent"], row["sets"]) for row in document["versus"]] == [
        ("a", "b", 1),
        ("a", "c", 1),
        ("b", "c", 1),
    ]
    assert document["end_reasons"] == {"went_out": 3}
    assert document["sprt"] is None
