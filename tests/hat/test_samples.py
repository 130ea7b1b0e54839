"""Stored conversations of suite evaluations: what a line holds, the files, and `regrade` replaying them.

The class tested: any agent (scripted hosts with generated seeds and error rates, the random agent's malformed
calls and parse errors) on any QA suite (canonical T1, HSA T2, T3's faults and perturbations) and T4: every
request is stored, and replaying the stored actions under the unchanged grader gives back the very same scores.
"""

from __future__ import annotations

import gzip
import itertools
import json

import numpy as np
import pytest

from livesim.grading import terms
from livesim.hat.evaluate import AgentSpec, evaluate_suite, score_qa
from livesim.hat.regrade import grader_settings, parse_settings, regrade_suite
from livesim.hat.samples import (
    OUTCOMES,
    RATES,
    decode,
    encode,
    open_results,
    outcome_rates,
    outcomes_of,
    read_samples,
    samples_path,
)
from livesim.stream.paths import PathProblem

AGENTS = [("random", {"seed": s}) for s in (0, 3, 11)] + [
    ("oracle", {"error_rate": 0.5, "seed": 4}), ("reader", {"error_rate": 0.3, "seed": 2}), ("null", {})]
SUITES = ("T1", "T2", "T3")
LIMIT = 6


@pytest.fixture(autouse=True)
def _cache(tmp_path, monkeypatch):
    monkeypatch.setenv("LIVESIM_CACHE", str(tmp_path / "cache"))


def _eval(name, kwargs, suite, **kw):
    return evaluate_suite(AgentSpec(name, kwargs), suite, LIMIT, batch_size=3, **kw)


@pytest.mark.parametrize(("agent", "suite"), list(itertools.product(AGENTS, SUITES)),
                         ids=lambda x: x if isinstance(x, str) else f"{x[0]}{x[1]}")
def test_every_request_is_stored_and_regrades_to_the_same_scores(agent, suite):
    result = _eval(*agent, suite)
    rows, samples = result["rows"], result["samples"]
    assert [s["id"] for s in samples] == [r["id"] for r in rows]
    for r, s in zip(rows, samples, strict=True):
        assert {k: s[k] for k in ("accuracy", "effectiveness", "reward", "fallback", "parse_errors")} == \
            {k: r[k] for k in ("accuracy", "effectiveness", "reward", "fallback", "parse_errors")}
        assert s["turn_log"] and s["request"], s["id"]
        if s.get("grade"):  # the grader's reasons travel with the scores
            assert set(s["grade"]) >= {"terms", "scores", "missing", "errors"}
            assert abs(sum(s["grade"]["terms"].values()) - s["reward"]) < 1e-9
    kept = read_samples(samples_path(next((tmp_p for tmp_p in _cache_files(result)), None)))
    assert kept == json.loads(json.dumps(samples))  # the file holds what was kept in memory
    again = regrade_suite(result, kept)
    assert again.not_replayed == [] and again.changed == []
    for t in again.table(n_boot=200):
        assert t["old"] == pytest.approx(t["new"]) and t["ci95"] == pytest.approx([0.0, 0.0]), t


def _cache_files(result):
    from livesim.hat.evaluate import cache_dir

    yield cache_dir() / f"{result['cache_key']}.json"


@pytest.mark.parametrize("seed", [0, 5])
def test_t4_responses_are_stored_whole_and_recheck_identically(seed):
    result = _eval("random", {"seed": seed}, "T4")
    assert [s["id"] for s in result["samples"]] == [r["id"] for r in result["rows"]]
    assert all(s["prompt"] and "response" in s for s in result["samples"])
    again = regrade_suite(result, result["samples"])
    assert again.not_replayed == [] and again.changed == []


def test_what_no_longer_replays_is_reported_not_guessed():
    result = _eval("oracle", {"error_rate": 0.5, "seed": 4}, "T1")
    samples = json.loads(json.dumps(result["samples"]))
    with_calls = next(i for i, s in enumerate(samples) if any(t["calls"] for t in s["turn_log"]))
    turn = next(t for t in samples[with_calls]["turn_log"] if t["calls"])
    turn["calls"][0]["result"] = "a result the tool never gave"
    samples[1 if with_calls != 1 else 2]["turn_log"].pop()  # the reply is gone: the env asks for more
    samples[3]["id"] = "T1/9999"
    samples[4]["turn_log"].append({"action": "one turn too many", "calls": []})
    again = regrade_suite(result, samples)
    why = dict(again.not_replayed)
    assert "ran otherwise than stored" in why[samples[with_calls]["id"]]
    assert "no reply after" in why[samples[1 if with_calls != 1 else 2]["id"]]
    assert why["T1/9999"] == "not in the suite"
    assert "ended after turn" in why[samples[4]["id"]]
    assert len(again.old) == len(again.new) == LIMIT - 4  # only what replayed is compared


def test_a_changed_grader_setting_is_measured_and_then_restored():
    result = _eval("oracle", {}, "T1")
    before = dict(terms.WEIGHTS)
    with grader_settings(parse_settings(["weight.brevity=0", "weight.accuracy=0.5"])):
        changed = regrade_suite(result, result["samples"])
    assert terms.WEIGHTS == before
    table = {t["metric"]: t for t in changed.table(n_boot=500)}
    assert table["accuracy"]["diff"] == 0 and table["effectiveness"]["diff"] == 0
    rewards = [r["reward"] for r in changed.new]
    assert table["reward"]["diff"] == pytest.approx(np.mean(rewards) - np.mean([r["reward"] for r in changed.old]))
    assert table["reward"]["diff"] > 0 and table["reward"]["ci95"][0] > 0  # +0.2 on accuracy, -0.05 brevity
    assert changed.changed  # the requests whose scores moved are named
    assert regrade_suite(result, result["samples"]).changed == []  # and the grader is back


