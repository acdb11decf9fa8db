# mypy: disable-error-code="import-untyped"
"""Names that would rewrite a terminal are refused where they enter, and every terminal
writer shows control characters escaped (issue 26, point 3).

Refused: RegisterBot and CreateMatch through real gRPC, the runner's ``--bot``. Shown
escaped: the ladder's and the runner's tables on a terminal console, the server's
console logs and the bot executable's logs (``botarena replay``:
tests/replays/test_replay_terminal_escaping.py).
"""

from __future__ import annotations

import asyncio
import io
import logging
import os
import subprocess
import sys
from collections.abc import Awaitable, Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

import grpc
import pytest
from google.rpc import error_details_pb2, status_pb2
from rich.console import Console, RenderableType

from botarena.clients._ladder_cli import leaderboard_table
from botarena.clients.runner._plan import BotSpec, GamePlan
from botarena.clients.runner._records import GameRecord, SeatRecord
from botarena.clients.runner._results import results_table
from botarena.clients.runner._run import Standings
from botarena.clients.runner._tables import cross_table, versus_table
from botarena.clients.testing import start_server, start_server_async
from botarena.server.ladder import Ladder, LadderSettings
from botarena.server.match import MatchManager
from botarena.server.store import SqliteStore
from botarena.server.text import PrintableFormatter, name_problem, printable
from botarena.v1 import (
    ladder_pb2,
    ladder_pb2_grpc,
    match_pb2,
    match_service_pb2,
    match_service_pb2_grpc,
)

PtyRun = Callable[[Sequence[str], Mapping[str, str]], tuple[int, bytes]]
"""The ``on_a_pty`` fixture (tests/conftest.py)."""

TITLE = "evil\x1b]0;pwned\x07"
"""A name that retitles the terminal (OSC 0)."""

RAW = [b"\x1b]0;pwned", b"\x07", b"\x1b]8;", "\x9b".encode(), "\u202e".encode()]
"""What must never reach the terminal: the name's sequences, a link made of markup."""

HOSTILE = [
    TITLE,
    "\x9b2J",  # C1 CSI: clear the screen
    "\u202eexe.txt",  # right-to-left override
    "\u200bzero",  # zero-width space
    "line\nforged",  # a forged log line
    "del\x7f",
]
"""Names ``name_problem`` refuses (and ``printable`` escapes)."""


# --------------------------------------------------------------------------- refusals


@pytest.mark.parametrize("name", HOSTILE, ids=lambda name: ascii(name))
def test_a_name_with_a_control_or_invisible_character_is_refused(name: str) -> None:
    problem = name_problem(name)
    assert problem is not None
    assert f"U+{ord(next(c for c in name if not c.isprintable())):04X}" in problem
    shown = printable(name)
    assert shown.isprintable()
    assert shown.encode("ascii", "backslashreplace").decode() != name


@pytest.mark.parametrize("name", ["greedy-2", "Zoë's bot", "♔ king", "名前", "a b"])
def test_printable_names_are_kept(name: str) -> None:
    assert name_problem(name) is None
    assert printable(name) == name


def _violation(error: grpc.aio.AioRpcError) -> tuple[str, str]:
    """The BadRequest field violation of a refused call: field, description."""
    for key, value in error.trailing_metadata() or ():
        if key == "grpc-status-details-bin":
            for detail in status_pb2.Status.FromString(value).details:
                bad = error_details_pb2.BadRequest()
                if detail.Unpack(bad):
                    violation = bad.field_violations[0]
                    return violation.field, violation.description
    raise AssertionError("no BadRequest in the refusal")


async def _refused(call: Awaitable[Any]) -> tuple[grpc.StatusCode, str, str]:
    try:
        await call
    except grpc.aio.AioRpcError as error:
        return (error.code(), *_violation(error))
    raise AssertionError("the call succeeded")


def _with_ladder(tmp_path: Path, scenario: Callable[[grpc.aio.Channel], Awaitable[None]]) -> None:
    ladder = Ladder(
        MatchManager(), SqliteStore(tmp_path / "ladder.db").ladder_store(), LadderSettings()
    )

    async def main() -> None:
        async with (
            start_server_async(ladder=ladder) as address,
            grpc.aio.insecure_channel(address) as channel,
        ):
            await asyncio.wait_for(scenario(channel), 60)

    asyncio.run(main())


