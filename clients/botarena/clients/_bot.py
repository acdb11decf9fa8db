# mypy: disable-error-code="import-untyped"
"""The ``Bot`` protocol and ``run_bot``: play one seat of a match to its end.

A bot sees what any remote client sees: its seat's view and legal moves (PettingZoo's
action mask), so the same bot runs in-process, as a command, or against a remote server.

:func:`run_bot_async` runs two tasks per seat:

* the *follower* reads the seat's event stream, records the last log version seen and
  reconnects with ``after_state_version`` when the stream drops (bounded exponential
  backoff, by default for at least a minute, so a bot outlives a server restart: the
  server recovers its matches from its database and the seat token still works); a
  ``DecisionRequested`` goes into a one-slot mailbox, the newest replacing an older one;
* the *decider* takes the newest decision, asks the bot (in a worker thread by default,
  so the stream keeps flowing while it thinks), and submits the answer with the
  decision's version as ``expected_state_version`` and a fresh ``request_id``, retrying
  transient failures with the same ``request_id``.

If the bot is slower than the decision's deadline, the server applies the match's timeout
policy (a stand-in move or a forfeit) and the stream moves on; when the bot's answer then
arrives for a version the stream has already left, it is dropped, never submitted.
"""

from __future__ import annotations

import asyncio
import contextlib
import contextvars
import logging
import random
import time
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Protocol, runtime_checkable

from botarena.clients._aio import AsyncMatchClient
from botarena.clients._common import new_request_id
from botarena.clients._errors import (
    FailedPreconditionError,
    IllegalMoveError,
    MatchOnOtherNodeError,
    RateLimitedError,
    StaleStateError,
    TransientError,
)
from botarena.clients._retry import RECONNECT_CHANNEL_OPTIONS, Retry, RetryPolicy
from botarena.clients._route import Route
from botarena.clients._target import ServerTarget
from botarena.v1 import match_pb2

__all__ = [
    "Bot",
    "DecisionClock",
    "RetryPolicy",
    "current_decision",
    "play_seat",
    "run_bot",
    "run_bot_async",
]

_logger = logging.getLogger("botarena.clients.bot")


@runtime_checkable
class Bot(Protocol):
    """A player: given its seat's view and legal moves, it returns one move.

    Only :meth:`choose_move` is required. A bot may also define these hooks, which
    :func:`run_bot` calls when present:

    * ``on_match_start(match: Match, seat: int) -> None`` once, when the stream delivers
      ``MatchStarted`` (the match as created, its seed included);
    * ``on_match_end(outcome: MatchOutcome) -> None`` once, with the final result.
    """

    def choose_move(
        self,
        view: match_pb2.PlayerView,
        legal_moves: Sequence[match_pb2.Move],
        rng: random.Random,
    ) -> match_pb2.Move:
        """Return the move to play.

        Args:
            view: What the seat sees now (the history is not included: the stream is the
                history; keep what you need from earlier calls or the hooks).
            legal_moves: Every legal move, never empty, with the annotations the game
                puts on them (a placement's ``score``). Returning one is always legal.
            rng: The bot's seeded random source; use it for every random choice so that
                a seed reproduces the bot's play.

        Returns:
            The move; usually an element of ``legal_moves``.
        """
        ...


_DEFAULT_RECONNECT = RetryPolicy(max_elapsed=60.0)
"""How :func:`run_bot` reconnects by default: for at least a minute (a server restart)."""
_DEFAULT_RESUBMIT = RetryPolicy(max_attempts=5)
"""How :func:`run_bot` resends a move by default."""


def run_bot(
    bot: Bot,
    *,
    server: str | ServerTarget,
    token: str,
    match: str = "",
    seed: int | None = None,
    think_in_thread: bool = True,
    reconnect: RetryPolicy = _DEFAULT_RECONNECT,
    resubmit: RetryPolicy = _DEFAULT_RESUBMIT,
) -> match_pb2.MatchOutcome:
    """Play the seat of ``token`` in ``match`` until the match ends; blocking.

    Runs :func:`run_bot_async` in a new event loop; call that one from async code.

    Returns:
        The match's outcome.

    Raises:
        BotarenaError: The seat cannot be played (bad token, unknown match) or the server
            stayed unreachable for as long as ``reconnect`` allows.
        Exception: Whatever the bot's ``choose_move`` or hooks raised.
    """
    return asyncio.run(
        run_bot_async(
            bot,
            server=server,
            token=token,
            match=match,
            seed=seed,
            think_in_thread=think_in_thread,
            reconnect=reconnect,
            resubmit=resubmit,
        )
    )


