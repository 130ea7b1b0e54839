"""`livesim hat eval|reproduce|ab|edit`: the evaluation suites, the paper's table, the A/B and harness-edit tests.

These attach to a shared `livesim hat` subcommand group (`hat_subparsers`), which the training commands
(`livesim hat collect|sft|distill|rl|train`) join too: whichever module registers first creates the group.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any

from rich.console import Console
from rich.table import Table

from livesim.agents import AGENT_REGISTRY
from livesim.cli.common import agent_kwargs, parse_seeds
from livesim.cli.common import progress as progress_bar
from livesim.harness.core import STYLES
from livesim.hat.ab import render_ab, run_ab
from livesim.hat.evaluate import AgentSpec, evaluate, suite_drops
from livesim.hat.harness_edit import load_patches, render_edits, run_harness_edit
from livesim.hat.reproduce import TrainingUnavailableError, reproduce, result_name
from livesim.hat.samples import SUFFIX, TRANSIENT, result_samples, without_transient, write_samples
from livesim.hat.suites import SuiteChangedError, get_suite, parse_suites
from livesim.models.extras import require_training, training_missing
from livesim.runs.compare import AgentSpec as Parsed
from livesim.stream.paths import PathProblem, check_output_file, copy_tree, write_text


def hat_subparsers(sub: Any) -> Any:
    """The `livesim hat` group's subparsers action, created on first use."""
    parser = sub.choices.get("hat")
    if parser is None:
        parser = sub.add_parser("hat", help="Harness-Aware Training: train, evaluate, reproduce the paper's table")
        parser.set_defaults(func=lambda args: parser.print_help() or 2)
        action = parser.add_subparsers(dest="hat_command", metavar="{eval,reproduce,ab,edit,...}")
        parser._livesim_hat_sub = action  # type: ignore[attr-defined]
        return action
    action = getattr(parser, "_livesim_hat_sub", None)
    if action is None:
        action = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    return action


def parse_agent(text: str, max_new_tokens: int | None = None, batch_size: int | None = None) -> AgentSpec:
    """`NAME[:key=value,...]` for a registry agent or a `module:Class` of one's own; anything else is a model
    (zoo name or directory).
    """
    parsed = Parsed.parse(text)
    kwargs = dict(parsed.kwargs)
    if parsed.name in AGENT_REGISTRY and parsed.name != "transformers":
        return AgentSpec(parsed.name, kwargs)
    if ":" in parsed.name and not Path(text).exists():
        return AgentSpec(parsed.name, kwargs)
    model = kwargs.pop("model", None) or text
    if max_new_tokens:
        kwargs.setdefault("max_new_tokens", max_new_tokens)
    if batch_size:
        kwargs.setdefault("batch_size", batch_size)
    return AgentSpec.for_model(model, **kwargs)


def _spec(args: argparse.Namespace) -> AgentSpec:
    kwargs = agent_kwargs(args)
    model = kwargs.pop("model", None)
    if model is not None and args.agent in (None, "transformers"):
        kwargs.setdefault("max_new_tokens", args.max_new_tokens)
        kwargs.setdefault("batch_size", args.batch_size)
        return AgentSpec.for_model(model, **kwargs)
    if args.agent is None:
        raise SystemExit("error: give --agent NAME or --model PATH_OR_NAME")
    if args.agent not in AGENT_REGISTRY and ":" not in args.agent:
        raise SystemExit(f"error: unknown agent {args.agent!r}; choose from {', '.join(sorted(AGENT_REGISTRY))} "
                         "or give module:Class")
    if model is not None:
        kwargs["model"] = model
    return AgentSpec(args.agent, kwargs)


def cmd_eval(args: argparse.Namespace) -> int:
    try:
        suites = parse_suites(args.suite)
        total = sum(len(get_suite(s).head(args.limit)) for s in suites)
        if args.out:
            check_output_file(args.out, force=True)
    except (ValueError, SuiteChangedError) as e:
        raise SystemExit(f"error: {training_missing(e) or e}") from None
    spec = _spec(args)
    progress = progress_bar(args, total)
    try:
        result = evaluate(spec, suites, args.limit, args.batch_size, args.ifeval_data, not args.no_cache, progress,
                          prompt_style=args.prompt_style, samples=not args.no_samples)
    except (FileNotFoundError, ImportError, ValueError, SuiteChangedError) as e:
        progress(None)
        raise SystemExit(f"error: {training_missing(e) or e}") from None
    progress(None)
    if args.out:
        try:  # whole or not at all: a full disk leaves the old file and says so in one line
            write_eval_out(args.out, result)
        except PathProblem as e:
            raise SystemExit(f"error: {e}") from None
    if args.json:
        slim = {**result, "suites": {k: {x: y for x, y in v.items() if x not in ("rows", *TRANSIENT)}
                                     for k, v in result["suites"].items()}}
        print(json.dumps(slim, sort_keys=True))
    else:
        _print_eval(result)
    return 0


