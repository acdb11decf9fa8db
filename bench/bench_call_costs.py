# mypy: disable-error-code="import-untyped"
"""Benchmark the call budget's weights and default: what each RPC costs the server, and
what a match runner spends.

Usage: ``python bench/bench_call_costs.py [--calls 2000] [--in-flight 16] [--runner-games
400] [--concurrency 50]``

Part 1, costs: a server (``create_server``, a SQLite file, a ladder, no call budget)
runs in a child process holding 500 idle Qwirkle matches; for each kind of call the
parent sends ``--calls`` of them (a quarter for RegisterBot), ``--in-flight`` at a time,
and reads the server's CPU seconds before and after (``/proc``). Prints each kind's
server CPU per call (GetReplay: of a random Qwixx match), its ratio to a GetMatch's and
the wall time per call (the inverse
of the throughput: a SQLite write waits on the disk), next to its weight in
``CALL_COSTS``.

Part 2, the runner: a server in this process counts the calls of ``botarena match
--server ... --bot random --bot random --game qwixx --concurrency 50`` by method and
second, and prints the runner's cost units per second (mean and the busiest second), of
plays and of other calls, next to ``--play-budget``'s and ``--call-budget``'s defaults.
Never a test: the machine's load moves every figure.
"""

from __future__ import annotations

import argparse
import asyncio
import collections
import json
import logging
import os
import random
import subprocess
import sys
import tempfile
import time
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

os.environ.setdefault("GRPC_VERBOSITY", "ERROR")

import grpc

from botarena.server.games import get_rules
from botarena.server.ladder import Ladder, LadderSettings
from botarena.server.match import DEFAULT_CALL_BUDGET, DEFAULT_PLAY_BUDGET, MatchSettings
from botarena.server.service import configure_logging, create_server, durable_manager
from botarena.server.service._budget import PLAY_METHODS, call_cost
from botarena.server.store import SqliteStore
from botarena.v1 import (
    ladder_pb2,
    ladder_pb2_grpc,
    match_pb2,
    match_service_pb2,
    match_service_pb2_grpc,
)

_FILL = 500
_TICKS = os.sysconf("SC_CLK_TCK")


