# mypy: disable-error-code="import-untyped"
"""Measure matches through a PostgreSQL outage: three ``botarena serve`` nodes on one
PostgreSQL, many matches of SDK bots, the database stopped and started again.

Usage: ``python bench/bench_database_faults.py [--matches N] [--lease S] [--fast S]
[--crash S] [--forfeit]``

Starts a throwaway PostgreSQL (``local_postgres``) and three nodes (``--advertise``,
``--lease-seconds``) on a fresh database for each scenario, creates ``--matches`` Qwirkle
matches spread over the nodes (default time control: 10 s a move, a stand-in move on a
timeout; ``--forfeit``: the ladder's policy, the seat forfeits) and plays every seat
with the SDK (``run_bot_async``, the random bot taking 50 ms a move, so matches outlast
the outage). Two seconds in, the scenario stops
PostgreSQL: not at all (undisturbed), ``pg_ctl -m fast`` for ``--fast`` seconds, or
``-m immediate`` (a crash) for ``--crash`` seconds, then starts it on the same port and
data. Printed per scenario: matches finished, seats forfeited, bots that died (an SDK
call gave up or failed), abandoned matches, seats' timeouts, the recovery time (from
the restart to the first commit that had waited for the database) and the run's time
next to the undisturbed run's, as a ratio. Timings on a shared machine are noise: read
the counts, and the ratio. Never a test.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import tempfile
import time
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Literal

import psycopg

from botarena.bots import get_bot
from botarena.clients import AsyncMatchClient, run_bot_async
from botarena.clients.testing import ServerProcess, SlowBot, free_port
from botarena.server.store.local_postgres import LocalPostgres, running_postgres, scratch_database
from botarena.v1 import match_pb2


@dataclass(frozen=True, slots=True)
class Scenario:
    """What one scenario did."""

    name: str
    matches: int
    finished: int
    forfeits: int
    died: int
    abandoned: int
    timeouts: int
    recovery: float | None
    seconds: float


def _first_after(logs: Sequence[Path], events: set[str], since: float) -> float | None:
    """The earliest wall time after ``since`` at which a node logged one of ``events``."""
    times = []
    for log in logs:
        for line in log.read_text().splitlines():
            if not line.startswith("{"):
                continue
            entry = json.loads(line)
            if entry.get("event") in events:
                stamp = datetime.fromisoformat(entry["timestamp"].replace("Z", "+00:00"))
                if stamp.timestamp() >= since:
                    times.append(stamp.timestamp())
    return min(times) if times else None


async def _play(
    addresses: Sequence[str],
    matches: int,
    outage: tuple[LocalPostgres, Literal["fast", "immediate"], float] | None,
    policies: match_pb2.MatchPolicies,
) -> tuple[list[BaseException | list[match_pb2.MatchOutcome]], float | None]:
    config = match_pb2.MatchConfig(game=match_pb2.GAME_QWIRKLE, seat_count=2, policies=policies)
    seats: list[list[asyncio.Task[match_pb2.MatchOutcome]]] = []
    for number in range(matches):
        address = addresses[number % len(addresses)]
        async with AsyncMatchClient(target=address) as client:
            created = await client.create_match(config)
        seats.append(
            [
                asyncio.create_task(
                    run_bot_async(
                        SlowBot(get_bot("random"), 0.05),
                        server=address,
                        token=seat.token,
                        match=created.match.name,
                    )
                )
                for seat in created.seat_tokens
            ]
        )
    restarted = None
    if outage is not None:
        await asyncio.sleep(2.0)
        server, mode, down = outage
        restarted = await asyncio.to_thread(server.outage, mode, down)
    results: list[BaseException | list[match_pb2.MatchOutcome]] = []
    for match in seats:
        try:
            results.append(list(await asyncio.gather(*match)))
        except Exception as error:  # a bot died
            results.append(error)
    return results, restarted


def _scenario(
    server: LocalPostgres,
    folder: Path,
    name: str,
    args: argparse.Namespace,
    mode: Literal["fast", "immediate"] | None,
) -> Scenario:
    down = args.fast if mode == "fast" else args.crash
    with scratch_database(server.url, "bench_faults") as url:
        nodes = []
        for number in range(3):
            port = free_port()
            options = ["--advertise", f"127.0.0.1:{port}", "--lease-seconds", str(args.lease)]
            log = folder / f"{name}-node-{number}.log"
            nodes.append(ServerProcess(url, options=options, log_path=log, port=port))
        try:
            for node in nodes:
                node.start()
            started = time.monotonic()
            outage = None if mode is None else (server, mode, down)
            results, restarted = asyncio.run(
                _play([node.address for node in nodes], args.matches, outage, _policies(args))
            )
            seconds = time.monotonic() - started
        finally:
            for node in nodes:
                node.kill()
        with psycopg.connect(url) as connection:
            finished, abandoned = connection.execute(
                "SELECT count(*) FILTER (WHERE finished), "
                "count(*) FILTER (WHERE end_reason = 'abandoned') FROM matches"
            ).fetchone() or (0, 0)
            timeouts = connection.execute("SELECT sum(timeouts) FROM match_seats").fetchone()
    outcomes = [result[0] for result in results if isinstance(result, list)]
    recovery = None
    if restarted is not None:
        waited = {"commit done after the database came back"}
        first = _first_after([node.log_path for node in nodes], waited, restarted)
        recovery = None if first is None else first - restarted
    return Scenario(
        name=name,
        matches=args.matches,
        finished=int(finished),
        forfeits=sum(r.forfeited for outcome in outcomes for r in outcome.results),
        died=sum(isinstance(result, BaseException) for result in results),
        abandoned=int(abandoned),
        timeouts=int((timeouts or (0,))[0] or 0),
        recovery=recovery,
        seconds=seconds,
    )


def _policies(args: argparse.Namespace) -> match_pb2.MatchPolicies:
    if args.forfeit:  # the ladder's: a seat that runs out of time forfeits
        return match_pb2.MatchPolicies(on_timeout=match_pb2.TIMEOUT_POLICY_FORFEIT)
    return match_pb2.MatchPolicies()


def main() -> None:
    """Run the scenarios and print their numbers."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--matches", type=int, default=36, help="matches (default 36)")
    parser.add_argument("--lease", type=float, default=4.0, help="lease seconds (default 4)")
    parser.add_argument("--fast", type=float, default=5.0, help="seconds down, fast stop")
    parser.add_argument("--crash", type=float, default=15.0, help="seconds down, crash")
    parser.add_argument(
        "--forfeit", action="store_true", help="the ladder's timeout policy: forfeit"
    )
    args = parser.parse_args()
    scenarios: tuple[tuple[str, Literal["fast", "immediate"] | None], ...] = (
        ("undisturbed", None),
        (f"fast stop, {args.fast:g} s down", "fast"),
        (f"crash, {args.crash:g} s down", "immediate"),
    )
    with (
        tempfile.TemporaryDirectory(prefix="bench_database_faults_") as folder,
        running_postgres() as server,
    ):
        done = [
            _scenario(server, Path(folder), f"s{index}", args, mode)
            for index, (_, mode) in enumerate(scenarios)
        ]
    calm = done[0].seconds
    policy = "forfeit" if args.forfeit else "stand-in move"
    print(
        f"3 nodes, {args.matches} Qwirkle matches of SDK bots, {args.lease:g} s leases, "
        f"on a timeout: {policy}"
    )
    for (label, _), run in zip(scenarios, done, strict=True):
        recovery = "" if run.recovery is None else f", recovery {run.recovery:.2f} s"
        print(
            f"  {label:22} finished {run.finished}/{run.matches}, forfeits {run.forfeits}, "
            f"bots died {run.died}, abandoned {run.abandoned}, timeouts {run.timeouts}"
            f"{recovery}, {run.seconds:.1f} s (x{run.seconds / calm:.2f})"
        )


if __name__ == "__main__":
    main()
