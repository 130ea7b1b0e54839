"""The harness-edit test (the paper's Section 5.6): operator patches applied with the weights frozen.

An operator who sees failures on a dev set edits the harness (new rules in skills, clearer tool names, a new
hook) rather than retraining. Here a fixed, versioned patch set (`EDITS_V1`; or your own YAML list of patches
with `--patches`) is applied to the canonical harness, and every model is evaluated on the same test requests
(T1's) before and after. A model that reads its harness turns the edits into fewer errors; one that memorised
the old harness does not, or breaks. Error = 1 - AVG per request (AVG = (accuracy + effectiveness) / 2);
error reduction = (error before - error after) / error before, with a paired bootstrap 95% CI over requests.

Each patch names the failure mode it targets. The patch set was written by hand against failure modes the
grader names (missing link or unit, stale tool names, numbers not looked up); it was not derived
automatically from a dev-set run of one particular model.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any

import numpy as np

from livesim.hat.evaluate import AgentSpec, evaluate_suite

EDITS_VERSION = 1
EDITS_V1: tuple[dict[str, Any], ...] = (
    {"targets": "price answers without the link", "op": "rewrite_skill", "name": "product-facts",
     "append": "- Always name the link number in the reply, e.g. 'link 3'."},
    {"targets": "coupon codes misquoted", "op": "rewrite_skill", "name": "promotions-ordering",
     "append": "- Call {tool:list_promotions} first and quote coupon codes exactly as listed."},
    {"targets": "a vague tool name (price vs product sheet)", "op": "rename_tool", "name": "get_price",
     "new_name": "get_live_price"},
    {"targets": "a vague tool name (stock vs product)", "op": "rename_tool", "name": "check_stock",
     "new_name": "check_variant_stock"},
    {"targets": "numbers quoted from memory", "op": "add_hook", "hook": {
        "key": "ops-lookup-notice", "check": "notice", "event": "request", "retry_template": "", "retry_limit": 0,
        "params": {"message": "Operator: look every number up with a tool; replies under {max_reply_chars} "
                              "characters, with the link number."}}},
)


def load_patches(path: str | Path | None) -> list[dict[str, Any]]:
    if path is None:
        return [dict(p) for p in EDITS_V1]
    import yaml

    p = Path(path)
    if not p.exists():
        raise FileNotFoundError(f"--patches: no such file {str(p)!r}")
    data = yaml.safe_load(p.read_text())
    if not isinstance(data, list) or not all(isinstance(x, dict) for x in data):
        raise ValueError(f"--patches: {p} must hold a YAML list of patches (op: ..., name: ...)")
    return data


def edited_harness(patches: list[dict[str, Any]]) -> Any:
    """The canonical harness with the patches applied in order (`append` adds rule lines to a skill)."""
    from pydantic import TypeAdapter

    from livesim.harness import default_harness
    from livesim.patches import HarnessPatch, apply_patch

    h = default_harness()
    adapter: TypeAdapter[Any] = TypeAdapter(HarnessPatch)
    for raw in patches:
        raw = {k: v for k, v in raw.items() if k != "targets"}
        if "append" in raw:
            skill = h.skill_by_name(raw["name"])
            if skill is None:
                raise ValueError(f"patch {raw}: no skill named {raw['name']!r}")
            raw = {**{k: v for k, v in raw.items() if k != "append"},
                   "content": skill.content.rstrip() + "\n" + raw["append"]}
        h = apply_patch(h, adapter.validate_python(raw))
    return h


def patches_key(patches: list[dict[str, Any]]) -> str:
    return hashlib.sha256(json.dumps(patches, sort_keys=True).encode()).hexdigest()[:16]


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
    from livesim.compare import paired_bootstrap

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
                     batch_size: int = 8, agent: Any = None, use_cache: bool = True) -> dict[str, Any]:
    """T1 (canonical harness) vs T1 under the edited harness, for one agent with frozen weights."""
    patches = patches if patches is not None else [dict(p) for p in EDITS_V1]
    before = evaluate_suite(spec, "T1", limit, batch_size, agent, use_cache=use_cache)
    after = evaluate_suite(spec, "T1", limit, batch_size, agent, use_cache=use_cache, patches=patches)
    return {"agent": spec.display, "patches": patches, "patches_key": patches_key(patches),
            "before": before["scores"], "after": after["scores"],
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
