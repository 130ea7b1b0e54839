"""Evaluation, the results writer, reproduce's row mapping, the A/B analogue and the harness-edit test.

Rows come from evaluating real agents (oracle, memorizer, null and an untrained tiny model); nothing is trained.
"""

from __future__ import annotations

import json
import sys
import types
from pathlib import Path

import pytest

from livesim.hat.evaluate import AgentSpec, compare_results, evaluate, paired_diff, suite_drop
from livesim.hat.report import RowResult, build_results, chart_curves, write_results

PNG = b"\x89PNG\r\n\x1a\n"


@pytest.fixture(autouse=True)
def _cache(tmp_path_factory, monkeypatch):
    monkeypatch.setenv("LIVESIM_CACHE", str(tmp_path_factory.getbasetemp() / "livesim-cache"))


@pytest.fixture(scope="module")
def scripted(tmp_path_factory):
    mp = pytest.MonkeyPatch()
    mp.setenv("LIVESIM_CACHE", str(tmp_path_factory.getbasetemp() / "livesim-cache"))
    out = {name: evaluate(AgentSpec(name), ["T1", "T2", "T2-stress", "T2-tools", "T2-prompt", "T3", "T4"], limit=8)
           for name in ("oracle", "memorizer", "null")}
    mp.undo()
    return out


def test_scores_of_scripted_agents(scripted):
    o, m, n = scripted["oracle"]["suites"], scripted["memorizer"]["suites"], scripted["null"]["suites"]
    for suite in ("T1", "T2", "T2-stress", "T2-tools", "T2-prompt"):
        s = o[suite]["scores"]
        assert s["n"] == 8 and s["accuracy"] == s["effectiveness"] == s["avg"] == 1.0
        assert set(s["by_intent"]) and all(b["avg"] == 1.0 for b in s["by_intent"].values())
        assert s["latency"]["sim_p50"] > 0 and s["latency"]["sim_p95"] >= s["latency"]["sim_p50"]
    assert m["T1"]["scores"]["avg"] == 1.0 and m["T2"]["scores"]["avg"] == 0.0  # fixed harness collapses
    assert n["T1"]["scores"]["avg"] == 0.0 and n["T4"]["scores"]["prompt_strict"] == 0.0
    assert o["T4"]["scores"] is None and "ground truth" in o["T4"]["note"]
    t3 = o["T3"]["scores"]["by_subset"]
    assert {"tool_faults", "prompt", "perturbation", "injection"} <= set(t3)
    assert n["T4"]["scores"]["n_instructions"] >= 8


def test_paired_differences_and_the_t1_t2_drop(scripted):
    drop = suite_drop(scripted["memorizer"])["avg"]
    assert drop["mean"] == -1.0 and drop["ci95"] == [-1.0, -1.0] and drop["n"] == 8
    assert suite_drop(scripted["oracle"])["avg"]["mean"] == 0.0
    d = compare_results(scripted["oracle"], scripted["null"])
    assert d["T1"]["avg"]["mean"] == -1.0 and "T4" not in d  # the oracle has no T4 rows to pair with
    rows_a = [{"id": str(i), "avg": a, "accuracy": a, "effectiveness": a, "reward": a} for i, a in
              enumerate([0, 0, 1, 1, 0, 1, 0, 1])]
    rows_b = [{**r, "avg": 1.0, "accuracy": 1.0, "effectiveness": 1.0, "reward": 1.0} for r in rows_a]
    diff = paired_diff(rows_a, rows_b, "qa", n_boot=2000)["avg"]
    assert diff["mean"] == 0.5 and 0.0 < diff["ci95"][0] < 0.5 < diff["ci95"][1] <= 1.0


def test_instruction_level_difference_is_a_ratio():
    a = [{"id": "p1", "strict": [True, False], "loose": [True, True], "prompt_strict": 0.0, "prompt_loose": 1.0},
         {"id": "p2", "strict": [False], "loose": [False], "prompt_strict": 0.0, "prompt_loose": 0.0}]
    b = [{**r, "strict": [True] * len(r["strict"]), "prompt_strict": 1.0} for r in a]
    d = paired_diff(a, b, "if", n_boot=500)
    assert d["inst_strict"]["mean"] == pytest.approx(2 / 3) and d["prompt_strict"]["mean"] == 1.0


