"""Queendomino turn rules (RULES.md 2-7), case by case: setup, the round-0 choice, placing
and the forced discard, tax, building, the dragon, the queen, the end of a round, the end
of the game, every [engine choice] and every rejection reason.

Positions are built with ``QueendominoState.from_position`` through the helpers below:
unless a test says otherwise the seat acting is 0, with a fresh 7x7 kingdom, 7 coins and
1 knight, and the board holds the table's first six buildings (ids 1..6).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import replace

import pytest

from botarena.server.games import GameOverError, NotYourTurnError
from botarena.server.games._core import IllegalMoveError
from botarena.server.games.queendomino import (
    KNIGHT_SUPPLY,
    QUEENDOMINO,
    TOWER_SUPPLY,
    Bribe,
    Build,
    Building,
    Cell,
    Choose,
    Discard,
    Domino,
    Kingdom,
    LineSlot,
    Place,
    PlayerState,
    QueendominoConfig,
    QueendominoMove,
    QueendominoReason,
    QueendominoState,
    Rotation,
    Skip,
    Square,
    Step,
    Tax,
    Terrain,
    load_buildings,
    load_dominoes,
)

DOMINOES = load_dominoes()
BUILDINGS = load_buildings().buildings
EAST, SOUTH, WEST, NORTH = Rotation.EAST, Rotation.SOUTH, Rotation.WEST, Rotation.NORTH
WHEAT, LAKE, TOWN = Square(Terrain.WHEAT), Square(Terrain.LAKE), Square(Terrain.TOWN)


def domino(number: int) -> Domino:
    """The shipped domino with this number (1: wheat|wheat, 9: lake|lake, 46: town|town)."""
    return DOMINOES[number - 1]


def building(tile_id: int) -> Building:
    """The shipped building with this id (15 safe: 1 tower + coin per tower, 16 safe: coin
    per knight, 19 big tavern: 3 knights, 20 guardtower: 2 towers, 23: 1 tower)."""
    return BUILDINGS[tile_id - 1]


def kingdom(
    squares: Mapping[Cell, Square], buildings: Mapping[Cell, Building] | None = None, size: int = 7
) -> Kingdom:
    return Kingdom.of(size, squares, buildings)


TOWNS = kingdom({(0, 1): TOWN, (0, 2): TOWN})
"""A kingdom with two open town squares south of the castle."""


def player(
    kingdom: Kingdom | None = None,
    *,
    coins: int = 7,
    knights: int = 1,
    knight_cells: tuple[Cell, ...] = (),
    towers: int = 0,
    size: int = 7,
) -> PlayerState:
    return PlayerState(kingdom or Kingdom.empty(size), coins, knights, knight_cells, towers)


def position(
    *players: PlayerState,
    line: Sequence[tuple[int, int]] = ((1, 0), (2, 1)),
    step: Step = Step.PLACE,
    **options: object,
) -> QueendominoState:
    """A position whose current line is ``line`` as (domino, king) pairs, in this order.

    Without ``players``: two fresh seats. ``options`` go to ``from_position``.
    """
    seats = players or (player(), player())
    current = [LineSlot(domino(number), king) for number, king in line]
    return QueendominoState.from_position(
        players=seats,
        current_line=current,
        step=step,
        **options,  # type: ignore[arg-type]  # from_position's keywords, unchecked
    )


def play(state: QueendominoState, *moves: QueendominoMove) -> QueendominoState:
    """Apply ``moves`` in turn, each by the seat to act."""
    for move in moves:
        assert state.turn is not None
        state = QUEENDOMINO.apply(state, state.turn.seat, move)
    return state


def rejection(state: QueendominoState, move: QueendominoMove, seat: int = 0) -> str:
    with pytest.raises(IllegalMoveError) as error:
        QUEENDOMINO.apply(state, seat, move)
    assert not QUEENDOMINO.is_legal(state, seat, move)
    return error.value.reason


def step_of(state: QueendominoState) -> tuple[int, Step] | None:
    return None if state.turn is None else (state.turn.seat, state.turn.step)


# ---------------------------------------------------------------------------- setup


@pytest.mark.parametrize(("seats", "kings", "size"), [(2, 4, 7), (3, 3, 5), (4, 4, 5)])
def test_setup_follows_rules_2(seats: int, kings: int, size: int) -> None:
    state = QUEENDOMINO.new_match(QUEENDOMINO.default_config(), seats, seed=5)
    assert state.round == 0
    assert [p.coins for p in state.players] == [7] * seats
    assert [p.knights for p in state.players] == [1] * seats
    assert all(p.kingdom == Kingdom.empty(size) and p.towers == 0 for p in state.players)
    assert state.queen is None
    assert state.dragon_space is None
    assert None not in state.board
    assert len(state.board) == 6
    assert len(state.pile) == 32 - 6
    numbers = [slot.domino.number for slot in state.next_line]
    assert numbers == sorted(numbers)
    assert len(numbers) == 4
    assert len(state.deck) == 44
    assert state.current_line == ()
    assert len(state.setup_order) == kings
    assert sorted(state.setup_order) == sorted(
        s for s in range(seats) for _ in range(kings // seats)
    )
    assert state.knights_in_supply == KNIGHT_SUPPLY - seats
    assert state.towers_in_supply == TOWER_SUPPLY


def test_setup_shuffles_with_the_seed() -> None:
    config = QUEENDOMINO.default_config()
    first = QUEENDOMINO.new_match(config, 3, seed=1)
    assert QUEENDOMINO.new_match(config, 3, seed=1) == first
    others = [QUEENDOMINO.new_match(config, 3, seed=s) for s in range(2, 12)]
    assert any(other.deck != first.deck for other in others)
    assert any(other.board != first.board for other in others)
    assert len({other.setup_order for other in [first, *others]}) > 1
    every = {d.number for d in first.deck} | {s.domino.number for s in first.next_line}
    assert every == set(range(1, 49))


@pytest.mark.parametrize("seats", [1, 5])
def test_other_seat_counts_are_refused(seats: int) -> None:
    with pytest.raises(ValueError, match="2 to 4 seats"):
        QUEENDOMINO.new_match(QUEENDOMINO.default_config(), seats, seed=1)


def test_rules_object_names_the_game() -> None:
    assert (QUEENDOMINO.name, QUEENDOMINO.min_seats, QUEENDOMINO.max_seats) == ("queendomino", 2, 4)
    config = QUEENDOMINO.default_config()
    assert config.buildings == load_buildings()
    assert config.tax_bonus_per_knight is True


# ---------------------------------------------------------------------------- round 0


def test_two_seats_choose_first_last_and_the_other_twice_in_between() -> None:
    # RULES.md 2.9: one random seat places one king, the other both, the first its second.
    firsts = set()
    for seed in range(12):
        state = QUEENDOMINO.new_match(QUEENDOMINO.default_config(), 2, seed)
        first = state.setup_order[0]
        firsts.add(first)
        assert state.setup_order == (first, 1 - first, 1 - first, first)
        actors = []
        while state.round == 0:
            assert state.turn is not None
            assert state.turn.step is Step.CHOOSE
            assert state.turn.domino is None
            actors.append(state.turn.seat)
            moves = QUEENDOMINO.legal_moves(state, state.turn.seat)
            assert all(isinstance(move, Choose) for move in moves)
            state = play(state, moves[-1])
        assert actors == list(state.setup_order)
    assert firsts == {0, 1}


@pytest.mark.parametrize("seats", [3, 4])
def test_three_or_four_seats_choose_in_a_shuffled_order(seats: int) -> None:
    orders = {
        QUEENDOMINO.new_match(QUEENDOMINO.default_config(), seats, s).setup_order for s in range(20)
    }
    assert all(sorted(order) == list(range(seats)) for order in orders)
    assert len(orders) > 2


def test_a_chosen_domino_is_taken() -> None:
    state = QUEENDOMINO.new_match(QUEENDOMINO.default_config(), 4, seed=3)
    taken = state.next_line[1].domino.number
    state = play(state, Choose(taken))
    assert state.next_line[1].king == state.setup_order[0]
    assert Choose(taken) not in QUEENDOMINO.legal_moves(state, state.setup_order[1])
    assert rejection(state, Choose(taken), state.setup_order[1]) == "DOMINO_NOT_AVAILABLE"


# ---------------------------------------------------------------------------- turn order


def test_kings_act_in_the_order_of_their_domino_numbers() -> None:
    # Seat 1 took the lowest domino of the new line, so it acts first next round.
    done = [LineSlot(domino(n), king, True) for n, king in ((1, 0), (2, 1), (3, 0))]
    state = QueendominoState.from_position(
        current_line=[*done, LineSlot(domino(4), 1)],
        next_line=[
            LineSlot(domino(5), 1),
            LineSlot(domino(6), 0),
            LineSlot(domino(7), None),
            LineSlot(domino(8), 0),
        ],
        step=Step.CHOOSE,
        deck=[domino(n) for n in (30, 9, 20, 12)],
    )
    state = play(state, Choose(7))
    assert state.round == 2
    assert [(slot.domino.number, slot.king) for slot in state.current_line] == [
        (5, 1),
        (6, 0),
        (7, 1),
        (8, 0),
    ]
    order = []
    while state.round == 2:
        assert state.turn is not None
        if state.turn.step is Step.PLACE:
            assert state.turn.domino is not None
            order.append((state.turn.seat, state.turn.domino.number))
        moves = QUEENDOMINO.legal_moves(state, state.turn.seat)
        state = play(state, moves[-1] if isinstance(moves[0], Skip) else moves[0])
    assert order == [(1, 5), (0, 6), (1, 7), (0, 8)]


# ---------------------------------------------------------------------------- placing


def test_the_castle_is_wild_and_terrain_must_match() -> None:
    state = position(line=[(9, 0), (2, 1)])  # lake | lake
    assert Place((1, 0), EAST) in QUEENDOMINO.legal_moves(state, 0)
    lake_next_to_wheat = position(
        player(kingdom({(1, 0): WHEAT, (2, 0): WHEAT})), player(), line=[(9, 0), (2, 1)]
    )
    assert rejection(lake_next_to_wheat, Place((3, 0), EAST)) == "TERRAIN_MISMATCH"
    assert rejection(lake_next_to_wheat, Place((1, 0), SOUTH)) == "SQUARE_OCCUPIED"
    assert rejection(lake_next_to_wheat, Place((5, 5), EAST)) == "NOT_CONNECTED"


@pytest.mark.parametrize(("size", "legal"), [(7, True), (5, False)], ids=["7x7", "5x5"])
def test_the_kingdom_box_depends_on_the_seat_count(size: int, legal: bool) -> None:
    row = kingdom({(1, 0): WHEAT, (2, 0): WHEAT}, size=size)
    state = position(player(row, size=size), player(size=size), line=[(1, 0), (2, 1)])
    move = Place((3, 0), EAST)  # the row would span x = 0..4 with the castle: 5 columns
    assert QUEENDOMINO.is_legal(state, 0, move)
    wider = Place((-1, 0), WEST)  # x = -2..2 plus the row: 5 columns, still fine
    assert QUEENDOMINO.is_legal(state, 0, wider)
    state = play(state, move)
    assert state.turn is not None
    state = state._replace(turn=replace(state.turn, step=Step.PLACE))
    assert QUEENDOMINO.is_legal(state, 0, Place((-1, 0), WEST)) == legal
    if not legal:
        assert rejection(state, Place((-1, 0), WEST)) == "KINGDOM_TOO_LARGE"


def test_legal_placements_are_the_kingdoms() -> None:
    state = position(player(TOWNS), player(), line=[(46, 0), (2, 1)])
    moves = QUEENDOMINO.legal_moves(state, 0)
    assert moves == tuple(Place(p.cell, p.rotation) for p in TOWNS.legal_placements(domino(46)))
    assert all(QUEENDOMINO.is_legal(state, 0, move) for move in moves)


FULL = {
    (x, y): WHEAT
    for x in range(-2, 3)
    for y in range(-2, 3)
    if (x, y) not in {(0, 0), (2, 1), (2, 2)}
}
"""A 5x5 kingdom of wheat with a two-cell hole in its corner, far from the castle."""


def test_a_domino_that_fits_nowhere_must_be_discarded() -> None:
    full = player(kingdom(FULL, size=5), knights=1, size=5)
    state = position(full, player(size=5), line=[(9, 0), (2, 1)])  # lake: matches nothing
    assert QUEENDOMINO.legal_moves(state, 0) == (Discard(),)
    assert rejection(state, Place((2, 1), SOUTH)) == "TERRAIN_MISMATCH"
    after = play(state, Discard())
    assert after.removed == (9,)
    assert after.players[0].kingdom == full.kingdom
    # RULES.md 3A: no tax after a discard (the seat has a knight); the dragon comes next.
    assert step_of(after) == (0, Step.DRAGON)


def test_a_domino_that_fits_cannot_be_discarded() -> None:
    full = player(kingdom(FULL, size=5), size=5)
    state = position(full, player(size=5), line=[(1, 0), (2, 1)])  # wheat fills the hole
    assert QUEENDOMINO.legal_moves(state, 0) == (Place((2, 1), SOUTH), Place((2, 2), NORTH))
    assert rejection(state, Discard()) == "DISCARD_NOT_ALLOWED"


def test_a_discard_still_offers_building_and_the_dragon() -> None:
    # RULES.md 9 [engine choice]: steps C and D are independent of the placement.
    towns = {**FULL, (1, 1): TOWN, (1, 2): TOWN}
    state = position(player(kingdom(towns, size=5), size=5), player(size=5), line=[(9, 0), (2, 1)])
    state = play(state, Discard())
    assert step_of(state) == (0, Step.BUILD)
    state = play(state, Build(5, (1, 1)))
    assert step_of(state) == (0, Step.DRAGON)
    state = play(state, Bribe(0))
    assert step_of(state) == (0, Step.CHOOSE)


# ---------------------------------------------------------------------------- tax

WHEAT_ROW = kingdom({(1, 0): WHEAT, (2, 0): WHEAT})


def taxed(
    cells: tuple[Cell, ...],
    *,
    knights: int = 2,
    buildings: Mapping[Cell, Building] | None = None,
    towers: int = 0,
    knight_cells: tuple[Cell, ...] = (),
    per_knight: bool = True,
) -> int:
    """Coins collected by placing domino 2 (wheat) east of a wheat row, then ``Tax(cells)``."""
    squares = {(1, 0): WHEAT, (2, 0): WHEAT, (0, 1): TOWN, (0, 2): TOWN}
    seat = player(
        kingdom(squares, buildings),
        coins=0,
        knights=knights,
        towers=towers,
        knight_cells=knight_cells,
    )
    config = QueendominoConfig(tax_bonus_per_knight=per_knight)
    state = play(position(seat, player(), config=config), Place((3, 0), EAST))
    assert step_of(state) == (0, Step.TAX)
    after = play(state, Tax(cells))
    assert after.players[0].knights == knights - len(cells)
    assert set(cells) <= set(after.players[0].knight_cells)
    return after.players[0].coins


SAFE_KNIGHTS = {(0, 1): building(16)}
SAFE_TOWERS = {(0, 1): building(15)}


@pytest.mark.parametrize(
    ("cells", "options", "coins"),
    [
        (((3, 0),), {}, 4),
        (((3, 0), (4, 0)), {}, 8),
        (((3, 0),), {"buildings": SAFE_KNIGHTS}, 4 + 2),
        (((3, 0),), {"buildings": SAFE_KNIGHTS, "knight_cells": ((1, 0),)}, 4 + 3),
        (((3, 0), (4, 0)), {"buildings": SAFE_KNIGHTS}, 8 + 2 + 2),
        (((3, 0), (4, 0)), {"buildings": SAFE_KNIGHTS, "per_knight": False}, 8 + 2),
        (((3, 0),), {"buildings": SAFE_TOWERS, "towers": 3}, 4 + 3),
        (((3, 0), (4, 0)), {"buildings": SAFE_TOWERS, "towers": 3}, 8 + 3 + 3),
        (((3, 0), (4, 0)), {"buildings": SAFE_TOWERS, "towers": 3, "per_knight": False}, 8 + 3),
    ],
    ids=[
        "one-knight-territory-4",
        "two-knights-same-territory",
        "coin-per-knight",
        "coin-per-knight-counts-placed-knights",
        "coin-per-knight-twice",
        "per-tax-reading",
        "coin-per-tower",
        "coin-per-tower-twice",
        "coin-per-tower-per-tax-reading",
    ],
)
def test_tax_collects_the_territory_size_and_the_ongoing_bonuses(
    cells: tuple[Cell, ...], options: dict[str, object], coins: int
) -> None:
    assert taxed(cells, **options) == coins  # type: ignore[arg-type]  # taxed's keywords


def test_tax_offers_one_or_two_knights_by_what_the_seat_holds() -> None:
    one = play(position(player(WHEAT_ROW, knights=1), player()), Place((3, 0), EAST))
    assert QUEENDOMINO.legal_moves(one, 0) == (Skip(), Tax(((3, 0),)), Tax(((4, 0),)))
    assert rejection(one, Tax(((3, 0), (4, 0)))) == "NOT_ENOUGH_KNIGHTS"
    two = play(position(player(WHEAT_ROW, knights=3), player()), Place((3, 0), EAST))
    assert QUEENDOMINO.legal_moves(two, 0)[-1] == Tax(((3, 0), (4, 0)))
    assert rejection(two, Tax(((1, 0),))) == "KNIGHT_NOT_ON_DOMINO"
    assert rejection(two, Tax(((3, 0), (3, 0)))) == "KNIGHT_NOT_ON_DOMINO"


def test_without_an_unplaced_knight_tax_is_not_asked() -> None:
    state = play(position(player(WHEAT_ROW, knights=0, coins=0), player()), Place((3, 0), EAST))
    assert step_of(state) == (0, Step.CHOOSE)
    assert rejection(state, Tax(((3, 0),))) == "WRONG_STEP"


def test_knights_gained_by_building_serve_from_the_next_turn() -> None:
    # Tax comes before building in a turn (RULES.md 3B, 3C): the tavern's knights arrive late.
    seat = player(TOWNS, knights=0, coins=7)
    state = play(
        position(seat, player(), board=[building(19), *BUILDINGS[1:6]]), Place((1, 0), EAST)
    )
    assert step_of(state) == (0, Step.BUILD)
    state = play(state, Build(0, (0, 1)))
    assert state.players[0].knights == 3
    assert state.players[0].coins == 2


# ---------------------------------------------------------------------------- building


def build_step(
    *, coins: int = 7, queen: int | None = None, board: Sequence[Building | None] | None = None
) -> QueendominoState:
    return position(player(TOWNS, coins=coins), player(), step=Step.BUILD, queen=queen, board=board)


@pytest.mark.parametrize(
    ("space", "queen", "cost"),
    [(0, None, 5), (3, None, 2), (5, None, 0), (0, 0, 4), (4, 0, 0), (5, 0, 0), (0, 1, 5)],
    ids=["5", "2", "free", "queen-4", "queen-1-to-0", "queen-clamped-at-0", "other-hosts"],
)
def test_a_building_costs_its_space_minus_one_for_the_queens_host(
    space: int, queen: int | None, cost: int
) -> None:
    state = build_step(queen=queen)
    after = play(state, Build(space, (0, 2)))
    assert after.players[0].coins == 7 - cost
    assert after.players[0].kingdom.buildings == {(0, 2): state.board[space]}
    assert after.board[space] is None
    assert (
        after.board[:space] + after.board[space + 1 :]
        == state.board[:space] + state.board[space + 1 :]
    )


def test_build_lists_every_affordable_space_for_every_open_town_square() -> None:
    moves = QUEENDOMINO.legal_moves(build_step(coins=2), 0)
    assert moves == (Skip(), *(Build(s, c) for s in (3, 4, 5) for c in ((0, 1), (0, 2))))
    with_queen = QUEENDOMINO.legal_moves(build_step(coins=2, queen=0), 0)
    assert {m.space for m in with_queen if isinstance(m, Build)} == {2, 3, 4, 5}
    assert rejection(build_step(coins=2), Build(0, (0, 1))) == "NOT_ENOUGH_COINS"


def test_one_building_per_turn_and_per_square() -> None:
    state = play(build_step(), Build(5, (0, 1)))
    assert step_of(state) == (0, Step.DRAGON)
    assert rejection(state, Build(4, (0, 2))) == "WRONG_STEP"
    occupied = position(
        player(kingdom({(0, 1): TOWN, (0, 2): TOWN}, {(0, 1): building(1)})),
        player(),
        step=Step.BUILD,
    )
    assert rejection(occupied, Build(5, (0, 1))) == "NOT_AN_OPEN_TOWN_SQUARE"
    assert rejection(occupied, Build(5, (1, 0))) == "NOT_AN_OPEN_TOWN_SQUARE"


def test_without_an_open_town_square_building_is_not_asked() -> None:
    state = play(position(player(knights=0), player()), Place((1, 0), EAST))
    assert step_of(state) == (0, Step.DRAGON)


def test_immediate_effects_give_knights_and_towers_from_the_supply() -> None:
    board = [building(19), building(20), None, None, None, None]
    state = play(build_step(board=board), Build(1, (0, 1)))
    assert state.players[0].towers == 2
    assert state.queen == 0
    assert state.towers_in_supply == TOWER_SUPPLY - 2


@pytest.mark.parametrize(
    ("tile", "field", "others", "gain"),
    [(19, "knights", 21, 1), (19, "knights", 22, 0), (20, "towers", 14, 1), (20, "towers", 15, 0)],
    ids=["knights-1-left", "knights-none-left", "towers-1-left", "towers-none-left"],
)
def test_the_supply_caps_knights_and_towers(tile: int, field: str, others: int, gain: int) -> None:
    # RULES.md 1 [engine choice]: take what is left in the supply (22 knights, 15 towers).
    rich = player(knights=others) if field == "knights" else player(towers=others)
    seat = player(TOWNS, knights=0)
    state = build_step(board=[building(tile), None, None, None, None, None])
    state = state._replace(players=(seat, rich))
    after = play(state, Build(0, (0, 1)))
    assert getattr(after.players[0], field) == gain
    if field == "towers":
        assert after.queen == (0 if gain and others <= gain else None)


def test_unknown_building_values_grant_nothing() -> None:
    # RULES.md 9 [engine choice]: the bakery's null knights/towers are 0.
    state = play(build_step(), Build(0, (0, 1)))
    assert state.players[0].kingdom.buildings[(0, 1)].id == 1
    assert (state.players[0].knights, state.players[0].towers) == (1, 0)


# ---------------------------------------------------------------------------- queen


@pytest.mark.parametrize(
    ("mine", "theirs", "tile", "queen_before", "queen_after"),
    [
        (0, 0, 23, None, 0),
        (1, 2, 23, 1, 0),
        (0, 2, 23, 1, 1),
        (0, 2, 20, 1, 0),
        (3, 1, 1, 1, 1),
    ],
    ids=["first-tower", "tie-moves-her", "behind-keeps-her", "ahead", "no-tower-no-move"],
)
def test_the_queen_goes_to_a_seat_that_reaches_the_most_towers(
    mine: int, theirs: int, tile: int, queen_before: int | None, queen_after: int | None
) -> None:
    state = position(
        player(TOWNS, towers=mine, coins=9),
        player(towers=theirs),
        step=Step.BUILD,
        queen=queen_before,
        board=[building(tile), None, None, None, None, None],
    )
    assert play(state, Build(0, (0, 1))).queen == queen_after


# ---------------------------------------------------------------------------- dragon


def dragon_step(*, coins: int = 7, **options: object) -> QueendominoState:
    # ``options`` are from_position's keywords, forwarded unchecked.
    return position(player(coins=coins), player(), step=Step.DRAGON, **options)  # type: ignore[arg-type]


def test_the_dragon_burns_a_building_for_one_coin() -> None:
    state = dragon_step()
    moves = QUEENDOMINO.legal_moves(state, 0)
    assert moves == (Skip(), *(Bribe(space) for space in range(6)))
    after = play(state, Bribe(0))  # the most expensive building, still one coin
    assert after.players[0].coins == 6
    assert after.board[0] is None
    assert after.dragon_space == 0
    assert rejection(dragon_step(coins=0), Bribe(1)) == "NOT_ENOUGH_COINS"
    assert rejection(dragon_step(board=[None] * 6), Bribe(1)) == "BUILDING_NOT_AVAILABLE"


def test_the_dragon_flies_once_per_round_for_the_whole_table() -> None:
    state = play(dragon_step(), Bribe(2), Choose(5))
    assert step_of(state) == (1, Step.PLACE)
    state = play(state, Place((1, 0), EAST))
    assert step_of(state) == (1, Step.TAX)
    # Seat 1 has coins and the board has buildings, but the dragon has flown this round.
    state = play(state, Skip())
    assert step_of(state) == (1, Step.CHOOSE)
    assert rejection(state, Bribe(3), seat=1) == "DRAGON_NOT_AVAILABLE"


def test_the_queens_host_may_not_bribe_the_dragon() -> None:
    state = play(position(player(coins=7, knights=0), player(), queen=0), Place((1, 0), EAST))
    assert step_of(state) == (0, Step.CHOOSE)
    assert rejection(state, Bribe(0)) == "DRAGON_NOT_AVAILABLE"
    assert rejection(dragon_step(queen=0), Bribe(0)) == "DRAGON_NOT_AVAILABLE"


def test_without_a_coin_the_dragon_is_not_asked() -> None:
    state = play(position(player(coins=0, knights=0), player()), Place((1, 0), EAST))
    assert step_of(state) == (0, Step.CHOOSE)


# ---------------------------------------------------------------------------- end of round


def last_turn(
    *,
    seats: int = 2,
    board: Sequence[Building | None],
    pile: Sequence[Building] = (),
    chosen: Sequence[int | None] = (1, 0, None, 0),
) -> QueendominoState:
    """The last turn of a round at its CHOOSE step: the kings on the next line's dominoes
    5..8 are ``chosen`` (``None``: free); the last king's choice ends the round."""
    kings = [0, 1, 0, 1] if seats == 2 else list(range(seats))
    current = [LineSlot(domino(n + 1), king, True) for n, king in enumerate(kings)]
    current[-1] = replace(current[-1], done=False)
    next_line = [LineSlot(domino(n), king) for n, king in zip((5, 6, 7, 8), chosen, strict=True)]
    return QueendominoState.from_position(
        players=[player(size=7 if seats == 2 else 5) for _ in range(seats)],
        current_line=current,
        next_line=next_line,
        step=Step.CHOOSE,
        board=board,
        pile=pile,
        deck=[domino(n) for n in (30, 9, 20, 12, 40)],
        dragon_space=1,
    )


