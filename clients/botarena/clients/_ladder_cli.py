# mypy: disable-error-code="import-untyped"
"""``botarena ladder``: register a bot, show the leaderboard or a bot's matches, resume a
paused bot, connect a built-in bot or any bot command. Everything goes through the
LadderService, as for any integrator."""

from __future__ import annotations

import argparse
import asyncio
import os
import shlex
from collections.abc import Callable, Mapping, Sequence
from typing import Any

import grpc
from rich.console import Console
from rich.table import Table

from botarena.clients._bot import Bot
from botarena.clients._errors import BotarenaError, TlsError
from botarena.clients._help import DefaultsHelpFormatter
from botarena.clients._ladder import (
    AsyncLadderClient,
    run_ladder_bot_async,
    run_ladder_command_async,
)
from botarena.clients._target import ServerTarget, add_server_arguments, server_targets
from botarena.server.service import PLUGINS
from botarena.server.text import printable, printable_markup, printable_text
from botarena.v1 import ladder_pb2, match_pb2

__all__ = ["add_ladder_arguments", "ladder_console", "leaderboard_table", "run_ladder_command"]

_ADMIN_TOKEN_ENV = "BOTARENA_ADMIN_TOKEN"
_SECRET_ENV = "BOTARENA_BOT_SECRET"


# GetLeaderboard's largest page (ladder.proto).
_MAX_PAGE_SIZE = 500

_GAMES = {plugin.name: plugin.proto_game for plugin in PLUGINS}
_DEFAULT_GAME = PLUGINS[0].name
_GAME_HELP = f"{', '.join(_GAMES)} (default %(default)s)"


def _game(name: str) -> match_pb2.Game.ValueType:
    try:
        return _GAMES[name.lower()]
    except KeyError:
        raise argparse.ArgumentTypeError(f"unknown game {name!r}") from None


def ladder_console() -> Console:
    """Return a console for ladder tables: 160 columns wide when not on a terminal."""
    console = Console()
    return console if console.is_terminal else Console(width=160)


def add_ladder_arguments(
    parser: argparse.ArgumentParser, builtin: Mapping[str, Any] | None = None
) -> None:
    """Add the ``ladder`` subcommands to ``parser``; ``builtin`` (the built-in bots by
    name) are listed in the help of ``connect --bot``."""
    commands = parser.add_subparsers(dest="ladder_command", required=True, metavar="SUBCOMMAND")

    def command(name: str, help_text: str, *, several: bool = False) -> argparse.ArgumentParser:
        sub = commands.add_parser(
            name, help=help_text, description=help_text, formatter_class=DefaultsHelpFormatter
        )
        server_help = "the server, HOST:PORT or botarena+tls://HOST:PORT[?ca=PATH]"
        if several:
            server_help += (
                "; repeat it for the nodes of one cluster: the bot connects to the first, "
                "and to the next in turn when the one it uses cannot be reached"
            )
        add_server_arguments(sub, default="127.0.0.1:50051", help_text=server_help, several=several)
        return sub

    register = command("register", "register a bot and print its secret (shown only once)")
    register.add_argument("--name", required=True, help="the bot's display name")
    register.add_argument("--owner", default="", help="who runs the bot")
    register.add_argument("--game", type=_game, default=_DEFAULT_GAME, help=_GAME_HELP)
    _add_admin_token(register)
    board = command("leaderboard", "show a game's leaderboard")
    board.add_argument("--game", type=_game, default=_DEFAULT_GAME, help=_GAME_HELP)
    board.add_argument(
        "--limit",
        type=int,
        default=50,
        help="show the best LIMIT bots, fetched a page at a time; 0 shows every bot "
        "(default %(default)s)",
    )
    matches = command("matches", "show a bot's recent matches")
    matches.add_argument("bot", help="the bot: bots/ID, or its display name with --game")
    matches.add_argument("--game", type=_game, default=_DEFAULT_GAME, help=_GAME_HELP)
    matches.add_argument("--limit", type=int, default=20, help="default %(default)s")
    resume = command("resume", "un-pause a paused bot so it is scheduled again")
    resume.add_argument("bot", help="the bot: bots/ID, or its display name with --game")
    resume.add_argument("--game", type=_game, default=_DEFAULT_GAME, help=_GAME_HELP)
    _add_admin_token(resume)
    connect = command(
        "connect",
        "play a built-in bot or a bot command on the ladder until interrupted",
        several=True,
    )
    player = connect.add_mutually_exclusive_group(required=True)
    known = ", ".join(builtin or ()) or "random, greedy, heuristic"
    player.add_argument("--bot", help=f"a built-in bot ({known})")
    player.add_argument(
        "--command",
        dest="bot_command",
        metavar="COMMAND",
        help="a bot command (docs/bots.md), started for each assigned seat with "
        "--server and --token, e.g. 'python my_bot.py'",
    )
    connect.add_argument(
        "--secret",
        default=os.environ.get(_SECRET_ENV) or None,
        help=f"the registered bot's secret (default: ${_SECRET_ENV})",
    )
    connect.add_argument("--capacity", type=int, default=1, help="matches at once")