async def run_bot_async(
    bot: Bot,
    *,
    server: str | ServerTarget | AsyncMatchClient,
    token: str,
    match: str = "",
    seed: int | None = None,
    think_in_thread: bool = True,
    reconnect: RetryPolicy = _DEFAULT_RECONNECT,
    resubmit: RetryPolicy = _DEFAULT_RESUBMIT,
) -> match_pb2.MatchOutcome:
    """Play the seat of ``token`` in ``match`` until the match ends.

    Many seats can be played concurrently in one event loop: pass one shared
    :class:`AsyncMatchClient` as ``server`` so that they share its channel.

    Args:
        bot: The player.
        server: The server, ``host:port`` or ``botarena+tls://host:port[?ca=PATH]`` or a
            :class:`ServerTarget` (a channel is opened and closed here), or a client whose
            channel is shared (its token is replaced by ``token`` for this seat).
        token: The seat's token.
        match: The match's name, ``matches/{id}``; empty (the default) lets the server
            find it from the seat token, which names its match.
        seed: Seeds the ``random.Random`` handed to the bot; ``None`` seeds from the OS.
        think_in_thread: Run ``choose_move`` in a worker thread so the event loop (other
            seats, the stream) keeps running while the bot thinks. Set False for bots
            that must run on the loop's thread.
        reconnect: How often, how fast and how long to reopen a dropped event stream
            (by default for at least a minute, so the bot outlives a server restart).
        resubmit: How often and how fast to resend a move after a transient failure
            (always with the same ``request_id``, so a move is never applied twice).

    Returns:
        The match's outcome, from its ``MatchFinished`` event.

    Raises:
        BotarenaError: The seat cannot be played (bad token, unknown match) or the server
            stayed unreachable for as long as ``reconnect`` allows.
        Exception: Whatever the bot's ``choose_move`` or hooks raised.
    """
    if isinstance(server, AsyncMatchClient):
        return await play_seat(
            bot,
            [server],
            token,
            match,
            seed=seed,
            think_in_thread=think_in_thread,
            reconnect=reconnect,
            resubmit=resubmit,
        )
    async with AsyncMatchClient(
        target=server, token=token, channel_options=RECONNECT_CHANNEL_OPTIONS
    ) as client:
        return await _SeatPlayer(
            bot, [client], client, match, seed, think_in_thread, reconnect, resubmit
        ).play()


async def play_seat(
    bot: Bot,
    servers: Sequence[AsyncMatchClient],
    token: str,
    match: str,
    *,
    start: AsyncMatchClient | None = None,
    seed: int | None = None,
    think_in_thread: bool = True,
    reconnect: RetryPolicy = _DEFAULT_RECONNECT,
    resubmit: RetryPolicy = _DEFAULT_RESUBMIT,
) -> match_pb2.MatchOutcome:
    """Play a seat as :func:`run_bot_async` does, over shared clients of the nodes of
    one cluster (the ladder's bots).

    The seat talks to ``start`` first (the node that runs the match, when known; by
    default ``servers[0]``). When the node it talks to cannot be reached it asks the
    ``servers`` in turn, which redirect it to the match's owner (or take the match
    over once its lease has expired). Every client's channel is shared: the seat sends
    ``token`` on copies of them.
    """
    if not servers:
        raise ValueError("a seat needs at least one server")
    homes = [server.with_token(token) for server in servers]
    first = homes[0]
    if start is not None:
        same = [home for home in homes if home.server.address == start.server.address]
        first = same[0] if same else start.with_token(token)
    return await _SeatPlayer(
        bot, homes, first, match, seed, think_in_thread, reconnect, resubmit
    ).play()


@dataclass(frozen=True, slots=True)
class DecisionClock:
    """The clock of the decision a bot is answering; see :func:`current_decision`.

    Attributes:
        seat: The deciding seat.
        state_version: The version the decision was requested at.
        received_at: ``time.monotonic()`` when the decision reached this process.
        move_time_limit: Seconds the decision may take before the time bank is used.
        time_bank: Seconds left in the seat's bank when the decision was requested.
    """

    seat: int
    state_version: int
    received_at: float
    move_time_limit: float
    time_bank: float

    @property
    def deadline(self) -> float:
        """``time.monotonic()`` at which the clock runs out, counted from arrival.

        The server started the clock when it requested the decision, a little earlier
        (the event's trip, and any time the stream was away): keep a margin.
        """
        return self.received_at + self.move_time_limit + self.time_bank

    def time_left(self) -> float:
        """Seconds until :attr:`deadline` (0 once it has passed)."""
        return max(0.0, self.deadline - time.monotonic())


