"""HSA wrappers: each changes what it should and nothing canonical; composites, registry, splits, task
preservation (oracle), memorizer collapse, determinism across processes, tool faults, and the harness CLI."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from collections import Counter
from typing import Any

import gymnasium as gym
import numpy as np
import pytest

import livesim  # noqa: F401
from livesim.agents.oracle import OracleAgent
from livesim.cli.harness import harness_diff
from livesim.envs.hsa import (
    DIMENSIONS,
    TRANSFORMS,
    WRAPPERS,
    Augment,
    Chain,
    HarnessPool,
    HarnessStateAugmentation,
    Pooled,
    SkillRename,
    ToolFaults,
    make_wrappers,
)
from livesim.envs.hsa.core import join_rules, parity, split_rules
from livesim.envs.hsa.vocab import HELDOUT, SPLITS, STRESS, TRAIN, synonym_forms
from livesim.envs.hsa.wrappers import ORDER
from livesim.envs.rollout import episode_requests
from livesim.harness.core import SKILL_NAME_PATTERN, Harness, default_harness
from livesim.runs.hsa_measure import rewards

SMALL = {"n_viewers": 8}  # cheaper resets; rewards do not depend on it
SPLIT_SEEDS = 30  # per split and transform: ~60 requests per transform in the default run

# What each transform may change, as (section, field) rows of `harness_diff`.
ALLOWED: dict[str, set[tuple[str, str]]] = {
    "skill_distractors": {("skill", "added")},
    "skill_rename": {("skill", "name")},
    "skill_mask": {("skill", "description")},
    "skill_reorder": {("skill", "order")},
    "skill_paraphrase": {("skill", "content"), ("skill", "description")},
    "skill_rule_order": {("skill", "content")},
    "skill_format": {("skill", "content")},
    "tool_rename": {("tool", "name")},
    "param_rename": {("param", "name")},
    "tool_describe": {("tool", "description"), ("param", "description")},
    "tool_reorder": {("tool", "order"), ("param", "order")},
    "tool_defaults": {("param", "default")},
    "prompt_order": {("prompt", "blocks"), ("prompt", "rules")},
    "prompt_style": {("prompt", "style")},
    "prompt_titles": {("prompt", "title")},
    "prompt_limits": {("limits", "max_reply_chars"), ("limits", "turn_cap"), ("limits", "max_tool_calls")},
    "hook_templates": {("hook", "retry_template")},
    "hook_limits": {("hook", "retry_limit")},
    "hook_corrections": {("hook", "added")},
}


def augmented(names: tuple[str, ...], split: str, seed: int, p: float = 1.0) -> Harness:
    return Augment(names, split, p)(default_harness(), np.random.default_rng(seed))


def qa_env(spec: str | None = None, split: str = "train", p: float = 1.0, **config: Any) -> gym.Env[Any, Any]:
    env = gym.make("LiveStreamQA-v0", config={**SMALL, **config})
    return make_wrappers(env, spec, split=split, p=p) if spec else env


def check_valid(h: Harness) -> None:
    skill_names = [s.name for s in h.skills]
    assert len(set(skill_names)) == len(skill_names)
    assert all(re.fullmatch(SKILL_NAME_PATTERN, n) and len(n) <= 64 for n in skill_names)
    tool_names = [t.name for t in h.tools]
    assert len(set(tool_names)) == len(tool_names)
    for t in h.tools:
        assert len({p.name for p in t.params}) == len(t.params)
    Harness.model_validate(h.model_dump())  # still a valid harness
    assert h.prompt.limits.max_reply_chars >= 280 and h.prompt.limits.turn_cap >= 4
    assert h.prompt.limits.max_tool_calls >= 4 and all(1 <= k.retry_limit <= 4 for k in h.hooks
                                                       if k.event != "request")


# --- each wrapper, composites, registry ---------------------------------------------------------------------
def test_every_transform_has_a_wrapper_and_a_dimension() -> None:
    assert set(ALLOWED) == set(TRANSFORMS) == set(ORDER)
    assert set(DIMENSIONS) == {"skill_ids", "skill_content", "tool_schemas", "prompt", "hooks"}
    for name in TRANSFORMS:
        assert issubclass(WRAPPERS[name], gym.Wrapper)
    assert {"hsa", "hsa_skill_ids", "hsa_skill_content", "hsa_tools", "hsa_prompt", "hsa_hooks",
            "tool_faults"} <= set(WRAPPERS)


@pytest.mark.parametrize("split", SPLITS)
@pytest.mark.parametrize("name", list(ALLOWED))
def test_transform_changes_only_its_concern(name: str, split: str) -> None:
    canonical = default_harness()
    fields: Counter[tuple[str, str]] = Counter()
    for seed in range(4):
        h = augmented((name,), split, seed)
        check_valid(h)
        rows = harness_diff(canonical, h)
        fields.update((r["section"], r["field"]) for r in rows)
        # canonical identity untouched: same keys, roles, kinds, checks, events, params and parameter keys
        assert {s.key: (s.role, s.kind) for s in h.skills if s.kind != "distractor"} == \
               {s.key: (s.role, s.kind) for s in canonical.skills}
        assert {t.key: sorted(p.key for p in t.params) for t in h.tools} == \
               {t.key: sorted(p.key for p in t.params) for t in canonical.tools}
        assert {k.key: (k.check, k.event, k.params) for k in h.hooks if k.check != "notice"} == \
               {k.key: (k.check, k.event, k.params) for k in canonical.hooks}
        assert h.version == canonical.version and h.last_patch == canonical.last_patch
    assert fields, f"{name} changed nothing in 4 seeds"
    assert set(fields) <= ALLOWED[name], f"{name} changed {set(fields) - ALLOWED[name]}"


def test_content_transforms_keep_the_rules() -> None:
    canonical = {s.key: split_rules(s.content) for s in default_harness().skills}
    for split in SPLITS:
        for name in ("skill_rule_order", "skill_format"):
            h = augmented((name,), split, 1)
            for s in h.skills:
                assert sorted(split_rules(s.content)) == sorted(canonical[s.key]), (name, s.content)
    rules = ["One rule.", "Two rules", "Three."]
    for fmt in ("dash", "star", "numbered", "paren", "prose"):
        assert [r.rstrip(".") for r in split_rules(join_rules(rules, fmt))] == [r.rstrip(".") for r in rules]
    assert parity([0, 1, 2]) == 0 and parity([1, 0, 2]) == 1 and parity([1, 2, 0]) == 0


def test_distractors_are_not_reply_skills() -> None:
    env = qa_env("skill_distractors")
    env.reset(seed=3)
    sim = env.unwrapped.sim
    distractor = next(s for s in sim.harness.skills if s.kind == "distractor")
    load = sim.harness.tool_by_key("load_skill")
    call = {"name": load.name, "arguments": {load.params[0].name: distractor.name}}
    obs, *_ = env.step("<tool_call>" + json.dumps(call) + "</tool_call>")
    assert obs["messages"][-1]["content"].startswith(f"# {distractor.name}")
    obs, reward, terminated, _, info = env.step("Hello! Welcome to the stream.")
    assert not terminated and "no reply skill has been loaded" in obs["messages"][-1]["content"]


def test_composite_probability_and_extremes() -> None:
    canonical = default_harness()
    assert augmented(ORDER, "train", 0, p=0.0).fingerprint == canonical.fingerprint
    full = harness_diff(canonical, augmented(ORDER, "heldout", 0, p=1.0))
    assert {r["section"] for r in full} >= {"skill", "tool", "param", "prompt", "limits", "hook"}
    styled = sum(augmented(ORDER, "train", s, p=2 / 3).prompt.style != "markdown" for s in range(90))
    assert 45 <= styled <= 75  # about 2/3 of 90


def test_wrappers_stack_and_registry() -> None:
    env = make_wrappers(qa_env(), ["skill_rename", "tool_rename"], split="heldout", p=1.0)
    assert isinstance(env.unwrapped.augment, Chain)
    env.reset(seed=0)
    h = env.unwrapped.sim.harness
    assert all(t.name != t.key for t in h.tools) and all(s.name != s.key for s in h.skills)
    assert isinstance(make_wrappers(qa_env(), "hsa"), HarnessStateAugmentation)
    with pytest.raises(ValueError, match="valid names: .*skill_rename"):
        make_wrappers(qa_env(), "skill_rename,nope")
    with pytest.raises(ValueError, match="expected wrapper names"):
        make_wrappers(qa_env(), " , ")
    with pytest.raises(ValueError, match="expected split 'train', 'heldout', 'stress', got 'test'"):
        SkillRename(qa_env(), split="test")
    with pytest.raises(ValueError, match=r"expected p in \[0, 1\], got 1.5"):
        SkillRename(qa_env(), p=1.5)
    with pytest.raises(TypeError, match="expected a gymnasium.Env, got str"):
        SkillRename("LiveStreamQA-v0")  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="expected a livesim env"):
        SkillRename(gym.make("CartPole-v1"))


def test_synonym_p_zero_presents_generated_names_only_and_none_changes_nothing() -> None:
    synonyms = {n for v in (TRAIN, HELDOUT, STRESS) for kind in ("tool", "param", "skill")
                for n in synonym_forms(v, kind)}
    canonical = default_harness()
    canon_names = {t.name for t in canonical.tools} | {p.name for t in canonical.tools for p in t.params} \
        | {s.name for s in canonical.skills}
    renames = ["skill_rename", "tool_rename", "param_rename"]
    seen_default: set[str] = set()
    for seed in range(6):
        presented = {}
        for sp in (None, TRAIN.synonym_p, 0.0):
            env = make_wrappers(qa_env(), renames, split="train", p=1.0, synonym_p=sp)
            env.reset(seed=seed)
            presented[sp] = env.unwrapped.sim.harness
        # None is the vocabulary's own synonym_p: the same draws, so the same presented harness
        assert presented[None].fingerprint == presented[TRAIN.synonym_p].fingerprint
        h = presented[0.0]
        names = [t.name for t in h.tools] + [p.name for t in h.tools for p in t.params] + [s.name for s in h.skills]
        assert not set(names) & (synonyms | canon_names), seed
        seen_default |= {t.name for t in presented[None].tools} & synonyms
    assert seen_default  # the default does draw synonyms (so the check above is not vacuous)
    with pytest.raises(ValueError, match=r"expected synonym_p in \[0, 1\] or None, got 2"):
        SkillRename(qa_env(), synonym_p=2)


def test_cli_make_env_takes_wrappers_and_both_splits() -> None:
    from livesim.cli import build_parser
    from livesim.runs.build import make_env

    args = build_parser().parse_args(["eval", "--wrappers", "hsa", "--hsa-split", "heldout", "--split", "test"])
    env = make_env("LiveStreamQA-v0", args)
    assert env.unwrapped.split == "test" and env.spec is not None
    assert isinstance(env, HarnessStateAugmentation) and env.split == "heldout"
    args = build_parser().parse_args(["eval", "--wrappers", "bogus"])
    with pytest.raises(SystemExit, match="unknown wrapper"):
        make_env("LiveStreamQA-v0", args)


# --- splits: tests/envs/test_hsa_splits.py -----------------------------------------------------------------


# --- task preservation and the memorizer ----------------------------------------------------------------------
_BARE: dict[str, list[float]] = {}


def bare(split: str) -> list[float]:
    if split not in _BARE:
        _BARE[split] = rewards(None, split, "oracle", _seeds(split), config=SMALL)
    return _BARE[split]


def _seeds(split: str, n: int = SPLIT_SEEDS) -> list[int]:
    return list(range(n)) if split == "train" else list(range(1000, 1000 + n))


@pytest.mark.parametrize("split", SPLITS)
@pytest.mark.parametrize("spec", [*ORDER, "hsa"])
def test_oracle_reward_is_unchanged(spec: str, split: str) -> None:
    got = rewards(spec, split, "oracle", _seeds(split), p=1.0, config=SMALL)
    assert got == bare(split)  # to the last digit, request by request
    assert min(got) > 0.99


@pytest.mark.slow
@pytest.mark.parametrize("split", SPLITS)
@pytest.mark.parametrize("spec", [*ORDER, "hsa"])
def test_oracle_reward_is_unchanged_500(spec: str, split: str) -> None:
    seeds = _seeds(split, 500)
    base = rewards(None, split, "oracle", seeds)
    assert rewards(spec, split, "oracle", seeds, p=1.0) == base
    assert rewards(spec, split, "oracle", seeds, p=2 / 3) == base


@pytest.mark.parametrize("split", SPLITS)
def test_memorizer_matches_oracle_on_canonical_and_collapses_under_hsa(split: str) -> None:
    seeds = _seeds(split)
    assert rewards(None, split, "memorizer", seeds, config=SMALL) == bare(split)
    for spec in ("skill_rename", "tool_rename", "param_rename"):
        mem = rewards(spec, split, "memorizer", seeds, p=1.0, config=SMALL)
        assert np.mean(mem) < 0.3, spec
    for spec in ("skill_mask", "prompt_style", "hook_templates"):  # names intact: the memorizer is unhurt
        assert rewards(spec, split, "memorizer", seeds, p=1.0, config=SMALL) == bare(split)
    assert np.mean(rewards("hsa", split, "memorizer", seeds, p=2 / 3, config=SMALL)) < 0.3


def test_tool_defaults_are_presented_but_omitted_arguments_keep_the_canonical_one() -> None:
    results = []
    for spec in (None, "tool_defaults"):
        env = qa_env(spec, split="heldout")
        obs, _ = env.reset(seed=5)
        sim = env.unwrapped.sim
        tool = sim.harness.tool_by_key("search_products")
        schema = next(s for s in obs["tools"] if s["function"]["name"] == tool.name)
        limit = next(p for p in tool.params if p.key == "limit")
        query = next(p for p in tool.params if p.key == "query")
        default = schema["function"]["parameters"]["properties"][limit.name]["default"]
        assert (default == 5) == (spec is None)
        call = {"name": tool.name, "arguments": {query.name: ""}}
        obs, *_, info = env.step("<tool_call>" + json.dumps(call) + "</tool_call>")
        results.append(json.loads(obs["messages"][-1]["content"]))
    assert results[0] == results[1] and len(results[0]["results"]) == 5


def test_renamed_parameters_reject_canonical_names_without_leaking_them() -> None:
    env = qa_env("param_rename", split="train")
    env.reset(seed=2)
    sim = env.unwrapped.sim
    tool = sim.harness.tool_by_key("recommend_size")
    names = {p.key: p.name for p in tool.params}
    link = next(p.link for p in sim.catalog.products if p.size_chart)
    obs, *_ = env.step("<tool_call>" + json.dumps({"name": tool.name, "arguments": {
        "link": link, "height_cm": 170, "weight_kg": 60}}) + "</tool_call>")
    msg = obs["messages"][-1]["content"]
    assert "unknown parameter" in msg and all(n in msg for n in names.values())
    obs, *_ = env.step("<tool_call>" + json.dumps({"name": tool.name, "arguments": {
        names["link"]: link, names["height_cm"]: 999, names["weight_kg"]: 60}}) + "</tool_call>")
    msg = obs["messages"][-1]["content"]
    assert "height_cm" not in msg and "weight_kg" not in msg and names["height_cm"] in msg


def test_hook_corrections_restate_what_is_in_force() -> None:
    env = qa_env("hook_corrections,tool_rename,prompt_limits", split="train")
    for seed in range(6):
        obs, _ = env.reset(seed=seed)
        h = env.unwrapped.sim.harness
        notices = [m["content"] for m in obs["messages"][2:] if any(s in m["content"] for s in TRAIN.notice_senders)]
        assert notices and not any("{tool:" in n or "{max_" in n for n in notices)
        for n in notices:
            if "capped at" in n:
                assert str(h.prompt.limits.max_reply_chars) in n
            if "reply skill with" in n:
                assert h.tool_by_key("load_skill").name in n


def test_stress_style_prompt_is_json_with_unseen_titles() -> None:
    env = qa_env("prompt_style,prompt_titles,prompt_order", split="stress")
    obs, _ = env.reset(seed=0)
    prompt = json.loads(obs["messages"][0]["content"])
    assert set(prompt) <= {t for ts in STRESS.titles.values() for t in ts}
    assert next(iter(prompt)) not in STRESS.titles["persona"]
    # the rules resolve the presented load_skill name (here canonical), never a placeholder
    assert "{tool:" not in obs["messages"][0]["content"]


# --- determinism -----------------------------------------------------------------------------------------------
def _fingerprints(split: str, seeds: list[int]) -> list[str]:
    env = qa_env("hsa", split=split, p=2 / 3)
    out = []
    agent = OracleAgent(env)
    for s in seeds:
        recs = list(episode_requests(env, agent, s))
        out.append(env.unwrapped.sim.harness.fingerprint + f":{recs[-1]['reward']!r}:{len(recs)}")
    return out


def test_same_seed_same_augmentation_and_trajectory() -> None:
    a, b = _fingerprints("heldout", [0, 1, 2]), _fingerprints("heldout", [0, 1, 2])
    assert a == b and len(set(a)) == 3


def test_determinism_across_processes() -> None:
    code = ("import json; from tests.envs.test_hsa import _fingerprints; "
            "print(json.dumps([_fingerprints('train', [3, 4]), _fingerprints('heldout', [5, 6])]))")
    outs = []
    for hashseed in ("1", "2"):
        proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True,
                              env={"PYTHONHASHSEED": hashseed, "PATH": ""}, cwd=_repo_root())
        outs.append(json.loads(proc.stdout))
    assert outs[0] == outs[1] == [_fingerprints("train", [3, 4]), _fingerprints("heldout", [5, 6])]


# --- the finite pool (hsa_pool) ----------------------------------------------------------------------------------

def _pooled_fingerprints(seeds: list[int], size: int = 4, split: str = "heldout") -> list[str]:
    env = HarnessPool(qa_env("hsa", split=split, p=2 / 3), size=size)
    agent = OracleAgent(env)
    out = []
    for s in seeds:
        recs = list(episode_requests(env, agent, s))
        out.append(env.unwrapped.sim.harness.fingerprint + f":{recs[-1]['reward']!r}")
    return out


def test_pool_presents_at_most_size_variants_deterministically_and_shares_them() -> None:
    seeds = list(range(24))
    a = _pooled_fingerprints(seeds)
    assert a == _pooled_fingerprints(seeds)  # same seeds, same variants and rewards
    assert 2 <= len({x.split(":")[0] for x in a}) <= 4  # a finite pool, drawn per seed
    env = make_wrappers(qa_env(), "hsa,hsa_pool", split="train", p=2 / 3)
    env.reset(seed=0)
    first = env.unwrapped.sim.harness
    pool = env.unwrapped.augment
    assert isinstance(pool, Pooled) and pool.size == 256
    key = next(k for k, (h, _) in pool._cache.items() if h is first)
    for s in range(1, 400):
        env.reset(seed=s)
        if env.unwrapped.sim.harness.fingerprint == first.fingerprint:
            assert env.unwrapped.sim.harness is first  # shared, not rebuilt
            break
    else:
        pytest.fail(f"variant {key} never drawn again in 400 seeds of a 256-variant pool")
    assert first.fingerprint == pool._cache[key][1]
    small = HarnessPool(qa_env("hsa", split="train", p=2 / 3), size=5).prebuild()
    assert len(small.pool._cache) == 5
    built = dict(small.pool._cache)
    for s in range(30):
        small.reset(seed=s)
        assert any(small.unwrapped.sim.harness is h for h, _ in built.values())  # only prebuilt variants
    assert small.pool._cache == built


def test_pool_keeps_the_oracle_reward_and_across_processes() -> None:
    seeds = list(range(1000, 1000 + SPLIT_SEEDS))
    env = HarnessPool(qa_env("hsa", split="heldout", p=1.0), size=8)
    agent = OracleAgent(env)
    got = [float(r["reward"]) for s in seeds for r in episode_requests(env, agent, s)]
    assert got == bare("heldout")
    code = ("import json; from tests.envs.test_hsa import _pooled_fingerprints; "
            "print(json.dumps(_pooled_fingerprints([0, 5, 9])))")
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True,
                          env={"PYTHONHASHSEED": "3", "PATH": ""}, cwd=_repo_root())
    assert json.loads(proc.stdout) == _pooled_fingerprints([0, 5, 9])


def test_pool_as_a_plain_transform_returns_a_copy_a_later_wrapper_may_edit() -> None:
    env = make_wrappers(qa_env(), "hsa,hsa_pool,tool_rename", split="train", p=1.0)
    assert isinstance(env.unwrapped.augment, Chain)
    names = []
    for s in range(6):
        env.reset(seed=s)
        names.append(tuple(t.name for t in env.unwrapped.sim.harness.tools))
    pool = env.unwrapped.augment.first
    assert pool._cache and all(h.fingerprint == fp for h, fp in pool._cache.values())  # cached variants untouched
    assert all(n != tuple(t.name for t in h.tools) for n in names for h, _ in pool._cache.values())  # renamed after
    env2 = make_wrappers(qa_env(), "hsa,hsa_pool,tool_rename", split="train", p=1.0)
    assert names == [tuple(t.name for t in (env2.reset(seed=s), env2.unwrapped.sim.harness)[1].tools)
                     for s in range(6)]


def test_pool_checks_its_arguments() -> None:
    with pytest.raises(ValueError, match="put it after them"):
        HarnessPool(qa_env())
    for bad in (0, -1, 1.5, True):
        with pytest.raises(ValueError, match="size >= 1"):
            HarnessPool(qa_env("hsa"), size=bad)
    with pytest.raises(ValueError, match="seed >= 0"):
        HarnessPool(qa_env("hsa"), seed=-2)


def _repo_root() -> str:
    from pathlib import Path

    return str(Path(__file__).resolve().parents[2])


# --- faults ----------------------------------------------------------------------------------------------------
def test_tool_faults_happen_at_the_set_rates_and_never_raise() -> None:
    env = ToolFaults(qa_env(), timeout=0.3, malformed=0.2, denied=0.1)
    agent = OracleAgent(env)
    kinds: Counter[str] = Counter()
    for s in range(300):
        for rec in episode_requests(env, agent, s):
            for call in rec["trace"]["tool_calls"]:
                if call["key"] != "load_skill":
                    kinds[call["error_kind"] or "ok"] += 1
    n = sum(kinds.values())
    assert n > 200
    for kind, rate in (("fault_timeout", 0.3), ("fault_malformed", 0.2), ("fault_denied", 0.1), ("ok", 0.4)):
        assert abs(kinds[kind] / n - rate) < 0.08, (kind, kinds)
    env.reset(seed=0)
    sim = env.unwrapped.sim
    tool = sim.harness.tool_by_key("list_promotions")
    msgs = []
    for _ in range(7):  # under the turn cap
        obs, *_ = env.step("<tool_call>" + json.dumps({"name": tool.name, "arguments": {}}) + "</tool_call>")
        msgs.append(obs["messages"][-1]["content"])
    assert any("timed out" in m for m in msgs)


def test_tool_faults_checks_its_arguments_and_limits_to_tools() -> None:
    with pytest.raises(ValueError, match=r"expected timeout in \[0, 1\], got 2"):
        ToolFaults(qa_env(), timeout=2)
    with pytest.raises(ValueError, match="<= 1"):
        ToolFaults(qa_env(), timeout=0.6, denied=0.6)
    with pytest.raises(ValueError, match="expected canonical tool keys"):
        ToolFaults(qa_env(), tools=["nope"])
    env = ToolFaults(qa_env(), timeout=1.0, malformed=0.0, denied=0.0, tools=["get_price"])
    agent = OracleAgent(env)
    calls = [c for s in range(10) for r in episode_requests(env, agent, s, {"intent": "price"})
             for c in r["trace"]["tool_calls"]]
    assert any(c["key"] == "get_price" for c in calls)
    assert all((c["error_kind"] == "fault_timeout") == (c["key"] == "get_price") for c in calls)
    assert isinstance(make_wrappers(qa_env(), "tool_faults"), ToolFaults)


# --- CLI -------------------------------------------------------------------------------------------------------
def test_harness_show_and_diff(tmp_path: Any, capsys: Any) -> None:
    from livesim.cli import main

    main(["harness", "show", "--format", "json", "--wrappers", "hsa", "--hsa-split", "heldout", "--seed", "4"])
    presented = json.loads(capsys.readouterr().out)
    main(["harness", "show", "--format", "json", "--view", "canonical", "--wrappers", "hsa", "--seed", "4"])
    canonical = json.loads(capsys.readouterr().out)
    assert canonical["fingerprint"] == default_harness().fingerprint != presented["fingerprint"]
    a, b = tmp_path / "a.json", tmp_path / "b.json"
    a.write_text(json.dumps(canonical))
    b.write_text(json.dumps(presented))
    main(["harness", "diff", str(a), str(b), "--format", "json"])
    from_files = json.loads(capsys.readouterr().out)
    main(["harness", "diff", "--wrappers", "hsa", "--hsa-split", "heldout", "--seed", "4", "--format", "json"])
    from_seed = json.loads(capsys.readouterr().out)
    assert from_files == from_seed and from_seed["rows"]
    patch = tmp_path / "p.yaml"
    patch.write_text("- {op: rename_tool, name: get_price, new_name: price_lookup}\n")
    main(["harness", "diff", "--patch", str(patch), "--format", "json"])
    rows = json.loads(capsys.readouterr().out)["rows"]
    assert {"section": "tool", "element": "get_price", "field": "name", "before": "get_price",
            "after": "price_lookup"} in rows
    main(["harness", "diff", "--wrappers", "tool_rename", "--p", "1", "--seed", "1"])
    text = capsys.readouterr().out
    assert "load_skill" in text and "differences" in text
    main(["harness", "show", "--prompt"])
    assert "## Persona" in capsys.readouterr().out
    with pytest.raises(SystemExit, match="unknown wrapper"):
        main(["harness", "show", "--wrappers", "nope"])


def test_first_draws_in_bulk_are_the_streams_first_draws() -> None:
    from livesim.envs.hsa.core import Draws

    for seed in range(20):
        d = Draws(np.random.default_rng(seed))
        keys = ["search_products", 3, "a\x1fb", 2.5, None]
        assert d.randoms("tool_reorder:x", keys) == [d.rng("tool_reorder:x", k).random() for k in keys]


def test_coins_in_one_call_are_the_scalar_draws() -> None:
    from livesim.envs.hsa.wrappers import ORDER

    class Scalar:  # no bit_generator: Augment draws coin and key one call at a time, as before
        def __init__(self, seed: int) -> None:
            self._g = np.random.default_rng(seed)

        def random(self) -> float:
            return self._g.random()

        def integers(self, *a: int) -> int:
            return self._g.integers(*a)

    for seed in range(12):
        for split in ("train", "heldout"):
            fast = Augment(ORDER, split, 2 / 3)(default_harness(), np.random.default_rng(seed))
            slow = Augment(ORDER, split, 2 / 3)(default_harness(), Scalar(seed))  # type: ignore[arg-type]
            assert fast.fingerprint == slow.fingerprint
    g, h = np.random.default_rng(3), Scalar(3)
    Augment(ORDER, "train", 1.0)(default_harness(), g)
    Augment(ORDER, "train", 1.0)(default_harness(), h)  # type: ignore[arg-type]
    assert g.random() == h.random()  # the generator is left where the scalar draws leave it
