"""The Store protocol on every back end (SQLite and PostgreSQL): migrations, round trips,
transactions, listing, sequence numbers, leases and their fencing, the ladder's tables."""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from dataclasses import replace

import pytest

from botarena.server.store import (
    MATCHES_V1,
    MIGRATIONS,
    LeadLostError,
    Lease,
    LeaseHolder,
    LeaseLostError,
    SchemaTooNewError,
    SqlStore,
    StoredEvent,
    StoredMatch,
    StoredResult,
    StoredSeat,
    StoreError,
)
from botarena.server.store.ladder import (
    BotRecord,
    LadderMatchRecord,
    MatchRequest,
    NodeAssignment,
    ResumedSeat,
    SeatRecord,
    SeatResult,
    SqlLadderStore,
)

from .conftest import StoreBackend

_EXTRA = ("CREATE TABLE notes (match_id TEXT NOT NULL REFERENCES matches (match_id), note TEXT)",)


def _match(match_id: str = "m1", sequence: int = 1, game: str = "qwirkle") -> StoredMatch:
    return StoredMatch(
        match_id=match_id,
        sequence=sequence,
        game=game,
        seat_count=2,
        seed=2**64 - 1,  # the protocol's seed is a uint64: beyond SQL's BIGINT
        config=b"\x00config\xff",
        created_time=1.7e9,
        state_version=0,
        seats=(StoredSeat(0, "alice", "aa" * 32, 5.0), StoredSeat(1, "bob", "bb" * 32, 5.0)),
    )


_START = StoredEvent(state_version=0, time=1.7e9, kind="match_started")
_RESULT = StoredResult((10, 7), (1, 2), (False, True), "bag_empty", 1.8e9)


def _move(version: int, seat: int) -> StoredEvent:
    return StoredEvent(
        state_version=version,
        time=1.7e9 + version,
        kind="move_applied",
        seat=seat,
        move=bytes([version, 0, 255]),
        think_time=0.25,
        by_timeout=version % 2 == 0,
        request_id=f"r{version}",
    )


def _tables(store: SqlStore) -> set[str]:
    query = (
        "SELECT name FROM sqlite_master WHERE type = 'table'"
        if store.database.dialect == "sqlite"
        else "SELECT table_name FROM information_schema.tables WHERE table_schema = 'public'"
    )
    with store.database.session() as db:
        return {str(row[0]) for row in db.rows(query)}


@pytest.fixture
def store(store_backend: StoreBackend) -> Iterator[SqlStore]:
    opened = store_backend.open()
    yield opened
    opened.close()


def test_an_empty_database_gets_every_migration(store: SqlStore) -> None:
    assert store.schema_version == len(MIGRATIONS)
    assert {"matches", "match_seats", "events", "results", "match_leases"} <= _tables(store)


def test_a_database_at_version_n_gets_the_later_migrations_only(
    store_backend: StoreBackend,
) -> None:
    store = store_backend.open()
    store.create_match(_match(), [_START])
    store.close()
    upgraded = store_backend.open((*MIGRATIONS, _EXTRA))
    assert upgraded.schema_version == len(MIGRATIONS) + 1
    with upgraded.database.transaction() as db:
        db.run("INSERT INTO notes VALUES ('m1', 'kept')")
        versions = [row[0] for row in db.rows("SELECT version FROM schema_version ORDER BY 1")]
    assert upgraded.load_match("m1") == _match()  # the earlier migrations were not run again
    assert versions == list(range(1, len(MIGRATIONS) + 2))
    upgraded.close()


def test_a_failing_migration_is_rolled_back(store_backend: StoreBackend) -> None:
    with pytest.raises(StoreError, match="schema migration 2 failed"):
        store_backend.open((MATCHES_V1, ("CREATE TABLE t (x TEXT)", "NOT SQL")))
    store = store_backend.open((MATCHES_V1,))
    assert store.schema_version == 1
    assert "t" not in _tables(store)
    store.close()


def test_a_newer_schema_is_refused_with_a_clear_message(store_backend: StoreBackend) -> None:
    store_backend.open((MATCHES_V1, _EXTRA)).close()
    with pytest.raises(SchemaTooNewError, match="schema version 2, newer than this botarena"):
        store_backend.open((MATCHES_V1,))


