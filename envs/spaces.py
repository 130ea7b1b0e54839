"""Text spaces for chat environments: the conversation observation and the free-form assistant action.

Gymnasium's `Text` space defaults to an alphanumeric charset and `min_length=1`, which cannot hold chat
text, so both spaces here are custom: any string (including empty) is a legal action, and an observation
is a dict of OpenAI-format messages and tool schemas. Vector envs batch them as `Tuple`s.
"""

from __future__ import annotations

import copy
import pickle
from collections.abc import Iterable
from typing import Any

import numpy as np
from gymnasium.spaces import Space
from gymnasium.vector.utils import concatenate

ROLES = frozenset({"system", "user", "assistant", "tool"})
_ALPHABET = list("abcdefghijklmnopqrstuvwxyz ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789.,!?<>{}[]\":'#/-_\n") + [
    "é", "ü", "你", "好", "🙂", "\u200b", "\t"]


def _random_text(rng: np.random.Generator, max_len: int) -> str:
    n = int(rng.integers(0, max_len + 1))
    return "".join(_ALPHABET[int(i)] for i in rng.integers(len(_ALPHABET), size=n))


class AssistantAction(Space[Any]):
    """Any string up to `max_length` characters, or an OpenAI-style assistant message dict."""

    def __init__(self, max_length: int = 65536, seed: int | np.random.Generator | None = None) -> None:
        if max_length < 1:
            raise ValueError(f"max_length must be >= 1, got {max_length}")
        self.max_length = max_length
        super().__init__(shape=None, dtype=None, seed=seed)

    @property
    def is_np_flattenable(self) -> bool:
        return False

    def sample(self, mask: Any = None, probability: Any = None) -> str:
        return _random_text(self.np_random, 200)

    def contains(self, x: Any) -> bool:
        if isinstance(x, str):
            return len(x) <= self.max_length
        return isinstance(x, dict) and x.get("role", "assistant") == "assistant"

    def __repr__(self) -> str:
        return f"AssistantAction(max_length={self.max_length})"

    def __eq__(self, other: object) -> bool:
        return isinstance(other, AssistantAction) and other.max_length == self.max_length


class Conversation(Space[dict[str, Any]]):
    """`{"messages": [chat messages], "tools": [OpenAI tool schemas]}`; messages only grow within a request."""

    def __init__(self, seed: int | np.random.Generator | None = None) -> None:
        super().__init__(shape=None, dtype=None, seed=seed)

    @property
    def is_np_flattenable(self) -> bool:
        return False

    def sample(self, mask: Any = None, probability: Any = None) -> dict[str, Any]:
        rng = self.np_random
        msgs = [{"role": "system", "content": _random_text(rng, 100)},
                {"role": "user", "content": _random_text(rng, 60)}]
        tools = [{"type": "function", "function": {"name": "t" + str(i), "description": _random_text(rng, 20),
                                                   "parameters": {"type": "object", "properties": {}}}}
                 for i in range(int(rng.integers(0, 4)))]
        return {"messages": msgs, "tools": tools}

    def contains(self, x: Any) -> bool:
        if not isinstance(x, dict) or set(x) != {"messages", "tools"}:
            return False
        msgs, tools = x["messages"], x["tools"]
        if not isinstance(msgs, list) or not isinstance(tools, list):
            return False
        for m in msgs:
            if not isinstance(m, dict) or m.get("role") not in ROLES:
                return False
            if not isinstance(m.get("content"), (str, type(None))):
                return False
        return all(isinstance(t, dict) and isinstance(t.get("function"), dict) for t in tools)

    def __repr__(self) -> str:
        return "Conversation()"

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Conversation)


class ConversationBatch(tuple):  # type: ignore[type-arg]
    """The observations of a vector env's sub-envs (a tuple of `Conversation` observations).

    Sync and Async vector envs deep-copy the batch they return at every step (`copy=True`, the default); the
    observations are JSON-like data, so a pickle round trip makes the same deep copy about 5x faster than
    `copy.deepcopy` (plain dicts and lists in a plain tuple, shared sub-objects kept shared).
    """

    __slots__ = ()

    def __deepcopy__(self, memo: dict[int, Any]) -> tuple[Any, ...]:
        try:
            return tuple(pickle.loads(pickle.dumps(tuple(self), pickle.HIGHEST_PROTOCOL)))
        except Exception:  # noqa: BLE001 - anything that is not plain data: the general copy
            return tuple(copy.deepcopy(x, memo) for x in self)


@concatenate.register(Conversation)
def _concatenate_conversations(space: Conversation, items: Iterable[Any], out: Any) -> ConversationBatch:
    """How vector envs batch `Conversation` observations (as Gymnasium does for custom spaces, a tuple)."""
    return ConversationBatch(items)
