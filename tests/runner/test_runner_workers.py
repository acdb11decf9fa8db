"""`botarena match` plays in worker processes: each hosts an embedded server and plays the
built-in bots of its games (or, with ``--server``, only the bots). What happens when a
worker dies, when the runner is stopped or killed, and to a bot a worker cannot load."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import textwrap
import threading
import time
from collections.abc import Callable, Iterator, Mapping
from pathlib import Path
from typing import Any

import pytest

from botarena.bots import BUILTIN_BOTS, BuiltinBot, RandomBot
from botarena.clients import Bot
from botarena.clients.runner import BuiltinBot as RunnerBuiltinBot
from botarena.clients.testing import start_server

RunCli = Callable[..., tuple[int, str, dict[str, Any]]]
"""The ``run_cli`` fixture (conftest.py)."""

_WORKER = "from botarena.clients.runner._child import main"


def _workers_of(parent: int) -> list[int]:
    """The live worker processes whose parent is ``parent``."""
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
            command = (entry / "cmdline").read_bytes().replace(b"\0", b" ")
        except OSError:
            continue
        # The command (in parentheses) may hold spaces: the fields after it are fixed.
        state, ppid = stat.rsplit(")", 1)[1].split()[:2]
        if int(ppid) == parent and state != "Z" and _WORKER.encode() in command:
            found.append(int(entry.name))
    return found


def _alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return False
    return state != "Z"


def _wait_for(condition: Callable[[], bool], timeout: float = 60.0) -> bool:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if condition():
            return True
        time.sleep(0.05)
    return False


def _builtin(name: str, factory: Callable[[], Bot]) -> BuiltinBot:
    return BuiltinBot(name, "a bot of the test", None, factory, "botarena.bots.random")


@pytest.fixture
def kill_a_worker_once(tmp_path: Path) -> Iterator[Callable[[str], list[int]]]:
    """Returns a function that starts a thread which, once game ``folder`` of the run
    under ``tmp_path/run`` exists, kills one worker of this process (kill -9); the list
    it returns gets the killed pid."""
    threads: list[threading.Thread] = []

    def arm(folder: str) -> list[int]:
        killed: list[int] = []

        def kill() -> None:
            if _wait_for(lambda: (tmp_path / "run" / "games" / folder).exists()):
                workers = _workers_of(os.getpid())
                if workers:
                    os.kill(workers[0], signal.SIGKILL)
                    killed.append(workers[0])

        thread = threading.Thread(target=kill, daemon=True)
        thread.start()
        threads.append(thread)
        return killed

    yield arm
    for thread in threads:
        thread.join(timeout=70)


def test_a_run_plays_in_workers_and_leaves_none_behind(tmp_path: Path, run_cli: RunCli) -> None:
    seen: list[int] = []

    def sample() -> bool:
        seen.extend(_workers_of(os.getpid()))
        return bool(seen)

    sampler = threading.Thread(target=_wait_for, args=(sample,), daemon=True)
    sampler.start()
    argv = ("--bot", "greedy", "--bot", "random", "--games", "8", "--concurrency", "2")
    status, text, results = run_cli(*argv)
    sampler.join(timeout=5)
    assert status == 0, text
    assert results["finished_games"] == 8
    assert seen, "the run started no worker process"
    assert _workers_of(os.getpid()) == []
    assert not any(_alive(pid) for pid in seen)


def test_a_worker_that_dies_with_its_server_stops_the_run(
    tmp_path: Path, run_cli: RunCli, kill_a_worker_once: Callable[[str], list[int]]
) -> None:
    killed = kill_a_worker_once("00003")
    argv = ("--bot", "greedy", "--bot", "random", "--games", "400", "--concurrency", "2")
    started = time.monotonic()
    status, text, results = run_cli(*argv)
    assert killed, "no worker was killed"
    assert time.monotonic() - started < 60  # it stopped, it did not wait for the server
    assert status == 1
    assert f"(pid {killed[0]}) exited with status -9" in text
    assert "the run stopped" in text
    assert 1 <= results["finished_games"] < 400  # what finished is still reported
    assert _workers_of(os.getpid()) == []


def test_a_bot_worker_that_dies_costs_its_seats_games_and_a_new_one_plays_on(
    tmp_path: Path, run_cli: RunCli, kill_a_worker_once: Callable[[str], list[int]]
) -> None:
    with start_server(max_matches_per_caller=0, max_creates_per_minute=0) as address:
        killed = kill_a_worker_once("00003")
        argv = ("--server", address, "--bot", "greedy", "--bot", "random")
        status, text, results = run_cli(*argv, "--games", "8", "--concurrency", "1")
    assert killed, "no worker was killed"
    assert status == 0, text  # not a first game: the run goes on
    assert results["finished_games"] == 8
    crashes = [
        failure for game in results["games"] for failure in game["crashes"] if failure is not None
    ]
    assert crashes, "the killed worker's seat was not counted as a crash"
    assert all("BotWorkerExitedError" in failure for failure in crashes)
    assert all(game["crashes"] == [None, None] for game in results["games"][4:])
    assert f"(pid {killed[0]}) exited with status -9" in text


_CRASHING_MODULE = """
    from botarena.bots import RandomBot

    class CrashingBot(RandomBot):
        def choose_move(self, view, legal_moves, rng):
            raise RuntimeError("my evaluation is broken, in a worker")