def write_eval_out(out: str, result: dict[str, Any]) -> None:
    """`--out FILE`: the result as JSON (each suite's `samples_at` names its file) and each suite's conversations
    beside it, `FILE.<suite>.samples.jsonl.gz`.
    """
    suites = {}
    for name, r in result["suites"].items():
        entry = without_transient(r)
        found = result_samples(r)
        if found is not None:
            kept = Path(out).with_name(f"{Path(out).name.removesuffix('.json')}.{name}{SUFFIX}")
            write_samples(kept, found, flag="--out")
            entry["samples_at"] = kept.name
        suites[name] = entry
    write_text(out, json.dumps({**result, "suites": suites}, indent=1, sort_keys=True) + "\n")


def _print_eval(result: dict[str, Any]) -> None:
    console = Console(width=max(Console().width, 150))
    table = Table(title=f"{result['agent']}: suites (percent; latency in s)")
    for col in ("suite", "n", "Acc", "Eff", "AVG", "pass", "answered", "reward", "P-strict", "I-strict", "P-loose",
                "I-loose", "sim P50/P95", "gen P50/P95"):
        table.add_column(col, justify="right" if col != "suite" else "left")
    pct = lambda s, k: "-" if s is None or s.get(k) is None else f"{s[k] * 100:.1f}"  # noqa: E731
    for r in result["suites"].values():
        s = r["scores"]
        if s is None:
            table.add_row(f"{r['key']}", "0", *["n/a"] * 12)
            continue
        lat = s.get("latency", {})
        rates = s.get("outcomes") or {}
        table.add_row(r["key"], str(r["n"]), pct(s, "accuracy"), pct(s, "effectiveness"),
                      pct(s, "avg"), pct(rates, "pass"), pct(rates, "answered"), pct(s, "reward"),
                      pct(s, "prompt_strict"), pct(s, "inst_strict"),
                      pct(s, "prompt_loose"), pct(s, "inst_loose"),
                      f"{lat.get('sim_p50', 0):.2f}/{lat.get('sim_p95', 0):.2f}" if "sim_p50" in lat else "-",
                      f"{lat.get('gen_p50', 0):.2f}/{lat.get('gen_p95', 0):.2f}")
        for sub, b in (s.get("by_subset") or {}).items():
            table.add_row(f"  {sub}", str(b["n"]), pct(b, "accuracy"), pct(b, "effectiveness"), pct(b, "avg"),
                          "", "", pct(b, "reward"), *[""] * 6)
    console.print(table)
    for name, d in suite_drops(result).items():
        drop = d.get("avg")
        if drop:
            console.print(f"{name} - T1 AVG: {drop['mean'] * 100:+.1f} points, 95% CI [{drop['ci95'][0] * 100:+.1f}, "
                          f"{drop['ci95'][1] * 100:+.1f}] over {drop['n']} paired requests")


COMMITTED_RESULTS = Path("results")
RUN_RESULTS = Path("runs") / "reproduce"


def reproduce_root(args: argparse.Namespace) -> Path:
    """Where `hat reproduce` writes: the committed results/ only with --update-results (never with --ci);
    otherwise --out or runs/reproduce/, seeded with a copy of the committed results of the preset (so cached
    evaluations and --cached-only find them) the first time.
    """
    committed = COMMITTED_RESULTS.resolve()
    if args.update_results:
        if args.ci:
            raise SystemExit("error: --ci never writes into results/; drop --update-results (CI output goes to "
                             f"{RUN_RESULTS}/ or --out DIR)")
        if args.out and Path(args.out).resolve() != committed:
            raise SystemExit("error: --update-results writes the committed results/; drop --out")
        return COMMITTED_RESULTS
    root = Path(args.out) if args.out else RUN_RESULTS
    if root.resolve() == committed and committed.is_dir():  # an existing results/ here; a new folder is any output
        raise SystemExit("error: --out results would change the committed results; pass --update-results for that")
    name = result_name(args.preset, args.ci, args.untrained)
    source, target = COMMITTED_RESULTS / name, root / name
    if source.is_dir() and not target.exists():
        copy_tree(source, target, kind="reproduction results", flag="--out")  # links kept: run folders link to
        # stage caches that may be absent
    return root


