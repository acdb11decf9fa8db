"""Queendomino kingdoms: size per seat count, placement legality (RULES.md 3A) case by case,
and the enumeration of legal placements against a brute force over every cell x rotation.

Kingdoms are drawn as text, one token per cell: a terrain letter (W wheat, F forest,
L lake, G grassland, S swamp, M mine, T town) and the crowns, ``CC`` for the castle and
``..`` for a free cell. The castle's token fixes the origin.
"""

from __future__ import annotations

import random

import pytest

from botarena.server.games._core import IllegalMoveError
from botarena.server.games.queendomino import (
    CASTLE,
    Cell,
    Domino,
    DominoPlacement,
    Kingdom,
    QueendominoReason,
    Rotation,
    Square,
    Terrain,
    kingdom_size,
    load_buildings,
    load_dominoes,
)

_TERRAINS = {
    "W": Terrain.WHEAT,
    "F": Terrain.FOREST,
    "L": Terrain.LAKE,
    "G": Terrain.GRASSLAND,
    "S": Terrain.SWAMP,
    "M": Terrain.MINE,
    "T": Terrain.TOWN,
}


def square(token: str) -> Square:
    """``"M3"`` -> a mine square with 3 crowns."""
    return Square(_TERRAINS[token[0]], int(token[1:] or 0))


def domino(first: str, second: str, number: int = 99) -> Domino:
    return Domino(number, (square(first), square(second)))


def kingdom(drawing: str, size: int = 5) -> Kingdom:
    rows = [line.split() for line in drawing.strip().splitlines()]
    origin = next(
        (x, y) for y, row in enumerate(rows) for x, cell in enumerate(row) if cell == "CC"
    )
    squares = {
        (x - origin[0], y - origin[1]): square(token)
        for y, row in enumerate(rows)
        for x, token in enumerate(row)
        if token not in ("CC", "..")
    }
    return Kingdom.of(size, squares)


# ---------------------------------------------------------------------------- size


@pytest.mark.parametrize(("seats", "size"), [(2, 7), (3, 5), (4, 5)], ids=["2", "3", "4"])
def test_the_kingdom_size_follows_the_seat_count(seats: int, size: int) -> None:
    assert kingdom_size(seats) == size
    assert Kingdom.for_seats(seats) == Kingdom.empty(size)


@pytest.mark.parametrize("seats", [0, 1, 5])
def test_other_seat_counts_have_no_kingdom(seats: int) -> None:
    with pytest.raises(ValueError, match="2 to 4 seats"):
        kingdom_size(seats)


def test_an_empty_kingdom_is_its_castle() -> None:
    empty = Kingdom.empty(5)
    assert empty.squares == {}
    assert empty.bounds == (0, 0, 0, 0)
    assert empty.is_occupied(CASTLE)
    assert empty.square(CASTLE) is None


@pytest.mark.parametrize(
    ("squares", "buildings_on", "message"),
    [
        ({CASTLE: square("W")}, (), "castle"),
        ({(3, 0): square("W"), (-2, 0): square("W")}, (), "do not fit a 5x5 box"),
        ({(1, 0): square("W")}, ((1, 0),), "no town square"),
        ({(1, 0): square("T")}, ((2, 0),), "no town square"),
    ],
    ids=["square-on-castle", "too-wide", "building-on-wheat", "building-on-nothing"],
)
def test_kingdom_of_rejects_impossible_shapes(
    squares: dict[Cell, Square], buildings_on: tuple[Cell, ...], message: str
) -> None:
    building = load_buildings().buildings[0]
    with pytest.raises(ValueError, match=message):
        Kingdom.of(5, squares, dict.fromkeys(buildings_on, building))


# ---------------------------------------------------------------------------- legality

# A 5x5 kingdom four columns wide (x 0..3) and four rows tall (y -2..1).
_SMALL = """
.. .. W0 .. ..
.. .. W0 .. ..
.. CC W0 W1 F0
.. .. .. L1 ..
"""

