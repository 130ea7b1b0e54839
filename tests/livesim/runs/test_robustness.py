"""Robustness (issue 12): hostile actions are graded, never raised; malformed files are refused in one line, with
status 2 and nothing written; records carry an integrity chain that replay, regrade and view check.

The corpora are data under tests/corpora (rewritten by tests/corpora/make_corpora.py). Timings are printed
(`pytest -s`), never asserted; `bench/fuzz.py` measures the long run.
"""

from __future__ import annotations

import json
import math
import re
import time
from pathlib import Path

import gymnasium as gym
import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import livesim  # noqa: F401
from livesim.cli import main
from livesim.envs.spaces import Conversation
from livesim.parsing import parse_action
from livesim.parsing.safety import MAX_ARG_DEPTH, UNREADABLE_KEY, sanitize_action
from livesim.runs.episode import make_stream_env, run_episode, write_lines
from livesim.runs.hostile import python_object_attacks
from livesim.runs.replay import edits, golden_path, replay
from livesim.stream.integrity import verify_chain
from livesim.stream.records import RecordHeader, parse_record, read_record
from livesim.stream.scenario import ScenarioError, load_scenario, parse_scenario
from livesim.stream.yaml_safe import compose_bounded

CORPORA = Path(__file__).resolve().parents[2] / "corpora"
SCENARIOS = sorted((CORPORA / "scenarios").iterdir())
RECORDS = sorted((CORPORA / "records").iterdir())
SPACE = Conversation()


def _actions() -> list[object]:
    return [json.loads(line) for line in (CORPORA / "actions.jsonl").read_text(encoding="utf-8").splitlines()]


def _depth(x: object) -> int:
    if isinstance(x, dict):
        return 1 + max((_depth(v) for v in x.values()), default=0)
    if isinstance(x, list):
        return 1 + max((_depth(v) for v in x), default=0)
    return 0


def _check_obs(obs: dict) -> None:
    assert SPACE.contains(obs)
    json.dumps(obs, ensure_ascii=False).encode("utf-8")  # valid UTF-8: no lone surrogates


def test_corpora_are_big_enough():
    assert len(SCENARIOS) >= 50 and len(RECORDS) >= 30 and len(_actions()) >= 100


# --- malformed files ------------------------------------------------------------------------------------
def _one_error_line(err: str, path: Path) -> None:
    lines = [x for x in err.splitlines() if x.strip()]
    assert len(lines) == 1 and lines[0].startswith("error: "), err
    assert str(path) in lines[0] or path.name in lines[0], err
    assert "Traceback" not in err


@pytest.mark.parametrize("path", SCENARIOS, ids=[p.name for p in SCENARIOS])
def test_malformed_scenario_is_refused_in_one_line_and_writes_nothing(path, tmp_path, capsys):
    before = path.read_bytes()
    out = tmp_path / "rec.jsonl"
    t0 = time.perf_counter()
    assert main(["run", "--scenario", str(path), "--record", str(out), "--json"]) == 2
    took = time.perf_counter() - t0
    _one_error_line(capsys.readouterr().err, path)
    assert not out.exists() and path.read_bytes() == before
    assert main(["scenarios", "--check", str(path)]) == 2
    assert "Traceback" not in capsys.readouterr().err
    print(f"{path.name}: refused in {took * 1000:.1f} ms")


@pytest.mark.parametrize("path", RECORDS, ids=[p.name for p in RECORDS])
def test_malformed_record_is_refused_in_one_line(path, capsys):
    before = path.read_bytes()
    for cmd in ("replay", "regrade", "view"):
        t0 = time.perf_counter()
        assert main([cmd, str(path), *(["--no-live"] if cmd == "view" else [])]) == 2, cmd
        took = time.perf_counter() - t0
        _one_error_line(capsys.readouterr().err, path)
        print(f"{path.name} {cmd}: refused in {took * 1000:.1f} ms")
    assert path.read_bytes() == before


def test_the_corpus_base_record_is_valid():
    import sys

    sys.path.insert(0, str(CORPORA))
    try:
        from make_corpora import BASE_SCENARIO, _golden
    finally:
        sys.path.remove(str(CORPORA))
    record = parse_record("\n".join(_golden()) + "\n")
    assert record.chained and not record.breaks and len(record.steps) == 3
    assert parse_scenario(BASE_SCENARIO).name == "corpus-base"


