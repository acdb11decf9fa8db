"""Queendomino views: everything on the table is public, the deck and pile order is not.

Every seat and a spectator see the same facts; the view only counts the face-down
dominoes and buildings, so two states that differ only in those orders look the same.
"""

from __future__ import annotations

import random
from dataclasses import replace

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from botarena.server.games.queendomino import (
    QUEENDOMINO,
    QueendominoState,
    Step,
    score_kingdom,
)


def advanced(seed: int, seats: int, decisions: int) -> QueendominoState:
    """The state after ``decisions`` random decisions of a seeded game (or its end)."""
    rng = random.Random(seed)
    state = QUEENDOMINO.new_match(QUEENDOMINO.default_config(), seats, seed)
    for _ in range(decisions):
        if state.turn is None:
            break
        state = QUEENDOMINO.apply(
            state, state.turn.seat, rng.choice(QUEENDOMINO.legal_moves(state, state.turn.seat))
        )
    return state


def test_a_view_shows_every_public_fact() -> None:
    state = advanced(seed=3, seats=3, decisions=60)
    view = QUEENDOMINO.view(state, 1)
    assert view.seat == 1
    assert view.round == state.round
    assert view.final_round is False
    assert view.players == state.players
    assert view.current_line == state.current_line
    assert view.next_line == state.next_line
    assert view.board == state.board
    assert view.dragon_space == state.dragon_space
    assert view.queen == state.queen
    assert view.turn == state.turn
    assert view.deck_left == len(state.deck)
    assert view.pile_left == len(state.pile)
    assert view.removed == state.removed
    assert view.scores == tuple(
        score_kingdom(
            p.kingdom,
            coins=p.coins,
            towers=p.towers,
            knights=p.knights + len(p.knight_cells),
            hosts_queen=False,
        ).total
        for p in state.players
    )


def test_every_seat_and_a_spectator_see_the_same_facts() -> None:
    state = advanced(seed=8, seats=4, decisions=90)
    spectator = QUEENDOMINO.view(state, None)
    assert spectator.seat is None
    for seat in range(4):
        assert replace(QUEENDOMINO.view(state, seat), seat=None) == spectator


def test_round_zero_shows_the_first_line_to_choose_from() -> None:
    view = QUEENDOMINO.view(advanced(seed=1, seats=2, decisions=0), None)
    assert view.round == 0
    assert view.current_line == ()
    assert len(view.next_line) == 4
    assert view.turn is not None
    assert view.turn.step is Step.CHOOSE
    assert view.turn.domino is None
    assert (view.deck_left, view.pile_left) == (44, 26)


def test_a_finished_game_shows_no_turn_and_the_final_scores() -> None:
    state = advanced(seed=2, seats=2, decisions=10_000)
    view = QUEENDOMINO.view(state, 0)
    outcome = QUEENDOMINO.outcome(state)
    assert outcome is not None
    assert view.turn is None
    assert view.final_round is True
    assert view.next_line == ()
    assert view.deck_left == 0
    assert view.scores == outcome.scores


@pytest.mark.parametrize("seat", [-1, 2, 5])
def test_a_view_for_no_seat_of_the_match_is_refused(seat: int) -> None:
    with pytest.raises(ValueError, match="not a seat"):
        QUEENDOMINO.view(advanced(seed=1, seats=2, decisions=0), seat)


@settings(max_examples=20, deadline=None)
@given(
    seed=st.integers(min_value=0, max_value=2**32 - 1),
    seats=st.sampled_from([2, 3, 4]),
    decisions=st.integers(min_value=0, max_value=150),
    shuffle_seed=st.integers(min_value=0, max_value=2**32 - 1),
)
def test_the_deck_and_pile_order_never_reaches_a_view(
    seed: int, seats: int, decisions: int, shuffle_seed: int
) -> None:
    state = advanced(seed, seats, decisions)
    rng = random.Random(shuffle_seed)
    deck, pile = list(state.deck), list(state.pile)
    rng.shuffle(deck)
    rng.shuffle(pile)
    other = state._replace(deck=tuple(deck), pile=tuple(pile))
    for seat in (None, *range(seats)):
        assert QUEENDOMINO.view(other, seat) == QUEENDOMINO.view(state, seat)