def test_a_match_round_trips_with_its_log_seats_and_result(store: SqlStore) -> None:
    store.create_match(_match(), [_START])
    store.record("m1", [_move(1, 0), _move(2, 1)], [StoredSeat(0, "alice", "aa" * 32, 3.5, 1, 2)])
    finish = StoredEvent(state_version=3, time=1.8e9, kind="match_finished", reason="bag_empty")
    store.record("m1", [finish], [], _RESULT)
    loaded = store.load_match("m1")
    assert loaded is not None
    assert loaded.finished
    assert loaded.result == _RESULT
    assert loaded.state_version == 3
    assert loaded.seed == 2**64 - 1
    assert loaded.config == b"\x00config\xff"
    assert loaded.seats[0] == StoredSeat(0, "alice", "aa" * 32, 3.5, 1, 2)
    assert loaded.seats[1] == StoredSeat(1, "bob", "bb" * 32, 5.0)
    assert store.events("m1") == [_START, _move(1, 0), _move(2, 1), finish]
    assert store.unfinished_matches() == []


def test_a_taken_version_is_refused_and_nothing_of_the_transaction_is_kept(
    store: SqlStore,
) -> None:
    store.create_match(_match(), [_START])
    with pytest.raises(StoreError):
        store.record("m1", [_move(1, 0), _START], [StoredSeat(0, "alice", "aa" * 32, 0.0)])
    assert store.events("m1") == [_START]
    assert store.load_match("m1") == _match()


def test_a_taken_match_id_is_refused(store: SqlStore) -> None:
    store.create_match(_match(), [_START])
    with pytest.raises(StoreError):
        store.create_match(_match(sequence=2), [_START])


def test_recording_for_an_unknown_match_fails(store: SqlStore) -> None:
    with pytest.raises(StoreError):
        store.record("nope", [_move(1, 0)], [])


def test_matches_list_newest_first_with_filters_and_paging(store: SqlStore) -> None:
    for sequence in range(1, 6):
        game = "qwixx" if sequence % 2 else "qwirkle"
        store.create_match(_match(f"m{sequence}", sequence, game), [_START])
    store.record("m4", [], [], StoredResult((1, 0), (1, 2), (False, False), "end", 1.8e9))
    store.record("m2", [], [], StoredResult((0, 0), (2, 2), (True, True), "abandoned", 1.8e9))

    def ids(matches: list[StoredMatch]) -> list[str]:
        return [match.match_id for match in matches]

    assert ids(store.list_matches()) == ["m5", "m4", "m3", "m2", "m1"]
    assert ids(store.list_matches(game="qwirkle")) == ["m4", "m2"]
    assert ids(store.list_matches(finished=True)) == ["m4", "m2"]
    assert ids(store.list_matches(end_reason="abandoned")) == ["m2"]
    assert ids(store.list_matches(finished=False, before_sequence=4, limit=2)) == ["m3", "m1"]
    assert store.last_sequence() == 5
    assert [match.match_id for match in store.unfinished_matches()] == ["m1", "m3", "m5"]


def test_a_create_match_request_id_names_its_match(store: SqlStore) -> None:
    store.create_match(replace(_match(), request_id="caller/r1"), [_START])
    assert store.match_created_by("caller/r1") == "m1"
    assert store.match_created_by("caller/r2") is None


def test_data_survives_closing_and_reopening(store_backend: StoreBackend) -> None:
    store = store_backend.open()
    store.create_match(_match(), [_START])
    store.record("m1", [_move(1, 0)], [])
    store.close()
    again = store_backend.open()
    assert again.events("m1") == [_START, _move(1, 0)]
    assert again.load_match("nope") is None
    again.close()


def test_sequence_numbers_grow_past_every_one_stored_or_given(
    store_backend: StoreBackend,
) -> None:
    first = store_backend.open()
    stored = first.next_sequence()
    first.create_match(_match("m1", stored), [_START])
    given = [stored, first.next_sequence()]
    if store_backend.name == "postgresql":  # nodes share one database at a time
        second = store_backend.open()
        given += [second.next_sequence(), first.next_sequence()]
        second.close()
    first.close()
    reopened = store_backend.open()
    after_reopening = reopened.next_sequence()
    reopened.close()
    assert given == sorted(set(given))
    assert after_reopening > stored


# ---------------------------------------------------------------------- leases

_NODE_A = Lease("node-a", "127.0.0.1:1001", ttl=60.0)
_NODE_B = Lease("node-b", "127.0.0.1:1002", ttl=60.0)
_EXPIRED_A = Lease("node-a", "127.0.0.1:1001", ttl=-1.0)


