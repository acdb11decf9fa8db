"""`botarena match` as an A/B tool, end to end: SPRT, formats, endings, the run folder
(refusal, --force, --resume after an interrupt), --show-stderr and an unreachable server."""

from __future__ import annotations

import argparse
import io
import json
import os
import random
import signal
import socket
import sys
import textwrap
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import pytest
from rich.console import Console

from botarena.bots import BUILTIN_BOTS, RandomBot
from botarena.clients import Bot
from botarena.clients.cli import main
from botarena.clients.runner import add_match_arguments, run_match
from botarena.v1 import match_pb2

RunCli = Callable[..., tuple[int, str, dict[str, Any]]]
"""The ``run_cli`` fixture (conftest.py)."""


class _Counted:
    """A built-in bot that counts the instances made (one per seat of each game); ``make``
    returns the n-th one."""

    def __init__(self, make: Callable[[int], Bot]) -> None:
        self.made = 0
        self._make = make

    @property
    def factory(self) -> Callable[[], Bot]:
        def make() -> Bot:
            self.made += 1
            return self._make(self.made)

        return make

    def plays(self, game: str) -> bool:
        return True


class _InterruptingBot(RandomBot):
    """Presses Ctrl-C (SIGINT to this process) at its first move."""

    def choose_move(
        self, view: match_pb2.PlayerView, legal_moves: Sequence[match_pb2.Move], rng: random.Random
    ) -> match_pb2.Move:
        os.kill(os.getpid(), signal.SIGINT)
        return super().choose_move(view, legal_moves, rng)


# ---------------------------------------------------------------------- SPRT


def test_sprt_stops_greedy_against_random_at_h1_and_a_resume_plays_nothing_more(
    run_cli: RunCli,
) -> None:
    argv = ("--bot", "greedy", "--bot", "random", "--sprt", "0,100", "--games", "400")
    status, text, results = run_cli(*argv, "--seed-key", "sprt")
    assert status == 0
    sprt = results["sprt"]
    assert sprt["decision"] == "H1"
    assert sprt["llr"] >= sprt["upper"] == pytest.approx(2.944, abs=1e-3)
    assert sprt["lower"] == pytest.approx(-2.944, abs=1e-3)
    assert (sprt["elo0"], sprt["elo1"], sprt["alpha"], sprt["beta"]) == (0, 100, 0.05, 0.05)
    # Greedy wins every pair: 12 pairs carry the LLR past log(19).
    assert sprt["games"] <= 40
    assert results["finished_games"] < results["planned_games"] == 400
    assert "H1 accepted after" in text
    assert "LLR" in text
    counted = _Counted(lambda made: BUILTIN_BOTS["greedy"].factory())
    again, text, resumed = run_cli("--resume", builtin={**BUILTIN_BOTS, "greedy": counted})
    assert again == 0
    assert counted.made == 0
    assert resumed["sprt"]["decision"] == "H1"


def test_sprt_needs_two_bots_in_two_seats(run_cli: RunCli) -> None:
    with pytest.raises(SystemExit, match=r"--sprt tests two bots in two-seat games"):
        run_cli("--bot", "random", "--bot", "random", "--bot", "random", "--sprt", "0,10")


# ---------------------------------------------------------------------- formats


def test_a_gauntlet_plays_its_bot_against_each_other_and_tables_it(run_cli: RunCli) -> None:
    argv = ("--bot", "greedy", "--bot", "random", "--bot", "weak=random", "--games", "2")
    status, text, results = run_cli(*argv, "--gauntlet", "greedy")
    assert status == 0
    assert results["format"] == {
        "kind": "gauntlet",
        "seats": 2,
        "groups": [["greedy", "random"], ["greedy", "weak"]],
    }
    assert results["finished_games"] == 4
    assert all("greedy" in game["bots"] for game in results["games"])
    assert {(row["bot"], row["opponent"]) for row in results["versus"]} == {
        ("greedy", "random"),
        ("greedy", "weak"),
    }
    assert "Gauntlet of greedy" in text
    assert "Elo (95% CI)" in text


