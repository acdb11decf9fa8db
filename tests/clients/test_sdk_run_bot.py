"""run_bot plays whole matches through a real server: hooks, resumed streams, dropped
connections, missed deadlines, rejected moves and crashing bots."""

from __future__ import annotations

import asyncio
import logging
import random
import time
from collections import Counter
from collections.abc import Awaitable, Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from types import SimpleNamespace
from typing import Any

import pytest

from botarena.bots import GreedyQwirkleBot, RandomBot
from botarena.clients import (
    AsyncMatchClient,
    Bot,
    PermissionDeniedError,
    run_bot,
    run_bot_async,
)
from botarena.clients.testing import start_server, start_server_async
from botarena.v1 import match_pb2


def pass_move() -> match_pb2.Move:
    move = match_pb2.Move()
    # `pass` is a Python keyword: the field is reachable by name only.
    getattr(move.qwirkle, "pass").SetInParent()
    return move


class CountingBot:
    """Wraps a bot; counts its decisions and records its hooks."""

    def __init__(self, inner: Bot) -> None:
        self.inner = inner
        self.versions: list[int] = []
        self.calls = 0
        self.started: list[tuple[str, int]] = []
        self.ended: list[match_pb2.MatchOutcome] = []

    def choose_move(
        self, view: match_pb2.PlayerView, legal_moves: Sequence[match_pb2.Move], rng: random.Random
    ) -> match_pb2.Move:
        self.calls += 1
        return self.inner.choose_move(view, legal_moves, rng)

    def on_match_start(self, match: match_pb2.Match, seat: int) -> None:
        self.started.append((match.name, seat))

    def on_match_end(self, outcome: match_pb2.MatchOutcome) -> None:
        self.ended.append(outcome)


Scenario = Callable[[AsyncMatchClient, str], Awaitable[None]]


def serve(scenario: Scenario, **server_options: Any) -> None:
    """Run ``scenario(spectator_client, address)`` against a fresh server."""

    async def main() -> None:
        async with (
            start_server_async(**server_options) as address,
            AsyncMatchClient(target=address) as client,
        ):
            await asyncio.wait_for(scenario(client, address), 90)

    asyncio.run(main())


async def create(
    client: AsyncMatchClient, sdk_tools: SimpleNamespace, **config: Any
) -> tuple[str, list[str]]:
    created = await client.create_match(sdk_tools.qwirkle_config(**config))
    return created.match.name, [seat.token for seat in created.seat_tokens]


async def log_of(client: AsyncMatchClient, name: str) -> list[match_pb2.MatchEvent]:
    """The whole event log of a finished match, as a spectator sees it."""
    return [event async for event in client.stream_match_events(name)]


def moves_by_seat(events: Sequence[match_pb2.MatchEvent]) -> Counter[int]:
    return Counter(e.move_applied.seat for e in events if e.WhichOneof("kind") == "move_applied")


def timeouts(events: Sequence[match_pb2.MatchEvent]) -> int:
    return sum(
        e.move_applied.by_timeout_policy for e in events if e.WhichOneof("kind") == "move_applied"
    )


def test_run_bot_plays_a_full_match_from_blocking_code(sdk_tools: SimpleNamespace) -> None:
    with start_server() as address:

        async def make() -> tuple[str, list[str]]:
            async with AsyncMatchClient(target=address) as client:
                return await create(client, sdk_tools, seed=4)

        name, tokens = asyncio.run(make())
        bots: list[Bot] = [GreedyQwirkleBot(), RandomBot()]
        with ThreadPoolExecutor(2) as pool:
            futures = [
                pool.submit(run_bot, bot, server=address, token=token, match=name, seed=seat)
                for seat, (bot, token) in enumerate(zip(bots, tokens, strict=True))
            ]
            outcomes = [future.result(timeout=60) for future in futures]
    assert outcomes[0] == outcomes[1]
    assert outcomes[0].reason in {"went_out", "blocked"}
    assert sorted(result.rank for result in outcomes[0].results)[0] == 1


