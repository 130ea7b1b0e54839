"""`livesim hat reproduce --preset tiny --ci` end to end with the real training pipeline (issue 10 + 11)."""

from __future__ import annotations

import json

import pytest

pytest.importorskip("trl")

from livesim.cli.main import main  # noqa: E402

ROWS = ["base", "fixed-SFT", "HSA-SFT", "fixed-SFT+distill", "HSA-SFT+distill", "HAT", "fixed-RL", "oracle", "reader"]


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

    # the A/B and the harness-edit test of two rows, kept as records beside the table
    again = tmp_path / "again"
    assert main(["hat", "reproduce", "--preset", "tiny", "--ci", "--out", str(again), "--rows", "fixed-SFT,HAT"]) == 0
    two = json.loads((again / "tiny-ci" / "results.json").read_text())
    assert two["ab"]["agents"] == ["fixed-SFT", "HAT"]
    assert (again / "tiny-ci" / "evals" / f"ab-{two['ab']['ab_key']}.json").is_file()
    assert [e["agent"] for e in two["harness_edit"]] == ["fixed-SFT", "HAT"]
    edit_keys = {k for e in two["harness_edit"] for k in e["cache_keys"]}
    assert len(edit_keys) == 4 and edit_keys <= {p.stem for p in (again / "tiny-ci" / "evals").glob("*.json")}

    # --cached-only: the same table from the caches, nothing trained or evaluated ...
    import shutil

    import livesim.hat.evaluate as evaluate_mod

    def no_agent(*a, **k):
        raise AssertionError("--cached-only built an agent")

    monkeypatch.setattr(evaluate_mod.AgentSpec, "build", no_agent)
    assert main(["hat", "reproduce", "--preset", "tiny", "--ci", "--out", str(again), "--cached-only"]) == 0
    def summary(res):
        return [(r["row"], r["status"], r.get("suites")) for r in res["rows"]]

    assert summary(json.loads((again / "tiny-ci" / "results.json").read_text())) == summary(results)
    # every suite result the table uses is kept beside it as an evaluation record (key: model digest) ...
    first = json.loads((again / "tiny-ci" / "results.json").read_text())
    keys = {s["cache_key"] for r in first["rows"] if r["status"] == "ok" for s in r["suites"].values()
            if s and s.get("cache_key")}
    assert keys and keys <= {p.stem for p in (again / "tiny-ci" / "evals").glob("*.json")}
    assert all(r["train"]["stage_key"] and r["train"]["fingerprint"].startswith("dir:")
               for r in first["rows"] if r["train"])
    # ... which serve as a second cache: with the evaluation cache gone, the same table
    shutil.rmtree(tmp_path / "cache" / "evals")
    assert main(["hat", "reproduce", "--preset", "tiny", "--ci", "--out", str(again), "--cached-only"]) == 0
    full = json.loads((again / "tiny-ci" / "results.json").read_text())
    assert summary(full) == summary(results)
    # (the A/B and the harness-edit entries of the rows that have them, from their records; the rest not measured)
    assert full["ab"]["metrics"] == two["ab"]["metrics"]
    assert [(e["agent"], e["reduction"]) for e in full["harness_edit"]] == [
        (e["agent"], e["reduction"]) for e in two["harness_edit"]]
    # a stage that is not in the stage cache is never trained by --cached-only: its row is read from the records
    # of the previous results.json (same stage key), marked as such ...
    for rl in (tmp_path / "cache" / "stages").glob("rl-*"):
        shutil.rmtree(rl) if rl.is_dir() else rl.unlink()
    assert main(["hat", "reproduce", "--preset", "tiny", "--ci", "--out", str(again), "--cached-only"]) == 0
    carried = json.loads((again / "tiny-ci" / "results.json").read_text())
    rows = {r["row"]: r for r in carried["rows"]}
    # (HAT's A/B and harness-edit entries too: from the records the previous results.json names)
    assert carried["ab"]["carried"] is True and carried["ab"]["metrics"] == two["ab"]["metrics"]
    assert {e["agent"]: e["reduction"] for e in carried["harness_edit"]} == {
        e["agent"]: e["reduction"] for e in two["harness_edit"]}
    before = {r["row"]: r for r in first["rows"]}
    for name in ("HAT", "fixed-RL"):
        assert rows[name]["status"] == "ok" and rows[name]["train"]["carried"] is True
        assert rows[name]["suites"] == before[name]["suites"]
        assert rows[name]["train"]["stage_key"] == before[name]["train"]["stage_key"]
    assert "Rows read from the evaluation records" in (again / "tiny-ci" / "table.md").read_text()
    assert not list((tmp_path / "cache" / "stages").glob("rl-*"))
    # ... and, with no records (a new results folder), marked not measured
    fresh = tmp_path / "fresh"
    assert main(["hat", "reproduce", "--preset", "tiny", "--ci", "--out", str(fresh), "--no-ab",
                 "--no-harness-edit", "--cached-only"]) == 0
    rows = {r["row"]: r for r in json.loads((fresh / "tiny-ci" / "results.json").read_text())["rows"]}
    assert rows["HAT"]["status"] == rows["fixed-RL"]["status"] == "not measured"
    assert rows["HSA-SFT+distill"]["status"] == "not measured"  # its stage is here, but no evaluation is
    assert "--cached-only" in (fresh / "tiny-ci" / "table.md").read_text()
