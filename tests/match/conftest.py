"""A tiny test game ("race") for the match layer, and a fake monotonic clock.

Race: each seat in turn adds 1, 2 or 3 to its total; the first to reach the target wins.
The simultaneous variant asks every seat at once and applies the choices together when
the last one arrives (the shape of Qwixx's white-dice step). Moves are plain ints.

A seat that has not shown up has no clock: its decisions wait for the join deadline
(``Match.show_up``). Tests about clocks, timeouts and stand-ins let their seats show up
first: ``make_match(present=...)`` or :func:`show_up`.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, replace
from typing import Any, Literal

import pytest

from botarena.server.games import IllegalMoveError, NotYourTurnError, Outcome, Seat, rank_by_score
from botarena.server.match import (
    GameHooks,
    GenericHooks,
    Match,
    MatchSettings,
    Policies,
    TimeControl,
    TimeoutPolicy,
    register_hooks,
)

# The test game declares its match hooks, as every game does (no silent fallback).
register_hooks("race", GenericHooks)


@dataclass(frozen=True, slots=True)
class RaceState:
    totals: tuple[int, ...]
    turn: Seat
    chosen: tuple[int | None, ...]
    target: int


class RaceRules:
    """Race to ``target``; ``simultaneous`` asks every seat at once."""

    def __init__(self, *, simultaneous: bool = False, target: int = 10) -> None:
        self.simultaneous = simultaneous
        self.target = target

    name = "race"
    min_seats = 2
    max_seats = 4

    def default_config(self) -> None:
        return None

    def new_match(self, config: object, seats: int, seed: int) -> RaceState:
        if not self.min_seats <= seats <= self.max_seats:
            raise ValueError(f"{seats} seats")
        return RaceState((0,) * seats, 0, (None,) * seats, self.target)

    def _over(self, state: RaceState) -> bool:
        return max(state.totals) >= state.target

    def to_act(self, state: RaceState) -> frozenset[Seat]:
        if self._over(state):
            return frozenset()
        if self.simultaneous:
            return frozenset(s for s, c in enumerate(state.chosen) if c is None)
        return frozenset({state.turn})

    def legal_moves(self, state: RaceState, seat: Seat) -> Sequence[int]:
        return (1, 2, 3) if seat in self.to_act(state) else ()

    def check(self, state: RaceState, seat: Seat, move: int) -> None:
        if seat not in self.to_act(state):
            raise NotYourTurnError(seat, self.to_act(state))
        if move not in (1, 2, 3):
            raise IllegalMoveError("BAD_STEP", f"{move!r} is not 1, 2 or 3")

    def is_legal(self, state: RaceState, seat: Seat, move: int) -> bool:
        try:
            self.check(state, seat, move)
        except IllegalMoveError:
            return False
        return True

    def apply(self, state: RaceState, seat: Seat, move: int) -> RaceState:
        self.check(state, seat, move)
        if not self.simultaneous:
            totals = list(state.totals)
            totals[seat] += move
            return replace(state, totals=tuple(totals), turn=(seat + 1) % len(totals))
        chosen = list(state.chosen)
        chosen[seat] = move
        if any(c is None for c in chosen):
            return replace(state, chosen=tuple(chosen))
        summed = tuple(t + (c or 0) for t, c in zip(state.totals, chosen, strict=True))
        return replace(state, totals=summed, chosen=(None,) * len(summed))

    def view(self, state: RaceState, seat: Seat | None) -> RaceState:
        return state

    def outcome(self, state: RaceState) -> Outcome | None:
        if not self._over(state):
            return None
        return Outcome(state.totals, rank_by_score(state.totals), "reached_target")


class FakeClock:
    """A settable monotonic clock."""

    def __init__(self, now: float = 1000.0) -> None:
        self.now = now

    def __call__(self) -> float:
        return self.now

    def advance(self, seconds: float) -> None:
        self.now += seconds


TOKENS = ("tok-0", "tok-1", "tok-2", "tok-3")

Present = Iterable[Seat] | Literal["all"]
"""The seats that show up right after a match is created (``"all"``: every seat)."""


def show_up(match: Match, *seats: Seat) -> None:
    """Let ``seats`` show up now with their tokens, as a stream or a view does
    (``MatchManager.settle``): their pending decisions' clocks start."""
    for seat in seats:
        match.show_up(match.authenticate(match.tokens[seat]))


def make_match(
    *,
    seats: int = 2,
    simultaneous: bool = False,
    target: int = 10,
    clock: FakeClock | None = None,
    limit: float = 1.0,
    bank: float = 0.0,
    increment: float = 0.0,
    on_timeout: TimeoutPolicy = TimeoutPolicy.DEFAULT_MOVE,
    max_illegal_moves: int = 3,
    max_stand_ins_in_a_row: int = 3,
    join_timeout: float = 30.0,
    seed: int = 7,
    hooks: GameHooks | None = None,
    present: Present = (),
) -> Match:
    """Return a race match with tokens ``tok-<seat>`` on a fake clock.

    ``present`` seats show up at once, at the creation time: their clocks start with the
    match, as they did before a seat had to show up for its clock to run.
    """
    rules: Any = RaceRules(simultaneous=simultaneous, target=target)
    settings = MatchSettings(
        game="race",
        seat_count=seats,
        seed=seed,
        game_config=None,
        time_control=TimeControl(move_time_limit=limit, time_bank=bank, increment=increment),
        policies=Policies(
            on_timeout=on_timeout,
            max_illegal_moves=max_illegal_moves,
            max_stand_ins_in_a_row=max_stand_ins_in_a_row,
            join_timeout=join_timeout,
        ),
    )
    clock = clock or FakeClock()
    match = Match(
        "m1",
        rules,
        settings,
        clock=clock,
        wall_clock=lambda: 1.7e9,
        hooks=hooks,
        tokens=TOKENS[:seats],
    )
    show_up(match, *(range(seats) if isinstance(present, str) else present))
    return match


@pytest.fixture
def clock() -> FakeClock:
    return FakeClock()


@pytest.fixture
def new_match(clock: FakeClock) -> Any:
    """Return ``make_match`` bound to the test's fake clock."""

    def factory(**options: Any) -> Match:
        return make_match(clock=clock, **options)

    return factory


@pytest.fixture
def race_rules() -> type[RaceRules]:
    return RaceRules
