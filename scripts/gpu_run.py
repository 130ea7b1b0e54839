"""One command for one GPU: the paper's table for SmolLM2-135M (preset `smollm2-135m-gpu`), with throughput figures.

    python scripts/gpu_run.py                      # on a machine with one CUDA GPU; writes gpu-results/<time>/
    python scripts/gpu_run.py --short --deadline 480   # the same pipeline sized to a few minutes of one GPU
    python scripts/gpu_run.py --out DIR --ci       # the same parts at CI size (runs on a CPU)

Parts, each under its own time limit (a part past it is stopped and the next one runs), each writing its log and a
line of `parts.md` as soon as it ends: the machine (`env.json`), the model, the decode step with and without its
CUDA graph on the same requests (`bench/bench_llm.py --paths new-eager,new`: requests/s and whether the actions
are the same; `LIVESIM_CUDA_GRAPHS=0` in the environment turns the graph off for every part), then `livesim hat
reproduce --preset smollm2-135m-gpu` in steps, each adding rows in the order the paper's findings need them (base
and fixed-SFT; + HSA-SFT; + HSA-SFT+distill with T4; + HAT; + fixed-RL) and each leaving a complete table of the rows
it has; then the benchmarks: SFT trained tokens/s on CUDA, its ratio to the CPU and a profile of two steps
(`bench/bench_sft.py --device cuda --profile 2`), collect episodes/s with 16 and 1 worker processes (the table
first: a run stopped by its deadline has rows rather than benchmarks). `summary.md`: the table, each stage's wall
time and SFT tokens/s, and the paper's claims judged. Stages and evaluations are cached (`$LIVESIM_CACHE`), so a
rerun after a stop resumes where it was.

`--steps hsa,distill,hat` runs only those reproduce steps (their rows only: `base` and `fixed-SFT` come with
`fixed`); `--carry results/smollm2-135m-gpu/results.json` adds the rows of an earlier run of the same settings
that this one did not measure to the summary's table and claims (marked carried, with the file), written as
`results.json` and `table.md` beside `summary.md`.

`--short` runs the preset with smaller stages (`SHORT_SETS`: 2,400 episodes a collect, one epoch in batches of
8 x 4, 12 distillation and 8 GRPO steps, no dev evaluations) and the suites T1, T2 (T4 from the distillation step
on), 128 requests each.
`--deadline S` stops the run S seconds after it starts: the part running then is stopped, later parts are skipped
and named so in `parts.md`.

Every evaluation keeps each request's conversation beside its record (`--no-samples`: none). After each part the
table, the evaluation records and their conversations are packed into at most 8 files of at most 16 MiB,
`packs/results-N.tar` (what to copy back from a machine that returns few, small files; anything that does not fit
is named in `packs/left-out.txt`); `--summary-only --out DIR` on a folder holding only `packs/` unpacks them and
rebuilds the tables from the records.
"""

from __future__ import annotations

import argparse
import contextlib
import io
import json
import os
import re
import signal
import subprocess
import sys
import tarfile
import time
from pathlib import Path
from typing import Any

from livesim.stream.paths import append_text, open_output, read_bytes, read_text, write_bytes, write_text
from livesim.stream.procs import die_with_parent, group_guard, sigterm_as_exit

ROOT = Path(__file__).resolve().parents[1]
PRESET = "smollm2-135m-gpu"
PARTS = ("env", "model", "decode", "bench_sft", "bench_collect", "reproduce")  # `--only` names (reproduce: its steps)
ROWS = ("base", "fixed-SFT", "HSA-SFT", "HSA-SFT+distill", "HAT", "fixed-RL")
# the reproduce steps: (name, rows added, suites of the short run); each step evaluates every row so far
STEPS = (("fixed", ("base", "fixed-SFT"), "T1,T2"), ("hsa", ("HSA-SFT",), "T1,T2"),
         ("distill", ("HSA-SFT+distill",), "T1,T2,T4"), ("hat", ("HAT",), "T1,T2,T4"),
         ("fixed-rl", ("fixed-RL",), "T1,T2,T4"))