@pytest.mark.parametrize("bad", ["weight.nope=1", "brevity_noise_cost", "weight.accuracy=x", "weight.latency=-1",
                                 "weight.latency=nan"])
def test_bad_grader_settings_are_one_line_errors(bad):
    with pytest.raises(ValueError, match="grader setting") as e:
        parse_settings([bad])
    assert "\n" not in str(e.value)


def test_outcomes_match_their_definitions_on_generated_rows():
    rng = np.random.default_rng(0)
    rows = [{"accuracy": float(rng.integers(2)), "effectiveness": float(rng.choice([0, 0.5, 1])),
             "fallback": bool(rng.integers(2)), "parse_errors": int(rng.integers(3)), "intent": "price",
             "subset": "all", "reward": 0.0, "avg": 0.0, "pass": False, "id": f"T1/{i:04d}"} for i in range(300)]
    rates = outcome_rates(rows)
    assert rates["pass"] == np.mean([r["accuracy"] == 1 and r["effectiveness"] == 1 for r in rows])
    assert rates["answered"] == np.mean([r["effectiveness"] > 0 for r in rows])
    assert rates["parse_error"] == np.mean([r["parse_errors"] > 0 for r in rows])
    assert set(RATES) <= set(OUTCOMES) and score_qa(rows)["outcomes"] == rates
    for r in rows:
        got = set(outcomes_of(r))
        assert ("pass" in got) != ("fail" in got)
        assert ("eff0" in got) != ("answered" in got)


def test_files_are_deterministic_bounded_and_refuse_what_is_not_samples(tmp_path):
    samples = [{"id": f"T1/{i:04d}", "text": "\u00e9" * i, "n": i} for i in range(20)]
    assert encode(samples) == encode(samples) and decode(encode(samples), "x") == samples
    for data, msg in ((b"not gzip", "not a gzip"), (gzip.compress(b"{not json\n"), "line 1 is not JSON"),
                      (gzip.compress(b"[1, 2]\n"), "not a sample"), (encode(samples)[:30], "not a gzip")):
        with pytest.raises(PathProblem, match=msg) as e:
            decode(data, "f.samples.jsonl.gz")
        assert "\n" not in str(e.value)


@pytest.mark.parametrize(("agent", "suite"), [(("random", {"seed": 9}), "T2"), (("oracle", {"error_rate": 0.5}), "T3"),
                                              (("random", {"seed": 1}), "T4")])
def test_the_same_evaluation_keeps_the_same_bytes(agent, suite):
    a = _eval(*agent, suite, use_cache=False)["samples"]
    b = _eval(*agent, suite, use_cache=False)["samples"]
    assert encode(a) == encode(b)


def test_cache_hits_name_their_samples_and_no_samples_writes_none(tmp_path):
    first = _eval("random", {"seed": 1}, "T1")
    hit = _eval("random", {"seed": 1}, "T1")
    assert "samples" not in hit and read_samples(hit["samples_file"]) == json.loads(json.dumps(first["samples"]))
    bare = _eval("random", {"seed": 2}, "T1", samples=False)
    from livesim.hat.evaluate import cache_dir

    assert "samples" not in bare and not samples_path(cache_dir() / f"{bare['cache_key']}.json").exists()


def test_open_results_reads_an_eval_out_file_and_refuses_others(tmp_path):
    from livesim.cli.hat_eval import write_eval_out

    result = {"agent": "random", "suites": {"T1": _eval("random", {"seed": 1}, "T1")}}
    write_eval_out(str(tmp_path / "r.json"), result)
    (stored,) = open_results(tmp_path / "r.json")
    assert stored.row == "random" and stored.suite == "T1" and len(stored.samples()) == LIMIT
    assert "samples" not in json.loads((tmp_path / "r.json").read_text())["suites"]["T1"]
    (tmp_path / "other.json").write_text("[1]")
    for bad in (tmp_path / "other.json", tmp_path / "missing.json", tmp_path):
        with pytest.raises(PathProblem):
            open_results(bad)


@pytest.mark.parametrize("suite", ["T1", "T2"])
def test_a_re_pinned_suite_replays_the_same_requests_against_todays_truth(suite):
    """A stored result of an earlier pin of the suite (same seeds, other ground truth) is replayed where each
    request's comments are the stored ones, with a note that says so; a request whose comments differ is reported,
    not graded."""
    result = _eval("oracle", {"error_rate": 0.3, "seed": 1}, suite)
    old = {**result, "key": result["key"].rsplit("-v", 1)[0] + "-v1"}
    samples = json.loads(json.dumps(result["samples"]))
    samples[2]["request"] = "[someone] a comment this suite never held"
    again = regrade_suite(old, samples)
    assert "is now " + result["key"] in again.note
    assert dict(again.not_replayed) == {samples[2]["id"]: "the request is not the stored one (its comments differ)"}
    assert len(again.new) == LIMIT - 1 and again.changed == []  # today's truth is the one they were graded on


def test_a_re_pinned_t4_is_not_replayed():
    result = _eval("random", {"seed": 0}, "T4")
    again = regrade_suite({**result, "key": "T4-v0"}, result["samples"])
    assert again.new == [] and all("is now" in why for _, why in again.not_replayed)
