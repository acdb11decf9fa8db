"""A node of two on one PostgreSQL frozen (SIGSTOP, what a network partition looks like
from outside) past its leases while bots play on it: the bots' keepalive pings go
unanswered, so they leave it within seconds for the other node, which has taken the
matches over, and keep their seats there. Woken (SIGCONT) after the matches ended, the
node finds its leases lost and says so in one log line per match, with no traceback
(its deadline timers fire first, for stand-ins it may no longer play)."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable

from google.protobuf import duration_pb2

from botarena.bots import RandomBot
from botarena.clients import AsyncMatchClient, run_bot_async
from botarena.clients.testing import ServerProcess, SlowBot
from botarena.v1 import match_pb2

_MATCHES = 2


async def _until(condition: Callable[[], bool], what: str, seconds: float = 60.0) -> None:
    deadline = time.monotonic() + seconds
    while not condition():
        assert time.monotonic() < deadline, f"never: {what}"
        await asyncio.sleep(0.05)


def test_bots_leave_a_frozen_node_for_the_other_and_keep_their_seats(
    two_nodes: tuple[ServerProcess, ServerProcess],
) -> None:
    frozen, home = two_nodes
    config = match_pb2.MatchConfig(
        game=match_pb2.GAME_QWIRKLE,
        seat_count=2,
        time_control=match_pb2.TimeControl(move_time_limit=duration_pb2.Duration(seconds=5)),
    )

    async def scenario() -> list[match_pb2.MatchOutcome]:
        async with AsyncMatchClient(target=frozen.address) as admin:
            created = [await admin.create_match(config) for _ in range(_MATCHES)]
            # The bots are sent to the other node, which redirects them to the frozen
            # one (it runs their matches) until it has taken them over.
            bots = [
                asyncio.create_task(
                    run_bot_async(
                        SlowBot(RandomBot(), 0.1),
                        server=home.address,
                        token=seat.token,
                        seed=seat.seat,
                    )
                )
                for match in created
                for seat in match.seat_tokens
            ]

            async def moves() -> int:
                replies = [await admin.get_match(match.match.name) for match in created]
                return min(reply.match.state_version for reply in replies)

            deadline = time.monotonic() + 60
            while await moves() < 3:
                assert time.monotonic() < deadline, "the matches never got going"
                await asyncio.sleep(0.05)
        frozen.freeze()
        try:
            outcomes = await asyncio.wait_for(asyncio.gather(*bots), 90)
        finally:
            frozen.thaw()
        lost = {match.match.name.removeprefix("matches/") for match in created}
        await _until(
            lambda: {line["match"] for line in frozen.events("match lease lost")} >= lost,
            "the woken node noticed its leases are lost",
        )
        return outcomes

    outcomes = asyncio.run(scenario())
    assert len(outcomes) == 2 * _MATCHES
    for outcome in outcomes:
        assert outcome.reason != "abandoned"
        assert not any(result.forfeited for result in outcome.results), outcome
    # The other node took both matches over; the bots played them out there.
    assert len(home.events("match recovered")) == _MATCHES
    log = frozen.log_path.read_text()
    assert "Traceback" not in log
    assert "Exception in callback" not in log
