"""What the greedy Queendomino bot chooses in each step of a turn.

Positions are engine states (``QueendominoState.from_position``) turned into what the bot
receives through the server: the seat's view and legal moves, encoded by the codec. The
bot's answer is decoded back into an engine move. Seat 0 acts, with 7 coins and a fresh
7x7 kingdom unless a test says otherwise.
"""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence

import pytest

from botarena.bots import GreedyBot, GreedyQueendominoBot, UnsupportedGameError
from botarena.server.games.queendomino import (
    QUEENDOMINO,
    Bribe,
    Build,
    Building,
    Cell,
    Choose,
    DominoPlacement,
    EndGameScoring,
    Kingdom,
    LineSlot,
    OngoingEffect,
    Place,
    PlayerState,
    QueendominoMove,
    QueendominoState,
    Rotation,
    ScoringKind,
    Skip,
    Square,
    Step,
    Tax,
    Terrain,
    load_dominoes,
    territory_points,
)
from botarena.server.service import codec_for_game
from botarena.v1 import match_pb2

CODEC = codec_for_game("queendomino")
DOMINOES = load_dominoes()
WHEAT, LAKE, TOWN = Square(Terrain.WHEAT), Square(Terrain.LAKE), Square(Terrain.TOWN)
SEEDS = range(12)


def domino_line(*numbers: int, kings: Mapping[int, int] | None = None) -> list[LineSlot]:
    """Slots of the shipped dominoes ``numbers``; ``kings`` maps a number to its king."""
    kings = kings or {}
    return [LineSlot(DOMINOES[number - 1], kings.get(number)) for number in numbers]


def seat(
    squares: Mapping[Cell, Square] | None = None, *, coins: int = 7, knights: int = 1
) -> PlayerState:
    return PlayerState(Kingdom.of(7, squares or {}, None), coins, knights, (), 0)


def flat(points: int, tile_id: int) -> Building:
    """A building worth ``points`` at the end and nothing else."""
    scoring = EndGameScoring(ScoringKind.FLAT, points, None)
    return Building(tile_id, "statue", "A Statue", 0, 0, 0, OngoingEffect.NONE, scoring)


def position(*players: PlayerState, step: Step, **options: object) -> QueendominoState:
    """Seat 0 acting in ``step`` with its king on domino ``line[0]`` (default 1)."""
    line = options.pop("line", (1, 2))
    assert isinstance(line, tuple)
    return QueendominoState.from_position(
        players=players or (seat(), seat()),
        current_line=domino_line(*line, kings={line[0]: 0, line[1]: 1}),
        step=step,
        **options,  # type: ignore[arg-type]  # from_position's keywords, unchecked
    )


def greedy_choice(state: QueendominoState, rng_seed: int = 0) -> QueendominoMove:
    """Ask the bot for seat 0's move as the server would, and decode its answer."""
    assert state.turn is not None
    acting = state.turn.seat
    view = match_pb2.PlayerView()
    CODEC.encode_view(QUEENDOMINO.view(state, acting), acting, with_history=False, out=view)
    legal = QUEENDOMINO.legal_moves(state, acting)
    moves = CODEC.encode_moves(legal)
    chosen = GreedyQueendominoBot().choose_move(view, moves, random.Random(rng_seed))
    move = CODEC.decode_move(chosen)
    assert move in legal
    return move


def choices(state: QueendominoState) -> set[QueendominoMove]:
    return {greedy_choice(state, rng_seed) for rng_seed in SEEDS}


def placement_gains(state: QueendominoState) -> dict[Place, int]:
    """Territory points each legal placement adds (nothing else changes when placing)."""
    assert state.turn is not None
    assert state.turn.domino is not None
    kingdom = state.players[0].kingdom
    before = territory_points(kingdom)
    return {
        move: territory_points(
            kingdom.place(state.turn.domino, DominoPlacement(move.cell, move.rotation))
        )
        - before
        for move in QUEENDOMINO.legal_moves(state, 0)
        if isinstance(move, Place)
    }


# ---------------------------------------------------------------------------- A: place


def test_it_places_where_the_territory_gain_is_largest_ties_going_to_the_seeded_rng() -> None:
    # A crowned wheat square east of the castle; domino 1 is wheat|wheat: joining it
    # makes a 3-square territory with 1 crown (+2), anywhere else adds nothing.
    state = position(seat({(1, 0): Square(Terrain.WHEAT, 1)}), seat(), step=Step.PLACE)
    gains = placement_gains(state)
    best = {move for move, gain in gains.items() if gain == max(gains.values())}
    assert max(gains.values()) == 2
    assert len(best) < len(gains)

    picked = choices(state)
    assert picked <= best
    assert len(picked) > 1, "equally good placements are drawn by the rng"
    assert greedy_choice(state, rng_seed=5) == greedy_choice(state, rng_seed=5)


# ---------------------------------------------------------------------------- B: tax


@pytest.mark.parametrize(
    ("knights", "cells"), [(1, ((3, 0),)), (2, ((3, 0), (4, 0)))], ids=["one-knight", "two"]
)
def test_in_the_last_round_it_taxes_the_largest_territory_with_every_knight(
    knights: int, cells: tuple[Cell, ...]
) -> None:
    # Domino 19 (crowned wheat | lake) east of a wheat row: the wheat half closes a
    # 3-square territory, the lake half is a territory of 1. In round 12 a knight kept
    # is worth nothing, so every coin is worth taking.
    kingdom = {(1, 0): WHEAT, (2, 0): WHEAT}
    state = position(
        seat(kingdom, knights=knights), seat(), step=Step.PLACE, line=(19, 20), round=12
    )
    state = QUEENDOMINO.apply(state, 0, Place((3, 0), Rotation.EAST))
    assert state.turn is not None
    assert state.turn.step is Step.TAX

    assert {move.cells for move in choices(state) if isinstance(move, Tax)} == {cells}
    assert all(isinstance(move, Tax) for move in choices(state))


