# mypy: disable-error-code="import-untyped"
"""Measure the ladder's scheduling handover when the scheduling node freezes: three
``botarena serve --ladder`` nodes on one PostgreSQL, the leader stopped with SIGSTOP.

Usage: ``python bench/bench_scheduler_freeze.py [--lease S] [--freeze S] [--bots N]``

Starts a throwaway PostgreSQL and three ladder nodes (``--lease-seconds``), waits until
the first one schedules, freezes it (SIGSTOP) before any bot connects, then registers
``--bots`` built-in bots (greedy and random in turn) and connects them to the other
nodes. Printed: the seconds from the freeze until another node took the scheduling
lease and until it started the first ladder match, how many matches the other nodes
started during the freeze, and, after SIGCONT and a few seconds more, how many the old
leader started (it must be none: its writes are fenced by the lease it lost). Timings
on a shared machine are noise; the bound is the lease plus a tick (1 s). Never a test.
"""

from __future__ import annotations

import argparse
import asyncio
import functools
import json
import os
import signal
import tempfile
import time
from datetime import datetime
from pathlib import Path

from botarena.bots import get_bot
from botarena.clients import AsyncLadderClient, run_ladder_bot_async
from botarena.clients.testing import ServerProcess, free_port
from botarena.server.store.local_postgres import running_postgres, scratch_database
from botarena.v1 import match_pb2


def _events(log: Path, name: str) -> list[float]:
    """The wall times at which the node logged ``name``."""
    times = []
    for line in log.read_text().splitlines():
        if line.startswith("{"):
            entry = json.loads(line)
            if entry.get("event") == name:
                stamp = entry["timestamp"].replace("Z", "+00:00")
                times.append(datetime.fromisoformat(stamp).timestamp())
    return times


async def _measure(nodes: list[ServerProcess], args: argparse.Namespace) -> None:
    leader, others = nodes[0], nodes[1:]
    logs = [node.log_path for node in others]
    while not _events(leader.log_path, "ladder scheduling on this node"):
        await asyncio.sleep(0.05)
    os.kill(leader.pid, signal.SIGSTOP)
    frozen = time.time()
    bots = []
    try:
        for number in range(args.bots):
            name = ("greedy", "random")[number % 2]
            target = others[number % len(others)].address
            async with AsyncLadderClient(target=target) as client:
                registered = await client.register_bot(
                    f"{name}-{number}", "", match_pb2.GAME_QWIRKLE
                )
            bots.append(
                asyncio.create_task(
                    run_ladder_bot_async(
                        functools.partial(get_bot, name),
                        server=target,
                        secret=registered.secret,
                    )
                )
            )
        await asyncio.sleep(args.freeze - (time.time() - frozen))
        during = sum(len(_events(log, "ladder match started")) for log in logs)
    finally:
        os.kill(leader.pid, signal.SIGCONT)
    woke = time.time()
    try:
        await asyncio.sleep(5.0)
    finally:
        for task in bots:
            task.cancel()
        await asyncio.gather(*bots, return_exceptions=True)
    took = min(
        (t for log in logs for t in _events(log, "ladder scheduling on this node")), default=None
    )
    first = min((t for log in logs for t in _events(log, "ladder match started")), default=None)
    late = [t for t in _events(leader.log_path, "match created") if t >= frozen]
    lost = _events(leader.log_path, "ladder scheduling lost to another node")
    print(
        f"3 ladder nodes, {args.lease:g} s leases, leader frozen {args.freeze:g} s, "
        f"{args.bots} bots"
    )
    print(
        f"  lease taken over after   {took - frozen:.2f} s" if took else "  lease never taken over"
    )
    print(f"  first match after        {first - frozen:.2f} s" if first else "  no match started")
    print(f"  matches started frozen   {during}")
    print(
        f"  old leader woken: lost the lease after {lost[-1] - woke:.2f} s"
        if lost
        else "  old leader never said it lost the lease"
    )
    print(f"  matches the old leader created after the freeze: {len(late)}")


def main() -> None:
    """Run the measurement and print its numbers."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--lease", type=float, default=4.0, help="lease seconds (default 4)")
    parser.add_argument("--freeze", type=float, default=30.0, help="seconds frozen (default 30)")
    parser.add_argument("--bots", type=int, default=4, help="ladder bots (default 4)")
    args = parser.parse_args()
    with (
        tempfile.TemporaryDirectory(prefix="bench_scheduler_freeze_") as folder,
        running_postgres() as server,
        scratch_database(server.url, "bench_freeze") as url,
    ):
        nodes = []
        for number in range(3):
            port = free_port()
            options = ["--advertise", f"127.0.0.1:{port}", "--lease-seconds", str(args.lease)]
            log = Path(folder) / f"node-{number}.log"
            nodes.append(
                ServerProcess(url, options=[*options, "--ladder"], log_path=log, port=port)
            )
        try:
            for node in nodes:
                node.start()
            asyncio.run(_measure(nodes, args))
        finally:
            for node in nodes:
                node.kill()


if __name__ == "__main__":
    main()
