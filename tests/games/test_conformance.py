"""The conformance suite every registered game passes, and its golden playthroughs.

Parametrised over ``GAMES`` and every seat count a game accepts (PettingZoo's api_test),
over deterministic playouts: the seat to act and its move are picked by index with the
engines' own ``random_below``, so neither Python's :mod:`random` nor the test order can
change a game. Game-specific rulings stay in each game's folder.

Each game also pins one seeded 2-seat game in ``playthroughs/<game>.txt`` (OpenSpiel's
playthroughs): every move with its seat, the outcome and a digest of the final spectator
view. An engine change that alters play shows up as a diff of that file; regenerate with
``pytest tests/games/test_conformance.py --update-playthroughs`` and review the diff.
"""

from __future__ import annotations

import copy
import dataclasses
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from functools import cache
from hashlib import blake2b
from pathlib import Path
from typing import Any

import pytest

from botarena.server.games import GAMES, IllegalMoveError, Outcome, Rules, Seat, random_below
from botarena.server.match import hooks_for

PLAYTHROUGHS = Path(__file__).parent / "playthroughs"
PLAYTHROUGH_SEATS = 2
PLAYTHROUGH_SEED = 2026
UPDATE_HINT = "pytest tests/games/test_conformance.py --update-playthroughs"
SEEDS = (11, 12)
"""Match seeds of the playouts of every (game, seat count); the picks use the same seed."""
SAMPLE = 4
"""How many moves of one position a check applies (all are checked with ``is_legal``)."""

CASES = [
    pytest.param(name, seats, id=f"{name}-{seats}")
    for name, rules in sorted(GAMES.items())
    for seats in range(rules.min_seats, rules.max_seats + 1)
]

AnyRules = Rules[Any, Any, Any, Any]


class Picker:
    """Uniform picks by index from ``random_below``: the same seed gives the same picks."""

    def __init__(self, seed: int) -> None:
        self.seed = seed
        self.counter = 0

    def below(self, n: int) -> int:
        """Return a uniform integer in ``[0, n)``."""
        value, self.counter = random_below(self.seed, self.counter, n)
        return value

    def choice(self, options: Sequence[Any]) -> Any:
        """Return one element of a non-empty sequence."""
        return options[self.below(len(options))]

    def sample(self, options: Sequence[Any], count: int) -> list[Any]:
        """Return ``count`` distinct elements (all of them when there are fewer)."""
        pool = list(options)
        return [pool.pop(self.below(len(pool))) for _ in range(min(count, len(pool)))]


@dataclass(frozen=True)
class Step:
    """One decision of a playout: the position, the seats to act, who moved and how."""

    state: Any
    to_act: tuple[Seat, ...]
    legal: tuple[Any, ...]
    seat: Seat
    move: Any


@dataclass(frozen=True)
class Playout:
    """A finished seeded game: every decision and the final state."""

    name: str
    seats: int
    seed: int
    steps: tuple[Step, ...]
    final: Any

    @property
    def rules(self) -> AnyRules:
        return GAMES[self.name]


def play(name: str, seats: int, seed: int) -> Playout:
    """Play a game to its end: a uniform seat of ``to_act``, then a uniform legal move."""
    rules = GAMES[name]
    picker = Picker(seed)
    state = rules.new_match(rules.default_config(), seats, seed)
    steps: list[Step] = []
    while to_act := tuple(sorted(rules.to_act(state))):
        seat = picker.choice(to_act)
        legal = tuple(rules.legal_moves(state, seat))
        move = picker.choice(legal)
        steps.append(Step(state, to_act, legal, seat, move))
        state = rules.apply(state, seat, move)
    return Playout(name, seats, seed, tuple(steps), state)


@cache
def playouts(name: str, seats: int) -> tuple[Playout, ...]:
    """The playouts of one case, shared by the checks (states are immutable)."""
    return tuple(play(name, seats, seed) for seed in SEEDS)


def positions(name: str, seats: int) -> Iterator[tuple[Playout, Step]]:
    """Every decision of every playout of the case."""
    for playout in playouts(name, seats):
        for step in playout.steps:
            yield playout, step


