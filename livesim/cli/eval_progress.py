"""What an `eval --record` folder keeps of finished episodes, so an interrupted run can be summarised and resumed.

Each finished episode appends one line to `DIR/progress.ndjson`: its seed and, per graded request, the figures
`summarize` reads. `--resume` plays only the seeds that have no line there (their partial records are removed)
and summarises the finished ones with the new ones.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from livesim.stream.paths import append_text, read_text, write_text

PROGRESS_FILE = "progress.ndjson"  # not .jsonl: `livesim view DIR` lists the records, *.jsonl
_TRACE_KEYS = ("latency_s", "fallback", "turns", "parse_errors", "tool_calls")


def slim(info: dict[str, Any]) -> dict[str, Any]:
    """The parts of a request's info that `livesim.envs.rollout.summarize` reads (JSON-clean)."""
    out = {"reward": float(info["reward"]), "episode_seed": info["episode_seed"],
           "trace": {k: info["trace"][k] for k in _TRACE_KEYS if k in info["trace"]},
           "grade": {"scores": info["grade"]["scores"]}, "reward_terms": info["reward_terms"],
           "truth": {"intents": list(info["truth"]["intents"])}}
    if "metrics" in info:
        out["metrics"] = info["metrics"]
    return json.loads(json.dumps(out, default=str))


class EpisodeLog:
    """Appends each finished episode's slim requests to `DIR/progress.ndjson` (nothing without a folder)."""

    def __init__(self, record_dir: Path | None) -> None:
        self.path = record_dir / PROGRESS_FILE if record_dir is not None else None
        self.pending: dict[int, list[dict[str, Any]]] = {}

    def request(self, info: dict[str, Any]) -> None:
        if self.path is not None:
            self.pending.setdefault(info["episode_seed"], []).append(slim(info))

    def episode(self, seed: int) -> None:
        if self.path is None:
            return
        append_text(self.path, json.dumps({"seed": seed, "requests": self.pending.pop(seed, [])}, sort_keys=True)
                    + "\n", flag="--record")


def finished(record_dir: Path) -> dict[int, list[dict[str, Any]]]:
    """Seed -> its slim requests, for every episode a previous run of the folder finished.

    A last line cut short by the interruption is ignored (that episode is played again).
    """
    path = record_dir / PROGRESS_FILE
    out: dict[int, list[dict[str, Any]]] = {}
    if not path.is_file():
        return out
    for line in read_text(path).splitlines():
        try:
            row = json.loads(line)
            out[int(row["seed"])] = list(row["requests"])
        except (ValueError, KeyError, TypeError):
            continue
    return out


def prepare_resume(record_dir: Path, seeds: list[int]) -> tuple[list[int], list[dict[str, Any]]]:
    """(seeds still to play, the finished ones' requests); removes the partial records of unfinished seeds."""
    done = finished(record_dir)
    todo = [s for s in seeds if s not in done]
    for s in todo:
        (record_dir / f"seed-{s:05d}.jsonl").unlink(missing_ok=True)
    # the progress file is rewritten with the finished episodes only (a cut line goes)
    write_text(record_dir / PROGRESS_FILE, "".join(json.dumps({"seed": s, "requests": done[s]}, sort_keys=True)
                                                   + "\n" for s in seeds if s in done), flag="--record")
    return todo, [r for s in seeds if s in done for r in done[s]]
