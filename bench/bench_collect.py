"""Benchmark: collect episodes/s (oracle teacher, HSA, the default mix) with 1..N worker processes, same data.

    python bench/bench_collect.py --episodes 400 --workers 1,2
    python bench/bench_collect.py --episodes 8000 --workers 1,16 --prompt-style compact   # on a 16-core machine
    python bench/bench_collect.py --episodes 1600 --workers 2,1 --tokenizer smollm2-135m  # as the SmolLM2 presets

Each row plays and writes the whole dataset (`livesim.hat.collect.run`, into a temp folder); the last column checks
that every worker count gave the same dataset bytes as the first. `play s` is the part the workers share (playing the
episodes, processes started and results returned included); the rest of the wall time (records, the Arrow dataset,
the write) runs in the parent alone, so it bounds what more workers can give. `--tokenizer` adds what the training
presets' collect does there too: every conversation's token count under that model's chat template.
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
    ap.add_argument("--tokenizer", default=None, help="count tokens with this model's chat template, as the "
                    "training presets do (a zoo name or a model directory; default: none)")
    args = ap.parse_args()

    from livesim.hat import collect
    from livesim.hat.collect import CollectConfig

    played: list[float] = []
    real_play = collect.play

    def timed_play(*a, **k):  # the parallel part of collect.run, timed apart from the serial rest
        t0 = time.perf_counter()
        try:
            return real_play(*a, **k)
        finally:
            played.append(time.perf_counter() - t0)

    collect.play = timed_play
    import datasets  # noqa: F401  (imported by collect.run; here, so that the first row does not pay for it)
    rows = []
    with tempfile.TemporaryDirectory(prefix="bench-collect-") as tmp:
        for n in (int(x) for x in args.workers.split(",")):
            cfg = CollectConfig(episodes=args.episodes, seed=0, batch_size=args.batch_size, workers=n,
                                prompt_style=args.prompt_style, fixed_harness=args.fixed_harness,
                                tokenizer=args.tokenizer)
            t0 = time.perf_counter()
            out = collect.run(cfg, Path(tmp) / f"w{n}", show_progress=False)
            wall = time.perf_counter() - t0
            rows.append((n, wall, args.episodes / wall, collect.stats(out)["splits"], _digest(out), played[-1]))
            print(f"[bench_collect] {n} workers: {wall:.1f} s ({played[-1]:.1f} s playing), "
                  f"{args.episodes / wall:.1f} episodes/s", flush=True)
    ref = next((r for r in rows if r[0] == 1), rows[0])  # speed-up over one process when it was measured
    print(f"\ncollect, {args.episodes} episodes, batch {args.batch_size}, prompt style {args.prompt_style}"
          + (f", token counts with {args.tokenizer}" if args.tokenizer else ""))
    print("| workers | wall s | play s | rest s | episodes/s | speed-up | splits | same bytes |")
    print("|---|---|---|---|---|---|---|---|")
    for n, wall, eps, splits, digest, play_s in rows:
        print(f"| {n} | {wall:.1f} | {play_s:.1f} | {wall - play_s:.1f} | {eps:.1f} | {ref[1] / wall:.2f}x | "
              f"{splits} | {digest == rows[0][4]} |")


if __name__ == "__main__":
    main()