def test_results_are_cached(scripted, monkeypatch):
    def boom(self):
        raise AssertionError("a cached evaluation must not build the agent")

    monkeypatch.setattr(AgentSpec, "build", boom)
    again = evaluate(AgentSpec("oracle"), ["T1", "T2"], limit=8)
    assert again["suites"]["T1"]["scores"] == scripted["oracle"]["suites"]["T1"]["scores"]


def test_suites_in_processes_give_the_in_process_results(scripted, monkeypatch):
    # memorizer: deterministic, cheap; each suite in its own spawned process with its own agent
    from livesim.hat import evaluate as ev

    real, calls = ev._suites_in_processes, []

    def spy(*a, **k):
        calls.append(out := real(*a, **k))
        return out

    monkeypatch.setattr(ev, "_suites_in_processes", spy)
    suites = ["T1", "T2", "T2-stress"]
    par = evaluate(AgentSpec("memorizer"), suites, limit=4, use_cache=False, workers=2)
    assert len(calls) == 1 and sorted(calls[0]) == sorted(suites)  # all three ran in the pool
    one = evaluate(AgentSpec("memorizer"), suites, limit=4, use_cache=False)
    assert list(par["suites"]) == suites
    timing = {"latency", "latency_sim", "latency_tok", "gen_s", "tok_real"}  # wall-clock measurements

    def same(d):
        return {k: v for k, v in d.items() if k not in timing}

    for name, r in one["suites"].items():
        got = par["suites"][name]
        assert got["cache_key"] == r["cache_key"] and same(got["scores"]) == same(r["scores"])
        assert [same(x) for x in got["rows"]] == [same(x) for x in r["rows"]]


def test_eval_workers_below_one_is_one_line_before_anything_is_written(tmp_path):
    from livesim.cli import main

    with pytest.raises(SystemExit, match="--eval-workers must be >= 1, got 0"):
        main(["hat", "reproduce", "--preset", "tiny", "--untrained", "--eval-workers", "0",
              "--out", str(tmp_path / "r")])
    assert not (tmp_path / "r").exists()


def test_compact_presentation_is_the_same_requests_in_another_form(scripted):
    from livesim.hat.evaluate import evaluate_suite

    for suite in ("T1", "T2"):
        full = scripted["oracle"]["suites"][suite]
        compact = evaluate_suite(AgentSpec("oracle"), suite, limit=8, prompt_style="compact")
        assert compact["prompt_style"] == "compact" and "prompt_style" not in full
        assert [r["id"] for r in compact["rows"]] == [r["id"] for r in full["rows"]]
        assert compact["scores"]["avg"] == full["scores"]["avg"] == 1.0  # the oracle's reward is unchanged
    mem = evaluate_suite(AgentSpec("memorizer"), "T1", limit=8, prompt_style="compact")
    assert mem["scores"]["avg"] == 1.0  # names and rules unchanged: compact is not a harness change for the grader
    with pytest.raises(ValueError, match="prompt_style must be 'full' or one of"):
        evaluate_suite(AgentSpec("oracle"), "T1", limit=2, prompt_style="yaml")


@pytest.fixture(scope="module")
def tiny_result(tiny_model_dir, tmp_path_factory):
    mp = pytest.MonkeyPatch()
    mp.setenv("LIVESIM_CACHE", str(tmp_path_factory.getbasetemp() / "livesim-cache"))
    out = evaluate(AgentSpec.for_model(tiny_model_dir, label="tiny (untrained)", max_new_tokens=8, batch_size=4),
                   ["T1", "T2", "T4"], limit=4, batch_size=4)  # the settings of the stand-in reproduce below
    mp.undo()
    return out


