# mypy: disable-error-code="import-untyped"
"""The ladder in the SDK: ``AsyncLadderClient``, ``run_ladder_bot`` and its async twin.

:func:`run_ladder_bot_async` keeps a bot connected to a ladder: it opens the
LadderService's ``Connect`` stream with the bot's secret, plays every assigned seat with
:func:`~botarena.clients.run_bot_async` (at most ``capacity`` at once, a new bot object
per match), and reconnects with backoff when the stream drops. The server repeats the
assignments of running matches on a new connection; seats already being played are not
started twice, unless the assignment carries another token: the server gave the seat a
new one (this process asked to resume its seats), so the seat starts again with it.
Given several servers (the nodes of one cluster), it connects to the first and,
whenever a connection fails as retryable (the node died, say), to the next in turn;
each seat is played on the node its assignment names (``Assignment.node``).
:func:`run_ladder_bot` does the same, blocking (like ``run_bot``), and
:func:`run_ladder_command_async` plays each seat by starting a bot command instead
(``botarena ladder connect --command``).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import math
import os
import random
import signal
from collections.abc import AsyncGenerator, Awaitable, Callable, Sequence
from dataclasses import replace
from typing import TypeAlias, TypeVar

import grpc

from botarena.clients._aio import AsyncMatchClient
from botarena.clients._bot import Bot, play_seat
from botarena.clients._channel import AsyncChannelClient
from botarena.clients._common import new_request_id
from botarena.clients._errors import BotarenaError
from botarena.clients._main import ENV_MATCH, ENV_SERVER, ENV_TOKEN
from botarena.clients._retry import RECONNECT_CHANNEL_OPTIONS, Retry, RetryPolicy, is_retryable
from botarena.clients._target import ServerTarget
from botarena.v1 import ladder_pb2, ladder_pb2_grpc, match_pb2, match_service_pb2

__all__ = [
    "LADDER_RECONNECT",
    "AsyncLadderClient",
    "Servers",
    "ladder_targets",
    "run_ladder_bot",
    "run_ladder_bot_async",
    "run_ladder_command_async",
]

OutcomeT = TypeVar("OutcomeT")

Servers: TypeAlias = str | ServerTarget | Sequence[str | ServerTarget]
"""Where a ladder bot connects: one server, or the nodes of one cluster, tried in turn."""

LADDER_RECONNECT = RetryPolicy(max_attempts=1, max_backoff=10.0, max_elapsed=math.inf)
"""A ladder bot's default reconnect policy: keep trying forever, at most 10 s apart."""

_logger = logging.getLogger("botarena.clients.ladder")


