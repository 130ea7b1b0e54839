"""livesim: a simulated live-stream shop with an AI host, Harness-State Augmentation and HAT.

`import livesim` registers `LiveStream-v0` and `LiveStreamQA-v0` with Gymnasium. This root package is the
namespace that holds the layers and belongs to none of them (docs/architecture.md), so importing `livesim.envs`
here does not make the core below envs depend on gymnasium.
"""

from __future__ import annotations

from importlib.metadata import PackageNotFoundError, version

try:
    __version__ = version("livesim")
except PackageNotFoundError:  # pragma: no cover - running from a source tree without install
    __version__ = "0.0.0"

from livesim.envs import register_envs  # noqa: E402  (registration is the package's side effect)

register_envs()

__all__ = ["__version__", "register_envs"]