def test_the_board_slides_to_the_cheap_end_and_refills_cheapest_first() -> None:
    b = BUILDINGS
    state = last_turn(board=[b[0], None, b[2], None, b[4], None], pile=b[6:10])
    after = play(state, Choose(7))
    assert after.board == (b[8], b[7], b[6], b[0], b[2], b[4])
    assert after.pile == (b[9],)
    assert after.dragon_space is None
    assert after.round == 2
    assert [slot.domino.number for slot in after.next_line] == [9, 12, 20, 30]
    assert after.deck == (domino(40),)


def test_an_empty_pile_leaves_the_expensive_spaces_empty() -> None:
    b = BUILDINGS
    after = play(last_turn(board=[None, b[1], None, None, b[3], None]), Choose(7))
    assert after.board == (None, None, None, None, b[1], b[3])


def test_three_seats_remove_the_free_domino_of_each_line() -> None:
    state = last_turn(seats=3, board=BUILDINGS[:6], chosen=(0, None, 1, None))
    after = play(state, Choose(8))
    assert after.removed == (6,)
    assert [(slot.domino.number, slot.king) for slot in after.current_line] == [
        (5, 0),
        (7, 1),
        (8, 2),
    ]
    assert len(after.next_line) == 4
    assert step_of(after) == (0, Step.PLACE)