class AsyncLadderClient(AsyncChannelClient[ladder_pb2_grpc.LadderServiceStub]):
    """An asyncio client of the LadderService over one ``grpc.aio`` channel.

    Every method is named after its RPC, returns the generated response message and
    raises a :class:`~botarena.clients.BotarenaError` subclass when the call fails. Use
    it as an async context manager, or call :meth:`close`.

    Args:
        target: The server: ``host:port`` (plaintext), ``botarena+tls://host:port[?ca=PATH]``
            (TLS; docs/bots.md) or a :class:`~botarena.clients.ServerTarget`.
        token: The bearer token: the bot's secret for :meth:`connect`, the server's admin
            token for :meth:`register_bot` and :meth:`resume_bot` when it has one; ``None``
            for the rest.
        timeout: Seconds each unary call may take; ``None`` waits forever. Streams have
            no timeout.
        credentials: TLS credentials that replace the target's (``None``: the target's).
        channel_options: Extra gRPC channel arguments.
    """

    @staticmethod
    def _new_stub(channel: grpc.aio.Channel) -> ladder_pb2_grpc.LadderServiceStub:
        return ladder_pb2_grpc.LadderServiceStub(channel)

    async def register_bot(
        self, display_name: str, owner: str, game: match_pb2.Game.ValueType
    ) -> ladder_pb2.RegisterBotResponse:
        """Register a bot (RegisterBot); the response holds its secret, shown only once."""
        request = ladder_pb2.RegisterBotRequest(display_name=display_name, owner=owner, game=game)
        response: ladder_pb2.RegisterBotResponse = await self._unary(
            self._stub.RegisterBot, request
        )
        return response

    async def get_leaderboard(
        self, game: match_pb2.Game.ValueType, *, page_size: int = 0, page_token: str = ""
    ) -> ladder_pb2.GetLeaderboardResponse:
        """Return one page of a game's leaderboard, best first (GetLeaderboard):
        ``page_size`` bots at most (0: the server's default, 50), after the page whose
        ``next_page_token`` is ``page_token`` (empty: the first page)."""
        request = ladder_pb2.GetLeaderboardRequest(
            game=game, page_size=page_size, page_token=page_token
        )
        response: ladder_pb2.GetLeaderboardResponse = await self._unary(
            self._stub.GetLeaderboard, request
        )
        return response

    async def leaderboard(
        self, game: match_pb2.Game.ValueType, *, page_size: int = 0
    ) -> AsyncGenerator[ladder_pb2.LeaderboardEntry, None]:
        """Yield a game's whole leaderboard, best first, fetching it a page at a time
        (GetLeaderboard, following ``next_page_token``); stop iterating to fetch no more.

        Each page is read from the board as it stands at that call, so a bot whose
        rating changes meanwhile may show twice or not at all.
        """
        token = ""
        while True:
            page = await self.get_leaderboard(game, page_size=page_size, page_token=token)
            for entry in page.entries:
                yield entry
            token = page.next_page_token
            if not token:
                return

    async def list_bot_matches(
        self, bot: str, *, limit: int = 0
    ) -> ladder_pb2.ListBotMatchesResponse:
        """Return a bot's matches, newest first (ListBotMatches); ``bot`` is ``bots/{id}``."""
        request = ladder_pb2.ListBotMatchesRequest(bot=bot, limit=limit)
        response: ladder_pb2.ListBotMatchesResponse = await self._unary(
            self._stub.ListBotMatches, request
        )
        return response

    async def resume_bot(self, bot: str) -> ladder_pb2.ResumeBotResponse:
        """Un-pause a bot and reset its bad streak (ResumeBot); ``bot`` is ``bots/{id}``."""
        request = ladder_pb2.ResumeBotRequest(bot=bot)
        response: ladder_pb2.ResumeBotResponse = await self._unary(self._stub.ResumeBot, request)
        return response

    async def connect(
        self, capacity: int, *, resume_seats: bool = False
    ) -> AsyncGenerator[ladder_pb2.ConnectResponse, None]:
        """Yield the Connect stream's messages (the client's token is the bot's secret).

        Close the generator to end the connection promptly.

        Raises:
            BotarenaError: When the call fails, at the point of iteration where it fails.
        """
        call = self._stub.Connect(
            ladder_pb2.ConnectRequest(capacity=capacity, resume_seats=resume_seats),
            metadata=self._metadata,
        )
        try:
            async for response in call:
                yield response
        except grpc.RpcError as exc:
            raise await self._failure(exc) from exc
        finally:
            call.cancel()


def run_ladder_bot(
    bot: Callable[[], Bot],
    *,
    server: Servers,
    secret: str,
    capacity: int = 1,
    reconnect: RetryPolicy = LADDER_RECONNECT,
    on_match_end: Callable[[str, match_pb2.MatchOutcome | BaseException], None] | None = None,
) -> None:
    """Keep a registered bot connected to a ladder and play its assignments; blocking,
    until interrupted (Ctrl-C raises ``KeyboardInterrupt``).

    Runs :func:`run_ladder_bot_async` in a new event loop; call that one from async code.

    Raises:
        RuntimeError: Called inside a running event loop (await
            :func:`run_ladder_bot_async` there).
        BotarenaError: As :func:`run_ladder_bot_async`.
    """
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        pass
    else:
        raise RuntimeError(
            "run_ladder_bot blocks until interrupted; inside async code, "
            "await run_ladder_bot_async(...) instead"
        )
    asyncio.run(
        run_ladder_bot_async(
            bot,
            server=server,
            secret=secret,
            capacity=capacity,
            reconnect=reconnect,
            on_match_end=on_match_end,
        )
    )