def sampled_positions(name: str, seats: int, one_in: int) -> Iterator[Step]:
    """About one decision in ``one_in``, for checks too slow (deep copies) to run on all."""
    picker = Picker(one_in)
    for _, step in positions(name, seats):
        if picker.below(one_in) == 0:
            yield step


def all_views(rules: AnyRules, state: Any, seats: int) -> list[Any]:
    """The spectator's view, then every seat's."""
    return [rules.view(state, viewer) for viewer in (None, *range(seats))]


def assert_rejected(rules: AnyRules, state: Any, seat: Seat, move: Any) -> None:
    """Assert ``move`` is refused by ``is_legal``, ``check`` and ``apply``, with a reason
    and a message (``test_apply_never_mutates_its_input`` shows the state is left alone)."""
    assert not rules.is_legal(state, seat, move), (seat, move)
    with pytest.raises(IllegalMoveError) as checked:
        rules.check(state, seat, move)
    with pytest.raises(IllegalMoveError) as applied:
        rules.apply(state, seat, move)
    for error in (checked.value, applied.value):
        assert error.reason, error
        assert error.reason == error.reason.strip(), error
        assert error.message.strip(), error
    assert applied.value.reason == checked.value.reason


# ---------------------------------------------------------------------------- protocol


def test_every_game_registers_under_its_own_name() -> None:
    assert GAMES
    for name, rules in GAMES.items():
        assert rules.name == name == name.lower()
        assert 1 <= rules.min_seats <= rules.max_seats


@pytest.mark.parametrize(("name", "seats"), CASES)
def test_same_config_seed_and_moves_replay_to_the_same_states(name: str, seats: int) -> None:
    rules = GAMES[name]
    for playout in playouts(name, seats):
        replay = rules.new_match(rules.default_config(), seats, playout.seed)
        for step in playout.steps:
            assert replay == step.state
            assert hash(replay) == hash(step.state)
            replay = rules.apply(replay, step.seat, step.move)
        assert replay == playout.final
        assert rules.outcome(replay) == rules.outcome(playout.final)
        assert play(name, seats, playout.seed) == playout


@pytest.mark.parametrize(("name", "seats"), CASES)
def test_to_act_is_non_empty_exactly_until_the_outcome_is_set(name: str, seats: int) -> None:
    rules = GAMES[name]
    for _, step in positions(name, seats):
        assert rules.outcome(step.state) is None
        assert step.to_act
        assert set(step.to_act) <= set(range(seats))
        for seat in range(seats):
            assert bool(rules.legal_moves(step.state, seat)) == (seat in step.to_act), seat
    for playout in playouts(name, seats):
        assert rules.to_act(playout.final) == frozenset()
        assert rules.outcome(playout.final) is not None
        assert all(not rules.legal_moves(playout.final, seat) for seat in range(seats))


@pytest.mark.parametrize(("name", "seats"), CASES)
def test_every_listed_move_is_legal_and_accepted(name: str, seats: int) -> None:
    rules = GAMES[name]
    picker = Picker(seats)
    for _, step in positions(name, seats):
        for seat in step.to_act:
            moves = rules.legal_moves(step.state, seat)
            assert tuple(moves) == tuple(rules.legal_moves(step.state, seat))  # deterministic
            assert len(set(moves)) == len(moves), "a move is listed twice"
            for move in moves:
                assert rules.is_legal(step.state, seat, move), move
            for move in picker.sample(moves, SAMPLE):
                rules.check(step.state, seat, move)
                rules.apply(step.state, seat, move)


@pytest.mark.parametrize(("name", "seats"), CASES)
def test_apply_never_mutates_its_input(name: str, seats: int) -> None:
    rules = GAMES[name]
    picker = Picker(seats)
    for step in sampled_positions(name, seats, one_in=4):
        snapshot = copy.deepcopy(step.state)
        views = all_views(rules, step.state, seats)
        for move in picker.sample(step.legal, SAMPLE):
            rules.apply(step.state, step.seat, move)
        for seat in range(seats):
            if seat not in step.to_act:
                assert_rejected(rules, step.state, seat, step.move)
        assert step.state == snapshot
        assert hash(step.state) == hash(snapshot)
        assert tuple(rules.legal_moves(step.state, step.seat)) == step.legal
        assert all_views(rules, step.state, seats) == views