def cmd_reproduce(args: argparse.Namespace) -> int:
    rows = [r.strip() for r in args.rows.split(",")] if args.rows else None
    if args.eval_workers < 1:  # before anything is copied or written
        raise SystemExit(f"error: --eval-workers must be >= 1, got {args.eval_workers}")
    if not (args.untrained or args.cached_only):
        require_training()  # a missing training stack: one line before anything is logged or written
    root = reproduce_root(args)
    try:
        written = reproduce(args.preset, ci=args.ci, rows=rows, out_root=root, ifeval_data=args.ifeval_data,
                            ab=not args.no_ab, harness_edit=not args.no_harness_edit, untrained=args.untrained,
                            limit=args.limit, cached_only=args.cached_only,
                            suites=parse_suites(args.suites) if args.suites else None, sets=args.set or (),
                            eval_workers=args.eval_workers, quiet=args.quiet, samples=not args.no_samples)
    except (TrainingUnavailableError, ValueError, FileNotFoundError) as e:
        raise SystemExit(f"error: {training_missing(e) or e}") from None
    for kind, path in written.items():
        print(f"{kind}\t{path}")
    return 0


def cmd_ab(args: argparse.Namespace) -> int:
    a = parse_agent(args.a, args.max_new_tokens, args.batch_size)
    b = parse_agent(args.b, args.max_new_tokens, args.batch_size)
    if args.records is not None and Path(args.records).exists() and not Path(args.records).is_dir():
        raise SystemExit(f"error: --records {args.records} is not a folder")  # checked before hours of streams
    try:
        result = run_ab(a, b, parse_seeds(args.seeds), trials=args.trials, duration_s=args.duration,
                        prompt_style=args.prompt_style, records=args.records)
    except (ValueError, FileNotFoundError, ImportError) as e:
        raise SystemExit(f"error: {training_missing(e) or e}") from None
    assert result is not None  # None only with cached_only
    print(json.dumps(result, sort_keys=True) if args.json else render_ab(result))
    return 0


def cmd_edit(args: argparse.Namespace) -> int:
    try:
        patches = load_patches(args.patches)
        found = [run_harness_edit(parse_agent(a, args.max_new_tokens, args.batch_size), args.limit, patches,
                                  args.batch_size, prompt_style=args.prompt_style) for a in args.agent]
    except (ValueError, FileNotFoundError, ImportError) as e:
        raise SystemExit(f"error: {training_missing(e) or e}") from None
    out = [e for e in found if e is not None]  # None only with cached_only
    print(json.dumps(out, sort_keys=True) if args.json else render_edits(out))
    return 0