async def run_ladder_bot_async(
    bot: Callable[[], Bot],
    *,
    server: Servers,
    secret: str,
    capacity: int = 1,
    reconnect: RetryPolicy = LADDER_RECONNECT,
    on_match_end: Callable[[str, match_pb2.MatchOutcome | BaseException], None] | None = None,
) -> None:
    """Keep a registered bot connected to a ladder and play its assignments; runs until
    cancelled.

    Args:
        bot: Makes the bot for one match (a class or a factory): each match gets its own,
            so per-match state never mixes.
        server: The server, ``host:port`` or ``botarena+tls://host:port[?ca=PATH]`` or a
            :class:`ServerTarget`; both the ladder's and the matches' channels use it. Or
            a sequence of them, the nodes of one cluster (servers sharing one database):
            the bot connects to the first, and to the next in turn whenever a connection
            fails as retryable (a node that died, say), waiting ``reconnect``'s backoff
            between tries. Each seat is played on the node its assignment names
            (``Assignment.node``, with the TLS settings of the server the bot is
            connected to); when that node cannot be reached, the seat asks the servers in
            turn, from the connected one on.
        secret: The bot's secret from RegisterBot.
        capacity: Matches the bot plays at once; the server never assigns more.
        reconnect: Backoff between reconnects; the count of failures in a row resets
            whenever a connection is accepted.
        on_match_end: Called with the match's name and its outcome (or the exception
            that ended the seat) when each assigned match ends.

    Raises:
        ValueError: ``server`` is an empty sequence or a malformed target.
        BotarenaError: The secret is missing or wrong, the request is refused, or the
            ``reconnect`` policy gave up (``LADDER_RECONNECT`` never does).
    """
    async with _Nodes(ladder_targets(server)) as nodes:

        async def play(assignment: ladder_pb2.Assignment) -> match_pb2.MatchOutcome:
            # The seat's fallbacks, when the match's node is away: the connected server,
            # then the others in turn.
            servers = [nodes.client(target) for target in nodes.in_turn()]
            start = nodes.client(nodes.target_of(assignment.node)) if assignment.node else None
            return await play_seat(
                bot(), servers, assignment.seat_token, assignment.match, start=start
            )

        await _serve_assignments(play, nodes, secret, capacity, reconnect, on_match_end)


async def run_ladder_command_async(
    command: Sequence[str],
    *,
    server: Servers,
    secret: str,
    capacity: int = 1,
    reconnect: RetryPolicy = LADDER_RECONNECT,
) -> None:
    """Like :func:`run_ladder_bot_async`, but each assigned seat is played by starting
    ``command`` with ``--server`` and ``--token`` (the bot executable convention,
    docs/bots.md); its output goes to this process's. ``--server`` is the one string of
    the server the ladder connection uses at that moment (so a TLS server's CA goes
    along; the SDK's ``run_bot`` follows the redirect to the match's node from there).
    A command that fails (exits non-zero or cannot start) has its seat resigned at once,
    as the match runner does.
    """
    async with _Nodes(ladder_targets(server)) as nodes:

        async def play(assignment: ladder_pb2.Assignment) -> int:
            target = nodes.current
            status = await _run_command(command, str(target), assignment)
            if status != 0:
                _logger.warning("bot command for %s failed (%s)", assignment.match, status)
                with contextlib.suppress(BotarenaError):
                    await (
                        nodes.client(target)
                        .with_token(assignment.seat_token)
                        .resign_match(
                            assignment.match,
                            request_id=new_request_id(),
                            reason=match_service_pb2.RESIGN_REASON_BOT_EXITED,
                        )
                    )
            return status

        await _serve_assignments(play, nodes, secret, capacity, reconnect, None)


def ladder_targets(server: Servers) -> list[ServerTarget]:
    """Return the servers ``server`` names: one, or each of a sequence, in order.

    Raises:
        ValueError: No server, or one of a malformed form (``ServerTarget.parse``).
    """
    if isinstance(server, str | ServerTarget):
        return [ServerTarget.parse(server)]
    targets = [ServerTarget.parse(each) for each in server]
    if not targets:
        raise ValueError("no server given")
    return targets


class _Nodes:
    """A ladder bot's servers, the one its connection uses now, and one client per node
    address (its channel shared by every seat there, and by the ladder connection)."""

    def __init__(self, targets: Sequence[ServerTarget]) -> None:
        self.targets = list(targets)
        self.index = 0
        self._matches: dict[str, AsyncMatchClient] = {}
        self._ladders: dict[str, AsyncLadderClient] = {}

    @property
    def current(self) -> ServerTarget:
        """The server the ladder connection uses (or tries next)."""
        return self.targets[self.index]

    def advance(self) -> None:
        """Move on to the next server, in turn (the same one when it is the only one)."""
        self.index = (self.index + 1) % len(self.targets)

    def in_turn(self) -> list[ServerTarget]:
        """Every server, the current one first, then the others in turn."""
        return self.targets[self.index :] + self.targets[: self.index]

    def target_of(self, address: str) -> ServerTarget:
        """The target of a node's ``HOST:PORT``: the server given for it, else the
        current server's TLS settings at that address (ladder.proto: Assignment.node)."""
        for target in self.targets:
            if target.address == address:
                return target
        return replace(self.current, address=address)

    def client(self, target: ServerTarget) -> AsyncMatchClient:
        """The match client of ``target``'s node (opened once)."""
        client = self._matches.get(target.address)
        if client is None:
            client = self._matches[target.address] = AsyncMatchClient(
                target=target, channel_options=RECONNECT_CHANNEL_OPTIONS
            )
        return client

    def ladder(self, secret: str) -> AsyncLadderClient:
        """The ladder client of the current server, sending ``secret`` (opened once)."""
        target = self.current
        client = self._ladders.get(target.address)
        if client is None:
            client = self._ladders[target.address] = AsyncLadderClient(
                target=target, token=secret, channel_options=RECONNECT_CHANNEL_OPTIONS
            )
        return client

    async def __aenter__(self) -> _Nodes:
        return self

    async def __aexit__(self, *exc: object) -> None:
        for ladder in self._ladders.values():
            await ladder.close()
        for client in self._matches.values():
            await client.close()


