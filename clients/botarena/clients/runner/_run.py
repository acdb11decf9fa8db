"""``botarena match``: play many seeded games between bots and report the results.

The run plans every game up front (seed labels x groups of bots x seat rotations, engine
seeds from the run's secret key, see ``_plan``), plays them ``--concurrency`` at a time on
embedded servers in worker processes that also play the built-in bots (or on ``--server``;
``_workers``), shows a progress bar with running standings (and the SPRT's LLR with
``--sprt``, which stops the run once it decides), and writes under ``--out`` each game's
result as soon as it ends, its replay and each bot's stderr, then ``results.json``
(``_folder``). ``--resume`` continues a run that was cut short. Ctrl-C stops the run: bot
processes are killed and what finished is still reported and written. With ``--queue
URL`` the games are played by ``botarena worker`` processes on any machines instead, and
the run follows their results (``_queue_run``).

A bot that cannot start, or is gone before the end of its first game, fails the run: the
other games are cancelled, their bots killed, the bot's last stderr lines printed, and
the exit status is 1. Later crashes cost their game (the seat is resigned at once) and
are printed with the same tail.
"""

from __future__ import annotations

import argparse
import asyncio
import functools
import json
import os
import sys
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

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
from botarena.clients._errors import BotarenaError, TlsError
from botarena.clients._retry import RetryPolicy, call_with_retry
from botarena.clients._target import add_server_arguments, server_target
from botarena.clients.runner import _folder
from botarena.clients.runner._pages import write_index
from botarena.clients.runner._plan import (
    BotSpec,
    GamePlan,
    SeedKey,
    new_seed_key,
    parse_bot_spec,
    plan_games,
    plan_groups,
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
from botarena.clients.runner._records import GameRecord
from botarena.clients.runner._results import results_document, results_table
from botarena.clients.runner._samples import PairTally
from botarena.clients.runner._sprt import Sprt, SprtStatus
from botarena.clients.runner._tables import cross_table, endings_table, versus_table
from botarena.clients.runner._workers import EmbeddedServerExitedError, Workers, worker_count
from botarena.server.service import operator_options
from botarena.server.text import printable, printable_markup

__all__ = ["BuiltinBot", "add_match_arguments", "run_match"]

_EXIT_OK = 0
_EXIT_FAILED = 1
_EXIT_INTERRUPTED = 130

_DEFAULT_GAMES = 20
_DEFAULT_SPRT_GAMES = 20_000

_PROBE = RetryPolicy(max_attempts=4, max_elapsed=5.0)
"""How long the run waits for a ``--server`` to answer before it starts nothing."""

_PLAN_SCHEMA_VERSION = 1
_PLAN_OPTIONS = (
    "game",
    "bots",
    "seats",
    "gauntlet",
    "round_robin",
    "games",
    "seed",
    "seed_key",
    "sprt",
    "alpha",
    "beta",
    "move_time",
    "time_bank",
    "forfeit_on_timeout",
    "max_illegal_moves",
    "max_stand_ins",
    "join_timeout",
)
"""The options that define a run's games (``plan.json``): ``--resume`` continues a run
only with the same ones (the operator options' files too)."""


def _builtin_help(builtin: Mapping[str, BuiltinBot]) -> str:
    if not builtin:
        return "random, greedy, heuristic"
    listed = []
    for name, bot in builtin.items():
        games = [game for game in GAMES if bot.plays(game)]
        where = "every game" if len(games) == len(GAMES) else ", ".join(games)
        listed.append(f"{name} ({where})")
    return ", ".join(listed)


def _elo_bounds(text: str) -> tuple[float, float]:
    try:
        low, high = (float(part) for part in text.split(","))
    except ValueError:
        raise argparse.ArgumentTypeError(f"not ELO0,ELO1: {text!r}") from None
    return low, high


def add_match_arguments(
    parser: argparse.ArgumentParser, builtin: Mapping[str, BuiltinBot] | None = None
) -> None:
    """Add the options of ``botarena match`` to ``parser``; ``builtin`` (the built-in
    bots by name) are listed in the help of ``--bot``."""
    parser.add_argument("--game", choices=sorted(GAMES), default=next(iter(GAMES)), help="the game")
    parser.add_argument(
        "--bot",
        action="append",
        dest="bots",
        metavar="BOT",
        help=f"a built-in bot ({_builtin_help(builtin or {})}), NAME=COMMAND or COMMAND; "
        "given 2 or more times (one per seat unless --seats)",
    )
    parser.add_argument(
        "--games",
        type=int,
        help=f"games per group of bots that meet, rounded up to whole seat rotations "
        f"(default {_DEFAULT_GAMES}; with --sprt the most to play, {_DEFAULT_SPRT_GAMES})",
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
    formats = parser.add_argument_group(
        "formats", "Without these, the --bots fill the seats of every game."
    )
    formats.add_argument(
        "--seats",
        type=int,
        metavar="N",
        help="seats per game (default: one per --bot; 2 with --gauntlet or --round-robin); "
        "with more bots than seats, every group of N bots meets (a round-robin)",
    )
    exclusive = formats.add_mutually_exclusive_group()
    exclusive.add_argument(
        "--gauntlet",
        metavar="NAME",
        help="NAME against the others: every group of NAME and N-1 others meets",
    )
    exclusive.add_argument(
        "--round-robin",
        action="store_true",
        help="every pair of bots (every group of N with --seats N) meets; a cross table",
    )
    sprt = parser.add_argument_group(
        "SPRT",
        "A sequential test of the first --bot against the second (two bots, two seats): "
        "pairs of games on one seed with the seats swapped, logistic Elo, pentanomial; "
        "the run stops once it accepts H0 (ELO0) or H1 (ELO1).",
    )
    sprt.add_argument("--sprt", type=_elo_bounds, metavar="ELO0,ELO1", help="the hypotheses")
    sprt.add_argument("--alpha", type=float, default=0.05, help="the false-H1 rate")
    sprt.add_argument("--beta", type=float, default=0.05, help="the false-H0 rate")
    output = parser.add_argument_group("output")
    output.add_argument(
        "--out",
        type=Path,
        help="folder for each game's result, replay and bot stderr, and results.json; "
        "a folder that holds a run is refused without --resume or --force",
    )
    again = output.add_mutually_exclusive_group()
    again.add_argument(
        "--resume",
        action="store_true",
        help="continue the run in --out: its finished games are kept, the others played; "
        "the same options, or none but --out",
    )
    again.add_argument(
        "--force", action="store_true", help="start the run in --out over, removing it"
    )
    output.add_argument(
        "--show-stderr",
        action="append",
        default=[],
        metavar="NAME",
        help="show the output of command bot NAME as it comes (may be repeated)",
    )
    output.add_argument("--quiet", action="store_true", help="no progress bar")
    queue = parser.add_argument_group(
        "queue",
        "Runs across machines: the run's game sets go to a PostgreSQL database, and "
        "`botarena worker --queue URL` processes on any machines play them; this command "
        "follows the results. Ctrl-C leaves the run queued.",
    )
    queue.add_argument(
        "--queue",
        metavar="URL",
        help="the queue's database, postgresql://USER@HOST/DB (a password is better kept "
        "in ~/.pgpass or $PGPASSWORD)",
    )
    queue.add_argument(
        "--run",
        metavar="ID",
        help="follow the queued run ID again (its options are the stored ones)",
    )
    add_server_arguments(
        parser,
        default=None,
        help_text="a running server, HOST:PORT or botarena+tls://HOST:PORT[?ca=PATH], "
        "handed to command bots as is (default: an embedded server)",
    )
    parser.add_argument("--admin-token", help="the server's admin token, if it has one")
    clocks = parser.add_argument_group("clocks and policies")
    clocks.add_argument("--move-time", type=float, default=5.0, help="seconds per decision")
    clocks.add_argument("--time-bank", type=float, default=0.0, help="seconds of bank per seat")
    clocks.add_argument(
        "--forfeit-on-timeout",
        action="store_true",
        help="a seat that runs out of time forfeits (default: the server plays for it)",
    )
    clocks.add_argument(
        "--max-illegal-moves",
        type=int,
        default=3,
        help="rejections per decision before the timeout policy",
    )
    clocks.add_argument(
        "--max-stand-ins",
        type=int,
        default=3,
        help="stand-in moves in a row after which a seat forfeits as absent",
    )
    clocks.add_argument(
        "--join-timeout",
        type=float,
        default=30.0,
        help="seconds a bot has to start and connect before its seat forfeits as absent",
    )
    clocks.add_argument(
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


def embedded_options(operator_values: Mapping[str, object]) -> dict[str, object]:
    """Return the ``create_server`` options of a run's embedded servers."""
    # The run is the embedded servers' only caller, and --concurrency bounds their
    # matches: the per-caller limits meant for a shared server would only slow them down.
    options: dict[str, object] = {
        "max_finished_matches": 100,
        "max_matches_per_caller": 0,
        "max_creates_per_minute": 0,
    }
    if operator_values:
        # Said in one line by _operator_values, not as the server's log record.
        options["operator_options"] = operator_values
        options["announce_options"] = False
    return options


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
        note = option.summary(values[option.dest]) if option.summary else None
        if note and not args.server:
            print(f"botarena match: warning: {note}", file=sys.stderr)
    return values


class Standings:
    """The running standings shown in the progress line, and the SPRT as games end.

    Kept up to date game by game, in constant time each: a long SPRT run must not
    recompute its statistics over every game each time one ends.
    """

    def __init__(self, lineup: Sequence[BotSpec], sprt: Sprt | None) -> None:
        self.lineup = lineup
        self.sprt = sprt
        self.games = [0] * len(lineup)
        self.wins = [0.0] * len(lineup)
        self.tally = PairTally()
        self.decided: SprtStatus | None = None

    def add(self, record: GameRecord) -> None:
        for seat, index in enumerate(record.plan.lineup_at_seat):
            self.games[index] += 1
            self.wins[index] += record.wins(seat)
        self.tally.add(record)
        if self.sprt is not None and self.decided is None:
            status = self.sprt.status(self.tally.counts)
            self.decided = status if status.decision else None

    def status(self) -> SprtStatus | None:
        """The SPRT when it decided, else where it stands now (None without --sprt)."""
        if self.sprt is None:
            return None
        return self.decided or self.sprt.status(self.tally.counts)

    def text(self) -> str:
        parts = [  # rich markup (the progress bar's column): names escaped
            f"{printable_markup(spec.name)} {100 * wins / games:.0f}%"
            for spec, games, wins in zip(self.lineup, self.games, self.wins, strict=True)
            if games
        ]
        status = self.status()
        if self.sprt is not None and status is not None:
            parts.insert(0, f"LLR {status.llr:+.2f} ({self.sprt.lower:.2f}, {self.sprt.upper:.2f})")
        return "  ".join(parts)


def _print_tail(console: Console, lines: Sequence[str]) -> None:
    for line in lines:
        # Bot output is text, not rich markup, and its escapes are shown, not obeyed.
        console.print(f"  {printable(line)}", markup=False, highlight=False, soft_wrap=True)


def print_crashes(console: Console, lineup: Sequence[BotSpec], record: GameRecord) -> None:
    for seat, index in enumerate(record.plan.lineup_at_seat):
        seat_record = record.seats[seat]
        if seat_record.failure is None:
            continue
        console.print(
            f"[yellow]game {record.plan.number} (seed {record.plan.label}): "
            f"{printable_markup(lineup[index].name)} in seat {seat} "
            f"{printable_markup(seat_record.failure)}",
            highlight=False,
        )
        _print_tail(console, seat_record.stderr_tail)


def _is_first_game(first_game: Mapping[str, int], plan: GamePlan, spec: BotSpec) -> bool:
    return first_game[spec.name] == plan.number


@dataclass(frozen=True, slots=True)
class RunPlan:
    """What ``run_match`` settled before playing: the lineup, the groups, the games."""

    lineup: list[BotSpec]
    seats: int
    groups: list[tuple[int, ...]]
    plans: list[GamePlan]
    seed_key: str
    sprt: Sprt | None
    focus: int | None
    """The gauntlet's bot."""

    @property
    def kind(self) -> str:
        if self.focus is not None:
            return "gauntlet"
        return "round-robin" if len(self.groups) > 1 else "lineup"


class Reporter:
    """The run's progress bar, and what happens as each game ends: the record is kept,
    written under ``--out``, and counted in the standings and the SPRT."""

    def __init__(
        self,
        args: argparse.Namespace,
        run: RunPlan,
        records: list[GameRecord],
        standings: Standings,
        console: Console,
        description: str | None = None,
    ) -> None:
        self._out: Path | None = args.out
        self._records = records
        self._standings = standings
        self._console = console
        self.progress = Progress(
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
        self._task = self.progress.add_task(
            description or args.game,
            total=len(run.plans),
            completed=len(records),
            standings=standings.text(),
        )

    def finished(self, record: GameRecord) -> bool:
        """Keep the record of a game that ended; return True when its game decided the SPRT."""
        self._records.append(record)
        if self._out:
            _folder.write_game(self._out, record)
        undecided = self._standings.decided is None
        self._standings.add(record)
        return undecided and self._standings.decided is not None

    def decided(self, then: str) -> None:
        """Say that the SPRT decided, and ``then`` what the run does."""
        decided = self._standings.decided
        assert decided is not None
        self._console.print(
            f"SPRT: {decided.decision} accepted after {2 * decided.pairs} games "
            f"(LLR {decided.llr:.2f}); {then}",
            highlight=False,
        )

    def advance(self, games: int = 1, description: str | None = None) -> None:
        """Move the bar on by ``games`` (the standings with it)."""
        fields: dict[str, Any] = {"standings": self._standings.text()}
        if description is not None:
            fields["description"] = description
        self.progress.update(self._task, advance=games, **fields)


class _Unreachable(Exception):
    """The ``--server`` does not answer; the message says so in one line."""


async def _reach(client: AsyncMatchClient, target: str) -> None:
    """Return once the server answers a call; fail fast rather than once per game."""
    try:
        await call_with_retry(lambda: client.list_matches(page_size=1), _PROBE)
    except TlsError as error:
        raise _Unreachable(f"botarena match: {error.message}") from None
    except BotarenaError as error:
        raise _Unreachable(
            f"botarena match: cannot use the server at {target} "
            f"(is `botarena serve` running there?): {error}"
        ) from None


async def _play_all(
    args: argparse.Namespace,
    run: RunPlan,
    to_play: list[GamePlan],
    options: GameOptions,
    factories: Mapping[str, Callable[[], Bot]],
    records: list[GameRecord],
    standings: Standings,
    console: Console,
    operator_values: Mapping[str, object],
) -> tuple[int, BotFailedError | None]:
    """Play ``to_play``; return the number of games that failed and a bot that failed the run.

    Each game's record is kept in ``--out`` as soon as it ends; once the SPRT decides,
    no new game starts and those in flight are finished.
    """
    lineup = run.lineup
    failures = 0
    failed_run: BotFailedError | None = None
    # A crash in a bot's first game of the run stops the run; a later one costs its game.
    # (Not "before its first clean game": with many games at once, one rare crash among
    # the first wave would stop a run that is otherwise fine.)
    first_game: dict[str, int] = {}
    for plan in reversed(to_play):
        for index in plan.lineup_at_seat:
            first_game[lineup[index].name] = plan.number
    target = server_target(args)
    server = None if target is None else str(target)  # handed to command bots as is
    count = worker_count(
        args.concurrency,
        embedded=server is None,
        builtin_seats=sum(spec.builtin is not None for spec in lineup),
    )
    async with Workers(
        server,
        count=count,
        factories=factories,
        admin_token=args.admin_token,
        server_options=embedded_options(operator_values),
    ) as pool:
        if server is not None:
            await _reach(pool.places[0].client, server)
        queue: asyncio.Queue[GamePlan] = asyncio.Queue()
        for plan in to_play:
            queue.put_nowait(plan)
        reporter = Reporter(args, run, records, standings, console)
        refused: list[str] = []

        def echo(name: str, line: str) -> None:
            # Bot output is text, not rich markup, and its escapes are shown, not obeyed.
            shown = printable(f"[{name}] {line}")
            console.print(shown, markup=False, highlight=False, soft_wrap=True)

        def finished(record: GameRecord) -> None:
            if reporter.finished(record):
                reporter.decided(f"no new games, {len(to_play) - queue.qsize()} started in all")
                while not queue.empty():
                    queue.get_nowait()

        async def worker() -> None:
            nonlocal failures, failed_run
            while not queue.empty():
                plan = queue.get_nowait()
                try:
                    with pool.lease() as place:
                        record = await play_game(
                            place.client,
                            place.target,
                            plan,
                            lineup,
                            options,
                            place,
                            crash_stops_run=functools.partial(_is_first_game, first_game, plan),
                            echo=echo,
                        )
                except MatchRefusedError as error:
                    # The same refusal awaits every game: report it once and stop.
                    failures += 1
                    if not refused:
                        refused.append(str(error))
                        console.print(
                            f"[red]{printable_markup(str(error))}; stopping the run",
                            highlight=False,
                            soft_wrap=True,
                        )
                    while not queue.empty():
                        queue.get_nowait()
                except BotFailedError as error:
                    # A broken bot would fail every game: stop the run now (gather raises).
                    failures += 1
                    if error.record is not None:
                        finished(error.record)
                    failed_run = failed_run or error
                    raise
                except Exception as error:  # a game lost to the server is reported, not fatal
                    failures += 1
                    console.print(
                        f"[red]game {plan.number} (seed {plan.label}) failed: "
                        f"{printable_markup(str(error))}",
                        highlight=False,
                    )
                else:
                    finished(record)
                    print_crashes(console, lineup, record)
                reporter.advance()

        with reporter.progress:
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
    if len(args.bots or ()) < 2:
        raise SystemExit(
            "botarena match: give at least two --bot (or only --out DIR --resume to continue a run)"
        )
    if (args.games is not None and args.games <= 0) or args.concurrency <= 0:
        raise SystemExit("botarena match: --games and --concurrency must be positive")
    if args.move_time <= 0 or args.join_timeout <= 0:
        raise SystemExit("botarena match: --move-time and --join-timeout must be positive")
    if args.max_stand_ins <= 0:
        raise SystemExit("botarena match: --max-stand-ins must be positive")
    if args.run and not args.queue:
        raise SystemExit("botarena match: --run ID follows a queued run: give --queue URL too")


def _flag(option: str) -> str:
    return "--bot" if option == "bots" else "--" + option.replace("_", "-")


def _plan_options(args: argparse.Namespace) -> dict[str, Any]:
    """Return the options that define the run's games, as JSON values."""
    names = [*_PLAN_OPTIONS, *(option.dest for _, option in operator_options())]
    values = {name: getattr(args, name) for name in names}
    result: dict[str, Any] = json.loads(json.dumps(values, default=str))
    return result


def _open_out(args: argparse.Namespace, console: Console) -> dict[str, Any] | None:
    """Check ``--out`` before anything is written: refuse a folder that holds a run
    unless ``--force`` (it is started over later) or ``--resume`` (its plan is returned).

    Raises:
        SystemExit: The folder cannot be used, in one line.
    """
    if args.out is None:
        if args.resume or args.force:
            raise SystemExit("botarena match: --resume and --force need --out DIR")
        return None
    try:
        if not args.out.is_dir() or not _folder.holds_run(args.out) or args.force:
            if args.resume:
                console.print(f"Nothing to resume in {args.out}: starting the run.")
            return None
        if not args.resume:
            raise _folder.FolderError(
                f"{args.out} already holds a run; add --resume to continue it, or --force "
                "to start it over"
            )
        return _folder.read_plan(args.out)
    except _folder.FolderError as error:
        raise SystemExit(f"botarena match: {error}") from None


def _make_out(out: Path, *, force: bool) -> None:
    """Make the ``--out`` folder, started over with ``force``."""
    try:
        _folder.prepare_folder(out)
    except _folder.FolderError as error:
        raise SystemExit(f"botarena match: {error}") from None
    if force:
        _folder.start_over(out)


def _take_plan(
    args: argparse.Namespace, stored: Mapping[str, Any], queued: str | None = None
) -> None:
    """Continue the stored plan (of the run in ``--out``, or of the ``queued`` run): take
    its options when no --bot is given, else check that the given ones are the same (the
    seed key, if not given, is the stored one).

    Raises:
        SystemExit: The given options differ from the stored ones; the message names them.
    """
    where = f"the queued run {queued}" if queued else f"the run in {args.out}"
    only = f"--queue URL --run {queued}" if queued else f"--out {args.out} --resume"
    options = stored.get("options")
    if stored.get("schema_version") != _PLAN_SCHEMA_VERSION or not isinstance(options, dict):
        raise SystemExit(f"botarena match: the plan of {where} is not a plan")
    paths = {option.dest for _, option in operator_options()}
    if not args.bots:
        for name, value in options.items():
            setattr(args, name, Path(value) if name in paths and value is not None else value)
        if isinstance(args.sprt, list):
            args.sprt = tuple(args.sprt)
        return
    if args.seed_key is None:
        args.seed_key = options.get("seed_key")
    if args.games is None:
        args.games = _DEFAULT_SPRT_GAMES if args.sprt else _DEFAULT_GAMES
    given = _plan_options(args)
    differ = [name for name in given if given[name] != options.get(name)]
    if differ:
        shown = ", ".join(
            f"{_flag(name)} {'(secret)' if name == 'seed_key' else options.get(name)}"
            for name in differ
        )
        raise SystemExit(
            f"botarena match: --resume continues {where} as it was planned "
            f"({shown}); give the same options, or only {only}"
        )


def _settle(args: argparse.Namespace, builtin: Mapping[str, BuiltinBot]) -> RunPlan:
    """Return the run's lineup, groups and games from ``args``.

    Raises:
        SystemExit: Options that do not fit together, in one line.
    """
    try:
        lineup = _lineup(args, builtin)
        names = [spec.name for spec in lineup]
        focus = None
        if args.gauntlet is not None:
            if args.gauntlet not in names:
                raise ValueError(f"--gauntlet {args.gauntlet}: no such bot ({', '.join(names)})")
            focus = names.index(args.gauntlet)
        for name in args.show_stderr:
            spec = lineup[names.index(name)] if name in names else None
            if spec is None or spec.command is None:
                raise ValueError(f"--show-stderr {name}: not a command bot of this run")
        formats = focus is not None or args.round_robin
        seats = args.seats or (2 if formats else len(lineup))
        groups = plan_groups(len(lineup), seats, gauntlet=focus, round_robin=args.round_robin)
        sprt = None
        if args.sprt is not None:
            if len(lineup) != 2 or seats != 2:
                raise ValueError("--sprt tests two bots in two-seat games")
            elo0, elo1 = args.sprt
            sprt = Sprt(elo0, elo1, alpha=args.alpha, beta=args.beta)
    except ValueError as error:
        raise SystemExit(f"botarena match: {error}") from None
    if args.games is None:
        args.games = _DEFAULT_SPRT_GAMES if sprt else _DEFAULT_GAMES
    args.seed_key = args.seed_key or new_seed_key()
    plans = plan_games(seats, args.games, args.seed, SeedKey(args.seed_key, args.game), groups)
    return RunPlan(lineup, seats, groups, plans, args.seed_key, sprt, focus)


def _time_control(args: argparse.Namespace) -> str:
    bank = f", {args.time_bank:g} s bank" if args.time_bank else ", no bank"
    timeout = "forfeits" if args.forfeit_on_timeout else "gets a random stand-in move"
    return (
        f"Time control: {args.move_time:g} s a move{bank}; a timeout {timeout}; "
        f"{args.max_illegal_moves} illegal moves count as a timeout; "
        f"{args.max_stand_ins} stand-ins in a row forfeit"
    )


def _sprt_document(run: RunPlan, status: SprtStatus | None) -> dict[str, Any] | None:
    if run.sprt is None or status is None:
        return None
    return {
        "of": run.lineup[0].name,
        "over": run.lineup[1].name,
        "elo0": run.sprt.elo0,
        "elo1": run.sprt.elo1,
        "alpha": run.sprt.alpha,
        "beta": run.sprt.beta,
        "llr": round(status.llr, 4),
        "lower": round(run.sprt.lower, 4),
        "upper": round(run.sprt.upper, 4),
        "decision": status.decision,
        "games": 2 * status.pairs,
        "model": "logistic Elo, pentanomial pairs",
    }


def _sprt_note(run: RunPlan, standings: Standings) -> str | None:
    status = standings.status()
    if run.sprt is None or status is None:
        return None
    test = run.sprt
    verdict = (
        f"{status.decision} accepted after {2 * status.pairs} games"
        if status.decision
        else f"undecided after {2 * status.pairs} games"
    )
    pairs = "/".join(str(count) for count in standings.tally.counts)
    return (
        f"SPRT {run.lineup[0].name} - {run.lineup[1].name} [{test.elo0:g}, {test.elo1:g}] "
        f"alpha {test.alpha:g} beta {test.beta:g}: {verdict}, LLR {status.llr:.2f} "
        f"({test.lower:.2f}, {test.upper:.2f}); pairs 0/¼/½/¾/1: {pairs}"
    )


def _print_tables(
    console: Console,
    args: argparse.Namespace,
    run: RunPlan,
    records: Sequence[GameRecord],
    standings: Standings,
    title: str,
) -> None:
    """Print the results table, the gauntlet's or the cross table, and the endings."""
    lineup = run.lineup
    notes = [_sprt_note(run, standings), _time_control(args)]
    console.print(results_table(lineup, records, title, [note for note in notes if note]))
    if run.focus is not None:
        console.print(
            versus_table(lineup, records, f"Gauntlet of {lineup[run.focus].name}", run.focus)
        )
    elif len(run.groups) > 1:
        console.print(cross_table(lineup, records, "Cross table (row bot's pairwise %)"))
    if records:
        console.print(endings_table(records))


def _write_results(
    args: argparse.Namespace,
    run: RunPlan,
    records: Sequence[GameRecord],
    standings: Standings,
    interrupted: bool,
    failed_run: BotFailedError | None,
) -> None:
    """Write ``results.json`` in ``--out``."""
    lineup = run.lineup
    config = {
        "game": args.game,
        "bots": [{"name": spec.name, "command": spec.command} for spec in lineup],
        "games": len(run.plans),
        "games_per_group": rounded_game_count(args.games, run.seats),
        "games_asked": args.games,
        "concurrency": args.concurrency,
        "seed": args.seed,
        "server": str(server_target(args) or ("queue" if args.queue else "embedded")),
        "move_time": args.move_time,
        "time_bank": args.time_bank,
        "forfeit_on_timeout": args.forfeit_on_timeout,
        "max_illegal_moves": args.max_illegal_moves,
        "max_stand_ins": args.max_stand_ins,
        "join_timeout": args.join_timeout,
    }
    if args.queue:
        from botarena.clients.runner._queue import redacted

        config["queue"] = {"url": redacted(args.queue), "run": args.run}
    document = results_document(
        config,
        lineup,
        records,
        planned_games=len(run.plans),
        interrupted=interrupted,
        seed_key=run.seed_key,
        failed_run=None
        if failed_run is None
        else {
            "bot": failed_run.bot,
            "game": failed_run.game,
            "seat": failed_run.seat,
            "failure": failed_run.failure,
        },
        run_format={
            "kind": run.kind,
            "seats": run.seats,
            "groups": [[lineup[index].name for index in group] for group in run.groups],
        },
        sprt=_sprt_document(run, standings.status()),
    )
    _folder.write_json(args.out / _folder.RESULTS_FILE, document)


class _QueueFailed(Exception):
    """The queue of a ``--queue`` run failed; the message says how in one line."""


def _check_queued(args: argparse.Namespace) -> None:
    """Refuse the options a queued run cannot have, in one line; a run followed again
    with ``--out`` continues that folder.

    Raises:
        SystemExit: ``--server``, ``--show-stderr`` or an operator file with ``--queue``.
    """
    if args.server:
        raise SystemExit(
            "botarena match: --queue runs are played on each worker's embedded servers, "
            "not on --server"
        )
    if args.show_stderr:
        raise SystemExit(
            "botarena match: --show-stderr shows output where a game is played; with "
            "--queue the bots' stderr is in each game's folder under --out"
        )
    for _, option in operator_options():
        if getattr(args, option.dest) is not None:
            raise SystemExit(
                f"botarena match: {option.flag} configures an embedded server; the workers "
                "of a --queue run play with the shipped tables"
            )
    if args.run and args.out is not None and args.out.is_dir() and _folder.holds_run(args.out):
        args.resume = True


def _queued_plan(url: str, run_id: str) -> dict[str, Any]:
    """Return the stored plan (the options) of the queued run ``run_id``.

    Raises:
        SystemExit: The queue cannot be reached or has no such run, in one line.
    """
    from botarena.clients.runner._queue import QueueError
    from botarena.clients.runner._queue_run import queued_document

    try:
        document = asyncio.run(queued_document(url, run_id))
    except QueueError as error:
        raise SystemExit(f"botarena match: {error}") from None
    return {"schema_version": _PLAN_SCHEMA_VERSION, "options": document.get("options")}


def _follow_queued(
    args: argparse.Namespace,
    run: RunPlan,
    options: GameOptions,
    records: list[GameRecord],
    standings: Standings,
    console: Console,
) -> tuple[int, BotFailedError | None]:
    """Queue the run (or follow ``--run``) until it ends; see ``_queue_run``.

    Raises:
        _QueueFailed: The queue failed.
    """
    from botarena.clients.runner._queue import QueueError
    from botarena.clients.runner._queue_run import follow_queue
    from botarena.clients.runner._queued import first_games, run_document

    plan_options = _plan_options(args)
    document = run_document(
        plan_options,
        run.lineup,
        options,
        first_games(run.lineup, run.plans),
        keep_files=args.out is not None,
    )

    def queued(run_id: str) -> None:
        args.run = run_id
        if args.out:
            # What --out DIR --resume --queue URL needs to follow the run again.
            _folder.write_json(
                args.out / _folder.PLAN_FILE,
                {
                    "schema_version": _PLAN_SCHEMA_VERSION,
                    "options": plan_options,
                    "queue_run": run_id,
                },
            )

    try:
        return asyncio.run(follow_queue(args, run, document, records, standings, console, queued))
    except QueueError as error:
        raise _QueueFailed(
            str(error).strip().splitlines()[0] if str(error).strip() else repr(error)
        ) from None


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
    if args.queue:
        from botarena.clients.runner._queued import require_psycopg

        require_psycopg("botarena match")
        _check_queued(args)
    stored = _open_out(args, console)
    if args.queue and args.run is None and stored is not None:
        args.run = stored.get("queue_run")
        if args.run is None:
            raise SystemExit(
                f"botarena match: the run in {args.out} was not queued; resume it without --queue"
            )
    if args.queue and args.run:
        _take_plan(args, _queued_plan(args.queue, args.run), queued=args.run)
    elif stored is not None:
        _take_plan(args, stored)
    _validate(args)
    try:
        server_target(args)  # a bad --server or TLS file stops the run before it starts
    except ValueError as error:
        raise SystemExit(f"botarena match: {error}") from None
    operator_values = _operator_values(args)
    run = _settle(args, builtin)
    lineup, plans = run.lineup, run.plans
    if args.out:
        _make_out(args.out, force=args.force)
    per_group = rounded_game_count(args.games, run.seats)
    if per_group != args.games:
        console.print(
            f"Playing {per_group} games, not {args.games}: each seed is played in all "
            f"{run.seats} seat rotations."
        )
    if len(run.groups) > 1:
        console.print(
            f"{run.kind.capitalize()}: {len(run.groups)} groups of {run.seats} bots, "
            f"{per_group} games each, {len(plans)} in all."
        )
    records: list[GameRecord] = []
    if args.out and not args.queue:  # a queued run's folder is written from the queue
        if stored is not None:
            records = _folder.finished_games(args.out, plans)
            console.print(f"Resuming {args.out}: {len(records)} of {len(plans)} games finished.")
        # Written before any game: a run cut short at once can still be resumed.
        _folder.write_json(
            args.out / _folder.PLAN_FILE,
            {"schema_version": _PLAN_SCHEMA_VERSION, "options": _plan_options(args)},
        )
    standings = Standings(lineup, run.sprt)
    for record in sorted(records, key=lambda record: record.plan.number):
        standings.add(record)
    done = {record.plan.number for record in records}
    to_play = [] if standings.decided else [plan for plan in plans if plan.number not in done]
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
        show_stderr=frozenset(args.show_stderr),
    )
    interrupted = False
    started = time.monotonic()
    failures = 0
    failed_run: BotFailedError | None = None
    try:
        factories = {name: bot.factory for name, bot in builtin.items()}
        if args.queue:
            failures, failed_run = _follow_queued(args, run, options, records, standings, console)
        elif to_play:
            failures, failed_run = asyncio.run(
                _play_all(
                    args,
                    run,
                    to_play,
                    options,
                    factories,
                    records,
                    standings,
                    console,
                    operator_values,
                )
            )
    except KeyboardInterrupt:
        interrupted = True
        if args.queue:
            console.print(
                f"[yellow]Interrupted: the run stays queued and its workers go on; "
                f"`botarena match --queue URL --run {args.run}` follows it again. "
                "Reporting the games seen.",
                highlight=False,
            )
        else:
            console.print("[yellow]Interrupted: bot processes stopped; reporting finished games.")
    except _QueueFailed as error:
        shown = printable_markup(str(error))
        console.print(f"[red]botarena match: {shown}", highlight=False, soft_wrap=True)
        return _EXIT_FAILED
    except _Unreachable as error:
        console.print(printable(str(error)), markup=False, highlight=False, soft_wrap=True)
        return _EXIT_FAILED
    except EmbeddedServerExitedError as error:
        failures += 1
        shown = printable_markup(str(error))
        console.print(f"[red]botarena match: {shown}; the run stopped.", highlight=False)
    elapsed = time.monotonic() - started
    title = (
        f"{args.game}: {len(records)} of {len(plans)} games, seeds {args.seed}.."
        f"{plans[-1].label}, {elapsed:.1f} s"
    )
    if records or failed_run is None:
        _print_tables(console, args, run, records, standings, title)
    if args.out:
        _write_results(args, run, records, standings, interrupted, failed_run)
        results, games = args.out / _folder.RESULTS_FILE, args.out / "games"
        console.print(f"Results in {results}; replays and bot stderr in {games}")
        index = write_index(args.out, run.lineup, records, title=f"botarena match · {title}")
        console.print(
            f"Watch the games: {index.resolve().as_uri()}", highlight=False, soft_wrap=True
        )
    if failed_run is not None:
        # Last, so it is what the user sees: the run stopped because of this bot.
        bot = printable_markup(failed_run.bot)
        console.print(
            f"[red]botarena match: {bot} failed in its first game (game "
            f"{failed_run.game}, seat {failed_run.seat}): "
            f"{printable_markup(failed_run.failure)}. The run stopped.",
            highlight=False,
        )
        if failed_run.stderr_tail:
            console.print(f"Last lines of {bot}'s output:")
            _print_tail(console, failed_run.stderr_tail)
        else:
            console.print(f"{bot} wrote nothing to stderr.")
    if interrupted:
        return _EXIT_INTERRUPTED
    return _EXIT_FAILED if failures else _EXIT_OK
