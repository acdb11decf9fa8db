"""Runs across machines: the queue in a real PostgreSQL (claims, leases, reports), and
``botarena match --queue`` played by ``botarena worker`` processes, one of them killed."""

from __future__ import annotations

import asyncio
import json
import os
import re
import signal
import subprocess
import sys
import textwrap
import time
from collections.abc import Awaitable, Callable, Iterator
from pathlib import Path
from typing import Any

import psycopg
import pytest

from botarena.clients.cli import main
from botarena.clients.runner._plan import SeedKey, plan_games
from botarena.clients.runner._queue import QueueDatabase, QueueError
from botarena.clients.runner._queued import game_sets
from botarena.clients.runner._records import plan_document

RunCli = Callable[..., tuple[int, str, dict[str, Any]]]
"""The ``run_cli`` fixture (conftest.py)."""

_CLI = (sys.executable, "-m", "botarena.clients.cli")


def _sets(count: int) -> list[list[dict[str, Any]]]:
    plans = plan_games(2, 2 * count, 1, SeedKey("k", "qwirkle"))
    return [[plan_document(plan) for plan in games] for games in game_sets(plans)]


def _on_queue(url: str, scenario: Callable[[QueueDatabase], Awaitable[None]]) -> None:
    """Run ``scenario`` with a connection to the queue at ``url``."""

    async def run() -> None:
        async with await QueueDatabase.connect(url) as database:
            await scenario(database)

    asyncio.run(run())


def _wait_for(condition: Callable[[], Any], what: str, timeout: float = 120.0) -> Any:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = condition()
        if value:
            return value
        time.sleep(0.05)
    raise AssertionError(f"gave up waiting for {what}")


