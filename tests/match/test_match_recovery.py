"""MatchManager with a store: commit before announce, results across restarts, recovery."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest

from botarena.server.match import (
    Caller,
    EventKind,
    ForfeitReason,
    LogEntry,
    Match,
    MatchError,
    MatchManager,
    MatchNotFoundError,
    MatchOnOtherNodeError,
    MatchSettings,
    Policies,
    RequestIdUsedError,
    SeatTokenInvalidError,
    TimeControl,
    TimeoutPolicy,
)
from botarena.server.store import MEMORY, Lease, SqliteStore, StoredEvent, StoredResult, StoredSeat


class RaceCodec:
    """A pickle-free codec for the race test game: JSON settings, moves as digits."""

    def encode_settings(self, settings: MatchSettings) -> bytes:
        control, policies = settings.time_control, settings.policies
        return json.dumps(
            {
                "seats": settings.seat_count,
                "seed": settings.seed,
                "time": [control.move_time_limit, control.time_bank, control.increment],
                "policies": [policies.on_timeout.value, policies.max_illegal_moves],
                "names": settings.seat_names,
            }
        ).encode()

    def decode_settings(self, data: bytes, rules: Any) -> MatchSettings:
        fields = json.loads(data)
        limit, bank, increment = fields["time"]
        on_timeout, max_illegal = fields["policies"]
        return MatchSettings(
            game=rules.name,
            seat_count=fields["seats"],
            seed=fields["seed"],
            game_config=None,
            time_control=TimeControl(limit, bank, increment),
            policies=Policies(TimeoutPolicy(on_timeout), max_illegal),
            seat_names=tuple(fields["names"]),
        )

    def encode_move(self, game: str, move: object) -> bytes:
        return str(move).encode()

    def decode_move(self, game: str, data: bytes) -> object:
        return int(data)


class FlakyStore(SqliteStore):
    """An in-memory store whose next ``record`` calls fail while ``failing`` is set."""

    failing = False

    def record(
        self,
        match_id: str,
        events: Sequence[StoredEvent],
        seats: Sequence[StoredSeat],
        result: StoredResult | None = None,
        *,
        lease: Lease | None = None,
    ) -> None:
        if self.failing:
            raise OSError("disk full")
        super().record(match_id, events, seats, result, lease=lease)


def _manager(
    race_rules: Any, store: Any, clock: Any, *, lease: Lease | None = None, **rules_options: Any
) -> MatchManager:
    def games(name: str) -> Any:
        if name != "race":
            raise KeyError(name)
        return race_rules(**rules_options)

    return MatchManager(games=games, store=store, codec=RaceCodec(), clock=clock, lease=lease)


def _settings(seats: int = 2, **control: float) -> MatchSettings:
    return MatchSettings(
        game="race",
        seat_count=seats,
        seed=3,
        game_config=None,
        time_control=TimeControl(**{"move_time_limit": 100.0, **control}),
    )


def _play(manager: MatchManager, match: Match, token: str, move: int) -> None:
    manager.submit(match.match_id, token, move, expected_state_version=match.state_version)


def _same_log(left: Sequence[LogEntry], right: Sequence[LogEntry]) -> bool:
    return [(e.state_version, e.time, e.kind, e.seat, e.move, e.by_timeout) for e in left] == [
        (e.state_version, e.time, e.kind, e.seat, e.move, e.by_timeout) for e in right
    ]


def test_a_manager_with_a_store_needs_a_codec() -> None:
    with pytest.raises(ValueError, match="codec"):
        MatchManager(store=SqliteStore(MEMORY))


def test_results_survive_a_restart(tmp_path: Path, race_rules: Any, clock: Any) -> None:
    path = tmp_path / "botarena.db"

    async def first_run() -> tuple[str, Any, list[LogEntry]]:
        store = SqliteStore(path)
        manager = _manager(race_rules, store, clock, target=4)
        match, _ = manager.create(_settings())
        tokens = match.tokens
        while not match.finished:
            seat = match.seats_to_act()[0]
            _play(manager, match, tokens[seat], 3 if seat == 0 else 1)
        manager.close()
        store.close()
        return match.match_id, match.result, list(match.events)

    match_id, result, events = asyncio.run(first_run())

    async def second_run() -> None:
        store = SqliteStore(path)
        manager = _manager(race_rules, store, clock, target=4)
        assert manager.recover() == 0  # nothing unfinished
        match = manager.get(match_id)
        assert match.finished
        assert match.result == result
        assert match.result is not None
        assert match.result.ranks == (1, 2)
        assert _same_log(match.events, events)
        assert [listed.match_id for _, listed in manager.list_matches(finished=True)] == [match_id]
        manager.close()
        store.close()

    asyncio.run(second_run())


def test_recovery_restores_state_version_banks_and_decisions(race_rules: Any, clock: Any) -> None:
    async def scenario() -> None:
        store = SqliteStore(MEMORY)
        manager = _manager(race_rules, store, clock, target=30)
        match, _ = manager.create(_settings(move_time_limit=1.0, time_bank=5.0, increment=0.5))
        tokens = match.tokens
        for seat in range(2):
            manager.settle(match.match_id, seat)  # both are there: their clocks run
        for think, move in [(3.0, 2), (0.5, 3), (2.0, 1)]:
            clock.advance(think)
            _play(manager, match, tokens[match.seats_to_act()[0]], move)
        clock.advance(4.0)  # seat 1 thinks; its bank drains, but the crash comes first
        banks = [match.seat_record(seat).time_bank for seat in range(2)]
        assert banks == [5.0 - 2.0 + 0.5 - 1.0 + 0.5, 5.0 + 0.5]
        manager.close()

        clock.advance(60.0)  # the server is down for a minute
        restarted = _manager(race_rules, store, clock, target=30)
        assert restarted.recover() == 1
        again = restarted.get(match.match_id)
        assert again is not match
        assert again.state == match.state
        assert again.state_version == match.state_version == 3
        assert _same_log(again.events, match.events)
        assert [again.time_bank(seat) for seat in range(2)] == banks
        decision = again.pending[1]
        assert decision.requested_version == 3
        assert decision.deadline == clock.now + 1.0 + banks[1]
        assert again.tokens == ()
        # The seats' tokens still work: the match kept their hashes.
        _play(restarted, again, tokens[1], 3)
        assert again.state_version == 4
        restarted.close()

    asyncio.run(scenario())


def test_stand_in_moves_of_a_forfeited_seat_are_made_again_not_applied_twice(
    race_rules: Any, clock: Any
) -> None:
    async def scenario() -> None:
        store = SqliteStore(MEMORY)
        manager = _manager(race_rules, store, clock, target=12)
        match, _ = manager.create(_settings(seats=3))
        tokens = match.tokens
        _play(manager, match, tokens[0], 1)
        manager.resign(match.match_id, tokens[1])
        for _ in range(3):
            _play(manager, match, tokens[match.seats_to_act()[0]], 2)
        stand_ins = [e for e in match.events if e.kind is EventKind.MOVE_APPLIED and e.seat == 1]
        assert stand_ins
        assert all(entry.by_timeout for entry in stand_ins)
        manager.close()

        restarted = _manager(race_rules, store, clock, target=12)
        assert restarted.recover() == 1
        again = restarted.get(match.match_id)
        assert _same_log(again.events, match.events)
        assert again.state == match.state
        assert again.is_forfeited(1)
        restarted.close()

    asyncio.run(scenario())


def test_a_retried_submit_or_resign_gets_its_first_answer_after_a_restart(
    race_rules: Any, clock: Any
) -> None:
    async def scenario() -> None:
        store = SqliteStore(MEMORY)
        manager = _manager(race_rules, store, clock, target=12)
        match, _ = manager.create(_settings(seats=3))
        tokens, match_id = match.tokens, match.match_id
        moved = manager.submit(match_id, tokens[0], 2, expected_state_version=0, request_id="m1")
        # Seat 1 is to act when it resigns: the server plays a stand-in move for it in the
        # same call, so this answer's version is after an entry the server made itself.
        resigned = manager.resign(match_id, tokens[1], request_id="r1")
        assert resigned.state_version == 3
        assert match.events[3].by_timeout
        last = manager.submit(match_id, tokens[2], 1, expected_state_version=3, request_id="m2")
        manager.close()

        restarted = _manager(race_rules, store, clock, target=12)
        assert restarted.recover() == 1
        again = restarted.get(match_id)
        version = again.state_version
        assert (
            restarted.submit(match_id, tokens[0], 2, expected_state_version=0, request_id="m1")
            == moved
        )
        assert restarted.resign(match_id, tokens[1], request_id="r1") == resigned
        assert (
            restarted.submit(match_id, tokens[2], 1, expected_state_version=2, request_id="m2")
            == last
        )
        assert again.state_version == version  # answered, nothing applied again
        # A new request_id is a new command.
        with pytest.raises(MatchError):
            restarted.submit(match_id, tokens[2], 1, expected_state_version=3, request_id="m3")
        restarted.close()

    asyncio.run(scenario())


def test_a_create_retried_after_a_restart_names_its_match_instead_of_making_another(
    race_rules: Any, clock: Any
) -> None:
    async def scenario() -> None:
        store = SqliteStore(MEMORY)
        manager = _manager(race_rules, store, clock)
        match, created = manager.create(_settings(), request_id="c1")
        assert created
        again, created = manager.create(_settings(), request_id="c1")
        assert (again, created) == (match, False)  # the first answer, tokens and all
        manager.close()

        restarted = _manager(race_rules, store, clock)
        assert restarted.recover() == 1
        with pytest.raises(RequestIdUsedError) as caught:
            restarted.create(_settings(), request_id="c1")
        assert caught.value.metadata == {"match": match.match_id}
        assert caught.value.category.value == "ALREADY_EXISTS"
        assert len(restarted.matches()) == 1  # no second match
        other, created = restarted.create(_settings(), request_id="c2")
        assert created
        assert other.tokens
        restarted.close()

    asyncio.run(scenario())


def test_after_a_restart_only_the_same_caller_is_told_its_request_ids_match(
    race_rules: Any, clock: Any
) -> None:
    async def scenario() -> None:
        store = SqliteStore(MEMORY)
        alice, bob = Caller("10.0.0.1"), Caller("10.0.0.2")
        manager = _manager(race_rules, store, clock)
        match, _ = manager.create(_settings(), request_id="c" * 32, caller=alice)
        manager.close()

        restarted = _manager(race_rules, store, clock)
        restarted.recover()
        with pytest.raises(RequestIdUsedError):
            restarted.create(_settings(), request_id="c" * 32, caller=alice)
        # Bob's key lives in his own namespace: nothing of Alice's match is shown.
        other, created = restarted.create(_settings(), request_id="c" * 32, caller=bob)
        assert created
        assert other.match_id != match.match_id
        restarted.close()

    asyncio.run(scenario())


def test_a_reissued_token_replaces_the_old_one_and_is_kept_across_a_restart(
    race_rules: Any, clock: Any
) -> None:
    async def scenario() -> None:
        store = SqliteStore(MEMORY)
        manager = _manager(race_rules, store, clock)
        match, _ = manager.create(_settings())
        old = match.tokens[0]
        manager.close()

        restarted = _manager(race_rules, store, clock)
        restarted.recover()
        new = restarted.reissue_token(match.match_id, 0)
        assert new != old
        assert new.startswith(f"{match.match_id}.")  # a token names its match
        with pytest.raises(SeatTokenInvalidError):
            restarted.submit(match.match_id, old, 1, expected_state_version=0)
        restarted.close()

        again = _manager(race_rules, store, clock)
        again.recover()
        again.submit(match.match_id, new, 1, expected_state_version=0)
        assert again.get(match.match_id).state_version == 1
        again.close()

    asyncio.run(scenario())


def test_a_sealed_simultaneous_choice_survives_and_the_other_decision_stays_current(
    race_rules: Any, clock: Any
) -> None:
    async def scenario() -> None:
        store = SqliteStore(MEMORY)
        manager = _manager(race_rules, store, clock, simultaneous=True)
        match, _ = manager.create(_settings())
        tokens = match.tokens
        manager.submit(match.match_id, tokens[0], 2, expected_state_version=0)
        manager.close()

        restarted = _manager(race_rules, store, clock, simultaneous=True)
        restarted.recover()
        again = restarted.get(match.match_id)
        assert again.seats_to_act() == (1,)
        # Seat 1's move was chosen at version 0 before the restart: still accepted.
        restarted.submit(match.match_id, tokens[1], 3, expected_state_version=0)
        assert again.state.totals == (2, 3)
        restarted.close()

    asyncio.run(scenario())


def test_streams_show_only_committed_entries(race_rules: Any, clock: Any) -> None:
    async def scenario() -> None:
        store = FlakyStore(MEMORY)
        manager = _manager(race_rules, store, clock, target=30)
        match, _ = manager.create(_settings())
        tokens = match.tokens
        store.failing = True
        with pytest.raises(OSError, match="disk full"):
            _play(manager, match, tokens[0], 1)
        assert match.state_version == 1  # applied in memory, not durable
        seen = [
            item.state_version async for item in _until_idle(manager.stream(match.match_id, 1, 0))
        ]
        assert seen == [0]
        store.failing = False
        _play(manager, match, tokens[1], 2)
        assert [event.state_version for event in store.events(match.match_id)] == [0, 1, 2]
        seen = [
            item.state_version
            async for item in _until_idle(manager.stream(match.match_id, None, 0))
        ]
        assert seen == [0, 1, 2]
        manager.close()

    asyncio.run(scenario())


async def _until_idle(stream: Any) -> Any:
    """Yield the stream's items until it would wait."""
    iterator = stream.__aiter__()
    while True:
        try:
            item = await asyncio.wait_for(iterator.__anext__(), 0.05)
        except (TimeoutError, StopAsyncIteration):
            await iterator.aclose()
            return
        if item.entry is not None:
            yield item


