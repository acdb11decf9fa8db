"""Queendomino scoring (RULES.md 5, 6, 7): territories, building crowns, the queen's crown,
building points, coins, and the rulebook's worked example (total 71).

The worked example is rebuilt from real dominoes placed one by one with legal placements;
its kingdom (castle ``CC``; terrain letter + crowns per square; ``*`` marks a building):

    T0* M3  M1  T0* W0
    G0  CC  M0  W1  W0
    G0  G2  F0  F1  L0
    G1  F1  S1  L1  L1
    T0* T0* T0* F0  T0*

The rulebook's picture is not reproduced square for square (it is not in RULES.md); this
kingdom has exactly the territories and buildings RULES.md 7 lists for it.
"""

from __future__ import annotations

import pytest

from botarena.server.games.queendomino import (
    Building,
    Cell,
    DominoPlacement,
    EndGameScoring,
    Kingdom,
    OngoingEffect,
    Rotation,
    ScoreBreakdown,
    ScoringKind,
    Square,
    Terrain,
    building_points,
    coin_points,
    largest_territory_size,
    load_buildings,
    load_dominoes,
    score_kingdom,
    territories,
    territory_points,
)

# (domino number, first half's cell, rotation), in an order where each placement is legal.
_EXAMPLE_PLACEMENTS: list[tuple[int, Cell, Rotation]] = [
    (45, (0, -1), Rotation.WEST),  # mine 3 | town
    (39, (1, -1), Rotation.EAST),  # mine 1 | town
    (11, (-1, 0), Rotation.SOUTH),  # grassland | grassland
    (6, (2, 0), Rotation.WEST),  # wheat 1 | mine
    (1, (3, -1), Rotation.SOUTH),  # wheat | wheat
    (27, (0, 1), Rotation.EAST),  # grassland 2 | forest
    (14, (2, 1), Rotation.EAST),  # forest 1 | lake
    (37, (-1, 2), Rotation.SOUTH),  # grassland 1 | town
    (30, (0, 2), Rotation.SOUTH),  # forest 1 | town
    (38, (1, 2), Rotation.SOUTH),  # swamp 1 | town
    (31, (3, 2), Rotation.SOUTH),  # lake 1 | town
    (21, (2, 2), Rotation.SOUTH),  # lake 1 | forest
]

# RULES.md 7: "Sawmill ..., Travelling Castle ..., Church ..., Big Tavern 2, Statue 5,
# Guardtower 3", one on each of the six town squares.
_EXAMPLE_BUILDINGS: dict[Cell, str] = {
    (-1, -1): "sawmill",
    (2, -1): "travelling_castle",
    (-1, 3): "church",
    (0, 3): "big_tavern",
    (1, 3): "statue",
    (3, 3): "guardtower",
}


def _building(type_id: str) -> Building:
    return next(b for b in load_buildings().buildings if b.type_id == type_id)


def _example_kingdom() -> Kingdom:
    dominoes = load_dominoes()
    kingdom = Kingdom.for_seats(4)
    for number, cell, rotation in _EXAMPLE_PLACEMENTS:
        kingdom = kingdom.place(dominoes[number - 1], DominoPlacement(cell, rotation))
    for cell, type_id in _EXAMPLE_BUILDINGS.items():
        kingdom = kingdom.with_building(cell, _building(type_id))
    return kingdom


def test_the_example_kingdom_is_complete() -> None:
    kingdom = _example_kingdom()
    assert len(kingdom.squares) == 24
    assert kingdom.bounds == (-1, -1, 3, 3)
    assert kingdom.open_town_squares() == ()


def test_the_rulebook_example_scores_71() -> None:
    # RULES.md 7: 11 coins; towers = Travelling Castle 1 + Guardtower 2; queen hosted.
    towers = sum(_building(t).towers for t in _EXAMPLE_BUILDINGS.values())
    assert towers == 3
    score = score_kingdom(_example_kingdom(), coins=11, towers=3, knights=4, hosts_queen=True)
    assert score == ScoreBreakdown(coins=3, territories=41, buildings=27)
    assert score.total == 71


@pytest.mark.parametrize(
    ("terrain", "sizes_and_crowns", "points"),
    [
        (Terrain.WHEAT, [(3, 1)], 3),
        (Terrain.FOREST, [(1, 0), (1, 1), (2, 1)], 3),
        (Terrain.LAKE, [(3, 2)], 6),
        (Terrain.GRASSLAND, [(4, 3)], 12),
        (Terrain.SWAMP, [(1, 1)], 1),
        (Terrain.MINE, [(3, 4)], 12),
        (Terrain.TOWN, [(1, 0), (1, 0), (1, 0), (3, 0)], 0),
    ],
    ids=str,
)
def test_the_example_territories_match_the_rulebook(
    terrain: Terrain, sizes_and_crowns: list[tuple[int, int]], points: int
) -> None:
    found = [t for t in territories(_example_kingdom()) if t.terrain is terrain]
    assert sorted((t.size, t.crowns) for t in found) == sizes_and_crowns
    assert sum(t.points for t in found) == points


