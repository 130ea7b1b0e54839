"""Subcommands for scenarios and records: `run --scenario/--record/--dashboard`, `replay`, `regrade`, `view`,
`compare`, `golden` and `scenarios`. Loaded by `livesim.cli.main` through `register(subparsers)`.

Bad input (a malformed scenario or record) exits with status 2 and a message naming file, line and field,
before anything runs or is written; a replay that differs exits with status 1.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any

from rich.console import Console
from rich.table import Table

import livesim
from livesim.agents import make_agent
from livesim.cli import view
from livesim.cli.common import agent_kwargs, fail, parse_seeds, print_table
from livesim.cli.evaluation import resolve_harness
from livesim.envs.hsa.wrappers import parse_spec
from livesim.render.dashboard import example_state, frame_text
from livesim.runs.build import build_agent
from livesim.runs.compare import AgentSpec, compare, render_comparison
from livesim.runs.episode import make_stream_env, run_episode
from livesim.runs.live import play
from livesim.runs.play import failure_verdict
from livesim.runs.replay import (
    GOLDEN_DIR,
    GOLDEN_FRAME,
    ReplayMismatch,
    edits,
    golden_diff,
    regenerate_golden,
    regrade,
    replay,
)
from livesim.stream.config import StreamConfig
from livesim.stream.paths import PathProblem, check_output_file, read_text, shown, write_text
from livesim.stream.records import RecordError, RecordHeader, RecordLine, RecordWriter, read_record
from livesim.stream.scenario import DataFileError, Problem, bundled_scenarios, load_scenario, resolve_scenario
from livesim.world.comments import UnservableIntentError


def _fail(msg: str, code: int = 2) -> int:
    print(f"error: {msg}", file=sys.stderr)
    return code


def _tee(lines: Iterable[RecordLine], path: str | None, force: bool = False,
         inputs: Iterable[str | Path] = ()) -> Iterator[RecordLine]:
    """Yield the lines, writing each to `path` (flushed) first if given.

    The env is reset at the first line: a config it refuses (a stream with no comments) ends the command with a
    one-line error before the record file exists.
    """
    it = iter(lines)
    try:
        first = next(it)
    except ValueError as e:
        fail(f"the stream cannot start: {e}")
    if path is None:
        yield first
        yield from it
        return
    try:
        writer = RecordWriter(path, overwrite=force, inputs=inputs)
    except PathProblem as e:
        fail(str(e))
    with writer as w:
        w.write(first)
        yield first
        for line in it:
            w.write(line)
            yield line


def record_target_problem(target: str, inputs: list[Any], force: bool) -> str | None:
    """Why `--record target` may not be written (None if it may): see `livesim.stream.paths.check_output_file`."""
    try:
        check_output_file(target, inputs=inputs, force=force, flag="--record")
    except PathProblem as e:
        return str(e)
    return None


def _show(lines: Iterable[RecordLine], args: argparse.Namespace) -> Any:
    return play(lines, speed=args.speed, step=args.step, frames=args.frames, live=False if args.no_live else None)


def _add_view_args(p: argparse.ArgumentParser, speed: float) -> None:
    p.add_argument("--speed", type=float, default=speed, help="play at this many times the stream clock (0: no wait)")
    p.add_argument("--step", action="store_true", help="stop after each step: Enter goes on, q runs to the end")
    p.add_argument("--frames", type=int, default=None, metavar="N", help="print N evenly spaced frames (no animation)")
    p.add_argument("--no-live", action="store_true", help="no animation: print the final frame and the summary")


def unservable(sc: Any, harness: Any = None) -> str | None:
    """Why a scenario's script cannot be played (a scripted intent the room cannot serve), found by playing it
    with the null host; None if it can.
    """
    header = RecordHeader(livesim_version=livesim.__version__, scenario=sc.name, seed=sc.seed,
                          config=sc.to_config(), agent="null", harness=harness)
    try:
        for _ in run_episode(make_stream_env(harness=harness), make_agent("null"), header):
            pass
    except UnservableIntentError as e:
        return f"{sc.name}: {e}"
    except ValueError:  # a stream that cannot start (no comments): `_cannot_start` and the run itself say so
        return None
    return None


def cmd_run(args: argparse.Namespace, fallback: Any) -> int:
    """`livesim run`: the plain summary run, or a scenario run with a record and/or the dashboard."""
    if not (args.scenario or args.record or args.dashboard):
        args.seed = 0 if args.seed is None else args.seed
        return int(fallback(args) or 0)

    try:
        sc = load_scenario(args.scenario) if args.scenario else None
        harness = resolve_harness(args)
    except (DataFileError, FileNotFoundError) as e:
        return _fail(e.first if isinstance(e, DataFileError) else str(e))
    if args.seed is not None and not 0 <= args.seed < 2**63:
        return _fail(f"--seed must be between 0 and 2**63 - 1, got {args.seed}")
    inputs = [p for p in ([resolve_scenario(args.scenario)] if args.scenario else []) + [args.harness] if p]
    if args.record is not None and (problem := record_target_problem(args.record, inputs, args.force)) is not None:
        return _fail(problem)
    if sc is not None and (problem := unservable(sc, harness)) is not None:
        return _fail(problem)
    env = make_stream_env(args.wrappers, getattr(args, "hsa_split", None), hsa_p=args.hsa_p, harness=harness)
    kwargs = agent_kwargs(args)
    agent = build_agent(args.agent, env, kwargs)
    seed = args.seed if args.seed is not None else (sc.seed if sc else 0)
    header = RecordHeader(livesim_version=livesim.__version__, scenario=sc.name if sc else None,
                          purpose=sc.purpose if sc else None, seed=seed,
                          config=sc.to_config() if sc else StreamConfig(), agent=args.agent, agent_kwargs=kwargs,
                          wrappers=args.wrappers, hsa_split=getattr(args, "hsa_split", None), hsa_p=args.hsa_p,
                          harness=harness)
    lines = _tee(run_episode(env, agent, header), args.record, args.force, inputs)
    try:
        if args.dashboard and not args.json:
            state = _show(lines, args)
            code, line = failure_verdict(agent, getattr(args, "max_agent_failures", 0), state.summary)
            if line:
                print(line, file=sys.stderr)
            return code
        *_, end = lines  # the last line is the end line, with the summary
    except PathProblem as e:  # the record could not be written (disk full): the partial one was removed
        return _fail(str(e))
    except OSError as e:  # the record could not be created or written (disk full, permissions)
        return _fail(f"--record {args.record}: {e.strerror or e}")
    except UnservableIntentError as e:  # the agent's own moves used up what a scripted comment needed
        return _fail(f"{header.scenario}: {e}")
    summary = dict(end.summary)  # type: ignore[union-attr]
    summary.update({"agent": args.agent, "seed": seed, "scenario": header.scenario, "record": args.record})
    code, line = failure_verdict(agent, getattr(args, "max_agent_failures", 0), summary)
    if line:
        print(line, file=sys.stderr)
    if args.json:
        print(json.dumps(summary, sort_keys=True))
    else:
        print_table(f"{header.scenario or 'stream'} seed={seed} agent={args.agent}", summary)
    return code


def _read(path: str) -> Any:
    """Read a record, and check what only the env layer knows: the header's HSA wrapper names."""
    record = read_record(path)
    if record.header.wrappers is not None:
        try:
            parse_spec(record.header.wrappers)
        except ValueError as e:
            raise RecordError(path, [Problem("wrappers", 1, str(e))]) from None
    return record