def test_a_match_whose_log_does_not_replay_is_left_out(race_rules: Any, clock: Any) -> None:
    async def scenario() -> None:
        store = SqliteStore(MEMORY)
        manager = _manager(race_rules, store, clock)
        match, _ = manager.create(_settings())
        _play(manager, match, match.tokens[0], 1)
        manager.close()
        store.connection.execute("UPDATE events SET move = ? WHERE state_version = 1", (b"7",))
        restarted = _manager(race_rules, store, clock)
        assert restarted.recover() == 0
        with pytest.raises(MatchNotFoundError):
            restarted.get(match.match_id)
        restarted.close()

    asyncio.run(scenario())


def test_finished_matches_evicted_from_memory_are_rebuilt_from_the_store(
    race_rules: Any, clock: Any
) -> None:
    async def scenario() -> None:
        store = SqliteStore(MEMORY)
        manager = _manager(race_rules, store, clock, target=3)
        manager.max_finished_matches = 1
        finished: list[Match] = []
        for _ in range(3):
            match, _ = manager.create(_settings())
            _play(manager, match, match.tokens[0], 3)
            finished.append(match)
        assert len(manager.matches()) == 1
        oldest = manager.get(finished[0].match_id)
        assert oldest is not finished[0]
        assert oldest.result == finished[0].result
        assert _same_log(oldest.events, finished[0].events)
        items = [item async for item in manager.stream(oldest.match_id, None, 0)]
        assert [item.entry.kind for item in items if item.entry] == [
            EventKind.MATCH_STARTED,
            EventKind.MOVE_APPLIED,
            EventKind.MATCH_FINISHED,
        ]
        listed = manager.list_matches()
        assert [match.match_id for _, match in listed] == [m.match_id for m in reversed(finished)]
        manager.close()

    asyncio.run(scenario())


