"""Replays of real matches, played in-process to their end."""

from __future__ import annotations

import asyncio
import random
from pathlib import Path

import pytest

from botarena.server.games import get_rules
from botarena.server.match import MatchManager, MatchSettings
from botarena.server.service._replays import encode_replay
from botarena.v1 import match_pb2


def played_replay(game: str, seats: int = 2, seed: int = 3) -> match_pb2.Replay:
    """The replay of a match of ``game`` played to its end with seeded random moves, its
    seats named ``bot0``, ``bot1``..."""

    async def play() -> match_pb2.Replay:
        manager = MatchManager()
        rules = get_rules(game)
        names = tuple(f"bot{seat}" for seat in range(seats))
        settings = MatchSettings(
            game=game,
            seat_count=seats,
            seed=seed,
            game_config=rules.default_config(),
            seat_names=names,
        )
        match, _ = manager.create(settings)
        rng = random.Random(seed)
        while not match.finished:
            seat = match.seats_to_act()[0]
            manager.submit(
                match.match_id,
                match.tokens[seat],
                rng.choice(match.legal_moves(seat)),
                expected_state_version=match.state_version,
            )
        replay = match_pb2.Replay()
        encode_replay(match, replay)
        manager.close()
        return replay

    return asyncio.run(play())


@pytest.fixture(scope="session")
def replays() -> dict[str, match_pb2.Replay]:
    """One finished match's replay per game."""
    return {game: played_replay(game) for game in ("qwirkle", "qwixx", "queendomino")}


@pytest.fixture(scope="session")
def fixtures() -> Path:
    """The folder of version 1 replay files (the runner's replay.jsonl), one per game,
    from a real run (``v1-<game>.jsonl``)."""
    return Path(__file__).parent / "fixtures"
