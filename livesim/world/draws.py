"""Exact, cheaper equivalents of the numpy and Faker calls that draw a v0 world.

Each helper draws exactly what the call it replaces draws (same values, same generator state after), without
that call's per-call overhead (1-15 µs each, and a world makes hundreds). `tests/livesim/stream/test_fastpaths.py`
checks them against numpy and Faker over many seeds, and a digest pins the v0 worlds to their old bytes.
"""

from __future__ import annotations

import operator
from bisect import bisect_right
from collections.abc import Sequence
from itertools import accumulate
from typing import Any

import numpy as np
from faker.providers.person.en_US import Provider as _EnUsPerson


def seeded_rng(*key: int) -> np.random.Generator:
    """`np.random.default_rng(list(key))`: the same generator (same state), made from the uint32 entropy words that
    numpy would coerce the list to (each part little-endian, 0 as one word), without numpy's per-call coercion
    (about 6 µs instead of 9; a stream seeds a generator per comment and per viewer).
    """
    words: list[int] = []
    for part in key:
        k = operator.index(part)
        if k < 0:  # numpy's own error
            return np.random.default_rng(list(key))
        if k == 0:
            words.append(0)
        while k:
            words.append(k & 0xFFFFFFFF)
            k >>= 32
    return np.random.Generator(np.random.PCG64(np.random.SeedSequence(np.array(words, dtype=np.uint32))))


def pick(rng: Any, seq: Sequence[Any]) -> Any:
    """`rng.choice(seq)` (no `p`): the same `integers(len(seq))` draw, without converting `seq` to an array (1 µs
    instead of 4.5); also what `BlockRNG.choice` does.
    """
    return seq[int(rng.integers(len(seq)))]


def sample_without_replacement(rng: Any, n: int, k: int) -> list[int]:
    """`[int(i) for i in rng.choice(n, size=k, replace=False)]` for small `n`: numpy's Floyd's algorithm and
    the shuffle it applies after, made of the same `integers` draws.
    """
    integers = rng.integers
    idx: list[int] = []
    for j in range(n - k, n):
        val = int(integers(0, j + 1))
        idx.append(j if val in idx else val)
    for i in range(k - 1, 0, -1):
        j = int(integers(0, i + 1))
        idx[i], idx[j] = idx[j], idx[i]
    return idx


class WeightedIndex:
    """`int(rng.choice(len(p), p=p))` as a bisection of one `rng.random()` draw on the same normalised CDF."""

    def __init__(self, p: Any) -> None:
        cdf = np.asarray(p, dtype=float).cumsum()
        cdf /= cdf[-1]
        self.cdf: list[float] = cdf.tolist()

    def __call__(self, rng: Any) -> int:
        return bisect_right(self.cdf, rng.random())


class FakerLastName:
    """`faker.last_name()` (en_US) from the same Faker's `random`, without rebuilding the weights per call."""

    def __init__(self) -> None:
        self._names = tuple(_EnUsPerson.last_names)
        self._cum = list(accumulate(_EnUsPerson.last_names.values()))

    def __call__(self, faker: Any) -> str:
        return faker.random.choices(self._names, cum_weights=self._cum, k=1)[0]
