"""Through gRPC: finished matches, their results and replays survive a server restart."""

from __future__ import annotations

import asyncio
import random
from collections.abc import Sequence
from pathlib import Path

from botarena.clients import AsyncMatchClient, RetryPolicy, run_bot_async
from botarena.clients.testing import start_server_async
from botarena.server.store import SqliteStore
from botarena.v1 import match_pb2


class FirstMoveBot:
    """Plays the first legal move."""

    def choose_move(
        self,
        view: match_pb2.PlayerView,
        legal_moves: Sequence[match_pb2.Move],
        rng: random.Random,
    ) -> match_pb2.Move:
        return legal_moves[0]


async def _replay(client: AsyncMatchClient, name: str) -> list[match_pb2.MatchEvent]:
    return [event async for event in client.stream_match_events(name)]


def test_results_and_replays_survive_a_restart(tmp_path: Path) -> None:
    path = tmp_path / "botarena.db"

    async def first_run() -> tuple[
        list[str], list[match_pb2.Match], list[list[match_pb2.MatchEvent]]
    ]:
        store = SqliteStore(path)
        try:
            async with (
                start_server_async(store=store) as address,
                AsyncMatchClient(target=address) as client,
            ):
                names = []
                for game, seed in ((match_pb2.GAME_QWIRKLE, 5), (match_pb2.GAME_QWIXX, 6)):
                    created = await client.create_match(match_pb2.MatchConfig(game=game, seed=seed))
                    names.append(created.match.name)
                    await asyncio.gather(
                        *(
                            run_bot_async(FirstMoveBot(), server=address, token=seat.token)
                            for seat in created.seat_tokens
                        )
                    )
                matches = [(await client.get_match(name)).match for name in names]
                return names, matches, [await _replay(client, name) for name in names]
        finally:
            store.close()

    names, matches, replays = asyncio.run(first_run())
    assert all(match.state == match_pb2.Match.STATE_FINISHED for match in matches)

    async def second_run() -> None:
        store = SqliteStore(path)
        try:
            async with (
                start_server_async(store=store) as address,
                AsyncMatchClient(target=address) as client,
            ):
                for name, match, replay in zip(names, matches, replays, strict=True):
                    assert (await client.get_match(name)).match == match
                    assert await _replay(client, name) == replay
                listed = await client.list_matches(state=match_pb2.Match.STATE_FINISHED)
                assert [match.name for match in listed.matches] == list(reversed(names))
                page = await client.list_matches(page_size=1)
                assert [match.name for match in page.matches] == [names[1]]
                rest = await client.list_matches(page_size=1, page_token=page.next_page_token)
                assert [match.name for match in rest.matches] == [names[0]]
                assert not rest.next_page_token
        finally:
            store.close()

    asyncio.run(second_run())


def test_a_bot_outlives_an_in_process_server_restart(tmp_path: Path) -> None:
    """The SDK keeps reconnecting while the server is down, then resumes its stream."""
    path = tmp_path / "botarena.db"

    async def scenario() -> None:
        store = SqliteStore(path)
        async with (
            start_server_async(store=store) as address,
            AsyncMatchClient(target=address) as client,
        ):
            created = await client.create_match(
                match_pb2.MatchConfig(game=match_pb2.GAME_QWIRKLE, seed=9)
            )
        store.close()  # the server is gone; the match is not finished
        port = int(address.rsplit(":", 1)[1])
        quick = RetryPolicy(initial_backoff=0.05, max_backoff=0.2, max_elapsed=20.0)
        bots = [
            asyncio.create_task(
                run_bot_async(FirstMoveBot(), server=address, token=seat.token, reconnect=quick)
            )
            for seat in created.seat_tokens
        ]
        await asyncio.sleep(1.0)  # the bots find no server and keep retrying
        assert not any(bot.done() for bot in bots)
        from botarena.server.service import create_server

        store = SqliteStore(path)
        server, bound = await create_server(f"127.0.0.1:{port}", store=store)
        assert bound == port
        try:
            outcomes = await asyncio.wait_for(asyncio.gather(*bots), 60)
        finally:
            await server.stop(1.0)
            store.close()
        assert outcomes[0] == outcomes[1]
        assert outcomes[0].reason

    asyncio.run(scenario())
