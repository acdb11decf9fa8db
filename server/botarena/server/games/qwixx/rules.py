"""The Qwixx engine: :class:`QwixxRules` and its shared instance :data:`QWIXX`.

It implements the ``Rules`` protocol of ``botarena.server.games._core`` over
``QwixxConfig``, ``QwixxState``, ``QwixxMove`` and ``QwixxView``. Every function is pure:
states are immutable and every die roll comes from ``(seed, draws)`` in the state.

A turn is two decision steps (RULES.md: A turn). In action 1 every seat owes a sealed
choice: ``to_act`` is every seat that has not submitted yet, ``apply`` stores the choice
in the state, and the last submission applies all of them together. Action 2 is one
decision of the active seat; the penalty, the end checks and the next roll follow it.

>>> from botarena.server.games.qwixx import QWIXX, Action, Decline
>>> state = QWIXX.new_match(QWIXX.default_config(), seats=3, seed=1)
>>> state.action, sorted(QWIXX.to_act(state))
(<Action.WHITE_SUM: 1>, [0, 1, 2])
>>> for seat in (0, 1, 2):
...     state = QWIXX.apply(state, seat, Decline())
>>> state.action, QWIXX.to_act(state) == {state.active}
(<Action.COLOUR_SUM: 2>, True)
"""

from __future__ import annotations

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
from botarena.server.games.qwixx.errors import QwixxReason
from botarena.server.games.qwixx.moves import (
    ColourSumChoice,
    Decline,
    MarkColourSum,
    MarkWhiteSum,
    QwixxMove,
    WhiteSumChoice,
)
from botarena.server.games.qwixx.sheet import (
    LAST_NUMBER,
    LOCK_MINIMUM,
    MAX_PENALTIES,
    Colour,
    Sheet,
    position,
)
from botarena.server.games.qwixx.state import (
    Action,
    ColourSumApplied,
    Dice,
    EndReason,
    GameEnded,
    HistoryEntry,
    Penalised,
    QwixxConfig,
    QwixxState,
    Rolled,
    RowLocked,
    StarterPicked,
    WhiteSumsApplied,
)
from botarena.server.games.qwixx.views import QwixxView

__all__ = ["QWIXX", "QwixxRules"]

FACES = 6
LOCKS_TO_END = 2
_COLOURS = tuple(Colour)
_DECLINE = Decline()
# Moves are immutable, so legal_moves hands out shared instances instead of building new
# ones on every call (the benchmark lists moves for every decision).
_WHITE_SUM_MOVES = tuple(tuple(MarkWhiteSum(colour, n) for n in range(13)) for colour in Colour)
_COLOUR_SUM_MOVES = tuple(
    tuple(MarkColourSum(white, colour) for colour in Colour) for white in (0, 1)
)


_POSITIONS = tuple(tuple(position(colour, n) for n in range(13)) for colour in Colour)
"""``position(colour, number)`` as a table, by colour and number."""


def _roll(seed: int, draws: int, locked: frozenset[Colour]) -> tuple[Dice, int]:
    # RULES.md: A turn: the active seat rolls all dice still in play; a removed die is not
    # rolled. One uniform draw below 6**n gives n independent uniform faces as its base-6
    # digits (white 0, white 1, then red, yellow, green, blue): one hash per roll, not six.
    in_play = [colour for colour in _COLOURS if colour not in locked]
    word, draws = random_below(seed, draws, FACES ** (2 + len(in_play)))
    word, white_0 = divmod(word, FACES)
    word, white_1 = divmod(word, FACES)
    faces: list[int | None] = [None, None, None, None]
    for colour in in_play:
        word, face = divmod(word, FACES)
        faces[colour] = face + 1
    return Dice((white_0 + 1, white_1 + 1), (faces[0], faces[1], faces[2], faces[3])), draws


