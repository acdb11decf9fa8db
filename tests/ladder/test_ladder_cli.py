"""``botarena ladder`` against a ladder server: ``resume`` by display name or bots/ID with
the admin token; ``connect --command``, the README's ``run_ladder_bot`` as written, and
one clear line for an unreachable server or one without a ladder."""

from __future__ import annotations

import asyncio
import signal
import socket
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

from botarena.bots import RandomBot
from botarena.clients import AsyncLadderClient, run_ladder_bot
from botarena.clients.cli import main
from botarena.clients.testing import start_server
from botarena.server.ladder import Ladder, LadderSettings
from botarena.server.match import MatchManager
from botarena.server.store import SqliteStore
from botarena.server.store.ladder import BotRecord, SeatRecord, SeatResult
from botarena.v1 import match_pb2


def _crashed_once(ladder: Ladder, name: str) -> BotRecord:
    """Register a bot and record one match it crashed in, so pause_after=1 pauses it."""
    bot, _ = ladder.register(name, "", "qwirkle")
    seat = SeatRecord(seat=0, bot_id=bot.bot_id, mu_before=bot.mu, sigma_before=bot.sigma)
    ladder.store.add_match(f"crash-{name}", "qwirkle", 1.0, [seat])
    result = SeatResult(
        score=0, rank=1, win=0.0, forfeited=True, timeouts=0, crashed=True, mu=bot.mu, sigma=1.0
    )
    ladder.store.record_result(f"crash-{name}", 2.0, [result], pause_after=1)
    return ladder.bot(bot.bot_id)


@pytest.mark.parametrize("by", ["display-name", "resource-name"])
def test_resume_un_pauses_a_bot_named_either_way(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], by: str
) -> None:
    ladder = Ladder(
        MatchManager(), SqliteStore(tmp_path / "ladder.db").ladder_store(), LadderSettings()
    )
    bot = _crashed_once(ladder, "crasher")
    assert (bot.paused, bot.bad_streak) == (True, 1)
    name = bot.name if by == "display-name" else f"bots/{bot.bot_id}"
    with start_server(ladder=ladder, admin_token="sesame") as address:
        arguments = ["resume", name, "--game", "qwirkle", "--admin-token", "sesame"]
        status = main(["ladder", *arguments, "--server", address])
    assert status == 0
    assert f"resumed crasher (bots/{bot.bot_id})" in capsys.readouterr().out
    after = ladder.bot(bot.bot_id)
    assert (after.paused, after.bad_streak, after.crashes) == (False, 0, 1)


@pytest.mark.parametrize(
    ("arguments", "status", "message"),
    [
        (["nobody", "--admin-token", "sesame"], 2, "no qwirkle bot named 'nobody'"),
        (["crasher"], 1, "ADMIN_TOKEN_REQUIRED"),
    ],
    ids=["unknown-name", "no-admin-token"],
)
def test_resume_refuses_an_unknown_name_or_a_missing_admin_token(
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
    arguments: list[str],
    status: int,
    message: str,
) -> None:
    monkeypatch.delenv("BOTARENA_ADMIN_TOKEN", raising=False)
    ladder = Ladder(
        MatchManager(), SqliteStore(tmp_path / "ladder.db").ladder_store(), LadderSettings()
    )
    bot = _crashed_once(ladder, "crasher")
    with start_server(ladder=ladder, admin_token="sesame") as address:
        assert main(["ladder", "resume", *arguments, "--server", address]) == status
    assert message in capsys.readouterr().out
    assert ladder.bot(bot.bot_id).paused


def _games(address: str) -> dict[str, int]:
    """Return each bot's rated matches on the qwirkle leaderboard, through the RPC."""

    async def board() -> dict[str, int]:
        async with AsyncLadderClient(target=address) as client:
            response = await client.get_leaderboard(match_pb2.GAME_QWIRKLE)
        return {entry.bot.display_name: entry.games for entry in response.entries}

    return asyncio.run(board())


