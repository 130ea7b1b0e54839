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
from livesim.agents.base import AgentUnavailable
from livesim.cli import grader, harness, hat, hat_eval, hat_regrade, models, run, scenarios
from livesim.cli.common import INTERRUPTED, BadInput, DefaultsHelpFormatter
from livesim.models.extras import training_missing

# hat before hat_eval and hat_regrade: it creates the `hat` group
COMMANDS = (run, harness, scenarios, models, grader, hat, hat_eval, hat_regrade)


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
    "grader": "livesim grader probes",
    "hat": "livesim hat train --preset tiny",
}
# nested subcommands whose bare name would not run (required options)
NESTED_EXAMPLES = {
    "hat collect": "livesim hat collect --episodes 50 --out runs/collect",
    "hat collect-stats": "livesim hat collect-stats runs/collect",
    "hat sft": "livesim hat sft --model tiny --data runs/collect --out runs/sft --steps 20",
    "hat distill": "livesim hat distill --student runs/sft --teacher tiny --out runs/distill --steps 5",
    "hat rl": "livesim hat rl --model runs/sft --out runs/rl --steps 2",
    "hat train": "livesim hat train --preset tiny",
    "hat dev": "livesim hat dev --model tiny --requests 20",
    "hat eval": "livesim hat eval --agent oracle --suite T1,T2 --limit 16",
    "hat reproduce": "livesim hat reproduce --preset tiny --ci",
    "hat ab": "livesim hat ab --a memorizer --b oracle --seeds 0-2",
    "hat edit": "livesim hat edit --agent oracle --limit 16",
    "hat regrade": "livesim hat regrade results/tiny-untrained --row random --set weight.brevity=0",
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
        _help_for_defaults(p)
        for action in p._actions:  # nested subcommands (harness show/diff, models list/prepare)
            if isinstance(action, argparse._SubParsersAction):
                for child_name, child in action.choices.items():
                    if child.formatter_class is argparse.HelpFormatter:
                        child.formatter_class = DefaultsHelpFormatter
                    example = NESTED_EXAMPLES.get(f"{name} {child_name}", f"livesim {name} {child_name}")
                    child.epilog = child.epilog or f"example: {example}"
                    _help_for_defaults(child)


def _help_for_defaults(p: argparse.ArgumentParser) -> None:
    """An option without help text still shows its default (argparse prints nothing for an option with no help)."""
    for action in p._actions:
        if action.option_strings and not action.help and action.nargs != 0 and not action.required:
            action.help = "(default: %(default)s)" if action.default is not None else "(default: none)"


# option -> (lowest, highest) for every command that has it; checked before anything runs
BOUNDS: dict[str, tuple[int, int | None]] = {"episodes": (1, None), "batch_size": (1, None), "seed": (0, 2**63 - 1),
                                           "speed": (0, None), "threads": (1, None), "frames": (1, None),
                                           "max_agent_failures": (0, None), "seed0": (0, 2**63 - 1)}


def _bad_number(args: argparse.Namespace) -> str | None:
    for name, (lo, hi) in BOUNDS.items():
        value = getattr(args, name, None)
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            continue
        if value != value or value < lo or (hi is not None and value > hi):  # value != value: NaN
            flag = "--" + name.replace("_", "-")
            return f"{flag} must be >= {lo}, got {value}" if hi is None else \
                f"{flag} must be between {lo} and {hi}, got {value}"
    return None


def main(argv: list[str] | None = None) -> int:
    """Run one command. A bad input is one line on stderr and exit status 2 (a command's `SystemExit("error: ...")`
    included; tests calling `main` see a `BadInput`, a SystemExit whose str() is the message); a closed stdout
    (`| head`) ends quietly; Ctrl-C is one line on stderr and exit status 130.
    """
    parser = build_parser()
    args = parser.parse_args(argv)
    if (problem := _bad_number(args)) is not None:
        print(f"error: {problem}", file=sys.stderr)
        return 2
    try:
        code = int(args.func(args) or 0)
        sys.stdout.flush()
        return code
    except BadInput:
        raise
    except AgentUnavailable as e:  # the model server is down: one line naming it, not a traceback
        print(f"error: {e}", file=sys.stderr)
        return 1
    except ImportError as e:  # the training stack is not installed: one line, not a traceback
        if (hint := training_missing(e)) is None:
            raise
        print(f"error: {hint}", file=sys.stderr)
        return 2
    except SystemExit as e:
        if isinstance(e.code, str):  # a command's one-line refusal
            print(e.code, file=sys.stderr)
            raise BadInput(e.code) from None
        raise
    except KeyboardInterrupt:  # Ctrl-C: one line, no traceback
        print("interrupted", file=sys.stderr)
        return INTERRUPTED
    except BrokenPipeError:  # the reader went away: nothing more to say, and no traceback at exit
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return SIGPIPE_EXIT


if __name__ == "__main__":
    sys.exit(main())
