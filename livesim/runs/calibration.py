"""The grader's calibration set: labelled replies to real requests, and agreement of a grader with the labels.

Each line of `livesim/grading/calibration.jsonl` names a request (`seed`, `intent` of `LiveStreamQA-v0`), a reply
text, the kind of reply, a human label (accuracy 0/1, effectiveness 0/0.5/1, a one-line reason) and a split
(`dev` to improve the grader on, `test` to report on). The request is rebuilt from its seed, its gold tool
calls are run (so the trace holds real look-ups) and the reply is graded directly, without the harness's
hooks: the set measures the grader, not the harness.
"""

from __future__ import annotations

import inspect
import json
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import gymnasium as gym

from livesim.grading.terms import grade
from livesim.parsing import format_tool_call
from livesim.stream.paths import MAX_PROMPT_FILE_BYTES, PathProblem, read_text, shown
from livesim.world.phrasing import INTENTS

CALIBRATION_PATH = Path(__file__).parents[1] / "grading" / "calibration.jsonl"
KINDS = ("paraphrase", "terse", "wrong_fact", "wrong_subject", "unsupported", "partial", "deflection",
         "extra_unverifiable", "refusal_right", "refusal_wrong", "spraying", "keyword_template")
_ENV: Any = None  # one env, reused: each reset builds a fresh StreamSim
_FIELDS = {"id", "split", "intent", "seed", "kind", "reply", "accuracy", "effectiveness", "reason"}


@dataclass(frozen=True)
class Item:
    id: str
    split: str
    intent: str
    seed: int
    kind: str
    reply: str
    accuracy: float
    effectiveness: float
    reason: str


def _field_problem(key: str, value: Any) -> str | None:
    """Why `value` cannot be the calibration field `key` (None if it can)."""
    if key == "seed":
        ok = isinstance(value, int) and not isinstance(value, bool) and 0 <= value < 2**63
        return None if ok else f"expected an integer seed from 0 to 2**63 - 1, got {shown(repr(value))}"
    if key in ("accuracy", "effectiveness"):
        allowed = (0, 1) if key == "accuracy" else (0, 0.5, 1)
        ok = isinstance(value, (int, float)) and not isinstance(value, bool) and value in allowed
        return None if ok else f"expected one of {'/'.join(map(str, allowed))}, got {shown(repr(value))}"
    if not isinstance(value, str):
        return f"expected a string, got {type(value).__name__}"
    choices = {"split": ("dev", "test"), "kind": KINDS, "intent": tuple(INTENTS)}.get(key)
    if choices is not None and value not in choices:
        return f"expected one of {', '.join(choices)}, got {shown(repr(value))}"
    return None


def load_items(path: str | Path | None = None, split: str | None = None) -> list[Item]:
    """Read the set; a malformed line raises ValueError naming the file, line and field."""
    p = Path(path) if path else CALIBRATION_PATH
    try:
        text = read_text(p, MAX_PROMPT_FILE_BYTES)
    except PathProblem as e:
        raise ValueError(f"--set {shown(p)}: {e}") from None
    out = []
    for n, line in enumerate(text.splitlines(), 1):
        if not line.strip():
            continue
        where = f"{shown(p)}:{n}"
        try:
            d = json.loads(line)
        except ValueError as e:
            raise ValueError(f"{where}: not JSON ({shown(e)})") from None
        if not isinstance(d, dict):
            raise ValueError(f"{where}: expected a JSON object, got {type(d).__name__}")
        missing = _FIELDS - set(d)
        if missing:
            raise ValueError(f"{where}: missing field(s) {sorted(missing)}")
        for key in sorted(_FIELDS):
            if (problem := _field_problem(key, d[key])) is not None:
                raise ValueError(f"{where}: {key}: {problem}")
        item = Item(**{k: d[k] for k in _FIELDS})
        if split in (None, "all") or item.split == split:
            out.append(item)
    return out