def test_three_seats_remove_the_free_domino_of_the_first_line() -> None:
    state = QUEENDOMINO.new_match(QUEENDOMINO.default_config(), 3, seed=4)
    first_line = [slot.domino.number for slot in state.next_line]
    state = play(state, Choose(first_line[3]), Choose(first_line[0]), Choose(first_line[1]))
    assert state.removed == (first_line[2],)
    assert len(state.current_line) == 3
    assert state.round == 1


def test_the_final_round_has_no_choice_and_ends_the_game() -> None:
    line = [(1, 0), (2, 1)]
    state = position(player(knights=0, coins=0), player(knights=0, coins=0), line=line, round=12)
    assert state.next_line == ()
    state = play(state, Place((1, 0), EAST))
    assert step_of(state) == (1, Step.PLACE)
    state = play(state, Place((0, 1), SOUTH))
    assert state.is_over
    assert QUEENDOMINO.to_act(state) == frozenset()
    assert QUEENDOMINO.legal_moves(state, 0) == ()
    with pytest.raises(GameOverError):
        QUEENDOMINO.apply(state, 0, Skip())
    outcome = QUEENDOMINO.outcome(state)
    assert outcome is not None
    assert outcome.reason == "completed"


# ---------------------------------------------------------------------------- end of game


def finished(*players: PlayerState, queen: int | None = None) -> QueendominoState:
    state = position(*players, round=12, queen=queen)
    return state._replace(turn=None)