def test_an_untrained_model_is_scored_with_real_token_latency(tiny_result):
    t1 = tiny_result["suites"]["T1"]
    assert t1["n"] == 4 and t1["scores"]["latency"]["tok_source"] == "tokenizer"
    assert all(r["gen_s"] > 0 for r in t1["rows"])
    t4 = tiny_result["suites"]["T4"]["scores"]
    assert t4["n"] == 4 and 0.0 <= t4["prompt_strict"] <= t4["prompt_loose"] <= 1.0
    # each suite keeps what its own requests generated (the agent's counters are cumulative across suites)
    gen = {name: tiny_result["suites"][name]["generation"] for name in ("T1", "T4")}
    assert all(g["completion_tokens"] > 0 and g["prefill_tokens"] <= g["prompt_tokens"] for g in gen.values())
    assert gen["T1"]["cuda_graph_steps"] == gen["T4"]["cuda_graph_steps"] == 0  # on the CPU: the eager loop
    assert "generation" not in next(iter(evaluate(AgentSpec("oracle"), ["T1"], limit=2)["suites"].values()))


def test_writer_produces_table_json_and_charts(scripted, tiny_result, tmp_path):
    rows = [RowResult("base", tiny_result, train={"run_dir": str(tmp_path / "run")}),
            RowResult("fixed-SFT", scripted["memorizer"]), RowResult("HSA-SFT", scripted["oracle"]),
            RowResult("null", scripted["null"]), RowResult("HAT", None, "missing", "not trained")]
    (tmp_path / "run").mkdir()
    lines = [json.dumps({"stage": "sft", "step": i, "loss": 2 - i / 10}) for i in range(5)]
    (tmp_path / "run" / "metrics.jsonl").write_text("\n".join(lines) + "\nnot json\n")
    written = write_results(tmp_path / "out", "tiny", rows, extra={"command": "livesim hat reproduce --preset tiny"})
    for key in ("json", "table", "suites_png", "drop_png", "curves_png"):
        assert written[key].exists()
    for key in ("suites_png", "drop_png", "curves_png"):
        assert written[key].read_bytes()[:8] == PNG
    results = json.loads(written["json"].read_text())
    assert [r["row"] for r in results["rows"]] == ["base", "fixed-SFT", "HSA-SFT", "null", "HAT"]
    mem = results["rows"][1]
    assert mem["t1_to_t2"]["avg"]["mean"] == -1.0 and mem["vs_base"]["T1"]["avg"]["n"] == 4
    table = written["table"].read_text()
    # memorizer: T1 Acc, Eff, AVG, pass, answered; T2 Acc, Eff, AVG, pass; the paired drop
    assert ("| fixed-SFT | 100.0 | 100.0 | 100.0 | 100.0 | 100.0 | 0.0 | 0.0 | 0.0 | 0.0 | -100.0 [-100.0, -100.0]"
            in table)
    assert "| HAT | missing: not trained |" in table and "livesim hat reproduce --preset tiny" in table
    assert mem["t1_to"]["T2-tools"]["avg"]["mean"] == -1.0 and mem["t1_to"]["T2-prompt"]["avg"]["mean"] == 0.0
    # where the memorizer's drop comes from: renamed tools, not the prompt's forms (T2-stress renames too)
    assert ("| fixed-SFT | -100.0 [-100.0, -100.0] | n/a | n/a | -100.0 [-100.0, -100.0] | +0.0 [+0.0, +0.0] | n/a "
            "| -100.0 [-100.0, -100.0] |") in table
    assert "| HSA-SFT | +0.0 [+0.0, +0.0] | n/a | n/a | +0.0 [+0.0, +0.0] | +0.0 [+0.0, +0.0] | n/a" in table
    claims = {f["claim"].split(" (")[0]: f["holds"] for f in results["findings"]}
    assert claims["fixed-SFT's T2 AVG falls well below its T1"] is True  # the memorizer stands in for it
    assert claims["HSA-SFT's T2 AVG stays within a few points of its T1"] is True  # the oracle does
    assert claims["HAT beats base on T2 AVG"] is None  # not measured, never guessed