_LEGALITY_CASES: list[tuple[str, Domino, DominoPlacement, QueendominoReason | None]] = [
    # RULES.md 3A: the castle is wild, any terrain may touch it.
    ("castle-wild-mine", domino("M2", "T"), DominoPlacement((0, 1), Rotation.SOUTH), None),
    ("castle-wild-second-half", domino("S", "M"), DominoPlacement((-1, -1), Rotation.SOUTH), None),
    # RULES.md 3A: one square touching a square of its own terrain suffices.
    ("terrain-match-first-half", domino("W", "G"), DominoPlacement((2, -1), Rotation.EAST), None),
    ("terrain-match-second-half", domino("G", "L"), DominoPlacement((3, 2), Rotation.WEST), None),
    (
        "terrain-match-beside-a-mismatch",
        domino("L", "S"),
        DominoPlacement((3, 1), Rotation.SOUTH),
        None,
    ),
    (
        "terrain-mismatch",
        domino("S", "G"),
        DominoPlacement((1, 1), Rotation.SOUTH),
        QueendominoReason.TERRAIN_MISMATCH,
    ),
    (
        "terrain-mismatch-both-halves-touch",
        domino("M", "S"),
        DominoPlacement((2, -1), Rotation.EAST),
        QueendominoReason.TERRAIN_MISMATCH,
    ),
    (
        "not-connected",
        domino("W", "W"),
        DominoPlacement((0, 2), Rotation.WEST),
        QueendominoReason.NOT_CONNECTED,
    ),
    (
        "diagonal-is-not-connected",
        domino("L", "L"),
        DominoPlacement((3, 2), Rotation.EAST),
        QueendominoReason.NOT_CONNECTED,
    ),
    (
        "overlap-square",
        domino("W", "W"),
        DominoPlacement((2, 0), Rotation.NORTH),
        QueendominoReason.SQUARE_OCCUPIED,
    ),
    (
        "overlap-castle",
        domino("W", "W"),
        DominoPlacement((-1, 0), Rotation.EAST),
        QueendominoReason.SQUARE_OCCUPIED,
    ),
    # RULES.md 3A: the box is 5x5 around everything, the castle need not be centred.
    ("bound-castle-at-edge", domino("F", "F"), DominoPlacement((4, 0), Rotation.SOUTH), None),
    (
        "bound-5x5-too-wide",
        domino("F", "F"),
        DominoPlacement((4, 0), Rotation.EAST),
        QueendominoReason.KINGDOM_TOO_LARGE,
    ),
    (
        "bound-5x5-too-wide-left",
        domino("G", "W"),
        DominoPlacement((-2, 0), Rotation.EAST),
        QueendominoReason.KINGDOM_TOO_LARGE,
    ),
    (
        "bound-5x5-too-tall",
        domino("L", "L"),
        DominoPlacement((2, 2), Rotation.SOUTH),
        QueendominoReason.KINGDOM_TOO_LARGE,
    ),
    (
        "bound-checked-before-connection",
        domino("W", "W"),
        DominoPlacement((-3, 3), Rotation.EAST),
        QueendominoReason.KINGDOM_TOO_LARGE,
    ),
]


@pytest.mark.parametrize(
    ("piece", "placement", "reason"),
    [case[1:] for case in _LEGALITY_CASES],
    ids=[case[0] for case in _LEGALITY_CASES],
)
def test_placement_legality(
    piece: Domino, placement: DominoPlacement, reason: QueendominoReason | None
) -> None:
    board = kingdom(_SMALL)
    problem = board.placement_problem(piece, placement)
    assert (problem[0] if problem else None) == reason
    assert board.is_legal_placement(piece, placement) is (reason is None)
    assert (placement in board.legal_placements(piece)) is (reason is None)


@pytest.mark.parametrize(
    ("size", "reason"),
    [(5, QueendominoReason.KINGDOM_TOO_LARGE), (7, None)],
    ids=["5x5-rejects", "7x7-accepts"],
)
def test_the_bound_depends_on_the_size(size: int, reason: QueendominoReason | None) -> None:
    board = kingdom(_SMALL, size)
    problem = board.placement_problem(domino("F", "F"), DominoPlacement((4, 0), Rotation.EAST))
    assert (problem[0] if problem else None) == reason


def test_town_matches_town_with_a_building() -> None:
    # RULES.md 1/3A: a town square stays town once built on.
    board = kingdom("CC T0 ..\n.. .. ..")
    board = board.with_building((1, 0), load_buildings().buildings[0])
    assert board.is_legal_placement(domino("T", "S"), DominoPlacement((1, 1), Rotation.EAST))
    assert not board.is_legal_placement(domino("S", "T"), DominoPlacement((1, 1), Rotation.EAST))


def test_place_puts_both_halves_and_keeps_the_original() -> None:
    board = kingdom(_SMALL)
    piece = domino("L2", "S")
    placed = board.place(piece, DominoPlacement((3, 1), Rotation.SOUTH))
    assert placed.square((3, 1)) == square("L2")
    assert placed.square((3, 2)) == square("S")
    assert board.square((3, 1)) is None
    assert len(placed.squares) == len(board.squares) + 2


