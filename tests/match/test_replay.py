"""Replaying a stored log (``_replay``): what is applied, what is checked, what fails."""

from __future__ import annotations

import pytest

from botarena.server.games import IllegalMoveError
from botarena.server.match import EventKind, LogEntry, RecoveryError
from botarena.server.match._replay import ReplayClock, check_start, replay

_START = LogEntry(0, 10.0, EventKind.MATCH_STARTED)


def _move(version: int, *, seat: int = 0, by_timeout: bool = False) -> LogEntry:
    return LogEntry(
        version, 10.0 + version, EventKind.MOVE_APPLIED, seat=seat, move=1, by_timeout=by_timeout
    )


class _Match:
    """Applies entries to its log; ``extra`` entries follow the given versions by
    themselves, as a forfeited seat's stand-in moves do."""

    def __init__(self, extra: dict[int, LogEntry] | None = None) -> None:
        self.made: list[LogEntry] = [_START]
        self.applied: list[tuple[int, float]] = []
        self.extra = extra or {}
        self.clock = ReplayClock(10.0)

    def apply(self, entry: LogEntry) -> None:
        self.applied.append((entry.state_version, self.clock()))
        self.made.append(entry)
        if entry.state_version in self.extra:
            self.made.append(self.extra[entry.state_version])

    def replay(self, log: list[LogEntry]) -> None:
        replay("m1", log, self.made, self.clock, self.apply)


@pytest.mark.parametrize("log", [[], [_move(0)]], ids=["empty", "not-the-match-start"])
def test_a_log_must_start_with_the_match(log: list[LogEntry]) -> None:
    with pytest.raises(RecoveryError, match="does not start"):
        check_start("m1", log)


def test_each_entry_is_applied_on_its_logged_time() -> None:
    match = _Match()
    match.replay([_START, _move(1), _move(2, seat=1)])
    assert match.applied == [(1, 11.0), (2, 12.0)]


def test_an_entry_the_match_made_again_is_checked_not_applied() -> None:
    match = _Match(extra={1: _move(2, seat=1, by_timeout=True)})
    match.replay([_START, _move(1), _move(2, seat=1, by_timeout=True), _move(3)])
    assert [version for version, _ in match.applied] == [1, 3]


def test_an_entry_made_again_differently_fails() -> None:
    match = _Match(extra={1: _move(2, seat=1, by_timeout=True)})
    with pytest.raises(RecoveryError, match="version 2 replays as"):
        match.replay([_START, _move(1), _move(2, seat=0, by_timeout=True)])


def test_a_gap_in_the_versions_fails() -> None:
    with pytest.raises(RecoveryError, match="version 3 is out of order"):
        _Match().replay([_START, _move(1), _move(3)])


def test_a_match_that_goes_on_past_the_log_fails() -> None:
    match = _Match(extra={1: _move(2, seat=1, by_timeout=True)})
    with pytest.raises(RecoveryError, match="ends at version 1 but the match went on to version 2"):
        match.replay([_START, _move(1)])


def test_an_entry_the_engine_rejects_fails_as_a_recovery_error() -> None:
    def reject(entry: LogEntry) -> None:
        raise IllegalMoveError("BAD", "no")

    with pytest.raises(RecoveryError, match="does not apply") as caught:
        replay("m1", [_START, _move(1)], [_START], ReplayClock(10.0), reject)
    assert isinstance(caught.value.__cause__, IllegalMoveError)