def test_tables_are_written_without_matplotlib(scripted, tmp_path, monkeypatch, capsys):
    """matplotlib is a training extra a GPU image may lack: the table and records still come out, charts are named as
    not drawn, and a training run's report says so instead of failing after its stages were trained."""
    import importlib.util
    import types as _types

    from livesim.hat import train as train_mod

    real = importlib.util.find_spec
    monkeypatch.setattr(importlib.util, "find_spec", lambda name, *a: None if name == "matplotlib" else real(name, *a))
    written = write_results(tmp_path / "out", "tiny", [RowResult("HSA-SFT", scripted["oracle"])])
    assert sorted(written) == ["json", "table"] and written["table"].is_file()
    assert not list((tmp_path / "out").glob("*.png")) and "charts not drawn" in capsys.readouterr().err
    run_dir = tmp_path / "run"
    run_dir.mkdir()
    result = _types.SimpleNamespace(run_dir=run_dir, base_model_dir=tmp_path, stats={}, wall_s={}, made_s={}, dev={})
    cfg = train_mod.TrainConfig.from_preset("tiny", ci=True).model_copy(update={"stages": ()})
    report = train_mod.write_report(result, cfg).read_text()
    assert "curves not drawn: matplotlib is not installed" in report and not (run_dir / "curves.png").exists()


def test_curves_need_metrics(tmp_path):
    assert chart_curves({"run": tmp_path}, tmp_path / "c.png") is None
    assert build_results("tiny", [])["rows"] == []


# ------------------------------------------------------------------------------------------------ reproduce
def test_row_mapping_covers_the_paper():
    from livesim.hat.reproduce import RUNS, plan

    rows = {r.name: r for r in plan()}
    assert list(rows) == ["base", "fixed-SFT", "HSA-SFT", "fixed-SFT+distill", "HSA-SFT+distill", "HAT",
                          "fixed-RL", "oracle", "reader"]
    assert rows["reader"].agent == "reader" and rows["oracle"].agent == "oracle"
    assert RUNS[rows["fixed-SFT"].run]["fixed_harness"] and not RUNS[rows["HSA-SFT"].run]["fixed_harness"]
    assert (rows["HAT"].run, rows["HAT"].stage) == ("hsa", "rl")
    assert RUNS[rows["fixed-RL"].run] == {**RUNS["hsa"], "rl_fixed_harness": True}
    with pytest.raises(ValueError, match="unknown row 'SFT'"):
        plan(["SFT"])


def test_reproduce_without_the_training_pipeline_is_a_clear_error(monkeypatch, tmp_path):
    from livesim.hat.reproduce import TrainingUnavailableError, reproduce

    monkeypatch.setitem(sys.modules, "livesim.hat.train", None)  # import fails
    with pytest.raises(TrainingUnavailableError, match="the training pipeline cannot be imported"):
        reproduce("tiny", ci=True, rows=["HAT"], out_root=tmp_path)