def _add_admin_token(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--admin-token",
        default=os.environ.get(_ADMIN_TOKEN_ENV) or None,
        help=f"the server's admin token, if it has one (default: ${_ADMIN_TOKEN_ENV})",
    )


def leaderboard_table(entries: Sequence[ladder_pb2.LeaderboardEntry], title: str) -> Table:
    """Return the leaderboard as a rich table, best first."""
    table = Table(title=title, title_justify="left")
    for header in ("rank", "bot", "owner", "mu-3sigma", "mu", "sigma", "games", "win %"):
        table.add_column(header, justify="left" if header in {"bot", "owner"} else "right")
    for header in ("mean score", "timeouts", "crashes", "status"):
        table.add_column(header, justify="left" if header == "status" else "right")
    for entry in entries:
        win_rate = f"{100 * entry.wins / entry.games:.1f}" if entry.games else "-"
        status = "paused" if entry.paused else "connected" if entry.connected else "offline"
        table.add_row(
            str(entry.rank),
            printable_text(entry.bot.display_name),  # a name is text, not markup
            printable_text(entry.bot.owner),
            f"{entry.conservative_rating:.2f}",
            f"{entry.mu:.2f}",
            f"{entry.sigma:.2f}",
            str(entry.games),
            win_rate,
            f"{entry.mean_score:.1f}",
            str(entry.timeouts),
            str(entry.crashes),
            status,
        )
    return table


def _matches_table(bot: str, matches: Sequence[ladder_pb2.LadderMatch]) -> Table:
    table = Table(title=printable_text(f"matches of {bot}"), title_justify="left")
    for header in ("match", "ended", "seats (score, place)", "rating change"):
        table.add_column(header)
    for match in matches:
        seats = ", ".join(
            f"{seat.bot.display_name} ({seat.score if seat.HasField('score') else '-'}, "
            f"{seat.rank if seat.HasField('rank') else '-'})"
            + (" crashed" if seat.crashed else "")
            + (f" {seat.timeouts} timeouts" if seat.timeouts else "")
            for seat in match.seats
        )
        own = next((seat for seat in match.seats if seat.bot.name == bot), None)
        change = "-"
        if own is not None and own.HasField("rating_after"):
            change = f"{own.rating_before:.2f} → {own.rating_after:.2f}"
        ended = (
            "abandoned"
            if match.abandoned
            else match.end_time.ToDatetime().strftime("%Y-%m-%d %H:%M:%S")
            if match.HasField("end_time")
            else "running"
        )
        table.add_row(
            printable_text(match.match.removeprefix("matches/")),
            ended,
            printable_text(seats),
            change,
        )
    return table


async def _bot_name(
    client: AsyncLadderClient, bot: str, game: match_pb2.Game.ValueType, console: Console
) -> str | None:
    """Return ``bot`` as ``bots/ID``: as given, or looked up by display name in ``game``;
    ``None`` (said on ``console``) when ``game`` has no bot of that name."""
    if bot.startswith("bots/"):
        return bot
    # The leaderboard's pages, until the bot shows (display names are unique per game).
    async for entry in client.leaderboard(game, page_size=_MAX_PAGE_SIZE):
        if entry.bot.display_name == bot:
            return entry.bot.name
    console.print(f"no {_game_name(game)} bot named {printable_markup(repr(bot))}")
    return None


def _game_name(game: match_pb2.Game.ValueType) -> str:
    return match_pb2.Game.Name(game).removeprefix("GAME_").lower()


