"""Running agents in the envs: episode loops (single and batched) and the aggregate metrics of a run."""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from typing import Any

import gymnasium as gym
import numpy as np

from livesim.grading.terms import WEIGHTS

PRIVILEGED_AGENTS = frozenset({"oracle", "memorizer"})


def episode_requests(env: gym.Env[Any, Any], agent: Any, seed: int | None, options: dict[str, Any] | None = None
                     ) -> Iterator[dict[str, Any]]:
    """Play one episode; yield the `info` of every dispatched reply (plus the final step's info)."""
    obs, info = env.reset(seed=seed, options=options)
    agent.reset()
    done = False
    while not done:
        action = agent.act(obs)
        obs, reward, terminated, truncated, info = env.step(action)
        done = terminated or truncated
        if info.get("dispatched"):
            yield {**info, "reward": reward, "episode_seed": seed}


def run_batched(make_env: Callable[[], gym.Env[Any, Any]], agent: Any, seeds: list[int], batch_size: int,
                options: dict[str, Any] | None = None) -> Iterator[dict[str, Any]]:
    """Play single-request episodes (LiveStreamQA-v0) `batch_size` at a time through `agent.act_batch`."""
    envs = [make_env() for _ in range(min(batch_size, len(seeds)))]
    queue = list(seeds)
    live: dict[int, tuple[int, Any]] = {}
    for i, env in enumerate(envs):
        if queue:
            s = queue.pop(0)
            live[i] = (s, env.reset(seed=s, options=options)[0])
    while live:
        idx = sorted(live)
        actions = agent.act_batch([live[i][1] for i in idx])
        for i, action in zip(idx, actions, strict=True):
            s = live[i][0]
            obs, reward, terminated, truncated, info = envs[i].step(action)
            if info.get("dispatched"):
                yield {**info, "reward": reward, "episode_seed": s}
            if terminated or truncated:
                if queue:
                    s2 = queue.pop(0)
                    live[i] = (s2, envs[i].reset(seed=s2, options=options)[0])
                else:
                    del live[i]
            else:
                live[i] = (s, obs)


def summarize(records: list[dict[str, Any]], episodes: int, wall_s: float, agent: Any = None) -> dict[str, Any]:
    """Aggregate per-request records into the figures `livesim eval` prints."""
    n = len(records)
    rewards = np.array([r["reward"] for r in records]) if n else np.zeros(1)
    lat = np.array([r["trace"]["latency_s"] for r in records]) if n else np.zeros(1)
    out: dict[str, Any] = {
        "episodes": episodes,
        "requests": n,
        "mean_reward": float(rewards.mean()),
        "accuracy": float(np.mean([r["grade"]["scores"]["accuracy"] for r in records])) if n else 0.0,
        "effectiveness": float(np.mean([r["grade"]["scores"]["effectiveness"] for r in records])) if n else 0.0,
        "terms": {k: float(np.mean([r["reward_terms"][k] for r in records])) if n else 0.0 for k in WEIGHTS},
        "scores": {k: float(np.mean([r["grade"]["scores"][k] for r in records])) if n else 0.0 for k in WEIGHTS},
        "pass_rate": float(np.mean(rewards >= 0.99)) if n else 0.0,
        "fallback_rate": float(np.mean([r["trace"]["fallback"] for r in records])) if n else 0.0,
        "latency_p50": float(np.percentile(lat, 50)),
        "latency_p95": float(np.percentile(lat, 95)),
        "turns_mean": float(np.mean([r["trace"]["turns"] for r in records])) if n else 0.0,
        "parse_failure_rate": (float(sum(r["trace"]["parse_errors"] for r in records)
                                     / max(1, sum(r["trace"]["turns"] for r in records)))),
        "wall_s": wall_s,
        "requests_per_s": n / wall_s if wall_s > 0 else 0.0,
    }
    intents: dict[str, list[float]] = {}
    for r in records:
        for it in set(r["truth"]["intents"]):
            intents.setdefault(it, []).append(r["reward"])
    out["by_intent"] = {k: float(np.mean(v)) for k, v in sorted(intents.items())}
    stats = getattr(agent, "stats", None) or {}
    if stats.get("completion_tokens") and stats.get("generate_seconds"):
        out["completion_tokens"] = int(stats["completion_tokens"])
        out["tokens_per_s"] = float(stats["completion_tokens"] / stats["generate_seconds"])
    measured = getattr(agent, "latency_log", None)
    if measured:  # wall-clock seconds per model turn, as the agent measured them
        out["turn_seconds_p50"] = float(np.percentile(measured, 50))
        out["turn_seconds_p95"] = float(np.percentile(measured, 95))
    last: dict[Any, dict[str, Any]] = {}
    for r in records:  # the running metrics of each episode's last request are that episode's totals
        if "metrics" in r:
            last[r["episode_seed"]] = r["metrics"]
    if last:
        out["business"] = {k: float(sum(m[k] for m in last.values()))
                           for k in ("gmv", "ipv", "orders", "churned", "ignored")}
    return out


def timed(fn: Callable[[], list[dict[str, Any]]]) -> tuple[list[dict[str, Any]], float]:
    t0 = time.perf_counter()
    out = fn()
    return out, time.perf_counter() - t0