def _mark_problem(
    sheet: Sheet, colour: Colour, number: int, locked: frozenset[Colour]
) -> tuple[QwixxReason, str] | None:
    # RULES.md: Marking, in the order a player would check it.
    if colour in locked:
        return QwixxReason.ROW_LOCKED, f"the {colour.label} row is locked"
    row = sheet.rows[colour]
    places = _POSITIONS[colour]
    if row and places[number] <= places[row[-1]]:
        where = "is already marked" if number in row else "lies left of the right-most mark"
        return (
            QwixxReason.NUMBER_NOT_AVAILABLE,
            f"{colour.label} {number} {where} ({row[-1]}); marks go left to right",
        )
    if number == LAST_NUMBER[colour] and len(row) < LOCK_MINIMUM:
        return (
            QwixxReason.LOCK_NEEDS_FIVE_MARKS,
            f"{colour.label} {number} needs {LOCK_MINIMUM} marks in the row first, "
            f"there are {len(row)}",
        )
    return None


def _can_mark(sheet: Sheet, colour: Colour, number: int, locked: frozenset[Colour]) -> bool:
    # _mark_problem(...) is None, without building messages (legal_moves is hot).
    if colour in locked:
        return False
    row = sheet.rows[colour]
    places = _POSITIONS[colour]
    if row and places[number] <= places[row[-1]]:
        return False
    return number != LAST_NUMBER[colour] or len(row) >= LOCK_MINIMUM


def _reject(reason: QwixxReason, message: str) -> IllegalMoveError:
    return IllegalMoveError(reason, message)


