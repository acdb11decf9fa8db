"""The ladder in a box (``make ladder-demo``): a server with a ladder and its web UI on a
temporary database, random and greedy registered for Qwirkle and connected (capacity 2
each) for DURATION seconds, then the leaderboard.

The web UI's address is printed first: open it to watch the matches live and the
leaderboard move (``--http-port``, 0 by default: a free port).

Usage:
    python scripts/ladder_demo.py [--duration SECONDS] [--http-port PORT]
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import logging
import os
import tempfile
from pathlib import Path
from typing import Any

from rich.console import Console

from botarena.bots import BUILTIN_BOTS
from botarena.clients import AsyncLadderClient, run_ladder_bot_async
from botarena.clients._ladder_cli import ladder_console, leaderboard_table
from botarena.server.ladder import Ladder, LadderSettings
from botarena.server.service import configure_logging, create_server, durable_manager
from botarena.server.store import SqliteStore
from botarena.v1 import match_pb2

_BOTS = ("random", "greedy")


async def demo(duration: float, database: Path, console: Console, http_port: int = 0) -> None:
    """Run the ladder for ``duration`` seconds and print the leaderboard."""
    core = SqliteStore(database)
    ladder = Ladder(durable_manager(core), core.ladder_store(), LadderSettings(tick_seconds=0.2))
    server, port = await create_server(
        "127.0.0.1:0", ladder=ladder, http_address=("127.0.0.1", http_port)
    )
    address = f"127.0.0.1:{port}"
    try:
        await _run(server, address, duration, database, console)
    finally:
        await server.stop(1.0)
        core.close()


async def _run(
    server: Any, address: str, duration: float, database: Path, console: Console
) -> None:
    async with AsyncLadderClient(target=address) as client:
        console.print(f"ladder server at {address}, database {database}")
        console.print(f"[bold]web UI: {server.web.url}[/bold] (live matches, the leaderboard)")
        secrets = {}
        for name in _BOTS:
            response = await client.register_bot(name, "botarena", match_pb2.GAME_QWIRKLE)
            secrets[name] = response.secret
            console.print(f"registered {name} as {response.bot.name}")
        players = [
            asyncio.create_task(
                run_ladder_bot_async(
                    BUILTIN_BOTS[name].factory, server=address, secret=secrets[name], capacity=2
                )
            )
            for name in _BOTS
        ]
        with console.status(f"playing for {duration:g} s"):
            await asyncio.sleep(duration)
        for player in players:
            player.cancel()
        await asyncio.gather(*players, return_exceptions=True)
        board = await client.get_leaderboard(match_pb2.GAME_QWIRKLE)
    console.print(leaderboard_table(board.entries, f"qwirkle ladder after {duration:g} s"))


def main() -> None:
    """Parse the arguments and run the demo."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--duration", type=float, default=60.0, help="seconds (default 60)")
    parser.add_argument(
        "--http-port", type=int, default=0, help="the web UI's port (default 0: a free one)"
    )
    args = parser.parse_args()
    os.environ.setdefault("GRPC_VERBOSITY", "ERROR")
    configure_logging(level=logging.WARNING, json=False)
    with tempfile.TemporaryDirectory() as folder, contextlib.suppress(KeyboardInterrupt):
        asyncio.run(
            demo(args.duration, Path(folder) / "ladder.sqlite3", ladder_console(), args.http_port)
        )


if __name__ == "__main__":
    main()