def test_a_match_created_with_a_lease_is_held_by_that_node(store: SqlStore) -> None:
    store.create_match(_match(), [_START], lease=_NODE_A)
    assert store.lease_holder("m1") == LeaseHolder("node-a", "127.0.0.1:1001", expired=False)
    assert store.claim_leases(_NODE_B) == []
    assert store.renew_leases(_NODE_A) == {"m1"}
    assert store.renew_leases(_NODE_B) == set()


def test_another_node_takes_an_expired_lease_and_the_old_owner_can_no_longer_write(
    store: SqlStore,
) -> None:
    store.create_match(_match(), [_START], lease=_EXPIRED_A)
    store.create_match(_match("m2", 2), [_START], lease=_NODE_A)
    assert store.claim_leases(_NODE_B) == ["m1"]
    assert store.lease_holder("m1") == LeaseHolder("node-b", "127.0.0.1:1002", expired=False)
    assert store.lease_holders(["m1", "m2", "nothing"]) == {
        "m1": LeaseHolder("node-b", "127.0.0.1:1002", expired=False),
        "m2": LeaseHolder("node-a", "127.0.0.1:1001", expired=False),
    }
    assert store.lease_holders([]) == {}
    with pytest.raises(LeaseLostError):
        store.record("m1", [_move(1, 0)], [], lease=_NODE_A)
    assert store.events("m1") == [_START]  # the fence kept nothing of the write
    store.record("m1", [_move(1, 0)], [], lease=_NODE_B)
    assert store.events("m1") == [_START, _move(1, 0)]
    assert store.renew_leases(_NODE_A) == {"m2"}  # m1 is no longer node a's


def test_unfinished_matches_without_a_lease_are_claimed_once(store: SqlStore) -> None:
    store.create_match(_match(), [_START])
    store.create_match(_match("m2", 2), [_START])
    store.record("m2", [], [], _RESULT)
    assert store.claim_leases(_NODE_A) == ["m1"]  # finished matches need no owner
    assert store.claim_leases(_NODE_B) == []
    assert store.claim_leases(_NODE_B, match_id="m1") == []


def test_a_claim_can_name_one_match(store: SqlStore) -> None:
    store.create_match(_match(), [_START], lease=_EXPIRED_A)
    store.create_match(_match("m2", 2), [_START], lease=_EXPIRED_A)
    assert store.claim_leases(_NODE_B, match_id="m2") == ["m2"]
    assert store.lease_holder("m1") == LeaseHolder("node-a", "127.0.0.1:1001", expired=True)


def test_a_result_ends_the_lease_and_a_released_lease_expires_at_once(store: SqlStore) -> None:
    store.create_match(_match(), [_START], lease=_NODE_A)
    store.create_match(_match("m2", 2), [_START], lease=_NODE_A)
    store.record("m1", [], [], _RESULT, lease=_NODE_A)
    assert store.lease_holder("m1") is None
    store.release_leases("node-a")
    assert store.claim_leases(_NODE_B) == ["m2"]


def test_a_node_started_again_at_its_address_takes_back_its_leases_and_fences_the_old_start(
    store: SqlStore,
) -> None:
    again = Lease("node-a/2", "127.0.0.1:1001", ttl=60.0)  # node a's next start
    store.create_match(_match(), [_START], lease=_NODE_A)
    store.create_match(_match("m2", 2), [_START], lease=_EXPIRED_A)
    store.create_match(_match("m3", 3), [_START], lease=_NODE_B)
    assert sorted(store.take_back_leases(again)) == ["m1", "m2"]  # expired or not
    assert store.lease_holders(["m1", "m2", "m3"]) == {
        "m1": LeaseHolder("node-a/2", "127.0.0.1:1001", expired=False),
        "m2": LeaseHolder("node-a/2", "127.0.0.1:1001", expired=False),
        "m3": LeaseHolder("node-b", "127.0.0.1:1002", expired=False),  # another node's
    }
    with pytest.raises(LeaseLostError):
        store.record("m1", [_move(1, 0)], [], lease=_NODE_A)  # the old start, still running
    assert store.renew_leases(_NODE_A) == set()
    store.record("m1", [_move(1, 0)], [], lease=again)
    assert store.events("m1") == [_START, _move(1, 0)]
    assert store.take_back_leases(again) == []  # its own already


