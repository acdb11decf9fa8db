"""The Match aggregate: one match in progress, its seats, clocks, policies and event log.

A :class:`Match` is synchronous and deterministic given its clock: every command reads
the injected monotonic clock once, validates in the order AIP-193 implies (auth, state,
turn, version, legality), calls the pure engine and appends to the event log. Timers,
streams and locking belong to :mod:`botarena.server.match._manager`.

Versions: :mod:`._history` keeps the event log, one version per entry, and the engine
states after them.

Clocks: a decision starts when the seat enters ``to_act`` (or, after its own move, stays
in it); :mod:`._clock` holds the rules of its deadline and of the bank it leaves. Overdue
decisions are settled by :meth:`Match.expire`, which every command calls first, so a late
move never beats its own timeout.

Fair play (docs/decisions.md): a stand-in move is a weak one (:mod:`._policies`); a seat
that gets ``max_stand_ins_in_a_row`` of them in a row forfeits as ``absent``, and so does
a seat that has not shown up (any call with its token) within ``join_timeout``. A match
nobody joined, or whose last playing seats left as absent while every seat left let the
server move for it, ends ``abandoned``: every seat ranks last.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any

from botarena.server.games import IllegalMoveError, Rules, Seat
from botarena.server.match._answers import Answers
from botarena.server.match._clock import DecisionClock, DecisionEnd, PendingDecision
from botarena.server.match._errors import (
    IllegalMoveRejectedError,
    MatchFinishedError,
    NotYourTurnError,
    RecoveryError,
    SeatForfeitedError,
    SeatTokenInvalidError,
    SeatTokenRequiredError,
    StaleStateVersionError,
)
from botarena.server.match._history import EventKind, History, LogEntry
from botarena.server.match._hooks import GameHooks, hooks_for
from botarena.server.match._joins import Attendance, nobody_plays
from botarena.server.match._policies import StandIns
from botarena.server.match._ranking import ABANDONED, MatchResult, places
from botarena.server.match._replay import ReplayClock, check_start, replay
from botarena.server.match._settings import MatchSettings
from botarena.server.match._tokens import hash_token, new_token, seat_of

__all__ = [
    "ABANDONED",
    "Clock",
    "EventKind",
    "ForfeitReason",
    "LogEntry",
    "Match",
    "MatchResult",
    "PendingDecision",
    "ResignResult",
    "SeatRecord",
    "SubmitResult",
    "hash_token",
]

Clock = Callable[[], float]
"""A clock returning seconds: monotonic for deadlines, epoch seconds for timestamps."""

_MAX_STAND_IN_MOVES = 10_000


class ForfeitReason(StrEnum):
    """Why a seat forfeited (match.proto: SeatForfeited.reason)."""

    TIMEOUT = "timeout"
    ILLEGAL_MOVES = "illegal_moves"
    RESIGNED = "resigned"
    ABSENT = "absent"
    """Never showed up within ``join_timeout``, or too many stand-in moves in a row."""
    BOT_EXITED = "bot_exited"
    """Whoever started the seat's bot reported that its process ended (a resignation)."""


@dataclass(frozen=True, slots=True)
class SubmitResult:
    """The answer to an accepted move."""

    state_version: int
    applied_move: object


@dataclass(frozen=True, slots=True)
class ResignResult:
    """The answer to a resignation."""

    state_version: int


@dataclass(frozen=True, slots=True)
class SeatRecord:
    """The clock state and counters of a seat between decisions (saved and restored).

    Attributes:
        time_bank: The seat's time bank, seconds.
        timeouts: Times it ran out of time.
        illegal_moves: Its moves rejected as illegal.
        stand_in_moves: Moves the server played for it (made again by a replay).
        forfeit_reason: Why it forfeited, or ``None``.
    """

    time_bank: float
    timeouts: int = 0
    illegal_moves: int = 0
    stand_in_moves: int = 0
    forfeit_reason: str | None = None


@dataclass(slots=True)
class _Seat:
    name: str
    time_bank: float
    forfeited: bool = False
    forfeit_reason: ForfeitReason | None = None
    forfeit_order: int = 0
    timeouts: int = 0
    illegal_moves: int = 0
    stand_in_moves: int = 0
    # Stand-in moves since the seat last moved itself (Policies.max_stand_ins_in_a_row).
    stand_in_streak: int = 0
    answers: Answers = field(default_factory=Answers)