async def _run(
    args: argparse.Namespace,
    servers: Sequence[ServerTarget],
    bots: Mapping[str, Any],
    console: Console,
) -> int:
    command = args.ladder_command
    if command == "connect":
        return await _connect(args, servers, bots, console)
    server = servers[0]
    if command == "register":
        async with AsyncLadderClient(target=server, token=args.admin_token) as client:
            response = await client.register_bot(args.name, args.owner, args.game)
        shown = printable_markup(response.bot.display_name)
        console.print(f"registered {shown} as {printable_markup(response.bot.name)}")
        console.print(f"secret (shown only once): {response.secret}")
        return 0
    if command == "leaderboard":
        if args.limit < 0:
            console.print(f"--limit must be 0 or more, not {args.limit}")
            return 2
        entries: list[ladder_pb2.LeaderboardEntry] = []
        size = min(args.limit or _MAX_PAGE_SIZE, _MAX_PAGE_SIZE)
        async with AsyncLadderClient(target=server) as client:
            async for entry in client.leaderboard(args.game, page_size=size):
                entries.append(entry)
                if len(entries) == args.limit:
                    break
        title = f"{_game_name(args.game)} ladder"
        console.print(leaderboard_table(entries, title))
        return 0
    if command == "matches":
        async with AsyncLadderClient(target=server) as client:
            bot = await _bot_name(client, args.bot, args.game, console)
            if bot is None:
                return 2
            history = await client.list_bot_matches(bot, limit=args.limit)
        console.print(_matches_table(bot, history.matches))
        return 0
    if command == "resume":
        async with AsyncLadderClient(target=server, token=args.admin_token) as client:
            bot = await _bot_name(client, args.bot, args.game, console)
            if bot is None:
                return 2
            resumed = await client.resume_bot(bot)
        shown = printable_markup(resumed.bot.display_name)
        console.print(f"resumed {shown} ({printable_markup(resumed.bot.name)})")
        return 0
    raise AssertionError(f"unhandled ladder command {command}")


async def _connect(
    args: argparse.Namespace,
    servers: Sequence[ServerTarget],
    bots: Mapping[str, Any],
    console: Console,
) -> int:
    if args.bot is not None and args.bot not in bots:
        console.print(
            f"no built-in bot {printable_markup(repr(args.bot))}; built-in bots: "
            f"{', '.join(sorted(bots))}"
        )
        return 2
    if not args.secret:
        console.print(f"--secret (or ${_SECRET_ENV}) is required")
        return 2
    command = shlex.split(args.bot_command) if args.bot_command is not None else []
    if args.bot_command is not None and not command:
        console.print("--command is empty")
        return 2
    # Once, before the connection that retries for ever: is there a ladder at all? One
    # node of several that answers is enough (the others may be down for now).
    for number, server in enumerate(servers):
        try:
            async with AsyncLadderClient(target=server) as client:
                await client.get_leaderboard(_GAMES[_DEFAULT_GAME], page_size=1)
            break
        except BotarenaError:
            if number == len(servers) - 1:
                raise
    playing = args.bot or args.bot_command
    where = ", ".join(str(server) for server in servers)
    console.print(f"playing {playing} on the ladder at {where}; Ctrl-C stops")
    if command:
        await run_ladder_command_async(
            command, server=servers, secret=args.secret, capacity=args.capacity
        )
    else:
        factory: Callable[[], Bot] = bots[args.bot].factory
        await run_ladder_bot_async(
            factory, server=servers, secret=args.secret, capacity=args.capacity
        )
    return 0


def _failure(server: ServerTarget, error: BotarenaError) -> str:
    """Return one line that says why a ladder command failed."""
    if isinstance(error, TlsError):
        return f"botarena ladder: {error.message}"
    if error.code == grpc.StatusCode.UNAVAILABLE:
        return (
            f"botarena ladder: cannot reach the server at {server} "
            f"(is `botarena serve --ladder` running there?): {error.message}"
        )
    if error.code == grpc.StatusCode.UNIMPLEMENTED:
        return (
            f"botarena ladder: the server at {server} runs no ladder "
            "(start it with `botarena serve --ladder`)"
        )
    return f"botarena ladder: {error}"


def run_ladder_command(args: argparse.Namespace, bots: Mapping[str, Any]) -> int:
    """Run a ``botarena ladder`` subcommand; ``bots`` are the built-in bots by name.

    Returns:
        The exit status.
    """
    console = ladder_console()
    try:
        servers = server_targets(args)
    except ValueError as error:
        console.print(f"botarena ladder: {error}", markup=False, highlight=False, soft_wrap=True)
        return 2
    assert servers  # --server has a default
    try:
        return asyncio.run(_run(args, servers, bots, console))
    except BotarenaError as exc:
        # With several servers, the last one tried failed (connect tries each in turn).
        server = servers[-1] if args.ladder_command == "connect" else servers[0]
        # The server's message may quote a name: escapes shown, not obeyed.
        line = printable(_failure(server, exc))
        console.print(line, markup=False, highlight=False, soft_wrap=True)
        return 1
    except KeyboardInterrupt:
        return 130
