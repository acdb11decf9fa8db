"""Stand-in moves and the policy that plays them (``_policies``), on the race game."""

from __future__ import annotations

from typing import Any

import pytest

from botarena.server.games import Seat
from botarena.server.match import GameHooks, GenericHooks, Policies, TimeoutPolicy
from botarena.server.match._policies import StandIns, stand_in_pick

from .conftest import RaceRules

_OPTIONS = tuple(range(100))


def _stand_ins(
    *,
    on_timeout: TimeoutPolicy = TimeoutPolicy.DEFAULT_MOVE,
    hooks: GameHooks | None = None,
    seed: int = 7,
    in_a_row: int = 3,
) -> StandIns:
    policies = Policies(on_timeout=on_timeout, max_stand_ins_in_a_row=in_a_row)
    rules: Any = RaceRules()
    return StandIns(rules, hooks or GenericHooks(), policies, seed)


def test_a_pick_is_the_same_for_the_same_seed_version_and_seat() -> None:
    assert stand_in_pick(7, 3, 1)(_OPTIONS) == stand_in_pick(7, 3, 1)(_OPTIONS)


@pytest.mark.parametrize(
    "other",
    [(8, 3, 1), (7, 4, 1), (7, 3, 0)],
    ids=["seed", "version", "seat"],
)
def test_a_pick_depends_on_the_seed_the_version_and_the_seat(other: tuple[int, int, Seat]) -> None:
    # Over many draws, another key must pick differently at least once.
    picks = [stand_in_pick(7, 3 + n, 1)(_OPTIONS) for n in range(0, 80, 4)]
    seed, version, seat = other
    others = [stand_in_pick(seed, version + n, seat)(_OPTIONS) for n in range(0, 80, 4)]
    assert picks != others


def test_a_pick_is_one_of_the_options() -> None:
    assert all(stand_in_pick(1, version, 0)(("a", "b")) in ("a", "b") for version in range(50))


def test_the_default_move_policy_plays_a_legal_stand_in_and_returns_the_state_after() -> None:
    rules = RaceRules()
    state = rules.new_match(None, 2, 7)
    found = _stand_ins().for_policy(state, 0, 0)
    assert found is not None
    move, after = found
    assert move in (1, 2, 3)
    assert after == rules.apply(state, 0, move)
    assert move == _stand_ins().move(state, 0, 0)


def test_the_forfeit_policy_plays_no_stand_in() -> None:
    state = RaceRules().new_match(None, 2, 7)
    assert _stand_ins(on_timeout=TimeoutPolicy.FORFEIT).for_policy(state, 0, 0) is None


class _NoStandIn(GenericHooks):
    def stand_in_move(self, rules: Any, state: Any, seat: Seat, pick: Any) -> object:
        raise LookupError("no move")


class _IllegalStandIn(GenericHooks):
    def stand_in_move(self, rules: Any, state: Any, seat: Seat, pick: Any) -> object:
        return 99  # the race game takes 1, 2 or 3


@pytest.mark.parametrize(
    "hooks", [_NoStandIn(), _IllegalStandIn()], ids=["no-stand-in", "illegal-stand-in"]
)
def test_without_a_playable_stand_in_the_seat_forfeits(hooks: GameHooks) -> None:
    state = RaceRules().new_match(None, 2, 7)
    assert _stand_ins(hooks=hooks).for_policy(state, 0, 0) is None


@pytest.mark.parametrize(("streak", "absent"), [(2, False), (3, True), (4, True)])
def test_too_many_stand_ins_in_a_row_make_a_seat_absent(streak: int, absent: bool) -> None:
    assert _stand_ins(in_a_row=3).too_many_in_a_row(streak) is absent
