"""Benchmark the Qwirkle engine's move generation against a naive reference, in one run.

Usage: ``python bench/bench_qwirkle.py [--games N] [--seed S]``

Prints, for positions taken from seeded greedy-vs-greedy 2-seat games:

* the mean time of ``QWIRKLE.legal_moves`` per position and the mean number of legal
  placements, next to a straightforward generator written here (grow every legal single
  tile along its row and column one tile at a time, re-checking and re-scoring every
  line from scratch), and the speed-up ratio between the two;
* full games per second and milliseconds per game for greedy-vs-greedy (with the engine's
  generator and with the naive one) and random-vs-random.

Greedy: the highest-scoring placement (first in legal-move order on ties), else an
exchange of the whole rack (as much as the bag allows), else a pass. Only the engine's
public API is used. Timings on a shared machine are noisy: read the ratios.
"""

from __future__ import annotations

import argparse
import random
import statistics
import time
from collections.abc import Callable, Mapping, Sequence

from botarena.server.games.qwirkle import (
    QWIRKLE,
    Cell,
    Exchange,
    Pass,
    Place,
    Placement,
    QwirkleMove,
    QwirkleState,
    Tile,
)

Placements = dict[tuple[tuple[int, int, Tile], ...], int]
"""Canonical placements (sorted (x, y, tile) triples) and their scores."""

_STEPS: tuple[Cell, Cell] = ((1, 0), (0, 1))


# ---------------------------------------------------------------------------- naive reference


def _line(board: Mapping[Cell, Tile], cell: Cell, step: Cell) -> list[Tile]:
    tiles = [board[cell]]
    for sign in (-1, 1):
        x, y = cell[0] + sign * step[0], cell[1] + sign * step[1]
        while (x, y) in board:
            tiles.append(board[(x, y)])
            x, y = x + sign * step[0], y + sign * step[1]
    return tiles


def _valid(tiles: list[Tile]) -> bool:
    if len(tiles) < 2:
        return True
    if len(tiles) > 6 or len(set(tiles)) != len(tiles):
        return False
    return len({tile.colour for tile in tiles}) == 1 or len({tile.shape for tile in tiles}) == 1


def _naive_check_and_score(
    board: Mapping[Cell, Tile], placed: Mapping[Cell, Tile], step: Cell
) -> int | None:
    after = {**board, **placed}
    score = 0
    main_counted = False
    for cell in placed:
        for axis in _STEPS:
            line = _line(after, cell, axis)
            if not _valid(line):
                return None
            if axis == step:
                if main_counted:
                    continue  # the line of the placement counts once
                main_counted = True
            if len(line) > 1:
                score += len(line) + (6 if len(line) == 6 else 0)
    return score


def naive_placements(board: Mapping[Cell, Tile], rack: Sequence[Tile]) -> Placements:
    """Return every legal placement after the opening, the straightforward way."""
    found: Placements = {}
    anchors = {
        (x + dx, y + dy)
        for x, y in board
        for dx, dy in ((1, 0), (-1, 0), (0, 1), (0, -1))
        if (x + dx, y + dy) not in board
    }
    for step in _STEPS:
        frontier: list[dict[Cell, Tile]] = []
        for cell in sorted(anchors):
            for tile in sorted(set(rack)):
                placed = {cell: tile}
                score = _naive_check_and_score(board, placed, step)
                if score is not None:
                    frontier.append(placed)
                    found[((cell[0], cell[1], tile),)] = score
        while frontier:
            grown: list[dict[Cell, Tile]] = []
            for placed in frontier:
                left = min(placed)
                right = max(placed)
                ends = []
                for cell, sign in ((left, -1), (right, 1)):
                    x, y = cell
                    while (x, y) in board or (x, y) in placed:
                        x, y = x + sign * step[0], y + sign * step[1]
                    ends.append((x, y))
                remaining = list(rack)
                for tile in placed.values():
                    remaining.remove(tile)
                for end in ends:
                    for tile in sorted(set(remaining)):
                        bigger = {**placed, end: tile}
                        key = tuple(sorted((x, y, t) for (x, y), t in bigger.items()))
                        if key in found:
                            continue
                        score = _naive_check_and_score(board, bigger, step)
                        if score is not None:
                            found[key] = score
                            grown.append(bigger)
            frontier = grown
    return found


# ---------------------------------------------------------------------------- policies

Policy = Callable[[QwirkleState, int, random.Random], QwirkleMove]


def _fallback(state: QwirkleState, seat: int) -> QwirkleMove:
    view = QWIRKLE.view(state, seat)
    rack = view.rack or ()
    count = min(len(rack), view.bag_size)
    return Exchange(rack[:count]) if count else Pass()