def _open(path: str) -> tuple[Any, list[str]] | str:
    """The record at `path` and its edited lines (reported on stderr), or the one-line reason it is refused."""
    try:
        record = _read(path)
    except (RecordError, FileNotFoundError) as e:
        return e.first if isinstance(e, RecordError) else str(e)
    return record, _integrity(record)


def cmd_replay(args: argparse.Namespace) -> int:
    opened = _open(args.file)
    if isinstance(opened, str):
        return _fail(opened)
    record, edited = opened
    try:
        n = replay(record)
    except ReplayMismatch as e:
        return _fail(f"replay of {shown(args.file)} differs at {e}", 1)
    if edited:
        return _fail(f"{shown(args.file)} replays identically but {len(edited)} line(s) were edited after the run", 1)
    done = "complete" if record.end is not None else "incomplete (no end line)"
    print(f"{shown(args.file)}: {n} steps replayed identically ({done} record)")
    return 0


def cmd_regrade(args: argparse.Namespace) -> int:
    opened = _open(args.file)
    if isinstance(opened, str):
        return _fail(opened)
    record, edited = opened
    try:
        changed, totals = regrade(record)
    except ReplayMismatch as e:
        return _fail(f"cannot regrade {shown(args.file)}: the world differs from the record at {e}", 1)
    if args.json:
        print(json.dumps({**totals, "changed": [c.__dict__ for c in changed], "edited": edited,
                          "verified": record.chained}, sort_keys=True))
    elif not changed:
        print(f"{shown(args.file)}: all {totals['replies']} replies graded as recorded "
              f"(mean reward {totals['new_mean_reward']:.3f})")
    else:
        table = Table(title=f"{shown(args.file)}: {len(changed)} of {totals['replies']} replies graded differently")
        for col in ("step", "request", "old", "new", "what changed"):
            table.add_column(col)
        for c in changed:
            table.add_row(str(c.step), str(c.request_index), f"{c.old_reward:.3f}", f"{c.new_reward:.3f}",
                          "; ".join(c.changes))
        Console().print(table)
        print(f"mean reward: {totals['old_mean_reward']:.3f} (recorded) -> {totals['new_mean_reward']:.3f} (now)")
    return 1 if changed and args.fail_on_change else 0


