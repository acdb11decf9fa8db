"""``build_html`` and ``build_index`` without a browser: self-contained, faithful pages."""

from __future__ import annotations

import base64
import gzip
import json
import re
from pathlib import Path

import pytest

from botarena.clients.replays import REPLAY_FILE_NAME, save_replay
from botarena.server.service.viewers._schema import message_schema
from botarena.server.service.viewers.html import IndexEntry, IndexSeat, build_html, build_index
from botarena.v1 import match_pb2

from .conftest import GAMES, PlayedGame

_EMBEDDED = re.compile(r'<script id="botarena-replay"[^>]*>\s*([A-Za-z0-9+/=]+)\s*</script>')


def _embedded(page: str) -> bytes:
    found = _EMBEDDED.search(page)
    assert found is not None
    return base64.b64decode(found.group(1))


@pytest.mark.parametrize("name", GAMES)
def test_a_page_loads_nothing_from_anywhere(name: str, games: dict[str, PlayedGame]) -> None:
    page = games[name].page.read_text(encoding="utf-8")
    assert "<link" not in page
    assert not re.search(r"\s(src|href)\s*=", page)  # no script, image or style by address
    assert "@import" not in page
    assert "url(" not in page
    assert "fetch(" not in page
    assert "XMLHttpRequest" not in page
    # The only address is SVG's namespace name, which is never fetched.
    assert set(re.findall(r"https?://[^\s\"'`<>)]+", page)) == {"http://www.w3.org/2000/svg"}


@pytest.mark.parametrize("name", GAMES)
def test_a_page_embeds_the_whole_replay(name: str, games: dict[str, PlayedGame]) -> None:
    game = games[name]
    data = gzip.decompress(_embedded(game.page.read_text(encoding="utf-8")))
    assert match_pb2.Replay.FromString(data) == game.replay  # binary protobuf


def test_a_page_embeds_the_decoders_schema(games: dict[str, PlayedGame]) -> None:
    page = games["qwixx"].page.read_text(encoding="utf-8")
    found = re.search(
        r'<script id="botarena-schema" type="application/json">\s*(.*?)\s*</script>', page
    )
    assert found is not None
    assert json.loads(found.group(1)) == message_schema(match_pb2.Replay.DESCRIPTOR)


def test_the_same_replay_makes_the_same_page(games: dict[str, PlayedGame]) -> None:
    replay = games["qwixx"].replay
    assert build_html(replay) == build_html(replay)


def test_a_replay_file_is_embedded_as_it_is(games: dict[str, PlayedGame], tmp_path: Path) -> None:
    replay = games["queendomino"].replay
    path = save_replay(replay, tmp_path / REPLAY_FILE_NAME)
    page = build_html(replay, encoded=path.read_bytes(), index="../../index.html")
    assert _embedded(page) == path.read_bytes()
    assert 'data-index="../../index.html"' in page


def test_a_replay_without_steps_has_no_page(games: dict[str, PlayedGame]) -> None:
    replay = match_pb2.Replay()
    replay.match.CopyFrom(games["qwirkle"].replay.match)
    with pytest.raises(ValueError, match="no steps"):
        build_html(replay)


def test_the_title_names_the_game_and_the_seats(games: dict[str, PlayedGame]) -> None:
    page = build_html(games["qwirkle"].replay)
    assert "<title>Qwirkle: greedy vs random</title>" in page
    assert "<title>Game 7</title>" in build_html(games["qwirkle"].replay, title="Game 7")


def test_the_index_has_a_row_per_game_in_order_with_its_winner() -> None:
    entries = [
        IndexEntry(2, (IndexSeat("b", 3, 1), IndexSeat("a", 1, 2)), "went_out", "games/2.html"),
        IndexEntry(
            1,
            (IndexSeat("a", 9, 1), IndexSeat("b <x>", 2, 2, "absent")),
            "forfeit",
            None,
            seed=5,
        ),
        IndexEntry(3, (IndexSeat("a", 0, 2), IndexSeat("b", 0, 2)), "abandoned", abandoned=True),
    ]
    page = build_index(entries, title="run & co")
    rows = re.findall(r'<tr data-game="(\d+)">(.*?)</tr>', page)
    assert [number for number, _ in rows] == ["1", "2", "3"]
    first, second, third = (row for _, row in rows)
    assert "b &lt;x&gt; 2" in first
    assert "forfeit: absent" in first
    assert '<td class="ba-num">5</td>' in first
    assert "no viewer" in first
    assert '<a href="games/2.html">watch</a>' in second
    assert "nobody" in third  # an abandoned game has no winner
    assert "<title>run &amp; co</title>" in page
    assert "3 games · wins: a 1, b &lt;x&gt; 0, b 1" in page
