"""tools/docs_table.py: a doc's table excerpt is written from results.json between its markers, nothing else."""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
spec = importlib.util.spec_from_file_location("docs_table", ROOT / "tools" / "docs_table.py")
docs_table = importlib.util.module_from_spec(spec)  # type: ignore[arg-type]
spec.loader.exec_module(docs_table)  # type: ignore[union-attr]

RESULTS = {"rows": [
    {"row": "base", "status": "ok", "suites": {"T1": {"scores": {"accuracy": 0.0, "effectiveness": 0.0, "avg": 0.0}},
                                                "T4": {"scores": {"prompt_strict": 0.25, "inst_strict": 0.5}}}},
    {"row": "HAT", "status": "ok", "train": {"carried": True},
     "suites": {"T1": {"scores": {"accuracy": 0.875, "effectiveness": 0.125, "avg": 0.5}},
                "T2": {"scores": {"avg": 0.0}}},
     "t1_to_t2": {"avg": {"mean": -0.5, "ci95": [-0.6, -0.4]}}},
    {"row": "fixed-RL", "status": "not measured", "note": "its stage is not in the stage cache"},
]}


def test_the_excerpt_replaces_only_what_is_between_the_markers(tmp_path):
    res, doc = tmp_path / "results.json", tmp_path / "doc.md"
    res.write_text(json.dumps(RESULTS))
    doc.write_text("before\n<!-- t -->\nold table\n<!-- /t -->\nafter\n")
    assert docs_table.main(["--results", str(res), "--doc", str(doc), "--marker", "t"]) == 0
    text = doc.read_text()
    assert text.startswith("before\n<!-- t -->\n| row |") and text.endswith("<!-- /t -->\nafter\n")
    assert "old table" not in text
    # the outcome rates are n/a where the results hold no per-request rows, and no row here has samples
    assert ("| HAT | 87.5 | 12.5 | 50.0 | n/a | n/a | n/a | n/a | 0.0 | n/a | -50.0 [-60.0, -40.0] | not measured | "
            "not measured |  | carried (records) | no samples |") in text
    assert ("| base | 0.0 | 0.0 | 0.0 | n/a | n/a | n/a | n/a | not measured | n/a | n/a | 25.0 | 50.0 |  "
            "| measured here | no samples |") in text
    assert "| fixed-RL | not measured: its stage is not in the stage cache |" in text


def test_a_doc_without_the_markers_is_a_clear_error_and_is_not_touched(tmp_path):
    res, doc = tmp_path / "results.json", tmp_path / "doc.md"
    res.write_text(json.dumps(RESULTS))
    doc.write_text("no markers here\n")
    with pytest.raises(SystemExit, match="no <!-- t --> ... <!-- /t --> markers"):
        docs_table.main(["--results", str(res), "--doc", str(doc), "--marker", "t"])
    assert doc.read_text() == "no markers here\n"


