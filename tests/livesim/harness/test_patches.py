"""Operator patches: typed changes of the harness, applied between requests while a stream runs, visible in
the next request's prompt and tools, bumping version and fingerprint, named in every step's info."""

from __future__ import annotations

from typing import Any

import gymnasium as gym
import pytest

import livesim  # noqa: F401
from livesim.agents.oracle import MemorizerAgent, OracleAgent
from livesim.envs.hsa import make_wrappers
from livesim.harness.core import Hook, Skill, default_harness
from livesim.harness.patches import (
    AddHook,
    AddSkill,
    PatchError,
    RemoveHook,
    RemoveSkill,
    RenameParam,
    RenameSkill,
    RenameTool,
    RewriteSkill,
    SetLimit,
    apply_patch,
)

RENAME = {"op": "rename_tool", "at_s": 120.0, "name": "get_price", "new_name": "price_lookup"}
STREAM = {"n_viewers": 12, "duration_s": 260.0, "intents": ["price"], "comments_per_min": 8.0}
FULL = ("accuracy", "effectiveness", "tool_rationality", "skill_selection", "hook_compliance")


# --- apply_patch -----------------------------------------------------------------------------------------------
def test_each_patch_op_changes_the_harness_and_bumps_version_and_fingerprint() -> None:
    h = default_harness()
    notice = Hook(key="ops-note", check="notice", event="request", params={"message": "hi"},
                  retry_template="{reason}")
    extra = Skill(key="gift-wrap", role="gift-wrap", kind="reply", name="gift-wrap", description="d", content="- c")
    patches = [
        (RenameTool(name="get_price", new_name="price_lookup"), lambda x: x.tool_by_key("get_price").name
         == "price_lookup"),
        (RenameParam(tool="get_price", name="link", new_name="item"), lambda x: x.tool_by_key("get_price")
         .params[0].name == "item"),
        (RenameSkill(name="size-advice", new_name="fit-help"), lambda x: x.skill_by_key("size-advice").name
         == "fit-help"),
        (RewriteSkill(name="small-talk", content="- Be nice."), lambda x: x.skill_by_key("small-talk").content
         == "- Be nice."),
        (RemoveSkill(name="clearance"), lambda x: x.skill_by_key("clearance") is None),
        (AddSkill(skill=extra), lambda x: x.skill_by_key("gift-wrap") is not None),
        (AddHook(hook=notice), lambda x: any(k.key == "ops-note" for k in x.hooks)),
        (RemoveHook(key="plain_format"), lambda x: all(k.key != "plain_format" for k in x.hooks)),
        (SetLimit(limit="max_reply_chars", value=300), lambda x: x.prompt.limits.max_reply_chars == 300),
    ]
    for patch, check in patches:
        new = apply_patch(h, patch)
        assert check(new), patch
        assert new.version == h.version + 1 and new.fingerprint != h.fingerprint
        assert new.last_patch and new.last_patch.startswith("t=0s: ")
        assert h.fingerprint == default_harness().fingerprint  # the input is never changed
    fingerprints = set()
    for patch, _ in patches[1:]:  # in sequence (the param rename names the tool as it is then)
        h = apply_patch(h, patch)
        fingerprints.add(h.fingerprint)
    assert h.version == len(patches) and len(fingerprints) == len(patches) - 1


@pytest.mark.parametrize("patch, message", [
    (RenameTool(name="nope", new_name="x"), "no tool named 'nope'; tools: "),
    (RenameTool(name="get_price", new_name="get_product"), "'get_product' is taken"),
    (RenameSkill(name="small-talk", new_name="size-advice"), "'size-advice' is taken"),
    (RenameParam(tool="get_price", name="nope", new_name="x"), "has no parameter 'nope'"),
    (RemoveSkill(name="nope"), "no skill named 'nope'; skills: "),
    (RemoveHook(key="nope"), "no hook 'nope'; hooks: "),
    (AddHook(hook=Hook(key="x", check="nope", event="reply", retry_template="")), "unknown check 'nope'"),
    (AddHook(hook=Hook(key="x", check="max_length", event="request", retry_template="")), "runs at event"),
])
def test_bad_patches_name_what_is_wrong(patch: Any, message: str) -> None:
    with pytest.raises(PatchError, match=message.replace("(", r"\(")):
        apply_patch(default_harness(), patch)


def test_set_limit_is_range_checked() -> None:
    with pytest.raises(ValueError, match="max_reply_chars"):
        apply_patch(default_harness(), SetLimit(limit="max_reply_chars", value=5))


