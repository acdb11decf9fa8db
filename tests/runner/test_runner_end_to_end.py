"""`botarena match` end to end: built-in and command bots, crashes, hangs, replays."""

from __future__ import annotations

import contextlib
import json
import signal
import subprocess
import sys
import textwrap
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from botarena.clients.replays import load_replay
from botarena.server.games import IllegalMoveError, get_rules
from botarena.server.games.queendomino import QueendominoConfig, load_buildings
from botarena.server.service import codec_for_proto

RunCli = Callable[..., tuple[int, str, dict[str, Any]]]
"""The ``run_cli`` fixture (conftest.py)."""


def _bot_script(tmp_path: Path, name: str, body: str) -> str:
    script = tmp_path / f"{name}.py"
    script.write_text(
        textwrap.dedent(
            """
            import sys, time
            from botarena.bots import RandomBot
            from botarena.clients import bot_main

            class Bot(RandomBot):
                moves = 0

                def choose_move(self, view, legal_moves, rng):
                    self.moves += 1
            """
        )
        + textwrap.indent(textwrap.dedent(body), " " * 8)
        + "\n        return super().choose_move(view, legal_moves, rng)\n"
        + "\nsys.exit(bot_main(Bot))\n"
    )
    return f"{name}={sys.executable} {script}"


def test_builtin_bots_play_every_seed_in_both_seat_orders(tmp_path: Path, run_cli: RunCli) -> None:
    status, text, results = run_cli("--bot", "greedy", "--bot", "random", "--games", "4")
    assert status == 0
    assert results["finished_games"] == 4
    assert results["labels"] == [1, 2]
    orders = sorted((game["label"], tuple(game["bots"])) for game in results["games"])
    assert orders == [
        (1, ("greedy", "random")),
        (1, ("random", "greedy")),
        (2, ("greedy", "random")),
        (2, ("random", "greedy")),
    ]
    greedy, random_bot = results["bots"]
    assert greedy["name"] == "greedy"
    assert greedy["games"] == random_bot["games"] == 4
    assert greedy["wins"] + random_bot["wins"] == pytest.approx(4)
    for bot in results["bots"]:
        assert {"win_rate", "mean_score", "timeouts", "illegal_moves", "crashes"} <= set(bot)
        assert bot["crashes"] == bot["timeouts"] == bot["illegal_moves"] == 0
        assert bot["stand_in_moves"] == bot["forfeits"] == bot["abandoned"] == 0
    assert "greedy" in text
    assert "win % (95% CI)" in text


def test_games_are_rounded_up_to_whole_seat_rotations(tmp_path: Path, run_cli: RunCli) -> None:
    status, text, results = run_cli("--bot", "random", "--bot", "random", "--games", "3")
    assert status == 0
    assert results["planned_games"] == 4
    assert [bot["name"] for bot in results["bots"]] == ["random", "random-2"]
    assert "Playing 4 games, not 3" in text


def replayed_scores(game: dict[str, Any], config: object = None) -> list[int]:
    """Re-apply a game's replay file through its engine; return the final scores.

    Args:
        game: The game's entry in results.json.
        config: The engine config; ``None`` takes the one the replay's header records
            (its game options decoded over the engine's default).
    """
    replay = load_replay(game["replay"])
    assert replay.format_version == 2
    assert [seat.display_name for seat in replay.match.seats] == game["bots"]
    recorded = replay.match.config
    codec = codec_for_proto(recorded.game)
    rules = get_rules(codec.game)
    if config is None:
        config = codec.decode_config(recorded, rules.default_config())
    state = rules.new_match(config, len(replay.match.seats), recorded.seed)
    for step in replay.steps:
        event = step.event
        if event.WhichOneof("kind") == "move_applied":
            move = codec.decode_move(event.move_applied.move)
            state = rules.apply(state, event.move_applied.seat, move)
    outcome = rules.outcome(state)
    assert outcome is not None
    return list(outcome.scores)


