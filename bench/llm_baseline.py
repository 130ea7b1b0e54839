"""Zero-shot baseline of a model on LiveStreamQA-v0, canonical and augmented, written as it goes.

Each dispatched request is appended to a JSONL file (so a long CPU run can be read while it runs), and the
summary is printed at the end. Usage:
    python bench/llm_baseline.py --model smollm2-135m --episodes 50 --wrappers hsa --out runs/smol_hsa.jsonl
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path

import gymnasium as gym

import livesim  # noqa: F401
from livesim.agents import make_agent
from livesim.envs.rollout import run_batched, summarize
from livesim.stream.paths import atomic_output


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__)
    p.add_argument("--model", default="smollm2-135m")
    p.add_argument("--episodes", type=int, default=50)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--split", default="test", choices=["train", "test"])
    p.add_argument("--wrappers", default=None, help="e.g. hsa")
    p.add_argument("--hsa-split", default="heldout", choices=["train", "heldout", "stress"])
    p.add_argument("--batch-size", type=int, default=8)
    p.add_argument("--max-new-tokens", type=int, default=160)
    p.add_argument("--out", required=True)
    args = p.parse_args()

    def make_env() -> gym.Env:
        env = gym.make("LiveStreamQA-v0", split=args.split)
        if args.wrappers:
            from livesim.envs.hsa import make_wrappers

            env = make_wrappers(env, args.wrappers, split=args.hsa_split)
        return env

    agent = make_agent("transformers", model=args.model, max_new_tokens=args.max_new_tokens,
                       batch_size=args.batch_size)
    out = Path(args.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    records = []
    t0 = time.perf_counter()
    with atomic_output(out) as f:
        seeds = [args.seed + i for i in range(args.episodes)]
        for rec in run_batched(make_env, agent, seeds, args.batch_size):
            records.append(rec)
            f.write(json.dumps({"seed": rec["episode_seed"], "reward": rec["reward"],
                                "scores": rec["grade"]["scores"], "intents": rec["truth"]["intents"],
                                "reply": rec["trace"]["reply"], "turns": rec["trace"]["turns"],
                                "parse_errors": rec["trace"]["parse_errors"],
                                "tool_calls": [c["name"] for c in rec["trace"]["tool_calls"]]}) + "\n")
            f.flush()
    summary = summarize(records, args.episodes, time.perf_counter() - t0, agent)
    summary.update({"model": args.model, "wrappers": args.wrappers, "hsa_split": args.hsa_split,
                    "split": args.split})
    print(json.dumps(summary, sort_keys=True))


if __name__ == "__main__":
    main()
