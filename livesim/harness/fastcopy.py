"""A copy of JSON-like data several times faster than `copy.deepcopy` (observations, tool schemas)."""

from __future__ import annotations

import copy
from typing import Any


def fresh(x: Any) -> Any:
    """A copy of JSON-like data (dicts, lists, tuples of scalars): new containers, shared immutable leaves.
    Anything else is deep-copied.
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
    return copy.deepcopy(x)
