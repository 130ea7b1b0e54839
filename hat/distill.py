"""Stage 2, general on-policy distillation: the student samples on general prompts, pulled toward the base.

TRL's ``DistillationTrainer`` (generalised JSD; ``beta=1.0`` is reverse KL, the default here): the SFT model
generates completions for general instruction prompts (``livesim.hat.instructions``, family
``"hat-distill"``, or a JSONL of prompts), and its token distribution on them is pulled toward the pre-SFT
base model's. It restores general behaviour that SFT on one domain erodes, without livestream data.
"""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from livesim.hat import instructions
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
from livesim.hat.instructions import DISTILL_SEED0, FAMILY
from livesim.models.device import load_kwargs
from livesim.stream.paths import write_text

OUT_MARKER = "distill_stats.json"
OUT_KIND = "model folder written by `livesim hat distill`"


class DistillStageConfig(BaseModel):
    """The distillation stage's settings (student and teacher paths are passed to :func:`run`)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    steps: int = Field(50, ge=1, description="Optimizer steps.")
    lr: float = Field(1e-5, gt=0, description="Peak learning rate.")
    batch_size: int = Field(4, ge=1, description="Prompts per step.")
    grad_accum: int = Field(1, ge=1, description="Gradient accumulation steps.")
    beta: float = Field(1.0, ge=0, le=1, description="JSD interpolation: 1.0 reverse KL, 0.0 forward KL.")
    temperature: float = Field(1.0, gt=0, description="Sampling and loss temperature.")
    max_completion_length: int = Field(64, ge=1, description="Tokens generated per prompt.")
    prompts: int = Field(256, ge=1, description="Generated prompts (when no prompts_path).")
    prompt_seed: int = Field(DISTILL_SEED0, ge=0, description="Seed of the prompt generator (family hat-distill).")
    prompts_path: str | None = Field(None, description="JSONL of {'prompt': ...} instead of the generator.")
    seed: int = Field(0, ge=0, description="Trainer seed.")
    save_steps: int = Field(25, ge=1, description="Checkpoint every N steps.")


def prompt_rows(cfg: DistillStageConfig) -> list[dict[str, Any]]:
    if cfg.prompts_path:
        return instructions.load_jsonl(cfg.prompts_path)
    return instructions.generate(cfg.prompts, seed=cfg.prompt_seed, family=FAMILY)


@quiet_unless_progress
def run(cfg: DistillStageConfig, student_dir: str | Path, teacher_dir: str | Path, out_dir: str | Path,
        work_dir: str | Path | None = None, show_progress: bool = True,
        callbacks: list[Any] | None = None) -> dict[str, Any]:
    """Distil ``teacher_dir`` (the pre-SFT base) into ``student_dir`` on general prompts; save to ``out_dir``."""
    import torch
    from datasets import Dataset
    from transformers import AutoModelForCausalLM, AutoTokenizer
    from trl import DistillationConfig, DistillationTrainer

    out = Path(out_dir)
    check_out(out, OUT_KIND, inputs=(student_dir, teacher_dir))
    work = Path(work_dir) if work_dir else out.with_name(out.name + ".work")
    t0 = time.perf_counter()
    tokenizer = AutoTokenizer.from_pretrained(student_dir)
    rows = prompt_rows(cfg)
    dataset = Dataset.from_list([{"prompt": r["prompt"]} for r in rows])
    student = AutoModelForCausalLM.from_pretrained(student_dir, **load_kwargs(torch.float32))
    teacher = AutoModelForCausalLM.from_pretrained(teacher_dir, **load_kwargs(torch.float32))
    common = trainer_common(work, steps=cfg.steps, lr=cfg.lr, batch_size=cfg.batch_size, grad_accum=cfg.grad_accum,
                            seed=cfg.seed, save_steps=cfg.save_steps)
    args = DistillationConfig(**common, beta=cfg.beta, temperature=cfg.temperature,
                              max_completion_length=cfg.max_completion_length, top_k=0, top_p=1.0,
                              chat_template_kwargs={"enable_thinking": False})
    args.disable_tqdm = not show_progress
    trainer = DistillationTrainer(model=student, teacher_model=teacher, args=args, train_dataset=dataset,
                                  processing_class=tokenizer, callbacks=callbacks)
    quiet_trainer(trainer)
    resumed_from = last_checkpoint(work)
    prior_s = elapsed_before(resumed_from)  # a resumed stage reports its whole cost
    trainer.add_callback(elapsed_callback(t0, prior_s))
    trainer.train(resume_from_checkpoint=resumed_from)
    history = log_history(trainer)
    losses = [r["loss"] for r in history if "loss" in r]
    stats = {
        "stage": "distill", "config": cfg.model_dump(), "student": str(student_dir), "teacher": str(teacher_dir),
        "prompts": len(rows), "prompt_family": FAMILY if not cfg.prompts_path else cfg.prompts_path,
        "loss_start": losses[0] if losses else None, "loss_end": losses[-1] if losses else None,
        "steps": trainer.state.global_step, "resumed_from": resumed_from,
        "wall_s": prior_s + time.perf_counter() - t0, "history": history,
    }
    if trainer.accelerator.is_main_process:  # under accelerate launch only rank 0 writes
        with atomic_dir(out, OUT_KIND, inputs=(student_dir, teacher_dir)) as tmp:
            model_out: Any = trainer.model
            model_out.save_pretrained(tmp)
            tokenizer.save_pretrained(tmp)
            write_model_card(tmp, "livesim distilled model", [
                f"On-policy distillation (TRL `DistillationTrainer`, beta={cfg.beta}: "
                f"{'reverse KL' if cfg.beta == 1.0 else 'generalised JSD'}) of `{student_dir}` toward `{teacher_dir}` "
                f"on {len(rows)} general instruction prompts ({stats['prompt_family']}), {stats['steps']} steps, "
                f"loss {stats['loss_start']} -> {stats['loss_end']}.",
            ])
            write_text(tmp / OUT_MARKER, json.dumps(stats, indent=2, default=str) + "\n")
    trainer.accelerator.wait_for_everyone()
    return stats
