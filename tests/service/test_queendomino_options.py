"""Queendomino's match option (tax bonus) and an operator's building table, in real play."""

from __future__ import annotations

import asyncio
import contextlib
from pathlib import Path
from typing import Any

import pytest

from botarena.bots import get_bot
from botarena.clients import AsyncMatchClient, InvalidRequestError, run_bot_async
from botarena.clients.testing import start_server_async
from botarena.server.games.queendomino import BuildingTable, QueendominoConfig, load_buildings
from botarena.server.match import MatchManager
from botarena.server.store import SqliteStore
from botarena.v1 import match_pb2, queendomino_pb2

Q = queendomino_pb2


def _config(
    seats: int = 3, tax_bonus: Q.QueendominoTaxBonus.ValueType | None = None
) -> match_pb2.MatchConfig:
    config = match_pb2.MatchConfig(game=match_pb2.GAME_QUEENDOMINO, seat_count=seats, seed=11)
    if tax_bonus is not None:
        config.queendomino.tax_bonus = tax_bonus
    return config


def _is_operators(building: Q.QueendominoBuilding, table: Any) -> bool:
    """Whether ``building`` shows the values of every tile of the operator's ``table``."""
    return (building.crowns, building.knights, building.towers) == (
        table.crowns,
        table.knights,
        table.towers,
    )


# ---------------------------------------------------------------------------- tax bonus


@pytest.mark.parametrize(
    ("tax_bonus", "reported", "per_knight"),
    [
        (None, Q.QUEENDOMINO_TAX_BONUS_PER_KNIGHT, True),
        (Q.QUEENDOMINO_TAX_BONUS_PER_TURN, Q.QUEENDOMINO_TAX_BONUS_PER_TURN, False),
    ],
    ids=["default", "per-turn"],
)
def test_a_match_reports_its_tax_bonus_and_its_engine_applies_it(
    queendomino_operator_table: Any,
    tax_bonus: Q.QueendominoTaxBonus.ValueType | None,
    reported: Q.QueendominoTaxBonus.ValueType,
    per_knight: bool,
) -> None:
    manager = MatchManager()
    table = load_buildings(queendomino_operator_table.path)

    async def scenario() -> tuple[match_pb2.Match, match_pb2.Match]:
        async with (
            start_server_async(
                manager=manager, operator_options={"queendomino_buildings": table}
            ) as address,
            AsyncMatchClient(target=address) as client,
        ):
            created = await client.create_match(_config(tax_bonus=tax_bonus))
            fetched = await client.get_match(created.match.name)
            return created.match, fetched.match

    created, fetched = asyncio.run(scenario())
    assert created.config.queendomino.tax_bonus == reported
    assert fetched.config.queendomino.tax_bonus == reported
    engine_config = manager.get(fetched.name.removeprefix("matches/")).state.config
    assert isinstance(engine_config, QueendominoConfig)
    assert engine_config.tax_bonus_per_knight is per_knight
    assert engine_config.buildings == table  # the option leaves the operator's table in place


def test_an_unknown_tax_bonus_is_refused_at_create() -> None:
    async def scenario() -> None:
        async with start_server_async() as address, AsyncMatchClient(target=address) as client:
            with pytest.raises(InvalidRequestError) as refused:
                await client.create_match(_config(tax_bonus=Q.QueendominoTaxBonus.ValueType(7)))
            assert "config.queendomino.tax_bonus" in str(refused.value)

    asyncio.run(scenario())


# ---------------------------------------------------------------------------- building table


async def _play(table: BuildingTable) -> tuple[match_pb2.PlayerView, list[match_pb2.MatchEvent]]:
    """Play a 3-seat match of greedy bots on a server with ``table``; return the first seat's
    first view and the spectator's events."""
    async with (
        start_server_async(operator_options={"queendomino_buildings": table}) as address,
        AsyncMatchClient(target=address) as client,
    ):
        created = await client.create_match(_config())
        match = created.match.name
        first = await client.with_token(created.seat_tokens[0].token).get_player_view(match)
        bots = [
            run_bot_async(get_bot("greedy"), server=client, token=seat.token, match=match, seed=i)
            for i, seat in enumerate(created.seat_tokens)
        ]
        events: list[match_pb2.MatchEvent] = []

        async def spectate() -> None:
            async with contextlib.aclosing(client.stream_match_events(match)) as stream:
                async for event in stream:
                    events.append(event)

        await asyncio.gather(spectate(), *bots)
    return first.view, events


def test_the_operators_building_table_is_what_the_server_plays_with(
    queendomino_operator_table: Any,
) -> None:
    operator = queendomino_operator_table
    first, events = asyncio.run(_play(load_buildings(operator.path)))

    # A seat's own view shows the operator's values on the builders' board.
    board = [space.building for space in first.queendomino.board if space.HasField("building")]
    assert len(board) == 6
    assert all(_is_operators(building, operator) for building in board)

    applied = [event.move_applied for event in events if event.WhichOneof("kind") == "move_applied"]
    builds = [
        index for index, entry in enumerate(applied) if entry.move.queendomino.HasField("build")
    ]
    assert builds, "greedy builds a 3-crown building"
    index = builds[0]
    build = applied[index].move.queendomino.build
    seat = applied[index].seat
    before = applied[index - 1].view.queendomino.players[seat]
    after = applied[index].view.queendomino.players[seat]
    # The first building of the match: the supply still holds what it grants.
    assert after.knights == before.knights + operator.knights
    assert after.towers == before.towers + operator.towers
    square = next(
        entry
        for entry in after.kingdom.squares
        if (entry.cell.x, entry.cell.y) == (build.cell.x, build.cell.y)
    )
    assert _is_operators(square.building, operator)
    # Every building ever shown, on the board or in a kingdom, is the operator's.
    for entry in applied:
        view = entry.view.queendomino
        shown = [space.building for space in view.board if space.HasField("building")]
        shown += [
            square.building
            for player in view.players
            for square in player.kingdom.squares
            if square.HasField("building")
        ]
        assert all(_is_operators(building, operator) for building in shown)


def test_a_restarted_server_recovers_its_matches_with_the_operators_table(
    tmp_path: Path, queendomino_operator_table: Any
) -> None:
    operator = queendomino_operator_table
    table = load_buildings(operator.path)
    database = tmp_path / "botarena.db"

    async def serve(create: bool, token: str = "") -> tuple[str, match_pb2.PlayerView]:
        store = SqliteStore(database)
        try:
            async with (
                start_server_async(
                    store=store, operator_options={"queendomino_buildings": table}
                ) as address,
                AsyncMatchClient(target=address) as client,
            ):
                if create:
                    created = await client.create_match(
                        _config(tax_bonus=Q.QUEENDOMINO_TAX_BONUS_PER_TURN)
                    )
                    token = created.seat_tokens[0].token
                seat = client.with_token(token)
                view = await seat.get_player_view("")
                assert view.match.config.queendomino.tax_bonus == Q.QUEENDOMINO_TAX_BONUS_PER_TURN
                return token, view.view
        finally:
            store.close()

    token, before = asyncio.run(serve(create=True))
    _, after = asyncio.run(serve(create=False, token=token))
    assert after.queendomino.board == before.queendomino.board
    assert all(
        _is_operators(space.building, operator)
        for space in after.queendomino.board
        if space.HasField("building")
    )
