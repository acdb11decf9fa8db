"""Self-contained HTML replay viewers: one page per match, and a run's index of them.

:func:`build_html` turns a ``botarena.v1.Replay`` into one HTML file that needs nothing
else: the CSS, the common viewer (``viewer.js``), the game's renderer (its plugin's
``viewer`` script, such as ``qwirkle.js``) and the replay itself are inline, so it works
from ``file://`` with no network. The replay is embedded as a replay file holds it,
gzip'd binary protobuf, in base64: the browser's ``DecompressionStream`` unpacks it and
``protobuf.js`` decodes it, with a table of the messages made here from their
descriptors (``_schema.py``), into the proto3 JSON object the renderers read
(docs/replays.md, "Browser renderers"). :func:`build_index` makes the page that lists a
run's games.
"""

from __future__ import annotations

import base64
import gzip
import html
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

from botarena.server.service._registry import plugin_for_proto
from botarena.server.service.viewers._schema import replay_schema
from botarena.v1 import match_pb2

__all__ = ["IndexEntry", "IndexSeat", "build_html", "build_index", "build_live_html", "build_page"]

_HERE = Path(__file__).resolve().parent
_MARKER = re.compile(r"@@([A-Z_]+)@@")
_CLOSING_TAG = re.compile(r"</(script|style)", re.IGNORECASE)

_HEAD = """<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="generator" content="botarena">
<title>@@TITLE@@</title>
<style>
@@CSS@@
</style>
</head>
"""
"""The head of both pages: the title and the viewer's stylesheet."""

_PAGE = (
    _HEAD
    + """<body>
<div id="botarena-viewer" data-game="@@GAME@@"@@INDEX@@@@LIVE@@>
<noscript><p class="ba-error">This replay viewer needs JavaScript. @@SUMMARY@@</p></noscript>
</div>
<script id="botarena-replay" type="application/octet-stream" data-encoding="gzip+base64">
@@DATA@@
</script>
<script id="botarena-schema" type="application/json">
@@SCHEMA@@
</script>
<script>
@@PROTOBUF@@
</script>
<script>
@@VIEWER@@
</script>
<script>
@@RENDERER@@
</script>
<script>@@START@@</script>
</body>
</html>
"""
)

_INDEX = (
    _HEAD
    + """<body>
<main class="ba-index">
<h1>@@TITLE@@</h1>
<p>@@SUMMARY@@</p>
@@TABLE@@
</main>
</body>
</html>
"""
)


def _asset(name: str) -> str:
    """Return the text of a file of this package (the viewer's CSS and scripts)."""
    return (_HERE / name).read_text(encoding="utf-8")


def _inline(source: str, name: str) -> str:
    """Return ``source`` for a ``<script>`` or ``<style>`` element.

    Raises:
        ValueError: It holds a closing tag, which would end the element early.
    """
    if _CLOSING_TAG.search(source):
        raise ValueError(f"{name} contains a closing </script> or </style> tag")
    return source


def _fill(template: str, values: dict[str, str]) -> str:
    # One pass: a value (the embedded scripts) may itself contain @@...@@ text.
    return _MARKER.sub(lambda found: values[found.group(1)], template)


def _names(match: match_pb2.Match) -> list[str]:
    names = list(match.config.seat_names)
    count = max(match.config.seat_count, len(match.seats), len(names))
    by_seat = {status.seat: status.display_name for status in match.seats}
    return [
        by_seat.get(seat) or (names[seat] if seat < len(names) else f"seat {seat}")
        for seat in range(count)
    ]


def _summary(match: match_pb2.Match, title: str) -> str:
    names = _names(match)
    scores = {result.seat: result.score for result in match.outcome.results}
    seats = ", ".join(f"{name} {scores.get(seat, 0)}" for seat, name in enumerate(names))
    reason = f" ({match.outcome.reason})" if match.outcome.reason else ""
    return f"{title}: {seats}{reason}."


