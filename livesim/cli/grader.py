"""`livesim grader ...`: measure the grader against the labelled calibration set, and run the gaming probes.

    livesim grader calibrate [--split dev|test|all] [--judge openai:BASE_URL:MODEL [--second-opinion]] [--json]
    livesim grader probes [--requests 200] [--json]
    livesim grader stress [--seeds 50] [--family base|fresh] [--intent NAME ...] [--markdown | --json]
    livesim grader attack [--budget 20000] [--intent NAME ...] [--seed 0] [--requests 8] [--workers 1] [--run-ons]
                          [--markdown | --json]

Listed in `livesim.cli.main.COMMANDS`.
"""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any

from livesim.runs.calibration import calibrate, load_items, rule_judge
from livesim.runs.judge import LLMJudge, SecondOpinion, make_judge
from livesim.runs.probes import run_probes
from livesim.runs.stress import markdown, run_stress


def _fail(msg: str) -> int:
    print(f"error: {msg}", file=sys.stderr)
    return 2


def _judge(spec: str | None, second_opinion: bool = False, timeout: float | None = None) -> Any:
    if not spec:
        if second_opinion:
            raise ValueError("--second-opinion needs --judge openai:BASE_URL:MODEL")
        return rule_judge
    if timeout is not None and timeout <= 0:
        raise ValueError(f"--judge-timeout must be > 0, got {timeout:g}")
    llm = make_judge(spec, **({"timeout": timeout} if timeout else {}))
    llm.check_server()  # a judge that cannot answer is one line before the first reply, not a report of zeros
    return SecondOpinion(llm) if second_opinion else llm


def _judge_lines(res: dict[str, Any]) -> list[str]:
    """What the LLM judge's calls came to (`grader calibrate` with --judge)."""
    j = res["judge_calls"]
    out = [f"judge calls: {j['calls']}, verdicts {j['verdicts']}, failed calls {j['failed_calls']}, unusable "
           f"answers {j['unusable_answers']} (HTTP requests {j['http_requests']}, retries {j['retries']}, "
           f"timeouts {j['timeouts']})"]
    if j["first_error"]:
        out.append(f"first failed call: {j['first_error']}")
    return out


def cmd_calibrate(args: argparse.Namespace) -> int:
    try:
        items = load_items(args.set, None if args.split == "all" else args.split)
        judge = _judge(args.judge, args.second_opinion, args.judge_timeout)
    except (OSError, ValueError) as e:
        return _fail(str(e))
    res = calibrate(items, judge)
    res["split"] = args.split
    res["judge"] = (f"rules + {args.judge} where unsure" if args.second_opinion else args.judge) or "rules"
    llm = judge.llm if isinstance(judge, SecondOpinion) else judge
    code, problem = 0, None
    if isinstance(llm, LLMJudge):
        res["judge_calls"] = llm.accounting()
        if llm.calls and llm.failures * 2 > llm.calls:  # most verdicts missing: the figures measure nothing
            code, problem = 1, (f"error: the judge gave no verdict on {llm.failures} of {llm.calls} replies"
                                + (f"; first failed call: {res['judge_calls']['first_error']}"
                                   if res["judge_calls"]["first_error"] else ""))
    if isinstance(judge, SecondOpinion):
        res["consulted"], res["overruled"] = judge.consulted, judge.overruled
        res["no_verdict_kept_rules"] = judge.no_verdict
    if problem:
        print(problem, file=sys.stderr)
    if args.json:
        print(json.dumps(res, indent=1, ensure_ascii=False))
        return code
    print(f"grader: {res['judge']}   split: {args.split}   replies: {res['n']}"
          + (f" (+{res['no_verdict']} without a verdict, left out)" if res.get("no_verdict") else ""))
    print(f"accuracy agreement:      {res['accuracy_agreement']:.1%}")
    print(f"effectiveness agreement: {res['effectiveness_agreement']:.1%} (exact)")
    print(f"inaccurate replies caught: {res.get('inaccurate_caught', 0):.1%}")
    if "consulted" in res:
        print(f"second opinion: consulted on {res['consulted']} replies, no verdict on {judge.no_verdict} "
              f"(the rules' verdict kept), changed {res['overruled']} verdicts")
    if "judge_calls" in res:
        print("\n".join(_judge_lines(res)))
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
    return code


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
    if not 0 <= args.seed0 <= 2**63 - args.seeds:  # every seed seed0..seed0+seeds-1 is an env seed
        return _fail(f"--seed0 must be between 0 and 2**63 - --seeds ({2**63 - args.seeds}), got {args.seed0}")
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
        res = run_attack(args.budget, args.intent, args.seed, args.requests, args.workers, progress=True,
                         run_ons=args.run_ons)
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
    c.add_argument("--judge-timeout", type=float, default=None, metavar="SECONDS",
                   help="with --judge: seconds one request may take, from sending it to the last byte (default 60)")
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
    a.add_argument("--run-ons", action="store_true",
                   help="also join fragments with no mark between (statements run together; see docs/grading.md)")
    a.add_argument("--markdown", action="store_true", help="only the table (the default output)")
    a.add_argument("--json", action="store_true")
    a.set_defaults(func=cmd_attack)
