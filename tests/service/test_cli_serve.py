"""``botarena serve`` runs a real server process and stops gracefully on a signal."""

from __future__ import annotations

import asyncio
import json
import os
import signal
import subprocess
import sys
from pathlib import Path
from typing import Any

import grpc
import pytest
from grpc_health.v1 import health_pb2, health_pb2_grpc

_START = "from botarena.clients.cli import main; raise SystemExit(main())"


def _popen(data_home: Path, env: dict[str, str] | None = None) -> subprocess.Popen[str]:
    # The default database goes under $XDG_DATA_HOME: a temporary folder, never the user's.
    return subprocess.Popen(
        [sys.executable, "-c", _START, "serve", "--port", "0", "--log-format", "json"],
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        env={**os.environ, "XDG_DATA_HOME": str(data_home), **(env or {})},
    )


def _until_serving(process: subprocess.Popen[str]) -> dict[str, Any]:
    assert process.stdout is not None
    seen: list[str] = []
    for line in process.stdout:
        seen.append(line)
        if line.startswith("{") and json.loads(line).get("event") == "serving":
            return dict(json.loads(line))
    raise AssertionError("the server did not start:\n" + "".join(seen))


async def _health(port: int) -> int:
    async with grpc.aio.insecure_channel(f"127.0.0.1:{port}") as channel:
        reply = await health_pb2_grpc.HealthStub(channel).Check(health_pb2.HealthCheckRequest())
        return int(reply.status)


@pytest.mark.parametrize("signum", [signal.SIGTERM, signal.SIGINT], ids=["sigterm", "sigint"])
def test_serve_answers_health_checks_and_stops_on_a_signal(
    signum: signal.Signals, tmp_path: Path
) -> None:
    with _popen(tmp_path) as process:
        try:
            serving = _until_serving(process)
            assert serving["admin_token_required"] is False
            # Without --db the matches go to a file under the user's data folder.
            assert serving["database"] == str(tmp_path / "botarena" / "botarena.db")
            assert (tmp_path / "botarena" / "botarena.db").exists()
            status = asyncio.run(_health(int(serving["port"])))
            assert status == health_pb2.HealthCheckResponse.SERVING
            process.send_signal(signum)
            rest, _ = process.communicate(timeout=10)
        finally:
            process.kill()
    assert process.returncode == 0
    events = [json.loads(line)["event"] for line in rest.splitlines()]
    assert events[-2:] == ["stopping", "stopped"]


def test_serve_takes_the_admin_token_from_the_environment(tmp_path: Path) -> None:
    with _popen(tmp_path, {"BOTARENA_ADMIN_TOKEN": "from-env"}) as process:
        try:
            assert _until_serving(process)["admin_token_required"] is True
            process.send_signal(signal.SIGTERM)
            process.communicate(timeout=10)
        finally:
            process.kill()
    assert process.returncode == 0


def test_serve_refuses_a_file_that_is_no_database(tmp_path: Path) -> None:
    notes = tmp_path / "notes.txt"
    notes.write_text("not a database " * 100)
    command = [sys.executable, "-c", _START, "serve", "--port", "0", "--log-format", "json"]
    done = subprocess.run(
        [*command, "--db", str(notes)], capture_output=True, text=True, timeout=30, check=False
    )
    assert done.returncode == 1
    error = json.loads(done.stdout.splitlines()[-1])
    assert error["event"] == "cannot open the database"
    assert "notes.txt as a botarena database" in error["error"]