def test_a_take_back_can_name_one_match(store: SqlStore) -> None:
    store.create_match(_match(), [_START], lease=_NODE_A)
    store.create_match(_match("m2", 2), [_START], lease=_NODE_A)
    again = Lease("node-a/2", "127.0.0.1:1001", ttl=60.0)
    assert store.take_back_leases(again, match_id="m2") == ["m2"]
    assert store.take_back_leases(_NODE_B, match_id="m1") == []  # not node b's address
    assert store.lease_holder("m1") == LeaseHolder("node-a", "127.0.0.1:1001", expired=False)


# ---------------------------------------------------------------------- ladder


def _bot(bot_id: str, name: str) -> BotRecord:
    return BotRecord(bot_id, name, "owner", "qwirkle", "cc" * 32, mu=25.0, sigma=8.0)


def _result(rank: int, *, crashed: bool = False) -> SeatResult:
    return SeatResult(
        score=10 * (3 - rank),
        rank=rank,
        win=1.0 if rank == 1 else 0.0,
        forfeited=crashed,
        timeouts=0,
        crashed=crashed,
        mu=26.0 if rank == 1 else 24.0,
        sigma=7.5,
    )


def test_the_ladder_store_keeps_bots_matches_results_and_ratings(store: SqlStore) -> None:
    ladder = store.ladder_store()
    assert ladder.add_bot(_bot("a", "alpha"), created=1.0)
    assert ladder.add_bot(_bot("b", "beta"), created=2.0)
    assert not ladder.add_bot(_bot("c", "alpha"), created=3.0)  # the name is taken
    seats = [SeatRecord(0, "a", 25.0, 8.0), SeatRecord(1, "b", 25.0, 8.0)]
    ladder.add_match("m1", "qwirkle", 10.0, seats)
    ladder.add_match(
        "m2", "qwirkle", 11.0, [SeatRecord(0, "b", 25.0, 8.0), SeatRecord(1, "a", 25.0, 8.0)]
    )
    assert [match.match_id for match in ladder.unfinished_matches()] == ["m1", "m2"]
    ladder.record_result("m1", 20.0, [_result(1), _result(2, crashed=True)], pause_after=1)
    ladder.record_result("m1", 21.0, [_result(2), _result(1)], pause_after=1)  # once only
    ladder.abandon("m2", 22.0)
    alpha, beta = ladder.bot("a"), ladder.bot("b")
    assert alpha is not None
    assert beta is not None
    assert (alpha.mu, alpha.games, alpha.wins, alpha.score_sum) == (26.0, 1, 1.0, 20.0)
    assert (beta.crashes, beta.bad_streak, beta.paused) == (1, 1, True)
    assert [bot.name for bot in ladder.bots("qwirkle")] == ["alpha", "beta"]
    finished = ladder.match("m1")
    assert finished is not None
    assert finished.finished == 20.0
    assert finished.seats[1].crashed
    assert finished.seats[0].mu_after == 26.0
    abandoned = ladder.match("m2")
    assert abandoned is not None
    assert abandoned.abandoned
    assert ladder.unfinished_matches() == []
    assert [match.match_id for match in ladder.bot_matches("a", 10)] == ["m2", "m1"]
    assert ladder.pair_counts("qwirkle") == {frozenset(("a", "b")): 2}
    assert ladder.pair_counts("qwirkle", since=10.5) == {frozenset(("a", "b")): 1}
    assert ladder.seat_counts("qwirkle") == {"a": {0: 1, 1: 1}, "b": {0: 1, 1: 1}}
    assert ladder.resume_bot("b")
    resumed = ladder.bot("b")
    assert resumed is not None
    assert (resumed.paused, resumed.bad_streak) == (False, 0)
    assert not ladder.resume_bot("nobody")


def _rated(bot_id: str, name: str, mu: float, sigma: float, games: int) -> BotRecord:
    return replace(_bot(bot_id, name), mu=mu, sigma=sigma, games=games)


