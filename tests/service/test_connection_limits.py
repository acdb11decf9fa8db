# mypy: disable-error-code="import-untyped"
"""Connections cannot exhaust the server (issue 26): the gRPC port closes connections
that never finish their handshake and connections that stay idle, holds no more than
its cap, the open-files limit is raised, and an accept-error storm logs a bounded few
lines. Through real sockets on 127.0.0.1."""

from __future__ import annotations

import asyncio
import json
import os
import resource
import signal
import socket
import subprocess
import sys
import textwrap
import time
from pathlib import Path
from typing import Any

import grpc
import pytest
from grpc_health.v1 import health_pb2, health_pb2_grpc

from botarena.server.service import FD_RESERVE, LOG_BURST, create_server

# The first half of the client's HTTP/2 connection preface.
_HALF_PREFACE = b"PRI * HTTP/2.0\r\n"


async def _open(port: int, send: bytes = b"") -> tuple[asyncio.StreamReader, asyncio.StreamWriter]:
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    if send:
        writer.write(send)
        await writer.drain()
    return reader, writer


async def _closed_after(reader: asyncio.StreamReader, start: float, limit: float) -> float:
    """Read until the server closes the connection; return the seconds from ``start``.

    Raises:
        TimeoutError: It was still open after ``limit`` seconds.
    """

    async def drain() -> None:
        try:
            while await reader.read(4096):
                pass
        except ConnectionResetError:
            pass

    await asyncio.wait_for(drain(), limit)
    return time.monotonic() - start


async def _check(port: int) -> int:
    async with grpc.aio.insecure_channel(f"127.0.0.1:{port}") as channel:
        reply = await health_pb2_grpc.HealthStub(channel).Check(
            health_pb2.HealthCheckRequest(), timeout=10
        )
        return int(reply.status)


def test_silent_and_half_preface_connections_are_closed_after_the_handshake_timeout() -> None:
    async def main() -> None:
        server, port = await create_server("127.0.0.1:0", handshake_timeout=0.5)
        try:
            start = time.monotonic()
            silent = [await _open(port) for _ in range(10)]
            half = [await _open(port, _HALF_PREFACE) for _ in range(10)]
            held = await asyncio.gather(
                *(_closed_after(reader, start, 20.0) for reader, _ in silent + half)
            )
            # Closed by the timeout, not at once: each was held at least its 0.5 s.
            assert min(held) >= 0.4
            for _, writer in silent + half:
                writer.close()
            assert await _check(port) == health_pb2.HealthCheckResponse.SERVING
        finally:
            await server.stop(None)

    asyncio.run(main())


def test_a_connection_with_no_call_is_closed_after_the_idle_timeout() -> None:
    async def main() -> None:
        server, port = await create_server("127.0.0.1:0", idle_timeout=0.5)
        try:
            async with grpc.aio.insecure_channel(f"127.0.0.1:{port}") as channel:
                stub = health_pb2_grpc.HealthStub(channel)
                await stub.Check(health_pb2.HealthCheckRequest(), timeout=10)
                assert channel.get_state() == grpc.ChannelConnectivity.READY
                deadline = time.monotonic() + 20.0
                # The server's GOAWAY turns the channel idle; it is never idle otherwise.
                while channel.get_state() == grpc.ChannelConnectivity.READY:
                    assert time.monotonic() < deadline, "the idle connection was kept"
                    await asyncio.sleep(0.1)
                assert channel.get_state() == grpc.ChannelConnectivity.IDLE
                # The client reconnects when it next calls.
                reply = await stub.Check(health_pb2.HealthCheckRequest(), timeout=10)
                assert reply.status == health_pb2.HealthCheckResponse.SERVING
        finally:
            await server.stop(None)

    asyncio.run(main())


