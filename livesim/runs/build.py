"""Building envs and agents by name, as the command line and the runs name them."""

from __future__ import annotations

import inspect
from typing import Any

import gymnasium as gym

from livesim.agents import AGENT_REGISTRY, agent_class, make_agent
from livesim.envs import ENV_IDS
from livesim.envs.hsa import make_wrappers
from livesim.envs.rollout import PRIVILEGED_AGENTS
from livesim.models.extras import training_missing


def is_privileged(name: str) -> bool:
    """Agents that read the env (oracle, memorizer, a module:Class taking `env`) play one episode at a time."""
    if name in PRIVILEGED_AGENTS:
        return True
    try:
        return "env" in inspect.signature(agent_class(name)).parameters
    except (ValueError, TypeError):
        return False


def build_agent(name: str, env: Any, kwargs: dict[str, Any]) -> Any:
    """An agent by registry name or module:Class; privileged ones get `env`. Bad names exit with one line.

    An agent with a model server is checked before the first episode (`check_server`): a server that cannot
    answer raises `livesim.agents.base.AgentUnavailable` naming the URL and the cause.
    """
    if name not in AGENT_REGISTRY and ":" not in name:
        raise SystemExit(f"error: unknown agent {name!r}; choose from {', '.join(sorted(AGENT_REGISTRY))} "
                         "or give module:Class")
    try:
        agent_class(name)
    except ValueError as e:  # module:Class that cannot be imported
        raise SystemExit(f"error: {e}") from None
    if is_privileged(name):
        kwargs = {**kwargs, "env": env}
    try:
        agent = make_agent(name, **kwargs)
    except TypeError as e:
        given = ", ".join(f"{k}={v!r}" for k, v in kwargs.items() if k != "env")
        raise SystemExit(f"error: agent {name!r} refused its arguments ({given}): {e}") from None
    except (FileNotFoundError, ImportError, ValueError) as e:  # a missing model or backend: say how to get it
        raise SystemExit(f"error: {training_missing(e) or e}") from None
    check = getattr(agent, "check_server", None)
    if callable(check):
        check()
    return agent


def make_env(env_id: str, args: Any) -> Any:
    """Build an env by id with the wrappers and split named on the command line (`args`: an argparse Namespace)."""
    if env_id not in ENV_IDS:
        raise SystemExit(f"error: unknown env {env_id!r}; choose from {', '.join(ENV_IDS)}")
    kwargs: dict[str, Any] = {}
    if env_id.startswith("LiveStreamQA-") and getattr(args, "split", None):
        kwargs["split"] = args.split
    if getattr(args, "render_mode", None):
        kwargs["render_mode"] = args.render_mode
    if getattr(args, "harness_obj", None) is not None:
        kwargs["harness"] = args.harness_obj
    env = gym.make(env_id, **kwargs)
    wrappers = getattr(args, "wrappers", None)
    if wrappers:
        try:
            p = getattr(args, "hsa_p", None)
            env = make_wrappers(env, wrappers, split=getattr(args, "hsa_split", None) or "train",
                                **({} if p is None else {"p": p}))
        except ValueError as e:
            raise SystemExit(f"error: --wrappers: {e}") from None
    return env
