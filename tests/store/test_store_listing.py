# mypy: disable-error-code="import-untyped"
"""Through gRPC on a SQLite file: finished matches are described from their stored rows,
and the rebuilds that views and streams still need run off the event loop."""

from __future__ import annotations

import asyncio
import threading
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import grpc
import pytest

from botarena.server.match import IllegalMoveRejectedError, Match, MatchManager
from botarena.server.service import create_server, durable_manager
from botarena.server.store import SqliteStore
from botarena.v1 import match_pb2, match_service_pb2, match_service_pb2_grpc

# (game, seats, who resigns): a forfeit that ends the match, one it outlives, none.
_MATCHES = (
    (match_pb2.GAME_QWIRKLE, 2, ()),
    (match_pb2.GAME_QWIRKLE, 3, (1,)),
    (match_pb2.GAME_QWIRKLE, 2, (0,)),
    (match_pb2.GAME_QWIXX, 3, ()),
    (match_pb2.GAME_QWIXX, 2, (1,)),
    (match_pb2.GAME_QUEENDOMINO, 2, ()),
)


@asynccontextmanager
async def _server(path: Path, **options: Any) -> AsyncIterator[tuple[Any, MatchManager]]:
    """A server on the database ``path``, its stub and its manager."""
    store = SqliteStore(path)
    manager = durable_manager(store, **options)
    server, port = await create_server("127.0.0.1:0", manager=manager)
    try:
        async with grpc.aio.insecure_channel(f"127.0.0.1:{port}") as channel:
            yield match_service_pb2_grpc.MatchServiceStub(channel), manager
    finally:
        await server.stop(None)
        store.close()


async def _create(
    stub: Any, game: match_pb2.Game.ValueType, seats: int, seed: int
) -> tuple[str, list[str]]:
    config = match_pb2.MatchConfig(
        game=game, seat_count=seats, seed=seed, seat_names=[f"bot {n}" for n in range(seats)]
    )
    created = await stub.CreateMatch(match_service_pb2.CreateMatchRequest(config=config))
    return created.match.name, [seat.token for seat in created.seat_tokens]


def _play(manager: MatchManager, name: str, tokens: list[str], resign: tuple[int, ...]) -> None:
    """Play the first legal moves to the end, in-process; each seat in ``resign`` resigns
    at its first turn, and the second mover first repeats the opening move (illegal)."""
    match_id = name.removeprefix("matches/")
    match = manager.get(match_id)
    opening: object = None
    while not match.finished:
        seat = match.seats_to_act()[0]
        if seat in resign:
            manager.resign(match_id, tokens[seat])
            continue
        version = match.state_version
        if opening is not None:
            with pytest.raises(IllegalMoveRejectedError):
                manager.submit(match_id, tokens[seat], opening, expected_state_version=version)
            opening = None
        move = match.legal_moves(seat)[0]
        manager.submit(match_id, tokens[seat], move, expected_state_version=version)
        if version == 0 and match.settings.game == "qwirkle":
            opening = move  # its cells are taken now: nobody can play it again


