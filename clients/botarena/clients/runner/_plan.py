"""What a run plays: the lineup of bots and the list of games, seeds and seatings.

Fairness (cutechess-cli's paired openings, for n seats): every seed label is played in
every cyclic rotation of each group of bots that meet, so each bot sits in each seat
equally often with the same deal, and seat order cancels out of the results. The games
of one label and one group (a *set*: a pair of games for two seats) are the statistical
sample of a run (``_samples``).

Formats (:func:`plan_groups`): the whole lineup at one table, a round-robin (every group
of ``seats`` bots), or a gauntlet (one bot against every group of the others). Every
group plays the same labels, so the groups are compared on the same deals.

Secrecy: a label (``--seed``) only names a deal. The engine seed of its matches is
derived from the label and the run's secret key (:class:`SeedKey`), as is every bot's
own seed, so no bot can compute its opponents' racks or the draws from the label; the
same key replays the same run.
"""

from __future__ import annotations

import hashlib
import hmac
import re
import secrets
import shlex
from collections.abc import Collection, Sequence
from dataclasses import dataclass, replace
from itertools import combinations
from pathlib import PurePath

from botarena.server.text import name_problem

__all__ = [
    "BotSpec",
    "GamePlan",
    "SeedKey",
    "new_seed_key",
    "parse_bot_spec",
    "plan_games",
    "plan_groups",
    "rounded_game_count",
]

_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]{0,39}$")


@dataclass(frozen=True, slots=True)
class BotSpec:
    """One entry of the lineup.

    Attributes:
        name: The name shown in tables and files; unique within a run.
        builtin: The built-in bot played in-process, or ``None`` for a command.
        command: The command line started for each game (the bot executable convention,
            docs/bots.md), or ``None`` for a built-in bot.
    """

    name: str
    builtin: str | None = None
    command: tuple[str, ...] | None = None


def new_seed_key() -> str:
    """Return a fresh secret key for a run: 64 hex digits from the OS's secure source."""
    return secrets.token_hex(32)


def _derive(key: str, message: str) -> int:
    digest = hmac.new(key.encode(), message.encode(), hashlib.sha256).digest()
    return int.from_bytes(digest[:8], "big")


@dataclass(frozen=True, slots=True)
class SeedKey:
    """The secret from which a run's engine seeds and bot seeds derive.

    Each seed is the first 8 bytes of HMAC-SHA256(key, message) as a big-endian uint64:
    without the key, a label says nothing about the seeds, and one seed says nothing
    about another (the bots' seeds do not reveal the deal either).

    >>> key = SeedKey("k", "some-game")
    >>> key.engine_seed(7) == SeedKey("k", "some-game").engine_seed(7)
    True
    >>> len({key.engine_seed(7), key.engine_seed(8), SeedKey("other", "some-game").engine_seed(7)})
    3

    Attributes:
        key: The run's secret (``--seed-key``; :func:`new_seed_key` by default).
        game: The game's registry name: the same label deals differently in each game.
    """

    key: str
    game: str

    def engine_seed(self, label: int) -> int:
        """Return the engine seed of the matches of ``label`` (all its seat rotations)."""
        return _derive(self.key, f"{self.game}:{label}")

    def bot_seed(self, label: int, seat: int) -> int:
        """Return the seed handed to the bot in ``seat`` of a match of ``label``."""
        return _derive(self.key, f"{self.game}:{label}:bot:{seat}")


@dataclass(frozen=True, slots=True)
class GamePlan:
    """One game of a run.

    Attributes:
        number: 1-based position in the run; names the game's files.
        label: The human name of the deal (``--seed`` and its successors); every seat
            rotation of a label plays the same deal.
        seed: The match's engine seed, derived from the label and the run's key.
        lineup_at_seat: For each seat, the index of its bot in the lineup.
        bot_seeds: For each seat, the seed handed to its bot (derived from the key too).
    """

    number: int
    label: int
    seed: int
    lineup_at_seat: tuple[int, ...]
    bot_seeds: tuple[int, ...]


def parse_bot_spec(text: str, builtin: Collection[str]) -> BotSpec:
    """Parse a ``--bot`` value: ``BUILTIN``, ``NAME=BUILTIN``, ``NAME=COMMAND`` or ``COMMAND``.

    A bare command is named after its program or script (``python my_bot.py`` is
    ``my_bot``).

    >>> parse_bot_spec("greedy", {"greedy", "random"})
    BotSpec(name='greedy', builtin='greedy', command=None)
    >>> parse_bot_spec("g2=greedy", {"greedy", "random"})
    BotSpec(name='g2', builtin='greedy', command=None)
    >>> parse_bot_spec("mine=python my_bot.py --depth 2", {"greedy"})
    BotSpec(name='mine', builtin=None, command=('python', 'my_bot.py', '--depth', '2'))
    >>> parse_bot_spec("./bots/alpha", {"greedy"}).name
    'alpha'

    Raises:
        ValueError: An empty command, a bad name (one that is not printable text, given
            or taken from the program, is refused), or a single word that is not a
            built-in bot (the message lists the built-in ones).
    """
    name, separator, command_text = text.partition("=")
    # Names reach terminals and files: one holding an escape sequence is refused. Text
    # before '=' with a space or '/' is a command's (its arguments may hold anything).
    looks_named = separator and not any(mark in name for mark in " /")
    if looks_named and (problem := name_problem(name)) is not None:
        raise ValueError(
            f"--bot {text!r}: the name before '=' {problem}; a bot's name is printable "
            "text (letters, digits, '_', '.', '-')"
        )
    if separator and _NAME.match(name.strip()):
        command = tuple(shlex.split(command_text))
        if not command:
            raise ValueError(f"--bot {text!r}: the command after '=' is empty")
        if len(command) == 1 and command[0] in builtin:
            return BotSpec(name.strip(), builtin=command[0])
        return BotSpec(name.strip(), command=command)
    command = tuple(shlex.split(text))
    if not command:
        raise ValueError("--bot needs a built-in bot name or a command")
    if len(command) == 1 and command[0] in builtin:
        return BotSpec(command[0], builtin=command[0])
    if len(command) == 1 and "/" not in command[0]:
        known = ", ".join(sorted(builtin))
        raise ValueError(
            f"--bot {text!r} is not a built-in bot ({known}); give a command such as "
            f"'./my_bot' or 'name=python my_bot.py'"
        )
    program = next((part for part in command[1:] if not part.startswith("-")), command[0])
    if not PurePath(command[0]).name.startswith(("python", "node", "java", "ruby", "perl")):
        program = command[0]
    named = PurePath(program).stem or "bot"
    if (problem := name_problem(named)) is not None:
        raise ValueError(
            f"--bot {text!r}: the name taken from {program!r} {problem}; name the bot: NAME=COMMAND"
        )
    return BotSpec(named, command=command)


