"""`botarena match --server NODE` on two nodes sharing one PostgreSQL: NODE killed -9
and started again only after the other node has taken its matches over. The runner's
spectator streams, resigns and final calls, like its bots, follow MATCH_ON_OTHER_NODE
to the other node, and every game of the run finishes."""

from __future__ import annotations

import sys
import textwrap
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from botarena.clients.testing import ServerProcess

RunCli = Callable[..., tuple[int, str, dict[str, Any]]]
"""The ``run_cli`` fixture (conftest.py)."""

_SLOW_BOT = """
    import sys, time
    from botarena.bots import RandomBot
    from botarena.clients import bot_main

    class Bot(RandomBot):
        def choose_move(self, view, legal_moves, rng):
            print("move", file=sys.stderr)
            time.sleep(0.05)  # games last seconds: some are in flight at the kill
            return super().choose_move(view, legal_moves, rng)

    sys.exit(bot_main(Bot))
"""


def _moves(folder: Path) -> int:
    return sum(path.read_text().count("move\n") for path in folder.glob("games/*/*slow.stderr"))


def test_a_run_on_a_node_killed_and_taken_over_finishes_every_game(
    tmp_path: Path, run_cli: RunCli, two_nodes: tuple[ServerProcess, ServerProcess]
) -> None:
    given, other = two_nodes
    script = tmp_path / "slow.py"
    script.write_text(textwrap.dedent(_SLOW_BOT))
    bots = ("--bot", f"slow={sys.executable} {script}", "--bot", "random")
    argv = ("--server", given.address, *bots, "--games", "2", "--concurrency", "2")
    outcome: list[tuple[int, str, dict[str, Any]]] = []
    runner = threading.Thread(target=lambda: outcome.append(run_cli(*argv)))
    runner.start()
    deadline = time.monotonic() + 60
    while _moves(tmp_path / "run") < 6:
        assert time.monotonic() < deadline, "the games never got going"
        time.sleep(0.05)
    given.kill()
    # Down past its 2 s leases: the other node takes its matches over, and the node
    # started again at its address redirects the runner there.
    taken: list[dict[str, Any]] = []
    while not taken:
        assert time.monotonic() < deadline + 30, "the other node took nothing over"
        time.sleep(0.1)
        taken = other.events("match recovered")
    given.start()
    runner.join(240)
    assert not runner.is_alive()
    status, text, results = outcome[0]
    assert status == 0, text
    assert results["finished_games"] == results["planned_games"] == 2
    assert "failed" not in text
    taken_over = {"matches/" + line["match"] for line in taken}
    assert taken_over & {game["match"] for game in results["games"]}
    for game in results["games"]:
        assert game["reason"] not in ("forfeit", "abandoned")
        assert game["crashes"] == [None, None]
