"""The heuristic Qwixx bot: mark only what skips little, avoid penalties, lock when ahead.

It works from the view and the legal moves alone (no engine). A mark's *skip* is how many
numbers of the row it makes unmarkable: those between the row's right-most mark (or the
row's start) and the marked number. A row's edge numbers (2 and 12) are rolled once in 36,
so skipping them counts half. *Urgency* says how near the end is: the most penalties any
seat holds plus two per locked row (a fourth penalty or a second lock ends the game, and
a number skipped then would never have been marked anyway). The rule:

1. Action 1 (every seat): take the white-sum mark with the smallest skip (ties: the row
   with more marks, then legal-move order) when it skips at most 1.5 + urgency / 2;
   otherwise decline.
2. Action 2 (the active seat): take the colour-sum mark with the smallest skip when it
   skips at most 0.5 + urgency / 2 if the seat marked in action 1. If it marked nothing
   there, declining costs a penalty (-5), so the limit is 3 + urgency, and any mark goes
   once the seat holds three penalties (a fourth would end the game).
3. A mark of a row's last number (a lock) is a candidate only while the seat's total is
   at least every other seat's: a lock brings the end nearer, which only the leader wants.

Against two random bots (3 seats, rotated) it wins 99 % of games (docs/bots.md).
"""

from __future__ import annotations

import random
from collections.abc import Sequence

from botarena.bots._checks import check_decision
from botarena.v1 import match_pb2, qwixx_pb2

__all__ = ["HeuristicQwixxBot"]

_LAST_NUMBER = {
    qwixx_pb2.QWIXX_COLOUR_RED: 12,
    qwixx_pb2.QWIXX_COLOUR_YELLOW: 12,
    qwixx_pb2.QWIXX_COLOUR_GREEN: 2,
    qwixx_pb2.QWIXX_COLOUR_BLUE: 2,
}


def skip(numbers: Sequence[int], ascending: bool, number: int) -> float:
    """Return how many numbers of a row (its marked ``numbers``, left to right; red and
    yellow ascend) marking ``number`` makes unmarkable; the 2 and the 12 (rolled once in
    36) count half. The search bot's rule uses it too."""
    if ascending:
        start, end = (numbers[-1] - 1 if numbers else 0), number - 2
    else:
        start, end = (13 - numbers[-1] if numbers else 0), 12 - number
    skipped = 0.0
    for place in range(start, end):  # 0-based places in the row
        skipped += 0.5 if place in (0, 10) else 1.0
    return skipped


def _skip(row: qwixx_pb2.QwixxRow, number: int) -> float:
    ascending = row.colour in (qwixx_pb2.QWIXX_COLOUR_RED, qwixx_pb2.QWIXX_COLOUR_YELLOW)
    return skip(row.numbers, ascending, number)


class HeuristicQwixxBot:
    """Plays Qwixx by the rule of the module docstring.

    Attributes:
        game: The game it plays (the server's registry name).
    """

    game = "qwixx"

    def choose_move(
        self,
        view: match_pb2.PlayerView,
        legal_moves: Sequence[match_pb2.Move],
        rng: random.Random,
    ) -> match_pb2.Move:
        """Return the move the module's rule picks.

        Raises:
            UnsupportedGameError: The match is not a Qwixx match.
            ValueError: ``legal_moves`` is empty.
        """
        del rng  # the rule is deterministic
        check_decision(view, legal_moves, "qwixx", "heuristic")
        game = view.qwixx
        seat = view.seat
        sheet = game.sheets[seat]
        rows = {row.colour: row for row in sheet.rows}
        ahead = all(other.score <= sheet.score for other in game.sheets)
        decline = next(
            (move for move in legal_moves if move.qwixx.WhichOneof("action") == "decline"),
            legal_moves[0],
        )
        candidates: list[tuple[float, int, int, match_pb2.Move]] = []
        for index, move in enumerate(legal_moves):
            action = move.qwixx.WhichOneof("action")
            if action == "mark_white_sum":
                colour, number = move.qwixx.mark_white_sum.colour, move.qwixx.mark_white_sum.number
            elif action == "mark_colour_sum":
                colour = move.qwixx.mark_colour_sum.colour
                number = _die(game.dice, colour) + game.dice.white[move.qwixx.mark_colour_sum.white]
            else:
                continue
            row = rows[colour]
            if number == _LAST_NUMBER[colour] and not ahead:
                continue
            candidates.append((_skip(row, number), -len(row.numbers), index, move))
        if not candidates:
            return decline
        skip, _, _, best = min(candidates, key=lambda item: item[:3])
        # The game ends at a fourth penalty or a second lock: the closer that is, the less
        # a skipped number would ever have been marked.
        urgency = max(other.penalties for other in game.sheets) + 2 * len(game.locked_rows)
        if game.action == qwixx_pb2.QWIXX_ACTION_WHITE_SUM:
            limit = 1.5 + 0.5 * urgency
        else:
            marked_in_action_1 = (
                len(game.last_white_sums) > seat
                and game.last_white_sums[seat].WhichOneof("action") == "mark_white_sum"
            )
            if marked_in_action_1:
                limit = 0.5 + 0.5 * urgency
            elif sheet.penalties >= 3:
                limit = float("inf")
            else:
                limit = 3.0 + urgency
        return best if skip <= limit else decline


def _die(dice: qwixx_pb2.QwixxDice, colour: int) -> int:
    """Return the face of the coloured die of ``colour`` (legal moves name dice in play)."""
    if colour == qwixx_pb2.QWIXX_COLOUR_RED:
        return dice.red
    if colour == qwixx_pb2.QWIXX_COLOUR_YELLOW:
        return dice.yellow
    if colour == qwixx_pb2.QWIXX_COLOUR_GREEN:
        return dice.green
    return dice.blue
