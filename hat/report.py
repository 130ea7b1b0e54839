"""Write a reproduction's results: `results.json`, `table.md` and PNG charts, from evaluated rows.

The writer only needs evaluation results (`livesim.hat.evaluate.evaluate` output) per row, plus optional
training information (run directory, wall time per stage), so it is tested on rows produced by evaluating
real agents without any training. Every difference it reports is paired by request with a 95% bootstrap CI.
"""

from __future__ import annotations

import importlib.util
import json
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from livesim.hat.evaluate import compare_results, suite_drop, suite_drops
from livesim.hat.samples import RATES, outcome_rates, samples_path
from livesim.hat.suites import T2_DIMENSIONS
from livesim.stream.paths import MAX_PROMPT_FILE_BYTES, read_text, save_figure, write_text

SUITE_ORDER = ("T1", "T2", "T3", "T4")
DIMENSION_SUITES = tuple(f"T2-{d}" for d in T2_DIMENSIONS)
# Thresholds the findings are judged by (AVG is in [0, 1]; 0.05 = 5 points).
WELL_BELOW = 0.05
FEW_POINTS = 0.05


@dataclass
class RowResult:
    """One row of the table: what was evaluated, and how it was trained (if it was)."""

    row: str
    result: dict[str, Any] | None
    status: str = "ok"  # ok | missing | error
    note: str = ""
    train: dict[str, Any] = field(default_factory=dict)  # run_dir, stage, model_dir, wall_s


def _summary(suite: dict[str, Any]) -> dict[str, Any] | None:
    if suite is None:
        return None
    scores = suite["scores"]
    if scores is not None and "outcomes" not in scores and suite.get("suite") != "T4" and suite.get("rows"):
        scores = {**scores, "outcomes": outcome_rates(suite["rows"])}  # a result cached before the rates existed
    kept = suite.get("samples") is not None or bool(suite.get("samples_file"))
    return {"key": suite["key"], "n": suite["n"], "scores": scores, "note": suite.get("note"),
            "wall_s": suite.get("wall_s"), "requests_per_s": suite.get("requests_per_s"),
            "cache_key": suite.get("cache_key"), "samples": kept}


def _diff(a: RowResult | None, b: RowResult | None) -> dict[str, Any]:
    if not a or not b or a.result is None or b.result is None:
        return {}
    return compare_results(a.result, b.result)


def fmt_ci(d: dict[str, Any] | None) -> str:
    if not d:
        return "n/a"
    return f"{d['mean'] * 100:+.1f} [{d['ci95'][0] * 100:+.1f}, {d['ci95'][1] * 100:+.1f}]"


