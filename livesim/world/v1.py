"""The v1 world generator's random source: numpy draws in bulk, handed out one value at a time.

`LiveStream-v1` and `LiveStreamQA-v1` build their world with the same generator code as v0, but the
catalogue's and strategy's values come from `BlockRNG`: uniforms and standard normals drawn from the world's
numpy generator in blocks of a few hundred, then mapped in Python (an integer in [lo, hi) is
`lo + floor(u * (hi - lo))`). A scalar numpy call costs 1-15 µs of overhead; a value from a block costs a
fraction of that. Viewers are drawn one by one, each from its own generator, only when looked up
(`LazyViewers`): a `LiveStreamQA` request looks at one or two of them. The world is still a pure function of
the seed (same seed, same bytes, in any process), but a different one from v0's, hence the new env version.
"""

from __future__ import annotations

import math
from bisect import bisect_right
from collections.abc import Sequence
from typing import Any

import numpy as np

from livesim.world.draws import seeded_rng
from livesim.world.viewers import Viewer, draw_viewer

_BLOCK = 512


class BlockRNG:
    """The subset of `numpy.random.Generator` that world generation uses, served from bulk draws."""

    def __init__(self, rng: np.random.Generator, block: int = _BLOCK) -> None:
        self._rng = rng
        self._block = block
        self._u: list[float] = []
        self._ui = 0
        self._z: list[float] = []
        self._zi = 0

    # --- the two sources ------------------------------------------------------------------------------
    def random(self) -> float:
        """A float in [0, 1)."""
        i = self._ui
        if i >= len(self._u):
            self._u = self._rng.random(self._block).tolist()
            i = 0
        self._ui = i + 1
        return self._u[i]

    def standard_normal(self) -> float:
        i = self._zi
        if i >= len(self._z):
            self._z = self._rng.standard_normal(self._block // 4).tolist()
            i = 0
        self._zi = i + 1
        return self._z[i]

    # --- numpy-like draws --------------------------------------------------------------------------------
    def integers(self, low: int, high: int | None = None) -> int:
        """An int in [low, high) (or [0, low) with one argument)."""
        if high is None:
            low, high = 0, low
        n = high - low
        if n <= 0:
            raise ValueError(f"high <= low: [{low}, {high})")
        i = self._ui
        if i >= len(self._u):
            self._u = self._rng.random(self._block).tolist()
            i = 0
        self._ui = i + 1
        k = int(self._u[i] * n)
        return low + (k if k < n else n - 1)

    def uniform(self, low: float = 0.0, high: float = 1.0) -> float:
        return low + (high - low) * self.random()

    def normal(self, loc: float = 0.0, scale: float = 1.0) -> float:
        return loc + scale * self.standard_normal()

    def lognormal(self, mean: float = 0.0, sigma: float = 1.0) -> float:
        return math.exp(mean + sigma * self.standard_normal())

    def exponential(self, scale: float = 1.0) -> float:
        return -scale * math.log1p(-self.random())

    def permutation(self, x: int | Sequence[Any]) -> list[Any]:
        items = list(range(x)) if isinstance(x, int) else list(x)
        for i in range(len(items) - 1, 0, -1):
            j = self.integers(i + 1)
            items[i], items[j] = items[j], items[i]
        return items

    def choice(self, a: int | Sequence[Any], size: int | None = None, replace: bool = True,
               p: Sequence[float] | None = None) -> Any:
        items = list(range(a)) if isinstance(a, int) else list(a)
        if size is None:
            if p is None:
                return items[self.integers(len(items))]
            cdf = np.cumsum(np.asarray(p, dtype=float))
            return items[min(bisect_right((cdf / cdf[-1]).tolist(), self.random()), len(items) - 1)]
        if p is not None:
            raise NotImplementedError("BlockRNG.choice: size with p")
        if replace:
            return [items[self.integers(len(items))] for _ in range(size)]
        if size > len(items):
            raise ValueError(f"cannot take {size} items from {len(items)} without replacement")
        for i in range(size):  # partial Fisher-Yates
            j = self.integers(i, len(items))
            items[i], items[j] = items[j], items[i]
        return items[:size]


class LazyViewers(Sequence[Viewer]):
    """The v1 viewer population: viewer `i` is drawn from its own generator (seeded from the world seed and
    `i`) the first time it is looked up.

    A `LiveStreamQA` request looks at one or two of the 60 viewers, so drawing the others would be wasted; a
    stream draws them as their comments arrive. Built viewers are kept (their `active` and `satisfaction`
    change during a stream); `active_count()` counts without drawing the rest (a viewer not drawn yet is active).
    """

    def __init__(self, seed: int, n: int) -> None:
        self._seed = seed
        self._n = n
        self._built: list[Viewer | None] = [None] * n

    def __len__(self) -> int:
        return self._n

    def _build(self, i: int) -> Viewer:
        v = draw_viewer(seeded_rng(self._seed, VIEWER_STREAM, i), i)
        self._built[i] = v
        return v

    def __getitem__(self, i: Any) -> Any:
        if isinstance(i, slice):
            return [self[j] for j in range(*i.indices(self._n))]
        i = int(i)
        if i < 0:
            i += self._n
        if not 0 <= i < self._n:
            raise IndexError(f"viewer index {i} out of range (0..{self._n - 1})")
        v = self._built[i]
        return v if v is not None else self._build(i)

    def __iter__(self) -> Any:
        for i in range(self._n):
            yield self[i]

    def active_count(self) -> int:
        """Active viewers; one not drawn yet has not left."""
        return self._n - sum(1 for v in self._built if v is not None and not v.active)


VIEWER_STREAM = 13  # the viewers' generators: (world seed, 13, i); the comment stream uses 7 and 8, QA 11


def generate_viewers_v1(seed: int, n: int) -> LazyViewers:
    """`n` viewers drawn as `livesim.viewers.draw_viewer` draws them, each from its own generator, lazily."""
    return LazyViewers(seed, n)