def test_the_leaderboard_is_read_a_page_at_a_time_in_rating_order_with_exact_ranks(
    store: SqlStore,
) -> None:
    ladder = store.ladder_store()
    bots = [
        _rated("n1", "newcomer b", 25.0, 25 / 3, 0),  # conservative 0
        _rated("n2", "newcomer a", 25.0, 25 / 3, 0),  # the same: by name
        _rated("t1", "top", 40.0, 2.0, 30),  # 34
        _rated("v1", "veteran", 30.0, 10 / 3, 12),  # 20, more games than the next
        _rated("v2", "also twenty", 26.0, 2.0, 5),  # 20
        _rated("l1", "loser", 10.0, 5.0, 9),  # -5
        _rated("o1", "other game", 99.0, 1.0, 1),
    ]
    bots[-1] = replace(bots[-1], game="qwixx")
    with store.database.transaction() as db:  # ratings as record_result leaves them
        for bot in bots:
            assert ladder.add_bot(bot, created=1.0)
            db.run(
                "UPDATE ladder_bots SET mu = ?, sigma = ?, games = ? WHERE bot_id = ?",
                (bot.mu, bot.sigma, bot.games, bot.bot_id),
            )
    order = ["t1", "v1", "v2", "n2", "n1", "l1"]
    pages = [ladder.leaderboard("qwirkle", offset=start, limit=4) for start in (0, 4, 8)]
    assert [[bot.bot_id for bot in page] for page in pages] == [order[:4], order[4:], []]
    assert pages[0][0] == replace(bots[2], game="qwirkle")
    stored = ladder.bots_by_id(order)
    assert [ladder.rank(stored[bot_id]) for bot_id in order] == [1, 2, 3, 4, 5, 6]
    assert ladder.rank(bots[-1]) == 1  # alone in its game
    assert ladder.leaderboard("chess", offset=0, limit=4) == []


def test_the_leaderboard_order_is_served_by_its_index(store: SqlStore) -> None:
    ladder = store.ladder_store()
    for number in range(20):
        assert ladder.add_bot(_bot(f"b{number}", f"bot {number}"), created=1.0)
    query = (
        "SELECT bot_id FROM ladder_bots WHERE game = 'qwirkle' "
        "ORDER BY 3 * sigma - mu, -games, name LIMIT 5 OFFSET 10"
    )
    with store.database.transaction() as db:
        if store.database.dialect == "sqlite":
            plan = " ".join(str(row[-1]) for row in db.rows(f"EXPLAIN QUERY PLAN {query}"))
            assert "ladder_bots_board" in plan
            assert "TEMP B-TREE" not in plan  # no sort
        else:
            # A table this small would rather be sorted: forbid it, to see the index serve.
            db.run("SET LOCAL enable_seqscan = off")
            db.run("SET LOCAL enable_sort = off")
            plan = " ".join(str(row[0]) for row in db.rows(f"EXPLAIN {query}"))
            assert "ladder_bots_board" in plan
            assert "Sort" not in plan


def test_the_scheduler_reads_only_the_bots_it_names(store: SqlStore) -> None:
    ladder = store.ladder_store()
    for bot_id in "abc":
        assert ladder.add_bot(_bot(bot_id, f"bot {bot_id}"), created=1.0)
    seats = [SeatRecord(0, "a", 25, 8), SeatRecord(1, "b", 25, 8)]
    ladder.add_match("m1", "qwirkle", 10.0, seats)
    ladder.add_match("m2", "qwirkle", 20.0, [SeatRecord(0, "b", 25, 8), SeatRecord(1, "c", 25, 8)])
    ladder.add_match("m3", "qwirkle", 30.0, [SeatRecord(0, "c", 25, 8), SeatRecord(1, "a", 25, 8)])
    assert set(ladder.bots_by_id(["a", "c", "nobody"])) == {"a", "c"}
    assert ladder.bots_by_id([]) == {}
    assert ladder.pair_counts("qwirkle", bot_ids=["a", "b"]) == {frozenset("ab"): 1}
    assert ladder.pair_counts("qwirkle", since=15.0, bot_ids=["a", "b", "c"]) == {
        frozenset("bc"): 1,
        frozenset("ca"): 1,
    }
    assert ladder.pair_counts("qwirkle", bot_ids=["a", "b", "c"]) == ladder.pair_counts("qwirkle")
    assert ladder.seat_counts("qwirkle", bot_ids=["c"]) == {"c": {0: 1, 1: 1}}
    ladder.present("a", "node-a", 1, False, now=100.0)
    ladder.present("b", "node-a", 1, False, now=100.0)
    assert [p.bot_id for p in ladder.presence(fresh_since=99.0, bot_ids=["b", "c"])] == ["b"]
    ladder.absent("a", "node-a", dropped=101.0)
    assert [p.bot_id for p in ladder.presence(fresh_since=99.0)] == ["a", "b"]
    connected = ladder.presence(fresh_since=99.0, connected_only=True)
    assert [p.bot_id for p in connected] == ["b"]
    assert ladder.presence(fresh_since=100.5, connected_only=True) == []  # b's row is stale


