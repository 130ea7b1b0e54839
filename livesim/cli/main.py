"""The `livesim` command line: one module per command group, each with `register(subparsers)`.

To add a group, write `livesim/cli/<group>.py` with `register(sub)` and list it in `COMMANDS` (order is the
order of `livesim --help`; `scenarios` extends `run`, so it comes after `run`).
"""

from __future__ import annotations

import argparse
import os
import sys
from typing import Any

import livesim
from livesim.cli import grader, harness, hat, hat_eval, models, run, scenarios
from livesim.cli.common import BadInput, DefaultsHelpFormatter

COMMANDS = (run, harness, scenarios, models, grader, hat, hat_eval)  # hat before hat_eval: it creates the `hat` group


SIGPIPE_EXIT = 141  # what a shell reports for a process ended by SIGPIPE

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


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="livesim", description="A simulated live-stream shop with an AI host.",
                                     epilog="example: livesim eval --agent oracle --episodes 20")
    parser.add_argument("--version", action="version", version=f"livesim {livesim.__version__}")
    sub = parser.add_subparsers(dest="command", required=True)
    for module in COMMANDS:
        module.register(sub)
    _defaults_and_examples(sub)
    return parser


def _defaults_and_examples(sub: Any) -> None:
    """Every subcommand's --help shows its defaults and one example."""
    for name, p in sub.choices.items():
        if p.formatter_class is argparse.HelpFormatter:
            p.formatter_class = DefaultsHelpFormatter
        if not p.epilog and name in EXAMPLES:
            p.epilog = f"example: {EXAMPLES[name]}"
        for action in p._actions:  # nested subcommands (harness show/diff, models list/prepare)
            if isinstance(action, argparse._SubParsersAction):
                for child_name, child in action.choices.items():
                    if child.formatter_class is argparse.HelpFormatter:
                        child.formatter_class = DefaultsHelpFormatter
                    child.epilog = child.epilog or f"example: livesim {name} {child_name}"


def main(argv: list[str] | None = None) -> int:
    """Run one command. A refusal (`SystemExit("error: ...")`) exits 2; a closed stdout (`| head`) ends quietly."""
    parser = build_parser()
    args = parser.parse_args(argv)
    if getattr(args, "episodes", 1) is not None and getattr(args, "episodes", 1) < 1:
        parser.error(f"--episodes must be >= 1, got {args.episodes}")
    try:
        code = int(args.func(args) or 0)
        sys.stdout.flush()
        return code
    except BadInput:
        raise
    except SystemExit as e:
        if isinstance(e.code, str):  # a command's one-line refusal
            print(e.code, file=sys.stderr)
            raise BadInput(e.code) from None
        raise
    except BrokenPipeError:  # the reader went away: nothing more to say, and no traceback at exit
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return SIGPIPE_EXIT


if __name__ == "__main__":
    sys.exit(main())
