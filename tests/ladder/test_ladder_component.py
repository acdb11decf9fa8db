"""The Ladder component on a MatchManager and a LadderStore, without gRPC: capacity,
pausing a crashing bot and resuming it, and results and ratings that survive a restart."""

from __future__ import annotations

import asyncio
from collections import Counter
from collections.abc import Callable, Coroutine
from pathlib import Path

from structlog.testing import capture_logs

from botarena.server.ladder import Assignment, Connection, Ladder, LadderSettings
from botarena.server.match import MatchManager
from botarena.server.service import durable_manager
from botarena.server.store import SqliteStore
from botarena.server.store.ladder import SqlLadderStore


def _ladder(path: Path | str, manager: MatchManager | None = None, **settings: int) -> Ladder:
    """A ladder with a fast scheduler; ``settings`` are LadderSettings' int fields."""
    fast = LadderSettings(tick_seconds=0.02, keepalive_seconds=5.0, **settings)
    return Ladder(manager or MatchManager(), SqliteStore(path).ladder_store(), fast)


async def _play(manager: MatchManager, assignment: Assignment) -> None:
    """Play a seat to the end with its first legal move each time."""
    match = await manager.load(assignment.match_id)
    async for item in manager.stream(assignment.match_id, assignment.seat, 0):
        if item.decision is not None:
            manager.submit(
                assignment.match_id,
                assignment.seat_token,
                match.legal_moves(item.decision.seat)[0],
                expected_state_version=item.state_version,
            )


async def _resign(manager: MatchManager, assignment: Assignment) -> None:
    """Crash: resign at once."""
    manager.resign(assignment.match_id, assignment.seat_token)


Behaviour = Callable[[MatchManager, Assignment], Coroutine[object, object, None]]


async def _serve(ladder: Ladder, connection: Connection, behaviour: Behaviour) -> None:
    tasks: list[asyncio.Task[None]] = []
    async for item in connection:
        if isinstance(item, Assignment):
            tasks.append(asyncio.create_task(behaviour(ladder.manager, item)))


async def _until(condition: Callable[[], bool]) -> None:
    while not condition():
        await asyncio.sleep(0.01)


def test_the_ladder_never_seats_a_bot_beyond_its_declared_capacity(tmp_path: Path) -> None:
    async def main() -> None:
        ladder = _ladder(tmp_path / "ladder.db", pair_cap_per_hour=100)
        capacities = {"a": 2, "b": 1, "c": 3}
        connections = {}
        for name, capacity in capacities.items():
            _bot, secret = ladder.register(name, "", "qwirkle")
            connections[name] = ladder.connect(ladder.authenticate(secret), capacity)
        for _ in range(3):  # nobody plays: every match stays running
            ladder.schedule_now()
        seated: Counter[str] = Counter()
        for name, connection in connections.items():
            connection.push(None)
            seated[name] = sum([isinstance(item, Assignment) async for item in connection])
        assert all(seated[name] <= capacity for name, capacity in capacities.items())
        # Scheduling went on until at most one bot had room left (nobody to play with).
        assert sum(seated[name] < capacity for name, capacity in capacities.items()) <= 1
        assert sum(seated.values()) == 2 * len(ladder.store.unfinished_matches())
        await ladder.close()

    asyncio.run(main())


def test_the_ladder_says_once_that_the_hourly_cap_keeps_a_pair_apart(tmp_path: Path) -> None:
    async def main() -> None:
        ladder = _ladder(tmp_path / "ladder.db", pair_cap_per_hour=2)
        for name in ("a", "b"):
            _bot, secret = ladder.register(name, "", "qwirkle")
            ladder.connect(ladder.authenticate(secret), 5)
        with capture_logs() as logs:
            assert len(ladder.schedule_now()) == 2  # the cap, though both have room
            for _ in range(3):
                assert ladder.schedule_now() == []
        capped = [log for log in logs if "hourly cap" in log["event"]]
        assert len(capped) == 1
        assert {"bots": ["a", "b"], "matches_last_hour": 2, "pair_cap_per_hour": 2}.items() <= (
            capped[0].items()
        )
        await ladder.close()

    asyncio.run(main())


def test_an_always_crashing_bot_is_paused_and_shown_as_paused(tmp_path: Path) -> None:
    async def main() -> None:
        ladder = _ladder(tmp_path / "ladder.db", pause_after=3)
        await ladder.start()
        _, good_secret = ladder.register("good", "", "qwirkle")
        crasher, crash_secret = ladder.register("crasher", "", "qwirkle")
        good = ladder.connect(ladder.authenticate(good_secret), 2)
        bad = ladder.connect(ladder.authenticate(crash_secret), 2)
        players = [
            asyncio.create_task(_serve(ladder, good, _play)),
            asyncio.create_task(_serve(ladder, bad, _resign)),
        ]
        await _until(lambda: ladder.bot(crasher.bot_id).paused)
        await _until(lambda: not ladder.store.unfinished_matches())
        assert ladder.schedule_now() == []  # only the paused bot is left to pair with
        rows = {row.bot.name: row for row in ladder.leaderboard("qwirkle")}
        assert rows["crasher"].bot.paused
        assert rows["crasher"].connected
        # Pausing stops new matches; one already running (capacity 2) still ends.
        assert rows["crasher"].bot.crashes == rows["crasher"].bot.games in {3, 4}
        assert rows["crasher"].bot.bad_streak == rows["crasher"].bot.games
        assert rows["good"].bot.crashes == 0
        assert not rows["good"].bot.paused
        assert rows["good"].rank == 1

        # An operator resumes it: the pause and the streak go, the history stays, and the
        # bot is scheduled again.
        played = len(ladder.store.bot_matches(crasher.bot_id, 100))
        with capture_logs() as logs:
            resumed = ladder.resume(crasher.bot_id)
        assert (resumed.paused, resumed.bad_streak) == (False, 0)
        assert resumed.crashes == rows["crasher"].bot.crashes
        assert {"event": "bot resumed", "bot": crasher.bot_id, "was_paused": True}.items() <= (
            logs[0].items()
        )
        await _until(lambda: len(ladder.store.bot_matches(crasher.bot_id, 100)) > played)
        await ladder.close()
        for task in players:
            task.cancel()

    asyncio.run(main())