@contextlib.contextmanager
def _two_nodes(
    store_backend: StoreBackend,
) -> Iterator[tuple[SqlStore, SqlLadderStore, SqlLadderStore]]:
    """Two stores on one database (two nodes): the second, both ladder stores (bots x and
    y registered)."""
    first, second = store_backend.open(), store_backend.open()
    try:
        a, b = first.ladder_store(), second.ladder_store()
        assert a.add_bot(_bot("x", "ex"), created=1.0)
        assert a.add_bot(_bot("y", "why"), created=2.0)
        yield second, a, b
    finally:
        first.close()
        second.close()


def test_the_ladder_store_shares_presence_assignments_and_the_lead_between_nodes(
    store_backend: StoreBackend,
) -> None:
    with _two_nodes(store_backend) as (_, a, b):
        a.present("x", "node-a", 2, False, now=100.0)
        b.present("y", "node-b", 1, True, now=100.0)
        seen = {p.bot_id: p for p in b.presence(fresh_since=99.0)}
        assert {(p.node, p.capacity, p.resume_seats, p.connected) for p in seen.values()} == {
            ("node-a", 2, False, True),
            ("node-b", 1, True, True),
        }
        b.present("x", "node-b", 3, False, now=101.0)  # x reconnects, to the other node
        assert a.renew_presence("node-a", now=102.0) == set()
        assert b.renew_presence("node-b", now=102.0) == {"x", "y"}
        moved = {p.bot_id: p for p in a.presence(fresh_since=99.0, game="qwirkle")}
        assert moved["x"].generation == seen["x"].generation + 1
        b.absent("y", "node-b", dropped=103.0)
        a.absent("x", "node-a", dropped=103.0)  # not a's stream any more: nothing
        after = {p.bot_id: p for p in a.presence(fresh_since=99.0)}
        assert (after["y"].connected, after["y"].dropped) == (False, 103.0)
        assert (after["x"].connected, after["x"].dropped) == (True, None)
        assert [p.connected for p in a.presence(fresh_since=102.5)] == [False, False]
        queued = NodeAssignment("m1", 0, "x", "node-b", "qwirkle", "token", "127.0.0.1:1")
        a.add_assignments([queued])
        assert a.claim_assignments("node-a") == []
        assert b.claim_assignments("node-b") == [queued]
        assert b.claim_assignments("node-b") == []  # taken once
        assert a.lead("node-a", 60.0)
        assert a.lead("node-a", 60.0)  # renewed
        assert not b.lead("node-b", 60.0)  # one node at a time
        a.release_lead("node-a")
        assert b.lead("node-b", -1.0)  # taken; its lease ends at once (a frozen leader)
        seats = [SeatRecord(0, "x", 25.0, 8.0), SeatRecord(1, "y", 25.0, 8.0)]
        with pytest.raises(LeadLostError):  # the fence: an expired lease writes nothing
            b.add_match("late", "qwirkle", 5.0, seats, leader="node-b")
        assert b.match("late") is None
        assert a.lead("node-a", 60.0)  # taken over once expired
        assert not b.lead("node-b", 60.0)
        a.add_match("m-lead", "qwirkle", 5.0, seats, leader="node-a")
        with pytest.raises(LeadLostError):
            b.record_result("m-lead", 6.0, [_result(1), _result(2)], pause_after=3, leader="node-b")
        recorded = a.match("m-lead")
        assert recorded is not None
        assert recorded.finished is None


