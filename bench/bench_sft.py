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

A layout may also end in ``+pf`` (TRL's padding-free batches: the batch flattened into one row, no pad computed)
and ``+grouped`` (length-grouped batches). Trained tokens/s counts the conversation tokens that went through the
model (padding not counted; `livesim.hat.sft.TokenCounter`); the padding column is the share of computed positions
that were padding.

``--device cuda`` trains on the GPU (bf16 where supported) after ``--warmup`` unreported steps of the first layout,
and then runs ``--cpu-steps`` steps of the first layout, batch 1, on the CPU of the same machine for the CPU figure;
the last column is then the ratio to it. A layout that runs out of GPU memory is reported as such and the others run
(``+pf`` under SDPA at 16 conversations of ~2,000 tokens did on an H200: the block-diagonal mask of the flattened row).

    python bench/bench_sft.py --layouts 4x1,1x4 --steps 16 --threads 1
    python bench/bench_sft.py --layouts 1x4:fused,1x4:plain-full,1x4:plain --steps 8
    python bench/bench_sft.py --layouts 4x1,4x1+grouped,4x1+pf --steps 8      # padding waste on the CPU
    python bench/bench_sft.py --device cuda --preset smollm2-135m-gpu --layouts 16x1+grouped,16x1+pf --steps 30
    python bench/bench_sft.py --device cuda --preset smollm2-135m-gpu --layouts 16x1+grouped --steps 6 --profile 2
"""

from __future__ import annotations

import argparse
import os
import tempfile
import time
from pathlib import Path


def parse_layout(item: str, default_head: str) -> tuple[int, int, str, bool, bool]:
    """``BxA[:head][+pf][+grouped]`` -> (batch, accumulation, head, padding_free, grouped)."""
    body, *mods = item.lower().split("+")
    shape, _, head = body.partition(":")
    head = head or default_head
    b, a = (int(x) for x in shape.split("x"))
    if head not in ("fused", "plain", "plain-full") or set(mods) - {"pf", "grouped"}:
        raise ValueError(item)
    return b, a, head, "pf" in mods, "grouped" in mods


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--layouts", default="4x1,1x4", help="comma list of BxA[:head][+pf][+grouped]")
    ap.add_argument("--steps", type=int, default=16, help="optimizer steps per layout")
    ap.add_argument("--threads", type=int, default=1, help="torch CPU threads")
    ap.add_argument("--data", default=None, help="a collected dataset dir (default: collect --episodes now)")
    ap.add_argument("--episodes", type=int, default=96, help="episodes to collect when --data is not given")
    ap.add_argument("--preset", default="tiny", help="the preset whose base model and SFT recipe are used")
    ap.add_argument("--device", default="cpu", choices=["cpu", "cuda"], help="where the layouts train")
    ap.add_argument("--cpu-steps", type=int, default=2, help="with --device cuda: CPU steps for the ratio (0: none)")
    ap.add_argument("--profile", type=int, default=0, help="profile N optimizer steps of the first layout (after its "
                    "first step; on CUDA in the unreported warm-up run) with torch.profiler and print the top "
                    "operators (0: none)")
    ap.add_argument("--profile-out", default=None, help="with --profile: also write a Chrome trace (JSON) here")
    ap.add_argument("--warmup", type=int, default=2, help="with --device cuda: steps of the first layout run first and "
                    "not reported (CUDA start-up and kernel selection; 0: none)")
    args = ap.parse_args()
    if args.profile and args.profile + 1 > args.steps and not (args.device == "cuda" and args.warmup):
        ap.error(f"--profile {args.profile} needs --steps >= {args.profile + 1} (step 1 is not profiled)")
    os.environ["LIVESIM_DEVICE"] = args.device

    import torch

    torch.set_num_threads(args.threads)
    from livesim.hat import collect, sft
    from livesim.hat.train import TrainConfig, _base
    from livesim.models.device import select_device

    choice = select_device(args.device)  # --device cuda without a GPU: one-line error
    cfg = TrainConfig.from_preset(args.preset)
    model_dir, _ = _base(cfg)
    layouts = []
    for item in args.layouts.split(","):
        try:
            layouts.append(parse_layout(item, cfg.sft.lm_head))
        except ValueError:
            ap.error(f"layout {item!r} is not BxA[:head][+pf][+grouped] (e.g. 4x1, 1x4:plain, 8x1+pf); head is "
                     "fused, plain or plain-full")

    plain_loss = sft._with_plain_loss

    def plain_full_logits(trainer_cls: object) -> object:
        cls = plain_loss(trainer_cls)
        cls._takes_mask = False  # the model's own loss over full logits
        return cls

    def profiler_callback() -> object:
        """Profile optimizer steps 2..1+N of the run it is given to (torch.profiler; CUDA kernels too on a GPU)."""
        from transformers import TrainerCallback

        steps, trace = args.profile, args.profile_out  # the callbacks' own `args` is the trainer's
        acts = [torch.profiler.ProfilerActivity.CPU] + ([torch.profiler.ProfilerActivity.CUDA]
                                                         if choice.device == "cuda" else [])

        class Profile(TrainerCallback):  # type: ignore[misc]
            prof = None

            def on_step_begin(self, args: object, state: object, control: object, **kw: object) -> None:
                if state.global_step == 1 and self.prof is None:  # type: ignore[attr-defined]
                    self.prof = torch.profiler.profile(activities=acts)
                    self.prof.__enter__()

            def on_step_end(self, args: object, state: object, control: object, **kw: object) -> None:
                if self.prof is not None and state.global_step == 1 + steps:  # type: ignore[attr-defined]
                    if choice.device == "cuda":
                        torch.cuda.synchronize()
                    self.prof.__exit__(None, None, None)
                    key = "self_cuda_time_total" if choice.device == "cuda" else "self_cpu_time_total"
                    print(f"\n[bench_sft] profile of {steps} step(s) of the first layout, by {key}:")
                    print(self.prof.key_averages().table(sort_by=key, row_limit=25), flush=True)
                    if trace:
                        self.prof.export_chrome_trace(trace)
                    self.prof = None

        return Profile()

    def one(i: int, b: int, a: int, head: str, pf: bool, grouped: bool, steps: int, tmp: str,
            callbacks: list | None = None) -> dict:
        stage = cfg.sft.model_copy(update={"steps": steps, "epochs": None, "batch_size": b, "grad_accum": a,
                                           "save_steps": 10 ** 6, "val_examples": 1, "padding_free": pf,
                                           "group_by_length": grouped,
                                           "lm_head": "plain" if head == "plain-full" else head})
        sft._with_plain_loss = plain_full_logits if head == "plain-full" else plain_loss  # type: ignore[assignment]
        t0 = time.perf_counter()
        stats = sft.run(stage, model_dir, data, Path(tmp) / f"out-{i}", show_progress=False, callbacks=callbacks)
        wall = time.perf_counter() - t0
        runtime = stats["train_runtime_s"]
        label = f"{b}x{a}" + (f":{head}" if head != cfg.sft.lm_head else "") + ("+pf" if pf else "") + \
            ("+grouped" if grouped else "")
        return {"layout": label, "train_s": runtime, "wall_s": wall, "s_per_step": runtime / steps,
                "conv_per_s": steps * b * a / runtime, "tok_per_s": stats["tokens_per_s"],
                "padding": stats["padding_share"], "loss_start": stats["loss_start"], "loss_end": stats["loss_end"],
                "device": stats["device"], "mean_len": stats["lengths_mean"]}

    with tempfile.TemporaryDirectory(prefix="bench-sft-") as tmp:
        data = Path(args.data) if args.data else collect.run(
            cfg.collect.model_copy(update={"episodes": args.episodes}), Path(tmp) / "data", show_progress=False)
        rows = []
        failed: list[str] = []
        cpu_row = None
        try:
            warm = choice.device == "cuda" and args.warmup > 0
            if warm:  # CUDA context, kernel selection and allocator growth land in the first run's runtime otherwise
                # (the profile, when asked, is taken here too, so no reported figure carries the profiler's cost)
                one(-1, *layouts[0], max(args.warmup, args.profile + 1), tmp,
                    [profiler_callback()] if args.profile else None)
            for i, layout in enumerate(layouts):
                try:
                    profile = [profiler_callback()] if args.profile and i == 0 and not warm else None
                    rows.append(one(i, *layout, args.steps, tmp, profile))
                except torch.cuda.OutOfMemoryError as e:  # one layout too big for the device: the others still run
                    failed.append(f"{args.layouts.split(',')[i]}: out of memory ({str(e).splitlines()[0][:100]})")
                    print(f"[bench_sft] {failed[-1]}", flush=True)
                    torch.cuda.empty_cache()
                    continue
                r = rows[-1]  # as it goes: a run stopped at a time limit keeps the layouts already measured
                print(f"[bench_sft] {r['layout']} on {r['device']}: {r['tok_per_s']:.0f} trained tokens/s, padding "
                      f"{r['padding']:.1%}, {r['s_per_step']:.2f} s/step", flush=True)
            if choice.device == "cuda" and args.cpu_steps:
                os.environ["LIVESIM_DEVICE"] = "cpu"
                b, a, head, pf, grouped = layouts[0]
                cpu_row = one(len(layouts), 1, 1, head, False, False, args.cpu_steps, tmp)
        finally:
            sft._with_plain_loss = plain_loss  # type: ignore[assignment]
            os.environ["LIVESIM_DEVICE"] = args.device

    if not rows:
        raise SystemExit("no layout could be measured: " + "; ".join(failed))
    gpu = torch.cuda.get_device_name() if choice.device == "cuda" else "-"
    print(f"\nSFT, preset {args.preset}, {args.steps} steps, device {choice.device} ({gpu}, bf16 {choice.bf16}), "
          f"{args.threads} CPU thread(s), OMP_NUM_THREADS={os.environ.get('OMP_NUM_THREADS', '-')}, mean "
          f"conversation {rows[-1]['mean_len']:.0f} tokens; trained tokens/s counts conversation tokens, not padding")
    ref = cpu_row["tok_per_s"] if cpu_row else None
    print("| layout | device | train s | s/step | conversations/s | trained tokens/s | padding | loss first / last | "
          + ("x CPU |" if ref else "speed-up |"))
    print("|---|---|---|---|---|---|---|---|---|")
    for r in rows + ([cpu_row] if cpu_row else []):
        last = f"{r['tok_per_s'] / ref:.1f}x" if ref else f"{rows[0]['train_s'] / r['train_s']:.2f}x"
        print(f"| {r['layout']} | {r['device']} | {r['train_s']:.1f} | {r['s_per_step']:.2f} | {r['conv_per_s']:.2f} | "
              f"{r['tok_per_s']:.0f} | {r['padding']:.1%} | {r['loss_start']:.4f} / {r['loss_end']:.4f} | {last} |")
    for f in failed:
        print(f"| {f.split(':')[0]} | {choice.device} | {f.split(': ', 1)[1]} | | | | | | |")


if __name__ == "__main__":
    main()
