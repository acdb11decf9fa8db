"""Admission control: which new matches a server takes, in all and per caller, and which
calls of any kind (:class:`CallBudget`).

The server admits only the matches it can serve (DESIGN.md: Match layer). These limits,
checked in this order before any engine work, so a refusal costs a few dictionary
look-ups:

- active (unfinished) matches in all: every match counts, the ladder's and the recovered
  ones too (``TooManyMatchesError``, ``scope="active_matches"``); a caller without the
  admin token finds the server full ``reserved_matches`` earlier, a reserve kept for the
  ladder and the admin token's holder;
- a fair share: while another caller waits (it was refused for the full server, holding
  less than its share, in the last 15 s), a caller may not take more than the
  capacity divided by the callers that hold or wait for matches
  (``scope="fair_share"``);
- active matches per caller (``scope="active_matches_per_caller"``);
- matches created per caller and minute: a token bucket holding a tenth of a minute's
  allowance, refilled continuously (``CreateRateLimitedError``, with the time until the
  next token as ``retry_after``).

A :class:`Caller` with the admin token, and a creation without a caller (the ladder's,
in-process), are bound by the first limit only. Only admitted creations spend a token,
so a caller refused for its active matches does not also run out of tokens.

A :class:`CallBudget` charges every call its cost, in units of a cheap call, to its
caller's token bucket, and one of its own to every bot registration
(``RateLimitedError``).

A caller refused again, by any of these, before the ``retry_after`` it was given has
passed is told to wait for its answer (:meth:`Refusals.hold`; the service sleeps): a
flood's calls then wait idle instead of queueing before other callers' calls.

Per-caller state is bounded: counts exist only for callers with active matches (at most
the active limit), and at most ``max_callers`` buckets and refusal records are kept, the
least recently used dropped first (a dropped bucket comes back full, which only ever
favours the caller).
"""

from __future__ import annotations

import hashlib
import math
import time
from collections import Counter, OrderedDict
from dataclasses import dataclass

from botarena.server.match._errors import (
    CreateRateLimitedError,
    MatchError,
    RateLimitedError,
    TooManyMatchesError,
)
from botarena.server.match._match import Clock

__all__ = [
    "DEFAULT_CALL_BUDGET",
    "DEFAULT_MAX_ACTIVE_MATCHES",
    "DEFAULT_MAX_CREATES_PER_MINUTE",
    "DEFAULT_MAX_MATCHES_PER_CALLER",
    "DEFAULT_MAX_REGISTRATIONS_PER_HOUR",
    "DEFAULT_PLAY_BUDGET",
    "DEFAULT_RESERVED_MATCHES",
    "RESERVED_FRACTION",
    "Admission",
    "AdmissionLimits",
    "CallBudget",
    "CallBudgetLimits",
    "Caller",
    "Refusals",
]

DEFAULT_MAX_ACTIVE_MATCHES = 500
"""Unfinished matches a server holds in all (bench/bench_flood.py measured it on 2 cores)."""

RESERVED_FRACTION = 10
"""By default a tenth of the active matches is kept for the ladder and the admin
token's holder (docs/decisions.md: Fair share of the server)."""

DEFAULT_RESERVED_MATCHES = DEFAULT_MAX_ACTIVE_MATCHES // RESERVED_FRACTION
"""Of :data:`DEFAULT_MAX_ACTIVE_MATCHES`, the matches only the ladder and the admin
token's holder may take."""

DEFAULT_MAX_MATCHES_PER_CALLER = 100
"""Unfinished matches one caller may hold: twice a match runner's ``--concurrency 50``."""

DEFAULT_MAX_CREATES_PER_MINUTE = 3000
"""Matches one caller may create per minute: above what a runner at ``--concurrency 50``
sustains against a 2-core server (docs/decisions.md: Admission)."""

DEFAULT_CALL_BUDGET = 500
"""Cost units (a GetMatch costs 1) one caller may spend per second on calls other than a
seat's or a bot's own, two seconds' worth at once (docs/decisions.md: Call budgets)."""

