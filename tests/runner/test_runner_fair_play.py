"""`botarena match` fair play (issue 14): secret seeds, bots that do not play never win,
a broken bot fails the run fast, and the results say who forfeited and why."""

from __future__ import annotations

import random
import sys
import textwrap
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from botarena.bots import BUILTIN_BOTS
from botarena.clients import Bot
from botarena.clients.replays import load_replay
from botarena.clients.runner import (
    BotSpec,
    GamePlan,
    GameRecord,
    SeatRecord,
    SeedKey,
)
from botarena.clients.runner._results import results_document
from botarena.v1 import match_pb2

RunCli = Callable[..., tuple[int, str, dict[str, Any]]]
"""The ``run_cli`` fixture (conftest.py)."""


def _script(tmp_path: Path, name: str, text: str) -> str:
    path = tmp_path / f"{name}.py"
    path.write_text(textwrap.dedent(text))
    return f"{name}={sys.executable} {path}"


_PLAYING_BOT = """
    import os, sys, time
    from botarena.bots import RandomBot
    from botarena.clients import bot_main

    class Bot(RandomBot):
        moves = 0

        def choose_move(self, view, legal_moves, rng):
            self.moves += 1
            {body}
            return super().choose_move(view, legal_moves, rng)

    sys.exit(bot_main(Bot))
"""


def _bot(tmp_path: Path, name: str, body: str) -> str:
    return _script(tmp_path, name, _PLAYING_BOT.replace("{body}", body))


# ---------------------------------------------------------------------- seeds


def test_each_label_deals_one_secret_engine_seed_to_both_seat_orders(
    tmp_path: Path, run_cli: RunCli
) -> None:
    argv = ("--bot", "greedy", "--bot", "random", "--games", "4", "--seed", "7")
    status, _, results = run_cli(*argv, "--seed-key", "k1")
    assert status == 0
    assert results["seed_key"] == "k1"
    assert results["labels"] == [7, 8]
    seeds: dict[int, set[str]] = {game["label"]: set() for game in results["games"]}
    for game in results["games"]:
        seeds[game["label"]].add(game["seed"])
    assert all(len(found) == 1 for found in seeds.values())  # both rotations: one deal
    assert {seed for found in seeds.values() for seed in found} == {
        str(SeedKey("k1", "qwirkle").engine_seed(7)),
        str(SeedKey("k1", "qwirkle").engine_seed(8)),
    }
    assert not {"7", "8"} & {game["seed"] for game in results["games"]}
    replay = load_replay(results["games"][0]["replay"])
    assert str(replay.match.config.seed) == results["games"][0]["seed"]


def test_the_same_seed_key_replays_a_run_and_another_key_deals_anew(
    tmp_path: Path, run_cli: RunCli
) -> None:
    argv = ("--bot", "greedy", "--bot", "random", "--games", "4")

    def played(results: dict[str, Any]) -> list[tuple[int, str, list[int]]]:
        return [(game["label"], game["seed"], game["scores"]) for game in results["games"]]

    _, _, first = run_cli(*argv, "--seed-key", "same", out="first")
    _, _, again = run_cli(*argv, "--seed-key", "same", out="again")
    _, _, fresh = run_cli(*argv, out="fresh")
    assert played(first) == played(again)
    assert len(fresh["seed_key"]) == 64  # a new secrets.token_hex(32)
    assert {game["seed"] for game in fresh["games"]}.isdisjoint(
        {game["seed"] for game in first["games"]}
    )


def test_a_bots_seed_reveals_neither_the_engine_seed_nor_the_key(
    tmp_path: Path, run_cli: RunCli
) -> None:
    spy = _script(
        tmp_path,
        "spy",
        """
        import os, sys
        from botarena.bots import RandomBot
        from botarena.clients import bot_main

        print("seed", os.environ["BOTARENA_SEED"], "key" in os.environ.get("BOTARENA_SEED_KEY", "none"), file=sys.stderr)
        sys.exit(bot_main(RandomBot))
        """,  # noqa: E501
    )
    argv = ("--bot", spy, "--bot", "random", "--games", "2", "--seed", "3")
    status, _, results = run_cli(*argv, "--seed-key", "key")
    assert status == 0
    key = SeedKey("key", "qwirkle")
    for game in results["games"]:
        seat = game["bots"].index("spy")
        stderr = next((tmp_path / "run" / "games" / f"{game['number']:05d}").glob("*spy.stderr"))
        words = stderr.read_text().split()
        told = int(words[words.index("seed") + 1])
        assert told == key.bot_seed(3, seat)
        assert told not in (3, int(game["seed"]))
        assert words[words.index("seed") + 2] == "False"  # the key is not in its env