def test_reproduce_ci_end_to_end_with_a_stand_in_pipeline(monkeypatch, tmp_path, tiny_model_dir, tiny_result):
    """The contract's API, served by a stand-in that 'trains' nothing: every stage is the untrained tiny model."""
    from livesim.hat import reproduce as R

    # tiny_result's settings: its cached evaluations serve every row here, so only the harness edits run
    monkeypatch.setattr(R, "CI_PRESET", R.EvalPreset(("T1", "T2", "T4"), 4, 8, 4, 1, 30.0, 4))
    reproduce = R.reproduce
    calls = []

    class Cfg:
        def __init__(self, **kw):
            self.kw = kw

        @classmethod
        def from_preset(cls, preset, ci=False):
            return cls(preset=preset, ci=ci)

        def model_copy(self, update):
            return Cfg(**{**self.kw, **update})

        def with_sets(self, sets):
            if any("=" not in x for x in sets):
                raise ValueError(f"--set expects SECTION.FIELD=VALUE, got {sets[0]!r}")
            return Cfg(**{**self.kw, "sets": tuple(sets)})

    def train(cfg):
        calls.append(cfg.kw)
        run_dir = Path(cfg.kw["out_dir"])
        run_dir.mkdir(parents=True, exist_ok=True)
        (run_dir / "metrics.jsonl").write_text(json.dumps({"stage": "sft", "step": 1, "loss": 1.5}) + "\n")
        return types.SimpleNamespace(base_model_dir=tiny_model_dir, run_dir=run_dir,
                                     stage_dirs={s: tiny_model_dir for s in cfg.kw["stages"]},
                                     wall_s={s: 0.0 for s in cfg.kw["stages"]})

    monkeypatch.setitem(sys.modules, "livesim.hat.train", types.SimpleNamespace(TrainConfig=Cfg, train=train))
    written = reproduce("tiny", ci=True, out_root=tmp_path, rows=["base", "fixed-SFT", "HAT", "oracle"],
                        harness_edit=True, ab=False)
    assert sorted(c["fixed_harness"] for c in calls) == [False, True] and all(c["ci"] for c in calls)
    results = json.loads(written["json"].read_text())
    assert [r["row"] for r in results["rows"]] == ["base", "fixed-SFT", "HAT", "oracle"]
    assert all(r["status"] == "ok" for r in results["rows"])
    assert results["rows"][2]["train"]["stage"] == "rl" and len(results["harness_edit"]) == 4
    assert written["curves_png"].read_bytes()[:8] == PNG and "Harness-edit test" in written["table"].read_text()
    # each run is trained only as deep as a chosen row needs
    assert sorted((c["fixed_harness"], c["stages"]) for c in calls) == [(False, ("sft", "distill", "rl")),
                                                                         (True, ("sft",))]
    calls.clear()
    again = reproduce("tiny", ci=True, out_root=tmp_path / "b", rows=["base", "HSA-SFT"], harness_edit=False, ab=False)
    assert [c["stages"] for c in calls] == [("sft",)]
    assert ("livesim hat reproduce --preset tiny --ci --rows base,HSA-SFT --no-ab --no-harness-edit"
            in again["table"].read_text())  # the table names the command that wrote it
    # --set reaches every run's config, --suites replaces the preset's; both are in the command the table names
    calls.clear()
    third = reproduce("tiny", ci=True, out_root=tmp_path / "c", rows=["base", "HSA-SFT"], harness_edit=False, ab=False,
                      suites=["T1"], sets=["sft.steps=3"])
    assert [c["sets"] for c in calls] == [("sft.steps=3",)]
    assert set(json.loads(third["json"].read_text())["rows"][1]["suites"]) == {"T1"}
    assert "--suites T1 --set sft.steps=3" in third["table"].read_text()
    with pytest.raises(ValueError, match="SECTION.FIELD=VALUE"):
        reproduce("tiny", ci=True, out_root=tmp_path / "d", rows=["HSA-SFT"], ab=False, harness_edit=False,
                  sets=["sft.steps"])
    assert not (tmp_path / "d").exists()  # refused before anything is trained or written


# ------------------------------------------------------------------------------------------------ A/B, edits
def test_ab_streams_paired_by_seed():
    from livesim.hat.ab import render_ab, run_ab

    r = run_ab(AgentSpec("oracle"), AgentSpec("memorizer"), seeds=[0, 1], duration_s=60, n_boot=500)
    assert r["agents"] == ["oracle", "memorizer"] and r["patch_at_s"] == 30
    for m in ("gmv", "ipv"):
        d = r["metrics"][m]["diff"]["memorizer"]
        assert d["ci95"][0] <= d["mean"] <= d["ci95"][1]
    assert r["metrics"]["mean_reward"]["mean"]["oracle"] == pytest.approx(1.0)
    assert r["metrics"]["mean_reward"]["mean"]["memorizer"] < 1.0  # it breaks after the patch
    assert "| gmv |" in render_ab(r)