def findings(rows: dict[str, RowResult]) -> list[dict[str, Any]]:
    """The paper's shapes, each judged from a paired difference and its 95% CI (None: not measurable)."""
    out: list[dict[str, Any]] = []

    def drop(name: str) -> dict[str, Any]:
        r = rows.get(name)
        return suite_drop(r.result).get("avg", {}) if r and r.result else {}

    def add(claim: str, d: dict[str, Any], ok: Any) -> None:
        out.append({"claim": claim, "diff": d or None, "holds": (bool(ok(d)) if d else None)})

    add(f"fixed-SFT's T2 AVG falls well below its T1 (T2-T1 CI below -{WELL_BELOW:g})", drop("fixed-SFT"),
        lambda d: d["ci95"][1] < -WELL_BELOW)
    add(f"HSA-SFT's T2 AVG stays within a few points of its T1 (T2-T1 CI inside ±{FEW_POINTS:g})", drop("HSA-SFT"),
        lambda d: -FEW_POINTS <= d["ci95"][0] and d["ci95"][1] <= FEW_POINTS)
    for sft in ("fixed-SFT", "HSA-SFT"):
        cost = _diff(rows.get("base"), rows.get(sft)).get("T4", {}).get("prompt_strict", {})
        add(f"{sft} costs T4 prompt-strict points against base (CI below 0)", cost, lambda d: d["ci95"][1] < 0)
        back = _diff(rows.get(sft), rows.get(f"{sft}+distill")).get("T4", {}).get("prompt_strict", {})
        cost_mean = cost.get("mean") if cost else None
        add(f"distillation gives back most of {sft}'s T4 cost (recovers > half of it, CI above 0)", back,
            lambda d, c=cost_mean: c is not None and c < 0 and d["ci95"][0] > 0 and d["mean"] > -c / 2)
    add("HSA in SFT is worth T4 prompt-strict points (HSA-SFT - fixed-SFT, CI above 0)",
        _diff(rows.get("fixed-SFT"), rows.get("HSA-SFT")).get("T4", {}).get("prompt_strict", {}),
        lambda d: d["ci95"][0] > 0)
    add("HSA in RL is worth T4 prompt-strict points (HAT - fixed-RL, CI above 0)",
        _diff(rows.get("fixed-RL"), rows.get("HAT")).get("T4", {}).get("prompt_strict", {}),
        lambda d: d["ci95"][0] > 0)
    for other in ("base", "fixed-SFT", "HSA-SFT", "fixed-SFT+distill", "HSA-SFT+distill", "fixed-RL"):
        add(f"HAT beats {other} on T2 AVG (CI above 0)", _diff(rows.get(other), rows.get("HAT")).get("T2", {})
            .get("avg", {}), lambda d: d["ci95"][0] > 0)
    return out


def build_results(preset: str, rows: list[RowResult], baseline: str = "base", extra: dict[str, Any] | None = None
                  ) -> dict[str, Any]:
    by = {r.row: r for r in rows}
    base = by.get(baseline)
    out_rows = []
    for r in rows:
        entry: dict[str, Any] = {"row": r.row, "status": r.status, "note": r.note, "train": r.train}
        if r.result is not None:
            entry["agent"] = r.result["agent"]
            entry["suites"] = {k: _summary(v) for k, v in r.result["suites"].items()}
            entry["t1_to_t2"] = suite_drop(r.result) or None
            entry["t1_to"] = {k: v for k, v in suite_drops(r.result).items() if k != "T2"} or None
            if base is not None and r is not base:
                entry["vs_" + baseline] = _diff(base, r) or None
        out_rows.append(entry)
    return {"preset": preset, "baseline": baseline, "rows": out_rows, "findings": findings(by), **(extra or {})}


# ------------------------------------------------------------------------------------------------ table.md
def fmt_pct(x: Any, pct: bool = True) -> str:
    if x is None:
        return "n/a"
    return f"{x * 100:.1f}" if pct else f"{x:.2f}"


