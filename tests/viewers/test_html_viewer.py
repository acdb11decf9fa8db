"""The HTML replay viewer in a real browser (headless Chromium): what a person sees.

Each test opens a page written by ``build_html`` from ``file://`` and reads the drawing:
names and final scores, as many tiles, marks and squares as the engine holds, stepping,
the version in the URL, play, the markers of the move list. Any console error fails the
test (the ``tab`` fixture). Screenshots go to test-artifacts/viewer-<game>.png.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from botarena.server.games.qwixx import Colour
from botarena.server.service.viewers.html import build_html
from botarena.v1 import match_pb2

from .conftest import GAMES, Page, PlayedGame, make_forfeit_game, make_game


def _qwirkle_counts(game: PlayedGame, version: int | None) -> dict[str, int]:
    view = game.engine_view(version)
    racks = [game.engine_view(version, seat).rack for seat in range(len(game.names))]
    return {"[data-tile]": len(view.board), "[data-rack-tile]": sum(len(r) for r in racks)}


def _qwixx_counts(game: PlayedGame, version: int | None) -> dict[str, int]:
    sheets = game.engine_view(version).sheets
    return {
        "[data-mark]": sum(len(row) for sheet in sheets for row in sheet.rows),
        "[data-lock-mark]": sum(sheet.has_lock(colour) for sheet in sheets for colour in Colour),
        "[data-penalty]": sum(sheet.penalties for sheet in sheets),
    }


def _queendomino_counts(game: PlayedGame, version: int | None) -> dict[str, int]:
    players = game.engine_view(version).players
    return {
        "[data-square]": sum(len(p.kingdom.squares) for p in players),
        "[data-building]": sum(len(p.kingdom.buildings) for p in players),
        "[data-knight]": sum(len(p.knight_cells) for p in players),
        "[data-tower]": sum(p.towers for p in players),
        "[data-castle]": len(players),
    }


COUNTS: dict[str, Callable[[PlayedGame, int | None], dict[str, int]]] = {
    "qwirkle": _qwirkle_counts,
    "qwixx": _qwixx_counts,
    "queendomino": _queendomino_counts,
}
"""Per game: selector -> how many of it the engine holds at a version (None: the end)."""


def test_every_game_has_its_pieces_counted() -> None:
    assert set(COUNTS) == set(GAMES)  # a new game's renderer needs its counts here


def _drawn(tab: Page, selectors: dict[str, int]) -> dict[str, int]:
    return {selector: tab.count(f"[data-testid=board] {selector}") for selector in selectors}


def _board_html(page: Any) -> str:
    return str(page.inner_html("[data-testid=board]"))


@pytest.mark.parametrize("name", GAMES)
def test_the_page_shows_the_bots_and_their_final_scores(
    name: str, games: dict[str, PlayedGame], tab: Page
) -> None:
    game = games[name]
    page = tab.open(game.page)
    outcome = game.replay.match.outcome
    assert tab.version() == game.match.state_version  # it opens at the end
    result = page.inner_text("[data-testid=result]")
    header = page.inner_text("header")
    for seat, bot in enumerate(game.names):
        assert bot in header
        score = next(r.score for r in outcome.results if r.seat == seat)
        assert page.inner_text(f"[data-testid=score-{seat}]") == str(score)
        assert str(score) in result
    winner = next(game.names[r.seat] for r in outcome.results if r.rank == 1)
    assert f"{winner} wins" in result
    assert page.inner_text("[data-testid=end-reason]").strip("()")
    assert "Game over" in page.inner_text("[data-testid=moves] li:last-child")
    tab.screenshot(f"viewer-{name}.png")


@pytest.mark.parametrize("name", GAMES)
def test_the_last_version_draws_what_the_engine_holds(
    name: str, games: dict[str, PlayedGame], tab: Page
) -> None:
    game = games[name]
    tab.open(game.page)
    expected = COUNTS[name](game, None)
    assert _drawn(tab, expected) == expected
    assert expected[next(iter(expected))] > 0  # a real game, not an empty board


def _first_change(game: PlayedGame, name: str) -> int:
    """The first version whose drawing has more of the game's first piece than before."""
    piece = next(iter(COUNTS[name](game, 0)))
    for version in range(1, game.match.state_version + 1):
        if COUNTS[name](game, version)[piece] > COUNTS[name](game, version - 1)[piece]:
            return version
    raise AssertionError("nothing was ever drawn")


