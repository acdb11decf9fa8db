"""Fast generation of every legal Qwirkle move, each with its score.

Internal to the Qwirkle engine. The generator never calls the rule checker; the tests
compare it with a brute-force enumeration filtered by the checker.

How placements are enumerated (RULES.md: legality 1-6):

* **One tile.** For every frontier cell (an empty cell next to the board), the faces the
  rack holds that both the row and the column accept there. Its score is the frontier's
  row points plus column points.
* **Two or more tiles.** They lie in one row (or column) and, with the board tiles
  between and around them, form one maximal line. Its *anchor* is its first placed tile
  on a frontier cell (legality 5 says there is one, and that tile would be legal alone,
  so anchors are the frontier cells where some rack face fits). Before the anchor the
  line holds either the board run the anchor touches, or placed tiles on empty cells off
  the frontier (a placed tile on a frontier cell there would be the anchor). So for each
  anchor and each face that fits it, the left part is enumerated outward from the anchor
  (every face must agree with the line so far) and, for each left part, the right part
  is walked cell by cell: a board tile must agree with the line, an empty cell is either
  where the line stops or gets a rack face that the line and the frontier's cross check
  accept. A line is emitted each time it can stop with two or more placed tiles. A
  placement has one anchor and one left part, so it is produced exactly once, already in
  canonical (sorted) order.

The scores come out of the walk: the line's length (plus 6 for a line of 6) and each
placed tile's cross-line points from the frontier.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from functools import lru_cache
from itertools import combinations, permutations

from botarena.server.games.qwirkle._board import (
    ALL_TILES,
    HALF,
    KIND,
    SHIFT,
    STRIDE,
    FrontierInfo,
    line_points,
)
from botarena.server.games.qwirkle.moves import Exchange, Place, Placement
from botarena.server.games.qwirkle.tiles import Tile

__all__ = [
    "exchange_moves",
    "has_placement",
    "opening_moves",
    "place_moves",
]

_TILES: tuple[Tile, ...] = tuple(Tile)
_MAX_LINE = 6
_ROW_POINTS = 1  # index in a FrontierInfo
_COLUMN_POINTS = 3  # index in a FrontierInfo

_new_place = object.__new__
_set_placements: Callable[[Place, tuple[Placement, ...]], None] = vars(Place)["placements"].__set__
_set_score: Callable[[Place, int], None] = vars(Place)["score"].__set__
_new_tuple = tuple.__new__


def _place(placements: tuple[Placement, ...], score: int) -> Place:
    # The generator builds thousands of moves per call, already in canonical order:
    # setting the slots directly skips the frozen __init__ and the sort in __post_init__,
    # which halves the cost of each move.
    move: Place = _new_place(Place)
    _set_placements(move, placements)
    _set_score(move, score)
    return move


def _placement(key: int, tile: int) -> Placement:
    x = (key + HALF) >> SHIFT
    return _new_tuple(Placement, (x, key - x * STRIDE, _TILES[tile]))


def has_placement(frontier: Mapping[int, FrontierInfo], rack_mask: int) -> bool:
    """Return whether any placement is legal after the opening.

    Every legal placement contains a tile that would be legal alone (module docstring),
    so it is enough to look for a legal single tile.
    """
    return any(info[0] & info[2] & rack_mask for info in frontier.values())


def place_moves(
    cells: Mapping[int, Tile], frontier: Mapping[int, FrontierInfo], rack_mask: int
) -> list[Place]:
    """Return every legal placement after the opening, each once with its score.

    Order: single tiles by cell, then face; then lines along rows, then along columns,
    each by anchor cell, then by the faces chosen (at the anchor, to its left, to its
    right; lowest face first). The order depends only on the board and the rack.
    """
    allowed: dict[int, int] = {}
    anchors: list[int] = []
    moves: list[Place] = []
    for key in sorted(frontier):
        row_allowed, row_points, column_allowed, column_points = frontier[key]
        here = row_allowed & column_allowed & rack_mask
        allowed[key] = here
        if here:
            anchors.append(key)
            points = row_points + column_points
            while here:
                low = here & -here
                here ^= low
                moves.append(_place((_placement(key, low.bit_length() - 1),), points))
    if anchors:
        # Lines along a row check each placed tile's column, and the other way round.
        _line_moves(cells, frontier, allowed, anchors, rack_mask, STRIDE, _COLUMN_POINTS, moves)
        _line_moves(cells, frontier, allowed, anchors, rack_mask, 1, _ROW_POINTS, moves)
    return moves


def _line_moves(
    cells: Mapping[int, Tile],
    frontier: Mapping[int, FrontierInfo],
    allowed: Mapping[int, int],
    anchors: list[int],
    rack_mask: int,
    step: int,
    cross_points: int,
    moves: list[Place],
) -> None:
    """Append the placements of two or more tiles along one axis (``step``) to ``moves``.

    Each line is built from its *anchor*, the first placed tile on a frontier cell: the
    cells before the anchor are either the board run it touches or empty cells off the
    frontier (a placed tile on a frontier cell before it would be the anchor). So the
    left part is enumerated outward from the anchor's tile, which prunes every left part
    that the anchor's tile rejects, and the right part is walked from the anchor on.
    ``cross_points`` is the index in a ``FrontierInfo`` of the points of the other axis.
    """
    cells_get = cells.get
    allowed_get = allowed.get
    append = moves.append
    kinds = KIND

    def extend_right(
        key: int,
        length: int,
        mask: int,
        kind: int,
        placed: tuple[Placement, ...],
        points: int,
    ) -> None:
        # Take in the board tiles from `key` on; the line must accept each of them.
        tile = cells_get(key)
        while tile is not None:
            bit = 1 << tile
            if mask & bit or not kind & bit:
                return
            length += 1
            if length > _MAX_LINE:
                return
            mask |= bit
            kind &= kinds[tile]
            key += step
            tile = cells_get(key)
        # `key` is empty: the line may stop before it ...
        if len(placed) > 1:
            append(_place(placed, points + line_points(length)))
        if length == _MAX_LINE:
            return
        # ... or go on with a rack face at `key`.
        here = allowed_get(key)
        if here is None:
            candidates = kind & ~mask & rack_mask
            extra = 0
        else:
            candidates = kind & ~mask & here
            extra = frontier[key][cross_points]
        following = key + step
        while candidates:
            low = candidates & -candidates
            candidates ^= low
            face = low.bit_length() - 1
            extend_right(
                following,
                length + 1,
                mask | low,
                kind & kinds[face],
                (*placed, _placement(key, face)),
                points + extra,
            )

    def extend_left(
        key: int,
        room: int,
        after_anchor: int,
        length: int,
        mask: int,
        kind: int,
        placed: tuple[Placement, ...],
        points: int,
    ) -> None:
        extend_right(after_anchor, length, mask, kind, placed, points)
        if not room or length == _MAX_LINE:
            return
        candidates = kind & ~mask & rack_mask
        while candidates:
            low = candidates & -candidates
            candidates ^= low
            face = low.bit_length() - 1
            extend_left(
                key - step,
                room - 1,
                after_anchor,
                length + 1,
                mask | low,
                kind & kinds[face],
                (_placement(key, face), *placed),
                points,
            )

    for anchor in anchors:
        length = 0
        mask = 0
        kind = ALL_TILES
        room = 0
        key = anchor - step
        tile = cells_get(key)
        if tile is not None:
            # The anchor extends a board run: the line starts where that run starts.
            while tile is not None:
                length += 1
                mask |= 1 << tile
                kind &= kinds[tile]
                key -= step
                tile = cells_get(key)
        else:
            # Free cells before the anchor: empty and off the frontier.
            while room < _MAX_LINE - 1 and key not in allowed and cells_get(key) is None:
                room += 1
                key -= step
        candidates = allowed[anchor] & kind & ~mask
        points = frontier[anchor][cross_points]
        while candidates:
            low = candidates & -candidates
            candidates ^= low
            face = low.bit_length() - 1
            line_mask = mask | low
            line_kind = kind & kinds[face]
            if not line_kind & ~line_mask & rack_mask:
                continue  # no second rack face fits this line
            if room:
                extend_left(
                    anchor - step,
                    room,
                    anchor + step,
                    length + 1,
                    line_mask,
                    line_kind,
                    (_placement(anchor, face),),
                    points,
                )
            else:
                extend_right(
                    anchor + step,
                    length + 1,
                    line_mask,
                    line_kind,
                    (_placement(anchor, face),),
                    points,
                )


def opening_moves(rack: tuple[Tile, ...], size: int) -> list[Place]:
    """Return every legal first move: a line of ``size`` tiles covering (0, 0).

    RULES.md: Setup 4-5. The tiles are a set of ``size`` distinct faces of the rack that
    share a colour or a shape (``size`` is the largest such set, so any valid line of
    ``size`` faces is one); the line lies along row 0 or column 0 through (0, 0). A lone
    tile scores 1 (ruling); otherwise the line scores like any line.
    """
    distinct = sorted(set(rack))
    groups: set[tuple[Tile, ...]] = set()
    for attribute in range(6):
        for group in (
            tuple(tile for tile in distinct if tile.colour == attribute),
            tuple(tile for tile in distinct if tile.shape == attribute),
        ):
            if len(group) == size:
                groups.add(group)
    moves: list[Place] = []
    if size == 1:
        return [_place((Placement(0, 0, tile),), 1) for tile in distinct]
    score = line_points(size)
    for group in sorted(groups):
        for order in permutations(group):
            for first in range(1 - size, 1):
                moves.append(
                    _place(
                        tuple(
                            Placement(first + index, 0, tile) for index, tile in enumerate(order)
                        ),
                        score,
                    )
                )
                moves.append(
                    _place(
                        tuple(
                            Placement(0, first + index, tile) for index, tile in enumerate(order)
                        ),
                        score,
                    )
                )
    return moves


@lru_cache(maxsize=4096)
def exchange_moves(rack: tuple[Tile, ...], largest: int) -> tuple[Exchange, ...]:
    """Return every distinct exchange of 1..``largest`` tiles of the sorted ``rack``.

    Ordered by size, then lexicographically. Cached: exchanges depend on nothing else and
    are immutable.
    """
    moves: list[Exchange] = []
    for size in range(1, largest + 1):
        seen: set[tuple[Tile, ...]] = set()
        for tiles in combinations(rack, size):
            if tiles not in seen:
                seen.add(tiles)
                moves.append(Exchange(tiles))
    return tuple(moves)
