"""Qwirkle's tiles: six colours times six shapes, three copies of each face (RULES.md: Components).

A :class:`Tile` is an ``IntEnum`` whose value is ``colour * 6 + shape``, so a tile is
readable (``Tile.RED_CLOVER``, ``tile.colour``) and at the same time a small int that the
engine can use as a bit index. Identical tiles (the three copies of a face) are the same
value; racks and the bag are multisets of these values.

>>> Tile.of(Colour.BLUE, Shape.STAR8)
<Tile.BLUE_STAR8: 29>
>>> Tile.BLUE_STAR8.colour, Tile.BLUE_STAR8.shape
(<Colour.BLUE: 4>, <Shape.STAR8: 5>)
>>> Tile.RED_CLOVER.label
'red clover'
"""

from __future__ import annotations

from enum import IntEnum

__all__ = ["COPIES", "FULL_BAG", "Colour", "Shape", "Tile"]

COPIES = 3
"""How many copies of each of the 36 faces the bag holds."""


class Colour(IntEnum):
    """A tile colour."""

    RED = 0
    ORANGE = 1
    YELLOW = 2
    GREEN = 3
    BLUE = 4
    PURPLE = 5


class Shape(IntEnum):
    """A tile shape. ``STAR4`` is the rulebook's "star", ``STAR8`` its "X"."""

    CIRCLE = 0
    SQUARE = 1
    DIAMOND = 2
    CLOVER = 3
    STAR4 = 4
    STAR8 = 5


class Tile(IntEnum):
    """One of the 36 faces; the value is ``colour * 6 + shape``."""

    RED_CIRCLE = 0
    RED_SQUARE = 1
    RED_DIAMOND = 2
    RED_CLOVER = 3
    RED_STAR4 = 4
    RED_STAR8 = 5
    ORANGE_CIRCLE = 6
    ORANGE_SQUARE = 7
    ORANGE_DIAMOND = 8
    ORANGE_CLOVER = 9
    ORANGE_STAR4 = 10
    ORANGE_STAR8 = 11
    YELLOW_CIRCLE = 12
    YELLOW_SQUARE = 13
    YELLOW_DIAMOND = 14
    YELLOW_CLOVER = 15
    YELLOW_STAR4 = 16
    YELLOW_STAR8 = 17
    GREEN_CIRCLE = 18
    GREEN_SQUARE = 19
    GREEN_DIAMOND = 20
    GREEN_CLOVER = 21
    GREEN_STAR4 = 22
    GREEN_STAR8 = 23
    BLUE_CIRCLE = 24
    BLUE_SQUARE = 25
    BLUE_DIAMOND = 26
    BLUE_CLOVER = 27
    BLUE_STAR4 = 28
    BLUE_STAR8 = 29
    PURPLE_CIRCLE = 30
    PURPLE_SQUARE = 31
    PURPLE_DIAMOND = 32
    PURPLE_CLOVER = 33
    PURPLE_STAR4 = 34
    PURPLE_STAR8 = 35

    @classmethod
    def of(cls, colour: Colour, shape: Shape) -> Tile:
        """Return the tile with this colour and shape."""
        return _TILES[colour * 6 + shape]

    @property
    def colour(self) -> Colour:
        """The tile's colour."""
        return _COLOURS[self // 6]

    @property
    def shape(self) -> Shape:
        """The tile's shape."""
        return _SHAPES[self % 6]

    @property
    def label(self) -> str:
        """A short human name such as ``"blue star8"``, used in error messages."""
        return f"{self.colour.name.lower()} {self.shape.name.lower()}"


_TILES: tuple[Tile, ...] = tuple(Tile)
_COLOURS: tuple[Colour, ...] = tuple(Colour)
_SHAPES: tuple[Shape, ...] = tuple(Shape)

FULL_BAG: tuple[Tile, ...] = tuple(tile for tile in _TILES for _ in range(COPIES))
"""The 108 tiles of a new game, sorted."""
