"""Benchmark: requests/s and step-latency percentiles of LiveStream-v0 (oracle) and of the bare simulator.

Pinned to one core. Usage: python bench/bench_env.py [--streams 5] [--json]
"""

from __future__ import annotations

import argparse
import json
import os
import time

import gymnasium as gym
import numpy as np

import livesim  # noqa: F401
from livesim.agents import make_agent
from livesim.stream.sim import StreamSim


def pin_one_core() -> str:
    if hasattr(os, "sched_setaffinity"):
        core = sorted(os.sched_getaffinity(0))[0]
        os.sched_setaffinity(0, {core})
        return f"core {core}"
    return "unpinned"


def bench_env(streams: int, env_id: str = "LiveStream-v0") -> dict[str, float]:
    env = gym.make(env_id)
    oracle = make_agent("oracle", env=env)
    steps, requests, t_total = [], 0, 0.0
    for seed in range(streams):
        t0 = time.perf_counter()
        obs, _ = env.reset(seed=seed)
        t_total += time.perf_counter() - t0  # building a stream or a request is part of the env's cost
        oracle.reset()
        done = False
        while not done:
            action = oracle.act(obs)
            t0 = time.perf_counter()
            obs, _, term, trunc, info = env.step(action)
            dt = time.perf_counter() - t0
            steps.append(dt)
            t_total += dt
            requests += int(info["dispatched"])
            done = term or trunc
    s = np.array(steps) * 1000
    return {"requests": requests, "steps": len(steps), "requests_per_s": requests / t_total,
            "step_ms_p50": float(np.percentile(s, 50)), "step_ms_p95": float(np.percentile(s, 95)),
            "step_ms_p99": float(np.percentile(s, 99))}


def bench_bare(streams: int) -> dict[str, float]:
    """The simulator without Gymnasium: gold actions straight into StreamSim (no observation copies)."""
    from livesim.parsing import format_tool_call

    steps, requests, t_total = [], 0, 0.0
    for seed in range(streams):
        sim = StreamSim(seed)
        req = sim.next_request()
        while req is not None:
            sim.begin(req)
            truth = req.truth
            calls = [format_tool_call("load_skill", {"name": r}) for r in truth.skills]
            calls += [format_tool_call(c.key, c.arguments) for c in truth.calls]
            chunk = sim.harness.prompt.limits.max_tool_calls
            actions = ["\n".join(calls[i:i + chunk]) for i in range(0, len(calls), chunk)] + [" ".join(truth.say)]
            for a in actions:
                t0 = time.perf_counter()
                result = sim.step(a)
                dt = time.perf_counter() - t0
                steps.append(dt)
                t_total += dt
                if result.dispatched:
                    break
            requests += 1
            t0 = time.perf_counter()
            req = sim.next_request()
            t_total += time.perf_counter() - t0
    s = np.array(steps) * 1000
    return {"requests": requests, "steps": len(steps), "requests_per_s": requests / t_total,
            "step_ms_p50": float(np.percentile(s, 50)), "step_ms_p95": float(np.percentile(s, 95)),
            "step_ms_p99": float(np.percentile(s, 99))}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--streams", type=int, default=5)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    where = pin_one_core()
    out = {"pinned": where, "LiveStream-v0+oracle": bench_env(args.streams),
           "LiveStreamQA-v0+oracle": bench_env(args.streams * 40, "LiveStreamQA-v0"),
           "bare StreamSim": bench_bare(args.streams)}
    out["env_over_bare_ratio"] = (out["LiveStream-v0+oracle"]["requests_per_s"]
                                  / out["bare StreamSim"]["requests_per_s"])
    if args.json:
        print(json.dumps(out, indent=1))
        return
    print(f"pinned to {where}")
    for name in ("LiveStream-v0+oracle", "LiveStreamQA-v0+oracle", "bare StreamSim"):
        r = out[name]
        print(f"{name:24s} {r['requests']:5d} requests  {r['requests_per_s']:8.1f} req/s  step p50 "
              f"{r['step_ms_p50']:.2f} ms  p95 {r['step_ms_p95']:.2f} ms  p99 {r['step_ms_p99']:.2f} ms")
    print(f"env / bare throughput ratio: {out['env_over_bare_ratio']:.2f}")


if __name__ == "__main__":
    main()
