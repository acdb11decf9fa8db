# mypy: disable-error-code="import-untyped"
"""Benchmark a large ladder: do leaderboard pages stay fast, and the server responsive?

Usage: ``python bench/bench_leaderboard.py [--bots 26000] [--seconds 10] [--readers 4]
[--register-in-flight 16] [--postgres] [--profile PATH]``

A ladder server (``create_server`` with a ladder and the web UI, on a SQLite file as
``botarena serve`` keeps, or with ``--postgres`` on a throwaway PostgreSQL on 127.0.0.1)
runs in a child process. The parent registers ``--bots`` Qwirkle bots through
RegisterBot, ``--register-in-flight`` calls at a time, and prints the time it took; the
server then gives half of them random ratings and counters in one transaction (as if
they had played), so the board is not one tie.

Then a canary (GetMatch of one match, 50 a second) runs for ``--seconds``: alone (the
baseline), while one client and then ``--readers`` clients read GetLeaderboard pages (50
bots, at random places of the board) as fast as they can, while as many read the web
UI's ``/ladder`` and ``/ladder/qwirkle?page_token=`` pages, and while the server sorts
and encodes the whole board on its loop once a second (what one GetLeaderboard call
cost before it was paged: the reference). Prints each phase's canary p50/p99/max next
to the baseline's, the readers' latencies, page sizes, how late the server's loop ran a
10 ms timer and its longest GC pass; then, timed inside the server, a page at the top,
middle and end of the board, a bot's rank (its web page), and a scheduler tick's reads
with two connected bots, each next to what the code before did (every bot read, sorted
or counted). Target (issue 27): a page under 50 ms with 26,000 bots. Never a test; a
shared machine makes every figure noisy, so read the ratios.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import cProfile
import json
import logging
import os
import pstats
import random
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Coroutine, Iterator, Sequence
from pathlib import Path
from typing import Any

# Before grpc loads: its C core logs each GOAWAY of a stopped server at INFO otherwise.
os.environ.setdefault("GRPC_VERBOSITY", "ERROR")

import aiohttp
import grpc

# The loop-lateness and GC recorder and the percentile of the flood benchmark (a sibling
# script: bench/ is on the path when this one runs).
from bench_flood import _percentile, _Stalls

from botarena.server.ladder import Ladder, LadderSettings, Rating
from botarena.server.service import configure_logging, create_server, durable_manager
from botarena.server.service._ladder import leaderboard_page
from botarena.server.service._paging import encode_page_token
from botarena.server.store import open_store
from botarena.v1 import (
    ladder_pb2,
    ladder_pb2_grpc,
    match_pb2,
    match_service_pb2,
    match_service_pb2_grpc,
)

_GAME = "qwirkle"
_CANARY_PERIOD = 0.02
_DEADLINE = 60.0
_PAGE = 50


def _spread(values: Sequence[float]) -> str:
    ms = [value * 1000 for value in values]
    return (
        f"n {len(ms):5d}  p50 {_percentile(ms, 0.5):7.1f} ms  p99 {_percentile(ms, 0.99):7.1f} ms"
        f"  max {max(ms, default=0.0):7.1f} ms"
    )


def _timed(work: Callable[[], object], repeat: int = 5) -> float:
    """The best of ``repeat`` runs of ``work``, in milliseconds."""
    best = float("inf")
    for _ in range(repeat):
        start = time.perf_counter()
        work()
        best = min(best, time.perf_counter() - start)
    return best * 1000


# ---------------------------------------------------------------------- server child


def _rate(ladder: Ladder, seed: int) -> int:
    """Give half the bots random ratings and counters, in one transaction."""
    rng = random.Random(seed)
    bots = ladder.store.bots(_GAME)
    rated = [bot for bot in bots if rng.random() < 0.5]
    database = ladder.store.database  # type: ignore[attr-defined]
    with database.transaction() as db:
        db.run_many(
            "UPDATE ladder_bots SET mu = ?, sigma = ?, games = ?, wins = ? WHERE bot_id = ?",
            [
                (rng.gauss(25, 5), rng.uniform(1, 8), games, rng.uniform(0, games), bot.bot_id)
                for bot in rated
                for games in [rng.randint(1, 200)]
            ],
        )
    return len(rated)


def _old_board(ladder: Ladder) -> int:
    """What GetLeaderboard did per call before it was paged: every bot read, sorted and
    encoded (the answer's size in bytes)."""
    bots = sorted(
        ladder.store.bots(_GAME),
        key=lambda bot: (-Rating(bot.mu, bot.sigma).conservative, -bot.games, bot.name),
    )
    response = ladder_pb2.GetLeaderboardResponse()
    for rank, bot in enumerate(bots, start=1):
        entry = response.entries.add(rank=rank, mu=bot.mu, sigma=bot.sigma, games=bot.games)
        entry.bot.name = f"bots/{bot.bot_id}"
        entry.bot.display_name = bot.name
        entry.conservative_rating = Rating(bot.mu, bot.sigma).conservative
    return response.ByteSize()


def _inside(ladder: Ladder) -> dict[str, Any]:
    """The server-side timings: pages, a rank, a tick's reads; each against the old way."""
    store = ladder.store
    count = len(store.bots(_GAME))
    last = store.leaderboard(_GAME, offset=count - 1, limit=1)[0]
    two = [bot.bot_id for bot in store.leaderboard(_GAME, offset=count // 2, limit=2)]

    def page(after: int) -> Callable[[], object]:
        token = encode_page_token(after, ["leaderboard", _GAME]) if after else ""
        return lambda: leaderboard_page(ladder, _GAME, token, _PAGE)

    def old_tick() -> None:
        store.bots(_GAME)
        store.seat_counts(_GAME)
        store.pair_counts(_GAME)

    def new_tick() -> None:
        store.bots_by_id(two)
        store.seat_counts(_GAME, bot_ids=two)
        store.pair_counts(_GAME, bot_ids=two)

    return {
        "bots": count,
        "page_top_ms": _timed(page(0)),
        "page_middle_ms": _timed(page(count // 2)),
        "page_end_ms": _timed(page(max(1, count - _PAGE))),
        "old_board_ms": _timed(lambda: _old_board(ladder), repeat=2),
        "old_board_bytes": _old_board(ladder),
        "rank_last_ms": _timed(lambda: ladder.leaderboard_row(last.bot_id)),
        "old_rank_ms": _timed(lambda: _old_board(ladder), repeat=1),
        "tick_reads_ms": _timed(new_tick),
        "old_tick_reads_ms": _timed(old_tick, repeat=2),
    }


async def _serve(args: argparse.Namespace) -> None:
    configure_logging(level=logging.WARNING, json=True)
    store = open_store(args.db)
    ladder = Ladder(durable_manager(store), store.ladder_store(), LadderSettings())
    server, port = await create_server("127.0.0.1:0", ladder=ladder, http_address=("127.0.0.1", 0))
    print(json.dumps({"port": port, "web": server.web.url}), flush=True)
    loop = asyncio.get_running_loop()
    stalls: _Stalls | None = None
    reference: asyncio.Task[None] | None = None
    old_board_ms: list[float] = []

    async def old_boards() -> None:
        while True:
            start = time.perf_counter()
            _old_board(ladder)
            old_board_ms.append((time.perf_counter() - start) * 1000)
            await asyncio.sleep(1.0)

    profile = cProfile.Profile() if args.profile else None
    if profile is not None:  # from the measured phases on
        profile.enable()
    while command := (await loop.run_in_executor(None, sys.stdin.readline)).strip():
        answer: dict[str, Any] = {}
        if command == "rate":
            answer = {"rated": _rate(ladder, args.seed)}
        elif command == "watch":
            stalls = _Stalls()
        elif command == "watch old":  # the reference: the old GetLeaderboard once a second
            stalls = _Stalls()
            old_board_ms.clear()
            reference = asyncio.create_task(old_boards())
        elif command == "lag" and stalls is not None:
            if reference is not None:
                reference.cancel()
                reference = None
                answer["old_board_ms"] = old_board_ms
            answer.update(stalls.stop())
        elif command == "inside":
            answer = _inside(ladder)
        elif command == "stop":
            break
        print(json.dumps(answer), flush=True)
    if profile is not None:
        profile.disable()
        profile.dump_stats(args.profile)
    await server.stop(None)
    store.close()


# ---------------------------------------------------------------------- parent


async def _register(port: int, bots: int, in_flight: int) -> tuple[float, list[float]]:
    latencies: list[float] = []
    numbers = iter(range(bots))
    async with grpc.aio.insecure_channel(f"127.0.0.1:{port}") as channel:
        stub = ladder_pb2_grpc.LadderServiceStub(channel)

        async def caller() -> None:
            for number in numbers:
                request = ladder_pb2.RegisterBotRequest(
                    display_name=f"bot {number:06d}", owner="bench", game=match_pb2.GAME_QWIRKLE
                )
                start = time.perf_counter()
                await stub.RegisterBot(request, timeout=_DEADLINE)
                latencies.append(time.perf_counter() - start)

        start = time.perf_counter()
        await asyncio.gather(*(caller() for _ in range(in_flight)))
    return time.perf_counter() - start, latencies


async def _canary(port: int, seconds: float) -> list[float]:
    latencies: list[float] = []
    async with grpc.aio.insecure_channel(f"127.0.0.1:{port}") as channel:
        stub = match_service_pb2_grpc.MatchServiceStub(channel)
        config = match_pb2.MatchConfig(game=match_pb2.GAME_QWIRKLE, seat_count=2)
        created = await stub.CreateMatch(match_service_pb2.CreateMatchRequest(config=config))
        request = match_service_pb2.GetMatchRequest(name=created.match.name)
        end = time.monotonic() + seconds
        while (now := time.monotonic()) < end:
            start = time.perf_counter()
            await stub.GetMatch(request, timeout=_DEADLINE)
            latencies.append(time.perf_counter() - start)
            await asyncio.sleep(max(0.0, now + _CANARY_PERIOD - time.monotonic()))
    return latencies


def _random_token(rng: random.Random, bots: int) -> str:
    after = rng.randrange(0, max(1, bots // _PAGE)) * _PAGE
    return encode_page_token(after, ["leaderboard", _GAME]) if after else ""


async def _grpc_readers(
    port: int, readers: int, bots: int, stop: asyncio.Event
) -> tuple[list[float], int]:
    latencies: list[float] = []
    sizes: list[int] = []
    async with grpc.aio.insecure_channel(f"127.0.0.1:{port}") as channel:
        stub = ladder_pb2_grpc.LadderServiceStub(channel)

        async def reader(seed: int) -> None:
            rng = random.Random(seed)
            while not stop.is_set():
                request = ladder_pb2.GetLeaderboardRequest(
                    game=match_pb2.GAME_QWIRKLE, page_token=_random_token(rng, bots)
                )
                start = time.perf_counter()
                page = await stub.GetLeaderboard(request, timeout=_DEADLINE)
                latencies.append(time.perf_counter() - start)
                sizes.append(page.ByteSize())

        await asyncio.gather(*(reader(seed) for seed in range(readers)))
    return latencies, max(sizes, default=0)


async def _web_readers(
    url: str, readers: int, bots: int, stop: asyncio.Event
) -> tuple[list[float], int]:
    latencies: list[float] = []
    sizes: list[int] = []
    base = url.rstrip("/")
    async with aiohttp.ClientSession() as session:

        async def reader(seed: int) -> None:
            rng = random.Random(seed)
            while not stop.is_set():
                token = _random_token(rng, bots)
                path = f"/ladder/{_GAME}?page_token={token}" if token else "/ladder"
                start = time.perf_counter()
                async with session.get(base + path) as response:
                    body = await response.read()
                    assert response.status == 200, body[:200]
                latencies.append(time.perf_counter() - start)
                sizes.append(len(body))

        await asyncio.gather(*(reader(seed) for seed in range(readers)))
    return latencies, max(sizes, default=0)


class _Server:
    def __init__(self, db: str, seed: int, profile: str | None) -> None:
        command = [sys.executable, __file__, "--role", "server", "--db", db, "--seed", str(seed)]
        command += ["--profile", profile] if profile else []
        self.process = subprocess.Popen(
            command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True
        )

    def line(self) -> dict[str, Any]:
        assert self.process.stdout is not None
        line = self.process.stdout.readline()
        if not line:
            raise RuntimeError("the server ended early")
        answer: dict[str, Any] = json.loads(line)
        return answer

    def ask(self, command: str) -> dict[str, Any]:
        assert self.process.stdin is not None
        self.process.stdin.write(command + "\n")
        self.process.stdin.flush()
        return self.line()


async def _phase(
    server: _Server,
    port: int,
    seconds: float,
    load: Callable[[asyncio.Event], Coroutine[Any, Any, tuple[list[float], int]]] | None,
    *,
    watch: str = "watch",
) -> tuple[list[float], tuple[list[float], int] | None, dict[str, Any]]:
    """The canary for ``seconds`` beside ``load`` (stopped then); and the loop's lag."""
    await asyncio.to_thread(server.ask, watch)
    stop = asyncio.Event()
    loaded = None if load is None else asyncio.create_task(load(stop))
    canary = await _canary(port, seconds)
    stop.set()
    result = await loaded if loaded is not None else None
    return canary, result, await asyncio.to_thread(server.ask, "lag")


async def _measure(server: _Server, args: argparse.Namespace) -> None:
    started = server.line()
    port, web = int(started["port"]), str(started["web"])
    took, registrations = await _register(port, args.bots, args.register_in_flight)
    print(
        f"registered {args.bots} bots through RegisterBot ({args.register_in_flight} in flight) "
        f"in {took:.1f} s, {args.bots / took:.0f}/s; per call {_spread(registrations)}"
    )
    rated = await asyncio.to_thread(server.ask, "rate")
    print(f"{rated['rated']} of them given ratings as if they had played")

    async def one_reader(stop: asyncio.Event) -> tuple[list[float], int]:
        return await _grpc_readers(port, 1, args.bots, stop)

    async def grpc_load(stop: asyncio.Event) -> tuple[list[float], int]:
        return await _grpc_readers(port, args.readers, args.bots, stop)

    async def web_load(stop: asyncio.Event) -> tuple[list[float], int]:
        return await _web_readers(web, args.readers, args.bots, stop)

    phases = [
        ("alone", None, "watch"),
        ("gRPC, 1 reader", one_reader, "watch"),
        ("gRPC pages", grpc_load, "watch"),
        ("web pages", web_load, "watch"),
        ("old board 1/s", None, "watch old"),
    ]
    baseline_p99 = 0.0
    print(f"canary: GetMatch every {_CANARY_PERIOD * 1000:.0f} ms for {args.seconds:.0f} s")
    for name, load, watch in phases:
        canary, readers, lag = await _phase(server, port, args.seconds, load, watch=watch)
        p99 = _percentile(canary, 0.99)
        baseline_p99 = baseline_p99 or p99
        print(
            f"  {name:<14} canary {_spread(canary)}  p99 x{p99 / baseline_p99:5.1f} of alone;"
            f"  server loop late p99 {lag['lag_p99_ms']:.1f} ms, max {lag['lag_max_ms']:.1f} ms,"
            f" longest GC {lag['gc_max_ms']:.0f} ms"
        )
        if readers is not None:
            latencies, largest = readers
            rate = len(latencies) / args.seconds
            readers_count = 1 if load is one_reader else args.readers
            print(
                f"  {'':<14} readers {readers_count}: {_spread(latencies)}, {rate:.0f} pages/s, "
                f"largest {largest / 1024:.1f} KiB"
            )
        if "old_board_ms" in lag:
            old = ", ".join(f"{value:.0f}" for value in lag["old_board_ms"])
            print(f"  {'':<14} each old board took (ms): {old}")
    inside = await asyncio.to_thread(server.ask, "inside")
    print(f"inside the server, {inside['bots']} bots, best of 5 (old way: best of 2):")
    print(
        f"  a page of {_PAGE}: top {inside['page_top_ms']:.2f} ms, middle "
        f"{inside['page_middle_ms']:.2f} ms, end {inside['page_end_ms']:.2f} ms; the old "
        f"whole board {inside['old_board_ms']:.0f} ms ({inside['old_board_bytes'] / 1024:.0f} "
        f"KiB answer), x{inside['old_board_ms'] / inside['page_end_ms']:.0f} a page at the end"
    )
    print(
        f"  the last bot's line (its web page): {inside['rank_last_ms']:.2f} ms; the old "
        f"way ranked the whole board: {inside['old_rank_ms']:.0f} ms"
    )
    print(
        f"  a scheduler tick's reads with 2 bots connected: {inside['tick_reads_ms']:.2f} ms; "
        f"the old tick read every bot: {inside['old_tick_reads_ms']:.1f} ms (no match history "
        "here: with one, the old tick's seat and pair counts grew with it)"
    )


@contextlib.contextmanager
def _database(args: argparse.Namespace, folder: str) -> Iterator[str]:
    if not args.postgres:
        yield str(Path(folder) / "bench.db")
        return
    from botarena.server.store.local_postgres import local_postgres

    with local_postgres() as url:
        yield url


def _run(args: argparse.Namespace) -> None:
    with tempfile.TemporaryDirectory() as folder, _database(args, folder) as db:
        print(f"database: {'PostgreSQL' if args.postgres else 'SQLite'} ({os.cpu_count()} cores)")
        server = _Server(db, args.seed, args.profile)
        try:
            asyncio.run(_measure(server, args))
            assert server.process.stdin is not None
            server.process.stdin.write("stop\n")
            server.process.stdin.flush()
            server.process.wait(timeout=30)
        finally:
            server.process.kill()
    if args.profile:
        pstats.Stats(args.profile).sort_stats("tottime").print_stats(25)


def main() -> None:
    """Run the benchmark, or the server child's part of it."""
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--bots", type=int, default=26_000, help="bots registered")
    parser.add_argument("--seconds", type=float, default=10.0, help="each phase's length")
    parser.add_argument("--readers", type=int, default=4, help="page readers at once")
    parser.add_argument(
        "--register-in-flight", type=int, default=16, help="RegisterBot calls at a time"
    )
    parser.add_argument(
        "--postgres", action="store_true", help="a throwaway PostgreSQL instead of SQLite"
    )
    parser.add_argument("--seed", type=int, default=1, help="the random ratings' seed")
    parser.add_argument(
        "--profile", metavar="PATH", help="cProfile the server after registering; print the top"
    )
    # The server child's part.
    parser.add_argument("--role", choices=("server",), help=argparse.SUPPRESS)
    parser.add_argument("--db", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.role == "server":
        asyncio.run(_serve(args))
    else:
        _run(args)


if __name__ == "__main__":
    main()
