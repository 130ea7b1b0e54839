"""RL call credit under HSA: a rollout that never gets a reply through still earns tool rationality and skill
selection for valid calls of the presented tools and skills, never as much as a correct reply, and loops of
loaders or look-ups cannot farm it (a probe of scripted policies)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import gymnasium as gym
import numpy as np
import pytest

import livesim  # noqa: F401
from livesim.agents.oracle import OracleAgent
from livesim.envs.hsa import make_wrappers
from livesim.grading import WEIGHTS
from livesim.grading.call_credit import call_credit
from livesim.grading.terms import ToolCallRecord, Trace
from livesim.hat.rl import TERMS, RLStageConfig, rollout_terms
from livesim.parsing import format_tool_call

BLOCKED = "It is a miracle product with guaranteed results, 100% effective!"  # a claim hook blocks every time
SEEDS = range(24)


def _env() -> gym.Env[Any, Any]:
    return make_wrappers(gym.make("LiveStreamQA-v0", split="train", config={"n_viewers": 8}), "hsa", split="train",
                         p=1.0)


def _oracle_calls(env: Any) -> list[str]:
    """The oracle's tool-call turns for the current request (its plan before the reply)."""
    agent = OracleAgent(env)
    first = agent.act({"messages": [], "tools": []})  # builds the plan and returns its first step
    steps = [first] + ["\n".join(step) for step in agent._plan if isinstance(step, list)]
    return [s for s in steps if "<tool_call>" in s]


Policy = Callable[[Any, int], str]


def right_calls_then_blocked(env: Any, turn: int) -> str:
    """The needed calls once (as the oracle makes them), then replies that a hook blocks until it falls back."""
    calls = env._probe_calls
    return calls[turn] if turn < len(calls) else BLOCKED


def loader_loop(env: Any, turn: int) -> str:
    """Every turn: load every presented skill, as many as a turn allows, round and round."""
    h = env.unwrapped.sim.harness
    loader = h.tool_by_key("load_skill")
    per_turn = h.prompt.limits.max_tool_calls
    names = [s.name for s in h.skills]
    start = (turn * per_turn) % len(names)
    pick = [names[(start + i) % len(names)] for i in range(per_turn)]
    return "\n".join(format_tool_call(loader.name, h.to_presented_args(loader, {"name": n})) for n in pick)


def needed_loader_loop(env: Any, turn: int) -> str:
    """Every turn: the needed skill's loader, as many times as a turn allows."""
    h = env.unwrapped.sim.harness
    loader = h.tool_by_key("load_skill")
    role = env.unwrapped.sim.request.truth.skills[0]
    call = format_tool_call(loader.name, h.to_presented_args(loader, {"name": h.reply_skill_for(role).name}))
    return "\n".join([call] * h.prompt.limits.max_tool_calls)


def lookup_loop(env: Any, turn: int) -> str:
    """Every turn: the needed calls again (loads and look-ups), never a reply."""
    calls = env._probe_calls
    return calls[turn % len(calls)] if calls else BLOCKED


def play(policy: Policy, seed: int, credit: float = 0.5) -> tuple[dict[str, float], bool]:
    env = _env()
    env.reset(seed=seed)
    env._probe_calls = _oracle_calls(env)
    info: dict[str, Any] = {}
    for turn in range(64):
        _, _, term, trunc, info = env.step(policy(env, turn))
        if term or trunc:
            break
    sim = env.unwrapped.sim
    return rollout_terms(info.get("reward_terms", {}) if info.get("dispatched") else {}, sim, credit), \
        bool(sim.trace.fallback)


def test_oracle_calls_are_the_needed_ones() -> None:
    env = _env()
    env.reset(seed=3)
    calls = _oracle_calls(env)
    assert calls and all("<tool_call>" in c or "{" in c for c in calls)


@pytest.fixture(scope="module")
def probe() -> dict[str, list[tuple[dict[str, float], bool]]]:
    policies = {"right_calls": right_calls_then_blocked, "loader_loop": loader_loop,
                "needed_loader_loop": needed_loader_loop, "lookup_loop": lookup_loop}
    return {name: [play(p, s) for s in SEEDS] for name, p in policies.items()}


def test_right_calls_earn_a_signal_when_the_reply_falls_back(probe: dict[str, Any]) -> None:
    rows = probe["right_calls"]
    assert all(fell for _, fell in rows)  # every one fell back: the graded terms are all 0
    assert np.mean([t["skill_selection"] for t, _ in rows]) > 0.4
    assert np.mean([t["tool_rationality"] for t, _ in rows]) > 0.2
    assert all(t["accuracy"] == t["effectiveness"] == 0 for t, _ in rows)


def test_credit_never_reaches_a_correct_reply(probe: dict[str, Any]) -> None:
    for seed in SEEDS:
        env = _env()
        obs, _ = env.reset(seed=seed)
        agent = OracleAgent(env)
        info: dict[str, Any] = {}
        for _ in range(16):
            obs, _, term, trunc, info = env.step(agent.act(obs))
            if term or trunc:
                break
        correct = rollout_terms(info["reward_terms"], env.unwrapped.sim, 0.5)
        fallen = probe["right_calls"][seed][0]
        assert correct["reward"] >= 0.9
        for t in ("tool_rationality", "skill_selection"):
            assert fallen[t] <= 0.5 * correct[t] + 1e-9, (seed, t)
        assert fallen["reward"] < 0.25 * correct["reward"]


@pytest.mark.parametrize("loop", ["loader_loop", "needed_loader_loop", "lookup_loop"])
def test_loops_cannot_farm_the_credit(probe: dict[str, Any], loop: str) -> None:
    once = probe["right_calls"]
    looped = probe[loop]
    for (a, _), (b, _) in zip(once, looped, strict=True):
        assert b["reward"] <= a["reward"] + 1e-9
    assert np.mean([t["reward"] for t, _ in looped]) < 0.5 * np.mean([t["reward"] for t, _ in once])
    if loop != "lookup_loop":
        assert all(t["skill_selection"] == 0 for t, _ in looped)  # far past the exploration allowance


def test_credit_off_and_its_bounds() -> None:
    t, _ = play(right_calls_then_blocked, 0, credit=0.0)
    assert all(t[k] == 0 for k in TERMS) and t["reward"] == 0
    assert RLStageConfig().call_credit == 0.5 and "call_credit" not in RLStageConfig(call_credit=0).key_data()
    nothing = call_credit(Trace(), [["get_price"]], ["product-facts"], {"s": "product-facts"})
    assert nothing == {"tool_rationality": 0.0, "skill_selection": 0.0}  # no call, no credit
    unknown = Trace(tool_calls=[ToolCallRecord(name="get_price", key=None, ok=False, error_kind="unknown_tool")])
    assert call_credit(unknown, [["get_price"]], [], {})["tool_rationality"] == 0.0  # canonical name, not presented
    ok = Trace(tool_calls=[ToolCallRecord(name="p1", key="get_price", arguments={"link": 1}, ok=True)])
    assert call_credit(ok, [["get_price"]], [], {}, scale=0.5)["tool_rationality"] == 0.5
    assert sum(WEIGHTS[k] * v for k, v in call_credit(ok, [["get_price"]], [], {}).items()) <= 0.1
    with pytest.raises(ValueError, match=r"expected scale in \[0, 1\], got 2"):
        call_credit(ok, [], [], {}, scale=2)
