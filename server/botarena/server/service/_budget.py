# mypy: disable-error-code="import-untyped"
"""Per-caller call budgets: every call's cost is charged to its caller before the
servicer runs, and a call over budget is refused at once (``RATE_LIMITED``).

A call's cost is in units of a cheap call (a GetMatch costs 1), measured as the server's
CPU time per call (bench/bench_call_costs.py, docs/decisions.md: Call budgets). The
caller is the peer's host (``_auth.peer_host``). A *play* (a seat's or a bot's own call,
:data:`PLAY_METHODS` with a bearer token) spends the caller's play budget, sized for a
match runner's or a ladder's seats; every other call spends the (smaller) call budget.
A call rejected for its credentials (a bad token, no admin token) is charged its cost
again to the call budget, which may go into debt: until it is out of it, the caller's
plays are refused too, so a flood of bad tokens runs out of budget at once. A call with
the server's admin token is not charged (its holder is trusted, as by admission). A caller
that calls again before its refusal's ``RetryInfo`` delay has its refusal held
(:class:`RefusalHold`), like CreateMatch's admission.
"""

from __future__ import annotations

import asyncio
import random
from collections.abc import AsyncIterator, Awaitable, Callable, Mapping
from types import MappingProxyType
from typing import Any

import grpc

from botarena.server.match import CallBudget, MatchError, Refusals
from botarena.server.service._auth import holds_admin_token, peer_host
from botarena.server.service._errors import abort, refuse

__all__ = ["CALL_COSTS", "PLAY_METHODS", "BudgetGate", "RefusalHold", "call_cost"]

Cost = Callable[[Any], float]

# Calls whose refusals are held at once at most: held calls cannot pile up without end.
_MAX_HELD_REFUSALS = 4096
# ListMatches' default page, and the matches listed per unit of cost (a page of 500
# took ~60 GetMatch's time).
_DEFAULT_PAGE_SIZE = 50
_ITEMS_PER_UNIT = 8.0


def _listing(field: str, default: int, base: float) -> Cost:
    def cost(request: Any) -> float:
        size = getattr(request, field, 0) or default
        return base + max(0, size) / _ITEMS_PER_UNIT

    return cost


def _fixed(units: float) -> Cost:
    return lambda _request: units


CALL_COSTS: Mapping[str, Cost] = MappingProxyType(
    {
        # MatchService
        "CreateMatch": _fixed(5),
        "GetMatch": _fixed(1),
        "ListMatches": _listing("page_size", _DEFAULT_PAGE_SIZE, 1),
        "GetPlayerView": _fixed(2),
        "SubmitMove": _fixed(1),
        "ResignMatch": _fixed(1),
        "StreamMatchEvents": _fixed(2),
        "GetReplay": _fixed(20),
        # LadderService
        "RegisterBot": _fixed(20),
        "Connect": _fixed(2),
        # A page along the board's index, like a page of ListMatches (issue 27).
        "GetLeaderboard": _listing("page_size", _DEFAULT_PAGE_SIZE, 1),
        "ListBotMatches": _listing("limit", 20, 1),
        "ResumeBot": _fixed(2),
    }
)
"""Each RPC's cost in units of a GetMatch, by method name; a method not listed costs 1.
Measured on 2 cores with bench/bench_flood.py (docs/decisions.md: Call budgets)."""

PLAY_METHODS = frozenset(
    {"SubmitMove", "GetPlayerView", "StreamMatchEvents", "ResignMatch", "Connect"}
)
"""The methods whose calls with a bearer token (a seat's, a bot's secret) are plays."""

_REGISTRATIONS = frozenset({"RegisterBot"})
# A call that ends with one of these was rejected for its credentials: charged again.
_REJECTED = frozenset({grpc.StatusCode.UNAUTHENTICATED, grpc.StatusCode.PERMISSION_DENIED})


def call_cost(method: str) -> Cost:
    """Return the cost of a call of ``method`` (by name) as a function of its request."""
    return CALL_COSTS.get(method, _fixed(1))


class RefusalHold:
    """Holds the answer to a caller's refusal when the caller called again before its
    last refusal's ``RetryInfo`` delay (:meth:`Refusals.hold`): a flood's calls then wait
    idle instead of queueing before other callers'. At most 4,096 are held at once.

    Args:
        refusals: The refusal records (the admission's and the call budget's).
    """

    def __init__(self, refusals: Refusals) -> None:
        self.refusals = refusals
        self._held = 0

    async def __call__(self, key: str) -> None:
        """Wait out the caller's hold (0 mostly), jittered: released together, a flood's
        calls would come back together."""
        seconds = self.refusals.hold(key)
        if seconds <= 0 or self._held >= _MAX_HELD_REFUSALS:
            return
        self._held += 1
        try:
            await asyncio.sleep(seconds * random.uniform(0.5, 1.0))
        finally:
            self._held -= 1


class BudgetGate:
    """Wraps method handlers so that each call is charged to its caller's budget first.

    Args:
        budget: The per-caller budgets.
        hold: Holds the refusals of callers that retry too soon.
        admin_token: The server's admin token: calls that carry it are not charged.
    """

    def __init__(
        self, budget: CallBudget, hold: RefusalHold, *, admin_token: str | None = None
    ) -> None:
        self.budget = budget
        self.hold = hold
        self._admin_token = admin_token or None

    def _charge(self, method: str, cost: float, context: Any) -> tuple[str, MatchError | None]:
        key = peer_host(context.peer() or "")
        token = _has_token(context)
        admin = self._admin_token
        if token and admin is not None and holds_admin_token(context, admin):
            return key, None
        play = token and method in PLAY_METHODS
        try:
            self.budget.charge(key, cost, play=play)
            if method in _REGISTRATIONS:
                self.budget.charge_registration(key)
        except MatchError as error:
            return key, error
        return key, None

    def _settle(self, key: str, cost: float, context: Any) -> None:
        if context.code() in _REJECTED:
            self.budget.penalize(key, cost)

    def unary(
        self, method: str, behaviour: Callable[[Any, Any], Awaitable[Any]]
    ) -> Callable[[Any, Any], Awaitable[Any]]:
        """Return ``behaviour`` (a unary method) charged to the caller's budget."""
        cost = call_cost(method)

        async def budgeted(request: Any, context: Any) -> Any:
            units = cost(request)
            key, refusal = self._charge(method, units, context)
            if refusal is not None:
                await self.hold(key)
                return refuse(context, refusal)
            response = await behaviour(request, context)
            self._settle(key, units, context)
            return response

        return budgeted

    def stream(
        self, method: str, behaviour: Callable[[Any, Any], AsyncIterator[Any]]
    ) -> Callable[[Any, Any], AsyncIterator[Any]]:
        """Return ``behaviour`` (a server-streaming method) charged once, when it opens."""
        cost = call_cost(method)

        async def budgeted(request: Any, context: grpc.aio.ServicerContext[Any, Any]) -> Any:
            units = cost(request)
            key, refusal = self._charge(method, units, context)
            if refusal is not None:
                await self.hold(key)
                await abort(context, refusal)
            try:
                async for response in behaviour(request, context):
                    yield response
            finally:
                self._settle(key, units, context)

        return budgeted


def _has_token(context: Any) -> bool:
    return any(key == "authorization" for key, _ in context.invocation_metadata() or ())
