"""The Node.js bots (clients/node) play through the match runner as command bots.

They share no code with the Python stack: their own gRPC library (@grpc/grpc-js), the
messages loaded at run time from proto/. The node modules come from ``make test``, which
runs ``npm ci`` in clients/node; without them this test fails rather than skips, so that
CI cannot pass without playing the Node bots. Only a machine without ``node`` skips.
"""

from __future__ import annotations

import argparse
import io
import json
import shlex
import shutil
import subprocess
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import pytest
from google.protobuf import duration_pb2
from rich.console import Console

from botarena.bots import BUILTIN_BOTS, RandomBot
from botarena.clients import MatchClient, ServerTarget, run_bot
from botarena.clients.runner import add_match_arguments, run_match
from botarena.clients.testing import ServerProcess, SlowBot, free_port, start_server
from botarena.v1 import match_pb2

NODE = shutil.which("node")
NODE_CLIENT = Path(__file__).resolve().parents[2] / "clients" / "node"

pytestmark = pytest.mark.skipif(
    NODE is None, reason="node is not installed: the Node.js client's tests need Node >= 20"
)


@pytest.fixture(scope="module")
def node_bots() -> dict[str, str]:
    """The command of each Node bot, once the node modules are known to be installed."""
    for package in ("grpc-js", "proto-loader"):
        assert (NODE_CLIENT / "node_modules" / "@grpc" / package).is_dir(), (
            f"{NODE_CLIENT}/node_modules is missing: run `make test` (it runs `npm ci` there)"
        )
    assert NODE is not None
    return {
        name: shlex.join([NODE, str(NODE_CLIENT / "bots" / f"{name}.js")])
        for name in ("random", "greedy")
    }


def _run(tmp_path: Path, *argv: str) -> dict[str, Any]:
    parser = argparse.ArgumentParser()
    add_match_arguments(parser)
    out = tmp_path / "run"
    args = parser.parse_args([*argv, "--out", str(out), "--quiet"])
    console = Console(record=True, width=140, file=io.StringIO())
    status = run_match(args, BUILTIN_BOTS, console)
    results: dict[str, Any] = json.loads((out / "results.json").read_text())
    stderr = {path.name: path.read_text() for path in (out / "games").glob("*/*.stderr")}
    assert status == 0, (console.export_text(), stderr)
    return results


def _assert_clean_run(results: dict[str, Any], games: int) -> None:
    assert results["finished_games"] == results["planned_games"] == games
    for bot in results["bots"]:
        assert bot["games"] == games
        assert (bot["timeouts"], bot["illegal_moves"], bot["crashes"]) == (0, 0, 0), bot


def test_node_greedy_plays_qwirkle_against_python_greedy(
    tmp_path: Path, node_bots: dict[str, str]
) -> None:
    results = _run(
        tmp_path, "--game", "qwirkle", "--bot", f"node-greedy={node_bots['greedy']}",
        "--bot", "greedy", "--games", "4",
    )  # fmt: skip
    _assert_clean_run(results, 4)
    node, python = results["bots"]
    assert node["name"] == "node-greedy"
    assert node["wins"] + python["wins"] == pytest.approx(4)
    # Both seat orders of each seed, and the Node bot scored like a real player.
    assert sorted(tuple(game["bots"]) for game in results["games"]) == [
        ("greedy", "node-greedy"),
        ("greedy", "node-greedy"),
        ("node-greedy", "greedy"),
        ("node-greedy", "greedy"),
    ]
    assert node["mean_score"] > 100


def test_node_random_plays_qwirkle_against_python_random(
    tmp_path: Path, node_bots: dict[str, str]
) -> None:
    results = _run(
        tmp_path, "--game", "qwirkle", "--bot", f"node-random={node_bots['random']}",
        "--bot", "random", "--games", "4",
    )  # fmt: skip
    _assert_clean_run(results, 4)


def test_node_random_plays_qwixx_against_two_python_randoms(
    tmp_path: Path, node_bots: dict[str, str]
) -> None:
    results = _run(
        tmp_path, "--game", "qwixx", "--bot", f"node-random={node_bots['random']}",
        "--bot", "random", "--bot", "random", "--games", "3",
    )  # fmt: skip
    _assert_clean_run(results, 3)
    assert results["bots"][0]["name"] == "node-random"
    assert all(len(game["bots"]) == 3 for game in results["games"])


_CLOCK_BOT = """
import {{ botMain }} from {lib};

// Plays the first legal move and reports the decision clock it was given, one JSON line
// per decision on stderr (the runner keeps each bot's stderr per game).
await botMain({{
  chooseMove(view, legalMoves, rng, clock) {{
    const line = {{
      seat: clock.seat, version: clock.stateVersion, limit: clock.moveTimeLimit,
      bank: clock.timeBank, span: clock.deadline - clock.receivedAt, left: clock.timeLeft(),
      viewSeat: view.seat,
    }};
    process.stderr.write(`CLOCK ${{JSON.stringify(line)}}\\n`);
    return legalMoves[0];
  }},
}}, 'node-clock');
"""


