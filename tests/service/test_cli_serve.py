"""``botarena serve`` runs a real server process and stops gracefully on a signal."""

from __future__ import annotations

import asyncio
import json
import os
import signal
import subprocess
import sys
from typing import Any

import grpc
import pytest
from grpc_health.v1 import health_pb2, health_pb2_grpc

_START = "from botarena.clients.cli import main; raise SystemExit(main())"


def _popen(env: dict[str, str] | None = None) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, "-c", _START, "serve", "--port", "0", "--log-format", "json"],
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        env={**os.environ, **(env or {})},
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
def test_serve_answers_health_checks_and_stops_on_a_signal(signum: signal.Signals) -> None:
    with _popen() as process:
        try:
            serving = _until_serving(process)
            assert serving["admin_token_required"] is False
            status = asyncio.run(_health(int(serving["port"])))
            assert status == health_pb2.HealthCheckResponse.SERVING
            process.send_signal(signum)
            rest, _ = process.communicate(timeout=10)
        finally:
            process.kill()
    assert process.returncode == 0
    events = [json.loads(line)["event"] for line in rest.splitlines()]
    assert events[-2:] == ["stopping", "stopped"]


def test_serve_takes_the_admin_token_from_the_environment() -> None:
    with _popen({"BOTARENA_ADMIN_TOKEN": "from-env"}) as process:
        try:
            assert _until_serving(process)["admin_token_required"] is True
            process.send_signal(signal.SIGTERM)
            process.communicate(timeout=10)
        finally:
            process.kill()
    assert process.returncode == 0