# --short: the preset's pipeline with smaller stages (both collects on the same budget)
SHORT_SETS = ("collect.episodes=2400", "sft.epochs=1", "sft.batch_size=8", "sft.grad_accum=4", "sft.val_examples=64",
              "sft.save_steps=25",
              "distill.steps=12", "distill.prompts=384", "distill.save_steps=6", "rl.steps=8", "rl.save_steps=4",
              "dev_requests=0")

ENV_CODE = """
import json, os, platform, torch, transformers, trl
from livesim.models.device import select_device
c = select_device()
print(json.dumps({"device": c.device, "bf16": c.bf16, "gpu": torch.cuda.get_device_name() if c.device == "cuda"
                  else None, "torch": torch.__version__, "transformers": transformers.__version__,
                  "trl": trl.__version__, "cpus": os.cpu_count(), "python": platform.python_version(),
                  "USE_HUB_KERNELS": os.environ.get("USE_HUB_KERNELS"),
                  "LIVESIM_CUDA_GRAPHS": os.environ.get("LIVESIM_CUDA_GRAPHS")}))
"""


def parts(ci: bool, out: Path, short: bool = False, steps: tuple[str, ...] | None = None, eval_workers: int = 1
          ) -> list[tuple[str, int, list[str]]]:
    """(name, time limit in seconds, command) of every part, in order; `steps`: the reproduce steps to plan (default
    all), whose rows alone make up each step's `--rows`; `eval_workers` > 1 is passed to each `hat reproduce`.
    """
    py = sys.executable
    # -P: the repository root (the working directory) is not put on sys.path, so an installed livesim is imported
    # rather than the source folder (whose envs/, agents/ and hat/ are mapped into livesim only by the install)
    cli = [py, "-P", "-m", "livesim.cli"]
    llm = [py, str(ROOT / "bench" / "bench_llm.py"), "--paths", "new-eager,new", "--json"]
    if ci:
        llm += ["--models", "tiny", "--requests", "4", "--batch-size", "4"]
    else:  # the evaluations' shape: SmolLM2 in bf16, a batch of requests, a 256-token turn budget
        n = "64" if short else "128"
        llm += ["--device", "cuda", "--models", "smollm2-135m", "--requests", n, "--batch-size", n,
                "--max-new-tokens", "256"]
    if ci:
        collect = ["--episodes", "24", "--workers", "2,1"]
        sft = ["--device", "cpu", "--preset", "tiny", "--layouts", "2x1+grouped,2x1,2x1+pf", "--steps", "2",
               "--episodes", "16"]
    elif short:
        collect = ["--episodes", "1600", "--workers", "16,1", "--prompt-style", "compact",
                   "--tokenizer", "smollm2-135m"]
        # no padding-free layout: under SDPA it ran out of memory at 16 conversations on an H200 (the full run keeps it)
        # the preset's fused (TRL, every position) LM head against the plain one (logits at the labelled positions)
        sft = ["--device", "cuda", "--preset", PRESET, "--layouts", "16x1+grouped,16x1:plain+grouped",
               "--steps", "8", "--episodes", "160", "--threads", "16", "--cpu-steps", "1", "--profile", "2"]
    else:
        collect = ["--episodes", "4000", "--workers", "16,1", "--prompt-style", "compact",
                   "--tokenizer", "smollm2-135m"]
        sft = ["--device", "cuda", "--preset", PRESET, "--layouts", "16x1+grouped,16x1,16x1+pf", "--steps", "30",
               "--episodes", "800", "--threads", "16", "--profile", "2"]
    plan: list[tuple[str, int, list[str]]] = [
        ("env", 120, [py, "-P", "-c", ENV_CODE]),
        ("model", 600, [*cli, "models", "prepare", "smollm2-135m"]),
        ("decode", 120 if short else 300, llm),
    ]
    rows: list[str] = []
    for name, added, short_suites in STEPS:
        if steps is not None and name not in steps:
            continue
        rows += added
        cmd = [*cli, "hat", "reproduce", "--preset", PRESET, "--rows", ",".join(rows), "--no-ab", "--no-harness-edit",
               "--out", str(out / "results"), *(["--ci"] if ci else []),
               *(["--eval-workers", str(eval_workers)] if eval_workers > 1 else [])]
        if short:  # at CI size the stages keep their CI sizes; the suites and the dev-evaluation setting still apply
            sets = ("dev_requests=0",) if ci else SHORT_SETS
            cmd += ["--suites", short_suites, *(x for s in sets for x in ("--set", s))]
        plan.append((f"reproduce:{name}", 3 * 3600 if ci else (900 if short else 5400), cmd))
    plan += [("bench_sft", 120 if short else 900, [py, str(ROOT / "bench" / "bench_sft.py"), *sft]),
             ("bench_collect", 60 if short else 900, [py, str(ROOT / "bench" / "bench_collect.py"), *collect])]
    return plan


