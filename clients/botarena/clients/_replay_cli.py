"""``botarena replay``: a finished match's summary, its board at any version, its HTML viewer,
its proto3 JSON.

The source is a replay file (docs/replays.md) or ``matches/ID`` on a server (GetReplay).
Every replay is played again through the engine first and refused loudly when the file
and the engine disagree (``--no-check`` skips that).
"""

from __future__ import annotations

import argparse
import asyncio
import sys
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from rich import box
from rich.console import Console, Group, RenderableType
from rich.table import Table
from rich.text import Text

from botarena.clients._help import DefaultsHelpFormatter
from botarena.clients._target import ServerTarget, add_server_arguments, server_target
from botarena.server.text import printable, printable_text
from botarena.v1 import match_pb2

__all__ = ["add_replay_parser", "run_replay_command"]

_DEFAULT_SERVER = "127.0.0.1:50051"


def add_replay_parser(commands: Any, add_operator_options: Any) -> None:
    """Add the ``replay`` subcommand to ``commands`` (an argparse subparsers object)."""
    replay = commands.add_parser(
        "replay",
        formatter_class=DefaultsHelpFormatter,
        help="show a finished match: summary, board at any version, HTML viewer",
        description="Show a finished match from a replay file (replay.binpb.gz, an older "
        "replay.json.gz, or a runner's replay.jsonl) or from a server (matches/ID). The "
        "moves are played again through the engine first; a file the engine disagrees "
        "with is refused.",
    )
    replay.add_argument("source", help="a replay file, or matches/ID with --server")
    add_server_arguments(
        replay,
        default=_DEFAULT_SERVER,
        help_text="the server to fetch matches/ID from, HOST:PORT or "
        "botarena+tls://HOST:PORT[?ca=PATH]",
    )
    shown = replay.add_mutually_exclusive_group()
    shown.add_argument(
        "--at",
        type=int,
        metavar="N",
        help="print the board and every seat's hand at version N (negative: from the end)",
    )
    shown.add_argument(
        "--step",
        action="store_true",
        help="print every version in turn (in a terminal: Enter or n for the next, p for "
        "the previous, a number to jump, q to quit)",
    )
    replay.add_argument(
        "--html", type=Path, metavar="OUT", help="write a self-contained HTML viewer to OUT"
    )
    replay.add_argument(
        "--save",
        type=Path,
        metavar="FILE",
        help="write the replay to FILE: gzip'd binary protobuf, or proto3 JSON for a name "
        "ending in .json (.json.gz: gzip'd)",
    )
    replay.add_argument(
        "--json",
        metavar="OUT",
        help="write the replay's proto3 JSON to OUT ('-': standard output, and the summary "
        "goes to standard error)",
    )
    replay.add_argument(
        "--compact", action="store_true", help="with --json: on one line, no spaces"
    )
    replay.add_argument(
        "--no-check", action="store_true", help="do not play the moves again through the engine"
    )
    add_operator_options(replay)


def run_replay_command(args: argparse.Namespace, options: Mapping[str, object]) -> int:
    """Run ``botarena replay``; return the exit status."""
    from botarena.clients import BotarenaError
    from botarena.clients.replays import ReplayFormatError, replay_json, save_replay
    from botarena.server.service import config_overrides
    from botarena.server.service._replays import ReplayMismatchError, check_replay

    to_stdout = args.json == "-"
    # With the JSON on standard output, everything else goes to standard error.
    console = Console(highlight=False, stderr=to_stdout)
    overrides = config_overrides(dict(options))
    try:
        server = server_target(args)
    except ValueError as error:
        _error(f"botarena replay: {error}")
        return 2
    assert server is not None  # --server has a default
    try:
        replay = _load(args.source, server, overrides)
        if not args.no_check:
            check_replay(replay, overrides)
    except (ReplayFormatError, ReplayMismatchError) as error:
        _error(f"botarena replay: {error}")
        return 1
    except BotarenaError as error:
        _error(f"botarena replay: {args.source}: {error}")
        return 1
    except OSError as error:
        _error(f"botarena replay: {error}")
        return 1
    console.print(summary(replay))
    if args.json is not None:
        text = replay_json(replay, indent=None if args.compact else 2) + "\n"
        if to_stdout:
            sys.stdout.write(text)
            sys.stdout.flush()
        else:
            Path(args.json).write_text(text, encoding="utf-8")
            console.print(f"JSON written to {args.json}")
    if args.save is not None:
        console.print(f"replay written to {save_replay(replay, args.save)}")
    if args.html is not None:
        from botarena.server.service.viewers.html import build_html

        args.html.write_text(build_html(replay), encoding="utf-8")
        console.print(f"viewer written to {args.html} (open it in a browser)")
    if args.at is not None:
        count = len(replay.steps)
        version = args.at if args.at >= 0 else count + args.at
        if not 0 <= version < count:
            _error(f"botarena replay: --at {args.at}: versions are 0..{count - 1}")
            return 2
        console.print(frame(replay, version))
    elif args.step:
        _step(console, replay)
    return 0


def _error(message: str) -> None:
    """One line on stderr, never wrapped (a path stays whole), control characters
    escaped (it may quote the file)."""
    print(printable(message), file=sys.stderr)


