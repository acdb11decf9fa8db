"""Per-match settings: time control and misbehaviour policies, validated on creation."""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import StrEnum

from botarena.server.match._errors import InvalidRequestError

__all__ = [
    "DEFAULT_JOIN_TIMEOUT",
    "DEFAULT_MAX_ILLEGAL_MOVES",
    "DEFAULT_MAX_STAND_INS_IN_A_ROW",
    "DEFAULT_MOVE_TIME_LIMIT",
    "MatchSettings",
    "Policies",
    "TimeControl",
    "TimeoutPolicy",
]

DEFAULT_MOVE_TIME_LIMIT = 10.0
"""Seconds per decision when a match sets none (match.proto: TimeControl)."""

DEFAULT_MAX_ILLEGAL_MOVES = 3
"""Rejected moves within one decision before the timeout policy applies."""

DEFAULT_MAX_STAND_INS_IN_A_ROW = 3
"""Stand-in moves in a row after which a seat forfeits as absent."""

DEFAULT_JOIN_TIMEOUT = 30.0
"""Seconds every seat has to show up (match.proto: MatchPolicies.join_timeout)."""

_MIN_MOVE_TIME_LIMIT = 0.01
_MAX_MOVE_TIME_LIMIT = 3600.0
_MAX_TIME_BANK = 24 * 3600.0
_MAX_INCREMENT = 3600.0
_MAX_ILLEGAL_MOVES = 100
_MAX_SEAT_NAME = 64


def _check_seconds(field: str, value: float, low: float, high: float) -> None:
    # `not (low <= value <= high)` also rejects NaN.
    if not low <= value <= high:
        raise InvalidRequestError(
            field, f"{value} s is outside {low}..{high} s", reason="INVALID_TIME_CONTROL"
        )


class TimeoutPolicy(StrEnum):
    """What happens when a seat's clock runs out (or it uses up its illegal moves)."""

    FORFEIT = "forfeit"
    """The seat forfeits: no further turns, ranked last."""
    DEFAULT_MOVE = "default_move"
    """The server plays a stand-in move for the seat: never stronger than a weak player
    (``GameHooks.stand_in_move``); ``max_stand_ins_in_a_row`` of them forfeit the seat."""


@dataclass(frozen=True, slots=True)
class TimeControl:
    """The clocks of a match, in seconds (monotonic, measured by the server).

    Attributes:
        move_time_limit: Time for one decision before the time bank is drawn on.
        time_bank: Extra time a seat may spend over the whole match.
        increment: Added to a seat's bank after each decision it made itself.
    """

    move_time_limit: float = DEFAULT_MOVE_TIME_LIMIT
    time_bank: float = 0.0
    increment: float = 0.0

    def __post_init__(self) -> None:
        checks = (
            ("move_time_limit", self.move_time_limit, _MIN_MOVE_TIME_LIMIT, _MAX_MOVE_TIME_LIMIT),
            ("time_bank", self.time_bank, 0.0, _MAX_TIME_BANK),
            ("increment", self.increment, 0.0, _MAX_INCREMENT),
        )
        for name, value, low, high in checks:
            _check_seconds(f"time_control.{name}", value, low, high)


@dataclass(frozen=True, slots=True)
class Policies:
    """How the server treats misbehaving seats.

    Attributes:
        on_timeout: Applied when a seat's clock runs out, and after ``max_illegal_moves``.
        max_illegal_moves: Rejected moves within one decision before ``on_timeout`` applies.
        max_stand_ins_in_a_row: Stand-in moves in a row after which the seat forfeits as
            absent (a bot that does not play never wins through the server's moves).
        join_timeout: Seconds every seat has, from the creation (or a restart), to show
            up with its token; then the absent ones forfeit, and a match nobody joined
            is abandoned.
    """

    on_timeout: TimeoutPolicy = TimeoutPolicy.DEFAULT_MOVE
    max_illegal_moves: int = DEFAULT_MAX_ILLEGAL_MOVES
    max_stand_ins_in_a_row: int = DEFAULT_MAX_STAND_INS_IN_A_ROW
    join_timeout: float = DEFAULT_JOIN_TIMEOUT

    def __post_init__(self) -> None:
        for name, value in (
            ("max_illegal_moves", self.max_illegal_moves),
            ("max_stand_ins_in_a_row", self.max_stand_ins_in_a_row),
        ):
            if not 1 <= value <= _MAX_ILLEGAL_MOVES:
                raise InvalidRequestError(
                    f"policies.{name}", f"{value} is outside 1..{_MAX_ILLEGAL_MOVES}"
                )
        _check_seconds(
            "policies.join_timeout", self.join_timeout, _MIN_MOVE_TIME_LIMIT, _MAX_MOVE_TIME_LIMIT
        )


@dataclass(frozen=True, slots=True)
class MatchSettings:
    """Everything a match is created with, every default filled in.

    Attributes:
        game: The registry name of the game (``botarena.server.games.GAMES``).
        seat_count: Number of seats.
        seed: The seed all the match's randomness derives from.
        game_config: The engine's own configuration object.
        time_control: The clocks.
        policies: The misbehaviour policies.
        seat_names: A display name per seat.
    """

    game: str
    seat_count: int
    seed: int
    game_config: object
    time_control: TimeControl = field(default_factory=TimeControl)
    policies: Policies = field(default_factory=Policies)
    seat_names: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        if len(self.seat_names) > self.seat_count:
            raise InvalidRequestError(
                "seat_names", f"{len(self.seat_names)} names for {self.seat_count} seats"
            )
        for index, name in enumerate(self.seat_names):
            if len(name) > _MAX_SEAT_NAME:
                raise InvalidRequestError(
                    f"seat_names[{index}]", f"longer than {_MAX_SEAT_NAME} characters"
                )
        names = list(self.seat_names)
        names += [f"seat {seat}" for seat in range(len(names), self.seat_count)]
        names = [name or f"seat {seat}" for seat, name in enumerate(names)]
        object.__setattr__(self, "seat_names", tuple(names))
