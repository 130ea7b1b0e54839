"""`livesim hat reproduce`: train the paper's rows through the training pipeline, evaluate them, write results.

Two separable halves:

- **What each row is** (`ROWS`, `RUNS`, `plan`): a row is either a stage of a training run (`run`, `stage`) or
  a registry agent (the oracle, the reader). Three runs cover the seven trained rows, sharing their cached prefixes:
  `fixed` (canonical-harness SFT -> distill), `hsa` (HSA-SFT -> distill -> HSA-RL = HAT), `hsa-rl-fixed`
  (HSA-SFT -> distill -> RL on the canonical harness: the fixed-harness RL ablation). `base` is the pre-SFT
  model of the `hsa` run.
- **Evaluation and writing** (`evaluate_rows`, `livesim.hat.report.write_results`): any list of
  (row name, `AgentSpec`) evaluates and writes `results/<preset>/` the same way, trained or not.

Training goes through `livesim.hat.train` (issue 10), imported only when a trained row is asked for. Stage
outputs are cached by the pipeline and evaluation results by `livesim.hat.evaluate`, so a rerun only evaluates
what is missing (and trains nothing).

**Evaluation records.** Every suite result a table uses is also written to `results/<preset>/evals/<cache key>.json`
(per-request rows, a few KB each; the key holds the model's digest), and `results.json` names each row's stage
key, model digest and record keys. A later run reads the records as a second cache, so retrained weights that
come out identical are not evaluated again; and with `--cached-only`, a trained row whose stage is not on the
machine is read from the records of the previous `results.json` when its stage key is the one the pipeline
would build now (same config, same data), marked as such in the table. Stage outputs (hundreds of MB) stay out
of the repository; the records are what lets a table outlive the machine that measured it.
"""

from __future__ import annotations

import importlib
import json
import sys
import time
from collections.abc import Collection, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from livesim.hat.ab import render_ab, run_ab
from livesim.hat.evaluate import AgentSpec, evaluate, model_fingerprint
from livesim.hat.harness_edit import render_edits, run_harness_edit
from livesim.hat.report import DIMENSION_SUITES, RowResult, write_results
from livesim.hat.samples import result_samples, samples_path, without_transient, write_samples
from livesim.models.extras import training_missing
from livesim.stream.paths import MAX_PROMPT_FILE_BYTES, read_text, write_text


@dataclass(frozen=True)
class Row:
    name: str
    run: str | None = None  # a training run in RUNS ...
    stage: str | None = None  # ... and its stage: "base", "sft", "distill" or "rl"
    agent: str | None = None  # or a registry agent


ROWS: tuple[Row, ...] = (
    Row("base", run="hsa", stage="base"),
    Row("fixed-SFT", run="fixed", stage="sft"),
    Row("HSA-SFT", run="hsa", stage="sft"),
    Row("fixed-SFT+distill", run="fixed", stage="distill"),
    Row("HSA-SFT+distill", run="hsa", stage="distill"),
    Row("HAT", run="hsa", stage="rl"),
    Row("fixed-RL", run="hsa-rl-fixed", stage="rl"),
    Row("oracle", agent="oracle"),
    Row("reader", agent="reader"),
)
ROW_NAMES = tuple(r.name for r in ROWS)

RUNS: dict[str, dict[str, Any]] = {
    "fixed": {"fixed_harness": True, "stages": ("sft", "distill"), "rl_fixed_harness": None},
    "hsa": {"fixed_harness": False, "stages": ("sft", "distill", "rl"), "rl_fixed_harness": None},
    "hsa-rl-fixed": {"fixed_harness": False, "stages": ("sft", "distill", "rl"), "rl_fixed_harness": True},
}


@dataclass(frozen=True)
class EvalPreset:
    suites: tuple[str, ...]
    limit: int | None
    max_new_tokens: int
    batch_size: int
    ab_seeds: int
    ab_duration_s: float
    edit_limit: int
    # how the canonical harness's prompt is presented in the QA suites (the one the preset trained on)
    prompt_style: str = "full"


