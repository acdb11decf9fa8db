"""The results of a run: one record per game, a summary per bot, the table and the JSON.

``results.json`` is the machine-readable output (schema version 2): the run's
configuration, its ``seed_key`` and labels, one summary per bot (``name``, ``games``,
``wins``, ``win_rate``, ``mean_score``, ``timeouts``, ``illegal_moves``,
``stand_in_moves``, ``crashes``, ``forfeits`` and ``forfeit_reasons``, ``abandoned``, the
intervals and latencies), the Elo difference for two bots, one line per game (its
``label``, engine ``seed`` as a string, end ``reason``, whether it was ``abandoned``, and
per seat the same counts and the forfeit reason), and ``failed_run`` when a bot stopped
the run.

An abandoned game (nobody played) counts as a game and never as a win, for any seat; it
is left out of the Elo difference, which measures the bots' play.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from rich.table import Table

from botarena.clients.runner._plan import BotSpec, GamePlan
from botarena.clients.runner._stats import (
    Estimate,
    elo_difference,
    mean_interval,
    wilson_interval,
    win_share,
)

__all__ = [
    "RESULTS_SCHEMA_VERSION",
    "BotSummary",
    "GameRecord",
    "SeatRecord",
    "results_document",
    "results_table",
    "summarise",
]

RESULTS_SCHEMA_VERSION = 2


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


@dataclass(frozen=True, slots=True)
class BotSummary:
    """The aggregate of one bot over a run."""

    name: str
    games: int
    wins: float
    win_rate: Estimate | None
    mean_score: Estimate | None
    mean_move_ms: float | None
    p95_move_ms: float | None
    timeouts: int
    illegal_moves: int
    stand_in_moves: int
    crashes: int
    forfeit_reasons: dict[str, int]
    abandoned: int

    @property
    def forfeits(self) -> int:
        """Games the bot's seat forfeited."""
        return sum(self.forfeit_reasons.values())


def _percentile(values: Sequence[float], fraction: float) -> float:
    ordered = sorted(values)
    index = max(0, math.ceil(fraction * len(ordered)) - 1)
    return ordered[index]


def summarise(lineup: Sequence[BotSpec], records: Sequence[GameRecord]) -> list[BotSummary]:
    """Return one summary per bot of ``lineup`` over the finished ``records``."""
    summaries = []
    for index, spec in enumerate(lineup):
        seats = [
            (record, seat)
            for record in records
            for seat, bot in enumerate(record.plan.lineup_at_seat)
            if bot == index
        ]
        games = len(seats)
        wins = sum(record.wins(seat) for record, seat in seats)
        scores = [float(record.seats[seat].score) for record, seat in seats]
        thinks = [t * 1000 for record, seat in seats for t in record.seats[seat].think_seconds]
        forfeit_reasons = Counter(
            record.seats[seat].forfeit_reason or "unknown"
            for record, seat in seats
            if record.seats[seat].forfeited
        )
        summaries.append(
            BotSummary(
                name=spec.name,
                games=games,
                wins=wins,
                win_rate=wilson_interval(wins, games) if games else None,
                mean_score=mean_interval(scores) if scores else None,
                mean_move_ms=sum(thinks) / len(thinks) if thinks else None,
                p95_move_ms=_percentile(thinks, 0.95) if thinks else None,
                timeouts=sum(record.seats[seat].timeouts for record, seat in seats),
                illegal_moves=sum(record.seats[seat].illegal_moves for record, seat in seats),
                stand_in_moves=sum(record.seats[seat].stand_in_moves for record, seat in seats),
                crashes=sum(record.seats[seat].crashed for record, seat in seats),
                forfeit_reasons=dict(sorted(forfeit_reasons.items())),
                abandoned=sum(record.abandoned for record, _ in seats),
            )
        )
    return summaries


def head_to_head(records: Sequence[GameRecord]) -> Estimate | None:
    """Return the Elo difference of lineup bot 0 over bot 1 (two-bot runs only)."""
    scores = []
    for record in records:
        if len(record.seats) != 2:
            return None
        if record.abandoned:
            continue
        seat_of_first = record.plan.lineup_at_seat.index(0)
        scores.append(record.wins(seat_of_first))
    return elo_difference(scores) if scores else None


def _interval(estimate: Estimate | None, digits: int) -> dict[str, float] | None:
    if estimate is None:
        return None
    return {
        "value": round(estimate.value, digits),
        "low": round(estimate.low, digits),
        "high": round(estimate.high, digits),
    }


def _finite(value: float) -> float | str:
    return value if math.isfinite(value) else ("inf" if value > 0 else "-inf")


