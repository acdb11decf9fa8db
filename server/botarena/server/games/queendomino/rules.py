"""The Queendomino engine: :class:`QueendominoRules` and its shared instance :data:`QUEENDOMINO`.

It implements the ``Rules`` protocol of ``botarena.server.games._core`` over
``QueendominoConfig``, ``QueendominoState``, ``QueendominoMove`` and ``QueendominoView``.
Every function is pure: states are immutable and every shuffle comes from ``(seed, draws)``.

A turn is a sequence of decisions of one seat (RULES.md 3, :mod:`.moves`): place (A), tax
(B), build (C), bribe the dragon (D), choose (E). An optional step whose only legal move
would be ``Skip`` is passed over without asking; a forced discard is asked for.

>>> from botarena.server.games.queendomino import QUEENDOMINO, Choose
>>> state = QUEENDOMINO.new_match(QUEENDOMINO.default_config(), seats=3, seed=1)
>>> state.round, len(state.next_line), len(QUEENDOMINO.legal_moves(state, state.turn.seat))
(0, 4, 4)
>>> for _ in range(3):
...     seat = state.turn.seat
...     state = QUEENDOMINO.apply(state, seat, QUEENDOMINO.legal_moves(state, seat)[0])
>>> state.round, len(state.current_line), len(state.removed), state.turn.step
(1, 3, 1, <Step.PLACE: 'place'>)
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
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
from botarena.server.games._random import random_below, shuffled
from botarena.server.games.queendomino.components import Building, Domino, OngoingEffect
from botarena.server.games.queendomino.data import load_dominoes
from botarena.server.games.queendomino.errors import QueendominoReason
from botarena.server.games.queendomino.kingdom import Cell, DominoPlacement, Rotation
from botarena.server.games.queendomino.moves import (
    BOARD_PRICES,
    Bribe,
    Build,
    Choose,
    Discard,
    Place,
    QueendominoMove,
    Skip,
    Step,
    Tax,
)
from botarena.server.games.queendomino.scoring import (
    largest_territory_size,
    score_kingdom,
    territories,
)
from botarena.server.games.queendomino.state import (
    COMPLETED,
    LINE_SIZE,
    QueendominoConfig,
    QueendominoState,
    starting_player,
)
from botarena.server.games.queendomino.views import (
    LineSlot,
    PlayerState,
    QueendominoView,
    TurnView,
)

__all__ = ["QUEENDOMINO", "QueendominoRules"]

_SKIP = Skip()
_DISCARD = Discard()
_SPACES = range(len(BOARD_PRICES))
_MAX_KNIGHTS_PER_TAX = 2
"""RULES.md 3B: one knight per square of the domino just placed."""
_STEP_OF: dict[type, Step] = {
    Place: Step.PLACE,
    Discard: Step.PLACE,
    Tax: Step.TAX,
    Build: Step.BUILD,
    Bribe: Step.DRAGON,
    Choose: Step.CHOOSE,
}
_MANDATORY = frozenset((Step.PLACE, Step.CHOOSE))
_AFTER: dict[Step, tuple[Step, ...]] = {
    Step.PLACE: (Step.TAX, Step.BUILD, Step.DRAGON, Step.CHOOSE),
    Step.TAX: (Step.BUILD, Step.DRAGON, Step.CHOOSE),
    Step.BUILD: (Step.DRAGON, Step.CHOOSE),
    Step.DRAGON: (Step.CHOOSE,),
    Step.CHOOSE: (),
}
"""The steps that may follow each step in a turn (RULES.md 3: A to E, in this order)."""


def _reject(reason: QueendominoReason, message: str) -> IllegalMoveError:
    return IllegalMoveError(reason, message)


def _is_int(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _is_cell(value: object) -> bool:
    return isinstance(value, tuple) and len(value) == 2 and _is_int(value[0]) and _is_int(value[1])


def _cell_key(cell: Cell) -> tuple[int, int]:
    return (cell[1], cell[0])


def _price(state: QueendominoState, seat: Seat, space: int) -> int:
    # RULES.md 3C: the queen's host pays 1 less; [engine choice] never below 0.
    discount = 1 if state.queen == seat else 0
    return max(0, BOARD_PRICES[space] - discount)


def _dragon_problem(state: QueendominoState, seat: Seat) -> str | None:
    # RULES.md 3D: once per round for the whole table, never by the queen's host.
    if state.dragon_space is not None:
        return f"the dragon already burned space {state.dragon_space} this round"
    if state.queen == seat:
        return f"seat {seat} hosts the queen and may not bribe the dragon"
    return None


def _draw_line(deck: tuple[Domino, ...]) -> tuple[tuple[LineSlot, ...], tuple[Domino, ...]]:
    # RULES.md 2.8, 4.4: the top 4 dominoes, sorted by number, face up.
    drawn = sorted(deck[:LINE_SIZE], key=lambda domino: domino.number)
    return tuple(LineSlot(domino, None) for domino in drawn), deck[LINE_SIZE:]


def _refill(
    board: Sequence[Building | None], pile: tuple[Building, ...]
) -> tuple[tuple[Building | None, ...], tuple[Building, ...]]:
    """Slide the buildings toward the 0 space and fill the rest from the pile.

    RULES.md 4.2 **[engine choice, inferred]**: the buildings keep their order and close
    the gaps toward space 5 (price 0); the empty expensive spaces are filled from the top
    of the pile, the cheapest empty space first; with the pile empty they stay empty.
    """
    left = [building for building in board if building is not None]
    gaps = len(board) - len(left)
    drawn = pile[:gaps]
    # The first building drawn goes on the cheapest empty space, the last one nearest the pile.
    filled: list[Building | None] = [*reversed(drawn), *left]
    return (None,) * (len(board) - len(filled)) + tuple(filled), pile[gaps:]


def _player_score(state: QueendominoState, seat: Seat, *, final: bool) -> int:
    player = state.players[seat]
    return score_kingdom(
        player.kingdom,
        coins=player.coins,
        towers=player.towers,
        knights=player.knights + len(player.knight_cells),
        hosts_queen=final and state.queen == seat,
    ).total


INFO = GameInfo(name="queendomino", title="Queendomino", min_seats=2, max_seats=4)
"""Queendomino's static facts: 2 to 4 seats (RULES.md: 2-4 players without Kingdomino)."""


