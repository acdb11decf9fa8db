"""The forward-model protocol every game's model implements, and the budget helper."""

from __future__ import annotations

import random
import time
from typing import Any, Protocol, TypeVar

from botarena.clients._bot import current_decision
from botarena.server.games import Rules, Seat
from botarena.v1 import match_pb2

__all__ = ["ForwardModel", "SeatFollower", "ThinkBudget", "think_budget"]

StateT = TypeVar("StateT")
MoveT = TypeVar("MoveT")


class ForwardModel(Protocol[StateT, MoveT]):
    """What a search bot needs of one game: engine states a seat cannot tell from the truth.

    One model follows one seat through one match: :meth:`observe` every view the seat is
    handed (:meth:`determinize` does it for you) and :meth:`played` every move it makes,
    so that the model remembers what the seat has seen (a Qwirkle exchange, a burned
    building). A model never sees more than the views and moves it is given.
    """

    @property
    def game(self) -> str:
        """The game's registry name (``"qwirkle"``), the view's ``game_view`` case."""
        ...

    @property
    def rules(self) -> Rules[Any, StateT, MoveT, Any]:
        """The pure engine: ``legal_moves``, ``apply``, ``to_act``, ``outcome``."""
        ...

    @property
    def seat(self) -> Seat:
        """The seat the model follows (from the first view it observed)."""
        ...

    def observe(self, view: match_pb2.PlayerView) -> None:
        """Take in a view of the seat; observing the same view again changes nothing.

        Raises:
            ValueError: The view is not this game's, or is a spectator's.
        """
        ...

    def played(self, move: match_pb2.Move | MoveT) -> None:
        """Record the seat's own move (a message or an engine move) once it is chosen."""
        ...

    def determinize(self, view: match_pb2.PlayerView, rng: random.Random) -> StateT:
        """Return an engine state consistent with everything the seat has seen.

        The hidden parts (other racks, the bag, the deck order, future dice) are drawn
        from ``rng`` and nothing else: the result is a function of the views, the moves
        recorded and ``rng``. The seat to act in it is the view's.

        Raises:
            ValueError: The view is not this game's, or is a spectator's.
        """
        ...

    def engine_move(self, move: match_pb2.Move) -> MoveT:
        """Return the engine move of a move message (a legal move, for example).

        Raises:
            ValueError: The message is not a move of this game.
        """
        ...

    def message(self, move: MoveT) -> match_pb2.Move:
        """Return the move message of an engine move, ready to submit."""
        ...


class SeatFollower:
    """What every model shares: the seat it follows and which view it took in last.

    Attributes:
        game: The game's registry name, the view's ``game_view`` case (set by each model).
    """

    game = ""

    def __init__(self) -> None:
        self._seat: Seat | None = None
        self._key = b""

    @property
    def seat(self) -> Seat:
        """The seat followed.

        Raises:
            ValueError: No view observed yet.
        """
        if self._seat is None:
            raise ValueError("no view observed yet")
        return self._seat

    def _is_new(self, view: match_pb2.PlayerView) -> bool:
        """Return whether ``view`` differs from the last one taken in (and take it).

        Raises:
            ValueError: Not this game's view, a spectator's, or another seat's.
        """
        key = view.SerializeToString(deterministic=True)
        if key == self._key:
            return False
        case = view.WhichOneof("game_view")
        if case != self.game:
            raise ValueError(f"not a {self.game.title()} view: {case}")
        if not view.HasField("seat"):
            raise ValueError("a spectator's view has no seat to search for")
        if self._seat is None:
            self._seat = view.seat
        elif view.seat != self._seat:
            raise ValueError(f"the model follows seat {self._seat}, not {view.seat}")
        self._key = key
        return True


class ThinkBudget:
    """A decision's thinking time: ``spent()`` and ``exhausted()`` against a deadline.

    Attributes:
        seconds: The time allowed, from creation.
        started: ``time.perf_counter()`` at creation.
    """

    __slots__ = ("seconds", "started")

    def __init__(self, seconds: float) -> None:
        self.seconds = seconds
        self.started = time.perf_counter()

    def spent(self) -> float:
        """Seconds since creation."""
        return time.perf_counter() - self.started

    def exhausted(self) -> bool:
        """Whether the time allowed has been used up."""
        return time.perf_counter() - self.started >= self.seconds


def think_budget(default: float, *, share: float = 0.5, margin: float = 0.05) -> ThinkBudget:
    """Return the budget of the decision being answered: ``default`` seconds at most.

    Inside ``Bot.choose_move`` under ``run_bot`` the decision's clock
    (:func:`~botarena.clients.current_decision`) caps it: at most ``share`` of the time
    left, less ``margin`` seconds for the trip of the answer. Outside a decision (an
    in-process harness), ``default``.
    """
    clock = current_decision()
    if clock is None:
        return ThinkBudget(default)
    return ThinkBudget(max(0.0, min(default, clock.time_left() * share - margin)))