@pytest.mark.parametrize("name", GAMES)
def test_stepping_forward_and_back_redraws_the_board(
    name: str, games: dict[str, PlayedGame], tab: Page
) -> None:
    game = games[name]
    version = _first_change(game, name)
    page = tab.open(game.page, f"#v={version - 1}")
    assert tab.version() == version - 1
    before = _board_html(page)
    assert _drawn(tab, COUNTS[name](game, version - 1)) == COUNTS[name](game, version - 1)
    page.keyboard.press("ArrowRight")
    assert tab.version() == version
    assert page.url.endswith(f"#v={version}")
    assert _board_html(page) != before
    assert _drawn(tab, COUNTS[name](game, version)) == COUNTS[name](game, version)
    tab.screenshot(f"viewer-{name}-first-change.png")
    page.keyboard.press("ArrowLeft")
    assert tab.version() == version - 1
    assert _board_html(page) == before


@pytest.mark.parametrize("name", GAMES)
def test_a_version_in_the_url_opens_the_viewer_there(
    name: str, games: dict[str, PlayedGame], tab: Page
) -> None:
    game = games[name]
    middle = game.match.state_version // 2
    page = tab.open(game.page, f"#v={middle}")
    assert tab.version() == middle
    assert page.input_value("input[type=range]") == str(middle)
    assert f"v{middle}" in page.inner_text("[data-testid=status]")
    expected = COUNTS[name](game, middle)
    assert _drawn(tab, expected) == expected
    current = page.locator("[data-testid=moves] li.ba-current")
    assert current.get_attribute("data-version") == str(middle)
    tab.screenshot(f"viewer-{name}-middle.png")


def test_every_control_moves_between_versions(games: dict[str, PlayedGame], tab: Page) -> None:
    game = games["qwixx"]
    last = game.match.state_version
    page = tab.open(game.page, "#v=3")
    page.keyboard.press("End")
    assert tab.version() == last
    page.keyboard.press("Home")
    assert tab.version() == 0
    page.keyboard.press("Shift+ArrowRight")
    assert tab.version() == 10
    page.click("button[aria-label^=Forward]")
    assert tab.version() == 11
    page.click("button[aria-label^=Back]")
    assert tab.version() == 10
    page.locator("input[type=range]").evaluate(
        "(slider) => { slider.value = 20; slider.dispatchEvent(new Event('input')); }"
    )
    assert tab.version() == 20
    page.click("[data-testid=moves] li[data-version='5']")
    assert tab.version() == 5
    page.evaluate("location.hash = '#v=7'")
    page.wait_for_function("document.getElementById('botarena-viewer').dataset.version === '7'")
    page.click("button[aria-label^=Last]")
    assert tab.version() == last
    page.click("button[aria-label^=First]")
    assert tab.version() == 0


def test_play_steps_on_by_itself_until_paused(games: dict[str, PlayedGame], tab: Page) -> None:
    game = games["qwirkle"]
    page = tab.open(game.page, "#v=0")
    page.select_option("select[aria-label=Speed]", "8")
    page.keyboard.press("Space")
    page.wait_for_function("Number(document.getElementById('botarena-viewer').dataset.version) > 2")
    page.keyboard.press("Space")
    paused = tab.version()
    page.wait_for_timeout(400)  # 3 steps' time at 8x
    assert tab.version() == paused
    assert page.get_attribute(".ba-play", "aria-label") == "Play"
    page.click(".ba-play")  # the button, then Space on it: one toggle each, not two
    assert page.get_attribute(".ba-play", "aria-label") == "Pause"
    page.keyboard.press("Space")
    assert page.get_attribute(".ba-play", "aria-label") == "Play"


