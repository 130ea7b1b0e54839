"""Harness-Aware Training end to end: base -> collect -> (HSA-)SFT -> distill -> (HSA-)RL, cached and resumable.

``train(TrainConfig.from_preset("tiny"))`` (or ``livesim hat train --preset tiny``) runs the stages into one run
directory: ``config.yaml`` (the resolved config), ``checkpoints/<stage>`` (links to the cached stage outputs),
``metrics.jsonl`` (every logged trainer row and every dev-set evaluation), ``report.md`` with loss and
reward curves (PNG) and the dev-set table.

Every stage output is cached by a content key (the stage's own config plus the key of its input model and
data) under ``$LIVESIM_CACHE/stages/<stage>-<key>/`` (default ``~/.cache/livesim/stages``): a stage whose output
exists is skipped (``wall_s`` 0.0), two runs sharing a prefix train it once, and a killed stage resumes from
its last trainer checkpoint (``<stage>-<key>.work/checkpoint-N``).
"""

from __future__ import annotations

import contextlib
import importlib.util
import json
import time
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_validator

from livesim.harness.prompt import PROMPT_RENDER_VERSION
from livesim.hat import collect as collect_mod
from livesim.hat import copy_pretrain as copy_mod
from livesim.hat import distill as distill_mod
from livesim.hat import rl as rl_mod
from livesim.hat import sft as sft_mod
from livesim.hat.collect import CollectConfig
from livesim.hat.common import content_key, main_first, process_state, quiet_libraries, stages_dir
from livesim.hat.deveval import DEV_BATCH_SIZE, evaluate_model
from livesim.hat.distill import DistillStageConfig
from livesim.hat.rl import RLStageConfig
from livesim.hat.sft import SFTStageConfig
from livesim.hat.tokenizer import CORPUS_VERSION, TINY_CHAT_TEMPLATE, preset_tokenizer
from livesim.models.zoo import build_tiny_model, check_tiny_shape, resolve_model
from livesim.stream.paths import (
    MAX_PROMPT_FILE_BYTES,
    append_text,
    check_output_dir,
    read_text,
    save_figure,
    write_marker,
    write_text,
)

STAGES = ("sft", "distill", "rl")
RUN_KIND = "run directory of `livesim hat train`"


