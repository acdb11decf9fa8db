# mypy: disable-error-code="import-untyped"
"""Benchmark connection limits: do silent connections from one peer leave the server
answering new bots from another?

Usage: ``python bench/bench_connections.py [--connections 19900] [--seconds 30]
[--half-preface 0.5] [--handshake-timeout 10] [--reopen] [--web]``

A server (``create_server`` with the defaults ``botarena serve`` has, its open-files
limit raised as ``serve`` raises it) runs in a child process on 127.0.0.1 and, on the
same port, [::1] (or a Unix socket): two peers (bench_flood.py says why not 127.0.0.2).
A canary on 127.0.0.1 plays rounds as bench_flood's does (create a Qwirkle match, get
the view, submit a move; resign untimed) on a new connection each round (a new bot's
connect and handshake are timed too), for 10 s alone and again for ``--seconds`` while
a flood client on the other address opens ``--connections`` connections as fast as it
can and holds them: they send nothing or, a ``--half-preface`` share of them, half the
HTTP/2 preface. With ``--reopen`` it opens a new one whenever the server closes one, for
the whole flood. Then it stops and, after the handshake timeout and 3 s, counts the
connections the server still holds. With ``--web`` the server also serves its web UI and
the flood, from 127.0.0.2, holds slow-header requests on the web port instead (a request
line and one header, never their end) while the canary plays through gRPC.

Prints the canary's p50/p99/max alone and under the flood (and their p99 ratio), the
flood's connections opened, refused and closed by the server, the server's most and last
open descriptors, its loop's lateness and CPU seconds. Target (issue 26): canary p99
under 100 ms, no silent connection held after the timeouts. Never a test.
``BENCH_WATCHDOG=<s>`` dumps the stacks and exits if a run takes longer than that.
"""

from __future__ import annotations

import argparse
import asyncio
import collections
import contextlib
import errno
import faulthandler
import json
import logging
import os
import resource
import select
import socket
import subprocess
import sys
import time
from collections.abc import Sequence
from typing import Any

# Before grpc loads: its C core logs each GOAWAY of a stopped server at INFO otherwise.
os.environ.setdefault("GRPC_VERBOSITY", "ERROR")

import grpc
from bench_flood import _canary_line, _child, _line, _percentile, _reason, _second_address, _Stalls
from bench_flood import _canary_round as _play_round

from botarena.server.service import (
    HANDSHAKE_TIMEOUT,
    MAX_CONNECTIONS_PER_PEER,
    configure_logging,
    create_server,
    raise_open_files_limit,
)
from botarena.v1 import match_service_pb2_grpc

_BASELINE_SECONDS = 10.0
_CANARY_PERIOD = 0.1
_AFTER_TIMEOUTS = 3.0
_CONNECT_DEADLINE = 30.0
# The flood's source ports: below Linux's ephemeral range (32768-60999), so the canary's
# and everything else's connects never compete with them.
_FIRST_SOURCE_PORT = 2_000
_SOURCE_PORTS = 30_000
_HALF_PREFACE = b"PRI * HTTP/2.0\r\n"
_SLOW_HEADERS = b"GET / HTTP/1.1\r\nHost: botarena\r\n"
# A new subchannel per channel: every canary round connects anew.
_FRESH_CONNECTION = (("grpc.use_local_subchannel_pool", 1),)


# ---------------------------------------------------------------------- server child


