"""`livesim view` on suite results and `livesim hat regrade`: what they list, filter, show and refuse."""

from __future__ import annotations

import json

import pytest

from livesim.cli import main
from livesim.hat.evaluate import AgentSpec, evaluate
from livesim.hat.report import RowResult, write_results
from livesim.hat.reproduce import save_records
from livesim.hat.samples import OUTCOMES, outcomes_of, read_samples, samples_path

LIMIT = 8


@pytest.fixture(scope="module")
def results_dir(tmp_path_factory):
    """A results folder as `hat reproduce` writes it: two rows (random, oracle with errors), T1 and T4."""
    mp = pytest.MonkeyPatch()
    root = tmp_path_factory.mktemp("view")
    mp.setenv("LIVESIM_CACHE", str(root / "cache"))
    rows = [RowResult("random", evaluate(AgentSpec("random", {"seed": 7}, "random"), ["T1", "T4"], LIMIT, 4)),
            RowResult("oracle", evaluate(AgentSpec("oracle", {"error_rate": 0.6, "seed": 1}, "oracle"), ["T1"], LIMIT))]
    out = root / "results"
    save_records(rows, out / "evals")
    write_results(out, "tiny", rows, baseline="random")
    yield out
    mp.undo()


def _run(capsys, *argv):
    code = main(list(argv))
    cap = capsys.readouterr()
    return code, cap.out, cap.err


def test_the_table_says_what_each_row_does(results_dir):
    table = (results_dir / "table.md").read_text()
    assert "| row | T1 Acc | T1 Eff | T1 AVG | T1 pass | T1 answered |" in table
    assert "## Outcomes per request (percent)" in table
    line = next(x for x in table.splitlines() if x.startswith("| random | ") and x.endswith("| yes |"))
    assert line.split(" | ")[3] == "100.0"  # random: every T1 request falls back
    results = json.loads((results_dir / "results.json").read_text())
    assert all(s["samples"] for r in results["rows"] for s in r["suites"].values())


def test_view_lists_rows_and_suites_then_filters_by_outcome_and_intent(results_dir, capsys):
    code, out, err = _run(capsys, "view", str(results_dir))
    assert code == 0 and "random" in out and "oracle" in out and "--row ROW --suite SUITE" in err
    samples = read_samples(samples_path(next((results_dir / "evals").glob("*.json"))))
    assert samples
    oracle = [s for r in json.loads((results_dir / "results.json").read_text())["rows"] if r["row"] == "oracle"
              for s in [r["suites"]["T1"]["cache_key"]]][0]
    stored = read_samples(results_dir / "evals" / f"{oracle}.samples.jsonl.gz")
    for outcome in OUTCOMES:
        code, out, _ = _run(capsys, "view", str(results_dir), "--row", "oracle", "--suite", "T1", "--outcome", outcome)
        want = [s for s in stored if outcome in outcomes_of(s)]
        assert code == 0 and f"{len(want)} request(s)" in out, outcome
    intent = stored[0]["intent"]
    code, out, _ = _run(capsys, "view", str(results_dir), "--row", "oracle", "--suite", "T1", "--intent", intent)
    assert f"{sum(s['intent'] == intent or intent in s['intents'] for s in stored)} request(s)" in out


def test_view_shows_one_transcript_and_writes_all(results_dir, capsys, tmp_path):
    code, out, _ = _run(capsys, "view", str(results_dir), "--row", "random", "--suite", "T1", "--request", "2")
    assert code == 0 and out.startswith("## T1/0002 · random · T1") and "### Turn 1" in out and "terms" in out
    code, _, err = _run(capsys, "view", str(results_dir), "--row", "random", "--suite", "T1", "--transcript",
                        "-o", str(tmp_path / "t.md"))
    assert code == 0 and (tmp_path / "t.md").read_text().count("## T1/") == LIMIT
    code, out, _ = _run(capsys, "view", str(results_dir), "--row", "random", "--suite", "T4", "--request", "0")
    assert code == 0 and "### Prompt" in out and "### Response" in out


@pytest.mark.parametrize("argv, msg", [
    (["--row", "nobody"], "no row and suite matches"),
    (["--suite", "T1"], "2 rows and suites match"),
    (["--row", "random", "--suite", "T1", "--request", "99"], "--request 99: no such request"),
    (["--row", "random", "--suite", "T4", "--outcome", "pass"], "--outcome applies to T1-T3"),
])
def test_view_refuses_with_one_line(results_dir, capsys, argv, msg):
    code, _, err = _run(capsys, "view", str(results_dir), *argv)
    assert code == 2 and msg in err and err.count("\n") == 1


