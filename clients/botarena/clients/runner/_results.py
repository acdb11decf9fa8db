"""The results of a run: one record per game, a summary per bot, the table and the JSON.

``results.json`` is the machine-readable output (schema version 3): the run's
configuration, its ``seed_key`` and labels, the ``format`` (seats and the groups of bots
that met), the ``time_control``, one summary per bot (``name``, ``games``, ``wins``,
``win_rate``, ``pairwise_score`` and ``margin`` over its sets (``_samples``),
``mean_score``, ``timeouts``, ``illegal_moves``, ``stand_in_moves``, ``crashes``,
``forfeits`` and ``forfeit_reasons``, ``abandoned``, the intervals and latencies), the
Elo difference for two bots, ``versus`` (each pair of bots that met: the first one's
pairwise score, Elo and margin against the second), ``end_reasons`` (games by how they
ended), ``sprt`` for an SPRT run, one line per game (its ``label``, engine ``seed`` as a
string, end ``reason``, whether it was ``abandoned``, and per seat the same counts and the
forfeit reason), and ``failed_run`` when a bot stopped the run.

An abandoned game (nobody played) counts as a game and never as a win, for any seat; it
is left out of the Elo difference and the other sample statistics, which measure the
bots' play.

Each game's full record is also kept on its own as soon as it ends (``_records``,
``_folder``), which is what lets a run resume.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from rich.table import Table
from rich.text import Text

from botarena.clients.runner._plan import BotSpec
from botarena.clients.runner._records import GameRecord, SeatRecord
from botarena.clients.runner._samples import (
    deal_sets,
    margin_samples,
    score_samples,
    versus_samples,
)
from botarena.clients.runner._stats import (
    Estimate,
    elo_difference,
    mean_interval,
    wilson_interval,
)
from botarena.server.text import printable, printable_text

__all__ = [
    "RESULTS_SCHEMA_VERSION",
    "BotSummary",
    "GameRecord",
    "SeatRecord",
    "results_document",
    "results_table",
    "summarise",
]

RESULTS_SCHEMA_VERSION = 3


@dataclass(frozen=True, slots=True)
class BotSummary:
    """The aggregate of one bot over a run.

    ``pairwise`` and ``margin`` are means over the bot's sets (``_samples``): its mean
    pairwise result against its opponents, and its points minus theirs.
    """

    name: str
    games: int
    wins: float
    win_rate: Estimate | None
    pairwise: Estimate | None
    margin: Estimate | None
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
    sets = deal_sets(records)
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
        pairwise = score_samples(sets, index)
        margins = margin_samples(sets, index)
        summaries.append(
            BotSummary(
                name=spec.name,
                games=games,
                wins=wins,
                win_rate=wilson_interval(wins, games) if games else None,
                pairwise=mean_interval(pairwise) if pairwise else None,
                margin=mean_interval(margins) if margins else None,
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


def head_to_head(records: Sequence[GameRecord], first: int = 0, second: int = 1) -> Estimate | None:
    """Return the Elo difference of lineup bot ``first`` over ``second`` from their
    results against each other, one sample per set (``_samples``), or None if they never
    played each other."""
    scores = versus_samples(deal_sets(records), first, second)
    return elo_difference(scores) if scores else None


@dataclass(frozen=True, slots=True)
class Versus:
    """How lineup bot ``first`` fared against ``second``, over the sets both played.

    Attributes:
        first: A lineup index.
        second: A lineup index.
        sets: The sets both played.
        score: ``first``'s mean pairwise result against ``second``, with its interval.
        elo: The Elo difference that score implies.
        margin: ``first``'s points minus ``second``'s, a mean over the sets.
    """

    first: int
    second: int
    sets: int
    score: Estimate
    elo: Estimate
    margin: Estimate


def versus(lineup: Sequence[BotSpec], records: Sequence[GameRecord]) -> list[Versus]:
    """Return one :class:`Versus` per pair of lineup bots that met, lower index first."""
    sets = deal_sets(records)
    results = []
    for first in range(len(lineup)):
        for second in range(first + 1, len(lineup)):
            scores = versus_samples(sets, first, second)
            if not scores:
                continue
            margins = [
                sum(
                    game.seats[game.plan.lineup_at_seat.index(first)].score
                    - game.seats[game.plan.lineup_at_seat.index(second)].score
                    for game in deal.games
                )
                / len(deal.games)
                for deal in sets
                if first in deal.bots and second in deal.bots
            ]
            results.append(
                Versus(
                    first,
                    second,
                    len(scores),
                    mean_interval(scores),
                    elo_difference(scores),
                    mean_interval(margins),
                )
            )
    return results


def end_reasons(records: Sequence[GameRecord]) -> dict[str, int]:
    """Return how many games ended each way: the engine's end reason (``went_out``,
    ``blocked``, ``two_rows_locked``, ``penalties``, ...), ``forfeit`` when too few seats
    were left, ``abandoned``; most frequent first."""
    counts = Counter("abandoned" if record.abandoned else record.reason for record in records)
    return dict(counts.most_common())


def _interval(estimate: Estimate | None, digits: int) -> dict[str, float] | None:
    if estimate is None:
        return None
    return {
        "value": round(estimate.value, digits),
        "low": round(estimate.low, digits),
        "high": round(estimate.high, digits),
    }


def _value(estimate: Estimate | None, digits: int) -> float | None:
    return None if estimate is None else round(estimate.value, digits)


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
    run_format: Mapping[str, Any] | None = None,
    sprt: Mapping[str, Any] | None = None,
) -> dict[str, Any]:
    """Return the content of ``results.json`` (see the module docstring); ``run_format``
    and ``sprt`` are written as given."""
    elo = head_to_head(records) if len(lineup) == 2 else None
    return {
        "schema_version": RESULTS_SCHEMA_VERSION,
        "config": dict(config),
        "format": dict(run_format) if run_format else None,
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
                "win_rate": _value(summary.win_rate, 4),
                "win_rate_ci95": _interval(summary.win_rate, 4),
                "pairwise_score": _value(summary.pairwise, 4),
                "pairwise_score_ci95": _interval(summary.pairwise, 4),
                "margin": _value(summary.margin, 2),
                "margin_ci95": _interval(summary.margin, 2),
                "mean_score": _value(summary.mean_score, 3),
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
        "versus": [
            {
                "bot": lineup[pair.first].name,
                "opponent": lineup[pair.second].name,
                "sets": pair.sets,
                "pairwise_score": round(pair.score.value, 4),
                "pairwise_score_ci95": _interval(pair.score, 4),
                "elo": _finite(round(pair.elo.value, 1)),
                "elo_ci95": {
                    "low": _finite(round(pair.elo.low, 1)),
                    "high": _finite(round(pair.elo.high, 1)),
                },
                "margin": round(pair.margin.value, 2),
                "margin_ci95": _interval(pair.margin, 2),
            }
            for pair in versus(lineup, records)
        ],
        "end_reasons": end_reasons(records),
        "sprt": dict(sprt) if sprt else None,
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


def results_table(
    lineup: Sequence[BotSpec],
    records: Sequence[GameRecord],
    title: str,
    notes: Sequence[str] = (),
) -> Table:
    """Return the results as a rich table, one row per bot, best win rate first.

    Columns: games, wins (shared wins as fractions), win rate with its 95 % interval,
    for games of three or more seats the mean pairwise result over sets with its
    interval, the points margin and the mean score ± their 95 % margins, mean and p95
    think time per move in ms, timeouts, illegal moves, stand-in moves, crashes and
    forfeits. The caption gives the Elo difference for two bots, the forfeits by reason,
    the abandoned games, then ``notes`` (the time control, the SPRT).
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
        *notes,
    ]
    # Names in the caption too are text, not markup.
    shown = "\n".join(printable(line) for line in captions if line)
    caption = Text(shown) if shown else None
    # With two seats the pairwise result is the win rate (shared wins halved).
    many_seats = any(len(record.seats) > 2 for record in records)
    table = Table(title=title, title_justify="left", caption=caption, caption_justify="left")
    table.add_column("bot", no_wrap=True)
    headers = ["games", "wins", "win % (95% CI)"]
    headers += ["pairwise % (95% CI)"] if many_seats else []
    for header in (*headers, "margin", "score", "ms avg", "ms p95"):
        table.add_column(header, justify="right", no_wrap=True)
    for header in ("timeouts", "illegal", "stand-ins", "crashes", "forfeits"):
        table.add_column(header, justify="right")
    for summary in summaries:
        pairwise = [_rate(summary.pairwise)] if many_seats else []
        table.add_row(
            printable_text(summary.name),  # a name is text, not markup
            str(summary.games),
            f"{summary.wins:g}",
            _rate(summary.win_rate),
            *pairwise,
            _plus_minus(summary.margin),
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
