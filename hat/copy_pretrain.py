"""Copy pretraining of the ``tiny`` base: dense induction data before SFT (opt-in, ``tiny_arch.copy_steps``).

Why: a renamed tool, parameter or skill of the held-out HSA vocabulary can only be called by copying its name
from the presented schemas. The name probe (docs/notes/2026-12-03-name-probe-and-copy-pretraining.md) measured
that the tiny models trained from scratch do not copy at all (0.00-0.03 of a generated name's tokens after the
first), also after SFT on generated names only: an SFT conversation has a few name tokens in ~2,000, too sparse
a signal to grow an induction circuit.

This stage trains the random-init base on the densest copy signal there is: a random sequence of tokens
followed by the same sequence, loss on the repeat (every token of it but the first is a copy target). Each
example is drawn from ``numpy.random.default_rng([seed, index])``, so the data is the same in any process and a
resumed run sees the examples it would have seen. It is a plain ``transformers.Trainer`` (checkpoints, resume,
progress bar); the output is a model directory like the base's, with ``copy_stats.json`` (copy accuracy before
and after on a fixed held-out set of sequences).
"""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any

import numpy as np

from livesim.hat.common import (
    atomic_dir,
    check_out,
    elapsed_before,
    elapsed_callback,
    last_checkpoint,
    log_history,
    quiet_trainer,
    quiet_unless_progress,
    trainer_common,
    write_model_card,
)
from livesim.models.device import load_kwargs
from livesim.stream.paths import write_text

EVAL_SEED = 999_983  # the held-out sequences (never a training index's seed: those are [seed, index])
FIRST_ID = 3  # ids below are the tokenizer's special tokens (pad, im_start, im_end); never drawn

OUT_MARKER = "copy_stats.json"
OUT_KIND = "model folder written by the copy pretraining"


def check_shape(span: tuple[int, int], context: int) -> None:
    """Refuse a span band or context the data cannot be drawn with (one message for the API and the config)."""
    lo, hi = span
    if not 2 <= lo <= hi:
        raise ValueError(f"copy_span must be (lo, hi) with 2 <= lo <= hi, got {tuple(span)!r}")
    if context and context < hi:
        raise ValueError(f"copy_context must be 0 or >= copy_span's upper bound {hi}, got {context}")


def example(seed: int, index: int, vocab: int, span: tuple[int, int], context: int = 0) -> tuple[list[int], list[int]]:
    """Example ``index`` of the copy data; returns ``(input_ids, labels)``.

    ``context == 0``: a random sequence x of length n in ``span`` (inclusive), then x again. ``context > 0``: a
    random sequence c of ``context`` tokens, then spans of c (each a random start and a length in ``span``)
    until as many tokens again are written: every span must be found in c by its content (its first token,
    unique in c with high probability), since it may come from anywhere in it. The labels are -100 except on
    the copied tokens after each copy's first token (the model shifts them: label t is predicted at t - 1).
    """
    rng = np.random.default_rng([seed, index])
    if context == 0:
        n = int(rng.integers(span[0], span[1] + 1))
        x = rng.integers(FIRST_ID, vocab, size=n).tolist()
        ids = x + x
        return ids, [-100] * (n + 1) + ids[n + 1:]
    check_shape(span, context)
    c = rng.integers(FIRST_ID, vocab, size=context).tolist()
    ids, labels = list(c), [-100] * context
    while len(ids) < 2 * context:
        n = int(rng.integers(span[0], span[1] + 1))
        start = int(rng.integers(0, context - n + 1))
        ids += c[start:start + n]
        labels += [-100] + c[start + 1:start + n]
    return ids, labels


class CopyDataset:
    """``length`` seeded copy examples (a map-style dataset: a resumed Trainer skips to the same ones)."""

    def __init__(self, seed: int, length: int, vocab: int, span: tuple[int, int], context: int = 0) -> None:
        check_shape(span, context)
        if vocab <= FIRST_ID + 1:
            raise ValueError(f"vocabulary of {vocab} tokens has nothing to copy")
        self.seed, self.length, self.vocab, self.span, self.context = seed, length, vocab, span, context

    def __len__(self) -> int:
        return self.length

    def __getitem__(self, i: int) -> dict[str, list[int]]:
        if not 0 <= i < self.length:
            raise IndexError(i)
        ids, labels = example(self.seed, i, self.vocab, self.span, self.context)
        return {"input_ids": ids, "labels": labels}


def collate(rows: list[dict[str, list[int]]], pad_id: int) -> dict[str, Any]:
    """Right-pad a batch (pad id, label -100, attention 0)."""
    import torch

    width = max(len(r["input_ids"]) for r in rows)
    ids = torch.full((len(rows), width), pad_id, dtype=torch.long)
    labels = torch.full((len(rows), width), -100, dtype=torch.long)
    mask = torch.zeros((len(rows), width), dtype=torch.long)
    for i, r in enumerate(rows):
        n = len(r["input_ids"])
        ids[i, :n] = torch.tensor(r["input_ids"])
        labels[i, :n] = torch.tensor(r["labels"])
        mask[i, :n] = 1
    return {"input_ids": ids, "labels": labels, "attention_mask": mask}


