"""A server killed with SIGKILL mid-match resumes every match from its database; a node
of a cluster killed so loses its matches to another node, which finishes them.

``botarena serve --db FILE --port 0`` runs as a real subprocess. Several Qwirkle and Qwixx
matches are played by deterministic bots (each decision a pure function of the match, the
seat and the legal moves), the server is killed with SIGKILL while all of them are
running, and a new server starts on the same database and port. The bots reconnect with
their tokens, every match finishes, and the final scores equal those of an uninterrupted
in-process run with the same seeds and the same bots. The same holds for two
``botarena serve --db postgresql://...`` nodes when the one that runs the matches is
killed: the other takes their leases over once they expire and the bots, sent there by
redirects, finish them.
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import os
import random
import subprocess
import sys
import threading
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from botarena.clients import AsyncMatchClient, RetryPolicy, run_bot_async
from botarena.clients.testing import free_port, start_server_async
from botarena.v1 import match_pb2

_START = "from botarena.clients.cli import main; raise SystemExit(main())"
# (game, seats, seed): several matches of both games at once.
_MATCHES = (
    (match_pb2.GAME_QWIRKLE, 2, 101),
    (match_pb2.GAME_QWIRKLE, 3, 102),
    (match_pb2.GAME_QWIRKLE, 2, 103),
    (match_pb2.GAME_QWIXX, 3, 201),
    (match_pb2.GAME_QWIXX, 2, 202),
)
_KILL_AT_VERSION = 8
_RECONNECT = RetryPolicy(initial_backoff=0.05, max_backoff=0.5, max_elapsed=30.0)


class PureBot:
    """Chooses a legal move by a hash of (match label, seat, legal moves); may dawdle."""

    def __init__(self, label: str, delay: float) -> None:
        self.label = label
        self.delay = delay

    def choose_move(
        self, view: match_pb2.PlayerView, legal_moves: Sequence[match_pb2.Move], rng: random.Random
    ) -> match_pb2.Move:
        time.sleep(self.delay)  # in the bot's worker thread: keeps the kill mid-match
        digest = hashlib.sha256(f"{self.label}:{view.seat}".encode())
        for move in legal_moves:
            digest.update(move.SerializeToString(deterministic=True))
        return legal_moves[random.Random(digest.digest()).randrange(len(legal_moves))]


def _config(game: match_pb2.Game.ValueType, seats: int, seed: int) -> match_pb2.MatchConfig:
    config = match_pb2.MatchConfig(game=game, seat_count=seats, seed=seed)
    config.time_control.move_time_limit.FromSeconds(120)  # no timeouts, before or after
    return config


async def _play_all(
    address: str, delay: float, bots_at: str | None = None
) -> tuple[list[str], list[asyncio.Task[Any]]]:
    """Create every match at ``address`` and start its bots, which connect to ``bots_at``
    (default: the same); return the match names and the bot tasks (seat by seat, match by
    match)."""
    names: list[str] = []
    tasks: list[asyncio.Task[Any]] = []
    async with AsyncMatchClient(target=address) as admin:
        for game, seats, seed in _MATCHES:
            created = await admin.create_match(_config(game, seats, seed))
            names.append(created.match.name)
            for seat_token in created.seat_tokens:
                bot = PureBot(f"{game}:{seed}", delay)
                tasks.append(
                    asyncio.create_task(
                        run_bot_async(
                            bot,
                            server=bots_at or address,
                            token=seat_token.token,
                            reconnect=_RECONNECT,
                        )
                    )
                )
    return names, tasks


async def _when_every_match_reaches(
    address: str, names: Sequence[str], version: int
) -> list[match_pb2.Match]:
    """Wait until every match has reached ``version``; return them as they are then."""
    async with AsyncMatchClient(target=address) as spectator:
        while True:
            matches = [(await spectator.get_match(name)).match for name in names]
            if min(match.state_version for match in matches) >= version:
                return matches
            await asyncio.sleep(0.01)


def _scores(outcomes: Sequence[match_pb2.MatchOutcome]) -> list[tuple[int, ...]]:
    return [tuple(result.score for result in outcome.results) for outcome in outcomes]


def _reference_scores() -> list[tuple[int, ...]]:
    async def run() -> list[tuple[int, ...]]:
        async with start_server_async() as address:
            _, tasks = await _play_all(address, delay=0.0)
            return _scores(await asyncio.gather(*tasks))

    return asyncio.run(run())


class ServerProcess:
    """``botarena serve`` in a subprocess; its output is collected on a thread."""

    def __init__(self, database: Path | str, port: int, *options: str) -> None:
        command = [sys.executable, "-c", _START, "serve", "--db", str(database), *options]
        self.process = subprocess.Popen(
            [*command, "--port", str(port), "--log-format", "json"],
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
            env={**os.environ, "GRPC_VERBOSITY": "NONE"},
        )
        self.lines: list[dict[str, Any]] = []
        self.serving = threading.Event()
        self.reader = threading.Thread(target=self._read, daemon=True)
        self.reader.start()
        if not self.serving.wait(60):
            self.process.kill()
            raise AssertionError(f"the server did not start: {self.lines}")

    def _read(self) -> None:
        assert self.process.stdout is not None
        for line in self.process.stdout:
            if line.startswith("{"):
                self.lines.append(json.loads(line))
                if self.lines[-1]["event"] == "serving":
                    self.serving.set()

    @property
    def port(self) -> int:
        return int(next(line["port"] for line in self.lines if line["event"] == "serving"))

    def events(self, name: str) -> list[dict[str, Any]]:
        return [line for line in self.lines if line["event"] == name]

    def stop(self) -> None:
        self.process.kill()
        self.process.wait(30)
        self.reader.join(30)
        if self.process.stdout is not None:
            self.process.stdout.close()


def test_a_server_killed_mid_match_resumes_every_match_with_the_same_scores(
    tmp_path: Path,
) -> None:
    expected = _reference_scores()
    database = tmp_path / "botarena.db"

    async def run() -> tuple[list[tuple[int, ...]], list[int], list[match_pb2.Match]]:
        first = ServerProcess(database, 0)
        port = first.port
        address = f"127.0.0.1:{port}"
        second: ServerProcess | None = None
        try:
            names, tasks = await _play_all(address, delay=0.02)
            matches = await _when_every_match_reaches(address, names, _KILL_AT_VERSION)
            first.stop()  # SIGKILL: no grace, no flush, no goodbye
            assert all(match.state == match_pb2.Match.STATE_ACTIVE for match in matches)
            killed_at = [match.state_version for match in matches]
            await asyncio.sleep(0.5)  # the bots notice and start retrying
            second = ServerProcess(database, port)
            assert len(second.events("match recovered")) == len(_MATCHES)
            outcomes = await asyncio.wait_for(asyncio.gather(*tasks), 90)
            async with AsyncMatchClient(target=address) as spectator:
                final = [(await spectator.get_match(name)).match for name in names]
            return _scores(outcomes), killed_at, final
        finally:
            first.stop()
            if second is not None:
                second.stop()

    scores, killed_at, final = asyncio.run(run())
    assert scores == expected
    assert all(version >= _KILL_AT_VERSION for version in killed_at)
    # Every seat's bot saw its match's outcome; the server's record says the same.
    seats_scores = [
        tuple(result.score for result in match.outcome.results)
        for match, (_, seats, _) in zip(final, _MATCHES, strict=True)
        for _ in range(seats)
    ]
    assert seats_scores == expected
    for match in final:
        assert match.state == match_pb2.Match.STATE_FINISHED
        assert not any(seat.timeouts for seat in match.seats)


def test_a_node_killed_mid_match_loses_its_matches_to_another_node_with_the_same_scores(
    postgres_database: str,
) -> None:
    expected = _reference_scores()

    def node(port: int) -> ServerProcess:
        advertise = f"127.0.0.1:{port}"
        return ServerProcess(
            postgres_database, port, "--advertise", advertise, "--lease-seconds", "2"
        )

    async def run() -> tuple[list[tuple[int, ...]], list[match_pb2.Match], ServerProcess]:
        owner, other = node(free_port()), node(free_port())
        owner_address, other_address = (f"127.0.0.1:{n.port}" for n in (owner, other))
        try:
            # The matches are made on one node; their bots are sent to the other, which
            # redirects them to the owner.
            names, tasks = await _play_all(owner_address, delay=0.02, bots_at=other_address)
            matches = await _when_every_match_reaches(owner_address, names, _KILL_AT_VERSION)
            owner.stop()  # SIGKILL: its leases run out, nobody releases them
            assert all(match.state == match_pb2.Match.STATE_ACTIVE for match in matches)
            outcomes = await asyncio.wait_for(asyncio.gather(*tasks), 90)
            async with AsyncMatchClient(target=other_address) as spectator:
                final = [(await spectator.get_match(name)).match for name in names]
            return _scores(outcomes), final, other
        finally:
            owner.stop()
            other.stop()

    scores, final, other = asyncio.run(run())
    assert scores == expected
    taken_over = {line["match"] for line in other.events("match recovered")}
    assert taken_over == {match.name.removeprefix("matches/") for match in final}
    for match in final:
        assert match.state == match_pb2.Match.STATE_FINISHED
        assert not any(seat.timeouts for seat in match.seats)
