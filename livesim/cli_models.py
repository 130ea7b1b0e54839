"""`livesim models list|prepare NAME`: the model zoo from the command line (torch is imported only here)."""

from __future__ import annotations

import argparse


def _run(args: argparse.Namespace) -> int:
    try:
        from livesim.hat.models import main
    except ImportError as e:  # the training extra is not installed
        raise SystemExit(f"error: the model zoo needs the training extra: pip install 'livesim[train]' ({e})") from None
    return main([*args.models_args])


def register(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    p = sub.add_parser("models", help="list or prepare zoo models (tiny, smollm2-135m)",
                       description="livesim models list | livesim models prepare NAME [--cache-dir DIR]")
    p.add_argument("models_args", nargs=argparse.REMAINDER, help="list | prepare NAME [--cache-dir DIR]")
    p.set_defaults(func=_run)