def _cpu_seconds(pid: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / _TICKS  # utime, stime


# ---------------------------------------------------------------------- server child


async def _serve(db: str) -> None:
    configure_logging(level=logging.WARNING, json=True)
    store = SqliteStore(db)
    manager = durable_manager(
        store, max_active_matches=100_000, max_matches_per_caller=0, max_creates_per_minute=0
    )
    ladder = Ladder(manager, store.ladder_store(), LadderSettings())
    server, port = await create_server("127.0.0.1:0", ladder=ladder)
    rules = get_rules("qwirkle")
    match = None
    for number in range(_FILL):
        match, _ = manager.create(MatchSettings("qwirkle", 2, number, rules.default_config()))
    assert match is not None
    seat = match.seats_to_act()[0]
    ended = _played(manager)
    started = {"port": port, "match": match.match_id, "token": match.tokens[seat]}
    print(json.dumps({**started, "ended": ended.match_id}), flush=True)
    await asyncio.get_running_loop().run_in_executor(None, sys.stdin.readline)
    await server.stop(None)
    store.close()


def _played(manager: Any) -> Any:
    """Return a Qwixx match played to its end with random moves, for its replay."""
    jitter = random.Random(1)
    match, _ = manager.create(MatchSettings("qwixx", 2, 1, get_rules("qwixx").default_config()))
    for _ in range(5000):
        if match.finished:
            return match
        seat = match.seats_to_act()[0]
        move = jitter.choice(list(match.legal_moves(seat)))
        manager.submit(
            match.match_id, match.tokens[seat], move, expected_state_version=match.state_version
        )
    raise RuntimeError("the random Qwixx match did not end")


# ---------------------------------------------------------------------- parent


def _kinds(
    match_stub: Any, ladder_stub: Any, started: dict[str, Any]
) -> dict[str, tuple[str, Callable[[int], Awaitable[Any]]]]:
    seat = (("authorization", f"Bearer {started['token']}"),)
    name = f"matches/{started['match']}"
    ended = f"matches/{started['ended']}"
    config = match_pb2.MatchConfig(game=match_pb2.GAME_QWIRKLE, seat_count=2)
    return {
        "GetMatch": (
            "GetMatch",
            lambda _: match_stub.GetMatch(match_service_pb2.GetMatchRequest(name=name)),
        ),
        "ListMatches 50": (
            "ListMatches",
            lambda _: match_stub.ListMatches(match_service_pb2.ListMatchesRequest(page_size=50)),
        ),
        "ListMatches 500": (
            "ListMatches",
            lambda _: match_stub.ListMatches(match_service_pb2.ListMatchesRequest(page_size=500)),
        ),
        "GetPlayerView": (
            "GetPlayerView",
            lambda _: match_stub.GetPlayerView(
                match_service_pb2.GetPlayerViewRequest(match=name), metadata=seat
            ),
        ),
        "SubmitMove (refused)": (
            "SubmitMove",
            lambda number: match_stub.SubmitMove(
                match_service_pb2.SubmitMoveRequest(
                    match=name, request_id=f"r{number}", expected_state_version=99
                ),
                metadata=seat,
            ),
        ),
        "GetReplay": (
            "GetReplay",
            lambda _: match_stub.GetReplay(match_service_pb2.GetReplayRequest(name=ended)),
        ),
        "CreateMatch": (
            "CreateMatch",
            lambda _: match_stub.CreateMatch(match_service_pb2.CreateMatchRequest(config=config)),
        ),
        "RegisterBot": (
            "RegisterBot",
            lambda number: ladder_stub.RegisterBot(
                ladder_pb2.RegisterBotRequest(
                    display_name=f"bench-{number}-{time.monotonic_ns()}",
                    owner="bench",
                    game=match_pb2.GAME_QWIRKLE,
                )
            ),
        ),
        "GetLeaderboard": (
            "GetLeaderboard",
            lambda _: ladder_stub.GetLeaderboard(
                ladder_pb2.GetLeaderboardRequest(game=match_pb2.GAME_QWIRKLE)
            ),
        ),
    }


async def _costs(args: argparse.Namespace, pid: int, started: dict[str, Any]) -> None:
    async with grpc.aio.insecure_channel(f"127.0.0.1:{started['port']}") as channel:
        match_stub = match_service_pb2_grpc.MatchServiceStub(channel)
        ladder_stub = ladder_pb2_grpc.LadderServiceStub(channel)
        kinds = _kinds(match_stub, ladder_stub, started)
        per_call: dict[str, float] = {}
        for kind, (method, call) in kinds.items():
            calls = args.calls if kind not in ("RegisterBot",) else max(1, args.calls // 4)
            numbers = iter(range(calls))
            failures: collections.Counter[str] = collections.Counter()

            async def worker(
                numbers: Any = numbers, call: Any = call, failures: Any = failures
            ) -> None:
                for number in numbers:
                    try:
                        await call(number)
                    except grpc.aio.AioRpcError as error:
                        failures[error.code().name] += 1

            before, start = _cpu_seconds(pid), time.perf_counter()
            await asyncio.gather(*(worker() for _ in range(args.in_flight)))
            wall = (time.perf_counter() - start) / calls
            per_call[kind] = (_cpu_seconds(pid) - before) / calls
            weight = call_cost(method)(_request_of(kind))
            ratio = per_call[kind] / per_call.get("GetMatch", per_call[kind])
            note = f"  ({dict(failures)})" if failures else ""
            print(
                f"  {kind:<22} {per_call[kind] * 1e6:8.0f} us server CPU a call  "
                f"{ratio:6.1f} x GetMatch  {wall * 1e6:8.0f} us wall a call  "
                f"weight {weight:g}{note}"
            )


def _request_of(kind: str) -> Any:
    if kind.startswith("ListMatches"):
        return match_service_pb2.ListMatchesRequest(page_size=int(kind.split()[1]))
    return None


class _Count(grpc.aio.ServerInterceptor):  # type: ignore[misc]
    """Counts calls by second and method; a play's method is counted as ``+Method``."""

    def __init__(self) -> None:
        self.by_second: collections.defaultdict[int, collections.Counter[str]] = (
            collections.defaultdict(collections.Counter)
        )

    async def intercept_service(self, continuation: Any, details: Any) -> Any:
        method = details.method.rsplit("/", 1)[-1]
        token = any(key == "authorization" for key, _ in details.invocation_metadata or ())
        play = method in PLAY_METHODS and token
        self.by_second[int(time.monotonic())][f"+{method}" if play else method] += 1
        return await continuation(details)


def _units(calls: collections.Counter[str], plays: bool) -> float:
    return sum(
        call_cost(name.lstrip("+"))(None) * count
        for name, count in calls.items()
        if name.startswith("+") == plays
    )


async def _runner(args: argparse.Namespace, folder: str) -> None:
    configure_logging(level=logging.WARNING, json=True)
    count = _Count()
    plain = grpc.aio.server
    # The counting interceptor, for this server only.
    grpc.aio.server = lambda *a, **k: plain(*a, interceptors=[count], **k)
    try:
        server, port = await create_server("127.0.0.1:0")
    finally:
        grpc.aio.server = plain
    start = time.monotonic()
    runner = await asyncio.create_subprocess_exec(
        *(str(Path(sys.executable).with_name("botarena")), "match", "--server"),
        f"127.0.0.1:{port}",
        *("--game", "qwixx", "--bot", "random", "--bot", "random"),
        *("--games", str(args.runner_games), "--concurrency", str(args.concurrency)),
        *("--out", str(Path(folder) / "run"), "--quiet"),
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    await runner.wait()
    took = time.monotonic() - start
    await server.stop(None)
    calls: collections.Counter[str] = collections.Counter()
    for second in count.by_second.values():
        calls.update(second)
    print(
        f"runner: {args.runner_games} Qwixx games at --concurrency {args.concurrency} in "
        f"{took:.1f} s (exit {runner.returncode}): {sum(calls.values())} calls "
        f"(+: plays) {dict(calls.most_common())}"
    )
    for plays, name, default in (
        (True, "--play-budget", DEFAULT_PLAY_BUDGET),
        (False, "--call-budget", DEFAULT_CALL_BUDGET),
    ):
        busiest = max((_units(second, plays) for second in count.by_second.values()), default=0)
        print(
            f"  {'plays' if plays else 'other calls'}: {_units(calls, plays) / took:.0f} "
            f"units/s mean, {busiest:.0f} in the busiest second; {name} default "
            f"{default}/s (x{default / max(1.0, busiest):.1f} the busiest second)"
        )


def main() -> None:
    """Run the benchmark, or the server child's part of it."""
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--calls", type=int, default=2000, help="calls of each kind")
    parser.add_argument("--in-flight", type=int, default=16, help="calls at a time")
    parser.add_argument("--runner-games", type=int, default=400, help="the runner's games")
    parser.add_argument("--concurrency", type=int, default=50, help="the runner's concurrency")
    parser.add_argument("--serve", metavar="DB", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.serve:
        asyncio.run(_serve(args.serve))
        return
    with tempfile.TemporaryDirectory() as folder:
        server = subprocess.Popen(
            [sys.executable, __file__, "--serve", str(Path(folder) / "costs.db")],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
        )
        try:
            assert server.stdout is not None
            assert server.stdin is not None
            started = json.loads(server.stdout.readline())
            print(f"costs: {args.calls} calls of each kind, {args.in_flight} in flight")
            asyncio.run(_costs(args, server.pid, started))
            server.stdin.write("stop\n")
            server.stdin.flush()
            server.wait(timeout=30)
        finally:
            server.kill()
        if args.runner_games:
            asyncio.run(_runner(args, folder))


if __name__ == "__main__":
    main()
