# mypy: disable-error-code="import-untyped"
"""Nodes, bots, the queue and the ladder across database faults, on a real PostgreSQL.

A PostgreSQL of this module's own is stopped (``pg_ctl -m fast``, or ``-m immediate``: a
crash) and started again on the same port and data while ``botarena serve`` nodes run
matches of SDK bots, and while ``botarena match --queue`` and ``botarena worker`` play a
queued run: every match ends without a forfeit and the run finishes. A scheduling node
frozen with SIGSTOP past its lease loses the ladder to another node, which starts the
next matches; woken up, the old one schedules nothing alongside (docs/decisions.md:
Database faults).
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import json
import os
import signal
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from datetime import datetime
from pathlib import Path
from typing import Any

import grpc
import psycopg
import pytest
from google.protobuf import duration_pb2

from botarena.bots import get_bot
from botarena.clients import (
    AsyncLadderClient,
    AsyncMatchClient,
    Bot,
    StoreUnavailableError,
    run_bot_async,
    run_ladder_bot_async,
)
from botarena.clients.testing import ServerProcess, SlowBot, free_port
from botarena.server.store.local_postgres import (
    LocalPostgres,
    scratch_database,
)
from botarena.v1 import match_pb2

QWIRKLE = match_pb2.GAME_QWIRKLE
_CLI = (sys.executable, "-m", "botarena.clients.cli")


@pytest.fixture
def database(restartable_postgres: LocalPostgres) -> Iterator[str]:
    """An empty database of its own on the module's restartable server."""
    with scratch_database(restartable_postgres.url, "faults") as url:
        yield url


def _node(url: str, log: Path, *more: str) -> ServerProcess:
    port = free_port()
    options = ["--advertise", f"127.0.0.1:{port}", "--lease-seconds", "2", *more]
    return ServerProcess(url, options=options, log_path=log, port=port)


def _events(log: Path, name: str) -> list[dict[str, Any]]:
    lines = [json.loads(line) for line in log.read_text().splitlines() if line.startswith("{")]
    return [line for line in lines if line.get("event") == name]


def _query(url: str, query: str) -> list[tuple[Any, ...]]:
    with psycopg.connect(url) as connection:
        return connection.execute(query.encode()).fetchall()


def test_matches_play_through_a_fast_restart_and_a_crash_of_postgresql_without_a_timeout(
    restartable_postgres: LocalPostgres, database: str, tmp_path: Path
) -> None:
    logs = [tmp_path / "a.log", tmp_path / "b.log"]
    with _node(database, logs[0]) as first, _node(database, logs[1]) as second:
        first.start()
        second.start()

        async def run() -> tuple[
            list[list[match_pb2.MatchOutcome]], int, StoreUnavailableError | None
        ]:
            config = match_pb2.MatchConfig(
                game=QWIRKLE,
                seat_count=2,
                # The ladder's policy, and less time than the crash lasts: a seat whose
                # decision could not be shown must not be charged for it.
                time_control=match_pb2.TimeControl(
                    move_time_limit=duration_pb2.Duration(seconds=3)
                ),
                policies=match_pb2.MatchPolicies(on_timeout=match_pb2.TIMEOUT_POLICY_FORFEIT),
            )
            seats = []
            for node in (first, second, first, second):
                async with AsyncMatchClient(target=node.address) as client:
                    created = await client.create_match(config)
                seats.append(
                    [
                        asyncio.create_task(
                            run_bot_async(
                                _paced("random"),  # the matches outlast the outages
                                server=node.address,
                                token=seat.token,
                                match=created.match.name,
                            )
                        )
                        for seat in created.seat_tokens
                    ]
                )
            every = [task for match in seats for task in match]
            await asyncio.sleep(1.0)
            await asyncio.to_thread(restartable_postgres.outage, "fast", 2.0)
            await asyncio.sleep(1.0)
            running = sum(not task.done() for task in every)
            # Down longer than the 2 s leases (they all expire meanwhile) and the 3 s
            # move time limit.
            crash = asyncio.create_task(
                asyncio.to_thread(restartable_postgres.outage, "immediate", 5.0)
            )
            await asyncio.sleep(1.0)
            refused = None
            async with AsyncMatchClient(target=first.address) as client:
                try:
                    await client.create_match(config)
                except StoreUnavailableError as error:
                    refused = error
            await crash
            await asyncio.wait_for(asyncio.gather(*every), 120)
            return [[task.result() for task in match] for match in seats], running, refused

        outcomes, running_at_the_crash, refused = asyncio.run(run())

    assert running_at_the_crash == 8  # the crash hit every match mid-game
    # What a caller is told while the database is away: UNAVAILABLE, retry soon.
    assert refused is not None
    assert (refused.code, refused.reason) == (grpc.StatusCode.UNAVAILABLE, "STORE_UNAVAILABLE")
    assert refused.retryable
    assert refused.retry_after == 0.5
    for first_seat, second_seat in outcomes:
        assert first_seat == second_seat
        assert [result.forfeited for result in first_seat.results] == [False, False]
    # Commits met the database away, and were made once it was back; nothing else failed.
    assert sum(len(_events(log, "commit waits for the database")) for log in logs) > 0
    for log in logs:
        assert _events(log, "unexpected error") == []
        assert _events(log, "commit failed") == []
    # Every match is finished in the store, each log entry once, without a gap.
    assert _query(database, "SELECT count(*) FROM matches WHERE finished") == [(4,)]
    assert _query(database, "SELECT sum(timeouts) FROM match_seats") == [(0,)]
    logged = _query(
        database,
        "SELECT count(*), count(DISTINCT state_version), min(state_version), "
        "max(state_version) FROM events GROUP BY match_id",
    )
    assert len(logged) == 4
    for count, distinct, low, high in logged:
        assert count == distinct == high - low + 1