def _settle_after(manager: MatchManager, match: Match, clock: Any, seconds: float) -> None:
    """Let ``seconds`` pass on the fake clock and settle the match's deadlines."""
    clock.advance(seconds)
    manager.settle(match.match_id)


def test_stand_in_counts_and_absent_forfeits_survive_a_restart(race_rules: Any, clock: Any) -> None:
    async def scenario() -> None:
        store = SqliteStore(MEMORY)
        manager = _manager(race_rules, store, clock, target=1000)
        match, _ = manager.create(_settings(seats=3, move_time_limit=1.0))
        tokens = match.tokens
        for seat in range(3):
            manager.settle(match.match_id, seat)  # all there: their clocks run
        for _ in range(3):  # seat 0 never moves: three stand-ins in a row, then "absent"
            _settle_after(manager, match, clock, 1.0)
            if not match.is_forfeited(0):
                _play(manager, match, tokens[1], 1)
                _play(manager, match, tokens[2], 1)
        assert match.forfeit_reason(0) is ForfeitReason.ABSENT
        _play(manager, match, tokens[match.seats_to_act()[0]], 2)
        counts = [match.stand_in_moves(seat) for seat in range(3)]
        assert counts[0] >= 3
        manager.close()

        restarted = _manager(race_rules, store, clock, target=1000)
        assert restarted.recover() == 1
        again = restarted.get(match.match_id)
        assert _same_log(again.events, match.events)
        assert [again.stand_in_moves(seat) for seat in range(3)] == counts
        assert [again.forfeit_reason(seat) for seat in range(3)] == [
            ForfeitReason.ABSENT,
            None,
            None,
        ]
        assert [again.seat_record(seat) for seat in range(3)] == [
            match.seat_record(seat) for seat in range(3)
        ]
        restarted.close()

    asyncio.run(scenario())


