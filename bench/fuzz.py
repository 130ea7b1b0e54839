"""Fuzz both envs with hostile actions for a given time; print steps/s, exceptions, max step time, RSS growth.

    .venv/bin/python bench/fuzz.py --seconds 600            # the issue's 10-minute run
    .venv/bin/python bench/fuzz.py --seconds 30 --json      # one JSON object

Each episode takes the next of the env ids (`LiveStream-v0`, `LiveStreamQA-v0` and their `-v1` worlds), with the
latency model or measured latency, and with or without the HSA wrappers. Every step is a hostile action
(`livesim.runs.hostile`) or, one step in three, the oracle's action, so episodes move through tool calls, replies
and whole streams. Checked on every step: no exception, the observation is in the observation space and encodes
as UTF-8 JSON, the reward is finite and in [0, 1], a dispatched reward equals the sum of its terms, the stream
clock never goes back, and every episode ends. RSS is sampled after every episode once a warm-up (the first 20%
of the time, at least 5 s) has passed; a leak is growth that goes on: the run fails when RSS grows by 5% or more
over the second half of the measured time (caches and the allocator settle in the first). Exit 1 names every
failed check on stderr.
"""

from __future__ import annotations

import argparse
import json
import math
import resource
import sys
import time
import traceback
from typing import Any

import gymnasium as gym
import numpy as np

import livesim  # noqa: F401  (registers the envs)
from livesim.agents import make_agent
from livesim.envs import ENV_IDS
from livesim.runs.hostile import hostile_action


def rss_mib() -> float:
    """Resident set size now (Linux /proc), in MiB; falls back to the peak from getrusage."""
    try:
        with open("/proc/self/statm") as f:
            pages = int(f.read().split()[1])
        return pages * resource.getpagesize() / 2**20
    except OSError:  # pragma: no cover - not Linux
        return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def make(env_id: str, measured: bool, hsa: bool) -> Any:
    cfg: dict[str, Any] = {"latency": {"mode": "measured"}} if measured else {}
    if env_id.startswith("LiveStream-"):
        cfg.update({"duration_s": 120.0, "comments_per_min": 10.0})
    env = gym.make(env_id, config=cfg)
    if hsa:
        from livesim.envs.hsa import make_wrappers

        env = make_wrappers(env, "hsa", split="train")
    return env


def run(seconds: float, seed: int, warmup: float | None = None) -> dict[str, Any]:
    rng = np.random.default_rng(seed)
    variants = [(e, m, h) for e in ENV_IDS for m in (False, True) for h in (False, True)]
    envs = {v: make(*v) for v in variants}
    space = next(iter(envs.values())).observation_space
    stats: dict[str, Any] = {"steps": 0, "episodes": 0, "exceptions": 0, "bad_observations": 0, "bad_rewards": 0,
                             "bad_term_sums": 0, "clock_back": 0, "unfinished_episodes": 0, "max_step_s": 0.0,
                             "dispatched": 0, "per_env_steps": {e: 0 for e in ENV_IDS}}
    examples: list[str] = []
    t0 = time.perf_counter()
    warmup = max(5.0, 0.2 * seconds) if warmup is None else warmup
    rss: list[tuple[float, float]] = []  # (seconds since start, MiB) after each episode past the warm-up
    i = 0
    while time.perf_counter() - t0 < seconds:
        env_id, measured, hsa = variants[i % len(variants)]
        i += 1
        env = envs[(env_id, measured, hsa)]
        try:
            obs, _ = env.reset(seed=int(rng.integers(2**31 - 1)))
            oracle = make_agent("oracle", env=env)
            oracle.reset()
        except Exception:
            stats["exceptions"] += 1
            examples.append(traceback.format_exc(limit=4))
            continue
        stats["episodes"] += 1
        sim = env.unwrapped.sim
        last_clock = sim.room.clock_s
        finished = crashed = False
        for _ in range(4000):
            tools = [t.name for t in sim.harness.tools]
            action = oracle.act(obs) if rng.random() < 1 / 3 else hostile_action(rng, tools)
            s0 = time.perf_counter()
            try:
                obs, reward, term, trunc, info = env.step(action)
            except Exception:
                stats["exceptions"] += 1
                if len(examples) < 5:
                    examples.append(traceback.format_exc(limit=6))
                crashed = True
                break
            dt = time.perf_counter() - s0
            stats["max_step_s"] = max(stats["max_step_s"], dt)
            stats["steps"] += 1
            stats["per_env_steps"][env_id] += 1
            try:
                ok = space.contains(obs)
                json.dumps(obs, ensure_ascii=False).encode("utf-8")
            except Exception:
                ok = False
            stats["bad_observations"] += not ok
            r = float(reward)
            if not (math.isfinite(r) and 0.0 <= r <= 1.0):
                stats["bad_rewards"] += 1
            if info.get("dispatched"):
                stats["dispatched"] += 1
                if abs(sum(info["reward_terms"].values()) - r) > 1e-9:
                    stats["bad_term_sums"] += 1
            sim = env.unwrapped.sim
            if sim.room.clock_s < last_clock or not math.isfinite(sim.room.clock_s):
                stats["clock_back"] += 1
            last_clock = sim.room.clock_s
            if term or trunc:
                finished = True
                break
        stats["unfinished_episodes"] += not (finished or crashed)
        if time.perf_counter() - t0 >= warmup:
            rss.append((time.perf_counter() - t0, rss_mib()))
    wall = time.perf_counter() - t0
    rss.append((wall, rss_mib()))
    stats.update({"seconds": round(wall, 1), "steps_per_s": round(stats["steps"] / wall, 1),
                  "max_step_s": round(stats["max_step_s"], 4), **rss_figures(rss), "seed": seed,
                  "examples": examples})
    return stats


