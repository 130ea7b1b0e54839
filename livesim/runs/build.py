"""Building envs and agents by name, as the command line and the runs name them."""

from __future__ import annotations

from typing import Any

import gymnasium as gym

from livesim.agents import AGENT_REGISTRY, make_agent
from livesim.envs import ENV_IDS
from livesim.envs.hsa import make_wrappers
from livesim.envs.rollout import PRIVILEGED_AGENTS


def build_agent(name: str, env: Any, kwargs: dict[str, Any]) -> Any:
    if name not in AGENT_REGISTRY:
        raise SystemExit(f"error: unknown agent {name!r}; choose from {', '.join(sorted(AGENT_REGISTRY))}")
    if name in PRIVILEGED_AGENTS:
        kwargs = {**kwargs, "env": env}
    try:
        return make_agent(name, **kwargs)
    except TypeError as e:
        raise SystemExit(f"error: agent {name!r} does not accept these arguments: {e}") from None
    except (FileNotFoundError, ImportError, ValueError) as e:  # a missing model or backend: say how to get it
        raise SystemExit(f"error: {e}") from None


def make_env(env_id: str, args: Any) -> Any:
    """Build an env by id with the wrappers and split named on the command line (`args`: an argparse Namespace)."""
    if env_id not in ENV_IDS:
        raise SystemExit(f"error: unknown env {env_id!r}; choose from {', '.join(ENV_IDS)}")
    kwargs: dict[str, Any] = {}
    if env_id == "LiveStreamQA-v0" and getattr(args, "split", None):
        kwargs["split"] = args.split
    if getattr(args, "render_mode", None):
        kwargs["render_mode"] = args.render_mode
    env = gym.make(env_id, **kwargs)
    wrappers = getattr(args, "wrappers", None)
    if wrappers:
        try:
            env = make_wrappers(env, wrappers, split=getattr(args, "hsa_split", None) or "train")
        except ValueError as e:
            raise SystemExit(f"error: --wrappers: {e}") from None
    return env
