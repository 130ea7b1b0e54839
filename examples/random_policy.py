"""A random policy over both envs and a vector env: the Gymnasium loop every RL codebase starts from.

python examples/random_policy.py --episodes 5 --steps 40
"""

from __future__ import annotations

import argparse

import gymnasium as gym

import livesim  # noqa: F401  (registers LiveStream-v0/-v1 and LiveStreamQA-v0/-v1)
from livesim.agents import make_agent


def one_env(env_id: str, episodes: int, max_steps: int) -> float:
    """Mean return of the random agent over `episodes` episodes (each cut after `max_steps` steps)."""
    env = gym.make(env_id)
    agent = make_agent("random", seed=0)
    returns = []
    for seed in range(episodes):
        obs, info = env.reset(seed=seed)
        total, done, steps = 0.0, False, 0
        while not done and steps < max_steps:
            obs, reward, terminated, truncated, info = env.step(agent.act(obs))  # any string is a legal action
            total, done, steps = total + float(reward), terminated or truncated, steps + 1
        returns.append(total)
    env.close()
    return sum(returns) / len(returns)


def vector(num_envs: int, steps: int) -> float:
    """Mean reward per dispatched reply of the random agent over a `SyncVectorEnv` of LiveStreamQA-v1."""
    envs = gym.vector.SyncVectorEnv([lambda: gym.make("LiveStreamQA-v1") for _ in range(num_envs)])
    agent = make_agent("random", seed=1)
    obs, infos = envs.reset(seed=0)
    replies, total = 0, 0.0
    for _ in range(steps):
        actions = agent.act_batch(list(obs))  # a tuple of per-env observations (the Text-like space batches so)
        obs, rewards, terminations, truncations, infos = envs.step(actions)
        replies += int(terminations.sum())
        total += float(rewards.sum())
    envs.close()
    return total / max(replies, 1)


def main(argv: list[str] | None = None) -> dict[str, float]:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--episodes", type=int, default=5)
    p.add_argument("--steps", type=int, default=40, help="step cap per episode, and vector steps")
    p.add_argument("--num-envs", type=int, default=4)
    args = p.parse_args(argv)
    out = {"LiveStreamQA-v0": one_env("LiveStreamQA-v0", args.episodes, args.steps),
           "LiveStream-v0": one_env("LiveStream-v0", max(1, args.episodes // 5), args.steps),
           f"SyncVectorEnv x{args.num_envs} LiveStreamQA-v1": vector(args.num_envs, args.steps)}
    for name, value in out.items():
        print(f"{name:32s} random policy: {'mean reward per reply' if 'Vector' in name else 'mean return'} {value:.3f}")
    return out


if __name__ == "__main__":
    main()
