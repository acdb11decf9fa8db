# mypy: disable-error-code="import-untyped"
"""Benchmark the match server against a raw grpc.aio echo, and hold many idle matches.

Usage: ``python bench/bench_server.py [--hops N] [--matches M]``

Part 1, in one process on 127.0.0.1: the round trip of a move through the server (seat A
calls SubmitMove; the time until seat B's stream delivers its DecisionRequested) against
a raw grpc.aio echo that moves the same bytes the same way: a unary call with the sizes of
SubmitMoveRequest/Response, and pushes onto two server streams with the sizes of the
events the server sends (MoveApplied to both seats, DecisionRequested to B). The engine's
own time (every Rules call the server makes) is measured apart and excluded from the
ratio; both are printed.

Part 2: a server in a child process holds ``--matches`` Qwirkle matches whose two seats
each keep an event stream open and never move on their own. It prints the server's
resident memory per match, and the p50/p99 latency of turn dispatch (submit -> next
seat's DecisionRequested) while all of them are held.

Timings on a shared machine are noisy: read the ratios. Never a test. ``BENCH_WATCHDOG=<s>``
dumps the stacks and exits if a run takes longer than that.
"""

from __future__ import annotations

import argparse
import asyncio
import logging
import os
import statistics
import subprocess
import sys
import time
from collections.abc import AsyncIterator, Callable, Sequence
from typing import Any

import grpc

from botarena.server.games.qwirkle import QWIRKLE
from botarena.server.match import MatchManager
from botarena.server.service import configure_logging, create_server
from botarena.v1 import match_pb2, match_service_pb2, match_service_pb2_grpc


class TimedRules:
    """Wraps an engine and adds up the time spent in it."""

    def __init__(self, rules: Any) -> None:
        self._rules = rules
        self.seconds = 0.0

    def __getattr__(self, name: str) -> Any:
        attribute = getattr(self._rules, name)
        if not callable(attribute):
            return attribute

        def timed(*args: Any, **kwargs: Any) -> Any:
            started = time.perf_counter()
            try:
                return attribute(*args, **kwargs)
            finally:
                self.seconds += time.perf_counter() - started

        return timed


def _bearer(token: str) -> tuple[tuple[str, str], ...]:
    return (("authorization", f"Bearer {token}"),)


def _first_place(moves: Sequence[match_pb2.Move]) -> match_pb2.Move:
    for move in moves:
        if move.qwirkle.WhichOneof("action") == "place":
            return move
    return moves[0]


def _percentile(values: Sequence[float], fraction: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(fraction * len(ordered)))]


# --------------------------------------------------------------------------- part 1