@contextlib.contextmanager
def _cli(*argv: str) -> Iterator[subprocess.Popen[str]]:
    process = subprocess.Popen(
        [*_CLI, *argv],
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        start_new_session=True,
    )
    try:
        yield process
    finally:
        if process.poll() is None:
            os.killpg(process.pid, signal.SIGKILL)
        process.wait()
        if process.stdout is not None:
            process.stdout.close()


def _wait_for(condition: Callable[[], Any], what: str, timeout: float = 120.0) -> Any:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        with contextlib.suppress(psycopg.Error):
            value = condition()
            if value:
                return value
        time.sleep(0.1)
    raise AssertionError(f"gave up waiting for {what}")


def test_a_queued_run_and_its_worker_outlive_a_postgresql_restart_and_the_run_finishes(
    restartable_postgres: LocalPostgres, database: str
) -> None:
    bots = ("--bot", "random", "--bot", "greedy", "--games", "8")
    with (
        _cli("match", "--queue", database, *bots, "--quiet") as coordinator,
        _cli("worker", "--queue", database, "--concurrency", "1", "--idle-exit", "5") as worker,
    ):

        def reported() -> int:
            return int(_query(database, "SELECT count(*) FROM runner_game_results")[0][0])

        _wait_for(lambda: reported() >= 1, "a first game reported")
        restartable_postgres.outage("fast", 2.0)
        before_the_crash = reported()
        _wait_for(lambda: reported() > before_the_crash, "a game reported after the restart")
        restartable_postgres.outage("immediate", 3.0)
        coordinator_text, _ = coordinator.communicate(timeout=300)
        worker_text, _ = worker.communicate(timeout=120)

    assert coordinator.returncode == 0, coordinator_text
    assert worker.returncode == 0, worker_text
    assert before_the_crash < 8  # the crash came while games were left to play
    for text in (coordinator_text, worker_text):
        assert "reconnecting with backoff" in text, text
        assert "is back" in text, text
        assert "Traceback" not in text, text
    per_game = _query(
        database,
        "SELECT game_number, count(*) FROM runner_game_results GROUP BY game_number "
        "ORDER BY game_number",
    )
    assert per_game == [(number, 1) for number in range(1, 9)]
    assert _query(database, "SELECT state FROM runner_runs") == [("finished",)]


