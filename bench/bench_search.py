"""Measure the search bots in-process: win rate with a 95 % interval, scores, think times.

Usage: ``python bench/bench_search.py [--game qwirkle] [--bot search] [--against greedy]
[--games 20] [--seed 1] [--jobs 1] [--set samples=8 ...]``

Plays ``--games`` 2-seat games on the engine alone (``botarena.clients.testing.
play_in_process``, no server: the same views and legal moves as a match), every seed in
both seat orders, and prints the first bot's wins (a shared first place counts half),
its win rate with a Wilson 95 % interval, both bots' mean scores and the mean and p95
think time per decision. ``--set name=value`` overrides a field of the search bot's
settings (``QwirkleSearchSettings``, ...), e.g. ``--set time_limit=0.1``. The runner
(``botarena match``) is the measure of record; this is for developing and tuning.
"""

from __future__ import annotations

import argparse
import math
import multiprocessing
import statistics
import time
from collections.abc import Sequence

from botarena.bots import get_bot
from botarena.bots._registry import search_bot_for
from botarena.clients import Bot
from botarena.clients.testing import play_in_process


def wilson(wins: float, games: int, z: float = 1.96) -> tuple[float, float]:
    """Return the Wilson score interval of a win rate (shared wins count as fractions)."""
    if games == 0:
        return (0.0, 1.0)
    p = wins / games
    centre = (p + z * z / (2 * games)) / (1 + z * z / games)
    half = z * math.sqrt(p * (1 - p) / games + z * z / (4 * games * games)) / (1 + z * z / games)
    return (max(0.0, centre - half), min(1.0, centre + half))


def _bot(name: str, game: str, overrides: Sequence[str]) -> Bot:
    if name != "search":
        return get_bot(name)
    return search_bot_for(game, overrides)


def _play(
    job: tuple[str, str, str, int, int, tuple[str, ...]],
) -> tuple[float, int, int, list[float]]:
    game, first, second, seed, swap, overrides = job
    bots = [_bot(first, game, overrides), _bot(second, game, overrides)]
    if swap:
        bots.reverse()
    result = play_in_process(game, bots, seed=seed)
    me, other = (1, 0) if swap else (0, 1)
    if result.ranks[me] < result.ranks[other]:
        win = 1.0
    elif result.ranks[me] == result.ranks[other]:
        win = 0.5
    else:
        win = 0.0
    return win, result.scores[me], result.scores[other], list(result.think_seconds[me])


def main(argv: Sequence[str] | None = None) -> int:
    """Run the benchmark; returns 0."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--game", default="qwirkle")
    parser.add_argument("--bot", default="search")
    parser.add_argument("--against", default="greedy")
    parser.add_argument("--games", type=int, default=4)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--jobs", type=int, default=1)
    parser.add_argument("--set", action="append", default=[], dest="overrides")
    args = parser.parse_args(argv)
    jobs = [
        (args.game, args.bot, args.against, args.seed + n // 2, n % 2, tuple(args.overrides))
        for n in range(args.games)
    ]
    started = time.perf_counter()
    if args.jobs > 1:
        with multiprocessing.Pool(args.jobs) as pool:
            results = pool.map(_play, jobs, chunksize=1)
    else:
        results = [_play(job) for job in jobs]
    wins = sum(r[0] for r in results)
    mine = statistics.fmean(r[1] for r in results)
    theirs = statistics.fmean(r[2] for r in results)
    low, high = wilson(wins, len(results))
    times = sorted(t for r in results for t in r[3])
    print(
        f"{args.game}: {args.bot} vs {args.against}, {len(results)} games "
        f"(seeds {args.seed}..{args.seed + (args.games - 1) // 2}, both seat orders), "
        f"{time.perf_counter() - started:.0f} s"
    )
    print(
        f"  {args.bot} won {wins:g} ({100 * wins / len(results):.1f} %, 95 % CI "
        f"{100 * low:.1f}-{100 * high:.1f}); mean score {mine:.1f} vs {theirs:.1f}"
    )
    if times:
        p95 = times[min(len(times) - 1, int(0.95 * len(times)))]
        print(
            f"  {args.bot} think time per decision: mean {1000 * statistics.fmean(times):.1f} ms,"
            f" p95 {1000 * p95:.1f} ms, max {1000 * times[-1]:.1f} ms ({len(times)} decisions)"
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
