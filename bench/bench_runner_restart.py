"""Benchmark a run through a server crash: ``botarena match --server`` with 50 games in
flight while the server is killed (``kill -9``) and restarted on the same port.

Usage: ``python bench/bench_runner_restart.py [--games N] [--concurrency C] [--down S]``

Starts ``botarena serve --db FILE`` in a child process and a runner (``botarena match
--server``, greedy vs random at Qwirkle, built-in bots in the runner's process) in
another. Once ``concurrency + 10`` matches have been created, the server is killed with
SIGKILL, stays down for ``--down`` seconds and is started again on the same port and
database. The runner must finish every game: it prints how many finished and failed,
the games in flight at the kill, and the run's time next to an undisturbed run of the
same games (same seed key), as a ratio. Never a test.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

from botarena.clients.replays import REPLAY_FILE_NAME
from botarena.clients.testing import ServerProcess


@dataclass(frozen=True, slots=True)
class Run:
    """What one run did."""

    planned: int
    finished: int
    abandoned: int
    crashes: int
    forfeits: int
    seconds: float
    status: int
    in_flight_at_kill: int | None
    down_seconds: float | None


def _created(out: Path) -> list[Path]:
    games = out / "games"
    return sorted(games.iterdir()) if games.exists() else []


def _run(folder: Path, games: int, concurrency: int, down: float | None) -> Run:
    out = folder / "run"
    with ServerProcess(folder / "botarena.db") as server:
        address = server.start()
        command = [sys.executable, "-m", "botarena.clients.cli", "match", "--server", address]
        command += ["--bot", "greedy", "--bot", "random", "--games", str(games)]
        command += ["--concurrency", str(concurrency), "--out", str(out), "--quiet"]
        command += ["--seed-key", "bench_runner_restart"]
        started = time.monotonic()
        with open(folder / "runner.log", "wb") as log:
            runner = subprocess.Popen(command, stdout=log, stderr=subprocess.STDOUT)
            in_flight: int | None = None
            down_seconds: float | None = None
            if down is not None:
                while len(_created(out)) < concurrency + 10 and runner.poll() is None:
                    time.sleep(0.01)
                created = _created(out)
                # A game's replay is written once its match is over.
                in_flight = sum(not (game / REPLAY_FILE_NAME).exists() for game in created)
                server.kill()
                killed = time.monotonic()
                time.sleep(down)
                server.start()
                down_seconds = time.monotonic() - killed
            status = runner.wait()
        seconds = time.monotonic() - started
    results = json.loads((out / "results.json").read_text())
    return Run(
        planned=results["planned_games"],
        finished=results["finished_games"],
        abandoned=results["abandoned_games"],
        crashes=sum(bot["crashes"] for bot in results["bots"]),
        forfeits=sum(bot["forfeits"] for bot in results["bots"]),
        seconds=seconds,
        status=status,
        in_flight_at_kill=in_flight,
        down_seconds=down_seconds,
    )


def main() -> None:
    """Run the benchmark and print its numbers."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=100, help="games per run (default 100)")
    parser.add_argument("--concurrency", type=int, default=50, help="games at once (default 50)")
    parser.add_argument("--down", type=float, default=3.0, help="seconds the server is down")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="bench_runner_restart_") as folder:
        calm_folder, crash_folder = Path(folder) / "calm", Path(folder) / "crash"
        calm_folder.mkdir()
        crash_folder.mkdir()
        calm = _run(calm_folder, args.games, args.concurrency, None)
        crash = _run(crash_folder, args.games, args.concurrency, args.down)
        if crash.status != 0:
            print((crash_folder / "runner.log").read_text()[-3000:])
    print(f"runner --concurrency {args.concurrency}, {crash.planned} games, greedy vs random")
    for name, run in (("undisturbed", calm), ("kill -9 + restart", crash)):
        extra = (
            f", {run.in_flight_at_kill} in flight at the kill, down {run.down_seconds:.1f} s"
            if run.down_seconds is not None
            else ""
        )
        print(
            f"  {name:18} finished {run.finished}/{run.planned}, failed "
            f"{run.planned - run.finished}, abandoned {run.abandoned}, crashes {run.crashes}, "
            f"forfeits {run.forfeits}, exit {run.status}, {run.seconds:.1f} s{extra}"
        )
    print(f"  time ratio (crash / undisturbed): {crash.seconds / calm.seconds:.2f}")


if __name__ == "__main__":
    main()