def test_a_frozen_scheduling_node_loses_the_ladder_to_another_which_starts_the_next_matches(
    database: str, tmp_path: Path
) -> None:
    leader_log, other_log = tmp_path / "a.log", tmp_path / "b.log"
    with (
        _node(database, leader_log, "--ladder") as leader,
        _node(database, other_log, "--ladder") as other,
    ):
        leader.start()  # the first node up takes the scheduling lease
        other.start()

        def started(log: Path) -> set[str]:
            return {line["match"] for line in _events(log, "ladder match started")}

        async def run() -> tuple[set[str], float]:
            while not _events(leader_log, "ladder scheduling on this node"):
                await asyncio.sleep(0.05)
            os.kill(leader.pid, signal.SIGSTOP)  # frozen: its sessions stay open
            try:
                frozen_at = time.monotonic()
                bots = await _ladder_bots(other.address, [other.address], get_bot)
                # Frozen for at most 30 s: the other node must schedule meanwhile.
                while not started(other_log) and time.monotonic() - frozen_at < 30:
                    await asyncio.sleep(0.05)
                during = started(other_log)
            finally:
                os.kill(leader.pid, signal.SIGCONT)
            woke = time.time()
            try:
                # Awake again: a few of its ticks, while the bots go on playing.
                await asyncio.sleep(3.0)
            finally:
                await _stop(bots)
            return during, woke

        during, woke = asyncio.run(asyncio.wait_for(run(), 120))

    assert during  # scheduled elsewhere while the leader was frozen
    assert _events(other_log, "ladder scheduling on this node")
    # Woken, the old leader learns it lost the lease and creates no match alongside.
    assert _events(leader_log, "ladder scheduling lost to another node")
    assert _events(leader_log, "ladder match started") == []
    assert _events(leader_log, "match created") == []
    ladder_matches = {row[0] for row in _query(database, "SELECT match_id FROM ladder_matches")}
    assert ladder_matches == started(other_log)
    assert all(_stamp(line) < woke for line in _events(other_log, "ladder scheduling on this node"))


def test_the_ladder_plays_and_rates_through_a_postgresql_crash_without_a_forfeit(
    restartable_postgres: LocalPostgres, database: str, tmp_path: Path
) -> None:
    logs = [tmp_path / "a.log", tmp_path / "b.log"]
    # Ladder matches forfeit a seat that runs out of time; 3 s a move, less than the crash.
    ladder = ("--ladder", "--ladder-move-time", "3")
    with _node(database, logs[0], *ladder) as leader, _node(database, logs[1], *ladder) as other:
        leader.start()  # it schedules
        other.start()

        def recorded() -> int:
            return sum(len(_events(log, "ladder match recorded")) for log in logs)

        async def run() -> None:
            bots = await _ladder_bots(other.address, [other.address, leader.address], _paced)
            try:
                while recorded() < 1:
                    await asyncio.sleep(0.05)
                await asyncio.sleep(1.0)  # the next match is under way
                await asyncio.to_thread(restartable_postgres.outage, "immediate", 5.0)
                before = recorded()
                while recorded() < before + 2:
                    await asyncio.sleep(0.05)
            finally:
                await _stop(bots)

        asyncio.run(asyncio.wait_for(run(), 110))

    # The crash hit a match: a commit waited for the database.
    assert sum(len(_events(log, "commit waits for the database")) for log in logs) > 0
    seats = _query(
        database,
        "SELECT s.forfeited, s.timeouts, s.crashed FROM ladder_seats s "
        "JOIN ladder_matches m ON m.match_id = s.match_id WHERE m.finished IS NOT NULL "
        "AND NOT m.abandoned",
    )
    assert len(seats) >= 6
    assert set(seats) == {(False, 0, False)}
    assert _query(database, "SELECT count(*) FROM ladder_matches WHERE abandoned") == [(0,)]


async def _ladder_bots(
    register_at: str, servers: list[str], player: Callable[[str], Bot]
) -> list[asyncio.Task[None]]:
    """Register greedy and random at ``register_at`` and connect them to ``servers``,
    each match played by ``player(name)``; return their tasks (see :func:`_stop`)."""
    async with AsyncLadderClient(target=register_at) as client:
        secrets = [
            (await client.register_bot(name, "", QWIRKLE)).secret for name in ("greedy", "random")
        ]
    return [
        asyncio.create_task(
            run_ladder_bot_async(functools.partial(player, name), server=servers, secret=secret)
        )
        for name, secret in zip(("greedy", "random"), secrets, strict=True)
    ]


async def _stop(tasks: list[asyncio.Task[None]]) -> None:
    for task in tasks:
        task.cancel()
    await asyncio.gather(*tasks, return_exceptions=True)


def _paced(name: str) -> SlowBot:
    """The built-in bot ``name``, a tenth of a second a move."""
    return SlowBot(get_bot(name), 0.1)


def _stamp(line: dict[str, Any]) -> float:
    return datetime.fromisoformat(str(line["timestamp"]).replace("Z", "+00:00")).timestamp()