class TinyArch(BaseModel):
    """Architecture of the ``tiny`` base model trained from scratch (``livesim.models.zoo.build_tiny_model``)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    vocab_size: int = Field(2048, description="BPE target size (trained on simulator text).")
    hidden_size: int = Field(128, description="Model width.")
    intermediate_size: int = Field(384, description="MLP width.")
    layers: int = Field(3, description="Transformer layers.")
    heads: int = Field(4, description="Attention heads.")
    kv_heads: int = Field(2, description="Key/value heads.")
    initializer_range: float = Field(0.02, description="Init std (0.02 for training from scratch).")
    corpus_episodes: int = Field(120, description="Oracle conversations the tokenizer is trained on.")
    seed: int = Field(0, description="Init and corpus seed.")
    copy_steps: int = Field(0, ge=0, description="Copy pretraining of the random base before SFT "
                            "(`livesim.hat.copy_pretrain`): steps of dense induction data (0: none).")
    copy_lr: float = Field(1e-3, gt=0, description="Copy pretraining peak learning rate (cosine, 5% warm-up).")
    copy_batch: int = Field(16, ge=1, description="Copy pretraining sequences a step.")
    copy_span: tuple[int, int] = Field((16, 64), description="Length band of the copied span (tokens).")
    copy_context: int = Field(0, ge=0, description="0: each span repeated at once. N: spans copied from anywhere in a "
                              "random N-token context (content-based copying, as a name in a long prompt asks).")

    @model_validator(mode="after")
    def _shape_fits(self) -> TinyArch:
        copy_mod.check_shape(self.copy_span, self.copy_context)
        check_tiny_shape(vocab_size=self.vocab_size, hidden_size=self.hidden_size,
                         intermediate_size=self.intermediate_size, layers=self.layers, heads=self.heads,
                         kv_heads=self.kv_heads)
        return self

    def base_key_data(self) -> dict[str, Any]:
        """The fields that make the random base (the copy fields make a stage of their own on top of it)."""
        return self.model_dump(exclude={"copy_steps", "copy_lr", "copy_batch", "copy_span", "copy_context"})

    def copy_key_data(self) -> dict[str, Any]:
        data: dict[str, Any] = {"steps": self.copy_steps, "lr": self.copy_lr, "batch": self.copy_batch,
                                "span": list(self.copy_span)}
        if self.copy_context:
            data["context"] = self.copy_context
        return data


class TrainConfig(BaseModel):
    """One HAT run. ``from_preset`` fills every field; ``model_copy(update=...)`` changes some."""

    model_config = ConfigDict(extra="forbid", frozen=True, arbitrary_types_allowed=True)

    preset: str = Field("custom", description="Preset it came from (informational).")
    base_model: str = Field("tiny", description="'tiny' (built from scratch with `tiny_arch`), a zoo name or a "
                                                "local HF model dir: the pre-SFT base (and the distill teacher).")
    tiny_arch: TinyArch = Field(default_factory=TinyArch, description="Used when base_model is 'tiny'.")
    fixed_harness: bool = Field(False, description="Collect and RL on the canonical harness only (the baseline).")
    rl_fixed_harness: bool | None = Field(None, description="RL on the canonical harness (None: = fixed_harness).")
    stages: tuple[str, ...] = Field(STAGES, description="Stages after collect, in order (subset of sft, distill, rl).")
    collect: CollectConfig = Field(default_factory=CollectConfig)
    sft: SFTStageConfig = Field(default_factory=SFTStageConfig)
    distill: DistillStageConfig = Field(default_factory=DistillStageConfig)
    rl: RLStageConfig = Field(default_factory=RLStageConfig)
    dev_requests: int = Field(50, ge=0, description="Dev-set requests per variant after each stage (0: none).")
    dev_max_new_tokens: int = Field(128, ge=1, description="Generation cap per turn in the dev evaluation.")
    dev_batch_size: int = Field(DEV_BATCH_SIZE, ge=1, description="Requests generated together in the dev evaluation.")
    eval_base: bool = Field(True, description="Also evaluate the base model on the dev set.")
    out_dir: Path | None = Field(None, description="Run directory (default runs/hat-<preset>-<key>).")
    show_progress: bool = Field(True, description="Progress bars.")

    @classmethod
    def from_preset(cls, name: str, ci: bool = False) -> TrainConfig:
        """``tiny`` (from scratch; end to end with 2 threads on an idle 2-core CPU 12.75 min on 2026-12-04 and 25 min on
        2026-12-02, the same command: the host's speed varies by phase; docs/training.md), ``smollm2-135m`` (a CPU)
        or ``smollm2-135m-gpu`` (one GPU); ``ci`` shrinks it to a few steps a stage (CPU-sized).
        """
        if name not in PRESETS:
            raise ValueError(f"unknown preset {name!r}; expected one of {sorted(PRESETS)}")
        cfg = PRESETS[name]()
        if ci:
            cfg = cfg.model_copy(update={
                "preset": f"{name}-ci",
                "tiny_arch": cfg.tiny_arch.model_copy(update={"corpus_episodes": 8, "vocab_size": 512,
                                                              "hidden_size": 32, "intermediate_size": 64,
                                                              "layers": 1, "heads": 2, "kv_heads": 1}),
                "collect": cfg.collect.model_copy(update={"episodes": 6, "batch_size": 6,
                                                          "workers": min(cfg.collect.workers, 2)}),
                "sft": cfg.sft.model_copy(update={"steps": 2, "epochs": None, "batch_size": 2, "save_steps": 1,
                                                  "val_examples": min(cfg.sft.val_examples, 2)
                                                  if cfg.sft.val_examples else None}),
                "distill": cfg.distill.model_copy(update={"steps": 1, "batch_size": 2, "prompts": 4,
                                                          "max_completion_length": 8, "save_steps": 1}),
                "rl": cfg.rl.model_copy(update={"steps": 1, "num_generations": 2, "episodes_per_step": 1,
                                                "episodes": 2, "max_new_tokens": 8, "max_turns": 2,
                                                "save_steps": 1}),
                "dev_requests": 2, "dev_max_new_tokens": 8, "dev_batch_size": min(cfg.dev_batch_size, DEV_BATCH_SIZE),
                **CI_OVERRIDES.get(name, {}),
            })
        return cfg

    def with_sets(self, sets: list[str] | tuple[str, ...]) -> TrainConfig:
        """A copy with ``SECTION.FIELD=VALUE`` overrides applied (``sft.epochs=1``, ``collect.episodes=2400``; a
        value is read as JSON when it parses, else as a string). Bad paths and values raise ``ValueError`` (one line).
        """
        data = json.loads(self.model_dump_json())
        for item in sets:
            path, eq, value = item.partition("=")
            if not eq or not path:
                raise ValueError(f"--set expects SECTION.FIELD=VALUE, got {item!r}")
            try:
                parsed = json.loads(value)
            except ValueError:
                parsed = value
            node = data
            keys = path.split(".")
            for k in keys[:-1]:
                if not isinstance(node.get(k), dict):
                    raise ValueError(f"--set {path}: {k!r} is not a config section")
                node = node[k]
            if keys[-1] not in node:
                raise ValueError(f"--set {path}: unknown field {keys[-1]!r}")
            node[keys[-1]] = parsed
        try:
            return type(self).model_validate(data)
        except ValidationError as e:
            err = e.errors()[0]
            raise ValueError(f"--set {'.'.join(str(x) for x in err['loc'])}: {err['msg']}") from None

    @property
    def rl_fixed(self) -> bool:
        return self.fixed_harness if self.rl_fixed_harness is None else self.rl_fixed_harness


def _tiny_preset() -> TrainConfig:
    return TrainConfig(
        preset="tiny", base_model="tiny",
        collect=CollectConfig(episodes=1200, seed=0),
        # 4 conversations a step as 4 micro-batches of one: an unpadded row runs SDPA's fused causal kernel, a padded
        # batch of 4 needs a mask and falls back to the math kernel (2.4x slower a token on this CPU;
        # bench/bench_sft.py). Same gradient: the loss is normalised over the tokens of all 4 micro-batches.
        sft=SFTStageConfig(steps=800, lr=2e-3, batch_size=1, grad_accum=4, save_steps=50),
        distill=DistillStageConfig(steps=10, lr=1e-5, batch_size=4, prompts=64, max_completion_length=32,
                                   save_steps=10),
        # T=0.7 and half the episodes canonical: at T=1.0 with 75% augmented episodes every rollout of the SFT
        # model scored 0 (no GRPO signal; docs/training.md, "rl")
        rl=RLStageConfig(steps=12, lr=2e-5, num_generations=4, episodes_per_step=2, episodes=32,
                         max_new_tokens=96, max_turns=3, temperature=0.7, canonical_fraction=0.5, save_steps=4),
        dev_requests=20, dev_max_new_tokens=96,
    )


def _smollm2_preset() -> TrainConfig:
    # Sized for a quiet 2-core CPU, one run per core. SmolLM2 SFT (LoRA, fp32) trains ~20-30 tokens/s on one core,
    # so the canonical harness is presented in the compact style (~1,300-token conversations instead of ~3,100
    # in markdown; HSA episodes still switch styles) and SFT sees 48 conversations; a dev request costs ~25 s.
    return TrainConfig(
        preset="smollm2-135m", base_model="smollm2-135m",
        collect=CollectConfig(episodes=240, seed=0, prompt_style="compact"),
        # the validation loss before and after SFT is a forward pass over each conversation: 8, not all 24.
        # 48 steps (96 conversations): at 24 the HSA run had not learned the task (every dev request fell back)
        sft=SFTStageConfig(steps=48, lr=5e-4, batch_size=1, grad_accum=2, lora=True, lora_r=16, lora_alpha=32,
                           save_steps=4, val_examples=8),
        distill=DistillStageConfig(steps=10, lr=5e-6, batch_size=4, prompts=64, max_completion_length=48,
                                   save_steps=2),
        rl=RLStageConfig(steps=4, lr=2e-6, num_generations=4, episodes_per_step=1, episodes=16,
                         max_new_tokens=128, max_turns=3, temperature=0.7, canonical_fraction=0.5, save_steps=1),
        dev_requests=4, dev_max_new_tokens=128,
    )


def _smollm2_gpu_preset() -> TrainConfig:
    # Sized for one H200 (not yet run whole on one; the --short run's figures: docs/notes/2026-12-04-gpu-h200.md).
    # ~9,000 QA episodes keep ~8,900 conversations (the teacher passes the judge on ~99%): p = 2/3 per transform, a
    # quarter canonical, collected by 16 processes. Full fine-tuning, 2 epochs, bf16, length-grouped batches of 16 x 2;
    # compact canonical prompt as the CPU preset (HSA still switches styles): ~1,200-1,300 trained tokens a
    # conversation on the H200 run.
    return TrainConfig(
        preset="smollm2-135m-gpu", base_model="smollm2-135m",
        collect=CollectConfig(episodes=9000, seed=0, prompt_style="compact", batch_size=8, workers=16),
        sft=SFTStageConfig(epochs=2.0, lr=1e-4, batch_size=16, grad_accum=2, lora=False, weight_decay=0.01,
                           group_by_length=True, save_steps=100, val_examples=256),
        distill=DistillStageConfig(steps=40, lr=5e-6, batch_size=32, prompts=1280, max_completion_length=128,
                                   save_steps=20),
        rl=RLStageConfig(steps=50, lr=1e-6, num_generations=8, episodes_per_step=4, episodes=400,
                         max_new_tokens=128, max_turns=3, temperature=0.7, canonical_fraction=0.5, save_steps=10),
        dev_requests=64, dev_max_new_tokens=128, dev_batch_size=64,
    )


CI_OVERRIDES: dict[str, dict[str, Any]] = {
    # SmolLM2 dev requests on a CPU take minutes each: one per variant keeps the dev-eval path exercised
    "smollm2-135m-gpu": {"dev_requests": 1},
}
PRESETS = {"tiny": _tiny_preset, "smollm2-135m": _smollm2_preset, "smollm2-135m-gpu": _smollm2_gpu_preset}


class TrainResult(BaseModel):
    """What a run produced (the contract with ``reproduce``)."""

    model_config = ConfigDict(arbitrary_types_allowed=True)

    base_model_dir: Path
    stage_dirs: dict[str, Path]
    run_dir: Path
    wall_s: dict[str, float]
    """Seconds each stage took in this call (0.0: served from the stage cache)."""
    made_s: dict[str, float] = Field(default_factory=dict)
    """Seconds each stage's output took to make, over every run that worked on it (a resumed stage included)."""
    stats: dict[str, dict[str, Any]] = Field(default_factory=dict)
    dev: dict[str, dict[str, Any]] = Field(default_factory=dict)


# ---------------------------------------------------------------------------------------------- the stages
def _base(cfg: TrainConfig) -> tuple[Path, str]:
    """The base model's directory and key; for ``tiny`` the random-init model (built here, seconds)."""
    if cfg.base_model == "tiny":
        # the tokenizer recipe and chat template enter the key: a new one is a new base (and new stages after it)
        key = content_key("base-tiny", cfg.tiny_arch.base_key_data(), CORPUS_VERSION, TINY_CHAT_TEMPLATE)
        a = cfg.tiny_arch
        path = build_tiny_model(stages_dir() / f"base-{key}", seed=a.seed, vocab_size=a.vocab_size,
                                hidden_size=a.hidden_size, intermediate_size=a.intermediate_size, layers=a.layers,
                                heads=a.heads, kv_heads=a.kv_heads, initializer_range=a.initializer_range,
                                corpus_episodes=a.corpus_episodes, corpus_seed=a.seed, corpus_version=CORPUS_VERSION,
                                tokenizer_fn=lambda v: preset_tokenizer(v, a.corpus_episodes, a.seed))
        return path, key
    path = resolve_model(cfg.base_model)
    marker = path / "livesim_model.json"
    ident = read_text(marker) if marker.is_file() else str(path.resolve())
    return path, content_key("base", ident)


def _copy_base(cfg: TrainConfig, base_dir: Path, base_key: str) -> tuple[Path, str] | None:
    """Where the copy-pretrained base of ``cfg`` lives and its key (None without copy pretraining)."""
    if cfg.base_model != "tiny" or cfg.tiny_arch.copy_steps == 0:
        return None
    key = content_key("copy", cfg.tiny_arch.copy_key_data(), base_key)
    return stages_dir() / f"copy-{key}", key


def stage_ready(path: Path) -> bool:
    """Whether a stage's output directory is complete (a model and its stats)."""
    return (path / "config.json").is_file() and any(path.glob("*_stats.json"))



class _Run:
    """The run directory's writer. Under a multi-process launch only the main process writes and evaluates."""

    def __init__(self, cfg: TrainConfig, run_dir: Path, main: bool = True) -> None:
        self.cfg, self.dir, self.main = cfg, run_dir, main
        self.metrics = run_dir / "metrics.jsonl"
        # dev-set rows already logged by an earlier run into this dir (read once: a rerun must not repeat them)
        lines = read_text(self.metrics, MAX_PROMPT_FILE_BYTES).splitlines() if self.metrics.is_file() else []
        rows = list(map(json.loads, filter(str.strip, lines)))
        self._dev_rows = [row for row in rows if row.get("kind") == "dev_eval"]
        # (stage, stage key) of the training curves already here (key None: rows logged before keys were)
        self._curves = {(row.get("stage"), row.get("stage_key")) for row in rows if row.get("kind") == "train"}

    def has_curve(self, stage: str, key: str) -> bool:
        return (stage, key) in self._curves or (stage, None) in self._curves

    def log(self, row: dict[str, Any]) -> None:
        if not self.main:
            return
        append_text(self.metrics, json.dumps(row, default=str, sort_keys=True) + "\n", flag="metrics")

    def _logged(self, stage: str, result: dict[str, Any]) -> bool:
        row = json.loads(json.dumps({"stage": stage, "kind": "dev_eval", **result}, default=str, sort_keys=True))
        return row in self._dev_rows

    def link(self, stage: str, target: Path) -> None:
        if not self.main:
            return
        link = self.dir / "checkpoints" / stage
        link.parent.mkdir(parents=True, exist_ok=True)
        if link.is_symlink() or link.exists():
            link.unlink()
        link.symlink_to(target.resolve(), target_is_directory=True)

    def dev_eval(self, stage: str, model_dir: Path) -> dict[str, Any] | None:
        if self.cfg.dev_requests <= 0 or not self.main:
            return None
        style = self.cfg.collect.prompt_style
        # the render version: the same model and settings meet other prompts when their rendering changes
        # the batch size is in the name when not the default: greedy outputs under padding may differ with it
        bs = self.cfg.dev_batch_size
        cache = model_dir.parent / (f"{model_dir.name}.dev-{self.cfg.dev_requests}-{self.cfg.dev_max_new_tokens}"
                                    + ("" if style == "full" else f"-{style}")
                                    + ("" if bs == DEV_BATCH_SIZE else f"-b{bs}")
                                    + f"-r{PROMPT_RENDER_VERSION}.json")
        if cache.is_file():
            result = json.loads(read_text(cache))
            if self._logged(stage, result):  # a rerun into the same run dir: already in metrics.jsonl
                return result
        else:
            result = evaluate_model(model_dir, n=self.cfg.dev_requests, max_new_tokens=self.cfg.dev_max_new_tokens,
                                    batch_size=bs, show_progress=self.cfg.show_progress, prompt_style=style)
            write_text(cache, json.dumps(result, indent=2) + "\n", flag="dev evaluation cache")
        self.log({"stage": stage, "kind": "dev_eval", **result})
        return result


def _rl_config(cfg: TrainConfig) -> RLStageConfig:
    """The RL stage's config: its harness as the run's (fixed or HSA), presented as collect presented it."""
    return cfg.rl.model_copy(update={"fixed_harness": cfg.rl_fixed, "prompt_style": cfg.collect.prompt_style})


def _stage_key(cfg: TrainConfig, stage: str, prev_key: str, base_key: str, ckey: str) -> str:
    """The content key of one stage: its config and the keys of what it starts from."""
    if stage == "sft":
        return content_key("sft", sft_mod.cache_key_data(cfg.sft), base_key, ckey)
    if stage == "distill":
        return content_key("distill", cfg.distill.model_dump(), prev_key, base_key)
    return content_key("rl", _rl_config(cfg).key_data(), prev_key)


def plan(cfg: TrainConfig) -> dict[str, Path]:
    """Where each stage of ``cfg`` lives in the stage cache (``collect`` included), trained or not: which
    stages a run would reuse. Builds nothing but the ``tiny`` base model when it is missing.
    """
    base_dir, base_key = _base(cfg)
    collect_cfg = cfg.collect.model_copy(update={"fixed_harness": cfg.fixed_harness, "tokenizer": str(base_dir)})
    ckey = content_key("collect", collect_cfg.model_copy(update={"tokenizer": base_key}).key())
    out = {"base": base_dir, "collect": stages_dir() / f"collect-{ckey}"}
    copy = _copy_base(cfg, base_dir, base_key)
    if copy is not None:  # collect keeps the random base's key: same tokenizer, same data
        out["copy"], base_key = copy
    prev_key = base_key
    for stage in cfg.stages:
        prev_key = _stage_key(cfg, stage, prev_key, base_key, ckey)
        out[stage] = stages_dir() / f"{stage}-{prev_key}"
    return out


def train(cfg: TrainConfig) -> TrainResult:
    """Run (or resume, or serve from cache) every stage of ``cfg``; see the module docstring.

    Library log messages and warnings go to the run directory's ``train.log``, the trainers' logged rows to its
    ``metrics.jsonl``; the terminal shows one progress bar per stage (none with ``show_progress=False``).
    """
    with contextlib.ExitStack() as stack:
        return _train(cfg, stack)


def _made_file(stage_dir: Path) -> Path:
    """Beside a stage's output: the seconds it took to make (collect's stats hold no time: its bytes are seeded)."""
    return stage_dir.with_name(stage_dir.name + ".made.json")


def _made_s(stage_dir: Path, stats: dict[str, Any] | None = None) -> float:
    if stats and isinstance(stats.get("wall_s"), (int, float)):
        return float(stats["wall_s"])
    try:
        return float(json.loads(read_text(_made_file(stage_dir)))["wall_s"])
    except (OSError, ValueError, KeyError, TypeError):
        return 0.0


def _train(cfg: TrainConfig, stack: contextlib.ExitStack) -> TrainResult:
    unknown = [s for s in cfg.stages if s not in STAGES]
    if unknown:
        raise ValueError(f"unknown stage(s) {unknown}; expected a subset of {list(STAGES)}")
    if cfg.out_dir:  # a run dir is resumed into; a folder that is not one is refused before any work
        check_output_dir(cfg.out_dir, kind=RUN_KIND)
    # under `accelerate launch` every process runs this; the main one builds, collects, evaluates and writes, the
    # others find its outputs in the stage cache and join it in the trainers (DDP)
    state = process_state()
    main = state is None or state.is_main_process
    with main_first(state):
        base_dir, base_key = _base(cfg)
    collect_cfg = cfg.collect.model_copy(update={"fixed_harness": cfg.fixed_harness, "tokenizer": str(base_dir)})
    ckey = content_key("collect", collect_cfg.model_copy(update={"tokenizer": base_key}).key())
    run_key = content_key(cfg.model_dump(exclude={"out_dir", "show_progress"}), base_key)
    run_dir = Path(cfg.out_dir) if cfg.out_dir else Path("runs") / f"hat-{cfg.preset}-{run_key[:8]}"
    run_dir.mkdir(parents=True, exist_ok=True)
    stack.enter_context(quiet_libraries(run_dir / "train.log" if main else None))
    if main:
        write_marker(run_dir, RUN_KIND)  # what lets a later `--out` of this folder resume into it
        _write_config(run_dir, cfg, base_dir)
    run = _Run(cfg, run_dir, main)
    wall: dict[str, float] = {}
    stats: dict[str, dict[str, Any]] = {}
    dev: dict[str, dict[str, Any]] = {}
    run.link("base", base_dir)
    if cfg.eval_base:
        dev["base"] = run.dev_eval("base", base_dir) or {}

    data_dir = stages_dir() / f"collect-{ckey}"
    t0 = time.perf_counter()
    fresh = not collect_mod.is_complete(data_dir)
    with main_first(state):
        collect_mod.run(collect_cfg, data_dir, show_progress=cfg.show_progress and main)
    wall["collect"] = time.perf_counter() - t0 if fresh else 0.0
    if fresh and main:
        write_text(_made_file(data_dir), json.dumps({"wall_s": wall["collect"]}) + "\n")
    stats["collect"] = collect_mod.stats(data_dir)
    made: dict[str, float] = {"collect": _made_s(data_dir)}
    run.link("collect", data_dir)
    if fresh:
        run.log({"stage": "collect", "kind": "stats", "wall_s": wall["collect"], **stats["collect"]["filter"]})

    copy = _copy_base(cfg, base_dir, base_key)
    if copy is not None:  # the later stages start from (and distill toward) the copy-pretrained base
        copy_dir, base_key = copy
        a = cfg.tiny_arch
        t0 = time.perf_counter()
        if not stage_ready(copy_dir):
            copy_mod.run(base_dir, copy_dir, steps=a.copy_steps, lr=a.copy_lr, batch_size=a.copy_batch,
                         span=a.copy_span, context=a.copy_context, seed=a.seed, show_progress=cfg.show_progress)
            wall["copy"] = time.perf_counter() - t0
        else:
            wall["copy"] = 0.0
        copy_stats = json.loads(read_text(copy_dir / "copy_stats.json"))
        stats["copy"] = {k: v for k, v in copy_stats.items() if k != "history"}
        made["copy"] = _made_s(copy_dir, copy_stats)
        run.link("copy", copy_dir)
        if wall["copy"] > 0:
            for row in copy_stats.get("history", []):
                run.log({"stage": "copy", "kind": "train", "stage_key": copy_dir.name, **row})
            run.log({"stage": "copy", "kind": "stats", "wall_s": wall["copy"],
                     **{k: stats["copy"][k] for k in ("copy_accuracy_before", "copy_accuracy_after")}})
        base_dir = copy_dir

    stage_dirs: dict[str, Path] = {}
    prev_dir, prev_key = base_dir, base_key
    rl_cfg = _rl_config(cfg)
    for stage in cfg.stages:
        key = _stage_key(cfg, stage, prev_key, base_key, ckey)
        out = stages_dir() / f"{stage}-{key}"
        work = stages_dir() / f"{stage}-{key}.work"
        t0 = time.perf_counter()
        if stage_ready(out):
            wall[stage] = 0.0
        else:
            if stage == "sft":
                sft_mod.run(cfg.sft, prev_dir, data_dir, out, work, show_progress=cfg.show_progress)
            elif stage == "distill":
                distill_mod.run(cfg.distill, prev_dir, base_dir, out, work, show_progress=cfg.show_progress)
            else:
                rl_mod.run(rl_cfg, prev_dir, out, work, show_progress=cfg.show_progress)
            wall[stage] = time.perf_counter() - t0
        stage_stats = json.loads(read_text(next(out.glob("*_stats.json"))))
        stats[stage] = {k: v for k, v in stage_stats.items() if k != "history"}
        made[stage] = _made_s(out, stage_stats)
        # the stage's training curve, also when the stage came from the cache (copied from its stats, marked as
        # such) so that every run dir that uses a stage can chart it; once per run dir and stage key
        if wall[stage] > 0 or not run.has_curve(stage, out.name):
            for row in stage_stats.get("history", []):
                run.log({"stage": stage, "kind": "train", "stage_key": out.name,
                         **({} if wall[stage] > 0 else {"from_cache": True}), **row})
        if wall[stage] > 0:
            run.log({"stage": stage, "kind": "summary", "wall_s": wall[stage],
                     **{k: v for k, v in stats[stage].items() if k not in ("config", "history")}})
        run.link(stage, out)
        stage_dirs[stage] = out
        dev[stage] = run.dev_eval(stage, out) or {}
        prev_dir, prev_key = out, key
    result = TrainResult(base_model_dir=base_dir, stage_dirs=stage_dirs, run_dir=run_dir, wall_s=wall, made_s=made,
                         stats=stats, dev=dev)
    if main:
        write_report(result, cfg)
    return result


def _write_config(run_dir: Path, cfg: TrainConfig, base_dir: Path) -> None:
    import yaml

    data = json.loads(cfg.model_dump_json())
    data["resolved_base_model_dir"] = str(base_dir)
    write_text(run_dir / "config.yaml", yaml.safe_dump(data, sort_keys=False))


# ---------------------------------------------------------------------------------------------- the report
def _histories(run_dir: Path) -> dict[str, list[dict[str, Any]]]:
    out: dict[str, list[dict[str, Any]]] = {}
    for stage in STAGES:
        link = run_dir / "checkpoints" / stage
        files = list(link.glob("*_stats.json")) if link.exists() else []
        if files:
            out[stage] = json.loads(read_text(files[0])).get("history", [])
    return out


def write_report(result: TrainResult, cfg: TrainConfig) -> Path:
    """``report.md`` with the stage table, dev-set table and ``curves.png`` (loss and reward per step; not drawn, and
    said so in the report, where matplotlib is not installed: the stages and the dev table do not need it).
    """
    run_dir = result.run_dir
    drawn = importlib.util.find_spec("matplotlib") is not None
    if drawn:
        _draw_curves(_histories(run_dir), run_dir / "curves.png")
    lines = [f"# HAT run `{run_dir.name}` (preset {cfg.preset})", "",
             f"Base `{cfg.base_model}` -> `{result.base_model_dir}`; harness: "
             f"{'canonical only' if cfg.fixed_harness else 'HSA (train vocabulary)'}; RL harness: "
             f"{'canonical' if cfg.rl_fixed else 'HSA'}.", "",
             "| stage | steps | wall s | start | end | output |", "|---|---|---|---|---|---|"]

    def secs(stage: str) -> str:  # what the output cost when it was made; "cached" when this run reused it
        made = result.made_s.get(stage, result.wall_s.get(stage, 0.0))
        return f"{made:.1f}" + (" (cached)" if result.wall_s.get(stage, 0.0) == 0.0 else "")

    c = result.stats.get("collect", {})
    lines.append(f"| collect | {c.get('splits', {})} | {secs('collect')} | "
                 f"{c.get('filter', {}).get('candidates', '')} candidates | {c.get('filter', {}).get('kept', '')} kept "
                 f"| checkpoints/collect |")
    if "copy" in result.stats:
        s = result.stats["copy"]
        lines.append(f"| copy | {s.get('steps')} | {secs('copy')} | copy accuracy "
                     f"{_f(s.get('copy_accuracy_before'))} (far {_f(s.get('far_copy_accuracy_before'))}) | copy "
                     f"accuracy {_f(s.get('copy_accuracy_after'))} (far {_f(s.get('far_copy_accuracy_after'))}) "
                     f"| checkpoints/copy |")
    for stage in cfg.stages:
        s = result.stats.get(stage, {})
        rl = stage == "rl"
        a, b = (s.get("reward_start"), s.get("reward_end")) if rl else (s.get("loss_start"), s.get("loss_end"))
        what = "reward" if stage == "rl" else "loss"
        lines.append(f"| {stage} | {s.get('steps')} | {secs(stage)} | {what} {_f(a)} | "
                     f"{what} {_f(b)} | checkpoints/{stage} |")
    lines += ["", f"Dev set: {cfg.dev_requests} LiveStreamQA-v0 test-split requests (seeds from 900000), greedy, "
              f"{cfg.dev_max_new_tokens} new tokens per turn. Mean reward (raw accuracy, pass rate). Raw accuracy is "
              "the share of replies that state nothing false, before the gates: a reply that answers nothing the "
              "viewer needed earns 0 on every term however accurate, so accuracy 1.00 beside a low reward means "
              "replies that said nothing wrong and little that was needed.", "",
              "| model | canonical | held-out HSA |", "|---|---|---|"]
    for name, d in result.dev.items():
        if d:
            cells = [f"{d[v]['mean_reward']:.3f} ({d[v]['accuracy']:.2f}, {d[v]['pass_rate']:.2f})"
                     for v in ("canonical", "heldout_hsa")]
            lines.append(f"| {name} | {cells[0]} | {cells[1]} |")
    lines += ["", "![curves](curves.png)" if drawn else "(curves not drawn: matplotlib is not installed)", "",
              "Wall seconds: what each stage's output took to make, summed over the runs that worked on it (a killed "
              "stage resumed); `(cached)`: this run reused it from the stage cache.", ""]
    path = run_dir / "report.md"
    write_text(path, "\n".join(lines))
    return path


def _draw_curves(hist: dict[str, list[dict[str, Any]]], path: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(1, 3, figsize=(13, 3.5))
    for ax, stage, key in ((axes[0], "sft", "loss"), (axes[1], "distill", "loss"), (axes[2], "rl", "reward")):
        rows = [r for r in hist.get(stage, []) if key in r and "step" in r]
        ax.plot([r["step"] for r in rows], [r[key] for r in rows], marker=".")
        if stage == "rl":
            for term in ("accuracy", "effectiveness", "tool_rationality", "skill_selection"):
                tr = [r for r in hist.get(stage, []) if f"rewards/{term}/mean" in r]
                ax.plot([r["step"] for r in tr], [r[f"rewards/{term}/mean"] for r in tr], lw=0.8, label=term)
            ax.legend(fontsize=6)
        ax.set_title(f"{stage} {key}")
        ax.set_xlabel("step")
    fig.tight_layout()
    save_figure(fig, path, dpi=100)
    plt.close(fig)


def _f(x: Any) -> str:
    return f"{x:.4f}" if isinstance(x, (int, float)) else str(x)