CROWNED_PAIR = kingdom({(1, 0): Square(Terrain.WHEAT, 1), (2, 0): WHEAT})
"""Wheat 2 x 1 crown = 2 points; largest territory 2."""
TWO_SINGLES = kingdom({(1, 0): Square(Terrain.WHEAT, 1), (0, 1): Square(Terrain.LAKE, 1)})
"""Wheat 1 x 1 + lake 1 x 1 = 2 points; largest territory 1."""


@pytest.mark.parametrize(
    ("kingdoms", "ranks"),
    [
        ((CROWNED_PAIR, TWO_SINGLES), (1, 2)),
        ((TWO_SINGLES, CROWNED_PAIR), (2, 1)),
        ((CROWNED_PAIR, CROWNED_PAIR), (1, 1)),
        ((CROWNED_PAIR, TWO_SINGLES, CROWNED_PAIR), (1, 3, 1)),
    ],
    ids=["largest-territory-wins", "either-seat", "shared-win", "shared-first-of-three"],
)
def test_ties_go_to_the_largest_territory_then_are_shared(
    kingdoms: tuple[Kingdom, ...], ranks: tuple[int, ...]
) -> None:
    state = finished(*(player(k, coins=4) for k in kingdoms))
    outcome = QUEENDOMINO.outcome(state)
    assert outcome is not None
    assert outcome.scores == (3,) * len(kingdoms)
    assert outcome.ranks == ranks


