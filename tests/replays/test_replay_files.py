"""Replay files: the round trip, the old format, refusals that name what is wrong, and the
engine's check of every view."""

from __future__ import annotations

import gzip
import json
import stat
from pathlib import Path

import pytest

from botarena.clients.replays import (
    REPLAY_FILE_NAME,
    ReplayFormatError,
    load_replay,
    replay_json,
    save_replay,
)
from botarena.server.service._replays import ReplayMismatchError, check_replay
from botarena.v1 import match_pb2, qwixx_pb2

GAMES = ("qwirkle", "qwixx", "queendomino")


@pytest.mark.parametrize("game", GAMES)
def test_a_saved_replay_is_gzipd_binary_and_loads_back_equal_passing_the_engine_check(
    game: str, replays: dict[str, match_pb2.Replay], tmp_path: Path
) -> None:
    replay = replays[game]
    path = save_replay(replay, tmp_path / REPLAY_FILE_NAME)
    assert path.name == "replay.binpb.gz"
    assert path.read_bytes()[:2] == b"\x1f\x8b"  # gzip
    assert match_pb2.Replay.FromString(gzip.decompress(path.read_bytes())) == replay
    assert load_replay(path) == replay
    check_replay(load_replay(path))


def _forms(replay: match_pb2.Replay) -> dict[str, bytes]:
    binary = replay.SerializeToString()
    text = replay_json(replay).encode()
    return {
        "replay.binpb.gz": gzip.compress(binary),
        "replay.binpb": binary,
        "replay.json": text,
        "replay.json.gz": gzip.compress(text),
        "pretty.json": replay_json(replay, indent=2).encode(),
    }


@pytest.mark.parametrize("form", list(_forms(match_pb2.Replay())))
@pytest.mark.parametrize("game", GAMES)
def test_every_form_of_a_replay_loads_by_its_content_whatever_its_name(
    game: str, form: str, replays: dict[str, match_pb2.Replay], tmp_path: Path
) -> None:
    replay = replays[game]
    data = _forms(replay)[form]
    named = tmp_path / form
    named.write_bytes(data)
    assert load_replay(named) == replay
    misnamed = tmp_path / "replay.txt"
    misnamed.write_bytes(data)
    assert load_replay(misnamed) == replay


def test_saving_leaves_no_partial_file_behind_and_gives_mode_0644(
    replays: dict[str, match_pb2.Replay], tmp_path: Path
) -> None:
    path = save_replay(replays["qwixx"], tmp_path / REPLAY_FILE_NAME)
    assert [p.name for p in tmp_path.iterdir()] == [REPLAY_FILE_NAME]
    assert stat.S_IMODE(path.stat().st_mode) == 0o644
    save_replay(replays["qwirkle"], path)  # over an older one
    assert load_replay(path) == replays["qwirkle"]
    assert stat.S_IMODE(path.stat().st_mode) == 0o644


@pytest.mark.parametrize("game", GAMES)
def test_the_runners_old_replay_jsonl_still_loads_with_its_views_made_again(
    game: str, fixtures: Path
) -> None:
    path = fixtures / f"v1-{game}.jsonl"
    lines = path.read_text().splitlines()
    header = json.loads(lines[0])
    replay = load_replay(path)
    check_replay(replay)
    assert replay.format_version == 2
    assert len(replay.steps) == len(lines) - 1
    assert [seat.display_name for seat in replay.match.seats] == header["bots"]
    assert str(replay.match.config.seed) == header["seed"]
    assert replay.match.state == match_pb2.Match.STATE_FINISHED
    assert replay.match.outcome.reason
    assert all(len(step.seat_views) == header["seats"] for step in replay.steps)