def test_node_bots_get_the_decision_clock(tmp_path: Path) -> None:
    assert NODE is not None
    bot = tmp_path / "clock.mjs"
    bot.write_text(_CLOCK_BOT.format(lib=json.dumps((NODE_CLIENT / "lib" / "index.js").as_uri())))
    command = shlex.join([NODE, str(bot)])
    _run(
        tmp_path, "--game", "qwirkle", "--bot", f"node-clock={command}", "--bot", "random",
        "--games", "2", "--move-time", "2", "--time-bank", "1",
    )  # fmt: skip
    clocks = [
        json.loads(line.split(" ", 1)[1])
        for path in (tmp_path / "run" / "games").glob("*/*.stderr")
        for line in path.read_text().splitlines()
        if line.startswith("CLOCK ")
    ]
    assert len(clocks) > 20  # both games, every decision of the Node seat
    for clock in clocks:
        assert clock["seat"] == clock["viewSeat"]
        assert clock["limit"] == 2
        assert 0 <= clock["bank"] <= 1
        assert clock["span"] == pytest.approx(clock["limit"] + clock["bank"])
        assert 0 < clock["left"] <= clock["span"]


def test_node_greedy_plays_over_tls_through_the_runner(
    tmp_path: Path, node_bots: dict[str, str], tls_files: Any
) -> None:
    with start_server(credentials=tls_files.server_credentials()) as address:
        results = _run(
            tmp_path, "--server", tls_files.target(address), "--game", "qwirkle",
            "--bot", f"node-greedy={node_bots['greedy']}", "--bot", "greedy", "--games", "2",
        )  # fmt: skip
    _assert_clean_run(results, 2)
    assert results["bots"][0]["mean_score"] > 100


def _create_match(target: str) -> list[str]:
    with MatchClient(target=target) as client:
        created = client.create_match(
            match_pb2.MatchConfig(game=match_pb2.GAME_QWIRKLE, seat_count=2, seed=3)
        )
    return [seat.token for seat in created.seat_tokens]


def _node_bot(node_bots: dict[str, str], *arguments: str) -> subprocess.CompletedProcess[str]:
    command = [*shlex.split(node_bots["random"]), *arguments]
    return subprocess.run(command, capture_output=True, text=True, timeout=60, check=False)


def test_node_bots_take_the_tls_flags(node_bots: dict[str, str], tls_files: Any) -> None:
    with (
        start_server(credentials=tls_files.server_credentials()) as address,
        ThreadPoolExecutor(1) as pool,
    ):
        tokens = _create_match(tls_files.target(address))
        opponent = pool.submit(
            run_bot, RandomBot(), server=tls_files.target(address), token=tokens[1]
        )
        flags = ("--server", address, "--tls", "--tls-ca", tls_files.ca)
        bot = _node_bot(node_bots, *flags, "--token", tokens[0])
        outcome = opponent.result(timeout=60)
    assert bot.returncode == 0, bot.stderr
    assert "match over (went_out)" in bot.stderr
    assert outcome.reason == "went_out"


@pytest.mark.parametrize(
    ("tls_server", "client", "cause"),
    [
        (True, "plaintext", "in plaintext: the server speaks TLS"),
        (True, "wrong-ca", "the server's certificate is not signed by the CA in"),
        (False, "tls", "over TLS: the server speaks plaintext gRPC"),
    ],
    ids=["plaintext-client", "wrong-ca", "plaintext-server"],
)
def test_a_node_bot_names_a_tls_mismatch_in_one_line(
    tls_server: bool, client: str, cause: str, node_bots: dict[str, str], tls_files: Any
) -> None:
    credentials = tls_files.server_credentials() if tls_server else None
    with start_server(credentials=credentials) as address:
        tokens = _create_match(tls_files.target(address) if tls_server else address)
        servers = {
            "plaintext": address,
            "wrong-ca": tls_files.target(address, ca=tls_files.other_ca),
            "tls": tls_files.target(address),
        }
        started = time.monotonic()
        bot = _node_bot(node_bots, "--server", servers[client], "--token", tokens[0])
    assert bot.returncode == 1
    errors = [line for line in bot.stderr.splitlines() if "cannot play the seat" in line]
    assert len(errors) == 1, bot.stderr
    assert cause in errors[0]
    assert "Error:" not in bot.stderr  # no stack trace
    assert time.monotonic() - started < 10  # not retried: no retry mends a certificate


_FORMS = [
    "127.0.0.1:50051",
    "[::1]:50051",
    "botarena+tls://ladder.example:443",
    "botarena+tls://[::1]:50051?ca=/etc/botarena/ca.pem",
    "botarena+tls://h:1?ca=ca.pem&cert=bot.pem&key=bot.key",
    "botarena+tls://h:1?ca=/my%20certs/ca.pem",
]