def test_place_rejects_an_illegal_placement_with_its_reason() -> None:
    with pytest.raises(IllegalMoveError) as caught:
        kingdom(_SMALL).place(domino("S", "G"), DominoPlacement((1, 1), Rotation.SOUTH))
    assert caught.value.reason == QueendominoReason.TERRAIN_MISMATCH
    assert "(1, 1)" in caught.value.message


def test_a_domino_that_fits_nowhere_has_no_placement() -> None:
    # RULES.md 3A: a domino with no legal placement must be discarded.
    boxed_in = kingdom(
        """
        W0 W0 W0 W0 W0
        W0 W0 W0 W0 W0
        W0 W0 CC W0 W0
        W0 W0 W0 W0 ..
        W0 W0 W0 .. ..
        """
    )
    assert boxed_in.legal_placements(domino("L", "L")) == ()
    assert boxed_in.legal_placements(domino("W", "L")) == (
        DominoPlacement((2, 1), Rotation.SOUTH),
        DominoPlacement((1, 2), Rotation.EAST),
    )


def test_with_building_needs_an_open_town_square() -> None:
    board = kingdom("CC T0 W0")
    building = load_buildings().buildings[0]
    built = board.with_building((1, 0), building)
    assert built.buildings == {(1, 0): building}
    assert board.open_town_squares() == ((1, 0),)
    assert built.open_town_squares() == ()
    with pytest.raises(ValueError, match="already holds"):
        built.with_building((1, 0), building)
    with pytest.raises(ValueError, match="not a town square"):
        board.with_building((2, 0), building)


# ---------------------------------------------------------------------------- enumeration


def _brute_force_legal(board: Kingdom, piece: Domino) -> set[DominoPlacement]:
    """RULES.md 3A from scratch, over every cell and rotation that could ever matter."""
    occupied = {CASTLE: None, **board.squares}
    legal = set()
    span = board.size + 1
    for x in range(-span, span + 1):
        for y in range(-span, span + 1):
            for rotation in Rotation:
                first = (x, y)
                second = (x + rotation.step[0], y + rotation.step[1])
                if first in occupied or second in occupied:
                    continue
                cells = [*occupied, first, second]
                if max(c[0] for c in cells) - min(c[0] for c in cells) >= board.size:
                    continue
                if max(c[1] for c in cells) - min(c[1] for c in cells) >= board.size:
                    continue
                fits = False
                for (cx, cy), half in ((first, piece.first), (second, piece.second)):
                    for near in ((cx + 1, cy), (cx - 1, cy), (cx, cy + 1), (cx, cy - 1)):
                        neighbour = board.squares.get(near)
                        if near == CASTLE or (neighbour and neighbour.terrain is half.terrain):
                            fits = True
                if fits:
                    legal.add(DominoPlacement(first, rotation))
    return legal


def _assert_enumeration_matches(board: Kingdom, piece: Domino) -> tuple[DominoPlacement, ...]:
    listed = board.legal_placements(piece)
    assert len(listed) == len(set(listed)), "a placement is listed twice"
    assert set(listed) == _brute_force_legal(board, piece)
    assert list(listed) == sorted(listed, key=lambda p: (p.cell[1], p.cell[0], p.rotation))
    return listed


@pytest.mark.parametrize("size", [5, 7])
def test_the_enumeration_on_an_empty_kingdom(size: int) -> None:
    # Next to the castle: 4 cells x 3 free directions, for either half = 24 placements.
    for piece in load_dominoes():
        assert len(_assert_enumeration_matches(Kingdom.empty(size), piece)) == 24


def test_the_enumeration_on_the_small_kingdom() -> None:
    for piece in load_dominoes():
        _assert_enumeration_matches(kingdom(_SMALL), piece)


@pytest.mark.parametrize(("seed", "seats"), [(1, 2), (2, 3), (3, 4), (4, 2), (5, 4)])
def test_the_enumeration_over_random_playouts(seed: int, seats: int) -> None:
    rng = random.Random(seed)
    deck = list(load_dominoes())
    rng.shuffle(deck)
    board = Kingdom.for_seats(seats)
    placed = 0
    for piece in deck:
        listed = _assert_enumeration_matches(board, piece)
        if listed:
            board = board.place(piece, rng.choice(listed))
            placed += 1
            min_x, min_y, max_x, max_y = board.bounds
            assert max_x - min_x < board.size
            assert max_y - min_y < board.size
    assert placed >= 6
    assert len(board.squares) == 2 * placed
