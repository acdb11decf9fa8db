# mypy: disable-error-code="import-untyped"
"""Benchmark match throughput with no web page open, then with many live pages open.

Usage: ``python bench/bench_web.py [--matches M] [--pages N] [--rounds R]``

This process runs a server with its web UI (``create_server(http_address=...)``) and
plays ``--matches`` Qwirkle matches at once on it, random against random (the fastest
bots: the most events a second for the pages), through gRPC, with the bots on the
server's own loop: every cost the pages add lands on the loop the matches need. A child
process opens ``--pages`` event streams (``/matches/{id}/events``, as many live match
pages) spread over the matches and reads them to their ends with aiohttp. Each round
plays the matches once with no page and once with the pages open, and the bench prints
moves per second of each and their ratio (with pages / without), the median over the
rounds. Timings on a shared machine are noisy: read the ratio. Never a test.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import logging
import os
import statistics
import subprocess
import sys
import time

from google.protobuf import duration_pb2

from botarena.bots import RandomBot
from botarena.clients import AsyncMatchClient, run_bot_async
from botarena.server.service import configure_logging, create_server
from botarena.server.service.web import WebSettings
from botarena.v1 import match_pb2

_READER = r"""
import asyncio, json, sys
import aiohttp

async def read(session, url, connected):
    events = 0
    async with session.get(url) as response:
        assert response.status == 200, response.status
        connected.release()
        async for line in response.content:
            if line.startswith(b"event: "):
                events += 1
                if line.strip() == b"event: end":
                    break
    return events

async def main():
    urls = json.loads(sys.stdin.readline())
    connected = asyncio.Semaphore(0)
    timeout = aiohttp.ClientTimeout(total=None, sock_read=None)
    connector = aiohttp.TCPConnector(limit=0)
    async with aiohttp.ClientSession(timeout=timeout, connector=connector) as session:
        tasks = [asyncio.create_task(read(session, url, connected)) for url in urls]
        for _ in urls:
            await connected.acquire()
        print("connected", flush=True)
        counts = await asyncio.gather(*tasks)
    print(json.dumps({"events": sum(counts)}), flush=True)

asyncio.run(main())
"""


async def _play(address: str, web_url: str, matches: int, pages: int) -> tuple[int, float, int]:
    """Play ``matches`` matches at once with ``pages`` live pages open; return the moves
    played, the seconds they took and the events the pages read."""
    async with AsyncMatchClient(target=address) as client:
        tokens = []
        for index in range(matches):
            config = match_pb2.MatchConfig(game=match_pb2.GAME_QWIRKLE, seat_count=2, seed=index)
            config.time_control.move_time_limit.CopyFrom(duration_pb2.Duration(seconds=60))
            created = await client.create_match(config)
            tokens.append((created.match.name, [token.token for token in created.seat_tokens]))
        reader = None
        if pages:
            urls = [f"{web_url}{tokens[page % matches][0]}/events" for page in range(pages)]
            reader = subprocess.Popen(
                [sys.executable, "-c", _READER],
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                text=True,
            )
            assert reader.stdin is not None
            assert reader.stdout is not None
            reader.stdin.write(json.dumps(urls) + "\n")
            reader.stdin.flush()
            line = await asyncio.to_thread(reader.stdout.readline)
            assert line.strip() == "connected", line
        started = time.perf_counter()
        await asyncio.gather(
            *(
                run_bot_async(RandomBot(), server=client, token=token, match=name, seed=seat)
                for name, seats in tokens
                for seat, token in enumerate(seats)
            )
        )
        elapsed = time.perf_counter() - started
        moves = 0
        for name, _ in tokens:
            moves += (await client.get_match(name)).match.state_version
        events = 0
        if reader is not None:
            assert reader.stdout is not None
            result = await asyncio.to_thread(reader.stdout.readline)
            events = int(json.loads(result)["events"])
            reader.wait()
        return moves, elapsed, events


async def main(matches: int, pages: int, rounds: int) -> None:
    """Run the rounds and print the rates and their ratio."""
    server, port = await create_server(
        "127.0.0.1:0",
        http_address=("127.0.0.1", 0),
        http_settings=WebSettings(max_streams=max(pages, 1)),
        max_matches_per_caller=0,
        max_creates_per_minute=0,
    )
    web = server.web
    address = f"127.0.0.1:{port}"
    ratios = []
    try:
        for round_number in range(1, rounds + 1):
            alone = await _play(address, web.url, matches, 0)
            watched = await _play(address, web.url, matches, pages)
            rate_alone = alone[0] / alone[1]
            rate_watched = watched[0] / watched[1]
            ratios.append(rate_watched / rate_alone)
            print(
                f"round {round_number}: {matches} matches, no page {rate_alone:.0f} moves/s; "
                f"{pages} pages {rate_watched:.0f} moves/s ({watched[2]} events read, "
                f"{watched[2] / watched[1]:.0f}/s); ratio {ratios[-1]:.2f}",
                flush=True,
            )
    finally:
        await server.stop(1.0)
    print(
        f"median ratio (moves/s with {pages} live pages / with none): "
        f"{statistics.median(ratios):.2f} over {rounds} rounds"
    )


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--matches", type=int, default=10, help="matches at once (default 10)")
    parser.add_argument("--pages", type=int, default=100, help="live pages (default 100)")
    parser.add_argument("--rounds", type=int, default=3, help="rounds (default 3)")
    options = parser.parse_args()
    os.environ.setdefault("GRPC_VERBOSITY", "ERROR")
    configure_logging(level=logging.WARNING, json=False)
    asyncio.run(main(options.matches, options.pages, options.rounds))
