"""The one device choice (CUDA + bf16 when present, fp32 on CPU) and the offline load settings of every model load."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

torch = pytest.importorskip("torch")

from livesim.models import device as dev  # noqa: E402


def _cuda(monkeypatch: pytest.MonkeyPatch, available: bool, bf16: bool = True) -> None:
    monkeypatch.delenv("LIVESIM_DEVICE", raising=False)
    monkeypatch.setattr(torch.cuda, "is_available", lambda: available)
    monkeypatch.setattr(torch.cuda, "is_bf16_supported", lambda *a, **k: bf16)


def test_cpu_without_cuda(monkeypatch):
    _cuda(monkeypatch, False)
    c = dev.select_device()
    assert (c.device, c.bf16, c.infer_dtype, c.on_cpu) == ("cpu", False, "float32", True)
    assert dev.trainer_precision(c) == {"bf16": False, "fp16": False, "use_cpu": True}
    with pytest.raises(RuntimeError, match="no CUDA device"):
        dev.select_device("cuda")


def test_cuda_bf16_when_supported(monkeypatch):
    _cuda(monkeypatch, True, bf16=True)
    c = dev.select_device()
    assert (c.device, c.bf16, c.infer_dtype) == ("cuda", True, "bfloat16")
    assert dev.trainer_precision(c) == {"bf16": True, "fp16": False, "use_cpu": False}
    assert dev.select_device("cpu").device == "cpu"  # asked for explicitly


def test_cuda_without_bf16_trains_fp32_and_infers_fp16(monkeypatch):
    _cuda(monkeypatch, True, bf16=False)
    c = dev.select_device()
    assert (c.device, c.bf16, c.infer_dtype) == ("cuda", False, "float16")
    assert dev.trainer_precision(c)["bf16"] is False


def test_environment_keeps_a_run_on_the_cpu(monkeypatch):
    _cuda(monkeypatch, True)
    monkeypatch.setenv("LIVESIM_DEVICE", "cpu")
    assert dev.select_device().device == "cpu"
    assert dev.select_device("cuda").device == "cuda"  # an explicit choice wins
    monkeypatch.setenv("LIVESIM_DEVICE", "gpu")
    with pytest.raises(ValueError, match="got 'gpu'"):
        dev.select_device()


def test_bad_device_name():
    with pytest.raises(ValueError, match="expected device 'auto', 'cuda' or 'cpu', got 'tpu'"):
        dev.select_device("tpu")


def test_trainer_common_follows_the_choice(monkeypatch, tmp_path):
    from livesim.hat.common import trainer_common

    _cuda(monkeypatch, True, bf16=True)
    args = trainer_common(tmp_path, steps=1, lr=1e-3, batch_size=1, grad_accum=1, seed=0)
    assert (args["bf16"], args["use_cpu"]) == (True, False)
    _cuda(monkeypatch, False)
    args = trainer_common(tmp_path, steps=1, lr=1e-3, batch_size=1, grad_accum=1, seed=0)
    assert (args["bf16"], args["use_cpu"]) == (False, True)


def test_hub_kernels_off_by_default_unless_set():
    code = "import os, livesim; print(os.environ.get('USE_HUB_KERNELS'))"
    env = {k: v for k, v in os.environ.items() if k != "USE_HUB_KERNELS"}
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "NO"
    out = subprocess.run([sys.executable, "-c", code], env={**env, "USE_HUB_KERNELS": "YES"}, capture_output=True,
                         text=True, check=True)
    assert out.stdout.strip() == "YES"  # the user's own setting wins (and load_kwargs still passes use_kernels=False)


def test_agent_load_passes_use_kernels_false(monkeypatch, tiny_model_dir):
    """The stages' and the agent's from_pretrained calls carry use_kernels=False (recorded, then loaded for real)."""
    import transformers

    from livesim.agents.transformers_agent import TransformersAgent

    seen = []
    real = transformers.AutoModelForCausalLM.from_pretrained.__func__

    def spy(cls, *args, **kwargs):
        seen.append(kwargs)
        return real(cls, *args, **kwargs)

    monkeypatch.setattr(transformers.AutoModelForCausalLM, "from_pretrained", classmethod(spy))
    TransformersAgent(str(tiny_model_dir), device="cpu", max_new_tokens=2)
    assert seen and all(kw.get("use_kernels") is False for kw in seen)
    assert seen[-1]["dtype"] == torch.float32  # the CPU's dtype
@pytest.mark.parametrize("module", ["sft", "rl", "distill", "copy_pretrain", "probe"])
def test_stage_loads_go_through_load_kwargs(module):
    """Each stage's model loads take the same settings (a stage run is too slow to spy on here)."""
    import importlib
    import inspect

    src = inspect.getsource(importlib.import_module(f"livesim.hat.{module}"))
    loads = src.count("AutoModelForCausalLM.from_pretrained(")
    assert loads >= 1 and src.count("from_pretrained(") - src.count("AutoTokenizer.from_pretrained(") == \
        src.count("**load_kwargs("), module