# --- patches in a running stream -------------------------------------------------------------------------------
def play(agent_cls: type, patches: list[dict[str, Any]], wrappers: str | None = None, seed: int = 0,
         **config: Any) -> list[dict[str, Any]]:
    """One stream; per request: its time, the first observation, every step's info, and the final grade."""
    env = gym.make("LiveStream-v0", config={**STREAM, **config, "patches": patches})
    if wrappers:
        env = make_wrappers(env, wrappers, split="train", p=1.0)
    agent = agent_cls(env)
    obs, info = env.reset(seed=seed)
    out: list[dict[str, Any]] = [{"obs": obs, "infos": [info]}]
    done = False
    while not done:
        obs, reward, terminated, truncated, info = env.step(agent.act(obs))
        out[-1]["infos"].append(info)
        done = terminated or truncated
        if info["dispatched"]:
            out[-1].update(reward=reward, t=info["request"]["t"], scores=info["grade"]["scores"])
            if not done:
                out.append({"obs": obs, "infos": [info]})
    return [r for r in out if "reward" in r]


def tool_names(obs: dict[str, Any]) -> set[str]:
    return {t["function"]["name"] for t in obs["tools"]}


def test_a_patch_applies_between_requests_and_the_next_request_shows_it() -> None:
    reqs = play(OracleAgent, [RENAME])
    before = [r for r in reqs if r["t"] < 120]
    after = [r for r in reqs if r["t"] >= 120]
    assert len(before) >= 3 and len(after) >= 3
    for r in before:
        assert "get_price" in tool_names(r["obs"]) and "price_lookup" not in tool_names(r["obs"])
        assert {i["harness_version"] for i in r["infos"][1:]} == {1}
        assert r["infos"][-1]["harness_last_patch"] is None
    for r in after:
        assert "price_lookup" in tool_names(r["obs"]) and "get_price" not in tool_names(r["obs"])
        assert {i["harness_version"] for i in r["infos"][1:]} == {2}
        assert r["infos"][-1]["harness_last_patch"] == "t=120s: renamed tool get_price -> price_lookup"
    # within a request the harness never changes; records name the fingerprint in force
    for r in reqs:
        assert len({i["harness_fingerprint"] for i in r["infos"][1:]}) == 1
        assert r["infos"][-1]["harness_fingerprint"] == r["infos"][-1]["harness_canonical_fingerprint"]
    assert before[-1]["infos"][-1]["harness_fingerprint"] != after[0]["infos"][-1]["harness_fingerprint"]


def test_oracle_keeps_full_marks_after_a_rename_and_the_memorizer_drops() -> None:
    oracle = play(OracleAgent, [RENAME])
    assert all(r["scores"][k] == 1.0 for r in oracle for k in FULL)
    memo = play(MemorizerAgent, [RENAME])
    before = [r["reward"] for r in memo if r["t"] < 120]
    after = [r["reward"] for r in memo if r["t"] >= 120]
    assert min(before) > 0.95 and sum(after) / len(after) < 0.2


def test_patches_under_augmentation_change_the_view_only_where_they_changed_the_canonical() -> None:
    changed = 0
    for seed in range(4):
        reqs = play(OracleAgent, [RENAME], wrappers="tool_rename", seed=seed)
        before = next(r for r in reqs if r["t"] < 120)
        after = next(r for r in reqs if r["t"] >= 120)
        a, b = tool_names(before["obs"]), tool_names(after["obs"])
        assert len(a - b) == len(b - a) <= 1  # at most the patched tool's presented name changed
        changed += len(a - b)
        assert "get_price" not in a | b  # augmented names throughout
        assert all(r["scores"][k] == 1.0 for r in reqs for k in FULL)
        i = after["infos"][-1]
        assert i["harness_fingerprint"] != i["harness_canonical_fingerprint"] and i["harness_version"] == 2
    assert changed >= 2  # (a redraw may pick the same synonym again)


def test_limit_hook_and_skill_patches_reach_the_prompt() -> None:
    patches = [{"op": "set_limit", "at_s": 100.0, "limit": "max_reply_chars", "value": 300},
               {"op": "add_hook", "at_s": 100.0, "hook": {"key": "ops-note", "check": "notice", "event": "request",
                                                          "params": {"message": "Use {tool:load_skill} first."},
                                                          "retry_template": "[ops] {reason}"}},
               {"op": "remove_skill", "at_s": 100.0, "name": "clearance"},
               {"op": "rename_tool", "at_s": 100.0, "name": "load_skill", "new_name": "open_skill"}]
    reqs = play(OracleAgent, patches)
    before = next(r for r in reqs if r["t"] < 100)
    after = next(r for r in reqs if r["t"] >= 100)
    p0, p1 = before["obs"]["messages"][0]["content"], after["obs"]["messages"][0]["content"]
    assert "at most 320 characters" in p0 and "at most 300 characters" in p1
    assert "clearance" in p0 and "clearance" not in p1
    assert "(load_skill)" in p0 and "(open_skill)" in p1  # the rules name the tool in force
    notes = [m["content"] for m in after["obs"]["messages"] if m["content"].startswith("[ops]")]
    assert notes == ["[ops] Use open_skill first."]
    assert after["infos"][-1]["harness_version"] == 5
    assert all(r["scores"][k] == 1.0 for r in reqs for k in FULL)
