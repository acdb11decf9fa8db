"""The event log of a match and the engine states after its versions.

Versions: the log starts with ``MATCH_STARTED`` at version 0 and every further entry (a
move, a forfeit, the finish) adds one, so a stream resumes after any version it saw
without gaps or repeats. The states of every ``_CHECKPOINT_EVERY``-th version and of the
last ``_RECENT_STATES`` are kept; :meth:`History.state_at` makes any other again.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from enum import StrEnum
from typing import Any

from botarena.server.games import Rules, Seat
from botarena.server.match._hooks import GameHooks
from botarena.server.match._ranking import MatchResult

__all__ = ["EventKind", "History", "LogEntry"]

# Every _CHECKPOINT_EVERY-th version, and the last _RECENT_STATES while the match runs
# (the entries of one change, which streams read).
_CHECKPOINT_EVERY = 16
_RECENT_STATES = 8


class EventKind(StrEnum):
    """The kinds of event-log entries."""

    MATCH_STARTED = "match_started"
    MOVE_APPLIED = "move_applied"
    SEAT_FORFEITED = "seat_forfeited"
    MATCH_FINISHED = "match_finished"


@dataclass(frozen=True, slots=True)
class LogEntry:
    """One entry of the append-only event log: plain data, the replay and recovery record.

    Attributes:
        state_version: The version after this entry.
        time: Wall-clock time of the entry, epoch seconds.
        kind: What happened.
        seat: The seat that moved or forfeited.
        move: The engine move as applied (unredacted; views redact it per viewer).
        think_time: Seconds the seat used for the decision.
        by_timeout: True if the server chose the move for the seat (timeout, illegal
            moves, or a forfeited seat the engine still asks to act).
        reason: Forfeit reason, or the end reason of ``MATCH_FINISHED``.
        result: The result, on ``MATCH_FINISHED``.
        request_id: The ``request_id`` of the seat's submit or resign that made the entry,
            if it had one; kept so that a retry after a restart gets the first answer.
    """

    state_version: int
    time: float
    kind: EventKind
    seat: Seat | None = None
    move: object | None = None
    think_time: float | None = None
    by_timeout: bool = False
    reason: str | None = None
    result: MatchResult | None = None
    request_id: str | None = None


class History:
    """The append-only log of one match and the engine states after some of its versions.

    Args:
        rules: The game's engine, to make states again.
        hooks: The game's strategies (a forfeit's ``remove_seat``).
        initial: The engine state at version 0 (before the first entry).
    """

    __slots__ = ("_hooks", "_made_again", "_rules", "_states", "entries")

    def __init__(self, rules: Rules[Any, Any, Any, Any], hooks: GameHooks, initial: Any) -> None:
        self._rules = rules
        self._hooks = hooks
        self._states: dict[int, Any] = {0: initial}
        self._made_again: tuple[int, Any] = (0, initial)  # state_at's last answer
        self.entries: list[LogEntry] = []
        """The log, version 0 first: read it, never change it."""

    def append(self, state: Any, time: float, kind: EventKind, fields: dict[str, Any]) -> LogEntry:
        """Log an entry at the next version, ``state`` the engine state after it;
        ``fields`` are the entry's other :class:`LogEntry` fields."""
        version = len(self.entries)
        entry = LogEntry(version, time, kind, **fields)
        self.entries.append(entry)
        states = self._states
        states[version] = state
        old = version - _RECENT_STATES
        if old > 0 and old % _CHECKPOINT_EVERY:
            states.pop(old, None)
        if kind is EventKind.MATCH_FINISHED:  # no live stream needs the recent ones now
            for recent in range(max(1, old + 1), version):
                if recent % _CHECKPOINT_EVERY:
                    states.pop(recent, None)
        return entry

    def take_times(self, log: Sequence[LogEntry]) -> None:
        """Give every entry the time of its twin in ``log`` (a replay's entries carry the
        replay's clock; the rebuilt log must equal the stored one)."""
        self.entries[:] = [
            replace(made, time=logged.time) for made, logged in zip(self.entries, log, strict=True)
        ]

    def kept_versions(self) -> list[int]:
        """Return the versions whose states are kept, in order."""
        return sorted(self._states)

    def state_at(self, version: int) -> Any:
        """Return the engine state after the log entry at ``version``.

        Any state not kept is made again from the closest earlier one kept (or the last
        one made, as a stream reads versions in order) by applying the logged entries in
        between: engines are pure and deterministic. A finished Qwirkle match of ~100
        versions then holds ~8 states instead of ~100 (each holds its board).

        Raises:
            IndexError: ``version`` is beyond the log.
        """
        entries = self.entries
        if not 0 <= version < len(entries):
            raise IndexError(f"version {version} is beyond the log (0..{len(entries) - 1})")
        states = self._states
        kept = states.get(version)
        if kept is not None:
            return kept
        made_version, made = self._made_again
        if made_version == version:  # every stream of a finished match asks in turn
            return made
        start = version - 1
        while start not in states:  # a checkpoint is at most _CHECKPOINT_EVERY back
            start -= 1
        state = states[start]
        if start < made_version < version:
            start, state = made_version, made
        for entry in entries[start + 1 : version + 1]:
            state = self._state_after(state, entry)
        self._made_again = (version, state)
        return state

    def _state_after(self, state: Any, entry: LogEntry) -> Any:
        """The state after ``entry`` from the state before it (what the match made of it)."""
        if entry.kind is EventKind.MOVE_APPLIED and entry.seat is not None:
            return self._rules.apply(state, entry.seat, entry.move)
        if entry.kind is EventKind.SEAT_FORFEITED and entry.seat is not None:
            reduced = self._hooks.remove_seat(self._rules, state, entry.seat)
            return state if reduced is None else reduced
        return state