@pytest.mark.parametrize(
    ("field", "name", "owner", "character"),
    [
        ("display_name", TITLE, "me", "U+001B"),
        ("display_name", "\u202eexe", "me", "U+202E"),
        ("owner", "fine", "team\x9b2J", "U+009B"),
    ],
    ids=["osc-name", "bidi-name", "c1-owner"],
)
def test_register_bot_refuses_a_name_with_control_characters(
    field: str, name: str, owner: str, character: str, tmp_path: Path
) -> None:
    async def scenario(channel: grpc.aio.Channel) -> None:
        stub = ladder_pb2_grpc.LadderServiceStub(channel)
        request = ladder_pb2.RegisterBotRequest(
            display_name=name, owner=owner, game=match_pb2.GAME_QWIRKLE
        )
        code, refused_field, description = await _refused(stub.RegisterBot(request))
        assert (code, refused_field) == (grpc.StatusCode.INVALID_ARGUMENT, field)
        assert character in description
        assert "printable" in description
        # A clean name registers.
        clean = ladder_pb2.RegisterBotRequest(
            display_name="clean", owner="me", game=match_pb2.GAME_QWIRKLE
        )
        assert (await stub.RegisterBot(clean)).bot.display_name == "clean"

    _with_ladder(tmp_path, scenario)


def test_create_match_refuses_a_seat_name_with_control_characters() -> None:
    async def main() -> None:
        async with (
            start_server_async() as address,
            grpc.aio.insecure_channel(address) as channel,
        ):
            stub = match_service_pb2_grpc.MatchServiceStub(channel)
            config = match_pb2.MatchConfig(
                game=match_pb2.GAME_QWIRKLE, seat_count=2, seat_names=["fine", TITLE]
            )
            request = match_service_pb2.CreateMatchRequest(config=config)
            code, field, description = await _refused(stub.CreateMatch(request))
            assert (code, field) == (grpc.StatusCode.INVALID_ARGUMENT, "config.seat_names[1]")
            assert "U+001B" in description
            del config.seat_names[1]
            created = await stub.CreateMatch(match_service_pb2.CreateMatchRequest(config=config))
            assert created.match.seats[0].display_name == "fine"

    asyncio.run(main())


@pytest.mark.parametrize(
    ("bot", "says"),
    [
        ("a\x1b]0;x\x07=random", "the name before '='"),
        ("./a\x1b]0;x\x07", "the name taken from"),
        (f"{sys.executable} \u202ebot.py", "the name taken from"),
    ],
    ids=["given", "from-a-program", "from-a-script"],
)
def test_the_runner_refuses_a_bot_name_with_control_characters(bot: str, says: str) -> None:
    command = [sys.executable, "-m", "botarena.clients.cli", "match", "--bot", bot]
    done = subprocess.run(
        [*command, "--bot", "random", "--games", "2"],
        capture_output=True,
        stdin=subprocess.DEVNULL,
        timeout=120,
    )
    assert done.returncode != 0
    output = done.stdout + done.stderr
    for raw in RAW:
        assert raw not in output
    text = output.decode()
    assert says in text
    assert "a control or invisible character" in text
    assert not done.stdout  # refused before any game


# --------------------------------------------------------------------------- writers


@pytest.mark.parametrize("on_a_terminal", [True, False], ids=["pty", "pipe"])
def test_the_runner_shows_a_crashed_bots_stderr_escaped(
    on_a_terminal: bool, tmp_path: Path, on_a_pty: PtyRun
) -> None:
    script = tmp_path / "crasher.py"
    script.write_text(f"import sys\nsys.stderr.write({TITLE!r} + '\\n')\nsys.exit(3)\n")
    command = [sys.executable, "-m", "botarena.clients.cli", "match"]
    command += ["--bot", f"crasher={sys.executable} {script}", "--bot", "random", "--games", "2"]
    if on_a_terminal:
        status, output = on_a_pty(command, {"COLUMNS": "200"})
        assert b"\x1b[" in output  # rich styles it: a terminal
    else:
        done = subprocess.run(command, capture_output=True, stdin=subprocess.DEVNULL, timeout=120)
        status, output = done.returncode, done.stdout + done.stderr
    assert status == 1  # the bot failed in its first game: the run stopped
    assert b"crasher failed in its first game" in output
    for raw in RAW:
        assert raw not in output
    assert b"evil\\x1b]0;pwned\\x07" in output


def _on_a_terminal(renderable: RenderableType) -> bytes:
    """What ``renderable`` writes to a colour terminal."""
    out = io.StringIO()
    console = Console(file=out, force_terminal=True, color_system="truecolor", width=200)
    console.print(renderable, highlight=False)
    return out.getvalue().encode()


