"""`livesim hat collect|sft|distill|rl|train|dev`: Harness-Aware Training from the command line.

Every stage-config field is a flag (generated from the pydantic configs in ``livesim.hat``, with their
descriptions as help); ``train`` takes a preset plus ``--set SECTION.FIELD=VALUE`` overrides. torch, trl and
the rest of the training stack are imported only when a command runs.
"""

from __future__ import annotations

import argparse
import json
import sys
import types
import typing
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from livesim.harness.core import STYLES
from livesim.hat import collect, distill, rl, sft
from livesim.hat.collect import CollectConfig
from livesim.hat.common import pick_threads
from livesim.hat.deveval import (
    ALL_VARIANTS,
    DEV_BATCH_SIZE,
    VARIANTS,
    check_request,
    evaluate_model,
    remove_checkpoints,
)
from livesim.hat.distill import DistillStageConfig
from livesim.hat.rl import RLStageConfig
from livesim.hat.sft import SFTStageConfig
from livesim.hat.train import TrainConfig, train
from livesim.models.zoo import resolve_model
from livesim.stream.paths import check_output_file, shown, write_text


def _one_line_errors(fn: Any) -> Any:
    """Bad input (missing model or data, invalid config) ends in one line naming the problem, not a traceback."""

    def wrapped(args: argparse.Namespace) -> int:
        from livesim.stream.procs import WorkerDied

        try:
            return int(fn(args) or 0)
        except (FileNotFoundError, ValueError, WorkerDied) as e:
            raise SystemExit(f"error: {e}") from None
        except OSError as e:  # a write the disk refused (full, read-only) while saving: one line, nothing published
            where = f"{shown(e.filename)}: " if e.filename else ""
            raise SystemExit(f"error: {where}{e.strerror or e}; the output folder was left as it was") from None

    return wrapped


def _flag(name: str) -> str:
    return "--" + name.replace("_", "-")


def _base_type(annotation: Any) -> Any:
    args = [a for a in typing.get_args(annotation) if a is not type(None)]
    origin = typing.get_origin(annotation)
    if origin in (typing.Union, types.UnionType) and len(args) == 1:
        return args[0]
    return annotation


def _add_model_flags(p: argparse.ArgumentParser, model: Any, skip: tuple[str, ...] = ()) -> None:
    """One flag per field of a pydantic config class (bool: --x/--no-x; dict: JSON; Literal: choices)."""
    for name, field in model.model_fields.items():
        if name in skip:
            continue
        typ = _base_type(field.annotation)
        # the config's default, not argparse's (None: "not set"); "%(default).0s" stops the formatter adding its own
        desc = (field.description or "").replace("%", "%%")
        help_ = f"{desc} (default: {field.default!r})%(default).0s"
        if typ is bool:
            p.add_argument(_flag(name), dest=name, action=argparse.BooleanOptionalAction, default=None, help=help_)
        elif typing.get_origin(typ) is typing.Literal:
            p.add_argument(_flag(name), dest=name, choices=list(typing.get_args(typ)), default=None, help=help_)
        elif typ in (int, float, str):
            p.add_argument(_flag(name), dest=name, type=typ, default=None, help=help_)
        else:
            p.add_argument(_flag(name), dest=name, type=json.loads, default=None, help=help_ + " [JSON]")


def _build(model: Any, args: argparse.Namespace, **extra: Any) -> Any:
    values = {k: getattr(args, k) for k in model.model_fields if getattr(args, k, None) is not None}
    values.update(extra)
    try:
        return model(**values)
    except ValidationError as e:
        err = e.errors()[0]
        raise SystemExit(f"error: {'.'.join(str(x) for x in err['loc'])}: {err['msg']}") from None


def _threads(args: argparse.Namespace) -> None:
    """Torch CPU threads: --threads N, else picked from the free cores (said on stderr, the progress line)."""
    import torch

    if getattr(args, "threads", None):
        torch.set_num_threads(args.threads)
        why = f"{args.threads} thread{'s' if args.threads > 1 else ''} (--threads)"
    else:
        n, why = pick_threads()
        torch.set_num_threads(n)
    if not getattr(args, "quiet", False) and not torch.cuda.is_available():
        print(f"torch CPU: {why}", file=sys.stderr)


def _cmd_collect(args: argparse.Namespace) -> int:
    cfg = _build(CollectConfig, args)
    out = collect.run(cfg, args.out, show_progress=not args.quiet)
    s = collect.stats(out)
    print(json.dumps({"out": str(out), "key": s["key"], "splits": s["splits"], "filter": s["filter"],
                      "tokens": s.get("tokens")}, indent=2))
    return 0


