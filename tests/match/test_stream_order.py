"""Seats on the clock are served first: after a change, bystanders' streams (seats that
owe no decision, spectators) go on once a deciding seat's stream has sent its decision."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from botarena.server.match import EventKind, MatchManager, MatchSettings, StreamItem
from botarena.server.match import _manager as manager_module

_PATIENCE = 5.0  # seconds a test waits before it fails instead of hanging


def _race(race_rules: Any) -> tuple[MatchManager, str, list[str]]:
    manager = MatchManager(games=lambda name: race_rules(target=6))
    settings = MatchSettings(game="race", seat_count=3, seed=1, game_config=None)
    match, _ = manager.create(settings)
    return manager, match.match_id, list(match.tokens)


def _kind(item: StreamItem) -> str:
    return "decision" if item.entry is None else str(item.entry.kind)


async def _follow(manager: MatchManager, match_id: str, seat: int | None, log: list[Any]) -> None:
    async for item in manager.stream(match_id, seat, 0):
        log.append((seat, _kind(item), item.state_version))


async def _until(condition: Any) -> None:
    async with asyncio.timeout(_PATIENCE):
        while not condition():
            await asyncio.sleep(0.001)


def test_the_deciding_seat_gets_its_decision_before_bystanders_get_the_move(
    race_rules: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(manager_module, "_MAX_DEFERRAL", 3600.0)  # never the fallback

    async def scenario() -> None:
        manager, match_id, tokens = _race(race_rules)
        log: list[Any] = []
        tasks = [asyncio.create_task(_follow(manager, match_id, s, log)) for s in (2, None, 1)]
        await _until(lambda: len(log) == 3)  # everyone has MATCH_STARTED
        manager.submit(match_id, tokens[0], 1, expected_state_version=0)
        await _until(lambda: len(log) == 7)
        after = log[3:]
        assert after[:2] == [(1, EventKind.MOVE_APPLIED, 1), (1, "decision", 1)]
        assert sorted(after[2:], key=str) == [
            (2, EventKind.MOVE_APPLIED, 1),
            (None, EventKind.MOVE_APPLIED, 1),
        ]
        manager.close()
        await asyncio.gather(*tasks)

    asyncio.run(scenario())


async def _bystander_after_a_move(
    manager: MatchManager, match_id: str, tokens: list[str]
) -> tuple[list[Any], asyncio.Task[None]]:
    """Follow seat 2 (a bystander), then play seat 0's move: seat 1 owes the next one."""
    log: list[Any] = []
    task = asyncio.create_task(_follow(manager, match_id, 2, log))
    await _until(lambda: len(log) == 1)
    manager.submit(match_id, tokens[0], 1, expected_state_version=0)
    return log, task


async def _bystander_gets_the_move(manager: MatchManager, log: list[Any], task: Any) -> None:
    await _until(lambda: len(log) == 2)
    assert log[1] == (2, EventKind.MOVE_APPLIED, 1)
    manager.close()
    await task


def test_bystanders_do_not_wait_for_a_deciding_seat_without_a_stream(
    race_rules: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(manager_module, "_MAX_DEFERRAL", 3600.0)

    async def scenario() -> None:
        manager, match_id, tokens = _race(race_rules)
        log, task = await _bystander_after_a_move(manager, match_id, tokens)
        await _bystander_gets_the_move(manager, log, task)

    asyncio.run(scenario())


def test_a_deciding_stream_that_stops_reading_holds_bystanders_up_only_briefly(
    race_rules: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(manager_module, "_MAX_DEFERRAL", 0.05)

    async def scenario() -> None:
        manager, match_id, tokens = _race(race_rules)
        stalled = manager.stream(match_id, 1, 0)
        await anext(stalled)  # MATCH_STARTED; then it reads no more
        log, task = await _bystander_after_a_move(manager, match_id, tokens)
        await _bystander_gets_the_move(manager, log, task)
        await stalled.aclose()

    asyncio.run(scenario())


def test_closing_the_deciding_stream_releases_bystanders(
    race_rules: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(manager_module, "_MAX_DEFERRAL", 3600.0)

    async def scenario() -> None:
        manager, match_id, tokens = _race(race_rules)
        deciding = manager.stream(match_id, 1, 0)
        await anext(deciding)
        log, task = await _bystander_after_a_move(manager, match_id, tokens)
        await asyncio.sleep(0.01)
        assert len(log) == 1  # held back: seat 1 has a stream and owes a decision
        await deciding.aclose()
        await _bystander_gets_the_move(manager, log, task)

    asyncio.run(scenario())
