"""Three nodes on one PostgreSQL, one killed mid-run (``make cluster-demo``).

A throwaway PostgreSQL on 127.0.0.1 (``local_postgres``), three ``botarena serve --db URL
--advertise 127.0.0.1:PORT --ladder`` nodes, and the reference Qwirkle bots (greedy and
random, several of each) registered and connected to the ladder, spread over the nodes.
Each bot is given every node's address, its own node first (``run_ladder_bot_async``
with several servers). The scheduling node asks the node with the fewest matches to
create each one, so the matches run on all three. Once matches are running, the node
that runs the most of them is killed with SIGKILL; its bots move on to the next node by
themselves, the survivors split its matches (each takes its fair share of the expired
leases) and their seats follow the matches to the nodes that took them over. The
ladder plays a planned number of matches (every pair of bots --pair-cap times: then the
hourly pair cap stops it), and the demo prints the leaderboard, ``matches finished:
N/N`` checked in the store (every match that started finished, exactly once), the
matches each node started while all three lived and started or took over after the
kill, the moves per second and the takeover time: from the kill to the first move of a
match taken over by another node.

Usage:
    python scripts/cluster_demo.py [--bots N] [--pair-cap N] [--lease-seconds S]
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import itertools
import json
import os
import statistics
import tempfile
import time
from collections import Counter
from pathlib import Path
from typing import Any

from rich.console import Console

from botarena.bots import BUILTIN_BOTS
from botarena.clients import AsyncLadderClient, RetryPolicy, run_ladder_bot_async
from botarena.clients._ladder_cli import ladder_console, leaderboard_table
from botarena.clients.testing import ServerProcess, free_port
from botarena.server.store import PostgresStore
from botarena.server.store.local_postgres import local_postgres
from botarena.v1 import match_pb2

_NODES = 3
_KINDS = ("greedy", "random")
# The bots of the killed node find the next node quickly.
_RECONNECT = RetryPolicy(max_attempts=1, max_backoff=1.0, max_elapsed=float("inf"))


class Cluster:
    """The nodes, the store (for reading what happened), and the connected bots."""

    def __init__(self, url: str, folder: Path, args: argparse.Namespace, console: Console) -> None:
        self.store = PostgresStore(url)
        self.console = console
        self.nodes: list[ServerProcess] = []
        self.logs: list[Path] = []
        for number in range(_NODES):
            port = free_port()
            options = [
                "--advertise", f"127.0.0.1:{port}", "--lease-seconds", str(args.lease_seconds),
                "--ladder", "--ladder-move-time", "3",
                # The ladder stops by itself once every pair has met this often.
                "--ladder-pair-cap-per-hour", str(args.pair_cap),
            ]  # fmt: skip
            log = folder / f"node-{number}.log"
            self.logs.append(log)
            self.nodes.append(ServerProcess(url, options=options, log_path=log, port=port))
        self.bots: dict[str, asyncio.Task[None]] = {}
        self.ended: list[str] = []

    def rows(self, sql: str, parameters: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
        with self.store.database.session() as db:
            return db.rows(sql, parameters)

    def connect(self, name: str, secret: str, first: int) -> None:
        """Connect the bot ``name`` (a ladder bot of its own) to every node, node number
        ``first`` first, then the others in turn."""
        kind = name.split("-")[0]
        addresses = [node.address for node in self.nodes]
        self.bots[name] = asyncio.create_task(
            run_ladder_bot_async(
                BUILTIN_BOTS[kind].factory,
                server=addresses[first:] + addresses[:first],
                secret=secret,
                capacity=2,
                reconnect=_RECONNECT,
                on_match_end=lambda match, _: self.ended.append(match),
            )
        )

    def running_by_node(self) -> Counter[str]:
        """The unfinished matches per node address (their leases)."""
        rows = self.rows(
            "SELECT l.address FROM match_leases l JOIN matches m ON m.match_id = l.match_id "
            "WHERE NOT m.finished"
        )
        return Counter(str(address) for (address,) in rows)

    def ran_by_node(self) -> list[Counter[str]]:
        """Per node, from its log: the ladder matches it started, and those it took
        over from another node."""
        counts = []
        for log in self.logs:
            events = Counter[str]()
            for line in log.read_text().splitlines():
                if line.startswith("{"):
                    events[json.loads(line).get("event", "")] += 1
            counts.append(events)
        return counts

    def ladder_counts(self) -> tuple[int, int]:
        """Ladder matches started, and recorded (result or abandoned)."""
        row = self.rows("SELECT COUNT(*), COUNT(finished) FROM ladder_matches")[0]
        return int(row[0]), int(row[1])


async def demo(args: argparse.Namespace, url: str, folder: Path, console: Console) -> int:
    """Run the cluster, kill a node, wait for the planned matches; return the status."""
    cluster = Cluster(url, folder, args, console)
    with contextlib.ExitStack() as nodes:
        for node in cluster.nodes:  # the first one up takes the ladder's lock
            nodes.enter_context(node)  # killed on the way out
            node.start()
        try:
            return await _run(cluster, args)
        finally:
            cluster.store.close()


async def _run(cluster: Cluster, args: argparse.Namespace) -> int:
    console = cluster.console
    console.print("nodes: " + ", ".join(node.address for node in cluster.nodes))
    names = [f"{kind}-{n}" for n, kind in itertools.product(range(args.bots // 2), _KINDS)]
    pairs = len(names) * (len(names) - 1) // 2
    planned = pairs * args.pair_cap
    secrets: dict[str, str] = {}
    async with AsyncLadderClient(target=cluster.nodes[0].address) as client:
        for name in names:
            secrets[name] = (await client.register_bot(name, "demo", match_pb2.GAME_QWIRKLE)).secret
    for number, name in enumerate(names):
        cluster.connect(name, secrets[name], number % _NODES)
    console.print(f"{len(names)} bots connected, spread over the nodes; {planned} matches planned")
    started_at = time.time()
    while not (cluster.ladder_counts()[0] >= 2 * _NODES and cluster.running_by_node().total()):
        await asyncio.sleep(0.1)
    await asyncio.sleep(2.0)  # well into the matches
    running = cluster.running_by_node()
    victim_address, victim_matches = running.most_common(1)[0]
    victim = next(node for node in cluster.nodes if node.address == victim_address)
    taken = {
        str(match_id)
        for (match_id,) in cluster.rows(
            "SELECT l.match_id FROM match_leases l JOIN matches m ON m.match_id = l.match_id "
            "WHERE NOT m.finished AND l.address = ?",
            (victim_address,),
        )
    }
    ran_before = cluster.ran_by_node()
    killed_at = time.time()
    victim.kill()
    console.print(
        f"SIGKILL {victim_address} after {killed_at - started_at:.1f} s: it ran "
        f"{victim_matches} of {running.total()} running matches"
    )
    survivors = [node for node in cluster.nodes if node is not victim]
    with console.status(f"playing until {planned} matches have finished"):
        while cluster.ladder_counts()[1] < planned:
            await asyncio.sleep(0.2)
    ended_at = time.time()
    async with AsyncLadderClient(target=survivors[0].address) as client:
        board = await client.get_leaderboard(match_pb2.GAME_QWIRKLE)
    for task in cluster.bots.values():
        task.cancel()
    await asyncio.gather(*cluster.bots.values(), return_exceptions=True)
    console.print(leaderboard_table(board.entries, "qwirkle ladder on three nodes, one killed"))
    ran_after = cluster.ran_by_node()
    for number, node in enumerate(cluster.nodes):
        before, after = ran_before[number], ran_after[number]
        started = before["ladder match started"]
        later = after["ladder match started"] - started
        recovered = after["match recovered"] - before["match recovered"]
        console.print(
            f"node {node.address}: started {started} ladder matches while all three lived"
            + (
                " (killed)"
                if node is victim
                else f"; after the kill started {later} and took over {recovered}"
            )
        )
    return report(cluster, taken, killed_at, started_at, ended_at, args.lease_seconds)


def report(
    cluster: Cluster,
    taken: set[str],
    killed_at: float,
    started_at: float,
    ended_at: float,
    lease_seconds: float,
) -> int:
    """Print the checks and the measurements; return the exit status."""
    console = cluster.console
    started = [str(m) for (m,) in cluster.rows("SELECT match_id FROM ladder_matches")]
    finished_once = {
        str(match_id)
        for match_id, count in cluster.rows(
            "SELECT e.match_id, COUNT(*) FROM events e JOIN matches m ON m.match_id = e.match_id "
            "WHERE e.kind = 'match_finished' AND m.finished GROUP BY e.match_id"
        )
        if count == 1
    }
    recorded = {
        str(m)
        for (m,) in cluster.rows("SELECT match_id FROM ladder_matches WHERE finished IS NOT NULL")
    }
    good = [m for m in started if m in finished_once and m in recorded]
    console.print(f"matches finished: {len(good)}/{len(started)}")
    (moves,) = cluster.rows(
        "SELECT COUNT(*) FROM events WHERE kind = 'move_applied' AND time BETWEEN ? AND ?",
        (started_at, ended_at),
    )[0]
    console.print(
        f"moves: {moves} in {ended_at - started_at:.1f} s: {moves / (ended_at - started_at):.0f} "
        "moves/s over three nodes (two after the kill), every move committed to PostgreSQL"
    )
    firsts = (
        [
            float(first)
            for (first,) in cluster.rows(
                "SELECT MIN(time) FROM events WHERE time > ? AND match_id IN "
                f"({', '.join('?' * len(taken))}) GROUP BY match_id",
                (killed_at, *sorted(taken)),
            )
            if first is not None
        ]
        if taken
        else []
    )
    if firsts:
        console.print(
            f"takeover: {len(taken)} matches of the killed node; first move on another node "
            f"{min(firsts) - killed_at:.2f} s after the kill "
            f"(median {statistics.median(firsts) - killed_at:.2f} s, "
            f"last {max(firsts) - killed_at:.2f} s; leases of {lease_seconds:g} s)"
        )
    timeouts = cluster.rows("SELECT COALESCE(SUM(timeouts), 0) FROM ladder_seats")[0][0]
    console.print(f"seat timeouts (bots of the killed node, moved on to another): {timeouts}")
    return 0 if len(good) == len(started) else 1


def main() -> int:
    """Parse the arguments and run the demo."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--bots", type=int, default=6, help="bots, half greedy (default 6)")
    parser.add_argument(
        "--pair-cap", type=int, default=3, help="matches planned per pair of bots (default 3)"
    )
    parser.add_argument("--lease-seconds", type=float, default=3.0, help="(default 3)")
    args = parser.parse_args()
    os.environ.setdefault("GRPC_VERBOSITY", "NONE")
    console = ladder_console()
    with tempfile.TemporaryDirectory() as folder, local_postgres(Path(folder)) as url:
        console.print(f"PostgreSQL at {url}")
        return asyncio.run(demo(args, url, Path(folder), console))


if __name__ == "__main__":
    raise SystemExit(main())
