"""Admission control: which new matches a server takes, in all and per caller.

The server admits only the matches it can serve (DESIGN.md: Match layer). Three limits,
checked in this order before any engine work, so a refusal costs a few dictionary
look-ups:

- active (unfinished) matches in all: every match counts, the ladder's and the recovered
  ones too (``TooManyMatchesError``, ``scope="active_matches"``);
- active matches per caller (``scope="active_matches_per_caller"``);
- matches created per caller and minute: a token bucket holding a tenth of a minute's
  allowance, refilled continuously (``CreateRateLimitedError``, with the time until the
  next token as ``retry_after``).

A :class:`Caller` with the admin token, and a creation without a caller (the ladder's,
in-process), are bound by the first limit only. Only admitted creations spend a token,
so a caller refused for its active matches does not also run out of tokens.

A caller refused again before the ``retry_after`` it was given has passed is told to
wait for its answer (:meth:`Admission.refusal_hold`; the service sleeps): a flood's calls
then wait idle instead of queueing before other callers' calls.

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

from botarena.server.match._errors import CreateRateLimitedError, TooManyMatchesError
from botarena.server.match._match import Clock

__all__ = [
    "DEFAULT_MAX_ACTIVE_MATCHES",
    "DEFAULT_MAX_CREATES_PER_MINUTE",
    "DEFAULT_MAX_MATCHES_PER_CALLER",
    "Admission",
    "AdmissionLimits",
    "Caller",
]

DEFAULT_MAX_ACTIVE_MATCHES = 500
"""Unfinished matches a server holds in all (bench/bench_flood.py measured it on 2 cores)."""

DEFAULT_MAX_MATCHES_PER_CALLER = 100
"""Unfinished matches one caller may hold: twice a match runner's ``--concurrency 50``."""

DEFAULT_MAX_CREATES_PER_MINUTE = 3000
"""Matches one caller may create per minute: above what a runner at ``--concurrency 50``
sustains against a 2-core server (docs/decisions.md: Admission)."""

_DEFAULT_MAX_CALLERS = 10_000
# A bucket holds this fraction of a minute's allowance: a runner's first wave of creates
# fits, a flood is held to the rate within seconds.
_BURST_FRACTION = 10
# TOO_MANY_MATCHES cannot know when a match ends; retrying sooner only adds load.
_RETRY_AFTER_ACTIVE = 5.0
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

    Raises:
        ValueError: A negative limit, or ``max_active_matches`` below 1.
    """

    max_active_matches: int = DEFAULT_MAX_ACTIVE_MATCHES
    max_matches_per_caller: int = DEFAULT_MAX_MATCHES_PER_CALLER
    max_creates_per_minute: int = DEFAULT_MAX_CREATES_PER_MINUTE

    def __post_init__(self) -> None:
        if self.max_active_matches < 1:
            raise ValueError("max_active_matches must be at least 1")
        if self.max_matches_per_caller < 0 or self.max_creates_per_minute < 0:
            raise ValueError("per-caller limits must not be negative (0: no limit)")


@dataclass(slots=True)
class _Bucket:
    tokens: float
    updated: float


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
        self._max_callers = max_callers
        per_minute = self.limits.max_creates_per_minute
        self._rate = per_minute / 60.0
        self._burst = float(max(1, per_minute // _BURST_FRACTION))
        self._active: Counter[str] = Counter()
        self._owner: dict[str, str] = {}
        self._buckets: OrderedDict[str, _Bucket] = OrderedDict()
        # Per refused caller: when its retry is due, and how long to hold its last refusal.
        self._refused: OrderedDict[str, tuple[float, float]] = OrderedDict()

    @property
    def tracked_callers(self) -> int:
        """The callers whose creation rate is tracked now (at most ``max_callers``)."""
        return len(self._buckets)

    def active_of(self, caller: Caller) -> int:
        """Return the caller's active matches that this object counts."""
        return self._active[caller.key]

    def check(self, caller: Caller | None, active: int) -> None:
        """Check that ``caller`` may create a match now; changes nothing but the refill.

        Args:
            caller: Who asks; ``None`` for an in-process creation (the ladder).
            active: The server's unfinished matches now.

        Raises:
            TooManyMatchesError: The server, or this caller, holds its limit.
            CreateRateLimitedError: The caller has no token left.
        """
        try:
            self._check(caller, active)
        except (TooManyMatchesError, CreateRateLimitedError) as error:
            if caller is not None:
                self._note_refusal(caller.key, error.retry_after or 0.0)
            raise

    def refusal_hold(self, caller: Caller | None) -> float:
        """Return how long to hold the answer to the caller's last refusal.

        0 unless the caller had been refused before and retried before the time it was
        told: then that time, 5 s at most. A flood's calls then wait idle
        instead of queueing before everyone else's calls (bench/bench_flood.py), and a
        client that honours RetryInfo never waits.
        """
        if caller is None:
            return 0.0
        return self._refused.get(caller.key, (0.0, 0.0))[1]

    def _check(self, caller: Caller | None, active: int) -> None:
        limits = self.limits
        if active >= limits.max_active_matches:
            raise TooManyMatchesError(limits.max_active_matches, retry_after=_RETRY_AFTER_ACTIVE)
        if caller is None or caller.admin:
            return
        per_caller = limits.max_matches_per_caller
        if per_caller and self._active[caller.key] >= per_caller:
            raise TooManyMatchesError(
                per_caller, scope="active_matches_per_caller", retry_after=_RETRY_AFTER_ACTIVE
            )
        if self._rate:
            bucket = self._refilled(caller.key)
            if bucket.tokens < 1.0:
                # Rounded up to a tenth of a second: refusals repeat, and so do their
                # statuses (the service builds each once).
                wait = math.ceil((1.0 - bucket.tokens) / self._rate * 10) / 10
                raise CreateRateLimitedError(limits.max_creates_per_minute, wait)

    def _note_refusal(self, key: str, retry_after: float) -> None:
        now = self._clock()
        due, _ = self._refused.pop(key, (now, 0.0))
        hold = min(retry_after, _MAX_HOLD) if now < due else 0.0
        self._refused[key] = (now + retry_after, hold)
        if len(self._refused) > self._max_callers:
            self._refused.popitem(last=False)

    def admitted(self, match_id: str, caller: Caller | None) -> None:
        """Count a match created after :meth:`check` let ``caller`` through."""
        if caller is None or caller.admin:
            return
        self._active[caller.key] += 1
        self._owner[match_id] = caller.key
        if self._rate:
            self._refilled(caller.key).tokens -= 1.0

    def finished(self, match_id: str) -> None:
        """Stop counting a match that has ended (unknown ids are ignored)."""
        key = self._owner.pop(match_id, None)
        if key is None:
            return
        self._active[key] -= 1
        if self._active[key] <= 0:
            del self._active[key]

    def _refilled(self, key: str) -> _Bucket:
        now = self._clock()
        bucket = self._buckets.get(key)
        if bucket is None:
            bucket = self._buckets[key] = _Bucket(self._burst, now)
            if len(self._buckets) > self._max_callers:
                self._buckets.popitem(last=False)
            return bucket
        self._buckets.move_to_end(key)
        bucket.tokens = min(self._burst, bucket.tokens + (now - bucket.updated) * self._rate)
        bucket.updated = now
        return bucket
