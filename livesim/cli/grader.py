"""`livesim grader ...`: measure the grader against the labelled calibration set, and run the gaming probes.

    livesim grader calibrate [--split dev|test|all] [--judge openai:BASE_URL:MODEL [--second-opinion]] [--json]
    livesim grader probes [--requests 200] [--json]
    livesim grader stress [--seeds 50] [--family base|fresh] [--intent NAME ...] [--markdown | --json]
    livesim grader attack [--budget 20000] [--intent NAME ...] [--seed 0] [--requests 8] [--workers 1]
                          [--markdown | --json]

Listed in `livesim.cli.main.COMMANDS`.
"""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any

from livesim.runs.calibration import calibrate, load_items, rule_judge
from livesim.runs.judge import SecondOpinion, make_judge
from livesim.runs.probes import run_probes
from livesim.runs.stress import markdown, run_stress


def _fail(msg: str) -> int:
    print(f"error: {msg}", file=sys.stderr)
    return 2


def _judge(spec: str | None, second_opinion: bool = False) -> Any:
    if not spec:
        if second_opinion:
            raise ValueError("--second-opinion needs --judge openai:BASE_URL:MODEL")
        return rule_judge
    return SecondOpinion(make_judge(spec)) if second_opinion else make_judge(spec)


def cmd_calibrate(args: argparse.Namespace) -> int:
    try:
        items = load_items(args.set, None if args.split == "all" else args.split)
        judge = _judge(args.judge, args.second_opinion)
    except (OSError, ValueError) as e:
        return _fail(str(e))
    res = calibrate(items, judge)
    res["split"] = args.split
    res["judge"] = (f"rules + {args.judge} where unsure" if args.second_opinion else args.judge) or "rules"
    if isinstance(judge, SecondOpinion):
        res["consulted"], res["overruled"] = judge.consulted, judge.overruled
    if args.json:
        print(json.dumps(res, indent=1, ensure_ascii=False))
        return 0
    print(f"grader: {res['judge']}   split: {args.split}   replies: {res['n']}")
    print(f"accuracy agreement:      {res['accuracy_agreement']:.1%}")
    print(f"effectiveness agreement: {res['effectiveness_agreement']:.1%} (exact)")
    print(f"inaccurate replies caught: {res.get('inaccurate_caught', 0):.1%}")
    if "consulted" in res:
        print(f"second opinion: consulted on {res['consulted']} replies, changed {res['overruled']} verdicts")
    print(f"\n{'kind':20s} {'n':>3s} {'acc':>6s} {'eff':>6s}  accuracy confusion | effectiveness confusion")
    for kind, k in res["kinds"].items():
        ac = ", ".join(f"{a}: {b}" for a, b in sorted(k["accuracy_confusion"].items()))
        ec = ", ".join(f"{a}: {b}" for a, b in sorted(k["effectiveness_confusion"].items()))
        print(f"{kind:20s} {k['n']:3d} {k['accuracy_agree'] / k['n']:6.0%} {k['effectiveness_agree'] / k['n']:6.0%}"
              f"  {ac} | {ec}")
    print(f"\ndisagreements ({len(res['disagreements'])}):")
    for d in res["disagreements"]:
        print(f"  {d['id']:26s} {d['kind']:18s} label acc {d['label'][0]:g} eff {d['label'][1]:g}"
              f"  grader acc {d['grader'][0]:g} eff {d['grader'][1]:g}  {d['reply']!r}  ({d['reason']})")
    return 0


def cmd_probes(args: argparse.Namespace) -> int:
    if args.requests < 1:
        return _fail(f"--requests must be >= 1, got {args.requests}")
    res = run_probes(args.requests)
    if args.json:
        print(json.dumps(res, indent=1))
        return 0
    print(f"{'policy':14s} {'reward':>7s} {'accuracy':>9s} {'effect.':>8s}   ({args.requests} requests)")
    for name, r in res.items():
        print(f"{name:14s} {r['reward']:7.3f} {r['accuracy']:9.3f} {r['effectiveness']:8.3f}")
    return 0


