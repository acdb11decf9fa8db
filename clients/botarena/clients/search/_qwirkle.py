"""Qwirkle's forward model: the other racks and the bag, dealt from the unseen tiles.

What a seat sees (RULES.md: What each seat may see): the board, its own rack, every rack's
size, the bag's size and the scores. The tiles it has not seen are the 108 less the board
and its rack; a determinization deals them to the other racks and the bag.

One thing more is known: the tiles the seat itself handed back in an exchange went into
the bag after it drew, so another seat can hold them only in the rack places it refilled
since. The model keeps those tiles (*marks*) with the number of tiles each other seat
may have drawn after them, bounded from the views (2 seats: exactly what the other seat
placed; an exchange, which a view does not show, counts as up to six), and deals the
rack places drawn before a mark from the tiles outside it. A marked face that later
shows up on the board or in the seat's own draws may have been the marked copy, so it
stops counting as one: the constraint is never stronger than the truth allows.
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass, field, replace

from botarena.clients.search._base import SeatFollower
from botarena.server.games import Seat
from botarena.server.games.qwirkle import (
    FULL_BAG,
    QWIRKLE,
    Cell,
    Exchange,
    OpeningPicked,
    Pass,
    Place,
    Placement,
    QwirkleMove,
    QwirkleRules,
    QwirkleState,
    Tile,
    opening_size,
)
from botarena.v1 import match_pb2, qwirkle_pb2

__all__ = ["QwirkleModel", "tile_message", "tile_of"]

_TILES: tuple[Tile, ...] = tuple(Tile)
_MAX_DRAW = 6
_OPENING_TRIES = 200


def tile_of(tile: qwirkle_pb2.QwirkleTile) -> Tile:
    """Return the engine tile of a tile message (proto enums are the engine's plus one).

    Raises:
        ValueError: The colour or the shape is UNSPECIFIED or unknown.
    """
    colour, shape = int(tile.colour), int(tile.shape)
    if not (1 <= colour <= 6 and 1 <= shape <= 6):
        raise ValueError(f"colour {colour}, shape {shape} is not a Qwirkle tile")
    return _TILES[(colour - 1) * 6 + (shape - 1)]


def tile_message(tile: Tile) -> qwirkle_pb2.QwirkleTile:
    """Return the message of an engine tile."""
    return qwirkle_pb2.QwirkleTile(
        colour=qwirkle_pb2.QwirkleColour.ValueType(tile // 6 + 1),
        shape=qwirkle_pb2.QwirkleShape.ValueType(tile % 6 + 1),
    )


@dataclass(frozen=True, slots=True)
class _Seen:
    """One decoded view."""

    seat: Seat
    board: Mapping[Cell, Tile]
    rack: tuple[Tile, ...]
    rack_sizes: tuple[int, ...]
    bag_size: int
    scores: tuple[int, ...]
    turn: Seat | None
    starter: Seat
    opening_sizes: tuple[int, ...]


@dataclass(slots=True)
class _Mark:
    """Tiles the seat returned in one exchange, and what each seat drew after them."""

    faces: Counter[Tile]
    drawn: list[int] = field(default_factory=list)


def _decode(view: match_pb2.PlayerView) -> _Seen:
    game = view.qwirkle
    seats = len(game.seats)
    return _Seen(
        seat=view.seat,
        board={(p.x, p.y): tile_of(p.tile) for p in game.board},
        rack=tuple(sorted(tile_of(tile) for tile in game.rack)),
        rack_sizes=tuple(s.rack_size for s in game.seats),
        bag_size=game.bag_size,
        scores=tuple(s.score for s in game.seats),
        turn=game.current_seat if game.HasField("current_seat") else None,
        starter=game.starting_seat,
        opening_sizes=tuple(game.opening_sizes) or (0,) * seats,
    )


class QwirkleModel(SeatFollower):
    """The forward model of one Qwirkle seat (see the module docstring).

    >>> import random
    >>> from botarena.v1 import match_pb2
    >>> view = match_pb2.PlayerView(seat=0)
    >>> view.qwirkle.bag_size = 96
    >>> view.qwirkle.current_seat = 0
    >>> for seat in range(2):
    ...     _ = view.qwirkle.seats.add(seat=seat, rack_size=6)
    >>> for colour in range(1, 7):
    ...     _ = view.qwirkle.rack.add(colour=colour, shape=1)
    >>> state = QwirkleModel().determinize(view, random.Random(1))
    >>> len(state.racks[1]), len(state.bag), state.turn
    (6, 96, 0)
    """

    game = "qwirkle"

    def __init__(self) -> None:
        super().__init__()
        self._seen: _Seen | None = None
        self._own_move: QwirkleMove | None = None
        self._marks: list[_Mark] = []
        self._passes = 0
        self._template: QwirkleState | None = None
        self._unseen: tuple[Tile, ...] = ()

    @property
    def rules(self) -> QwirkleRules:
        """The engine, :data:`~botarena.server.games.qwirkle.QWIRKLE`."""
        return QWIRKLE

    @property
    def unseen(self) -> tuple[Tile, ...]:
        """The tiles the seat has not seen (other racks and the bag), sorted."""
        return self._unseen

    def observe(self, view: match_pb2.PlayerView) -> None:
        """Take in a view of the seat (see :class:`~botarena.clients.search.ForwardModel`).

        Raises:
            ValueError: Not a Qwirkle view, a spectator's, or another seat's.
        """
        if not self._is_new(view):
            return
        seen = _decode(view)
        if self._seen is not None:
            self._follow(self._seen, seen)
        self._own_move = None
        self._seen = seen
        unseen = Counter(FULL_BAG)
        unseen.subtract(seen.board.values())
        unseen.subtract(seen.rack)
        self._unseen = tuple(sorted(unseen.elements()))
        for mark in self._marks:
            for tile in mark.faces:
                mark.faces[tile] = min(mark.faces[tile], unseen[tile])
        self._template = None
        if seen.turn is not None:
            racks = [seen.rack if s == seen.seat else () for s in range(len(seen.rack_sizes))]
            self._template = QwirkleState.from_position(
                racks=racks,
                board=seen.board,
                scores=seen.scores,
                turn=seen.turn,
                passes=self._passes,
                # The view shows the opening pick (who started, every opening size).
                history=(OpeningPicked(seen.opening_sizes, (seen.starter,), seen.starter),),
            )

    def played(self, move: match_pb2.Move | QwirkleMove) -> None:
        """Record the seat's own move once chosen: its exchanges become marks."""
        self._own_move = self.engine_move(move) if isinstance(move, match_pb2.Move) else move

    def _follow(self, before: _Seen, now: _Seen) -> None:
        """Update the marks and the pass count from one of the seat's views to the next."""
        seats = len(now.rack_sizes)
        own = self._own_move
        placed_by_me: dict[Cell, Tile] = {}
        bag = before.bag_size
        if isinstance(own, Place):
            placed_by_me = {(p.x, p.y): p.tile for p in own.placements}
            bag -= min(len(placed_by_me), bag)
        others_placed = [
            tile
            for cell, tile in now.board.items()
            if cell not in before.board and cell not in placed_by_me
        ]
        known_own = own is not None
        if seats == 2 and known_own:
            # What the other seat placed, it drew; an exchange (up to six) or a pass the
            # views do not tell apart.
            draws = min(len(others_placed), bag) if others_placed else min(_MAX_DRAW, bag)
            drawn = [draws if s != now.seat else 0 for s in range(seats)]
        else:
            drawn = [min(_MAX_DRAW, before.bag_size) if s != now.seat else 0 for s in range(seats)]
        # The seat's own draws: what its rack gained.
        kept = Counter(before.rack)
        if isinstance(own, Place):
            kept.subtract(placed_by_me.values())
        elif isinstance(own, Exchange):
            kept.subtract(own.tiles)
        my_draws = Counter(now.rack)
        my_draws.subtract(kept)
        for mark in self._marks:
            mark.faces.subtract(my_draws)
        if isinstance(own, Exchange) and own.tiles:
            self._marks.append(_Mark(Counter(own.tiles), [0] * seats))
        for mark in self._marks:
            mark.faces.subtract(others_placed)
            mark.faces = +mark.faces
            mark.drawn = [min(_MAX_DRAW, d + n) for d, n in zip(mark.drawn, drawn, strict=True)]
        self._marks = [
            mark
            for mark in self._marks
            if mark.faces
            and any(mark.drawn[s] < now.rack_sizes[s] for s in range(seats) if s != now.seat)
        ]
        if now.bag_size == 0 and known_own and not others_placed and bag == 0:
            self._passes = seats - 1
        else:
            self._passes = 0

    def determinize(self, view: match_pb2.PlayerView, rng: random.Random) -> QwirkleState:
        """Return a state with the unseen tiles dealt to the other racks and the bag.

        Raises:
            ValueError: Not a Qwirkle view of the seat, or the game is over.
        """
        self.observe(view)
        seen, template = self._seen, self._template
        assert seen is not None
        if template is None:
            raise ValueError("the game is over: there is nothing to search")
        racks = self._deal(seen, rng)
        if not seen.board:
            # The opening: the other racks are still their first deal, whose opening
            # sizes every seat announced (RULES.md: Setup 2).
            for _ in range(_OPENING_TRIES):
                if all(
                    s == seen.seat or opening_size(racks[s]) == seen.opening_sizes[s]
                    for s in range(len(racks))
                ):
                    break
                racks = self._deal(seen, rng)
        held = Counter(tile for s, rack in enumerate(racks) if s != seen.seat for tile in rack)
        bag = Counter(self._unseen)
        bag.subtract(held)
        racks[seen.seat] = seen.rack
        return replace(
            template,
            racks=tuple(tuple(sorted(rack)) for rack in racks),
            bag=tuple(sorted(bag.elements())),
            seed=rng.getrandbits(63),
            draws=0,
        )

    def _deal(self, seen: _Seen, rng: random.Random) -> list[tuple[Tile, ...]]:
        """Deal every other rack from the unseen tiles, the marked ones only to the rack
        places refilled after their exchange."""
        seats = len(seen.rack_sizes)
        marks = self._marks
        # Each unseen tile with its level: 0 unmarked, i + 1 marked by the i-th mark (a
        # face marked by several exchanges counts for the newest first).
        left = Counter(self._unseen)
        pool: list[tuple[int, Tile]] = []
        for level in range(len(marks), 0, -1):
            for tile, count in sorted(marks[level - 1].faces.items()):
                taken = min(count, left[tile])
                pool.extend([(level, tile)] * taken)
                left[tile] -= taken
        pool.extend((0, tile) for tile in sorted(left.elements()))
        racks: list[list[Tile]] = [[] for _ in range(seats)]
        others = [s for s in range(seats) if s != seen.seat]
        short = [0] * seats  # places a too small pool left empty, filled at the next level
        for cap in range(len(marks) + 1):
            for s in others:
                size = seen.rack_sizes[s]
                fresh = [min(size, mark.drawn[s]) for mark in marks] + [0]
                # Rack places refilled after mark cap - 1 but not after mark cap.
                need = size - fresh[0] if cap == 0 else fresh[cap - 1] - fresh[cap]
                need += short[s]
                eligible = [index for index, (level, _) in enumerate(pool) if level <= cap]
                picked = []
                for _ in range(min(need, len(eligible))):
                    picked.append(eligible.pop(rng.randrange(len(eligible))))
                short[s] = need - len(picked)
                racks[s].extend(pool[index][1] for index in picked)
                for index in sorted(picked, reverse=True):
                    del pool[index]
        return [tuple(rack) for rack in racks]

    def engine_move(self, move: match_pb2.Move) -> QwirkleMove:
        """Return the engine move of a Qwirkle move message.

        Raises:
            ValueError: The message is not a Qwirkle move.
        """
        action = move.qwirkle.WhichOneof("action")
        if action == "place":
            placements = move.qwirkle.place.placements
            return Place(tuple(Placement(p.x, p.y, tile_of(p.tile)) for p in placements))
        if action == "exchange":
            return Exchange(tuple(tile_of(tile) for tile in move.qwirkle.exchange.tiles))
        if action == "pass":
            return Pass()
        raise ValueError("not a Qwirkle move: no action is set")

    def message(self, move: QwirkleMove) -> match_pb2.Move:
        """Return the move message of an engine move."""
        out = match_pb2.Move()
        if isinstance(move, Place):
            for x, y, tile in move.placements:
                out.qwirkle.place.placements.add(x=x, y=y, tile=tile_message(tile))
        elif isinstance(move, Exchange):
            out.qwirkle.exchange.tiles.extend(tile_message(tile) for tile in move.tiles)
        else:
            getattr(out.qwirkle, "pass").SetInParent()  # `pass` is a Python keyword
        return out
