"""The `livesim` command line: `eval`, `run`, and the subcommands other modules register.

Results go to stdout (a JSON object with `--json`); progress and logs go to stderr.
"""

from __future__ import annotations

import argparse
import importlib
import json
import sys
from typing import Any

# Modules that add subcommands: each has `register(subparsers)`; missing ones are skipped.
COMMAND_MODULES = ("livesim.cli_harness", "livesim.cli_scenarios", "livesim.cli_models", "livesim.cli_hat_eval")


def _parse_seeds(text: str) -> list[int]:
    """'0-49' or '1,2,5' or '7' -> list of ints."""
    out: list[int] = []
    for part in text.split(","):
        part = part.strip()
        if "-" in part[1:]:
            a, b = part.split("-", 1)
            out.extend(range(int(a), int(b) + 1))
        elif part:
            out.append(int(part))
    if not out:
        raise argparse.ArgumentTypeError(f"no seeds in {text!r}; expected e.g. 0-49 or 1,2,3")
    return out


def _agent_kwargs(args: argparse.Namespace) -> dict[str, Any]:
    kwargs: dict[str, Any] = {}
    for item in args.agent_arg or []:
        if "=" not in item:
            raise SystemExit(f"error: --agent-arg expects KEY=VALUE, got {item!r}")
        k, v = item.split("=", 1)
        try:
            kwargs[k] = json.loads(v)
        except json.JSONDecodeError:
            kwargs[k] = v
    if getattr(args, "model", None):
        kwargs["model"] = args.model
    return kwargs


def build_agent(name: str, env: Any, kwargs: dict[str, Any]) -> Any:
    from livesim.agents import AGENT_REGISTRY, make_agent
    from livesim.envs.rollout import PRIVILEGED_AGENTS

    if name not in AGENT_REGISTRY:
        raise SystemExit(f"error: unknown agent {name!r}; choose from {', '.join(sorted(AGENT_REGISTRY))}")
    if name in PRIVILEGED_AGENTS:
        kwargs = {**kwargs, "env": env}
    try:
        return make_agent(name, **kwargs)
    except TypeError as e:
        raise SystemExit(f"error: agent {name!r} does not accept these arguments: {e}") from None
    except (FileNotFoundError, ImportError, ValueError) as e:  # a missing model or backend: say how to get it
        raise SystemExit(f"error: {e}") from None


def make_env(env_id: str, args: argparse.Namespace) -> Any:
    """Build an env by id with the wrappers and split named on the command line."""
    import gymnasium as gym

    import livesim  # noqa: F401  (registers the envs)
    from livesim.envs import ENV_IDS

    if env_id not in ENV_IDS:
        raise SystemExit(f"error: unknown env {env_id!r}; choose from {', '.join(ENV_IDS)}")
    kwargs: dict[str, Any] = {}
    if env_id == "LiveStreamQA-v0" and getattr(args, "split", None):
        kwargs["split"] = args.split
    if getattr(args, "render_mode", None):
        kwargs["render_mode"] = args.render_mode
    env = gym.make(env_id, **kwargs)
    wrappers = getattr(args, "wrappers", None)
    if wrappers:
        from livesim.envs.hsa import make_wrappers

        try:
            env = make_wrappers(env, wrappers, split=getattr(args, "hsa_split", None) or "train")
        except ValueError as e:
            raise SystemExit(f"error: --wrappers: {e}") from None
    return env


def cmd_eval(args: argparse.Namespace) -> int:
    from livesim.envs.rollout import PRIVILEGED_AGENTS, episode_requests, run_batched, summarize, timed

    seeds = [args.seed + i for i in range(args.episodes)]
    env = make_env(args.env, args)
    agent = build_agent(args.agent, env, _agent_kwargs(args))
    progress = _progress(args, total=len(seeds))

    def collect() -> list[dict[str, Any]]:
        records: list[dict[str, Any]] = []
        batch = args.batch_size
        if batch > 1 and args.env == "LiveStreamQA-v0" and args.agent not in PRIVILEGED_AGENTS:
            for rec in run_batched(lambda: make_env(args.env, args), agent, seeds, batch):
                records.append(rec)
                progress(1)
            return records
        for s in seeds:
            records.extend(episode_requests(env, agent, s))
            progress(1)
        return records

    records, wall = timed(collect)
    progress(None)
    summary = summarize(records, len(seeds), wall, agent)
    summary.update({"env": args.env, "agent": args.agent, "seed": args.seed,
                    "wrappers": args.wrappers or None, "split": getattr(args, "split", None)})
    if args.json:
        print(json.dumps(summary, sort_keys=True))
    else:
        _print_table(f"{args.agent} on {args.env}", summary)
    return 0