def test_replays_reapplied_through_the_engine_reproduce_the_final_scores(
    tmp_path: Path, run_cli: RunCli
) -> None:
    status, _, results = run_cli("--bot", "greedy", "--bot", "random", "--games", "2")
    assert status == 0
    for game in results["games"]:
        assert replayed_scores(game) == game["scores"]


def test_three_queendomino_seats_play_every_rotation_and_replay_to_their_scores(
    tmp_path: Path, run_cli: RunCli
) -> None:
    argv = ("--game", "queendomino", "--bot", "random", "--bot", "random", "--bot", "greedy")
    status, text, results = run_cli(*argv, "--games", "3", "--seed", "5")
    assert status == 0
    assert results["finished_games"] == 3
    assert results["config"]["game"] == "queendomino"
    # Each bot sits in each of the 3 seats once with the same deal (cyclic rotations).
    lineups = [tuple(game["bots"]) for game in results["games"]]
    assert {game["label"] for game in results["games"]} == {5}
    assert len({game["seed"] for game in results["games"]}) == 1
    assert sorted(lineups) == sorted(
        [
            ("random", "random-2", "greedy"),
            ("random-2", "greedy", "random"),
            ("greedy", "random", "random-2"),
        ]
    )
    for game in results["games"]:
        assert len(game["scores"]) == 3
        assert replayed_scores(game) == game["scores"]
    assert [bot["games"] for bot in results["bots"]] == [3, 3, 3]
    assert "greedy" in text


def test_four_queendomino_seats_rotate_through_every_seat(tmp_path: Path, run_cli: RunCli) -> None:
    argv = ("--bot", "random", "--bot", "greedy", "--bot", "random", "--bot", "greedy")
    status, text, results = run_cli("--game", "queendomino", *argv, "--games", "2")
    assert status == 0
    assert results["planned_games"] == 4
    assert "Playing 4 games, not 2" in text
    seats_of: dict[str, set[int]] = {}
    for game in results["games"]:
        for seat, name in enumerate(game["bots"]):
            seats_of.setdefault(name, set()).add(seat)
        assert replayed_scores(game) == game["scores"]
    assert seats_of == {name: {0, 1, 2, 3} for name in ("random", "greedy", "random-2", "greedy-2")}


def test_the_embedded_server_plays_with_the_operators_building_table(
    tmp_path: Path, queendomino_operator_table: Any, run_cli: RunCli
) -> None:
    path = queendomino_operator_table.path
    argv = ("--game", "queendomino", "--bot", "greedy", "--bot", "greedy")
    status, _, results = run_cli(*argv, "--games", "2", "--queendomino-buildings", str(path))
    assert status == 0
    operator = QueendominoConfig(buildings=load_buildings(path))
    shipped = QueendominoConfig()
    with_operator = [replayed_scores(game, operator) for game in results["games"]]
    assert with_operator == [game["scores"] for game in results["games"]]
    # Under the shipped table the same moves break the rules (its buildings grant no
    # knights, so no tax step is due where the match had one) or score differently.
    for game, scores in zip(results["games"], with_operator, strict=True):
        with contextlib.suppress(IllegalMoveError):
            assert replayed_scores(game, shipped) != scores


def test_a_seat_count_the_game_does_not_take_stops_the_run_at_the_first_refusal(
    tmp_path: Path, run_cli: RunCli
) -> None:
    bots = [arg for _ in range(5) for arg in ("--bot", "random")]
    status, text, results = run_cli("--game", "queendomino", *bots, "--games", "5")
    assert status == 1
    assert results["finished_games"] == 0
    assert text.count("the server refused the match") == 1
    assert "INVALID_SEAT_COUNT" in text


