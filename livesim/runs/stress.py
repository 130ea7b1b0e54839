"""The grader's metamorphic stress bench: gold replies of `LiveStreamQA-v0` over every intent and many seeds,
changed in ways whose verdict is known by construction (`livesim.runs.stress_cases`), graded by the rule
grader. A mutation is caught when it scores < 0.5; a rewrite is kept when it keeps >= 0.9 of the gold reward.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from livesim.parsing import format_tool_call
from livesim.runs.calibration import build_request, grade_text
from livesim.runs.stress_cases import cases_for
from livesim.runs.stress_fresh import fresh_cases_for
from livesim.world.asks import is_own_question
from livesim.world.intents import BUILDERS

CAUGHT_BELOW = 0.5
KEPT_SHARE = 0.9
TARGETS = {"mutation": 0.97, "rewrite": 0.95}
FAMILIES = {"base": cases_for, "fresh": fresh_cases_for}  # fresh: wordings held out from the rules' tuning


def _with_calls(seed: int, intent: str, calls: tuple[tuple[str, dict[str, Any]], ...]) -> Any:
    sim = build_request(seed, intent)
    sim.step("\n".join(format_tool_call(k, a) for k, a in calls))
    return sim


def _tally(d: dict[str, Any], key: str, ok: bool) -> None:
    t = d.setdefault(key, [0, 0])
    t[0] += 1
    t[1] += int(ok)


def run_stress(seeds: int = 50, seed0: int = 0, intents: list[str] | None = None,
               examples: int = 3, family: str = "base") -> dict[str, Any]:
    """Grade every case of `seeds` requests per intent; tallies [n, ok] per kind, class and intent."""
    if family not in FAMILIES:
        raise ValueError(f"unknown family {family!r}; expected one of {sorted(FAMILIES)}")
    make_cases = FAMILIES[family]
    names = intents or list(BUILDERS)
    unknown = [i for i in names if i not in BUILDERS]
    if unknown:
        raise ValueError(f"unknown intent(s) {unknown}; expected some of {list(BUILDERS)}")
    res: dict[str, Any] = {"family": family, "seeds": seeds, "seed0": seed0, "requests": 0, "narrower": 0,
                           "gold_below_1": 0,
                           "kinds": {}, "classes": {"mutation": {}, "rewrite": {}}, "intents": {}, "failures": {}}
    for seed in range(seed0, seed0 + seeds):
        for ix, intent in enumerate(names):
            sim = build_request(seed, intent)
            if sim.request.truth.intents[0] != intent:
                continue
            if not is_own_question(sim.request.truth.asks[0]):
                res["narrower"] += 1  # the cases rewrite the intent's own answer; these: `livesim.runs.gold_check`
                continue
            gold = grade_text(sim, " ".join(sim.request.truth.say)).reward
            res["requests"] += 1
            res["gold_below_1"] += int(gold < 1.0 - 1e-9)
            if gold <= 0:
                continue
            for case in make_cases(sim, np.random.default_rng([seed, ix])):
                target = _with_calls(seed, intent, case.calls) if case.calls else sim
                g = grade_text(target, case.reply)
                ok = g.reward < CAUGHT_BELOW if case.kind == "mutation" else g.reward >= KEPT_SHARE * gold
                _tally(res["kinds"], case.kind, ok)
                _tally(res["classes"][case.kind], case.cls, ok)
                _tally(res["intents"].setdefault(intent, {}), case.kind, ok)
                if not ok:
                    bad = res["failures"].setdefault(f"{case.kind}/{case.cls}", [])
                    if len(bad) < examples:
                        bad.append({"seed": seed, "intent": intent, "request": sim.request.text,
                                    "reply": case.reply, "reward": round(g.reward, 3), "errors": g.errors,
                                    "missing": g.missing})
    return res


def _pct(t: list[int]) -> str:
    return f"{t[1] / t[0]:.1%}" if t[0] else "-"


def markdown(res: dict[str, Any]) -> str:
    """The bench's tables (overall, per class, per intent) as Markdown."""
    k = res["kinds"]
    lines = [f"Family `{res['family']}`: {res['requests']} requests "
             f"({res['seeds']} seeds x {len(res['intents'])} intents; {res.get('narrower', 0)} whose phrasing asks "
             f"more than its intent left to the gold check), "
             f"{k.get('mutation', [0])[0]} mutations, {k.get('rewrite', [0])[0]} rewrites; "
             f"gold replies below 1.0: {res['gold_below_1']}.", "",
             "| kind | cases | caught / kept | target |", "|---|---:|---:|---:|"]
    for kind, label in (("mutation", "mutations scored < 0.5"), ("rewrite", "rewrites keep >= 0.9 of gold")):
        t = k.get(kind, [0, 0])
        lines.append(f"| {label} | {t[0]} | {_pct(t)} | {TARGETS[kind]:.0%} |")
    for kind in ("mutation", "rewrite"):
        lines += ["", f"| {kind} class | cases | {'caught' if kind == 'mutation' else 'kept'} |", "|---|---:|---:|"]
        for cls, t in sorted(res["classes"][kind].items()):
            lines.append(f"| {cls} | {t[0]} | {_pct(t)} |")
    lines += ["", "| intent | mutations | caught | rewrites | kept |", "|---|---:|---:|---:|---:|"]
    for intent, d in res["intents"].items():
        m, r = d.get("mutation", [0, 0]), d.get("rewrite", [0, 0])
        lines.append(f"| {intent} | {m[0]} | {_pct(m)} | {r[0]} | {_pct(r)} |")
    return "\n".join(lines)
