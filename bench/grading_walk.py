"""How often each grading stage is entered while one reply is graded (the grading walk).

Grading is one pipeline: `terms.grade` builds the request's closed world (`world`), reads the reply (`reading`, which
runs `normalise`, the speech acts of `acts` and the extractor of `facts/extract` once), then asks which required facts
it states (`answers`) and why it is inaccurate (`accuracy`, which runs the checks `closed`, `properties`, `topics` and
`act_checks` once each). A grade that reads in one direction enters each stage once; a stage entered many times from
another one (a callback, a helper imported back) is a place where the stages call each other.

Calls from another grading file are counted in three kinds:
  stage entries   a module-level function or class of a stage, called from another file (the number that matters);
  queries         methods of the typed representation (`Reading`, `World`) read by a later stage: data access,
                  like a field (the sentence or subject at a position, the truth of an attribute);
  text helpers    pure functions of a string shared by every stage (`facts/prefilter.py`: literal prefilters of the
                  regular expressions; `facts/patterns.py`: the negation window; `cues.py`: word stems, whole-word
                  patterns).

    python bench/grading_walk.py              # about 5 s on a laptop CPU
    python bench/grading_walk.py --seeds 10
"""

from __future__ import annotations

import argparse
import collections
import os
import sys
from typing import Any

GRADING = os.sep + os.path.join("livesim", "grading") + os.sep
HELPERS = frozenset({"facts/prefilter.py", "facts/patterns.py", "cues.py"})
REPRESENTATION = ("Reading.", "World.", "Num.")
BUILDERS = frozenset({"World.__init__", "World.of_request"})  # building the world is its stage


def _name(path: str) -> str:
    return path.split(GRADING, 1)[1].replace(os.sep, "/") if GRADING in path else "outside"


def walk(items: list[tuple[Any, str]]) -> dict[str, collections.Counter[tuple[str, str]]]:
    """Grade each (sim, reply) with a profiler on; per kind, (module entered, calling module) -> calls."""
    from livesim.runs.calibration import grade_text

    kinds: dict[str, collections.Counter[tuple[str, str]]] = {
        k: collections.Counter() for k in ("stage", "query", "helper")}

    def prof(frame: Any, event: str, arg: Any) -> None:
        if event != "call" or GRADING not in frame.f_code.co_filename:
            return
        caller = frame.f_back.f_code.co_filename if frame.f_back else ""
        if caller == frame.f_code.co_filename:
            return
        callee = _name(frame.f_code.co_filename)
        qual = frame.f_code.co_qualname
        kind = ("helper" if callee in HELPERS
                else "query" if qual.startswith(REPRESENTATION) and qual not in BUILDERS else "stage")
        kinds[kind][(callee, _name(caller))] += 1

    for sim, reply in items:
        sys.setprofile(prof)
        try:
            grade_text(sim, reply)
        finally:
            sys.setprofile(None)
    return kinds


def gold_items(seeds: int) -> list[tuple[Any, str]]:
    """The gold reply of `seeds` requests of every intent."""
    from livesim.runs.calibration import build_request
    from livesim.world.phrasing import INTENTS

    out = []
    for intent in INTENTS:
        for seed in range(seeds):
            sim = build_request(7000 + seed, intent)
            out.append((sim, " ".join(sim.request.truth.say)))
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--seeds", type=int, default=3, help="requests per intent (default: 3)")
    args = ap.parse_args(argv)
    items = gold_items(args.seeds)
    n = len(items)
    kinds = walk(items)
    titles = {"stage": "stage entries per grade (from another file)",
              "query": "queries on the reading and the world per grade",
              "helper": "text helper calls per grade"}
    for kind, entries in kinds.items():
        into: collections.Counter[str] = collections.Counter()
        for (callee, _), c in entries.items():
            into[callee] += c
        print(f"{n} grades; {titles[kind]}:")
        for mod, c in into.most_common():
            froms = ", ".join(f"{caller} {v / n:.1f}" for (callee, caller), v in entries.most_common()
                              if callee == mod)
            print(f"  {mod:24s} {c / n:7.1f}   from: {froms}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
