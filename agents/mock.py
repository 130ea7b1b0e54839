"""A scripted mock model client keyed on the prompt, so tests need no model, network or key."""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from typing import Any

from livesim.agents.base import Action, BaseAgent, Observation

Script = Mapping[str, Action | list[Action]] | Callable[[Observation], Action] | None


def last_prompt(observation: Observation) -> str:
    """Content of the last user or tool message (what a scripted reply is keyed on)."""
    for message in reversed(observation.get("messages", [])):
        if message.get("role") in ("user", "tool"):
            content = message.get("content")
            return content if isinstance(content, str) else ""
    return ""


class MockAgent(BaseAgent):
    """Reply from a script keyed on the last user/tool message.

    ``script`` maps a key to a reply or a list of replies. A key matches when it equals the prompt, else
    when ``re.search(key, prompt)`` finds it (keys tried in order). A list is consumed one reply per match
    and then repeats its last entry; ``reset()`` rewinds it. A callable script is
    ``f(observation) -> action``. Unmatched prompts get ``default``. ``prompts`` records every prompt
    seen, for assertions.
    """

    name = "mock"

    def __init__(self, script: Script = None, default: Action = "") -> None:
        super().__init__()
        self.script = script
        self.default = default
        self.prompts: list[str] = []
        self._positions: dict[str, int] = {}
        if isinstance(script, Mapping):
            self._patterns = {key: _compile(key) for key in script}
        self.stats.update(calls=0, unmatched=0)

    def reset(self) -> None:
        self._positions.clear()

    def _lookup(self, prompt: str) -> str | None:
        assert isinstance(self.script, Mapping)
        if prompt in self.script:
            return prompt
        return next((key for key, pattern in self._patterns.items() if pattern.search(prompt)), None)

    def act(self, observation: Observation) -> Action:
        prompt = last_prompt(observation)
        self.prompts.append(prompt)
        self.stats["calls"] += 1
        if callable(self.script):
            return self.script(observation)
        key = self._lookup(prompt) if isinstance(self.script, Mapping) else None
        if key is None:
            self.stats["unmatched"] += 1
            return _copy(self.default)
        reply: Any = self.script[key]  # type: ignore[index]
        if isinstance(reply, list):
            position = self._positions.get(key, 0)
            self._positions[key] = position + 1
            reply = reply[min(position, len(reply) - 1)] if reply else self.default
        return _copy(reply)


def _compile(key: str) -> re.Pattern[str]:
    """Compile a key; one that is not a valid regex matches as a literal substring."""
    try:
        return re.compile(key)
    except re.error:
        return re.compile(re.escape(key))


def _copy(action: Action) -> Action:
    """Hand out a fresh dict each time so callers may mutate the action."""
    return dict(action) if isinstance(action, dict) else action
