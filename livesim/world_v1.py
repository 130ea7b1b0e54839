"""The v1 world generator's random source: numpy draws in bulk, handed out one value at a time.

`LiveStream-v1` and `LiveStreamQA-v1` build their world (catalogue, strategy, viewers) with the same
generator code as v0, but the values come from `BlockRNG`: uniforms and standard normals drawn from the
world's numpy generator in blocks of a few hundred, then mapped in Python (an integer in [lo, hi) is
`lo + floor(u * (hi - lo))`). A scalar numpy call costs 1-15 µs of overhead; a value from a block costs a
fraction of that, which is what makes a `LiveStreamQA` reset cheap. The world is still a pure function of the
seed (same seed, same bytes, in any process), but a different one from v0's, hence the new env version.
"""

from __future__ import annotations

import math
from bisect import bisect_right
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

import numpy as np

if TYPE_CHECKING:
    from livesim.viewers import Viewer

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

    @property
    def numpy(self) -> np.random.Generator:
        """The numpy generator underneath (for draws made in bulk directly, such as the viewers')."""
        return self._rng

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


class LazyViewers(Sequence["Viewer"]):
    """The v1 viewer population: drawn in bulk, each `Viewer` object built the first time it is looked up.

    A `LiveStreamQA` request looks at one or two of the 60 viewers, so building the other objects would be
    wasted; a stream builds them as their comments arrive. Built viewers are kept (their `active` and
    `satisfaction` change during a stream); `active_count()` counts without building the rest.
    """

    def __init__(self, columns: dict[str, list[Any]], n: int) -> None:
        self._cols = columns
        self._n = n
        self._built: list[Viewer | None] = [None] * n

    def __len__(self) -> int:
        return self._n

    def _build(self, i: int) -> Viewer:
        from livesim.viewers import Viewer

        c = self._cols
        v = Viewer.model_construct(viewer_id=f"v{i:04d}", name=c["name"][i], persona=c["persona"][i],
                                   budget=c["budget"][i], interests=[c["interest_a"][i], c["interest_b"][i]],
                                   patience_s=c["patience_s"][i], region=c["region"][i],
                                   height_cm=c["height_cm"][i], weight_kg=c["weight_kg"][i])
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
        """Active viewers; one not built yet has not left."""
        return self._n - sum(1 for v in self._built if v is not None and not v.active)


def generate_viewers_v1(rng: np.random.Generator, n: int) -> LazyViewers:
    """`n` viewers with the distributions of `livesim.viewers.generate_viewers`, drawn in a dozen bulk calls."""
    from livesim.catalog import CATEGORIES, REGIONS
    from livesim.viewers import _PERSONA_INDEX, PERSONAS, _first_names

    names = _first_names()
    persona = np.searchsorted(np.asarray(_PERSONA_INDEX._cdf), rng.random(n), side="right")
    height = np.minimum(np.maximum(rng.normal(168, 9, n), 150), 195).astype(int)  # np.clip, without its overhead
    weight = np.minimum(np.maximum(rng.normal(21.5, 2.5, n) * (height / 100) ** 2, 40), 100).astype(int)
    first = rng.integers(len(names), size=n).tolist()
    r = rng.random(n).tolist()
    number = rng.integers(1, 100, size=n).tolist()
    second = rng.integers(len(names), size=n).tolist()
    handles = []
    for f, x, k, s in zip(first, r, number, second, strict=True):
        name = names[f]
        handles.append(name if x < 0.5 else f"{name.lower()}{k}" if x < 0.8 else
                       f"{name.lower()}_{names[s][:3].lower()}")
    a = rng.integers(len(CATEGORIES), size=n)
    b = (a + 1 + rng.integers(len(CATEGORIES) - 1, size=n)) % len(CATEGORIES)  # distinct from a
    cols = {
        "persona": [PERSONAS[i] for i in persona.tolist()],
        "height_cm": height.tolist(),
        "weight_kg": weight.tolist(),
        "name": handles,
        "budget": np.round(rng.lognormal(5.3, 0.7, n)).tolist(),
        "interest_a": [CATEGORIES[i] for i in a.tolist()],
        "interest_b": [CATEGORIES[i] for i in b.tolist()],
        "patience_s": rng.uniform(10, 40, n).tolist(),
        "region": [REGIONS[i] for i in rng.integers(len(REGIONS), size=n).tolist()],
    }
    return LazyViewers(cols, n)
