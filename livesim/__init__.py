"""livesim: a simulated live-stream shop with an AI host, Harness-State Augmentation and HAT.

`import livesim` registers `LiveStream-v0` and `LiveStreamQA-v0` with Gymnasium. This root package is the
namespace that holds the layers and belongs to none of them (docs/architecture.md), so importing `livesim.envs`
here does not make the core below envs depend on gymnasium. Importing it also turns transformers' hub kernels off
unless `USE_HUB_KERNELS` is set (`livesim.models.device`): every model load works offline on CUDA.
"""

from __future__ import annotations

from importlib.metadata import PackageNotFoundError, version
from pathlib import Path

# Run from a source checkout (`python -m livesim.cli` in the repository root) with livesim installed as a wheel,
# this folder shadows the installed package, and `envs/`, `agents/`, `hat/` (mapped into `livesim` at install time)
# sit beside it, not in it: the repository root joins the package path so that `livesim.envs` and the others resolve.
_root = Path(__file__).resolve().parent.parent
if not (Path(__file__).parent / "envs").is_dir() and (_root / "envs" / "__init__.py").is_file():
    __path__.append(str(_root))  # type: ignore[name-defined]  # noqa: F821  (the package's own __path__)

try:
    __version__ = version("livesim")
except PackageNotFoundError:  # pragma: no cover - running from a source tree without install
    __version__ = "0.0.0"

from livesim.models.device import disable_hub_kernels_by_default  # noqa: E402

disable_hub_kernels_by_default()

from livesim.envs import register_envs  # noqa: E402  (registration is the package's side effect)

register_envs()

__all__ = ["__version__", "register_envs"]
