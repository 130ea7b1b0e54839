"""bench/decode_ops.py: the operators a decode step calls, for a model's layout at toy widths."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("torch")
ROOT = Path(__file__).resolve().parents[2]


def test_counts_a_steps_operators_for_both_paths(tiny_model_dir):
    proc = subprocess.run([sys.executable, str(ROOT / "bench" / "decode_ops.py"), "--model", str(tiny_model_dir),
                           "--batch-size", "2", "--steps", "2", "--top", "40"],
                          capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stderr[-2000:]
    rows = {r["path"]: r for r in map(json.loads, (x for x in proc.stdout.splitlines() if x.startswith("{")))}
    assert set(rows) == {"eager", "fixed"} and rows["eager"]["layers"] == 2
    # per step: one linear per projection of every layer (q, k, v, o, gate, up, down) plus the LM head
    assert rows["eager"]["top"]["aten::linear"] == 2 * 7 + 1 == rows["fixed"]["top"]["aten::linear"]
    assert "aten::scatter_" in rows["fixed"]["top"] and "aten::scatter_" not in rows["eager"]["top"]
    assert "| fixed |" in proc.stdout


def test_a_bad_model_is_one_line(tmp_path):
    proc = subprocess.run([sys.executable, str(ROOT / "bench" / "decode_ops.py"), "--model", str(tmp_path)],
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == 2 and "no model config there" in proc.stderr and "Traceback" not in proc.stderr
