"""How strong is the server's stand-in move? It must never beat a weak player.

Usage: ``python bench/bench_stand_in.py [--games N] [--seed S]``

For every game the server hosts, plays ``N`` two-seat games at the engine level between
a seat that always gets the match layer's stand-in move (``GameHooks.stand_in_move``, as
the server plays it for a seat that timed out) and a seat playing a uniformly random legal
move (the ``random`` reference bot's policy), each seed in both seat orders, and prints
the stand-in's share of wins (ties count half) with a 95 % interval. For Qwirkle it also
prints the old default move (the highest-scoring placement), which let a bot that never
moved win 100 % against ``random`` (issue 14). Engine calls only; nothing is timed.
"""

from __future__ import annotations

import argparse
import math
import random
from collections.abc import Callable, Sequence
from typing import Any

from botarena.server.games import get_rules
from botarena.server.match import hooks_for

Policy = Callable[[Any, Any, int, random.Random], object]


def _uniform(rules: Any, state: Any, seat: int, rng: random.Random) -> object:
    return rng.choice(list(rules.legal_moves(state, seat)))


def _stand_in(game: str) -> Policy:
    hooks = hooks_for(game)

    def play(rules: Any, state: Any, seat: int, rng: random.Random) -> object:
        def pick(options: Sequence[Any]) -> Any:
            return rng.choice(list(options))

        return hooks.stand_in_move(rules, state, seat, pick)

    return play


def _highest_scoring(rules: Any, state: Any, seat: int, rng: random.Random) -> object:
    """The old Qwirkle default: the best placement, else the first legal move."""
    moves = rules.legal_moves(state, seat)
    scored = [move for move in moves if getattr(move, "score", None) is not None]
    return max(scored, key=lambda move: move.score) if scored else moves[0]


def _share(rules: Any, seed: int, tested: Policy, opponent: Policy, tested_seat: int) -> float:
    state = rules.new_match(rules.default_config(), 2, seed)
    rng = random.Random(seed)
    while (outcome := rules.outcome(state)) is None:
        # Qwixx's first action is simultaneous: settle the seats in order.
        seat = min(rules.to_act(state))
        policy = tested if seat == tested_seat else opponent
        state = rules.apply(state, seat, policy(rules, state, seat, rng))
    ranks = outcome.ranks
    if ranks[tested_seat] < ranks[1 - tested_seat]:
        return 1.0
    return 0.5 if ranks[0] == ranks[1] else 0.0


def _interval(wins: float, games: int) -> tuple[float, float]:
    """Wilson's 95 % interval of a win share."""
    z, p = 1.96, wins / games
    centre = (p + z * z / (2 * games)) / (1 + z * z / games)
    half = z * math.sqrt(p * (1 - p) / games + z * z / (4 * games * games)) / (1 + z * z / games)
    return centre - half, centre + half


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=100, help="seeds per game (x2 seatings)")
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    rows: list[tuple[str, str, Policy]] = [
        (game, "stand-in", _stand_in(game)) for game in ("qwirkle", "qwixx", "queendomino")
    ]
    rows.insert(1, ("qwirkle", "old default (best placement)", _highest_scoring))
    print(f"{'game':<12} {'policy vs random':<30} {'games':>5} {'win share (95% CI)':>22}")
    for game, label, policy in rows:
        rules = get_rules(game)
        wins = 0.0
        games = 0
        for seed in range(args.seed, args.seed + args.games):
            for seat in (0, 1):
                wins += _share(rules, seed, policy, _uniform, seat)
                games += 1
        low, high = _interval(wins, games)
        share = f"{100 * wins / games:5.1f} % ({100 * low:.0f}-{100 * high:.0f})"
        print(f"{game:<12} {label:<30} {games:>5} {share:>22}")


if __name__ == "__main__":
    main()
