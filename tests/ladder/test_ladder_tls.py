"""The ladder over TLS through real gRPC: ``botarena ladder`` registers and reads the
leaderboard, ``run_ladder_bot_async`` connects and plays, and a wrong CA ends
``botarena ladder connect`` with one line (certificates from the ``tls_files`` fixture)."""

from __future__ import annotations

import asyncio
import functools
import re
import shlex
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from botarena.bots import get_bot
from botarena.clients import run_ladder_bot_async
from botarena.clients.cli import main
from botarena.clients.testing import start_server
from botarena.server.ladder import Ladder, LadderSettings
from botarena.server.match import MatchManager
from botarena.server.store import SqliteStore


def _ladder(path: Path) -> Ladder:
    fast = LadderSettings(tick_seconds=0.05, keepalive_seconds=0.2)
    return Ladder(MatchManager(), SqliteStore(path).ladder_store(), fast)


def _register(name: str, server: list[str], capsys: pytest.CaptureFixture[str]) -> str:
    """Register ``name`` with ``botarena ladder register``; return its secret."""
    assert main(["ladder", "register", "--name", name, "--game", "qwirkle", *server]) == 0
    found = re.search(r"secret \(shown only once\): (\S+)", capsys.readouterr().out)
    assert found is not None
    return found.group(1)


def test_ladder_bots_connect_and_play_over_tls(
    tmp_path: Path, tls_files: Any, capsys: pytest.CaptureFixture[str]
) -> None:
    ladder = _ladder(tmp_path / "ladder.db")
    with start_server(ladder=ladder, credentials=tls_files.server_credentials()) as address:
        # Both forms of a TLS server: the one string, and HOST:PORT with the TLS flags.
        secrets = {
            "greedy": _register("greedy", ["--server", tls_files.target(address)], capsys),
            "random": _register("random", ["--server", address, "--tls-ca", tls_files.ca], capsys),
        }

        async def play() -> None:
            ended: list[str] = []
            bots = [
                asyncio.create_task(
                    run_ladder_bot_async(
                        functools.partial(get_bot, name),
                        server=tls_files.target(address),
                        secret=secret,
                        on_match_end=lambda match, _: ended.append(match),
                    )
                )
                for name, secret in secrets.items()
            ]
            try:
                while len(set(ended)) < 3:  # the last one may not be rated yet
                    await asyncio.sleep(0.05)
            finally:
                for task in bots:
                    task.cancel()
                await asyncio.gather(*bots, return_exceptions=True)

        asyncio.run(asyncio.wait_for(play(), 60))
        board = [
            "ladder",
            "leaderboard",
            "--game",
            "qwirkle",
            "--server",
            tls_files.target(address),
        ]
        assert main(board) == 0
    rows = {
        line.split("│")[2].strip(): line
        for line in capsys.readouterr().out.splitlines()
        if line.count("│") > 3
    }
    assert set(rows) >= {"greedy", "random"}
    games = {name: int(rows[name].split("│")[7]) for name in ("greedy", "random")}
    assert games["greedy"] >= 2
    assert games["random"] >= 2


def test_ladder_connect_with_a_wrong_ca_ends_with_one_line(
    tmp_path: Path, tls_files: Any, capsys: pytest.CaptureFixture[str]
) -> None:
    ladder = _ladder(tmp_path / "ladder.db")
    with start_server(ladder=ladder, credentials=tls_files.server_credentials()) as address:
        wrong = ["--server", address, "--tls-ca", tls_files.other_ca]
        status = main(["ladder", "connect", "--bot", "random", "--secret", "s", *wrong])
    assert status == 1
    lines = capsys.readouterr().out.splitlines()
    assert lines == [
        f"botarena ladder: cannot connect to {address} over TLS: the server's certificate is "
        f"not signed by the CA in {tls_files.other_ca} (a wrong CA? give the one that signed "
        "it: --tls-ca PEM or ?ca=PATH)"
    ]


_RECORDING_BOT = """
import os, sys
from botarena.bots import RandomBot
from botarena.clients import bot_main

# What `ladder connect --command` handed over, for the test to read.
with open(sys.argv[1], "a") as record:
    server = sys.argv[sys.argv.index("--server") + 1]
    print(server, os.environ["BOTARENA_SERVER"], file=record)
raise SystemExit(bot_main(RandomBot, sys.argv[2:]))
"""


def test_ladder_connect_hands_a_bot_command_the_tls_server_string(
    tmp_path: Path, tls_files: Any
) -> None:
    ladder = _ladder(tmp_path / "ladder.db")
    _, command_secret = ladder.register("command", "", "qwirkle")
    _, random_secret = ladder.register("random", "", "qwirkle")
    script, record = tmp_path / "recording_bot.py", tmp_path / "servers.txt"
    script.write_text(_RECORDING_BOT)
    connect = [sys.executable, "-m", "botarena.clients.cli", "ladder", "connect"]
    with start_server(ladder=ladder, credentials=tls_files.server_credentials()) as address:
        bot_command = shlex.join([sys.executable, str(script), str(record)])
        # The flags form: the command gets the one-string form of the same server.
        target = tls_files.target(address)
        flags = ["--server", address, "--tls-ca", tls_files.ca]
        players = [
            [*connect, "--command", bot_command, "--secret", command_secret, *flags],
            [*connect, "--bot", "random", "--secret", random_secret, "--server", target],
        ]
        processes = [subprocess.Popen(player, stdout=subprocess.DEVNULL) for player in players]
        try:
            deadline = time.monotonic() + 60
            while time.monotonic() < deadline and len(_lines(record)) < 2:
                time.sleep(0.1)
        finally:
            for process in processes:
                process.send_signal(signal.SIGINT)
            for process in processes:
                process.wait(timeout=30)
    assert _lines(record)[:2] == [f"{target} {target}"] * 2


def _lines(path: Path) -> list[str]:
    return path.read_text().splitlines() if path.exists() else []
