"""The web UI's pages, drawn on the server from the messages the gRPC API serves.

Every function here takes protobuf messages as GetMatch, ListMatches, GetLeaderboard and
ListBotMatches answer them (so a page shows nothing those calls do not), and returns
HTML in which every name and string is escaped: bot and seat names are user-supplied.
"""

from __future__ import annotations

import datetime
import html
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from importlib import resources

from botarena.server.service._registry import PLUGINS, plugin_for_proto
from botarena.server.service.viewers.html import build_page
from botarena.v1 import ladder_pb2, match_pb2

__all__ = [
    "Board",
    "MatchList",
    "bot_page",
    "error_page",
    "ladder_page",
    "matches_page",
]

_STATES = {
    match_pb2.Match.STATE_ACTIVE: "running",
    match_pb2.Match.STATE_FINISHED: "finished",
    match_pb2.Match.STATE_ABANDONED: "abandoned",
}


def _css() -> str:
    return resources.files(__package__).joinpath("web.css").read_text(encoding="utf-8")


def _text(value: object) -> str:
    return html.escape(str(value))


def _attr(value: object) -> str:
    return html.escape(str(value), quote=True)


_NUM = ' class="ba-num"'


def _here(shown: bool) -> str:
    """The class of the link to the page shown."""
    return ' class="wb-here"' if shown else ""


def _layout(title: str, here: str, body: str) -> str:
    """A page of the web UI: the navigation bar, then ``body`` (HTML)."""
    links = [("/", "Matches", "matches"), ("/ladder", "Ladder", "ladder")]
    nav = "".join(f'<a href="{href}"{_here(key == here)}>{label}</a>' for href, label, key in links)
    return build_page(
        f"{title} · botarena",
        f'<nav class="wb-nav"><span class="ba-brand">botarena</span>{nav}</nav>\n'
        f'<main class="ba-index">\n{body}\n</main>',
        css=_css(),
    )


def _time(stamp: object) -> str:
    """A ``google.protobuf.Timestamp`` as UTC, to the second."""
    seconds = getattr(stamp, "seconds", 0)
    if not seconds:
        return ""
    moment = datetime.datetime.fromtimestamp(seconds, datetime.UTC)
    return moment.strftime("%Y-%m-%d %H:%M:%S")


def _game_title(game: int) -> str:
    try:
        return plugin_for_proto(game).title
    except Exception:  # a stored match of a game this server no longer hosts
        return f"game {game}"


def _table(headers: Sequence[tuple[str, bool]], rows: Iterable[str], testid: str) -> str:
    """A table; ``headers`` are (label, numeric) pairs, ``rows`` finished ``<tr>``."""
    head = "".join(
        f"<th{_NUM if numeric else ''}>{_text(label)}</th>" for label, numeric in headers
    )
    body = "\n".join(rows)
    return (
        f'<table data-testid="{testid}"><thead><tr>{head}</tr></thead>'
        f"<tbody>\n{body}\n</tbody></table>"
    )


def error_page(status: int, message: str) -> str:
    """The page of an HTTP error (``message`` is plain text)."""
    return _layout(
        f"{status}",
        "",
        f'<h1>{status}</h1><p data-testid="error">{_text(message)}</p>',
    )


# ---------------------------------------------------------------------- matches


def _seats(match: match_pb2.Match) -> str:
    ranks = {result.seat: result.rank for result in match.outcome.results}
    parts = []
    for status in match.seats:
        name = status.display_name or f"seat {status.seat}"
        won = ranks.get(status.seat) == 1 and match.state == match_pb2.Match.STATE_FINISHED
        css = "ba-winner" if won or match.state == match_pb2.Match.STATE_ACTIVE else "ba-loser"
        text = f"{_text(name)} {status.score}"
        if status.forfeited:
            reason = _text(status.forfeit_reason.replace("_", " "))
            text += f' <span class="ba-chip ba-forfeit">forfeit: {reason}</span>'
        parts.append(f'<span class="{css}" data-seat="{status.seat}">{text}</span>')
    return " · ".join(parts)


def _state(match: match_pb2.Match) -> str:
    label = _STATES.get(match.state, "unknown")
    if match.state == match_pb2.Match.STATE_ACTIVE:
        return f'<span class="wb-live">● live</span> v{match.state_version}'
    reason = match.outcome.reason.replace("_", " ")
    return f"{_text(label)} ({_text(reason)})" if reason else _text(label)


