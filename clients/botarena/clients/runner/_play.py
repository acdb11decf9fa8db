"""Play one game of a run: create the match, start its bots, record what happened.

Built-in bots play in-process through :func:`run_bot_async` over the runner's shared
channel; command bots are started as subprocesses following the bot executable
convention (docs/bots.md), with their stderr kept per game. The runner itself watches as a
spectator, so what it records is what any client could see; once the match is over it
reads the whole log again, now public (RULES.md: after the match ends the full log may be
public), for the replay file.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import signal
import sys
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any

from google.protobuf import duration_pb2, json_format

from botarena.clients._aio import AsyncMatchClient
from botarena.clients._bot import Bot, run_bot_async
from botarena.clients._errors import (
    AuthenticationError,
    BotarenaError,
    InvalidRequestError,
    PermissionDeniedError,
)
from botarena.clients._main import ENV_MATCH, ENV_SEED, ENV_SERVER, ENV_TOKEN
from botarena.clients.runner._plan import BotSpec, GamePlan
from botarena.clients.runner._results import GameRecord, SeatRecord
from botarena.v1 import match_pb2

__all__ = ["GAMES", "REPLAY_SCHEMA_VERSION", "GameOptions", "MatchRefusedError", "play_game"]

REPLAY_SCHEMA_VERSION = 1

GAMES: dict[str, match_pb2.Game.ValueType] = {
    "qwirkle": match_pb2.GAME_QWIRKLE,
    "qwixx": match_pb2.GAME_QWIXX,
    "queendomino": match_pb2.GAME_QUEENDOMINO,
}
"""The games the runner can play, by registry name."""

_STREAM_ATTEMPTS = 5


class MatchRefusedError(Exception):
    """The server refused to create a game's match: a bad configuration (such as a seat
    count outside the game's range) or a missing admin token.

    Every game of a run has the same configuration, so the run stops at the first one.
    """


@dataclass(frozen=True, slots=True)
class GameOptions:
    """How every game of a run is played.

    Attributes:
        game: The game's registry name (``"qwirkle"``).
        move_time_limit: Seconds per decision.
        time_bank: Seconds of time bank per seat.
        forfeit_on_timeout: Forfeit a seat that runs out of time, instead of playing the
            server's default move for it.
        max_illegal_moves: Rejected moves per decision before the timeout policy applies.
        out: Where replays and bot stderr go; ``None`` keeps nothing.
        exit_grace: Seconds a bot may take to stop by itself after the match ended,
            before it is stopped (and counted as a crash).
    """

    game: str
    move_time_limit: float = 5.0
    time_bank: float = 0.0
    forfeit_on_timeout: bool = False
    max_illegal_moves: int = 3
    out: Path | None = None
    exit_grace: float = 5.0


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
            on_timeout=policy, max_illegal_moves=options.max_illegal_moves
        ),
        seat_names=list(names),
    )


def _bot_seed(plan: GamePlan, seat: int) -> int:
    # Each seat's choices are reproducible from the run's seed, and differ between seats.
    return plan.seed * 16 + seat


class _Seat:
    """One seat's player: an in-process bot task or a bot process."""

    def __init__(self, spec: BotSpec, seat: int) -> None:
        self.spec = spec
        self.seat = seat
        self.task: asyncio.Task[Any] | None = None
        self.process: asyncio.subprocess.Process | None = None
        self.failure: str | None = None
        self._stderr: IO[bytes] | None = None

    async def start(
        self,
        client: AsyncMatchClient,
        target: str,
        match: str,
        token: str,
        seed: int,
        bot: Bot | None,
        stderr_path: Path | None,
    ) -> None:
        if bot is not None:
            self.task = asyncio.create_task(
                run_bot_async(bot, server=client, token=token, match=match, seed=seed)
            )
            return
        assert self.spec.command is not None
        env = dict(os.environ)
        env.update({ENV_SERVER: target, ENV_MATCH: match, ENV_TOKEN: token, ENV_SEED: str(seed)})
        self._stderr = open(stderr_path, "wb") if stderr_path else None  # noqa: SIM115
        # The convention (docs/bots.md): the server and the seat token, which names its
        # match. The match is in the environment too, for bots that want it.
        arguments = ("--server", target, "--token", token)
        try:
            self.process = await asyncio.create_subprocess_exec(
                *self.spec.command,
                *arguments,
                stdin=asyncio.subprocess.DEVNULL,
                stdout=self._stderr or asyncio.subprocess.DEVNULL,
                stderr=self._stderr or asyncio.subprocess.DEVNULL,
                env=env,
                # Its own process group: kill() reaches whatever the command started
                # (a shell wrapper's children too), and a terminal's Ctrl-C reaches only
                # the runner, which then stops its bots itself.
                start_new_session=True,
            )
        except OSError as exc:
            self.failure = f"cannot start {self.spec.command[0]!r}: {exc}"
            self._close_stderr()

    def crashed_early(self) -> bool:
        """Return True (and note why) if the player is already gone before the match end."""
        if self.task is not None and self.task.done():
            if self.task.cancelled():
                self.failure = "cancelled"
            elif (error := self.task.exception()) is not None:
                self.failure = f"{type(error).__name__}: {error}"
            return self.failure is not None
        if self.process is not None and self.process.returncode not in (None, 0):
            self.failure = f"exited with status {self.process.returncode}"
        return self.failure is not None

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
                self.crashed_early()
            if self.process is not None:
                try:
                    await asyncio.wait_for(self.process.wait(), grace)
                except TimeoutError:
                    self.failure = self.failure or "did not exit after the match ended"
                self.kill()
                if self.process.returncode not in (0, None) and self.failure is None:
                    self.failure = f"exited with status {self.process.returncode}"
        finally:
            self._close_stderr()

    def kill(self) -> None:
        """Stop the player at once."""
        if self.task is not None and not self.task.done():
            self.task.cancel()
        if self.process is not None:
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.killpg(self.process.pid, signal.SIGKILL)

    def _close_stderr(self) -> None:
        if self._stderr is not None:
            self._stderr.close()
            self._stderr = None


