"""``botarena worker``: play the game sets of queued runs, on any number of machines.

A worker connects to the queue (``_queue``), starts its own runner worker processes
(``_workers``: embedded servers that also play the built-in bots), and runs
``--concurrency`` slots. Each slot claims a game set under a lease, plays its games one
after another with the runner's own game code (``_play.play_game``, as a local run plays
them), reports each game (its record, replay and the tail of each bot's stderr) and
marks the set done. A heartbeat renews the worker's leases every third of the lease; a
set whose lease was lost (the worker stalled and another one took it over) is stopped.

A command bot runs on the worker's machine, in the worker's current folder: its program
must be there (on ``PATH``, or the path the run gave). A worker that cannot play a run
(a command or built-in bot it does not have) says so to the run's coordinator once and
leaves the run's sets to other workers.

Ctrl-C (or SIGTERM) stops the games in flight and gives their sets back to the queue;
the games they had reported stay reported. A worker killed outright (``kill -9``)
holds its sets until their leases expire, then another worker plays the rest of them.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import dataclasses
import os
import secrets
import signal
import socket
import sys
import tempfile
import time
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from botarena.clients.replays import REPLAY_FILE_NAME
from botarena.clients.runner._folder import game_folder
from botarena.clients.runner._plan import GamePlan
from botarena.clients.runner._play import BotFailedError, MatchRefusedError, play_game
from botarena.clients.runner._queue import ClaimedSet, QueueDatabase, QueueError, redacted
from botarena.clients.runner._queued import QueuedRun, missing_commands, queued_run
from botarena.clients.runner._records import plan_from_document, record_document
from botarena.clients.runner._run import BuiltinBot, embedded_options
from botarena.clients.runner._workers import EmbeddedServerExitedError, Workers, worker_count
from botarena.server.text import printable

__all__ = ["work"]

_EXIT_OK = 0
_EXIT_FAILED = 1
_EXIT_INTERRUPTED = 130

_MAX_ATTEMPTS = 3
"""A set whose games fail (the server, not a bot) this many times is marked failed."""

_STDERR_BYTES = 16_384
"""How much of the end of each bot's stderr file goes with a game's result."""


def _log(text: str) -> None:
    line = f"{time.strftime('%H:%M:%S')} botarena worker: {printable(text)}"
    print(line, file=sys.stderr, flush=True)


def _tail(path: Path) -> str:
    with open(path, "rb") as stream:
        size = stream.seek(0, os.SEEK_END)
        stream.seek(max(0, size - _STDERR_BYTES))
        return stream.read().decode(errors="replace")


def _numbers(games: list[int]) -> str:
    return f"game {games[0]}" if len(games) == 1 else f"games {games[0]}-{games[-1]}"


class _QueueWorker:
    """The slots, the heartbeat and the runs this worker knows."""

    def __init__(
        self,
        args: argparse.Namespace,
        database: QueueDatabase,
        builtin: Mapping[str, BuiltinBot],
        pool: Workers,
    ) -> None:
        self.args = args
        self.database = database
        self.builtin = builtin
        self.pool = pool
        self.name = f"{socket.gethostname()}:{os.getpid()}:{secrets.token_hex(2)}"
        self.runs: dict[str, QueuedRun] = {}
        self.skipped: set[str] = set()
        self.held: dict[tuple[str, int], asyncio.Task[None]] = {}
        self.lost: set[tuple[str, int]] = set()
        self.busy = 0
        self.played = 0
        self.interrupted = False
        self.idle_exit = 0.0 if args.once else args.idle_exit

    def info(self, text: str) -> None:
        if not self.args.quiet:
            _log(text)

    async def heartbeat(self) -> None:
        """Renew this worker's leases; stop playing a set whose lease was lost."""
        while True:
            await asyncio.sleep(self.args.lease / 3)
            # Only sets claimed before the renewal can be missing from its answer.
            before = dict(self.held)
            held = await self.database.renew(self.name, self.args.lease)
            for key, task in before.items():
                if key not in held and key in self.held and not task.done():
                    self.lost.add(key)
                    task.cancel()

    async def slot(self) -> None:
        """Claim and play sets until there is nothing to claim for ``--idle-exit``."""
        idle_since = time.monotonic()
        while True:
            claimed = await self.database.claim(
                self.name, self.args.lease, run_id=self.args.run, skip_runs=self.skipped
            )
            if claimed is None:
                if (
                    self.idle_exit is not None
                    and self.busy == 0
                    and time.monotonic() - idle_since >= self.idle_exit
                ):
                    return
                await asyncio.sleep(self.args.poll)
                continue
            self.busy += 1
            try:
                await self._hold(claimed)
            finally:
                self.busy -= 1
                idle_since = time.monotonic()

    async def _hold(self, claimed: ClaimedSet) -> None:
        key = (claimed.run_id, claimed.set_index)
        run = await self._run(claimed.run_id)
        if run is None:
            await self.database.release_set(*key, self.name)
            return
        play = asyncio.create_task(self._play_set(claimed, run))
        self.held[key] = play
        try:
            await asyncio.wait({play})
        finally:
            self.held.pop(key, None)
            if not play.done():  # this slot was cancelled: Ctrl-C
                play.cancel()
                with contextlib.suppress(BaseException):
                    await play
                await self.database.release_set(*key, self.name)
                self.info(f"gave set {claimed.set_index} of run {claimed.run_id} back")
        if play.cancelled() and key in self.lost:
            self.lost.discard(key)
            _log(
                f"set {claimed.set_index} of run {claimed.run_id} was taken over by another "
                "worker (this one's lease expired): stopped it"
            )
            return
        error = play.exception()
        if error is not None:
            raise error

    async def _run(self, run_id: str) -> QueuedRun | None:
        """Return the run ``run_id`` as this worker plays it, or None if it cannot."""
        known = self.runs.get(run_id)
        if known is not None:
            return known
        row = await self.database.run(run_id)
        if row is None:
            return None
        try:
            run = queued_run(row.document)
            missing = missing_commands(run.lineup, list(self.builtin))
        except ValueError as error:
            missing = [str(error)]
        if missing:
            text = f"cannot play run {run_id}: {'; '.join(missing)}"
            _log(f"{text}; leaving it to other workers")
            self.skipped.add(run_id)
            await self.database.say(run_id, self.name, text)
            return None
        for spec in run.lineup:
            if spec.builtin is not None and not self.builtin[spec.builtin].plays(run.options.game):
                self.skipped.add(run_id)
                await self.database.say(
                    run_id, self.name, f"the built-in bot {spec.builtin} here does not play it"
                )
                return None
        self.runs[run_id] = run
        return run

    async def _play_set(self, claimed: ClaimedSet, run: QueuedRun) -> None:
        key = (claimed.run_id, claimed.set_index)
        plans = [plan_from_document(document) for document in claimed.games]
        numbers = [plan.number for plan in plans]
        reported = await self.database.reported_games(claimed.run_id, numbers)
        again = f", attempt {claimed.attempts}" if claimed.attempts > 1 else ""
        self.info(
            f"set {claimed.set_index} of run {claimed.run_id} (seed {plans[0].label}, "
            f"{_numbers(numbers)}{again})"
            + (f"; {len(reported)} reported already" if reported else "")
        )
        started = time.monotonic()
        for plan in plans:
            if plan.number in reported:
                continue
            try:
                await self._play_game(claimed.run_id, run, plan)
            except (BotFailedError, MatchRefusedError) as error:
                # The run stops, as a local run does: the same failure awaits every game.
                self.held.pop(key, None)
                await self.database.fail_run(claimed.run_id, _failure(error, plan.number))
                await self.database.finish_set(*key, self.name, cancelled=True)
                _log(f"run {claimed.run_id} stopped: {error}")
                return
            except (asyncio.CancelledError, EmbeddedServerExitedError):
                raise
            except Exception as error:
                self.held.pop(key, None)
                text = f"game {plan.number} (seed {plan.label}) failed: {error}"
                if claimed.attempts >= _MAX_ATTEMPTS:
                    await self.database.finish_set(*key, self.name, error=text)
                    _log(f"{text}; set {claimed.set_index} failed {claimed.attempts} times")
                else:
                    await self.database.release_set(*key, self.name, count_attempt=True)
                    _log(f"{text}; set {claimed.set_index} goes back to the queue")
                return
        self.held.pop(key, None)
        if await self.database.finish_set(*key, self.name):
            self.info(
                f"set {claimed.set_index} of run {claimed.run_id} done in "
                f"{time.monotonic() - started:.1f} s"
            )
        else:
            _log(
                f"set {claimed.set_index} of run {claimed.run_id} was taken over by another "
                "worker (this one's lease expired); its games reported twice count once"
            )

    async def _play_game(self, run_id: str, run: QueuedRun, plan: GamePlan) -> None:
        with tempfile.TemporaryDirectory(prefix="botarena-worker-") as scratch:
            # Without files to send, no replay is fetched (a bot's crash keeps its tail).
            out = Path(scratch) if run.keep_files else None
            options = dataclasses.replace(run.options, out=out)
            failed: BotFailedError | None = None
            with self.pool.lease() as place:
                try:
                    record = await play_game(
                        place.client,
                        place.target,
                        plan,
                        run.lineup,
                        options,
                        place,
                        crash_stops_run=lambda spec: run.first_game.get(spec.name) == plan.number,
                    )
                except BotFailedError as error:
                    if error.record is None:
                        raise
                    failed, record = error, error.record
            replay, stderr = _files(game_folder(out, plan.number)) if out else (None, {})
            record.replay = None  # the coordinator's folder names its own
            await self.database.report_game(
                run_id,
                plan.number,
                self.name,
                record_document(record),
                replay=replay,
                stderr=stderr,
            )
            self.played += 1
            if failed is not None:
                raise failed