def test_the_queen_crowns_her_hosts_largest_territory_at_the_end() -> None:
    state = finished(player(CROWNED_PAIR, coins=0), player(CROWNED_PAIR, coins=0), queen=1)
    outcome = QUEENDOMINO.outcome(state)
    assert outcome is not None
    assert outcome.scores == (2, 4)  # 2 squares x (1 crown + queen)
    assert outcome.ranks == (2, 1)
    assert QUEENDOMINO.view(state, None).scores == (2, 4)
    running = state._replace(turn=position().turn)
    assert QUEENDOMINO.outcome(running) is None
    assert QUEENDOMINO.view(running, None).scores == (2, 2)


# ---------------------------------------------------------------------------- rejections


def _tax_state() -> QueendominoState:
    return play(position(player(WHEAT_ROW, knights=1), player()), Place((3, 0), EAST))


def _round_zero() -> QueendominoState:
    return QUEENDOMINO.new_match(QUEENDOMINO.default_config(), 2, seed=1)


def malformed(kind: Callable[..., QueendominoMove], *fields: object) -> QueendominoMove:
    """Return the move ``kind(*fields)`` whose fields break its annotations on purpose.

    An in-process bot may hand the engine any object, so ``check`` must answer
    ``MALFORMED_MOVE`` rather than crash on it.
    """
    return kind(*fields)


