"""Re-score stored suite conversations with the current grader, without generating anything.

Each QA request is replayed: its env is reset as the suite resets it (same seed, options, harness edits and
presented style) and the stored actions are stepped in order, so the env re-runs the stored tool calls and the
current grader grades the stored reply. A request whose replay departs from what was stored (another tool
result, the episode ending at another turn, a request no longer in the suite) is reported with the reason and
left out of the comparison; nothing is guessed. T4 responses are re-checked by the current instruction
checkers. `grader_settings` changes a setting of the grader for the comparison (reward-term weights, brevity
constants), so the effect of a grader change is measured on what the models really said.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from livesim.hat.samples import OUTCOMES, RATES
from livesim.runs.compare import paired_bootstrap

QA_COMPARED = ("accuracy", "effectiveness", "avg", "reward", *RATES)
IF_COMPARED = ("prompt_strict", "prompt_loose", "inst_strict", "inst_loose")
SETTINGS = ("brevity_default_chars", "brevity_noise_cost")
"""Grader module constants `grader_settings` may change, beside `weight.<term>` for each reward term."""


@dataclass
class Regraded:
    """One suite result re-scored: the stored rows and the new ones, over the requests that replayed."""

    suite: str
    kind: str
    old: list[dict[str, Any]]
    new: list[dict[str, Any]]
    not_replayed: list[tuple[str, str]] = field(default_factory=list)  # (request id, why)
    changed: list[str] = field(default_factory=list)  # ids whose scores moved
    note: str = ""  # how the replay differs from the evaluation (a suite re-pinned since)

    def table(self, n_boot: int = 10_000, seed: int = 0) -> list[dict[str, Any]]:
        """Per metric: old mean, new mean and the paired difference new - old with its 95% bootstrap CI."""
        metrics = QA_COMPARED if self.kind == "qa" else IF_COMPARED
        rng = np.random.default_rng(seed)
        out = []
        for m in metrics:
            a, b = _values(self.old, m, self.kind), _values(self.new, m, self.kind)
            if not len(a):
                continue
            if self.kind == "if" and m.startswith("inst_"):
                mean_a, mean_b = a.sum() / max(1, _den(self.old)), b.sum() / max(1, _den(self.new))
                diff = (mean_b - mean_a, *_ratio_ci(a, b, _den_each(self.old), rng, n_boot))
            else:
                mean_a, mean_b = float(a.mean()), float(b.mean())
                diff = paired_bootstrap(a, b, rng, n_boot)
            out.append({"metric": m, "old": mean_a, "new": mean_b, "diff": diff[0], "ci95": [diff[1], diff[2]],
                        "n": len(a)})
        return out


def _values(rows: list[dict[str, Any]], m: str, kind: str) -> np.ndarray:
    if kind == "qa":
        if m in OUTCOMES:
            return np.array([float(OUTCOMES[m][1](r)) for r in rows])
        return np.array([float(r[m]) for r in rows])
    if m.startswith("inst_"):
        return np.array([float(sum(r["strict" if m == "inst_strict" else "loose"])) for r in rows])
    return np.array([float(r[m]) for r in rows])


def _den_each(rows: list[dict[str, Any]]) -> np.ndarray:
    return np.array([float(len(r["strict"])) for r in rows])


def _den(rows: list[dict[str, Any]]) -> float:
    return float(_den_each(rows).sum())


def _ratio_ci(a: np.ndarray, b: np.ndarray, den: np.ndarray, rng: np.random.Generator, n_boot: int
              ) -> tuple[float, float]:
    idx = rng.integers(0, len(den), size=(n_boot, len(den)))  # (B, P): resampled prompts
    d = (b[idx].sum(1) - a[idx].sum(1)) / np.maximum(den[idx].sum(1), 1)  # (B,)
    lo, hi = np.percentile(d, [2.5, 97.5])
    return float(lo), float(hi)


# ------------------------------------------------------------------------------------------------ settings
def parse_settings(items: list[str] | None) -> dict[str, float]:
    """`NAME=VALUE` items (`weight.accuracy=0.5`, `brevity_noise_cost=0`); a bad one is a one-line ValueError."""
    from livesim.grading.terms import WEIGHTS

    known = [f"weight.{k}" for k in WEIGHTS] + list(SETTINGS)
    out: dict[str, float] = {}
    for item in items or []:
        name, eq, value = item.partition("=")
        name = name.strip()
        if not eq or name not in known:
            raise ValueError(f"grader setting {item!r}: expected NAME=VALUE with NAME one of {', '.join(known)}")
        try:
            number = float(value)
        except ValueError:
            raise ValueError(f"grader setting {item!r}: {value!r} is not a number") from None
        if not np.isfinite(number) or number < 0:
            raise ValueError(f"grader setting {item!r}: expected a finite number >= 0, got {value}")
        out[name] = number
    return out


@contextlib.contextmanager
def grader_settings(settings: dict[str, float]) -> Iterator[None]:
    """The grader with `settings` changed (restored on exit): weights in place, module constants by name."""
    from livesim.grading import terms

    weights = dict(terms.WEIGHTS)
    consts = {name: getattr(terms, name.upper()) for name in SETTINGS}
    try:
        for name, value in settings.items():
            if name.startswith("weight."):
                terms.WEIGHTS[name.split(".", 1)[1]] = value
            else:
                setattr(terms, name.upper(), type(consts[name])(value))
        yield
    finally:
        terms.WEIGHTS.clear()
        terms.WEIGHTS.update(weights)
        for name, value in consts.items():
            setattr(terms, name.upper(), value)


# ------------------------------------------------------------------------------------------------ replay
def _harness(result: dict[str, Any]) -> Any:
    """The harness the suite was evaluated on (None: the canonical one), as `evaluate_suite` builds it."""
    from livesim.hat.edits import edited_harness
    from livesim.stream.harness_file import harness_with_style

    harness = edited_harness(result["patches"]) if result.get("patches") is not None else None
    style = result.get("prompt_style") or "full"
    return harness_with_style(harness, style) if style != "full" else harness


def replay_qa(sample: dict[str, Any], request: Any, env: Any, harness: Any) -> tuple[dict[str, Any] | None, str]:
    """Step the stored actions of one request; (its new row, "") or (None, why it no longer replays)."""
    options = request.reset_options()
    if harness is not None:
        options["harness"] = harness
    if int(sample.get("seed", request.seed)) != request.seed:
        return None, f"stored seed {sample.get('seed')} is not the suite's {request.seed}"
    env.reset(seed=request.seed, options=options)
    stored = sample.get("request")
    if stored is not None and env.unwrapped.sim.request.text != stored:
        return None, "the request is not the stored one (its comments differ)"
    turns = sample.get("turn_log") or []
    info: dict[str, Any] | None = None
    reward, ended = 0.0, False
    for i, turn in enumerate(turns, start=1):
        if ended:
            return None, f"the episode ended after turn {i - 1} of the stored {len(turns)}"
        sim = env.unwrapped.sim
        seen = len(sim.trace.tool_calls)
        _, reward, terminated, truncated, info = env.step(turn.get("action", ""))
        calls = [c.model_dump(mode="json") for c in sim.trace.tool_calls[seen:]]
        if calls != (turn.get("calls") or []):
            return None, f"turn {i}: the tool calls ran otherwise than stored ({_first_difference(turn, calls)})"
        ended = bool(info.get("dispatched") or terminated or truncated)
    if not ended:
        return None, f"no reply after the stored {len(turns)} turn(s) (the env now asks for more)"
    if info is None or not info.get("dispatched"):
        row = {"accuracy": 0.0, "effectiveness": 0.0, "reward": 0.0, "fallback": True, "parse_errors": 0,
               "turns": len(turns)}
    else:
        scores, trace = info["grade"]["scores"], info["trace"]
        row = {"accuracy": float(scores["accuracy"]), "effectiveness": float(scores["effectiveness"]),
               "reward": float(reward), "fallback": bool(trace["fallback"]), "parse_errors": int(trace["parse_errors"]),
               "turns": int(trace["turns"]), "grade": info["grade"]}
    row["avg"] = (row["accuracy"] + row["effectiveness"]) / 2
    return {"id": sample["id"], "intent": sample.get("intent"), **row}, ""


def _first_difference(turn: dict[str, Any], calls: list[dict[str, Any]]) -> str:
    stored = turn.get("calls") or []
    if len(stored) != len(calls):
        return f"{len(stored)} call(s) stored, {len(calls)} replayed"
    for s, c in zip(stored, calls, strict=True):
        for k in sorted(set(s) | set(c)):
            if s.get(k) != c.get(k):
                return f"{c.get('name')}: {k} differs"
    return "calls differ"


def regrade_suite(result: dict[str, Any], samples: list[dict[str, Any]]) -> Regraded:
    """Re-score one stored suite result (its `rows` and `samples`) with the grader as it is configured now."""
    from livesim.hat.suites import get_suite

    name = result["suite"]
    suite = get_suite(name, check=False)
    old_by = {r["id"]: r for r in result.get("rows") or []}
    out = Regraded(name, suite.kind, [], [])
    if suite.key != result.get("key"):
        if suite.kind != "qa":
            out.not_replayed = [(s["id"], f"suite {result.get('key')} is now {suite.key}") for s in samples]
            return out
        # a re-pinned QA suite (same seeds, new ground truth): a request replays where its comment is the stored
        # one, and is graded against today's truth; the others are reported
        out.note = (f"suite {result.get('key')} is now {suite.key}: requests whose comments are the stored ones are "
                    "replayed and graded against today's ground truth")
    by_id = {r.id: r for r in suite.requests}
    if suite.kind == "if":
        from livesim.hat.ifeval import check

        for s in samples:
            p, old = by_id.get(s["id"]), old_by.get(s["id"])
            if p is None or old is None:
                out.not_replayed.append((s["id"], "not in the suite" if p is None else "no stored row"))
                continue
            verdict = check(p, str(s.get("response", "")))
            out.old.append(old)
            out.new.append({"id": s["id"], **verdict})
    else:
        from livesim.hat.suites import make_qa_env

        harness = _harness(result)
        envs: dict[Any, Any] = {}
        for s in samples:
            req, old = by_id.get(s["id"]), old_by.get(s["id"])
            if req is None or old is None:
                out.not_replayed.append((s["id"], "not in the suite" if req is None else "no stored row"))
                continue
            env = envs.get(req.env_key) or envs.setdefault(req.env_key, make_qa_env(*req.env_key))
            row, why = replay_qa(s, req, env, harness)
            if row is None:
                out.not_replayed.append((s["id"], why))
                continue
            out.old.append(old)
            out.new.append(row)
        for env in envs.values():
            env.close()
    keys = QA_COMPARED[:4] if suite.kind == "qa" else ("prompt_strict", "prompt_loose", "strict", "loose")
    out.changed = [o["id"] for o, n in zip(out.old, out.new, strict=True)
                   if any(o.get(k) != n.get(k) and not _close(o.get(k), n.get(k)) for k in keys)]
    return out


def _close(a: Any, b: Any) -> bool:
    return isinstance(a, float) and isinstance(b, float) and abs(a - b) < 1e-9