PACKS = 8  # at most this many pack files ...
PACK_BYTES = 16 << 20  # ... of at most this many bytes each
_TAR_OVERHEAD = 2048  # a member's headers (an extended one for long names) and padding, at most
_TAR_END = tarfile.RECORDSIZE  # the archive's end blocks, padded to a whole record


def _pack_groups(results: Path) -> list[list[Path]]:
    """What a pack holds, in the order it is packed: each table's results.json and table.md, then each evaluation
    record with its samples file (a record and its samples never split).
    """
    tables = [[f for f in (d / "results.json", d / "table.md") if f.is_file()]
              for d in sorted(p.parent for p in results.rglob("results.json"))]
    groups: dict[Path, list[Path]] = {}
    for f in sorted(results.rglob("evals/*")):
        if f.is_file() and not f.name.startswith("."):
            stem = f.parent / f.name.split(".", 1)[0]
            groups.setdefault(stem, []).append(f)
    return [g for g in tables if g] + list(groups.values())


def pack_results(out: Path, max_files: int = PACKS, max_bytes: int = PACK_BYTES) -> tuple[list[Path], list[str]]:
    """`out/results/` (tables, records, conversations) into at most `max_files` tar files of at most `max_bytes`
    each under `out/packs/` (first fit, in `_pack_groups` order); returns the packs and what did not fit.
    """
    results, packs = out / "results", out / "packs"
    bins: list[list[Path]] = []
    sizes: list[int] = []
    left: list[str] = []
    for group in _pack_groups(results) if results.is_dir() else []:
        size = sum(f.stat().st_size + _TAR_OVERHEAD for f in group)
        at = next((i for i, used in enumerate(sizes) if used + size + _TAR_END <= max_bytes), None)
        if at is None and len(bins) < max_files and size + _TAR_END <= max_bytes:
            bins.append([])
            sizes.append(0)
            at = len(bins) - 1
        if at is None:
            left += [str(f.relative_to(out)) for f in group]
            continue
        bins[at] += group
        sizes[at] += size
    packs.mkdir(parents=True, exist_ok=True)
    written = []
    for i, files in enumerate(bins):
        buf = io.BytesIO()
        with tarfile.open(fileobj=buf, mode="w", format=tarfile.PAX_FORMAT) as tar:
            for f in files:
                info = tar.gettarinfo(str(f), arcname=str(f.relative_to(out)))
                info.mtime, info.uid, info.gid, info.uname, info.gname = 0, 0, 0, "", ""
                tar.addfile(info, io.BytesIO(read_bytes(f, max_bytes=max_bytes)))
        if len(buf.getvalue()) > max_bytes:  # the estimate above is an upper bound; this never happens
            raise RuntimeError(f"pack {i} is {len(buf.getvalue())} bytes, over its {max_bytes}")
        path = packs / f"results-{i}.tar"
        write_bytes(path, buf.getvalue())
        written.append(path)
    for stale in packs.glob("results-*.tar"):
        if stale not in written:
            stale.unlink()
    write_text(packs / "left-out.txt", "".join(f"{x}\n" for x in left))
    return written, left


