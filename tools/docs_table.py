"""Write a results table excerpt into a markdown doc, between `<!-- NAME -->` and `<!-- /NAME -->`.

The excerpt (T1 accuracy/effectiveness/AVG, T2 AVG, the paired T2-T1 drop, T4 prompt/instruction strict and
T4 instruction-strict against base, and where each row comes from) is built from a `results.json` written by
`livesim hat reproduce`, so a table quoted in the docs is generated, not typed:

    python tools/docs_table.py --results results/smollm2-135m/results.json --doc docs/results.md --marker fifth-table
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any

from livesim.hat.report import fmt_ci, fmt_pct


def excerpt(results: dict[str, Any]) -> str:
    lines = ["| row | T1 Acc | T1 Eff | T1 AVG | T2 AVG | T2-T1 AVG [95% CI] | T4 P-strict | T4 I-strict | "
             "T4 I-strict vs base [95% CI] | source |", "|---|---|---|---|---|---|---|---|---|---|"]
    for r in results["rows"]:
        if r["status"] != "ok":
            lines.append(f"| {r['row']} | not measured: {r.get('note', '')} | | | | | | | | |")
            continue
        s = r["suites"]

        def g(suite: str, key: str, s: dict[str, Any] = s) -> str:
            return fmt_pct(((s.get(suite) or {}).get("scores") or {}).get(key)) if s.get(suite) else "not measured"

        drop = fmt_ci((r.get("t1_to_t2") or {}).get("avg")) if s.get("T2") else "n/a"
        vs = fmt_ci(((r.get("vs_base") or {}).get("T4") or {}).get("inst_strict")) if r.get("vs_base") else ""
        src = "carried (records)" if (r.get("train") or {}).get("carried") else "measured here"
        lines.append(f"| {r['row']} | {g('T1', 'accuracy')} | {g('T1', 'effectiveness')} | {g('T1', 'avg')} | "
                     f"{g('T2', 'avg')} | {drop} | {g('T4', 'prompt_strict')} | {g('T4', 'inst_strict')} | {vs} | "
                     f"{src} |")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--results", required=True, help="results.json written by livesim hat reproduce")
    ap.add_argument("--doc", required=True, help="markdown file holding the markers")
    ap.add_argument("--marker", required=True, help="NAME of <!-- NAME --> ... <!-- /NAME -->")
    args = ap.parse_args(argv)
    table = excerpt(json.loads(Path(args.results).read_text()))
    doc = Path(args.doc)
    text = doc.read_text()
    start, end = f"<!-- {args.marker} -->", f"<!-- /{args.marker} -->"
    if start not in text or end not in text:
        raise SystemExit(f"error: {args.doc} has no {start} ... {end} markers")
    i, j = text.index(start), text.index(end)
    doc.write_text(text[:i] + start + "\n" + table + "\n" + text[j:])
    print(table)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
