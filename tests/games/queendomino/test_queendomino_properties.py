"""Property tests over seeded random Queendomino playouts.

Invariants are checked after every decision against RULES.md directly: coins never
negative, kingdoms inside their box, all 48 dominoes accounted for, knights and towers
within the supply, the queen with a seat holding the most towers; every listed move is
accepted and a sample of moves that are not listed is rejected with a Queendomino reason
code. Purity and exact replay are checked for every game in ``tests/games/test_conformance.py``.
"""

from __future__ import annotations

import random
from collections.abc import Iterator

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from botarena.server.games import rank_by_score
from botarena.server.games._core import IllegalMoveError
from botarena.server.games.queendomino import (
    BOARD_PRICES,
    KNIGHT_SUPPLY,
    QUEENDOMINO,
    TOWER_SUPPLY,
    Bribe,
    Build,
    Choose,
    Discard,
    Place,
    QueendominoMove,
    QueendominoReason,
    QueendominoState,
    Rotation,
    Skip,
    Step,
    Tax,
    largest_territory_size,
)

SEEDS = st.integers(min_value=0, max_value=2**32 - 1)
SEAT_COUNTS = st.sampled_from([2, 3, 4])
PLAYOUT = settings(max_examples=10, deadline=None, suppress_health_check=[HealthCheck.too_slow])
REASONS = {reason.value for reason in QueendominoReason}


def playout(
    seed: int, seats: int, choice_seed: int, *, skip_rate: float = 0.2
) -> Iterator[tuple[QueendominoState, int, QueendominoMove]]:
    """Yield every decision of a seeded random game: the state, the seat and its move.

    ``skip_rate`` is how often a seat skips an optional step although it could act.
    The finished state comes last, with seat -1.
    """
    rng = random.Random(choice_seed)
    state = QUEENDOMINO.new_match(QUEENDOMINO.default_config(), seats, seed)
    while state.turn is not None:
        seat = state.turn.seat
        moves = QUEENDOMINO.legal_moves(state, seat)
        move = moves[0] if rng.random() < skip_rate else rng.choice(moves)
        yield state, seat, move
        state = QUEENDOMINO.apply(state, seat, move)
    yield state, -1, Skip()


def unlisted_candidates(state: QueendominoState, rng: random.Random) -> list[QueendominoMove]:
    """Moves of every kind, near the kingdom and the lines, mostly illegal now."""
    cell = (rng.randint(-7, 7), rng.randint(-7, 7))
    other = (rng.randint(-7, 7), rng.randint(-7, 7))
    return [
        Skip(),
        Discard(),
        Place(cell, rng.choice(list(Rotation))),
        Tax((cell,)),
        Tax((cell, other)),
        Build(rng.randint(-1, len(BOARD_PRICES)), cell),
        Bribe(rng.randint(-1, len(BOARD_PRICES))),
        Choose(rng.randint(0, 49)),
    ]


def dominoes_accounted_for(state: QueendominoState) -> int:
    """Placed + removed + unplayed in the lines + the deck (RULES.md 2.1: all 48 used)."""
    placed = sum(len(p.kingdom.squares) for p in state.players) // 2
    turn = state.turn
    # The domino of the turn in progress is placed or removed once its PLACE step is over.
    in_hand = 0 if turn is None or turn.step is Step.PLACE or turn.domino is None else 1
    unplayed = sum(not slot.done for slot in state.current_line) - in_hand
    return placed + len(state.removed) + unplayed + len(state.next_line) + len(state.deck)


def assert_invariants(state: QueendominoState) -> None:
    for player in state.players:
        assert player.coins >= 0
        assert player.knights >= 0
        min_x, min_y, max_x, max_y = player.kingdom.bounds
        assert max_x - min_x < player.kingdom.size
        assert max_y - min_y < player.kingdom.size
        assert len(set(player.knight_cells)) == len(player.knight_cells)
        assert all(cell in player.kingdom.squares for cell in player.knight_cells)
    assert 0 <= state.knights_in_supply <= KNIGHT_SUPPLY - state.seats
    assert 0 <= state.towers_in_supply <= TOWER_SUPPLY
    assert dominoes_accounted_for(state) == 48
    built = sum(len(p.kingdom.buildings) for p in state.players)
    on_board = sum(b is not None for b in state.board)
    assert built + on_board + len(state.pile) <= 32
    # RULES.md 6: the queen follows the towers, so her host always holds the most.
    most = max(p.towers for p in state.players)
    if state.queen is None:
        assert most == 0
    else:
        assert state.players[state.queen].towers == most > 0


@PLAYOUT
@given(seed=SEEDS, seats=SEAT_COUNTS, choice_seed=SEEDS)
def test_invariants_hold_after_every_decision(seed: int, seats: int, choice_seed: int) -> None:
    previous: QueendominoState | None = None
    for state, _, _ in playout(seed, seats, choice_seed):
        assert_invariants(state)
        if previous is not None:
            assert state.round >= previous.round
            assert state.removed[: len(previous.removed)] == previous.removed
            for before, after in zip(previous.players, state.players, strict=True):
                assert set(before.kingdom.squares.items()) <= set(after.kingdom.squares.items())
                assert after.towers >= before.towers
        previous = state


@PLAYOUT
@given(seed=SEEDS, seats=SEAT_COUNTS, choice_seed=SEEDS)
def test_games_last_twelve_rounds_and_rank_by_score_then_territory(
    seed: int, seats: int, choice_seed: int
) -> None:
    turns = 0
    for state, seat, _ in playout(seed, seats, choice_seed):
        if seat >= 0 and state.turn is not None and state.turn.step is Step.PLACE:
            turns += 1
    assert state.round == 12
    kings = 4 if seats != 3 else 3
    assert turns == 12 * kings
    outcome = QUEENDOMINO.outcome(state)
    assert outcome is not None
    assert outcome.reason == "completed"
    assert outcome.scores == QUEENDOMINO.view(state, None).scores
    largest = [largest_territory_size(p.kingdom) for p in state.players]
    assert outcome.ranks == rank_by_score(list(zip(outcome.scores, largest, strict=True)))
    assert len(state.removed) >= (12 if seats == 3 else 0)


@PLAYOUT
@given(seed=SEEDS, seats=SEAT_COUNTS, choice_seed=SEEDS)
def test_listed_moves_are_accepted_and_others_rejected_with_a_reason(
    seed: int, seats: int, choice_seed: int
) -> None:
    rng = random.Random(choice_seed)
    for state, seat, _ in playout(seed, seats, choice_seed):
        if seat < 0:
            break
        moves = QUEENDOMINO.legal_moves(state, seat)
        assert moves
        assert len(set(moves)) == len(moves)
        if state.turn is not None and state.turn.step not in (Step.PLACE, Step.CHOOSE):
            assert moves[0] == Skip()
            assert len(moves) > 1  # never asked for Skip alone
        for move in rng.sample(moves, min(4, len(moves))):
            QUEENDOMINO.apply(state, seat, move)  # accepted
        for other in range(state.seats):
            if other != seat:
                assert QUEENDOMINO.legal_moves(state, other) == ()
        listed = set(moves)
        for move in unlisted_candidates(state, rng):
            if move in listed:
                continue
            with pytest.raises(IllegalMoveError) as error:
                QUEENDOMINO.apply(state, seat, move)
            assert error.value.reason in REASONS
