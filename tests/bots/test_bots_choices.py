"""What the random and greedy bots choose, from hand-built views and legal moves."""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Sequence

import pytest

from botarena.bots import GreedyQwirkleBot, RandomBot, UnsupportedGameError
from botarena.v1 import match_pb2, qwirkle_pb2

C = qwirkle_pb2  # colours and shapes read better with a short prefix
RED, GREEN, BLUE = C.QWIRKLE_COLOUR_RED, C.QWIRKLE_COLOUR_GREEN, C.QWIRKLE_COLOUR_BLUE
CIRCLE, SQUARE, DIAMOND = C.QWIRKLE_SHAPE_CIRCLE, C.QWIRKLE_SHAPE_SQUARE, C.QWIRKLE_SHAPE_DIAMOND

Tile = tuple[int, int]


def pass_move() -> match_pb2.Move:
    move = match_pb2.Move()
    # `pass` is a Python keyword: the field is reachable by name only.
    getattr(move.qwirkle, "pass").SetInParent()
    return move


def view(rack: Sequence[Tile], *, bag: int = 50) -> match_pb2.PlayerView:
    message = match_pb2.PlayerView(seat=0)
    message.qwirkle.bag_size = bag
    for colour, shape in rack:
        message.qwirkle.rack.add(colour=colour, shape=shape)
    return message


def place(score: int, x: int = 0) -> match_pb2.Move:
    move = match_pb2.Move()
    move.qwirkle.place.score = score
    move.qwirkle.place.placements.add(x=x, y=1, tile=qwirkle_pb2.QwirkleTile(colour=RED))
    return move


def exchange(*tiles: Tile) -> match_pb2.Move:
    move = match_pb2.Move()
    for colour, shape in tiles:
        move.qwirkle.exchange.tiles.add(colour=colour, shape=shape)
    move.qwirkle.exchange.tile_count = len(tiles)
    return move


def every_exchange(rack: Sequence[Tile], largest: int) -> list[match_pb2.Move]:
    """Every distinct sub-multiset of the rack of 1..largest tiles, as the server lists."""
    subsets: set[tuple[Tile, ...]] = set()
    for mask in range(1, 1 << len(rack)):
        chosen = tuple(sorted(t for i, t in enumerate(rack) if mask >> i & 1))
        if len(chosen) <= largest:
            subsets.add(chosen)
    return [exchange(*subset) for subset in sorted(subsets)]


def exchanged(move: match_pb2.Move) -> Counter[Tile]:
    assert move.qwirkle.WhichOneof("action") == "exchange"
    return Counter((t.colour, t.shape) for t in move.qwirkle.exchange.tiles)


RACK = [
    (RED, CIRCLE),
    (RED, SQUARE),
    (RED, DIAMOND),
    (GREEN, CIRCLE),
    (BLUE, SQUARE),
    (RED, CIRCLE),
]


def test_greedy_plays_the_highest_scoring_placement() -> None:
    moves = [place(3, x=1), place(7, x=2), place(5, x=3), *every_exchange(RACK, 6)]
    chosen = GreedyQwirkleBot().choose_move(view(RACK), moves, random.Random(0))
    assert chosen == moves[1]


def test_greedy_breaks_ties_by_its_seeded_rng() -> None:
    moves = [place(6, x=x) for x in range(5)]
    picks = {
        seed: GreedyQwirkleBot().choose_move(view(RACK), moves, random.Random(seed))
        for seed in range(20)
    }
    assert len({pick.qwirkle.place.placements[0].x for pick in picks.values()}) > 1
    again = {
        seed: GreedyQwirkleBot().choose_move(view(RACK), moves, random.Random(seed))
        for seed in range(20)
    }
    assert again == picks


def test_greedy_exchanges_the_tiles_outside_its_best_group_when_it_scores_two_or_less() -> None:
    moves = [place(2), *every_exchange(RACK, 6)]
    chosen = GreedyQwirkleBot().choose_move(view(RACK), moves, random.Random(0))
    # Best group: the three distinct reds; the second red circle is a duplicate.
    assert exchanged(chosen) == Counter([(GREEN, CIRCLE), (BLUE, SQUARE), (RED, CIRCLE)])


def test_greedy_places_for_three_points_rather_than_exchange() -> None:
    moves = [place(3), *every_exchange(RACK, 6)]
    chosen = GreedyQwirkleBot().choose_move(view(RACK), moves, random.Random(0))
    assert chosen == moves[0]


def test_greedy_places_a_small_score_when_no_exchange_is_legal() -> None:
    chosen = GreedyQwirkleBot().choose_move(view(RACK, bag=0), [place(1)], random.Random(0))
    assert chosen.qwirkle.place.score == 1


def test_greedy_exchanges_when_it_cannot_place() -> None:
    chosen = GreedyQwirkleBot().choose_move(view(RACK), every_exchange(RACK, 6), random.Random(0))
    assert sum(exchanged(chosen).values()) == 3


def test_greedy_exchanges_no_more_tiles_than_the_bag_holds() -> None:
    chosen = GreedyQwirkleBot().choose_move(
        view(RACK, bag=2), every_exchange(RACK, 2), random.Random(0)
    )
    assert sum(exchanged(chosen).values()) == 2


def test_greedy_exchanges_the_whole_rack_when_it_is_one_group() -> None:
    rack = [(RED, CIRCLE), (RED, SQUARE), (RED, DIAMOND)]
    chosen = GreedyQwirkleBot().choose_move(view(rack), every_exchange(rack, 6), random.Random(0))
    assert exchanged(chosen) == Counter(rack)


def test_greedy_passes_when_passing_is_all_that_is_left() -> None:
    passing = pass_move()
    chosen = GreedyQwirkleBot().choose_move(view(RACK, bag=0), [passing], random.Random(0))
    assert chosen == passing


def test_greedy_refuses_games_other_than_qwirkle() -> None:
    with pytest.raises(UnsupportedGameError):
        GreedyQwirkleBot().choose_move(match_pb2.PlayerView(), [match_pb2.Move()], random.Random())


def test_random_is_uniform_and_reproducible_by_seed() -> None:
    moves = [place(score, x=score) for score in range(4)]
    rng = random.Random(42)
    counts = Counter(
        RandomBot().choose_move(view(RACK), moves, rng).qwirkle.place.score for _ in range(4000)
    )
    assert set(counts) == {0, 1, 2, 3}
    assert all(900 <= count <= 1100 for count in counts.values())
    first = [RandomBot().choose_move(view(RACK), moves, random.Random(7)) for _ in range(3)]
    assert first[0] == first[1] == first[2]


def test_random_refuses_an_empty_move_list() -> None:
    with pytest.raises(ValueError, match="no legal moves"):
        RandomBot().choose_move(view(RACK), [], random.Random())
