"""Qwixx rules, table by table: RULES.md's worked examples, marking, the five-mark lock,
the sealed action 1, action 2 on the sheets after action 1, penalties, locks, the end of
the game, scoring and every rejection reason.

Positions are built with ``QwixxState.from_position`` and ``Sheet.of``; seat 0 is the
active seat unless a test says otherwise.
"""

from __future__ import annotations

import itertools
from collections.abc import Mapping, Sequence

import pytest

from botarena.server.games import GameOverError, NotYourTurnError
from botarena.server.games._core import IllegalMoveError
from botarena.server.games.qwixx import (
    QWIXX,
    Action,
    Colour,
    ColourSumApplied,
    Decline,
    EndReason,
    GameEnded,
    MarkColourSum,
    MarkWhiteSum,
    Penalised,
    QwixxMove,
    QwixxReason,
    QwixxState,
    Rolled,
    RowLocked,
    Sheet,
    StarterPicked,
    WhiteSumChoice,
    WhiteSumsApplied,
)

RED, YELLOW, GREEN, BLUE = Colour.RED, Colour.YELLOW, Colour.GREEN, Colour.BLUE
FIVE_RED = (2, 3, 4, 5, 6)
"""Five red marks: enough to lock red with 12."""
FIVE_GREEN = (12, 11, 10, 9, 8)
"""Five green marks: enough to lock green with 2."""


def table(
    *sheets: Sheet,
    white: tuple[int, int] = (3, 4),
    colours: Sequence[int] = (2, 3, 5, 1),
    active: int = 0,
    action: Action = Action.WHITE_SUM,
    marked_white_sum: bool = False,
) -> QwixxState:
    """Return a position with these sheets (two empty ones by default) and dice.

    The default dice are RULES.md's worked example: white 3 and 4, red 2, yellow 3,
    green 5, blue 1.
    """
    return QwixxState.from_position(
        sheets=sheets or (Sheet(), Sheet()),
        white=white,
        colours=colours,
        active=active,
        action=action,
        marked_white_sum=marked_white_sum,
    )


def action_1(state: QwixxState, choices: Mapping[int, WhiteSumChoice] | None = None) -> QwixxState:
    """Submit every seat's action-1 choice in seat order (``Decline()`` when not given)."""
    for seat in range(state.seats):
        state = QWIXX.apply(state, seat, (choices or {}).get(seat, Decline()))
    return state


def rejection(state: QwixxState, seat: int, move: object) -> str:
    """Return the reason code with which ``apply`` rejects the move."""
    with pytest.raises(IllegalMoveError) as caught:
        QWIXX.apply(state, seat, move)  # type: ignore[arg-type]  # may be malformed on purpose
    assert not QWIXX.is_legal(state, seat, move)  # type: ignore[arg-type]  # as above
    return caught.value.reason


def marked_numbers(
    state: QwixxState, seat: int, moves: Sequence[QwixxMove]
) -> set[tuple[Colour, int]]:
    """Return the (row, number) each action-2 mark of ``moves`` would mark."""
    white, colours = state.dice.white, state.dice.colours
    found = set()
    for move in moves:
        if isinstance(move, MarkColourSum):
            die = colours[move.colour]
            assert die is not None
            found.add((move.colour, white[move.white] + die))
    return found


# ---------------------------------------------------------------------------- worked examples

SCORING = [
    ("seed-example", Sheet.of(red=(2, 3, 4, 5), yellow=(2, 3, 4),
                              green=(12, 11, 10, 9, 8, 7, 6), blue=(12, 11, 10, 9, 8, 7, 6, 5),
                              penalties=2), (10, 6, 28, 36), 70),
    ("lock-after-five-marks", Sheet.of(red=(2, 3, 4, 5, 6, 12)), (28, 0, 0, 0), 28),
    ("full-row-and-lock", Sheet.of(red=range(2, 13)), (78, 0, 0, 0), 78),
    ("full-descending-row-and-lock", Sheet.of(blue=range(12, 1, -1)), (0, 0, 0, 78), 78),
    ("negative-total", Sheet.of(yellow=(5,), penalties=3), (0, 1, 0, 0), -14),
    ("only-penalties", Sheet.of(penalties=4), (0, 0, 0, 0), -20),
    ("empty-sheet", Sheet(), (0, 0, 0, 0), 0),
]  # fmt: skip