# ------------------------------------------------------------ a broken bot stops the run


def test_a_bot_that_cannot_open_its_script_fails_the_run_with_its_stderr(
    tmp_path: Path, run_cli: RunCli
) -> None:
    missing = tmp_path / "nope.py"
    argv = ("--bot", f"mine={sys.executable} {missing}", "--bot", "random", "--games", "2")
    status, text, results = run_cli(*argv)
    assert status == 1
    assert "mine failed in its first game" in text
    assert "can't open file" in text  # python's own complaint, from the stderr tail
    assert results["failed_run"]["bot"] == "mine"
    assert results["finished_games"] <= 1
    for game in results["games"]:  # the game it left, if it ended before the stop
        assert game["ranks"][game["bots"].index("mine")] == 2


def test_a_command_that_does_not_exist_fails_the_run(tmp_path: Path, run_cli: RunCli) -> None:
    argv = ("--bot", f"ghost={tmp_path / 'no-such-bot'}", "--bot", "random", "--games", "4")
    status, text, results = run_cli(*argv)
    assert status == 1
    assert "ghost failed in its first game" in text
    assert "cannot start" in results["failed_run"]["failure"]
    assert results["finished_games"] < results["planned_games"]


class _CrashingBot:
    def choose_move(
        self, view: match_pb2.PlayerView, legal_moves: Sequence[match_pb2.Move], rng: random.Random
    ) -> match_pb2.Move:
        raise RuntimeError("my evaluation is broken")


class _Builtin:
    def __init__(self, factory: Callable[[], Bot]) -> None:
        self._factory = factory

    @property
    def factory(self) -> Callable[[], Bot]:
        return self._factory

    def plays(self, game: str) -> bool:
        return True


def test_an_in_process_bot_that_raises_in_its_first_game_fails_the_run(
    tmp_path: Path, run_cli: RunCli
) -> None:
    builtin = {**BUILTIN_BOTS, "broken": _Builtin(_CrashingBot)}
    argv = ("--bot", "broken", "--bot", "random", "--games", "20", "--concurrency", "4")
    status, text, results = run_cli(*argv, builtin=builtin)
    assert status == 1
    assert "broken failed in its first game" in text
    assert "my evaluation is broken" in text  # its traceback's tail
    assert results["finished_games"] < 20  # the other games were cancelled


def test_a_later_crash_resigns_the_seat_as_bot_exited_and_is_shown(
    tmp_path: Path, run_cli: RunCli
) -> None:
    marker = tmp_path / "played-once"
    crashy = _script(
        tmp_path,
        "crashy",
        f"""
        import os, sys
        from botarena.bots import RandomBot
        from botarena.clients import bot_main

        LATER = os.path.exists({str(marker)!r})  # a game after its first one

        class Bot(RandomBot):
            moves = 0

            def choose_move(self, view, legal_moves, rng):
                self.moves += 1
                if LATER and self.moves > 2:
                    raise RuntimeError("boom")
                return super().choose_move(view, legal_moves, rng)

            def on_match_end(self, outcome):
                open({str(marker)!r}, "w").close()

        sys.exit(bot_main(Bot))
        """,
    )
    argv = ("--bot", crashy, "--bot", "random", "--games", "4", "--concurrency", "1")
    status, text, results = run_cli(*argv, "--move-time", "2")
    assert status == 0
    assert results["finished_games"] == 4
    crash = results["bots"][0]
    assert crash["crashes"] >= 3
    assert "boom" in text  # the tail is on the terminal, not only in the file
    for game in results["games"][1:]:
        seat = game["bots"].index("crashy")
        assert game["forfeited"][seat]
        assert game["forfeit_reasons"][seat] == "bot_exited"
        assert game["ranks"][seat] == 2
        assert "before the match ended" in game["crashes"][seat]
    assert crash["forfeit_reasons"] == {"bot_exited": 3}