def test_a_newer_format_version_is_refused_by_its_number(tmp_path: Path) -> None:
    path = tmp_path / "future.json.gz"
    path.write_bytes(gzip.compress(json.dumps({"formatVersion": 3, "steps": []}).encode()))
    with pytest.raises(ReplayFormatError, match="format version 3 is not supported"):
        load_replay(path)
    for compress in (gzip.compress, bytes):
        path = tmp_path / "future.binpb.gz"
        path.write_bytes(compress(match_pb2.Replay(format_version=7).SerializeToString()))
        with pytest.raises(ReplayFormatError, match="format version 7 is not supported"):
            load_replay(path)
    path.write_bytes(match_pb2.Replay(format_version=1).SerializeToString())
    with pytest.raises(ReplayFormatError, match=r"version 1 replays are replay\.jsonl files"):
        load_replay(path)
    old = tmp_path / "replay.jsonl"
    old.write_text(json.dumps({"type": "header", "schema_version": 7}) + "\n")
    with pytest.raises(ReplayFormatError, match="format version 7 is not supported"):
        load_replay(old)


@pytest.mark.parametrize(
    ("content", "message"),
    [
        (b"hello, world", "not a replay"),
        (b"[1, 2]", "not a replay"),
        (b'{"match": {}}', "no format version"),
        (b"\x1f\x8b\x08\x00garbage", "damaged gzip"),
        (b'{"formatVersion": 2, "steps": [{"nope": 1}]}', "damaged version 2 replay"),
        (b"", "not a replay"),
        (gzip.compress(b"\x00\x01\x02 binary noise"), "not a replay"),
        (gzip.compress(match_pb2.Replay().SerializeToString()), "not a replay"),
        (match_pb2.Match(name="matches/1", state_version=4).SerializeToString(), "not a replay"),
        (match_pb2.Replay(format_version=2).SerializeToString()[:-1] + b"\x12\x09", "not a replay"),
    ],
    ids=[
        "text",
        "json-list",
        "no-version",
        "bad-gzip",
        "bad-field",
        "empty",
        "gzipd-noise",
        "binary-without-version",
        "another-message",
        "truncated-binary",
    ],
)
def test_what_is_no_replay_is_refused_with_what_is_wrong(
    content: bytes, message: str, tmp_path: Path
) -> None:
    path = tmp_path / "file"
    path.write_bytes(content)
    with pytest.raises(ReplayFormatError, match=message):
        load_replay(path)


def test_a_changed_view_fails_the_check_naming_the_version_viewer_and_field(
    replays: dict[str, match_pb2.Replay],
) -> None:
    replay = match_pb2.Replay()
    replay.CopyFrom(replays["qwirkle"])
    replay.steps[5].seat_views[1].qwirkle.seats[0].score += 1
    with pytest.raises(ReplayMismatchError, match=r"version 5: seat 1's view .*score"):
        check_replay(replay)


def test_a_changed_move_fails_the_check(replays: dict[str, match_pb2.Replay]) -> None:
    replay = match_pb2.Replay()
    replay.CopyFrom(replays["qwixx"])
    step = next(s for s in replay.steps[3:] if s.event.HasField("move_applied"))
    move = step.event.move_applied.move.qwixx
    if move.WhichOneof("action") == "decline":
        move.mark_white_sum.colour = qwixx_pb2.QWIXX_COLOUR_RED
        move.mark_white_sum.number = 7
    else:
        move.decline.SetInParent()
    with pytest.raises(ReplayMismatchError, match=f"version {step.event.state_version}"):
        check_replay(replay)


def test_a_replay_without_its_seed_cannot_be_checked(replays: dict[str, match_pb2.Replay]) -> None:
    replay = match_pb2.Replay()
    replay.CopyFrom(replays["qwixx"])
    replay.match.config.ClearField("seed")
    with pytest.raises(ReplayMismatchError, match="no seed"):
        check_replay(replay)


@pytest.mark.parametrize(
    ("name", "head"),
    [("m.binpb.gz", b"\x1f\x8b"), ("m.json", b"{"), ("m.json.gz", b"\x1f\x8b")],
)
def test_a_saved_replay_takes_the_form_its_name_asks_for(
    name: str, head: bytes, replays: dict[str, match_pb2.Replay], tmp_path: Path
) -> None:
    path = save_replay(replays["qwixx"], tmp_path / name)
    assert path.read_bytes().startswith(head)
    if name.endswith(".json.gz"):
        assert gzip.decompress(path.read_bytes()).startswith(b"{")
    elif name.endswith(".binpb.gz"):
        assert not gzip.decompress(path.read_bytes()).startswith(b"{")
    assert load_replay(path) == replays["qwixx"]