def render_table(results: dict[str, Any]) -> str:
    lines = [f"# Results: preset `{results['preset']}`", ""]
    if results.get("command"):
        lines += ["```bash", results["command"], "```", ""]
    lines += ["Scores in percent. AVG = (accuracy + effectiveness) / 2; pass = accuracy 1 and effectiveness 1; "
              "answered = effectiveness > 0. T4: prompt- and instruction-level, strict "
              "and loose. Differences are paired by request with 95% bootstrap CIs, in points.", ""]
    head = ("| row | T1 Acc | T1 Eff | T1 AVG | T1 pass | T1 answered | T2 Acc | T2 Eff | T2 AVG | T2 pass "
            "| T2-T1 AVG [95% CI] | T2-stress AVG | T3 AVG "
            "| T3 tool faults | T3 prompt | T4 P-strict | T4 I-strict | T4 P-loose | T4 I-loose "
            "| latency sim P50/P95 s | gen P50/P95 s | n (T1/T2/T3/T4) |")
    lines += [head, "|" + "---|" * (head.count("|") - 1)]
    for r in results["rows"]:
        if r["status"] != "ok":
            lines.append(f"| {r['row']} | {r['status']}: {r['note']} |" + " |" * (head.count("|") - 3))
            continue
        s = r["suites"]

        def sc(name: str, key: str, sub: str | None = None, _s: dict[str, Any] = s) -> str:
            block = (_s.get(name) or {}).get("scores")
            if not block:
                return "n/a"
            if sub:
                block = (block.get("by_subset") or {}).get(sub)
                if not block:
                    return "n/a"
            return fmt_pct(block.get(key))

        lat = ((s.get("T1") or {}).get("scores") or {}).get("latency", {})
        drop = (r.get("t1_to_t2") or {}).get("avg")
        ns = "/".join(str((s.get(k) or {}).get("n", 0)) for k in SUITE_ORDER)
        lines.append(
            f"| {r['row']} | {sc('T1', 'accuracy')} | {sc('T1', 'effectiveness')} | {sc('T1', 'avg')} | "
            f"{fmt_pct(rate(r, 'T1', 'pass'))} | {fmt_pct(rate(r, 'T1', 'answered'))} | "
            f"{sc('T2', 'accuracy')} | {sc('T2', 'effectiveness')} | {sc('T2', 'avg')} | "
            f"{fmt_pct(rate(r, 'T2', 'pass'))} | {fmt_ci(drop)} | "
            f"{sc('T2-stress', 'avg')} | {sc('T3', 'avg')} | {sc('T3', 'avg', 'tool_faults')} | "
            f"{sc('T3', 'avg', 'prompt')} | "
            f"{sc('T4', 'prompt_strict')} | {sc('T4', 'inst_strict')} | {sc('T4', 'prompt_loose')} | "
            f"{sc('T4', 'inst_loose')} | {fmt_pct(lat.get('sim_p50'), False)} / {fmt_pct(lat.get('sim_p95'), False)} | "
            f"{fmt_pct(lat.get('gen_p50'), False)} / {fmt_pct(lat.get('gen_p95'), False)} | {ns} |")
    lines += outcome_table(results)
    lines += _dimension_table(results)
    base = results["baseline"]
    diff_rows = [r for r in results["rows"] if r.get("vs_" + base)]
    if diff_rows:
        lines += ["", f"## Differences from `{base}` (points, 95% CI)", "",
                  "| row | T1 AVG | T2 AVG | T3 AVG | T4 P-strict | T4 I-strict |", "|---|---|---|---|---|---|"]
        for r in diff_rows:
            d = r["vs_" + base]
            lines.append(f"| {r['row']} | {fmt_ci(d.get('T1', {}).get('avg'))} | "
                         f"{fmt_ci(d.get('T2', {}).get('avg'))} | {fmt_ci(d.get('T3', {}).get('avg'))} | "
                         f"{fmt_ci(d.get('T4', {}).get('prompt_strict'))} | "
                         f"{fmt_ci(d.get('T4', {}).get('inst_strict'))} |")
    intents = sorted({i for r in results["rows"] if r["status"] == "ok"
                      for i in (((r["suites"].get("T1") or {}).get("scores") or {}).get("by_intent") or {})})
    if intents:
        ok = [r for r in results["rows"] if r["status"] == "ok"]
        lines += ["", "## T1 / T2 AVG per intent", "", "| intent | " + " | ".join(r["row"] for r in ok) + " |",
                  "|---|" + "---|" * len(ok)]
        for it in intents:
            cells = []
            for r in ok:
                vals = []
                for name in ("T1", "T2"):
                    blk = (((r["suites"].get(name) or {}).get("scores") or {}).get("by_intent") or {}).get(it)
                    vals.append(fmt_pct(blk["avg"]) if blk else "n/a")
                cells.append(" / ".join(vals))
            lines.append(f"| {it} | " + " | ".join(cells) + " |")
    if results.get("findings"):
        lines += ["", "## The paper's findings at this scale", "", "| finding | measured (points) | holds |",
                  "|---|---|---|"]
        for f in results["findings"]:
            holds = {True: "yes", False: "no", None: "not measured"}[f["holds"]]
            lines.append(f"| {f['claim']} | {fmt_ci(f['diff'])} | {holds} |")
    for key, title in (("ab", "Online A/B analogue"), ("harness_edit", "Harness-edit test")):
        if results.get(key + "_table"):
            lines += ["", f"## {title}", "", results[key + "_table"]]
    carried = [r for r in results["rows"] if r["status"] == "ok" and (r.get("train") or {}).get("carried")]
    from_file = [r for r in carried if r["train"].get("carried_from")]
    if from_file:
        lines += ["", "## Rows carried from an earlier run", "",
                  "Not measured by the run that wrote this table: these rows are an earlier run's, with the same "
                  "settings, as its `results.json` has them.", "", "| row | from | its command |", "|---|---|---|"]
        for r in from_file:
            lines.append(f"| {r['row']} | `{r['train']['carried_from']}` | `{r['train'].get('carried_command')}` |")
        carried = [r for r in carried if r not in from_file]
    if carried:
        lines += ["", "## Rows read from the evaluation records", "",
                  "These stages were not on the machine that wrote this table: their rows are the committed "
                  "evaluation records (`evals/`) of an earlier run of the same stage key (same config, same "
                  "data; the weights themselves were not re-checked here).", "",
                  "| row | stage key | model digest when evaluated |", "|---|---|---|"]
        for r in carried:
            lines.append(f"| {r['row']} | {r['train'].get('stage_key', 'n/a')} | "
                         f"{r['train'].get('fingerprint', 'n/a')} |")
    wall = [r for r in results["rows"] if (r.get("train") or {}).get("wall_s")]
    if wall:
        lines += ["", "## Training wall time per stage (s, as measured when the stage was trained; rows that share "
                  "a stage share its training)", "", "| row | stage | wall s |",
                  "|---|---|---|"]
        for r in wall:
            for st, w in r["train"]["wall_s"].items():
                lines.append(f"| {r['row']} | {st} | {w:.0f} |")
    return "\n".join(lines) + "\n"