def test_ab_presents_the_prompt_style_and_keeps_a_record(tmp_path, monkeypatch):
    import livesim.hat.ab as ab

    seen = []
    real = ab.compare

    def spy(*args, **kwargs):
        seen.append(kwargs.get("harness"))
        return real(*args, **kwargs)

    monkeypatch.setattr(ab, "compare", spy)
    a, b = AgentSpec("oracle", label="A"), AgentSpec("memorizer", label="B")
    assert ab.run_ab(a, b, seeds=[0], duration_s=30, n_boot=200, records=tmp_path, cached_only=True) is None
    r = ab.run_ab(a, b, seeds=[0], duration_s=30, n_boot=200, prompt_style="compact", records=tmp_path)
    assert seen[0].prompt.style == "compact" and r["prompt_style"] == "compact"
    assert (tmp_path / f"ab-{r['ab_key']}.json").is_file() and "presented compact" in ab.render_ab(r)
    # the record serves the same agents under other labels, without a stream; another style is another record
    monkeypatch.setattr(ab, "compare", lambda *a, **k: pytest.fail("ran streams despite the record"))
    again = ab.run_ab(AgentSpec("oracle", label="X"), AgentSpec("memorizer", label="Y"), seeds=[0], duration_s=30,
                      n_boot=200, prompt_style="compact", records=tmp_path, cached_only=True)
    assert again["agents"] == ["X", "Y"] and again["metrics"]["gmv"]["mean"]["Y"] == r["metrics"]["gmv"]["mean"]["B"]
    assert ab.run_ab(a, b, seeds=[0], duration_s=30, n_boot=200, records=tmp_path, cached_only=True) is None


def test_harness_edit_with_scripted_agents():
    from livesim.hat.harness_edit import EDITS_V1, edited_harness, error_reduction, run_harness_edit

    h = edited_harness(list(EDITS_V1))
    assert h.tool_by_key("get_price").name == "get_live_price" and h.version == 1 + len(EDITS_V1)
    assert "Always name the link number" in h.skill_by_name("product-facts").content
    oracle = run_harness_edit(AgentSpec("oracle"), limit=16)
    assert oracle["error_before"] == oracle["error_after"] == 0.0 and oracle["reduction"] is None
    mem = run_harness_edit(AgentSpec("memorizer"), limit=16)
    assert mem["error_before"] == 0.0 and mem["error_after"] > 0.0  # renamed tools break the memorised calls
    assert mem["change"]["mean"] == mem["error_after"] and mem["change"]["ci95"][1] >= mem["change"]["mean"]
    rows_b = [{"id": str(i), "avg": a} for i, a in enumerate([0.0, 0.5, 1.0, 1.0])]
    rows_a = [{"id": str(i), "avg": a} for i, a in enumerate([1.0, 1.0, 1.0, 0.5])]
    red = error_reduction(rows_b, rows_a, n_boot=500)
    assert red["error_before"] == 0.375 and red["error_after"] == 0.125
    assert red["reduction"]["mean"] == pytest.approx(2 / 3)


