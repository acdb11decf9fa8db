"""Benchmark a frozen node: ``botarena serve`` nodes on one PostgreSQL, SDK bots playing
matches on them, one node stopped with SIGSTOP (a network partition, as its peers see it:
its connections stay open and answer nothing) well past its lease, then woken (SIGCONT).

Usage: ``python bench/bench_frozen_node.py [--nodes 3] [--matches 36] [--lease 4]
[--freeze 40] [--think 0.3] [--no-baseline]``

Each match is created on node ``i % nodes`` (which runs it) and its two bots (random
moves after ``--think`` seconds) are sent to the next node, which redirects them to the
owner; the bots run in this process on one shared client per node, as ``run_bot_async``
lets them. Once every match has a few moves, node 0 (which runs every ``--nodes``-th
match) is frozen for ``--freeze`` seconds. The bots must leave it for their node, which takes the
matches over once their leases expire, and keep their seats: the run prints the matches
finished, abandoned, the seats forfeited (by reason), the stand-in moves, how long after
the freeze every one of the frozen node's matches had been taken over and its bots
moved again (their first own move on the other node: the largest and the median over
those matches), and the tracebacks in the woken node's log. First (unless
``--no-baseline``) the same run with the SDK's keepalive turned off, the liveness this
change adds: its figures side by side. Times are noisy on a shared machine. Never a test.

PostgreSQL: ``BOTARENA_TEST_POSTGRES_URL`` or the ``pgserver`` wheel (as the tests).
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import tempfile
import time
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path

from google.protobuf import duration_pb2

import botarena.clients._channel as channel
from botarena.bots import RandomBot
from botarena.clients import AsyncMatchClient, RetryPolicy, run_bot_async
from botarena.clients._retry import call_with_retry
from botarena.clients.testing import ServerProcess, SlowBot, free_port
from botarena.server.store.local_postgres import configured_or_local_postgres, scratch_database
from botarena.v1 import match_pb2


@dataclass(slots=True)
class Run:
    """What one run measured."""

    label: str
    matches: int = 0
    finished: int = 0
    abandoned: int = 0
    forfeits: Counter[str] = field(default_factory=Counter)
    stand_ins: int = 0
    bot_errors: int = 0
    frozen_matches: int = 0
    takeover_seconds: float | None = None
    back_seconds: list[float] = field(default_factory=list)
    tracebacks: int = 0
    seconds: float = 0.0


def _nodes(url: str, folder: Path, count: int, lease: float) -> list[ServerProcess]:
    nodes = []
    for number in range(count):
        port = free_port()
        options = ["--advertise", f"127.0.0.1:{port}", "--lease-seconds", str(lease)]
        log = folder / f"node-{number}.log"
        nodes.append(ServerProcess(url, options=options, log_path=log, port=port))
    return nodes


async def _scenario(run: Run, nodes: list[ServerProcess], args: argparse.Namespace) -> None:
    config = match_pb2.MatchConfig(
        game=match_pb2.GAME_QWIRKLE,
        seat_count=2,
        time_control=match_pb2.TimeControl(move_time_limit=duration_pb2.Duration(seconds=5)),
    )
    clients = [AsyncMatchClient(target=node.address) for node in nodes]
    try:
        created = [
            await clients[number % len(nodes)].create_match(config)
            for number in range(args.matches)
        ]
        run.matches = len(created)
        bots = [
            asyncio.create_task(
                run_bot_async(
                    SlowBot(RandomBot(), args.think),
                    server=clients[(number + 1) % len(nodes)],
                    token=seat.token,
                    seed=number * 10 + seat.seat,
                )
            )
            for number, match in enumerate(created)
            for seat in match.seat_tokens
        ]
        started = time.monotonic()
        while True:
            versions = [
                (await clients[n % len(nodes)].get_match(m.match.name)).match.state_version
                for n, m in enumerate(created)
            ]
            if min(versions) >= 3 or time.monotonic() > started + 120:
                break
            await asyncio.sleep(0.2)
        frozen = nodes[0]
        frozen_ids = {
            m.match.name.removeprefix("matches/")
            for n, m in enumerate(created)
            if n % len(nodes) == 0
        }
        run.frozen_matches = len(frozen_ids)
        frozen.freeze()
        frozen_at = time.monotonic()
        frozen_wall = time.time()
        await asyncio.sleep(args.freeze)
        frozen.thaw()
        results = await asyncio.gather(*bots, return_exceptions=True)
        run.bot_errors = sum(isinstance(result, BaseException) for result in results)
        run.seconds = time.monotonic() - frozen_at
        for number, match in enumerate(created):
            client = clients[(number + 1) % len(nodes)]
            reply = await call_with_retry(
                lambda: client.get_match(match.match.name),  # noqa: B023 (awaited at once)
                RetryPolicy(max_elapsed=30.0),
            )
            state = reply.match
            if match.match.name.removeprefix("matches/") in frozen_ids:
                run.back_seconds += _first_move_after(
                    await client.get_replay(match.match.name), frozen_wall
                )
            run.finished += state.state == match_pb2.Match.STATE_FINISHED
            run.abandoned += state.state == match_pb2.Match.STATE_ABANDONED
            for seat in state.seats:
                run.stand_ins += seat.stand_in_moves
                if seat.forfeit_reason:
                    run.forfeits[seat.forfeit_reason] += 1
        taken = [
            line
            for node in nodes[1:]
            for line in node.events("match recovered")
            if line["match"] in frozen_ids
        ]
        first: dict[str, float] = {}
        for line in taken:  # a match may change hands again later (a late renewal)
            at = _epoch(line["timestamp"])
            first[line["match"]] = min(first.get(line["match"], at), at)
        if first:
            run.takeover_seconds = max(first.values()) - frozen_wall
    finally:
        for client in clients:
            await client.close()


def _first_move_after(replay: match_pb2.Replay, since: float) -> list[float]:
    """Seconds from ``since`` (epoch) to the first move a bot made itself after it, if any."""
    for step in replay.steps:
        event = step.event
        at = event.time.ToNanoseconds() / 1e9
        if (
            at > since
            and event.HasField("move_applied")
            and not event.move_applied.by_timeout_policy
        ):
            return [at - since]
    return []


def _epoch(timestamp: str) -> float:
    return datetime.fromisoformat(timestamp.replace("Z", "+00:00")).timestamp()


def _measure(label: str, url: str, args: argparse.Namespace, *, keepalive: bool) -> Run:
    run = Run(label)
    saved = channel.KEEPALIVE_CHANNEL_OPTIONS
    if not keepalive:
        channel.KEEPALIVE_CHANNEL_OPTIONS = ()
    try:
        with (
            tempfile.TemporaryDirectory(prefix="bench-frozen-") as scratch,
            scratch_database(url, "bench_frozen") as database,
        ):
            nodes = _nodes(database, Path(scratch), args.nodes, args.lease)
            try:
                for node in nodes:
                    node.start()
                asyncio.run(_scenario(run, nodes, args))
                time.sleep(2 * args.lease)  # the woken node notices its leases are lost
                run.tracebacks = nodes[0].log_path.read_text().count("Traceback")
            finally:
                for node in nodes:
                    node.kill()
    finally:
        channel.KEEPALIVE_CHANNEL_OPTIONS = saved
    return run


def _print(runs: list[Run], args: argparse.Namespace) -> None:
    print(
        f"{args.nodes} nodes, {args.matches} matches (Qwirkle, random bots thinking "
        f"~{args.think} s, 5 s a move), {args.lease} s leases, node 0 frozen {args.freeze} s"
    )
    rows: list[tuple[str, Callable[[Run], str]]] = [
        ("matches finished", lambda r: f"{r.finished}/{r.matches}"),
        ("matches abandoned", lambda r: str(r.abandoned)),
        ("seats forfeited", lambda r: str(sum(r.forfeits.values()))),
        ("  by reason", lambda r: ", ".join(f"{k} {v}" for k, v in r.forfeits.items()) or "-"),
        ("stand-in moves", lambda r: str(r.stand_ins)),
        ("bots that failed", lambda r: str(r.bot_errors)),
        ("frozen node's matches", lambda r: str(r.frozen_matches)),
        (
            "all taken over, after freeze (s)",
            lambda r: "-" if r.takeover_seconds is None else f"{r.takeover_seconds:.1f}",
        ),
        (
            "bots moving again, after freeze (s)",
            lambda r: (
                f"{max(r.back_seconds):.1f} max, {statistics.median(r.back_seconds):.1f} median"
                if r.back_seconds
                else "-"
            ),
        ),
        ("freeze to last bot done (s)", lambda r: f"{r.seconds:.1f}"),
        ("tracebacks in woken node's log", lambda r: str(r.tracebacks)),
    ]
    width = max(len(name) for name, _ in rows)
    print(f"{'':{width}}  " + "  ".join(f"{run.label:>20}" for run in runs))
    for name, value in rows:
        print(f"{name:{width}}  " + "  ".join(f"{value(run):>20}" for run in runs))


def main() -> None:
    parser = argparse.ArgumentParser(description="A node frozen past its lease, bots on it.")
    parser.add_argument("--nodes", type=int, default=3)
    parser.add_argument("--matches", type=int, default=36)
    parser.add_argument("--lease", type=float, default=4.0)
    parser.add_argument("--freeze", type=float, default=40.0)
    parser.add_argument("--think", type=float, default=0.3)
    parser.add_argument("--no-baseline", action="store_true")
    args = parser.parse_args()
    runs = []
    with configured_or_local_postgres() as url:
        if not args.no_baseline:
            runs.append(_measure("no keepalive", url, args, keepalive=False))
        runs.append(_measure("keepalive", url, args, keepalive=True))
    _print(runs, args)


if __name__ == "__main__":
    main()
