"""Game-specific match policies the engines do not define: stand-in moves and live scores.

The engine protocol knows nothing of clocks or forfeits, so what the server plays for a
seat that ran out of time, and how it reads the current scores of an unfinished match,
are strategies kept here, one per game, and never engine code (style anchors B.5). Every
game registers its hooks (the server's game registry does, at start-up); a game that needs
no strategy of its own registers :class:`GenericHooks`, and asking for an unregistered
game's hooks is an error, never a silent fallback.

Fair play: a stand-in move is never stronger than a weak player. The generic one is a
uniformly random legal move (the GGP convention), drawn by the match from a random source
seeded by the match's seed and state version, so a replay draws the same move.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, TypeAlias

from botarena.server.games import Rules, Seat

__all__ = ["GameHooks", "GenericHooks", "Pick", "hooks_for", "register_hooks"]

Pick: TypeAlias = Callable[[Sequence[Any]], Any]
"""Returns one element of a non-empty sequence, uniformly at random (seeded by the match)."""


class GameHooks:
    """The per-game strategies the match layer uses; subclass to specialise.

    Every method receives the engine and a state of that engine.
    """

    def stand_in_move(
        self, rules: Rules[Any, Any, Any, Any], state: Any, seat: Seat, pick: Pick
    ) -> object:
        """Return the move the server plays for ``seat`` when it does not move itself
        (the default-move policy, and the turns of a forfeited seat).

        The generic stand-in is a uniformly random legal move: ``pick(legal_moves)``.

        Raises:
            LookupError: The seat has no legal move.
        """
        moves = rules.legal_moves(state, seat)
        if not moves:
            raise LookupError(f"seat {seat} has no legal move")
        return pick(moves)

    def annotate(
        self, rules: Rules[Any, Any, Any, Any], state: Any, seat: Seat, move: object
    ) -> object:
        """Return ``move`` with the annotations the engine puts on its listed twin (a
        placement's score); used when a stored log is replayed.

        The generic version finds the twin among the legal moves (``move`` itself if
        there is none); a game may compute the annotation directly instead.
        """
        return next((legal for legal in rules.legal_moves(state, seat) if legal == move), move)

    def scores(
        self, rules: Rules[Any, Any, Any, Any], state: Any, seat_count: int
    ) -> tuple[int, ...]:
        """Return every seat's current score; the generic version knows only final ones."""
        outcome = rules.outcome(state)
        return outcome.scores if outcome is not None else (0,) * seat_count

    def remove_seat(self, rules: Rules[Any, Any, Any, Any], state: Any, seat: Seat) -> Any | None:
        """Return ``state`` with a forfeited seat taken out of the turn order, or ``None``.

        ``None`` (the generic answer) means the engine cannot drop a seat; the match layer
        then plays the stand-in move for the seat whenever the engine asks it to act.
        """
        del rules, state, seat
        return None


class GenericHooks(GameHooks):
    """The hooks of a game that needs none of its own: a random stand-in, final scores."""


_REGISTRY: dict[str, Callable[[], GameHooks]] = {}


def register_hooks(game: str, factory: Callable[[], GameHooks]) -> None:
    """Register the hooks of ``game`` (a registry name of ``botarena.server.games``)."""
    _REGISTRY[game] = factory


def hooks_for(game: str) -> GameHooks:
    """Return new hooks of ``game``, as registered.

    Raises:
        LookupError: No hooks are registered for ``game`` (a game that needs none
            registers :class:`GenericHooks`); the message lists the games that have some.
    """
    factory = _REGISTRY.get(game)
    if factory is None:
        known = ", ".join(sorted(_REGISTRY)) or "none"
        raise LookupError(f"no match hooks registered for game {game!r}; registered: {known}")
    return factory()
