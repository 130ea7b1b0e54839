"""Write a results table excerpt into a markdown doc, between `<!-- NAME -->` and `<!-- /NAME -->`.

The excerpt (T1 accuracy/effectiveness/AVG with its pass, answered, fallback and parse-error rates, T2 AVG and
pass rate, the paired T2-T1 drop, T4 prompt/instruction strict and
T4 instruction-strict against base, and where each row comes from) is built from a `results.json` written by
`livesim hat reproduce`, so a table quoted in the docs is generated, not typed:

    python tools/docs_table.py --results results/tiny/results.json --doc docs/results.md --marker tiny-current

With `--dev ROW=FILE ...` instead of `--results`, the table is the dev set's, one row per `livesim hat dev --out`
file (mean reward with its bootstrap 95% interval and the main rates, per variant; `ROW=A.json,B.json` merges the
variants of one model evaluated apart):

    python tools/docs_table.py --dev HSA-SFT=results/tiny/dev50/HSA-SFT.json ... --doc DOC --marker NAME

With `--probe ROW=FILE ...`, the table is the name probe's (`livesim hat probe --out`), one line per model and
kind of name: exact-name rate / continuation accuracy (names) per origin:

    python tools/docs_table.py --probe HSA-SFT=results/tiny/probe/HSA-SFT.json ... --doc DOC --marker NAME
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any

from livesim.hat.report import fmt_ci, fmt_pct, rate, samples_cell
from livesim.stream.paths import write_text


def excerpt(results: dict[str, Any]) -> str:
    lines = ["| row | T1 Acc | T1 Eff | T1 AVG | T1 pass | T1 answered | T1 fallback | T1 parse err | T2 AVG | "
             "T2 pass | T2-T1 AVG [95% CI] | T4 P-strict | T4 I-strict | T4 I-strict vs base [95% CI] | source | "
             "samples |", "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|"]
    for r in results["rows"]:
        if r["status"] != "ok":
            lines.append(f"| {r['row']} | not measured: {r.get('note', '')} |" + " |" * 14)
            continue
        s = r["suites"]

        def g(suite: str, key: str, s: dict[str, Any] = s) -> str:
            return fmt_pct(((s.get(suite) or {}).get("scores") or {}).get(key)) if s.get(suite) else "not measured"

        drop = fmt_ci((r.get("t1_to_t2") or {}).get("avg")) if s.get("T2") else "n/a"
        vs = fmt_ci(((r.get("vs_base") or {}).get("T4") or {}).get("inst_strict")) if r.get("vs_base") else ""
        train = r.get("train") or {}
        src = (f"earlier run (`{train['carried_from']}`)" if train.get("carried_from")
               else "carried (records)" if train.get("carried") else "measured here")
        rates = " | ".join(fmt_pct(rate(r, "T1", k)) for k in ("pass", "answered", "fallback", "parse_error"))
        lines.append(f"| {r['row']} | {g('T1', 'accuracy')} | {g('T1', 'effectiveness')} | {g('T1', 'avg')} | "
                     f"{rates} | {g('T2', 'avg')} | {fmt_pct(rate(r, 'T2', 'pass'))} | {drop} | "
                     f"{g('T4', 'prompt_strict')} | {g('T4', 'inst_strict')} | {vs} | {src} | {samples_cell(r)} |")
    return "\n".join(lines)


def dev_excerpt(rows: list[tuple[str, dict[str, Any]]]) -> str:
    """The dev-set table of `livesim hat dev --out` results, one row each."""
    lines = ["| row | model | canonical mean reward [95% CI] (n) | accuracy / effectiveness / fallback | "
             "held-out HSA mean reward [95% CI] (n) | fallback / parse errors a turn / turns | "
             "held-out tool calls: ran / failed; failed names from canonical / HSA train / HSA held-out / none |",
             "|---|---|---|---|---|---|---|"]

    def mean(v: dict[str, Any] | None, n: int) -> str:
        if not v:
            return "not measured"
        lo, hi = v["mean_ci95"]
        return f"{v['mean_reward']:.3f} [{lo:.3f}, {hi:.3f}] ({len(v.get('rewards') or []) or n})"

    train = any(r.get("train_hsa") for _, r in rows)  # the diagnosis variant: a column only when measured
    if train:
        lines[0] += " HSA train-vocabulary mean reward [95% CI] (n) |"
        lines[1] += "---|"
    for label, r in rows:
        c, h = r.get("canonical"), r.get("heldout_hsa")
        rates_c = f"{c['accuracy']:.2f} / {c['effectiveness']:.2f} / {c['fallback_rate']:.2f}" if c else ""
        rates_h = f"{h['fallback_rate']:.2f} / {h['parse_failure_rate']:.2f} / {h['turns_mean']:.1f}" if h else ""
        calls = (h or {}).get("calls")
        audit = ("" if not h else "not recorded" if not calls else
                 f"{calls['ok']} / {calls['calls'] - calls['ok']}; "
                 + " / ".join(str(calls["unpresented"][k]) for k in ("canonical", "hsa_train", "hsa_heldout", "other")))
        lines.append(f"| {label} | `{Path(r['model']).name}` | {mean(c, r['n'])} | {rates_c} | {mean(h, r['n'])} | "
                     f"{rates_h} | {audit} |" + (f" {mean(r.get('train_hsa'), r['n'])} |" if train else ""))
    return "\n".join(lines)


def probe_excerpt(rows: list[tuple[str, dict[str, Any]]]) -> str:
    """The name probe's table of `livesim hat probe --out` results: per model and kind of name, per origin."""
    origins = ("canonical", "synonym", "generated")
    lines = ["| row | model | conversations | name | " + " | ".join(
        f"{o}: exact / continuation accuracy (names)" for o in origins) + " |", "|---|---|---|---|---|---|---|"]

    def cell(r: dict[str, Any] | None) -> str:
        if not r:
            return "-"
        cont = r.get("continuation_accuracy")
        return f"{r['exact']:.3f} / {'-' if cont is None else f'{cont:.3f}'} ({r['names']})"

    for label, r in rows:
        for kind in ("tool", "param", "skill"):
            by = r["summary"].get(kind, {})
            lines.append(f"| {label} | `{Path(r['model']).name}` | {r['conversations']} | {kind} | "
                         + " | ".join(cell(by.get(o)) for o in origins) + " |")
    return "\n".join(lines)


