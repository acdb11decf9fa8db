"""Benchmark what a finished game's files cost the runner: its replay file and its viewer.

Usage: ``python bench/bench_replay_files.py [--games qwirkle,queendomino] [--repeat N]``

Plays one 2-seat game of each game in-process (the game's best built-in bot against
random, seeded) and times, ``--repeat`` times, what the runner does with ``--out`` once
a game has ended (``runner._play._save_with_viewer``): ``save_replay`` into
``REPLAY_FILE_NAME`` and ``write_game_viewer`` beside it. Prints the median, the sizes of
the replay file and of the viewer page, and as a reference the same replay's
``json_format.MessageToDict`` and ``SerializeToString`` times (median). Timings on a
shared machine are noisy: compare runs made one after the other.
"""

from __future__ import annotations

import argparse
import asyncio
import logging
import random
import statistics
import tempfile
import time
from collections.abc import Callable
from functools import partial
from pathlib import Path

from google.protobuf import json_format

from botarena.bots import BUILTIN_BOTS
from botarena.clients.replays import REPLAY_FILE_NAME, save_replay
from botarena.clients.runner._pages import write_game_viewer
from botarena.server.games import get_rules
from botarena.server.match import MatchManager, MatchSettings
from botarena.server.service import codec_for_game, configure_logging
from botarena.server.service._replays import encode_replay
from botarena.v1 import match_pb2


def played(game: str, seed: int = 7) -> match_pb2.Replay:
    """The replay of one 2-seat game: the game's best built-in bot against random."""
    best = next(
        BUILTIN_BOTS[name]
        for name in ("greedy", "heuristic", "random")
        if BUILTIN_BOTS[name].plays(game)
    )
    bots = [best.factory(), BUILTIN_BOTS["random"].factory()]

    async def play() -> match_pb2.Replay:
        manager = MatchManager()
        rules = get_rules(game)
        codec = codec_for_game(game)
        settings = MatchSettings(
            game=game,
            seat_count=2,
            seed=seed,
            game_config=rules.default_config(),
            seat_names=(best.name, "random"),
        )
        match, _ = manager.create(settings)
        rng = random.Random(seed)
        while not match.finished:
            seat = match.seats_to_act()[0]
            view = match_pb2.PlayerView()
            codec.encode_view(
                match.rules.view(match.state, seat), seat, with_history=True, out=view
            )
            legal = codec.encode_moves(match.legal_moves(seat))
            move = codec.decode_move(bots[seat].choose_move(view, legal, rng))
            manager.submit(
                match.match_id, match.tokens[seat], move, expected_state_version=match.state_version
            )
        replay = match_pb2.Replay()
        encode_replay(match, replay)
        manager.close()
        return replay

    return asyncio.run(play())


def median_ms(action: Callable[[], object], repeat: int) -> float:
    """The median wall time of ``action`` over ``repeat`` calls, in milliseconds."""
    times = []
    for _ in range(repeat):
        started = time.perf_counter()
        action()
        times.append(time.perf_counter() - started)
    return statistics.median(times) * 1000


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", default="qwirkle,queendomino", help="comma-separated")
    parser.add_argument("--repeat", type=int, default=5, help="runs per measurement")
    args = parser.parse_args()
    configure_logging(level=logging.WARNING, json=True)
    print(f"replay file: {REPLAY_FILE_NAME}; median of {args.repeat}")
    header = "game          steps  save+viewer  file KiB  html KiB  MessageToDict  Serialize"
    print(header)
    for game in args.games.split(","):
        replay = played(game)
        with tempfile.TemporaryDirectory() as folder:
            path = Path(folder) / REPLAY_FILE_NAME

            def save_with_viewer(replay: match_pb2.Replay = replay, path: Path = path) -> None:
                write_game_viewer(replay, save_replay(replay, path))

            runner_ms = median_ms(save_with_viewer, args.repeat)
            file_kib = path.stat().st_size / 1024
            html_kib = path.with_name("viewer.html").stat().st_size / 1024
        to_dict_ms = median_ms(partial(json_format.MessageToDict, replay), args.repeat)
        binary_ms = median_ms(replay.SerializeToString, args.repeat)
        print(
            f"{game:<12} {len(replay.steps):>6} {runner_ms:>9.0f} ms {file_kib:>9.1f} "
            f"{html_kib:>9.1f} {to_dict_ms:>11.0f} ms {binary_ms:>7.1f} ms"
        )


if __name__ == "__main__":
    main()
