"""What a seat or a spectator may see of a Queendomino match.

Everything on the table is public (RULES.md 2): kingdoms with their buildings, coins,
knights, towers, the queen and the dragon, the builders' board and the revealed lines.
Hidden from everyone: the order of the domino deck and of the building draw pile; a view
tells only how many remain. Every seat therefore sees the same view; ``seat`` only names
the viewer.
"""

from __future__ import annotations

from dataclasses import dataclass

from botarena.server.games._core import Seat
from botarena.server.games.queendomino.components import Building, Domino
from botarena.server.games.queendomino.kingdom import Cell, DominoPlacement, Kingdom
from botarena.server.games.queendomino.moves import Step

__all__ = ["LineSlot", "PlayerState", "QueendominoView", "TurnView"]


@dataclass(frozen=True, slots=True)
class LineSlot:
    """One domino of a line and the king standing on it.

    Attributes:
        domino: The domino.
        king: The seat whose king stands on it, or ``None`` while it is free.
        done: In the current line: the king's owner has finished the turn for this
            domino. Always ``False`` in the next line.
    """

    domino: Domino
    king: Seat | None
    done: bool = False


@dataclass(frozen=True, slots=True)
class PlayerState:
    """One seat's public holdings.

    Attributes:
        kingdom: The seat's kingdom (squares and buildings).
        coins: Coins held (their value; coins are an unlimited integer, RULES.md 1).
        knights: Unplaced knights, usable for tax.
        knight_cells: The cells where the seat's placed knights stand, sorted by
            ``(y, x)`` (a square holds at most one knight).
        towers: Towers in the seat's kingdom.
    """

    kingdom: Kingdom
    coins: int
    knights: int
    knight_cells: tuple[Cell, ...]
    towers: int


@dataclass(frozen=True, slots=True)
class TurnView:
    """The turn in progress.

    Attributes:
        seat: The seat taking the turn.
        step: The step whose decision is due.
        domino: The domino under the acting king (placed, discarded or still to place);
            ``None`` in round 0, the setup choice (RULES.md 2.9), where kings only choose.
        placement: Where the domino went this turn, once placed (tax targets its cells).
    """

    seat: Seat
    step: Step
    domino: Domino | None
    placement: DominoPlacement | None


@dataclass(frozen=True, slots=True)
class QueendominoView:
    """A seat's or a spectator's view of a Queendomino match.

    Attributes:
        seat: The viewer, or ``None`` for a spectator.
        round: The round being played, 1..12 (RULES.md 3), or 0 during the setup choice
            (RULES.md 2.9: each king in a random order picks a domino of the first line).
        final_round: Whether this round is the last (no step E).
        players: Every seat's holdings, by seat.
        current_line: The line whose dominoes are being placed this round, sorted by
            number; its kings act in this order. Empty in round 0.
        next_line: The line the kings choose from, sorted by number; empty in the final
            round.
        board: The builders' board, one entry per space (``None`` = empty); the price
            of space ``i`` is ``BOARD_PRICES[i]``.
        dragon_space: The board space the dragon burned this round, or ``None`` while it
            is in its cave.
        queen: The seat hosting the queen, or ``None``.
        turn: The turn in progress, or ``None`` once the game is over.
        deck_left: Dominoes left in the face-down deck.
        pile_left: Buildings left in the face-down draw pile.
        removed: Numbers of the dominoes out of the game: the free domino of each line
            in a 3-seat game and every discarded domino, in the order they left.
        scores: Every seat's score if the game ended now (RULES.md 7, without the
            queen's end-game crown until the game is over).
    """

    seat: Seat | None
    round: int
    final_round: bool
    players: tuple[PlayerState, ...]
    current_line: tuple[LineSlot, ...]
    next_line: tuple[LineSlot, ...]
    board: tuple[Building | None, ...]
    dragon_space: int | None
    queen: Seat | None
    turn: TurnView | None
    deck_left: int
    pile_left: int
    removed: tuple[int, ...]
    scores: tuple[int, ...]