FAR_CONTEXT = 1024  # the far evaluation: spans of a 1,024-token context, up to ~2,000 tokens back


def copy_accuracy(model: Any, vocab: int, span: tuple[int, int], examples: int = 128, batch: int = 32,
                  context: int = 0) -> float:
    """Greedy (argmax) accuracy on the copy targets of ``examples`` held-out sequences (teacher-forced)."""
    import torch

    data = CopyDataset(EVAL_SEED, examples, vocab, span, context)
    right = total = 0
    was_training = model.training
    model.eval()
    with torch.no_grad():
        for start in range(0, examples, batch):
            b = collate([data[i] for i in range(start, min(examples, start + batch))], pad_id=0)
            pred = model(input_ids=b["input_ids"], attention_mask=b["attention_mask"]).logits.argmax(-1)
            target = b["labels"][:, 1:]
            scored = target != -100
            right += int(((pred[:, :-1] == target) & scored).sum())
            total += int(scored.sum())
    model.train(was_training)
    return right / total


@quiet_unless_progress
def run(model_dir: str | Path, out_dir: str | Path, *, steps: int, lr: float, batch_size: int,
        span: tuple[int, int], context: int = 0, seed: int = 0, save_steps: int = 500,
        show_progress: bool = True) -> dict[str, Any]:
    """Copy-pretrain ``model_dir`` for ``steps`` steps into ``out_dir`` (checkpoints in ``out_dir.work``).

    Reports copy accuracy before and after on held-out sequences of the training kind, and ``far``: on spans of
    a 1,024-token context (what a tool name in a ~2,000-token conversation asks of the model).
    """
    import torch
    from transformers import AutoModelForCausalLM, AutoTokenizer, Trainer, TrainingArguments

    if steps < 1:
        raise ValueError(f"expected steps >= 1, got {steps}")
    out = Path(out_dir)
    check_out(out, OUT_KIND, inputs=(model_dir,))
    work = out.with_name(out.name + ".work")
    t0 = time.perf_counter()
    tokenizer = AutoTokenizer.from_pretrained(model_dir)
    model = AutoModelForCausalLM.from_pretrained(model_dir, **load_kwargs(torch.float32))
    vocab = len(tokenizer)
    data = CopyDataset(seed, steps * batch_size, vocab, span, context)
    far_span = (min(span[0], 8), min(span[1], 32))
    pad_id = tokenizer.pad_token_id if tokenizer.pad_token_id is not None else 0
    before = copy_accuracy(model, vocab, span, context=context)
    far_before = copy_accuracy(model, vocab, far_span, examples=32, batch=8, context=FAR_CONTEXT)
    args = TrainingArguments(**trainer_common(work, steps=steps, lr=lr, batch_size=batch_size, grad_accum=1,
                                              seed=seed, logging_steps=10, save_steps=save_steps),
                             weight_decay=0.0, max_grad_norm=1.0, remove_unused_columns=False,
                             logging_first_step=True)
    args.disable_tqdm = not show_progress
    trainer = Trainer(model=model, args=args, train_dataset=data,  # type: ignore[arg-type]
                      data_collator=lambda rows: collate(rows, pad_id))
    quiet_trainer(trainer)
    resumed_from = last_checkpoint(work)
    prior_s = elapsed_before(resumed_from)  # a resumed stage reports its whole cost
    trainer.add_callback(elapsed_callback(t0, prior_s))
    trainer.train(resume_from_checkpoint=resumed_from)
    after = copy_accuracy(model, vocab, span, context=context)  # trained in place
    far_after = copy_accuracy(model, vocab, far_span, examples=32, batch=8, context=FAR_CONTEXT)
    history = log_history(trainer)
    losses = [r["loss"] for r in history if "loss" in r]
    stats = {
        "stage": "copy", "model": str(model_dir), "steps": trainer.state.global_step, "lr": lr,
        "batch_size": batch_size, "span": list(span), "context": context, "seed": seed, "vocab": vocab,
        "copy_accuracy_before": before, "copy_accuracy_after": after,
        "far_copy_accuracy_before": far_before, "far_copy_accuracy_after": far_after,
        "loss_start": losses[0] if losses else None, "loss_end": losses[-1] if losses else None,
        "resumed_from": resumed_from, "wall_s": prior_s + time.perf_counter() - t0, "history": history,
    }
    with atomic_dir(out, OUT_KIND, inputs=(model_dir,)) as tmp:
        model.save_pretrained(tmp)
        tokenizer.save_pretrained(tmp)
        write_model_card(tmp, "livesim tiny base, copy-pretrained", [
            f"`{model_dir}` trained {stats['steps']} steps on seeded copy sequences (spans of {span[0]}-{span[1]} "
            f"tokens, {'each repeated at once' if not context else f'copied from a {context}-token context'}; loss on "
            f"the copies) with `transformers.Trainer`.",
            f"Copy accuracy on 128 held-out sequences: {before:.3f} -> {after:.3f}; on spans of a {FAR_CONTEXT}-token "
            f"context: {far_before:.3f} -> {far_after:.3f}.",
        ])
        write_text(tmp / OUT_MARKER, json.dumps(stats, indent=2, default=str) + "\n")
    return stats
