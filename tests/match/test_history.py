"""The event log and its engine states (``_history.History``), on a counting engine."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import pytest

from botarena.server.match import GenericHooks
from botarena.server.match._history import (
    _CHECKPOINT_EVERY,
    _RECENT_STATES,
    EventKind,
    History,
)


class _Adder:
    """An engine whose state is a tuple of totals; a move adds to the mover's total."""

    def __init__(self) -> None:
        self.applied = 0

    def apply(self, state: tuple[int, ...], seat: int, move: int) -> tuple[int, ...]:
        self.applied += 1
        return (*state[:seat], state[seat] + move, *state[seat + 1 :])


def _history(moves: int, *, finish: bool = False) -> tuple[History, _Adder, list[Any]]:
    rules = _Adder()
    state: tuple[int, ...] = (0, 0)
    history = History(rules, GenericHooks(), state)  # type: ignore[arg-type]
    states = [state]
    history.append(state, 1.0, EventKind.MATCH_STARTED, {})
    for version in range(1, moves + 1):
        seat = version % 2
        state = rules.apply(state, seat, version)
        history.append(
            state, 1.0 + version, EventKind.MOVE_APPLIED, {"seat": seat, "move": version}
        )
        states.append(state)
    if finish:
        history.append(state, 99.0, EventKind.MATCH_FINISHED, {"reason": "done"})
        states.append(state)
    rules.applied = 0
    return history, rules, states


def test_entries_get_consecutive_versions_from_zero() -> None:
    history, _, _ = _history(5)
    assert [entry.state_version for entry in history.entries] == list(range(6))
    assert history.entries[3].move == 3


def test_a_running_match_keeps_its_checkpoints_and_its_recent_states() -> None:
    last = 3 * _CHECKPOINT_EVERY + 5
    history, _, _ = _history(last)
    recent = range(last - _RECENT_STATES + 1, last + 1)
    assert history.kept_versions() == sorted({*range(0, last, _CHECKPOINT_EVERY), *recent})


def test_a_finished_match_keeps_its_checkpoints_and_its_last_state() -> None:
    history, _, _ = _history(3 * _CHECKPOINT_EVERY + 5, finish=True)
    last = len(history.entries) - 1
    assert history.kept_versions() == [*range(0, last, _CHECKPOINT_EVERY), last]


def test_every_state_comes_back_in_any_order() -> None:
    history, _, states = _history(3 * _CHECKPOINT_EVERY + 5, finish=True)
    versions = list(range(len(states)))
    for version in [*versions, *reversed(versions)]:
        assert history.state_at(version) == states[version]


def test_reading_in_order_makes_each_state_from_the_last_one_made() -> None:
    history, rules, states = _history(2 * _CHECKPOINT_EVERY, finish=True)
    for version in range(1, _CHECKPOINT_EVERY):
        assert history.state_at(version) == states[version]
    assert rules.applied == _CHECKPOINT_EVERY - 1  # one move per version, not a rescan


def test_asking_again_for_the_last_state_made_applies_nothing() -> None:
    # Every stream (and a replay) of a finished match asks for the same version in turn.
    history, rules, states = _history(2 * _CHECKPOINT_EVERY, finish=True)
    version = _CHECKPOINT_EVERY - 2
    assert history.state_at(version) == states[version]
    made = rules.applied
    for _ in range(3):
        assert history.state_at(version) == states[version]
    assert rules.applied == made


@pytest.mark.parametrize("version", [-1, 6], ids=["negative", "beyond"])
def test_a_state_beyond_the_log_is_an_index_error(version: int) -> None:
    history, _, _ = _history(5)
    with pytest.raises(IndexError):
        history.state_at(version)


def test_taking_the_times_of_a_stored_log_changes_nothing_else() -> None:
    history, _, _ = _history(3)
    stored = [replace(entry, time=5.0, move=None) for entry in history.entries]
    history.take_times(stored)
    assert [entry.time for entry in history.entries] == [5.0] * 4
    assert history.entries[2].move == 2
