"""The asyncio registry of matches: creation, commands, deadline timers and event streams.

All matches live in one event loop and every :class:`Match` command is synchronous, so a
command never interleaves with another: no locks. After every change the manager wakes
the match's stream subscribers (one ``asyncio.Event`` per match, replaced on each change)
and re-arms the match's single deadline timer for its earliest pending decision.

Seats on the clock are served first. After a change, a stream of a seat that owes no
decision (or a spectator's) waits until a deciding seat's stream has announced its
decision, so the deciding bot's clock is not spent on encoding and sending events that
nobody waits for. It waits only while a deciding seat has a stream open, and at most
``_MAX_DEFERRAL`` (a deciding stream that stops reading holds nobody up for long).

With a store, every change is committed first: the new log entries, the seats' time
banks and counters, and the result, in one transaction, before any subscriber is woken.
Streams show only committed entries, so a decision is announced only once the entry
before it is durable, and a crash loses nothing a bot was told. :meth:`MatchManager.recover`
rebuilds the unfinished matches after a restart; finished matches that are no longer in
memory are rebuilt from the store when asked for: in a worker thread for requests
(:meth:`MatchManager.load`), while summaries and listings read the stored records and
replay nothing.

With a :class:`~botarena.server.store.Lease` (several nodes on one database) the manager
holds only the unfinished matches whose lease it has: it takes the lease when it creates
a match, every commit is fenced by it (a node that lost it writes nothing and drops the
match), :meth:`MatchManager.maintain_leases` renews its leases and takes over the
expired ones of dead nodes, replaying their logs as a restart does, and a call for a
match another node runs raises :class:`MatchOnOtherNodeError` naming that node. A node
is its advertised address (``Lease.address``): started again there, it takes back the
leases of its earlier start at once, expired or not (the earlier start, should it still
run, is fenced out like any node that lost a lease).

When the database is away (a PostgreSQL restart), a commit fails with
:class:`StoreUnavailableError` (UNAVAILABLE, ``STORE_UNAVAILABLE``) to the caller, whose
change stays in memory, unshown: the manager commits it again with backoff, and shows it
once it is durable; a retried command (the same ``request_id``) first commits what waits,
then gets its first answer. Meanwhile no timer applies a policy, and the decisions the
held change opened get their whole time once shown: a seat is not charged for time it
could not know it was on the clock. The lease heartbeat keeps trying too; it renews only the
leases this node still owns, so the fence holds (docs/decisions.md: Database faults).
"""

from __future__ import annotations

import asyncio
import contextvars
import math
import secrets
import time
from collections import Counter, OrderedDict
from collections.abc import AsyncGenerator, Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import structlog

from botarena.server.games import Rules, Seat, get_rules
from botarena.server.match._admission import (
    DEFAULT_MAX_ACTIVE_MATCHES,
    DEFAULT_MAX_CREATES_PER_MINUTE,
    DEFAULT_MAX_MATCHES_PER_CALLER,
    RESERVED_FRACTION,
    Admission,
    AdmissionLimits,
    Caller,
)
from botarena.server.match._errors import (
    InvalidRequestError,
    MatchError,
    MatchFinishedError,
    MatchNotFoundError,
    MatchOnOtherNodeError,
    RecoveryError,
    RequestIdConflictError,
    RequestIdUsedError,
    SeatTokenRequiredError,
    StateVersionAheadError,
    StoreUnavailableError,
)
from botarena.server.match._hooks import GameHooks
from botarena.server.match._match import (
    Clock,
    EventKind,
    ForfeitReason,
    LogEntry,
    Match,
    PendingDecision,
    ResignResult,
    SeatRecord,
    SubmitResult,
)
from botarena.server.match._persistence import (
    MatchCodec,
    entry_of,
    stored_event,
    stored_match,
    stored_result,
    stored_seats,
)
from botarena.server.match._settings import MatchSettings
from botarena.server.store import (
    DatabaseUnavailableError,
    Lease,
    LeaseLostError,
    Store,
    StoredEvent,
    StoredMatch,
)
from botarena.server.text import name_problem

__all__ = ["MatchManager", "StreamItem"]

_logger = structlog.get_logger("botarena.match")

# A timer may fire a hair before the deadline it was set for (the loop rounds); a late
# margin avoids a wasted wake-up and re-arm.
_TIMER_MARGIN = 0.001
# The longest a bystander's stream waits for a deciding seat's stream (module docstring).
_MAX_DEFERRAL = 0.05
_CREATE_CACHE_SIZE = 1024
# Commits that failed because the database was away are tried again after this many
# seconds, doubling up to _RECOMMIT_MAX.
_RECOMMIT_FIRST = 0.1
_RECOMMIT_MAX = 1.0


@dataclass(frozen=True, slots=True)
class StreamItem:
    """One item of a match's event stream as the match layer produces it.

    Exactly one of ``entry`` (a log entry) and ``decision`` (the subscriber's seat must
    decide) is set. The state and the legal moves are the match's to ask for
    (``Match.state_at(state_version)``, ``Match.legal_moves(seat)``), by whoever encodes
    the item.

    Attributes:
        state_version: The entry's version, or the current version for a decision.
        entry: The log entry.
        decision: The pending decision of the subscriber's seat.
    """

    state_version: int
    entry: LogEntry | None = None
    decision: PendingDecision | None = None


