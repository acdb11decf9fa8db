"""The commands' pages: ``botarena match --out`` writes a viewer per game and an index of
them, ``botarena replay FILE --html OUT`` one viewer."""

from __future__ import annotations

import argparse
import io
import json
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from rich.console import Console

from botarena.bots import BUILTIN_BOTS
from botarena.clients.cli import main
from botarena.clients.replays import save_replay
from botarena.clients.runner import add_match_arguments, run_match

from .conftest import Page, PlayedGame


def _run(*argv: str) -> tuple[int, str]:
    parser = argparse.ArgumentParser()
    add_match_arguments(parser)
    args = parser.parse_args([*argv, "--quiet"])
    console = Console(record=True, width=200, file=io.StringIO())
    # In a thread of its own: Playwright's sync API keeps an event loop running here.
    with ThreadPoolExecutor(max_workers=1) as pool:
        status = pool.submit(run_match, args, BUILTIN_BOTS, console).result()
    return status, console.export_text()


def test_the_index_links_every_game_to_its_viewer(tmp_path: Path, tab: Page) -> None:
    out = tmp_path / "run"
    status, text = _run(
        "--game", "qwixx", "--bot", "heuristic", "--bot", "random", "--games", "2",
        "--out", str(out),
    )  # fmt: skip
    assert status == 0
    index = out / "index.html"
    assert text.rstrip().endswith(f"Watch the games: {index.resolve().as_uri()}")
    results = json.loads((out / "results.json").read_text())
    page = tab.page
    page.goto(index.resolve().as_uri())
    rows = page.locator("tbody tr")
    assert rows.count() == 2
    for row, game in zip(rows.all(), results["games"], strict=True):
        cells = row.inner_text()
        for bot, score in zip(game["bots"], game["scores"], strict=True):
            assert f"{bot} {score}" in cells
    first = results["games"][0]
    winner = next(b for b, r in zip(first["bots"], first["ranks"], strict=True) if r == 1)
    assert winner in rows.first.locator("td").nth(3).inner_text()
    rows.first.get_by_role("link", name="watch").click()
    page.wait_for_selector("#botarena-viewer[data-ready=true]")
    assert page.url.split("#")[0].endswith("games/00001/viewer.html")
    assert "heuristic" in page.inner_text("header")
    page.click("a.ba-brand")
    page.wait_for_selector("tbody tr")
    assert page.url == index.resolve().as_uri()


def test_botarena_replay_html_writes_a_page_of_the_file(
    tmp_path: Path, games: dict[str, PlayedGame], tab: Page
) -> None:
    game = games["queendomino"]
    replay = save_replay(game.replay, tmp_path / "replay.json.gz")
    out = tmp_path / "game.html"
    with ThreadPoolExecutor(max_workers=1) as pool:
        status = pool.submit(main, ["replay", str(replay), "--html", str(out)]).result()
    assert status == 0
    page = tab.open(out)
    assert tab.version() == game.match.state_version
    for name in game.names:
        assert name in page.inner_text("header")