async def _serve(args: argparse.Namespace) -> None:
    configure_logging(level=logging.WARNING, json=True)
    open_files = raise_open_files_limit()
    web: dict[str, Any] = {}
    if args.web:
        from botarena.server.service.web import WebSettings

        web = {
            "http_address": ("127.0.0.1", 0),
            "http_settings": WebSettings(handshake_timeout=args.handshake_timeout),
        }
    server, port = await create_server(
        ["127.0.0.1:0", args.second],
        handshake_timeout=args.handshake_timeout,
        max_connections_per_peer=args.max_connections_per_peer,
        **web,
    )
    second = args.second.replace(":0", f":{port}")
    if args.web:  # the flood's target: the web port, from another loopback address
        second = f"127.0.0.1:{server.web.port}"
    print(
        json.dumps(
            {
                "port": port,
                "second": second,
                "open_files": open_files,
                "max_connections": server.max_connections,
            }
        ),
        flush=True,
    )
    stalls = _Stalls()
    descriptors: list[int] = []

    async def count() -> None:
        while True:
            descriptors.append(len(await asyncio.to_thread(os.listdir, "/proc/self/fd")))
            await asyncio.sleep(0.5)

    counter = asyncio.create_task(count())
    loop = asyncio.get_running_loop()
    await loop.run_in_executor(None, sys.stdin.readline)  # the parent says when to stop
    counter.cancel()
    usage = resource.getrusage(resource.RUSAGE_SELF)
    last = len(os.listdir("/proc/self/fd"))
    stats = {
        "cpu_seconds": usage.ru_utime + usage.ru_stime,
        "fds_max": max(descriptors, default=last),
        "fds_last": last,
        **stalls.stop(),
    }
    print(json.dumps(stats), flush=True)
    await server.stop(None)


# ---------------------------------------------------------------------- flood child


class _Flood:
    """Silent connections to ``target`` (``host:port``, ``[v6]:port`` or ``unix:path``)
    held in one epoll set; a closed one is reopened while ``reopen`` is set."""

    def __init__(
        self, target: str, connections: int, half_preface: float, web: bool = False
    ) -> None:
        # A web flood comes from 127.0.0.2 (bound explicitly: another peer than the
        # canary's 127.0.0.1) and sends a request's first line, its headers never ending.
        self.payload = _SLOW_HEADERS if web else _HALF_PREFACE
        self.source = "127.0.0.2" if web else None
        if target.startswith("unix:"):
            self.family, self.address = socket.AF_UNIX, target[5:]
        else:
            host, _, port = target.rpartition(":")
            self.family = socket.AF_INET6 if host.startswith("[") else socket.AF_INET
            self.address = (host.strip("[]"), int(port))  # type: ignore[assignment]
        self.wanted = connections
        self.half_every = round(1 / half_preface) if half_preface > 0 else 0
        self.poll = select.epoll()
        self.open: dict[int, socket.socket] = {}
        self.unsent: set[int] = set()
        self.counts: collections.Counter[str] = collections.Counter()
        self.source_port = 0

    def open_one(self) -> None:
        sock = socket.socket(self.family, socket.SOCK_STREAM)
        sock.setblocking(False)
        if self.family != socket.AF_UNIX:
            self._bind(sock)
        code = sock.connect_ex(self.address)
        if code not in (0, errno.EINPROGRESS, errno.EAGAIN):
            sock.close()
            self.counts["refused"] += 1
            return
        self.counts["opened"] += 1
        fd = sock.fileno()
        self.open[fd] = sock
        mask = select.EPOLLIN | select.EPOLLRDHUP
        if self.half_every and self.counts["opened"] % self.half_every == 0:
            self.unsent.add(fd)
            mask |= select.EPOLLOUT
        self.poll.register(fd, mask)

    def _bind(self, sock: socket.socket) -> None:
        """Bind the next free source port of our own range: with ~20,000 connections to
        one address, the kernel's search for a free ephemeral port took milliseconds a
        connect, and the flood crawled at ~250 a second."""
        for _ in range(_SOURCE_PORTS):
            self.source_port = (self.source_port + 1) % _SOURCE_PORTS
            try:
                source = self.source or self.address[0]
                sock.bind((source, _FIRST_SOURCE_PORT + self.source_port))
                return
            except OSError:  # in use
                continue

    def connected(self) -> int:
        """The open connections the server has taken (a connect whose SYN it dropped,
        its backlog full, still waits for a retransmission)."""
        count = 0
        for sock in self.open.values():
            try:
                sock.getpeername()
            except OSError:  # not connected (yet)
                continue
            count += 1
        return count

    def step(self, reopen: bool, timeout: float) -> None:
        while reopen and len(self.open) < self.wanted:
            self.open_one()
            if self.counts["opened"] % 500 == 0:
                break  # take the events between batches
        for fd, events in self.poll.poll(timeout):
            sock = self.open[fd]
            if fd in self.unsent and events & select.EPOLLOUT:
                self.unsent.discard(fd)
                self.poll.modify(fd, select.EPOLLIN | select.EPOLLRDHUP)
                with contextlib.suppress(OSError):
                    sock.send(self.payload)
            if events & (select.EPOLLIN | select.EPOLLRDHUP | select.EPOLLHUP | select.EPOLLERR):
                try:
                    closed = events & (select.EPOLLHUP | select.EPOLLERR) or not sock.recv(4096)
                except BlockingIOError:
                    closed = False
                except OSError:
                    closed = True
                if closed:
                    self.poll.unregister(fd)
                    self.unsent.discard(fd)
                    del self.open[fd]
                    sock.close()
                    self.counts["closed_by_server"] += 1