@dataclass(slots=True)
class _Slot:
    match: Match
    sequence: int
    # The last version committed to the store (with no store: the last version applied).
    durable_version: int
    changed: asyncio.Event = field(default_factory=asyncio.Event)
    timer: asyncio.TimerHandle | None = None
    # The deadline the timer is set for (Match.next_deadline when it was armed).
    armed_deadline: float | None = None
    # While bystanders' streams wait for the last change's deciding seats: what they wait
    # on, and the timer that ends the wait (module docstring). None most of the time, so
    # an idle match holds no event for it.
    served: asyncio.Event | None = None
    served_timer: asyncio.TimerHandle | None = None
    # Open streams per seat (None: spectators).
    listeners: Counter[Seat | None] = field(default_factory=Counter)
    # Another node took the match's lease: this slot is dropped, its streams end.
    lost: bool = False
    # The commit is tried again later (the database was away; _recommit), the last one
    # may or may not have been kept (_settle_doubt), and the clocks of the decisions it
    # holds back start once they are shown (Match.restart_unshown_clocks).
    recommit: asyncio.TimerHandle | None = None
    in_doubt: bool = False
    held: bool = False

    def serve(self) -> None:
        """Let bystanders' streams go on."""
        if self.served is not None:
            self.served.set()
            self.served = None
        if self.served_timer is not None:
            self.served_timer.cancel()
            self.served_timer = None


