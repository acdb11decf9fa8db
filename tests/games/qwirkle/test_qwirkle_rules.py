"""Qwirkle rules, table by table: RULES.md's legality checks, scoring, every ruling,
the rulebook's worked example, the opening, exchanges, passes and the end of the game.

Positions are built directly with ``QwirkleState.from_position``; tiles are written as
in RULES.md: a colour letter (R O Y G B P) and a shape (ci sq di cl s4 s8).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import replace

import pytest

from botarena.server.games import GameOverError, NotYourTurnError
from botarena.server.games._core import IllegalMoveError
from botarena.server.games.qwirkle import (
    QWIRKLE,
    Colour,
    EndReason,
    Exchange,
    Exchanged,
    GameEnded,
    OpeningPicked,
    Pass,
    Passed,
    Place,
    Placed,
    Placement,
    QwirkleReason,
    QwirkleState,
    Shape,
    Tile,
    opening_size,
)

_COLOURS = {
    "R": Colour.RED,
    "O": Colour.ORANGE,
    "Y": Colour.YELLOW,
    "G": Colour.GREEN,
    "B": Colour.BLUE,
    "P": Colour.PURPLE,
}
_SHAPES = {
    "ci": Shape.CIRCLE,
    "sq": Shape.SQUARE,
    "di": Shape.DIAMOND,
    "cl": Shape.CLOVER,
    "s4": Shape.STAR4,
    "s8": Shape.STAR8,
}

FILLER = Tile.PURPLE_CLOVER
"""A tile that tests use to pad racks and fill bags; no test board holds a purple clover."""


def tile(code: str) -> Tile:
    """Return the tile written as ``"R cl"``."""
    colour, shape = code.split()
    return Tile.of(_COLOURS[colour], _SHAPES[shape])


def tiles(codes: str) -> list[Tile]:
    """Return the tiles written as ``"R cl, B sq"`` (empty string: no tiles)."""
    return [tile(code) for code in codes.split(",") if code.strip()]


def place(*cells: tuple[int, int, str]) -> Place:
    """Return the placement of ``(x, y, "R cl")`` triples."""
    return Place(tuple(Placement(x, y, tile(code)) for x, y, code in cells))


def position(
    board: Mapping[tuple[int, int], str] | None = None,
    rack: str = "",
    *,
    others: Sequence[str] = ("",),
    bag: int = 30,
    pad: bool = True,
    scores: Sequence[int] | None = None,
) -> QwirkleState:
    """Return a position where seat 0 is to play.

    Args:
        board: The board, by cell; empty (or None) means seat 0 plays the opening.
        rack: Seat 0's rack; padded with FILLER tiles to six unless ``pad`` is false.
        others: The racks of seats 1, 2, ... (each padded likewise).
        bag: How many FILLER tiles the bag holds.
        pad: Whether to pad the racks to six tiles.
        scores: The seats' scores (default all 0).
    """

    def rack_of(codes: str) -> list[Tile]:
        held = tiles(codes)
        return held + [FILLER] * (6 - len(held)) if pad else held

    return QwirkleState.from_position(
        board={cell: tile(code) for cell, code in (board or {}).items()},
        racks=[rack_of(rack), *(rack_of(codes) for codes in others)],
        bag=[FILLER] * bag,
        scores=scores,
    )


def row(y: int, x: int, codes: str) -> dict[tuple[int, int], str]:
    """Return a board fragment: ``codes`` in row ``y`` from column ``x`` rightwards."""
    return {(x + index, y): code.strip() for index, code in enumerate(codes.split(","))}


def column(x: int, y: int, codes: str) -> dict[tuple[int, int], str]:
    """Return a board fragment: ``codes`` in column ``x`` from row ``y`` downwards (+y)."""
    return {(x, y + index): code.strip() for index, code in enumerate(codes.split(","))}


# ---------------------------------------------------------------------------- worked example

WORKED_EXAMPLE = [
    (((0, 0, "R cl"), (0, -1, "R di"), (0, -2, "R ci")), 3),
    (((0, -3, "R sq"), (1, -3, "B sq"), (2, -3, "P sq")), 7),
    (((1, -2, "B ci"),), 4),
    (((-1, 0, "G cl"), (-1, -1, "G di")), 6),
    (((-1, 1, "G s4"), (-1, -2, "G ci")), 7),
    (((3, -3, "O sq"), (3, -4, "R sq")), 6),
    (((-3, 1, "O s4"), (-2, 1, "Y s4")), 3),
    (((-3, 0, "O s8"), (-3, -1, "O di")), 3),
    (((-2, -1, "Y di"), (-2, -2, "Y ci")), 10),
    (((0, 1, "R s4"),), 9),
    (((-1, -4, "O s8"), (0, -4, "R s8"), (1, -4, "B s8")), 18),
    (((4, -3, "Y sq"), (4, -4, "B sq")), 9),
]


def test_worked_example_scores_every_turn_as_the_rulebook() -> None:
    state = QwirkleState.from_position(racks=[tiles("R cl, R di, R ci"), []], bag=[FILLER] * 90)
    scored = []
    for cells, _ in WORKED_EXAMPLE:
        seat = state.turn
        assert seat is not None
        move = place(*cells)
        # Hand the seat exactly the tiles of this turn (plus filler), then play it.
        racks = list(state.racks)
        racks[seat] = tuple(sorted([*move.tiles, *[FILLER] * (6 - len(move.tiles))]))
        state = replace(state, racks=tuple(racks))
        listed = [m.score for m in QWIRKLE.placements(state, seat) if m == move]
        before = state.scores[seat]
        state = QWIRKLE.apply(state, seat, move)
        assert listed == [state.scores[seat] - before]
        scored.append(state.scores[seat] - before)
    assert scored == [points for _, points in WORKED_EXAMPLE]


def test_worked_example_turn_11_completes_a_qwirkle_worth_18() -> None:
    board: dict[tuple[int, int], str] = {}
    for cells, _ in WORKED_EXAMPLE[:10]:
        board.update({(x, y): code for x, y, code in cells})
    state = position(board, "O s8, R s8, B s8")
    move = place(*WORKED_EXAMPLE[10][0])
    assert QWIRKLE.score(state, 0, move) == 18


# ---------------------------------------------------------------------------- the table

# A red row R ci, R sq, R di on (0, 0)..(2, 0) with a blue circle under the red circle.
BASE = {**row(0, 0, "R ci, R sq, R di"), (0, 1): "B ci"}
RED_FIVE = row(0, 0, "R ci, R sq, R di, R cl, R s4")
RED_SIX = row(0, 0, "R ci, R sq, R di, R cl, R s4, R s8")

# (id, board, rack, placements, expected score or reason). An empty board = the opening.
PLACEMENTS: list[tuple[str, dict[tuple[int, int], str], str, Place, int | QwirkleReason]] = [
    # Legality 1: at least one tile, from the rack as a multiset.
    ("rule1-empty-placement", BASE, "R cl", Place(()), QwirkleReason.EMPTY_MOVE),
    ("rule1-tile-not-in-rack", BASE, "R cl", place((3, 0, "R s4")), QwirkleReason.TILE_NOT_IN_RACK),
    (
        "rule1-rack-counted-as-multiset",
        BASE,
        "R cl",
        place((3, 0, "R cl"), (4, 0, "R cl")),
        QwirkleReason.TILE_NOT_IN_RACK,
    ),
    # Legality 2: distinct, empty cells.
    (
        "rule2-two-tiles-on-one-cell",
        BASE,
        "R cl, R s4",
        place((3, 0, "R cl"), (3, 0, "R s4")),
        QwirkleReason.DUPLICATE_CELL,
    ),
    ("rule2-cell-occupied", BASE, "R cl", place((2, 0, "R cl")), QwirkleReason.CELL_OCCUPIED),
    # Legality 3: one row or one column.
    (
        "rule3-not-in-one-line",
        BASE,
        "R cl, R s4",
        place((3, 0, "R cl"), (4, 1, "R s4")),
        QwirkleReason.NOT_IN_ONE_LINE,
    ),
    # Legality 4: no gaps except board tiles; placed tiles need not touch each other.
    (
        "rule4-gap-in-line",
        BASE,
        "R cl, R s4",
        place((3, 0, "R cl"), (5, 0, "R s4")),
        QwirkleReason.GAP_IN_LINE,
    ),
    (
        "rule4-gap-filled-by-board-tiles-ok",
        BASE,
        "R cl, R s4",
        place((-1, 0, "R cl"), (3, 0, "R s4")),
        5,
    ),
    (
        "rule4-placed-tiles-need-not-touch-each-other-ok",
        column(0, 0, "R ci, B ci"),
        "G ci, Y ci",
        place((0, -1, "G ci"), (0, 2, "Y ci")),
        4,
    ),
    (
        "rule4-gap-on-first-move",
        {},
        "R ci, R sq, R di",
        place((0, 0, "R ci"), (2, 0, "R sq"), (3, 0, "R di")),
        QwirkleReason.GAP_IN_LINE,
    ),
    # Legality 5: touch the board orthogonally.
    ("rule5-not-connected", BASE, "R cl", place((5, 5, "R cl")), QwirkleReason.NOT_CONNECTED),
    (
        "rule5-diagonal-contact-does-not-connect",
        BASE,
        "R cl",
        place((3, 1, "R cl")),
        QwirkleReason.NOT_CONNECTED,
    ),
    (
        "rule5-one-touching-tile-is-enough-ok",
        BASE,
        "R cl, B cl",
        place((3, 0, "R cl"), (3, -1, "B cl")),
        6,
    ),
    # Legality 6: every line through a placed tile is one colour or one shape, no repeats.
    (
        "rule6-line-mixes-attributes",
        BASE,
        "B cl",
        place((3, 0, "B cl")),
        QwirkleReason.LINE_MIXES_ATTRIBUTES,
    ),
    (
        "rule6-line-mixes-attributes-among-placed-tiles",
        BASE,
        "R cl, B s4",
        place((3, 0, "R cl"), (4, 0, "B s4")),
        QwirkleReason.LINE_MIXES_ATTRIBUTES,
    ),
    (
        "rule6-duplicate-tile-in-line",
        BASE,
        "R ci",
        place((3, 0, "R ci")),
        QwirkleReason.DUPLICATE_IN_LINE,
    ),
    (
        "rule6-line-longer-than-six",
        RED_SIX,
        "R ci",
        place((6, 0, "R ci")),
        QwirkleReason.LINE_TOO_LONG,
    ),
    (
        "rule6-cross-line-of-a-placed-tile-is-checked",
        BASE,
        "B di",
        place((1, 1, "B di")),
        QwirkleReason.LINE_MIXES_ATTRIBUTES,
    ),
    (
        "rule6-bridge-merges-runs-into-one-valid-line-ok",
        {**row(0, 0, "R ci, R sq"), (3, 0): "R s4"},
        "R di",
        place((2, 0, "R di")),
        4,
    ),
    (
        "rule6-bridge-fits-each-run-but-not-the-merged-line",
        {**row(0, 0, "R ci, R sq"), (3, 0): "B di"},
        "R di",
        place((2, 0, "R di")),
        QwirkleReason.LINE_MIXES_ATTRIBUTES,
    ),
    (
        "rule6-bridge-repeats-a-tile-across-runs",
        {**row(0, 0, "R ci, R sq"), (3, 0): "R ci"},
        "R di",
        place((2, 0, "R di")),
        QwirkleReason.DUPLICATE_IN_LINE,
    ),
    (
        "rule6-runs-split-by-an-empty-cell-are-separate-lines-ok",
        {(0, 0): "R ci", **column(2, 0, "B sq, B ci")},
        "B di",
        place((3, 0, "B di")),
        2,
    ),
    # Scoring.
    ("score-line-counts-board-tiles", BASE, "R cl", place((3, 0, "R cl")), 4),
    (
        "score-each-line-counts-once",
        BASE,
        "R cl, R s4",
        place((3, 0, "R cl"), (4, 0, "R s4")),
        5,
    ),
    (
        "score-tile-on-a-crossing-scores-both-lines",
        {**row(0, 0, "R ci, R sq"), **column(2, 1, "B di, G di")},
        "R di",
        place((2, 0, "R di")),
        6,
    ),
    (
        "score-line-of-one-scores-nothing",
        BASE,
        "G ci, Y ci",
        place((0, -1, "G ci"), (0, -2, "Y ci")),
        4,
    ),
    ("score-qwirkle-line-of-six-scores-12", RED_FIVE, "R s8", place((5, 0, "R s8")), 12),
    (
        "score-one-tile-completing-two-qwirkles-scores-24",
        {**RED_FIVE, **column(5, 1, "O s8, Y s8, G s8, B s8, P s8")},
        "R s8",
        place((5, 0, "R s8")),
        24,
    ),
    # The opening (setup 4-5 and their rulings).
    (
        "opening-line-scores-its-length",
        {},
        "R ci, R sq, R di",
        place((-1, 0, "R ci"), (0, 0, "R sq"), (1, 0, "R di")),
        3,
    ),
    (
        "opening-column-ok",
        {},
        "R ci, B ci",
        place((0, 0, "R ci"), (0, 1, "B ci")),
        2,
    ),
    (
        "opening-too-small",
        {},
        "R ci, R sq, R di",
        place((0, 0, "R ci"), (1, 0, "R sq")),
        QwirkleReason.OPENING_TOO_SMALL,
    ),
    (
        "opening-set-must-share-an-attribute",
        {},
        "R ci, R sq, B di",
        place((0, 0, "R ci"), (1, 0, "B di")),
        QwirkleReason.LINE_MIXES_ATTRIBUTES,
    ),
    (
        "opening-of-six-is-a-qwirkle-scoring-12",
        {},
        "R ci, R sq, R di, R cl, R s4, R s8",
        place(
            *(
                (x, y, code)
                for (x, y), code in row(0, -2, "R ci, R sq, R di, R cl, R s4, R s8").items()
            )
        ),
        12,
    ),
    (
        "ruling-opening-must-cover-origin",
        {},
        "R ci, R sq",
        place((1, 0, "R ci"), (2, 0, "R sq")),
        QwirkleReason.OPENING_NOT_AT_ORIGIN,
    ),
    (
        "ruling-lone-opening-tile-scores-1",
        {},
        "R ci, O sq, Y di, G cl, B s4, P s8",
        place((0, 0, "G cl")),
        1,
    ),
]


@pytest.mark.parametrize(
    ("board", "rack", "move", "expected"),
    [case[1:] for case in PLACEMENTS],
    ids=[case[0] for case in PLACEMENTS],
)
def test_placement_is_scored_or_rejected_with_its_reason(
    board: dict[tuple[int, int], str],
    rack: str,
    move: Place,
    expected: int | QwirkleReason,
) -> None:
    state = position(board, rack, pad=bool(board))
    listed = {m: m.score for m in QWIRKLE.placements(state, 0)}
    if isinstance(expected, QwirkleReason):
        with pytest.raises(IllegalMoveError) as caught:
            QWIRKLE.apply(state, 0, move)
        assert caught.value.reason == expected
        assert caught.value.message  # a sentence for humans
        assert move not in listed
    else:
        after = QWIRKLE.apply(state, 0, move)
        assert after.scores[0] == expected
        assert listed[move] == expected


def test_rejection_message_names_the_offending_cell() -> None:
    state = position(BASE, "R cl, R s4")
    with pytest.raises(IllegalMoveError, match=r"\(4, 0\)"):
        QWIRKLE.apply(state, 0, place((3, 0, "R cl"), (5, 0, "R s4")))


def test_placement_order_does_not_matter() -> None:
    state = position(BASE, "R cl, R s4")
    forwards = place((3, 0, "R cl"), (4, 0, "R s4"))
    backwards = place((4, 0, "R s4"), (3, 0, "R cl"))
    assert forwards == backwards
    assert QWIRKLE.apply(state, 0, backwards) == QWIRKLE.apply(state, 0, forwards)


def test_placing_refills_the_rack_to_six() -> None:
    state = position(BASE, "R cl, R s4", bag=30)
    after = QWIRKLE.apply(state, 0, place((3, 0, "R cl"), (4, 0, "R s4")))
    assert len(after.racks[0]) == 6
    assert len(after.bag) == 28


def test_refill_takes_what_the_bag_has_left() -> None:
    state = position(BASE, "R cl, R s4", bag=1)
    after = QWIRKLE.apply(state, 0, place((3, 0, "R cl"), (4, 0, "R s4")))
    assert len(after.racks[0]) == 5
    assert after.bag == ()


def test_placement_moves_the_turn_to_the_next_seat() -> None:
    state = position(BASE, "R cl", others=("", ""))
    after = QWIRKLE.apply(state, 0, place((3, 0, "R cl")))
    assert QWIRKLE.to_act(after) == {1}
    assert after.history[-1] == Placed(0, place((3, 0, "R cl")).placements, 4)


# ---------------------------------------------------------------------------- seats and turns


@pytest.mark.parametrize("seats", [2, 3, 4], ids=["2-seats", "3-seats", "4-seats"])
def test_ruling_two_to_four_seats_are_accepted(seats: int) -> None:
    state = QWIRKLE.new_match(QWIRKLE.default_config(), seats, seed=5)
    assert len(state.racks) == seats
    assert all(len(rack) == 6 for rack in state.racks)
    assert len(state.bag) == 108 - 6 * seats


@pytest.mark.parametrize("seats", [0, 1, 5, 6], ids=["0-seats", "1-seat", "5-seats", "6-seats"])
def test_ruling_other_seat_counts_are_rejected(seats: int) -> None:
    with pytest.raises(ValueError, match="2 to 4"):
        QWIRKLE.new_match(QWIRKLE.default_config(), seats, seed=5)


def test_move_out_of_turn_is_rejected() -> None:
    state = position(BASE, "R cl", others=("R cl",))
    with pytest.raises(NotYourTurnError) as caught:
        QWIRKLE.apply(state, 1, place((3, 0, "R cl")))
    assert caught.value.reason == QwirkleReason.NOT_YOUR_TURN
    assert QWIRKLE.legal_moves(state, 1) == ()


def test_unknown_move_is_rejected_as_malformed() -> None:
    state = position(BASE, "R cl")
    with pytest.raises(IllegalMoveError) as caught:
        QWIRKLE.apply(state, 0, "place everything")  # type: ignore[arg-type]  # on purpose
    assert caught.value.reason == QwirkleReason.MALFORMED_MOVE


# ---------------------------------------------------------------------------- the opening


@pytest.mark.parametrize(
    ("rack", "expected"),
    [
        ("R ci, O sq, Y di, G cl, B s4, P s8", 1),
        ("R ci, R sq, B ci, Y di, G cl, P s4", 2),
        ("R ci, R ci, R ci, R sq, B s8, G s8", 2),
        ("R ci, R sq, R di, B ci, G ci, Y ci", 4),
        ("B s4, B s4, G s4, G s4, Y s4, Y s4", 3),
        ("R ci, R sq, R di, R cl, R s4, R s8", 6),
    ],
    ids=[
        "all-different-is-1",
        "colour-pair-is-2",
        "identical-tiles-count-once",
        "shape-set-beats-colour-set",
        "pairs-of-identical-tiles",
        "full-colour-is-6",
    ],
)
def test_opening_size_is_the_largest_distinct_set_sharing_an_attribute(
    rack: str, expected: int
) -> None:
    assert opening_size(tiles(rack)) == expected


def test_starter_is_the_seat_with_the_largest_opening_size() -> None:
    checked = 0
    for seed in range(40):
        state = QWIRKLE.new_match(QWIRKLE.default_config(), 3, seed)
        sizes = [opening_size(rack) for rack in state.racks]
        picked = state.history[0]
        assert isinstance(picked, OpeningPicked)
        assert picked.opening_sizes == tuple(sizes)
        assert sizes[picked.starter] == max(sizes)
        assert QWIRKLE.to_act(state) == {picked.starter}
        if sizes.count(max(sizes)) == 1:
            assert picked.tied == (picked.starter,)
            checked += 1
    assert checked > 5


def test_ruling_opening_ties_are_broken_by_a_seeded_pick_recorded_in_history() -> None:
    starters: dict[tuple[int, ...], set[int]] = {}
    for seed in range(200):
        state = QWIRKLE.new_match(QWIRKLE.default_config(), 4, seed)
        picked = state.history[0]
        assert isinstance(picked, OpeningPicked)
        sizes = [opening_size(rack) for rack in state.racks]
        assert picked.tied == tuple(s for s, size in enumerate(sizes) if size == max(sizes))
        assert picked.starter in picked.tied
        assert QWIRKLE.view(state, None).history[0] == picked
        again = QWIRKLE.new_match(QWIRKLE.default_config(), 4, seed)
        assert again.history[0] == picked
        if len(picked.tied) > 1:
            starters.setdefault(picked.tied, set()).add(picked.starter)
    # Not always the lowest tied seat: the pick really is random among the tied seats.
    assert any(len(chosen) > 1 for chosen in starters.values())


def test_opening_legal_moves_are_every_line_of_the_opening_set_through_the_origin() -> None:
    state = position({}, "R ci, R sq, R di, B cl, G s4, Y s8", pad=False)
    moves = QWIRKLE.legal_moves(state, 0)
    # 3! orders x 3 positions along the line x 2 directions, all scoring 3.
    assert len(moves) == 36
    assert len(set(moves)) == 36
    for move in moves:
        assert isinstance(move, Place)
        assert move.score == 3
        assert (0, 0) in move.cells
        assert sorted(move.tiles) == tiles("R ci, R sq, R di")


def test_opening_legal_moves_of_size_one_put_any_tile_on_the_origin() -> None:
    state = position({}, "R ci, O sq, Y di, G cl, B s4, B s4", pad=False)
    moves = QWIRKLE.legal_moves(state, 0)
    assert moves == tuple(
        Place((Placement(0, 0, face),), score=1) for face in tiles("R ci, O sq, Y di, G cl, B s4")
    )
    assert all(isinstance(move, Place) and move.score == 1 for move in moves)


def test_no_exchange_on_the_opening_move() -> None:
    state = position({}, "R ci, R sq, B cl", pad=False)
    with pytest.raises(IllegalMoveError) as caught:
        QWIRKLE.apply(state, 0, Exchange(tuple(tiles("B cl"))))
    assert caught.value.reason == QwirkleReason.EXCHANGE_NOT_ALLOWED


def test_no_pass_on_the_opening_move() -> None:
    state = position({}, "R ci, R sq, B cl", pad=False, bag=0)
    with pytest.raises(IllegalMoveError) as caught:
        QWIRKLE.apply(state, 0, Pass())
    assert caught.value.reason == QwirkleReason.PASS_NOT_ALLOWED


# ---------------------------------------------------------------------------- exchanges


def test_exchange_draws_first_then_returns_the_tiles() -> None:
    # The bag holds exactly as many tiles as are exchanged: drawing first means the seat
    # gets all of them and none of its own back.
    state = QwirkleState.from_position(
        board={(0, 0): tile("R ci")},
        racks=[tiles("B sq, B sq, G di, Y cl, O s4, O s8"), tiles("R sq")],
        bag=tiles("P ci, P di"),
    )
    after = QWIRKLE.apply(state, 0, Exchange(tuple(tiles("B sq, B sq"))))
    assert sorted(after.racks[0]) == sorted(tiles("P ci, P di, G di, Y cl, O s4, O s8"))
    assert after.bag == tuple(tiles("B sq, B sq"))
    assert after.scores == (0, 0)
    assert after.history[-1] == Exchanged(0, 2)
    assert QWIRKLE.to_act(after) == {1}


def test_exchange_is_allowed_even_when_a_placement_exists() -> None:
    state = position(BASE, "R cl")
    assert QWIRKLE.placements(state, 0)
    assert QWIRKLE.is_legal(state, 0, Exchange((tile("R cl"),)))


def test_ruling_exchange_is_limited_to_the_bag_size() -> None:
    state = position(BASE, "R cl, R s4, B sq", bag=2)
    with pytest.raises(IllegalMoveError) as caught:
        QWIRKLE.apply(state, 0, Exchange(tuple(tiles("R cl, R s4, B sq"))))
    assert caught.value.reason == QwirkleReason.EXCHANGE_TOO_LARGE
    assert QWIRKLE.is_legal(state, 0, Exchange(tuple(tiles("R cl, R s4"))))
    exchanges = [m for m in QWIRKLE.legal_moves(state, 0) if isinstance(m, Exchange)]
    assert max(len(m.tiles) for m in exchanges) == 2


def test_ruling_no_exchange_with_an_empty_bag() -> None:
    state = position(BASE, "R cl", bag=0)
    with pytest.raises(IllegalMoveError) as caught:
        QWIRKLE.apply(state, 0, Exchange((tile("R cl"),)))
    assert caught.value.reason == QwirkleReason.EXCHANGE_NOT_ALLOWED
    assert not any(isinstance(m, Exchange) for m in QWIRKLE.legal_moves(state, 0))


@pytest.mark.parametrize(
    ("returned", "reason"),
    [
        ("", QwirkleReason.EMPTY_MOVE),
        ("G s8", QwirkleReason.TILE_NOT_IN_RACK),
        ("R cl, R cl", QwirkleReason.TILE_NOT_IN_RACK),
    ],
    ids=["no-tiles", "tile-not-in-rack", "more-copies-than-held"],
)
def test_invalid_exchange_is_rejected(returned: str, reason: QwirkleReason) -> None:
    state = position(BASE, "R cl, B sq")
    with pytest.raises(IllegalMoveError) as caught:
        QWIRKLE.apply(state, 0, Exchange(tuple(tiles(returned))))
    assert caught.value.reason == reason


def test_legal_exchanges_are_the_distinct_sub_multisets_of_the_rack() -> None:
    state = position(BASE, "R ci, R ci, B sq", pad=False)
    exchanges = [m for m in QWIRKLE.legal_moves(state, 0) if isinstance(m, Exchange)]
    assert exchanges == [
        Exchange(tuple(tiles(codes)))
        for codes in ("R ci", "B sq", "R ci, R ci", "R ci, B sq", "R ci, R ci, B sq")
    ]


# ---------------------------------------------------------------------------- passes and the end

# A lone red circle: a green diamond agrees with it in nothing, so it fits nowhere.
BLOCKING = {(0, 0): "R ci"}


def test_pass_is_rejected_while_the_bag_has_tiles() -> None:
    state = position(BLOCKING, "G di", pad=False, bag=3)
    with pytest.raises(IllegalMoveError) as caught:
        QWIRKLE.apply(state, 0, Pass())
    assert caught.value.reason == QwirkleReason.PASS_NOT_ALLOWED


def test_pass_is_rejected_when_a_placement_exists() -> None:
    state = position(BASE, "R cl", pad=False, bag=0)
    with pytest.raises(IllegalMoveError) as caught:
        QWIRKLE.apply(state, 0, Pass())
    assert caught.value.reason == QwirkleReason.PASS_NOT_ALLOWED
    assert "red clover" in caught.value.message


def test_pass_is_the_only_legal_move_when_forced() -> None:
    state = position(BLOCKING, "G di", others=("G di",), pad=False, bag=0)
    assert QWIRKLE.legal_moves(state, 0) == (Pass(),)
    after = QWIRKLE.apply(state, 0, Pass())
    assert after.history[-1] == Passed(0)
    assert QWIRKLE.outcome(after) is None


def test_going_out_ends_the_game_at_once_with_six_bonus_points() -> None:
    state = position(BASE, "R cl", others=("B sq, B di",), pad=False, bag=0, scores=(10, 19))
    after = QWIRKLE.apply(state, 0, place((3, 0, "R cl")))
    assert after.scores == (10 + 4 + 6, 19)  # tiles left in other racks cost nothing
    assert after.history[-1] == GameEnded(EndReason.WENT_OUT, 0, 6)
    assert QWIRKLE.to_act(after) == frozenset()
    outcome = QWIRKLE.outcome(after)
    assert outcome is not None
    assert outcome.reason == "went_out"
    assert outcome.ranks == (1, 2)
    with pytest.raises(GameOverError) as caught:
        QWIRKLE.apply(after, 1, Pass())
    assert caught.value.reason == QwirkleReason.GAME_OVER
    assert QWIRKLE.legal_moves(after, 1) == ()


def test_emptying_the_rack_while_the_bag_has_tiles_does_not_end_the_game() -> None:
    state = position(BASE, "R cl", pad=False, bag=3)
    after = QWIRKLE.apply(state, 0, place((3, 0, "R cl")))
    assert len(after.racks[0]) == 3
    assert QWIRKLE.outcome(after) is None


def test_ruling_blocked_game_ends_after_a_round_of_passes_without_bonus() -> None:
    state = position(BLOCKING, "G di", others=("G di", "G di"), pad=False, bag=0, scores=(5, 9, 7))
    for seat in (0, 1):
        state = QWIRKLE.apply(state, seat, Pass())
        assert QWIRKLE.outcome(state) is None
    state = QWIRKLE.apply(state, 2, Pass())
    assert state.scores == (5, 9, 7)
    assert state.history[-1] == GameEnded(EndReason.BLOCKED, None, 0)
    outcome = QWIRKLE.outcome(state)
    assert outcome is not None
    assert outcome.reason == "blocked"
    assert outcome.ranks == (3, 1, 2)


def test_a_placement_between_passes_restarts_the_round() -> None:
    # Seat 1 can put R sq next to R ci (and keeps a tile, so it does not go out).
    state = position(BLOCKING, "G di", others=("R sq, G di",), pad=False, bag=0)
    state = QWIRKLE.apply(state, 0, Pass())
    state = QWIRKLE.apply(state, 1, place((1, 0, "R sq")))
    state = QWIRKLE.apply(state, 0, Pass())
    assert QWIRKLE.outcome(state) is None
    assert state.passes == 1


def test_equal_totals_share_the_win() -> None:
    state = position(BLOCKING, "G di", others=("G di",), pad=False, bag=0, scores=(12, 12))
    state = QWIRKLE.apply(state, 0, Pass())
    state = QWIRKLE.apply(state, 1, Pass())
    outcome = QWIRKLE.outcome(state)
    assert outcome is not None
    assert outcome.ranks == (1, 1)
    assert outcome.winners == {0, 1}