def test_the_readme_snippet_and_a_bot_command_play_each_other_on_the_ladder(
    tmp_path: Path,
) -> None:
    settings = LadderSettings(tick_seconds=0.05, keepalive_seconds=0.5)
    ladder = Ladder(MatchManager(), SqliteStore(tmp_path / "ladder.db").ladder_store(), settings)
    _, snippet_secret = ladder.register("snippet", "", "qwirkle")
    _, command_secret = ladder.register("command", "", "qwirkle")
    with start_server(ladder=ladder) as address:
        # README (Ladder): "connects with run_ladder_bot(MyBot, server=..., secret=...,
        # capacity=N)", called as written, not awaited.
        snippet = tmp_path / "my_ladder_bot.py"
        snippet.write_text(
            textwrap.dedent(
                f"""
                from botarena.bots import RandomBot as MyBot
                from botarena.clients import run_ladder_bot

                run_ladder_bot(MyBot, server={address!r}, secret={snippet_secret!r}, capacity=1)
                """
            )
        )
        bot_command = f"{sys.executable} -m botarena.bots.greedy"
        connect = [sys.executable, "-m", "botarena.clients.cli", "ladder", "connect"]
        connect += ["--command", bot_command, "--secret", command_secret, "--server", address]
        players = [
            subprocess.Popen([sys.executable, str(snippet)], stderr=subprocess.DEVNULL, text=True),
            subprocess.Popen(connect, stdout=subprocess.PIPE, text=True),
        ]
        try:
            deadline = time.monotonic() + 60
            while time.monotonic() < deadline and min(_games(address).values()) < 2:
                time.sleep(0.2)
            played = _games(address)
        finally:
            for player in players:
                player.send_signal(signal.SIGINT)
            outputs = [player.communicate(timeout=30)[0] for player in players]
    assert played["snippet"] >= 2
    assert played["command"] >= 2
    assert players[1].returncode == 130  # Ctrl-C stops `ladder connect` cleanly
    assert f"playing {bot_command} on the ladder" in outputs[1]


def test_run_ladder_bot_inside_async_code_says_to_await_the_async_one() -> None:
    async def misuse() -> None:
        run_ladder_bot(RandomBot, server="127.0.0.1:1", secret="s")

    with pytest.raises(RuntimeError, match=r"await run_ladder_bot_async"):
        asyncio.run(misuse())


@pytest.mark.parametrize(
    "arguments",
    [["leaderboard"], ["connect", "--bot", "random", "--secret", "s"]],
    ids=["leaderboard", "connect"],
)
def test_an_unreachable_server_is_one_clear_line(
    capsys: pytest.CaptureFixture[str], arguments: list[str]
) -> None:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    assert main(["ladder", *arguments, "--server", f"127.0.0.1:{port}"]) == 1
    out = capsys.readouterr().out
    assert out.startswith(f"botarena ladder: cannot reach the server at 127.0.0.1:{port}")
    assert len(out.strip().splitlines()) == 1


def test_connect_with_several_servers_says_which_it_tried_when_none_answers(
    capsys: pytest.CaptureFixture[str],
) -> None:
    ports = []
    for _ in range(2):
        with socket.socket() as probe:
            probe.bind(("127.0.0.1", 0))
            ports.append(probe.getsockname()[1])
    servers = [item for port in ports for item in ("--server", f"127.0.0.1:{port}")]
    assert main(["ladder", "connect", "--bot", "random", "--secret", "s", *servers]) == 1
    out = capsys.readouterr().out
    # Each was asked in turn; the line names the last.
    assert out.startswith(f"botarena ladder: cannot reach the server at 127.0.0.1:{ports[1]}")


def test_a_server_without_a_ladder_says_so(capsys: pytest.CaptureFixture[str]) -> None:
    with start_server() as address:
        assert main(["ladder", "leaderboard", "--server", address]) == 1
    assert "runs no ladder" in capsys.readouterr().out