OUTCOME_SUITES = ("T1", "T2", "T3")
RATE_NAMES = {"pass": "pass", "answered": "answered", "fallback": "fallback", "parse_error": "parse err"}


def rate(row: dict[str, Any], suite: str, name: str) -> Any:
    """A row's outcome rate on a suite (None when the suite or its rates were not measured)."""
    return ((((row.get("suites") or {}).get(suite) or {}).get("scores") or {}).get("outcomes") or {}).get(name)


def samples_cell(row: dict[str, Any]) -> str:
    """Whether a row's conversations are kept: "yes", "part" or why not (`samples_note` of its suites)."""
    suites = [s for s in (row.get("suites") or {}).values() if s and s.get("scores") is not None]
    kept = [bool(s.get("samples")) for s in suites]
    if suites and all(kept):
        return "yes"
    if any(kept):
        return "part"
    notes = {s.get("samples_note") for s in suites if s.get("samples_note")}
    return "no samples" + (f" ({'; '.join(sorted(notes))})" if notes else "")


def with_records(results: dict[str, Any], folder: str | Path) -> dict[str, Any]:
    """`results` (a results.json) with each QA suite's outcome rates taken from its record's rows and each suite's
    samples flag from the files in `folder/evals/` (`<cache key>.json`, `<cache key>.samples.jsonl.gz`); suites
    with no record keep what they have. Changes `results` in place and returns it.
    """
    evals = Path(folder) / "evals"
    for row in results.get("rows", []):
        for name, summary in (row.get("suites") or {}).items():
            key = (summary or {}).get("cache_key")
            record = evals / f"{key}.json" if key else None
            if record is None or not record.is_file():
                continue
            if samples_path(record).is_file():
                summary["samples"] = True
                summary.pop("samples_note", None)
            stored = json.loads(read_text(record, MAX_PROMPT_FILE_BYTES))
            if stored.get("rows") and name != "T4" and summary.get("scores") is not None:
                summary["scores"]["outcomes"] = outcome_rates(stored["rows"])
    return results