EVAL_PRESETS: dict[str, EvalPreset] = {
    "tiny": EvalPreset(("T1", "T2", "T2-stress", *DIMENSION_SUITES, "T3", "T4"), 64, 96, 8, 4, 120.0, 64),
    # SmolLM2 on one CPU core, compact canonical prompt (~1,100 tokens; the markdown one is ~2,800): ~25-30 s per
    # T1/T2 request, so 16 per suite
    "smollm2-135m": EvalPreset(("T1", "T2", "T2-stress", "T4"), 16, 128, 8, 4, 120.0, 16, prompt_style="compact"),
    # one GPU: 128 requests per suite, generated together (a 135M model's KV cache for 128 x ~2,500 tokens: ~7 GB)
    "smollm2-135m-gpu": EvalPreset(("T1", "T2", "T2-stress", *DIMENSION_SUITES, "T3", "T4"), 128, 128, 128, 8,
                                   120.0, 64, prompt_style="compact"),
}
CI_PRESET = EvalPreset(("T1", "T2", "T2-stress", "T3", "T4"), 4, 24, 4, 1, 30.0, 4)
# --ci of a preset whose model is slow on a CPU: fewer requests, in the preset's own prompt style
CI_PRESETS: dict[str, EvalPreset] = {
    "smollm2-135m-gpu": EvalPreset(("T1", "T2", "T2-stress", "T3", "T4"), 2, 16, 2, 1, 30.0, 2,
                                   prompt_style="compact"),
}


class TrainingUnavailableError(RuntimeError):
    """The training pipeline (livesim.hat.train and the training extras) cannot be imported."""


def _train_api() -> Any:
    try:  # imported here on purpose: the pipeline needs the train extra (torch, trl), heavy to import
        train = importlib.import_module("livesim.hat.train")
    except ImportError as e:
        raise TrainingUnavailableError(training_missing(e) or f"the training pipeline cannot be imported ({e}); "
                                       "evaluate the untrained rows with --untrained") from None
    for name in ("TrainConfig", "train"):
        if not hasattr(train, name):
            raise TrainingUnavailableError(f"livesim.hat.train has no {name}")
    return train


def plan(rows: list[str] | None = None) -> list[Row]:
    """The rows asked for, in table order; unknown names are a one-line error."""
    names = rows or list(ROW_NAMES)
    bad = [n for n in names if n not in ROW_NAMES]
    if bad:
        raise ValueError(f"unknown row {bad[0]!r}; choose from {', '.join(ROW_NAMES)}")
    return [r for r in ROWS if r.name in names]


def _run_config(api: Any, preset: str, run: str, ci: bool, sets: Sequence[str] = ()) -> Any:
    """The preset's `TrainConfig` for one of `RUNS` (every stage of the run), with the `--set` overrides."""
    return api.TrainConfig.from_preset(preset, ci=ci).with_sets(list(sets)).model_copy(update=RUNS[run])


def train_runs(preset: str, rows: list[Row], ci: bool, out_dir: Path, log: Any = print,
               cached_only: bool = False, sets: Sequence[str] = (), show_progress: bool = True) -> dict[str, Any]:
    """Run (or fetch from the stage cache) every training run the rows need; run name -> TrainResult.
    `cached_only`: each run only as deep as its stages are already in the cache (nothing is trained);
    `show_progress=False`: no progress bars (`--quiet`).
    """
    needed = sorted({r.run for r in rows if r.run})
    if not needed:
        return {}
    api = _train_api()
    results = {}
    for run in needed:
        # only as far as the deepest stage a chosen row needs: `--rows base,HSA-SFT` trains no distill or RL
        all_stages = RUNS[run]["stages"]
        depth = max((all_stages.index(r.stage) + 1 for r in rows if r.run == run and r.stage in all_stages), default=0)
        stages = all_stages[:depth]
        cfg = _run_config(api, preset, run, ci, sets).model_copy(update={"stages": stages,
                                                                          "out_dir": out_dir / "runs" / run,
                                                                          "show_progress": show_progress})
        if cached_only:
            where = api.plan(cfg)
            if not (where["collect"] / "data").is_dir():
                log(f"[reproduce] run {run!r}: not in the stage cache (--cached-only)")
                continue
            while stages and not api.stage_ready(where[stages[-1]]):
                stages = stages[:-1]
            cfg = cfg.model_copy(update={"stages": stages})
        log(f"[reproduce] training run {run!r} ({', '.join(stages) or 'base and collect only'})")
        t0 = time.perf_counter()
        results[run] = api.train(cfg)
        log(f"[reproduce] run {run!r} ready in {time.perf_counter() - t0:.0f} s")
    return results


