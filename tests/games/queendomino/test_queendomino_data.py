"""Queendomino's component data: the shipped files load and match RULES.md 1 and the data's
own counts; broken files fail with an error naming the file, the entry and the field; an
operator's building table overrides the shipped one.

Broken files are made by editing a copy of the shipped JSON and writing it to a temp file.
"""

from __future__ import annotations

import copy
import json
from collections import Counter
from collections.abc import Callable
from importlib import resources
from pathlib import Path
from typing import Any

import pytest

from botarena.server.games.queendomino import (
    BUILDING_COUNT,
    DOMINO_COUNT,
    ComponentDataError,
    OngoingEffect,
    ScoringKind,
    Terrain,
    load_buildings,
    load_dominoes,
)

Document = dict[str, Any]
Edit = Callable[[Document], None]

_DATA = resources.files("botarena.server.games.queendomino").joinpath("data")


def _shipped(name: str) -> Document:
    document: Document = json.loads(_DATA.joinpath(name).read_text("utf-8"))
    return document


def _write(tmp_path: Path, document: object, name: str) -> Path:
    path = tmp_path / name
    path.write_text(json.dumps(document), encoding="utf-8")
    return path


# ---------------------------------------------------------------------------- shipped data


def test_the_shipped_dominoes_are_the_48_numbered_ones() -> None:
    dominoes = load_dominoes()
    assert len(dominoes) == DOMINO_COUNT == 48
    assert [domino.number for domino in dominoes] == list(range(1, 49))


@pytest.mark.parametrize(
    ("terrain", "crowns_histogram"),
    [
        (Terrain.WHEAT, {0: 14, 1: 5}),
        (Terrain.FOREST, {0: 11, 1: 6}),
        (Terrain.LAKE, {0: 8, 1: 6}),
        (Terrain.GRASSLAND, {0: 8, 1: 2, 2: 2}),
        (Terrain.SWAMP, {0: 4, 1: 2, 2: 2}),
        (Terrain.MINE, {0: 1, 1: 1, 2: 3, 3: 1}),
        (Terrain.TOWN, {0: 20}),
    ],
    ids=str,
)
def test_the_squares_of_each_terrain_match_the_published_distribution(
    terrain: Terrain, crowns_histogram: dict[int, int]
) -> None:
    # dominoes.json distribution_check: an independent per-terrain table of the 96 squares.
    squares = [half for domino in load_dominoes() for half in domino.halves]
    assert Counter(s.crowns for s in squares if s.terrain is terrain) == crowns_histogram


def test_photo_confirmed_dominoes_are_as_printed() -> None:
    # dominoes.json confidence: photos confirm #25 (swamp 1 / wheat) and #45 (mine 3 / town).
    dominoes = load_dominoes()
    assert [(h.terrain, h.crowns) for h in dominoes[24].halves] == [
        (Terrain.SWAMP, 1),
        (Terrain.WHEAT, 0),
    ]
    assert [(h.terrain, h.crowns) for h in dominoes[44].halves] == [
        (Terrain.MINE, 3),
        (Terrain.TOWN, 0),
    ]


def test_the_shipped_buildings_are_32_tiles_with_unique_ids() -> None:
    table = load_buildings()
    assert len(table.buildings) == BUILDING_COUNT == 32
    assert sorted(b.id for b in table.buildings) == list(range(1, 33))
    assert table.source == "buildings.json"


def test_building_copies_per_type_match_the_file() -> None:
    expected = {t["type_id"]: t["count"] for t in _shipped("buildings.json")["building_types"]}
    assert Counter(b.type_id for b in load_buildings().buildings) == expected


def test_known_immediate_effects_add_up_to_the_published_totals() -> None:
    # buildings.json totals_known: the verified tiles grant 11 knights and 9 towers.
    buildings = load_buildings().buildings
    assert sum(b.knights for b in buildings) == 11
    assert sum(b.towers for b in buildings) == 9