async def _watch(
    spectator: AsyncMatchClient, match: str, records: list[SeatRecord]
) -> match_pb2.MatchOutcome:
    """Follow the match as a spectator until it ends; count each seat's timeouts and
    think times. A dropped stream resumes after the last version seen."""
    last_version = 0
    for _attempt in range(_STREAM_ATTEMPTS):
        stream = spectator.stream_match_events(match, after_state_version=last_version)
        try:
            async with contextlib.aclosing(stream) as events:
                async for event in events:
                    last_version = max(last_version, event.state_version)
                    kind = event.WhichOneof("kind")
                    if kind == "move_applied":
                        applied = event.move_applied
                        record = records[applied.seat]
                        if applied.by_timeout_policy:
                            record.timeouts += 1
                        else:
                            record.think_seconds.append(applied.think_time.ToNanoseconds() / 1e9)
                    elif kind == "match_finished":
                        return event.match_finished.outcome
        except BotarenaError as error:
            if not error.retryable:
                raise
        await asyncio.sleep(0.2)
    raise RuntimeError(f"lost the event stream of {match} {_STREAM_ATTEMPTS} times")


def _event_line(event: match_pb2.MatchEvent) -> str:
    return json.dumps(json_format.MessageToDict(event), separators=(",", ":"))


async def play_game(
    client: AsyncMatchClient,
    target: str,
    plan: GamePlan,
    lineup: Sequence[BotSpec],
    options: GameOptions,
    bots: Mapping[str, Callable[[], Bot]],
) -> GameRecord:
    """Play ``plan`` to its end and return its record.

    Args:
        client: A client of the server (with the admin token if it needs one).
        target: The server's address, handed to command bots.
        plan: The game.
        lineup: The run's bots; ``plan.lineup_at_seat`` indexes it.
        options: How the game is played.
        bots: Factories of the built-in bots by name.

    Raises:
        MatchRefusedError: The server refused to create the match.
        BotarenaError: The server failed while the match was played.
    """
    names = [lineup[index].name for index in plan.lineup_at_seat]
    try:
        created = await client.create_match(match_config(options, plan, names))
    except (InvalidRequestError, AuthenticationError, PermissionDeniedError) as error:
        raise MatchRefusedError(f"the server refused the match: {error}") from error
    match = created.match.name
    game_dir = options.out / "games" / f"{plan.number:05d}" if options.out else None
    if game_dir:
        game_dir.mkdir(parents=True, exist_ok=True)
    seats = [_Seat(lineup[index], seat) for seat, index in enumerate(plan.lineup_at_seat)]
    spectator = client.with_token(None)
    records = [SeatRecord() for _ in seats]
    try:
        for seat, token in zip(seats, created.seat_tokens, strict=True):
            factory = bots[seat.spec.builtin] if seat.spec.builtin is not None else None
            stderr_path = (
                game_dir / f"seat{seat.seat}-{seat.spec.name}.stderr" if game_dir else None
            )
            await seat.start(
                client,
                target,
                match,
                token.token,
                _bot_seed(plan, seat.seat),
                factory() if factory else None,
                stderr_path,
            )
        outcome = await _watch(spectator, match, records)
    finally:
        try:
            await asyncio.gather(
                *(seat.finish(options.exit_grace) for seat in seats), return_exceptions=True
            )
        finally:
            # Also when the run is cancelled (Ctrl-C) during the grace period above.
            for seat in seats:
                seat.kill()
    final = await spectator.get_match(match)
    for status in final.match.seats:
        records[status.seat].illegal_moves = getattr(status, "illegal_moves", 0)
    for result in outcome.results:
        record = records[result.seat]
        record.score, record.rank, record.forfeited = result.score, result.rank, result.forfeited
    for seat in seats:
        records[seat.seat].crashed = seat.failure is not None
        if seat.failure and game_dir:
            with open(game_dir / f"seat{seat.seat}-{seat.spec.name}.stderr", "a") as stream:
                stream.write(f"\n[botarena match] {seat.spec.name} {seat.failure}\n")
    replay = (
        await _write_replay(spectator, match, created.match, names, game_dir) if game_dir else None
    )
    return GameRecord(plan, match, records, outcome.reason, str(replay) if replay else None)


async def _write_replay(
    spectator: AsyncMatchClient,
    match: str,
    created: match_pb2.Match,
    names: Sequence[str],
    game_dir: Path,
) -> Path:
    path = game_dir / "replay.jsonl"
    header = {
        "type": "header",
        "schema_version": REPLAY_SCHEMA_VERSION,
        "match": match,
        "game": match_pb2.Game.Name(created.config.game),
        "config": json_format.MessageToDict(created.config),
        "seed": str(created.config.seed),
        "seats": len(names),
        "bots": list(names),
    }
    with open(path, "w") as stream:
        stream.write(json.dumps(header, separators=(",", ":")) + "\n")
        async with contextlib.aclosing(spectator.stream_match_events(match)) as events:
            async for event in events:
                if event.WhichOneof("kind") == "move_applied":
                    # The board after each move follows from the moves: keep files small.
                    event.move_applied.ClearField("view")
                stream.write(_event_line(event) + "\n")
    return path


def python_command(module: str) -> tuple[str, ...]:
    """Return the command that runs a Python module with this interpreter."""
    return (sys.executable, "-m", module)
