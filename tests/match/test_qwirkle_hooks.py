"""Qwirkle's stand-in move (match.proto: TIMEOUT_POLICY_DEFAULT_MOVE) and live scores.

Fair play: the stand-in is the generic one, a uniformly random legal move (placement,
exchange or pass), never the highest-scoring placement.
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Sequence
from typing import Any

import pytest

from botarena.server.games.qwirkle import QWIRKLE, Exchange, Pass, Place, QwirkleState, Tile
from botarena.server.match import EventKind, Match, MatchSettings, TimeControl, hooks_for

from .conftest import FakeClock

T = Tile
_UNPLAYABLE_RACK = (
    T.ORANGE_SQUARE,
    T.YELLOW_DIAMOND,
    T.GREEN_CLOVER,
    T.BLUE_STAR4,
    T.PURPLE_STAR8,
    T.ORANGE_DIAMOND,
)


def _position(bag: tuple[Tile, ...], rack: tuple[Tile, ...] = _UNPLAYABLE_RACK) -> QwirkleState:
    # A lone red circle: nothing in the rack shares its colour or its shape.
    return QwirkleState.from_position(
        racks=[rack, (T.RED_SQUARE,)], board={(0, 0): T.RED_CIRCLE}, bag=bag
    )


_RICH = QwirkleState.from_position(
    racks=[
        (T.RED_SQUARE, T.RED_DIAMOND, T.BLUE_CIRCLE, T.GREEN_CLOVER, T.RED_STAR4, T.BLUE_STAR8),
        (T.RED_SQUARE,),
    ],
    board={(0, 0): T.RED_CIRCLE},
    bag=(T.PURPLE_CLOVER,) * 6,
)
_POSITIONS = {
    "placements": _RICH,
    "nothing-fits": _position(bag=(T.RED_CLOVER,) * 10),
    "small-bag": _position(bag=(T.RED_CLOVER, T.RED_STAR8)),
    "empty-bag": _position(bag=()),
}


@pytest.mark.parametrize("position", list(_POSITIONS), ids=list(_POSITIONS))
@pytest.mark.parametrize("index", [0, -1], ids=["first", "last"])
def test_the_stand_in_move_is_drawn_from_every_legal_move(position: str, index: int) -> None:
    state = _POSITIONS[position]
    offered: list[Sequence[Any]] = []

    def pick(options: Sequence[Any]) -> Any:
        offered.append(options)
        return options[index]

    move = hooks_for("qwirkle").stand_in_move(QWIRKLE, state, 0, pick)
    legal = QWIRKLE.legal_moves(state, 0)
    assert [list(options) for options in offered] == [list(legal)]  # one draw, over all
    assert move == legal[index]


def test_with_an_empty_bag_and_nothing_that_fits_the_stand_in_passes() -> None:
    state = _POSITIONS["empty-bag"]
    assert list(QWIRKLE.legal_moves(state, 0)) == [Pass()]
    assert hooks_for("qwirkle").stand_in_move(QWIRKLE, state, 0, lambda moves: moves[0]) == Pass()


def test_a_seat_that_is_not_to_act_has_no_stand_in_move() -> None:
    with pytest.raises(LookupError):
        hooks_for("qwirkle").stand_in_move(QWIRKLE, _RICH, 1, lambda moves: moves[0])


def _kind(move: object) -> str:
    return type(move).__name__


_SAMPLES = 300
_BINS = 10


def _timed_out_positions() -> list[tuple[Sequence[Any], Any]]:
    """Play ``_SAMPLES`` Qwirkle matches (each its own seed) a few random moves deep, then
    let the seat to act time out; return its legal moves and the stand-in it got."""
    samples: list[tuple[Sequence[Any], Any]] = []
    for seed in range(_SAMPLES):
        clock = FakeClock()
        settings = MatchSettings(
            game="qwirkle",
            seat_count=2,
            seed=seed,
            game_config=QWIRKLE.default_config(),
            time_control=TimeControl(move_time_limit=1.0),
        )
        match = Match(
            "q", QWIRKLE, settings, clock=clock, wall_clock=lambda: 1.7e9, tokens=("a", "b")
        )
        for token in "ab":  # both bots are there, so their clocks run
            match.show_up(match.authenticate(token))
        chooser = random.Random(seed)
        for _ in range(seed % 12):  # positions from the opening to the middle game
            if match.finished:
                break
            seat = match.seats_to_act()[0]
            move = chooser.choice(match.legal_moves(seat))
            match.submit("ab"[seat], move, expected_state_version=match.state_version)
        if match.finished:
            continue
        seat = match.seats_to_act()[0]
        legal = match.legal_moves(seat)
        version = match.state_version
        clock.advance(1.0)
        match.expire()
        entry = match.events[version + 1]
        assert (entry.kind, entry.seat, entry.by_timeout) == (EventKind.MOVE_APPLIED, seat, True)
        samples.append((legal, entry.move))
    return samples


@pytest.fixture(scope="module")
def timed_out_positions() -> list[tuple[Sequence[Any], Any]]:
    return _timed_out_positions()


def test_stand_in_moves_are_uniform_over_the_legal_moves(
    timed_out_positions: list[tuple[Sequence[Any], Any]],
) -> None:
    # Probability integral transform: (index + U) / count is uniform on [0, 1) exactly
    # when the index is uniform over the legal moves, whatever their count.
    jitter = random.Random(0)
    bins = Counter(
        int(_BINS * (list(legal).index(move) + jitter.random()) / len(legal))
        for legal, move in timed_out_positions
    )
    samples = len(timed_out_positions)
    assert samples > 0.9 * _SAMPLES
    expected = samples / _BINS
    chi_square = sum((bins[b] - expected) ** 2 / expected for b in range(_BINS))
    # 9 degrees of freedom: P(chi² > 27.9) = 0.001 for a uniform draw; a biased rule (the
    # first, the last or the best move) lands far beyond. The seeds are fixed.
    assert chi_square < 30, sorted(bins.items())


def test_stand_in_moves_are_placements_exchanges_and_passes_as_often_as_listed(
    timed_out_positions: list[tuple[Sequence[Any], Any]],
) -> None:
    observed = Counter(_kind(move) for _, move in timed_out_positions)
    expected: dict[str, float] = dict.fromkeys(("Place", "Exchange", "Pass"), 0.0)
    for legal, _ in timed_out_positions:
        for kind, count in Counter(_kind(move) for move in legal).items():
            expected[kind] = expected.get(kind, 0.0) + count / len(legal)
    assert observed["Exchange"] > 0
    assert observed["Place"] > 0
    for kind in ("Place", "Exchange", "Pass"):
        # Generous: 4 standard deviations of a binomial count, plus a little.
        slack = 4 * expected[kind] ** 0.5 + 3
        assert abs(observed[kind] - expected[kind]) <= slack, (kind, observed, expected)


def test_stand_in_moves_are_not_the_highest_scoring_placement(
    timed_out_positions: list[tuple[Sequence[Any], Any]],
) -> None:
    best_taken = expected = 0.0
    for legal, move in timed_out_positions:
        places = [m for m in legal if isinstance(m, Place)]
        if not places:
            continue
        best = max(m.score or 0 for m in places)
        best_moves = [m for m in places if m.score == best]
        best_taken += move in best_moves
        expected += len(best_moves) / len(legal)
    # The old default move took the best placement every time; a random one seldom does.
    assert best_taken <= expected + 4 * expected**0.5 + 3
    assert best_taken < 0.5 * len(timed_out_positions)


def test_stand_in_exchanges_are_not_always_the_whole_rack(
    timed_out_positions: list[tuple[Sequence[Any], Any]],
) -> None:
    # The old default move exchanged the whole rack; a random exchange is any subset.
    sizes = Counter(
        len(move.tiles) for _, move in timed_out_positions if isinstance(move, Exchange)
    )
    assert len(sizes) > 1, sizes


def test_scores_are_the_public_scores() -> None:
    state = QwirkleState.from_position(racks=[(T.RED_SQUARE,), (T.RED_SQUARE,)], scores=[4, 9])
    assert hooks_for("qwirkle").scores(QWIRKLE, state, 2) == (4, 9)