@pytest.mark.parametrize(
    ("sheet", "rows", "total"),
    [case[1:] for case in SCORING],
    ids=[case[0] for case in SCORING],
)
def test_worked_example_scores(sheet: Sheet, rows: tuple[int, ...], total: int) -> None:
    assert tuple(sheet.row_score(colour) for colour in Colour) == rows
    assert sheet.score == total


def test_score_table_is_the_triangle_numbers() -> None:
    # RULES.md: Scoring: 0, 1, 3, 6, ..., 78 for 0 to 12 crosses.
    expected = [0, 1, 3, 6, 10, 15, 21, 28, 36, 45, 55, 66, 78]
    scored = []
    for crosses in range(11):
        scored.append(Sheet.of(green=range(12, 12 - crosses, -1)).row_score(GREEN))
    scored.append(Sheet.of(green=(*range(12, 3, -1), 2)).row_score(GREEN))  # 10 + lock
    scored.append(Sheet.of(green=range(12, 1, -1)).row_score(GREEN))  # 11 + lock
    assert scored == expected


@pytest.mark.parametrize(
    ("number", "legal"),
    [(2, False), (3, False), (4, False), (5, False), (6, False), (7, False), (8, True)],
    ids=["2-dead", "3-dead", "4-dead", "5-marked", "6-dead", "7-marked", "8-open"],
)
def test_worked_example_red_5_then_7_kills_the_numbers_left_of_7(number: int, legal: bool) -> None:
    state = table(Sheet.of(red=(5, 7)), Sheet(), white=(number // 2, number - number // 2))
    move = MarkWhiteSum(RED, number)
    assert QWIXX.is_legal(state, 0, move) == legal
    if not legal:
        assert rejection(state, 0, move) == QwixxReason.NUMBER_NOT_AVAILABLE


def test_worked_example_red_12_needs_a_fifth_mark_then_locks_for_28() -> None:
    four = table(Sheet.of(red=(2, 3, 4, 5)), Sheet(), white=(6, 6))
    assert rejection(four, 0, MarkWhiteSum(RED, 12)) == QwixxReason.LOCK_NEEDS_FIVE_MARKS
    five = table(Sheet.of(red=(2, 3, 4, 5, 6)), Sheet(), white=(6, 6))
    after = action_1(five, {0: MarkWhiteSum(RED, 12)})
    assert after.sheets[0].marks(RED) == (2, 3, 4, 5, 6, 12)
    assert after.sheets[0].crosses(RED) == 7
    assert after.sheets[0].row_score(RED) == 28
    assert after.locked_rows == {RED}


WORKED_DICE_ACTION_2 = [
    (0, RED, 5), (1, RED, 6), (0, YELLOW, 6), (1, YELLOW, 7),
    (0, GREEN, 8), (1, GREEN, 9), (0, BLUE, 4), (1, BLUE, 5),
]  # fmt: skip


def test_worked_example_dice_action_1_marks_7_in_any_row() -> None:
    state = table(Sheet(), Sheet(), Sheet())
    for seat in range(3):
        assert QWIXX.legal_moves(state, seat) == (
            Decline(),
            *(MarkWhiteSum(colour, 7) for colour in Colour),
        )


def test_worked_example_dice_action_2_lists_exactly_the_rulebook_options() -> None:
    state = action_1(table())
    moves = QWIXX.legal_moves(state, 0)
    assert marked_numbers(state, 0, moves) == {
        (colour, number) for _, colour, number in WORKED_DICE_ACTION_2
    }
    assert moves == (
        Decline(),
        *(MarkColourSum(white, colour) for white_colour in Colour for white, colour in
          ((0, white_colour), (1, white_colour))),
    )  # fmt: skip


@pytest.mark.parametrize(
    ("white", "colour", "number"),
    WORKED_DICE_ACTION_2,
    ids=[f"{colour.label}-{number}" for _, colour, number in WORKED_DICE_ACTION_2],
)
def test_worked_example_dice_action_2_marks_the_chosen_sum(
    white: int, colour: Colour, number: int
) -> None:
    state = action_1(table())
    after = QWIXX.apply(state, 0, MarkColourSum(white, colour))
    assert after.sheets[0].marks(colour) == (number,)
    assert ColourSumApplied(0, MarkColourSum(white, colour), number) in after.history


# ---------------------------------------------------------------------------- marking

DEAD = QwixxReason.NUMBER_NOT_AVAILABLE
NEEDS_FIVE = QwixxReason.LOCK_NEEDS_FIVE_MARKS
GREEN_2 = MarkWhiteSum(GREEN, 2)

# (id, sheet of the active seat, white dice, move in action 1, reason or None)
MARKING: list[tuple[str, Sheet, tuple[int, int], QwixxMove, str | None]] = [
    ("first-mark-anywhere", Sheet(), (3, 3), MarkWhiteSum(YELLOW, 6), None),
    ("skip-ahead", Sheet.of(red=(2,)), (5, 5), MarkWhiteSum(RED, 10), None),
    ("same-number-again", Sheet.of(red=(7,)), (3, 4), MarkWhiteSum(RED, 7), DEAD),
    ("left-of-last-mark", Sheet.of(red=(8,)), (3, 4), MarkWhiteSum(RED, 7), DEAD),
    ("green-runs-12-to-2", Sheet.of(green=(8,)), (3, 4), MarkWhiteSum(GREEN, 7), None),
    ("green-left-of-last", Sheet.of(green=(6,)), (3, 4), MarkWhiteSum(GREEN, 7), DEAD),
    ("green-2-four-marks", Sheet.of(green=(12, 11, 10, 9)), (1, 1), GREEN_2, NEEDS_FIVE),
    ("green-2-five-marks", Sheet.of(green=FIVE_GREEN), (1, 1), GREEN_2, None),
    ("red-12-zero-marks", Sheet(), (6, 6), MarkWhiteSum(RED, 12), NEEDS_FIVE),
    ("red-12-four-marks", Sheet.of(red=(2, 3, 4, 5)), (6, 6), MarkWhiteSum(RED, 12), NEEDS_FIVE),
    ("red-12-five-marks", Sheet.of(red=FIVE_RED), (6, 6), MarkWhiteSum(RED, 12), None),
    ("red-12-nine-marks", Sheet.of(red=range(2, 11)), (6, 6), MarkWhiteSum(RED, 12), None),
    ("wrong-sum", Sheet(), (3, 4), MarkWhiteSum(RED, 8), QwixxReason.WRONG_SUM),
    ("decline", Sheet.of(red=FIVE_RED), (3, 4), Decline(), None),
]  # fmt: skip


@pytest.mark.parametrize(
    ("sheet", "white", "move", "reason"),
    [case[1:] for case in MARKING],
    ids=[case[0] for case in MARKING],
)
def test_action_1_marking(
    sheet: Sheet, white: tuple[int, int], move: QwixxMove, reason: str | None
) -> None:
    state = table(sheet, Sheet(), white=white)
    assert (move in QWIXX.legal_moves(state, 0)) == (reason is None)
    if reason is None:
        QWIXX.check(state, 0, move)
    else:
        assert rejection(state, 0, move) == reason


@pytest.mark.parametrize(
    ("marks", "legal"),
    [(count, count >= 5) for count in range(10)],
    ids=[f"{count}-marks" for count in range(10)],
)
def test_last_number_needs_five_marks_in_that_row(marks: int, legal: bool) -> None:
    # RULES.md: Marking: at least 5 marks in that row already; marks elsewhere don't count.
    sheet = Sheet.of(yellow=range(2, 2 + marks), red=(2, 3, 4, 5, 6, 7))
    state = table(sheet, Sheet(), white=(6, 6), colours=(1, 6, 1, 1))
    assert QWIXX.is_legal(state, 0, MarkWhiteSum(YELLOW, 12)) == legal
    after_1 = action_1(state)
    assert QWIXX.is_legal(after_1, 0, MarkColourSum(0, YELLOW)) == legal  # 6 + yellow 6


def test_action_2_counts_the_action_1_mark_towards_the_five() -> None:
    # RULES.md: A turn, 2: action 2 sees the sheets as they stand after action 1.
    state = table(Sheet.of(red=(2, 3, 4, 5)), Sheet(), white=(6, 1), colours=(6, 1, 1, 1))
    assert not QWIXX.is_legal(action_1(state), 0, MarkColourSum(0, RED))
    after_1 = action_1(state, {0: MarkWhiteSum(RED, 7)})
    after_2 = QWIXX.apply(after_1, 0, MarkColourSum(0, RED))
    assert after_2.sheets[0].marks(RED) == (2, 3, 4, 5, 7, 12)
    assert after_2.sheets[0].row_score(RED) == 28
    assert after_2.locked_rows == {RED}
    assert RowLocked(RED, (0,)) in after_2.history


@pytest.mark.parametrize(
    ("red_die", "reason"),
    [(3, "NUMBER_NOT_AVAILABLE"), (4, "NUMBER_NOT_AVAILABLE"), (5, None)],
    ids=["left-of-action-1-mark", "same-as-action-1-mark", "right-of-action-1-mark"],
)
def test_action_2_mark_in_the_action_1_row_must_lie_right_of_it(
    red_die: int, reason: str | None
) -> None:
    # White 3 and 4: action 1 marks red 7; action 2 offers white 3 + red 3, 4 or 5.
    after_1 = action_1(table(colours=(red_die, 1, 1, 1)), {0: MarkWhiteSum(RED, 7)})
    move = MarkColourSum(0, RED)
    if reason is None:
        assert QWIXX.apply(after_1, 0, move).sheets[0].marks(RED) == (7, 8)
    else:
        assert rejection(after_1, 0, move) == reason


# ---------------------------------------------------------------------------- the sealed step


def test_action_1_asks_every_seat_and_each_leaves_when_it_submits() -> None:
    state = table(Sheet(), Sheet(), Sheet(), active=1)
    assert QWIXX.to_act(state) == {0, 1, 2}
    state = QWIXX.apply(state, 2, MarkWhiteSum(BLUE, 7))
    assert QWIXX.to_act(state) == {0, 1}
    assert state.choices == (None, None, MarkWhiteSum(BLUE, 7))
    assert state.sheets[2] == Sheet()  # sealed, not applied yet
    assert QWIXX.legal_moves(state, 2) == ()
    state = QWIXX.apply(state, 0, Decline())
    assert QWIXX.to_act(state) == {1}
    assert state.action is Action.WHITE_SUM


def test_last_submission_applies_every_choice_together() -> None:
    state = table(Sheet(), Sheet(), Sheet(), active=1)
    choices: dict[int, WhiteSumChoice] = {
        0: MarkWhiteSum(RED, 7),
        1: Decline(),
        2: MarkWhiteSum(GREEN, 7),
    }
    after = action_1(state, choices)
    assert [sheet.rows for sheet in after.sheets] == [
        ((7,), (), (), ()),
        ((), (), (), ()),
        ((), (), (7,), ()),
    ]
    assert after.history[-1] == WhiteSumsApplied(tuple(choices[seat] for seat in range(3)))
    assert after.action is Action.COLOUR_SUM
    assert QWIXX.to_act(after) == {1}
    assert after.choices == (None, None, None)


def test_submission_order_does_not_matter() -> None:
    state = table(Sheet(), Sheet.of(red=FIVE_RED), Sheet.of(red=FIVE_RED), white=(6, 6))
    choices: dict[int, WhiteSumChoice] = {
        0: MarkWhiteSum(BLUE, 12),
        1: MarkWhiteSum(RED, 12),
        2: Decline(),
    }
    results = set()
    for order in itertools.permutations(range(3)):
        current = state
        for seat in order:
            current = QWIXX.apply(current, seat, choices[seat])
        results.add(current)
    assert len(results) == 1


def test_other_seats_may_mark_in_action_1_even_when_the_active_seat_declines() -> None:
    state = table(Sheet(), Sheet(), Sheet(), active=2)
    after = action_1(state, {0: MarkWhiteSum(YELLOW, 7), 1: MarkWhiteSum(YELLOW, 7)})
    assert [sheet.marks(YELLOW) for sheet in after.sheets] == [(7,), (7,), ()]


# ---------------------------------------------------------------------------- penalties

# (id, active seat's action 1, active seat's action 2, penalised)
PENALTIES: list[tuple[str, WhiteSumChoice, QwixxMove, bool]] = [
    ("declined-both", Decline(), Decline(), True),
    ("marked-action-1-only", MarkWhiteSum(RED, 7), Decline(), False),
    ("marked-action-2-only", Decline(), MarkColourSum(0, GREEN), False),
    ("marked-both", MarkWhiteSum(RED, 7), MarkColourSum(0, GREEN), False),
]


@pytest.mark.parametrize(
    ("first", "second", "penalised"),
    [case[1:] for case in PENALTIES],
    ids=[case[0] for case in PENALTIES],
)
def test_active_seat_is_penalised_only_when_it_marked_nothing_in_both_actions(
    first: WhiteSumChoice, second: QwixxMove, penalised: bool
) -> None:
    state = table(Sheet(), Sheet(), Sheet(), active=1)
    after_1 = action_1(state, {1: first})
    after_2 = QWIXX.apply(after_1, 1, second)
    assert [sheet.penalties for sheet in after_2.sheets] == [0, int(penalised), 0]
    assert (Penalised(1, 1) in after_2.history) == penalised
    assert after_2.active == 2
    assert after_2.action is Action.WHITE_SUM


def test_other_seats_are_never_penalised() -> None:
    state = table(Sheet(), Sheet(), Sheet(), active=0)
    after = QWIXX.apply(action_1(state, {0: MarkWhiteSum(RED, 7)}), 0, Decline())
    assert [sheet.penalties for sheet in after.sheets] == [0, 0, 0]


def test_a_forced_decline_in_action_2_is_penalised_too() -> None:
    # Every colour sum is dead or out of play: declining is the only action-2 move.
    sheet = Sheet.of(red=(11,), yellow=(11,), green=(3,), blue=(3,))
    state = action_1(table(sheet, Sheet(), white=(1, 1), colours=(1, 1, 1, 1)))
    assert QWIXX.legal_moves(state, 0) == (Decline(),)
    assert QWIXX.apply(state, 0, Decline()).sheets[0].penalties == 1


# ---------------------------------------------------------------------------- locks


def test_lock_closes_the_row_for_everyone_and_removes_its_die() -> None:
    state = table(Sheet.of(red=FIVE_RED), Sheet.of(red=(2, 3)), white=(6, 6))
    after_1 = action_1(state, {0: MarkWhiteSum(RED, 12)})
    assert after_1.locked_rows == {RED}
    assert after_1.dice.colours[RED] is None
    assert after_1.history[-1] == RowLocked(RED, (0,))
    # The lock is a cross for the seat that locked it; the other keeps its crosses.
    assert after_1.sheets[0].crosses(RED) == 7
    assert after_1.sheets[1].crosses(RED) == 2
    assert not after_1.sheets[1].has_lock(RED)
    # Action 2 cannot use the removed die.
    assert all(
        not isinstance(move, MarkColourSum) or move.colour != RED
        for move in QWIXX.legal_moves(after_1, 0)
    )
    assert rejection(after_1, 0, MarkColourSum(0, RED)) == QwixxReason.ROW_LOCKED
    # Later turns: the red die is not rolled and nobody may mark red again.
    after_2 = QWIXX.apply(after_1, 0, Decline())
    assert isinstance(after_2.history[-1], Rolled)
    assert after_2.history[-1].dice.colours[RED] is None
    later = QwixxState.from_position(sheets=after_2.sheets, white=(6, 6), active=1)
    for seat in (0, 1):
        assert rejection(later, seat, MarkWhiteSum(RED, 12)) == QwixxReason.ROW_LOCKED


def test_two_seats_locking_the_same_row_both_get_the_lock_cross() -> None:
    state = table(Sheet.of(red=FIVE_RED), Sheet.of(red=(3, 4, 5, 6, 7, 8)), Sheet(), white=(6, 6))
    after = action_1(state, {0: MarkWhiteSum(RED, 12), 1: MarkWhiteSum(RED, 12)})
    assert [sheet.crosses(RED) for sheet in after.sheets] == [7, 8, 0]
    assert after.history[-1] == RowLocked(RED, (0, 1))
    assert after.locked_rows == {RED}
    # One row locked: the game goes on with action 2.
    assert after.action is Action.COLOUR_SUM
    assert QWIXX.outcome(after) is None


def test_two_seats_locking_the_same_second_row_end_the_game() -> None:
    state = table(
        Sheet.of(red=FIVE_RED, blue=(12, 11, 10, 9, 8, 2)),
        Sheet.of(red=FIVE_RED),
        Sheet(),
        white=(6, 6),
    )
    after = action_1(state, {0: MarkWhiteSum(RED, 12), 1: MarkWhiteSum(RED, 12)})
    assert after.locked_rows == {RED, BLUE}
    assert after.end_reason is EndReason.TWO_ROWS_LOCKED
    assert QWIXX.to_act(after) == frozenset()


@pytest.mark.parametrize("active_declines", [True, False], ids=["active-declined", "active-marked"])
def test_two_rows_locking_in_one_action_1_end_the_game_without_action_2_or_penalty(
    active_declines: bool,
) -> None:
    # Seats 1 and 2 lock red and yellow with 12; the active seat 0 declines or marks blue.
    state = table(
        Sheet(), Sheet.of(red=FIVE_RED), Sheet.of(yellow=FIVE_RED), white=(6, 6), active=0
    )
    choices: dict[int, WhiteSumChoice] = {1: MarkWhiteSum(RED, 12), 2: MarkWhiteSum(YELLOW, 12)}
    if not active_declines:
        choices[0] = MarkWhiteSum(BLUE, 12)
    after = action_1(state, choices)
    assert after.locked_rows == {RED, YELLOW}
    assert after.dice.colours == (None, None, 5, 1)
    assert after.action is None
    assert after.end_reason is EndReason.TWO_ROWS_LOCKED
    assert QWIXX.to_act(after) == frozenset()
    assert [sheet.penalties for sheet in after.sheets] == [0, 0, 0]
    assert after.history[-3:] == (
        RowLocked(RED, (1,)),
        RowLocked(YELLOW, (2,)),
        GameEnded(EndReason.TWO_ROWS_LOCKED),
    )
    assert not any(isinstance(entry, (ColourSumApplied, Penalised)) for entry in after.history)
    with pytest.raises(GameOverError):
        QWIXX.apply(after, 0, Decline())
    outcome = QWIXX.outcome(after)
    assert outcome is not None
    assert outcome.reason == "two_rows_locked"
    assert outcome.scores == tuple(sheet.score for sheet in after.sheets)


def test_a_second_lock_in_action_2_ends_the_game() -> None:
    sheet = Sheet.of(red=FIVE_RED, green=FIVE_GREEN)
    state = QwixxState.from_position(
        sheets=[sheet, Sheet.of(yellow=(2, 3, 4, 5, 6, 12))], white=(1, 1), colours=(6, 1, 1, 1)
    )
    assert state.locked_rows == {YELLOW}
    after_1 = action_1(state, {0: MarkWhiteSum(GREEN, 2)})
    assert after_1.end_reason is EndReason.TWO_ROWS_LOCKED  # yellow, then green
    # Without the action-1 lock, action 2 locks red (white 1 + red 6 would be 7: use 6 + 6).
    state = QwixxState.from_position(
        sheets=[sheet, Sheet.of(yellow=(2, 3, 4, 5, 6, 12))], white=(6, 2), colours=(6, 1, 1, 1)
    )
    after_2 = QWIXX.apply(action_1(state), 0, MarkColourSum(0, RED))
    assert after_2.locked_rows == {RED, YELLOW}
    assert after_2.end_reason is EndReason.TWO_ROWS_LOCKED
    assert after_2.history[-2:] == (RowLocked(RED, (0,)), GameEnded(EndReason.TWO_ROWS_LOCKED))


# ---------------------------------------------------------------------------- end and outcome


def test_the_fourth_penalty_ends_the_game_at_once() -> None:
    state = table(Sheet.of(penalties=3, red=(2, 3)), Sheet.of(yellow=(2,)))
    after = QWIXX.apply(action_1(state), 0, Decline())
    assert after.sheets[0].penalties == 4
    assert after.end_reason is EndReason.PENALTIES
    assert after.history[-2:] == (Penalised(0, 4), GameEnded(EndReason.PENALTIES))
    outcome = QWIXX.outcome(after)
    assert outcome is not None
    assert outcome.scores == (3 - 20, 1)
    assert outcome.ranks == (2, 1)
    assert outcome.reason == "penalties"


def test_a_third_penalty_does_not_end_the_game() -> None:
    state = table(Sheet.of(penalties=2), Sheet())
    after = QWIXX.apply(action_1(state), 0, Decline())
    assert after.sheets[0].penalties == 3
    assert QWIXX.outcome(after) is None
    assert after.active == 1


def test_equal_totals_share_the_win() -> None:
    # Seat 0 and seat 2 both total 3 after seat 0's fourth penalty ends the game.
    state = table(
        Sheet.of(penalties=3, red=range(2, 8)),  # 21 - 15, then -5 more: 1
        Sheet.of(blue=(12,)),
        Sheet.of(green=(12,)),
        white=(1, 1),
        colours=(1, 1, 1, 1),
    )
    after = QWIXX.apply(action_1(state), 0, Decline())
    outcome = QWIXX.outcome(after)
    assert outcome is not None
    assert outcome.scores == (1, 1, 1)
    assert outcome.ranks == (1, 1, 1)
    assert outcome.winners == {0, 1, 2}


def test_ranks_follow_totals_with_shared_places() -> None:
    state = table(
        Sheet.of(penalties=3),
        Sheet.of(blue=(12, 11)),
        Sheet.of(green=(12, 11)),
        Sheet.of(red=(2,)),
        white=(1, 1),
        colours=(1, 1, 1, 1),
    )
    outcome = QWIXX.outcome(QWIXX.apply(action_1(state), 0, Decline()))
    assert outcome is not None
    assert outcome.scores == (-20, 3, 3, 1)
    assert outcome.ranks == (4, 1, 1, 3)


# ---------------------------------------------------------------------------- setup and turns


@pytest.mark.parametrize("seats", [1, 6, 0], ids=["one", "six", "zero"])
def test_seat_count_outside_two_to_five_is_rejected(seats: int) -> None:
    with pytest.raises(ValueError, match="2 to 5"):
        QWIXX.new_match(QWIXX.default_config(), seats, seed=1)


@pytest.mark.parametrize("seats", [2, 3, 4, 5], ids=["2", "3", "4", "5"])
def test_new_match_starts_action_1_for_every_seat(seats: int) -> None:
    state = QWIXX.new_match(QWIXX.default_config(), seats, seed=7)
    assert QWIXX.to_act(state) == frozenset(range(seats))
    assert state.action is Action.WHITE_SUM
    assert state.history[0] == StarterPicked(state.active)
    assert state.history[1] == Rolled(state.active, state.dice)
    assert all(sheet == Sheet() for sheet in state.sheets)
    faces = (*state.dice.white, *state.dice.colours)  # no row is locked: six dice
    assert all(face is not None and 1 <= face <= 6 for face in faces)


def test_first_active_seat_is_a_seeded_pick_over_all_seats() -> None:
    starters = {QWIXX.new_match(QWIXX.default_config(), 4, seed).active for seed in range(40)}
    assert starters == {0, 1, 2, 3}


def test_turn_passes_by_ascending_seat_index_and_wraps() -> None:
    state = table(Sheet(), Sheet(), Sheet(), active=2)
    after = QWIXX.apply(action_1(state, {2: MarkWhiteSum(RED, 7)}), 2, Decline())
    assert after.active == 0
    assert after.history[-1] == Rolled(0, after.dice)
    assert QWIXX.to_act(after) == {0, 1, 2}


# ---------------------------------------------------------------------------- rejections

# (id, state builder, seat, move, reason)
REJECTIONS: list[tuple[str, QwixxState, int, object, str]] = [
    ("action-1-colour-sum-by-other-seat", table(), 1, MarkColourSum(0, RED), "NOT_ACTIVE_SEAT"),
    ("action-1-colour-sum-by-active-seat", table(), 0, MarkColourSum(0, RED), "WRONG_ACTION"),
    ("action-2-white-sum", action_1(table()), 0, MarkWhiteSum(RED, 7), "WRONG_ACTION"),
    ("action-2-other-seat", action_1(table()), 1, Decline(), "NOT_YOUR_TURN"),
    ("action-1-second-submission", QWIXX.apply(table(), 1, Decline()), 1, Decline(),
     "ALREADY_DECIDED"),
    ("action-1-unknown-seat", table(), 2, Decline(), "NOT_YOUR_TURN"),
    ("action-1-negative-seat", table(), -1, Decline(), "NOT_YOUR_TURN"),
    ("wrong-sum", table(), 0, MarkWhiteSum(RED, 6), "WRONG_SUM"),
    ("not-a-move", table(), 0, "mark red 7", "MALFORMED_MOVE"),
    # The next two break MarkWhiteSum's annotations on purpose.
    ("not-a-colour", table(), 0, MarkWhiteSum(7, 7), "MALFORMED_MOVE"),  # type: ignore[arg-type]
    ("number-not-an-int", table(), 0, MarkWhiteSum(RED, "7"), "MALFORMED_MOVE"),  # type: ignore[arg-type]
    ("white-die-2", action_1(table()), 0, MarkColourSum(2, RED), "MALFORMED_MOVE"),
    ("white-die-bool", action_1(table()), 0, MarkColourSum(True, RED), "MALFORMED_MOVE"),
    ("action-2-not-a-move", action_1(table()), 0, None, "MALFORMED_MOVE"),
    ("action-1-row-locked", table(Sheet(), Sheet.of(red=(2, 3, 4, 5, 6, 12)), white=(6, 6)), 0,
     MarkWhiteSum(RED, 12), "ROW_LOCKED"),
    ("action-2-row-locked", action_1(table(Sheet(), Sheet.of(red=(2, 3, 4, 5, 6, 12)))), 0,
     MarkColourSum(0, RED), "ROW_LOCKED"),
]  # fmt: skip


@pytest.mark.parametrize(
    ("state", "seat", "move", "reason"),
    [case[1:] for case in REJECTIONS],
    ids=[case[0] for case in REJECTIONS],
)
def test_rejections_carry_their_reason(
    state: QwixxState, seat: int, move: object, reason: str
) -> None:
    assert rejection(state, seat, move) == reason
    assert reason in set(QwixxReason)


def test_not_your_turn_and_game_over_are_the_shared_errors() -> None:
    with pytest.raises(NotYourTurnError):
        QWIXX.apply(action_1(table()), 1, Decline())
    state = table(Sheet.of(penalties=3), Sheet())
    over = QWIXX.apply(action_1(state), 0, Decline())
    with pytest.raises(GameOverError):
        QWIXX.check(over, 1, Decline())
    assert QWIXX.legal_moves(over, 0) == ()


def test_a_rejected_move_leaves_the_state_unchanged() -> None:
    state = QWIXX.apply(table(), 1, MarkWhiteSum(BLUE, 7))
    before = QwixxState.from_position(sheets=state.sheets, white=(3, 4), colours=(2, 3, 5, 1))
    with pytest.raises(IllegalMoveError):
        QWIXX.apply(state, 1, Decline())
    assert state.choices == (None, MarkWhiteSum(BLUE, 7))
    assert state.sheets == before.sheets


def test_moves_convert_int_colours_and_compare_by_value() -> None:
    # Plain ints where a Colour is annotated: the conversion under test.
    assert MarkWhiteSum(0, 7) == MarkWhiteSum(RED, 7)  # type: ignore[arg-type]
    assert MarkColourSum(1, 3) == MarkColourSum(1, BLUE)  # type: ignore[arg-type]
    assert MarkWhiteSum(0, 7).colour is RED  # type: ignore[arg-type]
