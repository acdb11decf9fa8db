"""Deterministic randomness as data: every random number is a function of (seed, counter).

A state carries its match seed and a draw counter. Each call here consumes one or more
counter values and returns the next counter, so ``apply`` stays a pure function and a
match replays exactly from ``(config, seed, moves)`` on every machine and Python version.

The numbers come from BLAKE2b over the seed and counter, not from :mod:`random`, whose
``randrange``/``shuffle`` algorithms are not promised to stay the same across Python
versions (see "Notes on Reproducibility" in the :mod:`random` docs). Golden tests pin the
output.
"""

from __future__ import annotations

from collections.abc import Sequence
from hashlib import blake2b
from typing import TypeVar

__all__ = ["random_below", "shuffled"]

T = TypeVar("T")

_WORD = 1 << 64


def _word(seed: int, counter: int) -> int:
    digest = blake2b(f"{seed}:{counter}".encode(), digest_size=8).digest()
    return int.from_bytes(digest, "little")


def random_below(seed: int, counter: int, n: int) -> tuple[int, int]:
    """Return a uniform integer in ``[0, n)`` and the counter to use next.

    Uses rejection sampling, so the result is exactly uniform; a rejection (probability
    below ``n / 2**64``) consumes one more counter value.

    >>> random_below(7, 0, 6)
    (5, 1)

    Raises:
        ValueError: ``n`` is not positive.
    """
    if n <= 0:
        raise ValueError(f"n must be positive, got {n}")
    limit = _WORD - _WORD % n
    while True:
        word = _word(seed, counter)
        counter += 1
        if word < limit:
            return word % n, counter


def shuffled(items: Sequence[T], seed: int, counter: int) -> tuple[tuple[T, ...], int]:
    """Return the items in a uniformly random order (Fisher-Yates) and the next counter."""
    result = list(items)
    for i in range(len(result) - 1, 0, -1):
        j, counter = random_below(seed, counter, i + 1)
        result[i], result[j] = result[j], result[i]
    return tuple(result), counter