DEFAULT_PLAY_BUDGET = 3000
"""Cost units one caller may spend per second on seats' and bots' own calls (with a
token), two seconds' worth at once: over twice what a runner at ``--concurrency 50``
spends in its busiest second against a 2-core server (docs/decisions.md: Call budgets)."""

DEFAULT_MAX_REGISTRATIONS_PER_HOUR = 120
"""Bots one caller may register per hour, a quarter of it at once (a class behind one
NAT registering its bots together; docs/decisions.md: Call budgets)."""

_DEFAULT_MAX_CALLERS = 10_000
# A bucket holds this fraction of a minute's allowance: a runner's first wave of creates
# fits, a flood is held to the rate within seconds.
_BURST_FRACTION = 10
# A call budget's bucket holds this many seconds' worth.
_CALL_BURST_SECONDS = 2.0
# Rejected calls put a call budget at most this many seconds of its rate in debt.
_MAX_DEBT_SECONDS = 10.0
# A registration bucket holds this fraction of an hour's allowance.
_REGISTRATION_BURST_FRACTION = 4
# TOO_MANY_MATCHES cannot know when a match ends; retrying sooner only adds load.
_RETRY_AFTER_ACTIVE = 5.0
# A budget refusal's RetryInfo asks for at least this long: time for the bucket to
# refill a good part, and a flood's held calls come back seldom.
_MIN_RETRY_AFTER_BUDGET = 1.0
# A caller refused for the full server stays waiting (for the fair share) this long
# after its last refusal: three of its RetryInfo delays.
_WAITING_SECONDS = 3 * _RETRY_AFTER_ACTIVE
# The longest a refusal is held for a caller that ignores its RetryInfo: the SDK's
# default deadline (30 s) is far longer, so a held refusal still arrives.
_MAX_HOLD = 5.0


@dataclass(frozen=True, slots=True)
class Caller:
    """Who asks for a match, as the service layer identifies the call.

    Attributes:
        key: The caller's identity: ``"admin"`` for the admin token's holder, else the
            peer's host (``"127.0.0.1"``; an IPv6 peer's /64 network).
        admin: The call carries the server's admin token: bound by the overall limit only.
    """

    key: str
    admin: bool = False

    def scoped(self, request_id: str) -> str:
        """Return ``request_id`` in this caller's namespace, as the store keeps it: a
        digest of the caller (the store never holds a peer address) and the id."""
        digest = hashlib.sha256(self.key.encode()).hexdigest()[:16]
        return f"{digest}:{request_id}"


@dataclass(frozen=True, slots=True)
class AdmissionLimits:
    """A server's admission limits; 0 turns a per-caller limit off.

    Attributes:
        max_active_matches: Unfinished matches in all.
        max_matches_per_caller: Unfinished matches per caller.
        max_creates_per_minute: Matches created per caller and minute.
        reserved_matches: Of ``max_active_matches``, those that only the ladder and the
            admin token's holder may take.

    Raises:
        ValueError: A negative limit, ``max_active_matches`` below 1, or a reserve that
            leaves the other callers nothing.
    """

    max_active_matches: int = DEFAULT_MAX_ACTIVE_MATCHES
    max_matches_per_caller: int = DEFAULT_MAX_MATCHES_PER_CALLER
    max_creates_per_minute: int = DEFAULT_MAX_CREATES_PER_MINUTE
    reserved_matches: int = 0

    def __post_init__(self) -> None:
        if self.max_active_matches < 1:
            raise ValueError("max_active_matches must be at least 1")
        if self.max_matches_per_caller < 0 or self.max_creates_per_minute < 0:
            raise ValueError("per-caller limits must not be negative (0: no limit)")
        if not 0 <= self.reserved_matches < self.max_active_matches:
            raise ValueError("reserved_matches must be within 0..max_active_matches - 1")


