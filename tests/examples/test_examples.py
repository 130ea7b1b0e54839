"""Every script in examples/ runs, at CI size, and says something that could have failed."""

from __future__ import annotations

import runpy
from pathlib import Path

import pytest

from livesim.cli import main as cli

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"


def _main(name: str):
    return runpy.run_path(str(EXAMPLES / name))["main"]


def test_every_example_has_a_test():
    tested = {"random_policy.py", "custom_agent.py", "custom_harness.py", "train_stages.py", "grpo_trl.py"}
    assert {p.name for p in EXAMPLES.glob("*.py")} == tested


def test_random_policy_over_both_envs_and_a_vector_env(capsys):
    out = _main("random_policy.py")(["--episodes", "2", "--steps", "6", "--num-envs", "2"])
    assert set(out) == {"LiveStreamQA-v0", "LiveStream-v0", "SyncVectorEnv x2 LiveStreamQA-v1"}
    assert all(v == 0.0 for v in out.values()), "random text meets no viewer's need: it scores 0"


def test_custom_agent_with_act_alone_scores_on_price_questions_and_runs_in_the_cli(capsys, tmp_path):
    assert _main("custom_agent.py")(["--episodes", "8"]) > 0.2
    agent = f"{EXAMPLES / 'custom_agent.py'}:PriceAgent"
    assert cli(["eval", "--agent", agent, "--episodes", "3", "--batch-size", "2", "--quiet", "--json"]) == 0
    assert cli(["compare", "--agent", "oracle", "--agent", agent, "--scenario", "flash-sale-rush", "--seeds", "0",
                "--trials", "1", "--bootstrap", "100", "--json"]) == 0
    assert "PriceAgent" in capsys.readouterr().out
    assert cli(["hat", "eval", "--agent", agent, "--suite", "T1,T4", "--limit", "2", "--no-cache", "--quiet",
                "--json"]) == 0
    assert cli(["hat", "ab", "--a", "oracle", "--b", agent, "--seeds", "0", "--duration", "20", "--json"]) == 0
    assert cli(["run", "--agent", agent, "--seed", "1", "--json"]) == 0


def test_custom_harness_from_a_file_and_from_code_keeps_the_oracle_perfect():
    out = _main("custom_harness.py")(["--episodes", "4"])
    assert out["my_harness.yaml"] == out["in code"] == out["canonical"] == 1.0


def test_training_stages_from_python(tmp_path):
    pytest.importorskip("trl")
    scores = _main("train_stages.py")(["--out", str(tmp_path), "--episodes", "6", "--steps", "1", "--limit", "1",
                                                "--max-new-tokens", "8"])
    assert set(scores) == {"base", "sft"} and all(0.0 <= v <= 1.0 for v in scores.values())
    from datasets import load_from_disk

    assert len(load_from_disk(str(tmp_path / "data" / "data"))["train"]) > 0  # the documented layout


def test_grpo_loop_with_the_projects_rewards(tmp_path, capsys):
    pytest.importorskip("trl")
    logged = _main("grpo_trl.py")(["--out", str(tmp_path), "--steps", "1", "--max-new-tokens", "4"])
    assert len(logged) == 1 and "rewards/accuracy/mean" in logged[0] and "rewards/length_penalty/mean" in logged[0]
    # a run without signal (all rewards 0: the untrained zoo model) says so, and only then
    assert ("no signal:" in capsys.readouterr().out) == all(row["reward"] == 0 for row in logged)
