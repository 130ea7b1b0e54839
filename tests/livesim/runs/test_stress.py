"""The grader's stress bench: seeded, built from the truth alone, and the grader meets its targets on a sample."""

import ast
from pathlib import Path

import numpy as np
import pytest

from livesim.cli.main import main
from livesim.runs.calibration import build_request
from livesim.runs.stress import run_stress
from livesim.runs.stress_cases import cases_for, spell
from livesim.runs.stress_fresh import fresh_cases_for


def test_spell():
    assert spell(329) == "three hundred twenty-nine"
    assert spell(72) == "seventy-two" and spell(15) == "fifteen" and spell(2000) == "two thousand"


@pytest.mark.parametrize("module", ["stress_cases.py", "stress_fresh.py"])
def test_generator_does_not_use_the_grader(module):
    """Labels come from how a variant was built from the truth, never from the grader's patterns."""
    tree = ast.parse((Path(__file__).parents[3] / "livesim" / "runs" / module).read_text())
    imported = {n.module for n in ast.walk(tree) if isinstance(n, ast.ImportFrom)} | {
        a.name for n in ast.walk(tree) if isinstance(n, ast.Import) for a in n.names}
    assert not [m for m in imported if m and ("grading" in m or "calibration" in m or m.endswith(".stress"))]


def test_cases_are_seeded_and_cover_both_kinds():
    sim = build_request(3, "returns")
    a = cases_for(sim, np.random.default_rng([3, 6]))
    b = cases_for(sim, np.random.default_rng([3, 6]))
    assert a == b
    assert {c.kind for c in a} == {"mutation", "rewrite"}
    assert {"swap_number", "contradiction", "social_proof", "after_sales"} <= {c.cls for c in a}
    assert fresh_cases_for(sim, np.random.default_rng([3, 6]))


def test_bench_meets_targets_on_a_sample():
    res = run_stress(seeds=3, seed0=100)  # 3 seeds: a part whose phrasing asks more than its intent is left out
    again = run_stress(seeds=3, seed0=100)
    assert res == again
    mut, rew = res["kinds"]["mutation"], res["kinds"]["rewrite"]
    assert mut[0] > 100 and rew[0] > 50
    assert mut[1] / mut[0] >= 0.97, res["failures"]
    assert rew[1] / rew[0] >= 0.95, res["failures"]
    assert set(res["intents"]) == {"price", "stock_variant", "size_advice", "spec_material", "comparison", "shipping",
                                   "returns", "coupon", "how_to_buy", "recommendation", "greeting", "off_topic",
                                   "complaint", "compliance_bait", "prompt_injection", "unauthorized_discount"}


def test_fresh_family_runs():
    res = run_stress(seeds=1, seed0=7, family="fresh", intents=["price", "returns"])
    assert res["family"] == "fresh" and res["kinds"]["mutation"][0] > 0


@pytest.mark.parametrize("argv", [["--seeds", "0"], ["--intent", "nonsense"]])
def test_cli_rejects_bad_input(argv, capsys):
    assert main(["grader", "stress", *argv]) == 2
    assert capsys.readouterr().err.startswith("error:")


def test_cli_markdown(capsys):
    assert main(["grader", "stress", "--seeds", "1", "--intent", "price", "--markdown"]) == 0
    out = capsys.readouterr().out
    assert "| mutations scored < 0.5 |" in out and "| price |" in out
