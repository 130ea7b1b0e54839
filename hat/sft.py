"""Stage 1, (HSA-)SFT: TRL ``SFTTrainer`` on collected conversations, assistant-only loss, no silent truncation.

``max_length`` comes from the data: every conversation is rendered with the training chat template (the one
with ``{% generation %}`` markers that TRL would use) and measured; ``max_length`` is the longest, or, with
``max_length_cap``, conversations longer than the cap are *dropped and reported* (``sft_stats.json``) instead of
being cut. The output is a plain Hugging Face model directory (LoRA adapters are merged) with a model card;
its tokenizer carries the training chat template, so inference renders turns exactly as training did.

With LoRA, the embedding rows of the tokenizer's added non-special tokens (the `<tool_call>` / `</tool_call>` the
zoo adds to SmolLM2, tied to the output head) are trained too (``train_added_tokens``), at ``lr`` x
``added_tokens_lr_scale`` in an optimizer group of their own: a gradient mask keeps every other row fixed, and
each checkpoint stores the rows (``added_token_rows.pt``) so a resumed run keeps them.
LoRA alone cannot change those rows, and then the model cannot learn to emit the token: measured on SmolLM2-135M,
24 LoRA steps left `<tool_call>` at a negative log-likelihood of 3.1 where the target asked for it, and greedy
decoding never produced it. peft's own ``trainable_token_indices`` is not used: TRL's SFTTrainer scores tokens
with ``lm_head.weight`` directly (its fused LM head), which would skip the trained rows of the output side.
"""

from __future__ import annotations

