"""The asyncio registry of matches: creation, commands, deadline timers and event streams.

All matches live in one event loop and every :class:`Match` command is synchronous, so a
command never interleaves with another: no locks. After every change the manager wakes
the match's stream subscribers (one ``asyncio.Event`` per match, replaced on each change)
and re-arms the match's single deadline timer for its earliest pending decision.
"""

from __future__ import annotations

import asyncio
import contextvars
import secrets
import time
from collections import OrderedDict
from collections.abc import AsyncIterator, Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import structlog

from botarena.server.games import Rules, Seat, get_rules
from botarena.server.match._errors import (
    InvalidRequestError,
    MatchNotFoundError,
    SeatTokenRequiredError,
    StateVersionAheadError,
    TooManyMatchesError,
)
from botarena.server.match._hooks import GameHooks
from botarena.server.match._match import (
    Clock,
    EventKind,
    LogEntry,
    Match,
    PendingDecision,
    ResignResult,
    SubmitResult,
)
from botarena.server.match._settings import MatchSettings

__all__ = ["MatchManager", "StreamItem"]

_logger = structlog.get_logger("botarena.match")

# A timer may fire a hair before the deadline it was set for (the loop rounds); a late
# margin avoids a wasted wake-up and re-arm.
_TIMER_MARGIN = 0.001
_CREATE_CACHE_SIZE = 1024


@dataclass(frozen=True, slots=True)
class StreamItem:
    """One item of a match's event stream as the match layer produces it.

    Exactly one of ``entry`` (a log entry) and ``decision`` (the subscriber's seat must
    decide) is set.

    Attributes:
        state_version: The entry's version, or the current version for a decision.
        state: The engine state at ``state_version``, for the viewer's view.
        entry: The log entry.
        decision: The pending decision of the subscriber's seat.
        legal_moves: The seat's legal moves, with a decision.
    """

    state_version: int
    state: Any
    entry: LogEntry | None = None
    decision: PendingDecision | None = None
    legal_moves: Sequence[Any] = ()


@dataclass(slots=True)
class _Slot:
    match: Match
    sequence: int
    changed: asyncio.Event = field(default_factory=asyncio.Event)
    timer: asyncio.TimerHandle | None = None


