"""Fixtures shared by several test folders."""

from __future__ import annotations

import json
from pathlib import Path
from typing import NamedTuple

import pytest

# The server's start-up: registers every game of the registry (PLUGINS) with its layers.
import botarena.server.service  # noqa: F401

_SHIPPED_BUILDINGS = (
    Path(__file__).parents[1] / "server/botarena/server/games/queendomino/data/buildings.json"
)


class OperatorTable(NamedTuple):
    """An operator's Queendomino building table on disk, and the values of every tile."""

    path: Path
    crowns: int
    knights: int
    towers: int


@pytest.fixture
def queendomino_operator_table(tmp_path: Path) -> OperatorTable:
    """The shipped ``buildings.json`` with every tile's crowns, knights and towers changed
    to values no shipped tile has all at once (README: Queendomino, stand-in values)."""
    table = OperatorTable(tmp_path / "my-buildings.json", crowns=3, knights=2, towers=1)
    document = json.loads(_SHIPPED_BUILDINGS.read_text(encoding="utf-8"))
    for tile in document["tiles"]:
        tile.update(crowns=table.crowns, knights=table.knights, towers=table.towers)
    table.path.write_text(json.dumps(document), encoding="utf-8")
    return table


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption(
        "--update-playthroughs",
        action="store_true",
        help="rewrite tests/games/playthroughs/ from fresh seeded games (review the diff)",
    )