def _cmd_collect_stats(args: argparse.Namespace) -> int:
    import sys

    from livesim.hat import collect_stats

    try:
        records = collect_stats.dataset_records(args.dir)
    except FileNotFoundError as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    out = collect_stats.conversation_stats(records)
    teacher = collect.stats(args.dir).get("teacher") or collect.stats(args.dir)["config"].get("teacher")
    out = {"dir": str(args.dir), "teacher": teacher, **out}
    print(json.dumps(out, indent=2) if args.json else collect_stats.render(out, f"({args.dir}, teacher {teacher})"))
    return 0


def _cmd_sft(args: argparse.Namespace) -> int:
    _threads(args)
    cfg = _build(SFTStageConfig, args)

    stats = sft.run(cfg, resolve_model(args.model), args.data, args.out, show_progress=not args.quiet)
    print(json.dumps({k: v for k, v in stats.items() if k != "history"}, indent=2, default=str))
    return 0


def _cmd_distill(args: argparse.Namespace) -> int:
    _threads(args)
    cfg = _build(DistillStageConfig, args)
    stats = distill.run(cfg, resolve_model(args.student), resolve_model(args.teacher), args.out,
                show_progress=not args.quiet)
    print(json.dumps({k: v for k, v in stats.items() if k != "history"}, indent=2, default=str))
    return 0


def _cmd_rl(args: argparse.Namespace) -> int:
    _threads(args)
    cfg = _build(RLStageConfig, args)
    stats = rl.run(cfg, resolve_model(args.model), args.out, show_progress=not args.quiet)
    print(json.dumps({k: v for k, v in stats.items() if k != "history"}, indent=2, default=str))
    return 0


def _apply_sets(cfg: TrainConfig, sets: list[str]) -> TrainConfig:
    try:
        return cfg.with_sets(sets)
    except ValueError as e:
        raise SystemExit(f"error: {e}") from None


def _cmd_train(args: argparse.Namespace) -> int:
    _threads(args)
    cfg = TrainConfig.from_preset(args.preset, ci=args.ci)
    update: dict[str, Any] = {"show_progress": not args.quiet}
    if args.fixed_harness:
        update["fixed_harness"] = True
    if args.rl_fixed_harness is not None:
        update["rl_fixed_harness"] = args.rl_fixed_harness
    if args.stages:
        update["stages"] = tuple(s.strip() for s in args.stages.split(",") if s.strip())
    if args.out:
        update["out_dir"] = Path(args.out)
    cfg = _apply_sets(cfg.model_copy(update=update), args.set or [])
    try:
        result = train(cfg)
    except ValueError as e:
        raise SystemExit(f"error: {e}") from None
    print(json.dumps({
        "run_dir": str(result.run_dir), "base_model_dir": str(result.base_model_dir),
        "stage_dirs": {k: str(v) for k, v in result.stage_dirs.items()}, "wall_s": result.wall_s,
        "dev_mean_reward": {k: {v: d[v]["mean_reward"] for v in ("canonical", "heldout_hsa") if v in d}
                            for k, d in result.dev.items() if d},
    }, indent=2))
    return 0


def _cmd_dev(args: argparse.Namespace) -> int:
    _threads(args)
    variants = tuple(v.strip() for v in args.variants.split(",") if v.strip())
    check_request(variants, args.requests)  # before a model is loaded
    if args.out:
        check_output_file(args.out, force=True)
    model = resolve_model(args.model)
    try:
        result = evaluate_model(model, n=args.requests, max_new_tokens=args.max_new_tokens,
                                batch_size=args.batch_size, variants=variants, show_progress=not args.quiet,
                                prompt_style=args.prompt_style, checkpoint=args.out)
    except ValueError as e:
        raise SystemExit(f"error: {e}") from None
    result = {"model": str(model), **result}
    if args.out:
        write_text(args.out, json.dumps(result, indent=1, sort_keys=True) + "\n")
        remove_checkpoints(args.out, variants)
    if args.json:
        print(json.dumps({k: ({x: y for x, y in v.items() if x != "rewards"} if k in variants else v)
                          for k, v in result.items()}, sort_keys=True))
        return 0
    from rich.console import Console
    from rich.table import Table

    table = Table(title=f"dev set: {model} ({args.requests} requests per variant, seeds from the test split)")
    table.caption = ("accuracy and effectiveness are raw scores, before the gates: a reply that answers nothing "
                     "needed earns 0 on every term however accurate (docs/grading.md)")
    for col in ("variant", "mean reward [95% CI]", "accuracy", "effectiveness", "pass", "fallback",
                "parse errors/turn", "calls ran/failed", "turns", "wall s"):
        table.add_column(col, justify="left" if col == "variant" else "right")
    for v in variants:
        r = result[v]
        lo, hi = r["mean_ci95"]
        table.add_row(v, f"{r['mean_reward']:.3f} [{lo:.3f}, {hi:.3f}]", f"{r['accuracy']:.3f}",
                      f"{r['effectiveness']:.3f}", f"{r['pass_rate']:.3f}", f"{r['fallback_rate']:.3f}",
                      f"{r['parse_failure_rate']:.2f}", f"{r['calls']['ok']}/{r['calls']['calls'] - r['calls']['ok']}",
                      f"{r['turns_mean']:.2f}", f"{r['wall_s']:.0f}")
    Console(width=150).print(table)
    return 0


