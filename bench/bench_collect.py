"""Benchmark: collect episodes/s (oracle teacher, HSA, the default mix) with 1..N worker processes, same data.

    python bench/bench_collect.py --episodes 400 --workers 1,2
    python bench/bench_collect.py --episodes 8000 --workers 1,16 --prompt-style compact   # on a 16-core machine

Each row plays and writes the whole dataset (`livesim.hat.collect.run`, into a temp folder); the last column checks
that every worker count gave the same dataset bytes as the first.
"""

from __future__ import annotations

import argparse
import hashlib
import tempfile
import time
from pathlib import Path


def _digest(path: Path) -> str:
    h = hashlib.sha256()
    for f in sorted((path / "data").rglob("*.arrow")):
        h.update(f.read_bytes())
    return h.hexdigest()[:12]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--episodes", type=int, default=400)
    ap.add_argument("--workers", default="1,2", help="comma list of worker counts")
    ap.add_argument("--batch-size", type=int, default=8)
    ap.add_argument("--prompt-style", default="full")
    ap.add_argument("--fixed-harness", action="store_true")
    args = ap.parse_args()

    from livesim.hat import collect
    from livesim.hat.collect import CollectConfig

    rows = []
    with tempfile.TemporaryDirectory(prefix="bench-collect-") as tmp:
        for n in (int(x) for x in args.workers.split(",")):
            cfg = CollectConfig(episodes=args.episodes, seed=0, batch_size=args.batch_size, workers=n,
                                prompt_style=args.prompt_style, fixed_harness=args.fixed_harness)
            t0 = time.perf_counter()
            out = collect.run(cfg, Path(tmp) / f"w{n}", show_progress=False)
            wall = time.perf_counter() - t0
            rows.append((n, wall, args.episodes / wall, collect.stats(out)["splits"], _digest(out)))
            print(f"[bench_collect] {n} workers: {wall:.1f} s, {args.episodes / wall:.1f} episodes/s", flush=True)
    ref = next((r for r in rows if r[0] == 1), rows[0])  # speed-up over one process when it was measured
    print(f"\ncollect, {args.episodes} episodes, batch {args.batch_size}, prompt style {args.prompt_style}")
    print("| workers | wall s | episodes/s | speed-up | splits | same bytes |")
    print("|---|---|---|---|---|---|")
    for n, wall, eps, splits, digest in rows:
        print(f"| {n} | {wall:.1f} | {eps:.1f} | {ref[1] / wall:.2f}x | {splits} | {digest == rows[0][4]} |")


if __name__ == "__main__":
    main()
