"""``botarena replay`` on a real terminal (a pty) and through a pipe: seat names holding
escape sequences are shown escaped, never obeyed (issue 26, point 3).

The file is a crafted one (the server refuses such names now, an older server or an
edited file did not): its seats are named with an OSC title sequence, a CSI
screen-clear, a C1 CSI and a bidi override, and one with ``rich`` markup.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path

import pytest

from botarena.clients.replays import REPLAY_FILE_NAME, save_replay
from botarena.v1 import match_pb2

PtyRun = Callable[[Sequence[str], Mapping[str, str]], tuple[int, bytes]]
"""The ``on_a_pty`` fixture (tests/conftest.py)."""

HOSTILE = [
    "evil\x1b]0;pwned\x07",  # OSC 0: retitle the terminal
    # rich markup (a hyperlink, OSC 8), CSI clear screen, C1 CSI, right-to-left override
    "[link=https://evil.example]x[/link]\x1b[2J\x9b31m\u202eexe",
]
"""The seats' names, by seat."""

_RAW = [b"\x1b]0;pwned", b"\x07", b"\x1b[2J", "\x9b".encode(), "\u202e".encode(), b"\x1b]8;"]
"""Bytes of the names (and of a link made of the markup) that must never reach the
output; rich's own styling escapes may."""

_SHOWN = ["evil\\x1b]0;pwned\\x07", "[link=https://evil.example]x[/link]\\x1b[2J\\x9b31m\\u202eexe"]
"""How the names look instead: their escapes, the markup as text."""


def _hostile_file(replay: match_pb2.Replay, tmp_path: Path) -> Path:
    hostile = match_pb2.Replay()
    hostile.CopyFrom(replay)
    del hostile.match.config.seat_names[:]
    seats = len(hostile.match.seats)
    hostile.match.config.seat_names.extend(HOSTILE)
    for seat in hostile.match.seats:
        seat.display_name = HOSTILE[seat.seat]
    assert seats == len(HOSTILE)
    return save_replay(hostile, tmp_path / REPLAY_FILE_NAME)


def _command(path: Path, *extra: str) -> list[str]:
    return [sys.executable, "-m", "botarena.clients.cli", "replay", str(path), *extra]


_ENVIRONMENT = {"TERM": "xterm-256color", "COLUMNS": "200", "LINES": "50"}


def _terminal(on_a_pty: PtyRun, command: list[str]) -> bytes:
    status, output = on_a_pty(command, _ENVIRONMENT)
    assert status == 0, output.decode(errors="replace")
    return output


def _piped(command: list[str]) -> subprocess.CompletedProcess[bytes]:
    """Run ``command`` with its stdout and stderr piped; it must exit 0."""
    done = subprocess.run(
        command,
        stdin=subprocess.DEVNULL,
        capture_output=True,
        env={**os.environ, **_ENVIRONMENT},
        timeout=120,
    )
    assert done.returncode == 0, done.stderr.decode(errors="replace")
    return done


def _through_a_pipe(command: list[str]) -> bytes:
    done = _piped(command)
    return done.stdout + done.stderr


def _assert_names_escaped(output: bytes) -> None:
    for raw in _RAW:
        assert raw not in output, raw
    text = output.decode()
    for shown in _SHOWN:
        assert shown in text, shown


@pytest.mark.parametrize("on_a_terminal", [True, False], ids=["pty", "pipe"])
@pytest.mark.parametrize(
    "extra", [(), ("--at", "-1"), ("--step",)], ids=["summary", "at-the-end", "step"]
)
def test_a_replay_shows_hostile_seat_names_escaped(
    on_a_terminal: bool,
    extra: tuple[str, ...],
    replays: dict[str, match_pb2.Replay],
    tmp_path: Path,
    on_a_pty: PtyRun,
) -> None:
    command = _command(_hostile_file(replays["qwirkle"], tmp_path), *extra)
    output = _terminal(on_a_pty, command) if on_a_terminal else _through_a_pipe(command)
    _assert_names_escaped(output)


@pytest.mark.parametrize("game", ["qwixx", "queendomino"])
def test_every_games_board_shows_hostile_seat_names_escaped(
    game: str, replays: dict[str, match_pb2.Replay], tmp_path: Path, on_a_pty: PtyRun
) -> None:
    command = _command(_hostile_file(replays[game], tmp_path), "--at", "-1")
    _assert_names_escaped(_terminal(on_a_pty, command))


def test_on_a_pty_rich_still_styles_the_output(
    replays: dict[str, match_pb2.Replay], tmp_path: Path, on_a_pty: PtyRun
) -> None:
    # The pty is a terminal to the command: the checks above see styled output, so a
    # raw name's bytes would have reached a real terminal too.
    command = _command(_hostile_file(replays["qwirkle"], tmp_path), "--at", "-1")
    assert b"\x1b[" in _terminal(on_a_pty, command)


@pytest.mark.parametrize("on_a_terminal", [True, False], ids=["pty", "pipe"])
def test_json_on_standard_output_holds_the_names_as_escapes_and_reads_back(
    on_a_terminal: bool,
    replays: dict[str, match_pb2.Replay],
    tmp_path: Path,
    on_a_pty: PtyRun,
) -> None:
    path = _hostile_file(replays["qwirkle"], tmp_path)
    command = _command(path, "--json", "-", "--no-check")
    if on_a_terminal:
        output = _terminal(on_a_pty, command)
    else:  # the pipe keeps the JSON (stdout) apart from the summary
        done = _piped(command)
        names = [seat["displayName"] for seat in json.loads(done.stdout)["match"]["seats"]]
        assert names == HOSTILE
        output = done.stdout + done.stderr
    for raw in _RAW:
        assert raw not in output, raw
