"""``botarena match --server`` against a TLS server through real gRPC: command bots get the
server string unchanged and play over TLS, and a wrong CA stops the run in one line
(certificates from the ``tls_files`` fixture)."""

from __future__ import annotations

import shlex
import sys
from pathlib import Path
from typing import Any

import pytest

from botarena.clients.testing import start_server

_RECORDING_BOT = """
import os, sys
from botarena.bots import RandomBot
from botarena.clients import bot_main

# What the runner handed over, for the test to read in the bot's stderr.
server = sys.argv[sys.argv.index("--server") + 1]
print(f"ARGUMENT {server}", file=sys.stderr)
print(f"ENVIRONMENT {os.environ['BOTARENA_SERVER']}", file=sys.stderr)
raise SystemExit(bot_main(RandomBot))
"""


def _recording_bot(folder: Path) -> str:
    """The ``--bot`` of a command bot that logs the server it was handed, then plays."""
    script = folder / "recording_bot.py"
    script.write_text(_RECORDING_BOT)
    return f"recorder={shlex.join([sys.executable, str(script)])}"


def _bot_stderr(folder: Path) -> str:
    return "".join(path.read_text() for path in (folder / "run" / "games").glob("*/*.stderr"))


def test_command_bots_get_the_tls_server_unchanged_and_play_over_it(
    tmp_path: Path, tls_files: Any, run_cli: Any
) -> None:
    bot = _recording_bot(tmp_path)
    with start_server(credentials=tls_files.server_credentials()) as address:
        target = tls_files.target(address)
        status, text, results = run_cli(
            "--server", target, "--bot", bot, "--bot", "greedy", "--games", "2"
        )
    assert status == 0, text
    assert results["finished_games"] == 2
    assert results["config"]["server"] == target
    assert all(bot["crashes"] == 0 for bot in results["bots"])
    stderr = _bot_stderr(tmp_path)
    assert stderr.count(f"ARGUMENT {target}\n") == 2
    assert stderr.count(f"ENVIRONMENT {target}\n") == 2


def test_the_tls_flags_make_the_same_string_for_command_bots(
    tmp_path: Path, tls_files: Any, run_cli: Any
) -> None:
    bot = _recording_bot(tmp_path)
    with start_server(credentials=tls_files.server_credentials()) as address:
        argv = ("--server", address, "--tls-ca", tls_files.ca, "--bot", bot, "--bot", "random")
        status, text, _ = run_cli(*argv, "--games", "2")
    assert status == 0, text
    stderr = _bot_stderr(tmp_path)
    assert stderr.count(f"ARGUMENT {tls_files.target(address)}\n") == 2


def test_a_wrong_ca_stops_the_run_with_one_line(tls_files: Any, run_cli: Any) -> None:
    with start_server(credentials=tls_files.server_credentials()) as address:
        wrong = tls_files.target(address, ca=tls_files.other_ca)
        status, text, results = run_cli(
            "--server", wrong, "--bot", "random", "--bot", "random", "--games", "4"
        )
    assert status == 1
    assert results.get("finished_games", 0) == 0
    lines = [line for line in text.splitlines() if "not signed by the CA" in line]
    assert len(lines) == 1, text
    assert lines[0].startswith(f"botarena match: cannot connect to {address} over TLS")


def test_the_tls_flags_need_a_server(run_cli: Any) -> None:
    with pytest.raises(SystemExit, match="the TLS flags need --server"):
        run_cli("--tls", "--bot", "random", "--bot", "random")