def _load(source: str, server: ServerTarget, overrides: Any) -> match_pb2.Replay:
    from botarena.clients.replays import load_replay

    if source.startswith("matches/") and not Path(source).exists():
        return asyncio.run(_fetch(server, source))
    return load_replay(source, overrides)


async def _fetch(server: ServerTarget, name: str) -> match_pb2.Replay:
    from botarena.clients import AsyncMatchClient

    async with AsyncMatchClient(target=server) as client:
        return await client.get_replay(name)


def _names(replay: match_pb2.Replay) -> list[str]:
    """The seats' names as a terminal may show them (a file may hold any text)."""
    return [printable(seat.display_name) or f"seat {seat.seat}" for seat in replay.match.seats]


def summary(replay: match_pb2.Replay) -> RenderableType:
    """The match at a glance: game, seats with results and counters, end reason, moves."""
    match = replay.match
    game = match_pb2.Game.Name(match.config.game).removeprefix("GAME_").lower()
    moves = [
        step.event.move_applied for step in replay.steps if step.event.HasField("move_applied")
    ]
    stand_ins = [0] * len(match.seats)
    think = [0.0] * len(match.seats)
    turns = [0] * len(match.seats)
    for applied in moves:
        if applied.by_timeout_policy:
            stand_ins[applied.seat] += 1
        think[applied.seat] += applied.think_time.ToTimedelta().total_seconds()
        turns[applied.seat] += 1
    results = {result.seat: result for result in match.outcome.results}
    # Every string of the file is shown as text, never as rich markup or escapes.
    title = printable_text(f"{game} · {match.name}")
    table = Table(title=title, title_justify="left", box=box.SIMPLE_HEAD)
    for column in ("#", "bot", "score", "rank", "moves", "think", "stand-in", "timeout"):
        table.add_column(column, justify="left" if column == "bot" else "right")
    table.add_column("illegal", justify="right")
    table.add_column("forfeit")
    for seat in match.seats:
        result = results.get(seat.seat)
        mean = think[seat.seat] / turns[seat.seat] if turns[seat.seat] else 0.0
        table.add_row(
            str(seat.seat),
            printable_text(seat.display_name),
            str(result.score if result else seat.score),
            str(result.rank) if result else "-",
            str(turns[seat.seat]),
            f"{mean * 1000:.0f} ms",
            str(max(stand_ins[seat.seat], seat.stand_in_moves)),
            str(seat.timeouts),
            str(seat.illegal_moves),
            printable_text(result.forfeit_reason or "yes") if result and result.forfeited else "",
        )
    duration = ""
    if match.HasField("end_time") and match.HasField("create_time"):
        seconds = (match.end_time.ToDatetime() - match.create_time.ToDatetime()).total_seconds()
        duration = f" · {seconds:.1f} s"
    footer = Text(
        f"ended: {printable(match.outcome.reason) or match_pb2.Match.State.Name(match.state)} · "
        f"{len(moves)} moves · {len(replay.steps)} versions{duration} · "
        f"seed {match.config.seed}",
        style="dim",
    )
    return Group(table, footer)


def frame(replay: match_pb2.Replay, version: int) -> RenderableType:
    """The board and every seat's hand at ``version``, with the event that led to it."""
    from botarena.server.service import plugin_for_proto
    from botarena.server.service.viewers import TerminalFrame

    viewer = plugin_for_proto(int(replay.match.config.game)).viewer
    step = replay.steps[version]
    names = _names(replay)
    event = step.event
    kind = event.WhichOneof("kind")
    applied = event.move_applied if kind == "move_applied" else None
    if applied is not None:
        name = names[applied.seat] if applied.seat < len(names) else f"seat {applied.seat}"
        head = f"v{version} · {applied.seat} {name}: {printable(viewer.move_text(applied.move))}"
        head += f" · {applied.think_time.ToTimedelta().total_seconds() * 1000:.0f} ms"
        if applied.by_timeout_policy:
            head += " · stand-in"
    elif kind == "seat_forfeited":
        forfeited = event.seat_forfeited
        head = f"v{version} · seat {forfeited.seat} forfeits ({printable(forfeited.reason)})"
    elif kind == "match_finished":
        reason = printable(event.match_finished.outcome.reason)
        head = f"v{version} · the match ends ({reason})"
    else:
        head = f"v{version} · the match starts"
    drawn = viewer.terminal(TerminalFrame(step.spectator_view, step.seat_views, names, applied))
    return Group(Text(head, style="bold"), drawn, Text())


def _step(console: Console, replay: match_pb2.Replay) -> None:
    count = len(replay.steps)
    if not sys.stdin.isatty():
        for version in range(count):
            console.print(frame(replay, version))
        return
    version = 0
    while True:
        console.print(frame(replay, version))
        answer = input(f"[{version}/{count - 1}] Enter/n next · p previous · N jump · q quit: ")
        answer = answer.strip().lower()
        if answer == "q":
            return
        if answer == "p":
            version = max(0, version - 1)
        elif answer.lstrip("-").isdigit():
            version = min(count - 1, max(0, int(answer)))
        elif version == count - 1:
            return
        else:
            version += 1
