"""The forward models of ``botarena.clients.search``: a determinization looks to its seat
exactly like the truth, and depends on nothing the seat has not seen."""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Callable, Iterator
from dataclasses import replace
from typing import Any

import pytest

from botarena.clients.search import (
    QueendominoModel,
    QwirkleModel,
    QwixxModel,
    determinize,
    forward_model,
)
from botarena.server.games import random_below
from botarena.server.games.qwirkle import (
    QWIRKLE,
    Exchange,
    Place,
    Placement,
    QwirkleState,
    Tile,
)
from botarena.server.games.qwixx import QWIXX, QwixxState
from botarena.server.service import plugin_for
from botarena.v1 import match_pb2

GAMES = ("qwirkle", "qwixx", "queendomino")


def view_of(game: str, state: Any, seat: int) -> match_pb2.PlayerView:
    """The seat's view as a decision event carries it (the server's codec, no history)."""
    plugin = plugin_for(game)
    out = match_pb2.PlayerView()
    plugin.codec.encode_view(plugin.rules.view(state, seat), seat, with_history=False, out=out)
    return out


def decisions(game: str, seed: int, seats: int = 2) -> Iterator[tuple[Any, int]]:
    """Every (state, seat) of a seeded playout whose moves are picked by ``random_below``."""
    rules = plugin_for(game).rules
    state = rules.new_match(rules.default_config(), seats, seed)
    counter = 0
    while rules.outcome(state) is None:
        seat = min(rules.to_act(state))
        yield state, seat
        moves = rules.legal_moves(state, seat)
        index, counter = random_below(seed, counter, len(moves))
        state = rules.apply(state, seat, moves[index])


@pytest.mark.parametrize("seats", [2, 3], ids=["2 seats", "3 seats"])
@pytest.mark.parametrize("game", GAMES)
def test_a_determinization_looks_to_its_seat_like_the_truth(game: str, seats: int) -> None:
    rules = plugin_for(game).rules
    models: dict[int, Any] = {}
    checked = 0
    for number, (state, seat) in enumerate(decisions(game, seed=11, seats=seats)):
        view = view_of(game, state, seat)
        model = models.setdefault(seat, forward_model(view))
        sample = model.determinize(view, random.Random(number))
        assert view_of(game, sample, seat) == view
        assert rules.to_act(sample) == rules.to_act(state)
        assert list(rules.legal_moves(sample, seat)) == list(rules.legal_moves(state, seat))
        checked += 1
    assert checked > 20


def _twin_qwirkle(state: QwirkleState, seat: int) -> QwirkleState:
    """The same view for ``seat``, the other racks and the bag dealt another way."""
    hidden = sorted([*state.bag, *(t for s, r in enumerate(state.racks) if s != seat for t in r)])
    random.Random(99).shuffle(hidden)
    racks = list(state.racks)
    for other in range(state.seats):
        if other != seat:
            racks[other] = tuple(sorted(hidden[: len(racks[other])]))
            hidden = hidden[len(racks[other]) :]
    return replace(state, racks=tuple(racks), bag=tuple(sorted(hidden)), seed=state.seed + 1)


def _twin_queendomino(state: Any, seat: int) -> Any:
    del seat
    deck, pile = list(state.deck), list(state.pile)
    random.Random(99).shuffle(deck)
    random.Random(98).shuffle(pile)
    return state._replace(deck=tuple(deck), pile=tuple(pile), seed=state.seed + 1)


def _twin_qwixx(state: QwixxState, seat: int) -> QwixxState:
    """Other dice to come, and another sealed choice by a seat that has chosen."""
    choices = list(state.choices)
    for other, choice in enumerate(state.choices):
        if other != seat and choice is not None:
            unsealed = state._replace(
                choices=tuple(None if s == other else c for s, c in enumerate(choices))
            )
            options = QWIXX.legal_moves(unsealed, other)
            choices[other] = next((m for m in options if m != choice), choice)  # type: ignore[assignment]
    return state._replace(seed=state.seed + 1, choices=tuple(choices))


TWINS: dict[str, Callable[[Any, int], Any]] = {
    "qwirkle": _twin_qwirkle,
    "qwixx": _twin_qwixx,
    "queendomino": _twin_queendomino,
}


@pytest.mark.parametrize("game", GAMES)
def test_two_truths_with_one_view_give_the_same_determinizations(game: str) -> None:
    compared = 0
    for state, seat in list(decisions(game, seed=5))[::7]:
        twin = TWINS[game](state, seat)
        assert twin != state
        view, twin_view = view_of(game, state, seat), view_of(game, twin, seat)
        assert view == twin_view
        for seed in range(5):
            first = forward_model(view).determinize(view, random.Random(seed))
            second = forward_model(twin_view).determinize(twin_view, random.Random(seed))
            assert first == second
        compared += 1
    assert compared > 3