def test_connections_past_max_connections_are_closed_as_they_are_accepted() -> None:
    async def main() -> None:
        server, port = await create_server("127.0.0.1:0", max_connections=5, handshake_timeout=60.0)
        assert server.max_connections == 5
        try:
            held = [await _open(port) for _ in range(5)]
            start = time.monotonic()
            # The sixth is closed at once, long before its handshake timeout.
            reader, writer = await _open(port)
            assert await _closed_after(reader, start, 20.0) < 30.0
            writer.close()
            for _, holder in held:
                holder.close()
                await holder.wait_closed()
            deadline = time.monotonic() + 20.0
            while True:  # grpc counts the closed ones out as it sees them close
                try:
                    assert await _check(port) == health_pb2.HealthCheckResponse.SERVING
                    break
                except grpc.aio.AioRpcError:
                    assert time.monotonic() < deadline
                    await asyncio.sleep(0.2)
        finally:
            await server.stop(None)

    asyncio.run(main())


async def _open_from(source: str, port: int) -> tuple[asyncio.StreamReader, asyncio.StreamWriter]:
    """A connection from ``source``, another loopback address: another peer host."""
    return await asyncio.open_connection("127.0.0.1", port, local_addr=(source, 0))


def test_a_peer_past_its_cap_loses_connections_while_another_peer_calls() -> None:
    async def main() -> None:
        server, port = await create_server(
            "127.0.0.1:0",
            max_connections_per_peer=3,
            sweep_interval=0.2,
            handshake_timeout=60.0,
        )
        try:
            flood = [await _open_from("127.0.0.2", port) for _ in range(6)]
            start = time.monotonic()

            async def fate(reader: asyncio.StreamReader) -> bool:
                try:
                    await _closed_after(reader, start, 8.0)
                except TimeoutError:
                    return False
                return True

            closed = await asyncio.gather(*(fate(reader) for reader, _ in flood))
            # Three were shut down; three are kept, well past the sweeps, as long as their
            # handshake timeout allows.
            assert sorted(closed) == [False] * 3 + [True] * 3
            # The other peer (127.0.0.1) connects and calls meanwhile.
            assert await _check(port) == health_pb2.HealthCheckResponse.SERVING
            for _, writer in flood:
                writer.close()
        finally:
            await server.stop(None)

    asyncio.run(main())


def test_the_default_cap_keeps_a_reserve_below_the_open_files_limit() -> None:
    async def main() -> None:
        server, _ = await create_server("127.0.0.1:0", http_address=("127.0.0.1", 0))
        try:
            soft, _ = resource.getrlimit(resource.RLIMIT_NOFILE)
            web = server.web.settings.max_connections
            assert web <= (soft - FD_RESERVE) // 2 or web == 16
            assert server.max_connections + web <= max(soft - FD_RESERVE, 32)
        finally:
            await server.stop(None)

    asyncio.run(main())


def test_a_second_server_on_a_port_in_use_is_refused() -> None:
    # Without SO_REUSEPORT off, grpc let both listen, and the kernel shared the
    # connections between them (a restart beside a frozen old start).
    async def main() -> None:
        server, port = await create_server("127.0.0.1:0")
        try:
            with pytest.raises(RuntimeError, match="cannot listen"):
                await create_server(f"127.0.0.1:{port}")
            assert await _check(port) == health_pb2.HealthCheckResponse.SERVING
        finally:
            await server.stop(None)

    asyncio.run(main())


def test_serve_raises_the_open_files_limit_to_the_hard_limit() -> None:
    program = textwrap.dedent(
        """
        import resource
        from botarena.server.service import raise_open_files_limit
        soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
        resource.setrlimit(resource.RLIMIT_NOFILE, (min(256, hard), hard))
        print(raise_open_files_limit(), resource.getrlimit(resource.RLIMIT_NOFILE)[0], hard)
        """
    )
    output = subprocess.run(
        [sys.executable, "-c", program], capture_output=True, text=True, check=True, timeout=60
    ).stdout
    returned, soft, hard = map(int, output.split())
    assert returned == soft == hard


