"""The harness-edit test (the paper's Section 5.6): operator patches applied with the weights frozen.

An operator who sees failures on a dev set edits the harness (new rules in skills, clearer tool names, a new
hook) rather than retraining. Here a fixed, versioned patch set (`EDITS_V1`; or your own YAML list of patches
with `--patches`) is applied to the canonical harness, and every model is evaluated on the same test requests
(T1's) before and after. A model that reads its harness turns the edits into fewer errors; one that memorised
the old harness does not, or breaks. Error = 1 - AVG per request (AVG = (accuracy + effectiveness) / 2);
error reduction = (error before - error after) / error before, with a paired bootstrap 95% CI over requests.

The patch set lives in `livesim.hat.edits` (hand-written against failure modes the grader names, not derived
automatically from one model's dev-set failures).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np

from livesim.hat.edits import EDITS_V1, edited_harness, load_patches, patches_key
from livesim.hat.evaluate import AgentSpec, evaluate_suite
from livesim.runs.compare import paired_bootstrap

__all__ = ["EDITS_V1", "edit_result", "edited_harness", "error_reduction", "load_patches", "render_edits",
           "run_harness_edit"]

def error_reduction(before: list[dict[str, Any]], after: list[dict[str, Any]], n_boot: int = 10_000,
                    seed: int = 0) -> dict[str, Any]:
    """Error before/after (1 - AVG) and the relative reduction, with a paired bootstrap CI over requests."""
    by = {r["id"]: r for r in before}
    pairs = [(by[r["id"]], r) for r in after if r["id"] in by]
    eb = np.array([1 - a["avg"] for a, _ in pairs])  # (N,)
    ea = np.array([1 - b["avg"] for _, b in pairs])  # (N,)
    out: dict[str, Any] = {"n": len(pairs), "error_before": float(eb.mean()) if len(eb) else None,
                           "error_after": float(ea.mean()) if len(ea) else None, "reduction": None, "change": None}
    if not len(pairs):
        return out
    rng = np.random.default_rng(seed)
    mean, lo, hi = paired_bootstrap(eb, ea, rng, n_boot)  # after - before, in error units
    out["change"] = {"mean": mean, "ci95": [lo, hi]}
    if eb.sum() == 0:
        return out  # no errors before: a relative reduction is undefined
    idx = rng.integers(0, len(pairs), size=(n_boot, len(pairs)))  # (B, N)
    sb, sa = eb[idx].sum(1), ea[idx].sum(1)
    ok = sb > 0
    red = (sb[ok] - sa[ok]) / sb[ok]
    lo, hi = np.percentile(red, [2.5, 97.5])
    out["reduction"] = {"mean": float((eb.sum() - ea.sum()) / eb.sum()), "ci95": [float(lo), float(hi)]}
    return out


def run_harness_edit(spec: AgentSpec, limit: int | None = None, patches: list[dict[str, Any]] | None = None,
                     batch_size: int = 8, agent: Any = None, use_cache: bool = True,
                     prompt_style: str = "full", cached_only: bool = False,
                     records: str | Path | None = None) -> dict[str, Any] | None:
    """T1 (canonical harness) vs T1 under the edited harness, for one agent with frozen weights.

    `records` and `cached_only` as in `evaluate_suite` (None when `cached_only` and either side is not cached).
    The result names both evaluations' `cache_keys` (before, after), so it can be rebuilt from the records.
    """
    patches = patches if patches is not None else [dict(p) for p in EDITS_V1]
    kw: dict[str, Any] = {"use_cache": use_cache, "prompt_style": prompt_style, "cached_only": cached_only,
                          "records": records}
    before = evaluate_suite(spec, "T1", limit, batch_size, agent, **kw)
    after = evaluate_suite(spec, "T1", limit, batch_size, agent, patches=patches, **kw) if before else None
    if before is None or after is None:
        return None
    return edit_result(spec.display, patches, before, after)


def edit_result(agent: str, patches: list[dict[str, Any]], before: dict[str, Any],
                after: dict[str, Any]) -> dict[str, Any]:
    """The harness-edit entry of one agent from its two T1 evaluations (fresh, cached or read from records)."""
    return {"agent": agent, "patches": patches, "patches_key": patches_key(patches),
            "before": before["scores"], "after": after["scores"],
            "cache_keys": [before.get("cache_key"), after.get("cache_key")],
            **error_reduction(before["rows"], after["rows"])}


def render_edits(results: list[dict[str, Any]]) -> str:
    lines = ["Test set: T1 requests; error = 1 - AVG; reduction = (before - after) / before, 95% CI.", "",
             "| agent | n | AVG before | AVG after | error before | error after | error change, points [95% CI] | "
             "error reduction [95% CI] |", "|---|---|---|---|---|---|---|---|"]
    for r in results:
        red, ch = r["reduction"], r.get("change")
        red_s = "n/a (no errors before)" if red is None else (
            f"{red['mean'] * 100:+.1f}% [{red['ci95'][0] * 100:+.1f}, {red['ci95'][1] * 100:+.1f}]")
        ch_s = "n/a" if not ch else f"{ch['mean'] * 100:+.1f} [{ch['ci95'][0] * 100:+.1f}, {ch['ci95'][1] * 100:+.1f}]"
        lines.append(f"| {r['agent']} | {r['n']} | {r['before']['avg'] * 100:.1f} | {r['after']['avg'] * 100:.1f} | "
                     f"{r['error_before'] * 100:.1f} | {r['error_after'] * 100:.1f} | {ch_s} | {red_s} |")
    return "\n".join(lines)