def _flood(args: argparse.Namespace) -> None:
    _, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))
    flood = _Flood(args.target, min(args.connections, hard - 100), args.half_preface, args.web)
    end = time.monotonic() + args.seconds
    most = 0
    opened = False
    while time.monotonic() < end:
        flood.step(reopen=args.reopen or not opened, timeout=0.01)
        opened = opened or flood.counts["opened"] >= flood.wanted
        most = max(most, len(flood.open))
    at_end = flood.connected()
    settle = time.monotonic() + args.handshake_timeout + _AFTER_TIMEOUTS
    while time.monotonic() < settle:
        flood.step(reopen=False, timeout=0.1)
    print(
        json.dumps(
            {
                **flood.counts,
                "wanted": flood.wanted,
                "most_open": most,
                "open_at_end": at_end,
                "open_after_timeouts": flood.connected(),
                "connecting_after_timeouts": len(flood.open) - flood.connected(),
            }
        ),
        flush=True,
    )
    for sock in flood.open.values():
        sock.close()


# ---------------------------------------------------------------------- canary


_Canary = tuple[list[float], collections.Counter[str], list[float]]


async def _canary(port: int, seconds: float) -> _Canary:
    """Rounds on a new connection each, paced at 10 a second, for ``seconds``; return
    the rounds' latencies, their failures and the connects' latencies."""
    latencies: list[float] = []
    connects: list[float] = []
    failures: collections.Counter[str] = collections.Counter()
    end = time.monotonic() + seconds
    while (now := time.monotonic()) < end:
        start = time.perf_counter()
        try:
            async with grpc.aio.insecure_channel(
                f"127.0.0.1:{port}", options=_FRESH_CONNECTION
            ) as channel:
                await asyncio.wait_for(channel.channel_ready(), _CONNECT_DEADLINE)
                connects.append(time.perf_counter() - start)
                await _play_round(match_service_pb2_grpc.MatchServiceStub(channel))
            latencies.append(time.perf_counter() - start)
        except grpc.aio.AioRpcError as error:
            failures[_reason(error)] += 1
        except TimeoutError:
            failures["not connected in 30 s"] += 1
        await asyncio.sleep(max(0.0, now + _CANARY_PERIOD - time.monotonic()))
    return latencies, failures, connects


def _canary_lines(name: str, canary: _Canary) -> str:
    latencies, failures, connects = canary
    ms = [value * 1000 for value in connects]
    return (
        _canary_line(name, latencies, failures)
        + f"\n    of which connecting: p50 {_percentile(ms, 0.5):7.1f} ms  "
        f"p99 {_percentile(ms, 0.99):7.1f} ms  max {max(ms, default=0.0):7.1f} ms"
    )


# ---------------------------------------------------------------------- parent


def _result(process: subprocess.Popen[str], key: str) -> dict[str, Any]:
    """The child's next line that holds ``key`` (the server's warnings come between)."""
    while key not in (line := _line(process)):
        pass
    return line