def unpack_results(out: Path) -> int:
    """Extract `out/packs/results-*.tar` into `out/` (regular files under results/ only); returns files written."""
    n = 0
    for pack in sorted((out / "packs").glob("results-*.tar")):
        with tarfile.open(pack) as tar:
            for m in tar.getmembers():
                parts = Path(m.name).parts
                if not m.isfile() or Path(m.name).is_absolute() or ".." in parts or parts[:1] != ("results",):
                    raise ValueError(f"{pack.name}: {m.name!r} is not a file under results/; refusing the pack")
                target = out / m.name
                target.parent.mkdir(parents=True, exist_ok=True)
                src = tar.extractfile(m)
                assert src is not None
                write_bytes(target, src.read())
                n += 1
    return n


def rebuild_tables(out: Path) -> None:
    """Each unpacked table's outcome rates and samples flags from its records, and its table.md, written again."""
    from livesim.hat.report import render_table, with_records

    for found in sorted((out / "results").rglob("results.json")):
        results = with_records(json.loads(read_text(found)), found.parent)
        write_text(found, json.dumps(results, indent=1, sort_keys=True) + "\n")
        write_text(found.with_name("table.md"), render_table(results))


def _label(path: Path) -> str:
    """`path` relative to the repository root when it is under it (what a table should name)."""
    return str(path.relative_to(ROOT)) if path.is_relative_to(ROOT) else str(path)


def with_carried(results: dict[str, Any], carry: Path) -> dict[str, Any]:
    """`results` plus the rows of an earlier run's `results.json` (`carry`) that this run did not measure, each
    marked carried (with the file and the earlier run's command); rows in the order of `ROWS`. A row this run
    measured is this run's, whole: suites are never mixed across runs within one row.
    """
    earlier = json.loads(read_text(carry))  # its preset and settings were checked by `main` before anything ran
    have = {r["row"] for r in results.get("rows", []) if r.get("status") == "ok"}
    label = _label(carry)
    def carry_row(r: dict[str, Any]) -> dict[str, Any]:
        train = r.get("train") or {}
        if train.get("carried_from"):  # carried there too: it keeps naming the run that measured it
            return r
        return {**r, "note": f"carried from {label}",
                "train": {**train, "carried": True, "carried_from": label, "carried_command": earlier.get("command")}}

    carried = [carry_row(r) for r in earlier.get("rows", []) if r.get("status") == "ok" and r["row"] not in have]
    names = {r["row"] for r in carried}
    rows = [r for r in results.get("rows", []) if r["row"] not in names] + carried
    order = {name: i for i, name in enumerate(ROWS)}
    rows.sort(key=lambda r: order.get(r["row"], len(order)))
    # the paired findings of `hat reproduce` need both rows' requests from one run: kept only where both are this run's
    return {**results, "rows": rows, "carried_from": label}


def run_part(name: str, limit: int, cmd: list[str], out: Path) -> dict[str, Any]:
    """Run one part (its own process group, stopped whole past ``limit``); log to ``out/<name>.log``."""
    t0 = time.perf_counter()
    # the part dies with this script on any signal: its leader by PR_SET_PDEATHSIG, its whole group by the guard
    with open_output(out / f"{name.replace(':', '-')}.log", force=True, flag="log") as log:
        proc = subprocess.Popen(cmd, stdout=log, stderr=subprocess.STDOUT, cwd=ROOT, start_new_session=True,
                                preexec_fn=die_with_parent)
        with group_guard(proc.pid):
            try:
                rc = proc.wait(timeout=limit)
                status = "ok" if rc == 0 else f"failed (exit {rc})"
            except subprocess.TimeoutExpired:
                _stop(proc)
                status = f"stopped at its {limit} s limit"
            except BaseException:  # Ctrl-C or SIGTERM of this script: the part stops with it
                _stop(proc)
                print(f"[gpu_run] interrupted during {name}: the part was stopped; its log is {log.name}, "
                      f"finished parts are in {out / 'parts.md'}", file=sys.stderr, flush=True)
                raise
    return record_part(out, {"part": name, "status": status, "wall_s": round(time.perf_counter() - t0, 1),
                             "limit_s": limit})


