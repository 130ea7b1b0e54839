"""Digest everything the envs return, to check that a speed-up changed no byte.

For each env (LiveStream and LiveStreamQA, v0 and v1), bare and under the `hsa` composite, and each policy
(the oracle, an oracle that errs on a third of its actions, the memorizer and the random agent), runs a few
episodes from fixed seeds and hashes every observation, reward, termination flag and `info` (JSON with sorted
keys). Run it on two checkouts and compare the lines: a change that is meant to be exact must print the same.

    python bench/env_digest.py                        # this tree
    python bench/env_digest.py > /tmp/after.txt && diff /tmp/before.txt /tmp/after.txt
"""

from __future__ import annotations

import argparse
import hashlib
import json
import sys
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

ENVS = ("LiveStream-v0", "LiveStream-v1", "LiveStreamQA-v0", "LiveStreamQA-v1")
POLICIES = ("oracle", "oracle_err", "memorizer", "random")


def _policy(name: str, env: Any) -> Any:
    from livesim.agents import make_agent

    if name == "oracle_err":
        return make_agent("oracle", env=env, error_rate=0.35, seed=3)
    if name == "random":
        return make_agent("random", seed=5)
    return make_agent(name, env=env)


def digest(env_id: str, policy: str, hsa: bool, episodes: int, max_steps: int) -> tuple[str, float, int]:
    """(digest, reward sum, steps) of `episodes` episodes from seeds 0..episodes-1."""
    import gymnasium as gym

    import livesim.envs  # noqa: F401  (registers the envs)

    env = gym.make(env_id)
    if hsa:
        from livesim.envs.hsa import make_wrappers

        env = make_wrappers(env, "hsa", split="train")
    agent = _policy(policy, env)
    h = hashlib.blake2b(digest_size=12)
    total, steps = 0.0, 0

    def feed(*parts: Any) -> None:
        h.update(json.dumps(parts, sort_keys=True, default=repr, ensure_ascii=False).encode())

    for seed in range(episodes):
        obs, info = env.reset(seed=seed)
        getattr(agent, "reset", lambda: None)()
        feed(obs, info)
        done, n = False, 0
        while not done and n < max_steps:
            obs, reward, term, trunc, info = env.step(agent.act(obs))
            feed(obs, reward, term, trunc, info)
            total += float(reward)
            done, n = term or trunc, n + 1
        steps += n
    env.close()
    return h.hexdigest(), round(total, 9), steps


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--episodes", type=int, default=3, help="episodes per (env, policy, wrapper); QA gets 20x")
    parser.add_argument("--max-steps", type=int, default=400, help="steps per episode at most")
    args = parser.parse_args(argv)
    if args.episodes < 1 or args.max_steps < 1:
        parser.error("--episodes and --max-steps must be at least 1")
    for env_id in ENVS:
        n = args.episodes * (20 if "QA" in env_id else 1)
        for hsa in (False, True):
            for policy in POLICIES:
                d, total, steps = digest(env_id, policy, hsa, n, args.max_steps)
                print(f"{env_id:16s} {'hsa' if hsa else 'bare':4s} {policy:10s} {d} reward={total!r} steps={steps}",
                      flush=True)


if __name__ == "__main__":
    main()
