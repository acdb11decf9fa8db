# mypy: disable-error-code="import-untyped"
"""The ladder on two ``botarena serve --ladder`` nodes sharing one real PostgreSQL.

One node schedules (it holds the ladder's scheduling lease), bots connect to the other,
and their matches, run by the scheduling node, are played through redirects and rated.
Killing the scheduling node with SIGKILL hands scheduling over: the other node takes the
lease over, finishes the matches it left (their leases expire) and goes on starting new ones.
With three nodes and bots on each, the matches run on the nodes the scheduler asks (the
least busy), and the survivors of a killed node split its matches between them.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import json
import threading
from collections.abc import AsyncIterator, Callable, Sequence
from pathlib import Path
from random import Random
from typing import Any

from botarena.bots import get_bot
from botarena.clients import (
    AsyncLadderClient,
    AsyncMatchClient,
    Bot,
    MatchOnOtherNodeError,
    RetryPolicy,
    run_ladder_bot_async,
)
from botarena.clients.testing import ServerProcess, free_port
from botarena.server.store import PostgresStore
from botarena.v1 import ladder_pb2, match_pb2

QWIRKLE = match_pb2.GAME_QWIRKLE
# A ladder bot that tries the next node soon (LADDER_RECONNECT waits up to 10 s).
_QUICK = RetryPolicy(max_attempts=1, max_backoff=1.0, max_elapsed=float("inf"))


def _node(url: str, log: Path, *more: str) -> ServerProcess:
    port = free_port()
    options = ["--advertise", f"127.0.0.1:{port}", "--lease-seconds", "2", "--ladder", *more]
    return ServerProcess(url, options=options, log_path=log, port=port)


def _events(log: Path, name: str) -> list[dict[str, Any]]:
    lines = [json.loads(line) for line in log.read_text().splitlines() if line.startswith("{")]
    return [line for line in lines if line.get("event") == name]


async def _until(condition: Callable[[], bool]) -> None:
    while not condition():
        await asyncio.sleep(0.05)


@contextlib.asynccontextmanager
async def _ladder_bots(
    admin: str,
    bot: Callable[[str], Bot],
    on_match_end: Callable[[str, object], None],
    **options: Any,
) -> AsyncIterator[None]:
    """Register greedy and random at ``admin`` and keep both connected (``bot(name)``
    makes each match's player; ``options`` go to ``run_ladder_bot_async``) for the
    block."""
    async with AsyncLadderClient(target=admin) as client:
        secrets = {
            name: (await client.register_bot(name, "", QWIRKLE)).secret
            for name in ("greedy", "random")
        }
    bots = [
        asyncio.create_task(
            run_ladder_bot_async(
                functools.partial(bot, name),
                secret=secret,
                on_match_end=on_match_end,
                **options,
            )
        )
        for name, secret in secrets.items()
    ]
    try:
        yield
    finally:
        for task in bots:
            task.cancel()
        await asyncio.gather(*bots, return_exceptions=True)


async def _board(address: str) -> dict[str, ladder_pb2.LeaderboardEntry]:
    async with AsyncLadderClient(target=address) as client:
        board = await client.get_leaderboard(QWIRKLE)
    return {entry.bot.display_name: entry for entry in board.entries}


def test_bots_on_one_node_play_what_the_other_schedules_until_it_dies_then_the_first_schedules(
    postgres_database: str, tmp_path: Path
) -> None:
    scheduler_log, other_log = tmp_path / "a.log", tmp_path / "b.log"
    with (
        _node(postgres_database, scheduler_log) as scheduler,
        _node(postgres_database, other_log) as other,
    ):
        # The first node up takes the ladder's lock; the second keeps trying.
        scheduler.start()
        other.start()

        async def run() -> tuple[dict[str, Any], dict[str, Any], dict[str, Any], set[str]]:
            ended: list[str] = []
            async with _ladder_bots(
                scheduler.address,
                get_bot,
                lambda match, outcome: ended.append(match),
                server=other.address,  # never the scheduling node
            ):
                await _until(lambda: len(set(ended)) >= 2)
                # Both nodes' reads between two equal reads of the other's: no match was
                # rated in between (each rating adds a game), so they must agree. Bots
                # play on meanwhile; a read that straddles a rating is read again.
                before = await _board(other.address)
                while True:
                    seen_from_scheduler = await _board(scheduler.address)
                    again = await _board(other.address)
                    if _counts(again) == _counts(before):
                        break
                    before = again
                played_before = set(ended)
                scheduler.kill()  # SIGKILL, perhaps mid-match: no lock or lease let go
                await _until(lambda: len(set(ended) - played_before) >= 2)
                after = await _board(other.address)
            return before, seen_from_scheduler, after, played_before

        before, seen_from_scheduler, after, played_before = asyncio.run(
            asyncio.wait_for(run(), 100)
        )

    started_by = {
        "scheduler": {e["match"] for e in _events(scheduler_log, "ladder match started")},
        "other": {e["match"] for e in _events(other_log, "ladder match started")},
    }
    # Before the kill every match was the scheduling node's, played by bots of the other.
    assert {name.removeprefix("matches/") for name in played_before} <= started_by["scheduler"]
    assert _events(scheduler_log, "ladder scheduling on this node")
    assert before["greedy"].games >= 1
    assert before["greedy"].connected
    # The leaderboard reads the one database: the same from either node.
    assert {name: (e.games, e.mu, e.connected) for name, e in before.items()} == {
        name: (e.games, e.mu, e.connected) for name, e in seen_from_scheduler.items()
    }
    # After it: the other node schedules, and rates what it schedules.
    assert _events(other_log, "ladder scheduling on this node")
    assert started_by["other"]
    assert after["greedy"].games > before["greedy"].games
    assert after["greedy"].games == after["random"].games


def _counts(board: dict[str, ladder_pb2.LeaderboardEntry]) -> dict[str, int]:
    """Each bot's rated games on a board read."""
    return {name: entry.games for name, entry in board.items()}


class _Holding:
    """A reference bot that, once ``hold`` is set, waits in ``choose_move`` (in its worker
    thread) until ``release``: a seat caught mid-match, on purpose."""

    def __init__(self, name: str, hold: threading.Event, release: threading.Event) -> None:
        self.bot = get_bot(name)
        self.hold, self.release = hold, release
        self.holding = threading.Event()

    def choose_move(
        self, view: match_pb2.PlayerView, legal_moves: Sequence[match_pb2.Move], rng: Random
    ) -> match_pb2.Move:
        if self.hold.is_set():
            self.holding.set()
            self.release.wait()
        return self.bot.choose_move(view, legal_moves, rng)


class _Held:
    """The bots a test makes (``factory``), all held by one ``hold`` / ``release`` pair."""

    def __init__(self) -> None:
        self.hold, self.release = threading.Event(), threading.Event()
        self.made: list[_Holding] = []

    def factory(self, name: str) -> _Holding:
        self.made.append(_Holding(name, self.hold, self.release))
        return self.made[-1]

    def holding(self) -> bool:
        """Whether one of them waits in ``choose_move`` now."""
        return any(bot.holding.is_set() for bot in self.made)


def test_a_ladder_bot_given_both_nodes_moves_on_to_the_second_when_its_node_is_killed(
    postgres_database: str, tmp_path: Path
) -> None:
    first_log, second_log = tmp_path / "a.log", tmp_path / "b.log"
    held = _Held()
    hold, release, factory = held.hold, held.release, held.factory

    with (
        _node(postgres_database, first_log) as first,
        _node(postgres_database, second_log) as second,
    ):
        first.start()  # it schedules: its matches run there
        second.start()

        async def run() -> tuple[dict[str, object], set[str]]:
            outcomes: dict[str, object] = {}
            try:
                async with _ladder_bots(
                    first.address,
                    factory,
                    outcomes.__setitem__,
                    server=[first.address, second.address],
                    reconnect=_QUICK,
                ):
                    await _until(lambda: len(outcomes) >= 2)
                    hold.set()  # the next decision waits: a match is running on the first node
                    await _until(held.holding)
                    before_kill = set(outcomes)
                    first.kill()  # SIGKILL: its streams, its leases and the ladder's lock
                    hold.clear()
                    release.set()  # the held move goes to a dead node: the seat moves on
                    await _until(lambda: len(set(outcomes) - before_kill) >= 3)
            finally:
                release.set()
            return outcomes, before_kill

        outcomes, before_kill = asyncio.run(asyncio.wait_for(run(), 120))

    # Both bots were connected to the first node, then (by themselves) to the second.
    assert len(_events(first_log, "bot connected")) == 2
    assert len(_events(second_log, "bot connected")) >= 2
    started_first = {e["match"] for e in _events(first_log, "ladder match started")}
    started_second = {e["match"] for e in _events(second_log, "ladder match started")}
    ended = {name.removeprefix("matches/") for name in outcomes}
    # Every match the killed node started was played to its end, the one held mid-match
    # at the kill too: its seats followed it to the node that took it over.
    assert started_first <= ended
    assert started_first - {name.removeprefix("matches/") for name in before_kill}
    assert started_second & ended
    assert all(isinstance(o, match_pb2.MatchOutcome) for o in outcomes.values()), outcomes
    assert len(ended - {name.removeprefix("matches/") for name in before_kill}) >= 3


def test_a_ladder_bot_plays_each_seat_on_the_node_its_assignment_names_without_a_redirect(
    postgres_database: str, tmp_path: Path
) -> None:
    scheduler_log, other_log = tmp_path / "a.log", tmp_path / "b.log"
    with (
        _node(postgres_database, scheduler_log) as scheduler,
        # At debug level a node logs every refusal, a redirect included, with its reason.
        _node(postgres_database, other_log, "--log-level", "debug") as other,
    ):
        scheduler.start()
        other.start()

        async def run() -> tuple[dict[str, object], MatchOnOtherNodeError]:
            outcomes: dict[str, object] = {}
            async with _ladder_bots(
                scheduler.address,
                get_bot,
                outcomes.__setitem__,
                server=other.address,  # never the node that runs the matches
            ):
                await _until(lambda: len(outcomes) >= 3)
            # The control: a call for one of the scheduler's matches sent to the other
            # node is redirected, and the other node's log shows it.
            async with AsyncMatchClient(target=scheduler.address) as client:
                config = match_pb2.MatchConfig(game=QWIRKLE, seat_count=2, seed=1)
                created = await client.create_match(config)
            async with AsyncMatchClient(target=other.address) as client:
                try:
                    await client.get_match(created.match.name)
                except MatchOnOtherNodeError as error:
                    return outcomes, error
            raise AssertionError("the other node answered for the scheduler's match")

        outcomes, redirect = asyncio.run(asyncio.wait_for(run(), 100))

    assert redirect.node == scheduler.address
    assert all(isinstance(o, match_pb2.MatchOutcome) for o in outcomes.values()), outcomes
    started = {e["match"] for e in _events(scheduler_log, "ladder match started")}
    assert {name.removeprefix("matches/") for name in outcomes} <= started
    refused = [
        e for e in _events(other_log, "request refused") if e["reason"] == "MATCH_ON_OTHER_NODE"
    ]
    # Only the control's: the bots' seats went straight to the scheduling node.
    assert len(refused) == 1, refused


def test_a_restarted_ladder_bot_gets_its_seat_back_from_the_node_that_took_the_match_over(
    postgres_database: str, tmp_path: Path
) -> None:
    first_log, second_log = tmp_path / "a.log", tmp_path / "b.log"
    held = _Held()
    hold, release, factory = held.hold, held.release, held.factory

    with (
        _node(postgres_database, first_log) as first,
        _node(postgres_database, second_log) as second,
    ):
        first.start()  # it schedules: its matches run there
        second.start()

        async def run() -> tuple[dict[str, str], dict[str, object], dict[str, object]]:
            async with AsyncLadderClient(target=first.address) as client:
                secrets = {
                    name: (await client.register_bot(name, "", QWIRKLE)).secret
                    for name in ("greedy", "random")
                }
            kept: dict[str, object] = {}  # greedy's: its process (and tokens) live on
            restarted: dict[str, object] = {}  # random's second process

            def bot(name: str, outcomes: dict[str, object], servers: list[str]) -> Any:
                return asyncio.create_task(
                    run_ladder_bot_async(
                        functools.partial(factory, name),
                        server=servers,
                        secret=secrets[name],
                        on_match_end=outcomes.__setitem__,
                        reconnect=_QUICK,
                    )
                )

            hold.set()  # the first decision waits: the first match is caught running
            greedy = bot("greedy", kept, [first.address, second.address])
            random = bot("random", {}, [first.address])
            replacement = None
            try:
                await _until(held.holding)
                first.kill()  # SIGKILL: the match's owner, the scheduler
                hold.clear()
                release.set()
                random.cancel()  # random's process dies too: its seat token is lost
                await asyncio.gather(random, return_exceptions=True)
                # It comes back on the other node, holding no tokens (resume_seats).
                replacement = bot("random", restarted, [second.address])
                await _until(lambda: len(restarted) >= 2 and len(kept) >= 2)
            finally:
                release.set()
                for task in (greedy, replacement):
                    if task is not None:
                        task.cancel()
                        await asyncio.gather(task, return_exceptions=True)
            return {name: s.partition(".")[0] for name, s in secrets.items()}, kept, restarted

        bot_ids, kept, restarted = asyncio.run(asyncio.wait_for(run(), 120))

    started_first = {e["match"] for e in _events(first_log, "ladder match started")}
    assert len(started_first) == 1  # the match caught running at the kill
    (caught,) = started_first
    name = f"matches/{caught}"
    # Random's new process played that match to its end, and so did greedy, whose token
    # kept working: no seat forfeited (nobody waited out a timeout).
    outcome = restarted[name]
    assert isinstance(outcome, match_pb2.MatchOutcome), outcome
    assert outcome == kept[name]
    assert [result.forfeited for result in outcome.results] == [False, False]
    # The node that took the match over gave the seat back to random only.
    given_back = _events(second_log, "ladder seat given back")
    assert {(e["match"], e["bot"]) for e in given_back} == {(caught, bot_ids["random"])}
    reissued = _events(second_log, "seat token reissued")
    assert {(e["match"], e["seat"]) for e in reissued} == {
        (e["match"], e["seat"]) for e in given_back
    }
    assert all(isinstance(o, match_pb2.MatchOutcome) for o in (*kept.values(), *restarted.values()))


def _running_by_node(store: PostgresStore) -> dict[str, set[str]]:
    """The unfinished matches of each node's address (their leases), read in the store."""
    with store.database.session() as db:
        rows = db.rows(
            "SELECT l.address, l.match_id FROM match_leases l "
            "JOIN matches m ON m.match_id = l.match_id WHERE NOT m.finished"
        )
    running: dict[str, set[str]] = {}
    for address, match_id in rows:
        running.setdefault(str(address), set()).add(str(match_id))
    return running


def test_ladder_matches_run_on_every_node_and_the_survivors_of_a_kill_split_its_matches(
    postgres_database: str, tmp_path: Path
) -> None:
    logs = [tmp_path / f"node-{number}.log" for number in range(3)]
    held = _Held()
    store = PostgresStore(postgres_database)
    with contextlib.ExitStack() as stack:
        nodes = [
            stack.enter_context(_node(postgres_database, log, "--ladder-move-time", "60"))
            for log in logs
        ]
        for node in nodes:
            node.start()
        addresses = [node.address for node in nodes]

        async def run() -> tuple[dict[str, set[str]], str, set[str]]:
            async with AsyncLadderClient(target=addresses[0]) as client:
                secrets = {
                    f"{kind}-{n}": (await client.register_bot(f"{kind}-{n}", "", QWIRKLE)).secret
                    for n in range(3)
                    for kind in ("greedy", "random")
                }
            held.hold.set()  # every match waits at its first decision: they pile up
            bots = [
                asyncio.create_task(
                    run_ladder_bot_async(
                        functools.partial(held.factory, name.split("-")[0]),
                        # Spread over the nodes: each bot's own node first.
                        server=addresses[number % 3 :] + addresses[: number % 3],
                        secret=secret,
                        capacity=2,
                        reconnect=_QUICK,
                    )
                )
                for number, (name, secret) in enumerate(secrets.items())
            ]
            try:
                await _until(
                    lambda: (
                        sum(map(len, _running_by_node(store).values())) >= 5
                        and max(map(len, _running_by_node(store).values())) >= 2
                    )
                )
                running = _running_by_node(store)
                victim = max(running, key=lambda address: len(running[address]))
                taken = running[victim]
                nodes[addresses.index(victim)].kill()  # SIGKILL, its matches mid-way
                # The bots wait in their moves until the survivors' heartbeats took the
                # victim's matches over (no seat of theirs asks a node to take one).
                await _until(lambda: not taken & _running_by_node(store).get(victim, set()))
                held.hold.clear()
                held.release.set()
                await _until(
                    lambda: not any(taken & ids for ids in _running_by_node(store).values())
                )
            finally:
                held.release.set()
                for task in bots:
                    task.cancel()
                await asyncio.gather(*bots, return_exceptions=True)
            return running, victim, taken

        try:
            running, victim, taken = asyncio.run(asyncio.wait_for(run(), 120))
        finally:
            store.close()

    started = [{e["match"] for e in _events(log, "ladder match started")} for log in logs]
    # While all three lived, the matches ran on more than one node (all three, by load),
    # each started by the node that runs it.
    assert len(running) >= 2, running
    assert sum(1 for matches in started if matches) >= 2, started
    for address, matches in running.items():
        assert matches <= started[addresses.index(address)]
    # The killed node's matches were taken over by the survivors, each match by one.
    # (That both take some is a matter of their heartbeats' timing: it held in five
    # quiet runs and failed once under a loaded `make check`, one survivor taking both
    # of two; the share itself is Store.fair_share's conformance test.)
    assert len(taken) >= 2, running
    survivors = [log for address, log in zip(addresses, logs, strict=True) if address != victim]
    recovered = [{e["match"] for e in _events(log, "match recovered")} & taken for log in survivors]
    assert recovered[0] | recovered[1] == taken
    assert not recovered[0] & recovered[1]