def _stop(proc: subprocess.Popen[Any]) -> None:
    """SIGINT to the part's group (the trainers save what they can; stage caches keep the rest), SIGKILL after
    20 s.
    """
    with contextlib.suppress(OSError):
        os.killpg(proc.pid, signal.SIGINT)
    try:
        proc.wait(timeout=20)
    except subprocess.TimeoutExpired:
        with contextlib.suppress(OSError):
            os.killpg(proc.pid, signal.SIGKILL)
        proc.wait()


def record_part(out: Path, row: dict[str, Any]) -> dict[str, Any]:
    """Append a part's line to `out/parts.md` (the summary's table of parts); returns `row`."""
    append_text(out / "parts.md", f"| {row['part']} | {row['status']} | {row['wall_s']:.1f} | {row['limit_s']} |\n")
    return row


def _avg(row: dict[str, Any], suite: str) -> float | None:
    scores = ((row.get("suites") or {}).get(suite) or {}).get("scores") or {}
    return scores.get("avg")


def claims(results: dict[str, Any]) -> list[tuple[str, str]]:
    """The paper's findings at the thresholds this run is judged by: (claim, verdict with the numbers)."""
    rows = {r["row"]: r for r in results.get("rows", []) if r.get("status") == "ok"}

    def pts(name: str, suite: str) -> float | None:
        v = _avg(rows.get(name, {}), suite)
        return None if v is None else 100 * v

    def t4(name: str) -> float | None:
        scores = ((rows.get(name, {}).get("suites") or {}).get("T4") or {}).get("scores") or {}
        v = scores.get("prompt_strict")
        return None if v is None else 100 * v

    def judge(claim: str, values: list[float | None], ok: Any, fmt: str) -> tuple[str, str]:
        if any(v is None for v in values):
            return claim, "not measured"
        return claim, ("holds" if ok(*values) else "does not hold") + " (" + fmt.format(*values) + ")"

    return [
        judge("fixed-SFT's T2 AVG >= 30 points under its T1", [pts("fixed-SFT", "T1"), pts("fixed-SFT", "T2")],
              lambda a, b: a - b >= 30, "T1 {:.1f}, T2 {:.1f}"),
        judge("HSA-SFT's T2 AVG within 10 points of its T1", [pts("HSA-SFT", "T1"), pts("HSA-SFT", "T2")],
              lambda a, b: abs(a - b) <= 10, "T1 {:.1f}, T2 {:.1f}"),
        judge("distillation gives back T4 points (HSA-SFT+distill > HSA-SFT, prompt-strict)",
              [t4("HSA-SFT"), t4("HSA-SFT+distill")], lambda a, b: b > a,
              "HSA-SFT {:.1f}, +distill {:.1f}" + ("" if t4("base") is None else f", base {t4('base'):.1f}")),
        judge("HAT >= HSA-SFT on T2 AVG", [pts("HSA-SFT", "T2"), pts("HAT", "T2")], lambda a, b: b >= a,
              "HSA-SFT {:.1f}, HAT {:.1f}"),
    ]


def stage_figures(results: dict[str, Any]) -> list[str]:
    """Each trained stage's wall time and, for SFT, trained tokens/s (from the stage's own stats file)."""
    lines = ["| row | stage | wall s | device | SFT trained tokens/s | SFT padding | RL rollouts/s | "
             "RL CUDA-graph steps |", "|---|---|---|---|---|---|---|---|"]
    for r in results.get("rows", []):
        train = r.get("train") or {}
        stage_dir = Path(train["model_dir"]) if train.get("model_dir") else None
        stats: dict[str, Any] = {}
        if stage_dir is not None:
            files = list(stage_dir.glob("*_stats.json"))
            stats = json.loads(files[0].read_text()) if files else {}
        for stage, wall in (train.get("wall_s") or {}).items():
            own = stats if stage == train.get("stage") else {}
            tps, pad, rps = own.get("tokens_per_s"), own.get("padding_share"), own.get("rollouts_per_s")
            sampled = own.get("rollout_tokens") or {}
            graphs = (f"{sampled['cuda_graph_steps']:,} of {sampled['forward_passes']:,}"
                      if "cuda_graph_steps" in sampled else "")
            lines.append(f"| {r['row']} | {stage} | {wall:.1f} | {own.get('device', '')} | "
                         f"{'' if tps is None else f'{tps:,.0f}'} | {'' if pad is None else f'{pad:.1%}'} | "
                         f"{'' if rps is None else f'{rps:.2f}'} | {graphs} |")
    return lines


