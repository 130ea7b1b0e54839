"""The online A/B analogue: `LiveStream-v0` streams hosted by model A and by model B, paired by world seed.

Every stream carries an operator harness patch half-way through (tools and a skill renamed, the skill
rewritten, a notice hook added), as harnesses change under a live product. Per stream: GMV, item page views
(IPV), orders, reward, accuracy, effectiveness and latency; differences B - A are paired by seed with 95%
bootstrap CIs (`livesim.runs.compare.compare`). Works for any two agents: registry agents or model directories.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any

from livesim.hat.evaluate import AgentSpec
from livesim.runs.compare import AgentSpec as CompareSpec
from livesim.runs.compare import compare
from livesim.stream.harness_file import harness_with_style
from livesim.stream.paths import MAX_PROMPT_FILE_BYTES, read_text, write_text
from livesim.stream.scenario import Scenario

AB_VERSION = 1


def ab_scenario(duration_s: float = 120.0, n_viewers: int = 40, comments_per_min: float = 12.0) -> Scenario:
    """A generated stream with a mid-stream patch at duration/2 (the scenario's seed is replaced per run)."""
    at = duration_s / 2
    return Scenario.model_validate({
        "name": "ab-midstream-patch", "duration_s": duration_s,
        "purpose": "A/B analogue: generated traffic, tools and a skill renamed and a notice hook added mid-stream.",
        "catalog": {"n_products": 6},
        "traffic": {"n_viewers": n_viewers, "comments_per_min": comments_per_min},
        "patches": [
            {"at_s": at, "op": "rename_tool", "name": "get_price", "new_name": "lookup_live_price"},
            {"at_s": at, "op": "rename_tool", "name": "check_stock", "new_name": "inventory"},
            {"at_s": at, "op": "rename_skill", "name": "product-facts", "new_name": "item-knowledge"},
            {"at_s": at, "op": "add_hook", "hook": {
                "key": "ops-lookup-notice", "check": "notice", "event": "request", "retry_template": "",
                "params": {"message": "Operator: look every number up with the tools before replying."}}},
        ],
    })


def _compare_spec(spec: AgentSpec) -> CompareSpec:
    return CompareSpec(spec.name, tuple(sorted(spec.kwargs.items())))


def ab_key(a: AgentSpec, b: AgentSpec, seeds: list[int], trials: int = 1, duration_s: float = 120.0,
           n_boot: int = 10_000, prompt_style: str = "full") -> str:
    """What an A/B result depends on (both agents' identities, model digests included, not their labels; the
    scenario; seeds, trials, bootstrap size and the presented prompt style), as its record's name (`ab-<key>.json`).
    """
    payload = {"v": AB_VERSION, "a": a.identity(), "b": b.identity(),
               "seeds": list(seeds), "trials": trials,
               "scenario": ab_scenario(duration_s).model_dump(mode="json"), "n_boot": n_boot,
               "prompt_style": prompt_style}
    return hashlib.sha256(json.dumps(payload, sort_keys=True, default=str).encode()).hexdigest()[:24]


def run_ab(a: AgentSpec, b: AgentSpec, seeds: list[int], trials: int = 1, duration_s: float = 120.0,
           n_boot: int = 10_000, prompt_style: str = "full", records: str | Path | None = None,
           cached_only: bool = False) -> dict[str, Any] | None:
    """Streams hosted by A and by B on the same seeds; B - A per metric with 95% CIs.

    `prompt_style`: how the canonical harness's prompt is presented to both hosts (the style the models were
    trained on; the mid-stream patch applies on top of it). `records`: a folder of A/B records
    (`ab-<key>.json`, the key holding both models' digests): a result there is returned as it is, a new one is
    written there. `cached_only`: None instead of running streams when there is no record.
    """
    key = ab_key(a, b, seeds, trials, duration_s, n_boot, prompt_style)
    path = Path(records) / f"ab-{key}.json" if records is not None else None
    if path is not None and path.is_file():  # recorded under other labels, maybe: relabelled A, B as here
        found = json.loads(read_text(path, MAX_PROMPT_FILE_BYTES))
        names = dict(zip(found["agents"], (a.display, b.display), strict=True))
        return {**relabel(found, names), "ab_key": key}
    if cached_only:
        return None
    scenario = ab_scenario(duration_s)
    result = compare(scenario, [_compare_spec(a), _compare_spec(b)], seeds, trials=trials, n_boot=n_boot,
                     harness=harness_with_style(None, prompt_style))
    out = relabel(result, dict(zip(result["agents"], (a.display, b.display), strict=True)))
    out.update(version=AB_VERSION, duration_s=duration_s, patch_at_s=duration_s / 2, prompt_style=prompt_style)
    if path is not None:
        write_text(path, json.dumps(out, sort_keys=True) + "\n", flag="--records")
    return {**out, "ab_key": key}


def relabel(obj: Any, names: dict[str, str]) -> Any:
    """`obj` (an A/B result or part of it) with every key or string that is an agent label replaced by its new
    name.
    """
    if isinstance(obj, dict):
        return {names.get(k, k): relabel(v, names) for k, v in obj.items()}
    if isinstance(obj, list):
        return [relabel(x, names) for x in obj]
    return names.get(obj, obj) if isinstance(obj, str) else obj


def render_ab(result: dict[str, Any]) -> str:
    base, other = result["agents"]
    style = result.get("prompt_style", "full")
    lines = [f"{len(result['seeds'])} streams of {result['duration_s']:g} s, patch at {result['patch_at_s']:g} s"
             + ("" if style == "full" else f", canonical prompt presented {style}") + "; "
             f"diff = {other} - {base}, paired by seed, 95% bootstrap CI", "",
             f"| metric | {base} | {other} | diff [95% CI] |", "|---|---|---|---|"]
    for m in ("gmv", "ipv", "orders", "mean_reward", "accuracy", "effectiveness", "latency_p50", "latency_p95"):
        row = result["metrics"][m]
        d = row["diff"][other]
        lines.append(f"| {m} | {row['mean'][base]:.3f} | {row['mean'][other]:.3f} | {d['mean']:+.3f} "
                     f"[{d['ci95'][0]:+.3f}, {d['ci95'][1]:+.3f}] |")
    return "\n".join(lines)
