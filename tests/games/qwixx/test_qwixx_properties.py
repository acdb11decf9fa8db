"""Property tests over seeded random Qwixx playouts.

What the engine computes is recomputed here the slow, obvious way: a scorer that counts
crosses from the printed rows, a brute-force move lister that tries every row and number
(action 1) and every die pair (action 2) with ``is_legal``, and sheet invariants checked
against RULES.md directly.

Purity and exact replay are checked for every game in ``tests/games/test_conformance.py``.
"""

from __future__ import annotations

import random
from collections.abc import Iterator

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from botarena.server.games import rank_by_score
from botarena.server.games.qwixx import (
    LAST_NUMBER,
    QWIXX,
    ROW_NUMBERS,
    Action,
    Colour,
    Decline,
    EndReason,
    MarkColourSum,
    MarkWhiteSum,
    Penalised,
    QwixxMove,
    QwixxState,
    Rolled,
    Sheet,
)

SEEDS = st.integers(min_value=0, max_value=2**32 - 1)
SEAT_COUNTS = st.sampled_from([2, 3, 4, 5])
PLAYOUT = settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def playout(
    seed: int, seats: int, choice_seed: int, *, decline_rate: float = 0.3
) -> Iterator[tuple[QwixxState, int, QwixxMove]]:
    """Yield every decision of a seeded random game: the state, the seat and its move.

    Seats in action 1 submit in a random order. ``decline_rate`` is how often a seat
    declines although it could mark (so games also end on penalties).
    """
    rng = random.Random(choice_seed)
    state = QWIXX.new_match(QWIXX.default_config(), seats, seed)
    while to_act := sorted(QWIXX.to_act(state)):
        seat = rng.choice(to_act)
        moves = QWIXX.legal_moves(state, seat)
        move = moves[0] if rng.random() < decline_rate else rng.choice(moves)
        yield state, seat, move
        state = QWIXX.apply(state, seat, move)
    yield state, -1, Decline()


def final_state(seed: int, seats: int, choice_seed: int) -> QwixxState:
    """Return the finished state of a seeded random game."""
    *_, (state, _, _) = playout(seed, seats, choice_seed)
    return state


def score_from_scratch(sheet: Sheet) -> int:
    """Score a sheet by walking the printed rows: marks, a lock cross on the last number."""
    total = 0
    for colour in Colour:
        crosses = 0
        for number in ROW_NUMBERS[colour]:
            if number in sheet.marks(colour):
                crosses += 2 if number == LAST_NUMBER[colour] else 1
        total += sum(range(crosses + 1))
    return total - 5 * sheet.penalties


def brute_force_moves(state: QwixxState, seat: int) -> set[QwixxMove]:
    """Every move ``is_legal`` accepts, out of every move of either action."""
    candidates: list[QwixxMove] = [Decline()]
    candidates += [MarkWhiteSum(colour, n) for colour in Colour for n in range(14)]
    candidates += [MarkColourSum(white, colour) for colour in Colour for white in (0, 1)]
    return {move for move in candidates if QWIXX.is_legal(state, seat, move)}


def assert_sheet_is_valid(sheet: Sheet) -> None:
    """RULES.md: Marking: marks strictly left to right; the last number after five marks."""
    for colour in Colour:
        row = sheet.marks(colour)
        places = [ROW_NUMBERS[colour].index(number) for number in row]
        assert places == sorted(set(places)), (colour, row)
        if LAST_NUMBER[colour] in row:
            assert row[-1] == LAST_NUMBER[colour]
            assert len(row) - 1 >= 5
    assert 0 <= sheet.penalties <= 4


# ---------------------------------------------------------------------------- properties


@PLAYOUT
@given(seed=SEEDS, seats=SEAT_COUNTS, choice_seed=SEEDS)
def test_invariants_hold_after_every_decision(seed: int, seats: int, choice_seed: int) -> None:
    previous: QwixxState | None = None
    for state, _, _ in playout(seed, seats, choice_seed):
        for sheet in state.sheets:
            assert_sheet_is_valid(sheet)
        locked = {c for c in Colour if any(sheet.has_lock(c) for sheet in state.sheets)}
        assert state.locked_rows == locked
        assert all(
            (die is None) == (c in locked)
            for c, die in zip(Colour, state.dice.colours, strict=True)
        )
        assert state.scores == tuple(score_from_scratch(sheet) for sheet in state.sheets)
        if previous is not None:
            for before, after in zip(previous.sheets, state.sheets, strict=True):
                # Marks only grow, at the right end; locked rows never change again.
                for colour in Colour:
                    assert after.marks(colour)[: len(before.marks(colour))] == before.marks(colour)
                    if colour in previous.locked_rows:
                        assert after.marks(colour) == before.marks(colour)
                assert after.penalties >= before.penalties
            assert previous.locked_rows <= state.locked_rows
            assert state.history[: len(previous.history)] == previous.history
        previous = state