async def _server_round_trips(hops: int) -> tuple[list[float], float, dict[str, float]]:
    rules = TimedRules(QWIRKLE)
    manager = MatchManager(games=lambda name: rules)
    server, port = await create_server("127.0.0.1:0", manager=manager)
    samples: list[float] = []
    sizes: dict[str, list[int]] = {"request": [], "response": [], "applied": [], "decision": []}
    async with grpc.aio.insecure_channel(f"127.0.0.1:{port}") as channel:
        stub = match_service_pb2_grpc.MatchServiceStub(channel)
        seed = 0
        while len(samples) < hops:
            seed += 1
            created = await stub.CreateMatch(
                match_service_pb2.CreateMatchRequest(
                    config=match_pb2.MatchConfig(game=match_pb2.GAME_QWIRKLE, seed=seed)
                )
            )
            name = created.match.name
            tokens = [seat.token for seat in created.seat_tokens]
            events: asyncio.Queue[tuple[float, Any]] = asyncio.Queue()

            async def pump(
                seat: int,
                name: str = name,
                tokens: list[str] = tokens,
                events: asyncio.Queue[tuple[float, Any]] = events,
            ) -> None:
                request = match_service_pb2.StreamMatchEventsRequest(match=name)
                metadata = _bearer(tokens[seat])
                async for response in stub.StreamMatchEvents(request, metadata=metadata):
                    kind = response.event.WhichOneof("kind")
                    if kind == "decision_requested":
                        sizes["decision"].append(response.ByteSize())
                    elif kind == "move_applied":
                        sizes["applied"].append(response.ByteSize())
                    await events.put((time.perf_counter(), response.event))

            pumps = [asyncio.create_task(pump(seat)) for seat in (0, 1)]
            submitted_at: float | None = None
            while len(samples) < hops:
                arrived, event = await events.get()
                kind = event.WhichOneof("kind")
                if kind == "match_finished":
                    break
                if kind != "decision_requested":
                    continue
                if submitted_at is not None:
                    samples.append(arrived - submitted_at)
                seat = event.decision_requested.decision.seat
                move = _first_place(event.decision_requested.legal_moves)
                request = match_service_pb2.SubmitMoveRequest(
                    match=name, move=move, expected_state_version=event.state_version
                )
                sizes["request"].append(request.ByteSize())
                submitted_at = time.perf_counter()
                response = await stub.SubmitMove(request, metadata=_bearer(tokens[seat]))
                sizes["response"].append(response.ByteSize())
            for task in pumps:
                task.cancel()
            await asyncio.gather(*pumps, return_exceptions=True)
    await server.stop(None)
    mean_sizes = {key: statistics.fmean(values) for key, values in sizes.items()}
    engine_per_hop = rules.seconds / max(1, len(samples))
    return samples, engine_per_hop, mean_sizes


def _echo_handler(sizes: dict[str, float]) -> Any:
    streams: dict[int, asyncio.Queue[bytes | None]] = {}
    applied = b"a" * int(sizes["applied"])
    decision = b"d" * int(sizes["decision"])
    reply = b"r" * int(sizes["response"])

    async def submit(request: bytes, context: Any) -> bytes:
        # The mover's stream gets the applied move; the next seat's the move and its turn.
        streams[0].put_nowait(applied)
        streams[1].put_nowait(applied)
        streams[1].put_nowait(decision)
        return reply

    async def stream(request: bytes, context: Any) -> AsyncIterator[bytes]:
        queue: asyncio.Queue[bytes | None] = asyncio.Queue()
        streams[int(request)] = queue  # the request says which seat's stream this is
        while (item := await queue.get()) is not None:
            yield item

    identity: Callable[[bytes], bytes] = lambda data: data  # noqa: E731
    return grpc.method_handlers_generic_handler(
        "bench.Echo",
        {
            "Submit": grpc.unary_unary_rpc_method_handler(
                submit, request_deserializer=identity, response_serializer=identity
            ),
            "Stream": grpc.unary_stream_rpc_method_handler(
                stream, request_deserializer=identity, response_serializer=identity
            ),
        },
    )


async def _echo_round_trips(hops: int, sizes: dict[str, float]) -> list[float]:
    server = grpc.aio.server()
    server.add_generic_rpc_handlers((_echo_handler(sizes),))
    port = server.add_insecure_port("127.0.0.1:0")
    await server.start()
    identity: Callable[[bytes], bytes] = lambda data: data  # noqa: E731
    samples: list[float] = []
    async with grpc.aio.insecure_channel(f"127.0.0.1:{port}") as channel:
        submit = channel.unary_unary(
            "/bench.Echo/Submit", request_serializer=identity, response_deserializer=identity
        )
        open_stream = channel.unary_stream(
            "/bench.Echo/Stream", request_serializer=identity, response_deserializer=identity
        )
        mover = open_stream(b"0")
        waiter = open_stream(b"1")
        await asyncio.sleep(0.05)  # both streams registered
        payload = b"q" * int(sizes["request"])
        mover_messages = mover.__aiter__()
        waiter_messages = waiter.__aiter__()
        for _ in range(hops):
            started = time.perf_counter()
            await submit(payload)
            await mover_messages.__anext__()
            await waiter_messages.__anext__()
            await waiter_messages.__anext__()
            samples.append(time.perf_counter() - started)
        mover.cancel()
        waiter.cancel()
    await server.stop(None)
    return samples