def unique_names(specs: Sequence[BotSpec]) -> list[BotSpec]:
    """Return the specs with repeated names made unique (``random``, ``random-2``, ...)."""
    seen: dict[str, int] = {}
    result: list[BotSpec] = []
    for spec in specs:
        count = seen.get(spec.name, 0) + 1
        seen[spec.name] = count
        result.append(spec if count == 1 else replace(spec, name=f"{spec.name}-{count}"))
    return result


def rounded_game_count(games: int, seats: int) -> int:
    """Return ``games`` rounded up to whole sets of seat rotations.

    >>> rounded_game_count(100, 3)
    102
    """
    return -(-games // seats) * seats


def plan_groups(
    bots: int, seats: int, *, gauntlet: int | None = None, round_robin: bool = False
) -> list[tuple[int, ...]]:
    """Return the groups of lineup indices that meet, each in seating order.

    The whole lineup when it fills the seats; a round-robin (every ``seats``-subset of
    the lineup) when asked for or when there are more bots than seats; a gauntlet
    (``gauntlet`` with every ``seats - 1``-subset of the others) when asked for.

    >>> plan_groups(2, 2)
    [(0, 1)]
    >>> plan_groups(3, 2)
    [(0, 1), (0, 2), (1, 2)]
    >>> plan_groups(4, 3, gauntlet=2)
    [(2, 0, 1), (2, 0, 3), (2, 1, 3)]

    Raises:
        ValueError: Fewer than two seats, fewer bots than seats, or a gauntlet bot
            outside the lineup.
    """
    if seats < 2:
        raise ValueError(f"a game needs at least 2 seats, not {seats}")
    if bots < seats:
        raise ValueError(f"{bots} bots cannot fill {seats} seats")
    if gauntlet is not None:
        if not 0 <= gauntlet < bots:
            raise ValueError(f"no bot {gauntlet} in a lineup of {bots}")
        others = [index for index in range(bots) if index != gauntlet]
        return [(gauntlet, *group) for group in combinations(others, seats - 1)]
    if round_robin or bots > seats:
        return list(combinations(range(bots), seats))
    return [tuple(range(bots))]


def plan_games(
    seats: int,
    games: int,
    first_label: int,
    key: SeedKey,
    groups: Sequence[tuple[int, ...]] | None = None,
) -> list[GamePlan]:
    """Return the games of a run: consecutive labels from ``first_label``; each label is
    played by every group in every rotation of its seats, with one engine seed per label
    (``games``, per group, is rounded up to whole rotation sets). A label's games come
    together, so a run cut short has whole labels for every group.

    >>> plans = plan_games(2, 4, 7, SeedKey("k", "some-game"))
    >>> [(plan.label, plan.lineup_at_seat) for plan in plans]
    [(7, (0, 1)), (7, (1, 0)), (8, (0, 1)), (8, (1, 0))]
    >>> plans[0].seed == plans[1].seed != plans[2].seed
    True
    >>> [p.lineup_at_seat for p in plan_games(2, 2, 1, SeedKey("k", "g"), [(0, 1), (0, 2)])]
    [(0, 1), (1, 0), (0, 2), (2, 0)]

    Args:
        seats: Seats per game.
        games: Games per group.
        first_label: The first seed label.
        key: The run's secret key.
        groups: The groups that meet (:func:`plan_groups`); by default the lineup
            ``0 .. seats - 1``.

    Raises:
        ValueError: ``seats`` or ``games`` is not positive, or a group does not fill
            the seats.
    """
    if seats <= 0 or games <= 0:
        raise ValueError(f"need at least one seat and one game, got {seats} and {games}")
    groups = groups or [tuple(range(seats))]
    if any(len(group) != seats for group in groups):
        raise ValueError(f"every group must fill the {seats} seats, got {list(groups)}")
    plans: list[GamePlan] = []
    for round_index in range(rounded_game_count(games, seats) // seats):
        label = first_label + round_index
        seed = key.engine_seed(label)
        bot_seeds = tuple(key.bot_seed(label, seat) for seat in range(seats))
        for group in groups:
            for shift in range(seats):
                lineup = tuple(group[(seat + shift) % seats] for seat in range(seats))
                plans.append(GamePlan(len(plans) + 1, label, seed, lineup, bot_seeds))
    return plans
