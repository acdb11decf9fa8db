"""The reference bots as commands (docs/bots.md): arguments or environment in, a played
seat and exit status 0 out; and bot_main's handling of bad input."""

from __future__ import annotations

import asyncio
import os
import subprocess
import sys
from collections.abc import Iterator

import pytest

from botarena.bots import RandomBot
from botarena.clients import (
    MatchClient,
    RetryPolicy,
    UnavailableError,
    bot_main,
    run_bot_async,
)
from botarena.clients.testing import start_server
from botarena.v1 import match_pb2


@pytest.fixture(scope="module")
def address() -> Iterator[str]:
    with start_server() as served:
        yield served


def create_match(address: str, seed: int) -> tuple[str, list[str]]:
    with MatchClient(target=address) as client:
        created = client.create_match(
            match_pb2.MatchConfig(game=match_pb2.GAME_QWIRKLE, seat_count=2, seed=seed)
        )
    return created.match.name, [seat.token for seat in created.seat_tokens]


def test_greedy_and_random_commands_play_a_match_to_the_end(address: str) -> None:
    name, tokens = create_match(address, seed=12)
    env = {k: v for k, v in os.environ.items() if not k.startswith("BOTARENA_")}
    by_arguments = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "botarena.bots.greedy",
            "--server",
            address,
            "--match",
            name,
            "--token",
            tokens[0],
            "--seed",
            "1",
        ],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env=env,
        text=True,
    )
    by_environment = subprocess.Popen(
        [sys.executable, "-m", "botarena.bots.random"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env={
            **env,
            "BOTARENA_SERVER": address,
            "BOTARENA_MATCH": name,
            "BOTARENA_TOKEN": tokens[1],
            "BOTARENA_SEED": "2",
        },
    )
    results = [process.communicate(timeout=60) for process in (by_arguments, by_environment)]
    assert [by_arguments.returncode, by_environment.returncode] == [0, 0], results
    for _, stderr in results:
        assert "match over" in stderr
    with MatchClient(target=address) as client:
        assert client.get_match(name).match.state == match_pb2.Match.STATE_FINISHED


def test_a_missing_token_is_a_usage_error(capsys: pytest.CaptureFixture[str]) -> None:
    for key in ("BOTARENA_SERVER", "BOTARENA_MATCH", "BOTARENA_TOKEN"):
        assert key not in os.environ
    with pytest.raises(SystemExit) as caught:
        bot_main(RandomBot, ["--server", "127.0.0.1:1", "--match", "matches/ab"])
    assert caught.value.code == 2
    assert "--token or $BOTARENA_TOKEN is required" in capsys.readouterr().err


def test_a_refused_token_exits_with_status_1(address: str) -> None:
    name, _ = create_match(address, seed=13)
    status = bot_main(
        RandomBot,
        ["--server", address, "--match", name, "--token", "wrong", "--log-level", "error"],
    )
    assert status == 1


def test_an_unreachable_server_fails_after_the_bounded_retries() -> None:
    with start_server() as gone:
        pass
    quick = RetryPolicy(max_attempts=3, initial_backoff=0.01, max_backoff=0.02)
    with pytest.raises(UnavailableError):
        asyncio.run(
            run_bot_async(RandomBot(), server=gone, token="t", match="matches/ab", reconnect=quick)
        )
