"""Running agents in the envs: episode loops (single and batched) and the aggregate metrics of a run."""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from typing import Any

import gymnasium as gym
import numpy as np

from livesim.grading.terms import WEIGHTS

PRIVILEGED_AGENTS = frozenset({"oracle", "memorizer"})


def failed_calls(agent: Any, n: int) -> list[str | None]:
    """For each of the `n` observations the agent last acted on: why its model call failed (None: it did not, or
    the agent reports no calls). Model-server agents report calls in `last_calls` (`agents/openai_agent.py`).
    """
    calls = getattr(agent, "last_calls", None)
    if not isinstance(calls, list) or len(calls) != n:
        return [None] * n
    return [str(c.get("error") or "failed call") if isinstance(c, dict) and c.get("outcome") == "failed" else None
            for c in calls]


def mark_unmeasured(out: dict[str, Any], cause: str | None) -> dict[str, Any]:
    """A dispatched request's info, marked as measuring no model when a call during it failed."""
    if cause:
        out["unmeasured"] = cause
    return out


def episode_requests(env: gym.Env[Any, Any], agent: Any, seed: int | None, options: dict[str, Any] | None = None
                     ) -> Iterator[dict[str, Any]]:
    """Play one episode; yield the `info` of every dispatched reply (plus the final step's info); a request
    during which a model call failed is marked `unmeasured` (`summarize` counts it apart).
    """
    obs, info = env.reset(seed=seed, options=options)
    agent.reset()
    done, failed = False, None
    while not done:
        action = agent.act(obs)
        failed = failed or failed_calls(agent, 1)[0]
        obs, reward, terminated, truncated, info = env.step(action)
        done = terminated or truncated
        if info.get("dispatched"):
            yield mark_unmeasured({**info, "reward": reward, "episode_seed": seed}, failed)
            failed = None


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
        for i, action, failed in zip(idx, actions, failed_calls(agent, len(idx)), strict=True):
            s = live[i][0]
            obs, reward, terminated, truncated, info = envs[i].step(action)
            if info.get("dispatched"):  # one request per episode: the failed call was this request's
                yield mark_unmeasured({**info, "reward": reward, "episode_seed": s}, failed)
            if terminated or truncated:
                if queue:
                    s2 = queue.pop(0)
                    live[i] = (s2, envs[i].reset(seed=s2, options=options)[0])
                else:
                    del live[i]
            else:
                live[i] = (s, obs)


def summarize(records: list[dict[str, Any]], episodes: int, wall_s: float, agent: Any = None) -> dict[str, Any]:
    """Aggregate per-request records into the figures `livesim eval` prints.

    Requests marked `unmeasured` (a model call failed during them: the reply measures the plumbing, not the
    model) are left out of every mean and counted in `unmeasured_requests`; `requests` counts the measured ones.
    An agent that reports HTTP accounting (`stats["timeouts"]`) adds `model_calls`.
    """
    every = records  # the stream's running metrics count every request
    unmeasured = sum(1 for r in records if r.get("unmeasured"))
    if unmeasured:
        records = [r for r in records if not r.get("unmeasured")]
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
        "parse_failures": int(sum(r["trace"]["parse_errors"] for r in records)),
        "tool_calls_per_request": float(np.mean([len(r["trace"]["tool_calls"]) for r in records])) if n else 0.0,
        "wall_s": wall_s,
        "requests_per_s": n / wall_s if wall_s > 0 else 0.0,
    }
    intents: dict[str, list[float]] = {}
    for r in records:
        for it in set(r["truth"]["intents"]):
            intents.setdefault(it, []).append(r["reward"])
    out["by_intent"] = {k: float(np.mean(v)) for k, v in sorted(intents.items())}
    stats = getattr(agent, "stats", None) or {}
    if "completion_tokens" in stats:  # a model-backed agent: its token counts and speed
        out["completion_tokens"] = int(stats["completion_tokens"])
        out["prompt_tokens"] = int(stats.get("prompt_tokens", 0))
        if "prefill_tokens" in stats:
            out["prefill_tokens"] = int(stats["prefill_tokens"])
        secs = stats.get("generate_seconds") or 0.0
        out["tokens_per_s"] = float(stats["completion_tokens"] / secs) if secs else 0.0
    if "errors" in stats:
        out["agent_errors"] = int(stats["errors"])
    if unmeasured or "errors" in stats:
        out["unmeasured_requests"] = unmeasured
    if "timeouts" in stats:  # a model-server agent: what its calls cost in HTTP requests
        out["model_calls"] = {"calls": int(stats.get("observations", 0)), "http_requests": int(stats["requests"]),
                              "probe_requests": int(stats.get("probe_requests", 0)),
                              "retries": int(stats.get("retries", 0)),
                              "retried_calls": int(stats.get("retried_calls", 0)), "timeouts": int(stats["timeouts"]),
                              "failed": int(stats.get("errors", 0))}
    measured = getattr(agent, "latency_log", None)
    if measured:  # wall-clock seconds per model turn, as the agent measured them
        out["turn_seconds_p50"] = float(np.percentile(measured, 50))
        out["turn_seconds_p95"] = float(np.percentile(measured, 95))
    last: dict[Any, dict[str, Any]] = {}
    for r in every:  # the running metrics of each episode's last request are that episode's totals
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