def test_a_round_robin_of_three_seat_games_plays_every_subset_with_a_cross_table(
    run_cli: RunCli,
) -> None:
    bots = ("--bot", "random", "--bot", "heuristic", "--bot", "random", "--bot", "heuristic")
    argv = ("--game", "qwixx", *bots, "--seats", "3", "--round-robin", "--games", "3")
    status, text, results = run_cli(*argv)
    assert status == 0
    names = ["random", "heuristic", "random-2", "heuristic-2"]
    assert results["format"]["groups"] == [
        [names[a], names[b], names[c]] for a, b, c in ((0, 1, 2), (0, 1, 3), (0, 2, 3), (1, 2, 3))
    ]
    assert results["finished_games"] == 12
    assert all(len(game["bots"]) == 3 for game in results["games"])
    for bot in results["bots"]:
        assert bot["games"] == 9  # three subsets, each in its three rotations
        assert 0 <= bot["pairwise_score"] <= 1
        assert bot["margin"] is not None
    # Each pair met in two subsets: two sets, whatever the pairs inside each game.
    assert {row["sets"] for row in results["versus"]} == {2}
    assert "Cross table" in text
    assert "pairwise %" in text


def test_more_bots_than_seats_is_a_round_robin(run_cli: RunCli) -> None:
    argv = ("--bot", "random", "--bot", "greedy", "--bot", "random", "--seats", "2")
    status, _, results = run_cli(*argv, "--games", "2")
    assert status == 0
    assert results["format"]["kind"] == "round-robin"
    assert len(results["format"]["groups"]) == 3


def test_the_table_of_endings_and_the_time_control_come_with_the_results(
    run_cli: RunCli,
) -> None:
    argv = ("--bot", "random", "--bot", "random", "--games", "2", "--move-time", "2")
    status, text, results = run_cli(*argv)
    assert status == 0
    assert sum(results["end_reasons"].values()) == 2
    assert set(results["end_reasons"]) <= {"went_out", "blocked"}
    assert "How the games ended" in text
    assert "Time control: 2 s a move" in text


# ---------------------------------------------------------------------- the run folder


def test_a_folder_that_holds_a_run_is_refused_unless_forced(run_cli: RunCli) -> None:
    argv = ("--bot", "random", "--bot", "random", "--games", "2")
    status, _, first = run_cli(*argv)
    assert status == 0
    with pytest.raises(SystemExit, match=r"already holds a run; add --resume .* or --force"):
        run_cli(*argv)
    status, _, forced = run_cli(*argv, "--force")
    assert status == 0
    assert {game["match"] for game in forced["games"]}.isdisjoint(
        game["match"] for game in first["games"]
    )


def test_a_file_as_out_is_a_one_line_error(tmp_path: Path, run_cli: RunCli) -> None:
    (tmp_path / "notes.txt").write_text("mine")
    with pytest.raises(SystemExit, match=r"^botarena match: --out .*notes.txt is a file"):
        run_cli("--bot", "random", "--bot", "random", out="notes.txt")
    assert (tmp_path / "notes.txt").read_text() == "mine"


def test_a_resume_with_other_options_is_refused_and_names_them(run_cli: RunCli) -> None:
    run_cli("--bot", "random", "--bot", "random", "--games", "2")
    with pytest.raises(SystemExit, match=r"as it was planned \(--games 2\)"):
        run_cli("--bot", "random", "--bot", "random", "--games", "4", "--resume")


def test_a_resume_after_ctrl_c_plays_every_planned_game_exactly_once(
    tmp_path: Path, run_cli: RunCli
) -> None:
    # With one game at a time, the stopper's 4th instance plays game 4.
    interrupts = _Counted(lambda made: _InterruptingBot() if made == 4 else RandomBot())
    argv = ("--bot", "random", "--bot", "stopper", "--games", "8", "--concurrency", "1")
    status, text, first = run_cli(*argv, builtin={**BUILTIN_BOTS, "stopper": interrupts})
    assert status == 130
    assert "Interrupted" in text
    assert first["interrupted"] is True
    kept = {game["number"]: game["match"] for game in first["games"]}
    assert sorted(kept) == [1, 2, 3]  # one game at a time: game 4 was cut short
    assert (tmp_path / "run" / "games" / "00004").exists()

    counted = _Counted(lambda made: RandomBot())
    status, text, resumed = run_cli("--resume", builtin={**BUILTIN_BOTS, "stopper": counted})
    assert status == 0
    assert "Resuming" in text
    assert counted.made == 5  # games 4 to 8, once each
    assert [game["number"] for game in resumed["games"]] == list(range(1, 9))
    assert {game["number"]: game["match"] for game in resumed["games"][:3]} == kept
    assert resumed["finished_games"] == resumed["planned_games"] == 8
    assert resumed["seed_key"] == first["seed_key"]