def test_the_dev_table_has_one_row_per_file_and_bad_files_are_clear_errors(tmp_path):
    dev = {"model": "/x/stages/sft-abc", "n": 50,
           "canonical": {"mean_reward": 0.146, "rewards": [0.146] * 50, "mean_ci95": [0.069, 0.236],
                         "accuracy": 0.94, "effectiveness": 0.14, "fallback_rate": 0.0},
           "heldout_hsa": {"mean_reward": 0.0, "mean_ci95": [0.0, 0.0], "fallback_rate": 0.98,
                           "parse_failure_rate": 2.48, "turns_mean": 6.78}}
    f, doc = tmp_path / "dev.json", tmp_path / "doc.md"
    f.write_text(json.dumps(dev))
    doc.write_text("<!-- d -->\n<!-- /d -->\n")
    canon, held = tmp_path / "c.json", tmp_path / "h.json"  # one model's variants evaluated apart
    canon.write_text(json.dumps({k: v for k, v in dev.items() if k != "heldout_hsa"}))
    held.write_text(json.dumps({**{k: v for k, v in dev.items() if k != "canonical"}, "n": 20}))
    assert docs_table.main(["--dev", f"HSA-SFT={f}", f"apart={canon},{held}", f"canon={canon}", "--doc", str(doc),
                            "--marker", "d"]) == 0
    text = doc.read_text()
    row = ("`sft-abc` | 0.146 [0.069, 0.236] (50) | 0.94 / 0.14 / 0.00 | 0.000 [0.000, 0.000] ({}) | "
           "0.98 / 2.48 / 6.8 | not recorded |")
    # n per variant: from its rewards, else the file's n (the held-out file says 20)
    assert f"| HSA-SFT | {row.format(50)}" in text and f"| apart | {row.format(20)}" in text
    assert "| canon | `sft-abc` | 0.146 [0.069, 0.236] (50) | 0.94 / 0.14 / 0.00 | not measured |  |  |" in text
    # the held-out call audit (dev files written since it exists): ran / failed; failed names by source
    audit = {"calls": 30, "ok": 2, "unpresented": {"canonical": 4, "hsa_train": 6, "hsa_heldout": 0, "other": 18}}
    f.write_text(json.dumps({**dev, "heldout_hsa": {**dev["heldout_hsa"], "calls": audit}}))
    docs_table.main(["--dev", f"HSA-SFT={f}", "--doc", str(doc), "--marker", "d"])
    assert "| 0.98 / 2.48 / 6.8 | 2 / 28; 4 / 6 / 0 / 18 |" in doc.read_text()
    assert "train-vocabulary" not in doc.read_text()  # a column only when a row measured it
    g = tmp_path / "g.json"
    g.write_text(json.dumps({**dev, "train_hsa": {**dev["canonical"], "mean_reward": 0.05}}))
    docs_table.main(["--dev", f"HSA-SFT={g}", f"other={f}", "--doc", str(doc), "--marker", "d"])
    text = doc.read_text()
    assert "HSA train-vocabulary mean reward" in text and "| not recorded | 0.050 [0.069, 0.236] (50) |" in text
    assert "| 2 / 28; 4 / 6 / 0 / 18 | not measured |" in text
    (tmp_path / "bad.json").write_text("not json")
    for arg, msg in ((str(f), "expects ROW=FILE"), (f"x={tmp_path / 'bad.json'}", "not a readable JSON file"),
                     (f"x={tmp_path / 'none.json'}", "not a readable JSON file")):
        with pytest.raises(SystemExit, match=msg):
            docs_table.main(["--dev", arg, "--doc", str(doc), "--marker", "d"])
    with pytest.raises(SystemExit, match="no such file"):
        docs_table.main(["--dev", f"x={f}", "--doc", str(tmp_path / "nodoc.md"), "--marker", "d"])


def test_the_probe_table_has_a_line_per_model_and_kind(tmp_path):
    probe = {"model": "/x/stages/sft-abc", "conversations": 120, "summary": {
        "tool": {"canonical": {"names": 109, "exact": 0.55, "continuation_accuracy": 0.85},
                 "generated": {"names": 64, "exact": 0.0, "continuation_accuracy": 0.024}},
        "param": {"canonical": {"names": 128, "exact": 0.727, "continuation_accuracy": None}}}}
    f, doc = tmp_path / "probe.json", tmp_path / "doc.md"
    f.write_text(json.dumps(probe))
    doc.write_text("<!-- p -->\n<!-- /p -->\n")
    assert docs_table.main(["--probe", f"HSA-SFT={f}", "--doc", str(doc), "--marker", "p"]) == 0
    text = doc.read_text()
    assert "| HSA-SFT | `sft-abc` | 120 | tool | 0.550 / 0.850 (109) | - | 0.000 / 0.024 (64) |" in text
    assert "| HSA-SFT | `sft-abc` | 120 | param | 0.727 / - (128) | - | - |" in text
    assert "| HSA-SFT | `sft-abc` | 120 | skill | - | - | - |" in text
    other = tmp_path / "dev.json"
    other.write_text(json.dumps({"model": "m"}))  # a dev result, not a probe
    with pytest.raises(SystemExit, match="no 'summary' in it"):
        docs_table.main(["--probe", f"x={other}", "--doc", str(doc), "--marker", "p"])