def build_request(seed: int, intent: str | None) -> Any:
    """The `LiveStreamQA-v0` request of (seed, intent) with its gold tool calls already run; returns the sim."""
    global _ENV
    if _ENV is None:
        _ENV = gym.make("LiveStreamQA-v0")
    env = _ENV
    env.reset(seed=seed, options={"intent": intent} if intent else None)
    sim = env.unwrapped.sim
    calls = [format_tool_call("load_skill", {"name": r}) for r in sim.request.truth.skills]
    calls += [format_tool_call(c.key, c.arguments) for c in sim.request.truth.calls]
    if calls:
        sim.step("\n".join(calls))
    return sim


def grade_text(sim: Any, reply: str) -> Any:
    """Grade `reply` as the dispatched answer to the sim's current request (hooks are not run)."""
    trace = sim.trace.model_copy(deep=True)
    trace.reply = reply
    trace.fallback = False
    reply_roles = {s.key: s.role for s in sim.harness.skills if s.kind == "reply"}
    kw: dict[str, Any] = {}
    if "max_reply_chars" in inspect.signature(grade).parameters:
        kw["max_reply_chars"] = sim.harness.prompt.limits.max_reply_chars
    return grade(sim.request, trace, sim.catalog, sim.room, valid_codes=sim._valid_codes(), latency_score=1.0,
                 harness_reply_roles=reply_roles, **kw)


Judge = Callable[[Any, str], tuple[float, float] | None]  # (sim, reply) -> (accuracy, effectiveness); None: none


def rule_judge(sim: Any, reply: str) -> tuple[float, float]:
    g = grade_text(sim, reply)
    return g.scores["accuracy"], g.scores["effectiveness"]


def calibrate(items: Iterable[Item], judge: Judge = rule_judge) -> dict[str, Any]:
    """Agreement of `judge` with the labels: overall, per kind (confusion tables) and every disagreement.

    A reply the judge gave no verdict on (None: an LLM judge whose call failed or whose answer had none) is left
    out of the agreement and counted in `no_verdict`; `n` counts the replies with a verdict.
    """
    rows = []
    no_verdict: list[str] = []
    cache: dict[tuple[int, str], Any] = {}
    for it in items:
        key = (it.seed, it.intent)
        if key not in cache:
            cache[key] = build_request(it.seed, it.intent)
        verdict = judge(cache[key], it.reply)
        if verdict is None:
            no_verdict.append(it.id)
            continue
        acc, eff = verdict
        rows.append((it, float(acc), float(eff)))
    n = len(rows)
    out: dict[str, Any] = {"n": n, "no_verdict": len(no_verdict)}
    if not n:
        return {**out, "accuracy_agreement": 0.0, "effectiveness_agreement": 0.0, "kinds": {}, "disagreements": []}
    out["accuracy_agreement"] = sum(it.accuracy == a for it, a, _ in rows) / n
    out["effectiveness_agreement"] = sum(it.effectiveness == e for it, _, e in rows) / n
    kinds: dict[str, Any] = {}
    for it, a, e in rows:
        k = kinds.setdefault(it.kind, {"n": 0, "accuracy_agree": 0, "effectiveness_agree": 0,
                                       "accuracy_confusion": {}, "effectiveness_confusion": {}})
        k["n"] += 1
        k["accuracy_agree"] += int(it.accuracy == a)
        k["effectiveness_agree"] += int(it.effectiveness == e)
        ac = k["accuracy_confusion"]
        ac[f"label {it.accuracy:g} / grader {a:g}"] = ac.get(f"label {it.accuracy:g} / grader {a:g}", 0) + 1
        ec = k["effectiveness_confusion"]
        ec[f"label {it.effectiveness:g} / grader {e:g}"] = ec.get(f"label {it.effectiveness:g} / grader {e:g}", 0) + 1
    out["kinds"] = dict(sorted(kinds.items()))
    # caught share of the inaccurate replies (recall on accuracy 0)
    bad = [(it, a) for it, a, _ in rows if it.accuracy == 0]
    out["inaccurate_caught"] = sum(a == 0 for _, a in bad) / len(bad) if bad else 1.0
    out["disagreements"] = [
        {"id": it.id, "kind": it.kind, "intent": it.intent, "reply": it.reply,
         "label": [it.accuracy, it.effectiveness], "grader": [a, e], "reason": it.reason}
        for it, a, e in rows if it.accuracy != a or it.effectiveness != e]
    return out