def _query(url: str, query: str, params: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    with psycopg.connect(url) as connection:
        return connection.execute(query.encode(), params).fetchall()


@pytest.fixture
def processes() -> Iterator[Callable[..., subprocess.Popen[str]]]:
    """Starts ``botarena ARGS`` in a session of its own (with ``env`` added to the
    environment); kills what is left at the end."""
    started: list[subprocess.Popen[str]] = []

    def start(*argv: str, env: dict[str, str] | None = None) -> subprocess.Popen[str]:
        process = subprocess.Popen(
            [*_CLI, *argv],
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
            start_new_session=True,
            env=None if env is None else {**os.environ, **env},
        )
        started.append(process)
        return process

    yield start
    for process in started:
        if process.poll() is None:
            os.killpg(process.pid, signal.SIGKILL)
        process.wait()
        if process.stdout is not None:
            process.stdout.close()


# ---------------------------------------------------------------------- the queue


def test_concurrent_claimers_never_get_the_same_set(queue_url: str) -> None:
    async def claim_all(name: str) -> list[int]:
        async with await QueueDatabase.connect(queue_url) as database:
            claimed = []
            while (game_set := await database.claim(name, 60.0)) is not None:
                claimed.append(game_set.set_index)
            return claimed

    async def scenario() -> list[list[int]]:
        async with await QueueDatabase.connect(queue_url) as database:
            await database.create_run({"schema_version": 1}, _sets(60))
        return list(await asyncio.gather(*(claim_all(f"w{index}") for index in range(4))))

    claims = asyncio.run(scenario())
    every = [index for claimed in claims for index in claimed]
    assert sorted(every) == list(range(60))  # each set once, none left over
    assert sum(1 for claimed in claims if claimed) >= 2  # they did claim side by side


def test_a_set_under_lease_is_not_claimed_and_an_expired_one_is_claimed_again(
    queue_url: str,
) -> None:
    async def scenario(database: QueueDatabase) -> None:
        run_id = await database.create_run({"schema_version": 1}, _sets(1))
        first = await database.claim("dead", 0.5)
        assert first is not None
        assert first.attempts == 1
        held = await database.claim("other", 60.0)
        assert held is None  # the only set is dead's for now
        again = None
        while again is None:  # until dead's lease runs out (database time)
            await asyncio.sleep(0.1)
            again = await database.claim("other", 60.0)
        assert (again.run_id, again.set_index, again.attempts) == (run_id, 0, 2)
        assert again.games == first.games
        # The dead worker lost it: it can neither renew nor finish it.
        assert await database.renew("dead", 60.0) == set()
        assert await database.finish_set(run_id, 0, "dead") is False
        assert await database.renew("other", 60.0) == {(run_id, 0)}
        assert await database.finish_set(run_id, 0, "other") is True
        status = await database.status(run_id)
        assert status.sets == {"done": 1}
        assert status.open_sets == 0

    _on_queue(queue_url, scenario)


def test_a_second_report_of_a_game_is_ignored_and_results_keep_their_order(
    queue_url: str,
) -> None:
    async def scenario(database: QueueDatabase) -> None:
        run_id = await database.create_run({"schema_version": 1}, _sets(2))
        assert await database.report_game(run_id, 2, "late", {"n": "first"}, replay=b"x")
        assert await database.report_game(run_id, 1, "b", {"n": "one"})
        assert not await database.report_game(run_id, 2, "b", {"n": "second"})
        results = await database.results_after(run_id, 0)
        assert [(game.seq, game.game_number, game.worker) for game in results] == [
            (1, 2, "late"),
            (2, 1, "b"),
        ]
        assert results[0].result == {"n": "first"}  # the first report stands
        assert results[0].replay == b"x"
        assert [game.game_number for game in await database.results_after(run_id, 1)] == [1]
        assert await database.reported_games(run_id, [1, 2, 3]) == {1, 2}

    _on_queue(queue_url, scenario)


def test_cancelling_leaves_the_sets_being_played_and_a_failed_run_claims_nothing(
    queue_url: str,
) -> None:
    async def scenario(database: QueueDatabase) -> None:
        run_id = await database.create_run({"schema_version": 1}, _sets(3))
        playing = await database.claim("w", 60.0)
        assert playing is not None
        assert await database.cancel_pending(run_id) == 2
        assert await database.claim("w2", 60.0) is None
        assert await database.finish_set(run_id, playing.set_index, "w")
        assert (await database.status(run_id)).sets == {"cancelled": 2, "done": 1}

        failing = await database.create_run({"schema_version": 1}, _sets(2))
        await database.fail_run(failing, {"bot": "mine", "game": 1, "seat": 0, "failure": "x"})
        assert await database.claim("w", 60.0) is None
        status = await database.status(failing)
        assert status.state == "failed"
        assert status.failure is not None
        assert status.failure["bot"] == "mine"

    _on_queue(queue_url, scenario)


def test_a_queue_that_does_not_answer_is_one_line() -> None:
    async def scenario() -> None:
        await QueueDatabase.connect("postgresql://nobody:secret@127.0.0.1:1/none")

    with pytest.raises(QueueError) as raised:
        asyncio.run(scenario())
    message = str(raised.value)
    assert message.startswith("cannot connect to the queue postgresql://nobody:***@127.0.0.1:1/")
    assert "secret" not in message
    assert "\n" not in message


# ---------------------------------------------------------------------- end to end


def _run_id(url: str) -> str:
    """Wait for the coordinator to queue its run; return the run's id."""

    def queued() -> list[tuple[Any, ...]]:
        try:
            return _query(url, "SELECT run_id FROM runner_runs")
        except psycopg.errors.UndefinedTable:
            return []  # the coordinator has not made the tables yet

    return str(_wait_for(queued, "the queued run")[0][0])


def _reports_per_game(url: str, run_id: str) -> list[tuple[Any, ...]]:
    """Return (game number, how many results it has) for each reported game of the run."""
    return _query(
        url,
        "SELECT game_number, count(*) FROM runner_game_results WHERE run_id = %s "
        "GROUP BY game_number ORDER BY game_number",
        (run_id,),
    )


def _queued_match(
    processes: Callable[..., subprocess.Popen[str]],
    url: str,
    bots: tuple[str, ...],
    games: int = 2,
    out: Path | None = None,
) -> tuple[subprocess.Popen[str], str]:
    """Start ``botarena match --queue URL`` of ``bots``; return it once its run is queued,
    with the run's id."""
    argv = [arg for bot in bots for arg in ("--bot", bot)] + ["--games", str(games)]
    if out is not None:
        argv += ["--out", str(out)]
    coordinator = processes("match", "--queue", url, *argv, "--quiet")
    return coordinator, _run_id(url)


def test_two_workers_one_killed_play_every_planned_game_exactly_once(
    tmp_path: Path,
    queue_url: str,
    processes: Callable[..., subprocess.Popen[str]],
) -> None:
    out = tmp_path / "run"
    coordinator, run_id = _queued_match(processes, queue_url, ("random", "greedy"), 24, out)
    doomed = processes("worker", "--queue", queue_url, "--concurrency", "1", "--lease", "2")
    owner = f"%:{doomed.pid}:%"

    def holding_after_a_report() -> list[tuple[Any, ...]]:
        reported = _query(
            queue_url, "SELECT count(*) FROM runner_game_results WHERE worker LIKE %s", (owner,)
        )
        if not reported[0][0]:
            return []
        return _query(
            queue_url,
            "SELECT set_index FROM runner_game_sets WHERE state = 'claimed' AND worker LIKE %s",
            (owner,),
        )

    killed_set = _wait_for(holding_after_a_report, "the first worker to play")[0][0]
    os.killpg(doomed.pid, signal.SIGKILL)
    doomed.communicate()
    # Idle for longer than the lease: it must wait for the killed worker's set.
    survivor = processes(
        "worker", "--queue", queue_url, "--concurrency", "2", "--lease", "2", "--idle-exit", "5"
    )
    text, _ = coordinator.communicate(timeout=600)
    assert coordinator.returncode == 0, text
    log, _ = survivor.communicate(timeout=120)
    assert survivor.returncode == 0, log

    games = _reports_per_game(queue_url, run_id)
    assert games == [(number, 1) for number in range(1, 25)]
    assert _query(queue_url, "SELECT count(*) FROM runner_game_results WHERE replay IS NULL") == [
        (0,)
    ]
    # The set the killed worker held was claimed again and finished by the survivor.
    state, attempts, worker = _query(
        queue_url,
        "SELECT state, attempts, worker FROM runner_game_sets WHERE run_id = %s AND set_index = %s",
        (run_id, killed_set),
    )[0]
    assert (state, attempts) == ("done", 2)
    assert f":{survivor.pid}:" in worker
    assert f"set {killed_set} of run {run_id}" in log
    results = json.loads((out / "results.json").read_text())
    assert results["finished_games"] == results["planned_games"] == 24
    assert [game["number"] for game in results["games"]] == list(range(1, 25))
    assert re.search(r"│ random\s+│\s+24 │", text), text
    assert re.search(r"│ greedy\s+│\s+24 │", text), text
    for number in range(1, 25):
        folder = out / "games" / f"{number:05d}"
        assert (folder / "result.json").is_file()
        assert (folder / "replay.binpb.gz").is_file()
        assert (folder / "viewer.html").is_file()
    assert (out / "index.html").is_file()


def test_sprt_over_the_queue_cancels_the_sets_left_and_a_follow_up_shows_the_same(
    queue_url: str,
    run_cli: RunCli,
    processes: Callable[..., subprocess.Popen[str]],
) -> None:
    worker = processes("worker", "--queue", queue_url, "--concurrency", "2", "--idle-exit", "5")
    argv = ("--bot", "greedy", "--bot", "random", "--sprt", "0,100", "--games", "400")
    status, text, results = run_cli("--queue", queue_url, *argv, "--seed-key", "sprt")
    assert status == 0, text
    assert results["sprt"]["decision"] == "H1"
    assert "sets cancelled" in text
    log, _ = worker.communicate(timeout=120)
    assert worker.returncode == 0, log
    run_id = results["config"]["queue"]["run"]
    counts = dict(
        _query(
            queue_url,
            "SELECT state, count(*) FROM runner_game_sets WHERE run_id = %s GROUP BY state",
            (run_id,),
        )
    )
    assert counts["cancelled"] > 0
    assert counts["done"] == results["finished_games"] // 2
    assert sum(counts.values()) == 200
    assert _query(queue_url, "SELECT state FROM runner_runs") == [("finished",)]

    again, text, followed = run_cli("--queue", queue_url, "--run", run_id, out="again")
    assert again == 0, text
    assert followed["finished_games"] == results["finished_games"]
    assert followed["sprt"]["decision"] == "H1"
    assert followed["seed_key"] == "sprt"


def test_a_coordinator_stopped_with_ctrl_c_leaves_the_run_to_follow_again(
    tmp_path: Path,
    queue_url: str,
    run_cli: RunCli,
    processes: Callable[..., subprocess.Popen[str]],
) -> None:
    out = tmp_path / "run"
    coordinator, run_id = _queued_match(processes, queue_url, ("random", "random"), 6, out)
    coordinator.send_signal(signal.SIGINT)
    text, _ = coordinator.communicate(timeout=60)
    assert coordinator.returncode == 130, text
    assert f"--run {run_id}" in text
    assert _query(queue_url, "SELECT state FROM runner_runs") == [("open",)]
    worker = processes("worker", "--queue", queue_url, "--once")
    log, _ = worker.communicate(timeout=300)
    assert worker.returncode == 0, log
    # --out DIR --resume finds the run in the folder's plan.
    status, text, results = run_cli("--queue", queue_url, "--resume")
    assert status == 0, text
    assert results["finished_games"] == results["planned_games"] == 6
    assert results["config"]["queue"]["run"] == run_id


def test_a_worker_without_a_runs_command_says_so_and_leaves_its_sets(
    queue_url: str, processes: Callable[..., subprocess.Popen[str]]
) -> None:
    coordinator, run_id = _queued_match(
        processes, queue_url, ("mine=/nowhere/my-bot --fast", "random")
    )
    worker = processes("worker", "--queue", queue_url, "--once")
    log, _ = worker.communicate(timeout=120)
    assert worker.returncode == 0, log
    assert "cannot play run" in log
    assert "'/nowhere/my-bot' is not found here" in log
    messages = _query(queue_url, "SELECT text FROM runner_messages WHERE run_id = %s", (run_id,))
    assert messages == [
        (f"cannot play run {run_id}: mine: the command '/nowhere/my-bot' is not found here",)
    ]
    assert _query(queue_url, "SELECT state, attempts FROM runner_game_sets") == [("pending", 0)]
    coordinator.send_signal(signal.SIGINT)
    text, _ = coordinator.communicate(timeout=60)
    assert "worker " in text
    assert "is not found here" in text


def test_queue_options_that_cannot_apply_are_refused(run_cli: RunCli) -> None:
    url = "postgresql://127.0.0.1:1/none"
    with pytest.raises(SystemExit, match="not on --server"):
        run_cli("--queue", url, "--bot", "random", "--bot", "random", "--server", "x:1")
    with pytest.raises(SystemExit, match="--show-stderr shows output where"):
        run_cli("--queue", url, "--bot", "a=./a", "--bot", "random", "--show-stderr", "a")


def test_ctrl_c_gives_a_workers_set_back_and_keeps_what_it_reported(
    queue_url: str,
    processes: Callable[..., subprocess.Popen[str]],
) -> None:
    coordinator, run_id = _queued_match(processes, queue_url, ("random", "random"), 40)
    stopped = processes("worker", "--queue", queue_url, "--concurrency", "1")
    owner = f"%:{stopped.pid}:%"
    _wait_for(
        lambda: _query(
            queue_url,
            "SELECT 1 FROM runner_game_sets WHERE state = 'claimed' AND worker LIKE %s "
            "AND EXISTS (SELECT FROM runner_game_results WHERE worker LIKE %s)",
            (owner, owner),
        ),
        "the worker to hold a set after a report",
    )
    stopped.send_signal(signal.SIGINT)
    log, _ = stopped.communicate(timeout=60)
    assert stopped.returncode == 130, log
    assert "gave set" in log
    assert "back" in log
    assert _query(queue_url, "SELECT count(*) FROM runner_game_sets WHERE state = 'claimed'") == [
        (0,)
    ]
    kept = _query(
        queue_url, "SELECT game_number FROM runner_game_results WHERE worker LIKE %s", (owner,)
    )
    assert kept
    finisher = processes("worker", "--queue", queue_url, "--once")
    text, _ = coordinator.communicate(timeout=600)
    assert coordinator.returncode == 0, text
    finisher.communicate(timeout=120)
    games = _reports_per_game(queue_url, run_id)
    assert games == [(number, 1) for number in range(1, 41)]
    # Queued without --out: no replay or stderr travels with the results.
    assert _query(
        queue_url, "SELECT count(*) FROM runner_game_results WHERE replay IS NOT NULL"
    ) == [(0,)]
    # What the stopped worker reported stands: the finisher played only the others.
    assert set(kept) <= set(
        _query(
            queue_url, "SELECT game_number FROM runner_game_results WHERE worker LIKE %s", (owner,)
        )
    )
    assert _query(queue_url, "SELECT max(attempts) FROM runner_game_sets") == [(1,)]


def test_a_bot_that_fails_its_first_game_on_a_worker_stops_the_queued_run(
    tmp_path: Path, queue_url: str, run_cli: RunCli, processes: Callable[..., subprocess.Popen[str]]
) -> None:
    missing = tmp_path / "nope.py"
    worker = processes("worker", "--queue", queue_url, "--idle-exit", "5")
    status, text, results = run_cli(
        "--queue", queue_url, "--bot", f"mine={sys.executable} {missing}", "--bot", "random",
        "--games", "20",
    )  # fmt: skip
    assert status == 1, text
    assert "mine failed in its first game (game 1, seat 0)" in text
    assert "can't open file" in text  # the bot's stderr, from the worker's machine
    assert results["failed_run"]["bot"] == "mine"
    log, _ = worker.communicate(timeout=120)
    assert "stopped" in log
    states = dict(_query(queue_url, "SELECT state, count(*) FROM runner_game_sets GROUP BY state"))
    assert states.get("pending", 0) == states.get("claimed", 0) == 0
    assert _query(queue_url, "SELECT state FROM runner_runs") == [("failed",)]


def test_a_stalled_worker_whose_set_was_taken_over_stops_it_and_counts_nothing_twice(
    queue_url: str, processes: Callable[..., subprocess.Popen[str]]
) -> None:
    coordinator, run_id = _queued_match(processes, queue_url, ("random", "random"), 24)
    stalled = processes("worker", "--queue", queue_url, "--concurrency", "1", "--lease", "2")
    owner = f"%:{stalled.pid}:%"
    held = _wait_for(
        lambda: _query(
            queue_url,
            "SELECT set_index FROM runner_game_sets WHERE state = 'claimed' AND worker LIKE %s",
            (owner,),
        ),
        "the first worker to hold a set",
    )[0][0]
    os.kill(stalled.pid, signal.SIGSTOP)  # its heartbeat stops; its lease runs out
    taker = processes("worker", "--queue", queue_url, "--concurrency", "2", "--lease", "2")
    _wait_for(
        lambda: _query(
            queue_url,
            "SELECT 1 FROM runner_game_sets WHERE set_index = %s AND attempts = 2",
            (held,),
        ),
        "the second worker to take the set over",
    )
    os.kill(stalled.pid, signal.SIGCONT)
    text, _ = coordinator.communicate(timeout=600)
    assert coordinator.returncode == 0, text
    for worker in (stalled, taker):
        worker.send_signal(signal.SIGINT)
    log, _ = stalled.communicate(timeout=60)
    taker.communicate(timeout=60)
    assert f"set {held} of run {run_id} was taken over by another worker" in log
    assert _reports_per_game(queue_url, run_id) == [(number, 1) for number in range(1, 25)]


def test_a_command_bot_plays_on_the_worker_without_the_queues_secrets(
    tmp_path: Path, queue_url: str, run_cli: RunCli, processes: Callable[..., subprocess.Popen[str]]
) -> None:
    script = tmp_path / "nosy.py"
    script.write_text(
        textwrap.dedent(
            """
            import os, sys
            from botarena.bots import RandomBot
            from botarena.clients import bot_main

            hidden = [name for name in ("BOTARENA_QUEUE", "PGPASSWORD") if name in os.environ]
            print(f"nosy sees {hidden or 'no secrets'}", file=sys.stderr, flush=True)
            sys.exit(bot_main(RandomBot))
            """
        )
    )
    # The queue from the environment, as a password would be (PGPASSWORD).
    worker = processes(
        "worker", "--idle-exit", "5", env={"BOTARENA_QUEUE": queue_url, "PGPASSWORD": "x"}
    )
    status, text, results = run_cli(
        "--queue", queue_url, "--bot", f"nosy={sys.executable} {script}", "--bot", "random",
        "--games", "2",
    )  # fmt: skip
    assert status == 0, text
    assert results["finished_games"] == 2
    worker.communicate(timeout=120)
    for game in results["games"]:
        seat = game["bots"].index("nosy")
        stderr = tmp_path / "run" / "games" / f"{game['number']:05d}" / f"seat{seat}-nosy.stderr"
        assert stderr.read_text().splitlines()[0] == "nosy sees no secrets"


def test_worker_help_says_how_bots_are_found_and_shows_the_defaults(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("COLUMNS", "200")
    with pytest.raises(SystemExit) as exited:
        main(["worker", "--help"])
    assert exited.value.code == 0
    text = capsys.readouterr().out
    assert "(default: 30.0)" in text  # --lease
    assert "default: one per core" in text  # --concurrency
    assert "a command bot is started here, in the current folder" in text
    assert "(default: None)" not in text
