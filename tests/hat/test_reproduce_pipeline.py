"""`livesim hat reproduce --preset tiny --ci` end to end with the real training pipeline (issue 10 + 11)."""

from __future__ import annotations

import json

import pytest

pytest.importorskip("trl")

from livesim.cli.main import main  # noqa: E402

ROWS = ["base", "fixed-SFT", "HSA-SFT", "fixed-SFT+distill", "HSA-SFT+distill", "HAT", "fixed-RL", "oracle"]


def test_reproduce_tiny_ci_trains_every_stage_and_writes_the_table(tmp_path, monkeypatch):
    monkeypatch.setenv("LIVESIM_CACHE", str(tmp_path / "cache"))
    out = tmp_path / "results"
    assert main(["hat", "reproduce", "--preset", "tiny", "--ci", "--out", str(out), "--no-ab",
                 "--no-harness-edit"]) == 0
    run = out / "tiny-ci"
    for name in ("results.json", "table.md", "suites.png", "t1_t2_drop.png", "training_curves.png"):
        assert (run / name).stat().st_size > 0, name
    results = json.loads((run / "results.json").read_text())
    text = json.dumps(results)
    for row in ROWS:
        assert f'"{row}"' in text, row
    table = (run / "table.md").read_text()
    assert "HAT" in table and "oracle" in table
