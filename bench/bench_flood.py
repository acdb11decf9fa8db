# mypy: disable-error-code="import-untyped"
"""Benchmark admission and call budgets: does a flood of calls leave the server answering?

Usage: ``python bench/bench_flood.py [--kind create|rejected-create|listmatches|getmatch]
[--seconds 20] [--flooders 3] [--in-flight 64] [--call-budget UNITS] [--fill N]
[--db PATH] [--profile PATH]``

A server (``create_server`` with the default admission limits, a SQLite file as
``botarena serve`` keeps) runs in a child process and listens on 127.0.0.1 and, on the
same port, on [::1]: two hosts, so two callers. (Not 127.0.0.2: Linux gives a
connection to 127.0.0.2 the source address 127.0.0.1, and the server would see one
caller.) Without IPv6 the second address is a Unix socket (peer ``unix:``).

First the server fills itself, in-process as the ladder does, with ``--fill`` idle
Qwirkle matches (default: the overall limit less the reserve, one caller's limit and a
margin: the fill is in-process, as the ladder's, and counts against the reserve), their
creations spread over 10 s so that their stand-in moves (every 10 s, the default clock
and timeout policy) are spread too: the most a server with the defaults holds. Then a
canary on 127.0.0.1 runs alone for 10 s (the baseline) and again for ``--seconds`` while
``--flooders`` client processes on the second address call as fast as they can,
``--in-flight`` calls at a time each, one ``--kind`` of: ``create`` (CreateMatch
without a token), ``rejected-create`` (the same against a server with an admin token:
every call is rejected; the canary sends the token), ``listmatches`` (ListMatches with
``page_size=500``), ``getmatch`` (GetMatch of one of the idle matches). The server has
``botarena serve``'s call budget (``--call-budget``, 0: none). A canary round is: create a
2-seat Qwirkle match, GetPlayerView for the seat to act, SubmitMove of its first legal
move; the round's latency is timed, then the canary resigns (untimed) so its matches do
not pile up. It paces itself at 10 rounds a second, under the per-caller rate.

Prints the admission defaults, the flood's accepted and refused calls and rates, and the
canary's p50/p99/max (and slowest rounds) with and without the flood; the server's CPU
seconds (and per flood call), how late its loop ran a 10 ms timer, and its full GC
passes. Target (issues 14, 26): canary p99 under 100 ms while the flood is refused.
Never a test.
``BENCH_WATCHDOG=<s>`` dumps the stacks and exits if a run takes longer than that.
"""

from __future__ import annotations

import argparse
import asyncio
import collections
import cProfile
import faulthandler
import gc
import json
import logging
import os
import pstats
import resource
import socket
import subprocess
import sys
import tempfile
import time
import uuid
from collections.abc import Sequence
from pathlib import Path
from typing import Any

# Before grpc loads: its C core logs each GOAWAY of a stopped server at INFO otherwise.
os.environ.setdefault("GRPC_VERBOSITY", "ERROR")

import grpc
from google.rpc import error_details_pb2, status_pb2

from botarena.server.games import get_rules
from botarena.server.match import (
    DEFAULT_CALL_BUDGET,
    DEFAULT_MAX_ACTIVE_MATCHES,
    DEFAULT_MAX_CREATES_PER_MINUTE,
    DEFAULT_MAX_MATCHES_PER_CALLER,
    DEFAULT_RESERVED_MATCHES,
    CallBudgetLimits,
    MatchSettings,
)
from botarena.server.service import configure_logging, create_server, durable_manager
from botarena.server.store import SqliteStore
from botarena.v1 import match_pb2, match_service_pb2, match_service_pb2_grpc

_FILL_SECONDS = 10.0
_BASELINE_SECONDS = 10.0
_CANARY_PERIOD = 0.1
_CANARY_DEADLINE = 30.0
_ADMIN = "bench-flood-admin-token"
_KINDS = ("create", "rejected-create", "listmatches", "getmatch")


def _percentile(values: Sequence[float], fraction: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(fraction * len(ordered)))] if ordered else 0.0


def _bearer(token: str) -> tuple[tuple[str, str], ...]:
    return (("authorization", f"Bearer {token}"),)


def _second_address() -> str:
    """Return the second listening address: [::1] if the machine has it, else a socket."""
    try:
        with socket.socket(socket.AF_INET6) as probe:
            probe.bind(("::1", 0))
    except OSError:
        return f"unix:{tempfile.mkdtemp()}/bench_flood.sock"
    return "[::1]:0"


