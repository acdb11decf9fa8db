"""Replaying a stored log into a new match (``Match.restore``), and checking the result.

The match is started anew from its settings (the seed makes it deterministic) and each
logged entry is either applied (a seat's own decision, or the timeout policy's) or, if the
match made it again by itself (a forfeited seat's stand-in move, the finish), checked
against the log: the rebuilt log must be the stored one.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from botarena.server.games import IllegalMoveError
from botarena.server.match._errors import RecoveryError
from botarena.server.match._history import EventKind, LogEntry

__all__ = ["ReplayClock", "check_start", "replay"]


class ReplayClock:
    """The wall clock of a replay: the logged time of the entry being replayed."""

    __slots__ = ("time",)

    def __init__(self, time: float) -> None:
        self.time = time

    def __call__(self) -> float:
        return self.time


def check_start(match_id: str, log: Sequence[LogEntry]) -> None:
    """Check that ``log`` starts with the match.

    Raises:
        RecoveryError: It does not.
    """
    if not log or log[0].kind is not EventKind.MATCH_STARTED:
        raise RecoveryError(f"match {match_id}: the log does not start with the match")


def replay(
    match_id: str,
    log: Sequence[LogEntry],
    made: Sequence[LogEntry],
    clock: ReplayClock,
    apply: Callable[[LogEntry], None],
) -> None:
    """Replay ``log`` after its first entry: ``apply`` each entry the match did not make
    again by itself, and check those it did.

    Args:
        match_id: The match's id, for errors.
        log: The stored log, version 0 first.
        made: The new match's log, which grows as entries are applied.
        clock: The new match's wall clock, set to each entry's logged time.
        apply: Applies one logged entry to the new match.

    Raises:
        RecoveryError: A logged move is illegal, an entry is out of order or differs
            from the one the match made, or the match went on past the log's end.
    """
    try:
        for entry in log[1:]:
            clock.time = entry.time
            version = entry.state_version
            if version < len(made):
                _check_same(match_id, made[version], entry)
            elif version != len(made):
                raise RecoveryError(f"match {match_id}: version {version} is out of order")
            else:
                apply(entry)
    except (IllegalMoveError, ValueError) as error:
        raise RecoveryError(f"match {match_id}: a logged entry does not apply: {error}") from error
    if len(made) != len(log):
        raise RecoveryError(
            f"match {match_id}: the log ends at version {len(log) - 1} but the match "
            f"went on to version {len(made) - 1}"
        )


def _check_same(match_id: str, made: LogEntry, logged: LogEntry) -> None:
    if (made.kind, made.seat, made.move, made.by_timeout, made.reason) != (
        logged.kind,
        logged.seat,
        logged.move,
        logged.by_timeout,
        logged.reason,
    ):
        raise RecoveryError(
            f"match {match_id}: version {made.state_version} replays as {made.kind} of "
            f"seat {made.seat}, but the log has {logged.kind} of seat {logged.seat}"
        )
