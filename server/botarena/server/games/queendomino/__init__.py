"""Queendomino (RULES.md in shared/games/queendomino): component data and the kingdom model.

Work in progress (issue 7): the turn engine, views and protocol are not written yet, and
the game is not registered. What exists is pure and tested in ``tests/games/queendomino``:

* :mod:`.data`: the 48 dominoes and 32 building tiles shipped in ``data/``, validated
  against a schema in code; ``load_buildings(path)`` reads an operator's override table.
* :mod:`.kingdom`: a kingdom (5x5 or 7x7 box around the castle), placement legality with
  :class:`QueendominoReason` codes, and the enumeration of legal placements.
* :mod:`.scoring`: territories, the queen's crown, building points and coins.

**[engine choice]** points implemented so far, with RULES.md's suggested defaults:

* Unknown building values (``null`` in ``buildings.json``, RULES.md 9) are 0 knights,
  0 towers and no ongoing effect; :attr:`BuildingTable.defaulted` lists them.

Decisions where RULES.md is silent:

* A legal placement is a ``(cell, rotation)`` pair; dominoes with two identical halves
  list each footprint under both of its rotations.

Version history:

* 0 -- unreleased.
"""

from __future__ import annotations

from botarena.server.games.queendomino.components import (
    Building,
    Domino,
    EndGameScoring,
    OngoingEffect,
    ScoringKind,
    Square,
    Terrain,
)
from botarena.server.games.queendomino.data import (
    BUILDING_COUNT,
    DOMINO_COUNT,
    BuildingTable,
    ComponentDataError,
    DefaultedField,
    load_buildings,
    load_dominoes,
    parse_buildings,
    parse_dominoes,
)
from botarena.server.games.queendomino.errors import QueendominoReason
from botarena.server.games.queendomino.kingdom import (
    CASTLE,
    Cell,
    DominoPlacement,
    Kingdom,
    Rotation,
    kingdom_size,
)
from botarena.server.games.queendomino.scoring import (
    ScoreBreakdown,
    Territory,
    building_points,
    coin_points,
    largest_territory_size,
    score_kingdom,
    territories,
    territory_points,
)

__all__ = [
    "BUILDING_COUNT",
    "CASTLE",
    "DOMINO_COUNT",
    "Building",
    "BuildingTable",
    "Cell",
    "ComponentDataError",
    "DefaultedField",
    "Domino",
    "DominoPlacement",
    "EndGameScoring",
    "Kingdom",
    "OngoingEffect",
    "QueendominoReason",
    "Rotation",
    "ScoreBreakdown",
    "ScoringKind",
    "Square",
    "Terrain",
    "Territory",
    "building_points",
    "coin_points",
    "kingdom_size",
    "largest_territory_size",
    "load_buildings",
    "load_dominoes",
    "parse_buildings",
    "parse_dominoes",
    "score_kingdom",
    "territories",
    "territory_points",
]