def build_html(
    replay: match_pb2.Replay,
    *,
    title: str | None = None,
    encoded: bytes | None = None,
    index: str | None = None,
) -> str:
    """Return one self-contained HTML page that plays ``replay`` back.

    Args:
        replay: A finished match's replay (``encode_replay``, ``GetReplay``).
        title: The page's title; by default the game and the seats' names.
        encoded: The same replay as a replay file holds it (gzip'd binary protobuf; an
            older file's gzip'd proto3 JSON reads too), to embed as it is: the runner
            has just written the file.
        index: A link back to the page listing the run's games (relative), if any.

    Raises:
        InvalidRequestError: The replay's game is not one the server knows.
        ValueError: The replay has no steps, or a script holds a closing tag.
    """
    if not replay.steps:
        raise ValueError("the replay has no steps")
    plugin = plugin_for_proto(replay.match.config.game)
    title = title or f"{plugin.title}: {' vs '.join(_names(replay.match))}"
    if encoded is None:
        binary = replay.SerializeToString(deterministic=True)
        encoded = gzip.compress(binary, compresslevel=9, mtime=0)
    return _viewer_page(
        replay.match,
        title=title,
        index=index,
        data=base64.b64encode(encoded).decode("ascii"),
        start="botarena.start();",
    )


def build_live_html(
    match: match_pb2.Match, *, events: str, replay: str, index: str | None = None
) -> str:
    """Return the page that shows a running match live, from a spectator's view only.

    The page takes the match's steps from the server-sent events at ``events`` and,
    once the match has ended, its full replay file from ``replay`` (``live.js``, after
    ``viewer.js``); it draws them with the same renderers as :func:`build_html`.

    Args:
        match: The match as GetMatch shows it (the seed left out while it runs).
        events: The address of the event stream (``text/event-stream``).
        replay: The address of the match's replay file once it has ended.
        index: A link back to the list of matches (relative), if any.

    Raises:
        InvalidRequestError: The match's game is not one the server knows.
        ValueError: A script holds a closing tag.
    """
    title = f"{plugin_for_proto(match.config.game).title}: {' vs '.join(_names(match))}"
    live = f' data-live="{html.escape(events, quote=True)}"'
    live += f' data-replay="{html.escape(replay, quote=True)}"'
    # live.js only here: an offline replay page loads nothing from anywhere.
    start = _inline(_asset("live.js"), "live.js") + "\nbotarenaLive.start();"
    return _viewer_page(match, title=title, index=index, live=live, start=start)


def _viewer_page(
    match: match_pb2.Match,
    *,
    title: str,
    index: str | None,
    start: str,
    data: str = "",
    live: str = "",
) -> str:
    """The viewer's page of ``match``: its data (if any), the scripts, then ``start``."""
    plugin = plugin_for_proto(match.config.game)
    viewer = plugin.viewer
    return _fill(
        _PAGE,
        {
            "TITLE": html.escape(title),
            "GAME": html.escape(plugin.name),
            "INDEX": "" if index is None else f' data-index="{html.escape(index, quote=True)}"',
            "LIVE": live,
            "SUMMARY": html.escape(_summary(match, plugin.title)),
            "CSS": _inline(_asset("viewer.css"), "viewer.css"),
            "DATA": data,
            "SCHEMA": _inline(replay_schema(), "the replay schema"),
            "PROTOBUF": _inline(_asset("protobuf.js"), "protobuf.js"),
            "VIEWER": _inline(_asset("viewer.js"), "viewer.js"),
            "RENDERER": _inline(viewer.script_source(), viewer.script),
            "START": start,
        },
    )


def build_page(title: str, body: str, *, css: str = "") -> str:
    """Return a page with the viewer's stylesheet (and ``css``) around ``body``.

    Args:
        title: The page's title (plain text: it is escaped here).
        body: The page's body, HTML: whoever builds it escapes what it holds.
        css: More CSS for the page.
    """
    return _fill(
        _HEAD + "<body>\n@@BODY@@\n</body>\n</html>\n",
        {
            "TITLE": html.escape(title),
            "CSS": _inline(_asset("viewer.css") + css, "the page's CSS"),
            "BODY": body,
        },
    )