def _run(args: argparse.Namespace) -> None:
    server = _child(
        "server",
        "--second",
        _second_address(),
        "--handshake-timeout",
        str(args.handshake_timeout),
        "--max-connections-per-peer",
        str(args.max_connections_per_peer),
        *(["--web"] if args.web else []),
        script=__file__,
    )
    try:
        started = _result(server, "port")
        print(
            f"server on 127.0.0.1:{started['port']} and {started['second']}: open-files limit "
            f"{started['open_files']}, gRPC port cap {started['max_connections']}, per peer "
            f"{args.max_connections_per_peer or 'none'}, "
            f"handshake timeout {args.handshake_timeout:g} s ({os.cpu_count()} cores)"
        )
        baseline = asyncio.run(_canary(started["port"], _BASELINE_SECONDS))
        flooder = _child(
            "flood",
            "--target",
            started["second"],
            "--seconds",
            str(args.seconds),
            "--connections",
            str(args.connections),
            "--half-preface",
            str(args.half_preface),
            "--handshake-timeout",
            str(args.handshake_timeout),
            *(["--reopen"] if args.reopen else []),
            *(["--web"] if args.web else []),
            script=__file__,
        )
        flooded = asyncio.run(_canary(started["port"], args.seconds))
        flood = _result(flooder, "wanted")
        flooder.wait(timeout=60)
        assert server.stdin is not None
        server.stdin.write("stop\n")
        server.stdin.flush()
        stats = _result(server, "cpu_seconds")
        server.wait(timeout=30)
    finally:
        server.kill()
    print(
        f"flood from {started['second']}: {flood['wanted']} connections wanted for "
        f"{args.seconds:g} s ({args.half_preface:.0%} with "
        f"{'a request line' if args.web else 'half a preface'}, "
        f"{'reopened' if args.reopen else 'not reopened'} once closed): "
        f"{flood.get('opened', 0)} opened, {flood.get('refused', 0)} refused at connect, "
        f"{flood.get('closed_by_server', 0)} closed by the server; most open at once "
        f"{flood['most_open']}; connected as the flood sees it at its end "
        f"{flood['open_at_end']}, {args.handshake_timeout + _AFTER_TIMEOUTS:g} s later "
        f"{flood['open_after_timeouts']} (a silent one whose handshake ACK the server's "
        "full accept queue dropped looks connected and holds nothing of the server's: see "
        f"its descriptors below), {flood['connecting_after_timeouts']} connects still "
        "waiting for a SYN retransmission"
    )
    print(_canary_lines("alone", baseline))
    print(_canary_lines("under flood", flooded))
    alone, under = (_percentile(rounds[0], 0.99) for rounds in (baseline, flooded))
    if alone:
        print(f"  canary p99 under flood / alone: {under / alone:.2f}")
    print(
        f"server: {stats['cpu_seconds']:.1f} CPU seconds in all; open descriptors at most "
        f"{stats['fds_max']}, {stats['fds_last']} at the end; its loop ran a 10 ms timer late "
        f"by {stats['lag_p99_ms']:.1f} ms p99, {stats['lag_max_ms']:.1f} ms at most"
    )


def main(argv: Sequence[str] | None = None) -> None:
    """Run the benchmark, or one child process's part of it."""
    faulthandler.dump_traceback_later(float(os.environ.get("BENCH_WATCHDOG", "1e9")), exit=True)
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument(
        "--connections", type=int, default=19_900, help="silent connections the flood holds"
    )
    parser.add_argument("--seconds", type=float, default=30.0, help="how long the flood lasts")
    parser.add_argument(
        "--half-preface", type=float, default=0.5, help="share sending half the preface"
    )
    parser.add_argument(
        "--handshake-timeout",
        type=float,
        default=HANDSHAKE_TIMEOUT,
        help="the server's (default %(default)s s, serve's)",
    )
    parser.add_argument(
        "--max-connections-per-peer",
        type=int,
        default=MAX_CONNECTIONS_PER_PEER,
        help="the server's per-peer cap on the gRPC port (default %(default)s, serve's; 0: none)",
    )
    parser.add_argument(
        "--web",
        action="store_true",
        help="flood the web port from 127.0.0.2 with slow headers instead (the canary "
        "still plays through gRPC)",
    )
    parser.add_argument(
        "--reopen",
        action="store_true",
        help="reopen every connection the server closes while the flood lasts",
    )
    # A child process's part.
    parser.add_argument("--role", choices=("server", "flood"), help=argparse.SUPPRESS)
    parser.add_argument("--target", help=argparse.SUPPRESS)
    parser.add_argument("--second", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.role == "server":
        asyncio.run(_serve(args))
    elif args.role == "flood":
        _flood(args)
    else:
        _run(args)


if __name__ == "__main__":
    main()
