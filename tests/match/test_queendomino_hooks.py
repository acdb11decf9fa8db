"""Queendomino's default move (match.proto: TIMEOUT_POLICY_DEFAULT_MOVE) and live scores.

The hooks read only ``legal_moves`` and ``view``, so a stand-in engine that answers them
for one decision pins the policy step by step.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import pytest

from botarena.server.games.queendomino import Rotation
from botarena.server.games.queendomino.moves import (
    Bribe,
    Build,
    Choose,
    Discard,
    Place,
    Skip,
    Tax,
)
from botarena.server.match import hooks_for


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


def _default(moves: Sequence[object]) -> object:
    # A fake with only the rules methods the hook calls, and no state.
    return hooks_for("queendomino").default_move(_OneDecision(moves), None, 0)  # type: ignore[arg-type]


PLACES = [Place((1, 0), Rotation.EAST), Place((0, 1), Rotation.SOUTH)]


@pytest.mark.parametrize(
    ("moves", "expected"),
    [
        (PLACES, PLACES[0]),
        ([Discard()], Discard()),
        ([Tax(((1, 0),)), Tax(((1, 0), (2, 0))), Skip()], Skip()),
        ([Build(2, (2, 0)), Skip()], Skip()),
        ([Bribe(0), Bribe(4), Skip()], Skip()),
        ([Choose(31), Choose(7), Choose(19)], Choose(7)),
    ],
    ids=[
        "place-first",
        "forced-discard",
        "tax-skipped",
        "build-skipped",
        "dragon-skipped",
        "choose-lowest",
    ],
)
def test_default_move_by_step(moves: Sequence[object], expected: object) -> None:
    assert _default(moves) == expected


def test_a_seat_without_a_legal_move_has_no_default_move() -> None:
    with pytest.raises(LookupError):
        _default([])


def test_scores_are_the_public_views_scores() -> None:
    rules = _OneDecision([], scores=(12, 0, 31))
    # A fake with only the rules methods the hook calls, and no state.
    assert hooks_for("queendomino").scores(rules, None, 3) == (12, 0, 31)  # type: ignore[arg-type]
