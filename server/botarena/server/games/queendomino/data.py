"""Loading and validating Queendomino's component data (``dominoes.json``, ``buildings.json``).

Both files ship inside this package (``data/``) and are read with
:mod:`importlib.resources`. Each is checked against a schema written here, in code; any
mismatch raises :class:`ComponentDataError` naming the file, the entry and the field.

Rulings implemented so far:

* RULES.md 1: exactly 48 dominoes numbered 1 to 48, two squares each, 0 to 3 crowns per
  square; a square is a construction square exactly when it is town; no town square
  carries a printed crown (``dominoes.json``: terrains.town.note).
* RULES.md 1, 6: exactly 32 building tiles with unique ids. ``cost`` must be ``null``: the
  price comes from the builders' board space (RULES.md 3C).
* RULES.md 9 **[engine choice]**: an unknown (``null``) ``knights`` or ``towers`` is 0
  and an unknown ``ongoing_effect`` is no effect. :attr:`BuildingTable.defaulted` lists
  every field so defaulted, so the server can log one warning; the engine never logs.
* An operator holding the physical game can pass their own building table
  (``load_buildings(path)``), validated the same way.

>>> dominoes = load_dominoes()
>>> len(dominoes), dominoes[44]
(48, Domino(number=45, halves=(Square(terrain=<Terrain.MINE: 'mine'>, crowns=3), \
Square(terrain=<Terrain.TOWN: 'town'>, crowns=0))))
>>> table = load_buildings()
>>> len(table.buildings), table.source
(32, 'buildings.json')
>>> sorted({field.field for field in table.defaulted})
['knights', 'ongoing_effect', 'towers']
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from functools import cache
from importlib import resources
from pathlib import Path
from typing import TypeVar

from botarena.server.games.queendomino.components import (
    Building,
    Domino,
    EndGameScoring,
    OngoingEffect,
    ScoringKind,
    Square,
    Terrain,
)

__all__ = [
    "BUILDING_COUNT",
    "DOMINO_COUNT",
    "MAX_CROWNS_PER_SQUARE",
    "BuildingTable",
    "ComponentDataError",
    "DefaultedField",
    "load_buildings",
    "load_dominoes",
    "parse_buildings",
    "parse_dominoes",
]

DOMINO_COUNT = 48
"""Dominoes in the box, all used whatever the seat count (RULES.md 1, 2)."""
BUILDING_COUNT = 32
"""Building tiles in the box (RULES.md 1)."""
MAX_CROWNS_PER_SQUARE = 3
"""The most crowns printed on one square (the mine of domino 45)."""

_PACKAGE = "botarena.server.games.queendomino"
_DOMINOES_FILE = "dominoes.json"
_BUILDINGS_FILE = "buildings.json"

_T = TypeVar("_T")


class ComponentDataError(ValueError):
    """A component data file is unreadable or does not match its schema.

    Attributes:
        file: The file's name or path, as given.
        entry: The offending entry (``"dominoes[4]"``, ``"tiles[15] (id 16)"``), or
            ``None`` when the file as a whole is wrong.
        field: The offending field (``"halves[1].crowns"``), or ``None``.
        problem: What is wrong, in words.
    """

    def __init__(self, file: str, entry: str | None, field: str | None, problem: str) -> None:
        where = file
        if entry is not None:
            where += f": {entry}"
        if field is not None:
            where += f", field {field!r}"
        super().__init__(f"{where}: {problem}")
        self.file = file
        self.entry = entry
        self.field = field
        self.problem = problem


@dataclass(frozen=True, slots=True)
class DefaultedField:
    """A building field that was ``null`` in the data and got its stand-in value.

    Attributes:
        building_id: The tile's id.
        name: The tile's name.
        field: ``"knights"``, ``"towers"`` or ``"ongoing_effect"``.
    """

    building_id: int
    name: str
    field: str


@dataclass(frozen=True, slots=True)
class BuildingTable:
    """The 32 building tiles as loaded, and what was unknown in the file.

    Attributes:
        buildings: The tiles in the file's order.
        defaulted: Every ``null`` field replaced by its stand-in (0 / no effect).
        source: The file the table came from (``"buildings.json"`` for the shipped one).
    """

    buildings: tuple[Building, ...]
    defaulted: tuple[DefaultedField, ...]
    source: str

    def warning(self) -> str | None:
        """Return one sentence for the server's log naming the defaulted fields, or ``None``.

        >>> BuildingTable((), (DefaultedField(30, "The Queen's Tower", "knights"),), "x.json")\\
        ... .warning()
        "x.json: unknown values replaced by 0 / no effect: The Queen's Tower (id 30) knights"
        """
        if not self.defaulted:
            return None
        parts = ", ".join(f"{d.name} (id {d.building_id}) {d.field}" for d in self.defaulted)
        return f"{self.source}: unknown values replaced by 0 / no effect: {parts}"

    def summary(self) -> str | None:
        """Return one short line for a tool's user on the stand-ins, or ``None``.

        >>> BuildingTable((), (DefaultedField(30, "The Queen's Tower", "knights"),), "x.json")\\
        ... .summary()
        'x.json: 1 value of 1 building is a stand-in (0 / no effect); README: Queendomino'
        """
        if not self.defaulted:
            return None
        values, buildings = len(self.defaulted), len({d.building_id for d in self.defaulted})
        counted = f"{values} value{'s' * (values != 1)} of {buildings} "
        counted += f"building{'s' * (buildings != 1)}"
        verb = "are stand-ins" if values != 1 else "is a stand-in"
        return f"{self.source}: {counted} {verb} (0 / no effect); README: Queendomino"


# ---------------------------------------------------------------------------- schema helpers


class _Entry:
    """Where in a file a value sits, to name it in errors."""

    def __init__(self, file: str, entry: str) -> None:
        self.file = file
        self.entry = entry

    def fail(self, field: str | None, problem: str) -> ComponentDataError:
        return ComponentDataError(self.file, self.entry, field, problem)

    def get(self, mapping: Mapping[str, object], key: str, field: str | None = None) -> object:
        """Return ``mapping[key]``; ``field`` is its full name for errors (default ``key``)."""
        if key not in mapping:
            raise self.fail(field or key, "missing")
        return mapping[key]

    def integer(self, value: object, field: str, low: int, high: int | None = None) -> int:
        # bool is an int in Python; `true` is never a count.
        if not isinstance(value, int) or isinstance(value, bool):
            raise self.fail(field, f"expected an integer, got {value!r}")
        if value < low or (high is not None and value > high):
            bound = f"from {low} to {high}" if high is not None else f"at least {low}"
            raise self.fail(field, f"expected an integer {bound}, got {value}")
        return value

    def text(self, value: object, field: str) -> str:
        if not isinstance(value, str) or not value:
            raise self.fail(field, f"expected a non-empty string, got {value!r}")
        return value

    def mapping(self, value: object, field: str | None) -> Mapping[str, object]:
        if not isinstance(value, dict):
            raise self.fail(field, f"expected an object, got {type(value).__name__}")
        return value

    def choice(self, value: object, field: str, kind: Callable[[str], _T], names: str) -> _T:
        try:
            if not isinstance(value, str):
                raise ValueError(value)
            return kind(value)
        except ValueError:
            raise self.fail(field, f"expected one of {names}, got {value!r}") from None


def _names(kind: type[Terrain] | type[OngoingEffect] | type[ScoringKind]) -> str:
    return ", ".join(repr(member.value) for member in kind)


def _entries(document: object, file: str, key: str, count: int) -> list[object]:
    """Return the list under ``key`` of a JSON object, checking it has ``count`` items."""
    if not isinstance(document, dict):
        raise ComponentDataError(file, None, None, "expected a JSON object at the top level")
    if key not in document:
        raise ComponentDataError(file, None, key, "missing")
    entries = document[key]
    if not isinstance(entries, list):
        raise ComponentDataError(file, None, key, "expected a list")
    if len(entries) != count:
        raise ComponentDataError(
            file, None, key, f"expected {count} entries (RULES.md 1), got {len(entries)}"
        )
    return entries


def _read_file(path: str | Path) -> str:
    try:
        return Path(path).read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise ComponentDataError(str(path), None, None, f"cannot be read: {exc}") from None


def _read(text: str, file: str) -> object:
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        raise ComponentDataError(file, None, None, f"not valid JSON: {exc}") from None


# ---------------------------------------------------------------------------- dominoes


def _parse_square(where: _Entry, value: object, field: str) -> Square:
    half = where.mapping(value, field)
    terrain = where.choice(
        where.get(half, "terrain", f"{field}.terrain"), f"{field}.terrain", Terrain, _names(Terrain)
    )
    crowns = where.integer(
        where.get(half, "crowns", f"{field}.crowns"), f"{field}.crowns", 0, MAX_CROWNS_PER_SQUARE
    )
    site = where.get(half, "construction_site", f"{field}.construction_site")
    if not isinstance(site, bool):
        raise where.fail(f"{field}.construction_site", f"expected true or false, got {site!r}")
    # RULES.md 1: every town square, and only a town square, is a construction square.
    if site != (terrain is Terrain.TOWN):
        raise where.fail(
            f"{field}.construction_site", f"must be {str(not site).lower()} for {terrain}"
        )
    # dominoes.json (terrains.town.note): town crowns come only from buildings and the queen.
    if terrain is Terrain.TOWN and crowns:
        raise where.fail(f"{field}.crowns", "a town square carries no printed crown")
    return Square(terrain, crowns)


def parse_dominoes(text: str, file: str = _DOMINOES_FILE) -> tuple[Domino, ...]:
    """Parse and validate the text of a ``dominoes.json``.

    Args:
        text: The file's content.
        file: The name to use in errors.

    Returns:
        The 48 dominoes, sorted by number.

    Raises:
        ComponentDataError: The text is not JSON or does not match the schema.
    """
    entries = _entries(_read(text, file), file, "dominoes", DOMINO_COUNT)
    dominoes: dict[int, Domino] = {}
    for index, value in enumerate(entries):
        where = _Entry(file, f"dominoes[{index}]")
        entry = where.mapping(value, None)
        number = where.integer(where.get(entry, "number"), "number", 1, DOMINO_COUNT)
        where = _Entry(file, f"dominoes[{index}] (number {number})")
        if number in dominoes:
            raise where.fail("number", f"number {number} appears twice")
        halves = where.get(entry, "halves")
        if not isinstance(halves, list) or len(halves) != 2:
            raise where.fail("halves", f"expected a list of 2 squares, got {halves!r}")
        first = _parse_square(where, halves[0], "halves[0]")
        second = _parse_square(where, halves[1], "halves[1]")
        dominoes[number] = Domino(number, (first, second))
    return tuple(dominoes[number] for number in sorted(dominoes))


@cache
def _shipped_dominoes() -> tuple[Domino, ...]:
    text = resources.files(_PACKAGE).joinpath("data", _DOMINOES_FILE).read_text("utf-8")
    return parse_dominoes(text)


def load_dominoes(path: str | Path | None = None) -> tuple[Domino, ...]:
    """Return the 48 dominoes, sorted by number: the shipped ones or those of ``path``.

    Args:
        path: A JSON file in the shape of the shipped ``dominoes.json``, or ``None``.

    Raises:
        ComponentDataError: The file cannot be read or does not match the schema.
    """
    if path is None:
        return _shipped_dominoes()
    return parse_dominoes(_read_file(path), str(path))


# ---------------------------------------------------------------------------- buildings


def _parse_scoring(where: _Entry, value: object) -> EndGameScoring | None:
    if value is None:
        return None
    shield = where.mapping(value, "end_game_scoring")
    kind = where.choice(
        where.get(shield, "kind", "end_game_scoring.kind"),
        "end_game_scoring.kind",
        ScoringKind,
        _names(ScoringKind),
    )
    if kind is ScoringKind.FLAT:
        points = where.integer(
            where.get(shield, "points", "end_game_scoring.points"), "end_game_scoring.points", 0
        )
        return EndGameScoring(kind, points)
    each = where.integer(
        where.get(shield, "points_each", "end_game_scoring.points_each"),
        "end_game_scoring.points_each",
        0,
    )
    if kind is not ScoringKind.PER_TERRITORY_OF_TERRAIN:
        return EndGameScoring(kind, each)
    terrain = where.choice(
        where.get(shield, "terrain", "end_game_scoring.terrain"),
        "end_game_scoring.terrain",
        Terrain,
        _names(Terrain),
    )
    return EndGameScoring(kind, each, terrain)


def _parse_building(
    where: _Entry, entry: Mapping[str, object], defaulted: list[DefaultedField]
) -> Building:
    building_id = where.integer(where.get(entry, "id"), "id", 1)
    name = where.text(where.get(entry, "name"), "name")
    type_id = where.text(where.get(entry, "type_id"), "type_id")
    # RULES.md 3C / buildings.json cost_rule: the price is the board space's, never printed.
    if entry.get("cost") is not None:
        raise where.fail("cost", "must be null or absent: the builders' board sets the price")
    crowns = where.integer(where.get(entry, "crowns"), "crowns", 0)
    counts: dict[str, int] = {}
    for field in ("knights", "towers"):
        value = where.get(entry, field)
        if value is None:
            # RULES.md 9 [engine choice]: an unknown grant is 0, and reported.
            defaulted.append(DefaultedField(building_id, name, field))
            counts[field] = 0
        else:
            counts[field] = where.integer(value, field, 0)
    effect_value = where.get(entry, "ongoing_effect")
    if effect_value is None:
        # RULES.md 9 [engine choice]: an unknown ongoing effect is no effect, and reported.
        defaulted.append(DefaultedField(building_id, name, "ongoing_effect"))
        effect = OngoingEffect.NONE
    else:
        effect = where.choice(effect_value, "ongoing_effect", OngoingEffect, _names(OngoingEffect))
    scoring = _parse_scoring(where, where.get(entry, "end_game_scoring"))
    return Building(
        id=building_id,
        type_id=type_id,
        name=name,
        crowns=crowns,
        knights=counts["knights"],
        towers=counts["towers"],
        ongoing_effect=effect,
        end_game_scoring=scoring,
    )


def parse_buildings(text: str, file: str = _BUILDINGS_FILE) -> BuildingTable:
    """Parse and validate the text of a ``buildings.json`` (shipped or an operator's).

    Args:
        text: The file's content: an object whose ``"tiles"`` list holds 32 tiles.
        file: The name to use in errors and in :attr:`BuildingTable.source`.

    Returns:
        The building table, with ``null`` knights/towers as 0 and a ``null`` ongoing
        effect as none, each listed in :attr:`BuildingTable.defaulted`.

    Raises:
        ComponentDataError: The text is not JSON or does not match the schema.
    """
    entries = _entries(_read(text, file), file, "tiles", BUILDING_COUNT)
    buildings: list[Building] = []
    defaulted: list[DefaultedField] = []
    seen: set[int] = set()
    for index, value in enumerate(entries):
        where = _Entry(file, f"tiles[{index}]")
        entry = where.mapping(value, None)
        if isinstance(entry.get("id"), int):
            where = _Entry(file, f"tiles[{index}] (id {entry['id']})")
        building = _parse_building(where, entry, defaulted)
        if building.id in seen:
            raise where.fail("id", f"id {building.id} appears twice")
        seen.add(building.id)
        buildings.append(building)
    return BuildingTable(tuple(buildings), tuple(defaulted), file)


@cache
def _shipped_buildings() -> BuildingTable:
    text = resources.files(_PACKAGE).joinpath("data", _BUILDINGS_FILE).read_text("utf-8")
    return parse_buildings(text)


def load_buildings(path: str | Path | None = None) -> BuildingTable:
    """Return the building table: the shipped one, or an operator's override file.

    Args:
        path: A JSON file in the shape of the shipped ``buildings.json`` (the server's
            ``--queendomino-buildings``), or ``None`` for the shipped table.

    Returns:
        The validated table; check :meth:`BuildingTable.warning` to log unknown fields.

    Raises:
        ComponentDataError: The file cannot be read or does not match the schema.
    """
    if path is None:
        return _shipped_buildings()
    return parse_buildings(_read_file(path), str(path))
