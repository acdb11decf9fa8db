"""Qwirkle's configuration, match state and public history.

The state is an immutable value: ``apply`` returns a new one and never changes its input.
It holds hidden information (every rack and the bag); only
:meth:`~botarena.server.games.qwirkle.rules.QwirkleRules.view` may hand parts of it to a
seat. The bag is a multiset kept sorted: a draw picks a uniformly random tile of it
with ``random_below(seed, draws, ...)``, which is the same as drawing from a shuffled bag,
so the bag has no order that could leak and "return the tiles and shuffle" (RULES.md:
A turn, 2) is putting them back.

Besides the readable fields, the state keeps the board as a dict of int cell keys and the
frontier of empty cells next to the board (see ``_board``); both are private and the
frontier takes no part in equality (it follows from the board).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from enum import StrEnum
from types import MappingProxyType
from typing import TypeAlias

from botarena.server.games._core import Seat
from botarena.server.games.qwirkle._board import (
    HALF,
    FrontierInfo,
    cell_of,
    key_of,
    updated_frontier,
)
from botarena.server.games.qwirkle.moves import Cell, Placement
from botarena.server.games.qwirkle.tiles import Tile

__all__ = [
    "EndReason",
    "Exchanged",
    "GameEnded",
    "HistoryEntry",
    "OpeningPicked",
    "Passed",
    "Placed",
    "QwirkleConfig",
    "QwirkleState",
    "opening_size",
]


@dataclass(frozen=True, slots=True)
class QwirkleConfig:
    """Match options for Qwirkle. RULES.md has no *(option)* rulings, so there are none."""


class EndReason(StrEnum):
    """Why a Qwirkle game ended (``Outcome.reason``)."""

    WENT_OUT = "went_out"
    """A seat emptied its rack after the bag was empty (+6 to it)."""
    BLOCKED = "blocked"
    """The bag was empty and every seat in turn had to pass (ruling; no bonus)."""


@dataclass(frozen=True, slots=True)
class OpeningPicked:
    """Who starts (RULES.md: Setup 2-3); always the first history entry.

    Attributes:
        opening_sizes: Each seat's opening size, announced as in the rulebook.
        tied: The seats that shared the largest opening size, ascending.
        starter: The seat that starts: the only tied seat, or a seeded random pick among
            them (ruling).
    """

    opening_sizes: tuple[int, ...]
    tied: tuple[Seat, ...]
    starter: Seat


@dataclass(frozen=True, slots=True)
class Placed:
    """A seat placed tiles and scored ``score`` (without the end bonus)."""

    seat: Seat
    placements: tuple[Placement, ...]
    score: int


@dataclass(frozen=True, slots=True)
class Exchanged:
    """A seat exchanged ``count`` tiles; which ones stays hidden."""

    seat: Seat
    count: int


@dataclass(frozen=True, slots=True)
class Passed:
    """A seat had to pass."""

    seat: Seat


@dataclass(frozen=True, slots=True)
class GameEnded:
    """The game ended; the last history entry of a finished game.

    Attributes:
        reason: Why it ended.
        seat: The seat that went out and earned ``bonus``, or ``None`` when blocked.
        bonus: The end bonus added to that seat's score (6, or 0 when blocked).
    """

    reason: EndReason
    seat: Seat | None
    bonus: int


HistoryEntry: TypeAlias = OpeningPicked | Placed | Exchanged | Passed | GameEnded
"""One public event of a Qwirkle match."""


def opening_size(rack: Iterable[Tile]) -> int:
    """Return the number of distinct tiles of the rack that share one colour or one shape.

    RULES.md: Setup 2; identical tiles count once.

    >>> opening_size([Tile.RED_CIRCLE, Tile.RED_CIRCLE, Tile.RED_SQUARE, Tile.BLUE_CIRCLE])
    2
    """
    distinct = set(rack)
    best = 0
    for attribute in range(6):
        best = max(
            best,
            sum(1 for tile in distinct if tile.colour == attribute),
            sum(1 for tile in distinct if tile.shape == attribute),
        )
    return best


@dataclass(frozen=True, slots=True)
class QwirkleState:
    """A Qwirkle match in progress or finished. Build it with ``QWIRKLE.new_match``.

    Attributes:
        config: The match options.
        seed: The match seed; with ``draws`` it determines every random draw.
        draws: How many random numbers the match has used so far.
        bag: The tiles in the bag, sorted (hidden).
        racks: Each seat's rack, sorted (each hidden from the other seats).
        scores: Each seat's score.
        turn: The seat to act, or ``None`` once the game is over.
        opening_sizes: Each seat's opening size from the initial deal (public).
        passes: How many passes in a row were just made (RULES.md: End, ruling).
        history: The public history, oldest first.
        end_reason: Why the game ended, or ``None`` while it goes on.
    """

    config: QwirkleConfig
    seed: int
    draws: int
    bag: tuple[Tile, ...]
    racks: tuple[tuple[Tile, ...], ...]
    scores: tuple[int, ...]
    turn: Seat | None
    opening_sizes: tuple[int, ...]
    passes: int
    history: tuple[HistoryEntry, ...]
    end_reason: EndReason | None
    _cells: Mapping[int, Tile] = field(repr=False)
    _frontier: Mapping[int, FrontierInfo] = field(repr=False, compare=False)

    def __hash__(self) -> int:
        return hash(
            (
                self.seed,
                self.draws,
                self.bag,
                self.racks,
                self.scores,
                self.turn,
                self.passes,
                self.history,
                frozenset(self._cells.items()),
            )
        )

    @property
    def seats(self) -> int:
        """The number of seats."""
        return len(self.racks)

    @property
    def board(self) -> Mapping[Cell, Tile]:
        """The tiles on the board by cell (a read-only mapping, built on each call)."""
        return MappingProxyType({cell_of(key): tile for key, tile in self._cells.items()})

    @property
    def is_opening(self) -> bool:
        """Whether the next move is the first move of the game (the board is empty)."""
        return not self._cells

    @property
    def is_over(self) -> bool:
        """Whether the game has ended."""
        return self.end_reason is not None

    @classmethod
    def from_position(
        cls,
        *,
        racks: Sequence[Sequence[Tile]],
        board: Mapping[Cell, Tile] | None = None,
        bag: Sequence[Tile] = (),
        scores: Sequence[int] | None = None,
        turn: Seat = 0,
        seed: int = 0,
        draws: int = 0,
        passes: int = 0,
        history: Sequence[HistoryEntry] = (),
        config: QwirkleConfig | None = None,
    ) -> QwirkleState:
        """Return a state for an arbitrary position, for tests, puzzles and analysis.

        Tiles need not add up to the 108 of a real game. The opening sizes are computed
        from ``racks``; when ``board`` is empty, seat ``turn`` is to play the opening.

        Raises:
            ValueError: A board cell is too far out (``|y| >= 512``) or ``turn`` is not a
                seat.
        """
        cells: dict[int, Tile] = {}
        for (x, y), tile in (board or {}).items():
            if abs(y) >= HALF:
                raise ValueError(f"cell ({x}, {y}) is too far from the origin")
            cells[key_of(x, y)] = Tile(tile)
        if not 0 <= turn < len(racks):
            raise ValueError(f"turn {turn} is not a seat of {len(racks)}")
        frozen_racks = tuple(tuple(sorted(Tile(tile) for tile in rack)) for rack in racks)
        return cls(
            config=config or QwirkleConfig(),
            seed=seed,
            draws=draws,
            bag=tuple(sorted(Tile(tile) for tile in bag)),
            racks=frozen_racks,
            scores=tuple(scores) if scores is not None else (0,) * len(racks),
            turn=turn,
            opening_sizes=tuple(opening_size(rack) for rack in frozen_racks),
            passes=passes,
            history=tuple(history),
            end_reason=None,
            _cells=cells,
            _frontier=updated_frontier(cells, {}, cells),
        )