def rss_figures(samples: list[tuple[float, float]]) -> dict[str, float]:
    """RSS after the warm-up, at the middle of the measured time and at the end (MiB); growth over the whole
    measured time and over its second half (percent); the least-squares slope (MiB per minute).
    """
    (t_first, first), (t_end, end) = samples[0], samples[-1]
    t_mid = (t_first + t_end) / 2
    mid = next(r for t, r in samples if t >= t_mid)
    n = len(samples)
    mean_t = sum(t for t, _ in samples) / n
    mean_r = sum(r for _, r in samples) / n
    var = sum((t - mean_t) ** 2 for t, _ in samples)
    slope = sum((t - mean_t) * (r - mean_r) for t, r in samples) / var if var else 0.0
    return {"rss_after_warmup_mib": round(first, 1), "rss_mid_mib": round(mid, 1), "rss_end_mib": round(end, 1),
            "rss_growth_pct": round(100 * (end - first) / first, 2),
            "rss_late_growth_pct": round(100 * (end - mid) / mid, 2),
            "rss_slope_mib_per_min": round(60 * slope, 2), "rss_samples": n}


RSS_LATE_GROWTH_LIMIT = 5.0
"""Percent RSS may grow over the second half of the measured time before the run counts as leaking."""


def failures(stats: dict[str, Any]) -> list[str]:
    """Every check the run failed, in words (empty: it passed)."""
    out = [f"{stats[k]} {k.replace('_', ' ')}" for k in ("exceptions", "bad_observations", "bad_rewards",
                                                          "bad_term_sums", "clock_back", "unfinished_episodes")
           if stats[k]]
    if stats["max_step_s"] > 1.0:
        out.append(f"the slowest step took {stats['max_step_s']} s (limit 1 s)")
    if stats["rss_late_growth_pct"] >= RSS_LATE_GROWTH_LIMIT:
        out.append(f"RSS grew {stats['rss_late_growth_pct']}% over the second half of the measured time "
                   f"({stats['rss_mid_mib']} -> {stats['rss_end_mib']} MiB; limit {RSS_LATE_GROWTH_LIMIT}%): a leak?")
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seconds", type=float, default=60.0, help="how long to fuzz (wall-clock seconds)")
    ap.add_argument("--seed", type=int, default=0, help="seed of the hostile-action generator and the envs")
    ap.add_argument("--json", action="store_true", help="print one JSON object")
    args = ap.parse_args(argv)
    if not args.seconds > 0:
        ap.error("--seconds must be > 0")
    stats = run(args.seconds, args.seed)
    if args.json:
        print(json.dumps(stats, sort_keys=True))
    else:
        for k, v in stats.items():
            if k != "examples":
                print(f"{k:24s} {v}")
        for ex in stats["examples"]:
            print(ex, file=sys.stderr)
    failed = failures(stats)
    for why in failed:
        print(f"FAIL: {why}", file=sys.stderr)
    if not failed:
        print(f"ok: every check passed (RSS {stats['rss_growth_pct']}% over the measured time, "
              f"{stats['rss_late_growth_pct']}% over its second half)", file=sys.stderr)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