def test_every_finished_game_is_kept_as_its_own_result(tmp_path: Path, run_cli: RunCli) -> None:
    status, _, results = run_cli("--bot", "random", "--bot", "greedy", "--games", "2")
    assert status == 0
    for game in results["games"]:
        kept = json.loads(
            (tmp_path / "run" / "games" / f"{game['number']:05d}" / "result.json").read_text()
        )
        assert kept["match"] == game["match"]
        assert [seat["score"] for seat in kept["seats"]] == game["scores"]
    plan = json.loads((tmp_path / "run" / "plan.json").read_text())
    assert plan["options"]["seed_key"] == results["seed_key"]
    assert plan["options"]["bots"] == ["random", "greedy"]


# ---------------------------------------------------------------------- output, servers


def test_help_shows_every_default_and_every_builtin_bot(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("COLUMNS", "200")
    with pytest.raises(SystemExit) as exited:
        main(["match", "--help"])
    assert exited.value.code == 0
    text = capsys.readouterr().out
    for name, bot in BUILTIN_BOTS.items():
        games = "every game" if bot.games is None else ", ".join(sorted(bot.games))
        assert name in text
        assert games.split(", ")[0] in text
    for default in ("the game (default: qwirkle)", "games played at once (default: 2)"):
        assert default in text
    assert "seconds per decision (default: 5.0)" in text
    assert "the false-H1 rate (default: 0.05)" in text
    assert "(default: None)" not in text


def test_show_stderr_streams_a_command_bots_output(tmp_path: Path, run_cli: RunCli) -> None:
    script = tmp_path / "chatty.py"
    script.write_text(
        textwrap.dedent(
            """
            import sys
            from botarena.bots import RandomBot
            from botarena.clients import bot_main

            print("chatty starts", file=sys.stderr, flush=True)
            sys.exit(bot_main(RandomBot))
            """
        )
    )
    argv = ("--bot", f"chatty={sys.executable} {script}", "--bot", "random", "--games", "2")
    status, text, _ = run_cli(*argv, "--show-stderr", "chatty")
    assert status == 0
    assert text.count("[chatty] chatty starts") == 2
    stderr = tmp_path / "run" / "games" / "00001" / "seat0-chatty.stderr"
    assert "chatty starts" in stderr.read_text()


def test_show_stderr_of_a_builtin_bot_is_refused(run_cli: RunCli) -> None:
    with pytest.raises(SystemExit, match=r"--show-stderr random: not a command bot"):
        run_cli("--bot", "random", "--bot", "greedy", "--show-stderr", "random")


def test_the_queendomino_stand_in_warning_is_one_short_line_on_stderr(
    capsys: pytest.CaptureFixture[str], run_cli: RunCli
) -> None:
    argv = ("--game", "queendomino", "--bot", "random", "--bot", "random", "--games", "2")
    status, text, _ = run_cli(*argv)
    assert status == 0
    captured = capsys.readouterr()
    (line,) = captured.err.strip().splitlines()
    assert line.startswith("botarena match: warning: queendomino buildings.json: ")
    assert "stand-ins" in line
    assert len(line) < 150
    assert "defaulted" not in captured.out + text  # no log record of every field


def test_an_unreachable_server_fails_once_with_a_clear_message(tmp_path: Path) -> None:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    parser = argparse.ArgumentParser()
    add_match_arguments(parser)
    args = parser.parse_args(
        ["--bot", "random", "--bot", "random", "--server", f"127.0.0.1:{port}", "--quiet"]
    )
    console = Console(record=True, width=200, file=io.StringIO())
    assert run_match(args, BUILTIN_BOTS, console) == 1
    text = console.export_text()
    assert text.count(f"cannot use the server at 127.0.0.1:{port}") == 1
    assert "game 1" not in text  # no game was tried
    assert len(text.strip().splitlines()) == 1
