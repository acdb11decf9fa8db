# mypy: disable-error-code="import-untyped"
"""The web port's connections cannot exhaust the server (issue 26): one that sends no
request's headers in time is closed, so is one idle after its request, and a peer past
its cap is refused while another peer is served. Real sockets on 127.0.0.1."""

from __future__ import annotations

import socket
import time
import urllib.parse

import grpc
from grpc_health.v1 import health_pb2, health_pb2_grpc

from botarena.server.service.web import WebSettings

from .conftest import WebServer, serve_web


def _address(server: WebServer) -> tuple[str, int]:
    url = urllib.parse.urlsplit(server.url)
    assert url.hostname is not None
    assert url.port is not None
    return url.hostname, url.port


def _connect(server: WebServer, source: str = "127.0.0.1") -> socket.socket:
    return socket.create_connection(_address(server), timeout=20, source_address=(source, 0))


def _closed_after(connection: socket.socket, start: float) -> float:
    """Read until the server closes ``connection``; return the seconds from ``start``."""
    try:
        while connection.recv(4096):
            pass
    except ConnectionResetError:
        pass
    return time.monotonic() - start


def _answers(server: WebServer, source: str) -> bool:
    with _connect(server, source) as connection:
        connection.sendall(b"GET /favicon.ico HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
        return connection.recv(64).startswith(b"HTTP/1.1 204")


def test_silent_and_slow_header_connections_are_closed_after_the_handshake_timeout() -> None:
    settings = WebSettings(handshake_timeout=0.5, idle_timeout=60.0)
    with serve_web(http_settings=settings) as server:
        start = time.monotonic()
        silent = _connect(server)
        slow = _connect(server)
        slow.sendall(b"GET / HTTP/1.1\r\n")
        # A header line every 0.1 s: the headers never end, and never stop coming.
        deadline = start + 20.0
        slow.setblocking(False)
        while time.monotonic() < deadline:
            try:
                slow.sendall(b"X-Slow: 1\r\n")
                if slow.recv(1) == b"":
                    break
            except BlockingIOError:
                pass
            except OSError:
                break
            time.sleep(0.1)
        slow_held = time.monotonic() - start
        silent_held = _closed_after(silent, start)
        assert 0.4 <= slow_held < 20.0
        assert 0.4 <= silent_held < 20.0
        assert server.web.connections.timed_out == 2
        silent.close()
        slow.close()
        assert _answers(server, "127.0.0.1")


def test_a_connection_idle_after_its_request_is_closed_after_the_idle_timeout() -> None:
    settings = WebSettings(handshake_timeout=60.0, idle_timeout=0.5)
    with serve_web(http_settings=settings) as server, _connect(server) as connection:
        connection.sendall(b"GET /favicon.ico HTTP/1.1\r\nHost: x\r\n\r\n")
        assert connection.recv(64).startswith(b"HTTP/1.1 204")
        start = time.monotonic()
        assert 0.4 <= _closed_after(connection, start) < 20.0


def test_a_peer_past_its_cap_is_refused_while_another_peer_is_served() -> None:
    settings = WebSettings(handshake_timeout=60.0, max_connections_per_peer=3)
    with serve_web(http_settings=settings) as server:
        held = [_connect(server, "127.0.0.2") for _ in range(3)]
        start = time.monotonic()
        past = _connect(server, "127.0.0.2")
        # Aborted as it is accepted, long before its handshake timeout.
        assert _closed_after(past, start) < 30.0
        assert server.web.connections.refused == 1
        assert _answers(server, "127.0.0.1")
        assert server.web.connections.by_peer["127.0.0.2"] == 3
        for connection in [*held, past]:
            connection.close()


def test_connections_past_the_ports_cap_are_refused_and_grpc_still_answers() -> None:
    settings = WebSettings(handshake_timeout=60.0, max_connections=2)
    with serve_web(http_settings=settings) as server:
        held = [_connect(server, "127.0.0.2"), _connect(server, "127.0.0.3")]
        start = time.monotonic()
        past = _connect(server, "127.0.0.4")
        assert _closed_after(past, start) < 30.0
        assert server.web.connections.refused == 1
        # A full web port leaves the gRPC port its own descriptors: a bot still calls.
        with grpc.insecure_channel(server.address) as channel:
            reply = health_pb2_grpc.HealthStub(channel).Check(
                health_pb2.HealthCheckRequest(), timeout=20
            )
        assert reply.status == health_pb2.HealthCheckResponse.SERVING
        for connection in [*held, past]:
            connection.close()
        deadline = time.monotonic() + 20.0
        while server.web.connections.open and time.monotonic() < deadline:
            time.sleep(0.05)
        assert _answers(server, "127.0.0.1")
