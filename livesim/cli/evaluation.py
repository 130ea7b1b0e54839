"""`livesim eval`: play an agent over many episodes, batched, with a per-request progress bar and records.

`--record DIR` writes one record per episode (`DIR/seed-00007.jsonl`, the format of `livesim run --record`,
so `view`, `replay` and `regrade` read them) and `DIR/summary.json`. A failed model call (an OpenAI-compatible
server that failed or cannot be reached) is an error on stderr and exit status 1, unless
`--max-agent-failures` tolerates it; a server that fails every call stops the run (the summary is still
written, with `aborted`).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from pathlib import Path
from typing import Any

from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, TextColumn, TimeElapsedColumn, TimeRemainingColumn
from rich.progress import Progress as Bar

import livesim
from livesim.agents.base import AgentUnavailable
from livesim.cli.common import INTERRUPTED, agent_kwargs, fail, print_table
from livesim.cli.eval_progress import PROGRESS_FILE, EpisodeLog, prepare_resume
from livesim.envs.rollout import summarize
from livesim.harness.core import Harness
from livesim.runs.build import build_agent, is_privileged, make_env
from livesim.runs.play import failure_verdict, play
from livesim.stream.config import StreamConfig
from livesim.stream.harness_file import harness_with_style, load_harness_file
from livesim.stream.paths import PathProblem, check_output_dir, read_text, shown, write_marker, write_text
from livesim.stream.records import RecordHeader
from livesim.stream.scenario import DataFileError


def resolve_harness(args: argparse.Namespace) -> Harness | None:
    """The canonical harness named by `--harness FILE` and `--prompt-style` (None: the default one)."""
    path = getattr(args, "harness", None)
    harness = load_harness_file(path) if path else None
    return harness_with_style(harness, getattr(args, "prompt_style", None))


class Progress:
    """A rich progress bar on stderr that advances per request, with tokens/s and an ETA (silent if quiet)."""

    def __init__(self, total: int, unit: str, agent: Any, quiet: bool) -> None:
        self.agent, self.bar, self.done = agent, None, 0
        if quiet:
            return
        self.bar = Bar(TextColumn("[bold]{task.description}"), BarColumn(), MofNCompleteColumn(),
                       TextColumn("{task.fields[rate]}"), TimeElapsedColumn(), TextColumn("eta"),
                       TimeRemainingColumn(), console=Console(stderr=True), transient=True)
        self.task = self.bar.add_task(unit, total=total, rate="")
        self.bar.start()

    def advance(self, n: int = 1) -> None:
        self.done += n
        if self.bar is None:
            return
        stats = getattr(self.agent, "stats", None) or {}
        secs = stats.get("generate_seconds") or 0
        rate = f"{stats.get('completion_tokens', 0) / secs:.1f} tok/s" if secs else ""
        self.bar.update(self.task, advance=n, rate=rate)

    def stop(self) -> None:
        if self.bar is not None:
            self.bar.stop()


RECORDS_KIND = "folder of `livesim eval` records"


def _prepare_record_dir(path: str, force: bool, inputs: list[str], resume: bool = False) -> Path:
    """The `--record` folder, made ready: new, empty, (with --force) emptied of the records eval writes, or (with
    --resume) kept as an interrupted run left it.

    A symbolic link, something that is not a folder, a folder holding an input of the run, or a folder with
    files in it without --force or --resume is refused (one line, exit 2).
    """
    out = Path(path)
    try:
        if out.is_dir() and any(out.iterdir()) and not (force or resume) and not out.is_symlink():
            raise PathProblem(f"--record {shown(path)}: the folder is not empty; choose another, pass --resume to "
                              "finish an interrupted run there, or --force to start over")
        check_output_dir(out, kind=RECORDS_KIND, flag="--record")  # --force empties only a folder eval wrote
        for src in inputs:
            if Path(os.path.realpath(src)).parent == Path(os.path.realpath(out)):
                raise PathProblem(f"--record {shown(path)} holds the input file {shown(src)}; a run never writes "
                                  "over its input")
        out.mkdir(parents=True, exist_ok=True)
        if not resume:
            for old in [*out.glob("seed-*.jsonl"), out / PROGRESS_FILE]:
                old.unlink(missing_ok=True)
        write_marker(out, RECORDS_KIND)
    except (PathProblem, OSError) as e:
        fail(str(e) if isinstance(e, PathProblem) else f"--record {shown(path)}: {e.strerror or e}")
    return out


def cmd_eval(args: argparse.Namespace) -> int:
    try:
        args.harness_obj = resolve_harness(args)
    except DataFileError as e:
        raise SystemExit(f"error: {e}") from None
    seeds = [args.seed + i for i in range(args.episodes)]
    inputs = [args.harness] if getattr(args, "harness", None) else []
    resume = bool(getattr(args, "resume", False))
    if resume and not getattr(args, "record", None):
        fail("--resume needs --record DIR (the folder of the interrupted run)")
    record_dir = _prepare_record_dir(args.record, args.force, inputs, resume) if getattr(args, "record", None) else None
    earlier: list[dict[str, Any]] = []
    todo = seeds
    if record_dir is not None and resume:
        _check_same_run(record_dir, args)
        todo, earlier = prepare_resume(record_dir, seeds)
    env = make_env(args.env, args)
    kwargs = agent_kwargs(args)
    agent = build_agent(args.agent, env, kwargs)
    privileged = is_privileged(args.agent)
    batch = args.batch_size
    if batch is None:
        batch = int(getattr(agent, "batch_size", None) or getattr(agent, "concurrency", None) or 1)
    header = None
    if record_dir is not None:
        def header(seed: int) -> RecordHeader:
            return RecordHeader(livesim_version=livesim.__version__, env_id=args.env, seed=seed,
                                config=StreamConfig(), agent=args.agent,
                                agent_kwargs={k: v for k, v in kwargs.items() if _jsonable(v)},
                                wrappers=args.wrappers, hsa_split=args.hsa_split, hsa_p=args.hsa_p,
                                split=getattr(args, "split", None), harness=args.harness_obj)
    qa = args.env.startswith("LiveStreamQA-")
    progress = Progress(len(seeds), "requests" if qa else "episodes", agent, args.quiet)
    if len(todo) < len(seeds):
        progress.advance(len(seeds) - len(todo))
    log = EpisodeLog(record_dir)
    ended = {r["episode_seed"] for r in earlier}

    def episode_done(seed: int) -> None:
        ended.add(seed)
        log.episode(seed)
        if not qa:
            progress.advance()

    t0 = time.perf_counter()
    records: list[dict[str, Any]] = list(earlier)
    interrupted = False
    aborted = None
    try:
        for info in play(lambda: make_env(args.env, args), agent, todo, batch, privileged, header, record_dir,
                         on_request=(lambda _: progress.advance()) if qa else None,
                         on_episode=episode_done, first_env=env) if todo else ():
            records.append(info)
            log.request(info)
    except PathProblem as e:  # a record the disk refused: removed, and said in one line
        fail(str(e))
    except AgentUnavailable as e:  # the server died: keep what was measured, say why the run stopped
        aborted = str(e)
    except KeyboardInterrupt:  # Ctrl-C: the finished episodes are summarised (and resumable), then one line
        interrupted = True
        records = [r for r in records if r["episode_seed"] in ended]  # an episode cut short does not count
    finally:
        progress.stop()
    wall = time.perf_counter() - t0
    summary = summarize(records, len(seeds), wall, agent)
    if qa:
        summary.pop("business", None)  # one request per episode: no stream to measure
    summary.update({"env": args.env, "agent": args.agent, "seed": args.seed, "batch_size": batch,
                    "wrappers": args.wrappers or None, "split": getattr(args, "split", None),
                    "hsa_split": args.hsa_split, "hsa_p": args.hsa_p,
                    "prompt_style": getattr(args, "prompt_style", None), "harness_file": getattr(args, "harness", None),
                    "record": str(record_dir) if record_dir else None})
    if aborted:
        summary["aborted"] = aborted
    if interrupted or resume:
        summary.update({"interrupted": interrupted, "episodes_done": len(ended),
                        "resumed_after": len(seeds) - len(todo) if resume else None})
    if record_dir is not None:
        try:
            write_text(record_dir / "summary.json", json.dumps(summary, sort_keys=True, indent=1) + "\n",
                       inputs=inputs, flag="--record")
        except PathProblem as e:
            fail(str(e))
    if interrupted:  # one line, no traceback (exit status 130, as a shell reports Ctrl-C)
        where = (f"; summary in {shown(str(record_dir / 'summary.json'))}, the same command with --resume plays "
                 "the rest" if record_dir is not None else "")
        print(f"interrupted: {len(ended)} of {len(seeds)} episodes finished{where}", file=sys.stderr)
        return INTERRUPTED
    code, line = failure_verdict(agent, getattr(args, "max_agent_failures", 0), summary, aborted)
    if line:
        print(line, file=sys.stderr)
    if args.json:
        print(json.dumps(summary, sort_keys=True))
    else:
        print_table(f"{args.agent} on {args.env}", summary)
    return code


_SAME_RUN = ("env", "agent", "seed", "wrappers", "split", "hsa_split", "hsa_p", "prompt_style", "harness_file")


def _check_same_run(record_dir: Path, args: argparse.Namespace) -> None:
    """--resume continues the run the folder holds: refused (one line) when its settings differ."""
    path = record_dir / "summary.json"
    if not path.is_file():
        return
    try:
        old = json.loads(read_text(path))
    except (OSError, ValueError):
        return
    now = {"env": args.env, "agent": args.agent, "seed": args.seed, "wrappers": args.wrappers or None,
           "split": getattr(args, "split", None), "hsa_split": args.hsa_split, "hsa_p": args.hsa_p,
           "prompt_style": getattr(args, "prompt_style", None), "harness_file": getattr(args, "harness", None)}
    diff = [f"{k} {old.get(k)!r} -> {now[k]!r}" for k in _SAME_RUN if k in old and old.get(k) != now[k]]
    if diff:
        fail(f"--resume: {shown(str(record_dir))} holds another run ({', '.join(diff)}); use another folder or --force")


def _jsonable(v: Any) -> bool:
    try:
        json.dumps(v)
        return True
    except (TypeError, ValueError):
        return False