@dataclass(frozen=True, slots=True)
class CallBudgetLimits:
    """A server's per-caller call budgets; 0 turns one off.

    Attributes:
        units_per_second: Cost units (the service's weights: a GetMatch costs 1) a
            caller may spend per second on calls other than plays; the bucket holds two
            seconds' worth.
        play_units_per_second: The same for plays: a seat's or a bot's own calls,
            those that carry its token (the service tells them).
        registrations_per_hour: Bots a caller may register per hour, a quarter at once.

    Raises:
        ValueError: A negative budget.
    """

    units_per_second: float = DEFAULT_CALL_BUDGET
    play_units_per_second: float = DEFAULT_PLAY_BUDGET
    registrations_per_hour: int = DEFAULT_MAX_REGISTRATIONS_PER_HOUR

    def __post_init__(self) -> None:
        budgets = (self.units_per_second, self.play_units_per_second, self.registrations_per_hour)
        if min(budgets) < 0:
            raise ValueError("call budgets must not be negative (0: no limit)")


@dataclass(slots=True)
class _Bucket:
    tokens: float
    updated: float


class _Buckets:
    """Token buckets by caller, refilled continuously, the least recently used dropped
    past ``max_callers`` (a dropped bucket comes back full)."""

    def __init__(self, rate: float, burst: float, clock: Clock, max_callers: int) -> None:
        self.rate = rate
        self.burst = burst
        self._clock = clock
        self._max_callers = max_callers
        self._buckets: OrderedDict[str, _Bucket] = OrderedDict()

    def __len__(self) -> int:
        return len(self._buckets)

    def shortfall(self, key: str, cost: float) -> float:
        """Return the seconds until the caller's bucket holds ``cost`` (0: it does now;
        a cost of 0 waits for a bucket in debt). A cost above the burst needs a full
        bucket, and leaves it in debt."""
        bucket = self.refilled(key)
        need = min(cost, self.burst)
        if bucket.tokens >= need:
            return 0.0
        return (need - bucket.tokens) / self.rate

    def refilled(self, key: str) -> _Bucket:
        """Return the caller's bucket, refilled up to now."""
        now = self._clock()
        bucket = self._buckets.get(key)
        if bucket is None:
            bucket = self._buckets[key] = _Bucket(self.burst, now)
            if len(self._buckets) > self._max_callers:
                self._buckets.popitem(last=False)
            return bucket
        self._buckets.move_to_end(key)
        bucket.tokens = min(self.burst, bucket.tokens + (now - bucket.updated) * self.rate)
        bucket.updated = now
        return bucket


class Refusals:
    """Per caller, when its last refusal said to retry, and how long to hold its next
    answer; one record for every limit, so a flood meets one hold whatever it calls.

    Args:
        clock: Monotonic seconds.
        max_callers: Records kept at most, the least recently refused dropped first.
    """

    def __init__(
        self, *, clock: Clock = time.monotonic, max_callers: int = _DEFAULT_MAX_CALLERS
    ) -> None:
        self._clock = clock
        self._max_callers = max_callers
        self._refused: OrderedDict[str, tuple[float, float]] = OrderedDict()

    def note(self, key: str, retry_after: float) -> None:
        """Record that the caller was refused now and told to retry in ``retry_after``."""
        now = self._clock()
        due, held = self._refused.pop(key, (now, 0.0))
        # Each refusal in a row that came too soon doubles the hold: a flood that ignores
        # a 1 s RetryInfo soon waits 5 s a call.
        hold = min(max(retry_after, 2 * held), _MAX_HOLD) if now < due else 0.0
        self._refused[key] = (now + retry_after, hold)
        if len(self._refused) > self._max_callers:
            self._refused.popitem(last=False)

    def hold(self, key: str) -> float:
        """Return how long to hold the answer to the caller's last refusal.

        0 unless the caller had been refused before and retried before the time it was
        told: then that time, doubled for each such refusal in a row, 5 s at most. A
        flood's calls then wait idle instead of queueing before everyone else's calls
        (bench/bench_flood.py), and a client that honours RetryInfo never waits.
        """
        return self._refused.get(key, (0.0, 0.0))[1]