async def _run_command(
    command: Sequence[str], server: str, assignment: ladder_pb2.Assignment
) -> int:
    """Play ``assignment`` with a new process of ``command``; return its exit status
    (-1 when it cannot start). The process is killed if the wait is cancelled."""
    env = {
        **os.environ,
        ENV_SERVER: server,
        ENV_TOKEN: assignment.seat_token,
        ENV_MATCH: assignment.match,
    }
    try:
        process = await asyncio.create_subprocess_exec(
            *command,
            "--server",
            server,
            "--token",
            assignment.seat_token,
            stdin=asyncio.subprocess.DEVNULL,
            env=env,
            # Its own group: cancelling reaches whatever the command started.
            start_new_session=True,
        )
    except OSError as error:
        _logger.warning("cannot start %r: %s", command[0], error)
        return -1
    try:
        return await process.wait()
    finally:
        if process.returncode is None:
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.killpg(process.pid, signal.SIGKILL)
            await process.wait()


async def _serve_assignments(
    play: Callable[[ladder_pb2.Assignment], Awaitable[OutcomeT]],
    nodes: _Nodes,
    secret: str,
    capacity: int,
    reconnect: RetryPolicy,
    on_match_end: Callable[[str, OutcomeT | BaseException], None] | None,
) -> None:
    """Hold the Connect stream, reconnecting under ``reconnect`` (to the next of
    ``nodes`` after a retryable failure), and ``play`` each assignment once, at most
    ``capacity`` at a time (the server's promise)."""
    jitter = random.Random()
    playing: dict[str, asyncio.Task[None]] = {}
    tokens: dict[str, str] = {}

    async def follow(assignment: ladder_pb2.Assignment) -> None:
        outcome: OutcomeT | BaseException
        try:
            outcome = await play(assignment)
        except Exception as exc:  # a crashing seat must not end the ladder bot
            _logger.warning("ladder match %s ended with %r", assignment.match, exc)
            outcome = exc
        finally:
            if playing.get(assignment.match) is asyncio.current_task():  # not replaced
                del playing[assignment.match]
                del tokens[assignment.match]
        if on_match_end is not None:
            on_match_end(assignment.match, outcome)

    def start(assignment: ladder_pb2.Assignment) -> None:
        current = playing.get(assignment.match)
        if current is not None:
            if tokens[assignment.match] == assignment.seat_token:
                return  # a repeat of what this seat plays already
            # The seat's token was issued again (the old one no longer works): the seat
            # starts over with the new one.
            _logger.info("ladder match %s: the seat has a new token", assignment.match)
            current.cancel()
        tokens[assignment.match] = assignment.seat_token
        playing[assignment.match] = asyncio.create_task(
            follow(assignment), name=f"botarena-ladder-{assignment.match}"
        )

    retry = Retry(reconnect, jitter)
    try:
        while True:
            error: BotarenaError | None = None
            try:
                # Playing nothing, this process holds no seat tokens: the server may hand
                # its running matches over with new ones (ConnectRequest).
                connecting = nodes.ladder(secret).connect(capacity, resume_seats=not playing)
                async with contextlib.aclosing(connecting) as stream:
                    async for message in stream:
                        retry.succeeded()
                        if message.WhichOneof("kind") != "assignment":
                            continue
                        start(message.assignment)
            except BotarenaError as exc:
                if not is_retryable(exc):
                    raise
                error = exc
            lost = nodes.current
            if error is not None:  # unreachable, say: the next server in turn
                nodes.advance()
            delay = retry.failed(error)
            if delay is None:
                raise error or BotarenaError(
                    grpc.StatusCode.UNAVAILABLE, None, "the ladder connection kept ending"
                )
            _logger.info(
                "ladder connection to %s lost (%s); connecting to %s in %.2f s",
                lost,
                error or "ended",
                nodes.current,
                delay,
            )
            await asyncio.sleep(delay)
    finally:
        tasks = list(playing.values())
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