"""


def test_a_bot_that_raises_in_a_worker_fails_the_run_with_the_workers_traceback(
    tmp_path: Path, run_cli: RunCli, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "crashing_bot_module.py").write_text(textwrap.dedent(_CRASHING_MODULE))
    monkeypatch.syspath_prepend(str(tmp_path))  # the workers get the runner's sys.path
    import crashing_bot_module  # type: ignore[import-not-found]

    builtin: Mapping[str, RunnerBuiltinBot] = {
        **BUILTIN_BOTS,
        "broken": _builtin("broken", crashing_bot_module.CrashingBot),
    }
    argv = ("--bot", "broken", "--bot", "random", "--games", "20", "--concurrency", "2")
    status, text, results = run_cli(*argv, builtin=builtin)
    assert status == 1
    assert "broken failed in its first game" in text
    assert "raised RuntimeError: my evaluation is broken, in a worker" in text
    assert "crashing_bot_module.py" in text  # the worker's traceback
    assert results["failed_run"]["bot"] == "broken"


def test_a_bot_the_workers_cannot_load_plays_in_the_runners_process(run_cli: RunCli) -> None:
    players: list[int] = []

    class Local(RandomBot):  # defined in a function: no worker can find it
        def choose_move(self, *args: Any, **kwargs: Any) -> Any:
            players.append(os.getpid())
            return super().choose_move(*args, **kwargs)

    builtin: Mapping[str, RunnerBuiltinBot] = {**BUILTIN_BOTS, "local": _builtin("local", Local)}
    status, text, results = run_cli(
        "--bot", "local", "--bot", "greedy", "--games", "2", builtin=builtin
    )
    assert status == 0, text
    assert results["finished_games"] == 2
    assert players
    assert set(players) == {os.getpid()}


def _runner(tmp_path: Path, *argv: str) -> subprocess.Popen[str]:
    # -X faulthandler: a SIGABRT (see _output) prints every thread's stack.
    command = [sys.executable, "-X", "faulthandler", "-m", "botarena.clients.cli", "match"]
    command += ["--quiet"]
    command += ["--bot", "greedy", "--bot", "random", "--out", str(tmp_path / "run"), *argv]
    return subprocess.Popen(
        command,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        # SIGINT must be at its default in the child: a shell may start it ignored.
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
    )


def _output(runner: subprocess.Popen[str]) -> str:
    """The runner's output once it has exited; a runner that hangs is made to show where."""
    try:
        output, _ = runner.communicate(timeout=60)
    except subprocess.TimeoutExpired:
        runner.send_signal(signal.SIGABRT)
        output, _ = runner.communicate(timeout=10)
        pytest.fail(f"the runner did not exit:\n{output}")
    return output


def _started_workers(runner: subprocess.Popen[str], tmp_path: Path) -> list[int]:
    if not _wait_for(lambda: (tmp_path / "run" / "games" / "00002").exists()):
        runner.kill()
        pytest.fail(f"the run did not start:\n{_output(runner)}")
    workers = _workers_of(runner.pid)
    assert workers
    return workers


def test_ctrl_c_stops_the_workers_with_the_run(tmp_path: Path) -> None:
    runner = _runner(tmp_path, "--games", "400", "--concurrency", "2")
    workers = _started_workers(runner, tmp_path)
    runner.send_signal(signal.SIGINT)
    output = _output(runner)
    assert runner.returncode == 130, output
    assert json.loads((tmp_path / "run" / "results.json").read_text())["interrupted"] is True
    assert not any(_alive(pid) for pid in workers)


def test_the_workers_of_a_killed_runner_end_by_themselves(tmp_path: Path) -> None:
    runner = _runner(tmp_path, "--games", "400", "--concurrency", "2")
    workers = _started_workers(runner, tmp_path)
    runner.kill()
    _output(runner)
    assert _wait_for(lambda: not any(_alive(pid) for pid in workers), timeout=20)