class CallBudget:
    """Charges every call's cost to its caller, and refuses the calls over budget.

    Args:
        limits: The budgets.
        refusals: Where refusals are recorded (shared with :class:`Admission`).
        clock: Monotonic seconds.
        max_callers: Buckets kept at most, per budget.
    """

    def __init__(
        self,
        limits: CallBudgetLimits | None = None,
        *,
        refusals: Refusals | None = None,
        clock: Clock = time.monotonic,
        max_callers: int = _DEFAULT_MAX_CALLERS,
    ) -> None:
        self.limits = limits = limits or CallBudgetLimits()
        self.refusals = refusals or Refusals(clock=clock, max_callers=max_callers)
        rate, play = limits.units_per_second, limits.play_units_per_second
        self._calls = _Buckets(rate, rate * _CALL_BURST_SECONDS, clock, max_callers)
        self._plays = _Buckets(play, play * _CALL_BURST_SECONDS, clock, max_callers)
        per_hour = limits.registrations_per_hour
        self._registrations = _Buckets(
            per_hour / 3600.0,
            float(max(1, per_hour // _REGISTRATION_BURST_FRACTION)),
            clock,
            max_callers,
        )

    def charge(self, key: str, cost: float, *, play: bool = False) -> None:
        """Spend ``cost`` units of the caller's budget (its play budget for a ``play``),
        or refuse the call.

        Raises:
            RateLimitedError: The caller's bucket holds less than ``cost``, which is left
                as it was (``metadata["limit"]``: ``call_budget``, ``play_budget``); or,
                for a play, its other budget is in debt for rejected calls
                (:meth:`penalize`).
        """
        limits = self.limits
        if not play:
            if self._calls.rate:
                self._spend(self._calls, key, cost, "call_budget", limits.units_per_second)
            return
        if self._calls.rate:
            self._spend(self._calls, key, 0.0, "call_budget", limits.units_per_second)
        if self._plays.rate:
            self._spend(self._plays, key, cost, "play_budget", limits.play_units_per_second)

    def penalize(self, key: str, cost: float) -> None:
        """Charge ``cost`` units again, to the caller's other budget (not its play
        budget), for a call that was rejected (a bad token, say): it may go into debt,
        down to ten seconds of its rate, and until it is out of debt the caller's plays
        are refused too."""
        if self._calls.rate:
            bucket = self._calls.refilled(key)
            floor = -self._calls.rate * _MAX_DEBT_SECONDS
            bucket.tokens = max(floor, bucket.tokens - cost)

    def charge_registration(self, key: str) -> None:
        """Spend one of the caller's bot registrations, or refuse it.

        Raises:
            RateLimitedError: ``metadata["limit"]`` is ``registrations_per_hour``.
        """
        if self._registrations.rate:
            limit = self.limits.registrations_per_hour
            self._spend(self._registrations, key, 1.0, "registrations_per_hour", limit)

    def _spend(self, buckets: _Buckets, key: str, cost: float, scope: str, limit: float) -> None:
        wait = buckets.shortfall(key, cost)
        if wait <= 0.0:
            buckets.refilled(key).tokens -= cost
            return
        # Rounded up to a tenth of a second: refusals repeat, and so do their statuses
        # (the service builds each once).
        retry_after = max(_MIN_RETRY_AFTER_BUDGET, math.ceil(wait * 10) / 10)
        self.refusals.note(key, retry_after)
        raise RateLimitedError(scope, limit, retry_after)


class Admission:
    """Decides whether a caller may create a match now, and counts what it admitted.

    Args:
        limits: The limits.
        clock: Monotonic seconds.
        max_callers: Rate buckets kept at most (module docstring).
    """

    def __init__(
        self,
        limits: AdmissionLimits | None = None,
        *,
        clock: Clock = time.monotonic,
        max_callers: int = _DEFAULT_MAX_CALLERS,
    ) -> None:
        self.limits = limits or AdmissionLimits()
        self._clock = clock
        self.refusals = Refusals(clock=clock, max_callers=max_callers)
        per_minute = self.limits.max_creates_per_minute
        self._creates = _Buckets(
            per_minute / 60.0, float(max(1, per_minute // _BURST_FRACTION)), clock, max_callers
        )
        self._active: Counter[str] = Counter()
        self._owner: dict[str, str] = {}
        # Callers refused for the full server below their fair share: when, last.
        self._waiting: dict[str, float] = {}

    @property
    def tracked_callers(self) -> int:
        """The callers whose creation rate is tracked now (at most ``max_callers``)."""
        return len(self._creates)

    def active_of(self, caller: Caller) -> int:
        """Return the caller's active matches that this object counts."""
        return self._active[caller.key]

    def check(self, caller: Caller | None, active: int) -> None:
        """Check that ``caller`` may create a match now; changes nothing but the refill
        and the callers waiting for their fair share.

        Args:
            caller: Who asks; ``None`` for an in-process creation (the ladder).
            active: The server's unfinished matches now.

        Raises:
            TooManyMatchesError: The server, or this caller, holds its limit, or this
                caller its fair share while another waits.
            CreateRateLimitedError: The caller has no token left.
        """
        try:
            self._check(caller, active)
        except MatchError as error:
            if caller is not None:
                self.refusals.note(caller.key, error.retry_after or 0.0)
            raise

    def fair_share(self, caller: Caller) -> int:
        """Return the most active matches ``caller`` may hold while others wait: the
        capacity open to callers without the admin token, divided by the callers that
        hold matches or wait for one (``caller`` among them)."""
        self._forget_waiting()
        contenders = len(self._active) + sum(1 for key in self._waiting if key not in self._active)
        if caller.key not in self._active and caller.key not in self._waiting:
            contenders += 1
        capacity = self.limits.max_active_matches - self.limits.reserved_matches
        return max(1, capacity // contenders)

    def _check(self, caller: Caller | None, active: int) -> None:
        limits = self.limits
        if active >= limits.max_active_matches:
            self._wait(caller)
            raise TooManyMatchesError(limits.max_active_matches, retry_after=_RETRY_AFTER_ACTIVE)
        if caller is None or caller.admin:
            return
        if active >= limits.max_active_matches - limits.reserved_matches:
            self._wait(caller)
            raise TooManyMatchesError(limits.max_active_matches, retry_after=_RETRY_AFTER_ACTIVE)
        if self._others_wait(caller.key):
            share = self.fair_share(caller)
            if self._active[caller.key] >= share:
                raise TooManyMatchesError(
                    share, scope="fair_share", retry_after=_RETRY_AFTER_ACTIVE
                )
        per_caller = limits.max_matches_per_caller
        if per_caller and self._active[caller.key] >= per_caller:
            raise TooManyMatchesError(
                per_caller, scope="active_matches_per_caller", retry_after=_RETRY_AFTER_ACTIVE
            )
        if self._creates.rate:
            wait = self._creates.shortfall(caller.key, 1.0)
            if wait > 0.0:
                # Rounded up to a tenth of a second: refusals repeat, and so do their
                # statuses (the service builds each once).
                wait = math.ceil(wait * 10) / 10
                raise CreateRateLimitedError(limits.max_creates_per_minute, wait)

    def _wait(self, caller: Caller | None) -> None:
        """Count a caller refused for the full server as waiting, if below its share."""
        if caller is None or caller.admin:
            return
        if self._active[caller.key] < self.fair_share(caller):
            self._waiting.pop(caller.key, None)  # to the end: the oldest are dropped
            self._waiting[caller.key] = self._clock()
        if len(self._waiting) > self.limits.max_active_matches:  # bounded: the oldest go
            self._waiting.pop(next(iter(self._waiting)))

    def _others_wait(self, key: str) -> bool:
        if not self._waiting:
            return False
        self._forget_waiting()
        return any(other != key for other in self._waiting)

    def _forget_waiting(self) -> None:
        if not self._waiting:
            return
        horizon = self._clock() - _WAITING_SECONDS
        for key in [key for key, when in self._waiting.items() if when < horizon]:
            del self._waiting[key]

    def admitted(self, match_id: str, caller: Caller | None) -> None:
        """Count a match created after :meth:`check` let ``caller`` through."""
        if caller is None or caller.admin:
            return
        self._active[caller.key] += 1
        self._owner[match_id] = caller.key
        if caller.key in self._waiting and self._active[caller.key] >= self.fair_share(caller):
            del self._waiting[caller.key]  # it has its share
        if self._creates.rate:
            self._creates.refilled(caller.key).tokens -= 1.0

    def finished(self, match_id: str) -> None:
        """Stop counting a match that has ended (unknown ids are ignored)."""
        key = self._owner.pop(match_id, None)
        if key is None:
            return
        self._active[key] -= 1
        if self._active[key] <= 0:
            del self._active[key]
