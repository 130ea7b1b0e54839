"""Baseline policies: `null` (says nothing) and `random` (random text and random tool calls)."""

from __future__ import annotations

import json
from typing import Any

import numpy as np

from livesim.agents.base import BaseAgent, Observation

_WORDS = ("hello", "price", "link", "yes", "maybe", "size", "great", "deal", "buy", "now", "ok", "the", "is",
          "cheap", "cool", "stock", "ship", "sorry", "thanks", "product")


class NullAgent(BaseAgent):
    """Always returns the empty string; it must score 0 on every request."""

    name = "null"

    def act(self, observation: Observation) -> str:
        return ""


class RandomAgent(BaseAgent):
    """Random words, numbers and tool calls with random arguments, drawn from its own seed."""

    name = "random"

    def __init__(self, seed: int = 0, tool_p: float = 0.5) -> None:
        super().__init__()
        self.rng = np.random.default_rng(seed)
        self.tool_p = tool_p

    def _value(self, schema: dict[str, Any]) -> Any:
        kind = schema.get("type") or (schema.get("anyOf") or [{}])[0].get("type")
        if kind == "integer":
            return int(self.rng.integers(0, 12))
        if kind == "number":
            return float(self.rng.integers(0, 500))
        return " ".join(self.rng.choice(_WORDS, size=2))

    def act(self, observation: Observation) -> str:
        tools = observation.get("tools") or []
        if tools and self.rng.random() < self.tool_p:
            fn = tools[int(self.rng.integers(len(tools)))]["function"]
            props = fn.get("parameters", {}).get("properties", {})
            args = {k: self._value(v) for k, v in props.items() if self.rng.random() < 0.8}
            return f'<tool_call>{json.dumps({"name": fn["name"], "arguments": args})}</tool_call>'
        words = list(self.rng.choice(_WORDS, size=int(self.rng.integers(3, 15))))
        if self.rng.random() < 0.5:
            words.insert(int(self.rng.integers(len(words))), str(int(self.rng.integers(1, 999))))
        return " ".join(words)