def _cmd_probe(args: argparse.Namespace) -> int:
    _threads(args)
    if args.limit is not None and args.limit < 1:
        raise SystemExit(f"error: --limit must be >= 1, got {args.limit}")
    if not Path(args.data).is_dir():
        raise SystemExit(f"error: --data {shown(args.data)}: not a folder (expected a `livesim hat collect` output)")
    if args.out:
        check_output_file(args.out, force=True)
    from livesim.hat.probe import run as probe_run

    result = probe_run(resolve_model(args.model), args.data, split=args.split, limit=args.limit,
                       show_progress=not args.quiet)
    if args.out:
        write_text(args.out, json.dumps(result, indent=1, sort_keys=True) + "\n")
    if args.json:
        print(json.dumps({k: v for k, v in result.items() if k != "rows"}, sort_keys=True))
        return 0
    from rich.console import Console
    from rich.table import Table

    table = Table(title=f"name probe: {result['model']} on {result['conversations']} {args.split} conversations "
                        f"(teacher-forced; {result['skipped_retokenize']} skipped)")
    for col in ("name", "origin", "names", "exact", "token accuracy", "multi-token", "continuation exact",
                "continuation accuracy"):
        table.add_column(col, justify="left" if col in ("name", "origin") else "right")

    def fmt(x: float | None) -> str:
        return "-" if x is None else f"{x:.3f}"

    for kind, by_origin in result["summary"].items():
        for origin, r in by_origin.items():
            table.add_row(kind, origin, str(r["names"]), fmt(r["exact"]), fmt(r["token_accuracy"]),
                          str(r["multi_token"]), fmt(r["continuation_exact"]), fmt(r["continuation_accuracy"]))
    Console(width=150).print(table)
    return 0


