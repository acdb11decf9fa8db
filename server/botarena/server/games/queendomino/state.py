"""Queendomino's configuration, supply limits and match state (RULES.md 1, 2, 3).

The state is an immutable value: ``apply`` returns a new one and never changes its input.
Everything in it is public except the *order* of the domino deck and of the building
draw pile (RULES.md 2.1, 2.2); only
:meth:`~botarena.server.games.queendomino.rules.QueendominoRules.view` turns a state into
what a seat may see, which tells how many remain and nothing else.

>>> state = QueendominoState.from_position(seats=3)
>>> state.round, state.turn.seat, state.turn.step, state.knights_in_supply
(1, 0, <Step.PLACE: 'place'>, 19)
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import NamedTuple

from botarena.server.games._core import Seat
from botarena.server.games.queendomino.components import Building, Domino
from botarena.server.games.queendomino.data import BuildingTable, load_buildings, load_dominoes
from botarena.server.games.queendomino.kingdom import DominoPlacement, Kingdom
from botarena.server.games.queendomino.moves import BOARD_PRICES, Step
from botarena.server.games.queendomino.views import LineSlot, PlayerState, TurnView

__all__ = [
    "COMPLETED",
    "KNIGHT_SUPPLY",
    "LINE_SIZE",
    "ROUNDS",
    "START_COINS",
    "START_KNIGHTS",
    "TOWER_SUPPLY",
    "QueendominoConfig",
    "QueendominoState",
    "starting_player",
]

ROUNDS = 12
"""Rounds of a game after the setup choice, whatever the seat count (RULES.md 3)."""
LINE_SIZE = 4
"""Dominoes per line, whatever the seat count (RULES.md 9)."""
KNIGHT_SUPPLY = 22
"""Knights in the box; the starting knights come out of it (RULES.md 1)."""
TOWER_SUPPLY = 15
"""Towers in the box (RULES.md 1)."""
START_COINS = 7
"""Coins each seat starts with (RULES.md 2.5)."""
START_KNIGHTS = 1
"""Unplaced knights each seat starts with (RULES.md 2.5)."""
COMPLETED = "completed"
"""``Outcome.reason`` of a finished game: the twelfth round was played."""


def _shipped_table() -> BuildingTable:
    return load_buildings()


@dataclass(frozen=True, slots=True)
class QueendominoConfig:
    """Match options for Queendomino.

    Attributes:
        buildings: The building tiles in play: the shipped table by default, or an
            operator's own (``load_buildings(path)``), e.g. with the unknown values of the
            shipped file corrected.
        tax_bonus_per_knight: RULES.md 3B **[engine choice]**: ``True`` (the default)
            adds the ongoing coin-per-knight / coin-per-tower bonuses once for every
            knight placed, so two knights in one turn collect them twice; ``False`` adds
            them once per tax step, however many knights it places.
    """

    buildings: BuildingTable = field(default_factory=_shipped_table)
    tax_bonus_per_knight: bool = True


def starting_player(seats: int) -> PlayerState:
    """Return a seat's holdings at setup: an empty kingdom, 7 coins, 1 knight (RULES.md 2).

    Raises:
        ValueError: ``seats`` is not 2, 3 or 4.
    """
    return PlayerState(Kingdom.for_seats(seats), START_COINS, START_KNIGHTS, (), 0)


class QueendominoState(NamedTuple):
    """A Queendomino match in progress or finished. Build it with ``QUEENDOMINO.new_match``.

    A named tuple like ``QwixxState``: immutable, hashable and cheap to copy with
    ``state._replace(field=value)``.

    Attributes:
        config: The match options.
        seed: The match seed; every shuffle derives from it and ``draws``.
        draws: How many random numbers the match has used (all of them at setup).
        players: Every seat's holdings, by seat.
        round: 0 during the setup choice (RULES.md 2.9), then 1..12 (RULES.md 3).
        current_line: The line placed this round, sorted by number; its kings act in
            this order. A slot is ``done`` once its turn is over. Empty in round 0.
        next_line: The line the kings choose from (in round 0 the first line), sorted by
            number; empty in the final round.
        turn: The turn in progress, or ``None`` once the game is over.
        board: The builders' board by space (``None`` = empty), prices ``BOARD_PRICES``.
        dragon_space: The space the dragon burned this round, ``None`` while in its cave.
        queen: The seat hosting the queen, or ``None``.
        deck: The face-down dominoes, top first (hidden order).
        pile: The face-down building draw pile, top first (hidden order).
        removed: Numbers of the dominoes out of the game, in the order they left.
        setup_order: The order in which the kings choose in round 0 (RULES.md 2.9): a
            seat appears once per king.
    """

    config: QueendominoConfig
    seed: int
    draws: int
    players: tuple[PlayerState, ...]
    round: int
    current_line: tuple[LineSlot, ...]
    next_line: tuple[LineSlot, ...]
    turn: TurnView | None
    board: tuple[Building | None, ...]
    dragon_space: int | None
    queen: Seat | None
    deck: tuple[Domino, ...]
    pile: tuple[Building, ...]
    removed: tuple[int, ...]
    setup_order: tuple[Seat, ...]

    @property
    def seats(self) -> int:
        """The number of seats."""
        return len(self.players)

    @property
    def is_over(self) -> bool:
        """Whether the game has ended."""
        return self.turn is None

    @property
    def final_round(self) -> bool:
        """Whether this is the last round, the one without step E (RULES.md 3E, 5)."""
        return self.round >= ROUNDS

    @property
    def knights_in_supply(self) -> int:
        """Knights left in the general supply (RULES.md 1: 22, capped)."""
        owned = sum(player.knights + len(player.knight_cells) for player in self.players)
        return KNIGHT_SUPPLY - owned

    @property
    def towers_in_supply(self) -> int:
        """Towers left in the general supply (RULES.md 1: 15, capped)."""
        return TOWER_SUPPLY - sum(player.towers for player in self.players)

    @classmethod
    def from_position(
        cls,
        *,
        seats: int = 2,
        players: Sequence[PlayerState] | None = None,
        round: int = 1,
        current_line: Sequence[LineSlot] | None = None,
        next_line: Sequence[LineSlot] | None = None,
        step: Step = Step.PLACE,
        placement: DominoPlacement | None = None,
        board: Sequence[Building | None] | None = None,
        dragon_space: int | None = None,
        queen: Seat | None = None,
        deck: Sequence[Domino] = (),
        pile: Sequence[Building] = (),
        removed: Sequence[int] = (),
        setup_order: Sequence[Seat] | None = None,
        config: QueendominoConfig | None = None,
        seed: int = 0,
    ) -> QueendominoState:
        """Return a state for an arbitrary position, for tests, puzzles and analysis.

        Defaults: fresh players (RULES.md 2.5); a current line of the dominoes 1, 2, ...
        carrying the seats' kings in seat order, one domino per king (round >= 1); a next
        line of 5..8 without kings (none in round 12); the table's first six buildings on
        the board.

        The turn is derived as the engine does: in round 0 the next king of
        ``setup_order`` (default: seat order, one king per seat, two for 2 seats) chooses;
        later, the king on the first slot of ``current_line`` that is not ``done`` takes
        ``step`` with ``placement`` (the domino's placement this turn, if placed).

        Raises:
            ValueError: No turn is left in the position (every slot done, every king
                placed), or the seat count is not 2 to 4.
        """
        config = config or QueendominoConfig()
        if players is None:
            players = (starting_player(seats),) * seats
        seats = len(players)
        dominoes = load_dominoes()
        kings = tuple(seat for seat in range(seats) for _ in range(2 if seats == 2 else 1))
        if current_line is None:
            current_line = () if round == 0 else _line(dominoes[: len(kings)], kings)
        if next_line is None:
            next_line = () if round >= ROUNDS else _line(dominoes[4:8], ())
        if board is None:
            board = config.buildings.buildings[: len(BOARD_PRICES)]
        order = tuple(setup_order) if setup_order is not None else kings
        turn: TurnView | None
        if round == 0:
            placed = sum(slot.king is not None for slot in next_line)
            if placed >= len(order):
                raise ValueError("every king has chosen; round 0 is over")
            turn = TurnView(order[placed], Step.CHOOSE, None, None)
        else:
            slot = next((slot for slot in current_line if not slot.done), None)
            if slot is None or slot.king is None:
                raise ValueError("the current line has no king left to act")
            turn = TurnView(slot.king, step, slot.domino, placement)
        return cls(
            config=config,
            seed=seed,
            draws=0,
            players=tuple(players),
            round=round,
            current_line=tuple(current_line),
            next_line=tuple(next_line),
            turn=turn,
            board=tuple(board),
            dragon_space=dragon_space,
            queen=queen,
            deck=tuple(deck),
            pile=tuple(pile),
            removed=tuple(removed),
            setup_order=order,
        )


def _line(dominoes: Sequence[Domino], kings: Sequence[Seat]) -> tuple[LineSlot, ...]:
    """Slots for ``dominoes``; the i-th carries the i-th king of ``kings`` if any."""
    return tuple(
        LineSlot(domino, kings[index] if index < len(kings) else None)
        for index, domino in enumerate(dominoes)
    )
