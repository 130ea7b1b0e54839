"""Fixtures for model-zoo tests: the tiny model, built once per session into the session's temp folder."""

from __future__ import annotations

from pathlib import Path

import pytest


@pytest.fixture(scope="session")
def tiny_model_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    pytest.importorskip("torch")
    from livesim.models.zoo import build_tiny_model

    # Same path as tests/agents and tests/hat fixtures: whichever runs second finds the build cached.
    return build_tiny_model(tmp_path_factory.getbasetemp() / "livesim-models" / "tiny")
