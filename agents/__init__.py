"""Agents that act in the livesim environments, and a registry to build them by name."""

from __future__ import annotations

import importlib
import importlib.util
import sys
from pathlib import Path
from typing import Any

from livesim.agents.base import Action, ActOnly, Agent, BaseAgent, Observation, complete_agent

# name -> "module:Class"; modules are imported lazily so torch/vllm load only when asked for.
AGENT_REGISTRY: dict[str, str] = {
    "oracle": "livesim.agents.oracle:OracleAgent",
    "memorizer": "livesim.agents.oracle:MemorizerAgent",
    "reader": "livesim.agents.reader:ReaderAgent",
    "null": "livesim.agents.simple:NullAgent",
    "random": "livesim.agents.simple:RandomAgent",
    "transformers": "livesim.agents.transformers_agent:TransformersAgent",
    "openai": "livesim.agents.openai_agent:OpenAIAgent",
    "vllm": "livesim.agents.vllm_agent:VLLMAgent",
    "mock": "livesim.agents.mock:MockAgent",
}

# name -> behaviour version of a scripted agent that is still changing: evaluation caches key on it, so a
# changed policy is never served a stale result (bump it with any change to what the agent does)
AGENT_VERSIONS: dict[str, int] = {"reader": 2}


def agent_class(name: str) -> type:
    """The class of a registered agent name, of ``"package.module:Class"`` (any importable module, or one in the
    working directory) or of ``"path/to/file.py:Class"``.
    """
    if name in AGENT_REGISTRY:
        module, cls = AGENT_REGISTRY[name].split(":")
        return getattr(importlib.import_module(module), cls)  # type: ignore[no-any-return]
    if ":" not in name:
        raise ValueError(f"unknown agent {name!r}; expected one of {sorted(AGENT_REGISTRY)} or module:Class")
    module, _, cls = name.rpartition(":")
    try:
        mod = _import(module)
    except ModuleNotFoundError as e:
        raise ValueError(f"agent {name!r}: cannot import module {module!r} ({e.msg})") from None
    obj = getattr(mod, cls, None)
    if not isinstance(obj, type):
        raise ValueError(f"agent {name!r}: module {module!r} has no class {cls!r}")
    if not callable(getattr(obj, "act", None)):
        raise ValueError(f"agent {name!r}: {cls} has no act(observation) method")
    return obj


def _import(module: str) -> Any:
    """A module by dotted name, or from a file (`path/to/agents.py`). A dotted name that is not importable but
    names a file or package in the working directory is imported from there (as `python -m` would).
    """
    if module.endswith(".py"):
        path = Path(module)
        if not path.is_file():
            raise ModuleNotFoundError(f"no file {module}")
        spec = importlib.util.spec_from_file_location(path.stem, path)
        if spec is None or spec.loader is None:
            raise ModuleNotFoundError(f"cannot load {module}")
        mod = sys.modules.get(path.stem)
        if mod is None or getattr(mod, "__file__", None) != str(path.resolve()):
            mod = importlib.util.module_from_spec(spec)
            mod.__file__ = str(path.resolve())
            sys.modules[path.stem] = mod
            spec.loader.exec_module(mod)
        return mod
    try:
        return importlib.import_module(module)
    except ModuleNotFoundError:
        local = Path.cwd() / module.replace(".", "/")
        if str(Path.cwd()) in sys.path or not (local.with_suffix(".py").is_file() or local.is_dir()):
            raise
        sys.path.insert(0, str(Path.cwd()))
        return importlib.import_module(module)


def make_agent(name: str, **kwargs: Any) -> Agent:
    """Build an agent by registry name or ``"module:Class"`` (the class is called with ``kwargs``). A class with
    only ``act`` gets ``reset`` and ``act_batch`` from `ActOnly`, so it runs wherever a built-in agent does.
    """
    return complete_agent(agent_class(name)(**kwargs))  # type: ignore[no-any-return]


__all__ = ["AGENT_REGISTRY", "AGENT_VERSIONS", "Action", "ActOnly", "Agent", "BaseAgent", "Observation", "agent_class",
           "complete_agent",
           "make_agent"]
