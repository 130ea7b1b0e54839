"""Re-verify the oracle's gold reply of every phrasing of every intent against what the phrasing asks.

Builds one-part `LiveStreamQA-v0` requests until each phrasing has been drawn `--per-phrasing` times, checks
each gold reply against the product and room records for its typed ask (`livesim.runs.gold_check`), and counts
the gold replies that changed against the truth of the intent alone. Exit status 1 when a gold reply fails.

Usage: python scripts/verify_gold.py [--per-phrasing 3] [--max-seeds 4000] [--seed0 0] [--json]
"""

from __future__ import annotations

import argparse
import json
import sys

from livesim.runs.gold_check import markdown, verify


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--per-phrasing", type=int, default=3, help="requests per phrasing (default 3)")
    parser.add_argument("--max-seeds", type=int, default=4000, help="seeds tried per intent at most (default 4000)")
    parser.add_argument("--seed0", type=int, default=0, help="first seed (default 0)")
    parser.add_argument("--json", action="store_true", help="print the full result as JSON")
    args = parser.parse_args(argv)
    for name in ("per_phrasing", "max_seeds"):
        if getattr(args, name) < 1:
            parser.error(f"--{name.replace('_', '-')} must be >= 1, got {getattr(args, name)}")
    res = verify(per_phrasing=args.per_phrasing, max_seeds=args.max_seeds, seed0=args.seed0)
    print(json.dumps(res, indent=1) if args.json else markdown(res))
    return 1 if res["fail_after"] or res["gold_below_1"] else 0


if __name__ == "__main__":
    sys.exit(main())