def row_specs(rows: list[Row], runs: dict[str, Any],
              ev: EvalPreset) -> list[tuple[Row, AgentSpec | None, dict[str, Any]]]:
    """Each row's agent spec and training info (model dir, run dir, wall time per stage)."""
    out: list[tuple[Row, AgentSpec | None, dict[str, Any]]] = []
    for r in rows:
        if r.agent or r.run is None:
            out.append((r, AgentSpec(r.agent or "null", {}, label=r.name), {}))
            continue
        res = runs.get(r.run)
        if res is None or (r.stage != "base" and r.stage not in res.stage_dirs):  # --cached-only: not trained
            out.append((r, None, {}))
            continue
        model_dir = res.base_model_dir if r.stage == "base" else res.stage_dirs[r.stage]
        train = {"run": r.run, "stage": r.stage, "model_dir": str(model_dir), "run_dir": str(res.run_dir),
                 "wall_s": _chain_wall(res, r.stage), "stage_key": Path(model_dir).name,
                 "fingerprint": model_fingerprint(str(model_dir))}
        out.append((r, AgentSpec.for_model(model_dir, label=r.name, max_new_tokens=ev.max_new_tokens,
                                           batch_size=ev.batch_size), train))
    return out


_CHAIN = ("sft", "distill", "rl")


def _chain_wall(res: Any, stage: str | None) -> dict[str, float]:
    """Training seconds of each stage in the row's chain, as measured when the stage was trained (its stats'
    `wall_s`; a stage served from the cache in this run keeps the time it took when it was built).
    """
    if stage not in _CHAIN:
        return {}
    out = {}
    for st in _CHAIN[:_CHAIN.index(stage) + 1]:
        stats = (getattr(res, "stats", None) or {}).get(st) or {}
        w = stats.get("wall_s", res.wall_s.get(st))
        if w is not None:
            out[st] = float(w)
    return out


def planned_stage_keys(preset: str, rows: list[Row], ci: bool, sets: Sequence[str] = ()) -> dict[str, str]:
    """Row name -> the name of the stage directory (its content key) the pipeline would build for the row now."""
    needed = sorted({r.run for r in rows if r.run})
    if not needed:
        return {}
    api = _train_api()
    where = {run: api.plan(_run_config(api, preset, run, ci, sets)) for run in needed}
    return {r.name: Path(where[r.run][r.stage]).name for r in rows if r.run}


def carried_rows(previous: Path, records: Path, planned: dict[str, str]) -> dict[str, RowResult]:
    """Rows of an earlier `results.json` whose stage key is the one planned now, with every suite whose evaluation
    record is in `records` (the rows of a stage that is not on this machine; see the module docstring).
    """
    if not previous.is_file():
        return {}
    out = {}
    for row in json.loads(read_text(previous, MAX_PROMPT_FILE_BYTES)).get("rows", []):
        train = row.get("train") or {}
        name = row.get("row")
        if row.get("status") != "ok" or not train.get("stage_key") or planned.get(name) != train["stage_key"]:
            continue
        suites = {}
        for suite, summary in (row.get("suites") or {}).items():
            key = (summary or {}).get("cache_key")
            if key and (records / f"{key}.json").is_file():
                found = json.loads(read_text(records / f"{key}.json", MAX_PROMPT_FILE_BYTES))
                kept = samples_path(records / f"{key}.json")  # its conversations, where the record has them
                suites[suite] = {**found, "cache_key": key, **({"samples_file": str(kept)} if kept.is_file() else {})}
        if suites:
            out[name] = RowResult(name, {"agent": row.get("agent", name), "suites": suites},
                                  note=f"read from the evaluation records of stage {train['stage_key']}",
                                  train={**train, "carried": True})
    return out


