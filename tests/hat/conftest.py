"""Fixtures for hat tests: the tiny model, built once per session into the session's temp folder."""

from __future__ import annotations

from pathlib import Path

import pytest


@pytest.fixture(scope="session")
def tiny_model_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    pytest.importorskip("torch")
    from livesim.models.zoo import build_tiny_model

    # Same path as tests/agents' fixture: whichever runs second finds the build cached.
    return build_tiny_model(tmp_path_factory.getbasetemp() / "livesim-models" / "tiny")


@pytest.fixture(autouse=True)
def _no_stand_in_vllm(monkeypatch: pytest.MonkeyPatch) -> None:
    """tests/agents' stand-in ``vllm`` can outlive its test in ``sys.modules``; TRL would then read its version
    ('N/A') and fail to import its trainers. Training tests see the real environment (no vllm here)."""
    import sys

    mod = sys.modules.get("vllm")
    if mod is not None and "fake_vllm" in str(getattr(mod, "__file__", "")):
        monkeypatch.delitem(sys.modules, "vllm")


@pytest.fixture
def killed_once(monkeypatch: pytest.MonkeyPatch):
    """``killed_once(module, attr, fn, *args)``: call ``fn(*args)`` with ``module.attr`` raising KeyboardInterrupt
    (a stage killed mid-run), expect the interrupt, then put ``module.attr`` back."""

    def run(module: object, attr: str, fn, *args):
        real = getattr(module, attr)

        def killed(*a, **k):
            raise KeyboardInterrupt

        monkeypatch.setattr(module, attr, killed)
        with pytest.raises(KeyboardInterrupt):
            fn(*args)
        monkeypatch.setattr(module, attr, real)

    return run
