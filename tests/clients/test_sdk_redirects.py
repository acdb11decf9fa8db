"""The blocking MatchClient on two real nodes sharing one PostgreSQL: the calls for a
match sent to the node that does not run it follow the MATCH_ON_OTHER_NODE redirect to
the one that does (same token, same request)."""

from __future__ import annotations

import asyncio
import itertools

from botarena.clients import AsyncMatchClient, MatchClient, MatchOnOtherNodeError
from botarena.clients.testing import ServerProcess
from botarena.v1 import match_pb2


def _redirect(address: str, name: str) -> MatchOnOtherNodeError:
    """The answer of ``address`` to GetMatch ``name`` for a client that follows nothing."""

    async def ask() -> MatchOnOtherNodeError:
        async with AsyncMatchClient(target=address) as client:
            try:
                await client.get_match(name)
            except MatchOnOtherNodeError as error:
                return error
        raise AssertionError("no redirect")

    return asyncio.run(ask())


def test_the_blocking_client_plays_a_match_another_node_runs_through_redirects(
    two_nodes: tuple[ServerProcess, ServerProcess],
) -> None:
    owner, other = two_nodes
    with MatchClient(target=owner.address) as admin:
        config = match_pb2.MatchConfig(game=match_pb2.GAME_QWIRKLE, seat_count=2, seed=7)
        created = admin.create_match(config)
    name = created.match.name
    assert _redirect(other.address, name).node == owner.address
    with MatchClient(target=other.address) as client:
        seats = [client.with_token(seat.token) for seat in created.seat_tokens]
        early: list[match_pb2.MatchEvent] = []
        for turn in itertools.count():
            views = [seat.get_player_view(name) for seat in seats]
            if views[0].match.state == match_pb2.Match.STATE_FINISHED:
                break
            for seat, view in zip(seats, views, strict=True):
                if view.legal_moves:
                    seat.submit_move(
                        name, view.legal_moves[0], expected_state_version=view.state_version
                    )
            if turn == 3:  # a stream opened at the wrong node, mid-match
                events = client.stream_match_events(name)
                early = list(itertools.islice(events, 4))
                events.close()
        final = client.get_match(name).match
    assert final.state == match_pb2.Match.STATE_FINISHED
    assert [event.state_version for event in early] == [0, 1, 2, 3]
    assert early[0].WhichOneof("kind") == "match_started"