def register(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    hat = sub.add_parser("hat", help="Harness-Aware Training: collect, sft, distill, rl, train",
                         description="Harness-Aware Training (docs/training.md).")
    hs = hat.add_subparsers(dest="hat_command", required=True)

    def common(p: argparse.ArgumentParser) -> None:
        p.add_argument("--quiet", action="store_true", help="no progress bars")
        p.add_argument("--threads", type=int, default=None,
                       help="torch CPU threads (default: the free cores, i.e. CPUs less the 1-minute load, at least "
                            "1; 1 is fastest on a busy CPU)")

    p = hs.add_parser("collect", help="teacher trajectories -> HF dataset in TRL's tool format")
    p.add_argument("--out", required=True, help="output folder (DatasetDict, stats.json, README.md)")
    _add_model_flags(p, CollectConfig)
    common(p)
    p.set_defaults(func=_one_line_errors(_cmd_collect))

    p = hs.add_parser("collect-stats", help="can each teacher choice of a collected dataset be learnt from the "
                      "conversation? inferable share, copy targets, forms, tokens")
    p.add_argument("dir", help="a `livesim hat collect` output folder")
    p.add_argument("--json", action="store_true", help="print one JSON object")
    p.set_defaults(func=_one_line_errors(_cmd_collect_stats))

    p = hs.add_parser("sft", help="TRL SFTTrainer, assistant-only loss, on a collected dataset")
    p.add_argument("--model", required=True, help="zoo name or HF model dir")
    p.add_argument("--data", required=True, help="a `livesim hat collect` output folder")
    p.add_argument("--out", required=True, help="output model folder")
    _add_model_flags(p, SFTStageConfig)
    common(p)
    p.set_defaults(func=_one_line_errors(_cmd_sft))

    p = hs.add_parser("distill", help="on-policy distillation toward the base on general prompts")
    p.add_argument("--student", required=True, help="the SFT model (zoo name or HF dir)")
    p.add_argument("--teacher", required=True, help="the pre-SFT base model (zoo name or HF dir)")
    p.add_argument("--out", required=True, help="output model folder")
    _add_model_flags(p, DistillStageConfig)
    common(p)
    p.set_defaults(func=_one_line_errors(_cmd_distill))

    p = hs.add_parser("rl", help="GRPO in LiveStreamQA-v0 with a multi-turn rollout_func")
    p.add_argument("--model", required=True, help="policy to start from (zoo name or HF dir)")
    p.add_argument("--out", required=True, help="output model folder")
    _add_model_flags(p, RLStageConfig)
    common(p)
    p.set_defaults(func=_one_line_errors(_cmd_rl))

    p = hs.add_parser("train", help="all stages into one run dir (cached, resumable)")
    p.add_argument("--preset", required=True, choices=["tiny", "smollm2-135m", "smollm2-135m-gpu"], help="preset")
    p.add_argument("--ci", action="store_true", help="a few steps per stage (tests, smoke runs)")
    p.add_argument("--fixed-harness", action="store_true", help="canonical harness only (the paper's baseline)")
    p.add_argument("--rl-fixed-harness", action=argparse.BooleanOptionalAction, default=None,
                   help="RL on the canonical harness (default: as --fixed-harness)")
    p.add_argument("--stages", default=None, help="comma list from sft,distill,rl (default: all)")
    p.add_argument("--out", default=None, help="run directory (default runs/hat-PRESET-KEY)")
    p.add_argument("--set", action="append", metavar="SECTION.FIELD=VALUE",
                   help="override a config field, e.g. --set sft.steps=50 --set collect.episodes=100")
    common(p)
    p.set_defaults(func=_one_line_errors(_cmd_train))

    p = hs.add_parser("dev", help="a model on the dev set (what train runs after each stage), with 95%% CIs",
                      description="Mean reward of a model on the dev set: LiveStreamQA-v0 test-split requests, on "
                                  "the canonical harness and under held-out HSA, played greedily by the "
                                  "transformers agent (the evaluation `train` runs after each stage).")
    p.add_argument("--model", required=True, help="zoo name or HF model dir (e.g. a stage of the stage cache)")
    p.add_argument("--requests", type=int, default=50, help="requests per variant (default: 50)")
    p.add_argument("--variants", default=",".join(VARIANTS),
                   help=f"comma list from {','.join(ALL_VARIANTS)} (train_hsa: HSA with the train vocabulary, a "
                        f"diagnosis)")
    p.add_argument("--max-new-tokens", type=int, default=128, help="generation cap per turn (default: 128)")
    p.add_argument("--batch-size", type=int, default=DEV_BATCH_SIZE, help="requests generated together")
    p.add_argument("--prompt-style", choices=["full", *STYLES], default="full",
                   help="how the canonical harness's prompt is presented ('compact': the smollm2-135m preset's)")
    p.add_argument("--out", default=None, help="write the result (with every request's reward) to this JSON file; "
                   "meanwhile each finished request goes to OUT.<variant>.jsonl, and the same command run again "
                   "after a kill resumes from there (the files are removed once OUT is written)")
    p.add_argument("--json", action="store_true", help="print one JSON object (no per-request rewards)")
    common(p)
    p.set_defaults(func=_one_line_errors(_cmd_dev))

    p = hs.add_parser("probe", help="does a model copy presented names? teacher-forced name accuracy by origin",
                      description="Teacher-forced accuracy of a model on the names in a collected dataset's tool "
                                  "calls (tool, parameter and skill names), by where each name comes from: the "
                                  "canonical harness, HSA's synonym lists, or generated for that episode alone "
                                  "(those can only be copied from the prompt). See livesim.hat.probe.",
                      epilog="example: livesim hat probe --model ~/.cache/livesim/stages/sft-<key> "
                             "--data ~/.cache/livesim/stages/collect-<key> --limit 40")
    p.add_argument("--model", required=True, help="zoo name or HF model dir")
    p.add_argument("--data", required=True, help="a `livesim hat collect` output folder")
    p.add_argument("--split", default="validation", help="dataset split (default: validation)")
    p.add_argument("--limit", type=int, default=None, help="first N conversations (default: all)")
    p.add_argument("--out", default=None, help="write the result (with one row per name) to this JSON file")
    p.add_argument("--json", action="store_true", help="print one JSON object (no per-name rows)")
    common(p)
    p.set_defaults(func=_one_line_errors(_cmd_probe))


if __name__ == "__main__":  # pragma: no cover
    parser = argparse.ArgumentParser(prog="livesim")
    register(parser.add_subparsers(dest="command", required=True))
    ns = parser.parse_args()
    sys.exit(int(ns.func(ns) or 0))
