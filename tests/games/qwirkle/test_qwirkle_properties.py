"""Property tests over seeded random Qwirkle playouts.

Everything the engine computes fast is recomputed here the slow, obvious way: a
brute-force placement generator (every set of cells in a line times every order of rack
tiles, filtered by ``is_legal``), a scorer that collects lines from scratch, a line
validator, and a tile count.

Purity and exact replay are checked for every game in ``tests/games/test_conformance.py``.
"""

from __future__ import annotations

import itertools
import random
from collections import Counter
from collections.abc import Iterator, Mapping, Sequence

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from botarena.server.games.qwirkle import (
    FULL_BAG,
    QWIRKLE,
    Cell,
    Exchange,
    Pass,
    Place,
    Placed,
    Placement,
    QwirkleMove,
    QwirkleState,
    Tile,
)

SEEDS = st.integers(min_value=0, max_value=2**32 - 1)
SEAT_COUNTS = st.sampled_from([2, 3, 4])
PLAYOUT = settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def choose(moves: tuple[QwirkleMove, ...], rng: random.Random) -> QwirkleMove:
    """Pick a random move, mostly a placement, so games fill the board and end."""
    places = [move for move in moves if isinstance(move, Place)]
    if places and rng.random() < 0.85:
        return rng.choice(places)
    return rng.choice(moves)


def choose_greedily(moves: tuple[QwirkleMove, ...], rng: random.Random) -> QwirkleMove:
    """Pick the best-scoring placement (long lines, Qwirkles), else a random move."""
    places = [move for move in moves if isinstance(move, Place)]
    if places:
        return max(places, key=lambda move: move.score or 0)
    return rng.choice(moves)


def playout(
    seed: int, seats: int, choice_seed: int, *, greedy: bool = False
) -> Iterator[tuple[QwirkleState, int]]:
    """Yield every position of a seeded game (the state and the seat to act; -1 at the end)."""
    rng = random.Random(choice_seed)
    policy = choose_greedily if greedy else choose
    state = QWIRKLE.new_match(QWIRKLE.default_config(), seats, seed)
    while state.turn is not None:
        seat = state.turn
        yield state, seat
        state = QWIRKLE.apply(state, seat, policy(QWIRKLE.legal_moves(state, seat), rng))
    yield state, -1


# ---------------------------------------------------------------------------- slow oracles


def is_valid_line(tiles: Sequence[Tile]) -> bool:
    """Return whether tiles may form a line: distinct, and one colour or one shape."""
    if len(set(tiles)) != len(tiles):
        return False
    return len({tile.colour for tile in tiles}) == 1 or len({tile.shape for tile in tiles}) == 1


def run_through(board: Mapping[Cell, Tile], cell: Cell, step: Cell) -> list[Cell]:
    """Return the maximal run of occupied cells through ``cell`` along ``step``."""
    run = [cell]
    for sign in (-1, 1):
        x, y = cell
        while (x + sign * step[0], y + sign * step[1]) in board:
            x, y = x + sign * step[0], y + sign * step[1]
            run.append((x, y))
    return sorted(run)


def every_line(board: Mapping[Cell, Tile]) -> list[list[Tile]]:
    """Return every maximal line of two or more tiles on the board."""
    lines = []
    for x, y in board:
        for dx, dy in ((1, 0), (0, 1)):
            if (x - dx, y - dy) in board:
                continue  # not the first cell of its run
            run = run_through(board, (x, y), (dx, dy))
            if len(run) > 1:
                lines.append([board[cell] for cell in run])
    return lines


def score_from_scratch(board: Mapping[Cell, Tile], move: Place, opening: bool) -> int:
    """Score a placement by collecting its distinct lines on the board after it."""
    after = dict(board)
    after.update({(x, y): tile for x, y, tile in move.placements})
    lines = set()
    for x, y, _ in move.placements:
        for step in ((1, 0), (0, 1)):
            run = run_through(after, (x, y), step)
            if len(run) > 1:
                lines.add(tuple(run))
    if opening and len(move.placements) == 1:
        return 1
    return sum(len(line) + (6 if len(line) == 6 else 0) for line in lines)


