"""Helpers shared by the `livesim` command groups: seeds, agent arguments, progress bar, summary table.

Results go to stdout (a JSON object with `--json`); progress and logs go to stderr.
"""

from __future__ import annotations

import argparse
import json
from typing import Any

from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeRemainingColumn
from rich.table import Table

from livesim.render.dashboard import summary_rows


def parse_seeds(text: str) -> list[int]:
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


def agent_kwargs(args: argparse.Namespace) -> dict[str, Any]:
    """The `--agent-arg KEY=VALUE` items (JSON values) and `--model`, as agent keyword arguments."""
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


def progress(args: argparse.Namespace, total: int) -> Any:
    """A rich progress bar on stderr (silent with --quiet)."""
    if getattr(args, "quiet", False):
        return lambda n: None
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


def print_table(title: str, summary: dict[str, Any]) -> None:
    """Print a run summary as a table on stdout."""
    table = Table(title=title)
    table.add_column("metric")
    table.add_column("value", justify="right")
    for k, v in summary_rows(summary):
        table.add_row(k, str(v))
    Console().print(table)


def add_common(p: argparse.ArgumentParser) -> None:
    """The agent, seed, wrapper and output flags that `eval` and `run` share."""
    p.add_argument("--agent", default="oracle", help="agent name (oracle, memorizer, null, random, transformers, "
                                                    "openai, vllm)")
    p.add_argument("--model", default=None, help="model for LLM agents: tiny, smollm2-135m or a local path")
    p.add_argument("--agent-arg", action="append", metavar="KEY=VALUE",
                   help="extra agent argument (JSON value), repeatable, e.g. --agent-arg error_rate=0.2")
    p.add_argument("--seed", type=int, default=0, help="first seed")
    p.add_argument("--wrappers", default=None, help="HSA wrappers: 'hsa' or a comma-separated list of names")
    p.add_argument("--json", action="store_true", help="print one JSON object on stdout")
    p.add_argument("--quiet", action="store_true", help="no progress bar")
