"""What a new user meets first: the README example, the oracle inside AsyncVectorEnv workers, info's seed."""

from __future__ import annotations

import contextlib
import io
import re
from pathlib import Path

import gymnasium as gym
import numpy as np

import livesim  # noqa: F401
from livesim.agents.oracle import OracleAgent, with_oracle

README = Path(__file__).resolve().parents[2] / "README.md"


def test_readme_example_loads_a_reply_skill_and_ends_in_a_graded_reply() -> None:
    code = re.search(r"```python\n(import gymnasium.*?)```", README.read_text(), re.S).group(1)
    scope: dict = {}
    with contextlib.redirect_stdout(io.StringIO()):
        exec(compile(code, str(README), "exec"), scope)  # noqa: S102 - our own README
    assert scope["terminated"] and scope["reward"] > 0.99
    assert scope["info"]["trace"]["loaded_skills"] == ["small-talk"]
    assert sum(scope["info"]["reward_terms"].values()) == scope["reward"]


def test_info_carries_the_simulator_seed() -> None:
    env = gym.make("LiveStreamQA-v0")
    _, info = env.reset(seed=5)
    assert info["sim_seed"] == env.unwrapped.sim.seed
    _, _, _, _, info2 = env.step("hello")
    assert info2["sim_seed"] == info["sim_seed"]
    _, again = gym.make("LiveStreamQA-v0").reset(seed=5)
    assert again["sim_seed"] == info["sim_seed"]


def _make() -> gym.Env:
    return with_oracle(gym.make("LiveStreamQA-v0"))


def test_async_vector_env_driven_by_the_oracle_inside_its_workers() -> None:
    venv = gym.vector.AsyncVectorEnv([_make for _ in range(3)], shared_memory=False)
    try:
        venv.reset(seed=0)
        rewards = np.zeros(3)
        done = np.zeros(3, dtype=bool)
        for _ in range(8):
            actions = venv.call("oracle_action")
            _, reward, terminated, truncated, _ = venv.step(actions)
            rewards += np.where(done, 0.0, reward)
            done |= terminated | truncated
            if done.all():
                break
    finally:
        venv.close()
    assert done.all()
    # the same episodes played in-process by a bound oracle score the same
    expected = []
    for i in range(3):
        env = gym.make("LiveStreamQA-v0")
        agent = OracleAgent(env)
        obs, _ = env.reset(seed=i)  # AsyncVectorEnv seeds env i with seed + i
        terminated = False
        while not terminated:
            obs, reward, terminated, _, _ = env.step(agent.act(obs))
        expected.append(reward)
    assert rewards.tolist() == expected and min(expected) > 0.9