def cmd_run(args: argparse.Namespace) -> int:
    from livesim.envs.rollout import episode_requests, summarize, timed

    env = make_env("LiveStream-v0", args)
    agent = build_agent(args.agent, env, _agent_kwargs(args))
    records, wall = timed(lambda: list(episode_requests(env, agent, args.seed)))
    summary = summarize(records, 1, wall, agent)
    sim = env.unwrapped.sim
    summary.update({"agent": args.agent, "seed": args.seed, "harness": sim.harness.fingerprint,
                    "stream_s": round(sim.room.clock_s, 1), "viewers_online": sim.room.viewers_online})
    if args.json:
        print(json.dumps(summary, sort_keys=True))
    else:
        _print_table(f"stream seed={args.seed} agent={args.agent}", summary)
    return 0


def _progress(args: argparse.Namespace, total: int) -> Any:
    """A rich progress bar on stderr (silent with --quiet)."""
    if getattr(args, "quiet", False):
        return lambda n: None
    from rich.console import Console
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeRemainingColumn

    bar = Progress(TextColumn("[bold]{task.description}"), BarColumn(), MofNCompleteColumn(),
                   TimeRemainingColumn(), console=Console(stderr=True), transient=True)
    task = bar.add_task("episodes", total=total)
    bar.start()

    def advance(n: int | None) -> None:
        if n is None:
            bar.stop()
        else:
            bar.advance(task, n)

    return advance


def summary_rows(summary: dict[str, Any]) -> list[tuple[str, Any]]:
    """The (metric, value) rows of a run summary, as `eval` and `run` print them."""
    rows = [("requests", summary["requests"]), ("mean reward", f"{summary['mean_reward']:.3f}"),
            ("accuracy", f"{summary['accuracy']:.3f}"), ("effectiveness", f"{summary['effectiveness']:.3f}")]
    rows += [(f"  {k}", f"{v:.3f}") for k, v in summary["scores"].items() if k not in ("accuracy", "effectiveness")]
    business = summary.get("business", {})
    rows += [("GMV", f"{business.get('gmv', 0):.0f}"), ("IPV", f"{business.get('ipv', 0):.0f}"),
             ("orders", f"{business.get('orders', 0):.0f}"), ("viewers lost", f"{business.get('churned', 0):.0f}")]
    rows += [("latency P50 (s)", f"{summary['latency_p50']:.2f}"), ("latency P95 (s)", f"{summary['latency_p95']:.2f}"),
             ("parse failures / turn", f"{summary['parse_failure_rate']:.3f}")]
    if "tokens_per_s" in summary:
        rows.append(("tokens/s", f"{summary['tokens_per_s']:.1f}"))
    if "harness" in summary:
        rows.append(("harness", summary["harness"]))
    return rows


def _print_table(title: str, summary: dict[str, Any]) -> None:
    from rich.console import Console
    from rich.table import Table

    table = Table(title=title)
    table.add_column("metric")
    table.add_column("value", justify="right")
    for k, v in summary_rows(summary):
        table.add_row(k, str(v))
    Console().print(table)


def _add_common(p: argparse.ArgumentParser) -> None:
    p.add_argument("--agent", default="oracle", help="agent name (oracle, memorizer, null, random, transformers, "
                                                    "openai, vllm)")
    p.add_argument("--model", default=None, help="model for LLM agents: tiny, smollm2-135m or a local path")
    p.add_argument("--agent-arg", action="append", metavar="KEY=VALUE",
                   help="extra agent argument (JSON value), repeatable, e.g. --agent-arg error_rate=0.2")
    p.add_argument("--seed", type=int, default=0, help="first seed")
    p.add_argument("--wrappers", default=None, help="HSA wrappers: 'hsa' or a comma-separated list of names")
    p.add_argument("--json", action="store_true", help="print one JSON object on stdout")
    p.add_argument("--quiet", action="store_true", help="no progress bar")


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="livesim", description="A simulated live-stream shop with an AI host.")
    sub = parser.add_subparsers(dest="command", required=True)
    p = sub.add_parser("eval", help="evaluate an agent over many episodes")
    p.add_argument("--env", default="LiveStreamQA-v0", help="LiveStreamQA-v0 (one request) or LiveStream-v0")
    p.add_argument("--episodes", type=int, default=50, help="number of episodes (seeds seed..seed+N-1)")
    p.add_argument("--split", choices=["train", "test"], default=None, help="request split (LiveStreamQA-v0)")
    p.add_argument("--hsa-split", choices=["train", "heldout"], default=None, help="transform split for --wrappers")
    p.add_argument("--batch-size", type=int, default=1, help="batch requests through act_batch (LLM agents)")
    _add_common(p)
    p.set_defaults(func=cmd_eval)
    p = sub.add_parser("run", help="play one stream (LiveStream-v0) and print a summary table")
    p.add_argument("--hsa-split", choices=["train", "heldout"], default=None, help="transform split for --wrappers")
    _add_common(p)
    p.set_defaults(func=cmd_run)
    for mod in COMMAND_MODULES:
        try:
            module = importlib.import_module(mod)
        except ModuleNotFoundError as e:
            if e.name != mod:
                raise
            continue
        module.register(sub)
    return parser


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    if getattr(args, "episodes", 1) is not None and getattr(args, "episodes", 1) < 1:
        parser.error(f"--episodes must be >= 1, got {args.episodes}")
    return int(args.func(args) or 0)


if __name__ == "__main__":
    sys.exit(main())
