"""``botarena replay matches/ID`` fetches from a TLS server through real gRPC (certificates
from the ``tls_files`` fixture), given either form of the server."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from botarena.bots import RandomBot
from botarena.clients import AsyncMatchClient, run_bot_async
from botarena.clients.cli import main
from botarena.clients.testing import start_server_async
from botarena.v1 import match_pb2


@pytest.mark.parametrize("form", ["one-string", "flags"])
def test_a_match_is_fetched_from_a_tls_server(
    form: str, tls_files: Any, capsys: pytest.CaptureFixture[str]
) -> None:
    async def scenario() -> tuple[str, int]:
        async with start_server_async(credentials=tls_files.server_credentials()) as address:
            target = tls_files.target(address)
            config = match_pb2.MatchConfig(
                game=match_pb2.GAME_QWIXX, seat_count=2, seed=4, seat_names=["ann", "ben"]
            )
            async with AsyncMatchClient(target=target) as client:
                created = await client.create_match(config)
            await asyncio.gather(
                *(
                    run_bot_async(RandomBot(), server=target, token=seat.token, seed=seat.seat)
                    for seat in created.seat_tokens
                )
            )
            server = (
                ["--server", target]
                if form == "one-string"
                else ["--server", address, "--tls-ca", tls_files.ca]
            )
            status = await asyncio.to_thread(main, ["replay", created.match.name, *server])
            return created.match.name, status

    name, status = asyncio.run(scenario())
    assert status == 0
    out = capsys.readouterr().out
    assert name in out
    assert "ann" in out
    assert "ben" in out