def test_qwirkle_racks_are_dealt_uniformly_not_from_the_truth() -> None:
    state, seat = list(decisions("qwirkle", seed=3))[10]
    view = view_of("qwirkle", state, seat)
    other = 1 - seat
    truth, twin = Counter(state.racks[other]), Counter(_twin_qwirkle(state, seat).racks[other])
    model = QwirkleModel()
    overlaps = {"truth": 0, "twin": 0}
    held: Counter[Tile] = Counter()
    samples = 400
    for number in range(samples):
        rack = Counter(model.determinize(view, random.Random(number)).racks[other])
        held.update(rack)
        overlaps["truth"] += sum((rack & truth).values())
        overlaps["twin"] += sum((rack & twin).values())
    # Each unseen tile lands in the rack with the same chance: 6 / unseen per copy.
    unseen = Counter(model.unseen)
    expected = {tile: samples * 6 * count / len(model.unseen) for tile, count in unseen.items()}
    assert all(abs(held[tile] - mean) < 5 * mean**0.5 + 2 for tile, mean in expected.items())
    assert abs(overlaps["truth"] - overlaps["twin"]) < 0.25 * max(overlaps.values())


def _exchange_position() -> tuple[QwirkleState, tuple[Tile, ...]]:
    """Seat 0 holds the third copy of six faces whose other copies lie on the board."""
    faces = (Tile.RED_CIRCLE, Tile.ORANGE_SQUARE, Tile.YELLOW_DIAMOND, Tile.GREEN_CLOVER,
             Tile.BLUE_STAR4, Tile.PURPLE_STAR8)  # fmt: skip
    board = {}
    for index, face in enumerate(faces):
        board[(10 * index, 0)] = face
        board[(10 * index, 20)] = face
    board[(100, 100)] = Tile.RED_SQUARE
    rest = Counter(dict.fromkeys(Tile, 3))
    rest.subtract(board.values())
    rest.subtract(faces)
    pool = sorted(rest.elements())
    opponent = [Tile.RED_DIAMOND, *pool[1:6]]
    bag = pool[6:]
    state = QwirkleState.from_position(
        racks=[faces, opponent], board=board, bag=bag, turn=0, seed=4
    )
    return state, faces


def test_qwirkle_exchanged_tiles_reach_only_the_rack_places_refilled_since() -> None:
    state, faces = _exchange_position()
    model, blind = QwirkleModel(), QwirkleModel()
    for watcher in (model, blind):
        watcher.observe(view_of("qwirkle", state, 0))
    exchange = Exchange(faces)
    model.played(exchange)  # the blind model is not told what went back
    state = QWIRKLE.apply(state, 0, exchange)
    # The other seat places one tile (and draws one): at most one exchanged tile can be
    # in its rack now.
    state = QWIRKLE.apply(state, 1, Place((Placement(101, 100, Tile.RED_DIAMOND),)))
    view = view_of("qwirkle", state, 0)
    most = {"told": 0, "blind": 0}
    for number in range(300):
        for name, watcher in (("told", model), ("blind", blind)):
            rack = watcher.determinize(view, random.Random(number)).racks[1]
            most[name] = max(most[name], sum(tile in faces for tile in rack))
    assert most["told"] == 1
    assert most["blind"] > 1


def test_queendomino_deals_the_deck_from_exactly_the_unseen_dominoes() -> None:
    model = QueendominoModel()
    checked = 0
    for number, (state, seat) in enumerate(decisions("queendomino", seed=8)):
        view = view_of("queendomino", state, seat)
        if seat != 0:
            model.observe(view_of("queendomino", state, 0))
            continue
        sample = model.determinize(view, random.Random(number))
        assert sorted(d.number for d in sample.deck) == sorted(d.number for d in state.deck)
        assert sample.deck != state.deck or len(state.deck) < 2
        assert {b.id for b in state.pile} <= {b.id for b in model.unseen_buildings}
        assert len(sample.pile) == len(state.pile)
        checked += 1
    assert checked > 30


def test_qwixx_future_dice_come_from_the_rng() -> None:
    state, seat = next(decisions("qwixx", seed=2))
    view = view_of("qwixx", state, seat)
    model = QwixxModel()
    rolls = set()
    for number in range(20):
        sample = model.determinize(view, random.Random(number))
        for s in sorted(QWIXX.to_act(sample)):
            sample = QWIXX.apply(sample, s, QWIXX.legal_moves(sample, s)[0])
        sample = QWIXX.apply(sample, sample.active, QWIXX.legal_moves(sample, sample.active)[0])
        rolls.add(sample.dice)
    assert len(rolls) > 10


@pytest.mark.parametrize("game", GAMES)
def test_a_model_refuses_a_spectators_view_and_another_games(game: str) -> None:
    state, seat = next(decisions(game, seed=1))
    view = view_of(game, state, seat)
    spectator = match_pb2.PlayerView()
    spectator.CopyFrom(view)
    spectator.ClearField("seat")
    model = forward_model(game)
    with pytest.raises(ValueError, match="spectator"):
        model.determinize(spectator, random.Random(1))
    other = next(g for g in GAMES if g != game)
    other_state, other_seat = next(decisions(other, seed=1))
    with pytest.raises(ValueError, match="not a"):
        model.determinize(view_of(other, other_state, other_seat), random.Random(1))


def test_determinize_needs_only_the_view() -> None:
    state, seat = next(decisions("qwirkle", seed=1))
    sample = determinize(view_of("qwirkle", state, seat), random.Random(3))
    assert isinstance(sample, QwirkleState)
    assert sample.racks[seat] == state.racks[seat]


def test_an_unknown_game_has_no_model() -> None:
    with pytest.raises(ValueError, match="no forward model"):
        forward_model("chess")
