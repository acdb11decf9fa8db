"""GetLeaderboard a page at a time through real gRPC: the default and largest page,
page tokens (refused for another game or forged), the SDK's ``leaderboard`` following
them, and ``botarena ladder leaderboard --limit`` / a display name found past the first
page."""

from __future__ import annotations

import asyncio
import re
from pathlib import Path

import pytest

from botarena.clients import AsyncLadderClient, InvalidRequestError
from botarena.clients.cli import main
from botarena.clients.testing import start_server, start_server_async
from botarena.server.ladder import Ladder, LadderSettings
from botarena.server.match import MatchManager
from botarena.server.store import SqliteStore
from botarena.v1 import match_pb2

QWIRKLE = match_pb2.GAME_QWIRKLE


def _ladder(path: Path, bots: int) -> tuple[Ladder, list[str]]:
    """A ladder with ``bots`` new Qwirkle bots (all rated alike: ranked by name); their
    ids in leaderboard order."""
    ladder = Ladder(MatchManager(), SqliteStore(path).ladder_store(), LadderSettings())
    registered = [ladder.register(f"bot {number:04d}", "", "qwirkle")[0] for number in range(bots)]
    return ladder, [bot.bot_id for bot in registered]


def test_the_leaderboard_comes_in_pages_that_tokens_follow(tmp_path: Path) -> None:
    ladder, order = _ladder(tmp_path / "ladder.db", 53)
    ladder.register("a qwixx bot", "", "qwixx")

    async def scenario() -> None:
        async with (
            start_server_async(ladder=ladder) as address,
            AsyncLadderClient(target=address) as client,
        ):
            first = await client.get_leaderboard(QWIRKLE)  # no page_size: 50
            assert [entry.rank for entry in first.entries] == list(range(1, 51))
            assert [e.bot.name for e in first.entries] == [f"bots/{i}" for i in order[:50]]
            rest = await client.get_leaderboard(QWIRKLE, page_token=first.next_page_token)
            assert [entry.rank for entry in rest.entries] == [51, 52, 53]
            assert rest.next_page_token == ""

            small = await client.get_leaderboard(QWIRKLE, page_size=20)
            assert len(small.entries) == 20
            every = [entry async for entry in client.leaderboard(QWIRKLE, page_size=20)]
            assert [entry.bot.name for entry in every] == [f"bots/{i}" for i in order]
            assert [entry.rank for entry in every] == list(range(1, 54))
            largest = await client.get_leaderboard(QWIRKLE, page_size=500)
            assert len(largest.entries) == 53

            with pytest.raises(InvalidRequestError) as too_large:
                await client.get_leaderboard(QWIRKLE, page_size=501)
            assert too_large.value.reason == "MALFORMED_REQUEST"
            for token in (small.next_page_token, "bm90IGEgdG9rZW4="):  # another game's
                with pytest.raises(InvalidRequestError) as refused:
                    await client.get_leaderboard(match_pb2.GAME_QWIXX, page_token=token)
                assert refused.value.reason == "INVALID_PAGE_TOKEN"

    asyncio.run(scenario())


def test_the_cli_shows_the_best_bots_and_finds_a_name_past_the_first_page(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    ladder, order = _ladder(tmp_path / "ladder.db", 501)  # two pages of 500 for a lookup
    last, _ = ladder.register("zz last", "", "qwirkle")
    with start_server(ladder=ladder) as address:
        capsys.readouterr()  # the registrations' log lines
        assert main(["ladder", "leaderboard", "--limit", "3", "--server", address]) == 0
        shown = capsys.readouterr().out
        assert re.findall(r"bot \d{4}", shown) == ["bot 0000", "bot 0001", "bot 0002"]
        assert main(["ladder", "leaderboard", "--limit", "0", "--server", address]) == 0
        assert "zz last" in capsys.readouterr().out  # rank 502: on the second page
        assert main(["ladder", "leaderboard", "--limit", "-1", "--server", address]) == 2
        assert "--limit must be 0 or more" in capsys.readouterr().out
        assert main(["ladder", "matches", "zz last", "--server", address]) == 0
    assert f"matches of bots/{last.bot_id}" in capsys.readouterr().out
    assert len(order) == 501
