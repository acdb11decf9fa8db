"""The Qwirkle engine: :class:`QwirkleRules` and its shared instance :data:`QWIRKLE`.

It implements the ``Rules`` protocol of ``botarena.server.games._core`` over
``QwirkleConfig``, ``QwirkleState``, ``QwirkleMove`` and ``QwirkleView``. Every function is
pure: states are immutable and all randomness comes from ``(seed, draws)`` in the state.

>>> from botarena.server.games.qwirkle import QWIRKLE, Place
>>> state = QWIRKLE.new_match(QWIRKLE.default_config(), seats=2, seed=1)
>>> seat = next(iter(QWIRKLE.to_act(state)))
>>> opening = max(QWIRKLE.placements(state, seat), key=lambda move: move.score or 0)
>>> after = QWIRKLE.apply(state, seat, opening)
>>> after.scores[seat] == opening.score
True
"""

from __future__ import annotations

from collections import Counter
from dataclasses import replace
from types import MappingProxyType
from typing import TYPE_CHECKING

from botarena.server.games._core import (
    GameInfo,
    GameOverError,
    IllegalMoveError,
    NotYourTurnError,
    Outcome,
    Rules,
    Seat,
    rank_by_score,
)
from botarena.server.games._random import random_below
from botarena.server.games.qwirkle._board import cell_of, key_of, mask_of, updated_frontier
from botarena.server.games.qwirkle._check import check_place
from botarena.server.games.qwirkle._generate import (
    exchange_moves,
    has_placement,
    opening_moves,
    place_moves,
)
from botarena.server.games.qwirkle.errors import QwirkleReason
from botarena.server.games.qwirkle.moves import Exchange, Pass, Place, Placement, QwirkleMove
from botarena.server.games.qwirkle.state import (
    EndReason,
    Exchanged,
    GameEnded,
    OpeningPicked,
    Passed,
    Placed,
    QwirkleConfig,
    QwirkleState,
    opening_size,
)
from botarena.server.games.qwirkle.tiles import FULL_BAG, Tile
from botarena.server.games.qwirkle.views import QwirkleView

__all__ = ["QWIRKLE", "QwirkleRules"]

RACK_SIZE = 6
WENT_OUT_BONUS = 6
MAX_EXCHANGE = 6


def _draw(bag: list[Tile], seed: int, draws: int, count: int) -> tuple[list[Tile], int]:
    # A uniformly random tile of the (sorted) bag per draw: the same as drawing from a
    # shuffled bag, without an order to keep secret.
    drawn: list[Tile] = []
    for _ in range(count):
        index, draws = random_below(seed, draws, len(bag))
        drawn.append(bag.pop(index))
    return drawn, draws


def _reject(reason: QwirkleReason, message: str) -> IllegalMoveError:
    return IllegalMoveError(reason, message)


INFO = GameInfo(name="qwirkle", title="Qwirkle", min_seats=2, max_seats=4)
"""Qwirkle's static facts: 2 to 4 seats (RULES.md: Components, ruling)."""


