"""The Queendomino search bot: the rest of the turn planned at once, on an economy value.

The greedy bot counts what it can score now; much of Queendomino's score comes from an
economy (RULES.md 3B, 3C, 6): knights collect coins, coins buy buildings, towers bring the
queen. This bot values a plan by the points it brings now plus what its holdings are still
worth while rounds remain:

* a coin is worth its final third of a point plus ``coin_value`` (it buys buildings),
* an unplaced knight ``knight_value`` (the tax it can still collect),
* an open town square ``town_value`` (a building site),
* the queen her crown (her host's largest territory) and the cheaper buildings,
* a building that scores per territory of a terrain one territory more (the kingdom
  still grows),

each of these extras shrinking with the share of the 12 rounds still to come. On its turn
the bot searches every combination of the steps still due (the placement, the tax and
the building: each placement with each tax and each purchase it pays for) on the
determinized state (:class:`~botarena.clients.search.QueendominoModel`), and plays the
first step of the best plan. It bribes the dragon only to burn the building the next
seat to act would buy, when that is worth more to it than the coin. In step E it takes
the domino of the next line worth most to it, plus ``deny_weight`` x its worth to the next
other seat, less ``order_weight`` x number / 48 (a high number acts late next round).
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import dataclass

from botarena.bots._checks import check_decision
from botarena.clients.search import QueendominoModel, ThinkBudget, config_of, think_budget
from botarena.server.games import Seat
from botarena.server.games.queendomino import (
    BOARD_PRICES,
    CASTLE,
    KNIGHT_SUPPLY,
    ROUNDS,
    TOWER_SUPPLY,
    Bribe,
    Build,
    Building,
    Choose,
    Domino,
    DominoPlacement,
    Kingdom,
    OngoingEffect,
    Place,
    QueendominoMove,
    QueendominoState,
    ScoringKind,
    Step,
    Tax,
    Terrain,
    territories,
)
from botarena.server.games.queendomino.kingdom import Cell
from botarena.v1 import match_pb2

__all__ = ["QueendominoSearchSettings", "SearchQueendominoBot"]

_STEPS = ((1, 0), (-1, 0), (0, 1), (0, -1))
_DISCARD_VALUE = -5.0
"""What a domino that fits nowhere is worth (a lost turn's squares)."""


@dataclass(frozen=True, slots=True)
class QueendominoSearchSettings:
    """The search bot's knobs (the defaults are the tuned ones, docs/bots.md).

    Attributes:
        knight_value: Points an unplaced knight is worth in round 0.
        coin_value: Points a coin is worth in round 0 beyond its final third of a point.
        town_value: Points an open town square is worth in round 0.
        hole_value: Points an empty square walled in on every side costs in round 0.
        growth_value: Points per crown and free square next to its territory in round 0
            (room for a crowned territory to grow).
        queen_weight: Share of the host's largest territory the queen is counted at.
        deny_weight: Share of a domino's worth to the next other seat added to its own
            worth in step E (and of a building's, for the dragon).
        order_weight: Points a domino's number costs per 48 in step E.
        dragon: Whether to bribe the dragon at all.
        time_limit: Seconds per decision at most (less when the clock says so); past it
            the remaining placements are valued by their territory points alone.
    """

    knight_value: float = 4.5
    coin_value: float = 0.3
    town_value: float = 0.5
    hole_value: float = 1.5
    growth_value: float = 0.25
    queen_weight: float = 1.0
    deny_weight: float = 0.5
    order_weight: float = 2.0
    dragon: bool = True
    time_limit: float = 0.25


@dataclass(frozen=True, slots=True)
class _Placed:
    """What a placement changes: points, the halves' territory sizes, territory counts."""

    points: int
    sizes: tuple[int, int]
    count_change: dict[Terrain, int]
    largest: int
    merged: dict[int, int]
    """Old territory index -> size of the territory it becomes part of."""
    new_cells: dict[Cell, int]
    """The domino's cells -> the size of their territories."""
    growth: int
    """The change of crowns x free squares next to the territory, over all territories."""


class _Kingdom:
    """One kingdom's territories, and what a placement would change of them."""

    def __init__(self, kingdom: Kingdom) -> None:
        self.kingdom = kingdom
        self.areas = territories(kingdom)
        self.label = {cell: i for i, area in enumerate(self.areas) for cell in area.cells}
        self.count: dict[Terrain, int] = {}
        for area in self.areas:
            self.count[area.terrain] = self.count.get(area.terrain, 0) + 1
        self.largest = max((area.size for area in self.areas), default=0)
        squares = kingdom.squares
        min_x, min_y, max_x, max_y = kingdom.bounds
        size = kingdom.size
        self.free: list[frozenset[Cell]] = [
            frozenset(
                (x + dx, y + dy)
                for x, y in area.cells
                for dx, dy in _STEPS
                if (x + dx, y + dy) not in squares
                and (x + dx, y + dy) != CASTLE
                and max(max_x, x + dx) - min(min_x, x + dx) < size
                and max(max_y, y + dy) - min(min_y, y + dy) < size
            )
            for area in self.areas
        ]

        self.bounds = (min_x, min_y, max_x, max_y)

    def size_at(self, cell: Cell, placed: _Placed | None = None) -> int:
        """The size of the territory holding ``cell`` (1 for a square not placed yet)."""
        index = self.label.get(cell)
        if index is None:
            return placed.new_cells.get(cell, 1) if placed is not None else 1
        if placed is not None and index in placed.merged:
            return placed.merged[index]
        return self.areas[index].size

    def placed(self, domino: Domino, placement: DominoPlacement) -> _Placed:
        """Return what placing ``domino`` so changes."""
        cells, halves = placement.cells, domino.halves
        same = halves[0].terrain is halves[1].terrain
        groups = [(0, 1)] if same else [(0,), (1,)]
        points, largest = 0, self.largest
        sizes = [0, 0]
        count_change: dict[Terrain, int] = {}
        merged: dict[int, int] = {}
        taken = set(cells)
        squares = self.kingdom.squares
        size_limit = self.kingdom.size
        min_x, min_y, max_x, max_y = self.bounds
        for x, y in cells:
            min_x, max_x, min_y, max_y = min(min_x, x), max(max_x, x), min(min_y, y), max(max_y, y)

        def free(cell: Cell) -> bool:
            x, y = cell
            return (
                cell not in squares
                and cell != CASTLE
                and cell not in taken
                and max(max_x, x) - min(min_x, x) < size_limit
                and max(max_y, y) - min(min_y, y) < size_limit
            )

        growth = 0
        touched = {
            index
            for x, y in cells
            for dx, dy in _STEPS
            if (index := self.label.get((x + dx, y + dy))) is not None
        }
        for members in groups:
            terrain = halves[members[0]].terrain
            labels = {
                index
                for member in members
                for dx, dy in _STEPS
                if (index := self.label.get((cells[member][0] + dx, cells[member][1] + dy)))
                is not None
                and self.areas[index].terrain is terrain
            }
            size = len(members) + sum(self.areas[i].size for i in labels)
            crowns = sum(halves[m].crowns for m in members)
            crowns += sum(self.areas[i].crowns for i in labels)
            points += size * crowns - sum(self.areas[i].points for i in labels)
            count_change[terrain] = count_change.get(terrain, 0) + 1 - len(labels)
            largest = max(largest, size)
            for member in members:
                sizes[member] = size
            merged.update(dict.fromkeys(labels, size))
            if crowns:
                room = {cell for i in labels for cell in self.free[i] if cell not in taken}
                for member in members:
                    x, y = cells[member]
                    room.update(c for dx, dy in _STEPS if free(c := (x + dx, y + dy)))
                growth += crowns * len(room)
            growth -= sum(self.areas[i].crowns * len(self.free[i]) for i in labels)
        for index in touched - set(merged):
            growth -= self.areas[index].crowns * len(self.free[index] & taken)
        new_cells = {cells[0]: sizes[0], cells[1]: sizes[1]}
        return _Placed(
            points, (sizes[0], sizes[1]), count_change, largest, merged, new_cells, growth
        )


def _holes(kingdom: Kingdom, placement: DominoPlacement) -> int:
    """Empty cells the placement walls in on every side (they can never be filled)."""
    taken = {*kingdom.squares, CASTLE, *placement.cells}
    holes = 0
    for x, y in placement.cells:
        for dx, dy in _STEPS:
            cx, cy = x + dx, y + dy
            if (cx, cy) not in taken and all((cx + ex, cy + ey) in taken for ex, ey in _STEPS):
                holes += 1
    return holes


class _Planner:
    """Values the plans of one seat's turn in one state (see the module docstring)."""

    def __init__(
        self,
        state: QueendominoState,
        seat: Seat,
        settings: QueendominoSearchSettings,
        budget: ThinkBudget | None = None,
    ) -> None:
        self.state, self.seat, self.settings, self.budget = state, seat, settings, budget
        self.left = max(0.0, (ROUNDS - state.round) / ROUNDS)
        self.coin = 1 / 3 + settings.coin_value * self.left
        self.knight = settings.knight_value * self.left
        self.town = settings.town_value * self.left
        self.player = state.players[seat]
        self.kingdom = _Kingdom(self.player.kingdom)
        self.open_towns = list(self.player.kingdom.open_town_squares())

    # -------------------------------------------------------------- steps B and C

    def tax_options(
        self, cells: tuple[Cell, Cell], sizes: tuple[int, int]
    ) -> list[tuple[float, int, Tax | None]]:
        """Every tax on the domino's ``cells`` (territories of ``sizes``), and none, as
        (value, coins, move)."""
        player = self.player
        options: list[tuple[float, int, Tax | None]] = [(0.0, 0, None)]
        if player.knights == 0:
            return options
        owned = player.knights + len(player.knight_cells)
        bonus = 0
        for building in player.kingdom.buildings.values():
            if building.ongoing_effect is OngoingEffect.COIN_PER_KNIGHT:
                bonus += owned
            elif building.ongoing_effect is OngoingEffect.COIN_PER_TOWER:
                bonus += player.towers
        per_knight = self.state.config.tax_bonus_per_knight
        choices: list[tuple[int, ...]] = [(0,), (1,)]
        if player.knights >= 2:
            choices.append((0, 1))
        for choice in choices:
            coins = sum(sizes[i] for i in choice) + bonus * (len(choice) if per_knight else 1)
            value = coins * self.coin - self.knight * len(choice)
            options.append((value, coins, Tax(tuple(cells[i] for i in choice))))
        return options

    def build_options(
        self, coins: int, placed: _Placed | None, towns: Sequence[Cell]
    ) -> dict[tuple[int, Cell] | None, float]:
        """The value of every purchase ``coins`` pay for, by (space, cell); None: none."""
        options: dict[tuple[int, Cell] | None, float] = {None: 0.0}
        state = self.state
        hosts = state.queen == self.seat
        knights_left = KNIGHT_SUPPLY - sum(p.knights + len(p.knight_cells) for p in state.players)
        towers_left = TOWER_SUPPLY - sum(p.towers for p in state.players)
        for space, building in enumerate(state.board):
            if building is None or not towns:
                continue
            price = max(0, BOARD_PRICES[space] - (1 if hosts else 0))
            if price > coins:
                continue
            knights = min(building.knights, knights_left)
            towers = min(building.towers, towers_left)
            base = self.building_value(building, placed, knights, towers)
            base -= price * self.coin + self.town
            for cell in towns:
                crowns = building.crowns * self.kingdom.size_at(cell, placed)
                options[(space, cell)] = base + crowns
        return options

    def building_value(
        self, building: Building, placed: _Placed | None, knights: int, towers: int
    ) -> float:
        """The points ``building`` brings the seat (crowns aside), its knights and towers
        included."""
        player, state, left = self.player, self.state, self.left
        owned = player.knights + len(player.knight_cells)
        value = knights * self.knight
        scoring = building.end_game_scoring
        if scoring is not None:
            if scoring.kind is ScoringKind.FLAT:
                value += scoring.points
            elif scoring.kind is ScoringKind.PER_TOWER:
                value += scoring.points * (player.towers + towers)
            elif scoring.kind is ScoringKind.PER_KNIGHT:
                value += scoring.points * (owned + knights)
            else:
                assert scoring.terrain is not None
                count = self.kingdom.count.get(scoring.terrain, 0)
                if placed is not None:
                    count += placed.count_change.get(scoring.terrain, 0)
                value += scoring.points * (max(0, count) + 2 * left)
        for other in player.kingdom.buildings.values():
            other_scoring = other.end_game_scoring
            if other_scoring is not None and other_scoring.kind is ScoringKind.PER_TOWER:
                value += other_scoring.points * towers
            elif other_scoring is not None and other_scoring.kind is ScoringKind.PER_KNIGHT:
                value += other_scoring.points * knights
        if building.ongoing_effect is not OngoingEffect.NONE:
            value += 8 * left  # a coin or more at every tax still to come
        if towers and state.queen != self.seat:
            others = [p.towers for s, p in enumerate(state.players) if s != self.seat]
            if all(player.towers + towers >= t for t in others):
                largest = placed.largest if placed is not None else self.kingdom.largest
                value += self.settings.queen_weight * largest + 3 * left
                if state.queen is not None:
                    host = _Kingdom(state.players[state.queen].kingdom)
                    value += self.settings.deny_weight * host.largest
        return value

    # -------------------------------------------------------------- step A

    def placement_value(self, domino: Domino, placement: DominoPlacement) -> float:
        """The points of a placement and of the best tax and purchase after it."""
        placed = self.kingdom.placed(domino, placement)
        value = float(placed.points)
        for building in self.player.kingdom.buildings.values():
            scoring = building.end_game_scoring
            if scoring is not None and scoring.kind is ScoringKind.PER_TERRITORY_OF_TERRAIN:
                assert scoring.terrain is not None
                value += scoring.points * placed.count_change.get(scoring.terrain, 0)
        value -= self.settings.hole_value * self.left * _holes(self.player.kingdom, placement)
        value += self.settings.growth_value * self.left * placed.growth
        if self.budget is not None and self.budget.exhausted():
            return value
        new_towns = [
            cell
            for cell, half in zip(placement.cells, domino.halves, strict=True)
            if half.terrain is Terrain.TOWN
        ]
        value += self.town * len(new_towns)
        towns = [*self.open_towns, *new_towns]
        best = float("-inf")
        for tax_value, coins, _ in self.tax_options(placement.cells, placed.sizes):
            build = max(self.build_options(self.player.coins + coins, placed, towns).values())
            best = max(best, tax_value + build)
        return value + best

    def best_placement_value(self, domino: Domino) -> float:
        """The worth of ``domino`` to the seat: its best placement's value."""
        placements = self.player.kingdom.legal_placements(domino)
        if not placements:
            return _DISCARD_VALUE
        return max(self.placement_value(domino, p) for p in placements)

    # -------------------------------------------------------------- every step

    def values(self, moves: Sequence[QueendominoMove]) -> list[float]:
        """The value of each of ``moves`` (the legal moves of the step due)."""
        turn = self.state.turn
        assert turn is not None
        if turn.step is Step.PLACE:
            assert turn.domino is not None
            domino = turn.domino
            return [
                self.placement_value(domino, m.placement) if isinstance(m, Place) else 0.0
                for m in moves
            ]
        if turn.step is Step.TAX:
            assert turn.placement is not None
            cells = turn.placement.cells
            sizes = (self.kingdom.size_at(cells[0]), self.kingdom.size_at(cells[1]))
            taxes = {tax: (value, coins) for value, coins, tax in self.tax_options(cells, sizes)}
            values = []
            for move in moves:
                value, coins = taxes.get(move if isinstance(move, Tax) else None, (0.0, 0))
                build = self.build_options(self.player.coins + coins, None, self.open_towns)
                values.append(value + max(build.values()))
            return values
        if turn.step is Step.BUILD:
            builds = self.build_options(self.player.coins, None, self.open_towns)
            return [
                builds.get((m.space, m.cell), 0.0) if isinstance(m, Build) else 0.0 for m in moves
            ]
        if turn.step is Step.DRAGON:
            return [self.bribe_value(m) if isinstance(m, Bribe) else 0.0 for m in moves]
        return [self.choose_value(m) if isinstance(m, Choose) else 0.0 for m in moves]

    def next_other(self) -> Seat | None:
        """The next seat other than this one to act this round, else any other seat."""
        for slot in self.state.current_line:
            if not slot.done and slot.king is not None and slot.king != self.seat:
                return slot.king
        return next((s for s in range(self.state.seats) if s != self.seat), None)

    def bribe_value(self, move: Bribe) -> float:
        """Burning the building the next other seat would buy is worth what it loses."""
        other = self.next_other()
        if not self.settings.dragon or other is None:
            return -1.0
        rival = _Planner(self.state, other, self.settings)
        options = rival.build_options(rival.player.coins, None, rival.open_towns)
        best = max(options, key=lambda key: options[key])
        if best is None or best[0] != move.space:
            return -1.0
        second = max(v for key, v in options.items() if key is None or key[0] != move.space)
        return self.settings.deny_weight * (options[best] - second) - self.coin

    def choose_value(self, move: Choose) -> float:
        """A domino's worth to the seat and to the next other seat, and its turn order."""
        domino = next(s.domino for s in self.state.next_line if s.domino.number == move.domino)
        value = self.best_placement_value(domino)
        value -= self.settings.order_weight * domino.number / 48
        other = self.next_other()
        if other is not None and self.settings.deny_weight:
            rival = _Planner(self.state, other, self.settings, self.budget)
            value += self.settings.deny_weight * rival.best_placement_value(domino)
        return value


class SearchQueendominoBot:
    """Plays Queendomino by planning the rest of each turn (see the module docstring).

    Attributes:
        game: The game it plays (the server's registry name).

    Args:
        settings: The knobs; the defaults are the tuned ones.
    """

    game = "queendomino"

    def __init__(self, settings: QueendominoSearchSettings | None = None) -> None:
        self.settings = settings or QueendominoSearchSettings()
        self.model = QueendominoModel()

    def on_match_start(self, match: match_pb2.Match, seat: int) -> None:
        """Take the match's tax bonus into the forward model."""
        del seat
        self.model = QueendominoModel(config_of(match.config))

    def choose_move(
        self,
        view: match_pb2.PlayerView,
        legal_moves: Sequence[match_pb2.Move],
        rng: random.Random,
    ) -> match_pb2.Move:
        """Return the first step of the best plan for the rest of the turn; ties go to
        the seeded ``rng``.

        Raises:
            UnsupportedGameError: The match is not a Queendomino match.
            ValueError: ``legal_moves`` is empty.
        """
        check_decision(view, legal_moves, "queendomino", "search")
        budget = think_budget(self.settings.time_limit)
        state = self.model.determinize(view, rng)
        if len(legal_moves) == 1:
            return legal_moves[0]
        planner = _Planner(state, view.seat, self.settings, budget)
        values = planner.values([self.model.engine_move(move) for move in legal_moves])
        top = max(values)
        best = [i for i, value in enumerate(values) if value >= top - 1e-9]
        return legal_moves[best[rng.randrange(len(best))] if len(best) > 1 else best[0]]