def test_unknown_values_are_defaulted_and_listed() -> None:
    table = load_buildings()
    by_field: dict[str, set[int]] = {}
    for item in table.defaulted:
        by_field.setdefault(item.field, set()).add(item.building_id)
    unknown_grants = {*range(1, 9), *range(11, 15), 16, 22, *range(27, 33)}
    assert by_field == {
        "knights": unknown_grants,
        "towers": unknown_grants,
        # RULES.md 9 / buildings.json: Foundry, Church, Statue, Fortified Castle.
        "ongoing_effect": {11, 12, 13, 14, 22, 27, 28, 29},
    }
    statue = next(b for b in table.buildings if b.id == 27)
    assert (statue.knights, statue.towers, statue.ongoing_effect) == (0, 0, OngoingEffect.NONE)


def test_the_warning_names_every_defaulted_field_once() -> None:
    table = load_buildings()
    warning = table.warning()
    assert warning is not None
    assert warning.startswith("buildings.json: ")
    assert warning.count("(id ") == len(table.defaulted)
    assert "The Statue (id 27) ongoing_effect" in warning


@pytest.mark.parametrize(
    ("building_id", "knights", "towers", "effect", "scoring"),
    [
        (9, 1, 1, OngoingEffect.NONE, (ScoringKind.PER_TERRITORY_OF_TERRAIN, 2, Terrain.SWAMP)),
        (15, 0, 1, OngoingEffect.COIN_PER_TOWER, (ScoringKind.FLAT, 2, None)),
        (16, 0, 0, OngoingEffect.COIN_PER_KNIGHT, (ScoringKind.FLAT, 2, None)),
        (19, 3, 0, OngoingEffect.NONE, (ScoringKind.FLAT, 2, None)),
        (23, 0, 1, OngoingEffect.NONE, (ScoringKind.PER_TOWER, 1, None)),
        (25, 1, 0, OngoingEffect.NONE, (ScoringKind.PER_KNIGHT, 1, None)),
    ],
    ids=["magic-school", "safe-towers", "safe-knights", "big-tavern", "travelling", "camp"],
)
def test_building_fields_are_parsed(
    building_id: int,
    knights: int,
    towers: int,
    effect: OngoingEffect,
    scoring: tuple[ScoringKind, int, Terrain | None],
) -> None:
    building = next(b for b in load_buildings().buildings if b.id == building_id)
    assert (building.knights, building.towers, building.ongoing_effect) == (knights, towers, effect)
    assert building.end_game_scoring is not None
    shield = building.end_game_scoring
    assert (shield.kind, shield.points, shield.terrain) == scoring


def test_the_queens_tower_has_a_crown_and_no_shield() -> None:
    towers = [b for b in load_buildings().buildings if b.type_id == "queens_tower"]
    assert len(towers) == 3
    assert all(b.crowns == 1 and b.end_game_scoring is None for b in towers)


def test_the_shipped_tables_are_loaded_once() -> None:
    assert load_buildings() is load_buildings()
    assert load_dominoes() is load_dominoes()


# ---------------------------------------------------------------------------- broken files


def _set(path: tuple[str | int, ...], value: object) -> Edit:
    def edit(document: Document) -> None:
        target: Any = document
        for key in path[:-1]:
            target = target[key]
        target[path[-1]] = value

    return edit


def _delete(path: tuple[str | int, ...]) -> Edit:
    def edit(document: Document) -> None:
        target: Any = document
        for key in path[:-1]:
            target = target[key]
        del target[path[-1]]

    return edit


def _append(path: tuple[str | int, ...], value: object) -> Edit:
    def edit(document: Document) -> None:
        target: Any = document
        for key in path:
            target = target[key]
        target.append(value)

    return edit


def _drop_last(key: str) -> Edit:
    def edit(document: Document) -> None:
        document[key].pop()

    return edit


