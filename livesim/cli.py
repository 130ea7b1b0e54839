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
COMMAND_MODULES = ("livesim.cli_harness", "livesim.cli_scenarios", "livesim.cli_models")


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
        if "=" not in item or not item.split("=", 1)[0].strip():
            raise SystemExit(f"error: --agent-arg expects KEY=VALUE (the value as JSON or text), got {item!r}")
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
    from livesim.cli_eval import is_privileged

    if name not in AGENT_REGISTRY and ":" not in name:
        raise SystemExit(f"error: unknown agent {name!r}; choose from {', '.join(sorted(AGENT_REGISTRY))} "
                         "or give module:Class")
    try:
        if is_privileged(name):
            kwargs = {**kwargs, "env": env}
    except ValueError as e:  # module:Class that cannot be imported
        raise SystemExit(f"error: {e}") from None
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
    if getattr(args, "harness_obj", None) is not None:
        kwargs["harness"] = args.harness_obj
    if getattr(args, "render_mode", None):
        kwargs["render_mode"] = args.render_mode
    env = gym.make(env_id, **kwargs)
    wrappers = getattr(args, "wrappers", None)
    if wrappers:
        from livesim.envs.hsa import make_wrappers

        try:
            p = getattr(args, "hsa_p", None)
            env = make_wrappers(env, wrappers, split=getattr(args, "hsa_split", None) or "train",
                                **({} if p is None else {"p": p}))
        except ValueError as e:
            raise SystemExit(f"error: --wrappers: {e}") from None
    return env


def cmd_eval(args: argparse.Namespace) -> int:
    from livesim.cli_eval import cmd_eval as run

    return run(args)


def cmd_run(args: argparse.Namespace) -> int:
    from livesim.cli_eval import resolve_harness
    from livesim.envs.rollout import episode_requests, summarize, timed
    from livesim.scenario import DataFileError

    try:
        args.harness_obj = resolve_harness(args)
    except DataFileError as e:
        raise SystemExit(f"error: {e}") from None
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
    """The (metric, value) rows of a run summary, as `eval` and `run` print them.

    Reward terms (weighted, they sum to the reward) and raw scores (0-1 per rubric) are separate sections;
    stream metrics (GMV, viewers lost) appear only for whole streams.
    """
    rows: list[tuple[str, Any]] = [("requests", summary["requests"]), ("mean reward", f"{summary['mean_reward']:.3f}"),
                                   ("pass rate (reward >= 0.99)", f"{summary.get('pass_rate', 0):.3f}")]
    rows.append(("reward terms (weighted, sum = reward)", ""))
    rows += [(f"  {k}", f"{v:.3f}") for k, v in summary.get("terms", {}).items()]
    rows.append(("raw scores (0-1)", ""))
    rows += [(f"  {k}", f"{v:.3f}") for k, v in summary["scores"].items()]
    business = summary.get("business")
    if business:
        rows.append(("stream", ""))
        rows += [("  GMV", f"{business.get('gmv', 0):.0f}"), ("  IPV", f"{business.get('ipv', 0):.0f}"),
                 ("  orders", f"{business.get('orders', 0):.0f}"),
                 ("  viewers lost", f"{business.get('churned', 0):.0f}")]
    rows.append(("behaviour", ""))
    rows += [("  latency P50 / P95 (s, simulated)", f"{summary['latency_p50']:.2f} / {summary['latency_p95']:.2f}"),
             ("  turns per request", f"{summary.get('turns_mean', 0):.2f}"),
             ("  tool calls per request", f"{summary.get('tool_calls_per_request', 0):.2f}"),
             ("  fallback rate", f"{summary.get('fallback_rate', 0):.3f}"),
             ("  parse failures (per turn)", f"{summary.get('parse_failures', 0)} "
                                             f"({summary['parse_failure_rate']:.3f})")]
    if "agent_errors" in summary:
        rows.append(("  agent errors", summary["agent_errors"]))
    if "completion_tokens" in summary:
        rows.append(("model", ""))
        rows += [("  prompt tokens (prefilled)", f"{summary.get('prompt_tokens', 0)} "
                                                f"({summary.get('prefill_tokens', summary.get('prompt_tokens', 0))})"),
                 ("  completion tokens", summary["completion_tokens"]),
                 ("  completion tokens/s", f"{summary.get('tokens_per_s', 0):.1f}")]
    if "wall_s" in summary:
        rows += [("wall time (s)", f"{summary['wall_s']:.1f}"), ("requests/s", f"{summary['requests_per_s']:.3f}")]
    if "harness" in summary:
        rows.append(("harness", summary["harness"]))
    return rows


def _print_table(title: str, summary: dict[str, Any]) -> None:
    """A two-column table; plain aligned text when stdout is not a terminal (piped, redirected)."""
    rows = summary_rows(summary)
    if not sys.stdout.isatty():
        width = max(len(k) for k, _ in rows)
        print(title)
        for k, v in rows:
            print(f"{k:<{width}}  {v}".rstrip())
        return
    from rich.console import Console
    from rich.table import Table

    table = Table(title=title)
    table.add_column("metric", overflow="fold")
    table.add_column("value", justify="right", overflow="fold")
    for k, v in rows:
        table.add_row(k, str(v))
    Console().print(table)