def save_records(rows: list[RowResult], records: Path) -> int:
    """Write each suite result the rows use to `records/<cache key>.json` (once); returns how many were new."""
    new = 0
    for r in rows:
        for result in ((r.result or {}).get("suites") or {}).values():
            key = (result or {}).get("cache_key")
            if key:
                new += _write_record(key, result, records)
    return new


def _write_record(key: str, result: dict[str, Any], records: Path) -> bool:
    """`records/<key>.json` holds `result` (without its `cache_key`), unless it is there already; its samples
    (in memory or beside the cache file it was read from) go beside it as `<key>.samples.jsonl.gz`, unless there.
    """
    path = records / f"{key}.json"
    kept = samples_path(path)
    if not kept.exists():
        found = result_samples(result)
        if found is not None:
            write_samples(kept, found, flag="--records")
    if path.exists():
        return False
    write_text(path, json.dumps(without_transient(result), sort_keys=True) + "\n", flag="--records")
    return True


def evaluate_rows(specs: Sequence[tuple[str, AgentSpec | None, dict[str, Any]]], ev: EvalPreset,
                  ifeval_data: str | Path | None = None, log: Any = print,
                  cached_only: bool = False, records: Path | None = None,
                  carried: dict[str, RowResult] | None = None, workers: int = 1, samples: bool = True
                  ) -> list[RowResult]:
    """Evaluate each row (`records`: committed results read as a second cache); a row with no spec (its stage is
    not in the stage cache) is taken from `carried` when it is there, else marked not measured.
    """
    out = []
    for name, spec, train in specs:
        if spec is None:
            if carried and name in carried:
                log(f"[reproduce] {name}: {carried[name].note}")
                out.append(carried[name])
                continue
            out.append(RowResult(name, None, "not measured", "its stage is not in the stage cache", train))
            continue
        t0 = time.perf_counter()
        try:
            result = evaluate(spec, list(ev.suites), ev.limit, ev.batch_size, ifeval_data, prompt_style=ev.prompt_style,
                              cached_only=cached_only, records=records, workers=workers, samples=samples)
        except (OSError, ValueError, RuntimeError) as e:  # one broken row is reported, not fatal
            log(f"[reproduce] {name}: evaluation failed: {e}")
            out.append(RowResult(name, None, "error", str(e).splitlines()[0][:200], train))
            continue
        if cached_only and not result["suites"]:
            log(f"[reproduce] {name}: nothing cached (--cached-only)")
            out.append(RowResult(name, None, "not measured", "no suite in the evaluation cache", train))
            continue
        missing = f"; not measured: {', '.join(result['not_measured'])}" if result.get("not_measured") else ""
        log(f"[reproduce] {name}: evaluated in {time.perf_counter() - t0:.0f} s{missing}")
        out.append(RowResult(name, result, train=train))
    return out


UNTRAINED_AGENTS = ("oracle", "reader", "memorizer", "null", "random")


def untrained_specs(preset: str, ev: EvalPreset) -> list[tuple[str, AgentSpec, dict[str, Any]]]:
    """Rows that need no training: the scripted agents and the preset's zoo model as it comes."""
    specs: list[tuple[str, AgentSpec, dict[str, Any]]] = [(name, AgentSpec(name, {}, label=name), {})
                                                           for name in UNTRAINED_AGENTS]
    specs.append((f"zoo:{preset} (untrained)", AgentSpec.for_model(preset, label=f"zoo:{preset} (untrained)",
                                                                    max_new_tokens=ev.max_new_tokens,
                                                                    batch_size=ev.batch_size), {}))
    return specs


def result_name(preset: str, ci: bool = False, untrained: bool = False) -> str:
    """The folder of a preset's results under an output root: `tiny`, `tiny-ci`, `tiny-untrained`."""
    return preset + ("-untrained" if untrained else "") + ("-ci" if ci else "")


