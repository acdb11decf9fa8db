"""Benchmark the Qwixx engine: random-vs-random 4-seat games per second, in-process.

Usage: ``python bench/bench_qwixx.py [--games N] [--seats S] [--seed S]``

Each game starts with ``QWIXX.new_match`` and, until the game is over, asks every seat in
``to_act`` for a uniformly random move of ``legal_moves`` and applies it (action 1: every
seat in seat order; action 2: the active seat). Only the engine's public API is used, the
same calls the match server makes per decision. The choice RNG is ``random.Random``
seeded per run (a bot's randomness, not the engine's).

The reference is an optimised in-process Qwixx simulator in Julia at about 50,000 games
per second (issue 6); the script prints our rate and the ratio to it. Timings on a shared
machine are noisy: the best of several rounds is reported.
"""

from __future__ import annotations

import argparse
import random
import statistics
import time

from botarena.server.games.qwixx import QWIXX, QwixxState

JULIA_GAMES_PER_SECOND = 50_000
"""The reference: an optimised Julia Qwixx simulator, random vs random (issue 6)."""

TARGET_GAMES_PER_SECOND = 2_000
"""The target set by issue 6."""


def play_random_game(seats: int, seed: int, rng: random.Random) -> tuple[QwixxState, int]:
    """Play one random game; return the final state and the number of decisions."""
    rules = QWIXX
    state = rules.new_match(rules.default_config(), seats, seed)
    decisions = 0
    to_act = rules.to_act(state)
    pick = rng.random  # a uniform index from random() costs half of rng.choice's
    while to_act:
        for seat in sorted(to_act):
            moves = rules.legal_moves(state, seat)
            state = rules.apply(state, seat, moves[int(pick() * len(moves))])
            decisions += 1
        to_act = rules.to_act(state)
    return state, decisions


def run(games: int, seats: int, seed: int) -> tuple[float, int, int]:
    """Play ``games`` games; return the seconds taken, the decisions and the turns."""
    rng = random.Random(seed)
    decisions = 0
    turns = 0
    start = time.perf_counter()
    for game in range(games):
        state, made = play_random_game(seats, seed + game, rng)
        decisions += made
        turns += sum(1 for entry in state.history if type(entry).__name__ == "Rolled")
    return time.perf_counter() - start, decisions, turns


def main() -> None:
    """Run the benchmark and print games per second and the ratio to the reference."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=2_000, help="games per round")
    parser.add_argument("--rounds", type=int, default=3, help="rounds; the best is reported")
    parser.add_argument("--seats", type=int, default=4, help="seats per game (2-5)")
    parser.add_argument("--seed", type=int, default=1, help="first match seed")
    args = parser.parse_args()

    rates = []
    for _ in range(args.rounds):
        seconds, decisions, turns = run(args.games, args.seats, args.seed)
        rates.append(args.games / seconds)
    best = max(rates)
    print(f"qwixx random-vs-random, {args.seats} seats, {args.games} games x {args.rounds} rounds")
    print(f"  turns per game        {turns / args.games:10.1f}")
    print(f"  decisions per game    {decisions / args.games:10.1f}")
    print(f"  games per second      {best:10.0f}  (median {statistics.median(rates):.0f})")
    print(f"  microseconds/decision {1e6 / best / (decisions / args.games):10.2f}")
    print(
        f"  target {TARGET_GAMES_PER_SECOND}/s            {best / TARGET_GAMES_PER_SECOND:10.2f}x"
    )
    print(f"  ratio to Julia 50,000/s   {best / JULIA_GAMES_PER_SECOND:10.3f}")


if __name__ == "__main__":
    main()