def test_the_queen_crowns_the_largest_territory() -> None:
    # RULES.md 7: grassland 4 squares x (3 crowns + queen) = 16 instead of 12.
    kingdom = _example_kingdom()
    assert largest_territory_size(kingdom) == 4
    assert territory_points(kingdom, hosts_queen=True) - territory_points(kingdom) == 4


@pytest.mark.parametrize(
    ("type_id", "points"),
    [
        ("sawmill", 6),
        ("travelling_castle", 3),
        ("church", 8),
        ("big_tavern", 2),
        ("statue", 5),
        ("guardtower", 3),
    ],
    ids=str,
)
def test_each_example_building_scores_as_in_the_rulebook(type_id: str, points: int) -> None:
    example = _example_kingdom()
    (cell,) = [cell for cell, t in _EXAMPLE_BUILDINGS.items() if t == type_id]
    alone = Kingdom.of(example.size, example.squares, {cell: example.buildings[cell]})
    assert building_points(alone, towers=3, knights=4) == points


# ---------------------------------------------------------------------------- rules


def _square(terrain: Terrain, crowns: int = 0) -> Square:
    return Square(terrain, crowns)


def test_a_territory_without_crowns_scores_nothing() -> None:
    kingdom = Kingdom.of(5, {(1, 0): _square(Terrain.LAKE), (2, 0): _square(Terrain.LAKE)})
    assert [(t.size, t.points) for t in territories(kingdom)] == [(2, 0)]
    assert territory_points(kingdom) == 0


def test_the_castle_joins_no_territory() -> None:
    wheat = _square(Terrain.WHEAT, 1)
    kingdom = Kingdom.of(5, {(-1, 0): wheat, (1, 0): wheat})
    assert [t.size for t in territories(kingdom)] == [1, 1]
    assert territory_points(kingdom) == 2


def test_building_crowns_count_for_their_town_territory() -> None:
    # RULES.md 6: the Queen's Tower's crown counts for the town territory holding it.
    town = _square(Terrain.TOWN)
    kingdom = Kingdom.of(5, {(1, 0): town, (2, 0): town, (3, 0): town})
    kingdom = kingdom.with_building((2, 0), _building("queens_tower"))
    (territory,) = territories(kingdom)
    assert (territory.size, territory.crowns, territory.points) == (3, 1, 3)


def test_the_queen_adds_the_largest_size_even_when_tied() -> None:
    # RULES.md 5: among tied largest territories the choice does not change the score.
    lake, forest = _square(Terrain.LAKE), _square(Terrain.FOREST)
    crowned = _square(Terrain.FOREST, 2)
    kingdom = Kingdom.of(5, {(1, 0): lake, (2, 0): lake, (-1, 0): crowned, (-2, 0): forest})
    assert territory_points(kingdom) == 4
    assert territory_points(kingdom, hosts_queen=True) == 6


def test_the_queen_on_a_bare_castle_adds_nothing() -> None:
    assert territory_points(Kingdom.empty(5), hosts_queen=True) == 0


@pytest.mark.parametrize(("coins", "points"), [(0, 0), (2, 0), (3, 1), (11, 3), (12, 4)])
def test_coins_score_one_point_per_full_three(coins: int, points: int) -> None:
    assert coin_points(coins) == points


def _tile(scoring: EndGameScoring | None) -> Building:
    return Building(1, "test", "Test", 0, 0, 0, OngoingEffect.NONE, scoring)


@pytest.mark.parametrize(
    ("scoring", "points"),
    [
        (EndGameScoring(ScoringKind.FLAT, 5), 5),
        (EndGameScoring(ScoringKind.PER_TOWER, 1), 7),
        (EndGameScoring(ScoringKind.PER_KNIGHT, 1), 2),
        (EndGameScoring(ScoringKind.PER_TERRITORY_OF_TERRAIN, 2, Terrain.WHEAT), 4),
        (EndGameScoring(ScoringKind.PER_TERRITORY_OF_TERRAIN, 2, Terrain.TOWN), 2),
        (EndGameScoring(ScoringKind.PER_TERRITORY_OF_TERRAIN, 2, Terrain.MINE), 0),
        (None, 0),
    ],
    ids=["flat", "per-tower", "per-knight", "wheat-territories", "town", "no-mine", "none"],
)
def test_building_points_by_kind(scoring: EndGameScoring | None, points: int) -> None:
    # Two separate wheat territories (no crowns needed, RULES.md 6) and one town.
    wheat, town = _square(Terrain.WHEAT), _square(Terrain.TOWN)
    kingdom = Kingdom.of(5, {(1, 0): wheat, (-1, 0): wheat, (0, 1): town})
    kingdom = kingdom.with_building((0, 1), _tile(scoring))
    assert building_points(kingdom, towers=7, knights=2) == points
