"""Qwixx's forward model: everything on the table is public; the future dice are not.

A view holds every sheet, the roll, the locked rows, the active seat and the action due
(RULES.md: What each seat may see). A determinization is the same position with a match
seed of its own drawn from the bot's ``rng``, so that every roll after it is a fresh
uniform roll. The only other secret is the sealed action-1 choice of a seat that has
already chosen (it has left ``to_act``): the model fills it in with ``sealed`` (by default
a uniformly random legal choice), so that ``apply`` of the seat's own choice reveals and
applies every choice, as the server does.
"""

from __future__ import annotations

import random
from typing import Protocol

from botarena.clients.search._base import SeatFollower
from botarena.server.games import Seat
from botarena.server.games.qwixx import (
    QWIXX,
    Action,
    Colour,
    ColourSumApplied,
    Decline,
    HistoryEntry,
    MarkColourSum,
    MarkWhiteSum,
    QwixxMove,
    QwixxRules,
    QwixxState,
    Sheet,
    WhiteSumChoice,
    WhiteSumsApplied,
)
from botarena.v1 import match_pb2, qwixx_pb2

__all__ = ["QwixxModel", "SealedChoice"]


class SealedChoice(Protocol):
    """Guesses the sealed action-1 choice of ``seat`` in a state where it has not chosen."""

    def __call__(self, state: QwixxState, seat: Seat, rng: random.Random, /) -> WhiteSumChoice:
        """Return the guessed choice, a legal move of ``seat`` in ``state``."""
        ...


_COLOURS: tuple[Colour, ...] = tuple(Colour)


def _uniform_choice(state: QwixxState, seat: Seat, rng: random.Random) -> WhiteSumChoice:
    moves = QWIXX.legal_moves(state, seat)
    move = moves[rng.randrange(len(moves))]
    assert isinstance(move, MarkWhiteSum | Decline)
    return move


def _colour(value: int) -> Colour:
    if not 1 <= value <= 4:
        raise ValueError(f"{value} is not a Qwixx colour")
    return _COLOURS[value - 1]


def _white_sum_choice(move: qwixx_pb2.QwixxMove) -> WhiteSumChoice | None:
    action = move.WhichOneof("action")
    if action == "mark_white_sum":
        return MarkWhiteSum(_colour(move.mark_white_sum.colour), move.mark_white_sum.number)
    if action == "decline":
        return Decline()
    return None


