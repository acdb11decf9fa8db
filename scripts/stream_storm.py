"""A reconnect storm on one channel (issue 14, point 7): an in-process server holds
MATCHES two-seat Qwirkle matches, STREAMS seat streams open at once on ONE grpc.aio
channel, and the script counts how they ended once each had its first event (or not).

``--max-pending-calls`` is ``create_server``'s queue of calls not yet taken (its hard
limit is twice that); 1000 comes close to grpc's own default (1,000, hard limit 3,000),
under which ~200 of 2,000 streams ended CANCELLED (docs/decisions.md).

Usage:
    python scripts/stream_storm.py [--matches 1000] [--streams 2000]
        [--max-pending-calls N]
"""

from __future__ import annotations

import argparse
import asyncio
import collections
import contextlib
import logging
import time

from botarena.clients import AsyncMatchClient, BotarenaError
from botarena.clients.testing import start_server_async
from botarena.server.service import MAX_PENDING_CALLS, configure_logging
from botarena.v1 import match_pb2


async def storm(matches: int, streams: int, max_pending_calls: int) -> None:
    async with (
        start_server_async(max_pending_calls=max_pending_calls) as address,
        AsyncMatchClient(target=address) as client,
    ):
        config = match_pb2.MatchConfig(game=match_pb2.GAME_QWIRKLE, seed=1)
        tokens = [
            seat.token
            for _ in range(matches)
            for seat in (await client.create_match(config)).seat_tokens
        ]

        async def first(token: str) -> str:
            events = client.with_token(token).stream_match_events("")
            async with contextlib.aclosing(events):
                try:
                    await anext(events)
                except BotarenaError as error:
                    return f"{error.code.name} ({type(error).__name__}: {error.message!r})"
            return "OK"

        started = time.monotonic()
        ended = collections.Counter(
            await asyncio.gather(*(first(tokens[i % len(tokens)]) for i in range(streams)))
        )
        seconds = time.monotonic() - started
    print(f"{streams} streams at once on one channel, {matches} matches, ", end="")
    print(f"max_pending_calls={max_pending_calls}: {seconds:.1f} s")
    for outcome, count in ended.most_common():
        print(f"  {count:6d}  {outcome}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--matches", type=int, default=1000)
    parser.add_argument("--streams", type=int, default=2000)
    parser.add_argument("--max-pending-calls", type=int, default=MAX_PENDING_CALLS)
    args = parser.parse_args()
    configure_logging(level=logging.WARNING, json=False)
    asyncio.run(storm(args.matches, args.streams, args.max_pending_calls))


if __name__ == "__main__":
    main()