def collect_walls(results_dir: Path) -> list[str]:
    """Collect's wall time in each training run (logged to the run's metrics.jsonl when it collected)."""
    lines = []
    for metrics in sorted(results_dir.glob("runs/*/metrics.jsonl")):
        for line in metrics.read_text().splitlines():
            row = json.loads(line) if line.strip() else {}
            if row.get("stage") == "collect" and row.get("kind") == "stats":
                lines.append(f"| {metrics.parent.name} | collect | {row['wall_s']:.1f} | kept {row.get('kept')} of "
                             f"{row.get('candidates')} |")
    return ["| run | stage | wall s | conversations |", "|---|---|---|---|", *lines] if lines else []


def decode_table(log: Path) -> list[str]:
    """The decode part's rows (`bench_llm.py --json`): each path's speed, and whether its actions equal the first's."""
    rows = []
    for line in log.read_text().splitlines() if log.is_file() else []:
        try:
            row = json.loads(line)
        except ValueError:
            continue
        if isinstance(row, dict) and "requests_per_s" in row:
            rows.append(row)
    if not rows:
        return []
    out = ["", "## decode", "", "`bench/bench_llm.py`: the same requests with the decode step eager (`new-eager`) and "
           "as a CUDA graph (`new`)", "",
           "| model | path | device | requests | wall s | requests/s | completion tokens/s | decode s | "
           "same actions | mean reward |", "|---|---|---|---|---|---|---|---|---|---|"]
    for r in rows:
        out.append(f"| {r['model']} | {r['path']} | {r.get('device', 'cpu')} | {r['requests']} | {r['wall_s']:.1f} | "
                   f"{r['requests_per_s']:.2f} | {r['completion_tokens_per_s']:.0f} | {r['decode_s']:.1f} | "
                   f"{r['actions_digest'] == rows[0]['actions_digest']} | {r['mean_reward']:.3f} |")
    return out