def _match_row(match: match_pb2.Match) -> str:
    match_id = match.name.removeprefix("matches/")
    return (
        f'<tr data-match="{_attr(match_id)}" data-state="{_attr(_STATES.get(match.state, ""))}">'
        f"<td>{_text(_game_title(match.config.game))}</td><td>{_seats(match)}</td>"
        f"<td>{_state(match)}</td><td>{_time(match.create_time)}</td>"
        f'<td><a href="/matches/{_attr(match_id)}">'
        f"{'watch' if match.state == match_pb2.Match.STATE_ACTIVE else 'replay'}</a></td></tr>"
    )


def _matches_table(matches: Sequence[match_pb2.Match], testid: str, empty: str) -> str:
    if not matches:
        return f'<p class="wb-empty" data-testid="{testid}">{_text(empty)}</p>'
    headers = [("game", False), ("seats and scores", False), ("state", False)]
    headers += [("started (UTC)", False), ("", False)]
    return _table(headers, (_match_row(match) for match in matches), testid)


def _game_filters(links: Iterable[tuple[str, str, bool]]) -> str:
    """Links to the same page for each game: (address, label, whether shown now)."""
    return (
        '<div class="wb-filters" data-testid="filters">'
        + "".join(
            f'<a href="{_attr(href)}"{_here(here)}>{_text(label)}</a>'
            for href, label, here in links
        )
        + "</div>"
    )


@dataclass(frozen=True, slots=True)
class MatchList:
    """A page of one of the front page's lists.

    Attributes:
        state: ``running`` or ``finished`` (its ``?state=``).
        matches: The matches of the page, newest first, as ListMatches serves them.
        following: The address of the next page; empty on the last.
        first: Whether this is the list's first page.
    """

    state: str
    matches: Sequence[match_pb2.Match]
    following: str
    first: bool


_LIST_TEXT = {
    "running": ("Running", "No match is running."),
    "finished": ("Recent", "No match has finished yet."),
}


def _next_link(href: str, testid: str) -> str:
    """The link to a list's next page, if there is one."""
    if not href:
        return ""
    return f'<p class="wb-pages"><a href="{_attr(href)}" data-testid="{testid}">next page →</a></p>'


def matches_page(lists: Sequence[MatchList], game: str) -> str:
    """The front page: a page of the running matches and of the finished ones (or of
    one of them).

    Args:
        lists: The lists shown, in order.
        game: The game they are filtered on (a registry name), empty for all.
    """
    links = [("/", "all games", not game)]
    links += [(f"/?game={p.name}", p.title, p.name == game) for p in PLUGINS]
    body = "<h1>Matches</h1>" + _game_filters(links)
    for shown in lists:
        title, empty = _LIST_TEXT[shown.state]
        testid = "running" if shown.state == "running" else "recent"
        heading = title if shown.first else f"{title} (older)"
        body += (
            f"<h2>{_text(heading)}</h2>"
            + _matches_table(shown.matches, testid, empty)
            + _next_link(shown.following, f"{testid}-next")
        )
    return _layout("Matches", "matches", body)


# ---------------------------------------------------------------------- ladder


def _win_percent(entry: ladder_pb2.LeaderboardEntry) -> str:
    return f"{100 * entry.wins / entry.games:.1f}" if entry.games else "-"


def _status(entry: ladder_pb2.LeaderboardEntry) -> str:
    if entry.paused:
        return '<span class="ba-chip ba-forfeit">paused</span>'
    return "connected" if entry.connected else '<span class="ba-muted">offline</span>'


