"""The tables a run prints besides the per-bot results: head to head, cross, and endings.

* :func:`versus_table`: one row per pair of bots that met (a gauntlet: its bot against
  each opponent), with the pairwise score, the Elo difference and the points margin, each
  with its 95 % interval over the sets the two played.
* :func:`cross_table`: a round-robin's cross table, row bot against column bot.
* :func:`endings_table`: how the games ended (went out, blocked, two rows locked,
  penalties, forfeit, abandoned, ...).
"""

from __future__ import annotations

import math
from collections.abc import Sequence

from rich.table import Table

from botarena.clients.runner._plan import BotSpec
from botarena.clients.runner._records import GameRecord
from botarena.clients.runner._results import Versus, end_reasons, summarise, versus
from botarena.clients.runner._stats import Estimate
from botarena.server.text import printable_text

__all__ = ["cross_table", "endings_table", "versus_table"]


def _percent(estimate: Estimate) -> str:
    return f"{estimate.value * 100:.1f} ({estimate.low * 100:.0f}-{estimate.high * 100:.0f})"


def _signed(value: float) -> str:
    return f"{value:+.0f}" if math.isfinite(value) else ("+inf" if value > 0 else "-inf")


def _elo(estimate: Estimate) -> str:
    return f"{_signed(estimate.value)} ({_signed(estimate.low)} .. {_signed(estimate.high)})"


def _oriented(pair: Versus, first: int) -> Versus:
    """Return ``pair`` seen from ``first`` (one of its two bots)."""
    if pair.first == first:
        return pair
    score, elo, margin = pair.score, pair.elo, pair.margin
    return Versus(
        first=pair.second,
        second=pair.first,
        sets=pair.sets,
        score=Estimate(1 - score.value, 1 - score.high, 1 - score.low),
        elo=Estimate(-elo.value, -elo.high, -elo.low),
        margin=Estimate(-margin.value, -margin.high, -margin.low),
    )


def versus_table(
    lineup: Sequence[BotSpec], records: Sequence[GameRecord], title: str, focus: int | None = None
) -> Table:
    """Return one row per pair of bots that met, each seen from ``focus`` when it is one
    of the two (a gauntlet's bot), strongest result first."""
    pairs = versus(lineup, records)
    if focus is not None:
        pairs = [_oriented(pair, focus) for pair in pairs if focus in (pair.first, pair.second)]
    pairs.sort(key=lambda pair: pair.score.value, reverse=True)
    table = Table(title=title, title_justify="left")
    table.add_column("bot", no_wrap=True)
    table.add_column("opponent", no_wrap=True)
    for header in ("sets", "pairwise % (95% CI)", "Elo (95% CI)", "margin"):
        table.add_column(header, justify="right", no_wrap=True)
    for pair in pairs:
        table.add_row(
            printable_text(lineup[pair.first].name),  # a name is text, not markup
            printable_text(lineup[pair.second].name),
            str(pair.sets),
            _percent(pair.score),
            _elo(pair.elo),
            f"{pair.margin.value:+.1f}±{pair.margin.margin:.1f}",
        )
    return table


def cross_table(lineup: Sequence[BotSpec], records: Sequence[GameRecord], title: str) -> Table:
    """Return the cross table: the row bot's pairwise score (%) against the column bot,
    ± its 95 % margin, over the sets both played; ``overall`` is the row bot's score
    against all its opponents. Best overall first."""
    pairs = {(pair.first, pair.second): pair for pair in versus(lineup, records)}
    overall = [summary.pairwise for summary in summarise(lineup, records)]
    order = sorted(
        range(len(lineup)),
        key=lambda index: score.value if (score := overall[index]) else -1.0,
        reverse=True,
    )
    table = Table(title=title, title_justify="left")
    table.add_column("bot", no_wrap=True)
    for index in order:
        table.add_column(printable_text(lineup[index].name), justify="right", no_wrap=True)
    table.add_column("overall", justify="right", no_wrap=True)
    for row in order:
        cells = []
        for column in order:
            pair = pairs.get((min(row, column), max(row, column)))
            if row == column or pair is None:
                cells.append("-")
                continue
            versus_column = _oriented(pair, row).score
            cells.append(f"{versus_column.value * 100:.0f}±{versus_column.margin * 100:.0f}")
        total = overall[row]
        table.add_row(printable_text(lineup[row].name), *cells, _percent(total) if total else "-")
    return table


def endings_table(records: Sequence[GameRecord], title: str = "How the games ended") -> Table:
    """Return the games by end reason, with the games in which a seat forfeited."""
    forfeited = sum(
        any(seat.forfeited for seat in record.seats) and not record.abandoned for record in records
    )
    caption = (
        f"A seat forfeited (timeouts, illegal moves, crashes) in {forfeited} of "
        f"{len(records)} games"
        if forfeited
        else None
    )
    table = Table(title=title, title_justify="left", caption=caption, caption_justify="left")
    table.add_column("ended by", no_wrap=True)
    table.add_column("games", justify="right")
    table.add_column("%", justify="right")
    for reason, count in end_reasons(records).items():
        shown = printable_text(reason.replace("_", " "))  # the server's words, not markup
        table.add_row(shown, str(count), f"{100 * count / len(records):.1f}")
    return table