def summary(out: Path, carry: Path | None = None) -> Path:
    """`summary.md` from whatever the parts left (`parts.md` names a part that did not finish); with `carry`, the
    table and claims also hold the earlier run's rows this one did not measure (`with_carried`). The table's
    `results.json` and `table.md` are also written beside it (flat: easy to copy off a remote machine).
    """
    lines = [f"# One-GPU run ({PRESET})", ""]
    env = out / "env.log"
    if env.is_file():
        lines += ["Machine: `" + env.read_text().strip().splitlines()[-1] + "`", ""]
    parts_md = out / "parts.md"
    lines += (parts_md.read_text().splitlines() if parts_md.is_file()
              else ["| part | status | wall s | limit s |", "|---|---|---|---|"])
    lines += decode_table(out / "decode.log")
    for name in ("bench_collect", "bench_sft"):
        log = out / f"{name}.log"
        table = [x for x in log.read_text().splitlines() if x.startswith("|")] if log.is_file() else []
        heading = [x for x in (log.read_text().splitlines() if log.is_file() else []) if x and not x.startswith("|")]
        partial = [x for x in heading if x.startswith(f"[{name}]")]  # rows printed as measured
        if table:
            lines += ["", f"## {name}", "", *(heading[-1:] if heading else []), "", *table]
        elif partial:
            lines += ["", f"## {name} (did not finish)", "", *partial]
    found = sorted((out / "results").rglob("results.json"))
    if found:
        results = json.loads(found[0].read_text())
        table_md = out / "table.md"
        if carry is not None:
            from livesim.hat.report import render_table

            results = with_carried(results, carry)
            write_text(table_md, render_table(results))
        else:
            write_text(table_md, found[0].with_name("table.md").read_text() if found[0].with_name("table.md")
                       .is_file() else "")
        write_text(out / "results.json", json.dumps(results, indent=1, sort_keys=True) + "\n")
        lines += ["", "## Table", "", f"`{found[0].parent}`" + (f" with the rows carried from `{_label(carry)}`"
                                                                 if carry is not None else "")
                  + " (`table.md` beside this file has every column)", ""]
        lines += ["| row | T1 AVG | T2 AVG | T3 AVG | T4 prompt-strict | n T1 | T1 requests/s |",
                  "|---|---|---|---|---|---|---|"]
        for r in results["rows"]:
            s = r.get("suites") or {}
            cells = []
            for suite, key in (("T1", "avg"), ("T2", "avg"), ("T3", "avg"), ("T4", "prompt_strict")):
                v = ((s.get(suite) or {}).get("scores") or {}).get(key)
                cells.append("n/a" if v is None else f"{100 * v:.1f}")
            rps = (s.get("T1") or {}).get("requests_per_s")
            name = r["row"] + (" (carried)" if (r.get("train") or {}).get("carried_from") else "")
            lines.append(f"| {name} | {' | '.join(cells)} | {(s.get('T1') or {}).get('n', '')} | "
                         f"{'' if rps is None else f'{rps:.2f}'} |")
        lines += ["", "## Stages", "", *stage_figures(results), "", *collect_walls(found[0].parent),
                  "", "## The paper's claims", "",
                  "| claim | verdict |", "|---|---|", *(f"| {c} | {v} |" for c, v in claims(results))]
        if table_md.is_file() and table_md.read_text().strip():
            lines += ["", "## Full table with 95% CIs", "", table_md.read_text()]
    else:
        lines += ["", "No results.json yet (the reproduce part did not finish: run the script again to resume)."]
    path = out / "summary.md"
    write_text(path, "\n".join(lines) + "\n")
    return path


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", default=None, help="output folder (default gpu-results/<UTC time>)")
    ap.add_argument("--ci", action="store_true", help="CI size, on any machine (the stages run on the CPU too)")
    ap.add_argument("--short", action="store_true", help="the preset with smaller stages (SHORT_SETS) and the "
                    "suites T1, T2, T4: minutes of one GPU")
    ap.add_argument("--deadline", type=float, default=None, help="stop the whole run this many seconds after it "
                    "starts (the running part is stopped, later ones skipped)")
    ap.add_argument("--steps", default=None, help="comma list of reproduce steps (" + ",".join(n for n, _, _ in STEPS)
                    + "; default all): only those steps' rows are trained and evaluated")
    ap.add_argument("--carry", default=None, help="an earlier run's results.json (same preset and settings): its rows "
                    "that this run does not measure join the summary's table and claims, marked carried")
    ap.add_argument("--eval-workers", type=int, default=1, help="suites of a row evaluated that many at a time, "
                    "each in its own process (`hat reproduce --eval-workers`; default 1)")
    ap.add_argument("--summary-only", action="store_true", help="run nothing: write summary.md, results.json and "
                    "table.md from what --out holds (e.g. a run copied back from the GPU machine, with --carry)")
    ap.add_argument("--no-samples", action="store_true", help="keep no conversations (`hat reproduce --no-samples`)")
    ap.add_argument("--only", default=None, help=f"comma list of parts to run ({','.join(PARTS)}, or one reproduce "
                                                "step such as reproduce:fixed); the summary is always written")
    args = ap.parse_args(argv)
    if args.deadline is not None and args.deadline <= 0:
        ap.error(f"--deadline must be > 0 seconds, got {args.deadline:g}")
    t_start = time.perf_counter()
    out = Path(args.out or f"gpu-results/{time.strftime('%Y%m%d-%H%M%S', time.gmtime())}").resolve()
    steps = tuple(args.steps.split(",")) if args.steps else None
    bad_steps = [x for x in steps or () if x not in {n for n, _, _ in STEPS}]
    if bad_steps:
        ap.error(f"unknown step {bad_steps[0]!r}; expected some of {','.join(n for n, _, _ in STEPS)}")
    carry = Path(args.carry).resolve() if args.carry else None
    if carry is not None:
        try:
            earlier = json.loads(read_text(carry))
            earlier["rows"]
        except (OSError, ValueError, KeyError, TypeError) as e:
            ap.error(f"--carry {args.carry}: not a results.json with rows ({type(e).__name__}: {e})")
        # the same settings: CI size or not, and the same --set overrides (which make the stages' keys)
        sets = (("dev_requests=0",) if args.ci else SHORT_SETS) if args.short else ()
        theirs = tuple(re.findall(r"--set (\S+)", earlier.get("command") or ""))
        if earlier.get("preset") not in (None, PRESET):
            ap.error(f"--carry {args.carry}: a results.json of preset {earlier.get('preset')!r}, not {PRESET!r}")
        if bool(earlier.get("ci")) != args.ci or sorted(theirs) != sorted(sets):
            ap.error(f"--carry {args.carry}: its run had other settings (ci={bool(earlier.get('ci'))}, sets "
                     f"{' '.join(theirs) or 'none'}) than this one (ci={args.ci}, sets {' '.join(sets) or 'none'})")
    if args.summary_only:
        packed = sorted((out / "packs").glob("results-*.tar")) if args.out else []
        if not args.out or not ((out / "results").is_dir() or packed):
            ap.error(f"--summary-only needs --out with a run's results/ folder or its packs/ ({out / 'results'} is "
                     "not one)")
        if packed:
            try:
                print(f"[gpu_run] {unpack_results(out)} file(s) unpacked from {len(packed)} pack(s)")
            except (ValueError, OSError, tarfile.TarError) as e:
                ap.error(f"--summary-only: {e}")
            rebuild_tables(out)
        print(f"[gpu_run] {summary(out, carry)}")
        return 0
    if args.eval_workers < 1:
        ap.error(f"--eval-workers must be >= 1, got {args.eval_workers}")
    plan = parts(args.ci, out, args.short, steps, args.eval_workers)
    if args.no_samples:
        plan = [(n, lim, cmd + ["--no-samples"] if n.startswith("reproduce:") else cmd) for n, lim, cmd in plan]
    names = [p[0] for p in plan]
    only = args.only.split(",") if args.only else list(PARTS)
    bad = [n for n in only if n not in names and n != "reproduce"]
    if bad:
        ap.error(f"unknown part {bad[0]!r}; expected some of {','.join(PARTS)} or "
                 f"{','.join(n for n in names if n.startswith('reproduce:'))}")
    chosen = [p for p in plan if p[0] in only or ("reproduce" in only and p[0].startswith("reproduce:"))]
    if not args.ci:
        import torch

        if not torch.cuda.is_available():
            ap.error("no CUDA device (torch.cuda.is_available() is False); use --ci for the CPU-size run")
    out.mkdir(parents=True, exist_ok=True)
    write_text(out / "parts.md", "| part | status | wall s | limit s |\n|---|---|---|---|\n")
    rows = []
    for name, limit, cmd in chosen:
        left = None if args.deadline is None else args.deadline - (time.perf_counter() - t_start)
        if left is not None and left < 5:
            rows.append(record_part(out, {"part": name, "status": "skipped (past --deadline)", "wall_s": 0.0,
                                          "limit_s": 0}))
            continue
        limit = limit if left is None else max(1, min(limit, int(left)))
        print(f"[gpu_run] {name} (limit {limit} s) -> {out / (name.replace(':', '-') + '.log')}", flush=True)
        rows.append(run_part(name, limit, cmd, out))
        print(f"[gpu_run] {name}: {rows[-1]['status']} in {rows[-1]['wall_s']:.0f} s", flush=True)
        summary(out, carry)
        if name.startswith("reproduce:"):
            packs, left = pack_results(out)
            print(f"[gpu_run] results packed into {len(packs)} file(s) under {out / 'packs'}"
                  + (f"; {len(left)} file(s) did not fit (packs/left-out.txt)" if left else ""), flush=True)
    print(f"[gpu_run] {summary(out, carry)}")
    return 0 if all(r["status"] == "ok" for r in rows) else 1


if __name__ == "__main__":
    with sigterm_as_exit():  # SIGTERM unwinds like Ctrl-C: the running part is stopped, not orphaned
        sys.exit(main())