def reproduce(preset: str, ci: bool = False, rows: list[str] | None = None, out_root: str | Path = "results",
              ifeval_data: str | Path | None = None, ab: bool = True, harness_edit: bool = True,
              log: Any = None, untrained: bool = False, limit: int | None = None,
              cached_only: bool = False, suites: Sequence[str] | None = None,
              sets: Sequence[str] = (), eval_workers: int = 1, quiet: bool = False,
              samples: bool = True) -> dict[str, Path]:
    """Train what is missing, evaluate every row, run the A/B and harness-edit tests; write results/<preset>/.

    `untrained=True` evaluates only rows that need no training (oracle, memorizer, null, random and the
    preset's zoo model) into results/<preset>-untrained/; `limit` overrides the preset's requests per suite.
    `cached_only=True` trains nothing and evaluates nothing: the table holds the stages and evaluations already
    cached (a row or suite that is not is marked not measured), e.g. to write the table while a run goes on.
    `suites` replaces the preset's suites; `sets` are `SECTION.FIELD=VALUE` overrides of every run's `TrainConfig`
    (`TrainConfig.with_sets`: they change the stage keys, so overridden stages are cached apart from the preset's).
    `eval_workers`: suites of a row evaluated that many at a time, in processes (`evaluate(workers=)`).
    `quiet`: no progress bars (the one-line `[reproduce]` messages stay).
    `samples=False` (`--no-samples`): keep no conversations beside the evaluation records.
    """
    if eval_workers < 1:
        raise ValueError(f"--eval-workers must be >= 1, got {eval_workers}")
    log = log or (lambda msg: print(msg, file=sys.stderr))
    if preset not in EVAL_PRESETS:
        raise ValueError(f"unknown preset {preset!r}; choose from {', '.join(EVAL_PRESETS)}")
    ev = CI_PRESETS.get(preset, CI_PRESET) if ci else EVAL_PRESETS[preset]
    if limit is not None:
        if limit < 1:
            raise ValueError(f"--limit must be >= 1, got {limit}")
        ev = EvalPreset(**{**ev.__dict__, "limit": limit, "edit_limit": limit})
    if suites is not None:
        if not suites:
            raise ValueError("--suites names no suite")
        ev = EvalPreset(**{**ev.__dict__, "suites": tuple(suites)})
    if sets and untrained:
        raise ValueError("--set changes training runs; --untrained trains nothing")
    out_dir = Path(out_root) / result_name(preset, ci, untrained)
    records = out_dir / "evals"
    command = (f"livesim hat reproduce --preset {preset}" + (" --untrained" if untrained else "")
               + (" --ci" if ci else "") + (f" --limit {limit}" if limit else "")
               + (f" --rows {','.join(rows)}" if rows else "") + ("" if ab else " --no-ab")
               + ("" if harness_edit else " --no-harness-edit") + (" --cached-only" if cached_only else "")
               + (f" --suites {','.join(suites)}" if suites is not None else "")
               + "".join(f" --set {s}" for s in sets) + ("" if samples else " --no-samples"))
    if untrained:
        specs_u = untrained_specs(preset, ev)
        if rows is not None:  # a subset of the untrained rows (e.g. the scripted ones, without the zoo model)
            names = [n for n, _, _ in specs_u]
            unknown = [r for r in rows if r not in names]
            if unknown:
                raise ValueError(f"--rows {unknown[0]!r}: with --untrained the rows are {', '.join(names)}")
            specs_u = [s for s in specs_u if s[0] in rows]
        results = evaluate_rows(specs_u, ev, ifeval_data, log, records=records, workers=eval_workers,
                                samples=samples)
        save_records(results, records)
        by = {name: s for name, s, _ in specs_u}
        extra_u: dict[str, Any] = {"eval": ev.__dict__, "ci": ci, "command": command}
        if ab and {"memorizer", "oracle"} <= set(by):
            log("[reproduce] A/B: memorizer vs oracle as host")
            extra_u["ab"] = run_ab(by["memorizer"], by["oracle"], list(range(ev.ab_seeds)), duration_s=ev.ab_duration_s,
                                   prompt_style=ev.prompt_style, records=records)
            extra_u["ab_table"] = render_ab(extra_u["ab"])
        if harness_edit:
            _edits(by, ev, extra_u, log, records)
        return write_results(out_dir, preset, results, extra_u, baseline="null")
    chosen = plan(rows)
    if sets:  # a bad override is one line before anything is trained or written
        api = _train_api()
        for run in sorted({r.run for r in chosen if r.run}):
            _run_config(api, preset, run, ci, sets)
    runs = train_runs(preset, chosen, ci, out_dir, log, cached_only=cached_only, sets=sets, show_progress=not quiet)
    specs = row_specs(chosen, runs, ev)
    previous = out_dir / "results.json"
    carried = (carried_rows(previous, records, planned_stage_keys(preset, chosen, ci, sets))
               if cached_only and any(s is None for _, s, _ in specs) else {})
    results = evaluate_rows([(r.name, s, t) for r, s, t in specs], ev, ifeval_data, log, cached_only=cached_only,
                            records=records, carried=carried, workers=eval_workers, samples=samples)
    save_records(results, records)
    extra: dict[str, Any] = {"eval": ev.__dict__, "ci": ci, "command": command}
    by = {r.name: s for r, s, _ in specs if s is not None}
    # a carried row's model is not here, but its digest is: a stand-in spec with the same identity finds the A/B
    # and harness-edit records under their own keys (models, settings, style); it can never be built
    stand_ins = {name: _stand_in(c, ev) for name, c in carried.items() if name not in by and c.train.get("fingerprint")}
    if ab:
        _ab({**by, **stand_ins}, ev, extra, log, records, cached_only or bool(stand_ins), set(stand_ins))
    if harness_edit:
        _edits({**by, **stand_ins}, ev, extra, log, records, cached_only, set(stand_ins))
    return write_results(out_dir, preset, results, extra)


