# mypy: disable-error-code="import-untyped"
"""Benchmark ListMatches over many finished matches after a restart, and the loop meanwhile.

Usage: ``python bench/bench_listing.py [--matches N] [--distinct D] [--listings K]
[--rebuilds R]``

Fills a SQLite file with ``--matches`` finished Qwirkle matches (``--distinct`` of them
played in-process through the match layer, first legal move; the others copies of those
under new ids), then starts ``botarena serve --db`` on it in a child process: a restarted
server that holds none of them. A second child process loops
GetMatch of a running match (another client's RPCs) while this process calls, in turn:
nothing (idle), ListMatches(page_size=500) ``--listings`` times, GetPlayerView of
``--rebuilds`` evicted finished matches one by one (each is rebuilt from its log in a
worker thread), then of as many others at once. It prints the other client's GetMatch
latency p50/p99/max in each window, the listing's own time, and the server's resident
memory after each window.

The reference is what ListMatches did before it read stored summaries: rebuilding each
listed match by replaying its log, timed in-process on the same file. Both children and
this process share CLOCK_MONOTONIC (perf_counter), so a call is in a window if it
overlaps it. Timings on a shared machine are noisy: read the ratios. Never a test.
"""

from __future__ import annotations

import argparse
import asyncio
import dataclasses
import json
import logging
import os
import secrets
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import grpc
from bench_server import _rss_kib
from bench_store import _replay_ms

from botarena.server.match import MatchSettings
from botarena.server.service import configure_logging, durable_manager
from botarena.server.store import SqliteStore
from botarena.v1 import match_pb2, match_service_pb2, match_service_pb2_grpc

_PAGE_SIZE = 500


def _progress(text: str) -> None:
    print(f"  .. {text}", file=sys.stderr, flush=True)


def _percentile(values: Sequence[float], fraction: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(fraction * len(ordered)))]


# --------------------------------------------------------------------------- filling


def _fill(database: Path, matches: int, distinct: int) -> list[str]:
    """Store ``matches`` finished Qwirkle matches in ``database``, oldest first; return
    their ids. ``distinct`` of them are played (first legal move, ~0.1 s each); the rest
    are copies of those under new ids: the same rows and log, another match."""
    from botarena.server.games.qwirkle import QWIRKLE

    async def play() -> list[str]:
        store = SqliteStore(database)
        manager = durable_manager(store, max_finished_matches=0)
        played = []
        for seed in range(min(distinct, matches)):
            settings = MatchSettings(
                game="qwirkle",
                seat_count=2,
                seed=seed,
                game_config=QWIRKLE.default_config(),
                seat_names=("first", "second"),
            )
            match, _ = manager.create(settings)
            while not match.finished:
                seat = match.seats_to_act()[0]
                manager.submit(
                    match.match_id,
                    match.tokens[seat],
                    match.legal_moves(seat)[0],
                    expected_state_version=match.state_version,
                )
            played.append(match.match_id)
        manager.close()
        ids = list(played)
        for copy in range(len(played), matches):
            source = played[copy % len(played)]
            record = store.load_match(source)
            assert record is not None
            new_id = secrets.token_hex(8)
            sequence = store.last_sequence() + 1
            renamed = dataclasses.replace(record, match_id=new_id, sequence=sequence)
            store.create_match(renamed, store.events(source))
            ids.append(new_id)
        store.close()
        return ids

    return asyncio.run(play())


def _store_reads(database: Path, ids: Sequence[str]) -> tuple[float, float]:
    """The store reads the server makes on its loop: a 501-row listing and one log (ms)."""
    store = SqliteStore(database)
    start = time.perf_counter()
    store.list_matches(limit=_PAGE_SIZE + 1)
    listing = time.perf_counter() - start
    logs = []
    for match_id in ids[:50]:
        start = time.perf_counter()
        store.events(match_id)
        logs.append(time.perf_counter() - start)
    store.close()
    return 1e3 * listing, 1e3 * statistics.median(logs)


# --------------------------------------------------------------------------- the other client