def _leaderboard(entries: Sequence[ladder_pb2.LeaderboardEntry], game: str) -> str:
    if not entries:
        return f'<p class="wb-empty" data-testid="leaderboard-{game}">No bot plays this yet.</p>'
    headers = [
        ("rank", True),
        ("bot", False),
        ("owner", False),
        ("rating", True),
        ("mu", True),
        ("sigma", True),
        ("games", True),
        ("win %", True),
        ("timeouts", True),
        ("crashes", True),
        ("status", False),
    ]
    rows = []
    for entry in entries:
        bot_id = entry.bot.name.removeprefix("bots/")
        rows.append(
            f'<tr data-bot="{_attr(bot_id)}"><td class="ba-num">{entry.rank}</td>'
            f'<td><a href="/bots/{_attr(bot_id)}">{_text(entry.bot.display_name)}</a></td>'
            f"<td>{_text(entry.bot.owner)}</td>"
            f'<td class="ba-num">{entry.conservative_rating:.2f}</td>'
            f'<td class="ba-num">{entry.mu:.2f}</td><td class="ba-num">{entry.sigma:.2f}</td>'
            f'<td class="ba-num">{entry.games}</td><td class="ba-num">{_win_percent(entry)}</td>'
            f'<td class="ba-num">{entry.timeouts}</td><td class="ba-num">{entry.crashes}</td>'
            f"<td>{_status(entry)}</td></tr>"
        )
    return _table(headers, rows, f"leaderboard-{game}")


@dataclass(frozen=True, slots=True)
class Board:
    """A page of one game's leaderboard.

    Attributes:
        game: The game's registry name.
        title: The game's title.
        entries: The entries of the page, best first, as GetLeaderboard serves them.
        following: The address of the next page; empty on the last.
        first: Whether this is the board's first page.
    """

    game: str
    title: str
    entries: Sequence[ladder_pb2.LeaderboardEntry]
    following: str
    first: bool


def ladder_page(boards: Sequence[Board]) -> str:
    """The leaderboards: a page of each game's shown; one game's alone is that game's
    page."""
    shown = boards[0].game if len(boards) == 1 else ""
    links = [("/ladder", "all games", not shown)]
    links += [(f"/ladder/{p.name}", p.title, p.name == shown) for p in PLUGINS]
    body = "<h1>Ladder</h1><p>Rating: mu - 3 sigma (OpenSkill), best first.</p>"
    body += _game_filters(links)
    for board in boards:
        heading = board.title if board.first else f"{board.title} (further down)"
        body += (
            f"<h2>{_text(heading)}</h2>"
            + _leaderboard(board.entries, board.game)
            + _next_link(board.following, f"leaderboard-{board.game}-next")
        )
    return _layout("Ladder", "ladder", body)


# ---------------------------------------------------------------------- bots


@dataclass(frozen=True, slots=True)
class _Point:
    """The bot's rating after one of its matches."""

    label: str
    mu: float
    sigma: float


def _rating_chart(points: Sequence[_Point]) -> str:
    """An inline SVG of the bot's rating after each of its matches, oldest first: mu as
    a line in a band of mu - sigma to mu + sigma."""
    if not points:
        return '<p class="wb-empty" data-testid="rating-chart">No rated match yet.</p>'
    width, height = 720, 220
    left, right, top, bottom = 48, 16, 12, 24
    low = min(point.mu - point.sigma for point in points)
    high = max(point.mu + point.sigma for point in points)
    if high - low < 1e-9:
        low, high = low - 1, high + 1
    count = max(1, len(points) - 1)

    def x(index: int) -> float:
        return left + index / count * (width - left - right)

    def y(value: float) -> float:
        return top + (1 - (value - low) / (high - low)) * (height - top - bottom)

    def path(values: Iterable[tuple[int, float]]) -> str:
        return " ".join(f"{x(i):.1f},{y(value):.1f}" for i, value in values)

    line = path((i, point.mu) for i, point in enumerate(points))
    upper = path((i, point.mu + point.sigma) for i, point in enumerate(points))
    lower = path(reversed([(i, point.mu - point.sigma) for i, point in enumerate(points)]))
    dots = "".join(
        f'<circle class="wb-point" cx="{x(i):.1f}" cy="{y(point.mu):.1f}" r="3" '
        f'data-mu="{point.mu:.4f}" data-sigma="{point.sigma:.4f}">'
        f"<title>{_text(point.label)}: mu {point.mu:.2f}, sigma {point.sigma:.2f} "
        f"(rating {point.mu - 3 * point.sigma:.2f})</title></circle>"
        for i, point in enumerate(points)
    )
    return (
        f'<div class="wb-chart"><svg viewBox="0 0 {width} {height}" role="img" '
        f'aria-label="mu after each match, in a band of plus or minus one sigma" '
        f'data-testid="rating-chart" data-points="{len(points)}" preserveAspectRatio="none">'
        f'<line class="wb-axis" x1="{left}" x2="{width - right}" y1="{y(low):.1f}" '
        f'y2="{y(low):.1f}"/>'
        f'<line class="wb-axis" x1="{left}" x2="{left}" y1="{top}" y2="{y(low):.1f}"/>'
        f'<text x="{left - 6}" y="{y(high) + 4:.1f}" text-anchor="end">{high:.1f}</text>'
        f'<text x="{left - 6}" y="{y(low):.1f}" text-anchor="end">{low:.1f}</text>'
        f'<text x="{left}" y="{height - 6}">match 1</text>'
        f'<text x="{width - right}" y="{height - 6}" text-anchor="end">match {len(points)}</text>'
        f'<polygon class="wb-band" data-testid="sigma-band" points="{upper} {lower}"/>'
        f'<polyline class="wb-line" points="{line}"/>{dots}</svg></div>'
    )


