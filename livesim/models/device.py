"""Where models run: one device-and-precision choice for every stage and evaluation, and offline load settings.

CUDA when present (bf16 where the GPU supports it, else fp16 for inference and fp32 for training), fp32 on the CPU.
Hub kernels are off by default (`USE_HUB_KERNELS=NO`, set when livesim is imported, unless the user set it):
transformers 5 otherwise tries to download `kernels-community/*` on the first CUDA load and fails offline.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from typing import Any

HUB_KERNELS_ENV = "USE_HUB_KERNELS"


def disable_hub_kernels_by_default() -> None:
    """``USE_HUB_KERNELS=NO`` unless already set (transformers reads it at every model load)."""
    os.environ.setdefault(HUB_KERNELS_ENV, "NO")


@dataclass(frozen=True)
class DeviceChoice:
    """A device and the precisions used on it."""

    device: str
    """'cuda' or 'cpu' (a CUDA index is left to accelerate / the current device)."""
    bf16: bool
    """Train in bf16 mixed precision (TrainingArguments.bf16) and run inference in bf16."""
    infer_dtype: str
    """Weights' dtype for inference: 'bfloat16', 'float16' or 'float32'."""

    @property
    def on_cpu(self) -> bool:
        return self.device == "cpu"


DEVICE_ENV = "LIVESIM_DEVICE"


def select_device(prefer: str | None = None) -> DeviceChoice:
    """``prefer``: 'auto' (CUDA when available), 'cuda' (an error without it) or 'cpu'; None reads
    ``$LIVESIM_DEVICE`` (default 'auto'), so a whole run can be kept on the CPU of a GPU machine.
    """
    prefer = prefer or os.environ.get(DEVICE_ENV) or "auto"
    if prefer not in ("auto", "cuda", "cpu"):
        raise ValueError(f"expected device 'auto', 'cuda' or 'cpu', got {prefer!r}")
    import torch

    cuda = torch.cuda.is_available()
    if prefer == "cuda" and not cuda:
        raise RuntimeError("device 'cuda' asked for, but torch sees no CUDA device (torch.cuda.is_available() is "
                           "False)")
    if prefer == "cpu" or not cuda:
        return DeviceChoice("cpu", bf16=False, infer_dtype="float32")
    bf16 = bool(torch.cuda.is_bf16_supported())
    return DeviceChoice("cuda", bf16=bf16, infer_dtype="bfloat16" if bf16 else "float16")


def load_kwargs(dtype: Any = None) -> dict[str, Any]:
    """Keyword arguments for every ``AutoModelForCausalLM.from_pretrained`` of the project: no hub kernels
    (``use_kernels=False``, also when the user enabled them by environment), and ``dtype`` when given.
    Trainable models load in fp32 (the trainer's bf16 autocast keeps fp32 master weights).
    """
    out: dict[str, Any] = {"use_kernels": False}
    if dtype is not None:
        out["dtype"] = dtype
    return out


def trainer_precision(choice: DeviceChoice | None = None) -> dict[str, Any]:
    """TrainingArguments fields for the chosen device: bf16 mixed precision on a bf16 GPU, fp32 elsewhere."""
    choice = choice or select_device()
    return {"bf16": choice.bf16, "fp16": False, "use_cpu": choice.on_cpu}