_DOMINO_CASES: list[tuple[str, Edit, str | None, str | None, str]] = [
    ("missing-list", _delete(("dominoes",)), None, "dominoes", "missing"),
    ("47-dominoes", _drop_last("dominoes"), None, "dominoes", "expected 48 entries"),
    ("list-not-a-list", _set(("dominoes",), {}), None, "dominoes", "expected a list"),
    (
        "entry-not-an-object",
        _set(("dominoes", 3), 7),
        "dominoes[3]",
        None,
        "expected an object",
    ),
    (
        "number-missing",
        _delete(("dominoes", 3, "number")),
        "dominoes[3]",
        "number",
        "missing",
    ),
    (
        "number-out-of-range",
        _set(("dominoes", 3, "number"), 49),
        "dominoes[3]",
        "number",
        "from 1 to 48, got 49",
    ),
    (
        "number-twice",
        _set(("dominoes", 3, "number"), 1),
        "dominoes[3] (number 1)",
        "number",
        "appears twice",
    ),
    (
        "three-halves",
        _append(("dominoes", 3, "halves"), {}),
        "dominoes[3] (number 4)",
        "halves",
        "expected a list of 2 squares",
    ),
    (
        "unknown-terrain",
        _set(("dominoes", 4, "halves", 1, "terrain"), "desert"),
        "dominoes[4] (number 5)",
        "halves[1].terrain",
        "expected one of 'wheat'",
    ),
    (
        "crowns-too-many",
        _set(("dominoes", 4, "halves", 0, "crowns"), 4),
        "dominoes[4] (number 5)",
        "halves[0].crowns",
        "from 0 to 3, got 4",
    ),
    (
        "crowns-not-an-integer",
        _set(("dominoes", 4, "halves", 0, "crowns"), True),
        "dominoes[4] (number 5)",
        "halves[0].crowns",
        "expected an integer, got True",
    ),
    (
        "town-without-construction-site",
        _set(("dominoes", 47, "halves", 0, "construction_site"), False),
        "dominoes[47] (number 48)",
        "halves[0].construction_site",
        "must be true for town",
    ),
    (
        "crowned-town",
        _set(("dominoes", 47, "halves", 0, "crowns"), 1),
        "dominoes[47] (number 48)",
        "halves[0].crowns",
        "no printed crown",
    ),
]


@pytest.mark.parametrize(
    ("edit", "entry", "field", "problem"),
    [case[1:] for case in _DOMINO_CASES],
    ids=[case[0] for case in _DOMINO_CASES],
)
def test_a_broken_dominoes_file_names_file_entry_and_field(
    tmp_path: Path, edit: Edit, entry: str | None, field: str | None, problem: str
) -> None:
    document = copy.deepcopy(_shipped("dominoes.json"))
    edit(document)
    path = _write(tmp_path, document, "dominoes.json")
    with pytest.raises(ComponentDataError) as caught:
        load_dominoes(path)
    error = caught.value
    assert (error.file, error.entry, error.field) == (str(path), entry, field)
    assert problem in error.problem
    assert str(path) in str(error)


_BUILDING_CASES: list[tuple[str, Edit, str | None, str | None, str]] = [
    ("31-tiles", _drop_last("tiles"), None, "tiles", "expected 32 entries"),
    ("id-missing", _delete(("tiles", 0, "id")), "tiles[0]", "id", "missing"),
    ("id-twice", _set(("tiles", 1, "id"), 1), "tiles[1] (id 1)", "id", "appears twice"),
    ("name-empty", _set(("tiles", 0, "name"), ""), "tiles[0] (id 1)", "name", "non-empty"),
    (
        "printed-cost",
        _set(("tiles", 0, "cost"), 3),
        "tiles[0] (id 1)",
        "cost",
        "builders' board sets the price",
    ),
    (
        "negative-knights",
        _set(("tiles", 16, "knights"), -1),
        "tiles[16] (id 17)",
        "knights",
        "at least 0, got -1",
    ),
    (
        "towers-missing",
        _delete(("tiles", 16, "towers")),
        "tiles[16] (id 17)",
        "towers",
        "missing",
    ),
    (
        "unknown-ongoing-effect",
        _set(("tiles", 14, "ongoing_effect"), "coin_per_crown"),
        "tiles[14] (id 15)",
        "ongoing_effect",
        "expected one of 'none', 'coin_per_knight', 'coin_per_tower'",
    ),
    (
        "unknown-scoring-kind",
        _set(("tiles", 14, "end_game_scoring", "kind"), "per_crown"),
        "tiles[14] (id 15)",
        "end_game_scoring.kind",
        "expected one of 'flat'",
    ),
    (
        "per-territory-without-terrain",
        _delete(("tiles", 0, "end_game_scoring", "terrain")),
        "tiles[0] (id 1)",
        "end_game_scoring.terrain",
        "missing",
    ),
    (
        "flat-without-points",
        _delete(("tiles", 14, "end_game_scoring", "points")),
        "tiles[14] (id 15)",
        "end_game_scoring.points",
        "missing",
    ),
]


