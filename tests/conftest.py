"""Shared test helpers: play an episode and collect the dispatched requests."""

from __future__ import annotations

from typing import Any

import gymnasium as gym
import pytest

import livesim  # noqa: F401  (registers the envs)
from livesim.agents import make_agent


def play(env: gym.Env[Any, Any], agent: Any, seed: int, options: dict[str, Any] | None = None
         ) -> list[tuple[Any, float, dict[str, Any]]]:
    """Play one episode; return (action, reward, info) for every step."""
    obs, info = env.reset(seed=seed, options=options)
    agent.reset()
    out = []
    done = False
    while not done:
        action = agent.act(obs)
        obs, reward, terminated, truncated, info = env.step(action)
        out.append((action, reward, info))
        done = terminated or truncated
    return out


@pytest.fixture
def qa_env() -> gym.Env[Any, Any]:
    return gym.make("LiveStreamQA-v0")


@pytest.fixture
def oracle_qa(qa_env: gym.Env[Any, Any]) -> tuple[gym.Env[Any, Any], Any]:
    return qa_env, make_agent("oracle", env=qa_env)
