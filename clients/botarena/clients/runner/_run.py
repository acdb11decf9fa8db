"""``botarena match``: play many seeded games between bots and report the results.

The run plans every game up front (seed labels x seat rotations, engine seeds from the
run's secret key, see ``_plan``), plays them ``--concurrency`` at a time on an embedded
server (or ``--server``), shows a progress bar with running standings, and writes
``results.json``, one replay per game and each bot's stderr under ``--out``. Ctrl-C stops
the run: bot processes are killed and what finished is still reported and written.

A bot that cannot start, or is gone before the end of its first game, fails the run: the
other games are cancelled, their bots killed, the bot's last stderr lines printed, and
the exit status is 1. Later crashes cost their game (the seat is resigned at once) and
are printed with the same tail.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import functools
import json
import logging
import os
import sys
import time
from collections.abc import AsyncIterator, Callable, Mapping, Sequence
from pathlib import Path
from typing import Protocol

from rich.console import Console
from rich.progress import (
    BarColumn,
    MofNCompleteColumn,
    Progress,
    TextColumn,
    TimeElapsedColumn,
    TimeRemainingColumn,
)

from botarena.clients._aio import AsyncMatchClient
from botarena.clients._bot import Bot
from botarena.clients._retry import RECONNECT_CHANNEL_OPTIONS
from botarena.clients.runner._pages import write_index
from botarena.clients.runner._plan import (
    BotSpec,
    GamePlan,
    SeedKey,
    new_seed_key,
    parse_bot_spec,
    plan_games,
    rounded_game_count,
    unique_names,
)
from botarena.clients.runner._play import (
    ENV_SEED_KEY,
    GAMES,
    BotFailedError,
    GameOptions,
    MatchRefusedError,
    play_game,
)
from botarena.clients.runner._results import (
    GameRecord,
    results_document,
    results_table,
    summarise,
)
from botarena.server.service import operator_options

__all__ = ["BuiltinBot", "add_match_arguments", "run_match"]

_EXIT_OK = 0
_EXIT_FAILED = 1
_EXIT_INTERRUPTED = 130


def add_match_arguments(parser: argparse.ArgumentParser) -> None:
    """Add the options of ``botarena match`` to ``parser``."""
    parser.add_argument(
        "--game", choices=sorted(GAMES), default=next(iter(GAMES)), help="the game (%(default)s)"
    )
    parser.add_argument(
        "--bot",
        action="append",
        dest="bots",
        metavar="BOT",
        required=True,
        help="a built-in bot (random, greedy), NAME=COMMAND or COMMAND; one per seat, "
        "given 2 or more times",
    )
    parser.add_argument(
        "--games", type=int, default=20, help="games in total (rounded up to whole seat rotations)"
    )
    parser.add_argument("--concurrency", type=int, default=2, help="games played at once")
    parser.add_argument(
        "--seed",
        type=int,
        default=1,
        help="first seed label; labels are consecutive, and each label's engine seed is "
        "derived from it and --seed-key",
    )
    parser.add_argument(
        "--seed-key",
        default=os.environ.get(ENV_SEED_KEY) or None,
        metavar="KEY",
        help="the secret the engine and bot seeds derive from; the same key replays a run "
        f"exactly (default: ${ENV_SEED_KEY}, else a new random key, kept in results.json)",
    )
    parser.add_argument("--out", type=Path, help="folder for results.json, replays and stderr")
    parser.add_argument("--server", help="HOST:PORT of a running server (default: embedded)")
    parser.add_argument("--admin-token", help="the server's admin token, if it has one")
    parser.add_argument(
        "--move-time", type=float, default=5.0, help="seconds per decision (default 5)"
    )
    parser.add_argument("--time-bank", type=float, default=0.0, help="seconds of bank per seat")
    parser.add_argument(
        "--forfeit-on-timeout",
        action="store_true",
        help="a seat that runs out of time forfeits (default: the server plays for it)",
    )
    parser.add_argument(
        "--max-illegal-moves", type=int, default=3, help="rejections per decision before timeout"
    )
    parser.add_argument(
        "--max-stand-ins",
        type=int,
        default=3,
        help="stand-in moves in a row after which a seat forfeits as absent (default 3)",
    )
    parser.add_argument(
        "--join-timeout",
        type=float,
        default=30.0,
        help="seconds a bot has to start and connect before its seat forfeits as absent "
        "(default 30)",
    )
    parser.add_argument(
        "--exit-grace",
        type=float,
        default=5.0,
        help="seconds a bot may take to exit after its match ended before it is killed",
    )
    for _, option in operator_options():
        parser.add_argument(
            option.flag,
            type=Path,
            metavar=option.metavar,
            help=f"{option.help}; for the embedded server only",
        )
    parser.add_argument("--quiet", action="store_true", help="no progress bar")


class BuiltinBot(Protocol):
    """What the runner needs of a built-in bot (``botarena.bots.BuiltinBot`` is one).

    The bots sit above the SDK, so the ``botarena`` command hands them in.
    """

    @property
    def factory(self) -> Callable[[], Bot]:
        """Returns a new instance of the bot."""
        ...

    def plays(self, game: str) -> bool:
        """Return True when the bot can play ``game``."""
        ...


def _lineup(args: argparse.Namespace, builtin: Mapping[str, BuiltinBot]) -> list[BotSpec]:
    specs = unique_names([parse_bot_spec(text, builtin) for text in args.bots])
    for spec in specs:
        if spec.builtin is not None and not builtin[spec.builtin].plays(args.game):
            raise ValueError(f"the built-in bot {spec.name!r} does not play {args.game}")
    return specs


@contextlib.asynccontextmanager
async def _server(address: str | None, operator_values: Mapping[str, object]) -> AsyncIterator[str]:
    if address:
        yield address
        return
    from botarena.clients.testing import start_server_async
    from botarena.server.service import configure_logging

    # The embedded server's logs would drown the progress bar; keep its warnings.
    configure_logging(level=logging.WARNING)
    # The run is the embedded server's only caller, and --concurrency bounds its matches:
    # the per-caller limits meant for a shared server would only slow it down.
    options: dict[str, object] = {
        "max_finished_matches": 100,
        "max_matches_per_caller": 0,
        "max_creates_per_minute": 0,
    }
    if operator_values:
        options["operator_options"] = operator_values
    async with start_server_async(**options) as embedded:
        yield embedded


def _operator_values(args: argparse.Namespace) -> dict[str, object]:
    """Return the embedded server's operator options: those given, and the shipped
    default of every option of the run's game, by ``OperatorOption.dest``.

    Loaded up front so that a bad file stops the run before anything starts.
    """
    values: dict[str, object] = {}
    for plugin, option in operator_options():
        path: Path | None = getattr(args, option.dest)
        if path is not None and args.server:
            raise SystemExit(
                f"botarena match: {option.flag} configures the embedded server; "
                "give it to `botarena serve` for --server"
            )
        if path is None and args.game != plugin.name:
            continue
        try:
            values[option.dest] = option.load(path)
        except ValueError as error:
            raise SystemExit(f"botarena match: {option.flag}: {error}") from None
    return values


def _standings(lineup: Sequence[BotSpec], records: Sequence[GameRecord]) -> str:
    if not records:
        return ""
    parts = []
    for summary in summarise(lineup, records):
        rate = summary.win_rate.value * 100 if summary.win_rate else 0.0
        parts.append(f"{summary.name} {rate:.0f}%")
    return "  ".join(parts)


def _print_tail(console: Console, lines: Sequence[str]) -> None:
    for line in lines:
        # Bot output is text, not rich markup.
        console.print(f"  {line}", markup=False, highlight=False, soft_wrap=True)


def _print_crashes(console: Console, lineup: Sequence[BotSpec], record: GameRecord) -> None:
    for seat, index in enumerate(record.plan.lineup_at_seat):
        seat_record = record.seats[seat]
        if seat_record.failure is None:
            continue
        console.print(
            f"[yellow]game {record.plan.number} (seed {record.plan.label}): "
            f"{lineup[index].name} in seat {seat} {seat_record.failure}",
            highlight=False,
        )
        _print_tail(console, seat_record.stderr_tail)


def _is_first_game(first_game: Mapping[str, int], plan: GamePlan, spec: BotSpec) -> bool:
    return first_game[spec.name] == plan.number


async def _play_all(
    args: argparse.Namespace,
    lineup: list[BotSpec],
    plans: list[GamePlan],
    options: GameOptions,
    factories: Mapping[str, Callable[[], Bot]],
    records: list[GameRecord],
    console: Console,
    operator_values: Mapping[str, object],
) -> tuple[int, BotFailedError | None]:
    """Play ``plans``; return the number of games that failed and a bot that failed the run."""
    failures = 0
    failed_run: BotFailedError | None = None
    # A crash in a bot's first game of the run stops the run; a later one costs its game.
    # (Not "before its first clean game": with many games at once, one rare crash among
    # the first wave would stop a run that is otherwise fine.)
    first_game: dict[str, int] = {}
    for plan in reversed(plans):
        for index in plan.lineup_at_seat:
            first_game[lineup[index].name] = plan.number
    async with (
        _server(args.server, operator_values) as target,
        AsyncMatchClient(
            target=target, token=args.admin_token, channel_options=RECONNECT_CHANNEL_OPTIONS
        ) as client,
    ):
        queue: asyncio.Queue[GamePlan] = asyncio.Queue()
        for plan in plans:
            queue.put_nowait(plan)
        progress = Progress(
            TextColumn("[bold]{task.description}"),
            BarColumn(),
            MofNCompleteColumn(),
            TimeElapsedColumn(),
            TextColumn("eta"),
            TimeRemainingColumn(),
            TextColumn("{task.fields[standings]}"),
            console=console,
            disable=args.quiet,
            transient=False,
        )
        task = progress.add_task(f"{args.game}", total=len(plans), standings="")
        refused: list[str] = []

        async def worker() -> None:
            nonlocal failures, failed_run
            while not queue.empty():
                plan = queue.get_nowait()
                try:
                    record = await play_game(
                        client,
                        target,
                        plan,
                        lineup,
                        options,
                        factories,
                        crash_stops_run=functools.partial(_is_first_game, first_game, plan),
                    )
                except MatchRefusedError as error:
                    # The same refusal awaits every game: report it once and stop.
                    failures += 1
                    if not refused:
                        refused.append(str(error))
                        console.print(f"[red]{error}; stopping the run")
                    while not queue.empty():
                        queue.get_nowait()
                except BotFailedError as error:
                    # A broken bot would fail every game: stop the run now (gather raises).
                    failures += 1
                    if error.record is not None:
                        records.append(error.record)
                    failed_run = failed_run or error
                    raise
                except Exception as error:  # a game lost to the server is reported, not fatal
                    failures += 1
                    console.print(
                        f"[red]game {plan.number} (seed {plan.label}) failed: {error}",
                        highlight=False,
                    )
                else:
                    records.append(record)
                    _print_crashes(console, lineup, record)
                progress.update(task, advance=1, standings=_standings(lineup, records))

        with progress:
            workers = [asyncio.create_task(worker()) for _ in range(max(1, args.concurrency))]
            try:
                await asyncio.gather(*workers)
            except BotFailedError:
                pass  # reported by run_match; the other games are cancelled below
            finally:
                for worker_task in workers:
                    worker_task.cancel()
                await asyncio.gather(*workers, return_exceptions=True)
    return failures, failed_run


def _validate(args: argparse.Namespace) -> None:
    if len(args.bots) < 2:
        raise SystemExit("botarena match: give at least two --bot (one per seat)")
    if args.games <= 0 or args.concurrency <= 0:
        raise SystemExit("botarena match: --games and --concurrency must be positive")
    if args.move_time <= 0 or args.join_timeout <= 0:
        raise SystemExit("botarena match: --move-time and --join-timeout must be positive")
    if args.max_stand_ins <= 0:
        raise SystemExit("botarena match: --max-stand-ins must be positive")


def run_match(
    args: argparse.Namespace,
    builtin: Mapping[str, BuiltinBot],
    console: Console | None = None,
) -> int:
    """Run ``botarena match`` with parsed ``args``; return the exit status.

    Args:
        args: Parsed by a parser set up with :func:`add_match_arguments`.
        builtin: The built-in bots by name.
        console: Where the progress and the table go (default: stdout).
    """
    # Off a terminal (CI logs, files) rich would wrap the table at 80 columns.
    console = console or Console(width=None if sys.stdout.isatty() else 150)
    _validate(args)
    operator_values = _operator_values(args)
    try:
        lineup = _lineup(args, builtin)
    except ValueError as error:
        raise SystemExit(f"botarena match: {error}") from None
    total = rounded_game_count(args.games, len(lineup))
    if total != args.games:
        console.print(
            f"Playing {total} games, not {args.games}: each seed is played in all "
            f"{len(lineup)} seat rotations."
        )
    seed_key = args.seed_key or new_seed_key()
    plans = plan_games(len(lineup), total, args.seed, SeedKey(seed_key, args.game))
    if args.out:
        args.out.mkdir(parents=True, exist_ok=True)
    options = GameOptions(
        game=args.game,
        move_time_limit=args.move_time,
        time_bank=args.time_bank,
        forfeit_on_timeout=args.forfeit_on_timeout,
        max_illegal_moves=args.max_illegal_moves,
        max_stand_ins=args.max_stand_ins,
        join_timeout=args.join_timeout,
        out=args.out,
        exit_grace=args.exit_grace,
    )
    records: list[GameRecord] = []
    interrupted = False
    started = time.monotonic()
    failures = 0
    failed_run: BotFailedError | None = None
    try:
        factories = {name: bot.factory for name, bot in builtin.items()}
        failures, failed_run = asyncio.run(
            _play_all(args, lineup, plans, options, factories, records, console, operator_values)
        )
    except KeyboardInterrupt:
        interrupted = True
        console.print("[yellow]Interrupted: bot processes stopped; reporting finished games.")
    elapsed = time.monotonic() - started
    title = (
        f"{args.game}: {len(records)} of {len(plans)} games, seeds {args.seed}.."
        f"{args.seed + len(plans) // len(lineup) - 1}, {elapsed:.1f} s"
    )
    if records or failed_run is None:
        console.print(results_table(lineup, records, title))
    if args.out:
        config = {
            "game": args.game,
            "bots": [{"name": spec.name, "command": spec.command} for spec in lineup],
            "games": total,
            "concurrency": args.concurrency,
            "seed": args.seed,
            "server": args.server or "embedded",
            "move_time": args.move_time,
            "time_bank": args.time_bank,
            "forfeit_on_timeout": args.forfeit_on_timeout,
            "max_illegal_moves": args.max_illegal_moves,
            "max_stand_ins": args.max_stand_ins,
            "join_timeout": args.join_timeout,
        }
        document = results_document(
            config,
            lineup,
            records,
            planned_games=len(plans),
            interrupted=interrupted,
            seed_key=seed_key,
            failed_run=None
            if failed_run is None
            else {
                "bot": failed_run.bot,
                "game": failed_run.game,
                "seat": failed_run.seat,
                "failure": failed_run.failure,
            },
        )
        path = args.out / "results.json"
        path.write_text(json.dumps(document, indent=2) + "\n")
        console.print(f"Results in {path}; replays and bot stderr in {args.out / 'games'}")
        index = write_index(args.out, lineup, records, title=f"botarena match · {title}")
        console.print(
            f"Watch the games: {index.resolve().as_uri()}", highlight=False, soft_wrap=True
        )
    if failed_run is not None:
        # Last, so it is what the user sees: the run stopped because of this bot.
        console.print(
            f"[red]botarena match: {failed_run.bot} failed in its first game (game "
            f"{failed_run.game}, seat {failed_run.seat}): {failed_run.failure}. "
            "The run stopped.",
            highlight=False,
        )
        if failed_run.stderr_tail:
            console.print(f"Last lines of {failed_run.bot}'s output:")
            _print_tail(console, failed_run.stderr_tail)
        else:
            console.print(f"{failed_run.bot} wrote nothing to stderr.")
    if interrupted:
        return _EXIT_INTERRUPTED
    return _EXIT_FAILED if failures else _EXIT_OK