def test_a_bot_that_never_connects_fails_the_run_as_absent(tmp_path: Path, run_cli: RunCli) -> None:
    idle = _script(tmp_path, "idle", "import time\ntime.sleep(3600)\n")
    argv = ("--bot", idle, "--bot", "random", "--games", "2", "--join-timeout", "0.5")
    status, text, results = run_cli(*argv, "--exit-grace", "0.2", "--move-time", "0.3")
    assert status == 1
    assert "never played (its seat forfeited as absent)" in text
    assert results["failed_run"]["bot"] == "idle"


def test_a_bot_that_stops_playing_forfeits_as_absent_and_never_wins(
    tmp_path: Path, run_cli: RunCli
) -> None:
    quits = _bot(tmp_path, "quits", "if self.moves > 1:\n                time.sleep(3600)")
    argv = ("--bot", quits, "--bot", "random", "--games", "2", "--concurrency", "1")
    status, _, results = run_cli(*argv, "--move-time", "0.3", "--exit-grace", "0.3")
    assert status == 0
    quitter = results["bots"][0]
    assert quitter["wins"] == 0
    assert quitter["forfeit_reasons"] == {"absent": 2}
    for game in results["games"]:
        seat = game["bots"].index("quits")
        assert game["stand_in_moves"][seat] == 3  # --max-stand-ins, then the forfeit


# ---------------------------------------------------------------------- results


def _record(number: int, lineup: tuple[int, ...], ranks: list[int], **game: Any) -> GameRecord:
    seats = [SeatRecord(rank=rank) for rank in ranks]
    plan = GamePlan(number, 1, 99, lineup, (1, 2))
    return GameRecord(plan, f"matches/{number}", seats, game.pop("reason", "went_out"), **game)


def test_an_abandoned_game_counts_as_a_game_never_as_a_win() -> None:
    lineup = [BotSpec("a", builtin="random"), BotSpec("b", builtin="random")]
    records = [
        _record(1, (0, 1), [1, 2]),
        _record(2, (1, 0), [2, 2], reason="abandoned", abandoned=True),
    ]
    for record in records[1].seats:
        record.forfeited, record.forfeit_reason = True, "absent"
    document = results_document(
        {}, lineup, records, planned_games=2, interrupted=False, seed_key="k"
    )
    assert document["abandoned_games"] == 1
    a, b = document["bots"]
    assert (a["games"], a["wins"], a["abandoned"]) == (2, 1, 1)
    assert (b["games"], b["wins"], b["abandoned"]) == (2, 0, 1)
    assert a["forfeit_reasons"] == {"absent": 1}
    assert document["games"][1]["abandoned"] is True
    assert document["elo_difference"]["value"] == "inf"  # from the one played game only


def test_a_crash_outside_the_first_game_costs_its_game_even_among_the_first_wave(
    tmp_path: Path, run_cli: RunCli
) -> None:
    key = SeedKey("wave", "qwirkle")
    doomed = sorted({key.bot_seed(2, seat) for seat in range(2)})  # the games of label 2
    unlucky = _script(
        tmp_path,
        "unlucky",
        f"""
        import os, sys
        from botarena.bots import RandomBot
        from botarena.clients import bot_main

        if int(os.environ["BOTARENA_SEED"]) in {doomed}:
            sys.exit("unlucky: this deal is not for me")
        sys.exit(bot_main(RandomBot))
        """,
    )
    argv = ("--bot", unlucky, "--bot", "random", "--games", "4", "--concurrency", "4")
    status, text, results = run_cli(*argv, "--seed-key", "wave")
    assert status == 0, text
    assert results["failed_run"] is None
    by_label = {game["number"]: game for game in results["games"]}
    assert [by_label[number]["label"] for number in (3, 4)] == [2, 2]
    for number in (3, 4):
        seat = by_label[number]["bots"].index("unlucky")
        assert by_label[number]["forfeit_reasons"][seat] == "bot_exited"
    assert "this deal is not for me" in text
    assert results["bots"][0]["crashes"] == 2