REJECTIONS = [
    pytest.param(position, Place((0, 0), EAST), "SQUARE_OCCUPIED", id="occupied"),
    pytest.param(position, Place((6, 0), EAST), "KINGDOM_TOO_LARGE", id="too-large"),
    pytest.param(position, Place((3, 0), EAST), "NOT_CONNECTED", id="not-connected"),
    pytest.param(_tax_state, Place((5, 0), EAST), "WRONG_STEP", id="place-in-tax"),
    pytest.param(_tax_state, Tax(((9, 9),)), "KNIGHT_NOT_ON_DOMINO", id="knight-off-domino"),
    pytest.param(_tax_state, Tax(((3, 0), (4, 0))), "NOT_ENOUGH_KNIGHTS", id="knights"),
    pytest.param(_tax_state, Tax(()), "MALFORMED_MOVE", id="tax-no-cell"),
    pytest.param(_tax_state, Tax(((3, 0), (4, 0), (5, 0))), "MALFORMED_MOVE", id="tax-3"),
    pytest.param(_tax_state, malformed(Tax, (("a", 0),)), "MALFORMED_MOVE", id="tax-bad-cell"),
    pytest.param(position, Skip(), "SKIP_NOT_ALLOWED", id="skip-place"),
    pytest.param(_round_zero, Skip(), "SKIP_NOT_ALLOWED", id="skip-choose"),
    pytest.param(position, Discard(), "DISCARD_NOT_ALLOWED", id="discard"),
    pytest.param(position, Choose(5), "WRONG_STEP", id="choose-in-place"),
    pytest.param(position, Build(0, (0, 1)), "WRONG_STEP", id="build-in-place"),
    pytest.param(build_step, Build(6, (0, 1)), "BUILDING_NOT_AVAILABLE", id="space-6"),
    pytest.param(build_step, Build(-1, (0, 1)), "BUILDING_NOT_AVAILABLE", id="space-minus"),
    pytest.param(build_step, Build(True, (0, 1)), "MALFORMED_MOVE", id="space-bool"),
    pytest.param(build_step, malformed(Build, 0, (0, 1, 2)), "MALFORMED_MOVE", id="cell-3"),
    pytest.param(build_step, Build(0, (4, 4)), "NOT_AN_OPEN_TOWN_SQUARE", id="free-cell"),
    pytest.param(dragon_step, malformed(Bribe, None), "MALFORMED_MOVE", id="bribe-none"),
    pytest.param(position, malformed(Place, (1, 0), 7), "MALFORMED_MOVE", id="rotation-7"),
    pytest.param(position, malformed(Place, [1, 0], EAST), "MALFORMED_MOVE", id="cell-list"),
    pytest.param(position, "place", "MALFORMED_MOVE", id="not-a-move"),
    pytest.param(_round_zero, Choose(49), "DOMINO_NOT_AVAILABLE", id="domino-49"),
    pytest.param(_round_zero, malformed(Choose, "1"), "MALFORMED_MOVE", id="domino-str"),
]


