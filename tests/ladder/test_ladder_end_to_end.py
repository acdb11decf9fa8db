# mypy: disable-error-code="import-untyped"
"""The ladder through real gRPC: registration, secrets, connected SDK bots, leaderboard."""

from __future__ import annotations

import asyncio
import contextlib
import functools
import time
from collections.abc import AsyncIterator, Awaitable, Callable, Sequence
from pathlib import Path
from random import Random

import grpc
import pytest

from botarena.bots import get_bot
from botarena.clients import (
    AlreadyExistsError,
    AsyncLadderClient,
    AsyncMatchClient,
    AuthenticationError,
    BotarenaError,
    BotNotFoundError,
    InvalidRequestError,
    run_ladder_bot_async,
)
from botarena.clients.testing import start_server_async
from botarena.server.ladder import Ladder, LadderSettings
from botarena.server.match import MatchManager
from botarena.server.service import durable_manager
from botarena.server.store import SqliteStore
from botarena.v1 import ladder_pb2, match_pb2

QWIRKLE = match_pb2.GAME_QWIRKLE


def _ladder(path: Path, **settings: int) -> Ladder:
    """A ladder with a fast scheduler; ``settings`` are LadderSettings' int fields."""
    fast = LadderSettings(tick_seconds=0.05, keepalive_seconds=0.2, **settings)
    return Ladder(MatchManager(), SqliteStore(path).ladder_store(), fast)


def _run(scenario: Callable[[str], Awaitable[None]], ladder: Ladder, **options: object) -> None:
    async def main() -> None:
        async with start_server_async(ladder=ladder, **options) as address:
            await asyncio.wait_for(scenario(address), 60)

    asyncio.run(main())


def test_two_sdk_bots_play_rated_matches_and_the_leaderboard_ranks_them(tmp_path: Path) -> None:
    ladder = _ladder(tmp_path / "ladder.db")

    async def scenario(address: str) -> None:
        async with AsyncLadderClient(target=address) as client:
            greedy = await client.register_bot("greedy", "team a", QWIRKLE)
            random_bot = await client.register_bot("random", "team b", QWIRKLE)
            ended: list[str] = []
            bots = [
                asyncio.create_task(
                    run_ladder_bot_async(
                        functools.partial(get_bot, name),
                        server=address,
                        secret=secret,
                        capacity=2,
                        on_match_end=lambda match, _: ended.append(match),
                    )
                )
                for name, secret in (("greedy", greedy.secret), ("random", random_bot.secret))
            ]
            try:
                while len(set(ended)) < 8:  # each match ends once per seat
                    await asyncio.sleep(0.05)
                board = await client.get_leaderboard(QWIRKLE)
                history = await client.list_bot_matches(greedy.bot.name, limit=3)
            finally:
                for task in bots:
                    task.cancel()
                await asyncio.gather(*bots, return_exceptions=True)
        entries = {entry.bot.display_name: entry for entry in board.entries}
        assert [entry.rank for entry in board.entries] == [1, 2]
        assert board.entries[0].bot.display_name == "greedy"
        assert entries["greedy"].games >= 2
        assert entries["greedy"].conservative_rating > entries["random"].conservative_rating
        assert entries["greedy"].mean_score > entries["random"].mean_score
        assert entries["random"].crashes == entries["random"].timeouts == 0
        assert len(history.matches) == 3
        assert all(len(match.seats) == 2 for match in history.matches)

    _run(scenario, ladder)


@pytest.mark.parametrize(
    ("secret", "reason"),
    [(None, "BOT_SECRET_REQUIRED"), ("nobody.wrong", "BOT_SECRET_INVALID")],
    ids=["missing", "wrong"],
)
def test_a_missing_or_wrong_secret_cannot_connect(
    tmp_path: Path, secret: str | None, reason: str
) -> None:
    ladder = _ladder(tmp_path / "ladder.db")

    async def scenario(address: str) -> None:
        async with AsyncLadderClient(target=address) as client:
            registered = await client.register_bot("greedy", "", QWIRKLE)
            await client.register_bot("random", "", QWIRKLE)
        # The right secret's prefix with a wrong rest is refused as well.
        forged = secret and registered.bot.name.removeprefix("bots/") + ".wrong"
        for token in {secret, forged}:
            async with AsyncLadderClient(target=address, token=token) as impostor:
                received: list[ladder_pb2.ConnectResponse] = []

                async def listen(
                    client: AsyncLadderClient = impostor,
                    sink: list[ladder_pb2.ConnectResponse] = received,
                ) -> None:
                    async for message in client.connect(1):
                        sink.append(message)

                with pytest.raises(AuthenticationError) as caught:
                    await listen()
            assert caught.value.code is grpc.StatusCode.UNAUTHENTICATED
            assert caught.value.reason == reason
            assert received == []
        assert ladder.schedule_now() == []  # nobody connected: no match

    _run(scenario, ladder)