# ---------------------------------------------------------------------- server child


class _Stalls:
    """Records how late the server's loop runs a 10 ms timer, and its GC collections:
    the server's own stalls, told apart from the machine's (call in the loop)."""

    def __init__(self) -> None:
        self._lags: list[float] = []
        self._collections: list[tuple[int, float]] = []
        self._started = 0.0
        self._task = asyncio.get_running_loop().create_task(self._watch())
        gc.callbacks.append(self._on_gc)

    async def _watch(self) -> None:
        loop = asyncio.get_running_loop()
        while True:
            before = loop.time()
            await asyncio.sleep(0.01)
            self._lags.append(loop.time() - before - 0.01)

    def _on_gc(self, phase: str, info: dict[str, int]) -> None:
        if phase == "start":
            self._started = time.perf_counter()
        else:
            self._collections.append((info["generation"], time.perf_counter() - self._started))

    def stop(self) -> dict[str, Any]:
        """Stop recording; return the loop's lateness, the full passes and the objects."""
        self._task.cancel()
        gc.callbacks.remove(self._on_gc)
        return {
            "lag_p99_ms": _percentile(self._lags, 0.99) * 1000,
            "lag_max_ms": max(self._lags, default=0.0) * 1000,
            "gc_full": [round(took * 1000) for gen, took in self._collections if gen == 2],
            "gc_max_ms": max((took for _, took in self._collections), default=0.0) * 1000,
            "gc_objects": len(gc.get_objects()),
        }


async def _serve(args: argparse.Namespace) -> None:
    configure_logging(level=logging.WARNING, json=True)
    store = SqliteStore(args.db)
    manager = durable_manager(store)
    server, port = await create_server(
        ["127.0.0.1:0", args.second],
        manager=manager,
        admin_token=_ADMIN if args.kind == "rejected-create" else None,
        call_budget=CallBudgetLimits(args.call_budget) if args.call_budget else None,
    )
    second = args.second.replace(":0", f":{port}")
    print(json.dumps({"port": port, "second": second}), flush=True)
    rules = get_rules("qwirkle")
    loop = asyncio.get_running_loop()
    start = loop.time()
    first = ""
    for number in range(args.fill):
        # Spread over _FILL_SECONDS: their decisions time out spread out too.
        await asyncio.sleep(max(0.0, start + number * _FILL_SECONDS / args.fill - loop.time()))
        settings = MatchSettings("qwirkle", 2, number, rules.default_config())
        match, _ = manager.create(settings)
        first = first or match.match_id
    print(json.dumps({"filled": manager.active_count, "match": first}), flush=True)
    stalls = _Stalls()
    profile = cProfile.Profile() if args.profile else None
    if profile is not None:
        profile.enable()
    await loop.run_in_executor(None, sys.stdin.readline)  # the parent says when to stop
    if profile is not None:
        profile.disable()
        profile.dump_stats(args.profile)
    usage = resource.getrusage(resource.RUSAGE_SELF)
    stats = {
        "cpu_seconds": usage.ru_utime + usage.ru_stime,
        "active": manager.active_count,
        **stalls.stop(),
    }
    print(json.dumps(stats), flush=True)
    await server.stop(None)
    store.close()


# ---------------------------------------------------------------------- flood child


def _reason(error: grpc.aio.AioRpcError) -> str:
    for key, value in error.trailing_metadata() or ():
        if key == "grpc-status-details-bin":
            for detail in status_pb2.Status.FromString(value).details:
                info = error_details_pb2.ErrorInfo()
                if detail.Unpack(info):
                    return f"{info.reason} ({info.metadata.get('limit', '')})"
    return str(error.code().name)


def _flood_call(stub: Any, kind: str, match: str) -> Any:
    """Return the call the flood repeats: a function of no argument."""
    if kind == "listmatches":
        listing = match_service_pb2.ListMatchesRequest(page_size=500)
        return lambda: stub.ListMatches(listing, timeout=_CANARY_DEADLINE)
    if kind == "getmatch":
        get = match_service_pb2.GetMatchRequest(name=f"matches/{match}")
        return lambda: stub.GetMatch(get, timeout=_CANARY_DEADLINE)
    config = match_pb2.MatchConfig(game=match_pb2.GAME_QWIRKLE, seat_count=2)
    create = match_service_pb2.CreateMatchRequest(config=config)
    return lambda: stub.CreateMatch(create, timeout=_CANARY_DEADLINE)


