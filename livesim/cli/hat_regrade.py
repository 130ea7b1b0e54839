"""`livesim hat regrade RESULTS`: re-score stored suite conversations with the current grader (or a changed
setting of it) and print the stored and new scores side by side, with paired 95% CIs.
"""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any

from livesim.cli.hat_eval import hat_subparsers
from livesim.hat.regrade import Regraded, grader_settings, parse_settings, regrade_suite
from livesim.hat.samples import open_results
from livesim.stream.paths import PathProblem, write_text


def _pct(metric: str, x: float) -> str:
    return f"{x * 100:.1f}" if metric != "reward" else f"{x:.3f}"


def render(row: str, r: Regraded, table: list[dict[str, Any]]) -> str:
    """One (row, suite) as Markdown: metric | stored | regraded | regraded - stored [95% CI]."""
    n = len(r.old) + len(r.not_replayed)
    lines = [f"### {row} · {r.suite}: {len(r.old)} of {n} request(s) replayed, {len(r.changed)} changed", "",
             *([r.note, ""] if r.note else []),
             "| metric | stored | regraded | regraded - stored [95% CI] |", "|---|---|---|---|"]
    for t in table:
        scale, digits = (1, 3) if t["metric"] == "reward" else (100, 1)

        def signed(x: float, scale: int = scale, digits: int = digits) -> str:
            return f"{round(x * scale, digits + 3) + 0.0:+.{digits}f}"  # no "-0.000" for a rounding residue

        lines.append(f"| {t['metric']} | {_pct(t['metric'], t['old'])} | {_pct(t['metric'], t['new'])} | "
                     f"{signed(t['diff'])} [{signed(t['ci95'][0])}, {signed(t['ci95'][1])}] |")
    if r.not_replayed:
        lines += ["", f"not replayed ({len(r.not_replayed)}):"]
        lines += [f"- {rid}: {why}" for rid, why in r.not_replayed[:20]]
        if len(r.not_replayed) > 20:
            lines.append(f"- ... and {len(r.not_replayed) - 20} more")
    if r.changed:
        lines += ["", "changed: " + ", ".join(r.changed[:30]) + (" ..." if len(r.changed) > 30 else "")]
    return "\n".join(lines) + "\n"


def cmd_regrade(args: argparse.Namespace) -> int:
    try:
        settings = parse_settings(args.set)
        stored = open_results(args.results)
    except (ValueError, OSError) as e:
        raise SystemExit(f"error: {e}") from None
    rows = set(args.row.split(",")) if args.row else None
    suites = set(args.suite.split(",")) if args.suite else None
    chosen = [s for s in stored if (rows is None or s.row in rows) and (suites is None or s.suite in suites)]
    if not chosen:
        have = sorted({f"{s.row}/{s.suite}" for s in stored})
        raise SystemExit(f"error: no row and suite of {args.results} matches --row/--suite (it has: "
                         f"{', '.join(have) or 'none'})")
    head = "the current grader" + (" with " + ", ".join(f"{k}={v:g}" for k, v in settings.items()) if settings else "")
    parts = [f"# Regraded with {head}: {args.results}", ""]
    out_json: list[dict[str, Any]] = []
    with grader_settings(settings):
        for s in chosen:
            if s.samples_file is None or s.result is None:
                parts.append(f"### {s.row} · {s.suite}: not regraded ({s.why_none})\n")
                out_json.append({"row": s.row, "suite": s.suite, "regraded": False, "why": s.why_none})
                continue
            try:
                r = regrade_suite(s.result, s.samples())
            except (ValueError, OSError) as e:
                raise SystemExit(f"error: {s.row}/{s.suite}: {e}") from None
            table = r.table(args.n_boot)
            parts.append(render(s.row, r, table))
            out_json.append({"row": s.row, "suite": s.suite, "regraded": True, "table": table,
                             "not_replayed": r.not_replayed, "changed": r.changed, "note": r.note})
    text = "\n".join(parts)
    if args.out:
        try:
            write_text(args.out, json.dumps({"settings": settings, "results": out_json}, indent=1) + "\n")
        except PathProblem as e:
            raise SystemExit(f"error: {e}") from None
    if args.json:
        print(json.dumps({"settings": settings, "results": out_json}, sort_keys=True))
    else:
        sys.stdout.write(text)
    return 0


def register(sub: Any) -> None:
    p = hat_subparsers(sub).add_parser(
        "regrade", help="re-score stored conversations with the current grader; old and new tables with paired CIs")
    p.add_argument("results", metavar="RESULTS",
                   help="a results folder (results.json + evals/), a `hat eval --out` file or an evaluation record")
    p.add_argument("--row", default=None, help="comma-separated rows (default: all)")
    p.add_argument("--suite", default=None, help="comma-separated suites (default: all)")
    p.add_argument("--set", action="append", metavar="NAME=VALUE",
                   help="change a grader setting for this regrade: weight.<term> (accuracy, effectiveness, "
                        "tool_rationality, skill_selection, hook_compliance, latency, brevity), "
                        "brevity_default_chars, brevity_noise_cost; repeatable")
    p.add_argument("--n-boot", type=int, default=10_000, help="bootstrap resamples of each CI")
    p.add_argument("--out", default=None, help="also write the comparison as JSON to this file")
    p.add_argument("--json", action="store_true", help="print JSON instead of the tables")
    p.set_defaults(func=cmd_regrade)
