"""``encode_stored_match``: a finished match described from its stored row alone."""

from __future__ import annotations

import dataclasses

import pytest

from botarena.server.service._convert import encode_stored_match
from botarena.server.store import StoredMatch, StoredResult, StoredSeat
from botarena.v1 import match_pb2

_CONFIG = match_pb2.MatchConfig(
    game=match_pb2.GAME_QWIRKLE, seat_count=2, seed=2**64 - 1, seat_names=["ann", "bo"]
)


def _record(reason: str = "went_out", *, finished: bool = True) -> StoredMatch:
    result = StoredResult((0, 12), (2, 1), (True, False), reason, 1_700_000_100.25)
    return StoredMatch(
        match_id="ab12",
        sequence=7,
        game="qwirkle",
        seat_count=2,
        seed=2**64 - 1,
        config=_CONFIG.SerializeToString(deterministic=True),
        created_time=1_700_000_000.5,
        state_version=41,
        seats=(
            StoredSeat(0, "ann", "aa" * 32, 0.0, 2, 1, 3, "absent"),
            StoredSeat(1, "bo", "bb" * 32, 4.5),
        ),
        result=result if finished else None,
    )


def test_a_stored_finished_match_is_described_with_seed_seats_and_outcome() -> None:
    out = match_pb2.Match()
    encode_stored_match(_record(), out)
    assert (out.name, out.state, out.state_version) == (
        "matches/ab12",
        match_pb2.Match.STATE_FINISHED,
        41,
    )
    assert out.config == _CONFIG  # the seed too: public once the match is over
    assert [(s.display_name, s.score, s.forfeited) for s in out.seats] == [
        ("ann", 0, True),
        ("bo", 12, False),
    ]
    ann = out.seats[0]
    assert (ann.timeouts, ann.illegal_moves, ann.stand_in_moves, ann.forfeit_reason) == (
        2,
        1,
        3,
        "absent",
    )
    assert out.seats[1].time_bank_remaining.ToNanoseconds() == 4_500_000_000
    assert [
        (r.seat, r.score, r.rank, r.forfeited, r.forfeit_reason) for r in out.outcome.results
    ] == [
        (0, 0, 2, True, "absent"),
        (1, 12, 1, False, ""),
    ]
    assert out.outcome.reason == "went_out"
    assert not out.seats_to_act
    assert out.create_time.ToMicroseconds() == 1_700_000_000_500_000
    assert out.end_time.ToMicroseconds() == 1_700_000_100_250_000


def test_a_match_that_ended_abandoned_is_state_abandoned() -> None:
    out = match_pb2.Match()
    encode_stored_match(_record("abandoned"), out)
    assert out.state == match_pb2.Match.STATE_ABANDONED
    assert out.outcome.reason == "abandoned"


def test_an_unfinished_record_another_node_runs_is_active_without_seed_or_outcome() -> None:
    out = match_pb2.Match()
    encode_stored_match(_record(finished=False), out)
    assert out.state == match_pb2.Match.STATE_ACTIVE
    assert not out.config.HasField("seed")
    assert not out.HasField("outcome")
    assert not out.HasField("end_time")
    assert [seat.display_name for seat in out.seats] == ["ann", "bo"]


def test_a_record_whose_config_is_not_a_match_config_raises_value_error() -> None:
    record = dataclasses.replace(_record(), config=b"\xff\xff")
    with pytest.raises(ValueError, match="config does not decode"):
        encode_stored_match(record, match_pb2.Match())