class QwirkleRules:
    """The rules of Qwirkle (RULES.md), as a stateless engine; use :data:`QWIRKLE`."""

    __slots__ = ()

    @property
    def info(self) -> GameInfo:
        """The game's static facts (:data:`INFO`)."""
        return INFO

    @property
    def name(self) -> str:
        """The registry name (:data:`INFO`)."""
        return INFO.name

    @property
    def min_seats(self) -> int:
        """The fewest seats (:data:`INFO`)."""
        return INFO.min_seats

    @property
    def max_seats(self) -> int:
        """The most seats (:data:`INFO`)."""
        return INFO.max_seats

    def default_config(self) -> QwirkleConfig:
        """Return the (empty) default configuration."""
        return QwirkleConfig()

    # ------------------------------------------------------------------ setup

    def new_match(self, config: QwirkleConfig, seats: int, seed: int) -> QwirkleState:
        """Return a freshly dealt match: six tiles per seat, the starter picked.

        The starter is the seat with the largest opening size; ties are broken by a
        seeded random pick among the tied seats, recorded as the first history entry
        (RULES.md: Setup 3, ruling).

        Raises:
            ValueError: ``seats`` is not 2, 3 or 4.
        """
        if not self.min_seats <= seats <= self.max_seats:
            raise ValueError(
                f"Qwirkle takes {self.min_seats} to {self.max_seats} seats, not {seats}"
            )
        bag = list(FULL_BAG)
        draws = 0
        racks: list[tuple[Tile, ...]] = []
        for _ in range(seats):
            drawn, draws = _draw(bag, seed, draws, RACK_SIZE)
            racks.append(tuple(sorted(drawn)))
        sizes = tuple(opening_size(rack) for rack in racks)
        best = max(sizes)
        tied = tuple(seat for seat, size in enumerate(sizes) if size == best)
        starter = tied[0]
        if len(tied) > 1:
            index, draws = random_below(seed, draws, len(tied))
            starter = tied[index]
        return QwirkleState(
            config=config,
            seed=seed,
            draws=draws,
            bag=tuple(bag),
            racks=tuple(racks),
            scores=(0,) * seats,
            turn=starter,
            opening_sizes=sizes,
            passes=0,
            history=(OpeningPicked(sizes, tied, starter),),
            end_reason=None,
            _cells={},
            _frontier={},
        )

    # ------------------------------------------------------------------ queries

    def to_act(self, state: QwirkleState) -> frozenset[Seat]:
        """Return the seat whose turn it is, as a set; empty once the game is over."""
        return frozenset() if state.turn is None else frozenset((state.turn,))

    def placements(self, state: QwirkleState, seat: Seat) -> tuple[Place, ...]:
        """Return every legal placement of ``seat``, each once, with its ``score`` set.

        Each ``Place`` is canonical (placements sorted by cell) and appears once whatever
        the order of its tiles. Empty when ``seat`` is not to act.
        """
        if state.turn != seat:
            return ()
        rack = state.racks[seat]
        if state.is_opening:
            return tuple(opening_moves(rack, state.opening_sizes[seat]))
        return tuple(place_moves(state._cells, state._frontier, mask_of(rack)))

    def legal_moves(self, state: QwirkleState, seat: Seat) -> tuple[QwirkleMove, ...]:
        """Return every legal move of ``seat``, each once, in a deterministic order.

        First the placements (see :meth:`placements`), then every distinct exchange (as
        a multiset of the rack, 1 to min(6, bag size) tiles) when the bag is not empty
        and it is not the opening, then ``Pass()`` when it is the only legal move (RULES.md:
        A turn). Empty when ``seat`` is not to act.
        """
        places = self.placements(state, seat)
        if state.turn != seat or state.is_opening:
            return places
        bag_size = len(state.bag)
        if bag_size:
            rack = state.racks[seat]
            return places + exchange_moves(rack, min(MAX_EXCHANGE, len(rack), bag_size))
        return places if places else (Pass(),)

    def check(self, state: QwirkleState, seat: Seat, move: QwirkleMove) -> None:
        """Return if ``move`` is legal for ``seat`` now.

        Raises:
            GameOverError: The game has ended.
            NotYourTurnError: It is not ``seat``'s turn.
            IllegalMoveError: The move breaks a rule; ``reason`` is a ``QwirkleReason``.
        """
        self._check_turn(state, seat)
        if isinstance(move, Place):
            self._check_place(state, seat, move)
        elif isinstance(move, Exchange):
            self._check_exchange(state, seat, move)
        elif isinstance(move, Pass):
            self._check_pass(state, seat)
        else:
            raise _reject(QwirkleReason.MALFORMED_MOVE, f"{move!r} is not a Qwirkle move")

    def is_legal(self, state: QwirkleState, seat: Seat, move: QwirkleMove) -> bool:
        """Return whether :meth:`check` accepts the move."""
        try:
            self.check(state, seat, move)
        except IllegalMoveError:
            return False
        return True

    def score(self, state: QwirkleState, seat: Seat, move: Place) -> int:
        """Return what ``move`` would score for ``seat`` now (without any end bonus).

        Raises:
            GameOverError: The game has ended.
            NotYourTurnError: It is not ``seat``'s turn.
            IllegalMoveError: The placement breaks a rule.
        """
        self._check_turn(state, seat)
        _, points = self._check_place(state, seat, move)
        return points

    def view(self, state: QwirkleState, seat: Seat | None) -> QwirkleView:
        """Return what ``seat`` may see of ``state``; ``None`` is a spectator (no rack).

        Raises:
            ValueError: ``seat`` is not a seat of this match.
        """
        if seat is not None and not 0 <= seat < state.seats:
            raise ValueError(f"seat {seat} is not a seat of this {state.seats}-seat match")
        return QwirkleView(
            seat=seat,
            board=MappingProxyType({cell_of(key): tile for key, tile in state._cells.items()}),
            rack=None if seat is None else state.racks[seat],
            scores=state.scores,
            rack_sizes=tuple(len(rack) for rack in state.racks),
            bag_size=len(state.bag),
            to_act=state.turn,
            history=state.history,
        )

    def outcome(self, state: QwirkleState) -> Outcome | None:
        """Return the result once the game is over, else ``None``.

        Equal totals share a place (RULES.md: End; no tie-break).
        """
        if state.end_reason is None:
            return None
        return Outcome(state.scores, rank_by_score(state.scores), state.end_reason.value)

    # ------------------------------------------------------------------ apply

    def apply(self, state: QwirkleState, seat: Seat, move: QwirkleMove) -> QwirkleState:
        """Return the state after ``seat`` makes ``move``; ``state`` is left unchanged.

        Raises:
            GameOverError: The game has ended.
            NotYourTurnError: It is not ``seat``'s turn.
            IllegalMoveError: The move breaks a rule; ``reason`` is a ``QwirkleReason``.
        """
        self._check_turn(state, seat)
        if isinstance(move, Place):
            return self._apply_place(state, seat, move)
        if isinstance(move, Exchange):
            return self._apply_exchange(state, seat, move)
        if isinstance(move, Pass):
            return self._apply_pass(state, seat)
        raise _reject(QwirkleReason.MALFORMED_MOVE, f"{move!r} is not a Qwirkle move")

    def _apply_place(self, state: QwirkleState, seat: Seat, move: Place) -> QwirkleState:
        placements, points = self._check_place(state, seat, move)
        cells = dict(state._cells)
        keys: list[int] = []
        rack = list(state.racks[seat])
        for x, y, tile in placements:
            key = key_of(x, y)
            cells[key] = tile
            keys.append(key)
            rack.remove(tile)
        frontier = updated_frontier(cells, state._frontier, keys)
        # RULES.md: A turn, 1: refill to six as far as the bag allows.
        bag = list(state.bag)
        drawn, draws = _draw(bag, state.seed, state.draws, min(RACK_SIZE - len(rack), len(bag)))
        new_rack = tuple(sorted(rack + drawn))
        scores = list(state.scores)
        scores[seat] += points
        history = (*state.history, Placed(seat, placements, points))
        turn: Seat | None = (seat + 1) % state.seats
        end_reason = None
        if not new_rack:
            # RULES.md: End: the first seat to empty its rack (the bag being empty) ends
            # the game at once and earns the bonus.
            scores[seat] += WENT_OUT_BONUS
            history = (*history, GameEnded(EndReason.WENT_OUT, seat, WENT_OUT_BONUS))
            turn = None
            end_reason = EndReason.WENT_OUT
        racks = list(state.racks)
        racks[seat] = new_rack
        return replace(
            state,
            draws=draws,
            bag=tuple(bag),
            racks=tuple(racks),
            scores=tuple(scores),
            turn=turn,
            passes=0,
            history=history,
            end_reason=end_reason,
            _cells=cells,
            _frontier=frontier,
        )

    def _apply_exchange(self, state: QwirkleState, seat: Seat, move: Exchange) -> QwirkleState:
        returned = self._check_exchange(state, seat, move)
        rack = list(state.racks[seat])
        for tile in returned:
            rack.remove(tile)
        # RULES.md: A turn, 2: draw first, then put the old tiles back (so they cannot
        # come straight back).
        bag = list(state.bag)
        drawn, draws = _draw(bag, state.seed, state.draws, len(returned))
        racks = list(state.racks)
        racks[seat] = tuple(sorted(rack + drawn))
        return replace(
            state,
            draws=draws,
            bag=tuple(sorted(bag + returned)),
            racks=tuple(racks),
            turn=(seat + 1) % state.seats,
            passes=0,
            history=(*state.history, Exchanged(seat, len(returned))),
        )

    def _apply_pass(self, state: QwirkleState, seat: Seat) -> QwirkleState:
        self._check_pass(state, seat)
        passes = state.passes + 1
        history = (*state.history, Passed(seat))
        if passes < state.seats:
            return replace(state, turn=(seat + 1) % state.seats, passes=passes, history=history)
        # Ruling (seed 001): a full round in which every seat had to pass ends the game,
        # with no bonus.
        return replace(
            state,
            turn=None,
            passes=passes,
            history=(*history, GameEnded(EndReason.BLOCKED, None, 0)),
            end_reason=EndReason.BLOCKED,
        )

    # ------------------------------------------------------------------ checks

    def _check_turn(self, state: QwirkleState, seat: Seat) -> None:
        if state.turn is None:
            raise GameOverError()
        if seat != state.turn:
            raise NotYourTurnError(seat, self.to_act(state))

    def _check_place(
        self, state: QwirkleState, seat: Seat, move: Place
    ) -> tuple[tuple[Placement, ...], int]:
        return check_place(
            state._cells,
            state.racks[seat],
            move.placements,
            state.opening_sizes[seat] if state.is_opening else None,
        )

    def _check_exchange(self, state: QwirkleState, seat: Seat, move: Exchange) -> list[Tile]:
        if state.is_opening:
            raise _reject(
                QwirkleReason.EXCHANGE_NOT_ALLOWED,
                "the first move must place the opening line; no exchange",
            )
        if not state.bag:
            raise _reject(
                QwirkleReason.EXCHANGE_NOT_ALLOWED, "the bag is empty; no exchange is possible"
            )
        tiles: list[Tile] = []
        returned: tuple[object, ...] = move.tiles
        for tile in returned:
            if not isinstance(tile, int) or isinstance(tile, bool) or not 0 <= tile < 36:
                raise _reject(QwirkleReason.MALFORMED_MOVE, f"{tile!r} is not a tile")
            tiles.append(Tile(tile))
        if not tiles:
            raise _reject(QwirkleReason.EMPTY_MOVE, "an exchange needs at least one tile")
        held = Counter(state.racks[seat])
        for tile, count in Counter(tiles).items():
            if count > held[tile]:
                raise _reject(
                    QwirkleReason.TILE_NOT_IN_RACK,
                    f"the rack holds {held[tile]} {tile.label} but the exchange returns {count}",
                )
        if len(tiles) > len(state.bag):
            raise _reject(
                QwirkleReason.EXCHANGE_TOO_LARGE,
                f"the bag holds only {len(state.bag)} tiles; cannot exchange {len(tiles)}",
            )
        return tiles

    def _check_pass(self, state: QwirkleState, seat: Seat) -> None:
        if state.is_opening:
            raise _reject(
                QwirkleReason.PASS_NOT_ALLOWED,
                "the first move must place the opening line; no pass",
            )
        if state.bag:
            raise _reject(
                QwirkleReason.PASS_NOT_ALLOWED,
                f"the bag still holds {len(state.bag)} tiles: place or exchange instead",
            )
        rack = state.racks[seat]
        if has_placement(state._frontier, mask_of(rack)):
            example = place_moves(state._cells, state._frontier, mask_of(rack))[0]
            x, y, tile = example.placements[0]
            raise _reject(
                QwirkleReason.PASS_NOT_ALLOWED,
                f"a placement exists (e.g. {tile.label} at ({x}, {y})); passing is not allowed",
            )


QWIRKLE = QwirkleRules()
"""The Qwirkle engine."""

if TYPE_CHECKING:
    # mypy proves that the engine satisfies the shared protocol.
    _RULES: Rules[QwirkleConfig, QwirkleState, QwirkleMove, QwirkleView] = QWIRKLE