def test_command_bots_play_and_their_stderr_is_kept(tmp_path: Path, run_cli: RunCli) -> None:
    chatty = _bot_script(tmp_path, "chatty", 'print("thinking", file=sys.stderr)')
    status, _, results = run_cli("--bot", chatty, "--bot", "greedy", "--games", "2")
    assert status == 0
    assert results["bots"][0]["name"] == "chatty"
    assert results["bots"][0]["crashes"] == 0
    stderr_files = sorted((tmp_path / "run" / "games").glob("*/seat*-chatty.stderr"))
    assert len(stderr_files) == 2
    assert all("thinking" in path.read_text() for path in stderr_files)


def test_a_bot_that_hangs_costs_its_games_but_not_the_run(tmp_path: Path, run_cli: RunCli) -> None:
    sleepy = _bot_script(tmp_path, "sleepy", "if self.moves > 1:\n    time.sleep(3600)")
    status, _, results = run_cli(
        "--bot", sleepy, "--bot", "random",
        "--games", "2", "--move-time", "0.3", "--exit-grace", "0.5", "--concurrency", "1",
    )  # fmt: skip
    assert status == 0
    assert results["finished_games"] == 2
    sleep = results["bots"][0]
    assert sleep["crashes"] == 2  # it never exits by itself: killed after the match
    assert sleep["timeouts"] > 0
    assert sleep["stand_in_moves"] >= sleep["timeouts"]
    for game in results["games"]:
        seat = game["bots"].index("sleepy")
        assert "did not exit after the match ended" in game["crashes"][seat]


def test_an_unknown_builtin_name_is_a_clear_error(tmp_path: Path, run_cli: RunCli) -> None:
    with pytest.raises(SystemExit, match="not a built-in bot"):
        run_cli("--bot", "greedy", "--bot", "grredy")


def test_a_bad_queendomino_building_table_stops_the_run_before_it_starts(
    tmp_path: Path, run_cli: RunCli
) -> None:
    table = tmp_path / "buildings.json"
    table.write_text('{"tiles": []}', encoding="utf-8")
    argv = ("--game", "queendomino", "--bot", "random", "--bot", "random")
    with pytest.raises(SystemExit, match=r"--queendomino-buildings: .*expected 32 entries"):
        run_cli(*argv, "--queendomino-buildings", str(table))
    assert not (tmp_path / "run").exists()


def test_a_queendomino_building_table_is_for_the_embedded_server_only(
    tmp_path: Path, run_cli: RunCli
) -> None:
    argv = ("--bot", "random", "--bot", "random", "--server", "127.0.0.1:1")
    with pytest.raises(SystemExit, match=r"give it to `botarena serve`"):
        run_cli(*argv, "--queendomino-buildings", str(tmp_path / "buildings.json"))


def test_ctrl_c_stops_the_run_kills_bots_and_still_writes_results(tmp_path: Path) -> None:
    slow = _bot_script(tmp_path, "slow", "time.sleep(0.02)")
    out = tmp_path / "run"
    marker = f"--out={out}"
    command = [sys.executable, "-m", "botarena.clients.cli", "match", "--bot", slow]
    command += ["--bot", "greedy", "--games", "400", "--concurrency", "1", "--quiet", marker]
    # SIGINT must be at its default in the child: a shell may start it ignored.
    runner = subprocess.Popen(
        command,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
    )
    deadline = time.monotonic() + 60
    # One game at a time: once the second game's folder exists, the first one is recorded.
    while not (out / "games" / "00002").exists() and time.monotonic() < deadline:
        time.sleep(0.2)
    runner.send_signal(signal.SIGINT)
    output, _ = runner.communicate(timeout=60)
    assert runner.returncode == 130, output
    assert "Interrupted" in output
    results = json.loads((out / "results.json").read_text())
    assert results["interrupted"] is True
    assert 1 <= results["finished_games"] < results["planned_games"]
    leftovers = subprocess.run(["pgrep", "-af", str(tmp_path / "slow.py")], capture_output=True)
    time.sleep(3)
    later = subprocess.run(["pgrep", "-af", str(tmp_path / "slow.py")], capture_output=True)
    assert leftovers.stdout == b"", (leftovers.stdout, later.stdout)