class Match:
    """A match in progress (see the module docstring for versions and clocks).

    Args:
        match_id: The match's id.
        rules: The game's engine.
        settings: The validated settings.
        clock: Monotonic seconds, for deadlines.
        wall_clock: Epoch seconds, for timestamps.
        hooks: Game strategies; by default those registered for ``settings.game``.
        tokens: Seat tokens to use instead of fresh random ones (tests).
        token_hashes: The seats' :func:`hash_token` values instead of tokens (a match
            rebuilt from the store, whose tokens are not known); see :meth:`restore`.
    """

    def __init__(
        self,
        match_id: str,
        rules: Rules[Any, Any, Any, Any],
        settings: MatchSettings,
        *,
        clock: Clock,
        wall_clock: Clock,
        hooks: GameHooks | None = None,
        tokens: Sequence[str] | None = None,
        token_hashes: Sequence[str] | None = None,
    ) -> None:
        self._match_id = match_id
        self._rules = rules
        self._settings = settings
        self._hooks = hooks if hooks is not None else hooks_for(settings.game)
        self._clock = clock
        self._wall_clock = wall_clock
        self._decision_clock = DecisionClock.of(settings.time_control)
        self._stand_ins = StandIns(rules, self._hooks, settings.policies, settings.seed)
        self._state: Any = rules.new_match(settings.game_config, settings.seat_count, settings.seed)
        self._history = History(rules, self._hooks, self._state)
        self._log = self._history.entries  # read on every command: one lookup
        self._pending: dict[Seat, PendingDecision] = {}
        self._result: MatchResult | None = None
        self._created_time = wall_clock()
        self._end_time: float | None = None
        self._decision_ids = 0
        self._forfeits = 0
        self._last_forfeit: ForfeitReason | None = None
        # When the seats that have not shown up forfeit; None once that is settled.
        self._attendance = Attendance(settings.seat_count, settings.policies.join_timeout, clock())
        self._legal_cache: dict[Seat, tuple[int, Sequence[Any]]] = {}
        if tokens is None and token_hashes is None:
            tokens = [new_token(match_id) for _ in range(settings.seat_count)]
        self._tokens = tuple(tokens or ())
        if token_hashes is None:
            token_hashes = [hash_token(token) for token in self._tokens]
        # The seats' token hashes, raw, by seat (authenticate reads them on every call).
        self._token_hashes = [bytes.fromhex(token_hash) for token_hash in token_hashes]
        self._seats = [
            _Seat(name=name, time_bank=settings.time_control.time_bank)
            for _, name in zip(token_hashes, settings.seat_names, strict=True)
        ]
        self._append(EventKind.MATCH_STARTED)
        self._advance(moved=frozenset(), now=clock())

    @classmethod
    def restore(
        cls,
        match_id: str,
        rules: Rules[Any, Any, Any, Any],
        settings: MatchSettings,
        *,
        log: Sequence[LogEntry],
        token_hashes: Sequence[str],
        seats: Sequence[SeatRecord],
        created_time: float,
        clock: Clock,
        wall_clock: Clock,
        hooks: GameHooks | None = None,
        end_time: float | None = None,
    ) -> Match:
        """Rebuild a match from its stored log (after a restart, or for a replay).

        Starts the match anew from its settings (the seed makes it deterministic) and
        re-applies each logged seat decision in order: moves (the seat's own or the
        timeout policy's) and forfeits. Entries the match makes itself (a forfeited seat's
        stand-in moves, the finish) are made again and checked against the log. Then the
        seats get their stored time banks and counters back, and every pending decision
        starts a fresh clock of ``move_time_limit`` + bank: the time a seat spent before
        the restart, and the downtime, are not charged. Rejected moves of an open
        decision are not in the log, so its illegal-move allowance starts again. The
        answers to the seats' submits and resigns that carried a ``request_id`` are made
        again from the log, so a retry after the restart still gets the first answer (a
        rejection is not logged: its retry is judged again).

        Args:
            match_id: The match's id.
            rules: The game's engine.
            settings: The match's settings.
            log: Every stored entry, version 0 first; ``MATCH_FINISHED`` may carry no
                result (it is made again).
            token_hashes: The seats' :func:`hash_token` values.
            seats: The seats' stored clock states and counters.
            created_time: When the match was created, epoch seconds.
            clock: Monotonic seconds, for the restarted deadlines.
            wall_clock: Epoch seconds, for timestamps from now on.
            hooks: Game strategies; by default those registered for ``settings.game``.
            end_time: When a finished match ended, epoch seconds, if stored; by default
                the time of its last entry.

        Raises:
            RecoveryError: The log does not replay: a logged move is illegal, a seat
                that owed no decision acted, or a regenerated entry differs.
        """
        check_start(match_id, log)
        replay_clock = ReplayClock(log[0].time)
        match = cls(
            match_id,
            rules,
            settings,
            clock=clock,
            wall_clock=replay_clock,
            hooks=hooks,
            token_hashes=token_hashes,
        )
        now = clock()
        replay(match_id, log, match._log, replay_clock, lambda entry: match._replay(entry, now))
        # Entries the match made during the replay carry the replay's clock: take the
        # logged times, so the rebuilt log equals the stored one.
        match._history.take_times(log)
        match._created_time = created_time
        if match._result is not None:
            match._end_time = log[-1].time if end_time is None else end_time
        for data, record in zip(match._seats, seats, strict=True):
            data.time_bank = record.time_bank
            data.timeouts = record.timeouts
            data.illegal_moves = record.illegal_moves
        match._wall_clock = wall_clock
        now = clock()
        # Every seat that has not moved itself gets a fresh window to show up again (the
        # downtime is not charged): a bot reconnects after a restart within seconds. Set
        # before the clocks restart: an unjoined seat's decision waits for this deadline.
        if match.result is None:
            match._attendance.reopen(now, match._forfeited())
        else:
            match._attendance.deadline = None
        match._restart_clocks(now)
        return match

    def _replay(self, entry: LogEntry, now: float) -> None:
        """Apply a logged entry the match did not make by itself (see :mod:`._replay`)."""
        version, seat = entry.state_version, entry.seat
        if entry.kind is EventKind.MATCH_FINISHED and entry.reason == ABANDONED:
            self._abandon(now)  # nobody showed up: the join deadline made it, not a seat
            return
        if seat is None or not 0 <= seat < self.seat_count:
            raise RecoveryError(f"match {self._match_id}: version {version} is out of order")
        request_id = entry.request_id
        answers = self._seats[seat].answers
        if entry.kind is EventKind.MOVE_APPLIED and seat in self._pending:
            data = self._seats[seat]
            if entry.by_timeout:
                data.stand_in_moves += 1
                data.stand_in_streak += 1
            else:
                data.stand_in_streak = 0
                self._attendance.show_up(seat, self._forfeited())
            move = self._hooks.annotate(self._rules, self._state, seat, entry.move)
            new_state = self._rules.apply(self._state, seat, entry.move)
            self._apply(
                seat,
                move,
                new_state,
                think_time=entry.think_time or 0.0,
                by_timeout=entry.by_timeout,
                now=now,
                request_id=request_id,
            )
            # The answer the seat got, made again: the entries the move led to (stand-in
            # moves, the finish) were made by the same call, so the version is the same.
            if request_id:
                answers.remember("submit", request_id, SubmitResult(self.state_version, move))
        elif entry.kind is EventKind.SEAT_FORFEITED and self._result is None:
            if self._seats[seat].forfeited:
                raise RecoveryError(f"match {self._match_id}: seat {seat} forfeited twice")
            self._forfeit(seat, ForfeitReason(entry.reason or ""), now, request_id=request_id)
            if request_id:
                answers.remember("resign", request_id, ResignResult(self.state_version))
        else:
            raise RecoveryError(
                f"match {self._match_id}: version {version} is a {entry.kind} of seat {seat}, "
                "which the match did not wait for"
            )

    def _restart_clocks(self, now: float) -> None:
        # Fresh deadlines from the seats' banks; each decision keeps the version it was
        # requested at, so a move chosen before the restart is still current.
        for seat, decision in sorted(self._pending.items()):
            self._request_decision(seat, now)
            self._pending[seat].requested_version = decision.requested_version

    # ------------------------------------------------------------------ queries

    @property
    def match_id(self) -> str:
        """The match's id."""
        return self._match_id

    @property
    def rules(self) -> Rules[Any, Any, Any, Any]:
        """The game's engine."""
        return self._rules

    @property
    def settings(self) -> MatchSettings:
        """The match's settings, as created."""
        return self._settings

    @property
    def hooks(self) -> GameHooks:
        """The game's match policies."""
        return self._hooks

    @property
    def result(self) -> MatchResult | None:
        """The outcome once the match has finished (or was abandoned), else ``None``."""
        return self._result

    @property
    def created_time(self) -> float:
        """When the match was created, epoch seconds."""
        return self._created_time

    @property
    def end_time(self) -> float | None:
        """When the match ended, epoch seconds; ``None`` while it runs."""
        return self._end_time

    @property
    def state_version(self) -> int:
        """The current version: the version of the last log entry."""
        return len(self._log) - 1

    @property
    def finished(self) -> bool:
        """Whether the match is over."""
        return self._result is not None

    @property
    def seat_count(self) -> int:
        """The number of seats."""
        return len(self._seats)

    @property
    def tokens(self) -> tuple[str, ...]:
        """Every seat's secret token, by seat; empty for a match rebuilt from the store."""
        return self._tokens

    @property
    def token_hashes(self) -> tuple[str, ...]:
        """Every seat's :func:`hash_token`, by seat."""
        return tuple(token_hash.hex() for token_hash in self._token_hashes)

    def reissue_token(self, seat: Seat) -> str:
        """Give ``seat`` a new secret token and return it; the old one stops working.

        For a seat whose token the server no longer knows (a match rebuilt from the
        store) and whose player lost it too. Persisting the new hash is the caller's.
        """
        token = new_token(self._match_id)
        self._token_hashes[seat] = bytes.fromhex(hash_token(token))
        if self._tokens:
            self._tokens = (*self._tokens[:seat], token, *self._tokens[seat + 1 :])
        return token

    def seat_record(self, seat: Seat) -> SeatRecord:
        """Return the seat's clock state and counters as they stand between decisions."""
        data = self._seats[seat]
        reason = data.forfeit_reason.value if data.forfeit_reason is not None else None
        return SeatRecord(
            data.time_bank, data.timeouts, data.illegal_moves, data.stand_in_moves, reason
        )

    def seat_name(self, seat: Seat) -> str:
        """Return the display name of ``seat``."""
        return self._seats[seat].name

    def is_forfeited(self, seat: Seat) -> bool:
        """Return whether ``seat`` has forfeited."""
        return self._seats[seat].forfeited

    def forfeit_reason(self, seat: Seat) -> ForfeitReason | None:
        """Return why ``seat`` forfeited, or ``None`` while it plays."""
        return self._seats[seat].forfeit_reason

    def stand_in_moves(self, seat: Seat) -> int:
        """Return how many moves the server played for ``seat`` in this match."""
        return self._seats[seat].stand_in_moves

    def timeouts(self, seat: Seat) -> int:
        """Return how many times ``seat`` ran out of time in this match."""
        return self._seats[seat].timeouts

    def illegal_moves(self, seat: Seat) -> int:
        """Return how many of ``seat``'s moves were rejected as illegal in this match."""
        return self._seats[seat].illegal_moves

    def time_bank(self, seat: Seat) -> float:
        """Return the seat's time bank now, in seconds (a running decision drains it)."""
        decision = self._pending.get(seat)
        if decision is None or not self._attendance.joined(seat):
            return self._seats[seat].time_bank  # no clock runs before the seat shows up
        return self._decision_clock.bank_left(decision, self._clock())

    @property
    def state(self) -> Any:
        """The current engine state (read-only: the match alone changes it)."""
        return self._state

    @property
    def pending(self) -> Mapping[Seat, PendingDecision]:
        """The decisions the match waits for, by seat (read-only; see
        :meth:`pending_decision`)."""
        return self._pending

    def pending_decision(self, seat: Seat) -> PendingDecision | None:
        """Return the decision ``seat`` owes now, or ``None``."""
        return self._pending.get(seat)

    def owes_decision(self, seat: Seat | None) -> bool:
        """Return whether the match waits for a decision of ``seat``."""
        return seat in self._pending

    @property
    def events(self) -> Sequence[LogEntry]:
        """The event log, version 0 first (read-only)."""
        return self._log

    def entries_after(self, version: int, through: int | None = None) -> Sequence[LogEntry]:
        """Return the log entries after ``version`` (``-1``: all), up to ``through``."""
        return self._log[version + 1 : None if through is None else through + 1]

    def last_entry(self) -> LogEntry:
        """Return the newest log entry."""
        return self._log[-1]

    def state_at(self, version: int) -> Any:
        """Return the engine state after the log entry at ``version``
        (:meth:`._history.History.state_at`).

        Raises:
            IndexError: ``version`` is beyond the log.
        """
        return self._history.state_at(version)

    def scores(self) -> tuple[int, ...]:
        """Return every seat's current (or final) score."""
        if self._result is not None:
            return self._result.scores
        return self._hooks.scores(self._rules, self._state, self.seat_count)

    def seats_to_act(self) -> tuple[Seat, ...]:
        """Return the seats the match waits for, sorted."""
        return tuple(sorted(self._pending))

    def legal_moves(self, seat: Seat) -> Sequence[Any]:
        """Return the seat's legal moves now (cached per state version)."""
        return self._legal(seat)

    def next_deadline(self) -> float | None:
        """Return the earliest pending deadline (monotonic), the join deadline included,
        or ``None``."""
        deadline = min((d.deadline for d in self._pending.values()), default=None)
        join = self._join_due()
        if join is None:
            return deadline
        return join if deadline is None or join < deadline else deadline

    def authenticate(self, token: str | None) -> Seat:
        """Return the seat ``token`` acts for.

        Raises:
            SeatTokenRequiredError: No token.
            SeatTokenInvalidError: The token is not one of this match's seat tokens.
        """
        if not token:
            raise SeatTokenRequiredError()
        found = seat_of(token, self._token_hashes)
        if found is None:
            raise SeatTokenInvalidError()
        return found

    def show_up(self, seat: Seat, now: float | None = None) -> bool:
        """Record that ``seat`` called in with its token (``Policies.join_timeout``).

        Overdue deadlines are settled first, so a seat that shows up after the join
        deadline has passed forfeits even if no timer has run yet.

        Returns:
            Whether anything changed (an overdue deadline was settled).
        """
        now = self._clock() if now is None else now
        changed = self.expire(now)
        if self._attendance.show_up(seat, self._forfeited()):
            decision = self._pending.get(seat)
            if decision is not None:
                # Its clock starts now: a bot is not charged for its own start-up.
                self._decision_clock.start(decision, now, self._wall_clock())
        return changed

    def restart_unshown_clocks(self, shown_version: int, now: float | None = None) -> None:
        """Start again, with their whole limit and bank, the clocks of the decisions
        requested after ``shown_version``: their seats could not be told of them (the
        manager shows only what is committed, and the database was away), so they were
        not on the clock yet. A seat that has not shown up keeps its join deadline."""
        now = self._clock() if now is None else now
        wall_now = self._wall_clock()
        for seat, decision in self._pending.items():
            if decision.requested_version > shown_version and self._attendance.joined(seat):
                self._decision_clock.start(decision, now, wall_now)

    def _forfeited(self) -> list[bool]:
        return [data.forfeited for data in self._seats]

    def _join_due(self) -> float | None:
        # Hot path (every command and timer asks): no per-seat scan once the window closed.
        if self._result is not None or self._attendance.deadline is None:
            return None
        return self._attendance.due(self._forfeited())

    # ------------------------------------------------------------------ commands

    def submit(
        self,
        token: str | None,
        move: object,
        *,
        expected_state_version: int,
        request_id: str = "",
    ) -> SubmitResult:
        """Apply the move of the seat that ``token`` acts for.

        Returns:
            The new state version and the move as applied (with engine annotations such
            as a Qwirkle placement's score). A repeated ``request_id`` returns the first
            answer (or raises the first error) without doing anything.

        Raises:
            SeatTokenRequiredError, SeatTokenInvalidError: Authentication failed.
            MatchFinishedError, SeatForfeitedError: The seat cannot move any more.
            NotYourTurnError: The seat owes no decision now.
            StaleStateVersionError: ``expected_state_version`` predates the decision or
                is beyond the current version.
            IllegalMoveRejectedError: The engine rejected the move; after the seat's
                allowance of illegal moves the timeout policy has been applied.
        """
        seat = self.authenticate(token)
        now = self._clock()
        self.show_up(seat, now)
        return self._seats[seat].answers.answer(
            "submit",
            request_id,
            lambda: self._submit(seat, move, expected_state_version, now, request_id),
        )

    def resign(
        self,
        token: str | None,
        *,
        request_id: str = "",
        reason: ForfeitReason = ForfeitReason.RESIGNED,
    ) -> ResignResult:
        """Forfeit the seat that ``token`` acts for.

        Args:
            token: The seat's token.
            request_id: Idempotency key.
            reason: ``RESIGNED`` (the bot gives up) or ``BOT_EXITED`` (whoever started
                the bot reports that its process ended).

        Raises:
            ValueError: Another ``reason``.
            SeatTokenRequiredError, SeatTokenInvalidError: Authentication failed.
            MatchFinishedError, SeatForfeitedError: Nothing left to resign.
        """
        if reason not in (ForfeitReason.RESIGNED, ForfeitReason.BOT_EXITED):
            raise ValueError(f"a seat cannot resign as {reason}")
        seat = self.authenticate(token)
        now = self._clock()
        self.show_up(seat, now)
        return self._seats[seat].answers.answer(
            "resign", request_id, lambda: self._resign(seat, now, request_id, reason)
        )

    def expire(self, now: float | None = None) -> bool:
        """Apply the timeout policy to every decision whose deadline has passed.

        Returns:
            Whether anything changed.
        """
        now = self._clock() if now is None else now
        changed = False
        while self._result is None:
            overdue = [d for d in self._pending.values() if d.deadline <= now]
            join = self._join_due()
            first = min(overdue, key=lambda d: (d.deadline, d.seat), default=None)
            if join is not None and join <= now and (first is None or join <= first.deadline):
                self._settle_joins(now)
                changed = True
            elif first is not None:
                self._apply_timeout_policy(first, ForfeitReason.TIMEOUT, now)
                changed = True
            else:
                break
        return changed

    # ------------------------------------------------------------------ internals

    def _check_can_act(self, seat: Seat) -> None:
        if self._result is not None:
            raise MatchFinishedError()
        if self._seats[seat].forfeited:
            raise SeatForfeitedError(seat)

    def _submit(
        self, seat: Seat, move: object, expected: int, now: float, request_id: str
    ) -> SubmitResult:
        self._check_can_act(seat)
        decision = self._pending.get(seat)
        if decision is None:
            raise NotYourTurnError(seat, frozenset(self._pending))
        # A move chosen at any version since the decision was requested is current: the
        # versions in between are other seats' sealed choices or forfeits, which do not
        # change what this seat may do.
        if not decision.requested_version <= expected <= self.state_version:
            raise StaleStateVersionError(expected, self.state_version)
        try:
            new_state = self._rules.apply(self._state, seat, move)
        except IllegalMoveError as error:
            decision.illegal_moves += 1
            self._seats[seat].illegal_moves += 1
            limit = self._settings.policies.max_illegal_moves
            rejection = IllegalMoveRejectedError(
                error.reason, error.message, illegal_moves=decision.illegal_moves, limit=limit
            )
            if rejection.policy_applied:
                self._apply_timeout_policy(decision, ForfeitReason.ILLEGAL_MOVES, now)
            raise rejection from error
        applied = self._annotated(seat, move)
        think = now - decision.started_at
        data = self._seats[seat]
        data.time_bank = self._decision_clock.bank_after(decision, now, DecisionEnd.OWN_MOVE)
        data.stand_in_streak = 0
        self._apply(
            seat,
            applied,
            new_state,
            think_time=think,
            by_timeout=False,
            now=now,
            request_id=request_id or None,
        )
        return SubmitResult(self.state_version, applied)

    def _resign(
        self, seat: Seat, now: float, request_id: str, reason: ForfeitReason
    ) -> ResignResult:
        self._check_can_act(seat)
        self._forfeit(seat, reason, now, request_id=request_id or None)
        return ResignResult(self.state_version)

    def _settle_joins(self, now: float) -> None:
        """The join deadline passed: the seats that never showed up forfeit as absent, and
        a match nobody joined is abandoned."""
        absent = self._attendance.close(self._forfeited())
        if absent is None:
            self._abandon(now)  # nobody still in the match ever showed up
            return
        for seat in absent:
            if self._result is not None:
                return
            self._forfeit(seat, ForfeitReason.ABSENT, now)

    def _abandon(self, now: float) -> None:
        """End the match as abandoned: every seat still in it leaves as absent."""
        del now  # the finish entry takes the wall clock, as every entry does
        for data in self._seats:
            if not data.forfeited:
                self._forfeits += 1
                data.forfeited, data.forfeit_reason = True, ForfeitReason.ABSENT
                data.forfeit_order = self._forfeits
        self._finish(ABANDONED, None)

    def _stand_in(self, seat: Seat) -> object:
        return self._stand_ins.move(self._state, seat, self.state_version)

    def _annotated(self, seat: Seat, move: object) -> object:
        # Engines put annotations (a Qwirkle placement's score) on the moves they list;
        # record the listed twin of the submitted move so the log and the answer carry them.
        # A scan, not an index: this runs once per decision, and a scan stops at the twin
        # where an index hashes every move (a Python-level __hash__ for dataclass moves).
        return next((candidate for candidate in self._legal(seat) if candidate == move), move)

    def _legal(self, seat: Seat) -> Sequence[Any]:
        cached = self._legal_cache.get(seat)
        if cached is None or cached[0] != self.state_version:
            moves = self._rules.legal_moves(self._state, seat) if seat in self._pending else ()
            cached = (self.state_version, moves)
            self._legal_cache[seat] = cached
        return cached[1]

    def _settle_clock(self, decision: PendingDecision, now: float, end: DecisionEnd) -> None:
        data = self._seats[decision.seat]
        data.time_bank = self._decision_clock.bank_after(decision, now, end)

    def _apply_timeout_policy(
        self, decision: PendingDecision, reason: ForfeitReason, now: float
    ) -> None:
        seat = decision.seat
        think = now - decision.started_at
        if reason is ForfeitReason.TIMEOUT:
            self._seats[seat].timeouts += 1
        stand_in = self._stand_ins.for_policy(self._state, seat, self.state_version)
        if stand_in is not None:
            move, new_state = stand_in
            timed_out = reason is ForfeitReason.TIMEOUT
            end = DecisionEnd.OUT_OF_TIME if timed_out else DecisionEnd.STAND_IN
            self._settle_clock(decision, now, end)
            data = self._seats[seat]
            data.stand_in_moves += 1
            data.stand_in_streak += 1
            move = self._annotated(seat, move)
            self._apply(seat, move, new_state, think_time=think, by_timeout=True, now=now)
            if (
                self._stand_ins.too_many_in_a_row(data.stand_in_streak)
                and self._result is None
                and not data.forfeited
            ):
                self._forfeit(seat, ForfeitReason.ABSENT, now)
            return
        self._settle_clock(decision, now, DecisionEnd.OUT_OF_TIME)
        self._forfeit(seat, reason, now)

    def _apply(
        self,
        seat: Seat,
        move: object,
        new_state: Any,
        *,
        think_time: float,
        by_timeout: bool,
        now: float,
        request_id: str | None = None,
    ) -> None:
        self._state = new_state
        self._append(
            EventKind.MOVE_APPLIED,
            seat=seat,
            move=move,
            think_time=think_time,
            by_timeout=by_timeout,
            request_id=request_id,
        )
        self._advance(moved=frozenset({seat}), now=now)

    def _forfeit(
        self, seat: Seat, reason: ForfeitReason, now: float, *, request_id: str | None = None
    ) -> None:
        data = self._seats[seat]
        self._forfeits += 1
        data.forfeited, data.forfeit_reason, data.forfeit_order = True, reason, self._forfeits
        self._last_forfeit = reason
        self._pending.pop(seat, None)
        reduced = self._hooks.remove_seat(self._rules, self._state, seat)
        if reduced is not None:
            self._state = reduced
        self._append(
            EventKind.SEAT_FORFEITED, seat=seat, reason=reason.value, request_id=request_id
        )
        self._advance(moved=frozenset(), now=now)

    def _append(self, kind: EventKind, **fields: Any) -> None:
        self._history.append(self._state, self._wall_clock(), kind, fields)

    def _advance(self, *, moved: frozenset[Seat], now: float) -> None:
        """Bring the match to its next waiting point after a state change."""
        for _ in range(_MAX_STAND_IN_MOVES):
            remaining = [s for s, data in enumerate(self._seats) if not data.forfeited]
            outcome = self._rules.outcome(self._state)
            if outcome is not None:
                self._finish(outcome.reason, outcome)
                return
            if len(remaining) < 2:
                # The last seats playing left as absent and whoever is left let the server
                # move for it last time: nobody plays, so nobody wins.
                streaks = [self._seats[s].stand_in_streak for s in remaining]
                if nobody_plays(self._last_forfeit is ForfeitReason.ABSENT, streaks):
                    self._abandon(now)
                else:
                    self._finish("forfeit", None)
                return
            to_act = self._rules.to_act(self._state)
            stand_ins = sorted(s for s in to_act if self._seats[s].forfeited)
            if not stand_ins:
                break
            # The engine cannot drop the seat (GameHooks.remove_seat): play its turns for it.
            seat = stand_ins[0]
            move = self._stand_in(seat)
            self._seats[seat].stand_in_moves += 1
            self._state = self._rules.apply(self._state, seat, move)
            self._append(
                EventKind.MOVE_APPLIED, seat=seat, move=move, think_time=0.0, by_timeout=True
            )
            moved = moved | {seat}
        else:
            raise RuntimeError("forfeited seats kept the engine busy; the match cannot go on")
        if not to_act:
            raise RuntimeError(f"{self._rules.name}: no seat to act but no outcome either")
        for seat in list(self._pending):
            if seat not in to_act or seat in moved:
                del self._pending[seat]
        for seat in sorted(to_act):
            if seat not in self._pending:
                self._request_decision(seat, now)

    def _request_decision(self, seat: Seat, now: float) -> None:
        self._decision_ids += 1
        wall_now = self._wall_clock()
        decision = self._decision_clock.open(
            self._decision_ids,
            seat,
            self.state_version,
            self._seats[seat].time_bank,
            now,
            wall_now,
        )
        join = self._attendance.deadline
        if join is not None and not self._attendance.joined(seat):
            # A seat that has not shown up has no clock yet (show_up starts it): it waits
            # for the join deadline, which forfeits it if it never comes.
            self._decision_clock.wait_until(decision, join, now, wall_now)
        self._pending[seat] = decision

    def _finish(self, reason: str, outcome: Any) -> None:
        scores = (
            outcome.scores
            if outcome is not None
            else self._hooks.scores(self._rules, self._state, self.seat_count)
        )
        engine_ranks = outcome.ranks if outcome is not None else (1,) * self.seat_count
        forfeited = tuple(data.forfeited for data in self._seats)
        reasons = tuple(
            data.forfeit_reason.value if data.forfeit_reason is not None else ""
            for data in self._seats
        )
        orders = [data.forfeit_order if data.forfeited else None for data in self._seats]
        ranks = places(engine_ranks, orders, abandoned=reason == ABANDONED)
        self._pending.clear()
        self._legal_cache.clear()  # nobody moves any more: free the last legal moves
        self._result = MatchResult(tuple(scores), ranks, forfeited, reason, reasons)
        self._end_time = self._wall_clock()
        self._append(EventKind.MATCH_FINISHED, reason=reason, result=self._result)
