"""The `livesim` command line: one module per command group, each with `register(subparsers)`.

To add a group, write `livesim/cli/<group>.py` with `register(sub)` and list it in `COMMANDS` (order is the
order of `livesim --help`; `scenarios` extends `run`, so it comes after `run`).
"""

from __future__ import annotations

import argparse
import sys

from livesim.cli import harness, hat_eval, models, run, scenarios

COMMANDS = (run, harness, scenarios, models, hat_eval)


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="livesim", description="A simulated live-stream shop with an AI host.")
    sub = parser.add_subparsers(dest="command", required=True)
    for module in COMMANDS:
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
