"""The results of a run: one record per game, a summary per bot, the table and the JSON.

``results.json`` is the machine-readable output (schema version 1): the run's
configuration and seeds, one summary per bot (``name``, ``games``, ``wins``, ``win_rate``,
``mean_score``, ``timeouts``, ``illegal_moves``, ``crashes`` and their intervals and
latencies), the Elo difference for two bots, and one line per game.
"""

from __future__ import annotations

import math
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

RESULTS_SCHEMA_VERSION = 1


@dataclass(slots=True)
class SeatRecord:
    """What one seat did in one game.

    Attributes:
        score: Final score.
        rank: Final place, 1 = first (shared places possible).
        forfeited: The seat forfeited (timeouts, illegal moves, resignation).
        timeouts: Decisions the server made for the seat because its clock ran out.
        illegal_moves: Moves the server rejected as illegal.
        crashed: The bot's process (or in-process bot) failed before the match ended.
        think_seconds: Time the seat took for each of its own decisions.
    """

    score: int = 0
    rank: int = 0
    forfeited: bool = False
    timeouts: int = 0
    illegal_moves: int = 0
    crashed: bool = False
    think_seconds: list[float] = field(default_factory=list)


@dataclass(slots=True)
class GameRecord:
    """One finished game: its plan, what each seat did, and how it ended."""

    plan: GamePlan
    match: str
    seats: list[SeatRecord]
    reason: str
    replay: str | None = None

    def wins(self, seat: int) -> float:
        """Return the part of a win ``seat`` earned (shared first places split)."""
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
    crashes: int


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
                crashes=sum(record.seats[seat].crashed for record, seat in seats),
            )
        )
    return summaries


def head_to_head(records: Sequence[GameRecord]) -> Estimate | None:
    """Return the Elo difference of lineup bot 0 over bot 1 (two-bot runs only)."""
    scores = []
    for record in records:
        if len(record.seats) != 2:
            return None
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
) -> dict[str, Any]:
    """Return the content of ``results.json`` (see the module docstring)."""
    elo = head_to_head(records) if len(lineup) == 2 else None
    return {
        "schema_version": RESULTS_SCHEMA_VERSION,
        "config": dict(config),
        "planned_games": planned_games,
        "finished_games": len(records),
        "interrupted": interrupted,
        "seeds": sorted({record.plan.seed for record in records}),
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
                "crashes": summary.crashes,
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
                "seed": record.plan.seed,
                "match": record.match,
                "bots": [lineup[bot].name for bot in record.plan.lineup_at_seat],
                "scores": [seat.score for seat in record.seats],
                "ranks": [seat.rank for seat in record.seats],
                "forfeited": [seat.forfeited for seat in record.seats],
                "reason": record.reason,
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


def results_table(lineup: Sequence[BotSpec], records: Sequence[GameRecord], title: str) -> Table:
    """Return the results as a rich table, one row per bot, best win rate first.

    Columns: games, wins (shared wins as fractions), win rate with its 95 % interval,
    mean score ± its 95 % margin, mean and p95 think time per move in ms, timeouts,
    illegal moves and crashes; for two bots the caption gives the Elo difference.
    """
    table = Table(title=title, title_justify="left", caption=_elo_caption(lineup, records))
    table.add_column("bot", no_wrap=True)
    for header in ("games", "wins", "win % (95% CI)", "score", "ms avg", "ms p95"):
        table.add_column(header, justify="right", no_wrap=True)
    for header in ("timeouts", "illegal", "crashes"):
        table.add_column(header, justify="right")
    summaries = sorted(
        summarise(lineup, records),
        key=lambda summary: summary.win_rate.value if summary.win_rate else -1.0,
        reverse=True,
    )
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
            str(summary.crashes),
        )
    return table
