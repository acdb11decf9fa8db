"""Who has shown up, and the window every seat has to do it in (Policies.join_timeout).

A seat shows up with any call carrying its token. Until it does it has no clock; when the
window closes, the seats still missing forfeit as absent, and a match that no seat still
in it ever joined is abandoned. The rule that ends a match nobody plays any more (the
last seats left as absent while the rest let the server move for them) is here too.
"""

from __future__ import annotations

from collections.abc import Sequence

from botarena.server.games import Seat

__all__ = ["Attendance", "nobody_plays"]


class Attendance:
    """Which seats have shown up, and the join deadline while some have not.

    Args:
        seats: The number of seats.
        timeout: Seconds of the join window.
        now: Monotonic time the window opens.
    """

    __slots__ = ("_joined", "_timeout", "deadline")

    def __init__(self, seats: int, timeout: float, now: float) -> None:
        self._joined = [False] * seats
        self._timeout = timeout
        self.deadline: float | None = now + timeout

    def joined(self, seat: Seat) -> bool:
        """Return whether ``seat`` has shown up."""
        return self._joined[seat]

    def show_up(self, seat: Seat, forfeited: Sequence[bool]) -> bool:
        """Note that ``seat`` called in; return whether it is the first time. The window
        closes once every seat still in the match is here."""
        first = not self._joined[seat]
        self._joined[seat] = True
        if self.deadline is not None and not self.awaiting(forfeited):
            self.deadline = None
        return first

    def awaiting(self, forfeited: Sequence[bool]) -> bool:
        """Return whether a seat still in the match has not shown up."""
        return bool(self._missing(forfeited))

    def due(self, forfeited: Sequence[bool]) -> float | None:
        """Return the join deadline while it still matters, else ``None``."""
        return self.deadline if self.deadline is not None and self.awaiting(forfeited) else None

    def reopen(self, now: float, forfeited: Sequence[bool]) -> None:
        """Give every seat still missing a fresh window (a restart: the downtime is not
        theirs)."""
        self.deadline = now + self._timeout if self.awaiting(forfeited) else None

    def close(self, forfeited: Sequence[bool]) -> list[Seat] | None:
        """Close the window; return the seats that forfeit as absent, or ``None`` when no
        seat still in the match ever showed up (the match is abandoned)."""
        self.deadline = None
        present = zip(self._joined, forfeited, strict=True)
        if not any(joined and not out for joined, out in present):
            return None
        return self._missing(forfeited)

    def _missing(self, forfeited: Sequence[bool]) -> list[Seat]:
        """The seats still in the match that have not shown up."""
        pairs = zip(self._joined, forfeited, strict=True)
        return [seat for seat, (joined, out) in enumerate(pairs) if not (joined or out)]


def nobody_plays(last_forfeit_absent: bool, streaks: Sequence[int]) -> bool:
    """Return whether a match with fewer than two seats left is abandoned: the last seat
    to leave was absent, and every seat left let the server move for it last time
    (``streaks``: their stand-in moves in a row)."""
    return last_forfeit_absent and all(streaks)