def _add_common(p: argparse.ArgumentParser) -> None:
    p.add_argument("--agent", default="oracle", help="agent name (oracle, memorizer, null, random, transformers, "
                                                    "openai, vllm) or module:Class of your own")
    p.add_argument("--model", default=None, help="model for LLM agents: tiny, smollm2-135m or a local path")
    p.add_argument("--agent-arg", action="append", metavar="KEY=VALUE",
                   help="extra agent argument (JSON value), repeatable, e.g. --agent-arg error_rate=0.2")
    p.add_argument("--seed", type=int, default=0, help="first seed")
    p.add_argument("--wrappers", default=None, help="HSA wrappers: 'hsa' or a comma-separated list of names")
    p.add_argument("--hsa-p", type=float, default=None, metavar="P",
                   help="probability of each HSA transform (default: 2/3)")
    p.add_argument("--harness", default=None, metavar="FILE",
                   help="a harness file (YAML/JSON; docs/harness-files.md) instead of the canonical harness")
    p.add_argument("--prompt-style", choices=["markdown", "xml", "json", "compact"], default=None,
                   help="present the system prompt in this style (default: the harness's own, markdown)")
    p.add_argument("--json", action="store_true", help="print one JSON object on stdout")
    p.add_argument("--quiet", action="store_true", help="no progress bar")


def build_parser() -> argparse.ArgumentParser:
    import livesim

    parser = argparse.ArgumentParser(prog="livesim", description="A simulated live-stream shop with an AI host.",
                                     epilog="example: livesim eval --agent oracle --episodes 20")
    parser.add_argument("--version", action="version", version=f"livesim {livesim.__version__}")
    sub = parser.add_subparsers(dest="command", required=True)
    fmt = argparse.ArgumentDefaultsHelpFormatter
    p = sub.add_parser("eval", help="evaluate an agent over many episodes", formatter_class=fmt,
                       epilog="example: livesim eval --agent transformers --model smollm2-135m --episodes 20 "
                              "--record runs/smol")
    p.add_argument("--env", default="LiveStreamQA-v0", help="LiveStreamQA-v0 (one request) or LiveStream-v0")
    p.add_argument("--episodes", type=int, default=50, help="number of episodes (seeds seed..seed+N-1)")
    p.add_argument("--split", choices=["train", "test"], default=None, help="request split (LiveStreamQA-v0)")
    p.add_argument("--hsa-split", choices=["train", "heldout"], default=None, help="transform split for --wrappers")
    p.add_argument("--batch-size", type=int, default=None,
                   help="episodes acted on at once through act_batch (default: the agent's batch_size, else 1)")
    p.add_argument("--record", default=None, metavar="DIR",
                   help="write one record per episode (DIR/seed-NNNNN.jsonl) and DIR/summary.json")
    p.add_argument("--force", action="store_true", help="with --record: reuse a folder that is not empty")
    _add_common(p)
    p.set_defaults(func=cmd_eval)
    p = sub.add_parser("run", help="play one stream (LiveStream-v0) and print a summary table", formatter_class=fmt,
                       epilog="example: livesim run --scenario flash-sale-rush --agent oracle --record runs/r.jsonl")
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
    _defaults_and_examples(sub)
    return parser


EXAMPLES = {
    "replay": "livesim replay runs/r.jsonl",
    "regrade": "livesim regrade runs/r.jsonl --fail-on-change",
    "view": "livesim view runs/r.jsonl --speed 10",
    "compare": "livesim compare --agent oracle --agent memorizer --scenario tool-rename-skill-rewrite --seeds 0-19",
    "golden": "livesim golden",
    "scenarios": "livesim scenarios --check scenarios/flash-sale-rush.yaml",
    "harness": "livesim harness show --prompt",
    "models": "livesim models prepare smollm2-135m",
}


def _defaults_and_examples(sub: Any) -> None:
    """Every subcommand's --help shows its defaults and one example."""
    for name, p in sub.choices.items():
        if p.formatter_class is argparse.HelpFormatter:
            p.formatter_class = argparse.ArgumentDefaultsHelpFormatter
        if not p.epilog and name in EXAMPLES:
            p.epilog = f"example: {EXAMPLES[name]}"
        for action in p._actions:  # nested subcommands (harness show/diff, models list/prepare)
            if isinstance(action, argparse._SubParsersAction):
                for child_name, child in action.choices.items():
                    if child.formatter_class is argparse.HelpFormatter:
                        child.formatter_class = argparse.ArgumentDefaultsHelpFormatter
                    child.epilog = child.epilog or f"example: livesim {name} {child_name}"


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    if getattr(args, "episodes", 1) is not None and getattr(args, "episodes", 1) < 1:
        parser.error(f"--episodes must be >= 1, got {args.episodes}")
    return int(args.func(args) or 0)


if __name__ == "__main__":
    sys.exit(main())