def test_alias_bomb_and_recursive_anchor_are_refused_in_milliseconds():
    for name, msg in (("alias-bomb-9x10.yaml", "alias"), ("recursive-anchor-sequence.yaml", "recursive"),
                      ("deep-flow-sequences-10000.yaml", "nest"), ("alias-bomb-merge-keys.yaml", "alias")):
        t0 = time.perf_counter()
        with pytest.raises(ScenarioError, match=msg):
            load_scenario(CORPORA / "scenarios" / name)
        print(f"{name}: {1000 * (time.perf_counter() - t0):.1f} ms")


def test_unbounded_work_is_refused_naming_the_field():
    with pytest.raises(ScenarioError) as e:
        load_scenario(CORPORA / "scenarios" / "comments-per-min-1e9.yaml")
    assert e.value.problems[0].field == "traffic.comments_per_min"
    with pytest.raises(ScenarioError) as e:
        load_scenario(CORPORA / "scenarios" / "comments-total-unbounded.yaml")
    assert e.value.problems[0].field == "traffic.comments_per_min" and "unbounded" in e.value.problems[0].message


def test_paths_that_are_not_files_are_one_line_errors(tmp_path, capsys):
    d = tmp_path / "dir.yaml"
    d.mkdir()
    assert main(["run", "--scenario", str(d)]) == 2
    assert "is a directory" in capsys.readouterr().err
    big = tmp_path / "big.yaml"
    big.write_text("name: x\n" + "# filler\n" * 200_000)
    assert main(["run", "--scenario", str(big)]) == 2
    assert "bytes" in capsys.readouterr().err
    rd = tmp_path / "rec.jsonl"
    rd.mkdir()
    for cmd in ("replay", "regrade", "view"):
        assert main([cmd, str(rd)]) == 2
        assert "is a directory" in capsys.readouterr().err
    assert main(["replay", "/dev/null"]) == 2
    assert main(["replay", "no\x00file"]) == 2
    assert "Traceback" not in capsys.readouterr().err


# --- --record ------------------------------------------------------------------------------------------
def test_record_refuses_an_existing_file_unless_forced(tmp_path, capsys):
    out = tmp_path / "rec.jsonl"
    out.write_text("precious\n")
    args = ["run", "--scenario", "tool-rename-skill-rewrite", "--record", str(out), "--json"]
    assert main(args) == 2
    assert "already exists; pass --force" in capsys.readouterr().err and out.read_text() == "precious\n"
    assert main([*args, "--force"]) == 0
    assert read_record(out).end is not None


def test_record_never_writes_over_its_input(tmp_path, capsys):
    sc = tmp_path / "sc.yaml"
    sc.write_text(load_scenario("tool-rename-skill-rewrite").model_dump_json())  # JSON is YAML
    before = sc.read_bytes()
    for target in (str(sc), str(tmp_path / "." / "sc.yaml")):
        assert main(["run", "--scenario", str(sc), "--record", target, "--force", "--json"]) == 2
        assert "never writes over its input" in capsys.readouterr().err
    link = tmp_path / "link.jsonl"
    link.symlink_to(sc)
    assert main(["run", "--scenario", str(sc), "--record", str(link), "--force", "--json"]) == 2
    assert sc.read_bytes() == before
    assert main(["run", "--scenario", str(sc), "--record", str(tmp_path), "--json"]) == 2
    assert "is a directory" in capsys.readouterr().err


# --- integrity -----------------------------------------------------------------------------------------
def _tampered(tmp_path: Path) -> tuple[Path, int, int]:
    lines = golden_path("tool-rename-skill-rewrite").read_text().splitlines()
    i = next(n for n, x in enumerate(lines) if json.loads(x).get("dispatched"))
    d = json.loads(lines[i])
    d["reward"] = 0.25
    path = tmp_path / "edited.jsonl"
    path.write_text("\n".join([*lines[:i], json.dumps(d, separators=(",", ":")), *lines[i + 1:]]) + "\n")
    return path, i + 1, i - 1