def test_the_score_chart_draws_a_line_per_seat_and_jumps_on_click(
    games: dict[str, PlayedGame], tab: Page
) -> None:
    game = games["queendomino"]
    page = tab.open(game.page)
    assert tab.count("[data-testid=chart] polyline") == len(game.names)
    box = page.locator("[data-testid=chart] svg").bounding_box()
    page.mouse.click(box["x"] + box["width"] * 0.5, box["y"] + box["height"] / 2)
    assert 0 < tab.version() < game.match.state_version


@pytest.fixture(scope="module")
def troubled(tmp_path_factory: pytest.TempPathFactory) -> PlayedGame:
    """A Qwirkle game with stand-in moves (timeouts) and a rejected move."""
    return make_game(
        tmp_path_factory.mktemp("troubled"),
        "qwirkle",
        ("slowpoke", "random"),
        stand_in_every=7,
        illegal_at=6,
    )


def test_the_move_list_marks_stand_ins_and_shows_think_times(
    troubled: PlayedGame, tab: Page
) -> None:
    page = tab.open(troubled.page)
    steps = troubled.replay.steps
    moves = [s for s in steps if s.event.WhichOneof("kind") == "move_applied"]
    stand_ins = [s for s in moves if s.event.move_applied.by_timeout_policy]
    assert len(stand_ins) == troubled.stand_ins > 0
    assert tab.count("[data-testid=moves] .ba-stand-in") == len(stand_ins)
    for step in stand_ins[:3]:
        row = page.locator(f"[data-testid=moves] li[data-version='{step.event.state_version}']")
        assert "stand-in" in row.inner_text()
    times = page.locator("[data-testid=moves] li[data-kind=moveApplied] .ba-time").all_inner_texts()
    assert len(times) == len(moves)
    assert all(re.fullmatch(r"\d+ ms|\d+\.\d+ s", text) for text in times), times
    players = page.inner_text("[data-testid=players]")
    assert troubled.illegal == 1
    assert "1 illegal" in players
    assert f"{troubled.stand_ins // 2}" in players


def test_a_forfeit_is_marked_in_the_move_list_and_on_the_seat(tmp_path: Path, tab: Page) -> None:
    game = make_forfeit_game(tmp_path)
    page = tab.open(game.page)
    forfeit = page.locator("[data-testid=moves] li[data-kind=seatForfeited]")
    assert forfeit.count() == 1
    assert "quitter" in forfeit.inner_text()
    assert "forfeit: resigned" in forfeit.inner_text()
    assert "forfeit: resigned" in page.inner_text("[data-testid=players] [data-seat='2']")
    expected = COUNTS["qwixx"](game, None)
    assert _drawn(tab, expected) == expected
    tab.screenshot("viewer-qwixx-3-seats-forfeit.png")


@pytest.mark.parametrize("name", GAMES)
def test_renderers_draw_from_spectator_views_alone(
    name: str, games: dict[str, PlayedGame], tab: Page, tmp_path: Path
) -> None:
    # The live web UI will have spectator views only: no seat's hidden holdings.
    game = games[name]
    replay = match_pb2.Replay()
    replay.CopyFrom(game.replay)
    for step in replay.steps:
        del step.seat_views[:]
    path = tmp_path / "spectator.html"
    path.write_text(build_html(replay), encoding="utf-8")
    middle = game.match.state_version // 2
    tab.open(path, f"#v={middle}")
    expected = COUNTS[name](game, middle)
    if name == "qwirkle":
        view = game.engine_view(middle)
        assert tab.count("[data-rack-back]") == sum(view.rack_sizes)
        expected["[data-rack-tile]"] = 0
    assert _drawn(tab, expected) == expected


def test_bot_names_are_shown_as_text_never_as_markup(tmp_path: Path, tab: Page) -> None:
    names = ("</script><b id=injected>bold</b>", "a & <i>b</i>")
    game = make_game(tmp_path, "qwixx", names)
    page = tab.open(game.page)
    assert page.locator("#injected").count() == 0
    header = page.inner_text("header")
    assert names[0] in header
    assert names[1] in header
    assert names[0] in page.title()
