"""Queendomino's stand-in move (match.proto: TIMEOUT_POLICY_DEFAULT_MOVE) and live scores.

The hooks read only ``legal_moves`` and ``view``, so a fake engine that answers them for
one decision pins the policy step by step: the optional steps B, C and D are skipped, the
mandatory steps A and E draw uniformly from every legal move (the match's seeded pick).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import pytest

from botarena.server.games.queendomino import QUEENDOMINO, Rotation
from botarena.server.games.queendomino.moves import (
    Bribe,
    Build,
    Choose,
    Discard,
    Place,
    Skip,
    Tax,
)
from botarena.server.match import Match, MatchSettings, Policies, TimeControl, hooks_for

from .conftest import FakeClock


@dataclass
class _OneDecision:
    """Answers ``legal_moves`` with ``moves`` and ``view`` with ``scores`` (for any state)."""

    moves: Sequence[object]
    scores: tuple[int, ...] = ()

    def legal_moves(self, state: object, seat: int) -> Sequence[object]:
        return self.moves

    def view(self, state: object, seat: int | None) -> Any:
        return _ScoresOnly(self.scores)


@dataclass
class _ScoresOnly:
    scores: tuple[int, ...]


class _Pick:
    """A pick that records what it was offered and answers the element at ``index``."""

    def __init__(self, index: int = 0) -> None:
        self.index = index
        self.offered: list[list[object]] = []

    def __call__(self, options: Sequence[Any]) -> Any:
        self.offered.append(list(options))
        return options[self.index % len(options)]


def _stand_in(moves: Sequence[object], pick: _Pick) -> object:
    # A fake with only the rules methods the hook calls, and no state.
    rules: Any = _OneDecision(moves)
    return hooks_for("queendomino").stand_in_move(rules, None, 0, pick)


PLACES: list[object] = [
    Place((1, 0), Rotation.EAST),
    Place((0, 1), Rotation.SOUTH),
    Place((0, -1), Rotation.WEST),
]
CHOICES: list[object] = [Choose(31), Choose(7), Choose(19)]

# Steps whose stand-in is a draw over every legal move.
_DRAWN: dict[str, list[object]] = {
    "place": PLACES,
    "place-or-discard": [*PLACES, Discard()],
    "forced-discard": [Discard()],
    "choose": CHOICES,
}
# Optional steps: the stand-in skips them without a draw.
_SKIPPED: dict[str, list[object]] = {
    "tax": [Tax(((1, 0),)), Tax(((1, 0), (2, 0))), Skip()],
    "build": [Build(2, (2, 0)), Skip()],
    "dragon": [Bribe(0), Bribe(4), Skip()],
}


@pytest.mark.parametrize("step", list(_DRAWN), ids=list(_DRAWN))
def test_mandatory_steps_draw_the_stand_in_from_every_legal_move(step: str) -> None:
    moves = _DRAWN[step]
    made: set[object] = set()
    for index in range(len(moves)):
        pick = _Pick(index)
        made.add(_stand_in(moves, pick))
        assert pick.offered == [list(moves)]  # one draw, over all the legal moves
    assert made == set(moves)  # whatever the draw, and only what it drew


@pytest.mark.parametrize("step", list(_SKIPPED), ids=list(_SKIPPED))
def test_optional_steps_are_skipped_without_a_draw(step: str) -> None:
    pick = _Pick()
    assert _stand_in(_SKIPPED[step], pick) == Skip()
    assert pick.offered == []


def test_a_seat_without_a_legal_move_has_no_stand_in_move() -> None:
    with pytest.raises(LookupError):
        _stand_in([], _Pick())


def _queendomino_match(seed: int, clock: FakeClock) -> Match:
    settings = MatchSettings(
        game="queendomino",
        seat_count=2,
        seed=seed,
        game_config=QUEENDOMINO.default_config(),
        time_control=TimeControl(move_time_limit=1.0),
        policies=Policies(max_stand_ins_in_a_row=100),
    )
    match = Match(
        "q", QUEENDOMINO, settings, clock=clock, wall_clock=lambda: 1.7e9, tokens=("a", "b")
    )
    for token in ("a", "b"):
        # Present, but never moving: the join deadline is moot.
        match.show_up(match.authenticate(token))
    return match


def test_in_a_match_every_stand_in_is_legal_and_optional_steps_are_skipped() -> None:
    clock = FakeClock()
    match = _queendomino_match(3, clock)
    kinds: Counter[str] = Counter()
    for _ in range(60):
        assert not match.finished
        seat = match.seats_to_act()[0]
        legal = list(match.legal_moves(seat))
        version = match.state_version
        clock.advance(1.0)
        match.expire()
        move = match.events[version + 1].move
        assert move in legal
        if Skip() in legal:
            assert move == Skip()
        kinds[type(move).__name__] += 1
    assert kinds["Skip"]
    assert kinds["Choose"]
    assert kinds["Place"] + kinds["Discard"]


def test_stand_in_choices_and_placements_are_not_the_old_fixed_rule() -> None:
    # The old default move chose the lowest free domino and the first placement.
    lowest = first = choices = placements = 0
    for seed in range(8):
        clock = FakeClock()
        match = _queendomino_match(seed, clock)
        for _ in range(40):
            assert not match.finished
            legal = list(match.legal_moves(match.seats_to_act()[0]))
            version = match.state_version
            clock.advance(1.0)
            match.expire()
            move = match.events[version + 1].move
            if isinstance(move, Choose):
                choices += 1
                lowest += move == min(
                    (m for m in legal if isinstance(m, Choose)), key=lambda m: m.domino
                )
            elif isinstance(move, Place) and len(legal) > 1:
                placements += 1
                first += move == legal[0]
    assert choices > 10
    assert placements > 10
    assert lowest < choices
    assert first < placements


def test_scores_are_the_public_views_scores() -> None:
    rules = _OneDecision([], scores=(12, 0, 31))
    # A fake with only the rules methods the hook calls, and no state.
    assert hooks_for("queendomino").scores(rules, None, 3) == (12, 0, 31)  # type: ignore[arg-type]