def test_edited_record_is_found_and_what_differs_is_named(tmp_path, capsys):
    path, line, step = _tampered(tmp_path)
    record = read_record(path)
    assert record.chained and [b.line for b in record.breaks] == [line]
    found = edits(record)
    assert len(found) == 1 and f"edited.jsonl:{line}:" in found[0] and f"step {step}: reward" in found[0]
    assert re.search(r"the record says 0\.25, a replay gives (0\.9\d*|1\.0)\b", found[0])
    assert main(["view", str(path), "--no-live"]) == 0
    assert f"warning: {path}:{line}:" in capsys.readouterr().err
    assert main(["regrade", str(path), "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert len(out["edited"]) == 1 and out["verified"] is True
    assert main(["replay", str(path)]) == 1


def test_a_removed_line_breaks_the_chain_where_it_was(tmp_path):
    lines = golden_path("tool-rename-skill-rewrite").read_text().splitlines()
    text = "\n".join([*lines[:3], *lines[4:]]) + "\n"
    # the step numbers no longer follow, so this one is refused outright; the chain also names the line
    assert [b.line for b in verify_chain(text.splitlines())[1]] == [4]


def test_an_unedited_golden_verifies_and_a_legacy_record_is_read_unverified(tmp_path, capsys):
    rec = read_record(golden_path("apparel-size-advice"))
    assert rec.chained and not rec.breaks
    legacy = tmp_path / "legacy.jsonl"
    legacy.write_text("".join(json.dumps({k: v for k, v in json.loads(x).items() if k != "h"}) + "\n"
                              for x in golden_path("apparel-size-advice").read_text().splitlines()))
    assert not read_record(legacy).chained
    assert main(["view", str(legacy), "--no-live"]) == 0
    assert "no integrity hashes" in capsys.readouterr().err


# --- hostile actions -----------------------------------------------------------------------------------
@pytest.mark.parametrize("env_id", ["LiveStreamQA-v0", "LiveStream-v0"])
def test_every_hostile_action_is_graded_never_raised(env_id):
    env = gym.make(env_id, config={"latency": {"mode": "measured"}})
    obs, _ = env.reset(seed=5)
    attacks = [m() for m in python_object_attacks()] + _actions()
    worst = 0.0
    for k, action in enumerate(attacks):
        t0 = time.perf_counter()
        obs, reward, term, trunc, info = env.step(action)
        worst = max(worst, time.perf_counter() - t0)
        _check_obs(obs)
        assert math.isfinite(reward) and 0.0 <= reward <= 1.0
        if info["dispatched"]:
            assert sum(info["reward_terms"].values()) == pytest.approx(reward)
        if term or trunc:
            obs, _ = env.reset(seed=100 + k)
    print(f"{env_id}: {len(attacks)} hostile actions, slowest step {worst * 1000:.1f} ms")


def test_python_objects_become_one_unreadable_parse_error():
    for make in python_object_attacks():
        safe = sanitize_action(make())
        json.dumps(safe.action, ensure_ascii=False, allow_nan=False).encode("utf-8")
        assert sanitize_action(safe.action) == safe  # idempotent
        if safe.error is not None:
            assert safe.action == {UNREADABLE_KEY: safe.error}


def test_deep_or_surrogate_arguments_never_reach_the_request(tmp_path):
    """The issue's wedge: arguments nested ~300 deep or holding a lone surrogate made every later step raise."""
    env = gym.make("LiveStreamQA-v0")
    for args in ('{"link": ' + "[" * 300 + "]" * 300 + "}", '{"link": 1, "variant": "\\ud800"}'):
        obs, _ = env.reset(seed=9)
        obs, *_ = env.step(f'<tool_call>{{"name": "check_stock", "arguments": {args}}}</tool_call>')
        _check_obs(obs)
        sim = env.unwrapped.sim
        assert all(_depth(c.arguments) <= MAX_ARG_DEPTH for c in sim.trace.tool_calls)
        json.dumps(sim.trace.model_dump(mode="json"), ensure_ascii=False).encode("utf-8")
        for _ in range(40):  # the request goes on and ends normally (a reply, or the fallback at the turn cap)
            obs, reward, term, trunc, _ = env.step("Here you go!")
            _check_obs(obs)
            if term or trunc:
                break
        assert term and math.isfinite(reward)


class _Hostile:
    """An agent whose every other action is a Python object JSON cannot encode, or a lone surrogate."""

    def __init__(self, inner):
        self.inner, self.n = inner, 0
        self.bad = [m for m in python_object_attacks()] + [lambda: "sure \ud800 thing", lambda: {"content": "\udfff"}]

    def reset(self):
        self.inner.reset()

    def act(self, obs):
        self.n += 1
        return self.bad[self.n % len(self.bad)]() if self.n % 2 else self.inner.act(obs)


def test_a_run_with_hostile_actions_records_and_replays_exactly(tmp_path):
    from livesim.agents import make_agent

    sc = load_scenario("tool-rename-skill-rewrite")
    env = make_stream_env()
    header = RecordHeader(livesim_version="test", seed=sc.seed, config=sc.to_config(), agent="hostile")
    path = tmp_path / "hostile.jsonl"
    write_lines(run_episode(env, _Hostile(make_agent("oracle", env=env)), header), path)
    path.read_bytes().decode("utf-8")  # strict UTF-8
    record = read_record(path)
    assert record.end is not None and record.chained and not record.breaks
    assert any(isinstance(s.action, dict) and UNREADABLE_KEY in s.action for s in record.steps)
    assert replay(record) == len(record.steps)


# --- properties ----------------------------------------------------------------------------------------
_leaves = (st.none() | st.booleans() | st.integers() | st.floats() | st.text()
           | st.binary(max_size=8) | st.sampled_from([np.float64(1.5), np.int32(3), np.arange(2), object()]))
_values = st.recursive(_leaves, lambda c: st.lists(c, max_size=4) | st.tuples(c, c)
                       | st.dictionaries(st.text(max_size=6) | st.integers() | st.tuples(st.integers()), c, max_size=4),
                       max_leaves=25)
_messages = st.fixed_dictionaries({}, optional={
    "role": st.sampled_from(["assistant", "user", 3]), "content": _values,
    "tool_calls": st.lists(st.fixed_dictionaries({"function": st.fixed_dictionaries(
        {"name": st.text(max_size=12) | _values, "arguments": _values | st.text()})}), max_size=3),
    "latency_s": _values})
PROPS = settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@PROPS
@given(st.one_of(_values, _messages, st.text()))
def test_sanitised_actions_are_bounded_json_and_stable(action):
    safe = sanitize_action(action)
    text = json.dumps(safe.action, ensure_ascii=False, allow_nan=False)
    text.encode("utf-8")
    assert isinstance(safe.action, (str, dict)) and _depth(safe.action) <= 33
    assert sanitize_action(safe.action) == safe
    parsed = parse_action(safe.action)
    for call in parsed.tool_calls:
        assert _depth(call.arguments) <= MAX_ARG_DEPTH
        json.dumps(call.arguments, ensure_ascii=False, allow_nan=False).encode("utf-8")
    (parsed.text + "".join(e.message for e in parsed.errors)).encode("utf-8")


_qa = gym.make("LiveStreamQA-v0", config={"latency": {"mode": "measured"}})
_qa2 = gym.make("LiveStreamQA-v0", config={"latency": {"mode": "measured"}})


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.one_of(_values, _messages, st.text()), st.integers(0, 2**20))
def test_stepping_an_action_equals_stepping_its_sanitised_form(action, seed):
    a, _ = _qa.reset(seed=seed)
    b, _ = _qa2.reset(seed=seed)
    ra = _qa.step(action)
    rb = _qa2.step(sanitize_action(action).action)
    _check_obs(ra[0])
    assert ra[0] == rb[0] and ra[1] == rb[1] and ra[2] == rb[2]


def test_harness_patch_files_are_bounded_too(tmp_path, capsys):
    bomb = tmp_path / "patches.yaml"
    bomb.write_text((CORPORA / "scenarios" / "alias-bomb-9x10.yaml").read_text())
    t0 = time.perf_counter()
    with pytest.raises(SystemExit, match="alias bomb"):
        main(["harness", "diff", "--patch", str(bomb)])
    print(f"patch-file alias bomb refused in {1000 * (time.perf_counter() - t0):.1f} ms")
    deep = tmp_path / "h.json"
    deep.write_text("[" * 100_000 + "]" * 100_000)
    with pytest.raises(SystemExit, match="nested too deeply|maximum nesting depth"):
        main(["harness", "diff", str(deep), str(deep)])


@pytest.mark.parametrize("libyaml", [True, False], ids=["libyaml-events", "python-composer"])
def test_both_yaml_paths_enforce_the_same_bounds(libyaml, monkeypatch):
    import yaml

    monkeypatch.setattr(yaml, "__with_libyaml__", libyaml and getattr(yaml, "__with_libyaml__", False))
    cases = {"alias-bomb-9x10.yaml": "alias", "alias-bomb-merge-keys.yaml": "alias",
             "alias-bomb-long-string.yaml": "alias", "recursive-anchor-sequence.yaml": "recursive",
             "recursive-anchor-mapping.yaml": "recursive", "deep-flow-mappings-3000.yaml": "nested",
             "deep-block-mappings-200.yaml": "nested"}
    for name, msg in cases.items():
        t0 = time.perf_counter()
        with pytest.raises(yaml.YAMLError, match=msg):
            compose_bounded((CORPORA / "scenarios" / name).read_text())
        print(f"{'libyaml' if libyaml else 'python'} {name}: {1000 * (time.perf_counter() - t0):.1f} ms")
    import sys

    sys.path.insert(0, str(CORPORA))
    try:
        from make_corpora import BASE_SCENARIO
    finally:
        sys.path.remove(str(CORPORA))
    node, data = compose_bounded(BASE_SCENARIO + "a: &x [1, 2]\nb: *x\n")
    assert data["b"] == [1, 2] and node.start_mark.line == 0
