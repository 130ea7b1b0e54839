"""Measurements of HSA: oracle invariance, memorizer collapse per transform/dimension/split, and overhead.

python -m livesim.runs.hsa_measure --requests 500            # the docs/hsa.md tables
python -m livesim.runs.hsa_measure --bench --requests 300    # requests/s bare vs `hsa`, and the ratio
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from typing import Any

import gymnasium as gym

import livesim  # noqa: F401  (registers the envs)
from livesim.agents.oracle import MemorizerAgent, OracleAgent
from livesim.envs.hsa.core import DIMENSIONS
from livesim.envs.hsa.vocab import SPLITS
from livesim.envs.hsa.wrappers import DEFAULT_P, ORDER, make_wrappers
from livesim.envs.rollout import episode_requests
from livesim.stream.procs import worker_pool

ENV_ID = "LiveStreamQA-v0"
DIMENSION_WRAPPERS = {"skill_ids": "hsa_skill_ids", "skill_content": "hsa_skill_content", "tool_schemas": "hsa_tools",
                      "prompt": "hsa_prompt", "hooks": "hsa_hooks"}


def make_env(spec: str | None = None, split: str = "train", p: float = 1.0, env_id: str = ENV_ID,
             config: dict[str, Any] | None = None) -> gym.Env[Any, Any]:
    env = gym.make(env_id, config=config or {})
    return make_wrappers(env, spec, split=split, p=p) if spec else env


def rewards(spec: str | None, split: str, agent: str, seeds: list[int], p: float = 1.0, env_id: str = ENV_ID,
            config: dict[str, Any] | None = None) -> list[float]:
    """The reward of every dispatched request of `agent` ('oracle' or 'memorizer') over `seeds`."""
    env = make_env(spec, split, p, env_id, config)
    policy = (OracleAgent if agent == "oracle" else MemorizerAgent)(env)
    return [float(r["reward"]) for s in seeds for r in episode_requests(env, policy, s)]


def invariance(spec: str, split: str, seeds: list[int], p: float = 1.0,
               config: dict[str, Any] | None = None) -> list[tuple[int, float, float]]:
    """(seed, bare, augmented) for every request whose oracle reward changed under `spec` (empty: invariant)."""
    bare = rewards(None, split, "oracle", seeds, config=config)
    aug = rewards(spec, split, "oracle", seeds, p=p, config=config)
    if len(bare) != len(aug):
        raise AssertionError(f"{spec}/{split}: {len(aug)} requests under augmentation, {len(bare)} bare")
    return [(s, a, b) for s, a, b in zip(seeds, bare, aug, strict=True) if a != b]


def _row(job: tuple[str, str | None, str, float, int]) -> dict[str, Any]:
    label, spec, split, p, n = job
    seeds = list(range(n))
    oracle = rewards(spec, split, "oracle", seeds, p=p)
    memo = rewards(spec, split, "memorizer", seeds, p=p)
    base = rewards(None, split, "oracle", seeds) if spec else oracle
    return {"wrapper": label, "split": split, "p": p, "requests": len(oracle),
            "oracle": sum(oracle) / len(oracle), "memorizer": sum(memo) / len(memo),
            "oracle_changed": sum(a != b for a, b in zip(base, oracle, strict=True))}


def measure(n_requests: int = 500, workers: int = 2) -> list[dict[str, Any]]:
    """Oracle and memorizer mean reward per transform (p=1), per dimension (p=1) and for `hsa`, per split."""
    jobs: list[tuple[str, str | None, str, float, int]] = [("bare", None, "train", 1.0, n_requests)]
    for split in SPLITS:
        jobs += [(name, name, split, 1.0, n_requests) for name in ORDER]
        jobs += [(w, w, split, 1.0, n_requests) for w in DIMENSION_WRAPPERS.values()]
        jobs += [("hsa", "hsa", split, 1.0, n_requests), ("hsa", "hsa", split, DEFAULT_P, n_requests)]
    with worker_pool(workers, "measurement worker") as pool:
        return list(pool.map(_row, jobs))


def bench_hsa(n_requests: int = 300, seed: int = 0) -> dict[str, float]:
    """Requests/s of LiveStreamQA-v0 driven by the oracle, bare and with the `hsa` composite (p=2/3)."""
    seeds = list(range(seed, seed + n_requests))
    rewards(None, "train", "oracle", seeds[:10])  # warm caches and imports
    out: dict[str, float] = {"requests": float(n_requests)}
    for label, spec in (("bare", None), ("hsa", "hsa")):
        t0 = time.perf_counter()
        n = len(rewards(spec, "train", "oracle", seeds, p=DEFAULT_P))
        out[f"{label}_requests_per_s"] = n / (time.perf_counter() - t0)
    out["ratio_hsa_over_bare"] = out["hsa_requests_per_s"] / out["bare_requests_per_s"]
    return out


def _table(rows: list[dict[str, Any]]) -> str:
    dims = {name: dim for dim, names in DIMENSIONS.items() for name in names}
    splits = [s for s in SPLITS if any(r["split"] == s and r["wrapper"] != "bare" for r in rows)]
    lines = ["| wrapper | dimension | p | " + " | ".join(f"oracle {s}" for s in splits) + " | "
             + " | ".join(f"memorizer {s}" for s in splits) + " |", "|---|---|---|" + "---|" * (2 * len(splits))]
    seen: dict[tuple[str, float], dict[str, dict[str, Any]]] = {}
    for r in rows:
        seen.setdefault((r["wrapper"], r["p"]), {})[r["split"]] = r
    for (label, p), by_split in seen.items():
        cells = [by_split.get(s, by_split.get("train")) for s in splits]  # bare is measured once
        dim = dims.get(label, next((d for d, w in DIMENSION_WRAPPERS.items() if w == label), "all"))
        lines.append(f"| {label} | {dim if label != 'bare' else '-'} | {p:.2f} | "
                     + " | ".join(f"{c['oracle']:.4f}" if c else "n/a" for c in cells) + " | "
                     + " | ".join(f"{c['memorizer']:.4f}" if c else "n/a" for c in cells) + " |")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--requests", type=int, default=500, help="requests (LiveStreamQA-v0 episodes) per cell")
    ap.add_argument("--workers", type=int, default=2, help="processes")
    ap.add_argument("--bench", action="store_true", help="only the overhead benchmark")
    ap.add_argument("--json", action="store_true", help="print JSON instead of a Markdown table")
    args = ap.parse_args(argv)
    if args.requests < 1:
        ap.error(f"--requests must be >= 1, got {args.requests}")
    if args.bench:
        result: Any = bench_hsa(args.requests)
        print(json.dumps(result, indent=1))
        return 0
    t0 = time.perf_counter()
    rows = measure(args.requests, args.workers)
    changed = sum(r["oracle_changed"] for r in rows)
    if args.json:
        print(json.dumps({"rows": rows, "oracle_changed": changed}, indent=1))
    else:
        print(_table(rows))
        print(f"\noracle requests whose reward changed under any wrapper: {changed}; "
              f"wall {time.perf_counter() - t0:.0f}s", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