_PARSE_FORMS = """
import {{ formatServerTarget, parseServerTarget }} from {lib};

const read = (form) => parseServerTarget(form);
const forms = JSON.parse(process.argv[2]);
const parsed = forms.map((form) => ({{ ...read(form), text: formatServerTarget(read(form)) }}));
process.stdout.write(JSON.stringify(parsed));
"""


def test_node_reads_the_server_forms_as_the_python_sdk_does(tmp_path: Path) -> None:
    assert NODE is not None
    script = tmp_path / "forms.mjs"
    script.write_text(
        _PARSE_FORMS.format(lib=json.dumps((NODE_CLIENT / "lib" / "index.js").as_uri()))
    )
    done = subprocess.run(
        [NODE, str(script), json.dumps(_FORMS)], capture_output=True, text=True, check=True
    )
    for form, node in zip(_FORMS, json.loads(done.stdout), strict=True):
        python = ServerTarget.parse(form)
        assert node == {
            "address": python.address,
            "tls": python.tls,
            "caFile": python.ca_file,
            "certFile": python.cert_file,
            "keyFile": python.key_file,
            "text": form,
        }


def test_node_bots_follow_the_redirect_to_the_node_that_runs_their_match(
    node_bots: dict[str, str], two_nodes: tuple[ServerProcess, ServerProcess]
) -> None:
    owner, other = two_nodes
    with MatchClient(target=owner.address) as admin:
        config = match_pb2.MatchConfig(game=match_pb2.GAME_QWIRKLE, seat_count=2, seed=11)
        created = admin.create_match(config)
        # Both seats sent to the node that does not run the match.
        bots = [
            subprocess.Popen(
                [*shlex.split(node_bots["greedy"]), "--server", other.address, "--token", token],
                stdout=subprocess.DEVNULL,
                stderr=subprocess.PIPE,
                text=True,
            )
            for token in (seat.token for seat in created.seat_tokens)
        ]
        errors = [bot.communicate(timeout=60)[1] for bot in bots]
        statuses = [bot.returncode for bot in bots]
        final = admin.get_match(created.match.name).match
    assert statuses == [0, 0], errors
    assert final.state == match_pb2.Match.STATE_FINISHED
    assert not any(seat.timeouts or seat.illegal_moves for seat in final.seats)


def test_a_node_bot_leaves_a_frozen_node_and_keeps_its_seat(
    node_bots: dict[str, str], postgres_database: str, tmp_path: Path
) -> None:
    # 6 s leases: longer than the bots take to find the node frozen (keepalive, 5 s), so
    # the other node still sends them back to it for a while, where a connection attempt
    # must give up (grpc-js has no connect timeout of its own).
    nodes = []
    for name in ("frozen", "home"):
        port = free_port()
        options = ["--advertise", f"127.0.0.1:{port}", "--lease-seconds", "6"]
        log = tmp_path / f"{name}.log"
        nodes.append(ServerProcess(postgres_database, options=options, log_path=log, port=port))
    frozen, home = nodes
    with frozen, home:
        frozen.start()
        home.start()
        with MatchClient(target=frozen.address) as admin:
            config = match_pb2.MatchConfig(
                game=match_pb2.GAME_QWIRKLE,
                seat_count=2,
                seed=5,
                time_control=match_pb2.TimeControl(
                    move_time_limit=duration_pb2.Duration(seconds=10)
                ),
            )
            created = admin.create_match(config)
            name = created.match.name
            node_seat, python_seat = (seat.token for seat in created.seat_tokens)
            command = [*shlex.split(node_bots["greedy"]), "--server", home.address]
            node_bot = subprocess.Popen(
                [*command, "--token", node_seat],
                stdout=subprocess.DEVNULL,
                stderr=subprocess.PIPE,
                text=True,
            )
            with ThreadPoolExecutor(1) as pool:
                python_bot = pool.submit(
                    run_bot,
                    SlowBot(RandomBot(), 0.3),
                    server=home.address,
                    token=python_seat,
                    seed=1,
                )
                deadline = time.monotonic() + 60
                while admin.get_match(name).match.state_version < 4:
                    assert time.monotonic() < deadline, "the match never got going"
                    time.sleep(0.05)
                frozen.freeze()
                try:
                    # The match is played out on the other node while this one is frozen.
                    error = node_bot.communicate(timeout=90)[1]
                    outcome = python_bot.result(timeout=30)
                finally:
                    frozen.thaw()
    assert node_bot.returncode == 0, error
    assert outcome.reason != "abandoned"
    assert not any(result.forfeited for result in outcome.results), outcome
    assert [line["match"] for line in home.events("match recovered")] == [
        name.removeprefix("matches/")
    ]