def _leaderboard() -> RenderableType:
    entries = [
        ladder_pb2.LeaderboardEntry(
            rank=1,
            bot=ladder_pb2.LadderBot(name="bots/1", display_name=TITLE, owner="[link=x]me"),
            games=2,
            wins=1,
        )
    ]
    return leaderboard_table(entries, "qwirkle ladder")


_LINEUP = [BotSpec(TITLE, builtin="random"), BotSpec("[link=https://e.example]x", builtin="random")]


def _records() -> list[GameRecord]:
    return [
        GameRecord(
            plan=GamePlan(number, number, number, lineup, (0, 0)),
            match=f"matches/{number}",
            seats=[SeatRecord(score=3, rank=1), SeatRecord(score=1, rank=2)],
            reason="went_out",
        )
        for number, lineup in ((1, (0, 1)), (2, (1, 0)))
    ]


def _standings() -> RenderableType:
    standings = Standings(_LINEUP, None)
    for record in _records():
        standings.add(record)
    return standings.text()  # markup: the progress bar's column


@pytest.mark.parametrize(
    "render",
    [
        _leaderboard,
        lambda: results_table(_LINEUP, _records(), "results"),
        lambda: versus_table(_LINEUP, _records(), "head to head"),
        lambda: cross_table(_LINEUP, _records(), "cross"),
        _standings,
    ],
    ids=["ladder-leaderboard", "runner-results", "runner-versus", "runner-cross", "progress"],
)
def test_tables_show_names_escaped_on_a_terminal(render: Callable[[], RenderableType]) -> None:
    output = _on_a_terminal(render())
    for raw in RAW:
        assert raw not in output
    assert b"evil\\x1b]0;pwned\\x07" in output
    assert b"[link=" in output  # markup in a name is shown as text


def test_the_servers_console_logs_show_names_escaped_on_a_terminal(on_a_pty: PtyRun) -> None:
    code = (
        "import structlog\n"
        "from botarena.server.service import configure_logging\n"
        "configure_logging(json=False)\n"
        f"structlog.get_logger().info('bot registered', name={TITLE!r}, bot={TITLE!r})\n"
        f"structlog.get_logger().info({TITLE!r})\n"
    )
    status, output = on_a_pty([sys.executable, "-c", code], {})
    assert status == 0
    for raw in RAW:
        assert raw not in output
    assert output.count(b"evil\\x1b]0;pwned\\x07") == 3
    assert b"\x1b[" in output  # a terminal: the renderer's own colours are there


def test_the_bot_executables_logs_show_the_match_escaped() -> None:
    with start_server() as address:
        done = subprocess.run(
            [sys.executable, "-m", "botarena.bots.random", "--server", address],
            env={**os.environ, "BOTARENA_TOKEN": "forged", "BOTARENA_MATCH": f"matches/{TITLE}"},
            capture_output=True,
            stdin=subprocess.DEVNULL,
            timeout=120,
        )
    assert done.returncode != 0
    assert b"cannot play" in done.stderr
    for raw in RAW:
        assert raw not in done.stderr
    assert b"evil\\x1b]0;pwned\\x07" in done.stderr


def test_a_log_record_keeps_its_traceback_lines_and_escapes_its_message() -> None:
    out = io.StringIO()
    handler = logging.StreamHandler(out)
    handler.setFormatter(PrintableFormatter("%(levelname)s %(message)s"))
    logger = logging.getLogger("botarena.tests.printable")
    logger.addHandler(handler)
    logger.propagate = False
    try:
        raise ValueError(TITLE)
    except ValueError:
        logger.exception("lost %s", "line\nforged")
    finally:
        logger.removeHandler(handler)
    first, *rest = out.getvalue().splitlines()
    assert first == "ERROR lost line\\nforged"
    assert rest[0] == "Traceback (most recent call last):"
    assert rest[-1] == "ValueError: evil\\x1b]0;pwned\\x07"


def test_the_commands_sdk_warnings_show_names_escaped(tmp_path: Path) -> None:
    # The SDK and the runner log warnings through logging's last resort in `botarena`:
    # after a command ran, one that quotes a name.
    code = (
        "import logging, sys\n"
        "from botarena.clients.cli import main\n"
        f"main(['replay', {str(tmp_path / 'missing.binpb.gz')!r}])\n"
        "logging.getLogger('botarena.clients.ladder').warning("
        f"'connection lost: %s', {TITLE!r})\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, stdin=subprocess.DEVNULL, timeout=120
    )
    assert done.returncode == 0, done.stderr
    assert b"connection lost: evil\\x1b]0;pwned\\x07" in done.stderr
    for raw in RAW:
        assert raw not in done.stderr