class MatchManager:
    """Holds the server's matches and runs their clocks.

    Args:
        games: Looks a game's engine up by registry name (``KeyError`` if unknown).
        hooks: Looks up a game's :class:`GameHooks`; ``None`` uses the registered ones.
        clock: Monotonic seconds; must be the event loop's clock base (the default).
        wall_clock: Epoch seconds, for timestamps.
        max_active_matches: Creating more unfinished matches is refused
            (:class:`Admission`, like the two limits below).
        max_matches_per_caller: Unfinished matches one caller may hold (0: no limit).
        max_creates_per_minute: Matches one caller may create per minute (0: no limit).
        reserved_matches: Of ``max_active_matches``, those only in-process creations
            (the ladder's) and the admin token's holder may take; ``None``: a tenth.
        max_finished_matches: Finished matches kept in memory; the oldest go first (with
            a store they are rebuilt from it when asked for again).
        store: Where matches are made durable; ``None`` keeps them in memory only.
        codec: Encodes settings and moves for ``store`` (required with a store).
        lease: This node's lease, when several nodes share ``store`` (module docstring).

    Raises:
        ValueError: A store without a codec, or a lease without a store.
    """

    def __init__(
        self,
        *,
        games: Callable[[str], Rules[Any, Any, Any, Any]] = get_rules,
        hooks: Callable[[str], GameHooks] | None = None,
        clock: Clock = time.monotonic,
        wall_clock: Clock = time.time,
        max_active_matches: int = DEFAULT_MAX_ACTIVE_MATCHES,
        max_matches_per_caller: int = DEFAULT_MAX_MATCHES_PER_CALLER,
        max_creates_per_minute: int = DEFAULT_MAX_CREATES_PER_MINUTE,
        reserved_matches: int | None = None,
        max_finished_matches: int = 10_000,
        store: Store | None = None,
        codec: MatchCodec | None = None,
        lease: Lease | None = None,
    ) -> None:
        if store is not None and codec is None:
            raise ValueError("a MatchManager with a store needs a codec")
        if lease is not None and store is None:
            raise ValueError("a lease needs a store")
        self.store = store
        self.lease = lease
        # A heartbeat took expired leases over: the next one leaves the rest to others.
        self._claimed_last = False
        self._codec = codec
        self._games = games
        self._hooks = hooks
        self._clock = clock
        self._wall_clock = wall_clock
        self.admission = Admission(
            AdmissionLimits(
                max_active_matches,
                max_matches_per_caller,
                max_creates_per_minute,
                max_active_matches // RESERVED_FRACTION
                if reserved_matches is None
                else reserved_matches,
            ),
            clock=clock,
        )
        self.max_finished_matches = max_finished_matches
        self._slots: dict[str, _Slot] = {}
        self._finished: OrderedDict[str, None] = OrderedDict()
        # CreateMatch request_id -> (match id, scoped request_id, config fingerprint).
        self._created: OrderedDict[str, tuple[str, str, str]] = OrderedDict()
        # Rebuilds of finished matches running in worker threads, by match (see load).
        self._loading: dict[str, asyncio.Future[_Slot | None]] = {}
        # One rebuild thread at a time: replaying is pure Python, so threads would share
        # one GIL anyway, and each more thread delays the loop's turn to take it back.
        self._rebuilding = asyncio.Semaphore(1)
        # Without a store, the last sequence number given; with one the store gives them
        # (they order ListMatches across restarts, and across the nodes of one database).
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

        A finished match that is not held is rebuilt here, in the event loop: requests
        call :meth:`load` first, which rebuilds it in a worker thread.

        Raises:
            MatchNotFoundError: No such match.
        """
        return self._slot(match_id).match

    async def load(self, match_id: str) -> Match:
        """Return the match ``match_id``, rebuilding an evicted finished match from the
        store in a worker thread (its log is replayed through the engine).

        Concurrent calls for the same match share one rebuild; the rebuilt match is held
        like any finished match (at most ``max_finished_matches`` of them).

        Raises:
            MatchNotFoundError: No such match, or its stored log does not replay.
        """
        slot = self._slots.get(match_id)
        if slot is not None:
            return slot.match
        taken = self._take_over_or_redirect(match_id)
        if taken is not None:
            return taken.match
        loading = self._loading.get(match_id)
        if loading is None:
            loading = asyncio.create_task(
                self._load_off_loop(match_id), name=f"botarena-load-{match_id}"
            )
            self._loading[match_id] = loading
            loading.add_done_callback(lambda _: self._loading.pop(match_id, None))
        # Shielded: a caller that gives up must not cancel the rebuild the others await.
        slot = await asyncio.shield(loading)
        if slot is None:
            raise MatchNotFoundError(match_id)
        return slot.match

    def held(self, match_id: str) -> Match | None:
        """Return the match ``match_id`` if this node holds it, else ``None``; never
        looks at the store (nor takes a match over)."""
        slot = self._slots.get(match_id)
        return None if slot is None else slot.match

    def find(self, match_id: str) -> Match | StoredMatch:
        """Return the match ``match_id`` if it is held, else the stored record of a
        finished match (enough for a summary: nothing is replayed).

        Raises:
            MatchNotFoundError: No such match.
        """
        slot = self._slots.get(match_id) or self._take_over_or_redirect(match_id)
        if slot is not None:
            return slot.match
        record = self._finished_record(match_id)
        if record is None:
            raise MatchNotFoundError(match_id)
        return record

    def matches(self) -> list[Match]:
        """Return every match held, newest first."""
        slots = sorted(self._slots.values(), key=lambda slot: slot.sequence, reverse=True)
        return [slot.match for slot in slots]

    def settle(self, match_id: str, seat: Seat | None = None) -> Match:
        """Return the match after applying the policy to its overdue decisions.

        Queries call this so that a decision whose deadline has passed never looks
        pending, even in the instant before its timer fires. A ``seat`` (the caller
        authenticated with its token) counts as having shown up (:meth:`Match.show_up`).

        Raises:
            MatchNotFoundError: No such match.
            StoreUnavailableError: A change of the match waits for the database.
        """
        match = self.get(match_id)
        self._commit_waiting(match_id)
        version = match.state_version
        if seat is None:
            match.expire()
        else:
            match.show_up(seat)
        self._after_command(match, version)
        return match

    def sequence(self, match_id: str) -> int:
        """Return the creation order number of a match (larger is newer)."""
        return self._slot(match_id).sequence

    def list_matches(
        self,
        *,
        game: str = "",
        finished: bool | None = None,
        end_reason: str = "",
        before_sequence: int | None = None,
        limit: int = 50,
    ) -> list[tuple[int, Match | StoredMatch]]:
        """Return matches newest first with their sequence numbers, filtered.

        With a store every stored match is listed: a held match as its :class:`Match`, a
        finished one that is not held as its stored record (never replayed), and with a
        lease the unfinished matches other nodes run, as their stored records too.
        Without a store, the matches held in memory.

        Args:
            game: Only this game; empty for every game.
            finished: Only finished (True) or unfinished (False) matches; ``None``: both.
            end_reason: Only finished matches that ended for this reason; empty: any.
            before_sequence: Only matches older than this sequence number.
            limit: At most this many.
        """
        found: list[tuple[int, Match | StoredMatch]] = []
        if self.store is not None:
            stored = self.store.list_matches(
                game=game,
                finished=finished,
                end_reason=end_reason,
                before_sequence=before_sequence,
                limit=limit,
            )
            for record in stored:
                slot = self._slots.get(record.match_id)
                if slot is not None:
                    found.append((record.sequence, slot.match))
                elif record.finished or self.lease is not None:
                    # With a lease, an unfinished match not held here is another node's.
                    found.append((record.sequence, record))
                # else: an unfinished match that could not be recovered (logged at start)
            return found
        slots = sorted(self._slots.values(), key=lambda slot: slot.sequence, reverse=True)
        for slot in slots:
            match = slot.match
            if before_sequence is not None and slot.sequence >= before_sequence:
                continue
            if game and match.settings.game != game:
                continue
            if finished is not None and match.finished != finished:
                continue
            if end_reason and (match.result is None or match.result.reason != end_reason):
                continue
            if len(found) == limit:
                break
            found.append((slot.sequence, match))
        return found

    @property
    def active_count(self) -> int:
        """The number of unfinished matches."""
        return len(self._slots) - len(self._finished)

    # ------------------------------------------------------------------ commands

    def create(
        self,
        settings: MatchSettings,
        *,
        request_id: str = "",
        caller: Caller | None = None,
        fingerprint: str = "",
    ) -> tuple[Match, bool]:
        """Create a match and start its clocks (needs a running event loop).

        Args:
            settings: The match's settings.
            request_id: Optional idempotency key: a repeat by the same caller with the
                same ``fingerprint`` returns the first match.
            caller: Who asks, for the admission limits and the scope of ``request_id``;
                ``None`` for an in-process creation (the ladder's), which only the
                server-wide limit binds.
            fingerprint: A digest of the requested config; a repeated ``request_id``
                with another one is refused.

        Returns:
            The match, and whether it was created now (``False``: a repeated
            ``request_id`` returned the match created the first time).

        Raises:
            InvalidRequestError: Unknown game, a seat count out of range, or a seat name
                that is not printable text (``botarena.server.text.name_problem``).
            TooManyMatchesError: The server, or the caller, holds its limit of active
                matches.
            CreateRateLimitedError: The caller creates matches faster than it may.
            RequestIdConflictError: ``request_id`` made a match for another caller or
                another config.
            RequestIdUsedError: ``request_id`` made a match before a restart (the store
                remembers it), whose seat tokens cannot be shown again.
        """
        # The store keeps the key in the caller's namespace: after a restart another
        # caller's repeat is not even told the match.
        scoped = caller.scoped(request_id) if caller is not None else request_id
        if request_id:
            first = self._first_answer(request_id, scoped, fingerprint)
            if first is not None:
                return first, False
        for index, name in enumerate(settings.seat_names):
            if (problem := name_problem(name)) is not None:
                raise InvalidRequestError(
                    f"config.seat_names[{index}]", f"{problem}: names are printable text"
                )
        rules = self.rules(settings.game)
        if not rules.min_seats <= settings.seat_count <= rules.max_seats:
            raise InvalidRequestError(
                "config.seat_count",
                f"{settings.game} takes {rules.min_seats}..{rules.max_seats} seats, "
                f"not {settings.seat_count}",
                reason="INVALID_SEAT_COUNT",
            )
        self.admission.check(caller, self.active_count)
        match_id = secrets.token_hex(8)
        match = Match(
            match_id,
            rules,
            settings,
            clock=self._clock,
            wall_clock=self._wall_clock,
            hooks=self._hooks(settings.game) if self._hooks is not None else None,
        )
        self._sequence = (
            self.store.next_sequence() if self.store is not None else self._sequence + 1
        )
        if self.store is not None and self._codec is not None:
            codec = self._codec
            events = [
                stored_event(entry, settings.game, codec) for entry in match.entries_after(-1)
            ]
            record = stored_match(match, self._sequence, codec, scoped or None)
            self.store.create_match(record, events, lease=self.lease)
        self._slots[match_id] = _Slot(match, self._sequence, match.state_version)
        self.admission.admitted(match_id, caller)
        if request_id:
            self._created[request_id] = (match_id, scoped, fingerprint)
            if len(self._created) > _CREATE_CACHE_SIZE:
                self._created.popitem(last=False)
        _logger.info(
            "match created",
            match=match_id,
            game=settings.game,
            seats=settings.seat_count,
            state_version=match.state_version,
        )  # not the seed: it is secret until the end (logged with "match finished")
        self._changed(match_id)
        return match, True

    def check_admission(self, caller: Caller | None, request_id: str = "") -> None:
        """Refuse now, before the request is decoded, a creation the limits would refuse.

        A ``request_id`` that made a match here passes: :meth:`create` answers it.

        Raises:
            TooManyMatchesError: The server, or the caller, holds its limit.
            CreateRateLimitedError: The caller creates matches faster than it may.
        """
        if request_id and request_id in self._created:
            return
        self.admission.check(caller, self.active_count)

    def _first_answer(self, request_id: str, scoped: str, fingerprint: str) -> Match | None:
        """Return the match a repeated CreateMatch ``request_id`` made, or ``None`` when
        it is new (or, without a store, forgotten).

        Raises:
            RequestIdConflictError: Another caller's, or another config's, request_id.
            RequestIdUsedError: The match's seat tokens cannot be shown again.
        """
        known = self._created.get(request_id)
        if known is not None and known[1] == scoped:
            if known[2] != fingerprint:
                raise RequestIdConflictError(request_id)
            match_id: str | None = known[0]
        else:
            # The caller's own match first: after a restart another caller may have used
            # the key here since, and the caller's repeat is still its own (REQUEST_ID_USED).
            match_id = self.store.match_created_by(scoped) if self.store is not None else None
            if match_id is None and known is not None:
                raise RequestIdConflictError(request_id)
        if match_id is None:
            return None
        try:
            first = self.get(match_id)
        except MatchNotFoundError:
            return None  # without a store, forgotten: make a new one
        if not first.tokens:
            raise RequestIdUsedError(request_id, match_id)
        return first

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
        self._commit_waiting(match_id)
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

    def reissue_token(self, match_id: str, seat: Seat) -> str:
        """Give a seat of an unfinished match a new token and return it (see
        :meth:`Match.reissue_token`); with a store, the new hash is committed first.

        Raises:
            MatchNotFoundError: No such match.
            MatchFinishedError: The match is over.
        """
        slot = self._slot(match_id)
        match = slot.match
        if match.finished:
            raise MatchFinishedError()
        token = match.reissue_token(seat)
        if self.store is not None:
            try:
                self.store.record(match_id, (), stored_seats(match), lease=self.lease)
            except LeaseLostError:
                raise self._lose(slot) from None
            except DatabaseUnavailableError as error:
                _logger.warning("seat token not reissued", match=match_id, error=str(error))
                raise StoreUnavailableError() from None
        _logger.info("seat token reissued", match=match_id, seat=seat)
        return token

    def resign(
        self,
        match_id: str,
        token: str | None,
        *,
        request_id: str = "",
        reason: ForfeitReason = ForfeitReason.RESIGNED,
    ) -> ResignResult:
        """Resign the token's seat (see :meth:`Match.resign`); wakes streams and timers."""
        match = self._authenticated_match(match_id, token)
        self._commit_waiting(match_id)
        version = match.state_version
        try:
            return match.resign(token, request_id=request_id, reason=reason)
        finally:
            self._after_command(match, version)

    async def stream(
        self, match_id: str, seat: Seat | None, after_state_version: int
    ) -> AsyncGenerator[StreamItem, None]:
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
        if after_state_version > slot.durable_version:
            raise StateVersionAheadError(after_state_version, slot.durable_version)
        if seat is not None and not match.finished:
            self.settle(match_id, seat)  # a seat's stream is the usual way it shows up
        cursor = after_state_version if after_state_version > 0 else -1
        announced: int | None = None
        slot.listeners[seat] += 1
        try:
            while True:
                changed = slot.changed
                # Only committed entries are shown (the module docstring). Copy what is
                # new before yielding: the consumer may be slow while the match moves on;
                # the log is append-only, so later entries are picked up next round.
                for entry in match.entries_after(cursor, through=slot.durable_version):
                    cursor = entry.state_version
                    yield StreamItem(cursor, entry=entry)
                    if entry.kind is EventKind.MATCH_FINISHED:
                        return
                decision = match.pending_decision(seat) if seat is not None else None
                if (
                    decision is not None
                    and decision.decision_id != announced
                    and cursor == match.state_version == slot.durable_version
                ):
                    announced = decision.decision_id
                    yield StreamItem(cursor, decision=decision)
                    # The consumer is back for more: the decision is out (grpc asks for
                    # the next message once the last one is sent).
                    slot.serve()
                    continue
                if match.finished and cursor >= match.state_version:
                    return
                if cursor >= slot.durable_version:
                    await changed.wait()
                    served = slot.served
                    if served is not None and not match.owes_decision(seat):
                        await served.wait()
                if self._closed:
                    return
                if slot.lost:
                    raise self._redirect(match_id)
        finally:
            slot.listeners[seat] -= 1
            if match.owes_decision(seat) and not slot.listeners[seat]:
                slot.serve()  # nobody is left to announce this seat's decision

    def recover(self) -> int:
        """Rebuild every unfinished match of the store and restart its clocks.

        Call once, in the event loop, before serving. Each match is replayed from its log
        (:meth:`Match.restore`); seats keep their tokens, and their pending decisions
        start fresh clocks with the time bank they had left. A match that does not replay
        is logged and left out. With a lease: the matches an earlier start of this node
        leased (expired or not), then those :meth:`maintain_leases` would take over.

        Returns:
            The number of matches recovered.
        """
        if self.store is None:
            return 0
        if self.lease is not None:
            # First this node's own: those an earlier start at the same address leased
            # (a kill -9 and a restart), expired or not, so nobody waits their leases out.
            taken = self._take_over(self.store.take_back_leases(self.lease))
            if taken:
                _logger.info("matches taken back from an earlier start", count=len(taken))
            return len(taken) + len(self._take_over(self._claim_share()))
        recovered = 0
        for record in self.store.unfinished_matches():
            if record.match_id not in self._slots and self._resume(record):
                recovered += 1
        return recovered

    def maintain_leases(self, *, claim: bool = True) -> tuple[list[str], list[str]]:
        """Renew this node's leases, drop the matches whose lease another node took, and
        take over (replaying their logs) the matches of nodes that stopped renewing.

        Call it every fraction of the lease time (:meth:`run_leases` does).

        Args:
            claim: Take over expired leases too (``False``: renew only).

        Returns:
            The matches lost, and the matches taken over.

        Raises:
            DatabaseUnavailableError: The database is away; nothing was dropped.
        """
        if self.store is None or self.lease is None:
            return [], []
        renewed = self.store.renew_leases(self.lease)
        lost = [
            match_id
            for match_id, slot in list(self._slots.items())
            if not slot.match.finished and match_id not in renewed
        ]
        for match_id in lost:
            self._lose(self._slots[match_id])
        if not claim:
            return lost, []
        return lost, self._take_over(self._claim_share())

    def _claim_share(self) -> list[str]:
        """Take over at most this node's fair share of the expired leases
        (``Store.fair_share``), and nothing on the heartbeat after one that took some:
        the other live nodes take the rest meanwhile, and a lone survivor (its share is
        every expired lease) still takes them all within two heartbeats."""
        assert self.store is not None
        assert self.lease is not None
        if self._claimed_last:
            self._claimed_last = False
            return []
        share = self.store.fair_share(self.lease.owner)
        claimed = self.store.claim_leases(self.lease, limit=share)
        self._claimed_last = bool(claimed)
        return claimed

    async def run_leases(self, interval: float) -> None:
        """Call :meth:`maintain_leases` every ``interval`` seconds until cancelled (a
        failure is logged and tried again next time).

        After the database was away, it only renews for one lease time: every node's
        leases expired alike during a long outage, and each node that lives keeps its own
        matches (it renews within that time) rather than the quickest one taking them
        all over; a node that died meanwhile loses its matches one lease time later.
        """
        away = False
        claim_from = 0.0
        ttl = self.lease.ttl if self.lease is not None else 0.0
        while True:
            try:
                self.maintain_leases(claim=time.monotonic() >= claim_from)
                if away:
                    _logger.info("lease heartbeat: the database is back")
                    claim_from = time.monotonic() + ttl
                away = False
            except DatabaseUnavailableError as error:
                if not away:
                    _logger.warning("lease heartbeat waits for the database", error=str(error))
                away = True
                claim_from = math.inf
            except Exception:
                _logger.exception("lease heartbeat failed")
            await asyncio.sleep(interval)

    def _take_over(self, match_ids: Sequence[str]) -> list[str]:
        """Rebuild the unfinished matches ``match_ids`` (their leases just taken)."""
        assert self.store is not None
        taken: list[str] = []
        for match_id in match_ids:
            record = self.store.load_match(match_id)
            unfinished = record is not None and not record.finished
            if unfinished and match_id not in self._slots and record and self._resume(record):
                taken.append(match_id)
        return taken

    def _resume(self, record: StoredMatch) -> bool:
        """Rebuild an unfinished stored match, hold it and start its clocks."""
        try:
            match = self._rebuild(record)
        except RecoveryError as error:
            _logger.error("match not recovered", match=record.match_id, error=str(error))
            return False
        self._slots[record.match_id] = _Slot(match, record.sequence, match.state_version)
        _logger.info(
            "match recovered",
            match=record.match_id,
            game=record.game,
            state_version=match.state_version,
            seats_to_act=match.seats_to_act(),
        )
        self._changed(record.match_id)
        return True

    def _take_over_or_redirect(self, match_id: str) -> _Slot | None:
        """For a match this node does not hold: raise :class:`MatchOnOtherNodeError` if
        another node runs it, take it over if its lease has expired or an earlier start
        of this node (the same address) holds it, else ``None`` (a finished or unknown
        match, or no lease)."""
        if self.store is None or self.lease is None:
            return None
        holder = self.store.lease_holder(match_id)
        earlier_start = holder is not None and holder.address == self.lease.address
        if holder is not None and not holder.expired and not earlier_start:
            raise MatchOnOtherNodeError(match_id, holder.address)
        if holder is None:
            record = self.store.load_match(match_id)
            if record is None or record.finished:
                return None
        if earlier_start:
            claimed = self.store.take_back_leases(self.lease, match_id=match_id)
        else:
            claimed = self.store.claim_leases(self.lease, match_id=match_id)
        if self._take_over(claimed):
            return self._slots[match_id]
        holder = self.store.lease_holder(match_id)  # another node was quicker
        if holder is not None and holder.owner != self.lease.owner:
            raise MatchOnOtherNodeError(match_id, holder.address)
        return None

    def _redirect(self, match_id: str) -> MatchError:
        """The error for a call on a match this node lost: who holds it now."""
        holder = self.store.lease_holder(match_id) if self.store is not None else None
        if holder is None:
            return MatchNotFoundError(match_id)
        return MatchOnOtherNodeError(match_id, holder.address)

    def _lose(self, slot: _Slot) -> MatchError:
        """Drop a match whose lease another node holds; return the error for its callers.

        Memory may be ahead of the store: what was not committed is gone with the slot,
        and the new owner replays the committed log (nothing uncommitted was shown).
        """
        match_id = slot.match.match_id
        if self._slots.get(match_id) is slot:
            del self._slots[match_id]
        self.admission.finished(match_id)
        if slot.timer is not None:
            slot.timer.cancel()
            slot.timer = None
        slot.lost = True
        slot.changed.set()
        slot.serve()
        error = self._redirect(match_id)
        # One line, whatever found the loss (the heartbeat, a command, a deadline timer).
        _logger.warning(
            "match lease lost",
            match=match_id,
            state_version=slot.durable_version,
            node=error.node if isinstance(error, MatchOnOtherNodeError) else None,
        )
        return error

    def close(self) -> None:
        """Cancel every deadline timer and end every stream (the server is stopping).

        With a lease, this node's matches are let go at once: another node takes them
        over without waiting for the leases to expire."""
        self._closed = True
        if self.store is not None and self.lease is not None:
            try:
                self.store.release_leases(self.lease.owner)
            except Exception:
                _logger.exception("releasing the leases failed")
        for slot in self._slots.values():
            if slot.timer is not None:
                slot.timer.cancel()
                slot.timer = None
            slot.changed.set()
            slot.serve()

    # ------------------------------------------------------------------ internals

    def _slot(self, match_id: str) -> _Slot:
        slot = self._slots.get(match_id)
        if slot is None:
            slot = self._take_over_or_redirect(match_id)
        if slot is None:
            slot = self._load(match_id)
        if slot is None:
            raise MatchNotFoundError(match_id)
        return slot

    def _load(self, match_id: str) -> _Slot | None:
        """Rebuild a finished match from the store (it was evicted, or the server restarted)."""
        record = self._finished_record(match_id)
        if record is None:
            return None
        try:
            match = self._rebuild(record)
        except RecoveryError as error:
            _logger.error("stored match does not replay", match=match_id, error=str(error))
            return None
        return self._hold(record, match)

    async def _load_off_loop(self, match_id: str) -> _Slot | None:
        """:meth:`_load` with the replay in a worker thread, one match at a time.

        The store is read here, in the loop (a match row and its log: one indexed query
        each), so the store is only ever used from the loop's thread; the thread gets the
        rows and runs the decoding and the engine, which take the time.
        """
        async with self._rebuilding:
            record = self._finished_record(match_id)
            if record is None or self.store is None:
                return None
            events = self.store.events(match_id)
            try:
                match = await asyncio.to_thread(self._rebuild, record, events)
            except RecoveryError as error:
                _logger.error("stored match does not replay", match=match_id, error=str(error))
                return None
        held = self._slots.get(match_id)  # a synchronous get() may have rebuilt it since
        return held if held is not None else self._hold(record, match)

    def _finished_record(self, match_id: str) -> StoredMatch | None:
        """The stored record of ``match_id`` if it is a finished match, else ``None``
        (unfinished matches are all held after :meth:`recover`)."""
        record = self.store.load_match(match_id) if self.store is not None else None
        return record if record is not None and record.finished else None

    def _hold(self, record: StoredMatch, match: Match) -> _Slot:
        slot = _Slot(match, record.sequence, match.state_version)
        self._slots[record.match_id] = slot
        self._retire(match, announce=False)
        return slot

    def _rebuild(self, record: StoredMatch, events: Sequence[StoredEvent] | None = None) -> Match:
        """Replay a stored match (``events``: its log, read from the store if omitted).

        Touches the store only when ``events`` is omitted, so that with them it may run
        in a worker thread.

        Raises:
            RecoveryError: The match does not decode or its log does not replay.
        """
        store, codec = self.store, self._codec
        if store is None or codec is None:
            raise RecoveryError("no store")
        if events is None:
            events = store.events(record.match_id)
        try:
            rules = self.rules(record.game)
            settings = codec.decode_settings(record.config, rules)
            log = [entry_of(event, record.game, codec) for event in events]
        except (MatchError, ValueError, KeyError) as error:
            raise RecoveryError(f"match {record.match_id} does not decode: {error}") from error
        match = Match.restore(
            record.match_id,
            rules,
            settings,
            log=log,
            token_hashes=[seat.token_hash for seat in record.seats],
            seats=[
                SeatRecord(seat.time_bank, seat.timeouts, seat.illegal_moves)
                for seat in record.seats
            ],
            created_time=record.created_time,
            clock=self._clock,
            wall_clock=self._wall_clock,
            hooks=self._hooks(settings.game) if self._hooks is not None else None,
            end_time=None if record.result is None else record.result.end_time,
        )
        stored = record.result
        result = match.result
        if match.state_version != record.state_version or (stored is None) != (result is None):
            raise RecoveryError(f"match {record.match_id}: the log and the match row disagree")
        if (
            stored is not None
            and result is not None
            and (stored.scores, stored.ranks, stored.forfeited, stored.reason)
            != (result.scores, result.ranks, result.forfeited, result.reason)
        ):
            raise RecoveryError(f"match {record.match_id}: the replay changes the result")
        return match

    def _commit(self, slot: _Slot) -> None:
        """Write what changed since the last commit in one transaction (with a store)."""
        match = slot.match
        shown = slot.durable_version
        if self.store is not None and self._codec is not None:
            try:
                if slot.in_doubt:
                    self._settle_doubt(slot)
                game, codec = match.settings.game, self._codec
                events = [
                    stored_event(entry, game, codec)
                    for entry in match.entries_after(slot.durable_version)
                ]
                if events:
                    self.store.record(
                        match.match_id,
                        events,
                        stored_seats(match),
                        stored_result(match),
                        lease=self.lease,
                    )
            except LeaseLostError:
                raise self._lose(slot) from None
            except DatabaseUnavailableError as error:
                # Memory is ahead of the store: nothing more is shown until a later
                # commit (which writes these entries too) succeeds; one is due soon. A
                # commit cut off on its way may have been kept: the next one looks first.
                slot.in_doubt = slot.held = True
                if slot.recommit is None:
                    _logger.warning(
                        "commit waits for the database", match=match.match_id, error=str(error)
                    )
                    self._recommit_later(match.match_id, _RECOMMIT_FIRST)
                raise StoreUnavailableError() from None
            except Exception:
                # As above, without a retry of its own: the next command's commit.
                _logger.exception("commit failed", match=match.match_id)
                raise
        if slot.held:
            # The decisions opened while the database was away are shown only now.
            slot.held = False
            match.restart_unshown_clocks(shown)
        slot.durable_version = match.state_version

    def _settle_doubt(self, slot: _Slot) -> None:
        """After a commit that failed as unavailable, take the entries the store kept of
        it (the commit may have happened, only its answer lost) as durable."""
        assert self.store is not None
        stored = self.store.load_match(slot.match.match_id)
        if stored is not None and stored.state_version > slot.durable_version:
            slot.durable_version = stored.state_version
        slot.in_doubt = False

    def _commit_waiting(self, match_id: str) -> None:
        """Commit, and show, a change that waits for the database, if any (a retried
        command must not be answered before its first try's change is durable).

        Raises:
            StoreUnavailableError: The database is still away.
        """
        slot = self._slots.get(match_id)
        if slot is not None and slot.held and slot.durable_version < slot.match.state_version:
            self._commit(slot)
            self._changed(match_id)

    def _recommit_later(self, match_id: str, delay: float) -> None:
        slot = self._slots[match_id]
        slot.recommit = asyncio.get_running_loop().call_later(
            delay, self._recommit, match_id, delay, context=contextvars.Context()
        )

    def _recommit(self, match_id: str, delay: float) -> None:
        """Try again a commit the database was away for; once it is durable, show it."""
        slot = self._slots.get(match_id)
        if slot is None or slot.lost or self._closed:
            return
        if slot.durable_version >= slot.match.state_version:
            slot.recommit = None
            return  # a command's commit got there first
        try:
            self._commit(slot)  # slot.recommit still set: a failure schedules nothing
        except StoreUnavailableError:
            self._recommit_later(match_id, min(delay * 2, _RECOMMIT_MAX))
            return
        except MatchError:
            return  # another node holds the match now (_lose)
        except Exception:
            slot.recommit = None  # logged by _commit; the next command's commit tries again
            return
        finally:
            if slot.durable_version >= slot.match.state_version:
                slot.recommit = None
        _logger.info("commit done after the database came back", match=match_id)
        self._changed(match_id)

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
        slot.serve()  # whoever still waits on the last change goes on
        if any(slot.listeners[seat] for seat in match.seats_to_act()):
            slot.served = asyncio.Event()
            # A fresh context for timers: they must not log with the bindings of the
            # request that happened to arm them.
            slot.served_timer = asyncio.get_running_loop().call_later(
                _MAX_DEFERRAL, slot.serve, context=contextvars.Context()
            )
        if match.finished:
            if slot.timer is not None:
                slot.timer.cancel()
                slot.timer = None
            self._retire(match)
            return
        self._arm(slot)

    def _arm(self, slot: _Slot) -> None:
        """Set the match's one timer for its next deadline."""
        if slot.timer is not None:
            slot.timer.cancel()
            slot.timer = None
        deadline = slot.match.next_deadline()
        slot.armed_deadline = deadline
        if deadline is not None:
            delay = max(0.0, deadline - self._clock()) + _TIMER_MARGIN
            slot.timer = asyncio.get_running_loop().call_later(
                delay, self._on_deadline, slot.match.match_id, context=contextvars.Context()
            )

    def _after_command(self, match: Match, version_before: int) -> None:
        if match.state_version == version_before:
            # Nothing new to show, but a deadline may have moved (a seat showed up and its
            # clock started): the timer must follow it.
            slot = self._slots.get(match.match_id)
            moved = slot is not None and match.next_deadline() != slot.armed_deadline
            if slot is not None and moved and not match.finished:
                self._arm(slot)
            return
        # Logged once committed: a commit refused for a lost lease played nothing.
        self._commit(self._slots[match.match_id])
        for entry in match.entries_after(version_before):
            self._log_entry(match, entry)
        self._changed(match.match_id)

    def _on_deadline(self, match_id: str) -> None:
        slot = self._slots.get(match_id)
        if slot is None:
            return
        slot.timer = None
        match = slot.match
        if slot.held:
            return  # a change waits for the database: re-armed once shown (_recommit)
        before = match.state_version
        match.expire()
        try:
            self._commit(slot)
        except StoreUnavailableError:
            # Held for the database; shown, and the timer re-armed, once committed
            # (_recommit): it will be played, so it is logged now.
            for entry in match.entries_after(before):
                self._log_entry(match, entry)
            return
        except MatchError:
            # The lease is lost (a node frozen past it, then woken): the stand-in or
            # forfeit is not played here, and _lose logged the one line that says so.
            # Another node runs the match now, or has finished it (MatchNotFoundError).
            return
        for entry in match.entries_after(before):
            self._log_entry(match, entry)
        self._changed(match_id)

    def _retire(self, match: Match, *, announce: bool = True) -> None:
        if match.match_id in self._finished:
            return
        self._finished[match.match_id] = None
        self.admission.finished(match.match_id)
        result = match.result
        while len(self._finished) > self.max_finished_matches:
            old, _ = self._finished.popitem(last=False)
            self._slots.pop(old, None)
        if not announce:
            return
        _logger.info(
            "match finished",
            match=match.match_id,
            game=match.settings.game,
            state_version=match.state_version,
            reason=result.reason if result else None,
            ranks=result.ranks if result else None,
            seed=match.settings.seed,
        )

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
                "stand-in move played",
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