def test_results_and_ratings_survive_a_restart(tmp_path: Path) -> None:
    path = tmp_path / "ladder.db"

    async def first_run() -> list[tuple[str, float, float, int]]:
        ladder = _ladder(path)
        await ladder.start()
        _, secret_a = ladder.register("a", "", "qwirkle")
        _, secret_b = ladder.register("b", "", "qwirkle")
        a = ladder.connect(ladder.authenticate(secret_a), 1)
        b = ladder.connect(ladder.authenticate(secret_b), 1)
        players = [asyncio.create_task(_serve(ladder, c, _play)) for c in (a, b)]
        await _until(lambda: ladder.leaderboard("qwirkle")[0].bot.games >= 3)
        await ladder.close()
        for task in players:
            task.cancel()
        rows = [
            (r.bot.name, r.bot.mu, r.bot.sigma, r.bot.games) for r in ladder.leaderboard("qwirkle")
        ]
        assert isinstance(ladder.store, SqlLadderStore)
        ladder.store.close()
        return rows

    async def second_run() -> tuple[list[tuple[str, float, float, int]], int]:
        ladder = _ladder(path)
        await ladder.start()
        rows = [
            (r.bot.name, r.bot.mu, r.bot.sigma, r.bot.games) for r in ladder.leaderboard("qwirkle")
        ]
        bot_id = ladder.leaderboard("qwirkle")[0].bot.bot_id
        finished = [m for m in ladder.bot_matches(bot_id, 50) if m.finished and not m.abandoned]
        await ladder.close()
        return rows, len(finished)

    before = asyncio.run(first_run())
    after, finished = asyncio.run(second_run())
    assert after == before
    assert finished == before[0][3]
    assert before[0][1] != 25.0


def test_a_restarted_ladder_records_a_recovered_match_and_abandons_a_lost_one(
    tmp_path: Path,
) -> None:
    path = tmp_path / "botarena.db"
    fast = LadderSettings(tick_seconds=0.02, keepalive_seconds=5.0)

    def durable_ladder() -> tuple[SqliteStore, Ladder]:
        core = SqliteStore(path)
        manager = durable_manager(core)
        manager.recover()
        return core, Ladder(manager, core.ladder_store(), fast)

    async def main() -> None:
        core, first = durable_ladder()
        _, secret_a = first.register("a", "", "qwirkle")
        _, secret_b = first.register("b", "", "qwirkle")
        first.connect(first.authenticate(secret_a), 1)
        first.connect(first.authenticate(secret_b), 1)
        (match_id,) = first.schedule_now()
        tokens = first.manager.get(match_id).tokens  # what the bots were sent
        await first.close()
        first.manager.close()
        core.close()

        # A new server on the same database: the store recovers the running match and the
        # ladder follows it again; the bots finish it with the tokens they hold.
        core, second = durable_ladder()
        await second.start()
        manager = second.manager
        # The bots reconnect. The server kept only hashes of the recovered match's tokens,
        # so it cannot repeat that assignment; the connection opens all the same.
        reconnected = second.connect(second.authenticate(secret_a), 1)
        assert reconnected._queue.empty()
        reconnected.close()
        seats = [Assignment(match_id, token, "qwirkle", seat) for seat, token in enumerate(tokens)]
        await asyncio.gather(*(_play(manager, seat) for seat in seats))
        await _until(lambda: not second.store.unfinished_matches())
        record = second.store.match(match_id)
        assert record is not None
        assert record.finished is not None
        assert not record.abandoned
        assert all(seat.rank is not None for seat in record.seats)
        a = next(row for row in second.leaderboard("qwirkle") if row.bot.name == "a")
        assert a.bot.games == 1
        second.connect(second.authenticate(secret_a), 1)
        second.connect(second.authenticate(secret_b), 1)
        (lost,) = second.schedule_now()
        await second.close()
        manager.close()
        core.close()

        # A server whose manager did not recover the match (an in-memory one): the ladder
        # abandons it.
        third = _ladder(path, MatchManager())
        await third.start()
        lost_record = third.store.match(lost)
        assert lost_record is not None
        assert lost_record.abandoned
        assert third.store.unfinished_matches() == []
        await third.close()

    asyncio.run(main())
