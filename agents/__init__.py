"""Agents that act in the livesim environments, and a registry to build them by name."""

from __future__ import annotations

import importlib
from typing import Any

from livesim.agents.base import Action, Agent, BaseAgent, Observation

# name -> "module:Class"; modules are imported lazily so torch/vllm load only when asked for.
AGENT_REGISTRY: dict[str, str] = {
    "oracle": "livesim.agents.oracle:OracleAgent",
    "memorizer": "livesim.agents.oracle:MemorizerAgent",
    "null": "livesim.agents.simple:NullAgent",
    "random": "livesim.agents.simple:RandomAgent",
    "transformers": "livesim.agents.transformers_agent:TransformersAgent",
    "openai": "livesim.agents.openai_agent:OpenAIAgent",
    "vllm": "livesim.agents.vllm_agent:VLLMAgent",
    "mock": "livesim.agents.mock:MockAgent",
}


def make_agent(name: str, **kwargs: Any) -> Agent:
    """Build an agent from the registry by name."""
    if name not in AGENT_REGISTRY:
        raise ValueError(f"unknown agent {name!r}; expected one of {sorted(AGENT_REGISTRY)}")
    module, cls = AGENT_REGISTRY[name].split(":")
    return getattr(importlib.import_module(module), cls)(**kwargs)


__all__ = ["AGENT_REGISTRY", "Action", "Agent", "BaseAgent", "Observation", "make_agent"]
