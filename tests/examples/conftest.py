"""The training examples see the real environment: tests/agents' stand-in `vllm` may outlive its test."""

from __future__ import annotations

import sys

import pytest


@pytest.fixture(autouse=True)
def _no_stand_in_vllm(monkeypatch: pytest.MonkeyPatch) -> None:
    mod = sys.modules.get("vllm")
    if mod is not None and "fake_vllm" in str(getattr(mod, "__file__", "")):
        monkeypatch.delitem(sys.modules, "vllm")
