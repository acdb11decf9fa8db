"""The ladder in a box (``make ladder-demo``): a server with a ladder on a temporary
database, random and greedy registered for Qwirkle and connected (capacity 2 each) for
DURATION seconds, then the leaderboard and greedy's last matches.

Usage:
    python scripts/ladder_demo.py [--duration SECONDS]
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import logging
import os
import tempfile
from pathlib import Path

from rich.console import Console

from botarena.bots import BUILTIN_BOTS
from botarena.clients import AsyncLadderClient, run_ladder_bot_async
from botarena.clients._ladder_cli import ladder_console, leaderboard_table
from botarena.clients.testing import start_server_async
from botarena.server.ladder import Ladder, LadderSettings
from botarena.server.service import configure_logging, durable_manager
from botarena.server.store import SqliteStore
from botarena.v1 import match_pb2

_BOTS = ("random", "greedy")


async def demo(duration: float, database: Path, console: Console) -> None:
    """Run the ladder for ``duration`` seconds and print the leaderboard."""
    core = SqliteStore(database)
    ladder = Ladder(durable_manager(core), core.ladder_store(), LadderSettings(tick_seconds=0.2))
    async with (
        start_server_async(ladder=ladder) as address,
        AsyncLadderClient(target=address) as client,
    ):
        console.print(f"ladder server at {address}, database {database}")
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
    core.close()
    console.print(leaderboard_table(board.entries, f"qwirkle ladder after {duration:g} s"))


def main() -> None:
    """Parse the arguments and run the demo."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--duration", type=float, default=60.0, help="seconds (default 60)")
    args = parser.parse_args()
    os.environ.setdefault("GRPC_VERBOSITY", "ERROR")
    configure_logging(level=logging.WARNING, json=False)
    with tempfile.TemporaryDirectory() as folder, contextlib.suppress(KeyboardInterrupt):
        asyncio.run(demo(args.duration, Path(folder) / "ladder.sqlite3", ladder_console()))


if __name__ == "__main__":
    main()
