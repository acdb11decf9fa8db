"""One game's record: what each seat did and how the game ended, and its JSON form.

The runner keeps each record on its own as soon as its game ends (``_folder``), so the
JSON form holds all of it, and reads back to an equal record.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import asdict, dataclass, field, fields
from typing import Any

from botarena.clients.runner._plan import GamePlan
from botarena.clients.runner._stats import win_share

__all__ = [
    "GameRecord",
    "SeatRecord",
    "plan_document",
    "plan_from_document",
    "record_document",
    "record_from_document",
]


@dataclass(slots=True)
class SeatRecord:
    """What one seat did in one game.

    Attributes:
        score: Final score.
        rank: Final place, 1 = first (shared places possible).
        forfeited: The seat forfeited (see ``forfeit_reason``).
        forfeit_reason: Why (``timeout``, ``illegal_moves``, ``resigned``, ``absent``,
            ``bot_exited``); empty if it did not.
        timeouts: Times the seat's clock ran out.
        illegal_moves: Moves the server rejected as illegal.
        stand_in_moves: Moves the server played for the seat (after a timeout or too many
            illegal moves, and every turn once it forfeited).
        crashed: The bot failed: it ended before the match did (its seat was then
            resigned), exited non-zero, or did not stop after the end.
        failure: What the crash was, in words.
        stderr_tail: The last lines of a crashed bot's stderr (not in results.json).
        think_seconds: Time the seat took for each of its own decisions.
    """

    score: int = 0
    rank: int = 0
    forfeited: bool = False
    forfeit_reason: str = ""
    timeouts: int = 0
    illegal_moves: int = 0
    stand_in_moves: int = 0
    crashed: bool = False
    failure: str | None = None
    stderr_tail: list[str] = field(default_factory=list)
    think_seconds: list[float] = field(default_factory=list)


@dataclass(slots=True)
class GameRecord:
    """One finished game: its plan, what each seat did, and how it ended (``abandoned``:
    nobody played, STATE_ABANDONED)."""

    plan: GamePlan
    match: str
    seats: list[SeatRecord]
    reason: str
    replay: str | None = None
    abandoned: bool = False

    def wins(self, seat: int) -> float:
        """Return the part of a win ``seat`` earned (shared first places split; nothing
        in an abandoned game)."""
        if self.abandoned:
            return 0.0
        ranks = [record.rank for record in self.seats]
        return win_share(self.seats[seat].rank, ranks)


def plan_document(plan: GamePlan) -> dict[str, Any]:
    """Return ``plan`` as JSON-ready data (seeds as strings: they are uint64)."""
    return {
        "number": plan.number,
        "label": plan.label,
        "seed": str(plan.seed),
        "lineup_at_seat": list(plan.lineup_at_seat),
        "bot_seeds": [str(seed) for seed in plan.bot_seeds],
    }


def plan_from_document(document: Mapping[str, Any]) -> GamePlan:
    """Return the plan that :func:`plan_document` made ``document`` from.

    Raises:
        KeyError, TypeError, ValueError: ``document`` is not such a plan.
    """
    return GamePlan(
        number=int(document["number"]),
        label=int(document["label"]),
        seed=int(document["seed"]),
        lineup_at_seat=tuple(int(index) for index in document["lineup_at_seat"]),
        bot_seeds=tuple(int(seed) for seed in document["bot_seeds"]),
    )


def record_document(record: GameRecord) -> dict[str, Any]:
    """Return all of ``record`` as JSON-ready data (seeds as strings: they are uint64)."""
    return {
        "plan": plan_document(record.plan),
        "match": record.match,
        "reason": record.reason,
        "replay": record.replay,
        "abandoned": record.abandoned,
        "seats": [asdict(seat) for seat in record.seats],
    }


def record_from_document(document: Mapping[str, Any]) -> GameRecord:
    """Return the record that :func:`record_document` made ``document`` from.

    Raises:
        ValueError: ``document`` is not such a record.
    """
    try:
        seat_fields = [item.name for item in fields(SeatRecord)]
        return GameRecord(
            plan=plan_from_document(document["plan"]),
            match=str(document["match"]),
            seats=[
                SeatRecord(**{name: seat[name] for name in seat_fields})
                for seat in document["seats"]
            ],
            reason=str(document["reason"]),
            replay=document["replay"],
            abandoned=bool(document["abandoned"]),
        )
    except (KeyError, TypeError, ValueError) as error:
        raise ValueError(f"not a game record: {error!r}") from None