def test_hooks_see_the_match_the_seat_and_the_outcome_once(sdk_tools: SimpleNamespace) -> None:
    async def scenario(client: AsyncMatchClient, address: str) -> None:
        name, tokens = await create(client, sdk_tools, seed=5)
        bots = [CountingBot(GreedyQwirkleBot()), CountingBot(RandomBot())]
        outcomes = await asyncio.gather(
            *(
                run_bot_async(bot, server=address, token=token, match=name, seed=1)
                for bot, token in zip(bots, tokens, strict=True)
            )
        )
        events = await log_of(client, name)
        assert [bot.started for bot in bots] == [[(name, 0)], [(name, 1)]]
        assert [bot.ended for bot in bots] == [[outcomes[0]], [outcomes[1]]]
        assert outcomes[0] == events[-1].match_finished.outcome
        # Every decision answered exactly once, none left to the timeout policy.
        assert [bot.calls for bot in bots] == [moves_by_seat(events)[seat] for seat in (0, 1)]
        assert timeouts(events) == 0

    serve(scenario)


def test_seats_sharing_one_client_play_many_matches_concurrently(
    sdk_tools: SimpleNamespace,
) -> None:
    async def scenario(client: AsyncMatchClient, address: str) -> None:
        matches = [await create(client, sdk_tools, seed=seed) for seed in range(8)]
        outcomes = await asyncio.gather(
            *(
                run_bot_async(RandomBot(), server=client, token=token, match=name, seed=seed)
                for seed, (name, tokens) in enumerate(matches)
                for token in tokens
            )
        )
        assert len(outcomes) == 16
        assert all(outcome.results for outcome in outcomes)

    serve(scenario)


def test_run_bot_resumes_when_the_server_ends_the_stream_mid_match(
    sdk_tools: SimpleNamespace,
) -> None:
    manager = sdk_tools.StreamCuttingManager(every=7, cuts=12)

    async def scenario(client: AsyncMatchClient, address: str) -> None:
        name, tokens = await create(client, sdk_tools, seed=6)
        bots = [CountingBot(GreedyQwirkleBot()), CountingBot(GreedyQwirkleBot())]
        outcomes = await asyncio.gather(
            *(
                run_bot_async(bot, server=address, token=token, match=name, seed=2)
                for bot, token in zip(bots, tokens, strict=True)
            )
        )
        events = await log_of(client, name)
        assert outcomes[0] == outcomes[1] == events[-1].match_finished.outcome
        assert [bot.calls for bot in bots] == [moves_by_seat(events)[seat] for seat in (0, 1)]
        assert timeouts(events) == 0

    serve(scenario, manager=manager)
    assert manager.cuts_left == 0
    # Each cut stream was reopened after the last version its seat had seen.
    assert len([version for version in manager.opened if version > 0]) >= 12


def test_run_bot_survives_dropped_connections(
    sdk_tools: SimpleNamespace, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.INFO, logger="botarena.clients.bot")

    class SlowGreedy(GreedyQwirkleBot):
        def choose_move(self, *args: Any, **kwargs: Any) -> match_pb2.Move:
            time.sleep(0.01)  # long enough for the drops to land mid-match
            return super().choose_move(*args, **kwargs)

    async def scenario(client: AsyncMatchClient, address: str) -> None:
        proxy = sdk_tools.DroppingProxy(address)
        proxied = await proxy.start()
        try:
            name, tokens = await create(client, sdk_tools, seed=7)
            players = asyncio.gather(
                *(
                    run_bot_async(SlowGreedy(), server=proxied, token=token, match=name, seed=3)
                    for token in tokens
                )
            )
            for _ in range(3):
                await asyncio.sleep(0.3)
                proxy.drop()
            outcomes = await players
            assert proxy.drops == 3
        finally:
            await proxy.close()
        events = await log_of(client, name)
        assert outcomes[0] == outcomes[1] == events[-1].match_finished.outcome
        assert timeouts(events) == 0

    serve(scenario)
    resumed = [r for r in caplog.records if "resuming after version" in r.getMessage()]
    assert len(resumed) >= 2  # at least one drop landed mid-match, for both seats