async def _loop_get_match(port: int, name: str) -> list[tuple[float, float]]:
    """GetMatch of ``name`` back to back until stdin closes; every call's start and end."""
    samples: list[tuple[float, float]] = []
    stop = asyncio.ensure_future(asyncio.to_thread(sys.stdin.read))
    async with grpc.aio.insecure_channel(f"127.0.0.1:{port}") as channel:
        stub = match_service_pb2_grpc.MatchServiceStub(channel)
        request = match_service_pb2.GetMatchRequest(name=name)
        await stub.GetMatch(request)
        print("ready", flush=True)
        while not stop.done():
            start = time.perf_counter()
            await stub.GetMatch(request)
            samples.append((start, time.perf_counter()))
    return samples


# --------------------------------------------------------------------------- the run


class _Windows:
    """Named spans of time on the clock the child processes share."""

    def __init__(self) -> None:
        self.spans: dict[str, list[tuple[float, float]]] = {}

    def add(self, name: str, start: float) -> None:
        self.spans.setdefault(name, []).append((start, time.perf_counter()))

    def latencies(self, name: str, samples: Sequence[tuple[float, float]]) -> list[float]:
        """The calls that overlap a span of ``name``, in milliseconds."""
        spans = self.spans.get(name, [])
        return [
            1e3 * (end - start)
            for start, end in samples
            if any(start < span_end and end > span_start for span_start, span_end in spans)
        ]


async def _measure(
    database: Path, ids: Sequence[str], listings: int, rebuilds: int
) -> dict[str, Any]:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    argv = ["serve", "--port", str(port), "--db", str(database), "--log-level", "warning"]
    command = f"from botarena.clients.cli import main; raise SystemExit(main({argv!r}))"
    server = subprocess.Popen([sys.executable, "-c", command], stdout=subprocess.DEVNULL)
    windows = _Windows()
    numbers: dict[str, Any] = {}
    try:
        async with grpc.aio.insecure_channel(f"127.0.0.1:{port}") as channel:
            await channel.channel_ready()
            stub = match_service_pb2_grpc.MatchServiceStub(channel)
            numbers["rss_restarted"] = _rss_kib(server.pid) / 1024
            config = match_pb2.MatchConfig(game=match_pb2.GAME_QWIRKLE, seed=1)
            config.time_control.move_time_limit.FromSeconds(3600)  # it stays running
            created = await stub.CreateMatch(match_service_pb2.CreateMatchRequest(config=config))
            other = subprocess.Popen(
                [sys.executable, __file__, "--other-client", str(port), created.match.name],
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                text=True,
            )
            assert other.stdout is not None
            if await asyncio.to_thread(other.stdout.readline) != "ready\n":
                raise RuntimeError("the other client did not start")
            start = time.perf_counter()
            await asyncio.sleep(1.0)
            windows.add("idle", start)
            listing_seconds, listed = [], 0
            for _ in range(listings):
                start = time.perf_counter()
                page = await stub.ListMatches(
                    match_service_pb2.ListMatchesRequest(page_size=_PAGE_SIZE)
                )
                windows.add("listing", start)
                listing_seconds.append(time.perf_counter() - start)
                listed = len(page.matches)
                await asyncio.sleep(0.2)  # gaps: each listing is a single call on its own
            numbers["rss_listed"] = _rss_kib(server.pid) / 1024
            numbers["listing"] = (listing_seconds, listed, page.ByteSize())
            views = [
                match_service_pb2.GetPlayerViewRequest(match=f"matches/{match_id}")
                for match_id in ids[: 2 * rebuilds]
            ]
            start = time.perf_counter()
            for view in views[:rebuilds]:
                await stub.GetPlayerView(view)
                windows.add("rebuild", start)
                await asyncio.sleep(0.05)  # gaps: each rebuild is a single call on its own
                start = time.perf_counter()
            numbers["rebuild_seconds"] = statistics.median(
                end - begin for begin, end in windows.spans["rebuild"]
            )
            start = time.perf_counter()
            await asyncio.gather(*(stub.GetPlayerView(view) for view in views[rebuilds:]))
            windows.add("burst", start)
            numbers["rss_rebuilt"] = _rss_kib(server.pid) / 1024
            output, _ = await asyncio.to_thread(other.communicate, "")
            samples = [tuple(sample) for sample in json.loads(output)]
    finally:
        server.terminate()
        server.wait(30)
    numbers["windows"] = {
        name: windows.latencies(name, samples) for name in ("idle", "listing", "rebuild", "burst")
    }
    return numbers


