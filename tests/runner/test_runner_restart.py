"""`botarena match --server` survives the server: a kill -9 and a restart (on SQLite, and
on PostgreSQL, where the restarted node takes back the leases of its earlier start), a
CreateMatch answer lost in a restart, and a server that admits fewer matches than the run
plays."""

from __future__ import annotations

import asyncio
import sys
import textwrap
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from botarena.clients import AsyncMatchClient
from botarena.clients._common import new_request_id
from botarena.clients.runner import create_game_match
from botarena.clients.testing import ServerProcess, free_port, start_server
from botarena.server.service import create_server
from botarena.server.store import SqliteStore
from botarena.v1 import match_pb2

RunCli = Callable[..., tuple[int, str, dict[str, Any]]]
"""The ``run_cli`` fixture (conftest.py)."""

_SLOW_BOT = """
    import os, sys, time
    from botarena.bots import RandomBot
    from botarena.clients import bot_main

    class Bot(RandomBot):
        def choose_move(self, view, legal_moves, rng):
            print("move", os.environ["BOTARENA_MATCH"], file=sys.stderr)
            time.sleep(0.05)  # games last seconds: some are in flight at the kill
            return super().choose_move(view, legal_moves, rng)

    sys.exit(bot_main(Bot))
"""


def _moves(stderr: Path) -> list[str]:
    if not stderr.exists():
        return []
    return [line.split()[1] for line in stderr.read_text().splitlines() if line.startswith("move ")]


@pytest.fixture(params=["sqlite", "postgresql"])
def restartable_server(request: pytest.FixtureRequest, tmp_path: Path) -> ServerProcess:
    """A ``botarena serve`` to kill and restart, on SQLite or alone on PostgreSQL (a node
    that advertises its fixed port with leases of the default 10 s: longer than the
    restart, so it must take its own leases back rather than wait for them to expire)."""
    if request.param == "sqlite":
        return ServerProcess(tmp_path / "botarena.db")
    url = request.getfixturevalue("postgres_database")
    port = free_port()
    options = ["--advertise", f"127.0.0.1:{port}"]
    return ServerProcess(url, options=options, log_path=tmp_path / "node.log", port=port)


def test_games_in_flight_and_queued_finish_after_a_kill_9_and_a_restart(
    tmp_path: Path, run_cli: RunCli, restartable_server: ServerProcess
) -> None:
    script = tmp_path / "slow.py"
    script.write_text(textwrap.dedent(_SLOW_BOT))
    with restartable_server as server:
        address = server.start()
        bots = ("--bot", f"slow={sys.executable} {script}", "--bot", "random")
        argv = ("--server", address, *bots, "--games", "6", "--concurrency", "2")
        outcome: list[tuple[int, str, dict[str, Any]]] = []
        runner = threading.Thread(target=lambda: outcome.append(run_cli(*argv)))
        runner.start()
        first_game = tmp_path / "run" / "games" / "00001"
        deadline = time.monotonic() + 60
        while len(_moves(next(first_game.glob("*slow.stderr"), first_game / "-"))) < 3:
            assert time.monotonic() < deadline, "the first game never got going"
            time.sleep(0.05)
        in_flight = _moves(next(first_game.glob("*slow.stderr")))[0]
        server.kill()
        time.sleep(1.0)  # down for a moment: the runner and bots see UNAVAILABLE
        server.start()  # the same port and database: unfinished matches are recovered
        runner.join(240)
        assert not runner.is_alive()
    status, text, results = outcome[0]
    assert status == 0, text
    assert results["finished_games"] == results["planned_games"] == 6
    assert "failed" not in text
    # The game in flight at the kill is the match the runner created, resumed.
    assert results["games"][0]["match"] == in_flight
    for game in results["games"]:
        assert game["reason"] not in ("forfeit", "abandoned")
        assert not any(game["forfeited"])
        assert game["crashes"] == [None, None]


def test_a_create_match_answer_lost_in_a_restart_makes_a_fresh_match(tmp_path: Path) -> None:
    path = tmp_path / "botarena.db"
    config = match_pb2.MatchConfig(game=match_pb2.GAME_QWIRKLE, seat_count=2, seed=5)
    request_id = new_request_id()

    async def scenario() -> None:
        store = SqliteStore(path)
        server, port = await create_server("127.0.0.1:0", store=store)
        async with AsyncMatchClient(target=f"127.0.0.1:{port}") as client:
            lost = await client.create_match(config, request_id=request_id)
            await server.stop(None)
            store.close()
            # The runner never saw ``lost``: it repeats its request after the restart.
            store = SqliteStore(path)
            server, _ = await create_server(f"127.0.0.1:{port}", store=store)
            try:
                created = await create_game_match(client, config, request_id=request_id)
            finally:
                await server.stop(None)
                store.close()
        assert created.match.name != lost.match.name
        assert len(created.seat_tokens) == 2

    asyncio.run(scenario())


def test_a_server_that_admits_one_match_at_a_time_still_plays_every_game(
    run_cli: RunCli,
) -> None:
    with start_server(max_active_matches=1) as address:
        argv = ("--server", address, "--bot", "random", "--bot", "greedy")
        status, text, results = run_cli(*argv, "--games", "4", "--concurrency", "4")
    assert status == 0, text
    assert results["finished_games"] == 4