def test_a_seat_whose_bot_resumed_after_its_token_was_issued_is_listed_for_the_lease_owner(
    store: SqlStore,
) -> None:
    ladder = store.ladder_store()
    assert ladder.add_bot(_bot("x", "ex"), created=1.0)
    assert ladder.add_bot(_bot("y", "why"), created=2.0)
    ladder.present("x", "node-a", 1, False, now=100.0)
    ladder.present("y", "node-b", 1, True, now=100.0)  # a fresh process: resume_seats
    store.create_match(_match(), [_START], lease=_EXPIRED_A)
    ladder.add_match("m1", "qwirkle", 100.0, [SeatRecord(0, "x", 25, 8), SeatRecord(1, "y", 25, 8)])
    # Its tokens were issued for these Connects: nobody lost one.
    assert ladder.resumed_seats("node-a", fresh_since=99.0) == []
    ladder.present("x", "node-b", 1, False, now=101.0)  # reconnects, tokens kept
    ladder.present("y", "node-b", 1, True, now=101.0)  # restarted: its token is lost
    ladder.present("y", "node-b", 1, False, now=101.5)  # and again, playing something else
    lost = [ResumedSeat("m1", 1, "y", "node-b", 2)]
    assert ladder.resumed_seats("node-a", fresh_since=99.0) == lost
    assert ladder.resumed_seats("node-b", fresh_since=99.0) == []  # not its match
    assert ladder.resumed_seats("node-a", fresh_since=101.8) == []  # y's row is stale
    assert store.claim_leases(_NODE_B) == ["m1"]  # node a died: node b takes m1 over
    assert ladder.resumed_seats("node-a", fresh_since=99.0) == []
    assert ladder.resumed_seats("node-b", fresh_since=99.0) == lost
    assert not ladder.mark_resumed("m1", 1, 2, "node-a")  # fenced by the lease
    assert ladder.mark_resumed("m1", 1, 2, "node-b")
    assert not ladder.mark_resumed("m1", 1, 1, "node-b")  # never back to an older one
    assert ladder.resumed_seats("node-b", fresh_since=99.0) == []
    ladder.present("y", "node-a", 1, True, now=102.0)  # restarted once more
    assert ladder.resumed_seats("node-b", fresh_since=99.0) == [
        ResumedSeat("m1", 1, "y", "node-a", 4)
    ]
    store.record("m1", [_move(1, 0)], [], _RESULT, lease=_NODE_B)
    ladder.record_result("m1", 103.0, [_result(1), _result(2)], pause_after=3)
    assert ladder.resumed_seats("node-b", fresh_since=99.0) == []  # over


def test_migration_7_gives_the_seats_of_a_version_6_database_nothing_back(
    store_backend: StoreBackend,
) -> None:
    old = store_backend.open(MIGRATIONS[:6])
    ladder = old.ladder_store()
    assert ladder.add_bot(_bot("x", "ex"), created=1.0)
    old.create_match(_match(), [_START], lease=_NODE_A)
    with old.database.transaction() as db:  # what migration 6 wrote: no token_generation
        db.run(
            "INSERT INTO ladder_presence (bot_id, node, capacity, resume_seats, generation, "
            "seen, dropped) VALUES ('x', 'node-a', 1, TRUE, 5, 100.0, NULL)"
        )
        db.run("INSERT INTO ladder_matches (match_id, game, started) VALUES ('m1', 'q', 1.0)")
        db.run(
            "INSERT INTO ladder_seats (match_id, seat, bot_id, mu_before, sigma_before) "
            "VALUES ('m1', 0, 'x', 25.0, 8.0)"
        )
    old.close()
    upgraded = store_backend.open()
    try:
        assert upgraded.schema_version == len(MIGRATIONS)
        # A resume before the upgrade is not known as one: no seat is taken for lost.
        assert upgraded.ladder_store().resumed_seats("node-a", fresh_since=99.0) == []
        upgraded.ladder_store().present("x", "node-a", 1, True, now=101.0)
        assert upgraded.ladder_store().resumed_seats("node-a", fresh_since=99.0) == [
            ResumedSeat("m1", 0, "x", "node-a", 6)
        ]
    finally:
        upgraded.close()


def test_the_ladder_store_lists_unrecorded_matches_whose_match_finished(store: SqlStore) -> None:
    ladder = store.ladder_store()
    assert ladder.add_bot(_bot("a", "alpha"), created=1.0)
    assert ladder.add_bot(_bot("b", "beta"), created=2.0)
    seats = [SeatRecord(0, "a", 25.0, 8.0), SeatRecord(1, "b", 25.0, 8.0)]
    for number, match_id in enumerate(("m1", "m2"), start=1):
        store.create_match(_match(match_id, number), [_START])
        ladder.add_match(match_id, "qwirkle", 10.0 + number, seats)
    assert ladder.ended_matches() == []
    store.record("m2", [_move(1, 0)], [], _RESULT)
    assert ladder.ended_matches() == ["m2"]
    ladder.record_result("m2", 20.0, [_result(1), _result(2)], pause_after=3)
    assert ladder.ended_matches() == []


