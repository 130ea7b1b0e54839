"""`livesim eval` (many episodes, batched for LLM agents) and `livesim run` (one stream, a summary table)."""

from __future__ import annotations

import argparse
import json
from typing import Any

from livesim.cli.common import add_common, agent_kwargs, print_table, progress
from livesim.envs.rollout import PRIVILEGED_AGENTS, episode_requests, run_batched, summarize, timed
from livesim.runs.build import build_agent, make_env


def cmd_eval(args: argparse.Namespace) -> int:
    seeds = [args.seed + i for i in range(args.episodes)]
    env = make_env(args.env, args)
    agent = build_agent(args.agent, env, agent_kwargs(args))
    advance = progress(args, total=len(seeds))

    def collect() -> list[dict[str, Any]]:
        records: list[dict[str, Any]] = []
        batch = args.batch_size
        if batch > 1 and args.env == "LiveStreamQA-v0" and args.agent not in PRIVILEGED_AGENTS:
            for rec in run_batched(lambda: make_env(args.env, args), agent, seeds, batch):
                records.append(rec)
                advance(1)
            return records
        for s in seeds:
            records.extend(episode_requests(env, agent, s))
            advance(1)
        return records

    records, wall = timed(collect)
    advance(None)
    summary = summarize(records, len(seeds), wall, agent)
    summary.update({"env": args.env, "agent": args.agent, "seed": args.seed,
                    "wrappers": args.wrappers or None, "split": getattr(args, "split", None)})
    if args.json:
        print(json.dumps(summary, sort_keys=True))
    else:
        print_table(f"{args.agent} on {args.env}", summary)
    return 0


def cmd_run(args: argparse.Namespace) -> int:
    env = make_env("LiveStream-v0", args)
    agent = build_agent(args.agent, env, agent_kwargs(args))
    records, wall = timed(lambda: list(episode_requests(env, agent, args.seed)))
    summary = summarize(records, 1, wall, agent)
    sim = env.unwrapped.sim
    summary.update({"agent": args.agent, "seed": args.seed, "harness": sim.harness.fingerprint,
                    "stream_s": round(sim.room.clock_s, 1), "viewers_online": sim.room.viewers_online})
    if args.json:
        print(json.dumps(summary, sort_keys=True))
    else:
        print_table(f"stream seed={args.seed} agent={args.agent}", summary)
    return 0


def register(sub: Any) -> None:
    """Add `eval` and `run` (the scenario and record options of `run` come from `livesim.cli.scenarios`)."""
    p = sub.add_parser("eval", help="evaluate an agent over many episodes")
    p.add_argument("--env", default="LiveStreamQA-v0", help="LiveStreamQA-v0 (one request) or LiveStream-v0")
    p.add_argument("--episodes", type=int, default=50, help="number of episodes (seeds seed..seed+N-1)")
    p.add_argument("--split", choices=["train", "test"], default=None, help="request split (LiveStreamQA-v0)")
    p.add_argument("--hsa-split", choices=["train", "heldout"], default=None, help="transform split for --wrappers")
    p.add_argument("--batch-size", type=int, default=1, help="batch requests through act_batch (LLM agents)")
    add_common(p)
    p.set_defaults(func=cmd_eval)
    p = sub.add_parser("run", help="play one stream (LiveStream-v0) and print a summary table")
    p.add_argument("--hsa-split", choices=["train", "heldout"], default=None, help="transform split for --wrappers")
    add_common(p)
    p.set_defaults(func=cmd_run)