def test_registering_needs_the_admin_token_when_the_server_has_one(tmp_path: Path) -> None:
    ladder = _ladder(tmp_path / "ladder.db")

    async def scenario(address: str) -> None:
        async with AsyncLadderClient(target=address) as anonymous:
            with pytest.raises(AuthenticationError) as caught:
                await anonymous.register_bot("greedy", "", QWIRKLE)
        assert caught.value.reason == "ADMIN_TOKEN_REQUIRED"
        async with AsyncLadderClient(target=address, token="sesame") as admin:
            response = await admin.register_bot("greedy", "", QWIRKLE)
        assert response.bot.name.startswith("bots/")

    _run(scenario, ladder, admin_token="sesame")


def test_a_name_is_taken_once_per_game(tmp_path: Path) -> None:
    ladder = _ladder(tmp_path / "ladder.db")

    async def scenario(address: str) -> None:
        async with AsyncLadderClient(target=address) as client:
            await client.register_bot("greedy", "", QWIRKLE)
            with pytest.raises(AlreadyExistsError) as caught:
                await client.register_bot("greedy", "someone else", QWIRKLE)
            # The same name in another game is another bot.
            other = await client.register_bot("greedy", "", match_pb2.GAME_QWIXX)
        assert caught.value.reason == "BOT_NAME_TAKEN"
        assert other.bot.name.startswith("bots/")

    _run(scenario, ladder)


def test_a_connected_bot_receives_connected_then_keep_alives(tmp_path: Path) -> None:
    ladder = _ladder(tmp_path / "ladder.db")

    async def scenario(address: str) -> None:
        async with AsyncLadderClient(target=address) as client:
            registered = await client.register_bot("alone", "", QWIRKLE)
        kinds: list[str | None] = []
        async with (
            AsyncLadderClient(target=address, token=registered.secret) as bot,
            contextlib.aclosing(bot.connect(3)) as stream,
        ):
            async for message in stream:
                kinds.append(message.WhichOneof("kind"))
                if len(kinds) == 3:
                    break
        assert kinds == ["connected", "keep_alive", "keep_alive"]

    _run(scenario, ladder)


async def _next_assignment(
    stream: AsyncIterator[ladder_pb2.ConnectResponse],
) -> ladder_pb2.Assignment:
    async for message in stream:
        if message.WhichOneof("kind") == "assignment":
            return message.assignment
    raise AssertionError("the Connect stream ended")


def test_a_paused_bot_is_resumed_by_the_admin_and_scheduled_again(tmp_path: Path) -> None:
    ladder = _ladder(tmp_path / "ladder.db", pause_after=1)

    async def paused(client: AsyncLadderClient, name: str) -> bool:
        board = await client.get_leaderboard(QWIRKLE)
        return next(entry.paused for entry in board.entries if entry.bot.name == name)

    async def scenario(address: str) -> None:
        async with AsyncLadderClient(target=address, token="sesame") as admin:
            good = await admin.register_bot("good", "", QWIRKLE)
            crasher = await admin.register_bot("crasher", "", QWIRKLE)
            opponent = asyncio.create_task(
                run_ladder_bot_async(lambda: get_bot("random"), server=address, secret=good.secret)
            )
            try:
                async with (
                    AsyncLadderClient(target=address, token=crasher.secret) as bot,
                    AsyncMatchClient(target=address) as matches,
                    contextlib.aclosing(bot.connect(1)) as stream,
                ):
                    first = await _next_assignment(stream)
                    # A resignation is a crash: with pause_after=1 the bot is paused.
                    await matches.with_token(first.seat_token).resign_match(first.match)
                    while not await paused(admin, crasher.bot.name):
                        await asyncio.sleep(0.02)
                    assert ladder.schedule_now() == []  # still connected, but not scheduled

                    resumed = await admin.resume_bot(crasher.bot.name)
                    assert resumed.bot == crasher.bot
                    assert not await paused(admin, crasher.bot.name)
                    again = await _next_assignment(stream)
            finally:
                opponent.cancel()
                await asyncio.gather(opponent, return_exceptions=True)
        assert again.match != first.match
        record = ladder.bot(crasher.bot.name.removeprefix("bots/"))
        assert record.crashes == 1
        assert record.bad_streak == 0

    _run(scenario, ladder, admin_token="sesame")