def test_a_result_recorded_meanwhile_by_another_writer_is_not_applied_twice(
    store: SqlStore,
) -> None:
    ladder = store.ladder_store()
    assert ladder.add_bot(_bot("a", "alpha"), created=1.0)
    assert ladder.add_bot(_bot("b", "beta"), created=2.0)
    ladder.add_match("m1", "qwirkle", 10.0, [SeatRecord(0, "a", 25, 8), SeatRecord(1, "b", 25, 8)])
    stale = ladder.match("m1")

    class LateWriter(SqlLadderStore):
        """Read the match before the other writer recorded it (a lead just lost)."""

        def match(self, match_id: str) -> LadderMatchRecord | None:
            return stale

    ladder.record_result("m1", 20.0, [_result(1), _result(2)], pause_after=3)
    LateWriter(store.database).record_result("m1", 21.0, [_result(2), _result(1)], pause_after=3)
    alpha = ladder.bot("a")
    recorded = ladder.match("m1")
    assert alpha is not None
    assert recorded is not None
    assert (alpha.games, alpha.wins, recorded.finished) == (1, 1.0, 20.0)


_NODE_C = Lease("node-c", "127.0.0.1:1003", ttl=60.0)


def test_expired_leases_are_shared_out_over_the_live_nodes(store: SqlStore) -> None:
    assert store.fair_share("node-b") == 1  # nothing expired: never less than one
    for number in range(1, 6):  # node a died holding five matches
        store.create_match(_match(f"m{number}", number), [_START], lease=_EXPIRED_A)
    assert store.fair_share("node-b") == 5  # alone: all of them
    store.create_match(_match("b1", 6), [_START], lease=_NODE_B)
    store.create_match(_match("c1", 7), [_START], lease=_NODE_C)
    assert store.fair_share("node-b") == 3  # b and c live: five over two, rounded up
    assert len(store.claim_leases(_NODE_B, limit=store.fair_share("node-b"))) == 3
    assert store.fair_share("node-c") == 1
    assert len(store.claim_leases(_NODE_C, limit=store.fair_share("node-c"))) == 1
    assert store.fair_share("node-b") == 1  # the last one: whoever beats first
    assert len(store.claim_leases(_NODE_B, limit=1)) == 1
    assert store.claim_leases(_NODE_C) == []  # none left


def test_a_requested_ladder_match_is_started_once_by_its_node_and_fenced_by_the_lead(
    store_backend: StoreBackend,
) -> None:
    with _two_nodes(store_backend) as (second, a, b):
        assert a.lead("node-a", 60.0)
        one = MatchRequest("r1", "node-b", "qwirkle", ("x", "y"))
        two = MatchRequest("r2", "node-b", "qwirkle", ("y", "x"))
        with pytest.raises(LeadLostError):  # only the scheduling node requests
            b.request_matches([one], leader="node-b")
        a.request_matches([one, two], leader="node-a")
        assert b.match_requests(node="node-a") == []
        assert b.match_requests(node="node-b") == [one, two]
        assert a.node_loads() == {"node-b": 2}  # requested, not yet started
        seats = [SeatRecord(0, "x", 25.0, 8.0), SeatRecord(1, "y", 25.0, 8.0)]
        assert not a.start_requested("r1", "node-a", "m1", 5.0, seats)  # not a's request
        second.create_match(_match("m1"), [_START], lease=_NODE_B)
        assert b.start_requested("r1", "node-b", "m1", 5.0, seats)
        assert not b.start_requested("r1", "node-b", "m9", 5.0, seats)  # started once
        assert b.match_requests(node="node-b") == [two]
        assert a.match_requests() == [replace(one, match_id="m1"), two]
        started = a.match("m1")
        assert started is not None
        assert (started.game, started.finished, [s.bot_id for s in started.seats]) == (
            "qwirkle",
            None,
            ["x", "y"],
        )
        assert a.node_loads() == {"node-b": 2}  # one running under its lease, one requested
        assert a.unfinished_matches() == [started]
        # The scheduler drops the started one, and the other as late, fenced by the lead.
        with pytest.raises(LeadLostError):
            b.drop_requests(["r1", "r2"], leader="node-b")
        assert a.drop_requests(["r1", "r2"], leader="node-a", unstarted_only=True) == {"r2"}
        assert not b.start_requested("r2", "node-b", "m2", 6.0, seats)  # too late
        assert a.match("m2") is None
        assert a.drop_requests(["r1"], leader="node-a") == {"r1"}
        assert a.match_requests() == []
        assert a.match("m1") == started  # the match itself stays