def _bot_match_row(bot_name: str, match: ladder_pb2.LadderMatch) -> str:
    match_id = match.match.removeprefix("matches/")
    mine = next((seat for seat in match.seats if seat.bot.name == bot_name), None)
    seats = " · ".join(
        f'<span class="{"ba-winner" if seat.HasField("rank") and seat.rank == 1 else "ba-loser"}">'
        f"{_text(seat.bot.display_name)} {seat.score if seat.HasField('score') else ''}</span>"
        for seat in match.seats
    )
    if match.abandoned:
        result = "abandoned"
    elif mine is None or not mine.HasField("rank"):
        result = '<span class="wb-live">● running</span>'
    else:
        result = "won" if mine.rank == 1 else f"place {mine.rank}"
        if mine.forfeited:
            result += ' <span class="ba-chip ba-forfeit">forfeit</span>'
    rating = ""
    if mine is not None and mine.HasField("rating_after"):
        rating = f"{mine.rating_before:.2f} → {mine.rating_after:.2f}"
    return (
        f'<tr data-match="{_attr(match_id)}"><td>{_time(match.create_time)}</td>'
        f'<td>{seats}</td><td>{result}</td><td class="ba-num">{rating}</td>'
        f'<td><a href="/matches/{_attr(match_id)}">view</a></td></tr>'
    )


def bot_page(
    entry: ladder_pb2.LeaderboardEntry,
    matches: Sequence[ladder_pb2.LadderMatch],
    history: Sequence[ladder_pb2.LadderMatch],
) -> str:
    """A bot's page: its line of the leaderboard, its recent matches and its rating
    history (``history``: its matches newest first, for the chart)."""
    bot = entry.bot
    game = _game_title(bot.game)
    # In the order the matches were rated (they end, hence are rated, out of the order
    # they were created in when a bot plays several at once).
    rated = sorted(
        (
            (match.end_time.ToNanoseconds(), _time(match.end_time), seat)
            for match in history
            for seat in match.seats
            if seat.bot.name == bot.name and seat.HasField("mu_after")
        ),
        key=lambda item: item[0],
    )
    points = [_Point(label, seat.mu_after, seat.sigma_after) for _, label, seat in rated]
    stats = [
        ("rank", str(entry.rank)),
        ("rating", f"{entry.conservative_rating:.2f}"),
        ("mu", f"{entry.mu:.2f}"),
        ("sigma", f"{entry.sigma:.2f}"),
        ("games", str(entry.games)),
        ("win %", _win_percent(entry)),
    ]
    body = (
        f'<h1 data-testid="bot-name">{_text(bot.display_name)}</h1>'
        f"<p>{_text(game)} · owner {_text(bot.owner or '-')} · {_status(entry)}</p>"
        '<div class="wb-stats" data-testid="stats">'
        + "".join(f"<div>{_text(label)}<b>{_text(value)}</b></div>" for label, value in stats)
        + "</div><h2>Rating after each match: mu, and mu ± sigma</h2>"
        + _rating_chart(points)
        + "<h2>Recent matches</h2>"
    )
    if matches:
        headers = [("started (UTC)", False), ("seats and scores", False), ("result", False)]
        headers += [("rating", True), ("", False)]
        body += _table(headers, (_bot_match_row(bot.name, m) for m in matches), "bot-matches")
    else:
        body += '<p class="wb-empty" data-testid="bot-matches">No match yet.</p>'
    return _layout(bot.display_name, "ladder", body)
