"""The Agent protocol: ``reset()`` and ``act(observation) -> action``, plus a batched form.

An observation is the dict produced by the environments: ``{"messages": [...OpenAI chat messages...],
"tools": [...OpenAI tool schemas...]}``. An action is a raw string (tool calls inside it in a tagged
format or JSON) or an OpenAI-style assistant message dict with ``tool_calls``.
"""

from __future__ import annotations

from typing import Any, Protocol, runtime_checkable

Observation = dict[str, Any]
Action = str | dict[str, Any]


class AgentUnavailable(RuntimeError):
    """The agent cannot act at all (its model server is down or failing every call): the run stops with this
    one-line message instead of recording replies that measure nothing.
    """


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


class ActOnly:
    """Gives an agent with only ``act`` (and perhaps ``reset``) the rest of the protocol: ``act_batch`` as a loop
    over ``act``, a no-op ``reset`` and a ``name``. Every other attribute is the wrapped agent's.
    """

    def __init__(self, agent: Any) -> None:
        self.agent = agent

    @property
    def name(self) -> str:
        return str(getattr(self.agent, "name", type(self.agent).__name__))

    def reset(self) -> None:
        reset = getattr(self.agent, "reset", None)
        if callable(reset):
            reset()

    def act(self, observation: Observation) -> Action:
        return self.agent.act(observation)  # type: ignore[no-any-return]

    def act_batch(self, observations: list[Observation]) -> list[Action]:
        return [self.agent.act(obs) for obs in observations]

    def __getattr__(self, attr: str) -> Any:
        return getattr(self.__dict__["agent"], attr)


def complete_agent(agent: Any) -> Any:
    """`agent` itself if it has ``reset`` and ``act_batch``; else wrapped in `ActOnly`."""
    if callable(getattr(agent, "act_batch", None)) and callable(getattr(agent, "reset", None)):
        return agent
    return ActOnly(agent)
