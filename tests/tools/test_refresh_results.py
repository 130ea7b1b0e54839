"""tools/refresh_results.py: a committed results folder brought up to the current table (rates, samples, marks)."""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path

import pytest

from livesim.hat.evaluate import AgentSpec, evaluate
from livesim.hat.report import RowResult, write_results
from livesim.hat.reproduce import save_records

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def refresh():
    spec = importlib.util.spec_from_file_location("refresh_results", ROOT / "tools" / "refresh_results.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def test_scripted_rows_regain_their_conversations_and_model_rows_are_marked(refresh, tmp_path, monkeypatch):
    monkeypatch.setenv("LIVESIM_CACHE", str(tmp_path / "cache"))
    rows = [RowResult(name, evaluate(AgentSpec(name, {}, name), ["T1", "T2"], 4, 4)) for name in ("oracle", "null")]
    rows.append(RowResult("HSA-SFT", evaluate(AgentSpec("random", {"seed": 3}, "HSA-SFT"), ["T1"], 4, 4),
                          train={"model_dir": str(tmp_path / "gone")}))
    out = tmp_path / "results"
    save_records(rows, out / "evals")
    write_results(out, "tiny", rows, extra={"eval": {"limit": 4, "batch_size": 4, "prompt_style": "full"}},
                  baseline="null")
    kept = sorted((out / "evals").glob("*.samples.jsonl.gz"))
    before = {p.name: p.read_bytes() for p in kept}
    for p in kept:
        p.unlink()
    results = json.loads((out / "results.json").read_text())
    for r in results["rows"]:  # a table written before the rates and samples flags existed
        for s in r["suites"].values():
            s.pop("samples"), s["scores"].pop("outcomes")
    (out / "results.json").write_text(json.dumps(results))
    lines: list[str] = []
    refresh.refresh(out, log=lines.append)
    after = {p.name: p.read_bytes() for p in (out / "evals").glob("*.samples.jsonl.gz")}
    hsa = {r["suites"]["T1"]["cache_key"] for r in results["rows"] if r["row"] == "HSA-SFT"}
    assert after == {k: v for k, v in before.items() if k.split(".")[0] not in hsa}  # the same bytes again
    table = (out / "table.md").read_text()
    assert "| HSA-SFT |" in table and "no samples (no checkpoint) |" in table
    assert table.count("| yes |") == 2 and "## Outcomes per request" in table
    refreshed = json.loads((out / "results.json").read_text())
    assert all("outcomes" in s["scores"] for r in refreshed["rows"] for s in r["suites"].values())
    assert any("re-evaluated with samples, same rows" in x for x in lines)


def test_a_row_whose_key_changed_is_marked_not_replaced(refresh, tmp_path, monkeypatch):
    monkeypatch.setenv("LIVESIM_CACHE", str(tmp_path / "cache"))
    rows = [RowResult("oracle", evaluate(AgentSpec("oracle", {}, "oracle"), ["T1"], 4, 4))]
    out = tmp_path / "results"
    save_records(rows, out / "evals")
    write_results(out, "tiny", rows, extra={"eval": {"limit": 4, "batch_size": 4}}, baseline="oracle")
    results = json.loads((out / "results.json").read_text())
    old = results["rows"][0]["suites"]["T1"]
    (out / "evals" / f"{old['cache_key']}.json").rename(out / "evals" / "0ldkey.json")
    for p in (out / "evals").glob("*.samples.jsonl.gz"):
        p.unlink()
    old["cache_key"], old["key"] = "0ldkey", "T1-v0"  # measured on an earlier version of the suite
    (out / "results.json").write_text(json.dumps(results))
    lines: list[str] = []
    refresh.refresh(out, log=lines.append)
    assert any("not re-evaluable under the table's key (suite T1-v0 is now" in x for x in lines)
    assert "no samples (suite T1-v0 is now" in (out / "table.md").read_text()
    assert not list((out / "evals").glob("*.samples.jsonl.gz"))
