"""``botarena match --queue URL``: a run played by ``botarena worker``s, followed here.

The coordinator plans the run as a local run does, puts it in the queue (its document
and one row per game set, ``_queue``) unless it re-attaches to a queued run (``--run
ID``), then follows the results as workers report them: each one is kept (under ``--out``
with its replay, viewer and bots' stderr, as a local run writes them), counted in the
progress line, the standings and the SPRT, and the tables come at the end. Once the SPRT
decides, the sets no worker holds are cancelled and those in flight finish. Ctrl-C stops
only the coordinator: the run stays queued, the workers go on, and ``botarena match
--queue URL --run ID`` re-attaches.
"""

from __future__ import annotations

import argparse
import asyncio
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

from rich.console import Console

from botarena.clients._files import write_atomically
from botarena.clients.replays import REPLAY_FILE_NAME, load_replay
from botarena.clients.runner._folder import game_folder
from botarena.clients.runner._pages import write_game_viewer
from botarena.clients.runner._play import BotFailedError
from botarena.clients.runner._queue import QueueDatabase, QueueError, ReportedGame, redacted
from botarena.clients.runner._queued import game_sets
from botarena.clients.runner._records import GameRecord, plan_document, record_from_document
from botarena.clients.runner._run import Reporter, RunPlan, Standings, print_crashes
from botarena.server.text import printable_markup

__all__ = ["follow_queue", "queued_document"]

_POLL = 0.25
"""Seconds between the coordinator's looks at the queue."""


async def queued_document(url: str, run_id: str) -> dict[str, Any]:
    """Return the document of the queued run ``run_id``.

    Raises:
        QueueError: The queue cannot be reached, or has no such run.
    """
    async with await QueueDatabase.connect(url) as database:
        row = await database.run(run_id)
    if row is None:
        raise QueueError(f"the queue {redacted(url)} has no run {run_id}")
    return row.document


def _write_files(out: Path, record: GameRecord, reported: ReportedGame) -> None:
    """Write a reported game's replay, viewer and bots' stderr under ``out``; point the
    record at the replay."""
    folder = game_folder(out, record.plan.number)
    folder.mkdir(parents=True, exist_ok=True)
    for name, text in reported.stderr.items():
        if Path(name).name == name and name.endswith(".stderr"):
            write_atomically(folder / name, text.encode())
    if reported.replay is not None:
        path = folder / REPLAY_FILE_NAME
        write_atomically(path, reported.replay)
        write_game_viewer(load_replay(path), path)
        record.replay = str(path)


def _failed_run(failure: Mapping[str, Any]) -> BotFailedError | None:
    if "bot" not in failure:
        return None
    return BotFailedError(
        str(failure["bot"]),
        int(failure["game"]),
        int(failure["seat"]),
        str(failure["failure"]),
        [str(line) for line in failure.get("stderr_tail", [])],
    )


async def follow_queue(
    args: argparse.Namespace,
    run: RunPlan,
    document: Mapping[str, Any],
    records: list[GameRecord],
    standings: Standings,
    console: Console,
    on_queued: Callable[[str], None],
) -> tuple[int, BotFailedError | None]:
    """Queue the run (or re-attach to ``args.run``) and follow it until every set is done,
    failed or cancelled; return the number of failed game sets and a bot that failed the
    run.

    Raises:
        QueueError: The queue cannot be used, or its run is not this plan.
    """

    def warn(text: str) -> None:
        console.print(f"[yellow]{text}", highlight=False, soft_wrap=True)

    async with await QueueDatabase.connect(args.queue, warn=warn) as database:
        run_id: str | None = args.run
        if run_id is None:
            sets = [[plan_document(plan) for plan in games] for games in game_sets(run.plans)]
            run_id = await database.create_run(document, sets)
            console.print(
                f"Queued run {run_id}: {len(run.plans)} games in {len(sets)} sets on "
                f"{redacted(args.queue)}; play them with `botarena worker --queue URL` on "
                "any machines",
                highlight=False,
                soft_wrap=True,
            )
        else:
            console.print(f"Following queued run {run_id}.", highlight=False)
        on_queued(run_id)
        return await _follow(args, database, run_id, run, records, standings, console)


async def _follow(
    args: argparse.Namespace,
    database: QueueDatabase,
    run_id: str,
    run: RunPlan,
    records: list[GameRecord],
    standings: Standings,
    console: Console,
) -> tuple[int, BotFailedError | None]:
    planned = {plan.number: plan for plan in run.plans}
    reporter = Reporter(args, run, records, standings, console, description=args.game)
    seen_sets: set[int] = set()
    seq = said = failures = 0
    failed_run: BotFailedError | None = None
    if standings.decided is not None:
        await database.cancel_pending(run_id)
    with reporter.progress:
        while True:
            # The status first: when it has no open set, every result is in already.
            status = await database.status(run_id)
            while reported := await database.results_after(run_id, seq):
                for game in reported:
                    seq = game.seq
                    await _keep(args, database, run_id, game, planned, reporter, run, console)
            for message_seq, worker, text in await database.messages_after(run_id, said):
                said = message_seq
                shown = f"worker {printable_markup(str(worker))}: {printable_markup(str(text))}"
                console.print(f"[yellow]{shown}", highlight=False, soft_wrap=True)
            for index, error in status.failed_sets:
                if index not in seen_sets:
                    seen_sets.add(index)
                    failures += 1
                    shown = printable_markup(str(error))
                    console.print(f"[red]set {index}: {shown}", highlight=False, soft_wrap=True)
            if status.failure is not None and failed_run is None:
                failed_run = _failed_run(status.failure)
                if failed_run is None:
                    failures += 1
                    console.print(
                        f"[red]{printable_markup(str(status.failure.get('refused')))}; "
                        "the run stopped",
                        highlight=False,
                        soft_wrap=True,
                    )
            if status.failure is not None:
                # A worker that died holding a set of the failed run leaves it claimed.
                await database.cancel_pending(run_id)
            if status.open_sets == 0:
                break
            workers = f"{args.game} · {status.workers} worker{'s' * (status.workers != 1)}"
            reporter.advance(0, description=workers)
            await asyncio.sleep(_POLL)
    await database.finish_run(run_id)
    return failures + (failed_run is not None), failed_run


async def _keep(
    args: argparse.Namespace,
    database: QueueDatabase,
    run_id: str,
    game: ReportedGame,
    planned: Mapping[int, Any],
    reporter: Reporter,
    run: RunPlan,
    console: Console,
) -> None:
    """Keep one reported game as a local run keeps a game that ended."""
    try:
        record = record_from_document(game.result)
    except ValueError as error:
        raise QueueError(
            f"run {run_id}: game {game.game_number} is not a record: {error}"
        ) from None
    if planned.get(record.plan.number) != record.plan:
        raise QueueError(
            f"run {run_id}: game {record.plan.number} was not planned so: the queued run is "
            "not this plan (another --seed-key?)"
        )
    if args.out:
        await asyncio.to_thread(_write_files, args.out, record, game)
    if reporter.finished(record):
        cancelled = await database.cancel_pending(run_id)
        reporter.decided(f"{cancelled} sets cancelled, those being played finish")
    print_crashes(console, run.lineup, record)
    reporter.advance()
