# mypy: disable-error-code="import-untyped"
"""``botarena replay``: the summary, a board at a version, stepping, refusals, and a match
fetched from a real server."""

from __future__ import annotations

import asyncio
import json
import random
from pathlib import Path

import grpc
import pytest
from google.protobuf import json_format

from botarena.clients.cli import main
from botarena.clients.replays import REPLAY_FILE_NAME, load_replay, save_replay
from botarena.server.service import create_server
from botarena.v1 import match_pb2, match_service_pb2, match_service_pb2_grpc


def _file(replay: match_pb2.Replay, tmp_path: Path) -> str:
    return str(save_replay(replay, tmp_path / REPLAY_FILE_NAME))


@pytest.mark.parametrize("game", ["qwirkle", "qwixx", "queendomino"])
def test_the_summary_names_the_bots_their_scores_and_how_the_match_ended(
    game: str,
    replays: dict[str, match_pb2.Replay],
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    replay = replays[game]
    assert main(["replay", _file(replay, tmp_path)]) == 0
    out = capsys.readouterr().out
    assert f"{game} · {replay.match.name}" in out
    for result in replay.match.outcome.results:
        assert f"bot{result.seat}" in out
        assert str(result.score) in out
    assert f"ended: {replay.match.outcome.reason}" in out
    moves = sum(step.event.HasField("move_applied") for step in replay.steps)
    assert f"{moves} moves" in out


def test_at_prints_the_board_and_every_rack_at_that_version(
    replays: dict[str, match_pb2.Replay], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    replay = replays["qwirkle"]
    assert main(["replay", _file(replay, tmp_path), "--at", "-1"]) == 0
    out = capsys.readouterr().out
    last = len(replay.steps) - 1
    assert f"v{last} · the match ends" in out
    assert f"bag: {replay.steps[-1].spectator_view.qwirkle.bag_size} tiles" in out
    shapes = "●■◆♣✦✸"
    board = out.split(f"v{last} ·", 1)[1].split("seat", 1)[0]
    assert sum(board.count(shape) for shape in shapes) == len(
        replay.steps[-1].spectator_view.qwirkle.board
    )


def test_at_a_version_beyond_the_match_is_a_usage_error(
    replays: dict[str, match_pb2.Replay], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["replay", _file(replays["qwixx"], tmp_path), "--at", "9999"]) == 2
    assert "versions are 0.." in capsys.readouterr().err


def test_step_without_a_terminal_prints_every_version(
    replays: dict[str, match_pb2.Replay],
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr("sys.stdin.isatty", lambda: False)
    replay = replays["queendomino"]
    assert main(["replay", _file(replay, tmp_path), "--step"]) == 0
    out = capsys.readouterr().out
    assert [f"v{version} ·" in out for version in range(len(replay.steps))] == [True] * len(
        replay.steps
    )
    assert "legend" in out


@pytest.mark.parametrize("compact", [False, True], ids=["pretty", "compact"])
def test_json_writes_the_proto3_json_that_reads_back_to_the_same_replay(
    compact: bool, replays: dict[str, match_pb2.Replay], tmp_path: Path
) -> None:
    replay = replays["queendomino"]
    out = tmp_path / "replay.json"
    argv = ["replay", _file(replay, tmp_path), "--json", str(out)]
    assert main(argv + (["--compact"] if compact else [])) == 0
    text = out.read_text(encoding="utf-8")
    assert (text.count("\n") == 1) == compact
    assert json_format.ParseDict(json.loads(text), match_pb2.Replay()) == replay
    assert load_replay(out) == replay  # and botarena reads it as a replay file


def test_json_to_standard_output_is_the_json_alone(
    replays: dict[str, match_pb2.Replay], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    replay = replays["qwixx"]
    assert main(["replay", _file(replay, tmp_path), "--json", "-", "--compact"]) == 0
    captured = capsys.readouterr()
    assert json.loads(captured.out) == json_format.MessageToDict(replay)
    assert replay.match.name in captured.err  # the summary, out of the JSON's way


def test_a_file_the_engine_disagrees_with_is_refused(
    replays: dict[str, match_pb2.Replay], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    replay = match_pb2.Replay()
    replay.CopyFrom(replays["qwirkle"])
    replay.steps[-1].spectator_view.qwirkle.bag_size += 3
    path = _file(replay, tmp_path)
    assert main(["replay", path]) == 1
    err = capsys.readouterr().err
    assert "differs from the engine's" in err
    assert "bagSize" in err
    assert main(["replay", path, "--no-check"]) == 0


def test_an_old_or_unknown_file_gets_a_one_line_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "notes.txt"
    path.write_text("not json")
    assert main(["replay", str(path)]) == 1
    err = capsys.readouterr().err.strip()
    assert err.count("\n") == 0
    assert "not a replay" in err
    assert main(["replay", str(tmp_path / "missing.binpb.gz")]) == 1
    assert "No such file" in capsys.readouterr().err


def test_a_match_is_fetched_from_a_server_and_saved(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    async def play() -> tuple[str, int, object]:
        server, port = await create_server("127.0.0.1:0")
        async with grpc.aio.insecure_channel(f"127.0.0.1:{port}") as channel:
            stub = match_service_pb2_grpc.MatchServiceStub(channel)
            config = match_pb2.MatchConfig(
                game=match_pb2.GAME_QWIXX, seat_count=2, seed=4, seat_names=["ann", "ben"]
            )
            created = await stub.CreateMatch(match_service_pb2.CreateMatchRequest(config=config))
            tokens = [seat.token for seat in created.seat_tokens]
            rng = random.Random(4)
            name = created.match.name
            while True:
                for token in tokens:
                    view = await stub.GetPlayerView(
                        match_service_pb2.GetPlayerViewRequest(match=name),
                        metadata=(("authorization", f"Bearer {token}"),),
                    )
                    if view.match.state != match_pb2.Match.STATE_ACTIVE:
                        return name, port, server
                    if view.legal_moves:
                        await stub.SubmitMove(
                            match_service_pb2.SubmitMoveRequest(
                                match=name,
                                move=rng.choice(view.legal_moves),
                                expected_state_version=view.state_version,
                            ),
                            metadata=(("authorization", f"Bearer {token}"),),
                        )

    async def scenario() -> None:
        name, port, server = await play()
        saved = tmp_path / "fetched.binpb.gz"
        argv = ["replay", name, "--server", f"127.0.0.1:{port}", "--save", str(saved)]
        try:
            status = await asyncio.to_thread(main, argv)
        finally:
            await server.stop(None)  # type: ignore[attr-defined]
        assert status == 0
        out = capsys.readouterr().out
        assert "ann" in out
        assert "ben" in out
        assert load_replay(saved).match.name == name

    asyncio.run(scenario())