class QwixxModel(SeatFollower):
    """The forward model of one Qwixx seat (see the module docstring).

    Args:
        sealed: Guesses another seat's sealed action-1 choice; by default a uniformly
            random legal choice.
    """

    game = "qwixx"

    def __init__(self, *, sealed: SealedChoice | None = None) -> None:
        super().__init__()
        self._sealed = sealed or _uniform_choice
        self._template: QwixxState | None = None
        self._chosen: tuple[Seat, ...] = ()

    @property
    def rules(self) -> QwixxRules:
        """The engine, :data:`~botarena.server.games.qwixx.QWIXX`."""
        return QWIXX

    def observe(self, view: match_pb2.PlayerView) -> None:
        """Take in a view of the seat (see :class:`~botarena.clients.search.ForwardModel`).

        Raises:
            ValueError: Not a Qwixx view, a spectator's, or another seat's.
        """
        if not self._is_new(view):
            return
        game = view.qwixx
        sheets = []
        for sheet in game.sheets:
            rows: dict[Colour, tuple[int, ...]] = {
                _colour(row.colour): tuple(row.numbers) for row in sheet.rows
            }
            sheets.append(
                Sheet(
                    (
                        rows.get(Colour.RED, ()),
                        rows.get(Colour.YELLOW, ()),
                        rows.get(Colour.GREEN, ()),
                        rows.get(Colour.BLUE, ()),
                    ),
                    sheet.penalties,
                )
            )
        dice = game.dice
        colours = [
            dice.red if dice.HasField("red") else 1,
            dice.yellow if dice.HasField("yellow") else 1,
            dice.green if dice.HasField("green") else 1,
            dice.blue if dice.HasField("blue") else 1,
        ]
        self._template = None
        self._chosen = ()
        if game.action == qwixx_pb2.QWIXX_ACTION_UNSPECIFIED:
            return
        action = Action(int(game.action))
        to_act = frozenset(game.to_act)
        choices: list[WhiteSumChoice | None] = [None] * len(sheets)
        marked = False
        if action is Action.WHITE_SUM:
            own = _white_sum_choice(game.own_choice) if game.HasField("own_choice") else None
            if own is not None:
                choices[view.seat] = own
            self._chosen = tuple(
                s for s in range(len(sheets)) if s not in to_act and s != view.seat
            )
        elif len(game.last_white_sums) > game.active_seat:
            marked = game.last_white_sums[game.active_seat].WhichOneof("action") == (
                "mark_white_sum"
            )
        # The view's last choices (its only history) stay in the state's, so that its
        # view looks the same.
        history: list[HistoryEntry] = []
        last_white = [_white_sum_choice(choice) for choice in game.last_white_sums]
        if last_white and all(choice is not None for choice in last_white):
            history.append(WhiteSumsApplied(tuple(c for c in last_white if c is not None)))
        if game.HasField("last_colour_sum"):
            applied = game.last_colour_sum
            choice = self.engine_move(match_pb2.Move(qwixx=applied.choice))
            assert isinstance(choice, MarkColourSum | Decline)
            number = applied.number if applied.HasField("number") else None
            history.append(ColourSumApplied(applied.seat, choice, number))
        template = QwixxState.from_position(
            sheets=sheets,
            white=(dice.white[0], dice.white[1]),
            colours=colours,
            active=game.active_seat,
            action=action,
            choices=choices,
            marked_white_sum=marked,
        )
        self._template = template._replace(history=tuple(history))

    def played(self, move: match_pb2.Move | QwixxMove) -> None:
        """Nothing to remember: every Qwixx choice is public once applied."""

    def determinize(self, view: match_pb2.PlayerView, rng: random.Random) -> QwixxState:
        """Return the view's position with fresh future dice and the sealed choices guessed.

        Raises:
            ValueError: Not a Qwixx view of the seat, or the game is over.
        """
        self.observe(view)
        state = self._template
        if state is None:
            raise ValueError("the game is over: there is nothing to search")
        if self._chosen:
            choices = list(state.choices)
            for seat in self._chosen:
                choices[seat] = self._sealed(state, seat, rng)
            state = state._replace(choices=tuple(choices))
        return state._replace(seed=rng.getrandbits(63), draws=0)

    def engine_move(self, move: match_pb2.Move) -> QwixxMove:
        """Return the engine move of a Qwixx move message.

        Raises:
            ValueError: The message is not a Qwixx move.
        """
        action = move.qwixx.WhichOneof("action")
        if action == "decline":
            return Decline()
        if action == "mark_white_sum":
            mark = move.qwixx.mark_white_sum
            return MarkWhiteSum(_colour(mark.colour), mark.number)
        if action == "mark_colour_sum":
            colour_sum = move.qwixx.mark_colour_sum
            return MarkColourSum(colour_sum.white, _colour(colour_sum.colour))
        raise ValueError("not a Qwixx move: no action is set")

    def message(self, move: QwixxMove) -> match_pb2.Move:
        """Return the move message of an engine move."""
        out = match_pb2.Move()
        if isinstance(move, MarkWhiteSum):
            out.qwixx.mark_white_sum.colour = qwixx_pb2.QwixxColour.ValueType(move.colour + 1)
            out.qwixx.mark_white_sum.number = move.number
        elif isinstance(move, MarkColourSum):
            out.qwixx.mark_colour_sum.white = move.white
            out.qwixx.mark_colour_sum.colour = qwixx_pb2.QwixxColour.ValueType(move.colour + 1)
        else:
            out.qwixx.decline.SetInParent()
        return out