import json
import os
import time
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from livesim.hat import collect
from livesim.hat.common import (
    atomic_dir,
    cached_eval_loss,
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

OUT_MARKER = "sft_stats.json"
OUT_KIND = "model folder written by `livesim hat sft`"


class SFTStageConfig(BaseModel):
    """The SFT stage's own settings (model and data paths are passed to :func:`run`)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    steps: int = Field(200, ge=1, description="Optimizer steps (max_steps); ignored when `epochs` is set.")
    epochs: float | None = Field(None, gt=0, description="Passes over the training conversations instead of a step "
                                 "count (the steps then follow from the data, batch and processes). In the cache key "
                                 "when set.")
    lr: float = Field(1e-3, gt=0, description="Peak learning rate (cosine schedule, 5% warmup).")
    batch_size: int = Field(4, ge=1, description="Per-device batch size.")
    grad_accum: int = Field(1, ge=1, description="Gradient accumulation steps.")
    seed: int = Field(0, ge=0, description="Trainer seed (init of LoRA, data order).")
    lora: bool = Field(False, description="Train LoRA adapters (peft) instead of all weights; merged on save.")
    lora_r: int = Field(16, ge=1, description="LoRA rank.")
    lora_alpha: int = Field(32, ge=1, description="LoRA alpha.")
    train_added_tokens: bool = Field(True, description="With LoRA: also train the embedding rows (tied to the "
                                     "output head) of the tokenizer's added non-special tokens (e.g. the "
                                     "`<tool_call>` tokens the zoo adds to SmolLM2), every other row held by a "
                                     "gradient mask. LoRA alone leaves those rows as initialised, so the model cannot "
                                     "learn to emit them. No effect on full fine-tuning (and not in the cache key "
                                     "then).")
    added_tokens_lr_scale: float = Field(20.0, gt=0, description="The added tokens' rows learn at lr x this (no "
                                         "weight decay): a row starts untrained and learns only where its token "
                                         "occurs (at lr, 4 SmolLM2 steps moved `<tool_call>`'s NLL from 8.0 to "
                                         "6.9 only).")
    max_length_cap: int | None = Field(None, ge=16, description="Drop (and report) conversations longer than this.")
    weight_decay: float = Field(0.0, ge=0, description="AdamW weight decay.")
    save_steps: int = Field(50, ge=1, description="Checkpoint every N steps (a killed stage resumes from the last).")
    tokenize_procs: int | None = Field(None, ge=1, description="Processes TRL tokenizes the training data with "
                                       "(`dataset_num_proc`); None: one per two CPUs, up to 8, from 512 conversations "
                                       "on (one below). The same tokens either way, so not part of the cache key.")
    val_examples: int | None = Field(None, ge=1, description="Validation conversations scored before and after "
                                     "training (None: the whole split); it cannot change the weights, so it is not "
                                     "part of the stage's cache key.")
    lm_head: Literal["fused", "plain"] = Field(
        "fused", description="'fused': TRL's chunked LM head (the logits never materialised; logs entropy and token "
        "accuracy). 'plain': the model's own cross-entropy, logits computed only at the labelled (assistant) "
        "positions, no extra metrics: same loss, 1.3-1.6x faster a step for the tiny model on a CPU (measured; TRL's "
        "CPU fallback folds each tile in torch ops). In the cache key only when 'plain'.")
    assistant_only: bool = Field(True, description="Loss on assistant tokens only (SFT). False: on every token "
                                                   "(the domain pretraining of the `tiny` base).")
    padding_free: bool = Field(False, description="TRL's padding-free batches: a batch's conversations flattened into "
                               "one row, position_ids marking where each starts, no pad token computed. Needs an "
                               "attention kernel that reads position_ids: flash-attention (varlen) when installed; "
                               "under SDPA transformers builds a block-diagonal mask over the flattened row (correct, "
                               "but quadratic in the batch's tokens). In the cache key only when set.")
    group_by_length: bool = Field(False, description="Length-grouped batches (transformers' LengthGroupedSampler over "
                                  "batch_size x grad_accum): conversations of similar length share a batch, so padded "
                                  "batches carry little padding. Changes the order: in the cache key when set.")
    attn_implementation: str | None = Field(None, description="The model's attention kernel ('sdpa', 'eager', "
                                            "'flash_attention_2', ...); None: the model's default (SDPA). "
                                            "In the cache key when set.")


def training_template(tokenizer: Any) -> str:
    """The chat template TRL trains with: the tokenizer's own if it has generation markers, else TRL's patch."""
    from trl.chat_template_utils import get_training_chat_template

    return get_training_chat_template(tokenizer) or tokenizer.chat_template


ROWS_FILE = "added_token_rows.pt"


def added_token_ids(tokenizer: Any) -> list[int]:
    """Ids of the tokenizer's added tokens that are not special (special ones are the chat markers a base model
    was trained with; added ones, such as SmolLM2's `<tool_call>`, start untrained).
    """
    return sorted(i for i, t in tokenizer.added_tokens_decoder.items() if not t.special)


def cache_key_data(cfg: SFTStageConfig) -> dict[str, Any]:
    """The fields of ``cfg`` that can change the trained weights (what the stage cache is keyed on)."""
    exclude = {"val_examples", "tokenize_procs"}
    if cfg.lm_head == "fused":  # the default before the field existed: keys of earlier stages stay valid
        exclude |= {"lm_head"}
    if not (cfg.lora and cfg.train_added_tokens):
        exclude |= {"added_tokens_lr_scale"}
    if not cfg.lora:
        exclude |= {"train_added_tokens"}
    exclude |= {k for k in ("padding_free", "group_by_length", "attn_implementation", "epochs")
                if not getattr(cfg, k)}
    if cfg.epochs:
        exclude |= {"steps"}
    return cfg.model_dump(exclude=exclude)


def measure_lengths(dataset: Any, tokenizer: Any, template: str) -> list[int]:
    """Tokens of each conversation as SFTTrainer will tokenize it (same template, tools decoded; encoded in one
    batch, `collect.token_lengths`).
    """
    return collect.token_lengths(dataset.to_list(), tokenizer, chat_template=template)


def tokenize_procs(cfg: SFTStageConfig, n_conversations: int) -> int | None:
    """`dataset_num_proc` for TRL: `cfg.tokenize_procs`, else one process per two CPUs (up to 8) on 512 or more
    conversations (TRL tokenizes them one at a time: ~5 ms a SmolLM2 conversation), None (in process) below.
    """
    if cfg.tokenize_procs is not None:
        return cfg.tokenize_procs if cfg.tokenize_procs > 1 else None
    procs = min(8, (os.cpu_count() or 1) // 2)
    return procs if n_conversations >= 512 and procs > 1 else None


@quiet_unless_progress
def run(cfg: SFTStageConfig, model_dir: str | Path, data_dir: str | Path, out_dir: str | Path,
        work_dir: str | Path | None = None, show_progress: bool = True,
        callbacks: list[Any] | None = None) -> dict[str, Any]:
    """Fine-tune ``model_dir`` on the collected dataset at ``data_dir``; write the model to ``out_dir``.

    ``work_dir`` holds trainer checkpoints (default ``out_dir`` + ``.work``); a killed run resumes there.
    Returns the stage's stats (also in ``out_dir/sft_stats.json``).
    """
    import torch
    from transformers import AutoModelForCausalLM, AutoTokenizer
    from trl import SFTConfig, SFTTrainer

    out = Path(out_dir)
    check_out(out, OUT_KIND, inputs=(model_dir, data_dir))
    work = Path(work_dir) if work_dir else out.with_name(out.name + ".work")
    t0 = time.perf_counter()
    tokenizer = AutoTokenizer.from_pretrained(model_dir)
    template = training_template(tokenizer)
    tokenizer.chat_template = template  # saved with the model: inference renders as training did
    data = collect.load(data_dir)
    keep_cols = ["messages", "tools"]
    train = data["train"].select_columns(keep_cols)
    val = data["validation"].select_columns(keep_cols) if len(data["validation"]) else None
    if val is not None and cfg.val_examples is not None:
        val = val.select(range(min(len(val), cfg.val_examples)))
    lengths = measure_lengths(train, tokenizer, template)
    too_long = [i for i, n in enumerate(lengths) if cfg.max_length_cap and n > cfg.max_length_cap]
    if too_long:
        train = train.select([i for i in range(len(train)) if i not in set(too_long)])
    if len(train) == 0:
        raise RuntimeError(f"every training conversation is longer than max_length_cap={cfg.max_length_cap}")
    val_lengths = measure_lengths(val, tokenizer, template) if val is not None else []
    if val is not None and cfg.max_length_cap:
        val = val.select([i for i, n in enumerate(val_lengths) if n <= cfg.max_length_cap])
    kept_lengths = [n for i, n in enumerate(lengths) if i not in set(too_long)]
    max_length = max(kept_lengths + [n for n in val_lengths if not cfg.max_length_cap or n <= cfg.max_length_cap])

    extra = {"attn_implementation": cfg.attn_implementation} if cfg.attn_implementation else {}
    model = AutoModelForCausalLM.from_pretrained(model_dir, **load_kwargs(torch.float32), **extra)
    peft_config = None
    if cfg.lora:
        from peft import LoraConfig

        peft_config = LoraConfig(r=cfg.lora_r, lora_alpha=cfg.lora_alpha, lora_dropout=0.0, task_type="CAUSAL_LM",
                                 target_modules="all-linear")
    args = SFTConfig(
        **trainer_common(work, steps=cfg.steps, lr=cfg.lr, batch_size=cfg.batch_size, grad_accum=cfg.grad_accum,
                         seed=cfg.seed, save_steps=cfg.save_steps),
        # padding-free: TRL refuses a max_length it would not enforce; nothing is cut either way (checked below)
        max_length=None if cfg.padding_free else max_length, assistant_only_loss=cfg.assistant_only, packing=False,
        padding_free=cfg.padding_free,
        train_sampling_strategy="group_by_length" if cfg.group_by_length else "random",
        weight_decay=cfg.weight_decay, eval_strategy="no", per_device_eval_batch_size=cfg.batch_size,
        dataset_num_proc=tokenize_procs(cfg, len(train)),
    )
    if cfg.epochs:
        args.max_steps, args.num_train_epochs = -1, cfg.epochs
    args.disable_tqdm = not show_progress
    new_rows = added_token_ids(tokenizer) if cfg.lora and cfg.train_added_tokens else []
    base_cls = _with_plain_loss(SFTTrainer) if cfg.lm_head == "plain" else SFTTrainer
    trainer_cls = _with_rows_group(base_cls, cfg.added_tokens_lr_scale) if new_rows else base_cls
    trainer = trainer_cls(model=model, args=args, train_dataset=train, eval_dataset=val, processing_class=tokenizer,
                          peft_config=peft_config, callbacks=callbacks)
    quiet_trainer(trainer)
    check_no_truncation(trainer.train_dataset, max_length)
    counter = TokenCounter(trainer.data_collator)
    trainer.data_collator = counter
    trainer.add_callback(counter.callback())
    weight = rows_before = None
    if new_rows:
        weight = train_rows(trainer.model, new_rows)
        rows_before = weight[new_rows].detach().clone()
        trainer.add_callback(_SaveRows(weight, new_rows))
    resumed_from = last_checkpoint(work)
    prior_s = elapsed_before(resumed_from)
    trainer.add_callback(elapsed_callback(t0, prior_s))
    eval_before = cached_eval_loss(trainer, work, resumed=resumed_from is not None)  # a resume does not redo it
    _rewrap_after_eval(trainer)
    if new_rows and resumed_from:
        _load_rows(trainer.model, new_rows, Path(resumed_from))
    trainer.train(resume_from_checkpoint=resumed_from)
    if resumed_from:  # count what this process trained, not the skipped batches (tokens/s of the resumed part)
        done = trainer.state.global_step - int(Path(resumed_from).name.rsplit("-", 1)[-1])
        counter.trained_only(done * cfg.grad_accum)
    eval_after = trainer.evaluate()["eval_loss"] if val is not None and len(val) else None
    history = log_history(trainer)
    losses = [r["loss"] for r in history if "loss" in r]
    final: Any = trainer.model
    if cfg.lora:
        final = final.merge_and_unload()
    stats = {
        "stage": "sft", "config": cfg.model_dump(), "model": str(model_dir), "data": str(data_dir),
        "examples": len(train), "val_examples": len(val) if val is not None else 0, "max_length": max_length,
        "dropped_too_long": len(too_long),
        "dropped_lengths": [lengths[i] for i in too_long], "lengths_mean": sum(kept_lengths) / len(kept_lengths),
        "loss_start": losses[0] if losses else None, "loss_end": losses[-1] if losses else None,
        "eval_loss_before": eval_before, "eval_loss_after": eval_after, "steps": trainer.state.global_step,
        "processes": trainer.accelerator.num_processes, "device": str(trainer.args.device),
        "bf16": bool(trainer.args.bf16), "padding_free": cfg.padding_free, "group_by_length": cfg.group_by_length,
        "tokenize_procs": args.dataset_num_proc,
        **counter.stats(next((r["train_runtime"] for r in history if "train_runtime" in r), None)),
        "resumed_from": resumed_from, "wall_s": prior_s + time.perf_counter() - t0,
        "wall_s_this_run": time.perf_counter() - t0, "history": history,
        "trained_token_rows": [tokenizer.convert_ids_to_tokens(i) for i in new_rows],
        "token_rows_moved": (float((weight[new_rows].detach() - rows_before).norm(dim=-1).max())
                             if weight is not None else None),
    }
    if trainer.accelerator.is_main_process:  # under accelerate launch only rank 0 writes
        with atomic_dir(out, OUT_KIND, inputs=(model_dir, data_dir)) as tmp:
            final.save_pretrained(tmp)
            tokenizer.save_pretrained(tmp)
            write_model_card(tmp, "livesim SFT model", [
                f"Fine-tuned from `{model_dir}` with TRL `SFTTrainer` (assistant-only loss"
                f"{', LoRA merged' if cfg.lora else ', full fine-tuning'}) on the livesim dataset `{data_dir}`.",
                f"{stats['examples']} conversations, max_length {max_length} (measured; {len(too_long)} dropped as too "
                f"long), {stats['steps']} steps, loss {stats['loss_start']} -> {stats['loss_end']}, validation loss "
                f"{eval_before} -> {eval_after}.",
                "Load with `make_agent('transformers', model=PATH)`; serve with `vllm serve PATH "
                "--enable-auto-tool-choice --tool-call-parser hermes`.",
            ])
            write_text(tmp / OUT_MARKER, json.dumps(stats, indent=2, default=str) + "\n")
    trainer.accelerator.wait_for_everyone()
    return stats


class TokenCounter:
    """Wraps the trainer's collator and counts, while training runs, the conversation tokens that go through the
    model (``trained_tokens``: attention-mask ones, or every position of a padding-free row) and the padded
    positions computed besides them. Per process: under DDP multiply by the processes for the run's total.
    """

    def __init__(self, collator: Any) -> None:
        self.collator, self.active = collator, False
        self.calls: list[tuple[int, int]] = []  # (tokens, positions) of each collated micro-batch, in order

    def __call__(self, features: list[Any]) -> Any:
        batch = self.collator(features)
        if self.active:
            ids = batch["input_ids"]
            mask = batch.get("attention_mask")
            self.calls.append((int(mask.sum()) if mask is not None else int(ids.numel()), int(ids.numel())))
        return batch

    @property
    def tokens(self) -> int:
        return sum(t for t, _ in self.calls)

    @property
    def positions(self) -> int:
        return sum(p for _, p in self.calls)

    def trained_only(self, micro_batches: int) -> None:
        """Keep the last ``micro_batches`` collated batches: a run resumed from a checkpoint collates the batches of
        the steps it skips too (the data loader is iterated up to where the checkpoint was), and trains none of them.
        """
        self.calls = self.calls[-micro_batches:] if micro_batches > 0 else []

    def callback(self) -> Any:
        from transformers import TrainerCallback

        counter = self

        class Toggle(TrainerCallback):  # type: ignore[misc]
            def on_train_begin(self, *args: Any, **kwargs: Any) -> None:
                counter.active = True

            def on_train_end(self, *args: Any, **kwargs: Any) -> None:
                counter.active = False

        return Toggle()

    def stats(self, train_runtime: float | None) -> dict[str, Any]:
        return {"trained_tokens": self.tokens, "padded_positions": self.positions - self.tokens,
                "padding_share": (self.positions - self.tokens) / self.positions if self.positions else None,
                "train_runtime_s": train_runtime,
                "tokens_per_s": self.tokens / train_runtime if train_runtime else None}


def _rewrap_after_eval(trainer: Any) -> None:
    """Let ``train()`` wrap the model for data parallelism after an ``evaluate()``.

    ``evaluate()`` before ``train()`` prepares the model in evaluation mode (no DDP wrapper) and accelerate marks it
    prepared, so ``train()`` skips the wrapper and the processes of a multi-process launch never synchronise their
    gradients: each trains on its own shard (measured with transformers 5 / accelerate 1: after one step the two
    ranks' weights differed and the logged gradient norm was not the single-process one). Undoing the mark restores
    DDP; a single process is left as it is.
    """
    model, acc = trainer.model, trainer.accelerator
    if acc.num_processes > 1 and getattr(model, "_is_accelerate_prepared", False):
        model._is_accelerate_prepared = False
        acc._models = [m for m in acc._models if m is not model]
        trainer.model_wrapped = model


def train_rows(model: Any, ids: list[int]) -> Any:
    """Make rows ``ids`` of ``model``'s input embedding (and so of a tied output head) trainable, every other row
    fixed (its gradient is masked to zero). Returns the embedding weight.
    """
    import torch

    weight = model.get_input_embeddings().weight
    weight.requires_grad_(True)
    mask = torch.zeros(weight.shape[0], 1, dtype=weight.dtype, device=weight.device)
    mask[ids] = 1.0
    weight.register_hook(lambda grad: grad * mask)
    return weight


def _with_plain_loss(trainer_cls: Any) -> Any:
    """``trainer_cls`` whose loss is the model's own cross-entropy (labels -100 ignored, normalised by the step's
    label tokens across micro-batches, as TRL's): the same value as TRL's fused LM head, without its metrics.

    Logits are computed only where a label is (``logits_to_keep`` as a boolean mask, transformers >= 5): with
    assistant-only loss that is a small share of a conversation's positions, so the LM head's matmul, its backward
    and the logits' memory shrink by that share (a 49k-token vocabulary no longer needs ~250 MB of logits for a
    1,300-token conversation). Models whose ``forward`` takes no ``logits_to_keep`` get full logits and their own
    loss.
    """
    import inspect

    def takes_mask(model: Any) -> bool:
        inner = model.get_base_model() if hasattr(model, "get_base_model") else model  # peft
        return "logits_to_keep" in inspect.signature(inner.forward).parameters

    class PlainLossSFTTrainer(trainer_cls):  # type: ignore[misc, valid-type]
        _takes_mask: bool | None = None

        def compute_loss(self, model: Any, inputs: dict[str, Any], return_outputs: bool = False,
                         num_items_in_batch: Any = None) -> Any:
            if self._takes_mask is None:
                self._takes_mask = takes_mask(self.accelerator.unwrap_model(model))
            if self._takes_mask and "labels" in inputs:
                loss, out = selected_loss(model, inputs, num_items_in_batch)
            else:
                out = model(**{**inputs, "use_cache": False}, num_items_in_batch=num_items_in_batch)
                loss = out.loss
            if self.args.average_tokens_across_devices and num_items_in_batch is not None:
                # as Trainer.compute_loss: the loss is normalised by the tokens of every process, and DDP averages
                # the gradients over processes; without this a 2-process run trains (and logs) half the loss
                loss = loss * self.accelerator.num_processes
            return (loss, out) if return_outputs else loss

    return PlainLossSFTTrainer


def selected_loss(model: Any, inputs: dict[str, Any], num_items_in_batch: Any) -> tuple[Any, Any]:
    """The causal-LM loss of transformers (shifted labels, fp32 logits, sum / num_items_in_batch or the mean),
    with logits at the labelled positions only. Called through the (DDP/peft) wrapper's forward.
    """
    import torch
    import torch.nn.functional as F

    labels = inputs["labels"]
    targets = labels[:, 1:]
    keep = torch.zeros_like(labels, dtype=torch.bool)
    keep[:, :-1] = targets != -100
    rest = {k: v for k, v in inputs.items() if k != "labels"}
    out = model(**rest, use_cache=False, logits_to_keep=keep)
    logits = out.logits.float()  # (label tokens, vocab)
    picked = targets[keep[:, :-1]].to(logits.device)
    if num_items_in_batch is None:
        loss = F.cross_entropy(logits, picked) if picked.numel() else logits.sum() * 0.0
    else:
        if torch.is_tensor(num_items_in_batch):
            num_items_in_batch = num_items_in_batch.to(logits.device)
        loss = F.cross_entropy(logits, picked, reduction="sum") / num_items_in_batch
    return loss, out


def _with_rows_group(trainer_cls: Any, scale: float) -> Any:
    """``trainer_cls`` whose optimizer puts the input embedding (when it trains) in a group of its own, at
    learning rate x ``scale`` and no weight decay (the scheduler then scales that group like the others).
    """

    class RowsTrainer(trainer_cls):  # type: ignore[misc, valid-type]
        def create_optimizer(self, model: Any = None) -> Any:
            fresh = self.optimizer is None
            optimizer = super().create_optimizer(model)
            weight = (self.model if model is None else model).get_input_embeddings().weight
            if fresh and weight.requires_grad:
                for group in optimizer.param_groups:
                    group["params"] = [p for p in group["params"] if p is not weight]
                optimizer.add_param_group({"params": [weight], "lr": self.args.learning_rate * scale,
                                           "weight_decay": 0.0})
            return optimizer

    return RowsTrainer


def _load_rows(model: Any, ids: list[int], checkpoint: Path) -> None:
    import torch

    path = checkpoint / ROWS_FILE
    if not path.is_file():
        raise RuntimeError(f"cannot resume from {checkpoint}: it has no {ROWS_FILE} (the trained rows of the added "
                           f"tokens); delete the stage's .work directory to retrain from the start")
    saved = torch.load(path, map_location="cpu")
    if list(saved["ids"]) != list(ids):
        raise RuntimeError(f"{path} holds rows {saved['ids']}, this tokenizer's added tokens are {ids}")
    weight = model.get_input_embeddings().weight
    with torch.no_grad():
        weight[ids] = saved["rows"].to(weight.device, weight.dtype)


def _SaveRows(weight: Any, ids: list[int]) -> Any:
    """A TrainerCallback that stores the added tokens' rows in each checkpoint (the adapter files do not)."""
    import torch
    from transformers import TrainerCallback

    class SaveRows(TrainerCallback):  # type: ignore[misc]
        def on_save(self, args: Any, state: Any, control: Any, **kwargs: Any) -> None:
            checkpoint = Path(args.output_dir) / f"checkpoint-{state.global_step}"
            if checkpoint.is_dir() and state.is_world_process_zero:
                torch.save({"ids": list(ids), "rows": weight[ids].detach().cpu()}, checkpoint / ROWS_FILE)

    return SaveRows()


def check_no_truncation(dataset: Any, max_length: int) -> None:
    """Fail loudly if any tokenized example would be cut or has no trainable (assistant) token."""
    for i, ex in enumerate(dataset):
        n = len(ex["input_ids"])
        if n > max_length:
            raise RuntimeError(f"example {i} has {n} tokens > max_length {max_length}: it would be truncated")
        mask = ex.get("assistant_masks")
        if mask is None and ex.get("labels") is not None:
            mask = [int(t != -100) for t in ex["labels"]]
        if mask is not None and 1 not in mask:
            raise RuntimeError(f"example {i} has no assistant tokens to train on")
