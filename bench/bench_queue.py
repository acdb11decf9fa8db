"""Benchmark the runner's queue: claims per second, and a queued run against a local one.

Usage: ``python bench/bench_queue.py [--sets N] [--processes 1,2,4] [--games G]
[--concurrency C] [--claims-only]``

A real PostgreSQL: ``$BOTARENA_TEST_POSTGRES_URL`` if set, else one started on 127.0.0.1
for the run (``local_postgres``). Each part uses a database of its own, dropped after.

Part 1, claims: a run of ``--sets`` game sets is queued, then P processes (each one
``QueueDatabase`` connection) claim a set and mark it done until none is left, as
``botarena worker`` slots do (claim: ``FOR UPDATE SKIP LOCKED LIMIT 1`` and the lease in
one statement; then ``finish_set``). Prints claims per second for each P, and checks that
no set was claimed twice (every set ends done after one attempt).

Part 2, throughput, in one run: ``botarena match --bot greedy --bot greedy --games G
--concurrency C --out DIR`` run locally (embedded servers in worker processes) next to
the same run with ``--queue``, played by one ``botarena worker --concurrency C`` on this
machine (the coordinator and the worker started together; the time is the
coordinator's, from its start to its exit, the worker's start-up included). Both write
every game's result, replay and viewer. Prints games per second of each and
``queue/local ratio: X``. The local run is timed before and after the queued one; the
mean of the two is used.
Timings on a shared machine are noisy: read the ratios. Never a test.
"""

from __future__ import annotations

import argparse
import asyncio
import multiprocessing
import os
import subprocess
import sys
import tempfile
import time
from multiprocessing.synchronize import Event

import psycopg

from botarena.clients.runner._plan import SeedKey, plan_games
from botarena.clients.runner._queue import QueueDatabase
from botarena.clients.runner._queued import game_sets
from botarena.clients.runner._records import plan_document
from botarena.server.store.local_postgres import configured_or_local_postgres, scratch_database

_CLI = (sys.executable, "-m", "botarena.clients.cli")


# ---------------------------------------------------------------------- part 1: claims


async def _claim_all(url: str, name: str, ready: Event, go: Event) -> int:
    async with await QueueDatabase.connect(url) as database:
        ready.set()
        while not go.is_set():
            await asyncio.sleep(0.001)
        claimed = 0
        while (game_set := await database.claim(name, 60.0)) is not None:
            await database.finish_set(game_set.run_id, game_set.set_index, name)
            claimed += 1
        return claimed


def _claimer(
    url: str, name: str, ready: Event, go: Event, counts: multiprocessing.Queue[int]
) -> None:
    counts.put(asyncio.run(_claim_all(url, name, ready, go)))


async def _queue_run(url: str, sets: int) -> str:
    plans = plan_games(2, 2 * sets, 1, SeedKey("bench", "qwirkle"))
    documents = [[plan_document(plan) for plan in games] for games in game_sets(plans)]
    async with await QueueDatabase.connect(url) as database:
        return await database.create_run({"schema_version": 1}, documents)


def _claims(server: str, sets: int, processes: int) -> tuple[float, bool]:
    """Return claims per second of ``processes`` claimers, and whether every set was
    claimed exactly once."""
    with scratch_database(server, "bench_queue") as url:
        run_id = asyncio.run(_queue_run(url, sets))
        context = multiprocessing.get_context("spawn")
        go = context.Event()
        counts: multiprocessing.Queue[int] = context.Queue()
        readies = [context.Event() for _ in range(processes)]
        children = [
            context.Process(target=_claimer, args=(url, f"p{index}", readies[index], go, counts))
            for index in range(processes)
        ]
        for child in children:
            child.start()
        for ready in readies:
            ready.wait(60)
        started = time.perf_counter()
        go.set()
        claimed = [counts.get(timeout=600) for _ in children]
        elapsed = time.perf_counter() - started
        for child in children:
            child.join()
        with psycopg.connect(url) as connection:
            rows = connection.execute(
                "SELECT count(*) FILTER (WHERE state = 'done' AND attempts = 1), count(*) "
                "FROM runner_game_sets WHERE run_id = %s",
                (run_id,),
            ).fetchone()
        once = rows is not None and rows[0] == rows[1] == sets == sum(claimed)
        return sum(claimed) / elapsed, once


# ---------------------------------------------------------------------- part 2: throughput


def _local(games: int, concurrency: int) -> float:
    with tempfile.TemporaryDirectory() as out:
        started = time.perf_counter()
        subprocess.run(
            [*_CLI, "match", "--bot", "greedy", "--bot", "greedy", "--games", str(games),
             "--concurrency", str(concurrency), "--out", out, "--quiet"],
            check=True,
            stdout=subprocess.DEVNULL,
        )  # fmt: skip
        return games / (time.perf_counter() - started)


def _queued(server: str, games: int, concurrency: int) -> float:
    with scratch_database(server, "bench_queue") as url, tempfile.TemporaryDirectory() as out:
        started = time.perf_counter()
        coordinator = subprocess.Popen(
            [*_CLI, "match", "--queue", url, "--bot", "greedy", "--bot", "greedy",
             "--games", str(games), "--out", out, "--quiet"],
            stdout=subprocess.DEVNULL,
        )  # fmt: skip
        worker = subprocess.Popen(
            [*_CLI, "worker", "--queue", url, "--concurrency", str(concurrency),
             "--idle-exit", "2", "--poll", "0.2", "--quiet"],
        )  # fmt: skip
        if coordinator.wait() != 0:
            raise SystemExit("the queued run failed")
        elapsed = time.perf_counter() - started
        worker.wait()
        return games / elapsed


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sets", type=int, default=4000, help="sets to claim, per process count")
    parser.add_argument("--processes", default="1,2,4", help="claimer process counts")
    parser.add_argument("--games", type=int, default=100, help="games of part 2's runs")
    parser.add_argument(
        "--concurrency", type=int, default=len(os.sched_getaffinity(0)), help="games at once"
    )
    parser.add_argument("--claims-only", action="store_true", help="part 1 only")
    args = parser.parse_args()
    os.environ.setdefault("GRPC_VERBOSITY", "ERROR")
    with configured_or_local_postgres() as server:
        print(f"part 1: claim + finish of {args.sets} sets")
        for processes in (int(part) for part in args.processes.split(",")):
            rate, once = _claims(server, args.sets, processes)
            verdict = "each set once" if once else "A SET WAS CLAIMED TWICE OR MISSED"
            print(f"  {processes} process(es): {rate:,.0f} claims/s ({verdict})")
        if args.claims_only:
            return
        print(f"part 2: greedy vs greedy, {args.games} games, concurrency {args.concurrency}")
        before = _local(args.games, args.concurrency)
        queued = _queued(server, args.games, args.concurrency)
        after = _local(args.games, args.concurrency)
        local = (before + after) / 2
        print(f"  local: {before:.2f} and {after:.2f} games/s (mean {local:.2f})")
        print(f"  queue: {queued:.2f} games/s (one worker on this machine)")
        print(f"queue/local ratio: {queued / local:.2f}")


if __name__ == "__main__":
    main()
