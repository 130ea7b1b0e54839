"""Benchmark: requests/s and step-latency percentiles of LiveStream-v0 (oracle) and of the bare simulator.

Pinned to one core. Usage: python bench/bench_env.py [--streams 5] [--json]

`--compare-ref REF` measures LiveStreamQA-v0 with the oracle on this tree and on a git worktree of REF (e.g.
`main`), alternating the two `--rounds` times in one run (so both see the same machine load), and prints the
median requests/s of each and their ratio. Usage: python bench/bench_env.py --compare-ref main [--qa 200]
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


def compare_ref(ref: str, n_qa: int, rounds: int) -> dict[str, object]:
    """QA requests/s here and at `ref` (a temporary git worktree), alternated `rounds` times."""
    import subprocess
    import sys
    import tempfile
    from pathlib import Path

    here = Path(__file__).resolve().parents[1]
    tmp = Path(tempfile.mkdtemp(prefix="livesim-bench-ref-"))
    subprocess.run(["git", "-C", str(here), "worktree", "add", "--detach", str(tmp / "ref"), ref], check=True,
                   capture_output=True)
    try:
        runs: dict[str, list[float]] = {"this tree": [], ref: []}
        for _ in range(rounds):
            for name, root in (("this tree", here), (ref, tmp / "ref")):
                out = subprocess.run([sys.executable, str(here / "bench" / "bench_env.py"), "--qa-only", str(n_qa)],
                                     cwd=root, env={**os.environ, "PYTHONPATH": str(root)}, check=True,
                                     capture_output=True, text=True).stdout
                runs[name].append(json.loads(out)["requests_per_s"])
    finally:
        subprocess.run(["git", "-C", str(here), "worktree", "remove", "--force", str(tmp / "ref")], check=False,
                       capture_output=True)
    med = {k: float(np.median(v)) for k, v in runs.items()}
    return {"rounds": rounds, "qa_requests": n_qa, "requests_per_s": runs, "median": med,
            "ratio_this_over_ref": med["this tree"] / med[ref]}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--streams", type=int, default=5)
    parser.add_argument("--json", action="store_true")
    parser.add_argument("--qa-only", type=int, default=None, metavar="N", help=argparse.SUPPRESS)
    parser.add_argument("--compare-ref", default=None, metavar="REF")
    parser.add_argument("--qa", type=int, default=200, help="QA requests per run with --compare-ref")
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    where = pin_one_core()
    if args.qa_only is not None:
        print(json.dumps(bench_env(args.qa_only, "LiveStreamQA-v0")))
        return
    if args.compare_ref:
        res = compare_ref(args.compare_ref, args.qa, args.rounds)
        if args.json:
            print(json.dumps(res, indent=1))
            return
        for k, v in res["median"].items():
            runs = [round(x, 1) for x in res["requests_per_s"][k]]
            print(f"LiveStreamQA-v0+oracle @ {k:10s} median {v:8.1f} req/s  runs {runs}")
        print(f"ratio this tree / {args.compare_ref}: {res['ratio_this_over_ref']:.3f}")
        return
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