def cmd_view(args: argparse.Namespace) -> int:
    return view.cmd_view(args, _open)


def _integrity(record: Any) -> list[str]:
    """Say on stderr which lines of `record` were edited after the run, and what differs; return those lines."""
    if not record.chained:
        print(f"note: {shown(record.source)} carries no integrity hashes (written by an older livesim): edits to it "
              "cannot be detected", file=sys.stderr)
        return []
    found = edits(record)
    for line in found:
        print(f"warning: {line}", file=sys.stderr)
    return found


def cmd_compare(args: argparse.Namespace) -> int:

    try:
        sc = load_scenario(args.scenario)
        specs = [AgentSpec.parse(a) for a in args.agent or []]
        result = compare(sc, specs, parse_seeds(args.seeds), trials=args.trials, n_boot=args.bootstrap,
                         bootstrap_seed=args.bootstrap_seed)
    except DataFileError as e:
        return _fail(e.first)
    except (FileNotFoundError, ValueError, argparse.ArgumentTypeError) as e:
        return _fail(str(e))
    except TypeError as e:  # an agent refused its arguments
        return _fail(f"an agent refused its arguments: {e}")
    if args.json:
        print(json.dumps(result, sort_keys=True))
    else:
        Console(width=None if sys.stdout.isatty() else 160).print(render_comparison(result))
    return 0


def cmd_golden(args: argparse.Namespace) -> int:

    names = args.scenario or bundled_scenarios()
    directory = Path(args.dir) if args.dir else GOLDEN_DIR
    frame_path, frame = directory / GOLDEN_FRAME, frame_text(example_state())
    if args.regenerate:
        for path in regenerate_golden(names, directory):
            print(f"wrote {path}")
        write_text(frame_path, frame, flag="golden")
        print(f"wrote {frame_path}")
        return 0
    diffs = [d for name in names if (d := golden_diff(name, directory))]
    if _read_or_none(frame_path) != frame:
        diffs.append(f"{frame_path}: differs from the frame of livesim.render.dashboard.example_state()")
    for d in diffs:
        print(d, file=sys.stderr)
    print(f"{len(names) + 1 - len(diffs)} of {len(names) + 1} golden files match"
          + ("; after checking the change is intended: livesim golden --regenerate" if diffs else ""))
    return 1 if diffs else 0


def _read_or_none(path: Path) -> str | None:
    try:
        return read_text(path)
    except (FileNotFoundError, PathProblem):
        return None


