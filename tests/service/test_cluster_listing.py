"""ListMatches and GetMatch on two real nodes sharing one PostgreSQL: every node lists
the active matches of every node, each marked with the node that runs it."""

from __future__ import annotations

from botarena.clients import MatchClient
from botarena.clients.testing import ServerProcess
from botarena.v1 import match_pb2


def test_every_node_lists_every_active_match_with_the_node_that_runs_it(
    two_nodes: tuple[ServerProcess, ServerProcess],
) -> None:
    first, second = two_nodes
    created: dict[str, str] = {}
    for node, seed in ((first, 1), (second, 2)):
        with MatchClient(target=node.address) as client:
            config = match_pb2.MatchConfig(game=match_pb2.GAME_QWIXX, seat_count=2, seed=seed)
            created[client.create_match(config).match.name] = node.address
    for node in (first, second):
        with MatchClient(target=node.address) as client:
            active = client.list_matches(state=match_pb2.Match.STATE_ACTIVE).matches
            assert {match.name: match.node for match in active} == created
            assert not any(match.config.HasField("seed") for match in active)
            for name, owner in created.items():  # GetMatch, redirected where needed
                assert client.get_match(name).match.node == owner