def test_model_text_cannot_reach_the_terminal_as_escapes(results_dir, capsys, tmp_path):
    import shutil

    copy = tmp_path / "copy"
    shutil.copytree(results_dir, copy)
    from livesim.hat.samples import write_samples

    key = json.loads((copy / "results.json").read_text())["rows"][0]["suites"]["T1"]["cache_key"]
    path = copy / "evals" / f"{key}.samples.jsonl.gz"
    samples = read_samples(path)
    samples[0]["turn_log"][0]["action"] = "hi \x1b[2J\x1b]0;title\x07 [bold]x[/bold]"
    samples[0]["reply"] = "\x1b[31mred"
    write_samples(path, samples)
    code, out, _ = _run(capsys, "view", str(copy), "--row", "random", "--suite", "T1", "--request", "0")
    assert code == 0 and "\x1b" not in out and "\x07" not in out and "\\x1b[2J" in out
    code, out, _ = _run(capsys, "view", str(copy), "--row", "random", "--suite", "T1")
    assert code == 0 and "\x1b" not in out


def test_regrade_against_itself_is_identical_and_a_changed_setting_is_measured(results_dir, capsys):
    code, out, _ = _run(capsys, "hat", "regrade", str(results_dir), "--n-boot", "300")
    assert code == 0 and out.count("replayed, 0 changed") == 3
    assert "| avg |" in out and "| prompt_strict |" in out
    for line in out.splitlines():
        if line.startswith("| ") and "[" in line and not line.startswith("| metric"):
            assert line.endswith("+0.0 [+0.0, +0.0] |") or line.endswith("+0.000 [+0.000, +0.000] |"), line
    code, out, _ = _run(capsys, "hat", "regrade", str(results_dir), "--row", "oracle", "--suite", "T1",
                        "--set", "weight.effectiveness=0.6", "--json", "--n-boot", "300")
    (res,) = json.loads(out)["results"]
    table = {t["metric"]: t for t in res["table"]}
    assert table["reward"]["diff"] > 0 and table["avg"]["diff"] == 0 and res["changed"]


@pytest.mark.parametrize("argv, msg", [
    (["--set", "weight.x=1"], "grader setting"),
    (["--row", "nobody"], "no row and suite"),
])
def test_regrade_refuses_with_one_line(results_dir, capsys, argv, msg):
    with pytest.raises(SystemExit) as e:
        main(["hat", "regrade", str(results_dir), *argv])
    assert msg in str(e.value) and "\n" not in str(e.value)


def test_regrade_reports_a_row_with_no_samples(results_dir, capsys, tmp_path):
    import shutil

    copy = tmp_path / "copy"
    shutil.copytree(results_dir, copy)
    for f in (copy / "evals").glob("*.samples.jsonl.gz"):
        f.unlink()
    code, out, _ = _run(capsys, "hat", "regrade", str(copy))
    assert code == 0 and out.count("not regraded (no samples beside its record)") == 3


def test_hat_eval_out_keeps_conversations_beside_it_unless_no_samples(capsys, tmp_path, monkeypatch):
    monkeypatch.setenv("LIVESIM_CACHE", str(tmp_path / "cache"))
    code, out, _ = _run(capsys, "hat", "eval", "--agent", "random", "--suite", "T1,T4", "--limit", "3", "--quiet",
                        "--out", str(tmp_path / "a.json"))
    assert code == 0 and "pass" in out and "answered" in out
    assert sorted(p.name for p in tmp_path.glob("a.*")) == ["a.T1.samples.jsonl.gz", "a.T4.samples.jsonl.gz",
                                                           "a.json"]
    code, _, _ = _run(capsys, "hat", "eval", "--agent", "random", "--agent-arg", "seed=5", "--suite", "T1",
                      "--limit", "3", "--quiet", "--no-samples", "--out", str(tmp_path / "b.json"))
    assert code == 0 and sorted(p.name for p in tmp_path.glob("b.*")) == ["b.json"]
    assert len(list((tmp_path / "cache" / "evals").glob("*.samples.jsonl.gz"))) == 2  # the first run's only
    code, _, err = _run(capsys, "view", str(tmp_path / "b.json"), "--suite", "T1")
    assert code == 2 and "has no stored conversations" in err
