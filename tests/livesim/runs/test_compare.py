"""A/B comparison: pass^k estimator, paired bootstrap, and an oracle-vs-memorizer run."""

from __future__ import annotations

import json
from math import comb

import numpy as np
import pytest

from livesim.cli import main
from livesim.runs.compare import AgentSpec, compare, paired_bootstrap, pass_hat_k
from livesim.stream.scenario import load_scenario


def test_pass_hat_k_is_the_unbiased_all_k_succeed_estimate():
    tasks = {"a": [True, True, False, True], "b": [True] * 4, "c": [False] * 4}
    assert pass_hat_k(tasks, 1) == pytest.approx((3 / 4 + 1 + 0) / 3)
    assert pass_hat_k(tasks, 2) == pytest.approx((comb(3, 2) / comb(4, 2) + 1 + 0) / 3)
    assert pass_hat_k(tasks, 4) == pytest.approx(1 / 3)
    assert pass_hat_k({"a": [True, True]}, 3) is None  # too few trials for k = 3
    vals = [pass_hat_k(tasks, k) for k in (1, 2, 3, 4)]
    assert vals == sorted(vals, reverse=True)


def test_paired_bootstrap_is_seeded_and_brackets_the_mean():
    a = np.array([0.5, 0.6, 0.7, 0.8, 0.9])
    b = a + np.array([0.1, 0.2, 0.0, 0.1, 0.15])
    one = paired_bootstrap(a, b, np.random.default_rng(0), 2000)
    two = paired_bootstrap(a, b, np.random.default_rng(0), 2000)
    assert one == two
    mean, lo, hi = one
    assert mean == pytest.approx(0.11) and lo <= mean <= hi and lo >= 0.0
    assert paired_bootstrap(a, a, np.random.default_rng(1), 100) == (0.0, 0.0, 0.0)


def test_agent_spec_parses_arguments():
    spec = AgentSpec.parse("oracle:error_rate=0.3,name=x")
    assert spec.name == "oracle" and dict(spec.kwargs) == {"error_rate": 0.3, "name": "x"}
    assert spec.label == "oracle:error_rate=0.3,name=x"
    with pytest.raises(ValueError, match="key=value"):
        AgentSpec.parse("oracle:oops")


def test_oracle_beats_memorizer_after_a_tool_rename():
    sc = load_scenario("tool-rename-skill-rewrite")
    result = compare(sc, [AgentSpec("oracle"), AgentSpec("memorizer")], seeds=[0, 1, 2], trials=2, n_boot=2000)
    reward = result["metrics"]["mean_reward"]
    assert reward["mean"]["oracle"] > 0.99 and reward["mean"]["memorizer"] < 0.8
    d = reward["diff"]["memorizer"]
    assert d["ci95"][1] < 0 and d["ci95"][0] <= d["mean"] <= d["ci95"][1]
    assert result["pass_hat_k"]["oracle"] == {"1": 1.0, "2": 1.0, "3": None, "4": None}
    assert result["tasks"]["oracle"] == 30  # 10 scripted requests x 3 seeds


def test_stochastic_agent_has_falling_pass_hat_k_and_cli_json(capsys):
    argv = ["compare", "--agent", "oracle", "--agent", "oracle:error_rate=0.5", "--scenario",
            "tool-rename-skill-rewrite", "--seeds", "0-1", "--trials", "4", "--bootstrap", "500", "--json"]
    assert main(argv) == 0
    result = json.loads(capsys.readouterr().out)
    p = result["pass_hat_k"]["oracle:error_rate=0.5"]
    assert p["1"] > p["2"] > p["3"] > p["4"] and p["1"] < 1.0
    assert result["pass_hat_k"]["oracle"]["4"] == 1.0
    assert set(result["metrics"]) >= {"mean_reward", "accuracy", "effectiveness", "gmv", "ipv", "latency_p50",
                                      "latency_p95"}
    assert main(argv[:-1]) == 0
    assert "pass^4" in capsys.readouterr().out


def test_compare_refuses_bad_input(capsys):
    assert main(["compare", "--agent", "oracle", "--scenario", "flash-sale-rush", "--seeds", "0"]) == 2
    assert "at least two agents" in capsys.readouterr().err
    assert main(["compare", "--agent", "oracle", "--agent", "nobody", "--scenario", "flash-sale-rush"]) == 2
    assert "unknown agent 'nobody'" in capsys.readouterr().err
