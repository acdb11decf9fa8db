"""The read-only queries other layers use instead of reaching into a match's state."""

from __future__ import annotations

from typing import Any

NewMatch = Any


def test_pending_decision_is_the_decision_a_seat_owes_now(new_match: NewMatch) -> None:
    match = new_match()
    decision = match.pending_decision(0)
    assert decision is not None
    assert (decision.seat, decision.requested_version) == (0, 0)
    assert match.pending_decision(1) is None
    assert (match.owes_decision(0), match.owes_decision(1), match.owes_decision(None)) == (
        True,
        False,
        False,
    )
    match.submit("tok-0", 1, expected_state_version=0)
    assert match.pending_decision(0) is None
    assert match.owes_decision(1)


def test_entries_after_a_version_are_the_newer_ones_up_to_through(new_match: NewMatch) -> None:
    match = new_match()
    for version, seat in enumerate([0, 1, 0]):
        match.submit(f"tok-{seat}", 1, expected_state_version=version)
    assert [entry.state_version for entry in match.entries_after(-1)] == [0, 1, 2, 3]
    assert [entry.state_version for entry in match.entries_after(1)] == [2, 3]
    assert [entry.state_version for entry in match.entries_after(0, through=2)] == [1, 2]
    assert match.entries_after(3) == []
    assert match.last_entry() is match.events[-1]
    assert match.last_entry().state_version == match.state_version == 3