def test_a_bot_slower_than_its_deadline_loses_the_turn_and_plays_on(
    sdk_tools: SimpleNamespace,
) -> None:
    class SleepsOnce(GreedyQwirkleBot):
        slept = False

        def choose_move(self, *args: Any, **kwargs: Any) -> match_pb2.Move:
            if not self.slept:
                self.slept = True
                time.sleep(1.65)
            return super().choose_move(*args, **kwargs)

    async def scenario(client: AsyncMatchClient, address: str) -> None:
        name, tokens = await create(
            client,
            sdk_tools,
            seed=8,
            limit=1.5,  # every other answer of a greedy bot in time, on a loaded machine too
            on_timeout=match_pb2.TIMEOUT_POLICY_DEFAULT_MOVE,
        )
        first = (await client.get_player_view(name)).seats_to_act[0]
        bots: list[Bot] = [GreedyQwirkleBot(), GreedyQwirkleBot()]
        bots[first] = SleepsOnce()
        outcomes = await asyncio.gather(
            *(
                run_bot_async(bot, server=address, token=token, match=name, seed=4)
                for bot, token in zip(bots, tokens, strict=True)
            )
        )
        events = await log_of(client, name)
        late = [
            e.move_applied.seat
            for e in events
            if e.WhichOneof("kind") == "move_applied" and e.move_applied.by_timeout_policy
        ]
        # The late answer is dropped; the next decision was answered in time (the bot was
        # free again 1.35 s before its deadline).
        assert late == [first]
        assert outcomes[0] == events[-1].match_finished.outcome
        assert not any(e.WhichOneof("kind") == "seat_forfeited" for e in events)

    serve(scenario)


def test_a_rejected_move_is_reported_and_the_bot_asked_again(sdk_tools: SimpleNamespace) -> None:
    class PassesOnce(CountingBot):
        def choose_move(
            self,
            view: match_pb2.PlayerView,
            legal_moves: Sequence[match_pb2.Move],
            rng: random.Random,
        ) -> match_pb2.Move:
            if self.calls == 0:
                self.calls += 1
                # PASS_NOT_ALLOWED: the bag is full.
                return pass_move()
            return super().choose_move(view, legal_moves, rng)

    async def scenario(client: AsyncMatchClient, address: str) -> None:
        name, tokens = await create(client, sdk_tools, seed=9)
        bots = [PassesOnce(GreedyQwirkleBot()), CountingBot(GreedyQwirkleBot())]
        await asyncio.gather(
            *(
                run_bot_async(bot, server=address, token=token, match=name, seed=5)
                for bot, token in zip(bots, tokens, strict=True)
            )
        )
        events = await log_of(client, name)
        assert bots[0].calls == moves_by_seat(events)[0] + 1
        assert timeouts(events) == 0

    serve(scenario)


def test_an_exception_in_choose_move_ends_run_bot_with_it(sdk_tools: SimpleNamespace) -> None:
    class Crashes:
        def choose_move(self, *args: Any, **kwargs: Any) -> match_pb2.Move:
            raise RuntimeError("the bot is broken")

    async def scenario(client: AsyncMatchClient, address: str) -> None:
        name, tokens = await create(client, sdk_tools, seed=10)
        first = (await client.get_player_view(name)).seats_to_act[0]
        with pytest.raises(RuntimeError, match="the bot is broken"):
            await run_bot_async(Crashes(), server=address, token=tokens[first], match=name)

    serve(scenario)


def test_a_foreign_token_fails_at_once_with_permission_denied(
    sdk_tools: SimpleNamespace,
) -> None:
    async def scenario(client: AsyncMatchClient, address: str) -> None:
        name, _ = await create(client, sdk_tools, seed=11)
        with pytest.raises(PermissionDeniedError):
            await run_bot_async(RandomBot(), server=address, token="not-a-token", match=name)

    serve(scenario)