def _is_int(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _close_rows(
    state: QwixxState, lockers: dict[Colour, list[Seat]], history: list[HistoryEntry]
) -> tuple[frozenset[Colour], Dice]:
    # RULES.md: Marking: a lock closes the row for everyone and removes its die at once.
    if not lockers:
        return state.locked_rows, state.dice
    colours = list(state.dice.colours)
    for colour in sorted(lockers):
        colours[colour] = None
        history.append(RowLocked(colour, tuple(lockers[colour])))
    dice = Dice(state.dice.white, (colours[0], colours[1], colours[2], colours[3]))
    return state.locked_rows.union(lockers), dice


INFO = GameInfo(name="qwixx", title="Qwixx", min_seats=2, max_seats=5)
"""Qwixx's static facts: 2 to 5 seats (RULES.md: Components)."""


class QwixxRules:
    """The rules of Qwixx (RULES.md), as a stateless engine; use :data:`QWIXX`."""

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

    def default_config(self) -> QwixxConfig:
        """Return the (empty) default configuration."""
        return QwixxConfig()

    # ------------------------------------------------------------------ setup

    def new_match(self, config: QwixxConfig, seats: int, seed: int) -> QwixxState:
        """Return a new match: empty sheets, the first active seat picked, the dice rolled.

        The first active seat is a seeded random pick, logged as the first history entry
        (RULES.md: A turn, ruling); it rolls at once and action 1 begins.

        Raises:
            ValueError: ``seats`` is not 2 to 5.
        """
        if not self.min_seats <= seats <= self.max_seats:
            raise ValueError(f"Qwixx takes {self.min_seats} to {self.max_seats} seats, not {seats}")
        starter, draws = random_below(seed, 0, seats)
        dice, draws = _roll(seed, draws, frozenset())
        return QwixxState(
            config=config,
            seed=seed,
            draws=draws,
            sheets=(Sheet(),) * seats,
            active=starter,
            action=Action.WHITE_SUM,
            dice=dice,
            locked_rows=frozenset(),
            choices=(None,) * seats,
            marked_white_sum=False,
            history=(StarterPicked(starter), Rolled(starter, dice)),
            end_reason=None,
        )

    # ------------------------------------------------------------------ queries

    def to_act(self, state: QwixxState) -> frozenset[Seat]:
        """Return the seats that owe a decision now; empty once the game is over.

        In action 1, every seat that has not submitted its sealed choice yet; in action 2,
        the active seat.
        """
        if state.action is Action.WHITE_SUM:
            return frozenset(seat for seat, choice in enumerate(state.choices) if choice is None)
        if state.action is Action.COLOUR_SUM:
            return frozenset((state.active,))
        return frozenset()

    def legal_moves(self, state: QwixxState, seat: Seat) -> tuple[QwixxMove, ...]:
        """Return every legal move of ``seat``, each once, in a deterministic order.

        ``Decline()`` first (always legal), then the marks by row colour (red, yellow,
        green, blue) and, in action 2, by white die (0, 1) within a colour. Two moves of
        action 2 mark the same number when the white dice are equal; both are listed, as
        they name different dice. Empty when ``seat`` owes no decision.
        """
        action = state.action
        if action is Action.WHITE_SUM:
            if not 0 <= seat < len(state.choices) or state.choices[seat] is not None:
                return ()
            total = state.dice.white_sum
            locked = state.locked_rows
            moves: list[QwixxMove] = [_DECLINE]
            for colour, row in zip(_COLOURS, state.sheets[seat].rows, strict=True):
                # _can_mark, inlined: legal_moves runs for every decision.
                if colour in locked:
                    continue
                places = _POSITIONS[colour]
                if row and places[total] <= places[row[-1]]:
                    continue
                if total != LAST_NUMBER[colour] or len(row) >= LOCK_MINIMUM:
                    moves.append(_WHITE_SUM_MOVES[colour][total])
            return tuple(moves)
        if action is not Action.COLOUR_SUM or seat != state.active:
            return ()
        sheet = state.sheets[seat]
        white = state.dice.white
        locked = state.locked_rows
        moves = [_DECLINE]
        for colour, die in zip(_COLOURS, state.dice.colours, strict=True):
            if die is None:
                continue
            for index in (0, 1):
                if _can_mark(sheet, colour, white[index] + die, locked):
                    moves.append(_COLOUR_SUM_MOVES[index][colour])
        return tuple(moves)

    def check(self, state: QwixxState, seat: Seat, move: QwixxMove) -> None:
        """Return if ``move`` is legal for ``seat`` now.

        Raises:
            GameOverError: The game has ended.
            NotYourTurnError: ``seat`` owes no decision (action 2 of another seat).
            IllegalMoveError: The move breaks a rule; ``reason`` is a ``QwixxReason``
                (``ALREADY_DECIDED`` for a second action-1 choice of one seat).
        """
        self._check_seat(state, seat)
        if state.action is Action.WHITE_SUM:
            self._check_white_sum(state, seat, move)
        else:
            self._check_colour_sum(state, move)

    def is_legal(self, state: QwixxState, seat: Seat, move: QwixxMove) -> bool:
        """Return whether :meth:`check` accepts the move."""
        try:
            self.check(state, seat, move)
        except IllegalMoveError:
            return False
        return True

    def view(self, state: QwixxState, seat: Seat | None) -> QwixxView:
        """Return what ``seat`` may see of ``state``; ``None`` is a spectator.

        Everything is public except the other seats' sealed action-1 choices; a seat sees
        its own (RULES.md: What each seat may see).

        Raises:
            ValueError: ``seat`` is not a seat of this match.
        """
        if seat is not None and not 0 <= seat < state.seats:
            raise ValueError(f"seat {seat} is not a seat of this {state.seats}-seat match")
        return QwixxView(
            seat=seat,
            sheets=state.sheets,
            scores=state.scores,
            dice=state.dice,
            locked_rows=state.locked_rows,
            active=state.active,
            action=state.action,
            to_act=self.to_act(state),
            own_choice=None if seat is None else state.choices[seat],
            history=state.history,
        )

    def outcome(self, state: QwixxState) -> Outcome | None:
        """Return the result once the game is over, else ``None``.

        Equal totals share a place (RULES.md: Scoring; no tie-break).
        """
        if state.end_reason is None:
            return None
        scores = state.scores
        return Outcome(scores, rank_by_score(scores), state.end_reason.value)

    # ------------------------------------------------------------------ apply

    def apply(self, state: QwixxState, seat: Seat, move: QwixxMove) -> QwixxState:
        """Return the state after ``seat`` makes ``move``; ``state`` is left unchanged.

        In action 1 the choice is sealed into the state; the last seat's choice applies
        all of them together. In action 2 the choice is applied, followed by the penalty,
        the end checks and the next roll.

        Raises:
            GameOverError: The game has ended.
            NotYourTurnError: ``seat`` owes no decision (action 2 of another seat).
            IllegalMoveError: The move breaks a rule; ``reason`` is a ``QwixxReason``.
        """
        self._check_seat(state, seat)
        if state.action is Action.WHITE_SUM:
            choice = self._check_white_sum(state, seat, move)
            choices = list(state.choices)
            choices[seat] = choice
            if None in choices:
                # The hot path (most decisions): built directly, as _replace costs
                # more than the rest of apply together (bench/bench_qwixx.py).
                return QwixxState(
                    state.config,
                    state.seed,
                    state.draws,
                    state.sheets,
                    state.active,
                    state.action,
                    state.dice,
                    state.locked_rows,
                    tuple(choices),
                    state.marked_white_sum,
                    state.history,
                    state.end_reason,
                )
            return self._apply_white_sums(state, tuple(c for c in choices if c is not None))
        colour_sum, number = self._check_colour_sum(state, move)
        return self._apply_colour_sum(state, colour_sum, number)

    def _apply_white_sums(
        self, state: QwixxState, choices: tuple[WhiteSumChoice, ...]
    ) -> QwixxState:
        # RULES.md: A turn, 1 (ruling): every choice was checked against the sheets as
        # they stood when the dice were rolled, and all are applied together, so several
        # seats may lock one row and several rows may lock (RULES.md: Marking).
        sheets = list(state.sheets)
        lockers: dict[Colour, list[Seat]] = {}
        for seat, choice in enumerate(choices):
            if isinstance(choice, MarkWhiteSum):
                sheets[seat] = sheets[seat].with_mark(choice.colour, choice.number)
                if choice.number == LAST_NUMBER[choice.colour]:
                    lockers.setdefault(choice.colour, []).append(seat)
        history: list[HistoryEntry] = [*state.history, WhiteSumsApplied(choices)]
        locked, dice = _close_rows(state, lockers, history)
        ended = len(locked) >= LOCKS_TO_END
        if ended:
            # RULES.md: End (ruling): the game ends at once; action 2 and the penalty
            # step are skipped.
            history.append(GameEnded(EndReason.TWO_ROWS_LOCKED))
        return QwixxState(
            config=state.config,
            seed=state.seed,
            draws=state.draws,
            sheets=tuple(sheets),
            active=state.active,
            action=None if ended else Action.COLOUR_SUM,
            dice=dice,
            locked_rows=locked,
            choices=(None,) * len(choices),
            marked_white_sum=isinstance(choices[state.active], MarkWhiteSum),
            history=tuple(history),
            end_reason=EndReason.TWO_ROWS_LOCKED if ended else None,
        )

    def _apply_colour_sum(
        self, state: QwixxState, move: ColourSumChoice, number: int | None
    ) -> QwixxState:
        active = state.active
        sheets = list(state.sheets)
        history: list[HistoryEntry] = [
            *state.history,
            ColourSumApplied(active, move, number),
        ]
        locked, dice = state.locked_rows, state.dice
        end_reason: EndReason | None = None
        if isinstance(move, MarkColourSum) and number is not None:
            sheets[active] = sheets[active].with_mark(move.colour, number)
            if number == LAST_NUMBER[move.colour]:
                locked, dice = _close_rows(state, {move.colour: [active]}, history)
                if len(locked) >= LOCKS_TO_END:
                    end_reason = EndReason.TWO_ROWS_LOCKED
        elif not state.marked_white_sum:
            # RULES.md: A turn, 3: only the active seat, only when it marked nothing in
            # both actions.
            sheets[active] = sheets[active].with_penalty()
            history.append(Penalised(active, sheets[active].penalties))
            if sheets[active].penalties >= MAX_PENALTIES:
                end_reason = EndReason.PENALTIES
        if end_reason is not None:
            history.append(GameEnded(end_reason))
            return QwixxState(
                config=state.config,
                seed=state.seed,
                draws=state.draws,
                sheets=tuple(sheets),
                active=active,
                action=None,
                dice=dice,
                locked_rows=locked,
                choices=state.choices,
                marked_white_sum=state.marked_white_sum,
                history=tuple(history),
                end_reason=end_reason,
            )
        # RULES.md: A turn: the turn passes clockwise (ascending seat index).
        following = (active + 1) % len(sheets)
        dice, draws = _roll(state.seed, state.draws, locked)
        history.append(Rolled(following, dice))
        return QwixxState(
            config=state.config,
            seed=state.seed,
            draws=draws,
            sheets=tuple(sheets),
            active=following,
            action=Action.WHITE_SUM,
            dice=dice,
            locked_rows=locked,
            choices=state.choices,
            marked_white_sum=False,
            history=tuple(history),
            end_reason=None,
        )

    # ------------------------------------------------------------------ checks

    def _check_seat(self, state: QwixxState, seat: Seat) -> None:
        if state.action is None:
            raise GameOverError()
        if state.action is Action.WHITE_SUM:
            if type(seat) is not int or not 0 <= seat < len(state.choices):
                raise NotYourTurnError(seat, self.to_act(state))
            if state.choices[seat] is not None:
                raise _reject(
                    QwixxReason.ALREADY_DECIDED,
                    f"seat {seat} has already submitted its action-1 choice this turn",
                )
        elif seat != state.active:
            raise NotYourTurnError(seat, self.to_act(state))

    def _check_white_sum(self, state: QwixxState, seat: Seat, move: object) -> WhiteSumChoice:
        if isinstance(move, Decline):
            return move
        if isinstance(move, MarkColourSum):
            if seat != state.active:
                raise _reject(
                    QwixxReason.NOT_ACTIVE_SEAT,
                    f"only the active seat ({state.active}) marks a colour sum, in action 2",
                )
            raise _reject(
                QwixxReason.WRONG_ACTION,
                "action 1 comes first: mark the white sum in one row, or decline",
            )
        if not isinstance(move, MarkWhiteSum):
            raise _reject(QwixxReason.MALFORMED_MOVE, f"{move!r} is not a Qwixx move")
        if not isinstance(move.colour, Colour) or not _is_int(move.number):
            raise _reject(QwixxReason.MALFORMED_MOVE, f"{move!r} names no row and number")
        total = state.dice.white_sum
        if move.number != total:
            raise _reject(
                QwixxReason.WRONG_SUM,
                f"action 1 marks the white sum {total} "
                f"({state.dice.white[0]} + {state.dice.white[1]}), not {move.number}",
            )
        problem = _mark_problem(state.sheets[seat], move.colour, total, state.locked_rows)
        if problem is not None:
            raise _reject(*problem)
        return move

    def _check_colour_sum(
        self, state: QwixxState, move: object
    ) -> tuple[ColourSumChoice, int | None]:
        if isinstance(move, Decline):
            return move, None
        if isinstance(move, MarkWhiteSum):
            raise _reject(
                QwixxReason.WRONG_ACTION,
                "action 1 is over: mark a white die plus a coloured die, or decline",
            )
        if not isinstance(move, MarkColourSum):
            raise _reject(QwixxReason.MALFORMED_MOVE, f"{move!r} is not a Qwixx move")
        if (
            not isinstance(move.colour, Colour)
            or not _is_int(move.white)
            or move.white not in (0, 1)
        ):
            raise _reject(
                QwixxReason.MALFORMED_MOVE, f"{move!r} names no white die (0 or 1) and colour"
            )
        die = state.dice.colours[move.colour]
        if die is None:
            raise _reject(
                QwixxReason.ROW_LOCKED,
                f"the {move.colour.label} row is locked and its die is out of play",
            )
        number = state.dice.white[move.white] + die
        problem = _mark_problem(state.sheets[state.active], move.colour, number, state.locked_rows)
        if problem is not None:
            raise _reject(*problem)
        return move, number


QWIXX = QwixxRules()
"""The Qwixx engine."""

if TYPE_CHECKING:
    # mypy proves that the engine satisfies the shared protocol.
    _RULES: Rules[QwixxConfig, QwixxState, QwixxMove, QwixxView] = QWIXX
