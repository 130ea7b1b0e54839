"""Run the malformed-file corpora through the CLI and measure: status, one-line errors, tracebacks, clobbered
files, records created, and the time each refusal takes.

    .venv/bin/python bench/corpora.py            # a table of the slowest refusals and the totals
    .venv/bin/python bench/corpora.py --json

Every scenario in tests/corpora/scenarios goes through `livesim run --scenario FILE --record OUT` and
`livesim scenarios --check FILE`; every record in tests/corpora/records through `replay`, `regrade` and
`view --no-live`. Commands run in this process (`livesim.cli.main`) after one warm-up command of each kind,
so the times are those of the refusal, without interpreter start-up and the CLI's first lazy imports
(`warm_up_seconds`; a fresh `livesim` process adds about a second or two of both).
"""

from __future__ import annotations

import argparse
import contextlib
import hashlib
import io
import json
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from livesim.cli import main as cli

CORPORA = Path(__file__).resolve().parent.parent / "tests" / "corpora"


def _run(argv: list[str]) -> tuple[int, str, float]:
    err = io.StringIO()
    t0 = time.perf_counter()
    with contextlib.redirect_stderr(err), contextlib.redirect_stdout(io.StringIO()):
        try:
            code = cli(argv)
        except SystemExit as e:  # argparse or a command that exits
            code = e.code if isinstance(e.code, int) else 1
        except Exception as e:  # a traceback: exactly what must not happen
            code = -1
            err.write(f"Traceback (in-process): {type(e).__name__}: {e}\n")
    return code, err.getvalue(), time.perf_counter() - t0


def run() -> dict[str, Any]:
    rows: list[dict[str, Any]] = []
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "out.jsonl"
        jobs: list[tuple[Path, list[str]]] = []
        for f in sorted((CORPORA / "scenarios").iterdir()):
            jobs += [(f, ["run", "--scenario", str(f), "--record", str(out), "--json"]),
                     (f, ["scenarios", "--check", str(f)])]
        for f in sorted((CORPORA / "records").iterdir()):
            jobs += [(f, ["replay", str(f)]), (f, ["regrade", str(f)]), (f, ["view", str(f), "--no-live"])]
        first = (CORPORA / "scenarios" / "empty.yaml")
        warm = _run(["run", "--scenario", str(first), "--json"])[2]  # pays the CLI's lazy imports once
        warm += _run(["replay", str(CORPORA / "records" / "empty.jsonl")])[2]
        for f, argv in jobs:
            before = hashlib.sha256(f.read_bytes()).hexdigest()
            code, err, took = _run(argv)
            lines = [x for x in err.splitlines() if x.strip()]
            rows.append({"file": f"{f.parent.name}/{f.name}", "command": argv[0], "status": code,
                         "seconds": took, "traceback": "Traceback" in err,
                         "one_line": argv[0] == "scenarios" or (len(lines) == 1 and lines[0].startswith("error: ")
                                                                and f.name in lines[0]),
                         "clobbered": hashlib.sha256(f.read_bytes()).hexdigest() != before,
                         "record_created": out.exists()})
            out.unlink(missing_ok=True)
    return {"warm_up_seconds": round(warm, 3), "scenarios": len(list((CORPORA / "scenarios").iterdir())),
            "records": len(list((CORPORA / "records").iterdir())), "commands": len(rows),
            "status_2": sum(r["status"] == 2 for r in rows), "tracebacks": sum(r["traceback"] for r in rows),
            "not_one_line": sum(not r["one_line"] for r in rows), "clobbered": sum(r["clobbered"] for r in rows),
            "records_created": sum(r["record_created"] for r in rows),
            "max_seconds": round(max(r["seconds"] for r in rows), 4),
            "over_1s": sum(r["seconds"] >= 1.0 for r in rows),
            "slowest": sorted(rows, key=lambda r: -r["seconds"])[:5],
            "not_status_2": [r for r in rows if r["status"] != 2]}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--json", action="store_true", help="print one JSON object")
    args = ap.parse_args(argv)
    res = run()
    if args.json:
        print(json.dumps(res, sort_keys=True))
    else:
        for k, v in res.items():
            if k not in ("slowest", "not_status_2"):
                print(f"{k:16s} {v}")
        print("slowest:")
        for r in res["slowest"]:
            print(f"  {r['seconds'] * 1000:8.1f} ms  {r['command']:9s} {r['file']}")
        for r in res["not_status_2"]:
            print(f"  NOT STATUS 2: {r}")
    bad = res["tracebacks"] + res["not_one_line"] + res["clobbered"] + res["records_created"] + len(res["not_status_2"])
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
