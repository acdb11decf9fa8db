"""Seeded randomness: fixed output forever, uniform, and a pure function of (seed, counter)."""

from __future__ import annotations

from collections import Counter

import pytest
from hypothesis import given
from hypothesis import strategies as st

from botarena.server.games._random import random_below, shuffled


def test_random_below_golden_sequence() -> None:
    # Pinned: a change here silently changes every recorded match, replay and golden file.
    values = [random_below(2026, counter, 1000)[0] for counter in range(8)]
    assert values == [725, 955, 628, 11, 322, 993, 796, 40]


def test_shuffled_golden_permutation() -> None:
    assert shuffled(range(12), 42, 0) == ((0, 6, 10, 1, 8, 2, 3, 4, 7, 11, 5, 9), 11)


def test_random_below_accepts_any_integer_seed_and_counter() -> None:
    assert random_below(-5, 10**30, 3) == (2, 10**30 + 1)


@given(seed=st.integers(), counter=st.integers(min_value=0), n=st.integers(1, 10**6))
def test_random_below_is_in_range_and_advances_the_counter(seed: int, counter: int, n: int) -> None:
    value, next_counter = random_below(seed, counter, n)
    assert 0 <= value < n
    assert next_counter == counter + 1  # a rejection has probability n / 2**64 here
    assert random_below(seed, counter, n) == (value, next_counter)


@pytest.mark.parametrize("n", [0, -1])
def test_random_below_rejects_an_empty_range(n: int) -> None:
    with pytest.raises(ValueError, match="positive"):
        random_below(1, 0, n)


def test_random_below_is_roughly_uniform() -> None:
    counts = Counter(random_below(7, counter, 6)[0] for counter in range(60_000))
    # Each face expects 10 000; 5 standard deviations is about 456.
    assert set(counts) == set(range(6))
    assert all(abs(count - 10_000) < 500 for count in counts.values()), counts


@given(items=st.lists(st.integers()), seed=st.integers(), counter=st.integers(min_value=0))
def test_shuffled_is_a_permutation(items: list[int], seed: int, counter: int) -> None:
    result, next_counter = shuffled(items, seed, counter)
    assert sorted(result) == sorted(items)
    assert next_counter == counter + max(len(items) - 1, 0)


def test_different_seeds_give_different_orders() -> None:
    orders = {shuffled(range(20), seed, 0)[0] for seed in range(50)}
    assert len(orders) == 50