def _evicted_and_rebuilt(manager: MatchManager, match: Match) -> Match:
    """Finish another match so that ``match`` leaves memory, then get it from the store."""
    manager.max_finished_matches = 1
    other, _ = manager.create(_settings())
    manager.resign(other.match_id, other.tokens[0])
    rebuilt = manager.get(match.match_id)
    assert rebuilt is not match
    return rebuilt


def test_a_match_abandoned_by_its_idle_seats_is_rebuilt_from_the_store(
    race_rules: Any, clock: Any
) -> None:
    async def scenario() -> None:
        store = SqliteStore(MEMORY)
        manager = _manager(race_rules, store, clock, target=1000)
        match, _ = manager.create(_settings(move_time_limit=1.0))
        for seat in range(match.seat_count):
            manager.settle(match.match_id, seat)  # there, but never moving
        while not match.finished:
            _settle_after(manager, match, clock, 1.0)
        assert match.result is not None
        assert match.result.abandoned
        assert [match.stand_in_moves(seat) for seat in range(2)] == [3, 2]
        rebuilt = _evicted_and_rebuilt(manager, match)
        assert rebuilt.result == match.result
        assert _same_log(rebuilt.events, match.events)
        manager.close()

    asyncio.run(scenario())


def test_a_match_nobody_joined_is_rebuilt_from_the_store(race_rules: Any, clock: Any) -> None:
    async def scenario() -> None:
        store = SqliteStore(MEMORY)
        manager = _manager(race_rules, store, clock, target=1000)
        match, _ = manager.create(_settings())  # decisions of 100 s: the join comes first
        _settle_after(manager, match, clock, 30.0)
        assert match.result is not None
        assert match.result.abandoned
        try:
            rebuilt = _evicted_and_rebuilt(manager, match)
            assert rebuilt.result == match.result
            assert _same_log(rebuilt.events, match.events)
        finally:
            manager.close()

    asyncio.run(scenario())