class QueendominoRules:
    """The rules of Queendomino (RULES.md), as a stateless engine; use :data:`QUEENDOMINO`."""

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

    def default_config(self) -> QueendominoConfig:
        """Return the default configuration: the shipped buildings, the default readings."""
        return QueendominoConfig()

    # ------------------------------------------------------------------ setup

    def new_match(self, config: QueendominoConfig, seats: int, seed: int) -> QueendominoState:
        """Return a new match in round 0, the setup choice (RULES.md 2).

        The seed shuffles, in this order: the 48 dominoes (the deck), the building pile
        (its top 6 are dealt to the board, the cheapest space first), then the order in
        which the kings choose from the first line: a shuffle of the seats for 3 or 4
        seats; for 2 seats one seat drawn at random, which chooses first and last while
        the other seat places both its kings in between (RULES.md 2.9).

        Raises:
            ValueError: ``seats`` is not 2 to 4, or ``config`` is not a
                ``QueendominoConfig``.
        """
        if not self.min_seats <= seats <= self.max_seats:
            raise ValueError(
                f"Queendomino takes {self.min_seats} to {self.max_seats} seats, not {seats}"
            )
        if not isinstance(config, QueendominoConfig):
            raise ValueError(f"expected a QueendominoConfig, got {type(config).__name__}")
        deck, draws = shuffled(load_dominoes(), seed, 0)
        pile, draws = shuffled(config.buildings.buildings, seed, draws)
        board, pile = _refill((None,) * len(BOARD_PRICES), pile)
        order: tuple[Seat, ...]
        if seats == 2:
            first, draws = random_below(seed, draws, 2)
            order = (first, 1 - first, 1 - first, first)
        else:
            order, draws = shuffled(range(seats), seed, draws)
        first_line, deck = _draw_line(deck)
        return QueendominoState(
            config=config,
            seed=seed,
            draws=draws,
            players=(starting_player(seats),) * seats,
            round=0,
            current_line=(),
            next_line=first_line,
            turn=TurnView(order[0], Step.CHOOSE, None, None),
            board=board,
            dragon_space=None,
            queen=None,
            deck=deck,
            pile=pile,
            removed=(),
            setup_order=order,
        )

    # ------------------------------------------------------------------ queries

    def to_act(self, state: QueendominoState) -> frozenset[Seat]:
        """Return the seat taking the turn, or nobody once the game is over."""
        if state.turn is None:
            return frozenset()
        return frozenset((state.turn.seat,))

    def legal_moves(self, state: QueendominoState, seat: Seat) -> tuple[QueendominoMove, ...]:
        """Return every legal move of ``seat``, each once, in a deterministic order.

        By step: placements by the first half's ``(y, x)`` then rotation, or the single
        ``Discard()`` when the domino fits nowhere; in optional steps ``Skip()`` first,
        then taxes (one knight before two, by cells), builds (by space, then cell) or
        bribes (by space); choices by domino number. Empty when ``seat`` is not to act.
        """
        turn = state.turn
        if turn is None or seat != turn.seat:
            return ()
        step = turn.step
        player = state.players[seat]
        if step is Step.PLACE:
            assert turn.domino is not None  # a turn past round 0 has its domino
            placements = player.kingdom.legal_placements(turn.domino)
            if not placements:
                return (_DISCARD,)
            return tuple(Place(p.cell, p.rotation) for p in placements)
        if step is Step.CHOOSE:
            free = (slot.domino.number for slot in state.next_line if slot.king is None)
            return tuple(Choose(number) for number in free)
        moves: list[QueendominoMove] = [_SKIP]
        if step is Step.TAX:
            assert turn.placement is not None  # TAX is only offered after a placement
            first, second = sorted(turn.placement.cells, key=_cell_key)
            moves += [Tax((first,)), Tax((second,))]
            if player.knights >= _MAX_KNIGHTS_PER_TAX:
                moves.append(Tax((first, second)))
        elif step is Step.BUILD:
            cells = player.kingdom.open_town_squares()
            for space in _SPACES:
                if state.board[space] is not None and _price(state, seat, space) <= player.coins:
                    moves += [Build(space, cell) for cell in cells]
        else:
            moves += [Bribe(space) for space in _SPACES if state.board[space] is not None]
        return tuple(moves)

    def check(self, state: QueendominoState, seat: Seat, move: QueendominoMove) -> None:
        """Return if ``move`` is legal for ``seat`` now.

        The seat comes first, then the move's kind and step (``MALFORMED_MOVE``,
        ``SKIP_NOT_ALLOWED``, ``WRONG_STEP``), then its fields in the order RULES.md 3
        states the step's conditions.

        Raises:
            GameOverError: The game has ended.
            NotYourTurnError: Another seat is taking the turn.
            IllegalMoveError: The move breaks a rule; ``reason`` is a
                :class:`~botarena.server.games.queendomino.errors.QueendominoReason`.
        """
        turn = self._check_seat(state, seat)
        if isinstance(move, Skip):
            if turn.step in _MANDATORY:
                raise _reject(
                    QueendominoReason.SKIP_NOT_ALLOWED,
                    f"the {turn.step} step is mandatory and cannot be skipped",
                )
            return
        move_step = _STEP_OF.get(type(move))
        if move_step is None:
            raise _reject(QueendominoReason.MALFORMED_MOVE, f"{move!r} is not a Queendomino move")
        if move_step is not turn.step:
            problem = _dragon_problem(state, seat) if isinstance(move, Bribe) else None
            if problem is not None:
                # Asked as a bot would: "why can't I bribe?" -- the dragon's own limit.
                raise _reject(QueendominoReason.DRAGON_NOT_AVAILABLE, problem)
            raise _reject(
                QueendominoReason.WRONG_STEP,
                f"{type(move).__name__} belongs to the {move_step} step; "
                f"the {turn.step} step is due",
            )
        if isinstance(move, Place):
            self._check_place(state, turn, move)
        elif isinstance(move, Discard):
            self._check_discard(state, turn)
        elif isinstance(move, Tax):
            self._check_tax(state, turn, move)
        elif isinstance(move, Build):
            self._check_build(state, seat, move)
        elif isinstance(move, Bribe):
            self._check_bribe(state, seat, move)
        else:
            self._check_choose(state, move)

    def is_legal(self, state: QueendominoState, seat: Seat, move: QueendominoMove) -> bool:
        """Return whether :meth:`check` accepts the move."""
        try:
            self.check(state, seat, move)
        except IllegalMoveError:
            return False
        return True

    def view(self, state: QueendominoState, seat: Seat | None) -> QueendominoView:
        """Return what ``seat`` may see of ``state``; ``None`` is a spectator.

        Everything is public but the order of the deck and of the building pile: the view
        holds only their sizes, so every seat and a spectator see the same facts.
        ``scores`` are the live scores (with the queen's crown once the game is over).

        Raises:
            ValueError: ``seat`` is not a seat of this match.
        """
        if seat is not None and not 0 <= seat < state.seats:
            raise ValueError(f"seat {seat} is not a seat of this {state.seats}-seat match")
        final = state.is_over
        return QueendominoView(
            seat=seat,
            round=state.round,
            final_round=state.final_round,
            players=state.players,
            current_line=state.current_line,
            next_line=state.next_line,
            board=state.board,
            dragon_space=state.dragon_space,
            queen=state.queen,
            turn=state.turn,
            deck_left=len(state.deck),
            pile_left=len(state.pile),
            removed=state.removed,
            scores=tuple(_player_score(state, s, final=final) for s in range(state.seats)),
        )

    def outcome(self, state: QueendominoState) -> Outcome | None:
        """Return the result once the game is over, else ``None``.

        RULES.md 5, 7: the queen's host gets her crown on their largest territory; ranks
        go by score, then by the largest territory; seats still tied share the place.
        """
        if not state.is_over:
            return None
        scores = tuple(_player_score(state, s, final=True) for s in range(state.seats))
        largest = [largest_territory_size(player.kingdom) for player in state.players]
        ranks = rank_by_score(list(zip(scores, largest, strict=True)))
        return Outcome(scores, ranks, COMPLETED)

    # ------------------------------------------------------------------ apply

    def apply(self, state: QueendominoState, seat: Seat, move: QueendominoMove) -> QueendominoState:
        """Return the state after ``seat`` makes ``move``; ``state`` is left unchanged.

        The turn then moves to the next step that offers more than ``Skip``; the end of a
        turn, of a round (RULES.md 4) and of the game follow on by themselves.

        Raises:
            GameOverError: The game has ended.
            NotYourTurnError: Another seat is taking the turn.
            IllegalMoveError: The move breaks a rule; ``reason`` is a ``QueendominoReason``.
        """
        self.check(state, seat, move)
        turn = state.turn
        assert turn is not None  # check() raised GameOverError otherwise
        if isinstance(move, Skip):
            return self._next_step(state, turn.step)
        if isinstance(move, Place):
            return self._apply_place(state, seat, turn, move)
        if isinstance(move, Discard):
            assert turn.domino is not None
            state = state._replace(
                removed=(*state.removed, turn.domino.number),
                turn=TurnView(seat, Step.PLACE, turn.domino, None),
            )
            return self._next_step(state, Step.PLACE)
        if isinstance(move, Tax):
            return self._apply_tax(state, seat, move)
        if isinstance(move, Build):
            return self._apply_build(state, seat, move)
        if isinstance(move, Bribe):
            player = state.players[seat]
            board = list(state.board)
            board[move.space] = None
            state = state._replace(
                players=self._with_player(state, seat, replace(player, coins=player.coins - 1)),
                board=tuple(board),
                dragon_space=move.space,
            )
            return self._next_step(state, Step.DRAGON)
        assert isinstance(move, Choose)
        next_line = tuple(
            LineSlot(slot.domino, seat) if slot.domino.number == move.domino else slot
            for slot in state.next_line
        )
        return self._end_turn(state._replace(next_line=next_line))

    @staticmethod
    def _with_player(
        state: QueendominoState, seat: Seat, player: PlayerState
    ) -> tuple[PlayerState, ...]:
        players = list(state.players)
        players[seat] = player
        return tuple(players)

    def _apply_place(
        self, state: QueendominoState, seat: Seat, turn: TurnView, move: Place
    ) -> QueendominoState:
        assert turn.domino is not None
        placement = DominoPlacement(move.cell, Rotation(move.rotation))
        player = state.players[seat]
        kingdom = player.kingdom.place(turn.domino, placement)
        updated = replace(player, kingdom=kingdom)
        state = state._replace(
            players=self._with_player(state, seat, updated),
            turn=TurnView(seat, Step.PLACE, turn.domino, placement),
        )
        return self._next_step(state, Step.PLACE)

    def _apply_tax(self, state: QueendominoState, seat: Seat, move: Tax) -> QueendominoState:
        player = state.players[seat]
        kingdom = player.kingdom
        # RULES.md 3B: each knight collects the size of its square's territory ...
        areas = territories(kingdom)
        coins = sum(next(t.size for t in areas if cell in t.cells) for cell in move.cells)
        # ... plus the ongoing bonuses, once per knight ([engine choice]) or once per tax.
        owned = player.knights + len(player.knight_cells)
        bonus = 0
        for building in kingdom.buildings.values():
            if building.ongoing_effect is OngoingEffect.COIN_PER_KNIGHT:
                bonus += owned
            elif building.ongoing_effect is OngoingEffect.COIN_PER_TOWER:
                bonus += player.towers
        coins += bonus * (len(move.cells) if state.config.tax_bonus_per_knight else 1)
        updated = replace(
            player,
            coins=player.coins + coins,
            knights=player.knights - len(move.cells),
            knight_cells=tuple(sorted((*player.knight_cells, *move.cells), key=_cell_key)),
        )
        state = state._replace(players=self._with_player(state, seat, updated))
        return self._next_step(state, Step.TAX)

    def _apply_build(self, state: QueendominoState, seat: Seat, move: Build) -> QueendominoState:
        building = state.board[move.space]
        assert building is not None
        player = state.players[seat]
        # RULES.md 6 [engine choice]: knights and towers come from a capped supply.
        knights = min(building.knights, state.knights_in_supply)
        towers = min(building.towers, state.towers_in_supply)
        updated = replace(
            player,
            kingdom=player.kingdom.with_building(move.cell, building),
            coins=player.coins - _price(state, seat, move.space),
            knights=player.knights + knights,
            towers=player.towers + towers,
        )
        board = list(state.board)
        board[move.space] = None
        players = self._with_player(state, seat, updated)
        queen = state.queen
        # RULES.md 6: gaining towers to a total >= every other seat's brings the queen.
        if towers > 0 and all(updated.towers >= other.towers for other in players):
            queen = seat
        state = state._replace(players=players, board=tuple(board), queen=queen)
        return self._next_step(state, Step.BUILD)

    # ------------------------------------------------------------------ turn flow

    def _offers(self, state: QueendominoState, seat: Seat, step: Step) -> bool:
        """Whether ``step`` offers ``seat`` a move other than ``Skip`` now."""
        player = state.players[seat]
        if step is Step.TAX:
            # RULES.md 3B: only after a placement (not a discard), with an unplaced knight.
            return (
                state.turn is not None and state.turn.placement is not None and (player.knights > 0)
            )
        if step is Step.BUILD:
            return bool(player.kingdom.open_town_squares()) and any(
                state.board[space] is not None and _price(state, seat, space) <= player.coins
                for space in _SPACES
            )
        if step is Step.DRAGON:
            return (
                _dragon_problem(state, seat) is None
                and player.coins >= 1
                and any(building is not None for building in state.board)
            )
        # RULES.md 3E: no choice in the final round.
        return not state.final_round and any(slot.king is None for slot in state.next_line)

    def _next_step(self, state: QueendominoState, done: Step) -> QueendominoState:
        turn = state.turn
        assert turn is not None
        for step in _AFTER[done]:
            if self._offers(state, turn.seat, step):
                return state._replace(turn=TurnView(turn.seat, step, turn.domino, turn.placement))
        return self._end_turn(state)

    def _end_turn(self, state: QueendominoState) -> QueendominoState:
        if state.round == 0:
            # RULES.md 2.9: the kings choose from the first line in the drawn order.
            chosen = sum(slot.king is not None for slot in state.next_line)
            if chosen < len(state.setup_order):
                seat = state.setup_order[chosen]
                return state._replace(turn=TurnView(seat, Step.CHOOSE, None, None))
            return self._end_round(state)
        # RULES.md 3: the kings act in the order of their dominoes' numbers.
        line = list(state.current_line)
        index = next(i for i, slot in enumerate(line) if not slot.done)
        line[index] = LineSlot(line[index].domino, line[index].king, True)
        state = state._replace(current_line=tuple(line))
        for slot in line[index + 1 :]:
            if slot.king is not None:
                return state._replace(turn=TurnView(slot.king, Step.PLACE, slot.domino, None))
        return self._end_round(state)

    def _end_round(self, state: QueendominoState) -> QueendominoState:
        if state.final_round:
            # RULES.md 5: the game ends after the last round's turns; nothing is tidied up.
            return state._replace(turn=None)
        # RULES.md 4: the dragon goes home, the board slides and refills, the kings' new
        # line becomes the current one (3 seats: its free domino leaves the game), and a
        # new next line is drawn.
        board, pile = _refill(state.board, state.pile)
        current = tuple(slot for slot in state.next_line if slot.king is not None)
        freed = tuple(slot.domino.number for slot in state.next_line if slot.king is None)
        next_line, deck = _draw_line(state.deck)
        first = current[0]
        assert first.king is not None
        return state._replace(
            round=state.round + 1,
            current_line=current,
            next_line=next_line,
            turn=TurnView(first.king, Step.PLACE, first.domino, None),
            board=board,
            dragon_space=None,
            deck=deck,
            pile=pile,
            removed=state.removed + freed,
        )

    # ------------------------------------------------------------------ checks

    def _check_seat(self, state: QueendominoState, seat: Seat) -> TurnView:
        turn = state.turn
        if turn is None:
            raise GameOverError()
        if seat != turn.seat:
            raise NotYourTurnError(seat, self.to_act(state))
        return turn

    def _check_place(self, state: QueendominoState, turn: TurnView, move: Place) -> None:
        rotation = move.rotation
        if not _is_cell(move.cell) or not _is_int(rotation) or rotation not in range(4):
            raise _reject(
                QueendominoReason.MALFORMED_MOVE,
                f"{move!r} names no cell (x, y) and rotation 0..3",
            )
        assert turn.domino is not None
        placement = DominoPlacement(move.cell, Rotation(rotation))
        problem = state.players[turn.seat].kingdom.placement_problem(turn.domino, placement)
        if problem is not None:
            raise _reject(*problem)

    def _check_discard(self, state: QueendominoState, turn: TurnView) -> None:
        assert turn.domino is not None
        placements = state.players[turn.seat].kingdom.legal_placements(turn.domino)
        if placements:
            first = placements[0]
            raise _reject(
                QueendominoReason.DISCARD_NOT_ALLOWED,
                f"domino {turn.domino.number} fits (e.g. at {first.cell} "
                f"{first.rotation.name.lower()}); it must be placed",
            )

    def _check_tax(self, state: QueendominoState, turn: TurnView, move: Tax) -> None:
        cells = move.cells
        if (
            not isinstance(cells, tuple)
            or not 1 <= len(cells) <= _MAX_KNIGHTS_PER_TAX
            or not all(_is_cell(cell) for cell in cells)
        ):
            raise _reject(
                QueendominoReason.MALFORMED_MOVE, f"{move!r} names no 1 or 2 cells (x, y)"
            )
        assert turn.placement is not None  # TAX is only due after a placement
        domino_cells = turn.placement.cells
        if len(set(cells)) != len(cells):
            raise _reject(
                QueendominoReason.KNIGHT_NOT_ON_DOMINO,
                f"one knight per square: {cells[0]} is named twice",
            )
        for cell in cells:
            if cell not in domino_cells:
                raise _reject(
                    QueendominoReason.KNIGHT_NOT_ON_DOMINO,
                    f"{cell} is not a square of the domino just placed "
                    f"({domino_cells[0]}, {domino_cells[1]})",
                )
        knights = state.players[turn.seat].knights
        if len(cells) > knights:
            raise _reject(
                QueendominoReason.NOT_ENOUGH_KNIGHTS,
                f"the tax needs {len(cells)} knights; seat {turn.seat} has {knights} unplaced",
            )

    def _check_space(self, state: QueendominoState, space: object, move: object) -> Building:
        if not _is_int(space):
            raise _reject(QueendominoReason.MALFORMED_MOVE, f"{move!r} names no board space")
        assert isinstance(space, int)
        building = state.board[space] if 0 <= space < len(state.board) else None
        if building is None:
            raise _reject(
                QueendominoReason.BUILDING_NOT_AVAILABLE,
                f"board space {space} holds no building (spaces are 0..{len(BOARD_PRICES) - 1})",
            )
        return building

    def _check_build(self, state: QueendominoState, seat: Seat, move: Build) -> None:
        if not _is_cell(move.cell):
            raise _reject(QueendominoReason.MALFORMED_MOVE, f"{move!r} names no cell (x, y)")
        building = self._check_space(state, move.space, move)
        kingdom = state.players[seat].kingdom
        if move.cell not in kingdom.open_town_squares():
            square = kingdom.square(move.cell)
            what = (
                "a free cell"
                if square is None
                else f"{kingdom.buildings[move.cell].name}"
                if move.cell in kingdom.buildings
                else f"a {square.terrain} square"
            )
            raise _reject(
                QueendominoReason.NOT_AN_OPEN_TOWN_SQUARE,
                f"{move.cell} holds {what}; a building needs an open town square",
            )
        price = _price(state, seat, move.space)
        coins = state.players[seat].coins
        if coins < price:
            raise _reject(
                QueendominoReason.NOT_ENOUGH_COINS,
                f"{building.name} on space {move.space} costs {price}; seat {seat} has {coins}",
            )

    def _check_bribe(self, state: QueendominoState, seat: Seat, move: Bribe) -> None:
        problem = _dragon_problem(state, seat)
        if problem is not None:
            raise _reject(QueendominoReason.DRAGON_NOT_AVAILABLE, problem)
        self._check_space(state, move.space, move)
        if state.players[seat].coins < 1:
            raise _reject(
                QueendominoReason.NOT_ENOUGH_COINS, f"the dragon costs 1 coin; seat {seat} has 0"
            )

    def _check_choose(self, state: QueendominoState, move: Choose) -> None:
        if not _is_int(move.domino):
            raise _reject(QueendominoReason.MALFORMED_MOVE, f"{move!r} names no domino number")
        for slot in state.next_line:
            if slot.domino.number == move.domino:
                if slot.king is None:
                    return
                raise _reject(
                    QueendominoReason.DOMINO_NOT_AVAILABLE,
                    f"domino {move.domino} already carries seat {slot.king}'s king",
                )
        free = ", ".join(str(s.domino.number) for s in state.next_line if s.king is None)
        raise _reject(
            QueendominoReason.DOMINO_NOT_AVAILABLE,
            f"domino {move.domino} is not in the next line (free: {free or 'none'})",
        )


QUEENDOMINO = QueendominoRules()
"""The Queendomino engine."""

if TYPE_CHECKING:
    # mypy proves that the engine satisfies the shared protocol.
    _RULES: Rules[QueendominoConfig, QueendominoState, QueendominoMove, QueendominoView] = (
        QUEENDOMINO
    )
