"""Shared helpers of the training stages: atomic output folders, progress bars, the stage cache, CPU defaults."""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from livesim.models.device import select_device, trainer_precision
from livesim.stream.paths import check_output_dir, claim_dir, publish_dir, write_text


def cache_root() -> Path:
    """``$LIVESIM_CACHE`` or ``~/.cache/livesim``."""
    root = os.environ.get("LIVESIM_CACHE")
    return Path(root).expanduser() if root else Path.home() / ".cache" / "livesim"


def stages_dir() -> Path:
    """Where stage outputs are cached by content key: ``<cache>/stages/<key>/``."""
    return cache_root() / "stages"


def content_key(*parts: Any) -> str:
    """A short hash of JSON-serialisable parts (configs, input keys)."""
    return hashlib.sha256(json.dumps(parts, sort_keys=True, default=str).encode()).hexdigest()[:16]


def check_out(out: Path, kind: str, inputs: tuple[str | Path, ...] = ()) -> None:
    """Refuse (`PathProblem`), before a stage runs, an ``--out`` it must not replace (see `atomic_dir`)."""
    check_output_dir(out, inputs=inputs, kind=kind)


def claim_out(out: Path, kind: str, inputs: tuple[str | Path, ...] = ()) -> contextlib.AbstractContextManager[Path]:
    """Hold ``out`` for a whole stage (`livesim.stream.paths.claim_dir`): refused before any work if the stage must
    not replace it, if its parent is read-only, or while another run holds it; `atomic_dir` inside publishes.
    """
    return claim_dir(out, inputs=inputs, kind=kind)


@contextlib.contextmanager
def atomic_dir(out: Path, kind: str, inputs: tuple[str | Path, ...] = ()) -> Iterator[Path]:
    """Yield a temp folder beside ``out``; on success it replaces ``out`` in one rename (readers never see half).

    ``out`` must be missing, empty or an earlier output of the stage (its marker names ``kind``), and neither one
    of ``inputs`` nor a folder holding one; anything else is refused (`livesim.stream.paths.publish_dir`: locked,
    a kill leaves the old folder or the new one).
    """
    with publish_dir(out, inputs=inputs, kind=kind) as tmp:
        yield tmp


def progress(total: int, desc: str, disable: bool = False) -> Any:
    """A tqdm bar (tqdm ships with datasets/transformers); a no-op object when tqdm is missing."""
    try:
        from tqdm.auto import tqdm
    except ImportError:  # pragma: no cover
        class _Null:
            def update(self, n: int = 1) -> None: ...
            def close(self) -> None: ...
            def set_postfix(self, **kw: Any) -> None: ...
        return _Null()
    return tqdm(total=total, desc=desc, disable=disable, leave=False)


def process_state() -> Any:
    """Accelerate's ``PartialState`` under a multi-process launch (``WORLD_SIZE`` > 1, as torchrun/accelerate set it),
    else None (one process: nothing to coordinate).
    """
    if int(os.environ.get("WORLD_SIZE", "1")) <= 1:
        return None
    from accelerate import PartialState

    return PartialState(cpu=select_device().on_cpu)


@contextlib.contextmanager
def main_first(state: Any) -> Iterator[None]:
    """Run the body on the main process first, then on the others (which then find its output in the cache)."""
    if state is None:
        yield
        return
    with state.main_process_first():
        yield


def trainer_common(output_dir: Path, *, steps: int, lr: float, batch_size: int, grad_accum: int, seed: int,
                   logging_steps: int = 1, save_steps: int | None = None) -> dict[str, Any]:
    """TrainingArguments shared by the stages: CUDA with bf16 when present, fp32 on a CPU (`select_device`), seeded,
    logs every step, no hub, no wandb.
    """
    return dict(
        output_dir=str(output_dir), max_steps=steps, learning_rate=lr, per_device_train_batch_size=batch_size,
        gradient_accumulation_steps=grad_accum, seed=seed, data_seed=seed, logging_steps=logging_steps,
        save_strategy="steps" if save_steps else "no", save_steps=save_steps or 500, save_total_limit=1,
        report_to=[], **trainer_precision(), dataloader_num_workers=0,
        disable_tqdm=False, gradient_checkpointing=False, lr_scheduler_type="cosine", warmup_steps=0.05,
    )


def last_checkpoint(output_dir: Path) -> str | None:
    """The newest ``checkpoint-N`` folder in a trainer's output dir (to resume a killed stage), or None."""
    if not output_dir.is_dir():
        return None
    ckpts = sorted((p for p in output_dir.glob("checkpoint-*") if p.name.split("-")[-1].isdigit()),
                   key=lambda p: int(p.name.split("-")[-1]))
    return str(ckpts[-1]) if ckpts else None


def log_history(trainer: Any) -> list[dict[str, Any]]:
    """The trainer's logged rows (loss, reward, ...), JSON-clean."""
    rows = []
    for row in trainer.state.log_history:
        rows.append({k: (float(v) if isinstance(v, (int, float)) else v) for k, v in row.items()})
    return rows


def write_model_card(model_dir: Path, title: str, body: list[str]) -> None:
    text = "\n".join(["---", "library_name: transformers", "tags: [livesim, trl]", "license: apache-2.0", "---",
                      "", f"# {title}", "", *body, ""])
    write_text(model_dir / "README.md", text)