_CURRENT_DECISION: contextvars.ContextVar[DecisionClock | None] = contextvars.ContextVar(
    "botarena_current_decision", default=None
)


def current_decision() -> DecisionClock | None:
    """Return the clock of the decision being answered, inside ``Bot.choose_move``.

    :func:`run_bot` sets it for every call of ``choose_move`` (in a worker thread too), so
    a bot can budget its search without a change to the ``Bot`` protocol::

        def choose_move(self, view, legal_moves, rng):
            clock = current_decision()
            budget = clock.time_left() * 0.8 if clock else 1.0

    ``None`` outside a decision.
    """
    return _CURRENT_DECISION.get()


class _SeatPlayer:
    """The follower and decider tasks of one seat, and the state they share."""

    def __init__(
        self,
        bot: Bot,
        homes: Sequence[AsyncMatchClient],
        client: AsyncMatchClient,
        match: str,
        seed: int | None,
        think_in_thread: bool,
        reconnect: RetryPolicy,
        resubmit: RetryPolicy,
    ) -> None:
        self.bot = bot
        # Where the seat was sent (its homes: one, or a ladder bot's servers), and the
        # node that runs its match now, which the follower and the decider share.
        self.route = Route(homes, client, label="seat ?")
        self.match = match
        self.rng = random.Random(seed)
        # Backoff jitter has its own source: the bot's rng must depend only on the seed.
        self.jitter = random.Random()
        self.think_in_thread = think_in_thread
        self.reconnect = reconnect
        self.resubmit = resubmit
        self.seat = -1
        self.last_version = 0
        # The version of the last entry that closed one of this seat's decisions (its own
        # move, applied by itself or by the timeout policy, or its forfeit). Other seats'
        # entries do not: in a simultaneous decision (every seat at once) they arrive while
        # this seat's decision is still open, and the server accepts the answer.
        self.own_version = 0
        self.finished = False
        # The one-slot mailbox between the follower and the decider.
        self.mailbox: match_pb2.MatchEvent | None = None
        self.mailbox_time = 0.0  # time.monotonic() when the mailbox's decision arrived
        self.mail = asyncio.Event()
        # Versions of decisions taken on (being decided, or answered): a resumed stream
        # announces a pending decision again, and it must not be answered twice.
        self.taken_version = -1

    async def play(self) -> match_pb2.MatchOutcome:
        # One call up front: it checks the token and match before any stream is opened
        # and tells the seat index, which on_match_start reports. A bot may start before
        # its server listens (a runner starts both at once), so this call is retried too.
        try:
            return await self._play()
        finally:
            await self.route.close()

    async def _play(self) -> match_pb2.MatchOutcome:
        response = await self.route.call(
            lambda client: client.get_player_view(self.match), self.reconnect, jitter=self.jitter
        )
        self.seat = response.view.seat
        self.route.label = f"seat {self.seat}"
        follower = asyncio.create_task(self.follow(), name=f"botarena-follow-{self.seat}")
        decider = asyncio.create_task(self.decide_forever(), name=f"botarena-decide-{self.seat}")
        try:
            await asyncio.wait({follower, decider}, return_when=asyncio.FIRST_COMPLETED)
        finally:
            for task in (follower, decider):
                task.cancel()
            await asyncio.gather(follower, decider, return_exceptions=True)
        if decider.done() and not decider.cancelled():
            crash = decider.exception()
            if crash is not None:
                raise crash
        outcome = follower.result()
        on_match_end = getattr(self.bot, "on_match_end", None)
        if on_match_end is not None:
            on_match_end(outcome)
        return outcome

    # ------------------------------------------------------------------ follower

    async def follow(self) -> match_pb2.MatchOutcome:
        events = self.route.events(
            self.match, self.reconnect, jitter=self.jitter, after_state_version=self.last_version
        )
        async with contextlib.aclosing(events) as stream:
            async for event in stream:
                outcome = self.on_event(event)
                if outcome is not None:
                    return outcome
        raise AssertionError("the event stream ended without MatchFinished")

    def on_event(self, event: match_pb2.MatchEvent) -> match_pb2.MatchOutcome | None:
        kind = event.WhichOneof("kind")
        if kind == "decision_requested":
            # Not a log entry: its version is the current one, already seen; never moves
            # the resume point. Skip decisions already taken on (re-announced on resume).
            if event.state_version > self.taken_version:
                self.mailbox, self.mailbox_time = event, time.monotonic()
                self.mail.set()
            return None
        self.last_version = max(self.last_version, event.state_version)
        if (kind == "move_applied" and event.move_applied.seat == self.seat) or (
            kind == "seat_forfeited" and event.seat_forfeited.seat == self.seat
        ):
            self.own_version = max(self.own_version, event.state_version)
        if kind == "match_started":
            on_match_start = getattr(self.bot, "on_match_start", None)
            if on_match_start is not None:
                on_match_start(event.match_started.match, self.seat)
        elif kind == "match_finished":
            self.finished = True
            return event.match_finished.outcome
        return None

    # ------------------------------------------------------------------ decider

    def superseded(self, version: int) -> bool:
        """True once the stream has closed the decision of ``version`` (or the match ended)."""
        return self.finished or self.own_version > version

    async def decide_forever(self) -> None:
        while True:
            await self.mail.wait()
            self.mail.clear()
            event, self.mailbox = self.mailbox, None
            if event is None or self.superseded(event.state_version):
                continue
            self.taken_version = event.state_version
            await self.decide(event, self.mailbox_time)

    async def decide(self, event: match_pb2.MatchEvent, received_at: float) -> None:
        version = event.state_version
        requested = event.decision_requested
        legal_moves = list(requested.legal_moves)
        decision = requested.decision
        clock = DecisionClock(
            seat=decision.seat,
            state_version=version,
            received_at=received_at,
            move_time_limit=decision.move_time_limit.ToNanoseconds() / 1e9,
            time_bank=decision.time_bank_remaining.ToNanoseconds() / 1e9,
        )
        while True:
            token = _CURRENT_DECISION.set(clock)
            try:
                move = await self.think(requested.view, legal_moves)
            finally:
                _CURRENT_DECISION.reset(token)
            if self.superseded(version):
                _logger.warning(
                    "seat %d answered the decision at version %d after the match moved on "
                    "(deadline missed?); the answer is dropped",
                    self.seat,
                    version,
                )
                return
            try:
                await self.submit(move, version, clock.deadline)
                return
            except IllegalMoveError as exc:
                # Ask again: a randomised bot may choose differently; the server applies
                # the timeout policy once the allowance per decision is used up.
                _logger.warning("seat %d: move rejected: %s", self.seat, exc)
                if exc.policy_applied:
                    return
            except (StaleStateError, FailedPreconditionError) as exc:
                # The match moved on (a timeout policy, a forfeit, the end): the stream
                # says what comes next.
                _logger.info("seat %d: move at version %d refused: %s", self.seat, version, exc)
                return

    async def think(
        self, view: match_pb2.PlayerView, legal_moves: list[match_pb2.Move]
    ) -> match_pb2.Move:
        if self.think_in_thread:
            return await asyncio.to_thread(self.bot.choose_move, view, legal_moves, rng=self.rng)
        return self.bot.choose_move(view, legal_moves, rng=self.rng)

    async def submit(self, move: match_pb2.Move, version: int, deadline: float) -> None:
        request_id = new_request_id()
        retry = Retry(self.resubmit, self.jitter)
        while True:
            client = self.route.client
            try:
                await client.submit_move(
                    self.match, move, expected_state_version=version, request_id=request_id
                )
                return
            except MatchOnOtherNodeError as exc:
                if not self.route.reroute(exc, client):
                    raise
                continue  # the same move, the same request_id, on the match's node
            except (TransientError, RateLimitedError) as exc:
                self.route.reroute(exc, client)
                delay = retry.failed(exc)  # at least a refusal's RetryInfo
                # Until the decision's deadline the move can still count, and an open
                # stream never asks again: keep resending it (same request_id) till then.
                if delay is None and time.monotonic() < deadline:
                    delay = self.resubmit.max_backoff
                if delay is None or self.superseded(version):
                    # The stream decides what happens next: the move was applied, or the
                    # deadline passes and the timeout policy plays for the seat.
                    _logger.warning(
                        "seat %d: could not submit the move at version %d (%s); "
                        "the stream will ask again if the decision is still open",
                        self.seat,
                        version,
                        exc,
                    )
                    # A resumed stream announces the decision again if it is still open.
                    self.taken_version = min(self.taken_version, version - 1)
                    return
                await asyncio.sleep(delay)