def outcome_table(results: dict[str, Any]) -> list[str]:
    """What each row does, beside AVG: pass (accuracy 1 and effectiveness 1), answered (effectiveness > 0),
    fallback and parse-error rates per QA suite, and whether its conversations are kept (`livesim view`).
    """
    rows = [r for r in results["rows"] if r["status"] == "ok"]
    if not rows:
        return []
    suites = [s for s in OUTCOME_SUITES if any((r.get("suites") or {}).get(s) for r in rows)]
    cols = [f"{s} {RATE_NAMES[k]}" for s in suites for k in RATES]
    lines = ["", "## Outcomes per request (percent)", "",
             "pass: accuracy 1 and effectiveness 1; answered: effectiveness > 0; fallback: the harness's reply went "
             "out; parse err: at least one unparseable turn. samples: whether each request's conversation is kept "
             "(`livesim view`, `livesim hat regrade`).", "",
             "| row | " + " | ".join(cols) + " | samples |", "|---|" + "---|" * (len(cols) + 1)]
    for r in rows:
        cells = [fmt_pct(rate(r, s, k)) for s in suites for k in RATES]
        lines.append(f"| {r['row']} | " + " | ".join(cells) + f" | {samples_cell(r)} |")
    return lines


def _dimension_table(results: dict[str, Any]) -> list[str]:
    """Where a row's T1 -> T2 drop comes from: AVG under each dimension alone, and under T2-stress, minus T1."""
    cols = ("T2", *DIMENSION_SUITES, "T2-stress")
    rows = [r for r in results["rows"] if r["status"] == "ok" and any(r["suites"].get(c) for c in cols[1:])]
    if not rows:
        return []
    lines = ["", "## T1 -> T2 per dimension (AVG minus T1 AVG, points, 95% CI; each dimension alone, held-out, p=1)",
             "", "| row | " + " | ".join(cols) + " |", "|---|" + "---|" * len(cols)]
    for r in rows:
        drops = {"T2": r.get("t1_to_t2") or {}, **(r.get("t1_to") or {})}
        lines.append(f"| {r['row']} | " + " | ".join(fmt_ci((drops.get(c) or {}).get("avg")) for c in cols) + " |")
    return lines


# ------------------------------------------------------------------------------------------------ charts
def _plt() -> Any:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    return plt


NOT_MEASURED = dict(fill=False, hatch="///", edgecolor="0.55", linewidth=0.8)


def chart_suites(results: dict[str, Any], path: Path) -> Path:
    """Grouped bars per row, the value on each bar; a suite that was not measured is an empty hatched bar
    labelled "n/m" (never a 0 bar).
    """
    plt = _plt()
    ok = [r for r in results["rows"] if r["status"] == "ok"]
    metrics = (("T1", "avg", "T1 AVG"), ("T1", "outcomes.pass", "T1 pass"), ("T2", "avg", "T2 AVG"),
               ("T2", "outcomes.pass", "T2 pass"), ("T2-stress", "avg", "T2-stress AVG"), ("T3", "avg", "T3 AVG"),
               ("T4", "prompt_strict", "T4 prompt-strict"))
    fig, ax = plt.subplots(figsize=(max(7, 1.6 * len(ok) + 2), 4.4))
    x = np.arange(len(ok))
    w = 0.8 / len(metrics)
    missing = False
    for j, (suite, key, label) in enumerate(metrics):
        vals = [rate(r, suite, key.split(".", 1)[1]) if key.startswith("outcomes.")
                else ((r["suites"].get(suite) or {}).get("scores") or {}).get(key) for r in ok]
        xs = x + (j - (len(metrics) - 1) / 2) * w
        bars = ax.bar(xs, [0.0 if v is None else v * 100 for v in vals], w, label=label, color=f"C{j}")
        for xi, bar, v in zip(xs, bars, vals, strict=True):
            if v is None:
                missing = True
                ax.bar(xi, 12, w, **NOT_MEASURED)
                ax.text(xi, 13, "n/m", ha="center", va="bottom", fontsize=6, color="0.4", rotation=90)
            else:
                ax.text(xi, bar.get_height() + 1, f"{v * 100:.0f}", ha="center", va="bottom", fontsize=6)
    if missing:
        ax.bar([np.nan], [np.nan], w, label="not measured (n/m)", **NOT_MEASURED)
    ax.set_xticks(x, [r["row"] for r in ok], rotation=20, ha="right")
    ax.set_ylabel("score (%)")
    ax.set_ylim(0, 112)
    ax.set_title(f"{results['preset']}: suites per row (T1-T3 AVG of accuracy and effectiveness; pass: both 1; "
                 "T4 prompt-strict)", fontsize=9)
    ax.legend(fontsize=7, ncol=3, loc="upper left")
    fig.tight_layout()
    save_figure(fig, path, dpi=110)
    plt.close(fig)
    return path