def _files(folder: Path) -> tuple[bytes | None, dict[str, str]]:
    """Return the replay of the game in ``folder`` and the tail of each bot's stderr."""
    replay_path = folder / REPLAY_FILE_NAME
    replay = replay_path.read_bytes() if replay_path.exists() else None
    return replay, {path.name: _tail(path) for path in sorted(folder.glob("*.stderr"))}


def _failure(error: BotFailedError | MatchRefusedError, game: int) -> dict[str, object]:
    if isinstance(error, MatchRefusedError):
        return {"refused": str(error), "game": game}
    return {
        "bot": error.bot,
        "game": error.game,
        "seat": error.seat,
        "failure": error.failure,
        "stderr_tail": error.stderr_tail,
    }


async def work(args: argparse.Namespace, builtin: Mapping[str, BuiltinBot]) -> int:
    """Play queued sets as ``args`` (``botarena worker``) says; return the exit status."""
    try:
        database = await QueueDatabase.connect(args.queue, warn=_log)
    except QueueError as error:
        _log(str(error))
        return _EXIT_FAILED
    loop = asyncio.get_running_loop()
    stop = asyncio.Event()
    for signum in (signal.SIGINT, signal.SIGTERM):
        loop.add_signal_handler(signum, stop.set)
    count = worker_count(args.concurrency, embedded=True, builtin_seats=0)
    factories = {name: bot.factory for name, bot in builtin.items()}
    worker: _QueueWorker | None = None
    try:
        async with (
            database,
            Workers(
                None, count=count, factories=factories, server_options=embedded_options({})
            ) as pool,
        ):
            worker = _QueueWorker(args, database, builtin, pool)
            only = f", run {args.run} only" if args.run else ""
            worker.info(
                f"{worker.name} playing from {redacted(args.queue)}: {args.concurrency} sets "
                f"at once on {count} embedded server(s), lease {args.lease:g} s{only}"
            )
            slots = {asyncio.create_task(worker.slot()) for _ in range(args.concurrency)}
            heartbeat = asyncio.create_task(worker.heartbeat())
            stopping = asyncio.create_task(stop.wait())
            pending: set[asyncio.Task[Any]] = {*slots, heartbeat, stopping}
            try:
                while not all(slot.done() for slot in slots):
                    done, pending = await asyncio.wait(pending, return_when=asyncio.FIRST_COMPLETED)
                    failed = any(not task.cancelled() and task.exception() for task in done)
                    if stopping in done or heartbeat in done or failed:
                        break
                worker.interrupted = stopping.done()
            finally:
                for task in (*slots, heartbeat, stopping):
                    task.cancel()
                results = await asyncio.gather(*slots, heartbeat, return_exceptions=True)
            errors = [
                result
                for result in results
                if isinstance(result, BaseException)
                and not isinstance(result, asyncio.CancelledError)
            ]
            if errors:
                raise errors[0]
    except EmbeddedServerExitedError as error:
        _log(f"{error}; its sets go back to the queue")
        return _EXIT_FAILED
    except QueueError as error:
        _log(f"{error}; this worker's sets go to other workers once their leases expire")
        return _EXIT_FAILED
    assert worker is not None
    if worker.interrupted:
        _log(f"interrupted after {worker.played} games; sets in flight went back to the queue")
        return _EXIT_INTERRUPTED
    worker.info(f"nothing more to claim: {worker.played} games played")
    return _EXIT_OK
