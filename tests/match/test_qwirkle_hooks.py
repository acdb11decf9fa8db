"""Qwirkle's default move (match.proto: TIMEOUT_POLICY_DEFAULT_MOVE) and live scores."""

from __future__ import annotations

from botarena.server.games.qwirkle import QWIRKLE, Exchange, Pass, Place, QwirkleState, Tile
from botarena.server.match import hooks_for

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


def test_default_move_is_the_highest_scoring_placement_first_in_legal_order() -> None:
    state = QwirkleState.from_position(
        racks=[
            (T.RED_SQUARE, T.RED_DIAMOND, T.BLUE_CIRCLE, T.GREEN_CLOVER, T.RED_STAR4, T.BLUE_STAR8),
            (T.RED_SQUARE,),
        ],
        board={(0, 0): T.RED_CIRCLE},
        bag=(T.PURPLE_CLOVER,) * 6,
    )
    move = hooks_for("qwirkle").default_move(QWIRKLE, state, 0)
    places = [m for m in QWIRKLE.legal_moves(state, 0) if isinstance(m, Place)]
    best = max(m.score or 0 for m in places)
    assert isinstance(move, Place)
    assert move.score == best
    assert places.index(move) == next(i for i, m in enumerate(places) if m.score == best)


def test_default_move_exchanges_the_whole_rack_when_nothing_can_be_placed() -> None:
    state = _position(bag=(T.RED_CLOVER,) * 10)
    assert hooks_for("qwirkle").default_move(QWIRKLE, state, 0) == Exchange(_UNPLAYABLE_RACK)


def test_default_exchange_is_capped_at_the_bag_size_taking_the_first_tiles() -> None:
    state = _position(bag=(T.RED_CLOVER, T.RED_STAR8))
    move = hooks_for("qwirkle").default_move(QWIRKLE, state, 0)
    assert move == Exchange(tuple(sorted(_UNPLAYABLE_RACK))[:2])


def test_default_move_passes_when_the_bag_is_empty_and_nothing_fits() -> None:
    state = _position(bag=())
    assert hooks_for("qwirkle").default_move(QWIRKLE, state, 0) == Pass()


def test_scores_are_the_public_scores() -> None:
    state = QwirkleState.from_position(racks=[(T.RED_SQUARE,), (T.RED_SQUARE,)], scores=[4, 9])
    assert hooks_for("qwirkle").scores(QWIRKLE, state, 2) == (4, 9)
