"""The web UI in headless Chromium: the leaderboard of a ladder run, a bot's page, live
match pages of every game that follow the match to its end, and a page refused by the
cap on streams. Screenshots go to ``test-artifacts/web-*.png``."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from botarena.server.service.web import WebSettings
from botarena.v1 import match_pb2

from ..conftest import Page  # noqa: TID252 - tests/ is no package
from .conftest import Table, WebServer, run_ladder, serve_web

_VIEWER = "#botarena-viewer"


def _at_version(tab: Page, version: int) -> None:
    tab.page.wait_for_function(
        f"document.querySelector('{_VIEWER}').dataset.version === '{version}'"
    )


def test_the_leaderboard_shows_the_bots_of_a_ladder_run(tmp_path: Path, tab: Page) -> None:
    with serve_web(tmp_path / "ladder.db") as server:
        ids = run_ladder(server, games=3)
        page = tab.page
        page.goto(server.url + "ladder/qwirkle")
        rows = page.locator("[data-testid=leaderboard-qwirkle] tbody tr")
        assert rows.count() == 2
        names = sorted(rows.nth(i).locator("td").nth(1).inner_text() for i in range(2))
        assert names == ["greedy", "random"]
        assert all(int(rows.nth(i).locator("td").nth(6).inner_text()) >= 3 for i in range(2))
        tab.screenshot("web-ladder.png")
        page.click("text=greedy")
        page.wait_for_selector("[data-testid=bot-name]")
        assert page.url.endswith(f"/bots/{ids['greedy']}")
        assert page.inner_text("[data-testid=bot-name]") == "greedy"
        assert tab.count("[data-testid=rating-chart] circle") >= 3
        assert tab.count("[data-testid=bot-matches] tbody tr") >= 3
        tab.screenshot("web-bot.png")


def test_a_live_match_page_follows_the_match_to_its_final_scores(
    web_server: WebServer, tab: Page
) -> None:
    table = Table(web_server, names=("greedy", "another greedy"))
    table.step(2)
    page = tab.page
    page.goto(web_server.url)
    assert tab.count("[data-testid=running] tbody tr") == 1
    tab.screenshot("web-matches.png")
    page.click("text=watch")
    page.wait_for_selector(f"{_VIEWER}[data-ready]")
    assert page.get_attribute(_VIEWER, "data-ready") == "true", tab.errors
    _at_version(tab, 2)
    tiles = tab.count("[data-tile]")
    assert tiles > 0
    # A spectator's page: every rack face down.
    assert tab.count("[data-rack-tile]") == 0
    assert tab.count("[data-rack-back]") > 0
    assert page.inner_text("[data-testid=result]").startswith("Live")
    tab.screenshot("web-live-start.png")

    match = table.step(8)
    _at_version(tab, match.state_version)
    assert tab.count("[data-tile]") > tiles
    assert tab.count("[data-rack-tile]") == 0
    tab.screenshot("web-live-middle.png")

    final = table.finish()
    assert final.state == match_pb2.Match.STATE_FINISHED
    _final_scores(tab, final)
    tab.screenshot("web-live-end.png")


def _final_scores(tab: Page, final: match_pb2.Match) -> None:
    """Wait for the page to have ended, at the final version, showing the final scores."""
    page = tab.page
    page.wait_for_function(f"document.querySelector('{_VIEWER}').dataset.live === 'ended'")
    _at_version(tab, final.state_version)
    seats = range(len(final.seats))
    scores = [page.inner_text(f"[data-testid=score-{seat}]") for seat in seats]
    assert scores == [str(result.score) for result in final.outcome.results]
    result = page.inner_text("[data-testid=result]")
    assert "wins" in result or "share the win" in result


# What each renderer draws more of as its match goes on (tests/viewers counts them all).
_PIECES = {"qwixx": "[data-mark]", "queendomino": "[data-square]"}


@pytest.mark.parametrize("game", sorted(_PIECES))
def test_a_live_page_of_each_renderer_follows_the_match_to_its_final_scores(
    game: str, web_server: WebServer, tab: Page
) -> None:
    table = Table(web_server, game, names=("ann", "bob"), seed=11)
    match = table.step(2)
    page = tab.page
    page.goto(f"{web_server.url}matches/{table.match_id}")
    page.wait_for_selector(f"{_VIEWER}[data-ready]")
    assert page.get_attribute(_VIEWER, "data-ready") == "true", tab.errors
    assert page.get_attribute(_VIEWER, "data-game") == game
    _at_version(tab, match.state_version)
    assert page.inner_text("[data-testid=result]").startswith("Live")
    pieces = f"[data-testid=board] {_PIECES[game]}"
    drawn = tab.count(pieces)

    match = table.step(16)
    assert match.state == match_pb2.Match.STATE_ACTIVE
    _at_version(tab, match.state_version)
    assert tab.count(pieces) > drawn
    tab.screenshot(f"web-live-{game}-middle.png")

    _final_scores(tab, table.finish())
    tab.screenshot(f"web-live-{game}-end.png")


def test_a_page_over_the_cap_on_streams_says_so(browser_context: Any, tab: Page) -> None:
    with serve_web(http_settings=WebSettings(max_streams=1)) as server:
        table = Table(server)
        table.step(2)
        address = f"{server.url}matches/{table.match_id}"
        first = tab.page
        first.goto(address)
        _at_version(tab, 2)  # its stream holds the one slot
        second = browser_context.new_page()
        try:
            refused: list[Any] = []
            second.on("response", lambda response: refused.append(response.status))
            second.goto(address)
            second.wait_for_selector(f"{_VIEWER}[data-ready=error]")
            assert second.get_attribute(_VIEWER, "data-live") == "closed"
            message = second.inner_text("[data-testid=error]")
            assert "too many viewers" in message
            assert "Reload the page" in message
            assert 503 in refused
            Page(second).screenshot("web-refused.png")
        finally:
            second.close()
        # The page that holds the slot goes on to the end.
        _final_scores(tab, table.finish())


def test_seat_names_on_a_live_page_are_text_never_markup(web_server: WebServer, tab: Page) -> None:
    names = ('<img src=x onerror="window.pwned=1">', "</script><script>window.pwned=2</script>")
    table = Table(web_server, "qwixx", names=names)
    table.step(3)
    page = tab.page
    page.goto(f"{web_server.url}matches/{table.match_id}")
    page.wait_for_selector(f"{_VIEWER}[data-ready]")
    assert page.get_attribute(_VIEWER, "data-ready") == "true", tab.errors
    _at_version(tab, 3)
    players = page.inner_text("[data-testid=players]")
    assert all(name in players for name in names)  # shown as they are, as text
    assert page.title() == f"Qwixx: {names[0]} vs {names[1]}"
    assert tab.count("img[src=x]") == 0
    _final_scores(tab, table.finish())
    assert page.evaluate("typeof window.pwned") == "undefined"