AB_ROWS = ("fixed-SFT", "HAT")


def _stand_in(row: RowResult, ev: EvalPreset) -> AgentSpec:
    """The agent spec of a carried row, its model named by the digest recorded with it (`identity()` as the
    original's, so record keys match).
    """
    return AgentSpec.for_model(row.train["fingerprint"], label=row.row, max_new_tokens=ev.max_new_tokens,
                               batch_size=ev.batch_size)


def _ab(by: dict[str, AgentSpec], ev: EvalPreset, extra: dict[str, Any], log: Any, records: Path,
        cached_only: bool, carried: Collection[str] = ()) -> None:
    """The A/B of fixed-SFT vs HAT as host: from its record, or run (unless `cached_only`); `carried` rows' specs
    are stand-ins (the result is marked carried).
    """
    base, treat = AB_ROWS
    if base not in by or treat not in by:
        return
    log(f"[reproduce] A/B: {base} vs {treat} as host")
    result = run_ab(by[base], by[treat], list(range(ev.ab_seeds)), duration_s=ev.ab_duration_s,
                    prompt_style=ev.prompt_style, records=records, cached_only=cached_only)
    if result is None:
        log("[reproduce] A/B: not measured (no record; --cached-only)")
        return
    extra["ab"] = {**result, **({"carried": True} if set(carried) & set(AB_ROWS) else {})}
    extra["ab_table"] = render_ab(result)


def _edits(by: dict[str, AgentSpec], ev: EvalPreset, extra: dict[str, Any], log: Any, records: Path,
           cached_only: bool = False, carried: Collection[str] = ()) -> None:
    """The harness-edit test of every row (its evaluations saved as records); `carried` rows' specs are
    stand-ins, read from the records only (their entries marked carried).
    """
    edits = []
    for name, spec in by.items():
        log(f"[reproduce] harness-edit test: {name}")
        res = run_harness_edit(spec, ev.edit_limit, batch_size=ev.batch_size, prompt_style=ev.prompt_style,
                               cached_only=cached_only or name in carried, records=records)
        if res is None:
            log(f"[reproduce] harness-edit test: {name}: not measured (not cached; --cached-only)")
            continue
        _save_keys(res["cache_keys"], records)
        edits.append({**res, "carried": True} if name in carried else res)
    if edits:
        extra["harness_edit"] = edits
        extra["harness_edit_table"] = render_edits(edits)


def _save_keys(keys: Sequence[str | None], records: Path) -> None:
    """Keep the evaluations named by `keys` as records, from the evaluation cache (a harness-edit test's)."""
    from livesim.hat.evaluate import cache_dir

    for key in keys:
        src = cache_dir() / f"{key}.json"
        if key and src.is_file():
            kept = samples_path(src)
            _write_record(key, {**json.loads(read_text(src, MAX_PROMPT_FILE_BYTES)),
                                **({"samples_file": str(kept)} if kept.is_file() else {})}, records)