def brute_force_placements(state: QwirkleState, seat: int) -> dict[Place, int]:
    """Every legal placement and its score, by trying every candidate with ``score``.

    Candidates: in every row and column near the board, every stretch of at most six
    cells whose two ends are empty; all its empty cells are placed (anything else leaves a
    gap, RULES.md legality 4) and they get every order of distinct rack tiles that could
    form a line. ``QWIRKLE.score`` (the checker, not the generator) decides.
    """
    board = state.board
    rack = state.racks[seat]
    faces = sorted(set(rack))
    orders = {
        count: [order for order in itertools.permutations(faces, count) if is_valid_line(order)]
        for count in range(1, 7)
    }
    cells = list(board) or [(0, 0)]
    low_x = min(x for x, _ in cells) - 6
    high_x = max(x for x, _ in cells) + 6
    low_y = min(y for _, y in cells) - 6
    high_y = max(y for _, y in cells) + 6
    lines = [[(x, y) for x in range(low_x, high_x + 1)] for y in range(low_y, high_y + 1)]
    lines += [[(x, y) for y in range(low_y, high_y + 1)] for x in range(low_x, high_x + 1)]
    found: dict[Place, int] = {}
    for line in lines:
        for first, last in itertools.combinations_with_replacement(range(len(line)), 2):
            if last - first > 5 or line[first] in board or line[last] in board:
                continue
            placed = [cell for cell in line[first : last + 1] if cell not in board]
            for order in orders[len(placed)]:
                move = Place(
                    tuple(Placement(x, y, tile) for (x, y), tile in zip(placed, order, strict=True))
                )
                if move in found or not QWIRKLE.is_legal(state, seat, move):
                    continue
                found[move] = QWIRKLE.score(state, seat, move)
    return found


# ---------------------------------------------------------------------------- properties


@PLAYOUT
@given(seed=SEEDS, seats=SEAT_COUNTS, choice_seed=SEEDS, greedy=st.booleans())
def test_invariants_hold_after_every_move(
    seed: int, seats: int, choice_seed: int, greedy: bool
) -> None:
    previous: QwirkleState | None = None
    for state, _ in playout(seed, seats, choice_seed, greedy=greedy):
        board = state.board
        for line in every_line(board):
            assert len(line) <= 6
            assert is_valid_line(line), line
        held = Counter(state.bag) + Counter(board.values())
        for rack in state.racks:
            held += Counter(rack)
        assert held == Counter(FULL_BAG)
        assert sum(len(rack) for rack in state.racks) <= 6 * seats
        if previous is not None:
            entry = state.history[len(previous.history)]
            if isinstance(entry, Placed):
                move = Place(entry.placements)
                assert entry.score == score_from_scratch(
                    previous.board, move, opening=previous.is_opening
                )
        previous = state
    assert QWIRKLE.outcome(state) is not None


@PLAYOUT
@given(seed=SEEDS, seats=SEAT_COUNTS, choice_seed=SEEDS)
def test_listed_moves_are_legal_and_unlisted_placements_are_not(
    seed: int, seats: int, choice_seed: int
) -> None:
    rng = random.Random(choice_seed)
    for state, seat in playout(seed, seats, choice_seed):
        if seat < 0:
            break
        moves = QWIRKLE.legal_moves(state, seat)
        assert moves
        assert len(set(moves)) == len(moves)
        listed = {move for move in moves if isinstance(move, Place)}
        for move in moves:
            assert QWIRKLE.is_legal(state, seat, move), move
            if isinstance(move, Place):
                assert QWIRKLE.score(state, seat, move) == move.score
        assert (Pass() in moves) == (not listed and not state.bag)
        if state.bag and not state.is_opening:
            assert any(isinstance(move, Exchange) for move in moves)
        # Random placements near the board: legal exactly when listed.
        cells = list(state.board) or [(0, 0)]
        rack = state.racks[seat]
        for _ in range(30):
            count = rng.randint(1, min(3, len(rack)))
            chosen = rng.sample(rack, count)
            x, y = rng.choice(cells)
            x += rng.randint(-2, 2)
            y += rng.randint(-2, 2)
            dx, dy = rng.choice([(1, 0), (0, 1)])
            offsets = sorted(rng.sample(range(4), count))
            guess = Place(
                tuple(
                    Placement(x + dx * o, y + dy * o, tile)
                    for o, tile in zip(offsets, chosen, strict=True)
                )
            )
            assert QWIRKLE.is_legal(state, seat, guess) == (guess in listed), guess


@settings(max_examples=8, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=SEEDS, seats=SEAT_COUNTS, choice_seed=SEEDS, greedy=st.booleans())
def test_generator_agrees_with_brute_force(
    seed: int, seats: int, choice_seed: int, greedy: bool
) -> None:
    positions = list(playout(seed, seats, choice_seed, greedy=greedy))[:-1]
    rng = random.Random(choice_seed)
    # The opening, and a few positions from the middle and the end of the game.
    sample = [positions[0], *rng.sample(positions[1:], min(4, len(positions) - 1))]
    for state, seat in sample:
        fast = QWIRKLE.placements(state, seat)
        fast_scores = {move: move.score for move in fast}
        assert len(fast_scores) == len(fast)  # each placement once
        assert all(move.placements == tuple(sorted(move.placements)) for move in fast)
        assert fast_scores == brute_force_placements(state, seat)