def results_document(
    config: Mapping[str, Any],
    lineup: Sequence[BotSpec],
    records: Sequence[GameRecord],
    *,
    planned_games: int,
    interrupted: bool,
    seed_key: str,
    failed_run: Mapping[str, Any] | None = None,
) -> dict[str, Any]:
    """Return the content of ``results.json`` (see the module docstring)."""
    elo = head_to_head(records) if len(lineup) == 2 else None
    return {
        "schema_version": RESULTS_SCHEMA_VERSION,
        "config": dict(config),
        "seed_key": seed_key,
        "planned_games": planned_games,
        "finished_games": len(records),
        "abandoned_games": sum(record.abandoned for record in records),
        "interrupted": interrupted,
        "failed_run": dict(failed_run) if failed_run else None,
        "labels": sorted({record.plan.label for record in records}),
        "bots": [
            {
                "name": summary.name,
                "command": list(spec.command) if spec.command else None,
                "games": summary.games,
                "wins": round(summary.wins, 4),
                "win_rate": round(summary.win_rate.value, 4) if summary.win_rate else None,
                "win_rate_ci95": _interval(summary.win_rate, 4),
                "mean_score": round(summary.mean_score.value, 3) if summary.mean_score else None,
                "mean_score_ci95": _interval(summary.mean_score, 3),
                "mean_move_ms": summary.mean_move_ms,
                "p95_move_ms": summary.p95_move_ms,
                "timeouts": summary.timeouts,
                "illegal_moves": summary.illegal_moves,
                "stand_in_moves": summary.stand_in_moves,
                "crashes": summary.crashes,
                "forfeits": summary.forfeits,
                "forfeit_reasons": summary.forfeit_reasons,
                "abandoned": summary.abandoned,
            }
            for spec, summary in zip(lineup, summarise(lineup, records), strict=True)
        ],
        "elo_difference": None
        if elo is None
        else {
            "of": lineup[0].name,
            "over": lineup[1].name,
            "value": _finite(round(elo.value, 1)),
            "low": _finite(round(elo.low, 1)),
            "high": _finite(round(elo.high, 1)),
        },
        "games": [
            {
                "number": record.plan.number,
                "label": record.plan.label,
                # A string: a uint64 does not survive JSON readers that use doubles.
                "seed": str(record.plan.seed),
                "match": record.match,
                "bots": [lineup[bot].name for bot in record.plan.lineup_at_seat],
                "scores": [seat.score for seat in record.seats],
                "ranks": [seat.rank for seat in record.seats],
                "forfeited": [seat.forfeited for seat in record.seats],
                "forfeit_reasons": [seat.forfeit_reason for seat in record.seats],
                "stand_in_moves": [seat.stand_in_moves for seat in record.seats],
                "timeouts": [seat.timeouts for seat in record.seats],
                "illegal_moves": [seat.illegal_moves for seat in record.seats],
                "crashes": [seat.failure for seat in record.seats],
                "reason": record.reason,
                "abandoned": record.abandoned,
                "replay": record.replay,
            }
            for record in sorted(records, key=lambda record: record.plan.number)
        ],
    }


def _rate(estimate: Estimate | None) -> str:
    if estimate is None:
        return "-"
    return f"{estimate.value * 100:.1f} ({estimate.low * 100:.0f}-{estimate.high * 100:.0f})"


def _plus_minus(estimate: Estimate | None) -> str:
    return "-" if estimate is None else f"{estimate.value:.1f}±{estimate.margin:.1f}"


def _ms(value: float | None) -> str:
    return "-" if value is None else f"{value:.1f}"


def _elo_caption(lineup: Sequence[BotSpec], records: Sequence[GameRecord]) -> str | None:
    elo = head_to_head(records) if len(lineup) == 2 else None
    if elo is None:
        return None
    label = f"Elo {lineup[0].name} - {lineup[1].name}:"
    if not math.isfinite(elo.value):
        winner = lineup[0].name if elo.value > 0 else lineup[1].name
        return f"{label} unbounded ({winner} won every game)"
    low = f"{elo.low:+.0f}" if math.isfinite(elo.low) else "-inf"
    high = f"{elo.high:+.0f}" if math.isfinite(elo.high) else "+inf"
    return f"{label} {elo.value:+.0f} (95% CI {low} .. {high})"


def _forfeits_caption(summaries: Sequence[BotSummary]) -> str | None:
    parts = [
        f"{summary.name} "
        + ", ".join(f"{count} {reason}" for reason, count in summary.forfeit_reasons.items())
        for summary in summaries
        if summary.forfeits
    ]
    return "Forfeits: " + "; ".join(parts) if parts else None


def results_table(lineup: Sequence[BotSpec], records: Sequence[GameRecord], title: str) -> Table:
    """Return the results as a rich table, one row per bot, best win rate first.

    Columns: games, wins (shared wins as fractions), win rate with its 95 % interval,
    mean score ± its 95 % margin, mean and p95 think time per move in ms, timeouts,
    illegal moves, stand-in moves, crashes and forfeits. The caption gives the Elo
    difference for two bots, the forfeits by reason and the abandoned games.
    """
    summaries = sorted(
        summarise(lineup, records),
        key=lambda summary: summary.win_rate.value if summary.win_rate else -1.0,
        reverse=True,
    )
    abandoned = sum(record.abandoned for record in records)
    captions = [
        _elo_caption(lineup, records),
        _forfeits_caption(summaries),
        f"Abandoned (nobody played, no winner): {abandoned} of {len(records)} games"
        if abandoned
        else None,
    ]
    caption = "\n".join(line for line in captions if line) or None
    table = Table(title=title, title_justify="left", caption=caption, caption_justify="left")
    table.add_column("bot", no_wrap=True)
    for header in ("games", "wins", "win % (95% CI)", "score", "ms avg", "ms p95"):
        table.add_column(header, justify="right", no_wrap=True)
    for header in ("timeouts", "illegal", "stand-ins", "crashes", "forfeits"):
        table.add_column(header, justify="right")
    for summary in summaries:
        table.add_row(
            summary.name,
            str(summary.games),
            f"{summary.wins:g}",
            _rate(summary.win_rate),
            _plus_minus(summary.mean_score),
            _ms(summary.mean_move_ms),
            _ms(summary.p95_move_ms),
            str(summary.timeouts),
            str(summary.illegal_moves),
            str(summary.stand_in_moves),
            str(summary.crashes),
            str(summary.forfeits),
        )
    return table
