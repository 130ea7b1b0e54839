"""A harness of your own, from a file and from code, played by the oracle (whose score must not change: the
harness is presented differently, the task is the same).

    python examples/custom_harness.py --episodes 20
    livesim harness show --harness examples/my_harness.yaml     # preview what an agent is given
    livesim eval --agent oracle --harness examples/my_harness.yaml --episodes 20
"""

from __future__ import annotations

import argparse
from pathlib import Path

import gymnasium as gym

import livesim  # noqa: F401  (registers the envs)
from livesim.agents import make_agent
from livesim.harness import default_harness
from livesim.harness.core import Harness, Skill
from livesim.stream.harness_file import load_harness_file

HERE = Path(__file__).parent


def in_code() -> Harness:
    """The canonical harness with a tool renamed, a reply skill reworded and a distractor skill added."""
    h = default_harness().clone()
    next(t for t in h.tools if t.key == "check_stock").name = "inventory"
    small_talk = next(s for s in h.skills if s.key == "small-talk")
    small_talk.description = "Say hello and keep chit-chat short, then point back to the products."
    h.skills.append(Skill(key="weather", role="weather", kind="distractor", name="weather-chat",
                          description="Talk about the weather (never needed to answer a viewer).",
                          content="- Mention the weather only if asked."))
    return h


def mean_reward(harness: Harness | None, episodes: int) -> float:
    env = gym.make("LiveStreamQA-v0", **({"harness": harness} if harness is not None else {}))
    oracle = make_agent("oracle", env=env)
    total = 0.0
    for seed in range(episodes):
        obs, _ = env.reset(seed=seed)
        oracle.reset()
        done = False
        while not done:
            obs, reward, terminated, truncated, _ = env.step(oracle.act(obs))
            done = terminated or truncated
        total += float(reward)
    return total / episodes


def main(argv: list[str] | None = None) -> dict[str, float]:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--episodes", type=int, default=20)
    args = p.parse_args(argv)
    out = {"canonical": mean_reward(None, args.episodes),
           "my_harness.yaml": mean_reward(load_harness_file(HERE / "my_harness.yaml"), args.episodes),
           "in code": mean_reward(in_code(), args.episodes)}
    for name, value in out.items():
        print(f"oracle on the {name} harness: mean reward {value:.3f} over {args.episodes} requests")
    return out


if __name__ == "__main__":
    main()