async def _flood(args: argparse.Namespace) -> None:
    counts: collections.Counter[str] = collections.Counter()
    async with grpc.aio.insecure_channel(args.target) as channel:
        stub = match_service_pb2_grpc.MatchServiceStub(channel)
        call = _flood_call(stub, args.kind, args.match)
        end = time.monotonic() + args.seconds

        async def caller() -> None:
            while time.monotonic() < end:
                try:
                    await call()
                    counts["accepted"] += 1
                except grpc.aio.AioRpcError as error:
                    counts[_reason(error)] += 1

        await asyncio.gather(*(caller() for _ in range(args.in_flight)))
    print(json.dumps(dict(counts)), flush=True)


# ---------------------------------------------------------------------- canary


async def _canary_round(stub: Any, admin: bool = False) -> float:
    config = match_pb2.MatchConfig(game=match_pb2.GAME_QWIRKLE, seat_count=2)
    start = time.perf_counter()
    created = await stub.CreateMatch(
        match_service_pb2.CreateMatchRequest(config=config, request_id=uuid.uuid4().hex),
        metadata=_bearer(_ADMIN) if admin else None,
        timeout=_CANARY_DEADLINE,
    )
    seat = created.match.seats_to_act[0]
    token = created.seat_tokens[seat].token
    view = await stub.GetPlayerView(
        match_service_pb2.GetPlayerViewRequest(), metadata=_bearer(token), timeout=_CANARY_DEADLINE
    )
    await stub.SubmitMove(
        match_service_pb2.SubmitMoveRequest(
            move=view.legal_moves[0],
            expected_state_version=view.state_version,
            request_id=uuid.uuid4().hex,
        ),
        metadata=_bearer(token),
        timeout=_CANARY_DEADLINE,
    )
    elapsed = time.perf_counter() - start
    await stub.ResignMatch(
        match_service_pb2.ResignMatchRequest(request_id=uuid.uuid4().hex),
        metadata=_bearer(created.seat_tokens[1 - seat].token),
        timeout=_CANARY_DEADLINE,
    )
    return elapsed


async def _canary(
    port: int, seconds: float, admin: bool = False, done: asyncio.Event | None = None
) -> tuple[list[float], collections.Counter[str]]:
    """Run canary rounds for ``seconds`` (or until ``done`` is set, if sooner), with the
    admin token when ``admin``; return their latencies and the failed rounds by reason
    (bench_web.py runs it too)."""
    latencies: list[float] = []
    failures: collections.Counter[str] = collections.Counter()
    async with grpc.aio.insecure_channel(f"127.0.0.1:{port}") as channel:
        stub = match_service_pb2_grpc.MatchServiceStub(channel)
        end = time.monotonic() + seconds
        while (now := time.monotonic()) < end and not (done is not None and done.is_set()):
            try:
                latencies.append(await _canary_round(stub, admin))
            except grpc.aio.AioRpcError as error:
                failures[_reason(error)] += 1
            await asyncio.sleep(max(0.0, now + _CANARY_PERIOD - time.monotonic()))
    return latencies, failures


def _canary_line(name: str, latencies: Sequence[float], failures: collections.Counter[str]) -> str:
    ms = [value * 1000 for value in latencies]
    line = (
        f"  canary {name:<13} rounds {len(ms):4d}  p50 {_percentile(ms, 0.5):7.1f} ms  "
        f"p99 {_percentile(ms, 0.99):7.1f} ms  max {max(ms, default=0.0):7.1f} ms"
    )
    slowest = ", ".join(f"{value:.0f}" for value in sorted(ms)[-5:])
    line += f"  (slowest: {slowest})"
    return line + (f"  failed {dict(failures)}" if failures else "")


# ---------------------------------------------------------------------- parent


def _child(role: str, *args: str, script: str = __file__) -> subprocess.Popen[str]:
    """Start ``script`` (this one by default) in ``role``, its stdin and stdout piped."""
    return subprocess.Popen(
        [sys.executable, script, "--role", role, *args],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )


def _line(process: subprocess.Popen[str]) -> dict[str, Any]:
    assert process.stdout is not None
    line = process.stdout.readline()
    if not line:
        raise RuntimeError("a child process ended early")
    result: dict[str, Any] = json.loads(line)
    return result


