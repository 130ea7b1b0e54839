"""`livesim eval`: play an agent over many episodes, batched, with a per-request progress bar and records.

`--record DIR` writes one record per episode (`DIR/seed-00007.jsonl`, the format of `livesim run --record`,
so `view`, `replay` and `regrade` read them) and `DIR/summary.json`. An agent that failed on every request
(an OpenAI-compatible server that cannot be reached) is an error on stderr and exit status 1.
"""

from __future__ import annotations

import argparse
import inspect
import json
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

from livesim.harness import Harness


def resolve_harness(args: argparse.Namespace) -> Harness | None:
    """The canonical harness named by `--harness FILE` and `--prompt-style` (None: the default one)."""
    from livesim.harness_file import harness_with_style, load_harness_file

    path = getattr(args, "harness", None)
    harness = load_harness_file(path) if path else None
    return harness_with_style(harness, getattr(args, "prompt_style", None))


def is_privileged(name: str) -> bool:
    """Agents that read the env (oracle, memorizer, a module:Class taking `env`) play one episode at a time."""
    from livesim.agents import agent_class
    from livesim.envs.rollout import PRIVILEGED_AGENTS

    if name in PRIVILEGED_AGENTS:
        return True
    try:
        return "env" in inspect.signature(agent_class(name)).parameters
    except (ValueError, TypeError):
        return False


def play(make: Callable[[], Any], agent: Any, seeds: list[int], batch_size: int, privileged: bool,
         header: Callable[[int], Any] | None = None, record_dir: Path | None = None,
         on_request: Callable[[dict[str, Any]], None] | None = None,
         on_episode: Callable[[int], None] | None = None, first_env: Any = None) -> Iterator[dict[str, Any]]:
    """Play one episode per seed; yield each dispatched request's info (with `reward` and `episode_seed`).

    A privileged agent (bound to one env) plays the episodes one after another; any other agent acts on
    `batch_size` episodes at once through `act_batch`. With `record_dir`, every episode's record lines are
    written to `record_dir/seed-NNNNN.jsonl` as they happen (`header(seed)` gives each header).
    """
    from livesim.records import EpisodeRecorder, RecordWriter, reset_from_header

    width = 1 if privileged else max(1, min(batch_size, len(seeds)))
    envs = [first_env if first_env is not None else make()] + [make() for _ in range(width - 1)]
    queue = list(seeds)
    live: dict[int, dict[str, Any]] = {}

    def start(i: int) -> None:
        s = queue.pop(0)
        slot: dict[str, Any] = {"seed": s, "writer": None, "rec": None}
        if header is not None:
            obs, first = reset_from_header(envs[i], header(s))
        else:
            obs, _ = envs[i].reset(seed=s)
        if record_dir is not None:
            slot["writer"] = RecordWriter(record_dir / f"seed-{s:05d}.jsonl")
            slot["writer"].write(first)
            slot["rec"] = EpisodeRecorder(envs[i], s)
        slot["obs"] = obs
        live[i] = slot
        if privileged:
            agent.reset()

    for i in range(width):
        if queue:
            start(i)
    try:
        while live:
            idx = sorted(live)
            for i in idx:
                if live[i]["rec"] is not None:
                    live[i]["rec"].before(live[i]["obs"])
            observations = [live[i]["obs"] for i in idx]
            actions = [agent.act(observations[0])] if privileged else agent.act_batch(observations)
            for i, action in zip(idx, actions, strict=True):
                slot = live[i]
                obs, reward, terminated, truncated, info = envs[i].step(action)
                if slot["rec"] is not None:
                    slot["writer"].write(slot["rec"].after(action, reward, terminated, truncated, info))
                if info.get("dispatched"):
                    out = {**info, "reward": reward, "episode_seed": slot["seed"]}
                    if on_request is not None:
                        on_request(out)
                    yield out
                slot["obs"] = obs
                if terminated or truncated:
                    if on_episode is not None:
                        on_episode(slot["seed"])
                    if slot["writer"] is not None:
                        slot["writer"].write(slot["rec"].end())
                        slot["writer"].close()
                    del live[i]
                    if queue:
                        start(i)
    finally:
        for slot in live.values():
            if slot["writer"] is not None:
                slot["writer"].close()


class Progress:
    """A rich progress bar on stderr that advances per request, with tokens/s and an ETA (silent if quiet)."""

    def __init__(self, total: int, unit: str, agent: Any, quiet: bool) -> None:
        self.agent, self.bar, self.done = agent, None, 0
        if quiet:
            return
        from rich.console import Console
        from rich.progress import BarColumn, MofNCompleteColumn, TextColumn, TimeElapsedColumn, TimeRemainingColumn
        from rich.progress import Progress as Bar

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


def _prepare_record_dir(path: str, force: bool) -> Path:
    out = Path(path)
    if out.exists() and not out.is_dir():
        raise SystemExit(f"error: --record {path}: exists and is not a directory; eval writes a folder of records")
    if out.is_dir() and any(out.iterdir()) and not force:
        raise SystemExit(f"error: --record {path}: the folder is not empty; choose another or pass --force")
    out.mkdir(parents=True, exist_ok=True)
    for old in out.glob("seed-*.jsonl"):
        old.unlink()
    return out


def agent_failures(agent: Any) -> tuple[int, int, str | None]:
    """(failed calls, calls, first reason) from an agent's `stats['errors']` and `error_log`."""
    stats = getattr(agent, "stats", None) or {}
    errors, calls = int(stats.get("errors", 0) or 0), int(stats.get("observations", 0) or 0)
    log = getattr(agent, "error_log", None) or []
    return errors, calls, (log[0] if log else None)


def cmd_eval(args: argparse.Namespace) -> int:
    import livesim
    from livesim.cli import _agent_kwargs, _print_table, build_agent, make_env
    from livesim.config import StreamConfig
    from livesim.envs.rollout import summarize
    from livesim.records import RecordHeader
    from livesim.scenario import DataFileError

    try:
        args.harness_obj = resolve_harness(args)
    except DataFileError as e:
        raise SystemExit(f"error: {e}") from None
    seeds = [args.seed + i for i in range(args.episodes)]
    record_dir = _prepare_record_dir(args.record, args.force) if getattr(args, "record", None) else None
    env = make_env(args.env, args)
    kwargs = _agent_kwargs(args)
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
    qa = args.env == "LiveStreamQA-v0"
    progress = Progress(len(seeds), "requests" if qa else "episodes", agent, args.quiet)
    t0 = time.perf_counter()
    records: list[dict[str, Any]] = []
    try:
        for info in play(lambda: make_env(args.env, args), agent, seeds, batch, privileged, header, record_dir,
                         on_request=(lambda _: progress.advance()) if qa else None,
                         on_episode=None if qa else (lambda _: progress.advance()), first_env=env):
            records.append(info)
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
    if record_dir is not None:
        (record_dir / "summary.json").write_text(json.dumps(summary, sort_keys=True, indent=1) + "\n")
    errors, calls, reason = agent_failures(agent)
    if errors:
        print(f"{'error' if errors >= calls else 'warning'}: the agent failed on {errors} of {calls} calls"
              + (f"; first: {reason}" if reason else ""), file=sys.stderr)
    if args.json:
        print(json.dumps(summary, sort_keys=True))
    else:
        _print_table(f"{args.agent} on {args.env}", summary)
    return 1 if errors and errors >= calls else 0


def _jsonable(v: Any) -> bool:
    try:
        json.dumps(v)
        return True
    except (TypeError, ValueError):
        return False
