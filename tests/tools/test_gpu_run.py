"""scripts/gpu_run.py: its parts, the claims it judges and the summary it writes (from a made-up results.json)."""

from __future__ import annotations

import importlib.util
import json
import os
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def gpu_run():
    spec = importlib.util.spec_from_file_location("gpu_run", ROOT / "scripts" / "gpu_run.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def _row(name, t1, t2, t4, stage_dir=None, wall=None):
    suites = {"T1": {"n": 128, "scores": {"avg": t1}}, "T2": {"n": 128, "scores": {"avg": t2}},
              "T4": {"n": 128, "scores": {"prompt_strict": t4}}}
    train = {"model_dir": str(stage_dir), "stage": "sft", "wall_s": wall} if stage_dir else {}
    return {"row": name, "status": "ok", "suites": suites, "train": train}


def test_claims_are_judged_at_the_issue_thresholds(gpu_run):
    rows = [_row("base", 0.5, 0.45, 0.6), _row("fixed-SFT", 0.9, 0.5, 0.4), _row("HSA-SFT", 0.88, 0.82, 0.45),
            _row("HSA-SFT+distill", 0.86, 0.8, 0.55), _row("HAT", 0.9, 0.85, 0.5)]
    verdicts = dict(gpu_run.claims({"rows": rows}))
    assert verdicts["fixed-SFT's T2 AVG >= 30 points under its T1"].startswith("holds (T1 90.0, T2 50.0")
    assert verdicts["HSA-SFT's T2 AVG within 10 points of its T1"].startswith("holds")
    assert verdicts["distillation gives back T4 points (HSA-SFT+distill > HSA-SFT, prompt-strict)"].startswith("holds")
    assert verdicts["HAT >= HSA-SFT on T2 AVG"].startswith("holds")
    rows[1] = _row("fixed-SFT", 0.9, 0.7, 0.4)  # only 20 points under: the claim fails, with its numbers
    rows[4]["status"] = "error"
    verdicts = dict(gpu_run.claims({"rows": rows}))
    assert verdicts["fixed-SFT's T2 AVG >= 30 points under its T1"] == "does not hold (T1 90.0, T2 70.0)"
    assert verdicts["HAT >= HSA-SFT on T2 AVG"] == "not measured"


def test_summary_reads_the_stage_stats_and_names_unfinished_parts(gpu_run, tmp_path):
    stage = tmp_path / "sft-abc"
    stage.mkdir()
    (stage / "sft_stats.json").write_text(json.dumps({"tokens_per_s": 123456.0, "padding_share": 0.031,
                                                      "device": "cuda:0"}))
    res = tmp_path / "results" / "smollm2-135m-gpu"
    res.mkdir(parents=True)
    rl = tmp_path / "rl-abc"
    rl.mkdir()
    (rl / "rl_stats.json").write_text(json.dumps({"device": "cuda:0", "rollouts_per_s": 6.5, "rollout_tokens": {
        "forward_passes": 1200, "cuda_graph_steps": 1150}}))
    hat = _row("HAT", 0.8, 0.75, 0.5, rl, {"rl": 300.0})
    hat["train"]["stage"] = "rl"
    (res / "results.json").write_text(json.dumps({"rows": [_row("HSA-SFT", 0.8, 0.7, 0.5, stage, {"sft": 61.5}),
                                                           hat]}))
    (res / "runs" / "hsa").mkdir(parents=True)
    (res / "runs" / "hsa" / "metrics.jsonl").write_text(json.dumps(
        {"stage": "collect", "kind": "stats", "wall_s": 12.25, "kept": 8890, "candidates": 9000}) + "\n")
    (tmp_path / "bench_sft.log").write_text("noise\nSFT, preset x\n| layout | tokens/s |\n| 16x1 | 99 |\n")
    bench = {"model": "m", "requests": 64, "wall_s": 10.0, "completion_tokens_per_s": 900.0, "decode_s": 8.0,
             "mean_reward": 0.5, "device": "cuda"}
    (tmp_path / "decode.log").write_text("# 16 CPUs\n" + "\n".join(json.dumps({**bench, **r}) for r in (
        {"path": "new-eager", "requests_per_s": 6.4, "actions_digest": "a"},
        {"path": "new", "requests_per_s": 19.2, "actions_digest": "b"})) + "\n")
    for row in ({"part": "bench_sft", "status": "ok", "wall_s": 3.0, "limit_s": 900},
                {"part": "reproduce", "status": "stopped at its 5400 s limit", "wall_s": 5400.0, "limit_s": 5400}):
        gpu_run.record_part(tmp_path, row)
    text = gpu_run.summary(tmp_path).read_text()
    assert "| HSA-SFT | sft | 61.5 | cuda:0 | 123,456 | 3.1% |  |  |" in text
    assert "| HAT | rl | 300.0 | cuda:0 |  |  | 6.50 | 1,150 of 1,200 |" in text
    assert "| reproduce | stopped at its 5400 s limit |" in text and "| 16x1 | 99 |" in text
    assert "| HSA-SFT | 80.0 | 70.0 | n/a | 50.0 | 128 |  |" in text
    assert "| hsa | collect | 12.2 | kept 8890 of 9000 |" in text
    assert "| m | new-eager | cuda | 64 | 10.0 | 6.40 | 900 | 8.0 | True | 0.500 |" in text
    assert "| m | new | cuda | 64 | 10.0 | 19.20 | 900 | 8.0 | False | 0.500 |" in text  # other actions: said so


def test_parts_and_bad_input(gpu_run, tmp_path, capsys):
    names = [p[0] for p in gpu_run.parts(True, tmp_path)]
    assert names == ["env", "model", "decode", "reproduce:fixed", "reproduce:hsa", "reproduce:distill", "reproduce:hat",
                     "reproduce:fixed-rl", "bench_sft", "bench_collect"]  # the table first, the benchmarks after
    full = dict((n, c) for n, _, c in gpu_run.parts(False, tmp_path))
    repro = full["reproduce:fixed-rl"]
    assert "--ci" not in repro and "smollm2-135m-gpu" in repro and "--set" not in repro
    assert repro[repro.index("--rows") + 1] == ",".join(gpu_run.ROWS)  # the last step has every row
    assert full["reproduce:fixed"][full["reproduce:fixed"].index("--rows") + 1] == "base,fixed-SFT"
    short = dict((n, c) for n, _, c in gpu_run.parts(False, tmp_path, short=True))
    assert short["reproduce:hsa"][short["reproduce:hsa"].index("--suites") + 1] == "T1,T2"
    assert short["reproduce:distill"][short["reproduce:distill"].index("--suites") + 1] == "T1,T2,T4"
    assert "collect.episodes=2400" in short["reproduce:fixed"]
    decode = short["decode"]  # the evaluations' shape on the GPU: the graph against the eager step
    assert decode[decode.index("--paths") + 1] == "new-eager,new" and decode[decode.index("--device") + 1] == "cuda"
    assert all(c[1] == "-P" for n, _, c in gpu_run.parts(False, tmp_path) if n == "model" or n.startswith("repro"))
    with pytest.raises(SystemExit):
        gpu_run.main(["--ci", "--out", str(tmp_path / "o"), "--only", "nope"])
    assert "unknown part 'nope'" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        gpu_run.main(["--ci", "--out", str(tmp_path / "o"), "--deadline", "0"])
    assert "--deadline must be > 0" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        gpu_run.main(["--ci", "--out", str(tmp_path / "o"), "--steps", "hsa,nope"])
    assert "unknown step 'nope'" in capsys.readouterr().err
    (tmp_path / "bad.json").write_text("{}")
    with pytest.raises(SystemExit):
        gpu_run.main(["--ci", "--out", str(tmp_path / "o"), "--carry", str(tmp_path / "bad.json")])
    assert "--carry" in capsys.readouterr().err and not (tmp_path / "o").exists()
    (tmp_path / "full.json").write_text(json.dumps({"ci": False, "rows": [], "command": "livesim hat reproduce "
                                                    "--preset smollm2-135m-gpu --set sft.epochs=1"}))
    with pytest.raises(SystemExit):  # rows of a run with other settings cannot join this table
        gpu_run.main(["--ci", "--short", "--out", str(tmp_path / "o"), "--carry", str(tmp_path / "full.json")])
    assert "its run had other settings (ci=False, sets sft.epochs=1)" in capsys.readouterr().err
    (tmp_path / "tiny.json").write_text(json.dumps({"preset": "tiny", "ci": True, "rows": []}))
    with pytest.raises(SystemExit):
        gpu_run.main(["--ci", "--out", str(tmp_path / "o"), "--carry", str(tmp_path / "tiny.json")])
    assert "a results.json of preset 'tiny', not 'smollm2-135m-gpu'" in capsys.readouterr().err


def test_steps_plan_only_their_rows(gpu_run, tmp_path):
    plan = dict((n, c) for n, _, c in gpu_run.parts(False, tmp_path, short=True, steps=("hsa", "distill", "hat")))
    assert [n for n in plan if n.startswith("reproduce:")] == ["reproduce:hsa", "reproduce:distill", "reproduce:hat"]
    assert plan["reproduce:hsa"][plan["reproduce:hsa"].index("--rows") + 1] == "HSA-SFT"
    assert plan["reproduce:hat"][plan["reproduce:hat"].index("--rows") + 1] == "HSA-SFT,HSA-SFT+distill,HAT"
    assert "--eval-workers" not in plan["reproduce:hat"]
    three = dict((n, c) for n, _, c in gpu_run.parts(False, tmp_path, short=True, steps=("hat",), eval_workers=3))
    assert three["reproduce:hat"][three["reproduce:hat"].index("--eval-workers") + 1] == "3"


def test_carried_rows_join_the_table_and_claims(gpu_run, tmp_path):
    earlier = tmp_path / "earlier.json"
    earlier.write_text(json.dumps({"preset": "smollm2-135m-gpu", "command": "livesim hat reproduce ...", "rows": [
        _row("base", 0.0, 0.0, 0.3), _row("fixed-SFT", 0.6, 0.0, 0.2), _row("HSA-SFT", 0.5, 0.1, 0.1)]}))
    res = tmp_path / "out" / "results" / "smollm2-135m-gpu"
    res.mkdir(parents=True)
    now = {"preset": "smollm2-135m-gpu", "baseline": "base", "rows": [
        _row("HSA-SFT", 0.58, 0.55, 0.25), _row("HSA-SFT+distill", 0.57, 0.5, 0.3),
        {"row": "HAT", "status": "not measured", "note": "stopped", "train": {}}]}
    (res / "results.json").write_text(json.dumps(now))
    text = gpu_run.summary(tmp_path / "out", carry=earlier).read_text()
    merged = json.loads((tmp_path / "out" / "results.json").read_text())
    assert [r["row"] for r in merged["rows"]] == ["base", "fixed-SFT", "HSA-SFT", "HSA-SFT+distill", "HAT"]
    hsa = next(r for r in merged["rows"] if r["row"] == "HSA-SFT")
    assert hsa["suites"]["T2"]["scores"]["avg"] == 0.55 and not hsa["train"].get("carried")  # this run's, whole
    assert next(r for r in merged["rows"] if r["row"] == "fixed-SFT")["train"]["carried_from"] == str(earlier)
    assert "| fixed-SFT (carried) | 60.0 | 0.0 |" in text
    assert "| fixed-SFT's T2 AVG >= 30 points under its T1 | holds (T1 60.0, T2 0.0) |" in text
    assert "| HSA-SFT's T2 AVG within 10 points of its T1 | holds (T1 58.0, T2 55.0) |" in text
    assert "holds (HSA-SFT 25.0, +distill 30.0, base 30.0)" in text  # base shown, not required
    assert "| HAT >= HSA-SFT on T2 AVG | not measured |" in text
    assert "fixed-SFT" in (tmp_path / "out" / "table.md").read_text()
    # carried again from the joined table, a row keeps naming the run that measured it
    again = gpu_run.with_carried({"preset": "smollm2-135m-gpu", "rows": []}, tmp_path / "out" / "results.json")
    rows = {r["row"]: r["train"] for r in again["rows"]}
    assert rows["fixed-SFT"]["carried_from"] == str(earlier)
    assert rows["HSA-SFT"]["carried_from"] == str(tmp_path / "out" / "results.json")
    assert rows["fixed-SFT"]["carried_command"] == "livesim hat reproduce ..."


def test_deadline_skips_the_parts_after_it(gpu_run, tmp_path):
    assert gpu_run.main(["--ci", "--out", str(tmp_path), "--only", "env,model", "--deadline", "4"]) == 1
    text = (tmp_path / "parts.md").read_text()
    assert "| env | skipped (past --deadline) |" in text and "| model | skipped (past --deadline) |" in text


def test_env_part_runs_at_ci_size(gpu_run, tmp_path):
    assert gpu_run.main(["--ci", "--out", str(tmp_path), "--only", "env"]) == 0
    env = json.loads((tmp_path / "env.log").read_text().strip().splitlines()[-1])
    assert env["device"] in ("cpu", "cuda") and env["USE_HUB_KERNELS"] == os.environ.get("USE_HUB_KERNELS", "NO")
    assert "| env | ok |" in (tmp_path / "parts.md").read_text() and (tmp_path / "summary.md").is_file()


def test_summary_only_rewrites_the_summary_from_a_copied_run(gpu_run, tmp_path, capsys):
    earlier = tmp_path / "earlier.json"
    sets = " ".join(f"--set {x}" for x in gpu_run.SHORT_SETS)
    earlier.write_text(json.dumps({"preset": "smollm2-135m-gpu", "ci": False, "command": f"livesim ... {sets}",
                                   "rows": [_row("fixed-SFT", 0.6, 0.0, 0.2)]}))
    res = tmp_path / "run" / "results" / "smollm2-135m-gpu"
    res.mkdir(parents=True)
    (res / "results.json").write_text(json.dumps({"preset": "smollm2-135m-gpu", "baseline": "base",
                                                  "rows": [_row("HSA-SFT", 0.58, 0.55, 0.25)]}))
    (tmp_path / "run" / "parts.md").write_text("| part | status | wall s | limit s |\n|---|---|---|---|\n"
                                               "| reproduce:hsa | ok | 293.0 | 472 |\n")
    assert gpu_run.main(["--short", "--summary-only", "--out", str(tmp_path / "run"), "--carry", str(earlier)]) == 0
    text = (tmp_path / "run" / "summary.md").read_text()
    assert "| reproduce:hsa | ok | 293.0 | 472 |" in text and "| fixed-SFT (carried) | 60.0 | 0.0 |" in text
    with pytest.raises(SystemExit):
        gpu_run.main(["--summary-only", "--out", str(tmp_path / "empty")])
    assert "--summary-only needs --out with a run's results/ folder" in capsys.readouterr().err


def _run_with_records(root, n_records=6, samples_bytes=30_000):
    """A run folder as `hat reproduce` leaves it: a table, records and (incompressible) samples beside them."""
    from livesim.hat.samples import write_samples

    res = root / "results" / "smollm2-135m-gpu"
    (res / "evals").mkdir(parents=True)
    rows = []
    rng = __import__("random").Random(0)
    for i in range(n_records):
        key = f"k{i:023d}"
        qa_rows = [{"id": f"T1/{j:04d}", "accuracy": float(j % 2), "effectiveness": float(j % 3 > 0),
                    "fallback": j % 4 == 0, "parse_errors": j % 5} for j in range(10)]
        (res / "evals" / f"{key}.json").write_text(json.dumps({"suite": "T1", "rows": qa_rows}))
        write_samples(res / "evals" / f"{key}.samples.jsonl.gz",
                      [{"id": r["id"], "noise": "".join(rng.choice("abcdefghij0123456789") for _ in
                                                         range(samples_bytes // 10))} for r in qa_rows])
        row = _row(f"r{i}", 0.5, 0.4, 0.2)
        row["suites"]["T1"]["cache_key"] = key
        rows.append(row)
    (res / "results.json").write_text(json.dumps({"preset": "smollm2-135m-gpu", "baseline": "base", "rows": rows}))
    (res / "table.md").write_text("old table\n")
    return res


@pytest.mark.parametrize(("max_files", "max_bytes", "n_records"), [(8, 16 << 20, 6), (3, 70_000, 9), (2, 60_000, 9)])
def test_packs_hold_the_run_within_their_limits_and_summary_only_rebuilds_the_table(gpu_run, tmp_path, max_files,
                                                                                    max_bytes, n_records):
    run = tmp_path / "run"
    _run_with_records(run, n_records)
    packs, left = gpu_run.pack_results(run, max_files, max_bytes)
    assert 1 <= len(packs) <= max_files and all(p.stat().st_size <= max_bytes for p in packs)
    assert (run / "packs" / "left-out.txt").read_text().splitlines() == left
    copied = tmp_path / "copied"
    (copied / "packs").mkdir(parents=True)
    for p in packs:
        (copied / "packs" / p.name).write_bytes(p.read_bytes())
    assert gpu_run.main(["--summary-only", "--out", str(copied)]) == 0
    back = sorted(str(f.relative_to(copied)) for f in (copied / "results").rglob("*") if f.is_file())
    everything = sorted(str(f.relative_to(run)) for f in (run / "results").rglob("*") if f.is_file())
    assert sorted(back + left) == everything  # what did not fit is named, nothing else is lost
    for f in back:
        if not f.endswith(("results.json", "table.md")):
            assert (copied / f).read_bytes() == (run / f).read_bytes()
    table = (copied / "results" / "smollm2-135m-gpu" / "table.md").read_text()
    assert "## Outcomes per request (percent)" in table
    kept = {r["row"] for r in json.loads((copied / "results.json").read_text())["rows"]
            if r["suites"]["T1"].get("samples")}
    assert kept == {f"r{i}" for i in range(n_records)
                    if f"results/smollm2-135m-gpu/evals/k{i:023d}.samples.jsonl.gz" in back}


def test_a_pack_that_escapes_its_folder_is_refused(gpu_run, tmp_path, capsys):
    import io
    import tarfile

    (tmp_path / "packs").mkdir()
    with tarfile.open(tmp_path / "packs" / "results-0.tar", "w") as tar:
        data = b"x"
        info = tarfile.TarInfo("../evil.txt")
        info.size = len(data)
        tar.addfile(info, io.BytesIO(data))
    with pytest.raises(SystemExit):
        gpu_run.main(["--summary-only", "--out", str(tmp_path)])
    assert "not a file under results/" in capsys.readouterr().err and not (tmp_path.parent / "evil.txt").exists()


def test_no_samples_reaches_every_reproduce_part(gpu_run, tmp_path, monkeypatch):
    seen = []
    monkeypatch.setattr(gpu_run, "run_part", lambda name, limit, cmd, out: seen.append((name, cmd)) or
                        {"part": name, "status": "ok", "wall_s": 0.0, "limit_s": limit})
    assert gpu_run.main(["--ci", "--out", str(tmp_path), "--only", "reproduce", "--no-samples"]) == 0
    assert seen and all(cmd[-1] == "--no-samples" for name, cmd in seen if name.startswith("reproduce:"))
