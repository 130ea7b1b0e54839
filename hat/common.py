"""Shared helpers of the training stages: atomic output folders, progress bars, the stage cache, CPU defaults."""

from __future__ import annotations

import contextlib
import functools
import hashlib
import inspect
import json
import os
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any, TypeVar

from livesim.models.device import select_device, trainer_precision
from livesim.stream.paths import append_text, check_output_dir, claim_dir, publish_dir, read_text, write_text


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


# ---------------------------------------------------------------------------------------------- quiet output
_QUIET_DEPTH = [0]  # nested quiet_libraries: the outermost one decides where warnings go


@contextlib.contextmanager
def quiet_libraries(log_path: Path | None = None) -> Iterator[None]:
    """Library chatter off the terminal while stages run, restored after.

    transformers' and datasets' log messages and their load/save progress bars, and Python warnings (TRL's
    experimental-API notice, deprecations), go to ``log_path`` (appended) or, without one, nowhere. The stage
    progress bars (the trainers' own, collect's, the dev set's) are not touched.
    """
    if _QUIET_DEPTH[0]:
        yield
        return
    import logging
    import warnings

    import datasets
    import transformers.utils.logging as tlog
    from datasets.utils import logging as dlog

    class _Log(logging.Handler):  # each record appended to the run's log through the path layer
        def emit(self, record: logging.LogRecord) -> None:
            if log_path is not None:
                append_text(log_path, self.format(record) + "\n")

    handler: logging.Handler = _Log() if log_path is not None else logging.NullHandler()
    handler.setFormatter(logging.Formatter("%(asctime)s %(name)s %(levelname)s: %(message)s"))
    bars = tlog.is_progress_bar_enabled(), not datasets.are_progress_bars_disabled()
    dverb = dlog.get_verbosity()
    _QUIET_DEPTH[0] += 1
    try:
        with warnings.catch_warnings():
            def show(message: Any, category: Any, filename: str, lineno: int, file: Any = None,
                     line: str | None = None) -> None:
                if log_path is not None:
                    append_text(log_path, warnings.formatwarning(message, category, filename, lineno, line))

            warnings.showwarning = show
            tlog.disable_default_handler()
            tlog.add_handler(handler)
            tlog.disable_progress_bar()
            dlog.set_verbosity_error()
            datasets.disable_progress_bars()
            yield
    finally:
        _QUIET_DEPTH[0] -= 1
        tlog.remove_handler(handler)
        tlog.enable_default_handler()
        if bars[0]:
            tlog.enable_progress_bar()
        if bars[1]:
            datasets.enable_progress_bars()
        dlog.set_verbosity(dverb)


F = TypeVar("F", bound=Callable[..., Any])


def quiet_unless_progress(fn: F) -> F:
    """Run a stage under `quiet_libraries` when it is called with ``show_progress=False``."""
    sig = inspect.signature(fn)

    @functools.wraps(fn)
    def wrapped(*args: Any, **kwargs: Any) -> Any:
        show = sig.bind(*args, **kwargs).arguments.get("show_progress", True)
        with contextlib.nullcontext() if show else quiet_libraries():
            return fn(*args, **kwargs)

    return wrapped  # type: ignore[return-value]


def quiet_trainer(trainer: Any) -> None:
    """A trainer's logged rows go to its log history (the stage's stats, the run's metrics.jsonl), not the terminal:
    the row printer used without a progress bar is removed, and the bar stays but writes no rows under it.
    """
    from transformers.trainer_callback import PrinterCallback, ProgressCallback

    trainer.remove_callback(PrinterCallback)
    for cb in trainer.callback_handler.callbacks:
        if isinstance(cb, ProgressCallback):
            cb.on_log = lambda *args, **kwargs: None  # type: ignore[method-assign]


# ---------------------------------------------------------------------------------------------- CPU threads
def pick_threads(cpus: int | None = None, load: float | None = None) -> tuple[int, str]:
    """Torch CPU threads for training from what the machine has free, and why (for the progress line).

    The free cores are this process's CPUs (``os.sched_getaffinity``) less the 1-minute load average, rounded;
    at least 1. On a busy CPU one thread is fastest: threads that wait for a core stall every matrix product
    (docs/training.md, "What it costs").
    """
    if cpus is None:
        cpus = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else (os.cpu_count() or 1)
    if load is None:
        load = os.getloadavg()[0] if hasattr(os, "getloadavg") else 0.0
    n = max(1, min(cpus, int(cpus - load + 0.5)))
    return n, f"{n} thread{'s' if n > 1 else ''} ({cpus} CPUs, load {load:.1f}; --threads N to choose)"


# ---------------------------------------------------------------------------------------------- resumed stages
ELAPSED_FILE = "livesim_elapsed.json"


def elapsed_before(checkpoint: str | None) -> float:
    """Seconds the run(s) before a resume had spent on a stage up to ``checkpoint`` (0.0 for a fresh start)."""
    if checkpoint is None:
        return 0.0
    try:
        return float(json.loads(read_text(Path(checkpoint) / ELAPSED_FILE))["wall_s"])
    except (OSError, ValueError, KeyError, TypeError):
        return 0.0


def elapsed_callback(t0: float, prior_s: float) -> Any:
    """A TrainerCallback that stores in each checkpoint the stage's seconds so far (``prior_s`` + since ``t0``), so a
    resumed stage reports what its output cost in all, not only its last stretch.
    """
    import time

    from transformers import TrainerCallback

    class _Elapsed(TrainerCallback):  # type: ignore[misc]
        def on_save(self, args: Any, state: Any, control: Any, **kwargs: Any) -> None:
            checkpoint = Path(args.output_dir) / f"checkpoint-{state.global_step}"
            if checkpoint.is_dir() and state.is_world_process_zero:
                write_text(checkpoint / ELAPSED_FILE, json.dumps({"wall_s": prior_s + time.perf_counter() - t0}))

    return _Elapsed()


def cached_eval_loss(trainer: Any, work: Path, resumed: bool) -> float | None:
    """The validation loss before training, computed once per stage: a resumed stage reads the first run's.

    Returns None without a validation set. The value lives in ``work/eval_before.json`` (the stage's work folder is
    keyed by its config, model and data, so the value cannot belong to another stage).
    """
    if trainer.eval_dataset is None or not len(trainer.eval_dataset):
        return None
    path = work / "eval_before.json"
    if resumed and path.is_file():
        try:
            return float(json.loads(read_text(path))["eval_loss"])
        except (OSError, ValueError, KeyError, TypeError):
            pass
    loss = float(trainer.evaluate()["eval_loss"])
    if trainer.accelerator.is_main_process:
        work.mkdir(parents=True, exist_ok=True)
        write_text(path, json.dumps({"eval_loss": loss}) + "\n")
    return loss
