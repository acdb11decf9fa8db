# mypy: disable-error-code="import-untyped"
"""Take the README's screenshots of the web UI with the system Chromium.

A ladder server with its web UI on a temporary database plays greedy against random at
Qwirkle for a few seconds; then a match is created and played twelve decisions into its
game through gRPC, and headless Chromium (Debian's ``chromium``, driven by Playwright)
takes its live page (``docs/web-ui.png``) and the leaderboard (``docs/web-ladder.png``).

Usage:
    python scripts/web_screenshot.py [--out DIR]
"""

from __future__ import annotations

import argparse
import asyncio
import logging
import os
import random
import shutil
import tempfile
from pathlib import Path

from google.protobuf import duration_pb2
from playwright.async_api import async_playwright

from botarena.bots import BUILTIN_BOTS
from botarena.clients import AsyncLadderClient, AsyncMatchClient, run_ladder_bot_async
from botarena.server.ladder import Ladder, LadderSettings
from botarena.server.service import configure_logging, create_server, durable_manager
from botarena.server.store import SqliteStore
from botarena.v1 import match_pb2

_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--no-first-run"]


async def _live_match(address: str) -> str:
    """A match twelve decisions into its game, its bots paused there; return its id."""
    async with AsyncMatchClient(target=address) as client:
        config = match_pb2.MatchConfig(
            game=match_pb2.GAME_QWIRKLE, seat_count=2, seat_names=["greedy", "random"]
        )
        config.time_control.move_time_limit.CopyFrom(duration_pb2.Duration(seconds=600))
        created = await client.create_match(config)
        name = created.match.name
        seats = [client.with_token(token.token) for token in created.seat_tokens]
        bots = [BUILTIN_BOTS["greedy"].factory(), BUILTIN_BOTS["random"].factory()]
        rng = random.Random(1)
        for _ in range(12):
            match = (await client.get_match(name)).match
            seat = match.seats_to_act[0]
            view = await seats[seat].get_player_view(name)
            move = bots[seat].choose_move(view.view, list(view.legal_moves), rng)
            await seats[seat].submit_move(name, move, expected_state_version=view.state_version)
        return name.removeprefix("matches/")


async def main(out: Path) -> None:
    """Serve, play, and take the screenshots into ``out``."""
    chromium = os.environ.get("BOTARENA_CHROMIUM") or shutil.which("chromium")
    if chromium is None:
        raise SystemExit("needs Debian's chromium (make browser)")
    with tempfile.TemporaryDirectory() as folder:
        core = SqliteStore(Path(folder) / "ladder.sqlite3")
        ladder = Ladder(
            durable_manager(core), core.ladder_store(), LadderSettings(tick_seconds=0.2)
        )
        server, port = await create_server(
            "127.0.0.1:0", ladder=ladder, http_address=("127.0.0.1", 0)
        )
        address = f"127.0.0.1:{port}"
        try:
            async with AsyncLadderClient(target=address) as client:
                players = []
                for bot in ("greedy", "random"):
                    answer = await client.register_bot(bot, "botarena", match_pb2.GAME_QWIRKLE)
                    factory = BUILTIN_BOTS[bot].factory
                    players.append(
                        asyncio.create_task(
                            run_ladder_bot_async(factory, server=address, secret=answer.secret)
                        )
                    )
                await asyncio.sleep(4)
                for player in players:
                    player.cancel()
                await asyncio.gather(*players, return_exceptions=True)
            match_id = await _live_match(address)
            async with async_playwright() as playwright:
                browser = await playwright.chromium.launch(executable_path=chromium, args=_ARGS)
                page = await browser.new_page(viewport={"width": 1280, "height": 800})
                await page.goto(f"{server.web.url}matches/{match_id}")
                await page.wait_for_selector("#botarena-viewer[data-ready=true]")
                await page.wait_for_function(
                    "document.querySelector('#botarena-viewer').dataset.version === '12'"
                )
                out.mkdir(parents=True, exist_ok=True)
                await page.screenshot(path=str(out / "web-ui.png"))
                await page.goto(f"{server.web.url}ladder/qwirkle")
                await page.screenshot(path=str(out / "web-ladder.png"))
                await browser.close()
        finally:
            await server.stop(1.0)
            core.close()
    print(f"wrote {out / 'web-ui.png'} and {out / 'web-ladder.png'}")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=Path("docs"), help="folder (default docs)")
    options = parser.parse_args()
    os.environ.setdefault("GRPC_VERBOSITY", "ERROR")
    configure_logging(level=logging.WARNING, json=False)
    asyncio.run(main(options.out))
