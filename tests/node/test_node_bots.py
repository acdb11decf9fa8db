"""The Node.js bots (clients/node) play through the match runner as command bots.

They share no code with the Python stack: their own gRPC library (@grpc/grpc-js), the
messages loaded at run time from proto/. The node modules come from ``make test``, which
runs ``npm ci`` in clients/node; without them this test fails rather than skips, so that
CI cannot pass without playing the Node bots. Only a machine without ``node`` skips.
"""

from __future__ import annotations

import argparse
import io
import json
import shlex
import shutil
from pathlib import Path
from typing import Any

import pytest
from rich.console import Console

from botarena.bots import BUILTIN_BOTS
from botarena.clients.runner import add_match_arguments, run_match

NODE = shutil.which("node")
NODE_CLIENT = Path(__file__).resolve().parents[2] / "clients" / "node"

pytestmark = pytest.mark.skipif(
    NODE is None, reason="node is not installed: the Node.js client's tests need Node >= 20"
)


@pytest.fixture(scope="module")
def node_bots() -> dict[str, str]:
    """The command of each Node bot, once the node modules are known to be installed."""
    for package in ("grpc-js", "proto-loader"):
        assert (NODE_CLIENT / "node_modules" / "@grpc" / package).is_dir(), (
            f"{NODE_CLIENT}/node_modules is missing: run `make test` (it runs `npm ci` there)"
        )
    assert NODE is not None
    return {
        name: shlex.join([NODE, str(NODE_CLIENT / "bots" / f"{name}.js")])
        for name in ("random", "greedy")
    }


def _run(tmp_path: Path, *argv: str) -> dict[str, Any]:
    parser = argparse.ArgumentParser()
    add_match_arguments(parser)
    out = tmp_path / "run"
    args = parser.parse_args([*argv, "--out", str(out), "--quiet"])
    console = Console(record=True, width=140, file=io.StringIO())
    status = run_match(args, BUILTIN_BOTS, console)
    results: dict[str, Any] = json.loads((out / "results.json").read_text())
    stderr = {path.name: path.read_text() for path in (out / "games").glob("*/*.stderr")}
    assert status == 0, (console.export_text(), stderr)
    return results


def _assert_clean_run(results: dict[str, Any], games: int) -> None:
    assert results["finished_games"] == results["planned_games"] == games
    for bot in results["bots"]:
        assert bot["games"] == games
        assert (bot["timeouts"], bot["illegal_moves"], bot["crashes"]) == (0, 0, 0), bot


def test_node_greedy_plays_qwirkle_against_python_greedy(
    tmp_path: Path, node_bots: dict[str, str]
) -> None:
    results = _run(
        tmp_path, "--game", "qwirkle", "--bot", f"node-greedy={node_bots['greedy']}",
        "--bot", "greedy", "--games", "4",
    )  # fmt: skip
    _assert_clean_run(results, 4)
    node, python = results["bots"]
    assert node["name"] == "node-greedy"
    assert node["wins"] + python["wins"] == pytest.approx(4)
    # Both seat orders of each seed, and the Node bot scored like a real player.
    assert sorted(tuple(game["bots"]) for game in results["games"]) == [
        ("greedy", "node-greedy"),
        ("greedy", "node-greedy"),
        ("node-greedy", "greedy"),
        ("node-greedy", "greedy"),
    ]
    assert node["mean_score"] > 100


def test_node_random_plays_qwirkle_against_python_random(
    tmp_path: Path, node_bots: dict[str, str]
) -> None:
    results = _run(
        tmp_path, "--game", "qwirkle", "--bot", f"node-random={node_bots['random']}",
        "--bot", "random", "--games", "4",
    )  # fmt: skip
    _assert_clean_run(results, 4)


def test_node_random_plays_qwixx_against_two_python_randoms(
    tmp_path: Path, node_bots: dict[str, str]
) -> None:
    results = _run(
        tmp_path, "--game", "qwixx", "--bot", f"node-random={node_bots['random']}",
        "--bot", "random", "--bot", "random", "--games", "3",
    )  # fmt: skip
    _assert_clean_run(results, 3)
    assert results["bots"][0]["name"] == "node-random"
    assert all(len(game["bots"]) == 3 for game in results["games"])


_CLOCK_BOT = """
import {{ botMain }} from {lib};

// Plays the first legal move and reports the decision clock it was given, one JSON line
// per decision on stderr (the runner keeps each bot's stderr per game).
await botMain({{
  chooseMove(view, legalMoves, rng, clock) {{
    const line = {{
      seat: clock.seat, version: clock.stateVersion, limit: clock.moveTimeLimit,
      bank: clock.timeBank, span: clock.deadline - clock.receivedAt, left: clock.timeLeft(),
      viewSeat: view.seat,
    }};
    process.stderr.write(`CLOCK ${{JSON.stringify(line)}}\\n`);
    return legalMoves[0];
  }},
}}, 'node-clock');
"""


def test_node_bots_get_the_decision_clock(tmp_path: Path) -> None:
    assert NODE is not None
    bot = tmp_path / "clock.mjs"
    bot.write_text(_CLOCK_BOT.format(lib=json.dumps((NODE_CLIENT / "lib" / "index.js").as_uri())))
    command = shlex.join([NODE, str(bot)])
    _run(
        tmp_path, "--game", "qwirkle", "--bot", f"node-clock={command}", "--bot", "random",
        "--games", "2", "--move-time", "2", "--time-bank", "1",
    )  # fmt: skip
    clocks = [
        json.loads(line.split(" ", 1)[1])
        for path in (tmp_path / "run" / "games").glob("*/*.stderr")
        for line in path.read_text().splitlines()
        if line.startswith("CLOCK ")
    ]
    assert len(clocks) > 20  # both games, every decision of the Node seat
    for clock in clocks:
        assert clock["seat"] == clock["viewSeat"]
        assert clock["limit"] == 2
        assert 0 <= clock["bank"] <= 1
        assert clock["span"] == pytest.approx(clock["limit"] + clock["bank"])
        assert 0 < clock["left"] <= clock["span"]