@pytest.mark.parametrize("token", [None, "wrong"], ids=["no-token", "wrong-token"])
def test_resuming_needs_the_admin_token_when_the_server_has_one(
    tmp_path: Path, token: str | None
) -> None:
    ladder = _ladder(tmp_path / "ladder.db")

    async def scenario(address: str) -> None:
        async with AsyncLadderClient(target=address, token="sesame") as admin:
            registered = await admin.register_bot("greedy", "", QWIRKLE)
        async with AsyncLadderClient(target=address, token=token) as client:
            with pytest.raises(AuthenticationError) as caught:
                await client.resume_bot(registered.bot.name)
        assert caught.value.code is grpc.StatusCode.UNAUTHENTICATED
        assert caught.value.reason == "ADMIN_TOKEN_REQUIRED"

    _run(scenario, ladder, admin_token="sesame")


@pytest.mark.parametrize(
    ("bot", "code", "reason", "error_type"),
    [
        ("bots/0123456789abcdef", grpc.StatusCode.NOT_FOUND, "BOT_NOT_FOUND", BotNotFoundError),
        ("greedy", grpc.StatusCode.INVALID_ARGUMENT, "MALFORMED_REQUEST", InvalidRequestError),
    ],
    ids=["unknown", "malformed"],
)
def test_resuming_an_unknown_bot_fails(
    tmp_path: Path,
    bot: str,
    code: grpc.StatusCode,
    reason: str,
    error_type: type[BotarenaError],
) -> None:
    ladder = _ladder(tmp_path / "ladder.db")

    async def scenario(address: str) -> None:
        async with AsyncLadderClient(target=address) as client:
            await client.register_bot("greedy", "", QWIRKLE)
            with pytest.raises(BotarenaError) as caught:
                await client.resume_bot(bot)
        assert type(caught.value) is error_type
        assert caught.value.code is code
        assert caught.value.reason == reason

    _run(scenario, ladder)


class _Deliberate:
    """The first legal move, after a pause: a match lasts long enough to be cut."""

    def choose_move(
        self, view: match_pb2.PlayerView, legal_moves: Sequence[match_pb2.Move], rng: Random
    ) -> match_pb2.Move:
        time.sleep(0.01)
        return legal_moves[0]


def test_bots_that_restarted_with_the_server_get_new_tokens_and_finish_their_match(
    tmp_path: Path,
) -> None:
    path = tmp_path / "botarena.db"
    fast = LadderSettings(tick_seconds=0.05, keepalive_seconds=0.2, pair_cap_per_hour=1)

    def durable_ladder() -> tuple[SqliteStore, Ladder]:
        core = SqliteStore(path)
        manager = durable_manager(core)
        manager.recover()
        return core, Ladder(manager, core.ladder_store(), fast)

    async def bots(address: str, secrets: list[str], ended: list[str]) -> list[asyncio.Task[None]]:
        return [
            asyncio.create_task(
                run_ladder_bot_async(
                    _Deliberate,
                    server=address,
                    secret=secret,
                    on_match_end=lambda match, outcome: ended.append(match),
                )
            )
            for secret in secrets
        ]

    async def stop(tasks: list[asyncio.Task[None]]) -> None:
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)

    async def main() -> None:
        core, first = durable_ladder()
        secrets = [first.register(name, "", "qwirkle")[1] for name in ("a", "b")]
        ended: list[str] = []
        async with start_server_async(ladder=first, manager=first.manager) as address:
            playing = await bots(address, secrets, ended)
            while not (running := first.store.unfinished_matches()):
                await asyncio.sleep(0.01)
            (match_id,) = (record.match_id for record in running)
            while first.manager.get(match_id).state_version < 4:
                await asyncio.sleep(0.01)
            # The bot processes die, then the server: nobody holds the seat tokens now.
            await stop(playing)
        await first.close()
        first.manager.close()
        core.close()
        assert not ended

        core, second = durable_ladder()
        await second.start()
        recovered = second.manager.get(match_id)
        assert recovered.tokens == ()
        async with start_server_async(ladder=second, manager=second.manager) as address:
            playing = await bots(address, secrets, ended)
            while ended.count(f"matches/{match_id}") < 2:  # once per seat
                await asyncio.sleep(0.02)
            await stop(playing)
            record = second.store.match(match_id)
        await second.close()
        second.manager.close()
        core.close()
        assert record is not None
        assert record.finished is not None
        assert not record.abandoned
        # Both seats played on with their new tokens: no timeouts, no stand-in moves.
        assert all(seat.timeouts == 0 and not seat.forfeited for seat in record.seats)
        assert not any(entry.by_timeout for entry in recovered.events)

    async def bounded() -> None:
        async with asyncio.timeout(60):  # fail here rather than hang on a lost seat
            await main()

    asyncio.run(bounded())
