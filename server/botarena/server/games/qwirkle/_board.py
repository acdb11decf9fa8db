"""The engine's fast board representation: cell keys, tile bitmasks and the frontier.

Internal to the Qwirkle engine; nothing here is public API.

* A cell ``(x, y)`` is the int key ``x * STRIDE + y``. Neighbours are ``key ± STRIDE``
  (along a row) and ``key ± 1`` (along a column). The key is unique while ``|y| < HALF``;
  every tile ever placed is within 108 + 6 cells of (0, 0), far inside that bound.
* A set of tiles is a 36-bit mask (bit ``tile``). ``KIND[t]`` is the set of faces that may
  share a line with ``t``: same colour or same shape (``t`` included). A line is valid
  (RULES.md: legality 6) iff it holds no tile twice and every tile lies in the
  intersection of the ``KIND`` of all its tiles: two tiles agreeing in neither colour nor
  shape are each outside the other's kind, and pairwise agreement forces one common
  attribute. So a line is summarised by ``(mask, kind)``, and a tile ``t`` may join it
  iff ``t`` is in ``kind & ~mask``.
* The *frontier* maps every empty cell next to a tile to a :data:`FrontierInfo`: for each
  axis, the tiles allowed there by the run(s) the cell would join, and the points that
  axis scores when a tile is put there. ``apply`` updates it incrementally, so a cross
  check during move generation is one dict lookup and one ``&``.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import TypeAlias

from botarena.server.games.qwirkle.tiles import Tile

__all__ = [
    "ALL_TILES",
    "HALF",
    "KIND",
    "SHIFT",
    "STRIDE",
    "FrontierInfo",
    "cell_of",
    "frontier_info",
    "key_of",
    "line_points",
    "mask_of",
    "updated_frontier",
]

SHIFT = 10
"""``STRIDE == 1 << SHIFT``."""
STRIDE = 1 << SHIFT
"""The key distance between (x, y) and (x + 1, y)."""
HALF = STRIDE >> 1
"""Keys are unique for ``|y| < HALF``."""

ALL_TILES = (1 << 36) - 1
"""The mask of all 36 faces."""

_COLOUR_MASKS = tuple(0b111111 << (6 * colour) for colour in range(6))
_SHAPE_MASKS = tuple(sum(1 << (6 * colour + shape) for colour in range(6)) for shape in range(6))

KIND: tuple[int, ...] = tuple(_COLOUR_MASKS[t // 6] | _SHAPE_MASKS[t % 6] for t in range(36))
"""``KIND[t]``: the mask of faces that agree with face ``t`` in colour or in shape."""

FrontierInfo: TypeAlias = tuple[int, int, int, int]
"""For an empty cell: (allowed along the row, row points, allowed along the column,
column points). "Allowed" is the mask of faces the neighbouring run(s) accept (all faces
when the cell has no neighbour on that axis); "points" is what that axis scores for a
tile put there alone on that axis (0 without neighbours, RULES.md: Scoring)."""


def key_of(x: int, y: int) -> int:
    """Return the key of cell (x, y); requires ``|y| < HALF``."""
    return x * STRIDE + y


def cell_of(key: int) -> tuple[int, int]:
    """Return the cell (x, y) of a key."""
    x = (key + HALF) >> SHIFT
    return (x, key - x * STRIDE)


def mask_of(tiles: Iterable[int]) -> int:
    """Return the mask of the distinct faces among ``tiles``."""
    mask = 0
    for tile in tiles:
        mask |= 1 << tile
    return mask


def line_points(length: int) -> int:
    """Return what a line of ``length`` tiles that holds a placed tile scores.

    RULES.md: Scoring. A line of 1 scores nothing; a completed line of 6 earns the
    Qwirkle bonus of 6 on top of its length.
    """
    if length < 2:
        return 0
    return length + 6 if length == 6 else length


def _axis_info(cells: Mapping[int, Tile], key: int, step: int) -> tuple[int, int]:
    mask = 0
    kind = ALL_TILES
    count = 0
    valid = True
    for direction in (-step, step):
        other = key + direction
        tile = cells.get(other)
        while tile is not None:
            bit = 1 << tile
            if mask & bit:
                valid = False  # the two runs share a face: no tile may bridge them
            mask |= bit
            kind &= KIND[tile]
            count += 1
            other += direction
            tile = cells.get(other)
    if count == 0:
        return ALL_TILES, 0
    if not valid or mask & ~kind:
        return 0, 0  # a bridge would merge two runs that cannot form one line
    return kind & ~mask, line_points(count + 1)


def frontier_info(cells: Mapping[int, Tile], key: int) -> FrontierInfo:
    """Return the frontier entry of the empty cell ``key`` on board ``cells``."""
    row_allowed, row_points = _axis_info(cells, key, STRIDE)
    column_allowed, column_points = _axis_info(cells, key, 1)
    return (row_allowed, row_points, column_allowed, column_points)


def updated_frontier(
    cells: Mapping[int, Tile], frontier: Mapping[int, FrontierInfo], placed: Iterable[int]
) -> dict[int, FrontierInfo]:
    """Return the frontier of ``cells`` (the board *after* placing on ``placed``).

    ``frontier`` is the frontier before the placement. Only cells at the ends of runs that
    a placed tile joined can change: walking from each placed cell in each direction over
    tiles, the first empty cell is such an end (and every new neighbour is one).
    """
    result = dict(frontier)
    touched: set[int] = set()
    for key in placed:
        result.pop(key, None)
        for direction in (STRIDE, -STRIDE, 1, -1):
            other = key + direction
            while other in cells:
                other += direction
            touched.add(other)
    for key in touched:
        result[key] = frontier_info(cells, key)
    return result