def cmd_scenarios(args: argparse.Namespace) -> int:
    status = 0
    for name in args.check or bundled_scenarios():
        try:
            sc = load_scenario(name)
        except (DataFileError, FileNotFoundError) as e:
            print(e, file=sys.stderr)
            status = 2
            continue
        if not args.check:
            print(f"{sc.name:28s} {sc.duration_s:5.0f}s seed {sc.seed:<3d} {sc.purpose}")
            continue
        problem = unservable(sc)
        if problem is not None:
            print(f"warning: {shown(problem)}; `livesim run` refuses it", file=sys.stderr)
        print(f"{shown(name)}: ok ({sc.name})" + (", with the warning above" if problem else ""))
        if (why := _cannot_start(sc)) is not None:
            print(f"warning: {shown(name)}: {why}", file=sys.stderr)
    return status


def _cannot_start(sc: Any) -> str | None:
    """Why `livesim run` would refuse the valid scenario `sc` at its own seed (None if it starts)."""
    env = make_stream_env(None, None)
    try:
        env.reset(seed=sc.seed, options=sc.reset_options())
    except ValueError as e:
        return f"with its seed {sc.seed} the stream cannot start ({e}); `livesim run` refuses it"
    finally:
        env.close()
    return None


def register(sub: Any) -> None:
    """Add the scenario and record subcommands, and extend `run`."""
    run = sub.choices["run"]
    fallback = run.get_default("func")
    run.add_argument("--scenario", default=None, help="bundled scenario name or path to a scenario YAML file")
    run.add_argument("--record", default=None, metavar="FILE.jsonl",
                     help="write the run's record (JSONL) here; an existing file is refused unless --force")
    run.add_argument("--force", action="store_true", help="let --record replace an existing file (never an input)")
    run.add_argument("--dashboard", action="store_true", help="show the stream in the terminal dashboard")
    _add_view_args(run, speed=0.0)
    run.set_defaults(func=lambda a: cmd_run(a, fallback), seed=None)
    run._option_string_actions["--seed"].help = "seed of the stream (default: the scenario's own, else 0)"

    p = sub.add_parser("replay", help="re-execute a record's actions; exit 1 at the first difference")
    p.add_argument("file", help="a record written by `livesim run --record`")
    p.set_defaults(func=cmd_replay)
    p = sub.add_parser("regrade", help="re-score a record's replies with the current grader")
    p.add_argument("file", help="a record written by `livesim run --record`")
    p.add_argument("--json", action="store_true", help="print one JSON object")
    p.add_argument("--fail-on-change", action="store_true", help="exit 1 if any reply is graded differently")
    p.set_defaults(func=cmd_regrade)
    p = sub.add_parser("view", help="a record in the dashboard, a request's whole conversation, or a folder of records")
    p.add_argument("file", help="a record (`livesim run --record`), or a folder of them (`livesim eval --record`)")
    _add_view_args(p, speed=10.0)
    view.add_view_args(p)
    p.set_defaults(func=cmd_view)
    p = sub.add_parser("compare", help="A/B: agents on the same scenario seeds, with CIs and pass^k")
    p.add_argument("--agent", action="append", required=True,
                   help="agent, repeat for each arm: NAME, module:Class, or either followed by :key=value,... "
                        "(first is the baseline)")
    p.add_argument("--scenario", required=True, help="bundled scenario name or path")
    p.add_argument("--seeds", default="0-19", help="world seeds, e.g. 0-49 or 1,2,3 (replace the scenario's seed)")
    p.add_argument("--trials", type=int, default=4, help="plays per seed with agent sampling seeds 0..T-1")
    p.add_argument("--bootstrap", type=int, default=10_000, help="bootstrap resamples")
    p.add_argument("--bootstrap-seed", type=int, default=0, help="seed of the bootstrap's generator")
    p.add_argument("--json", action="store_true", help="print one JSON object")
    p.set_defaults(func=cmd_compare)
    p = sub.add_parser("golden", help="check (or --regenerate) the golden records in tests/golden")
    p.add_argument("--regenerate", action="store_true", help="rewrite them from a fresh oracle run")
    p.add_argument("--scenario", action="append", help="only this bundled scenario (repeatable)")
    p.add_argument("--dir", default=None, help="golden folder (default: tests/golden of the source tree)")
    p.set_defaults(func=cmd_golden)
    p = sub.add_parser("scenarios", help="list the bundled scenarios, or --check scenario files")
    p.add_argument("--check", nargs="+", metavar="FILE", help="validate these files (or names)")
    p.set_defaults(func=cmd_scenarios)
