"""The Python examples of docs/bots.md run as written: the bot as a command, and the test
that plays it against the random bot."""

from __future__ import annotations

import re
import runpy
import subprocess
import sys
from pathlib import Path

import pytest

from botarena.bots import RandomBot
from botarena.clients import MatchClient, run_bot
from botarena.clients.testing import play_in_process, start_server
from botarena.v1 import match_pb2

DOCS = Path(__file__).resolve().parents[2] / "docs" / "bots.md"


def python_blocks() -> list[str]:
    return re.findall(r"```python\n(.*?)```", DOCS.read_text(), flags=re.DOTALL)


@pytest.fixture
def my_bot(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    path = tmp_path / "my_bot.py"
    path.write_text(python_blocks()[0])
    monkeypatch.syspath_prepend(str(tmp_path))
    return path


def test_the_example_bot_plays_a_match_as_a_command(my_bot: Path) -> None:
    with start_server() as address:
        with MatchClient(target=address) as client:
            created = client.create_match(
                match_pb2.MatchConfig(game=match_pb2.GAME_QWIRKLE, seat_count=2, seed=3)
            )
        name = created.match.name
        tokens = [seat.token for seat in created.seat_tokens]
        process = subprocess.Popen(
            [
                sys.executable,
                str(my_bot),
                "--server",
                address,
                "--match",
                name,
                "--token",
                tokens[0],
            ],
            stderr=subprocess.PIPE,
            text=True,
        )
        outcome = run_bot(RandomBot(), server=address, token=tokens[1], match=name, seed=1)
        _, stderr = process.communicate(timeout=60)
    assert process.returncode == 0, stderr
    assert outcome.results[0].rank == 1


def test_the_example_test_passes(my_bot: Path) -> None:
    example = my_bot.with_name("example_test.py")
    example.write_text(python_blocks()[1])
    namespace = runpy.run_path(str(example))
    namespace["test_my_bot_beats_random"]()


@pytest.mark.parametrize("game", ["qwirkle", "qwixx", "queendomino"])
def test_the_example_search_bot_plays_every_game(
    game: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (source,) = [block for block in python_blocks() if block.startswith('"""search_bot.py')]
    (tmp_path / "search_bot.py").write_text(source)
    monkeypatch.syspath_prepend(str(tmp_path))
    namespace = runpy.run_path(str(tmp_path / "search_bot.py"), run_name="search_bot")
    namespace["SearchBot"].choose_move.__globals__["SECONDS"] = 0.01  # a quick test
    result = play_in_process(game, [namespace["SearchBot"](), RandomBot()], seed=2)
    assert sorted(result.ranks) in ([1, 2], [1, 1])
    assert all(result.think_seconds)
