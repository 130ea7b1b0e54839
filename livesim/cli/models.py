"""`livesim models list|prepare NAME`: the model zoo from the command line (torch only when a model is built)."""

from __future__ import annotations

import argparse

from livesim.models.extras import training_missing
from livesim.models.zoo import main


def _run(args: argparse.Namespace) -> int:
    try:
        return main([*args.models_args])
    except ImportError as e:  # the training extra is not installed (the zoo imports torch lazily)
        raise SystemExit(f"error: {training_missing(e) or e}") from None


def register(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    p = sub.add_parser("models", help="list or prepare zoo models (tiny, smollm2-135m)",
                       description="livesim models list | livesim models prepare NAME [--cache-dir DIR]")
    p.add_argument("models_args", nargs=argparse.REMAINDER, help="list | prepare NAME [--cache-dir DIR]")
    p.set_defaults(func=_run)