class MatchManager:
    """Holds the server's matches and runs their clocks.

    Args:
        games: Looks a game's engine up by registry name (``KeyError`` if unknown).
        hooks: Looks up a game's :class:`GameHooks`; ``None`` uses the registered ones.
        clock: Monotonic seconds; must be the event loop's clock base (the default).
        wall_clock: Epoch seconds, for timestamps.
        max_active_matches: Creating more unfinished matches is refused.
        max_finished_matches: Finished matches kept in memory; the oldest go first.
    """

    def __init__(
        self,
        *,
        games: Callable[[str], Rules[Any, Any, Any, Any]] = get_rules,
        hooks: Callable[[str], GameHooks] | None = None,
        clock: Clock = time.monotonic,
        wall_clock: Clock = time.time,
        max_active_matches: int = 10_000,
        max_finished_matches: int = 10_000,
    ) -> None:
        self._games = games
        self._hooks = hooks
        self._clock = clock
        self._wall_clock = wall_clock
        self.max_active_matches = max_active_matches
        self.max_finished_matches = max_finished_matches
        self._slots: dict[str, _Slot] = {}
        self._finished: OrderedDict[str, None] = OrderedDict()
        self._created: OrderedDict[str, str] = OrderedDict()
        self._sequence = 0
        self._closed = False

    # ------------------------------------------------------------------ queries

    def rules(self, game: str) -> Rules[Any, Any, Any, Any]:
        """Return the engine of ``game``.

        Raises:
            InvalidRequestError: ``UNKNOWN_GAME``.
        """
        try:
            return self._games(game)
        except KeyError:
            raise InvalidRequestError(
                "config.game", f"the server does not host {game!r}", reason="UNKNOWN_GAME"
            ) from None

    def get(self, match_id: str) -> Match:
        """Return the match ``match_id``.

        Raises:
            MatchNotFoundError: No such match.
        """
        slot = self._slots.get(match_id)
        if slot is None:
            raise MatchNotFoundError(match_id)
        return slot.match

    def matches(self) -> list[Match]:
        """Return every match held, newest first."""
        slots = sorted(self._slots.values(), key=lambda slot: slot.sequence, reverse=True)
        return [slot.match for slot in slots]

    def settle(self, match_id: str) -> Match:
        """Return the match after applying the policy to its overdue decisions.

        Queries call this so that a decision whose deadline has passed never looks
        pending, even in the instant before its timer fires.

        Raises:
            MatchNotFoundError: No such match.
        """
        match = self.get(match_id)
        version = match.state_version
        match.expire()
        self._after_command(match, version)
        return match

    def sequence(self, match_id: str) -> int:
        """Return the creation order number of a match (larger is newer)."""
        return self._slots[match_id].sequence

    @property
    def active_count(self) -> int:
        """The number of unfinished matches."""
        return len(self._slots) - len(self._finished)

    # ------------------------------------------------------------------ commands

    def create(self, settings: MatchSettings, *, request_id: str = "") -> tuple[Match, bool]:
        """Create a match and start its clocks (needs a running event loop).

        Returns:
            The match, and whether it was created now (``False``: a repeated
            ``request_id`` returned the match created the first time).

        Raises:
            InvalidRequestError: Unknown game or a seat count out of range.
            TooManyMatchesError: The server holds ``max_active_matches`` already.
        """
        if request_id and request_id in self._created:
            match_id = self._created[request_id]
            if match_id in self._slots:
                return self._slots[match_id].match, False
        rules = self.rules(settings.game)
        if not rules.min_seats <= settings.seat_count <= rules.max_seats:
            raise InvalidRequestError(
                "config.seat_count",
                f"{settings.game} takes {rules.min_seats}..{rules.max_seats} seats, "
                f"not {settings.seat_count}",
                reason="INVALID_SEAT_COUNT",
            )
        if self.active_count >= self.max_active_matches:
            raise TooManyMatchesError(self.max_active_matches)
        match_id = secrets.token_hex(8)
        match = Match(
            match_id,
            rules,
            settings,
            clock=self._clock,
            wall_clock=self._wall_clock,
            hooks=self._hooks(settings.game) if self._hooks is not None else None,
        )
        self._sequence += 1
        self._slots[match_id] = _Slot(match, self._sequence)
        if request_id:
            self._created[request_id] = match_id
            if len(self._created) > _CREATE_CACHE_SIZE:
                self._created.popitem(last=False)
        _logger.info(
            "match created",
            match=match_id,
            game=settings.game,
            seats=settings.seat_count,
            seed=settings.seed,
            state_version=match.state_version,
        )
        self._changed(match_id)
        return match, True

    def submit(
        self,
        match_id: str,
        token: str | None,
        move: object,
        *,
        expected_state_version: int,
        request_id: str = "",
    ) -> SubmitResult:
        """Submit a move to a match (see :meth:`Match.submit`); wakes streams and timers.

        Raises:
            SeatTokenRequiredError: No token (checked before the match is looked up).
            MatchNotFoundError: No such match.
            MatchError: Everything :meth:`Match.submit` raises.
        """
        match = self._authenticated_match(match_id, token)
        version = match.state_version
        try:
            result = match.submit(
                token, move, expected_state_version=expected_state_version, request_id=request_id
            )
        finally:
            # A rejection can change the match too (timeouts settled first, a policy
            # applied after too many illegal moves).
            self._after_command(match, version)
        return result

    def resign(self, match_id: str, token: str | None, *, request_id: str = "") -> ResignResult:
        """Resign the token's seat (see :meth:`Match.resign`); wakes streams and timers."""
        match = self._authenticated_match(match_id, token)
        version = match.state_version
        try:
            return match.resign(token, request_id=request_id)
        finally:
            self._after_command(match, version)

    async def stream(
        self, match_id: str, seat: Seat | None, after_state_version: int
    ) -> AsyncIterator[StreamItem]:
        """Yield the match's log entries after ``after_state_version``, then follow it live.

        ``after_state_version`` 0 starts from the beginning, ``MATCH_STARTED`` included.
        For a seat, a :class:`StreamItem` with a ``decision`` follows whenever the seat
        has a pending decision this stream has not announced yet (a resumed stream
        announces a pending decision again). Ends after ``MATCH_FINISHED``.

        Raises:
            MatchNotFoundError: No such match.
            StateVersionAheadError: ``after_state_version`` is beyond the current version.
        """
        slot = self._slot(match_id)
        match = slot.match
        if after_state_version > match.state_version:
            raise StateVersionAheadError(after_state_version, match.state_version)
        cursor = after_state_version if after_state_version > 0 else -1
        announced: int | None = None
        while True:
            changed = slot.changed
            # Copy what is new before yielding: the consumer may be slow while the match
            # moves on; the log is append-only, so later entries are picked up next round.
            for entry in match.events[cursor + 1 :]:
                cursor = entry.state_version
                yield StreamItem(cursor, match.state_at(cursor), entry=entry)
                if entry.kind is EventKind.MATCH_FINISHED:
                    return
            decision = match.pending.get(seat) if seat is not None else None
            if (
                decision is not None
                and decision.decision_id != announced
                and cursor == match.state_version
            ):
                announced = decision.decision_id
                yield StreamItem(
                    cursor,
                    match.state,
                    decision=decision,
                    legal_moves=match.legal_moves(decision.seat),
                )
                continue
            if match.finished and cursor >= match.state_version:
                return
            if cursor == match.state_version:
                await changed.wait()
            if self._closed:
                return

    def close(self) -> None:
        """Cancel every deadline timer and end every stream (the server is stopping)."""
        self._closed = True
        for slot in self._slots.values():
            if slot.timer is not None:
                slot.timer.cancel()
                slot.timer = None
            slot.changed.set()

    # ------------------------------------------------------------------ internals

    def _slot(self, match_id: str) -> _Slot:
        slot = self._slots.get(match_id)
        if slot is None:
            raise MatchNotFoundError(match_id)
        return slot

    def _authenticated_match(self, match_id: str, token: str | None) -> Match:
        # AIP-193 order: a missing credential is reported before the resource is looked up.
        if not token:
            raise SeatTokenRequiredError()
        return self.get(match_id)

    def _changed(self, match_id: str) -> None:
        slot = self._slots[match_id]
        match = slot.match
        woken, slot.changed = slot.changed, asyncio.Event()
        woken.set()
        if slot.timer is not None:
            slot.timer.cancel()
            slot.timer = None
        if match.finished:
            self._retire(match)
            return
        deadline = match.next_deadline()
        if deadline is not None:
            delay = max(0.0, deadline - self._clock()) + _TIMER_MARGIN
            loop = asyncio.get_running_loop()
            # A fresh context: the timer must not log with the bindings of the request
            # that happened to arm it.
            slot.timer = loop.call_later(
                delay, self._on_deadline, match_id, context=contextvars.Context()
            )

    def _after_command(self, match: Match, version_before: int) -> None:
        if match.state_version == version_before:
            return
        for entry in match.events[version_before + 1 :]:
            self._log_entry(match, entry)
        self._changed(match.match_id)

    def _on_deadline(self, match_id: str) -> None:
        slot = self._slots.get(match_id)
        if slot is None:
            return
        slot.timer = None
        match = slot.match
        before = match.state_version
        match.expire()
        for entry in match.events[before + 1 :]:
            self._log_entry(match, entry)
        self._changed(match_id)

    def _retire(self, match: Match) -> None:
        if match.match_id in self._finished:
            return
        self._finished[match.match_id] = None
        result = match.result
        _logger.info(
            "match finished",
            match=match.match_id,
            game=match.settings.game,
            state_version=match.state_version,
            reason=result.reason if result else None,
            ranks=result.ranks if result else None,
        )
        while len(self._finished) > self.max_finished_matches:
            old, _ = self._finished.popitem(last=False)
            self._slots.pop(old, None)

    @staticmethod
    def _log_entry(match: Match, entry: LogEntry) -> None:
        if entry.kind is EventKind.MOVE_APPLIED and not entry.by_timeout:
            _logger.debug(
                "move applied",
                match=match.match_id,
                seat=entry.seat,
                state_version=entry.state_version,
                think_time=entry.think_time,
            )
        elif entry.kind is EventKind.MOVE_APPLIED:
            _logger.info(
                "default move played",
                match=match.match_id,
                seat=entry.seat,
                state_version=entry.state_version,
            )
        elif entry.kind is EventKind.SEAT_FORFEITED:
            _logger.info(
                "seat forfeited",
                match=match.match_id,
                seat=entry.seat,
                state_version=entry.state_version,
                reason=entry.reason,
            )
