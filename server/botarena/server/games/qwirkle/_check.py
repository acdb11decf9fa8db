"""Check one placement against RULES.md (legality 1-6, the opening) and score it.

Internal to the Qwirkle engine. This is the slow, explicit path used by ``check`` and
``apply``: it tests the rules one by one, in the order RULES.md numbers them, so that a
rejected move gets the reason of the first rule it breaks and a sentence naming the
cell or tile. Move generation (``_generate``) does not use it; the tests check that the
two agree.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from typing import TypeGuard

from botarena.server.games._core import IllegalMoveError
from botarena.server.games.qwirkle._board import HALF, key_of, line_points
from botarena.server.games.qwirkle.errors import QwirkleReason
from botarena.server.games.qwirkle.moves import Cell, Placement
from botarena.server.games.qwirkle.tiles import Tile

__all__ = ["CheckedPlace", "check_place"]

CheckedPlace = tuple[tuple[Placement, ...], int]
"""The canonical placements (tiles as ``Tile``) and the score of an accepted placement."""

_MAX_LINE = 6


def _reject(reason: QwirkleReason, message: str) -> IllegalMoveError:
    return IllegalMoveError(reason, message)


def _is_int(value: object) -> TypeGuard[int]:
    return isinstance(value, int) and not isinstance(value, bool)


def _parse(placements: Sequence[object]) -> list[Placement]:
    parsed: list[Placement] = []
    for item in placements:
        if not isinstance(item, tuple) or len(item) != 3:
            raise _reject(
                QwirkleReason.MALFORMED_MOVE, f"{item!r} is not an (x, y, tile) placement"
            )
        x: object
        y: object
        tile: object
        x, y, tile = item
        if not (_is_int(x) and _is_int(y)):
            raise _reject(QwirkleReason.MALFORMED_MOVE, f"cell ({x!r}, {y!r}) is not two ints")
        if not _is_int(tile) or not 0 <= tile < 36:
            raise _reject(QwirkleReason.MALFORMED_MOVE, f"{tile!r} at ({x}, {y}) is not a tile")
        parsed.append(Placement(x, y, Tile(tile)))
    return parsed


def _describe(cell: Cell) -> str:
    return f"({cell[0]}, {cell[1]})"


def check_place(
    cells: Mapping[int, Tile],
    rack: Sequence[Tile],
    placements: Sequence[object],
    opening_size: int | None,
) -> CheckedPlace:
    """Return the canonical placements and score of a legal placement.

    Args:
        cells: The board, by cell key.
        rack: The placing seat's rack.
        placements: The move's ``(x, y, tile)`` triples, in any order.
        opening_size: The starter's opening size when this is the first move of the
            game, else ``None``.

    Raises:
        IllegalMoveError: The placement breaks a rule; ``reason`` is a ``QwirkleReason``.
    """
    parsed = _parse(placements)
    # Legality 1: at least one tile, all from the rack as a multiset.
    if not parsed:
        raise _reject(QwirkleReason.EMPTY_MOVE, "a placement needs at least one tile")
    held = Counter(rack)
    wanted = Counter(placement.tile for placement in parsed)
    for tile, count in wanted.items():
        if count > held[tile]:
            raise _reject(
                QwirkleReason.TILE_NOT_IN_RACK,
                f"the rack holds {held[tile]} {tile.label} but the move places {count}",
            )

    def tile_at(cell: Cell) -> Tile | None:
        x, y = cell
        return cells.get(key_of(x, y)) if abs(y) < HALF else None

    # Legality 2: distinct, empty target cells.
    placed: dict[Cell, Tile] = {}
    for x, y, tile in parsed:
        cell = (x, y)
        if cell in placed:
            raise _reject(
                QwirkleReason.DUPLICATE_CELL, f"two tiles are placed on cell {_describe(cell)}"
            )
        occupant = tile_at(cell)
        if occupant is not None:
            raise _reject(
                QwirkleReason.CELL_OCCUPIED,
                f"cell {_describe(cell)} already holds a {occupant.label}",
            )
        placed[cell] = tile

    # Legality 3: one row or one column. `axis` is the step along the shared line.
    xs = {x for x, _ in placed}
    ys = {y for _, y in placed}
    axes: list[Cell]
    if len(placed) == 1:
        axes = [(1, 0), (0, 1)]
    elif len(ys) == 1:
        axes = [(1, 0)]
    elif len(xs) == 1:
        axes = [(0, 1)]
    else:
        first, *_ = parsed
        stray = next(p for p in parsed if p.x != first.x and p.y != first.y)
        raise _reject(
            QwirkleReason.NOT_IN_ONE_LINE,
            f"cell {_describe(stray.cell)} is in neither row {first.y} nor column {first.x} "
            f"of cell {_describe(first.cell)}",
        )

    def content(cell: Cell) -> Tile | None:
        tile = placed.get(cell)
        return tile if tile is not None else tile_at(cell)

    # Legality 4: no empty cell between the lowest and highest placed cell (first move too).
    if len(placed) > 1:
        dx, dy = axes[0]
        low = min(placed)
        high = max(placed)
        cell = low
        while cell != high:
            cell = (cell[0] + dx, cell[1] + dy)
            if content(cell) is None:
                raise _reject(
                    QwirkleReason.GAP_IN_LINE,
                    f"cell {_describe(cell)} between {_describe(low)} and {_describe(high)} "
                    "is empty",
                )

    if opening_size is not None:
        # Setup 4 and its ruling: the first move is one line covering (0, 0), of exactly
        # the starter's opening size.
        if (0, 0) not in placed:
            raise _reject(
                QwirkleReason.OPENING_NOT_AT_ORIGIN, "the first move must cover cell (0, 0)"
            )
        if len(placed) < opening_size:
            raise _reject(
                QwirkleReason.OPENING_TOO_SMALL,
                f"the first move must place {opening_size} tiles (the opening size), "
                f"not {len(placed)}",
            )
    else:
        # Legality 5: some placed tile touches a board tile orthogonally.
        if not any(
            tile_at((x + dx, y + dy)) is not None
            for x, y in placed
            for dx, dy in ((1, 0), (-1, 0), (0, 1), (0, -1))
        ):
            raise _reject(
                QwirkleReason.NOT_CONNECTED,
                f"no placed tile touches a tile on the board (first: {_describe(min(placed))})",
            )

    # Legality 6 and scoring: every line through a placed tile, each counted once.
    score = 0
    lines_seen: set[tuple[Cell, Cell]] = set()
    for cell in sorted(placed):
        for dx, dy in ((1, 0), (0, 1)):
            start = cell
            while content((start[0] - dx, start[1] - dy)) is not None:
                start = (start[0] - dx, start[1] - dy)
            if (start, (dx, dy)) in lines_seen:
                continue
            lines_seen.add((start, (dx, dy)))
            line: list[tuple[Cell, Tile]] = []
            current = start
            occupant = content(current)
            while occupant is not None:
                line.append((current, occupant))
                current = (current[0] + dx, current[1] + dy)
                occupant = content(current)
            _check_line(line)
            score += line_points(len(line))

    if opening_size is not None and len(placed) == 1:
        score = 1  # Setup 5, ruling: a lone opening tile scores 1.
    canonical = tuple(sorted(Placement(x, y, tile) for (x, y), tile in placed.items()))
    return canonical, score


def _check_line(line: Sequence[tuple[Cell, Tile]]) -> None:
    if len(line) < 2:
        return
    ends = f"the line from {_describe(line[0][0])} to {_describe(line[-1][0])}"
    if len(line) > _MAX_LINE:
        raise _reject(
            QwirkleReason.LINE_TOO_LONG, f"{ends} would hold {len(line)} tiles; at most 6"
        )
    seen: dict[Tile, Cell] = {}
    for cell, tile in line:
        if tile in seen:
            raise _reject(
                QwirkleReason.DUPLICATE_IN_LINE,
                f"{ends} would hold {tile.label} twice, at {_describe(seen[tile])} "
                f"and {_describe(cell)}",
            )
        seen[tile] = cell
    tiles = [tile for _, tile in line]
    if len({tile.colour for tile in tiles}) == 1 or len({tile.shape for tile in tiles}) == 1:
        return
    first_cell, first = line[0]
    for cell, tile in line[1:]:
        if tile.colour != first.colour and tile.shape != first.shape:
            raise _reject(
                QwirkleReason.LINE_MIXES_ATTRIBUTES,
                f"{ends} mixes colours and shapes: {tile.label} at {_describe(cell)} "
                f"shares neither with {first.label} at {_describe(first_cell)}",
            )
    # Every tile agrees with the first in colour or shape, but not all in the same one.
    colour_mate = next(cell_tile for cell_tile in line[1:] if cell_tile[1].colour == first.colour)
    shape_mate = next(cell_tile for cell_tile in line[1:] if cell_tile[1].shape == first.shape)
    raise _reject(
        QwirkleReason.LINE_MIXES_ATTRIBUTES,
        f"{ends} mixes colours and shapes: {colour_mate[1].label} at "
        f"{_describe(colour_mate[0])} and {shape_mate[1].label} at {_describe(shape_mate[0])}",
    )