def _count_replays(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """Record the id of every match replayed from here on."""
    replayed: list[str] = []
    original = Match.restore

    def counting(match_id: str, *args: Any, **kwargs: Any) -> Match:
        replayed.append(match_id)
        return original(match_id, *args, **kwargs)

    monkeypatch.setattr(Match, "restore", counting)
    return replayed


async def _list_all(stub: Any, page_size: int, **filters: Any) -> list[match_pb2.Match]:
    listed: list[match_pb2.Match] = []
    token = ""
    while True:
        page = await stub.ListMatches(
            match_service_pb2.ListMatchesRequest(page_size=page_size, page_token=token, **filters)
        )
        listed.extend(page.matches)
        token = page.next_page_token
        if not token:
            return listed


def test_listing_after_a_restart_describes_finished_matches_without_replaying(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "botarena.db"
    rounds = 3  # every kind of match a few times: pages cut across them

    async def first_run() -> tuple[list[match_pb2.Match], str]:
        async with _server(path) as (stub, manager):
            names = []
            for index, (game, seats, resign) in enumerate(_MATCHES * rounds):
                name, tokens = await _create(stub, game, seats, seed=100 + index)
                _play(manager, name, tokens, resign)
                names.append(name)
            running, _ = await _create(stub, match_pb2.GAME_QWIRKLE, 2, seed=7)
            described = [
                (await stub.GetMatch(match_service_pb2.GetMatchRequest(name=name))).match
                for name in reversed(names)
            ]
            return described, running

    described, running = asyncio.run(first_run())
    assert {match.state for match in described} == {match_pb2.Match.STATE_FINISHED}
    assert any(seat.forfeited for match in described for seat in match.seats)
    assert any(seat.illegal_moves for match in described for seat in match.seats)

    async def second_run() -> None:
        async with _server(path) as (stub, manager):
            replayed = _count_replays(monkeypatch)
            everything = await _list_all(stub, 500)
            assert [match.name for match in everything] == [running] + [
                match.name for match in described
            ]
            assert everything[0].state == match_pb2.Match.STATE_ACTIVE
            assert everything[1:] == described
            assert await _list_all(stub, 4) == everything
            finished = await _list_all(stub, 5, state=match_pb2.Match.STATE_FINISHED)
            assert finished == described
            qwixx = await _list_all(stub, 2, game=match_pb2.GAME_QWIXX)
            assert qwixx == [m for m in described if m.config.game == match_pb2.GAME_QWIXX]
            for match in described:
                got = await stub.GetMatch(match_service_pb2.GetMatchRequest(name=match.name))
                assert got.match == match
            assert replayed == []
            assert [match.match_id for match in manager.matches()] == [
                running.removeprefix("matches/")
            ]

    asyncio.run(second_run())


async def _finished_and_running(path: Path, finished: int) -> tuple[list[str], str]:
    """Fill ``path`` with ``finished`` finished Qwirkle matches and one running one."""
    async with _server(path) as (stub, manager):
        names = []
        for seed in range(finished):
            name, tokens = await _create(stub, match_pb2.GAME_QWIRKLE, 2, seed=seed)
            _play(manager, name, tokens, ())
            names.append(name)
        running, _ = await _create(stub, match_pb2.GAME_QWIRKLE, 2, seed=99)
        return names, running


def test_a_rebuild_runs_off_the_loop_once_for_concurrent_callers(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "botarena.db"
    (finished,), running = asyncio.run(_finished_and_running(path, 1))
    entered, gate = threading.Event(), threading.Event()

    async def scenario() -> None:
        async with _server(path) as (stub, manager):
            replayed: list[str] = []
            original = Match.restore

            def held_back(match_id: str, *args: Any, **kwargs: Any) -> Match:
                replayed.append(match_id)
                entered.set()
                if not gate.wait(10):  # only reached if the loop itself is blocked
                    raise AssertionError("the test never let the rebuild go on")
                return original(match_id, *args, **kwargs)

            monkeypatch.setattr(Match, "restore", held_back)
            callers: list[str] = []
            load = manager.load

            async def counted(match_id: str) -> Match:
                callers.append(match_id)
                return await load(match_id)

            monkeypatch.setattr(manager, "load", counted)

            def view(name: str) -> Any:
                return stub.GetPlayerView(match_service_pb2.GetPlayerViewRequest(match=name))

            async def replay() -> list[match_pb2.MatchEvent]:
                request = match_service_pb2.StreamMatchEventsRequest(match=finished)
                return [response.event async for response in stub.StreamMatchEvents(request)]

            waiting = [asyncio.ensure_future(view(finished)) for _ in range(2)]
            waiting.append(asyncio.ensure_future(replay()))
            assert await asyncio.to_thread(entered.wait, 30)
            while len(callers) < len(waiting):
                await asyncio.sleep(0.01)  # every caller waits for the one rebuild
            # The rebuild is held back in its thread, and the loop answers other calls.
            other = await view(running)
            assert other.match.state == match_pb2.Match.STATE_ACTIVE
            listed = await stub.ListMatches(match_service_pb2.ListMatchesRequest())
            assert [match.name for match in listed.matches] == [running, finished]
            assert not any(call.done() for call in waiting)
            gate.set()
            first, second, events = await asyncio.gather(*waiting)
            assert replayed == [finished.removeprefix("matches/")]
            assert first == second
            assert first.match == listed.matches[1]
            assert events[-1].WhichOneof("kind") == "match_finished"

    asyncio.run(scenario())


def test_rebuilt_matches_held_stay_within_the_cap(tmp_path: Path) -> None:
    path = tmp_path / "botarena.db"
    names, running = asyncio.run(_finished_and_running(path, 3))

    async def scenario() -> None:
        async with _server(path, max_finished_matches=1) as (stub, manager):
            for name in names:
                await stub.GetPlayerView(match_service_pb2.GetPlayerViewRequest(match=name))
            held = [match.match_id for match in manager.matches()]
            assert sorted(held) == sorted(
                name.removeprefix("matches/") for name in (running, names[-1])
            )

    asyncio.run(scenario())