@pytest.mark.parametrize(("name", "seats"), CASES)
def test_moves_of_a_seat_not_to_act_are_rejected(name: str, seats: int) -> None:
    rules = GAMES[name]
    picker = Picker(seats)
    checked = 0
    for _, step in positions(name, seats):
        waiting = [seat for seat in range(seats) if seat not in step.to_act]
        if waiting and picker.below(3) == 0:
            assert_rejected(rules, step.state, picker.choice(waiting), step.move)
            checked += 1
    for playout in playouts(name, seats):
        last = playout.steps[-1]
        assert_rejected(rules, playout.final, last.seat, last.move)
    assert checked, "no position had a seat waiting"


@pytest.mark.parametrize(("name", "seats"), CASES)
def test_moves_of_other_positions_that_are_not_listed_are_rejected(name: str, seats: int) -> None:
    rules = GAMES[name]
    picker = Picker(seats)
    for playout in playouts(name, seats):
        seen = [step.move for step in playout.steps]
        for step in playout.steps:
            listed = set(step.legal)
            candidates = [move for move in picker.sample(seen, 2 * SAMPLE) if move not in listed]
            for move in candidates[:SAMPLE]:
                assert_rejected(rules, step.state, step.seat, move)


@pytest.mark.parametrize(("name", "seats"), CASES)
def test_the_stand_in_move_is_always_legal(name: str, seats: int) -> None:
    rules = GAMES[name]
    hooks = hooks_for(name)
    picker = Picker(seats)
    for _, step in positions(name, seats):
        for seat in step.to_act:
            move = hooks.stand_in_move(rules, step.state, seat, picker.choice)
            assert move in rules.legal_moves(step.state, seat), move
            assert rules.is_legal(step.state, seat, move), move


@pytest.mark.parametrize(("name", "seats"), CASES)
def test_outcome_ranks_are_competition_ranks_that_follow_the_scores(name: str, seats: int) -> None:
    rules = GAMES[name]
    for playout in playouts(name, seats):
        outcome = rules.outcome(playout.final)
        assert isinstance(outcome, Outcome)
        assert outcome == rules.outcome(playout.final)
        assert len(outcome.scores) == len(outcome.ranks) == seats
        assert outcome.reason
        assert outcome.reason == outcome.reason.strip().lower()
        ranks = outcome.ranks
        # Competition ranks (1, 1, 3): a place is one more than the seats ahead of it.
        assert all(rank == 1 + sum(other < rank for other in ranks) for rank in ranks), ranks
        assert outcome.winners
        for seat, score in enumerate(outcome.scores):
            for other, other_score in enumerate(outcome.scores):
                if score > other_score:
                    assert ranks[seat] < ranks[other], outcome  # tie-breakers only split ties


# ---------------------------------------------------------------------------- views


def secrets(views: Sequence[Any]) -> list[list[str]]:
    """Return each seat's secrets, given the spectator's view then every seat's.

    A secret is the repr of a field whose value is not the same for every viewer (a rack),
    when it is a non-empty collection: a scalar may match another field by chance.
    """
    names = [field.name for field in dataclasses.fields(views[0])]
    per_viewer = [name for name in names if len({repr(getattr(v, name)) for v in views}) > 1]
    return [
        [
            repr(value)
            for value in (getattr(view, name) for name in per_viewer)
            if isinstance(value, (tuple, list, frozenset, Mapping)) and value
        ]
        for view in views[1:]
    ]


