"""Helpers shared by the `livesim` command groups: seeds, agent arguments, progress bar, summary table.

Results go to stdout (a JSON object with `--json`); progress and logs go to stderr.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from typing import Any, NoReturn

from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeRemainingColumn
from rich.table import Table

from livesim.agents import AGENT_REGISTRY
from livesim.render.dashboard import summary_rows

EXAMPLE_EPILOG = "example: {}"
BAD_INPUT = 2
"""Exit status of a refused input (a malformed file, a path that may not be read or written)."""
INTERRUPTED = 130
"""Exit status after Ctrl-C (what a shell reports for a process ended by SIGINT)."""


class BadInput(SystemExit):
    """A refused input: exit status 2; `str()` is the message (`error: ...`), already shown on stderr."""

    def __init__(self, message: str) -> None:
        super().__init__(BAD_INPUT)
        self.message = message

    def __str__(self) -> str:
        return self.message


def fail(message: str) -> NoReturn:
    """End the command: `error: <message>` (its first line) on stderr, exit status 2 (bad input)."""
    line = (message.splitlines() or ["bad input"])[0]
    text = line if line.startswith("error:") else f"error: {line}"
    print(text, file=sys.stderr)
    raise BadInput(text)


class DefaultsHelpFormatter(argparse.ArgumentDefaultsHelpFormatter):
    """Shows every option's default once: its value, or "(default: none)" for an option that is unset unless given
    (help that says what happens then writes its own "(default: ...)"). Not for required options, flags that are
    off by default, or help that already states its default.
    """

    def _get_help_string(self, action: argparse.Action) -> str | None:
        help_ = action.help or ""
        if action.default is None and action.nargs != 0 and action.option_strings and not action.required \
                and "(default" not in help_ and "%(default" not in help_:
            return f"{help_} (default: none)"
        # `is`, not `in (None, False)`: a default of 0 equals False and would be hidden
        if "%(default" in help_ or "(default" in help_ or action.required or action.default is None \
                or action.default is False:
            return help_
        return super()._get_help_string(action)


class SeedsError(ValueError, argparse.ArgumentTypeError):
    """A `--seeds` value that is not a seed list; the message names the option and the part that is wrong."""


def parse_seeds(text: str, flag: str = "--seeds") -> list[int]:
    """'0-49' or '1,2,5' or '7' -> list of ints (a range is FIRST-LAST, both included, FIRST <= LAST)."""
    out: list[int] = []
    for part in text.split(","):
        part = part.strip()
        if not part:
            continue
        m = re.fullmatch(r"(\d+)(?:\s*-\s*(\d+))?", part)
        if m is None or (m.group(2) is not None and int(m.group(2)) < int(m.group(1))):
            raise SeedsError(f"{flag} {text!r}: {part!r} is not a seed or a range FIRST-LAST; expected e.g. 0-49 "
                             "or 1,2,5")
        first = int(m.group(1))
        out.extend(range(first, int(m.group(2)) + 1) if m.group(2) is not None else [first])
    if not out:
        raise SeedsError(f"{flag} {text!r}: no seeds; expected e.g. 0-49 or 1,2,5")
    return out


def agent_kwargs(args: argparse.Namespace) -> dict[str, Any]:
    """The `--agent-arg KEY=VALUE` items (JSON values) and `--model`, as agent keyword arguments."""
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
    if getattr(args, "tool_choice", None):
        kwargs["tool_choice"] = args.tool_choice
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
    """Print a run summary as a table on stdout; plain aligned text when stdout is not a terminal."""
    rows = summary_rows(summary)
    if not sys.stdout.isatty():
        width = max(len(k) for k, _ in rows)
        print(title)
        for k, v in rows:
            print(f"{k:<{width}}  {v}".rstrip())
        return
    table = Table(title=title)
    table.add_column("metric", overflow="fold")
    table.add_column("value", justify="right", overflow="fold")
    for k, v in rows:
        table.add_row(k, str(v))
    Console().print(table)


def add_common(p: argparse.ArgumentParser) -> None:
    """The agent, seed, wrapper and output flags that `eval` and `run` share."""
    p.add_argument("--agent", default="oracle", help=f"agent name ({', '.join(AGENT_REGISTRY)}), or "
                                                    "module:Class / path/to/file.py:Class of your own")
    p.add_argument("--model", default=None, help="model for LLM agents: tiny, smollm2-135m or a local path "
                                                 "(default: the agent's own)")
    p.add_argument("--agent-arg", action="append", metavar="KEY=VALUE",
                   help="extra agent argument (JSON value), repeatable, e.g. --agent-arg error_rate=0.2")
    p.add_argument("--seed", type=int, default=0, help="first seed")
    p.add_argument("--wrappers", default=None, help="HSA wrappers: 'hsa' or a comma-separated list of names "
                                                    "(default: none, the canonical harness)")
    p.add_argument("--hsa-p", type=float, default=None, metavar="P",
                   help="probability of each HSA transform (default: 2/3)")
    p.add_argument("--harness", default=None, metavar="FILE",
                   help="a harness file (YAML/JSON; docs/harness-files.md) instead of the canonical harness "
                        "(default: none, the canonical harness)")
    p.add_argument("--prompt-style", choices=["markdown", "xml", "json", "compact"], default=None,
                   help="present the system prompt in this style (default: the harness's own, markdown)")
    p.add_argument("--tool-choice", choices=["auto", "required", "none", "omit"], default=None,
                   help="openai agent: the tool_choice sent with the tools (default auto; omit: not sent)")
    p.add_argument("--max-agent-failures", type=int, default=0, metavar="N",
                   help="exit 0 even though up to N model calls failed (their requests are still left out of "
                        "the means)")
    p.add_argument("--json", action="store_true", help="print one JSON object on stdout")
    p.add_argument("--quiet", action="store_true", help="no progress bar")
