"""What one seat (or a spectator) may see of a Qwirkle match (RULES.md: What each seat may see).

A view is the only way hidden information leaves the engine: it holds the board, every
seat's score and rack size, the bag size, whose turn it is, the public history and, for a
seat, its own rack. Never the bag's contents or another seat's rack.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from botarena.server.games._core import Seat
from botarena.server.games.qwirkle.moves import Cell
from botarena.server.games.qwirkle.state import HistoryEntry
from botarena.server.games.qwirkle.tiles import Tile

__all__ = ["QwirkleView"]


@dataclass(frozen=True, slots=True)
class QwirkleView:
    """One seat's (or a spectator's) picture of the match.

    Attributes:
        seat: The seat this view is for, ``None`` for a spectator.
        board: The tiles on the board by cell (read-only).
        rack: The seat's own rack, sorted; ``None`` for a spectator.
        scores: Every seat's score.
        rack_sizes: How many tiles every seat holds.
        bag_size: How many tiles are left in the bag.
        to_act: The seat whose turn it is, ``None`` once the game is over.
        history: The public history: the opening pick, placements with their scores,
            how many tiles each exchange swapped, passes, and the end.
    """

    seat: Seat | None
    board: Mapping[Cell, Tile]
    rack: tuple[Tile, ...] | None
    scores: tuple[int, ...]
    rack_sizes: tuple[int, ...]
    bag_size: int
    to_act: Seat | None
    history: tuple[HistoryEntry, ...]
