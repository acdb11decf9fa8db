"""Benchmark the Queendomino engine: random-vs-random games per second, in-process.

Usage: ``python bench/bench_queendomino.py [--games N] [--rounds R] [--seed S]``

For 2, 3 and 4 seats, each game starts with ``QUEENDOMINO.new_match`` and, until the game
is over, asks the seat to act for a uniformly random move of ``legal_moves`` and applies
it: the calls the match server makes per decision. The choice RNG is ``random.Random``
seeded per run (a bot's randomness, not the engine's). Separately, ``legal_moves`` is
timed alone over the states of recorded games.

The reference is issue 7's target, a full 2-seat random game in 100 ms; the script prints
the ratio of that budget to our time (above 1 is faster than the target). Timings on a
shared machine are noisy: the best of several rounds is reported.
"""

from __future__ import annotations

import argparse
import random
import time

from botarena.server.games.queendomino import QUEENDOMINO, QueendominoState

TARGET_MS_PER_TWO_SEAT_GAME = 100.0
"""Issue 7's budget for one full 2-seat random game."""


def play_random_game(
    seats: int, seed: int, rng: random.Random, record: list[QueendominoState] | None = None
) -> int:
    """Play one random game; return the number of decisions (states go to ``record``)."""
    rules = QUEENDOMINO
    state = rules.new_match(rules.default_config(), seats, seed)
    decisions = 0
    pick = rng.random
    while state.turn is not None:
        if record is not None:
            record.append(state)
        seat = state.turn.seat
        moves = rules.legal_moves(state, seat)
        state = rules.apply(state, seat, moves[int(pick() * len(moves))])
        decisions += 1
    return decisions


def games_per_second(games: int, seats: int, seed: int) -> tuple[float, float]:
    """Play ``games`` games; return games per second and decisions per game."""
    rng = random.Random(seed)
    decisions = 0
    start = time.perf_counter()
    for game in range(games):
        decisions += play_random_game(seats, seed + game, rng)
    return games / (time.perf_counter() - start), decisions / games


def legal_moves_microseconds(states: list[QueendominoState]) -> float:
    """Return the mean time of one ``legal_moves`` call over ``states``, in microseconds."""
    rules = QUEENDOMINO
    start = time.perf_counter()
    for state in states:
        assert state.turn is not None
        rules.legal_moves(state, state.turn.seat)
    return (time.perf_counter() - start) / len(states) * 1e6


def main() -> None:
    """Run the benchmark and print the rates and the ratio to the 2-seat budget."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=30, help="games per round and seat count")
    parser.add_argument("--rounds", type=int, default=3, help="rounds; the best is reported")
    parser.add_argument("--seed", type=int, default=1, help="first match seed")
    args = parser.parse_args()

    print(f"queendomino random-vs-random, {args.games} games x {args.rounds} rounds")
    two_seat_ms = 0.0
    for seats in (2, 3, 4):
        results = [games_per_second(args.games, seats, args.seed) for _ in range(args.rounds)]
        best, decisions = max(results)
        states: list[QueendominoState] = []
        for game in range(5):
            play_random_game(seats, args.seed + game, random.Random(game), states)
        micros = min(legal_moves_microseconds(states) for _ in range(args.rounds))
        if seats == 2:
            two_seat_ms = 1000 / best
        print(
            f"  {seats} seats: {best:7.1f} games/s  {1000 / best:6.1f} ms/game  "
            f"{decisions:6.1f} decisions/game  {micros:7.1f} us/legal_moves"
        )
    ratio = TARGET_MS_PER_TWO_SEAT_GAME / two_seat_ms
    print(f"  2-seat budget {TARGET_MS_PER_TWO_SEAT_GAME:.0f} ms / ours: {ratio:.2f}x")


if __name__ == "__main__":
    main()
