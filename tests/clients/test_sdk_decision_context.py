"""A bot reads its clock inside choose_move with current_decision(), in the event loop
and in a worker thread, and only there."""

from __future__ import annotations

import asyncio
import random
import time
from collections.abc import Sequence

import pytest

from botarena.bots import RandomBot
from botarena.clients import AsyncMatchClient, DecisionClock, current_decision, run_bot_async
from botarena.clients.testing import start_server_async
from botarena.v1 import match_pb2


class ClockReadingBot:
    """Plays randomly and records the clock it sees at each decision."""

    def __init__(self) -> None:
        self.inner = RandomBot()
        self.clocks: list[tuple[DecisionClock | None, float]] = []

    def choose_move(
        self,
        view: match_pb2.PlayerView,
        legal_moves: Sequence[match_pb2.Move],
        rng: random.Random,
    ) -> match_pb2.Move:
        clock = current_decision()
        self.clocks.append((clock, time.monotonic()))
        return self.inner.choose_move(view, legal_moves, rng)


@pytest.mark.parametrize("think_in_thread", [False, True], ids=["in-loop", "in-thread"])
def test_choose_move_sees_the_clock_of_its_decision(think_in_thread: bool) -> None:
    bots = [ClockReadingBot(), ClockReadingBot()]

    async def scenario() -> None:
        async with (
            start_server_async() as address,
            AsyncMatchClient(target=address) as client,
        ):
            config = match_pb2.MatchConfig(game=match_pb2.GAME_QWIXX, seat_count=2, seed=4)
            config.time_control.move_time_limit.FromMilliseconds(5000)
            config.time_control.time_bank.FromMilliseconds(2000)
            created = await client.create_match(config)
            await asyncio.gather(
                *(
                    run_bot_async(
                        bot,
                        server=client,
                        token=seat.token,
                        match=created.match.name,
                        seed=index,
                        think_in_thread=think_in_thread,
                    )
                    for index, (bot, seat) in enumerate(zip(bots, created.seat_tokens, strict=True))
                )
            )

    asyncio.run(scenario())
    for seat, bot in enumerate(bots):
        assert bot.clocks, "the bot was never asked"
        versions = []
        for clock, seen_at in bot.clocks:
            assert clock is not None
            assert clock.seat == seat
            assert clock.move_time_limit == pytest.approx(5.0)
            assert 0.0 < clock.time_bank <= 2.0
            assert clock.received_at <= seen_at < clock.deadline
            assert 0.0 < clock.time_left() <= 7.0
            versions.append(clock.state_version)
        assert versions == sorted(versions)
    # Outside a decision there is none.
    assert current_decision() is None