@PLAYOUT
@given(seed=SEEDS, seats=SEAT_COUNTS, choice_seed=SEEDS)
def test_games_terminate_with_a_consistent_outcome(seed: int, seats: int, choice_seed: int) -> None:
    state = final_state(seed, seats, choice_seed)
    outcome = QWIXX.outcome(state)
    assert outcome is not None
    assert QWIXX.to_act(state) == frozenset()
    scores = tuple(score_from_scratch(sheet) for sheet in state.sheets)
    assert outcome.scores == scores
    assert outcome.ranks == rank_by_score(scores)
    if outcome.reason == EndReason.PENALTIES:
        assert max(sheet.penalties for sheet in state.sheets) == 4
        assert len(state.locked_rows) < 2
    else:
        assert outcome.reason == EndReason.TWO_ROWS_LOCKED
        assert len(state.locked_rows) >= 2
    # Termination: every turn the active seat marks or takes a penalty, so there are at
    # most 44 marks and 3 penalties per seat, plus the last turn.
    turns = sum(isinstance(entry, Rolled) for entry in state.history)
    assert turns <= seats * (44 + 3) + 1


@PLAYOUT
@given(seed=SEEDS, seats=SEAT_COUNTS, choice_seed=SEEDS)
def test_penalties_only_hit_the_active_seat_that_marked_nothing(
    seed: int, seats: int, choice_seed: int
) -> None:
    for state, seat, move in playout(seed, seats, choice_seed):
        if seat < 0 or state.action is not Action.COLOUR_SUM:
            continue
        after = QWIXX.apply(state, seat, move)
        penalised = isinstance(move, Decline) and not state.marked_white_sum
        assert after.sheets[seat].penalties == state.sheets[seat].penalties + penalised
        assert (Penalised(seat, after.sheets[seat].penalties) in after.history[-3:]) == penalised
        for other in range(state.seats):
            if other != seat:
                assert after.sheets[other].penalties == state.sheets[other].penalties


@PLAYOUT
@given(seed=SEEDS, seats=SEAT_COUNTS, choice_seed=SEEDS)
def test_listed_moves_are_exactly_the_legal_ones(seed: int, seats: int, choice_seed: int) -> None:
    for state, seat, _ in playout(seed, seats, choice_seed):
        if seat < 0:
            break
        for other in range(state.seats):
            moves = QWIXX.legal_moves(state, other)
            assert len(set(moves)) == len(moves)
            assert set(moves) == brute_force_moves(state, other)
            assert (moves != ()) == (other in QWIXX.to_act(state))
            for move in moves:
                QWIXX.apply(state, other, move)  # accepted


@settings(max_examples=10, deadline=None)
@given(seed=SEEDS, seats=SEAT_COUNTS)
def test_dice_are_faces_of_the_dice_in_play(seed: int, seats: int) -> None:
    state = final_state(seed, seats, choice_seed=seed)
    for entry in state.history:
        if isinstance(entry, Rolled):
            assert all(1 <= face <= 6 for face in entry.dice.white)
            assert all(face is None or 1 <= face <= 6 for face in entry.dice.colours)


def test_dice_are_roughly_uniform() -> None:
    # 600 rolls of a 4-seat game's worth of dice: every face of every die shows up, and no
    # face is far off 1/6 (a cheap guard against an off-by-one in the base-6 digits).
    counts = [[0] * 7 for _ in range(6)]
    for seed in range(600):
        dice = QWIXX.new_match(QWIXX.default_config(), 4, seed).dice
        for die, face in enumerate((*dice.white, *dice.colours)):
            assert face is not None
            counts[die][face] += 1
    for die_counts in counts:
        assert min(die_counts[1:]) > 60
        assert max(die_counts[1:]) < 140