def _run(args: argparse.Namespace) -> None:
    print(
        f"admission defaults: --max-active-matches {DEFAULT_MAX_ACTIVE_MATCHES}, "
        f"--max-matches-per-caller {DEFAULT_MAX_MATCHES_PER_CALLER}, "
        f"--max-creates-per-minute {DEFAULT_MAX_CREATES_PER_MINUTE}; "
        f"--call-budget {args.call_budget}; flood: {args.kind}"
    )
    admin = args.kind == "rejected-create"
    with tempfile.TemporaryDirectory() as folder:
        db = args.db or str(Path(folder) / "bench.db")
        profile = ["--profile", args.profile] if args.profile else []
        server = _child(
            "server",
            "--db",
            db,
            "--fill",
            str(args.fill),
            "--second",
            _second_address(),
            "--kind",
            args.kind,
            "--call-budget",
            str(args.call_budget),
            *profile,
        )
        try:
            started = _line(server)
            filled_line = _line(server)
            filled = filled_line["filled"]
            print(
                f"server on 127.0.0.1:{started['port']} and {started['second']}, "
                f"{filled} idle matches held ({os.cpu_count()} cores)"
            )
            baseline = asyncio.run(_canary(started["port"], _BASELINE_SECONDS, admin))
            flooders = [
                _child(
                    "flood",
                    "--target",
                    started["second"],
                    "--seconds",
                    str(args.seconds),
                    "--in-flight",
                    str(args.in_flight),
                    "--kind",
                    args.kind,
                    "--match",
                    filled_line["match"],
                )
                for _ in range(args.flooders)
            ]
            flooded = asyncio.run(_canary(started["port"], args.seconds, admin))
            counts: collections.Counter[str] = collections.Counter()
            for flooder in flooders:
                counts.update(_line(flooder))
                flooder.wait()
            assert server.stdin is not None
            server.stdin.write("stop\n")
            server.stdin.flush()
            stats = _line(server)
            server.wait(timeout=30)
        finally:
            server.kill()
    calls = sum(counts.values())
    print(
        f"flood: {args.flooders} processes x {args.in_flight} in flight for {args.seconds:.0f} s: "
        f"{calls} calls, {calls / args.seconds:.0f}/s; accepted {counts.pop('accepted', 0)}"
    )
    for reason, count in counts.most_common():
        print(f"  refused {reason}: {count} ({count / args.seconds:.0f}/s)")
    print(_canary_line("alone", *baseline))
    print(_canary_line("under flood", *flooded))
    print(
        f"server: {stats['cpu_seconds']:.1f} CPU seconds in all, "
        f"{stats['active']} active matches at the end; its loop ran a 10 ms timer late by "
        f"{stats['lag_p99_ms']:.1f} ms p99, {stats['lag_max_ms']:.1f} ms at most; "
        f"full GC passes (ms): {stats['gc_full']}, longest collection {stats['gc_max_ms']:.0f} ms, "
        f"{stats['gc_objects']} objects tracked at the end"
    )
    if args.profile:
        pstats.Stats(args.profile).sort_stats("tottime").print_stats(25)


def main() -> None:
    """Run the benchmark, or one child process's part of it."""
    faulthandler.dump_traceback_later(float(os.environ.get("BENCH_WATCHDOG", "1e9")), exit=True)
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--seconds", type=float, default=20.0, help="how long the flood lasts")
    parser.add_argument("--flooders", type=int, default=3, help="flood client processes")
    parser.add_argument("--in-flight", type=int, default=64, help="calls at a time per flooder")
    parser.add_argument("--kind", choices=_KINDS, default="create", help="what the flood calls")
    parser.add_argument(
        "--call-budget",
        type=float,
        default=DEFAULT_CALL_BUDGET,
        help="the server's per-caller call budget (default %(default)s; 0: none)",
    )
    parser.add_argument(
        "--fill",
        type=int,
        default=DEFAULT_MAX_ACTIVE_MATCHES
        - DEFAULT_RESERVED_MATCHES
        - DEFAULT_MAX_MATCHES_PER_CALLER
        - 10,
        help="idle matches the server holds before the flood (default %(default)s)",
    )
    parser.add_argument("--db", help="the server's SQLite file (default: a temporary one)")
    parser.add_argument(
        "--profile", metavar="PATH", help="cProfile the server after its fill; print the top"
    )
    # A child process's part.
    parser.add_argument("--role", choices=("server", "flood"), help=argparse.SUPPRESS)
    parser.add_argument("--target", help=argparse.SUPPRESS)
    parser.add_argument("--second", help=argparse.SUPPRESS)
    parser.add_argument("--match", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.role == "server":
        asyncio.run(_serve(args))
    elif args.role == "flood":
        asyncio.run(_flood(args))
    else:
        _run(args)


if __name__ == "__main__":
    main()