@pytest.mark.parametrize(
    ("wheat", "taxes"), [(2, False), (8, True)], ids=["3 squares", "9 squares"]
)
def test_early_it_taxes_only_where_the_coins_beat_the_knights_worth(
    wheat: int, taxes: bool
) -> None:
    # Round 1: a knight is worth 2 x 11/12 points; 3 coins are 1 point, 9 coins 3.
    kingdom = (
        {(x, 0): WHEAT for x in range(1, wheat + 1)}
        if wheat < 6
        else {
            **{(x, 0): WHEAT for x in range(1, 6)},
            **{(x, 1): WHEAT for x in range(1, wheat - 4)},
        }
    )
    state = position(seat(kingdom), seat(), step=Step.PLACE, line=(19, 20))
    wheat_end = max(x for x, y in kingdom if y == 0)
    state = QUEENDOMINO.apply(state, 0, Place((wheat_end + 1, 0), Rotation.SOUTH))
    assert state.turn is not None
    assert state.turn.step is Step.TAX

    picked = choices(state)
    if taxes:
        assert {move.cells for move in picked if isinstance(move, Tax)} == {((wheat_end + 1, 0),)}
    else:
        assert picked == {Skip()}


# ---------------------------------------------------------------------------- C: build


TOWNS = {(0, 1): TOWN, (0, 2): TOWN}


def test_it_builds_the_building_with_the_largest_gain_after_its_price() -> None:
    # Gains with 7 coins, a coin worth 1/3 point: 1 - 5/3, 2 - 3/3 and 1 - 1/3.
    board = [flat(1, 101), None, flat(2, 102), None, flat(1, 103), None]
    state = position(seat(TOWNS), seat(), step=Step.BUILD, board=board)

    picked = choices(state)
    assert {move.space for move in picked if isinstance(move, Build)} == {2}
    assert all(isinstance(move, Build) for move in picked)


@pytest.mark.parametrize(
    ("queen", "builds"),
    [(None, False), (1, False), (0, True)],
    ids=["no-queen", "queen-elsewhere", "queen-hosted"],
)
def test_it_builds_only_for_a_positive_gain_counting_the_queens_discount(
    queen: int | None, builds: bool
) -> None:
    # 1 point for 3 coins gains exactly nothing; the queen's host pays 2 and gains 1/3.
    # In the final round the town square it takes is worth nothing more.
    board = [None, None, flat(1, 101), None, None, None]
    state = position(seat(TOWNS), seat(), step=Step.BUILD, board=board, queen=queen, round=12)

    picked = choices(state)
    if builds:
        assert {move.space for move in picked if isinstance(move, Build)} == {2}
        assert Skip() not in picked
    else:
        assert picked == {Skip()}


@pytest.mark.parametrize(("round_", "builds"), [(1, True), (12, False)], ids=["round 1", "last"])
def test_a_building_scoring_per_territory_counts_one_territory_more_until_the_last_round(
    round_: int, builds: bool
) -> None:
    # A free bakery (2 per wheat territory) and no wheat yet: worth 2 to come, less the
    # town square it takes (1/2), before the last round; nothing in it.
    scoring = EndGameScoring(ScoringKind.PER_TERRITORY_OF_TERRAIN, 2, Terrain.WHEAT)
    bakery = Building(101, "bakery", "The Bakery", 0, 0, 0, OngoingEffect.NONE, scoring)
    board = [None, None, None, None, None, bakery]
    state = position(seat(TOWNS), seat(), step=Step.BUILD, board=board, round=round_)

    picked = choices(state)
    if builds:
        assert {move.space for move in picked if isinstance(move, Build)} == {5}
    else:
        assert picked == {Skip()}


# ---------------------------------------------------------------------------- D: dragon


def test_it_never_bribes_the_dragon() -> None:
    state = position(seat(TOWNS, coins=20), seat(), step=Step.DRAGON)
    assert any(isinstance(move, Bribe) for move in QUEENDOMINO.legal_moves(state, 0))

    assert choices(state) == {Skip()}


# ---------------------------------------------------------------------------- E: choose


@pytest.mark.parametrize(
    ("squares", "taken", "expected"),
    [
        ({(1, 0): Square(Terrain.LAKE, 1)}, (), 9),
        ({}, (), 3),
        ({}, (3,), 9),
    ],
    ids=["best-placement", "tie-goes-to-the-lowest-number", "only-free-dominoes"],
)
def test_it_chooses_the_free_domino_with_the_best_placement(
    squares: dict[Cell, Square], taken: Sequence[int], expected: int
) -> None:
    # Next line: 3 forest|forest, 9 lake|lake, 11 grass|grass, 17 swamp|swamp. Only the
    # lake domino can join a crowned territory.
    next_line = domino_line(3, 9, 11, 17, kings=dict.fromkeys(taken, 1))
    state = position(seat(squares), seat(), step=Step.CHOOSE, next_line=next_line)

    assert choices(state) == {Choose(expected)}


# ---------------------------------------------------------------------------- other games


def test_the_greedy_bots_refuse_a_qwixx_match() -> None:
    view = match_pb2.PlayerView(seat=0)
    view.qwixx.SetInParent()
    decline = match_pb2.Move()
    decline.qwixx.decline.SetInParent()
    with pytest.raises(UnsupportedGameError, match="qwixx"):
        GreedyBot().choose_move(view, [decline, decline], random.Random(0))
    with pytest.raises(UnsupportedGameError, match="qwixx"):
        GreedyQueendominoBot().choose_move(view, [decline, decline], random.Random(0))