@pytest.mark.parametrize(("make", "move", "reason"), REJECTIONS)
def test_illegal_moves_are_rejected_with_their_reason(
    make: Callable[[], QueendominoState], move: QueendominoMove, reason: str
) -> None:
    state = make()
    assert state.turn is not None
    assert rejection(state, move, state.turn.seat) == reason


def test_every_reason_code_is_reachable() -> None:
    tested = {param.values[2] for param in REJECTIONS}
    tested |= {"TERRAIN_MISMATCH", "NOT_ENOUGH_COINS", "DRAGON_NOT_AVAILABLE"}  # tests above
    assert tested == {reason.value for reason in QueendominoReason}


def test_a_plain_int_rotation_is_the_same_move() -> None:
    state = position()
    # A plain int where a Rotation is annotated: the conversion under test.
    after = QUEENDOMINO.apply(state, 0, Place((1, 0), 0))  # type: ignore[arg-type]
    assert after == QUEENDOMINO.apply(state, 0, Place((1, 0), EAST))


def test_only_the_seat_taking_the_turn_may_act() -> None:
    state = position()
    assert QUEENDOMINO.to_act(state) == frozenset({0})
    assert QUEENDOMINO.legal_moves(state, 1) == ()
    with pytest.raises(NotYourTurnError):
        QUEENDOMINO.apply(state, 1, Place((1, 0), EAST))


def test_apply_leaves_a_rejected_state_unchanged() -> None:
    state = build_step(coins=1)
    before = state
    with pytest.raises(IllegalMoveError):
        QUEENDOMINO.apply(state, 0, Build(0, (0, 1)))
    assert state == before
