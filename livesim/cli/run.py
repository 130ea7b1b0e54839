"""`livesim eval` (many episodes, batched for LLM agents) and `livesim run` (one stream, a summary table)."""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any

from livesim.cli.common import EXAMPLE_EPILOG, DefaultsHelpFormatter, add_common, agent_kwargs, print_table
from livesim.cli.evaluation import cmd_eval, resolve_harness
from livesim.envs.rollout import episode_requests, summarize, timed
from livesim.runs.build import build_agent, make_env
from livesim.runs.play import failure_verdict
from livesim.stream.scenario import DataFileError


def cmd_run(args: argparse.Namespace) -> int:
    try:
        args.harness_obj = resolve_harness(args)
    except DataFileError as e:
        raise SystemExit(f"error: {e}") from None
    env = make_env("LiveStream-v0", args)
    agent = build_agent(args.agent, env, agent_kwargs(args))
    records, wall = timed(lambda: list(episode_requests(env, agent, args.seed)))
    summary = summarize(records, 1, wall, agent)
    sim = env.unwrapped.sim
    summary.update({"agent": args.agent, "seed": args.seed, "harness": sim.harness.fingerprint,
                    "stream_s": round(sim.room.clock_s, 1), "viewers_online": sim.room.viewers_online})
    code, line = failure_verdict(agent, getattr(args, "max_agent_failures", 0), summary)
    if line:
        print(line, file=sys.stderr)
    if args.json:
        print(json.dumps(summary, sort_keys=True))
    else:
        print_table(f"stream seed={args.seed} agent={args.agent}", summary)
    return code


def register(sub: Any) -> None:
    """Add `eval` and `run` (the scenario and record options of `run` come from `livesim.cli.scenarios`)."""
    fmt = DefaultsHelpFormatter
    p = sub.add_parser("eval", help="evaluate an agent over many episodes", formatter_class=fmt,
                       epilog=EXAMPLE_EPILOG.format("livesim eval --agent transformers --model smollm2-135m "
                                                    "--episodes 20 --record runs/smol"))
    p.add_argument("--env", default="LiveStreamQA-v0", help="LiveStreamQA-v0 (one request) or LiveStream-v0; "
                   "-v1 of either: the same env with the fast world generator")
    p.add_argument("--episodes", type=int, default=50, help="number of episodes (seeds seed..seed+N-1)")
    p.add_argument("--split", choices=["train", "test"], default=None,
                   help="request split of LiveStreamQA (default: train, the env's)")
    p.add_argument("--hsa-split", choices=["train", "heldout", "stress"], default=None,
                   help="transform split for --wrappers (default: train)")
    p.add_argument("--batch-size", type=int, default=None,
                   help="episodes acted on at once through act_batch (default: the agent's batch_size, else 1)")
    p.add_argument("--record", default=None, metavar="DIR",
                   help="write one record per episode (DIR/seed-NNNNN.jsonl) and DIR/summary.json")
    p.add_argument("--force", action="store_true", help="with --record: reuse a folder that is not empty")
    p.add_argument("--resume", action="store_true", help="with --record: finish the run an interrupted eval left in "
                   "the folder (plays only the episodes it did not finish)")
    add_common(p)
    p.set_defaults(func=cmd_eval)
    p = sub.add_parser("run", help="play one stream (LiveStream-v0) and print a summary table", formatter_class=fmt,
                       epilog=EXAMPLE_EPILOG.format("livesim run --scenario flash-sale-rush --agent oracle "
                                                    "--record runs/r.jsonl"))
    p.add_argument("--hsa-split", choices=["train", "heldout", "stress"], default=None,
                   help="transform split for --wrappers (default: train)")
    add_common(p)
    p.set_defaults(func=cmd_run)
