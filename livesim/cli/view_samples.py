"""`livesim view RESULTS`: the stored conversations of suite evaluations (a results folder, its results.json, a
`hat eval --out` file or an evaluation record): rows and suites with their outcome counts, a suite's requests
filtered by intent and outcome, one request's transcript.
"""

from __future__ import annotations

import argparse
import sys
from collections import Counter
from pathlib import Path
from typing import Any

from rich.console import Console
from rich.table import Table
from rich.text import Text

from livesim.hat.samples import OUTCOMES, Stored, open_results, outcomes_of
from livesim.render.samples import plain, sample_markdown
from livesim.stream.paths import PathProblem, shown, write_text

SHOWN_OUTCOMES = ("pass", "answered", "fallback", "parse_error", "acc0", "eff0")


def is_results(path: str) -> bool:
    """Whether `path` is something this view opens (rather than a record of `livesim run`)."""
    p = Path(path)
    if p.is_dir():
        return (p / "results.json").is_file()
    if p.suffix != ".json" or not p.is_file():
        return False
    try:
        open_results(p)
    except (PathProblem, OSError):
        return False  # another JSON file: the record view says what it is
    return True


def _fail(msg: str) -> int:
    print(f"error: {msg}", file=sys.stderr)
    return 2


def _number(sample_id: str) -> int | None:
    tail = sample_id.rsplit("/", 1)[-1]
    return int(tail) if tail.isdigit() else None


def _overview(path: str, stored: list[Stored]) -> Table:
    table = Table(title=f"{shown(path)}: evaluated rows and suites")
    for col in ("row", "suite", "n", "samples", *SHOWN_OUTCOMES):
        table.add_column(col, justify="left" if col in ("row", "suite", "samples") else "right")
    for s in stored:
        rows = (s.result or {}).get("rows") or []
        if s.kind == "qa" and rows:
            counts = Counter(o for r in rows for o in outcomes_of(r))
            cells = [str(counts[o]) for o in SHOWN_OUTCOMES]
        else:
            cells = [""] * len(SHOWN_OUTCOMES)
        table.add_row(Text(s.row), s.suite, str(len(rows)) if rows else "-",
                      Text("yes" if s.samples_file else f"no ({s.why_none})"), *cells)
    return table


def _requests(s: Stored, samples: list[dict[str, Any]]) -> Table:
    table = Table(title=f"{s.row} · {s.suite}: {len(samples)} request(s)")
    qa = s.kind == "qa"
    cols = ("request", "intent", "acc", "eff", "reward", "turns", "parse err", "outcomes", "reply") if qa else (
        "request", "strict", "loose", "instructions", "response")
    for col in cols:
        table.add_column(col, overflow="ellipsis", no_wrap=col not in ("reply", "response"), max_width=70)
    for x in samples:
        n = _number(x["id"])
        if qa:
            reply = "(fallback) " + str(x.get("reply", "")) if x.get("fallback") else str(x.get("reply", ""))
            table.add_row(str(n if n is not None else x["id"]), Text(plain(x.get("intent", ""))),
                          f"{x.get('accuracy', 0):g}", f"{x.get('effectiveness', 0):g}",
                          f"{float(x.get('reward', 0)):.3f}", str(x.get("turns", "")), str(x.get("parse_errors", "")),
                          ", ".join(o for o in outcomes_of(x) if o in SHOWN_OUTCOMES), Text(plain(reply)[:300]))
        else:
            table.add_row(str(n if n is not None else x["id"]), str(bool(x.get("prompt_strict"))),
                          str(bool(x.get("prompt_loose"))), ", ".join(x.get("instruction_ids", [])),
                          Text(plain(x.get("response", ""))[:300]))
    return table


def _emit(text: str, out: str | None) -> int:
    if out:
        try:
            write_text(out, text)
        except PathProblem as e:
            return _fail(str(e))
        print(f"wrote {shown(out)}", file=sys.stderr)
    else:
        sys.stdout.write(text)
    return 0


def _pick(stored: list[Stored], args: argparse.Namespace) -> Stored | str:
    chosen = [s for s in stored if (args.row is None or s.row == args.row)
              and (args.suite is None or s.suite == args.suite)]
    if len(chosen) == 1:
        return chosen[0]
    have = ", ".join(f"--row {s.row!r} --suite {s.suite}" for s in stored[:12])
    if not chosen:
        return f"no row and suite matches (--row {args.row!r} --suite {args.suite}); the file has: {have}"
    return f"{len(chosen)} rows and suites match; name one with --row and --suite (the file has: {have})"


def cmd_view_results(args: argparse.Namespace) -> int:
    """The view of stored suite conversations (see the module docstring)."""
    try:
        stored = open_results(args.file)
    except PathProblem as e:
        return _fail(str(e))
    console = Console(width=None if sys.stdout.isatty() else 200)
    filtered = args.intent is not None or args.outcome is not None or args.request is not None
    if args.row is None and args.suite is None and not filtered:
        console.print(_overview(args.file, stored))
        print(f"a suite's requests: livesim view {args.file} --row ROW --suite SUITE [--outcome "
              f"{'|'.join(OUTCOMES)}] [--intent INTENT]", file=sys.stderr)
        return 0
    picked = _pick(stored, args)
    if isinstance(picked, str):
        return _fail(picked)
    if picked.samples_file is None:
        return _fail(f"{picked.row} · {picked.suite} has no stored conversations ({picked.why_none})")
    try:
        samples = picked.samples()
    except PathProblem as e:
        return _fail(str(e))
    if args.outcome is not None:
        if picked.kind != "qa":
            return _fail(f"--outcome applies to T1-T3 (QA suites), not {picked.suite}")
        samples = [x for x in samples if args.outcome in outcomes_of(x)]
    if args.intent is not None:
        samples = [x for x in samples if args.intent == x.get("intent") or args.intent in (x.get("intents") or [])]
    if args.request is not None:
        one = [x for x in samples if _number(x["id"]) == args.request]
        if not one:
            return _fail(f"--request {args.request}: no such request in {picked.row} · {picked.suite}"
                         + (" after the filters" if args.intent or args.outcome else ""))
        return _emit(sample_markdown(one[0], picked.row, picked.suite), args.out)
    if args.transcript or args.out:
        return _emit("\n".join(sample_markdown(x, picked.row, picked.suite) for x in samples), args.out)
    console.print(_requests(picked, samples))
    print(f"one request's conversation: livesim view {args.file} --row {picked.row!r} --suite {picked.suite} "
          "--request N; all listed: --transcript", file=sys.stderr)
    return 0


def add_results_args(p: argparse.ArgumentParser) -> None:
    """The options of `view` for suite results."""
    p.add_argument("--row", default=None, help="suite results: the row (as the table names it)")
    p.add_argument("--suite", default=None, help="suite results: the suite (T1, T2, ...)")
    p.add_argument("--intent", default=None, help="suite results: only requests of this intent")
    p.add_argument("--outcome", default=None, choices=list(OUTCOMES),
                   help="suite results: only requests with this outcome (" +
                        "; ".join(f"{k}: {v[0]}" for k, v in OUTCOMES.items()) + ")")
