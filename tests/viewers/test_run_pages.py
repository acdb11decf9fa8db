"""The commands' pages: ``botarena match --out`` writes a viewer per game and an index of
them, ``botarena replay FILE --html OUT`` one viewer."""

from __future__ import annotations

import argparse
import base64
import gzip
import io
import json
import stat
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from rich.console import Console

from botarena.bots import BUILTIN_BOTS
from botarena.clients.cli import main
from botarena.clients.replays import REPLAY_FILE_NAME, load_replay, save_replay
from botarena.clients.runner import add_match_arguments, run_match
from botarena.v1 import match_pb2

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


def test_the_runners_replay_files_are_binary_mode_0644_and_embedded_as_they_are(
    tmp_path: Path,
) -> None:
    out = tmp_path / "run"
    status, _ = _run("--game", "qwirkle", "--bot", "greedy", "--bot", "random", "--games", "2",
                     "--out", str(out))  # fmt: skip
    assert status == 0
    results = json.loads((out / "results.json").read_text())
    for game in results["games"]:
        path = Path(game["replay"])
        assert path.name == REPLAY_FILE_NAME == "replay.binpb.gz"
        assert stat.S_IMODE(path.stat().st_mode) == 0o644
        replay = match_pb2.Replay.FromString(gzip.decompress(path.read_bytes()))
        assert replay == load_replay(path)
        assert [seat.display_name for seat in replay.match.seats] == game["bots"]
        page = path.with_name("viewer.html").read_text(encoding="utf-8")
        assert base64.b64encode(path.read_bytes()).decode() in page
    assert not list(out.rglob("*.json.gz"))


def test_botarena_replay_html_writes_a_page_of_the_file(
    tmp_path: Path, games: dict[str, PlayedGame], tab: Page
) -> None:
    game = games["queendomino"]
    replay = save_replay(game.replay, tmp_path / REPLAY_FILE_NAME)
    out = tmp_path / "game.html"
    with ThreadPoolExecutor(max_workers=1) as pool:
        status = pool.submit(main, ["replay", str(replay), "--html", str(out)]).result()
    assert status == 0
    page = tab.open(out)
    assert tab.version() == game.match.state_version
    for name in game.names:
        assert name in page.inner_text("header")
