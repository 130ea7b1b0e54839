"""Shared, read-only pieces of the simulator's hot path: the default harness, fast copies, exact fast draws.

A `LiveStreamQA-v0` request builds a whole stream, so what does not change between streams is built once per
process and shared: the default harness (and its fingerprint). Shared objects are read-only by contract: the
simulator never edits a harness in place (patches return a new one, HSA transforms edit their own copy), and
callers change a stream's harness with `StreamSim.set_harness`, never by editing `sim.harness`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from livesim.harness import Harness

_DEFAULT: tuple[Harness, str] | None = None
_SCHEMAS: dict[int, tuple[Harness, bytes]] = {}


def shared_default_harness() -> tuple[Harness, str]:
    """The canonical default harness and its fingerprint, built once per process. Never edit it in place."""
    global _DEFAULT
    if _DEFAULT is None:
        from livesim.harness import default_harness  # here: the catalogue and viewers import this module

        h = default_harness()
        _DEFAULT = (h, h.fingerprint)
    return _DEFAULT


def pickled_schemas(harness: Harness, shared: bool) -> bytes:
    """`harness.tool_schemas()`, pickled (an observation unpickles a fresh copy). A `shared` harness (one that
    is never edited, such as the shared default) keeps its schemas for the life of the process.
    """
    import pickle

    if shared:
        hit = _SCHEMAS.get(id(harness))
        if hit is not None and hit[0] is harness:
            return hit[1]
    data = pickle.dumps(harness.tool_schemas(), protocol=pickle.HIGHEST_PROTOCOL)
    if shared:
        _SCHEMAS[id(harness)] = (harness, data)  # holds the harness, so the id is never reused
    return data


def fresh(x: Any) -> Any:
    """A copy of JSON-like data (dicts, lists, tuples of scalars): new containers, shared immutable leaves.

    Several times faster than `copy.deepcopy` for observations, which are plain chat messages and schemas.
    """
    t = type(x)
    if t is dict:
        return {k: fresh(v) for k, v in x.items()}
    if t is list:
        return [fresh(v) for v in x]
    if t is tuple:
        return tuple(fresh(v) for v in x)
    if t is str or t is int or t is float or t is bool or x is None:
        return x
    import copy

    return copy.deepcopy(x)


# --- exact, cheaper equivalents of numpy Generator calls --------------------------------------------------------
# Each helper draws exactly what the numpy call it replaces draws (same values, same generator state after), at
# a fraction of the per-call overhead; tests/livesim/test_hotpath.py checks them against numpy over many seeds.
def sample_without_replacement(rng: Any, n: int, k: int) -> list[int]:
    """`[int(i) for i in rng.choice(n, size=k, replace=False)]` for small `n` (Floyd's algorithm, then the
    shuffle numpy applies), without the call's per-call overhead.
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
        import numpy as np

        cdf = np.asarray(p, dtype=float).cumsum()
        cdf /= cdf[-1]
        self._cdf = cdf.tolist()

    def __call__(self, rng: Any) -> int:
        from bisect import bisect_right

        return bisect_right(self._cdf, rng.random())


class FakerLastName:
    """`faker.last_name()` (en_US) from the same Faker's `random`, without rebuilding the weights per call."""

    def __init__(self) -> None:
        from itertools import accumulate

        from faker.providers.person.en_US import Provider

        self._names = tuple(Provider.last_names)
        self._cum = list(accumulate(Provider.last_names.values()))

    def __call__(self, faker: Any) -> str:
        return faker.random.choices(self._names, cum_weights=self._cum, k=1)[0]