def test_a_node_started_again_at_its_address_takes_its_matches_back_and_fences_the_old_start(
    race_rules: Any, clock: Any
) -> None:
    address = "127.0.0.1:1001"

    async def scenario() -> None:
        store = SqliteStore(MEMORY)  # leases work on SQLite too (the store conformance)
        old = _manager(race_rules, store, clock, lease=Lease("a/1", address, 60.0), target=30)
        other = _manager(race_rules, store, clock, lease=Lease("b/1", "127.0.0.1:1002", 60.0))
        first, _ = old.create(_settings())
        second, _ = old.create(_settings())
        tokens = first.tokens
        _play(old, first, tokens[0], 1)
        with pytest.raises(MatchOnOtherNodeError):
            other.find(first.match_id)  # another node waits for the lease to expire

        # The same node started again (a kill -9 and a restart) with the old start still
        # running (frozen, say): the leases, 60 s from expiring, are taken back at once.
        again = _manager(race_rules, store, clock, lease=Lease("a/2", address, 60.0), target=30)
        assert again.recover() == 2
        resumed = again.get(first.match_id)
        with pytest.raises(MatchOnOtherNodeError):  # fenced: it writes nothing more
            _play(old, first, tokens[1], 2)
        assert old.held(first.match_id) is None
        _play(again, resumed, tokens[1], 3)
        assert [entry.seat for entry in store.events(first.match_id)[1:]] == [0, 1]

        # A match the old start made after that is taken back on the first call for it.
        third, _ = old.create(_settings())
        assert again.held(third.match_id) is None
        assert again.find(third.match_id).match_id == third.match_id
        assert again.held(third.match_id) is not None
        with pytest.raises(MatchOnOtherNodeError):
            other.find(third.match_id)
        assert store.lease_holder(second.match_id) == store.lease_holder(third.match_id)
        for manager in (old, other, again):
            manager.close()

    asyncio.run(scenario())