# ------------------------------------------------------------------------------------------------ CLI
def test_cli_eval_json_and_errors(capsys):
    from livesim.cli import main

    assert main(["hat", "eval", "--agent", "oracle", "--suite", "T1", "--limit", "4", "--json", "--quiet"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["suites"]["T1"]["scores"]["avg"] == 1.0 and "rows" not in out["suites"]["T1"]
    assert main(["hat", "eval", "--agent", "memorizer", "--suite", "t1,t2-stress,T2-prompt", "--limit", "4"]) == 0
    printed = capsys.readouterr().out
    assert "T2-stress-v2" in printed and "T2-stress - T1 AVG: -100.0 points" in printed
    assert "T2-prompt - T1 AVG: +0.0 points" in printed
    with pytest.raises(SystemExit, match="unknown suite 'T7'"):
        main(["hat", "eval", "--agent", "oracle", "--suite", "T7"])
    with pytest.raises(SystemExit, match="give --agent NAME or --model"):
        main(["hat", "eval", "--suite", "T1"])


def test_hat_commands_join_an_existing_hat_group():
    import argparse

    from livesim.cli.hat_eval import hat_subparsers, register

    parser = argparse.ArgumentParser()
    sub = parser.add_subparsers(dest="command")
    other = sub.add_parser("hat").add_subparsers(dest="hat_command")  # as another module would create it
    other.add_parser("train")
    register(sub)
    assert hat_subparsers(sub) is other and {"train", "eval", "reproduce", "ab", "edit"} <= set(other.choices)
    args = parser.parse_args(["hat", "eval", "--agent", "null", "--suite", "T4", "--limit", "2"])
    assert args.suite == "T4" and args.limit == 2


def test_reproduce_untrained_writes_ab_and_edit_tables(monkeypatch, tmp_path):
    from livesim.hat import reproduce as R

    monkeypatch.setattr(R, "CI_PRESET", R.EvalPreset(("T1", "T2"), 4, 8, 4, 1, 30.0, 4))
    scripted_only = [(n, AgentSpec(n, {}, label=n), {}) for n in ("oracle", "memorizer", "null")]
    monkeypatch.setattr(R, "untrained_specs", lambda preset, ev: scripted_only)
    written = R.reproduce("tiny", ci=True, untrained=True, out_root=tmp_path)
    assert written["json"].parent.name == "tiny-untrained-ci"
    results = json.loads(written["json"].read_text())
    assert results["baseline"] == "null" and results["ab"]["agents"] == ["memorizer", "oracle"]
    table = written["table"].read_text()
    assert "## Online A/B analogue" in table and "## Harness-edit test" in table
    assert "| memorizer | 4 | 100.0 |" in table  # its edit row: n, AVG before


def test_reproduce_untrained_rows_are_a_subset_kept_with_their_conversations(monkeypatch, tmp_path):
    from livesim.hat import reproduce as R
    from livesim.hat.samples import read_samples, samples_path

    monkeypatch.setenv("LIVESIM_CACHE", str(tmp_path / "cache"))
    monkeypatch.setattr(R, "CI_PRESET", R.EvalPreset(("T1", "T4"), 3, 8, 3, 1, 30.0, 3))
    written = R.reproduce("tiny", ci=True, untrained=True, out_root=tmp_path, rows=["null", "random"],
                          harness_edit=False)
    results = json.loads(written["json"].read_text())
    assert [r["row"] for r in results["rows"]] == ["null", "random"] and "ab" not in results  # no memorizer: no A/B
    assert "--rows null,random" in results["command"]
    for r in results["rows"]:
        for s in r["suites"].values():
            record = written["json"].parent / "evals" / f"{s['cache_key']}.json"
            assert s["samples"] and len(read_samples(samples_path(record))) == s["n"] == 3
    with pytest.raises(ValueError, match="with --untrained the rows are"):
        R.reproduce("tiny", ci=True, untrained=True, out_root=tmp_path, rows=["HAT"])


def test_row_wall_times_are_the_rows_own_chain_as_trained():
    import types

    from livesim.hat.reproduce import _chain_wall

    res = types.SimpleNamespace(stats={"sft": {"wall_s": 5.0}, "distill": {"wall_s": 2.0}, "rl": {"wall_s": 3.0}},
                                wall_s={"collect": 0.0, "sft": 0.0, "distill": 0.0, "rl": 3.0})  # sft/distill cached
    assert _chain_wall(res, "base") == {}
    assert _chain_wall(res, "sft") == {"sft": 5.0}
    assert _chain_wall(res, "rl") == {"sft": 5.0, "distill": 2.0, "rl": 3.0}


def test_a_prepared_zoo_name_and_its_directory_are_one_evaluation(tmp_path, monkeypatch):
    """`hat eval --model smollm2-135m` and reproduce's base row (the same directory) share cache entries."""
    import json as _json

    from livesim.hat.evaluate import AgentSpec
    from livesim.models.zoo import MARKER

    monkeypatch.setenv("LIVESIM_CACHE", str(tmp_path))
    by_name = AgentSpec.for_model("smollm2-135m")
    assert by_name.identity()["kwargs"]["model"] == "smollm2-135m"  # not prepared: the name
    model_dir = tmp_path / "models" / "smollm2-135m"
    model_dir.mkdir(parents=True)
    (model_dir / "config.json").write_text("{}")
    (model_dir / "model.safetensors").write_bytes(b"weights")
    (model_dir / MARKER).write_text(_json.dumps({"build_hash": "x"}))
    ident = by_name.identity()["kwargs"]["model"]
    assert ident.startswith("dir:") and ident == AgentSpec.for_model(str(model_dir)).identity()["kwargs"]["model"]
    assert AgentSpec.for_model("tiny").identity()["kwargs"]["model"] == "tiny"  # offline: may be rebuilt on load


def test_reproduce_carries_an_ab_record_under_the_table_row_names(tmp_path):
    """An A/B recorded by `livesim hat ab` (labels: model paths) is carried into the table as fixed-SFT vs HAT."""
    from livesim.hat.ab import run_ab
    from livesim.hat.reproduce import CI_PRESET, _ab

    ev = CI_PRESET
    rec = run_ab(AgentSpec("oracle", label="model:/x/sft"), AgentSpec("memorizer", label="model:/x/rl"),
                 seeds=list(range(ev.ab_seeds)), duration_s=ev.ab_duration_s, records=tmp_path)
    assert rec is not None
    # the rows' models are not here: stand-in specs with the recorded identities find the record by its key
    by = {"fixed-SFT": AgentSpec("oracle", label="fixed-SFT"), "HAT": AgentSpec("memorizer", label="HAT")}
    extra: dict = {}
    _ab(by, ev, extra, lambda m: None, tmp_path, True, {"fixed-SFT", "HAT"})
    assert extra["ab"]["carried"] is True and extra["ab"]["agents"] == ["fixed-SFT", "HAT"]
    assert extra["ab"]["metrics"]["gmv"]["mean"]["HAT"] == rec["metrics"]["gmv"]["mean"]["model:/x/rl"]
    assert "model:/x" not in extra["ab_table"]
    # another model for either row: another key, not carried (a different model), nothing run
    other: dict = {}
    _ab({**by, "HAT": AgentSpec("random", label="HAT")}, ev, other, lambda m: None, tmp_path, True, {"HAT"})
    assert "ab" not in other


def test_hat_ab_names_a_records_path_that_is_not_a_folder_before_running(tmp_path):
    from livesim.cli import main

    f = tmp_path / "file.json"
    f.write_text("{}")
    with pytest.raises(SystemExit, match="--records .*file.json is not a folder"):
        main(["hat", "ab", "--a", "oracle", "--b", "memorizer", "--seeds", "0", "--duration", "10",
              "--records", str(f)])
    assert f.read_text() == "{}"


def test_call_audit_counts_failures_and_where_unpresented_names_come_from():
    # the dev set's diagnosis of held-out failures: a name the presented harness lacks is traced to the canonical
    # harness, HSA's train or held-out vocabulary, or nothing (invented); calls that ran are only counted
    from livesim.envs.hsa.vocab import HELDOUT, TRAIN
    from livesim.hat.deveval import call_audit

    train_tool = TRAIN.tool_synonyms["load_skill"][0]
    heldout_skill = next(iter(HELDOUT.skill_synonyms.values()))[0]
    calls = [
        {"name": "get_price", "key": "get_price", "ok": True},
        {"name": train_tool, "key": None, "ok": False, "error_kind": "unknown_tool"},
        {"name": "zz_invented", "key": None, "ok": False, "error_kind": "unknown_tool"},
        {"name": "zz_invented", "key": None, "ok": False, "error_kind": "unknown_tool"},
        {"name": "open_it", "key": "load_skill", "arguments": {"n": "product-facts"}, "ok": False,
         "error_kind": "not_found"},
        {"name": "open_it", "key": "load_skill", "arguments": {"n": heldout_skill}, "ok": False,
         "error_kind": "not_found"},
        {"name": "get_price", "key": "get_price", "arguments": {"x": 1}, "ok": False, "error_kind": "invalid_args"},
        {"name": "open_it", "key": "load_skill", "arguments": {}, "ok": False, "error_kind": "not_found"},
    ]
    audit = call_audit([{"trace": {"tool_calls": calls[:3]}}, {"trace": {"tool_calls": calls[3:]}}])
    assert audit["calls"] == 8 and audit["ok"] == 1
    assert audit["failed"] == {"invalid_args": 1, "skill_not_found": 3, "unknown_tool": 3}
    assert audit["unpresented"] == {"canonical": 1, "hsa_train": 1, "hsa_heldout": 1, "other": 3}
    assert audit["unpresented_names"]["(no name given)"] == 1
    assert audit["unpresented_names"]["zz_invented"] == 2 and "get_price" not in audit["unpresented_names"]
    assert call_audit([]) == {"calls": 0, "ok": 0, "failed": {}, "unpresented_names": {},
                              "unpresented": {"canonical": 0, "hsa_train": 0, "hsa_heldout": 0, "other": 0}}
