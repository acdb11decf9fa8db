"""Play one game of a run: create the match, start its bots, record what happened.

Built-in bots play through :func:`run_bot_async`, in the runner's worker processes or
in-process (``_workers``); command bots are started as subprocesses following the bot
executable convention (docs/bots.md), with their stderr kept per game. The runner itself
watches as a spectator, so what it records is what any client could see; once the match
is over it fetches the match's replay (GetReplay: every event and every seat's view,
public once the match has ended; RULES.md) and writes it as the game's replay file
(docs/replays.md).

A bot that is gone before its match ends (its process exited or could not start, its
in-process task raised) has its seat resigned at once with ``RESIGN_REASON_BOT_EXITED``:
the server then never plays the rest of its game for it. Every call to the server is
retried across a server restart (:data:`RUNNER_RETRY`; docs/decisions.md: Tools), and
on a cluster every call and stream for a match follows ``MATCH_ON_OTHER_NODE`` to the
node that runs it (``_route.Route``), as the bots do.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import json
import logging
import os
import signal
import sys
import tempfile
import traceback
from collections.abc import Callable, Coroutine, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any, Protocol

from google.protobuf import duration_pb2, json_format

from botarena.clients._aio import AsyncMatchClient
from botarena.clients._common import new_request_id
from botarena.clients._errors import (
    AdmissionRefusedError,
    AlreadyExistsError,
    AuthenticationError,
    BotarenaError,
    InvalidRequestError,
    MatchFinishedError,
    PermissionDeniedError,
    RateLimitedError,
    SeatForfeitedError,
    TlsError,
)
from botarena.clients._main import ENV_MATCH, ENV_SEED, ENV_SERVER, ENV_TOKEN
from botarena.clients._retry import RetryPolicy, call_with_retry, is_retryable
from botarena.clients._route import Route
from botarena.clients.replays import REPLAY_FILE_NAME, save_replay
from botarena.clients.runner._folder import game_folder
from botarena.clients.runner._pages import write_game_viewer
from botarena.clients.runner._plan import BotSpec, GamePlan
from botarena.clients.runner._records import GameRecord, SeatRecord
from botarena.server.service import PLUGINS
from botarena.server.text import printable
from botarena.v1 import match_pb2, match_service_pb2

__all__ = [
    "ENV_QUEUE",
    "ENV_SEED_KEY",
    "GAMES",
    "RUNNER_RETRY",
    "BotFailedError",
    "GameOptions",
    "MatchRefusedError",
    "create_game_match",
    "play_game",
]

GAMES: dict[str, match_pb2.Game.ValueType] = {plugin.name: plugin.proto_game for plugin in PLUGINS}
"""The games the runner can play, by registry name, in registry order (the server's)."""

ENV_SEED_KEY = "BOTARENA_SEED_KEY"
"""Environment variable that may hold the run's seed key; never passed on to bots."""

ENV_QUEUE = "BOTARENA_QUEUE"
"""Environment variable that may hold the URL of a worker's queue; never passed on to bots."""

_HIDDEN_FROM_BOTS = frozenset({ENV_SEED_KEY, ENV_QUEUE, "PGPASSWORD"})
"""What a bot process does not inherit: the secrets of the run and of its queue (the
database holds every game's seeds)."""

RUNNER_RETRY = RetryPolicy(max_elapsed=60.0)
"""How the runner retries a call or a stream that failed transiently: backoff with
jitter from 0.1 s up to 2 s apart, for at least a minute of failures in a row (a server
restart), reset whenever the call makes progress."""

_ADMISSION_RETRY = RetryPolicy(max_attempts=1_000_000, initial_backoff=0.5, max_backoff=10.0)
"""How the runner waits for a server that admits no new match now: for as long as it
takes (the run then goes at the server's pace), at least the server's ``retry_after``."""

# Refusals that say "not now": admission's, and the call budget's (RATE_LIMITED).
_SLOW_DOWN = (AdmissionRefusedError, RateLimitedError)

_TAIL_LINES = 20
_TAIL_BYTES = 16_384

_logger = logging.getLogger("botarena.clients.runner")


class MatchRefusedError(Exception):
    """The server refused to create a game's match: a bad configuration (such as a seat
    count outside the game's range) or a missing admin token; or the runner and the
    server do not agree on TLS (``TlsError``).

    Every game of a run has the same configuration, so the run stops at the first one.
    """


class BotFailedError(Exception):
    """A bot could not start, or crashed in its first game: the run stops.

    Attributes:
        bot: The bot's name.
        game: The game's number.
        seat: The bot's seat in that game.
        failure: What happened, in words.
        stderr_tail: The last lines of the bot's stderr (or its traceback).
        record: The game's record when its match ended, else ``None``.
    """

    def __init__(
        self,
        bot: str,
        game: int,
        seat: int,
        failure: str,
        stderr_tail: Sequence[str],
        record: GameRecord | None = None,
    ) -> None:
        super().__init__(f"{bot} (game {game}, seat {seat}) {failure}")
        self.bot = bot
        self.game = game
        self.seat = seat
        self.failure = failure
        self.stderr_tail = list(stderr_tail)
        self.record = record


@dataclass(frozen=True, slots=True)
class GameOptions:
    """How every game of a run is played.

    Attributes:
        game: The game's registry name (a key of :data:`GAMES`).
        move_time_limit: Seconds per decision.
        time_bank: Seconds of time bank per seat.
        forfeit_on_timeout: Forfeit a seat that runs out of time, instead of playing the
            server's stand-in move for it.
        max_illegal_moves: Rejected moves per decision before the timeout policy applies.
        max_stand_ins: Stand-in moves in a row after which a seat forfeits as absent.
        join_timeout: Seconds every seat's bot has, from the match's creation, to show up
            before its seat forfeits as absent (the bots' start-up window).
        out: Where replays and bot stderr go; ``None`` keeps nothing.
        exit_grace: Seconds a bot may take to stop by itself after the match ended,
            before it is stopped (and counted as a crash).
        show_stderr: The command bots whose output is also echoed, line by line, as it
            comes (``--show-stderr``).
    """

    game: str
    move_time_limit: float = 5.0
    time_bank: float = 0.0
    forfeit_on_timeout: bool = False
    max_illegal_moves: int = 3
    max_stand_ins: int = 3
    join_timeout: float = 30.0
    out: Path | None = None
    exit_grace: float = 5.0
    show_stderr: frozenset[str] = frozenset()


def _duration(seconds: float) -> duration_pb2.Duration:
    duration = duration_pb2.Duration()
    duration.FromNanoseconds(round(seconds * 1e9))
    return duration


def match_config(
    options: GameOptions, plan: GamePlan, names: Sequence[str]
) -> match_pb2.MatchConfig:
    """Return the configuration of the match that plays ``plan``."""
    policy = (
        match_pb2.TIMEOUT_POLICY_FORFEIT
        if options.forfeit_on_timeout
        else match_pb2.TIMEOUT_POLICY_DEFAULT_MOVE
    )
    return match_pb2.MatchConfig(
        game=GAMES[options.game],
        seat_count=len(plan.lineup_at_seat),
        seed=plan.seed,
        time_control=match_pb2.TimeControl(
            move_time_limit=_duration(options.move_time_limit),
            time_bank=_duration(options.time_bank),
        ),
        policies=match_pb2.MatchPolicies(
            on_timeout=policy,
            max_illegal_moves=options.max_illegal_moves,
            max_stand_ins_in_a_row=options.max_stand_ins,
            join_timeout=_duration(options.join_timeout),
        ),
        seat_names=list(names),
    )


async def create_game_match(
    client: AsyncMatchClient, config: match_pb2.MatchConfig, *, request_id: str | None = None
) -> match_service_pb2.CreateMatchResponse:
    """Create a match, retrying until the server answers.

    Transient failures (the server restarting) are retried with the same ``request_id``
    under :data:`RUNNER_RETRY`, so a lost answer is given again rather than a second
    match made; admission and call-budget refusals wait the server's ``retry_after``
    for as long as it takes. A server that restarted after making the match, its answer
    lost, refuses the repeat with ``REQUEST_ID_USED``: the seat tokens are gone with the
    answer, so nobody can play or resign that match (the server ends it as abandoned
    once its ``join_timeout`` passes), and a fresh match with a new ``request_id`` is
    made.

    Args:
        client: A client of the server (with the admin token if it needs one).
        config: The match's configuration.
        request_id: The first try's idempotency key; ``None`` makes a new one.

    Returns:
        The server's answer: the match and its seat tokens.

    Raises:
        BotarenaError: A refusal that is not transient (a bad config, a missing admin
            token, ``REQUEST_ID_CONFLICT``), or a server unreachable for too long.
    """
    key = request_id or new_request_id()

    async def create() -> match_service_pb2.CreateMatchResponse:
        return await call_with_retry(
            lambda: client.create_match(config, request_id=key),
            RUNNER_RETRY,
            retry_on=lambda error: is_retryable(error) and not isinstance(error, _SLOW_DOWN),
        )

    while True:
        try:
            return await call_with_retry(
                create,
                _ADMISSION_RETRY,
                retry_on=lambda error: isinstance(error, _SLOW_DOWN),
            )
        except AlreadyExistsError as error:
            if error.reason != "REQUEST_ID_USED":
                raise
            _logger.info("match %s lost its answer in a restart; creating another", error)
            key = new_request_id()


class SeatPlayers(Protocol):
    """Plays the built-in bots' seats (``_workers.BuiltinPlayers`` is one)."""

    def player(
        self, name: str, client: AsyncMatchClient, match: str, token: str, seed: int
    ) -> Coroutine[Any, Any, object]:
        """Return the coroutine that plays built-in bot ``name`` in the seat of ``token``
        until the match ends, and raises what the bot raised."""
        ...


class _Seat:
    """One seat's player: a built-in bot's task or a bot process."""

    def __init__(self, spec: BotSpec, seat: int) -> None:
        self.spec = spec
        self.seat = seat
        self.task: asyncio.Task[Any] | None = None
        self.process: asyncio.subprocess.Process | None = None
        self.failure: str | None = None
        # True once the player was gone before the match ended (its seat was resigned).
        self.left_early = False
        self.stderr_tail: list[str] = []
        self._stderr: IO[bytes] | None = None
        self._echo_task: asyncio.Task[None] | None = None

    async def start(
        self,
        client: AsyncMatchClient,
        target: str,
        match: str,
        token: str,
        seed: int,
        players: SeatPlayers,
        stderr_path: Path | None,
        echo: Callable[[str], None] | None = None,
    ) -> None:
        """Start the player; a command's output goes to ``stderr_path`` (a temporary
        file if ``None``) and, with ``echo``, to ``echo`` line by line as well."""
        if self.spec.builtin is not None:
            self.task = asyncio.create_task(
                players.player(self.spec.builtin, client, match, token, seed)
            )
            return
        assert self.spec.command is not None
        env = {name: value for name, value in os.environ.items() if name not in _HIDDEN_FROM_BOTS}
        env.update({ENV_SERVER: target, ENV_MATCH: match, ENV_TOKEN: token, ENV_SEED: str(seed)})
        # Without --out the stderr still goes to a file: its tail explains a crash.
        self._stderr = (
            open(stderr_path, "w+b")  # noqa: SIM115
            if stderr_path
            else tempfile.TemporaryFile()  # noqa: SIM115
        )
        # The convention (docs/bots.md): the server and the seat token, which names its
        # match. The match is in the environment too, for bots that want it.
        arguments = ("--server", target, "--token", token)
        output: IO[bytes] | int = self._stderr if echo is None else asyncio.subprocess.PIPE
        try:
            self.process = await asyncio.create_subprocess_exec(
                *self.spec.command,
                *arguments,
                stdin=asyncio.subprocess.DEVNULL,
                stdout=output,
                stderr=asyncio.subprocess.STDOUT if echo is not None else self._stderr,
                env=env,
                # Its own process group: kill() reaches whatever the command started
                # (a shell wrapper's children too), and a terminal's Ctrl-C reaches only
                # the runner, which then stops its bots itself.
                start_new_session=True,
            )
        except OSError as exc:
            self.failure = f"cannot start {self.spec.command[0]!r}: {exc}"
            return
        if echo is not None and self.process.stdout is not None:
            self._echo_task = asyncio.create_task(
                _copy_output(self.process.stdout, self._stderr, echo)
            )

    async def gone(self) -> None:
        """Return once the player has ended (at once if it never started)."""
        if self.task is not None:
            await asyncio.wait({self.task})
        elif self.process is not None:
            await self.process.wait()
        if self._echo_task is not None:
            # The output up to the exit, in the file before its tail is read.
            await asyncio.wait({self._echo_task})

    def exit_failure(self) -> str | None:
        """Return how the ended player failed, or ``None`` if it ended cleanly."""
        if self.task is not None and self.task.done():
            if self.task.cancelled():
                return "cancelled"
            error = self.task.exception()
            if error is not None:
                self.stderr_tail = "".join(traceback.format_exception(error)).splitlines()
                return f"raised {type(error).__name__}: {error}"
            return None
        if self.process is not None:
            status = self.process.returncode
            return None if status in (0, None) else f"exited with status {status}"
        return self.failure

    async def finish(self, grace: float) -> None:
        """Let the player end by itself for ``grace`` seconds, then stop it."""
        try:
            if self.task is not None:
                with contextlib.suppress(asyncio.TimeoutError):
                    await asyncio.wait_for(asyncio.shield(self.task), grace)
                if not self.task.done():
                    self.task.cancel()
                    self.failure = self.failure or "did not stop after the match ended"
                with contextlib.suppress(BaseException):
                    await self.task
                self.failure = self.failure or self.exit_failure()
            if self.process is not None:
                try:
                    await asyncio.wait_for(self.process.wait(), grace)
                except TimeoutError:
                    self.failure = self.failure or "did not exit after the match ended"
                self.kill()
                self.failure = self.failure or self.exit_failure()
        finally:
            self.close()

    def kill(self) -> None:
        """Stop the player at once."""
        if self.task is not None and not self.task.done():
            self.task.cancel()
        if self.process is not None:
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.killpg(self.process.pid, signal.SIGKILL)

    async def reap(self) -> None:
        """Wait for a killed player to be gone (a process is reaped, a task has ended)."""
        if self.process is not None:
            await self.process.wait()
        for task in (self.task, self._echo_task):
            if task is not None:
                with contextlib.suppress(BaseException):
                    await task

    def close(self) -> None:
        """Close the stderr file, first keeping its tail (a traceback kept already wins)."""
        if self._echo_task is not None and not self._echo_task.done():
            self._echo_task.cancel()
        if self._stderr is None:
            return
        if not self.stderr_tail:
            self._stderr.flush()
            size = self._stderr.seek(0, os.SEEK_END)
            self._stderr.seek(max(0, size - _TAIL_BYTES))
            text = self._stderr.read().decode(errors="replace")
            self.stderr_tail = text.splitlines()[-_TAIL_LINES:]
        self._stderr.close()
        self._stderr = None


async def _copy_output(
    stream: asyncio.StreamReader, file: IO[bytes], echo: Callable[[str], None]
) -> None:
    """Copy a bot's output to its file and, line by line, to ``echo``, until it ends."""
    while line := await stream.readline():
        file.write(line)
        file.flush()
        echo(line.decode(errors="replace").rstrip("\n"))


async def _guard(seat: _Seat, route: Route, match: str, watch: asyncio.Task[Any]) -> bool:
    """Wait for the player to end; if the match had not ended, resign its seat at once
    (along ``route``, with the seat's token).

    Returns:
        True when the player was gone before the match ended.
    """
    await seat.gone()
    if watch.done():
        return False
    failure = seat.exit_failure()
    if seat.task is not None and failure is None:
        return False  # run_bot_async returns only once it has seen the end
    request_id = new_request_id()
    try:
        await route.call(
            lambda client: client.resign_match(
                match, request_id=request_id, reason=match_service_pb2.RESIGN_REASON_BOT_EXITED
            ),
            RUNNER_RETRY,
        )
    except MatchFinishedError:
        return False  # it ended between the bot's exit and the runner's stream
    except SeatForfeitedError:
        if failure is None:
            return False  # left a seat it had already lost, cleanly
    except BotarenaError as error:
        # The seat stays to the server's policies (stand-ins, then "absent").
        _logger.warning("could not resign seat %d of %s: %s", seat.seat, match, error)
    seat.left_early = True
    if seat.task is not None or seat.process is not None:
        seat.failure = f"{failure or 'exited with status 0'} before the match ended"
    return True


async def _watch(route: Route, match: str, records: list[SeatRecord]) -> match_pb2.MatchOutcome:
    """Follow the match as a spectator until it ends; count each seat's stand-in moves
    and think times and note forfeits. A dropped stream resumes after the last version
    seen, under :data:`RUNNER_RETRY`, on the node that runs the match then."""
    async with contextlib.aclosing(route.events(match, RUNNER_RETRY)) as events:
        async for event in events:
            kind = event.WhichOneof("kind")
            if kind == "move_applied":
                applied = event.move_applied
                record = records[applied.seat]
                if applied.by_timeout_policy:
                    record.stand_in_moves += 1
                else:
                    record.think_seconds.append(applied.think_time.ToNanoseconds() / 1e9)
            elif kind == "seat_forfeited":
                records[event.seat_forfeited.seat].forfeit_reason = event.seat_forfeited.reason
            elif kind == "match_finished":
                return event.match_finished.outcome
    raise AssertionError("the event stream ended without MatchFinished")


def _event_line(event: match_pb2.MatchEvent) -> str:
    return json.dumps(json_format.MessageToDict(event), separators=(",", ":"))


async def play_game(
    client: AsyncMatchClient,
    target: str,
    plan: GamePlan,
    lineup: Sequence[BotSpec],
    options: GameOptions,
    players: SeatPlayers,
    *,
    crash_stops_run: Callable[[BotSpec], bool] = lambda spec: False,
    echo: Callable[[str, str], None] = lambda name, line: print(printable(line), file=sys.stderr),
) -> GameRecord:
    """Play ``plan`` to its end and return its record.

    Args:
        client: A client of the server (with the admin token if it needs one).
        target: The server's address, handed to command bots.
        plan: The game.
        lineup: The run's bots; ``plan.lineup_at_seat`` indexes it.
        options: How the game is played.
        players: Plays the built-in bots' seats.
        crash_stops_run: Whether a bot gone before the match end stops the run (the run
            asks: is this its first game?). A bot that cannot start always does.
        echo: Shows a line of output (the bot's name, the line) of the command bots
            named in ``options.show_stderr``.

    Raises:
        MatchRefusedError: The server refused to create the match.
        BotFailedError: A bot could not start, or ``crash_stops_run`` said so of a bot
            gone before the end; the game's bots are stopped.
        BotarenaError: The server failed while the match was played.
    """
    names = [lineup[index].name for index in plan.lineup_at_seat]
    try:
        created = await create_game_match(client, match_config(options, plan, names))
    except (InvalidRequestError, AuthenticationError, PermissionDeniedError) as error:
        raise MatchRefusedError(f"the server refused the match: {error}") from error
    except TlsError as error:
        raise MatchRefusedError(str(error)) from error
    match = created.match.name
    # The runner's own calls for the match, as a spectator and with each seat's token
    # (its resign), go to the node that runs the match, wherever that is (Route).
    spectator = Route([client.with_token(None)], label=f"spectator of {match}")
    resigns = [
        Route([client.with_token(token.token)], label=f"seat {seat} of {match}")
        for seat, token in enumerate(created.seat_tokens)
    ]
    try:
        game_dir = game_folder(options.out, plan.number) if options.out else None
        if game_dir:
            game_dir.mkdir(parents=True, exist_ok=True)
        seats = [_Seat(lineup[index], seat) for seat, index in enumerate(plan.lineup_at_seat)]
        records = [SeatRecord() for _ in seats]
        watch = asyncio.create_task(_watch(spectator, match, records))
        guards: dict[asyncio.Task[Any], _Seat] = {}
        try:
            for seat, token in zip(seats, created.seat_tokens, strict=True):
                stderr_path = (
                    game_dir / f"seat{seat.seat}-{seat.spec.name}.stderr" if game_dir else None
                )
                await seat.start(
                    client,
                    target,
                    match,
                    token.token,
                    plan.bot_seeds[seat.seat],
                    players,
                    stderr_path,
                    functools.partial(echo, seat.spec.name)
                    if seat.spec.name in options.show_stderr
                    else None,
                )
                guard = asyncio.create_task(_guard(seat, resigns[seat.seat], match, watch))
                guards[guard] = seat
            pending: set[asyncio.Task[Any]] = {watch, *guards}
            while not watch.done():
                done, pending = await asyncio.wait(pending, return_when=asyncio.FIRST_COMPLETED)
                for task in done:
                    gone = guards.get(task)
                    if gone is not None and task.result() and _stops_run(gone, crash_stops_run):
                        # Fail fast: the rest of this match (3+ seats) is not waited for.
                        gone.close()
                        raise _failed(gone, plan)
            outcome = watch.result()
        except BaseException:
            # Cancelled (a failed run, Ctrl-C) or failed: stop every player now, no grace.
            for task in (watch, *guards):
                task.cancel()
            for seat in seats:
                seat.kill()
            with contextlib.suppress(BaseException):
                await asyncio.wait_for(asyncio.gather(*(seat.reap() for seat in seats)), 5)
            for seat in seats:
                seat.close()
            raise
        try:
            await asyncio.gather(
                *(seat.finish(options.exit_grace) for seat in seats), return_exceptions=True
            )
            await asyncio.gather(*guards, return_exceptions=True)
        finally:
            # Also when the run is cancelled (Ctrl-C) during the grace period above.
            for seat in seats:
                seat.kill()
                seat.close()
        final = await spectator.call(lambda node: node.get_match(match), RUNNER_RETRY)
        for status in final.match.seats:
            record = records[status.seat]
            record.timeouts = status.timeouts
            record.illegal_moves = status.illegal_moves
            # The server's count once it keeps one; the stream's count of stand-ins before.
            record.stand_in_moves = status.stand_in_moves or record.stand_in_moves
            record.forfeit_reason = status.forfeit_reason or record.forfeit_reason
        for result in outcome.results:
            record = records[result.seat]
            record.score, record.rank, record.forfeited = (
                result.score,
                result.rank,
                result.forfeited,
            )
            record.forfeit_reason = result.forfeit_reason or record.forfeit_reason
        fatal: _Seat | None = None
        for seat in seats:
            record = records[seat.seat]
            record.crashed = seat.failure is not None
            record.failure = seat.failure
            if record.forfeit_reason == "absent" and not record.think_seconds:
                # It never made a move: it did not start (or connect) properly.
                seat.failure = "never played (its seat forfeited as absent)" + (
                    f"; it then {seat.failure}" if seat.failure else ""
                )
                seat.left_early = True
            if seat.left_early and fatal is None and _stops_run(seat, crash_stops_run):
                fatal = seat
            if seat.failure:
                record.stderr_tail = seat.stderr_tail
            if record.failure and game_dir:
                with open(game_dir / f"seat{seat.seat}-{seat.spec.name}.stderr", "a") as stream:
                    stream.write(f"\n[botarena match] {seat.spec.name} {record.failure}\n")
        abandoned = (
            final.match.state == match_pb2.Match.STATE_ABANDONED or outcome.reason == "abandoned"
        )
        replay = None
        if game_dir:
            replay = await spectator.call(
                lambda node: _write_replay(node, created.match.name, game_dir), RUNNER_RETRY
            )
        game = GameRecord(
            plan, match, records, outcome.reason, str(replay) if replay else None, abandoned
        )
        if fatal is not None:
            raise _failed(fatal, plan, game)
        return game
    finally:
        for route in (spectator, *resigns):
            await route.close()


def _stops_run(seat: _Seat, crash_stops_run: Callable[[BotSpec], bool]) -> bool:
    cannot_start = seat.task is None and seat.process is None
    return cannot_start or crash_stops_run(seat.spec)


def _failed(seat: _Seat, plan: GamePlan, game: GameRecord | None = None) -> BotFailedError:
    return BotFailedError(
        seat.spec.name, plan.number, seat.seat, seat.failure or "failed", seat.stderr_tail, game
    )


async def _write_replay(spectator: AsyncMatchClient, name: str, game_dir: Path) -> Path:
    """Fetch the finished match's replay (GetReplay) and write it to ``game_dir``, with
    its HTML viewer beside it."""
    replay = await spectator.get_replay(name)
    # Encoding and compressing a replay and writing its viewer take ~5-20 ms of CPU (the
    # binary protobuf; its JSON took 0.2-0.9 s): off the loop all the same, which keeps
    # serving the other games' bots meanwhile.
    return await asyncio.to_thread(_save_with_viewer, replay, game_dir)


def _save_with_viewer(replay: match_pb2.Replay, game_dir: Path) -> Path:
    path = save_replay(replay, game_dir / REPLAY_FILE_NAME)
    write_game_viewer(replay, path)
    return path


def python_command(module: str) -> tuple[str, ...]:
    """Return the command that runs a Python module with this interpreter."""
    return (sys.executable, "-m", module)