def chart_drop(results: dict[str, Any], path: Path) -> Path:
    plt = _plt()
    ok = [r for r in results["rows"] if r["status"] == "ok" and (r.get("t1_to_t2") or {}).get("avg")]
    fig, ax = plt.subplots(figsize=(max(6, 1.2 * len(ok) + 2), 3.5))
    means = [r["t1_to_t2"]["avg"]["mean"] * 100 for r in ok]
    lo = [m - r["t1_to_t2"]["avg"]["ci95"][0] * 100 for m, r in zip(means, ok, strict=True)]
    hi = [r["t1_to_t2"]["avg"]["ci95"][1] * 100 - m for m, r in zip(means, ok, strict=True)]
    ax.bar(range(len(ok)), means, yerr=[lo, hi], capsize=4, color="tab:red")
    for i, m in enumerate(means):
        ax.text(i + 0.08, m, f"{m:+.1f}", ha="left", va="bottom" if m >= 0 else "top", fontsize=7)
    ax.axhline(0, color="k", lw=0.8)
    ax.set_xticks(range(len(ok)), [r["row"] for r in ok], rotation=20, ha="right")
    ax.set_ylabel("T2 - T1 AVG (points, 95% CI)")
    ax.set_title(f"{results['preset']}: harness-variant drop per row (T2 - T1, paired)", fontsize=9)
    fig.tight_layout()
    save_figure(fig, path, dpi=110)
    plt.close(fig)
    return path


def read_metrics(run_dir: str | Path) -> list[dict[str, Any]]:
    path = Path(run_dir) / "metrics.jsonl"
    try:
        text = read_text(path, MAX_PROMPT_FILE_BYTES)
    except FileNotFoundError:
        return []
    out = []
    for line in text.splitlines():
        try:
            obj = json.loads(line)
        except ValueError:
            continue
        if isinstance(obj, dict):
            out.append(obj)
    return out


CURVE_KEYS = ("loss", "train_loss", "reward", "kl", "eval_loss")
# (stage, key) -> y label, in pipeline order. GRPO's loss is not drawn: with group-normalised advantages it is
# ~0 by construction (1e-8 in the tiny runs) and says nothing; the reward is what RL moves.
PANELS: dict[tuple[str, str], str] = {
    ("sft", "loss"): "SFT train loss (nats/token)", ("sft", "eval_loss"): "SFT validation loss (nats/token)",
    ("distill", "loss"): "distillation loss (reverse KL)", ("rl", "reward"): "RL reward (0-1, per episode)",
    ("rl", "kl"): "RL KL to the start policy",
}
STYLES = (("-", "o"), ("--", "s"), (":", "^"), ("-.", "D"), ((0, (5, 1, 1, 1)), "v"))


def _smooth(ys: list[float], n: int) -> list[float]:
    if n <= 1 or len(ys) < 3 * n:
        return ys
    c = np.convolve(np.asarray(ys), np.ones(n) / n, mode="valid")
    return [float(v) for v in np.concatenate([np.full(n - 1, np.nan), c])]


