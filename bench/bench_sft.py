"""Benchmark: SFT throughput of the `tiny` preset for several batch layouts, on the same data, in one run.

A layout is ``BxA``: ``B`` conversations per forward pass (padded to the longest), ``A`` accumulated passes per
optimizer step, so ``4x1`` and ``1x4`` both take 4 conversations a step (the same ones, in the same order, and the
same gradient: TRL normalises the loss over the assistant tokens of all the step's micro-batches). On a CPU the
difference is the attention kernel: a padded batch needs an attention mask, and PyTorch's SDPA then runs its math
kernel; an unpadded row runs the fused causal kernel.

Each layout runs `--steps` steps of the real `livesim.hat.sft.run` (TRL `SFTTrainer`) from the preset's base on a
freshly collected dataset (or `--data`), and reports the trainer's own runtime (no evaluation, no saving), seconds
a step, conversations and trained tokens per second, the first and last loss (the first should agree across
layouts: same weights, same conversations), and the speed-up over the first layout.

A layout may name the LM head after a colon: ``1x4:fused`` (TRL's chunked head, the default), ``1x4:plain`` (the
model's own loss, logits at the labelled positions only), ``1x4:plain-full`` (the same loss over full logits, as
``plain`` did before it selected positions).

    python bench/bench_sft.py --layouts 4x1,1x4 --steps 16 --threads 1
    python bench/bench_sft.py --layouts 1x4:fused,1x4:plain-full,1x4:plain --steps 8
"""

from __future__ import annotations

import argparse
import os
import tempfile
import time
from pathlib import Path


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--layouts", default="4x1,1x4", help="comma list of BxA (batch x gradient accumulation)")
    ap.add_argument("--steps", type=int, default=16, help="optimizer steps per layout")
    ap.add_argument("--threads", type=int, default=1, help="torch CPU threads")
    ap.add_argument("--data", default=None, help="a collected dataset dir (default: collect --episodes now)")
    ap.add_argument("--episodes", type=int, default=96, help="episodes to collect when --data is not given")
    ap.add_argument("--preset", default="tiny", help="the preset whose base model and SFT recipe are used")
    args = ap.parse_args()

    import torch

    torch.set_num_threads(args.threads)
    from livesim.hat import collect, sft
    from livesim.hat.train import TrainConfig, _base

    cfg = TrainConfig.from_preset(args.preset)
    model_dir, _ = _base(cfg)
    layouts = []
    for item in args.layouts.split(","):
        shape, _, head = item.lower().partition(":")
        head = head or cfg.sft.lm_head
        try:
            b, a = (int(x) for x in shape.split("x"))
        except ValueError:
            ap.error(f"layout {item!r} is not BxA[:head] (e.g. 4x1 or 1x4:plain)")
        if head not in ("fused", "plain", "plain-full"):
            ap.error(f"layout {item!r}: head must be fused, plain or plain-full")
        layouts.append((b, a, head))

    plain_loss = sft._with_plain_loss

    def plain_full_logits(trainer_cls: object) -> object:
        cls = plain_loss(trainer_cls)
        cls._takes_mask = False  # the model's own loss over full logits
        return cls

    with tempfile.TemporaryDirectory(prefix="bench-sft-") as tmp:
        data = Path(args.data) if args.data else collect.run(
            cfg.collect.model_copy(update={"episodes": args.episodes}), Path(tmp) / "data", show_progress=False)
        rows = []
        name_heads = len({h for *_, h in layouts}) > 1  # label each row with its head when they differ
        try:
            for i, (b, a, head) in enumerate(layouts):
                stage = cfg.sft.model_copy(update={"steps": args.steps, "batch_size": b, "grad_accum": a,
                                                   "save_steps": 10 ** 6, "val_examples": 1,
                                                   "lm_head": "plain" if head == "plain-full" else head})
                sft._with_plain_loss = plain_full_logits if head == "plain-full" else plain_loss  # type: ignore[assignment]
                t0 = time.perf_counter()
                stats = sft.run(stage, model_dir, data, Path(tmp) / f"out-{i}", show_progress=False)
                wall = time.perf_counter() - t0
                runtime = next(r["train_runtime"] for r in stats["history"] if "train_runtime" in r)
                convs = args.steps * b * a
                tokens = convs * stats["lengths_mean"]
                label = f"{b}x{a} {head}" if name_heads or head != cfg.sft.lm_head else f"{b}x{a}"
                rows.append({"layout": label, "train_s": runtime, "wall_s": wall, "s_per_step": runtime / args.steps,
                             "conv_per_s": convs / runtime, "tok_per_s": tokens / runtime,
                             "loss_start": stats["loss_start"], "loss_end": stats["loss_end"]})
        finally:
            sft._with_plain_loss = plain_loss  # type: ignore[assignment]

    print(f"\nSFT, preset {args.preset}, {args.steps} steps, {args.threads} thread(s), "
          f"OMP_NUM_THREADS={os.environ.get('OMP_NUM_THREADS', '-')}, mean conversation {stats['lengths_mean']:.0f} "
          "tokens (trained tokens/s = conversations/s x that mean)")
    print("| layout | train s | s/step | conversations/s | tokens/s | loss first / last | speed-up |")
    print("|---|---|---|---|---|---|---|")
    for r in rows:
        print(f"| {r['layout']} | {r['train_s']:.1f} | {r['s_per_step']:.2f} | {r['conv_per_s']:.2f} | "
              f"{r['tok_per_s']:.0f} | {r['loss_start']:.4f} / {r['loss_end']:.4f} | "
              f"{rows[0]['train_s'] / r['train_s']:.2f}x |")


if __name__ == "__main__":
    main()