# A server whose open-files limit is cut below what it holds once it serves: every
# accept on its web port then fails (EMFILE), as when connections had taken every
# descriptor. It logs as ``botarena serve`` does.
_STORM_SERVER = textwrap.dedent(
    """
    import asyncio, json, logging, os, resource, sys
    from botarena.server.service import configure_logging, create_server

    async def main():
        configure_logging(level=logging.INFO, json=True)
        server, port = await create_server("127.0.0.1:0", http_address=("127.0.0.1", 0))
        hard = resource.getrlimit(resource.RLIMIT_NOFILE)[1]
        resource.setrlimit(resource.RLIMIT_NOFILE, (len(os.listdir("/proc/self/fd")), hard))
        print(json.dumps({"web_port": server.web.port}), flush=True)
        await asyncio.get_running_loop().run_in_executor(None, sys.stdin.readline)
        resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))
        await server.stop(None)

    asyncio.run(main())
    """
)


def test_an_accept_error_storm_logs_a_bounded_few_lines() -> None:
    process = subprocess.Popen(
        [sys.executable, "-c", _STORM_SERVER],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    connections: list[socket.socket] = []
    try:
        assert process.stdout is not None
        port = None
        for line in process.stdout:
            if line.startswith('{"web_port"'):
                port = json.loads(line)["web_port"]
                break
        assert port is not None, "the storm server did not start"
        end = time.monotonic() + 3.0
        while time.monotonic() < end:  # asyncio retries a failed accept once a second
            try:
                connections.append(socket.create_connection(("127.0.0.1", port), timeout=0.2))
            except OSError:
                time.sleep(0.01)
        output, _ = process.communicate("stop\n", timeout=60)
    finally:
        process.kill()
        for connection in connections:
            connection.close()
    storm = [line for line in output.splitlines() if "out of system resource" in line]
    # The storm happened (asyncio logs every failed accept) and was cut to the burst.
    assert 1 <= len(storm) <= LOG_BURST
    assert len(output) < 64 * 1024


def _serve(data_home: str, *args: str) -> subprocess.Popen[str]:
    """``botarena serve`` on a free port, its soft open-files limit lowered to 1024."""
    hard = resource.getrlimit(resource.RLIMIT_NOFILE)[1]
    return subprocess.Popen(
        [
            sys.executable,
            "-c",
            "from botarena.clients.cli import main; raise SystemExit(main())",
            "serve",
            "--port",
            "0",
            "--log-format",
            "json",
            "--db",
            ":memory:",
            *args,
        ],
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        env={**os.environ, "XDG_DATA_HOME": data_home},
        preexec_fn=lambda: resource.setrlimit(resource.RLIMIT_NOFILE, (min(1024, hard), hard)),
    )


def _serving(process: subprocess.Popen[str]) -> dict[str, Any]:
    assert process.stdout is not None
    seen = []
    for line in process.stdout:
        seen.append(line)
        if line.startswith('{"') and json.loads(line).get("event") == "serving":
            return dict(json.loads(line))
    raise AssertionError("the server did not start:\n" + "".join(seen))


def test_serve_raises_its_limit_and_takes_the_connection_flags(tmp_path: Path) -> None:
    hard = resource.getrlimit(resource.RLIMIT_NOFILE)[1]
    with _serve(str(tmp_path), "--handshake-timeout", "0.5", "--max-connections", "7") as process:
        try:
            serving = _serving(process)
            assert serving["open_files"] == hard
            assert serving["max_connections"] == 7

            async def silent() -> float:
                start = time.monotonic()
                reader, writer = await _open(int(serving["port"]))
                try:
                    return await _closed_after(reader, start, 20.0)
                finally:
                    writer.close()

            assert asyncio.run(silent()) >= 0.4
            process.send_signal(signal.SIGTERM)
            process.communicate(timeout=30)
        finally:
            process.kill()
    assert process.returncode == 0


def test_serve_keeps_the_reserve_from_its_default_cap(tmp_path: Path) -> None:
    with _serve(str(tmp_path)) as process:
        try:
            serving = _serving(process)
            process.send_signal(signal.SIGTERM)
            process.communicate(timeout=30)
        finally:
            process.kill()
    assert serving["max_connections"] == serving["open_files"] - FD_RESERVE