def _report(args: argparse.Namespace, fill_seconds: float, numbers: dict[str, Any]) -> None:
    listing_seconds, listed, size = numbers["listing"]
    print(
        f"qwirkle, {args.matches} finished matches ({args.distinct} played, first legal move, "
        f"2 seats) in a SQLite file, stored in {fill_seconds:.1f} s; "
        "`botarena serve --db` restarted on it"
    )
    print("GetMatch of a running match by another client (ms), per window:")
    for name, label in (
        ("idle", "idle"),
        ("listing", f"during ListMatches(page_size={_PAGE_SIZE})"),
        ("rebuild", "during a GetPlayerView that rebuilds a match"),
        ("burst", f"during {args.rebuilds} such GetPlayerViews at once"),
    ):
        values = numbers["windows"][name]
        if not values:
            print(f"  {label:48} no call overlapped")
            continue
        print(
            f"  {label:48} p50 {statistics.median(values):6.2f}  "
            f"p99 {_percentile(values, 0.99):6.2f}  max {max(values):6.2f}  ({len(values)} calls)"
        )
    first, rest = listing_seconds[0], listing_seconds[1:] or listing_seconds
    print(
        f"ListMatches(page_size={_PAGE_SIZE}): {listed} matches, {size / 1024:.0f} KiB; "
        f"first after the restart {1e3 * first:.1f} ms, then median "
        f"{1e3 * statistics.median(rest):.1f} ms"
    )
    replay = numbers["replay_seconds"]
    print(
        f"  reference, rebuilding those {listed} matches as ListMatches did before: "
        f"{1e3 * replay:.0f} ms (x{replay / first:.0f} the first listing)"
    )
    listing_ms, log_ms = numbers["store_reads"]
    print(
        f"  store reads on the loop: the {_PAGE_SIZE + 1}-row listing {listing_ms:.1f} ms, "
        f"one match's log {log_ms:.2f} ms (median)"
    )
    print(
        f"GetPlayerView of an evicted match (rebuilt in a worker thread): "
        f"{1e3 * numbers['rebuild_seconds']:.1f} ms (median of {args.rebuilds})"
    )
    print(
        f"server RSS: {numbers['rss_restarted']:.0f} MiB after the restart, "
        f"{numbers['rss_listed'] - numbers['rss_restarted']:+.1f} MiB after the listings, "
        f"{numbers['rss_rebuilt'] - numbers['rss_listed']:+.1f} MiB after the "
        f"{2 * args.rebuilds} rebuilds"
    )


def main() -> None:
    """Run the benchmark and print its numbers."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--matches", type=int, default=520, help="finished matches to store")
    parser.add_argument("--distinct", type=int, default=50, help="matches played; the rest copied")
    parser.add_argument("--listings", type=int, default=5, help="ListMatches calls")
    parser.add_argument(
        "--rebuilds", type=int, default=20, help="rebuilds one by one, then as many at once"
    )
    parser.add_argument("--other-client", nargs=2, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.other_client:
        port, name = args.other_client
        json.dump(asyncio.run(_loop_get_match(int(port), name)), sys.stdout)
        return
    configure_logging(level=logging.WARNING, json=True)
    with tempfile.TemporaryDirectory() as scratch:
        database = Path(scratch) / "bench.db"
        start = time.perf_counter()
        ids = _fill(database, args.matches, args.distinct)
        fill_seconds = time.perf_counter() - start
        _progress(f"stored {len(ids)} finished matches in {fill_seconds:.1f} s")
        # The oldest matches are rebuilt: none of them is on the first page.
        numbers = asyncio.run(_measure(database, ids, args.listings, args.rebuilds))
        # Before, a page rebuilt each match it listed: a rebuild's time, times the page.
        replay_store = SqliteStore(database)
        numbers["replay_seconds"] = _replay_ms(replay_store, args.matches) * _PAGE_SIZE / 1e3
        replay_store.close()
        numbers["store_reads"] = _store_reads(database, ids)
    _report(args, fill_seconds, numbers)


if __name__ == "__main__":
    os.environ.setdefault("PYTHONHASHSEED", "0")
    main()
