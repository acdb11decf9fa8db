"""Benchmark the cost of durability: a move through the match layer with and without a store.

Usage: ``python bench/bench_store.py [--games N] [--rounds R] [--postgres [URL]]``

Plays seeded Qwirkle games (first legal move, 2 seats) through ``MatchManager.submit``,
the layer that commits each move before announcing it, three ways in alternating rounds:
no store, a SQLite file store (WAL, ``synchronous=NORMAL``: what ``botarena serve``
uses) and a ``:memory:`` store. It prints the median microseconds per move (a "hop") of
each, the added cost per hop, and the time inside ``Store.record`` itself. The engine's
time is the same in every run, so the difference is the price of durability. A recovery
replay of a finished game (``Match.restore``) is timed too. With ``--postgres`` two more
variants run in the same rounds: a ``PostgresStore`` (on URL, or a throwaway
``local_postgres()`` on 127.0.0.1), and the same with a lease, as a node of several does
(every commit fenced by its lease row, which it renews), with their ratios to SQLite.
Never a test.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import statistics
import tempfile
import time
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

from botarena.server.match import MatchManager, MatchSettings
from botarena.server.service import configure_logging
from botarena.server.service._storage import ProtobufMatchCodec
from botarena.server.store import (
    MEMORY,
    Lease,
    PostgresStore,
    SqliteStore,
    SqlStore,
    StoredEvent,
    StoredResult,
    StoredSeat,
)
from botarena.server.store.local_postgres import local_postgres

_LEASE = Lease("bench/1", "127.0.0.1:1", 60.0)


class _Timed(SqlStore):
    """Adds up the time a store spends committing moves."""

    seconds = 0.0
    commits = 0

    def record(
        self,
        match_id: str,
        events: Sequence[StoredEvent],
        seats: Sequence[StoredSeat],
        result: StoredResult | None = None,
        *,
        lease: Lease | None = None,
    ) -> None:
        start = time.perf_counter()
        super().record(match_id, events, seats, result, lease=lease)
        self.seconds += time.perf_counter() - start
        self.commits += 1


class TimedStore(_Timed, SqliteStore):
    """A SqliteStore that adds up the time spent committing moves."""


class TimedPostgres(_Timed, PostgresStore):
    """A PostgresStore that adds up the time spent committing moves."""


def _settings(seed: int) -> MatchSettings:
    from botarena.server.games.qwirkle import QWIRKLE

    return MatchSettings(
        game="qwirkle", seat_count=2, seed=seed, game_config=QWIRKLE.default_config()
    )


async def _play(manager: MatchManager, games: int, seed: int) -> tuple[float, int]:
    """Play ``games`` games; return the seconds spent in submit and the number of moves."""
    seconds, moves = 0.0, 0
    for game in range(games):
        match, _ = manager.create(_settings(seed + game))
        tokens = match.tokens
        while not match.finished:
            seat = match.seats_to_act()[0]
            move = match.legal_moves(seat)[0]  # engine time, outside the timed call
            start = time.perf_counter()
            manager.submit(
                match.match_id, tokens[seat], move, expected_state_version=match.state_version
            )
            seconds += time.perf_counter() - start
            moves += 1
    return seconds, moves


def _round(store: _Timed | None, games: int, seed: int, lease: Lease | None = None) -> float:
    async def run() -> float:
        options: dict[str, Any] = {}
        if store is not None:
            options = {"store": store, "codec": ProtobufMatchCodec(), "lease": lease}
        manager = MatchManager(**options)
        seconds, moves = await _play(manager, games, seed)
        manager.close()
        return seconds / moves * 1e6

    return asyncio.run(run())


def _replay_ms(store: SqliteStore, games: int) -> float:
    async def run() -> float:
        manager = MatchManager(store=store, codec=ProtobufMatchCodec(), max_finished_matches=0)
        finished = store.list_matches(finished=True, limit=games)
        start = time.perf_counter()
        for record in finished:
            manager.get(record.match_id)
        elapsed = time.perf_counter() - start
        manager.close()
        return elapsed / len(finished) * 1e3

    return asyncio.run(run())


@contextlib.contextmanager
def _postgres(url: str | None) -> Iterator[str | None]:
    """The PostgreSQL URL of ``--postgres``: the one given, a throwaway local one for
    ``--postgres`` alone, ``None`` without the option."""
    if url != "local":
        yield url
        return
    with local_postgres() as started:
        yield started


def main() -> None:
    """Run the benchmark and print µs per hop with and without a store."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=20, help="games per round")
    parser.add_argument("--rounds", type=int, default=3, help="rounds of each variant")
    parser.add_argument(
        "--postgres",
        nargs="?",
        const="local",
        metavar="URL",
        help="also PostgreSQL, with and without a lease (no URL: a local throwaway server)",
    )
    args = parser.parse_args()
    configure_logging(level=40)  # errors only: logging is not what is measured
    with tempfile.TemporaryDirectory() as folder, _postgres(args.postgres) as url:
        file_store = TimedStore(Path(folder) / "bench.db")
        memory_store = TimedStore(MEMORY)
        postgres = TimedPostgres(url) if url is not None else None
        results: dict[str, list[float]] = {"none": [], "file": [], "memory": []}
        if postgres is not None:
            results |= {"postgres": [], "leased": []}
        for round_number in range(args.rounds):
            seed = 1 + round_number * args.games
            results["none"].append(_round(None, args.games, seed))
            results["file"].append(_round(file_store, args.games, seed))
            results["memory"].append(_round(memory_store, args.games, seed))
            if postgres is not None:
                results["postgres"].append(_round(postgres, args.games, seed))
                results["leased"].append(_round(postgres, args.games, seed, _LEASE))
        replay = _replay_ms(file_store, args.games)
        commit_us = file_store.seconds / file_store.commits * 1e6
        file_store.close()
        if postgres is not None:
            postgres.close()
    none, file, memory = (statistics.median(results[name]) for name in ("none", "file", "memory"))
    print(f"qwirkle, first legal move, {args.games} games x {args.rounds} rounds per variant")
    print(f"  no store      {none:8.1f} µs per hop")
    print(f"  file store    {file:8.1f} µs per hop  (+{file - none:.1f} µs, x{file / none:.2f})")
    print(
        f"  memory store  {memory:8.1f} µs per hop  (+{memory - none:.1f} µs, x{memory / none:.2f})"
    )
    print(f"  Store.record on the file: {commit_us:.1f} µs per commit")
    print(f"  rebuilding a finished game from the file: {replay:.1f} ms")
    if "postgres" in results:
        pg, leased = statistics.median(results["postgres"]), statistics.median(results["leased"])
        print(
            f"  postgresql    {pg:8.1f} µs per hop  "
            f"(x{pg / none:.2f} no store, x{pg / file:.2f} file)"
        )
        print(
            f"  pg + lease    {leased:8.1f} µs per hop  "
            f"(x{leased / file:.2f} file, x{leased / pg:.2f} postgresql without a lease)"
        )


if __name__ == "__main__":
    main()
