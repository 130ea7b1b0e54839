"""The Agent protocol: ``reset()`` and ``act(observation) -> action``, plus a batched form.

An observation is the dict produced by the environments: ``{"messages": [...OpenAI chat messages...],
"tools": [...OpenAI tool schemas...]}``. An action is a raw string (tool calls inside it in a tagged
format or JSON) or an OpenAI-style assistant message dict with ``tool_calls``.
"""

from __future__ import annotations

from typing import Any, Protocol, runtime_checkable

Observation = dict[str, Any]
Action = str | dict[str, Any]


@runtime_checkable
class Agent(Protocol):
    """What every policy implements."""

    name: str

    def reset(self) -> None:
        """Forget any per-episode state."""

    def act(self, observation: Observation) -> Action:
        """Return the assistant's output for one observation."""


class BaseAgent:
    """Convenience base: ``act_batch`` falls back to a loop over ``act``; stats are a dict."""

    name = "base"

    def __init__(self) -> None:
        self.stats: dict[str, float] = {}

    def reset(self) -> None:  # noqa: D401 - protocol method
        """Forget per-episode state (none by default)."""

    def act(self, observation: Observation) -> Action:  # pragma: no cover - abstract
        raise NotImplementedError

    def act_batch(self, observations: list[Observation]) -> list[Action]:
        """Act on several observations at once; models override this to batch generation."""
        return [self.act(obs) for obs in observations]
