"""What a run plays: the lineup of bots and the list of games, seeds and seatings.

Fairness (cutechess-cli's paired openings, for n seats): every seed is played in every
cyclic rotation of the lineup, so each bot sits in each seat equally often with the same
deal, and seat order cancels out of the results.
"""

from __future__ import annotations

import re
import shlex
from collections.abc import Collection, Sequence
from dataclasses import dataclass, replace
from pathlib import PurePath

__all__ = ["BotSpec", "GamePlan", "parse_bot_spec", "plan_games", "rounded_game_count"]

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


@dataclass(frozen=True, slots=True)
class GamePlan:
    """One game of a run.

    Attributes:
        number: 1-based position in the run; names the game's files.
        seed: The match seed.
        lineup_at_seat: For each seat, the index of its bot in the lineup.
    """

    number: int
    seed: int
    lineup_at_seat: tuple[int, ...]


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
        ValueError: An empty command, a bad name, or a single word that is not a built-in
            bot (the message lists the built-in ones).
    """
    name, separator, command_text = text.partition("=")
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
    if PurePath(command[0]).name.startswith(("python", "node", "java", "ruby", "perl")):
        return BotSpec(PurePath(program).stem or "bot", command=command)
    return BotSpec(PurePath(command[0]).stem or "bot", command=command)


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


def plan_games(seats: int, games: int, first_seed: int) -> list[GamePlan]:
    """Return the games of a run: consecutive seeds from ``first_seed``, each played in
    every rotation of the lineup (``games`` is rounded up to whole rotation sets).

    >>> [(plan.seed, plan.lineup_at_seat) for plan in plan_games(2, 4, 7)]
    [(7, (0, 1)), (7, (1, 0)), (8, (0, 1)), (8, (1, 0))]

    Raises:
        ValueError: ``seats`` or ``games`` is not positive.
    """
    if seats <= 0 or games <= 0:
        raise ValueError(f"need at least one seat and one game, got {seats} and {games}")
    plans: list[GamePlan] = []
    for round_index in range(rounded_game_count(games, seats) // seats):
        for shift in range(seats):
            lineup = tuple((seat + shift) % seats for seat in range(seats))
            plans.append(GamePlan(len(plans) + 1, first_seed + round_index, lineup))
    return plans