def register(sub: Any) -> None:
    hat = hat_subparsers(sub)
    p = hat.add_parser("eval", help="evaluate an agent or model on the suites T1-T4")
    p.add_argument("--agent", default=None,
                   help=f"registry agent ({', '.join(AGENT_REGISTRY)}) or module:Class / path/to/file.py:Class "
                        "(default: the transformers agent when --model is given)")
    p.add_argument("--model", default=None, help="a model for the transformers agent: tiny, smollm2-135m or a path")
    p.add_argument("--agent-arg", action="append", metavar="KEY=VALUE", help="extra agent argument (JSON value)")
    p.add_argument("--suite", default="T1,T2,T3,T4", help="comma-separated suites (default: T1,T2,T3,T4); also "
                   "T2-stress, T2-skill_ids, T2-skill_content, T2-tools, T2-prompt, T2-hooks, and the groups T2-dims "
                   "(the five one-dimension suites) and all")
    p.add_argument("--limit", type=int, default=None, help="first N requests of each suite (default: all)")
    p.add_argument("--batch-size", type=int, default=8, help="requests per generate call (LLM agents)")
    p.add_argument("--max-new-tokens", type=int, default=160, help="generation cap per turn (models)")
    p.add_argument("--prompt-style", choices=["full", *STYLES], default="full",
                   help="how the canonical harness's prompt is presented in T1-T3 ('full': as the harness says; "
                        "'compact' is what the smollm2-135m preset trains and evaluates on)")
    p.add_argument("--ifeval-data", default=None, help="the real IFEval JSONL for T4 instead of the suite's prompts")
    p.add_argument("--no-cache", action="store_true", help="evaluate even if a cached result exists")
    p.add_argument("--out", default=None, help="write the full result (every request's row) to this JSON file, "
                   "and each suite's conversations beside it (FILE.<suite>.samples.jsonl.gz)")
    p.add_argument("--no-samples", action="store_true",
                   help="keep no conversations (only to save disk: `livesim view` and `hat regrade` need them)")
    p.add_argument("--json", action="store_true", help="print one JSON object (scores, no rows) on stdout")
    p.add_argument("--quiet", action="store_true", help="no progress bar")
    p.set_defaults(func=cmd_eval)

    p = hat.add_parser("reproduce", help="train and evaluate the paper's rows; write runs/reproduce/<preset>/ "
                                        "(results/<preset>/ with --update-results)")
    p.add_argument("--preset", required=True, choices=["tiny", "smollm2-135m", "smollm2-135m-gpu"])
    p.add_argument("--ci", action="store_true", help="CI-sized: a few steps per stage, a handful of requests")
    p.add_argument("--rows", default=None, help="comma-separated rows (default: all): base, fixed-SFT, HSA-SFT, "
                                                "fixed-SFT+distill, HSA-SFT+distill, HAT, fixed-RL, oracle")
    p.add_argument("--out", default=None, help=f"output root (default: {RUN_RESULTS}; a first run there starts from "
                                               "a copy of the committed results/<preset>/)")
    p.add_argument("--update-results", action="store_true",
                   help="write the committed results/<preset>/ (table, charts, evaluation records) instead")
    p.add_argument("--ifeval-data", default=None, help="the real IFEval JSONL for T4")
    p.add_argument("--untrained", action="store_true",
                   help="only rows that need no training: oracle, memorizer, null, random, the zoo model")
    p.add_argument("--limit", type=int, default=None, help="requests per suite (default: the preset's)")
    p.add_argument("--no-ab", action="store_true", help="skip the A/B stream test")
    p.add_argument("--no-harness-edit", action="store_true", help="skip the harness-edit test")
    p.add_argument("--cached-only", action="store_true",
                   help="train and evaluate nothing: write the table from the stages and evaluations already "
                        "cached (the rest marked not measured), e.g. while a long run goes on")
    p.add_argument("--suites", default=None, help="comma-separated suites instead of the preset's (e.g. T1,T2,T4; "
                   "the groups T2-dims and all too)")
    p.add_argument("--set", action="append", metavar="SECTION.FIELD=VALUE",
                   help="override a field of every training run's config, as `hat train --set` (e.g. --set "
                        "sft.epochs=1 --set collect.episodes=2400); overridden stages are cached under their own keys")
    p.add_argument("--eval-workers", type=int, default=1, metavar="N",
                   help="evaluate up to N suites of a row at a time, each in its own process with its own copy of "
                        "the model (for a GPU that one process leaves idle; slower on a small CPU; default 1)")
    p.add_argument("--quiet", action="store_true", help="no progress bars (the one-line [reproduce] messages stay)")
    p.add_argument("--no-samples", action="store_true",
                   help="keep no conversations beside the evaluation records (only to save disk)")
    p.set_defaults(func=cmd_reproduce)

    p = hat.add_parser("ab", help="online A/B analogue: LiveStream-v0 hosted by A vs B, mid-stream harness patch")
    p.add_argument("--a", required=True, help="baseline: registry agent NAME[:k=v,...], module:Class or "
                   "path/to/file.py:Class, or a model (name or path)")
    p.add_argument("--b", required=True, help="treatment: as --a")
    p.add_argument("--seeds", default="0-9", help="world seeds, e.g. 0-9")
    p.add_argument("--trials", type=int, default=1)
    p.add_argument("--duration", type=float, default=120.0, help="stream length in simulated seconds")
    p.add_argument("--max-new-tokens", type=int, default=160)
    p.add_argument("--batch-size", type=int, default=8)
    p.add_argument("--prompt-style", choices=["full", *STYLES], default="full",
                   help="how the canonical harness's prompt is presented ('compact': as the smollm2-135m preset "
                        "trains and evaluates)")
    p.add_argument("--records", default=None,
                   help="folder of A/B records: reuse the result for the same models and settings, save a new one")
    p.add_argument("--json", action="store_true")
    p.set_defaults(func=cmd_ab)

    p = hat.add_parser("edit", help="harness-edit test: operator patches with weights frozen, error reduction on T1")
    p.add_argument("--agent", action="append", required=True,
                   help="registry agent NAME[:k=v,...], module:Class or path/to/file.py:Class, or a model (name "
                        "or path); repeatable")
    p.add_argument("--patches", default=None, help="YAML list of patches (default: the built-in EDITS_V1)")
    p.add_argument("--limit", type=int, default=64, help="first N requests of T1")
    p.add_argument("--max-new-tokens", type=int, default=160)
    p.add_argument("--batch-size", type=int, default=8)
    p.add_argument("--prompt-style", choices=["full", *STYLES], default="full",
                   help="how the canonical harness's prompt is presented ('compact': as the smollm2-135m preset "
                        "trains and evaluates)")
    p.add_argument("--json", action="store_true")
    p.set_defaults(func=cmd_edit)
