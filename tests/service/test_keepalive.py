"""The server's keepalive policy lets clients ping a quiet connection every second: an
event stream on which nothing happens for seconds, its client's HTTP/2 pings the only
traffic, stays open (grpc's default policy answers the second such ping with a GOAWAY,
``too_many_pings``, which ends the stream UNAVAILABLE)."""

from __future__ import annotations

import asyncio
import contextlib

from botarena.clients import AsyncMatchClient
from botarena.clients.testing import start_server_async
from botarena.v1 import match_pb2

# Pings twice as often as the SDK's channels do (KEEPALIVE_CHANNEL_OPTIONS): four of them
# in the quiet below, with no data either way.
_EAGER_PINGS = (("grpc.keepalive_time_ms", 1_000),)


def test_a_quiet_stream_outlives_its_clients_keepalive_pings() -> None:
    async def scenario() -> list[str | None]:
        async with (
            start_server_async() as address,
            AsyncMatchClient(target=address, channel_options=_EAGER_PINGS) as client,
        ):
            config = match_pb2.MatchConfig(game=match_pb2.GAME_QWIRKLE, seat_count=2, seed=3)
            created = await client.create_match(config)
            name = created.match.name
            kinds: list[str | None] = []
            async with contextlib.aclosing(client.stream_match_events(name)) as events:
                kinds.append((await anext(events)).WhichOneof("kind"))
                await asyncio.sleep(4.5)
                seat = client.with_token(created.seat_tokens[0].token)
                await seat.resign_match(name)
                async for event in events:
                    kinds.append(event.WhichOneof("kind"))
            return kinds

    kinds = asyncio.run(scenario())
    assert kinds == ["match_started", "seat_forfeited", "match_finished"]
