"""One-GPU settings tested on the CPU: padding-free and length-grouped SFT, the smollm2-135m-gpu preset and its
CI shrink, and (slow) the whole pipeline under a two-process launch and the preset's `reproduce --ci` end to end.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("trl")

from livesim.hat import collect as collect_mod  # noqa: E402
from livesim.hat.collect import CollectConfig  # noqa: E402
from livesim.hat.reproduce import EVAL_PRESETS  # noqa: E402
from livesim.hat.sft import SFTStageConfig, cache_key_data  # noqa: E402
from livesim.hat.train import TrainConfig  # noqa: E402


@pytest.fixture(scope="module")
def data_dir(tmp_path_factory) -> Path:
    return collect_mod.run(CollectConfig(episodes=8, seed=3, batch_size=4), tmp_path_factory.mktemp("c") / "data",
                           show_progress=False)


def test_padding_free_trains_as_the_padded_batch_without_computing_padding(data_dir, tiny_model_dir, tmp_path):
    import torch
    from transformers import AutoModelForCausalLM

    from livesim.hat.sft import run

    common = dict(steps=2, lr=1e-2, batch_size=3, save_steps=2, val_examples=1)
    padded = run(SFTStageConfig(**common), tiny_model_dir, data_dir, tmp_path / "a", show_progress=False)
    flat = run(SFTStageConfig(padding_free=True, **common), tiny_model_dir, data_dir, tmp_path / "b",
               show_progress=False)
    assert [r["loss"] for r in flat["history"] if "loss" in r] == pytest.approx(
        [r["loss"] for r in padded["history"] if "loss" in r], rel=1e-4)
    wa = AutoModelForCausalLM.from_pretrained(tmp_path / "a").state_dict()
    wb = AutoModelForCausalLM.from_pretrained(tmp_path / "b").state_dict()
    assert all(torch.allclose(wa[k], wb[k], atol=1e-4) for k in wa)
    # the same conversation tokens went through the model; only the padded batches computed padding
    assert flat["trained_tokens"] == padded["trained_tokens"] > 0
    assert flat["padded_positions"] == 0 and padded["padded_positions"] > 0
    assert 0 < padded["padding_share"] < 1 and flat["tokens_per_s"] > 0
    assert padded["device"] == "cpu" and padded["bf16"] is False


def test_batching_options_key_apart_only_when_set():
    base = SFTStageConfig()
    assert cache_key_data(base) == cache_key_data(SFTStageConfig(padding_free=False, group_by_length=False))
    assert "padding_free" not in cache_key_data(base) and "epochs" not in cache_key_data(base)
    for change in ({"padding_free": True}, {"group_by_length": True}, {"attn_implementation": "eager"},
                   {"epochs": 2.0}):
        assert cache_key_data(SFTStageConfig(**change)) != cache_key_data(base), change
    # with epochs the step count no longer decides anything
    assert cache_key_data(SFTStageConfig(epochs=2.0, steps=5)) == cache_key_data(SFTStageConfig(epochs=2.0, steps=9))


def test_gpu_preset_has_the_data_scale_and_ci_shrinks_it():
    cfg = TrainConfig.from_preset("smollm2-135m-gpu")
    c = cfg.collect
    assert c.episodes >= 8400 and c.hsa_p == pytest.approx(2 / 3) and c.canonical_fraction == 0.25
    assert c.workers > 1 and c.teacher_name == "reader"  # the default HSA teacher
    assert not cfg.sft.lora and cfg.sft.epochs >= 2 and cfg.sft.group_by_length
    assert cfg.rl.steps >= 50 and cfg.rl.num_generations >= 8
    assert cfg.distill.steps > 0 and cfg.base_model == "smollm2-135m"
    ev = EVAL_PRESETS["smollm2-135m-gpu"]
    assert ev.limit >= 128 and {"T1", "T2", "T2-stress", "T3", "T4"} <= set(ev.suites)
    assert ev.prompt_style == c.prompt_style
    ci = TrainConfig.from_preset("smollm2-135m-gpu", ci=True)
    assert ci.preset == "smollm2-135m-gpu-ci" and ci.collect.episodes <= 6 and ci.collect.workers == 2
    assert ci.sft.epochs is None and ci.sft.steps == 2 and ci.rl.steps == 1 and ci.dev_batch_size <= 8
    assert ci.sft.group_by_length and not ci.sft.lora  # the same recipe, fewer steps
    # the CPU presets are untouched by the new fields
    assert TrainConfig.from_preset("tiny", ci=True).collect.workers == 1


def _launch(args: list[str], tmp_path: Path) -> subprocess.CompletedProcess:
    env = {**os.environ, "OMP_NUM_THREADS": "1", "CUDA_VISIBLE_DEVICES": "", "LIVESIM_CACHE": str(tmp_path / "cache")}
    cmd = [sys.executable, "-m", "accelerate.commands.launch", "--multi_gpu", "--num_processes", "2",
           "--num_machines", "1", "--mixed_precision", "no", "--dynamo_backend", "no", "--main_process_port", "0",
           "-m", "livesim.cli", *args]
    return subprocess.run(cmd, capture_output=True, text=True, env=env, timeout=3000, cwd=tmp_path)


@pytest.mark.slow
def test_train_pipeline_under_two_processes(tmp_path):
    """`accelerate launch` (2 CPU processes, gloo) of `livesim hat train --ci`: the main process builds, collects,
    evaluates and writes; both train the SFT stage together (DDP), and the run dir is written once.
    """
    proc = _launch(["hat", "train", "--preset", "tiny", "--ci", "--stages", "sft", "--out", str(tmp_path / "run"),
                    "--quiet"], tmp_path)
    assert proc.returncode == 0, proc.stderr[-3000:]
    stats = json.loads(next((tmp_path / "run" / "checkpoints" / "sft").glob("sft_stats.json")).read_text())
    assert stats["processes"] == 2 and stats["steps"] == 2
    rows = [json.loads(x) for x in (tmp_path / "run" / "metrics.jsonl").read_text().splitlines()]
    assert sum(r["kind"] == "dev_eval" and r["stage"] == "sft" for r in rows) == 1  # one process evaluated
    assert (tmp_path / "run" / "report.md").is_file()


@pytest.mark.slow
def test_gpu_preset_reproduces_at_ci_size_on_a_cpu(tmp_path):
    """`livesim hat reproduce --preset smollm2-135m-gpu --ci` end to end (needs `livesim models prepare
    smollm2-135m`; minutes on a CPU): every row measured, the stage wall times and SFT tokens/s in the results.
    """
    from livesim.models.zoo import prepared_dir

    if prepared_dir("smollm2-135m") is None:
        pytest.skip("smollm2-135m is not prepared (livesim models prepare smollm2-135m)")
    env = {**os.environ, "LIVESIM_CACHE": str(tmp_path / "cache")}
    models = Path(prepared_dir("smollm2-135m")).parent
    (tmp_path / "cache").mkdir()
    (tmp_path / "cache" / "models").symlink_to(models, target_is_directory=True)
    proc = subprocess.run([sys.executable, "-m", "livesim.cli", "hat", "reproduce", "--preset", "smollm2-135m-gpu",
                           "--ci", "--out", str(tmp_path / "results")], capture_output=True, text=True, env=env,
                          timeout=5400, cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr[-3000:]
    results = json.loads((tmp_path / "results" / "smollm2-135m-gpu-ci" / "results.json").read_text())
    rows = {r["row"]: r for r in results["rows"]}
    assert {"base", "fixed-SFT", "HSA-SFT", "HSA-SFT+distill", "HAT", "fixed-RL"} <= set(rows)
    assert all(r["status"] == "ok" for r in rows.values()), {k: r.get("status") for k, r in rows.items()}
    assert set(rows["HAT"]["train"]["wall_s"]) == {"sft", "distill", "rl"}