def greedy(state: QwirkleState, seat: int, rng: random.Random) -> QwirkleMove:
    """The engine's best-scoring placement, else the fallback."""
    best: Place | None = None
    best_score = -1
    for move in QWIRKLE.legal_moves(state, seat):
        if isinstance(move, Place) and move.score is not None and move.score > best_score:
            best, best_score = move, move.score
    return best if best is not None else _fallback(state, seat)


def naive_greedy(state: QwirkleState, seat: int, rng: random.Random) -> QwirkleMove:
    """The naive generator's best-scoring placement, else the fallback."""
    if state.is_opening:
        return greedy(state, seat, rng)  # the opening is not what is being compared
    view = QWIRKLE.view(state, seat)
    found = naive_placements(view.board, view.rack or ())
    if not found:
        return _fallback(state, seat)
    best = max(sorted(found), key=lambda key: found[key])
    return Place(tuple(Placement(*triple) for triple in best))


def random_policy(state: QwirkleState, seat: int, rng: random.Random) -> QwirkleMove:
    """Any legal move, uniformly."""
    return rng.choice(QWIRKLE.legal_moves(state, seat))


def play(policy: Policy, seed: int) -> tuple[QwirkleState, list[tuple[QwirkleState, int]]]:
    """Play one 2-seat game; return the final state and every position with its seat."""
    rng = random.Random(seed)
    state = QWIRKLE.new_match(QWIRKLE.default_config(), 2, seed)
    positions = []
    while state.turn is not None:
        seat = state.turn
        positions.append((state, seat))
        state = QWIRKLE.apply(state, seat, policy(state, seat, rng))
    return state, positions


def time_games(policy: Policy, seeds: Sequence[int]) -> float:
    """Return the mean seconds per game."""
    start = time.perf_counter()
    for seed in seeds:
        play(policy, seed)
    return (time.perf_counter() - start) / len(seeds)


# ---------------------------------------------------------------------------- main


def main() -> None:
    """Run the benchmark and print the results."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=20, help="games per measurement")
    parser.add_argument("--seed", type=int, default=1, help="first seed")
    args = parser.parse_args()
    seeds = list(range(args.seed, args.seed + args.games))
    naive_seeds = seeds[: max(1, args.games // 10)]

    positions = [
        (state, seat)
        for seed in seeds
        for state, seat in play(greedy, seed)[1]
        if not state.is_opening
    ]
    fast_times = []
    counts = []
    for state, seat in positions:
        start = time.perf_counter()
        moves = QWIRKLE.legal_moves(state, seat)
        fast_times.append(time.perf_counter() - start)
        counts.append(sum(isinstance(move, Place) for move in moves))
    sample = positions[:: max(1, len(positions) // 60)]
    naive_times = []
    agree = 0
    for state, seat in sample:
        view = QWIRKLE.view(state, seat)
        start = time.perf_counter()
        found = naive_placements(view.board, view.rack or ())
        naive_times.append(time.perf_counter() - start)
        fast = {move.placements: move.score for move in QWIRKLE.placements(state, seat)}
        agree += fast == found
    fast_mean = statistics.fmean(fast_times)
    naive_mean = statistics.fmean(naive_times)

    greedy_game = time_games(greedy, seeds)
    naive_game = time_games(naive_greedy, naive_seeds)
    random_game = time_games(random_policy, seeds)

    print(f"Qwirkle engine benchmark: {args.games} seeded 2-seat games (seeds {seeds[0]}..)")
    print(f"positions from greedy games          {len(positions)}")
    print(f"mean legal placements per position   {statistics.fmean(counts):.1f}")
    print(f"legal_moves per position             {fast_mean * 1e6:9.1f} us")
    print(
        f"naive generator per position         {naive_mean * 1e6:9.1f} us"
        f"   ({len(sample)} positions; agrees with legal_moves on {agree})"
    )
    print(f"  speed-up                           {naive_mean / fast_mean:9.1f}x")
    print(f"greedy vs greedy                     {greedy_game * 1e3:9.2f} ms/game"
          f"  {1 / greedy_game:8.1f} games/s")  # fmt: skip
    print(f"naive greedy vs naive greedy         {naive_game * 1e3:9.2f} ms/game"
          f"  {1 / naive_game:8.1f} games/s   ({len(naive_seeds)} games)")  # fmt: skip
    print(f"  speed-up                           {naive_game / greedy_game:9.1f}x")
    print(f"random vs random                     {random_game * 1e3:9.2f} ms/game"
          f"  {1 / random_game:8.1f} games/s")  # fmt: skip


if __name__ == "__main__":
    main()
