"""How often each grading module is entered while one reply is graded (the grading walk).

A grade that reads in one direction enters each stage once; a module entered many times from another one
(a callback, a helper imported back) is a place where the stages call each other. Grades the gold reply of
`--seeds` requests of every intent with `sys.setprofile` counting calls into `livesim/grading/*` from another file.

    python bench/grading_walk.py              # about 5 s on a laptop CPU
    python bench/grading_walk.py --seeds 10
"""

from __future__ import annotations

import argparse
import collections
import os
import sys
from typing import Any

from livesim.runs.calibration import build_request, grade_text
from livesim.world.phrasing import INTENTS

GRADING = os.sep + os.path.join("livesim", "grading") + os.sep


def _name(path: str) -> str:
    return path.split(GRADING, 1)[1] if GRADING in path else "outside"


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--seeds", type=int, default=3, help="requests per intent (default: 3)")
    args = ap.parse_args(argv)
    entries: collections.Counter[tuple[str, str]] = collections.Counter()

    def prof(frame: Any, event: str, arg: Any) -> None:
        if event != "call" or GRADING not in frame.f_code.co_filename:
            return
        caller = frame.f_back.f_code.co_filename if frame.f_back else ""
        if caller != frame.f_code.co_filename:
            entries[(_name(frame.f_code.co_filename), _name(caller))] += 1

    n = 0
    for intent in INTENTS:
        for seed in range(args.seeds):
            sim = build_request(7000 + seed, intent)
            gold = " ".join(sim.request.truth.say)
            sys.setprofile(prof)
            try:
                grade_text(sim, gold)
            finally:
                sys.setprofile(None)
            n += 1
    into: collections.Counter[str] = collections.Counter()
    for (callee, _), c in entries.items():
        into[callee] += c
    print(f"{n} grades; entries per grade into each module (from another file):")
    for mod, c in into.most_common():
        froms = ", ".join(f"{caller} {v / n:.1f}" for (callee, caller), v in entries.most_common() if callee == mod)
        print(f"  {mod:24s} {c / n:7.1f}   from: {froms}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