def _load(path: str, key: str) -> dict[str, Any]:
    """A JSON object from `path` that has `key`, or a one-line error naming the file."""
    try:
        data = json.loads(Path(path).read_text())
    except (OSError, ValueError) as e:
        raise SystemExit(f"error: {path}: not a readable JSON file ({e})") from None
    if not isinstance(data, dict) or key not in data:
        raise SystemExit(f"error: {path}: no {key!r} in it (not the output this table is built from)")
    return data


def _labelled(items: list[str], flag: str, key: str, merge: bool) -> list[tuple[str, dict[str, Any]]]:
    """`ROW=FILE` arguments -> (row, JSON object); with `merge`, `ROW=A,B` merges the objects of A and B."""
    rows = []
    for item in items:
        label, _, path = item.partition("=")
        if not label or not path:
            raise SystemExit(f"error: {flag} expects ROW=FILE, got {item!r}")
        merged: dict[str, Any] = {}
        for part in path.split(",") if merge else [path]:
            merged.update(_load(part, key))
        rows.append((label, merged))
    return rows


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    src = ap.add_mutually_exclusive_group(required=True)
    src.add_argument("--results", help="results.json written by livesim hat reproduce")
    src.add_argument("--dev", nargs="+", metavar="ROW=FILE[,FILE]",
                     help="`livesim hat dev --out` files, one row each (comma: variants evaluated apart)")
    src.add_argument("--probe", nargs="+", metavar="ROW=FILE", help="`livesim hat probe --out` files, one row each")
    ap.add_argument("--doc", required=True, help="markdown file holding the markers")
    ap.add_argument("--marker", required=True, help="NAME of <!-- NAME --> ... <!-- /NAME -->")
    args = ap.parse_args(argv)
    doc = Path(args.doc)
    if not doc.is_file():
        raise SystemExit(f"error: --doc {args.doc}: no such file")
    if args.dev:  # ROW=A.json,B.json: the variants of one model evaluated apart (e.g. one core each), merged
        table = dev_excerpt(_labelled(args.dev, "--dev", "model", merge=True))
    elif args.probe:
        table = probe_excerpt(_labelled(args.probe, "--probe", "summary", merge=False))
    else:
        table = excerpt(_load(args.results, "rows"))
    text = doc.read_text()
    start, end = f"<!-- {args.marker} -->", f"<!-- /{args.marker} -->"
    if start not in text or end not in text:
        raise SystemExit(f"error: {args.doc} has no {start} ... {end} markers")
    i, j = text.index(start), text.index(end)
    write_text(doc, text[:i] + start + "\n" + table + "\n" + text[j:], flag="doc")
    print(table)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