# --------------------------------------------------------------------------- part 2


_MATCHES_PER_CHANNEL = 50


def _progress(text: str) -> None:
    print(f"  .. {text}", file=sys.stderr, flush=True)


def _rss_kib(pid: int) -> int:
    with open(f"/proc/{pid}/status") as status:
        for line in status:
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    raise RuntimeError("no VmRSS")


async def _hold_matches(count: int) -> None:
    command = (
        "import logging;"
        "from botarena.clients.cli import main;"
        "raise SystemExit(main(['serve', '--port', '0', '--log-format', 'json',"
        " '--log-level', 'warning']))"
    )
    # --log-level warning hides the 'serving' line, so find the port another way: bind a
    # port here first, free it, and hand it to the child.
    import socket

    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    command = command.replace("'0'", f"'{port}'")
    child = subprocess.Popen([sys.executable, "-c", command], stdout=subprocess.DEVNULL)
    try:
        target = f"127.0.0.1:{port}"
        async with grpc.aio.insecure_channel(target) as channel:
            await channel.channel_ready()
            stub = match_service_pb2_grpc.MatchServiceStub(channel)
            rss_empty = _rss_kib(child.pid)
            config = match_pb2.MatchConfig(game=match_pb2.GAME_QWIRKLE)
            config.time_control.move_time_limit.FromSeconds(3600)
            created = []
            for start in range(0, count, 100):
                created += await asyncio.gather(
                    *(
                        stub.CreateMatch(match_service_pb2.CreateMatchRequest(config=config))
                        for _ in range(start, min(count, start + 100))
                    )
                )
            rss_created = _rss_kib(child.pid)
            _progress(f"created {len(created)} matches")
            decisions: dict[tuple[str, int], asyncio.Queue[tuple[float, Any]]] = {}

            async def follow(stream_stub: Any, name: str, seat: int, token: str) -> None:
                queue = decisions.setdefault((name, seat), asyncio.Queue())
                request = match_service_pb2.StreamMatchEventsRequest(match=name)
                metadata = _bearer(token)
                async for response in stream_stub.StreamMatchEvents(request, metadata=metadata):
                    opened[(name, seat)].set()
                    if response.event.WhichOneof("kind") == "decision_requested":
                        await queue.put((time.perf_counter(), response.event))

            # One connection per 50 matches, as bots connect on their own: a single HTTP/2
            # connection caps its concurrent streams.
            channels = [
                grpc.aio.insecure_channel(target) for _ in range(0, count, _MATCHES_PER_CHANNEL)
            ]
            stubs = [match_service_pb2_grpc.MatchServiceStub(ch) for ch in channels]
            opened: dict[tuple[str, int], asyncio.Event] = {}
            streams: list[asyncio.Task[None]] = []
            # Open the streams in batches, waiting for each batch's first events: a burst
            # of thousands of call starts in one grpc.aio client process leaves some
            # calls unstarted (seen with a plain echo server too).
            for start in range(0, count, _MATCHES_PER_CHANNEL):
                batch = list(enumerate(created))[start : start + _MATCHES_PER_CHANNEL]
                for index, match in batch:
                    for seat in match.seat_tokens:
                        opened[(match.match.name, seat.seat)] = asyncio.Event()
                        streams.append(
                            asyncio.create_task(
                                follow(
                                    stubs[index // _MATCHES_PER_CHANNEL],
                                    match.match.name,
                                    seat.seat,
                                    seat.token,
                                )
                            )
                        )
                for _, match in batch:
                    for seat in match.seat_tokens:
                        await opened[(match.match.name, seat.seat)].wait()
            # Every match's first decision has arrived: all streams are open and idle.
            first: dict[str, tuple[int, Any]] = {}
            for match in created:
                name = match.match.name
                while name not in first:
                    for seat in (0, 1):
                        queue = decisions.get((name, seat))
                        if queue is not None and not queue.empty():
                            first[name] = (seat, (await queue.get())[1])
                    if name not in first:
                        await asyncio.sleep(0.001)
            _progress("every seat stream is open")
            await asyncio.sleep(0.5)
            rss_streams = _rss_kib(child.pid)
            latencies: list[float] = []
            for match in created:
                name = match.match.name
                seat, event = first[name]
                move = _first_place(event.decision_requested.legal_moves)
                started = time.perf_counter()
                await stub.SubmitMove(
                    match_service_pb2.SubmitMoveRequest(
                        match=name, move=move, expected_state_version=event.state_version
                    ),
                    metadata=_bearer(match.seat_tokens[seat].token),
                )
                arrived, _ = await decisions[(name, 1 - seat)].get()
                latencies.append(arrived - started)
            for task in streams:
                task.cancel()
            await asyncio.gather(*streams, return_exceptions=True)
            for channel_ in channels:
                await channel_.close()
    finally:
        child.terminate()
        child.wait(timeout=10)
    print(f"\n== {count} matches held by a server process, two idle seat streams each")
    print(f"server RSS empty             {rss_empty / 1024:8.1f} MiB")
    print(
        f"after creating the matches   {rss_created / 1024:8.1f} MiB"
        f"  ({(rss_created - rss_empty) / count:6.1f} KiB per match)"
    )
    print(
        f"with 2 open streams each     {rss_streams / 1024:8.1f} MiB"
        f"  ({(rss_streams - rss_empty) / count:6.1f} KiB per match, streams included)"
    )
    print(
        f"turn dispatch while held     p50 {1e3 * _percentile(latencies, 0.5):6.2f} ms"
        f"   p99 {1e3 * _percentile(latencies, 0.99):6.2f} ms"
        f"   max {1e3 * max(latencies):6.2f} ms   ({len(latencies)} turns)"
    )


# --------------------------------------------------------------------------- main


async def _main(hops: int, matches: int) -> None:
    server_samples, engine_per_hop, sizes = await _server_round_trips(hops)
    echo_samples = await _echo_round_trips(hops, sizes)
    server_median = statistics.median(server_samples)
    echo_median = statistics.median(echo_samples)
    server_without_engine = server_median - engine_per_hop
    print(f"== round trip of a move, {hops} hops each (median)")
    print(
        "message sizes (bytes): " + ", ".join(f"{key} {value:.0f}" for key, value in sizes.items())
    )
    print(f"raw grpc.aio echo            {1e6 * echo_median:8.0f} us")
    print(f"server, submit -> next turn  {1e6 * server_median:8.0f} us")
    print(f"  of which engine (mean)     {1e6 * engine_per_hop:8.0f} us")
    print(f"  server without engine      {1e6 * server_without_engine:8.0f} us")
    print(
        f"overhead over raw echo, engine excluded: "
        f"{100 * (server_without_engine / echo_median - 1):+.0f} %  (target <= +50 %)"
    )
    print(
        f"p99: echo {1e6 * _percentile(echo_samples, 0.99):.0f} us, "
        f"server {1e6 * _percentile(server_samples, 0.99):.0f} us"
    )
    if matches:
        await _hold_matches(matches)


def main() -> None:
    """Run the benchmark and print its numbers."""
    import faulthandler

    faulthandler.dump_traceback_later(float(os.environ.get("BENCH_WATCHDOG", "1e9")), exit=True)
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--hops", type=int, default=2000, help="round trips to time")
    parser.add_argument("--matches", type=int, default=1000, help="matches to hold; 0 skips")
    args = parser.parse_args()
    configure_logging(level=logging.WARNING, json=True)
    os.environ.setdefault("PYTHONHASHSEED", "0")
    asyncio.run(_main(args.hops, args.matches))


if __name__ == "__main__":
    main()