@dataclass(frozen=True, slots=True)
class IndexSeat:
    """One seat of a game in a run's index: who played it and how it did.

    Attributes:
        name: The bot's name.
        score: Its final score.
        rank: Its place, 1 = first (shared places repeat).
        forfeit_reason: Why it forfeited; empty when it did not.
    """

    name: str
    score: int
    rank: int
    forfeit_reason: str = ""


@dataclass(frozen=True, slots=True)
class IndexEntry:
    """One game of a run's index.

    Attributes:
        number: The game's number in the run (1-based).
        seats: Its seats, by seat index.
        reason: Why it ended (``MatchOutcome.reason``).
        viewer: The game's viewer page, relative to the index; ``None`` when it has none.
        abandoned: Nobody played (STATE_ABANDONED): nobody won.
        seed: The deal's label (``--seed`` and its successors), if known.
    """

    number: int
    seats: tuple[IndexSeat, ...]
    reason: str
    viewer: str | None = None
    abandoned: bool = False
    seed: int | None = None

    @property
    def winners(self) -> tuple[str, ...]:
        """The names of the seats ranked first; none in an abandoned game."""
        if self.abandoned:
            return ()
        return tuple(seat.name for seat in self.seats if seat.rank == 1)


def _row(entry: IndexEntry) -> str:
    seats = []
    for seat in entry.seats:
        text = f"{html.escape(seat.name)} {seat.score}"
        if seat.forfeit_reason:
            reason = html.escape(seat.forfeit_reason.replace("_", " "))
            text += f' <span class="ba-chip ba-forfeit">forfeit: {reason}</span>'
        css = "ba-winner" if seat.rank == 1 and not entry.abandoned else "ba-loser"
        seats.append(f'<span class="{css}">{text}</span>')
    winners = ", ".join(html.escape(name) for name in entry.winners) or (
        '<span class="ba-muted">nobody</span>'
    )
    link = (
        f'<a href="{html.escape(entry.viewer, quote=True)}">watch</a>'
        if entry.viewer
        else '<span class="ba-muted">no viewer</span>'
    )
    seed = "" if entry.seed is None else str(entry.seed)
    return (
        f'<tr data-game="{entry.number}"><td class="ba-num">{entry.number}</td>'
        f'<td class="ba-num">{seed}</td><td>{" · ".join(seats)}</td><td>{winners}</td>'
        f"<td>{html.escape(entry.reason.replace('_', ' '))}</td><td>{link}</td></tr>"
    )


def _wins(entries: Sequence[IndexEntry]) -> str:
    wins: dict[str, float] = {}
    for entry in entries:
        for seat in entry.seats:
            wins.setdefault(seat.name, 0.0)
        for name in entry.winners:
            wins[name] += 1 / len(entry.winners)
    parts = [f"{html.escape(name)} {count:g}" for name, count in wins.items()]
    return f"{len(entries)} games · wins: {', '.join(parts)}" if parts else "no games"


def build_index(entries: Iterable[IndexEntry], *, title: str = "botarena run") -> str:
    """Return the HTML page listing a run's games, each with a link to its viewer."""
    ordered = sorted(entries, key=lambda entry: entry.number)
    table = (
        '<table><thead><tr><th class="ba-num">game</th><th class="ba-num">seed</th>'
        "<th>seats and scores</th>"
        "<th>winner</th><th>end</th><th>viewer</th></tr></thead><tbody>\n"
        + "\n".join(_row(entry) for entry in ordered)
        + "\n</tbody></table>"
    )
    return _fill(
        _INDEX,
        {
            "TITLE": html.escape(title),
            "CSS": _inline(_asset("viewer.css"), "viewer.css"),
            "SUMMARY": _wins(ordered),
            "TABLE": table,
        },
    )