@pytest.mark.parametrize(("name", "seats"), CASES)
def test_views_are_stable_and_show_no_seat_another_seats_secrets(name: str, seats: int) -> None:
    rules = GAMES[name]
    for step in sampled_positions(name, seats, one_in=3):
        views = all_views(rules, step.state, seats)
        assert views == all_views(rules, copy.deepcopy(step.state), seats)
        assert all(dataclasses.is_dataclass(view) for view in views)
        hidden = secrets(views)
        texts = [repr(view) for view in views]
        for seat, seat_secrets in enumerate(hidden):
            for viewer, text in zip((None, *range(seats)), texts, strict=True):
                if viewer == seat:
                    continue
                own = hidden[viewer] if viewer is not None else []
                leaked = [secret for secret in seat_secrets if secret in text and secret not in own]
                assert not leaked, f"viewer {viewer} sees seat {seat}'s {leaked}"


@pytest.mark.parametrize(("name", "seats"), CASES)
def test_a_sealed_decision_changes_no_other_seats_view(name: str, seats: int) -> None:
    # Simultaneous decisions (several seats to act): whatever one seat submits, the others
    # and the spectator see the same until the decisions are applied together.
    rules = GAMES[name]
    picker = Picker(seats)
    for _, step in positions(name, seats):
        if len(step.to_act) < 2:
            continue
        seat = step.seat
        afters = [rules.apply(step.state, seat, move) for move in picker.sample(step.legal, 3)]
        still = [after for after in afters if len(rules.to_act(after)) == len(step.to_act) - 1]
        for after in still[1:]:
            assert rules.to_act(after) == rules.to_act(still[0])
            for viewer in (None, *(other for other in range(seats) if other != seat)):
                assert rules.view(after, viewer) == rules.view(still[0], viewer), viewer


# ---------------------------------------------------------------------------- playthroughs


def digest(value: object, limit: int = 240) -> str:
    """Return ``repr(value)``, or a BLAKE2b digest of it when it is longer than ``limit``."""
    text = repr(value)
    if len(text) <= limit:
        return text
    return f"blake2b:{blake2b(text.encode(), digest_size=8).hexdigest()} ({len(text)} chars)"


def render_playthrough(name: str) -> str:
    """Return the golden text of ``name``'s pinned game (see the module docstring)."""
    playout = play(name, PLAYTHROUGH_SEATS, PLAYTHROUGH_SEED)
    rules = playout.rules
    outcome = rules.outcome(playout.final)
    assert outcome is not None
    lines = [
        f"# Golden playthrough of {name}: {playout.seats} seats, seed {playout.seed}.",
        "# Each decision: a seat of to_act, then one of its legal moves, both picked by",
        "# index with random_below(seed, counter, n). Regenerate after an intended change:",
        f"#   {UPDATE_HINT}",
        f"game: {name}",
        f"seats: {playout.seats}",
        f"seed: {playout.seed}",
        f"config: {digest(rules.default_config())}",
        f"decisions: {len(playout.steps)}",
    ]
    for number, step in enumerate(playout.steps, start=1):
        to_act = ",".join(str(seat) for seat in step.to_act)
        lines.append(
            f"{number:4} seat {step.seat} (to act {to_act}; {len(step.legal)} legal): {step.move!r}"
        )
    lines += [
        f"outcome.scores: {outcome.scores}",
        f"outcome.ranks: {outcome.ranks}",
        f"outcome.reason: {outcome.reason}",
    ]
    view = rules.view(playout.final, None)
    for field in dataclasses.fields(view):
        lines.append(f"final_view.{field.name}: {digest(getattr(view, field.name))}")
    lines.append(f"final_state: {digest(playout.final, limit=0)}")  # hidden parts too
    return "\n".join(lines) + "\n"


@pytest.mark.parametrize("name", sorted(GAMES))
def test_playthrough_matches_its_golden_file(name: str, request: pytest.FixtureRequest) -> None:
    path = PLAYTHROUGHS / f"{name}.txt"
    fresh = render_playthrough(name)
    if request.config.getoption("--update-playthroughs"):
        path.parent.mkdir(exist_ok=True)
        path.write_text(fresh, encoding="utf-8")
    assert path.exists(), f"no golden playthrough {path}; create it with: {UPDATE_HINT}"
    golden = path.read_text(encoding="utf-8")
    assert fresh == golden, (
        f"{name} plays differently from {path.name}; if the engine change is intended, "
        f"regenerate with `{UPDATE_HINT}` and review the diff"
    )
