"""What the server does for a seat that runs out of time or of legal tries (match.proto:
MatchPolicies), and the stand-in moves it plays for a seat.

A stand-in move is a weak one (``GameHooks.stand_in_move``) drawn from a random source
seeded by the match seed, the state version and the seat: a replay makes the same move,
and no bot can predict it (the seed is secret while the match runs). It has its own seed,
not the engine's draw stream: a stand-in shown to everyone must not reveal a word of the
hidden draws.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Sequence
from typing import Any

from botarena.server.games import IllegalMoveError, Rules, Seat, random_below
from botarena.server.match._hooks import GameHooks
from botarena.server.match._settings import Policies, TimeoutPolicy

__all__ = ["StandIns", "stand_in_pick"]


def stand_in_pick(seed: int, version: int, seat: Seat) -> Callable[[Sequence[Any]], Any]:
    """Return a uniform choice seeded by the match ``seed``, the state ``version`` and the
    ``seat``."""
    key = f"stand-in:{seed}:{version}:{seat}".encode()
    digest = int.from_bytes(hashlib.blake2b(key, digest_size=8).digest(), "little")

    def pick(options: Sequence[Any]) -> Any:
        index, _ = random_below(digest, 0, len(options))
        return options[index]

    return pick


class StandIns:
    """One match's stand-in moves and the policy that decides when to play them.

    Args:
        rules: The game's engine.
        hooks: The game's strategies (``stand_in_move``).
        policies: The match's policies.
        seed: The match seed.
    """

    __slots__ = ("_hooks", "_policies", "_rules", "_seed")

    def __init__(
        self,
        rules: Rules[Any, Any, Any, Any],
        hooks: GameHooks,
        policies: Policies,
        seed: int,
    ) -> None:
        self._rules = rules
        self._hooks = hooks
        self._policies = policies
        self._seed = seed

    def move(self, state: Any, seat: Seat, version: int) -> object:
        """Return the stand-in move of ``seat`` in ``state`` at ``version``.

        Raises:
            LookupError: The game has no stand-in move here.
        """
        pick = stand_in_pick(self._seed, version, seat)
        return self._hooks.stand_in_move(self._rules, state, seat, pick)

    def for_policy(self, state: Any, seat: Seat, version: int) -> tuple[object, Any] | None:
        """Return the stand-in move the policy plays for ``seat`` and the state after it,
        or ``None`` if the seat forfeits instead (``TimeoutPolicy.FORFEIT``, or no
        stand-in move applies)."""
        if self._policies.on_timeout is not TimeoutPolicy.DEFAULT_MOVE:
            return None
        try:
            move = self.move(state, seat, version)
            return move, self._rules.apply(state, seat, move)
        except (LookupError, IllegalMoveError):
            return None

    def too_many_in_a_row(self, streak: int) -> bool:
        """Return whether ``streak`` stand-in moves in a row make the seat absent: a bot
        that does not play must not win through the server's moves."""
        return streak >= self._policies.max_stand_ins_in_a_row