@pytest.mark.parametrize(
    ("edit", "entry", "field", "problem"),
    [case[1:] for case in _BUILDING_CASES],
    ids=[case[0] for case in _BUILDING_CASES],
)
def test_a_broken_buildings_file_names_file_entry_and_field(
    tmp_path: Path, edit: Edit, entry: str | None, field: str | None, problem: str
) -> None:
    document = copy.deepcopy(_shipped("buildings.json"))
    edit(document)
    path = _write(tmp_path, document, "override.json")
    with pytest.raises(ComponentDataError) as caught:
        load_buildings(path)
    error = caught.value
    assert (error.file, error.entry, error.field) == (str(path), entry, field)
    assert problem in error.problem


@pytest.mark.parametrize("loader", [load_dominoes, load_buildings], ids=["dominoes", "buildings"])
def test_a_file_that_is_not_json_is_reported(
    tmp_path: Path, loader: Callable[[Path], object]
) -> None:
    path = tmp_path / "broken.json"
    path.write_text('{"tiles": [', encoding="utf-8")
    with pytest.raises(ComponentDataError, match="not valid JSON") as caught:
        loader(path)
    assert (caught.value.file, caught.value.entry, caught.value.field) == (str(path), None, None)


@pytest.mark.parametrize("loader", [load_dominoes, load_buildings], ids=["dominoes", "buildings"])
def test_a_top_level_list_is_reported(tmp_path: Path, loader: Callable[[Path], object]) -> None:
    path = _write(tmp_path, [], "list.json")
    with pytest.raises(ComponentDataError, match="expected a JSON object at the top level"):
        loader(path)


def test_a_missing_override_file_is_reported(tmp_path: Path) -> None:
    path = tmp_path / "nowhere.json"
    with pytest.raises(ComponentDataError, match="cannot be read") as caught:
        load_buildings(path)
    assert caught.value.file == str(path)


# ---------------------------------------------------------------------------- override


def test_an_override_table_replaces_the_unknown_values(tmp_path: Path) -> None:
    document = copy.deepcopy(_shipped("buildings.json"))
    for tile in document["tiles"]:
        if tile["type_id"] == "statue":
            tile.update(knights=1, towers=0, ongoing_effect="coin_per_knight")
    path = _write(tmp_path, document, "physical.json")
    table = load_buildings(str(path))
    assert table.source == str(path)
    statues = [b for b in table.buildings if b.type_id == "statue"]
    assert {(b.knights, b.towers, b.ongoing_effect) for b in statues} == {
        (1, 0, OngoingEffect.COIN_PER_KNIGHT)
    }
    assert {27, 28, 29}.isdisjoint(item.building_id for item in table.defaulted)
    assert len(table.defaulted) == len(load_buildings().defaulted) - 9
    # The shipped table is unchanged by loading an override.
    assert load_buildings().source == "buildings.json"


def test_a_complete_override_has_no_warning(tmp_path: Path) -> None:
    document = copy.deepcopy(_shipped("buildings.json"))
    for tile in document["tiles"]:
        for field in ("knights", "towers"):
            tile[field] = 0 if tile[field] is None else tile[field]
        if tile["ongoing_effect"] is None:
            tile["ongoing_effect"] = "none"
    table = load_buildings(_write(tmp_path, document, "complete.json"))
    assert table.defaulted == ()
    assert table.warning() is None
