"""The vocabulary every rule engine shares: seats, outcomes, errors and the Rules protocol.

An engine is a stateless object implementing :class:`Rules` over its own immutable state,
move and view types. The match layer drives every game through this protocol alone:

* ``to_act(state)`` is a *set* of seats. Qwirkle always answers one seat; Qwixx asks every
  seat at once for its sealed white-dice choice (each seat leaves the set when it has
  submitted, and the choices are applied together when the last one arrives); Queendomino
  asks the same seat several times in a row (place, tax, build, ... then choose).
* ``apply(state, seat, move)`` takes one decision of one seat and returns a new state. It
  never mutates its input, so a search bot can branch from any state.
* ``view(state, seat)`` is the only way hidden information leaves an engine; ``None`` asks
  for the spectator's view.

Engines never do I/O, never log and never read the clock (DESIGN.md: Engines).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Protocol, TypeAlias, TypeVar

__all__ = [
    "GameInfo",
    "GameOverError",
    "IllegalMoveError",
    "NotYourTurnError",
    "Outcome",
    "Rules",
    "Seat",
    "rank_by_score",
]

Seat: TypeAlias = int
"""A seat index, 0-based, in table order (clockwise)."""

ConfigT = TypeVar("ConfigT")
StateT = TypeVar("StateT")
MoveT = TypeVar("MoveT")
ViewT = TypeVar("ViewT", covariant=True)


class IllegalMoveError(ValueError):
    """A move the rules reject.

    Attributes:
        reason: A stable, machine-readable code such as ``"CELL_OCCUPIED"``. Codes are
            part of the public protocol: never rename one.
        message: A sentence a human understands, naming the offending part of the move.
    """

    def __init__(self, reason: str, message: str) -> None:
        super().__init__(f"{reason}: {message}")
        self.reason = reason
        self.message = message


class NotYourTurnError(IllegalMoveError):
    """The seat is not among the seats that must act now."""

    def __init__(self, seat: Seat, to_act: frozenset[Seat]) -> None:
        waiting = ", ".join(str(s) for s in sorted(to_act)) or "nobody"
        super().__init__("NOT_YOUR_TURN", f"seat {seat} may not act now; waiting for {waiting}")
        self.seat = seat


class GameOverError(IllegalMoveError):
    """The match has ended; no move is accepted any more."""

    def __init__(self) -> None:
        super().__init__("GAME_OVER", "the game is over; no more moves are accepted")


@dataclass(frozen=True, slots=True)
class Outcome:
    """The result of a finished match.

    Attributes:
        scores: Final score of every seat, by seat index.
        ranks: Place of every seat, 1 = first. Seats that the game's rules cannot separate
            share a place (two seats tied for first both get 1, the next gets 3).
        reason: Why the match ended, a stable lowercase code of the game
            (``"went_out"``, ``"blocked"``, ...).
    """

    scores: tuple[int, ...]
    ranks: tuple[int, ...]
    reason: str

    @property
    def winners(self) -> frozenset[Seat]:
        """The seats that share first place."""
        return frozenset(seat for seat, rank in enumerate(self.ranks) if rank == 1)


def rank_by_score(keys: Sequence[Sequence[int] | int]) -> tuple[int, ...]:
    """Return competition ranks (1, 1, 3, ...) where a larger key is better.

    A key is a score or a tuple compared lexicographically (score first, then the game's
    tie-breakers). Equal keys share a place.

    >>> rank_by_score([10, 12, 10])
    (2, 1, 2)
    >>> rank_by_score([(5, 2), (5, 3), (5, 3)])
    (3, 1, 1)
    """
    normalised = [tuple(key) if isinstance(key, Sequence) else (key,) for key in keys]
    return tuple(1 + sum(other > key for other in normalised) for key in normalised)


@dataclass(frozen=True, slots=True)
class GameInfo:
    """The static facts of a game, declared once in its package (OpenSpiel's ``GameInfo``).

    Attributes:
        name: The registry name, lowercase (``Rules.name``).
        title: The name people read, capitalised.
        min_seats: The smallest number of seats the game accepts.
        max_seats: The largest number of seats the game accepts.
    """

    name: str
    title: str
    min_seats: int
    max_seats: int


class Rules(Protocol[ConfigT, StateT, MoveT, ViewT]):
    """The engine protocol every game implements (see the module docstring).

    Implementations are stateless and safe to share between threads.
    """

    @property
    def name(self) -> str:
        """The game's registry name, lowercase (``"qwirkle"``)."""
        ...

    @property
    def min_seats(self) -> int:
        """The smallest number of seats the game accepts."""
        ...

    @property
    def max_seats(self) -> int:
        """The largest number of seats the game accepts."""
        ...

    def default_config(self) -> ConfigT:
        """Return the configuration used when a match asks for none."""
        ...

    def new_match(self, config: ConfigT, seats: int, seed: int) -> StateT:
        """Return the initial state of a match; all randomness derives from ``seed``.

        Raises:
            ValueError: ``seats`` is outside ``min_seats..max_seats`` or the config is
                invalid.
        """
        ...

    def to_act(self, state: StateT) -> frozenset[Seat]:
        """Return the seats that owe a decision now; empty once the game is over."""
        ...

    def legal_moves(self, state: StateT, seat: Seat) -> Sequence[MoveT]:
        """Return every legal move of ``seat``, each once, in a deterministic order.

        Empty when the seat is not in ``to_act(state)``.
        """
        ...

    def check(self, state: StateT, seat: Seat, move: MoveT) -> None:
        """Return if ``move`` is legal for ``seat`` now.

        Raises:
            IllegalMoveError: With the reason the move is rejected.
        """
        ...

    def is_legal(self, state: StateT, seat: Seat, move: MoveT) -> bool:
        """Return whether ``check`` would accept the move."""
        ...

    def apply(self, state: StateT, seat: Seat, move: MoveT) -> StateT:
        """Return the state after ``seat`` makes ``move``; ``state`` is left unchanged.

        Raises:
            IllegalMoveError: The move is not legal now (the state is unchanged).
        """
        ...

    def view(self, state: StateT, seat: Seat | None) -> ViewT:
        """Return what ``seat`` may see of ``state`` (``None``: a spectator)."""
        ...

    def outcome(self, state: StateT) -> Outcome | None:
        """Return the result once the game is over, else ``None``."""
        ...
