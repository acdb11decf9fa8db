"""A node of two on one PostgreSQL, killed with SIGKILL and started again at its address,
takes back its own running matches at once (long before their leases expire), while the
other node keeps its own and waits for none of them."""

from __future__ import annotations

from botarena.clients import MatchClient
from botarena.clients.testing import ServerProcess
from botarena.v1 import match_pb2


def test_a_node_killed_and_started_again_takes_back_its_own_matches_at_once(
    two_slow_nodes: tuple[ServerProcess, ServerProcess],
) -> None:
    restarted, other = two_slow_nodes
    config = match_pb2.MatchConfig(game=match_pb2.GAME_QWIXX, seat_count=2, seed=7)
    created = {}
    for node in (restarted, other):
        with MatchClient(target=node.address) as client:
            created[node.address] = client.create_match(config)
    restarted.kill()
    restarted.start()  # the same address; its old leases have about 60 s left

    mine, theirs = created[restarted.address], created[other.address]
    taken_back = restarted.events("matches taken back from an earlier start")
    assert [line["count"] for line in taken_back] == [1]
    recovered = {line["match"] for line in restarted.events("match recovered")}
    assert recovered == {mine.match.name.removeprefix("matches/")}
    assert other.events("match recovered") == []
    for created_match in (mine, theirs):
        name, token = created_match.match.name, created_match.seat_tokens[0].token
        # The seat plays on the node that holds its match: the restarted one answers for
        # its own (before, MATCH_ON_OTHER_NODE naming itself) and redirects to the other.
        with MatchClient(target=restarted.address, token=token) as seat:
            assert seat.get_player_view(name).view.seat == 0
    with MatchClient(target=other.address) as client:
        active = client.list_matches(state=match_pb2.Match.STATE_ACTIVE).matches
        nodes = {match.name: match.node for match in active}
    assert nodes == {mine.match.name: restarted.address, theirs.match.name: other.address}
