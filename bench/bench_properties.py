"""Product-property replies against the grader: how many wrong ones are paid and how many right ones are not.

Replies are built from each request's truth (the product record) on `LiveStreamQA-v0` requests: the gold reply
plus one sentence that states a property the record holds (right), a lexicon property it lacks, denies one it
holds, claims every variant is in stock when one is not, names a courier, an invented dispatch speed, region
delay or usage duration (wrong). Labels come from how the sentence was built, never from the grader.

    python bench/bench_properties.py                      # this tree
    python bench/bench_properties.py --ref /tmp/before    # also the checkout at PATH, same replies
    python bench/bench_properties.py --cost               # the stage's own grading cost per request
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
from collections import Counter
from pathlib import Path
from typing import Any

_TREE_ENV = "LIVESIM_BENCH_TREE"
if os.environ.get(_TREE_ENV):
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    from bench_env import _import_tree  # the same finder bench_env uses for --ref

    _import_tree(os.environ[_TREE_ENV])

INVENTED = ("waterproof", "vegan", "certified organic", "BPA-free", "hypoallergenic", "cruelty-free", "non-GMO",
            "dermatologist tested", "tumble dry safe", "microwave safe", "noise cancelling", "made in Japan",
            "wrinkle-free", "sugar-free", "fair trade", "FDA approved", "dishwasher safe", "compatible with Linux")
SERVICE = ("We ship it with SF Express.", "It ships the same day.", "Express shipping on this one!",
           "One bottle lasts about 3 months.", "It's enough for 30 uses.", "Orders to Shanghai take 2 extra days.")


def _record(p: Any) -> str:
    return json.dumps([p.attributes, [s.variant for s in p.skus], p.tags, p.short_name]).lower().replace("-", " ")


def cases(seeds: range) -> list[tuple[str, int, str, bool]]:
    """(intent, seed, sentence, right) built from the truth of each request."""
    from livesim.runs.calibration import build_request

    out = []
    for seed in seeds:
        sim = build_request(seed, "spec_material")
        if sim.request.truth.intents != ["spec_material"]:
            continue
        p = sim.catalog.by_link(sim.request.truth.targets[0])
        rec, a = _record(p), p.attributes
        for i, x in enumerate(INVENTED[seed % 6::6]):
            words = x.lower().replace("-", " ").replace("compatible with ", "")
            if words not in rec:
                out.append(("spec_material", seed, ("It's {x}.", "Link {n} is {x} too!", "Also {x}!")[i % 3].format(
                    x=x, n=p.link), False))
        held = list(a.get("ingredients", [])) + [x for x in a.get("allergens", []) if x != "none"]
        held += [str(a["material"]).split("% ")[-1]] if "material" in a else []
        for x in held[:2]:
            out += [("spec_material", seed, f"It contains {x}.", True),
                    ("spec_material", seed, f"It's {x}-free.", False)]
        if "care" in a:
            out.append(("spec_material", seed, f"Care: {a['care']}.", True))
        all_in = all(s.stock > 0 for s in p.skus)
        out.append(("spec_material", seed, "Every option is in stock!", all_in))
        out.append(("spec_material", seed, SERVICE[seed % len(SERVICE)], False))
    return out


def run(seeds: range) -> dict[str, Any]:
    from livesim.runs.calibration import build_request, grade_text

    counts: Counter[str] = Counter()
    sims: dict[int, Any] = {}
    for intent, seed, sent, right in cases(seeds):
        sim = sims.setdefault(seed, build_request(seed, intent))
        g = grade_text(sim, " ".join(sim.request.truth.say) + " " + sent)
        kind = "right" if right else "wrong"
        counts[kind] += 1
        counts[f"{kind}_bad"] += int(g.reward < 0.9 if right else g.reward >= 0.5)
    return {"right": counts["right"], "right_below_0.9": counts["right_bad"], "wrong": counts["wrong"],
            "wrong_paid_0.5": counts["wrong_bad"]}


def stage_cost(n: int = 240, repeats: int = 5) -> dict[str, float]:
    """Thread CPU ms per request of grading the gold replies of `n` requests (every intent in turn), with the
    property stage and with it stubbed out, interleaved, best of `repeats`."""
    import time

    import livesim.grading.accuracy as accuracy
    from livesim.runs.calibration import build_request, grade_text
    from livesim.world.intents import BUILDERS

    intents = list(BUILDERS)
    items = [(sim, " ".join(sim.request.truth.say))
             for sim in (build_request(1000 + i, intents[i % len(intents)]) for i in range(n))]
    stage, best = accuracy.property_errors, {True: float("inf"), False: float("inf")}
    try:
        for _ in range(repeats):
            for on in (False, True):
                accuracy.property_errors = stage if on else (lambda *a, **k: [])  # type: ignore[assignment]
                t = time.thread_time()
                for sim, reply in items:
                    grade_text(sim, reply)
                best[on] = min(best[on], (time.thread_time() - t) / len(items) * 1000)
    finally:
        accuracy.property_errors = stage
    return {"grade_ms": best[True], "without_stage_ms": best[False], "stage_ms": best[True] - best[False]}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seeds", type=int, default=200)
    ap.add_argument("--ref", metavar="PATH", help="also grade the same replies with the checkout at PATH")
    ap.add_argument("--cost", action="store_true", help="instead: the property stage's CPU ms per request")
    args = ap.parse_args()
    if args.cost:
        print(json.dumps({k: round(v, 3) for k, v in stage_cost().items()}))
        return 0
    if args.seeds < 1:
        print(f"error: --seeds must be >= 1, got {args.seeds}", file=sys.stderr)
        return 2
    if args.ref and not (Path(args.ref) / "livesim" / "__init__.py").exists():
        print(f"error: --ref {args.ref}: no livesim/__init__.py there", file=sys.stderr)
        return 2
    print(f"this tree: {json.dumps(run(range(args.seeds)))}")
    if args.ref:
        env = {**os.environ, _TREE_ENV: args.ref}
        out = subprocess.run([sys.executable, __file__, "--seeds", str(args.seeds)], env=env, capture_output=True,
                             text=True, check=False)
        print(out.stdout.replace("this tree", f"ref {args.ref}").strip() or out.stderr.strip())
    return 0


if __name__ == "__main__":
    sys.exit(main())