def chart_curves(run_dirs: dict[str, str | Path], path: Path, preset: str = "") -> Path | None:
    """Training curves from each run's metrics.jsonl: one panel per stage and metric of `PANELS` that has data,
    in pipeline order (SFT, distillation, RL), one line per run with its own line style and markers; runs whose
    curves are identical (stages shared through the cache) are one line labelled with all their names. Long
    noisy curves get a moving average over the raw points.
    """
    series: dict[tuple[str, str], dict[str, list[tuple[float, float]]]] = {}
    runs = {Path(d).name: d for d in dict.fromkeys(str(d) for d in run_dirs.values())}
    for run, d in runs.items():
        for i, m in enumerate(read_metrics(d)):
            if m.get("kind", "train") != "train":  # summaries and dev-set rows are not curves
                continue
            step = m.get("step", m.get("global_step", i))
            stage = str(m.get("stage", ""))
            for k in CURVE_KEYS:
                v = m.get(k)
                if isinstance(v, (int, float)) and not isinstance(v, bool) and isinstance(step, (int, float)):
                    key = (stage, "loss" if k == "train_loss" else k)
                    series.setdefault(key, {}).setdefault(run, []).append((float(step), float(v)))
    if not series:
        return None
    known = [k for k in PANELS if k in series] + sorted(k for k in series if k not in PANELS and k != ("rl", "loss"))
    # one-point panels (a trainer's closing average, a single eval) only when there is nothing else to draw
    panels = [k for k in known if any(len(p) >= 2 for p in series[k].values())] or known
    if not panels:
        return None
    plt = _plt()
    fig, axes = plt.subplots(1, len(panels), figsize=(4.6 * len(panels), 3.6), squeeze=False)
    for ax, key in zip(axes[0], panels, strict=True):
        lines: dict[tuple[tuple[float, float], ...], list[str]] = {}
        for run, pts in sorted(series[key].items()):
            lines.setdefault(tuple(sorted(pts)), []).append(run)
        for n, (curve, names) in enumerate(lines.items()):
            xs, ys = [p[0] for p in curve], [p[1] for p in curve]
            ls, marker = STYLES[n % len(STYLES)]
            label, color = " = ".join(names), f"C{n}"
            window = max(1, len(ys) // 40)
            if window > 1:
                ax.plot(xs, ys, color=color, lw=0.5, alpha=0.3)
                ys = _smooth(ys, window)
                label += f" ({window}-step mean)"
            ax.plot(xs, ys, color=color, ls=ls, lw=1.3, marker=marker, markersize=3.5,
                    markevery=max(1, len(xs) // 10), label=label)
        ax.set_title(f"{preset}: {key[0]} {key[1]}".strip(": "), fontsize=9)
        ax.set_xlabel("optimizer step")
        ax.set_ylabel(PANELS.get(key, key[1]), fontsize=8)
        ax.legend(fontsize=7)
    fig.tight_layout()
    save_figure(fig, path, dpi=110)
    plt.close(fig)
    return path


def write_results(out_dir: str | Path, preset: str, rows: list[RowResult], extra: dict[str, Any] | None = None,
                  baseline: str = "base") -> dict[str, Path]:
    """results.json, table.md, suites.png, t1_t2_drop.png and (with run dirs) training_curves.png; without matplotlib
    (a training extra) the charts are skipped with one line on stderr, and the table and records are still written.
    """
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    results = build_results(preset, rows, baseline=baseline, extra=extra)
    written = {"json": out / "results.json", "table": out / "table.md"}
    write_text(written["json"], json.dumps(results, indent=1, sort_keys=True, default=str) + "\n")
    write_text(written["table"], render_table(results))
    if importlib.util.find_spec("matplotlib") is None:
        print(f"[report] charts not drawn: matplotlib is not installed (pip install 'livesim[train]'); {out} has the "
              "table", file=sys.stderr)
        return written
    written["suites_png"] = chart_suites(results, out / "suites.png")
    written["drop_png"] = chart_drop(results, out / "t1_t2_drop.png")
    runs = {r.row: r.train["run_dir"] for r in rows if r.train.get("run_dir")}
    curves = chart_curves(runs, out / "training_curves.png", preset) if runs else None
    if curves:
        written["curves_png"] = curves
    return written