def cmd_stress(args: argparse.Namespace) -> int:
    if args.seeds < 1:
        return _fail(f"--seeds must be >= 1, got {args.seeds}")
    try:
        res = run_stress(args.seeds, args.seed0, args.intent, examples=args.examples, family=args.family)
    except ValueError as e:
        return _fail(str(e))
    if args.json:
        print(json.dumps(res, indent=1, ensure_ascii=False))
        return 0
    print(markdown(res))
    if not args.markdown and res["failures"]:
        print("\nexamples of failures:")
        for cls, items in sorted(res["failures"].items()):
            for it in items:
                print(f"  {cls:28s} {it['intent']:16s} {it['reward']:.3f}  {it['reply']!r}")
    return 0


def cmd_attack(args: argparse.Namespace) -> int:
    from livesim.runs.attack import markdown as attack_markdown
    from livesim.runs.attack import run_attack

    try:
        res = run_attack(args.budget, args.intent, args.seed, args.requests, args.workers, progress=True)
    except ValueError as e:
        return _fail(str(e))
    print(json.dumps(res, indent=1, ensure_ascii=False) if args.json else attack_markdown(res))
    return 0


def register(sub: Any) -> None:
    p = sub.add_parser("grader", help="measure the grader: calibration agreement and gaming probes")
    gsub = p.add_subparsers(dest="grader_cmd", required=True)
    c = gsub.add_parser("calibrate", help="agreement of the grader with the labelled calibration set")
    c.add_argument("--split", choices=("dev", "test", "all"), default="test")
    c.add_argument("--set", default=None, help="a calibration JSONL file (default: the bundled set)")
    c.add_argument("--judge", default=None, metavar="openai:BASE_URL:MODEL",
                   help="measure an LLM judge instead of the rule grader")
    c.add_argument("--second-opinion", action="store_true",
                   help="with --judge: the rule grader, with the LLM's verdict where the rules are unsure")
    c.add_argument("--json", action="store_true")
    c.set_defaults(func=cmd_calibrate)
    q = gsub.add_parser("probes", help="mean reward of the reward-hacking probes (and oracle/null)")
    q.add_argument("--requests", type=int, default=200)
    q.add_argument("--json", action="store_true")
    q.set_defaults(func=cmd_probes)
    s = gsub.add_parser("stress", help="metamorphic stress bench: labelled mutations and rewrites of gold replies")
    s.add_argument("--seeds", type=int, default=50, help="requests per intent (seeds seed0..seed0+seeds-1)")
    s.add_argument("--seed0", type=int, default=0)
    s.add_argument("--intent", action="append", default=None, help="only this intent (repeatable)")
    s.add_argument("--family", choices=("base", "fresh"), default="base",
                   help="base: the bench's wordings; fresh: a held-out family written after the rules were tuned")
    s.add_argument("--examples", type=int, default=3, help="failures kept per class")
    s.add_argument("--markdown", action="store_true", help="only the tables (as in docs/grading.md)")
    s.add_argument("--json", action="store_true")
    s.set_defaults(func=cmd_stress)
    a = gsub.add_parser("attack", help="attack bench: a black-box search for wrong replies the reward pays and "
                                       "right ones it zeroes")
    a.add_argument("--budget", type=int, default=20_000,
                   help="env queries per intent: half search wrong replies, half right ones (default: %(default)s)")
    a.add_argument("--intent", action="append", default=None, help="only this intent (repeatable; default: all)")
    a.add_argument("--seed", type=int, default=0, help="seeds the requests and the search (default: %(default)s)")
    a.add_argument("--requests", type=int, default=8,
                   help="requests per intent the search composes replies for (default: %(default)s)")
    a.add_argument("--workers", type=int, default=1,
                   help="processes; intents are spread over them (default: %(default)s)")
    a.add_argument("--markdown", action="store_true", help="only the table (the default output)")
    a.add_argument("--json", action="store_true")
    a.set_defaults(func=cmd_attack)
