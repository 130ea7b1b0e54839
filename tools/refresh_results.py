"""Bring a committed results folder up to the current table: outcome rates and stored conversations.

For each row and suite of `results/<preset>/results.json`:
- a scripted row (oracle, reader, memorizer, null, random) is evaluated again with conversations kept; when its
  evaluation key is the one the table names and its per-request rows are the stored ones (or, with no stored
  record, its scores are the table's), the record and its samples are written to `evals/` under that key;
  otherwise it is reported and left as it was;
- a model row whose weights are not on this machine is marked "no checkpoint" (its table cell says
  "no samples (no checkpoint)");
- the outcome rates (pass, answered, fallback, parse error) are filled from the per-request rows of its record.
Then `results.json`, `table.md` and the charts are written again (the rest of the table is left as it was).

    python tools/refresh_results.py results/smollm2-135m results/smollm2-135m-gpu results/tiny
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from livesim.agents import AGENT_REGISTRY
from livesim.hat.evaluate import AgentSpec, _cache_key, evaluate_suite
from livesim.hat.report import chart_drop, chart_suites, render_table, with_records
from livesim.hat.samples import samples_path, without_transient, write_samples
from livesim.hat.suites import get_suite
from livesim.stream.paths import MAX_PROMPT_FILE_BYTES, read_text, write_text

SCRIPTED = {"oracle", "reader", "memorizer", "null", "random"}


def _same_rows(a: list[dict[str, Any]], b: list[dict[str, Any]]) -> bool:
    keys = ("id", "accuracy", "effectiveness", "reward", "fallback", "turns", "parse_errors")
    return [[r.get(k) for k in keys] for r in a] == [[r.get(k) for k in keys] for r in b]


def _same_scores(a: dict[str, Any], b: dict[str, Any]) -> bool:
    keys = ("accuracy", "effectiveness", "avg", "reward", "prompt_strict", "inst_strict")
    return all(abs(float(a.get(k) or 0) - float(b.get(k) or 0)) < 1e-9 for k in keys)


def refresh(folder: Path, log: Any = print) -> None:
    results = json.loads(read_text(folder / "results.json", MAX_PROMPT_FILE_BYTES))
    ev = results.get("eval") or {}
    evals = folder / "evals"
    for row in results["rows"]:
        if row.get("status") != "ok":
            continue
        name, train = row["row"], row.get("train") or {}
        scripted = name in SCRIPTED and name in AGENT_REGISTRY
        for suite, summary in (row.get("suites") or {}).items():
            if not summary or summary.get("scores") is None:
                continue
            key = summary.get("cache_key")
            record = evals / f"{key}.json" if key else None
            stored = (json.loads(read_text(record, MAX_PROMPT_FILE_BYTES)) if record and record.is_file() else None)
            kept = samples_path(record) if record else None
            if scripted and key and not (kept and kept.is_file()):
                spec = AgentSpec(name, {}, label=name)
                style = ev.get("prompt_style", "full")
                extra = {"prompt_style": style} if style != "full" and get_suite(suite).kind == "qa" else None
                if _cache_key(spec, get_suite(suite), ev.get("limit"), ev.get("batch_size", 8), extra) != key:
                    now = get_suite(suite).key
                    why = (f"suite {summary.get('key')} is now {now}" if summary.get("key") != now
                           else f"{name} changed since")
                    log(f"{folder.name} {name} {suite}: not re-evaluable under the table's key ({why}); left as it was")
                    summary["samples_note"] = why
                else:
                    fresh = evaluate_suite(spec, suite, ev.get("limit"), ev.get("batch_size", 8), use_cache=False,
                                           prompt_style=style)
                    assert fresh is not None
                    same = (_same_rows(stored["rows"], fresh["rows"]) if stored
                            else _same_scores(summary.get("scores") or {}, fresh["scores"] or {}))
                    if not same:
                        log(f"{folder.name} {name} {suite}: re-evaluated, but its rows differ from the table's; "
                            "left as it was")
                        summary["samples_note"] = "a re-evaluation differs"
                    else:
                        assert record is not None and kept is not None
                        if stored is None:
                            stored = without_transient(fresh)
                            write_text(record, json.dumps(stored, sort_keys=True) + "\n")
                        write_samples(kept, fresh["samples"])
                        log(f"{folder.name} {name} {suite}: re-evaluated with samples, same rows "
                            f"({kept.stat().st_size:,} bytes for {len(fresh['rows'])} requests)")
            if kept is not None and kept.is_file():
                summary["samples"] = True
                summary.pop("samples_note", None)
            else:
                summary["samples"] = False
                model = train.get("model_dir")
                if model and not Path(model).is_dir():
                    summary["samples_note"] = "no checkpoint"
                elif stored is None and not summary.get("samples_note"):
                    summary["samples_note"] = "no evaluation record"
    with_records(results, folder)
    write_text(folder / "results.json", json.dumps(results, indent=1, sort_keys=True, default=str) + "\n")
    write_text(folder / "table.md", render_table(results))
    if (folder / "suites.png").exists():
        chart_suites(results, folder / "suites.png")
    if (folder / "t1_t2_drop.png").exists():
        chart_drop(results, folder / "t1_t2_drop.png")
    log(f"{folder}: results.json, table.md and charts written")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("folders", nargs="+", help="results/<preset> folders (each with results.json)")
    args = ap.parse_args(argv)
    for f in args.folders:
        if not (Path(f) / "results.json").is_file():
            print(f"error: {f} has no results.json", file=sys.stderr)
            return 2
    for f in args.folders:
        refresh(Path(f))
    return 0


if __name__ == "__main__":
    sys.exit(main())
