"""Call credit: an RL signal for rollouts whose reply earned nothing (it fell back, was cut, or was graded 0).

Tool rationality and skill selection for valid calls of the *presented* tools and skills, scaled, never more
than `grade` gives the same calls under a correct reply. Each needed call counts once; repeats, failures and
loading far more skills than needed cost credit, so calling loaders in a loop cannot farm it.
"""

from __future__ import annotations

import json
from typing import Any

from livesim.grading.terms import FORBIDDEN_TOOLS, Trace

CALL_CREDIT_SCALE = 0.5
EXPLORE_ALLOWANCE = 2  # skills loaded beyond the needed ones before each further one costs credit (masked indexes)
REPEAT_COST = 0.25  # per call that repeats an earlier one (same tool, same canonical arguments)


def _signature(call: Any) -> str:
    return f"{call.key}:{json.dumps(call.arguments, sort_keys=True, default=str)}"


def call_credit(trace: Trace, tool_groups: list[list[str]], need_skills: list[str],
                reply_roles: dict[str, str], scale: float = CALL_CREDIT_SCALE) -> dict[str, float]:
    """Unweighted tool_rationality and skill_selection credit in [0, scale] for one request's calls.

    `tool_groups`, `need_skills`: the request's ground truth (canonical keys and reply-skill roles);
    `reply_roles`: reply-skill key -> role in the presented harness. Nothing required, nothing called: 0.
    """
    if not 0.0 <= scale <= 1.0:
        raise ValueError(f"expected scale in [0, 1], got {scale!r}")
    seen: set[str] = set()
    repeats = 0
    for c in trace.tool_calls:
        if c.key is None:
            continue
        sig = _signature(c)
        repeats += sig in seen
        seen.add(sig)
    lookups = [c for c in trace.tool_calls if c.key != "load_skill"]
    called_ok = {c.key for c in lookups if c.ok}
    failed = sum(1 for c in trace.tool_calls if not c.ok and not (c.error_kind or "").startswith("fault_"))
    forbidden = sum(1 for c in trace.tool_calls if c.key in FORBIDDEN_TOOLS)
    excess = max(0, len(lookups) - (len(tool_groups) * 2 + 2))
    tool = 0.0
    if tool_groups and called_ok:
        coverage = sum(1 for g in tool_groups if called_ok.intersection(g)) / len(tool_groups)
        tool = max(0.0, coverage - 0.25 * (failed + trace.parse_errors) - 0.5 * forbidden - 0.1 * excess
                   - REPEAT_COST * repeats)
    skill = 0.0
    loaded_roles = {reply_roles[k] for k in trace.loaded_skills if k in reply_roles}
    need = set(need_skills)
    if need and loaded_roles:
        skill = 1.0 if need <= loaded_roles else 0.5 if need & loaded_roles else 0.0
        load_repeats = sum(1 for c in trace.tool_calls if c.key == "load_skill" and c.ok) - len(trace.loaded_skills)
        over = max(0, len(trace.loaded_skills) - len(need) - EXPLORE_ALLOWANCE)
        skill = max(0.0, skill - REPEAT_COST * (over + max(0, load_repeats)))
    return {"tool_rationality": scale * tool, "skill_selection": scale * skill}


def sim_call_credit(sim: Any, scale: float = CALL_CREDIT_SCALE) -> dict[str, float]:
    """`call_credit` of the request a `StreamSim` is on (its trace so far, its ground truth, its harness)."""
    if sim.request is None:
        return {"tool_rationality": 0.0, "skill_selection": 0.0}
    truth = sim.request.truth
    roles = {s.key: s.role for s in sim.harness.skills if s.kind == "reply"}
    return call_credit(sim.trace, list(truth.tool_groups), list(truth.skills), roles, scale)
