"""Replay, regrade and golden transcripts: re-executing a record's actions in a fresh env from its header.

`replay` stops at the first difference (step, record line, field); `regrade` re-scores the replies with the
current grader; the golden records in tests/golden (the oracle on every bundled scenario) are checked by
`check_golden` and rewritten only by `livesim golden --regenerate`.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pydantic import BaseModel

import livesim
from livesim.agents import make_agent
from livesim.envs.rollout import PRIVILEGED_AGENTS
from livesim.runs.episode import header_env, make_stream_env, run_episode
from livesim.stream.integrity import HASH_KEY
from livesim.stream.paths import PathProblem, read_text, shown, write_text
from livesim.stream.records import (
    MAX_RECORD_BYTES,
    Record,
    RecordHeader,
    RecordLine,
    StepRecord,
    parse_record,
    seal_lines,
)
from livesim.stream.scenario import load_scenario

GOLDEN_DIR = Path(__file__).resolve().parents[2] / "tests" / "golden"
GOLDEN_AGENT = "oracle"
GOLDEN_FRAME = "dashboard_frame.txt"  # the frame of livesim.render.dashboard.example_state(), width 100


class _Actions:
    """Plays back a record's actions (and how its model calls went); stops the episode where the record stops."""

    def __init__(self, actions: list[Any], calls: list[Any] | None = None) -> None:
        self.actions = actions
        self.calls = calls or [None] * len(actions)
        self.last_calls: list[dict[str, Any]] = []
        self.i = 0

    def reset(self) -> None:
        self.i = 0

    def act(self, observation: Any) -> Any:
        if self.i >= len(self.actions):
            raise _RecordExhausted
        self.i += 1
        call = self.calls[self.i - 1]
        self.last_calls = [call.model_dump()] if call is not None else []
        return self.actions[self.i - 1]


class _RecordExhausted(Exception):
    pass


def _normal(line: BaseModel) -> dict[str, Any]:
    return json.loads(line.model_dump_json())


def first_diff(a: Any, b: Any, path: str = "") -> tuple[str, Any, Any] | None:
    """The first place two JSON values differ: (dotted path, a's value, b's value)."""
    if isinstance(a, dict) and isinstance(b, dict):
        for k in list(a) + [k for k in b if k not in a]:
            if (d := first_diff(a.get(k), b.get(k), f"{path}.{k}" if path else k)) is not None:
                return d
        return None
    if isinstance(a, list) and isinstance(b, list) and len(a) == len(b):
        for i, (x, y) in enumerate(zip(a, b, strict=True)):
            if (d := first_diff(x, y, f"{path}[{i}]")) is not None:
                return d
        return None
    return None if a == b else (path, a, b)


class ReplayMismatch(AssertionError):
    """The replay differed from the record: at which step (and record line), in which field."""

    def __init__(self, step: int | None, field: str, recorded: Any, replayed: Any) -> None:
        self.step, self.field, self.recorded, self.replayed = step, field, recorded, replayed
        where = f"step {step} (record line {step + 2})" if step is not None else "header"
        super().__init__(f"{where}: {field}: recorded {_short(recorded)}, replayed {_short(replayed)}")


def _short(x: Any) -> str:
    s = json.dumps(x, default=str)
    return s if len(s) <= 160 else s[:157] + "..."


def replay_lines(record: Record) -> Iterator[RecordLine]:
    """Re-execute the record's actions in a fresh env built from its header; yield the new lines."""
    env = header_env(record.header)
    h = record.header
    agent = _Actions([s.action for s in record.steps], [s.call for s in record.steps])
    lines = run_episode(env, agent, h)
    try:
        yield from lines
    except _RecordExhausted:
        return


def replay(record: Record) -> int:
    """Replay `record`; raise `ReplayMismatch` at the first difference; return the number of steps checked."""
    n = 0
    for new in replay_lines(record):
        if isinstance(new, RecordHeader):
            for k in ("harness_fingerprint", "harness_version"):
                if getattr(new, k) != getattr(record.header, k):
                    raise ReplayMismatch(None, k, getattr(record.header, k), getattr(new, k))
        elif isinstance(new, StepRecord):
            if n >= len(record.steps):
                raise ReplayMismatch(n, "step", "end of record", "the episode goes on")
            if (d := first_diff(_normal(record.steps[n]), _normal(new))) is not None:
                raise ReplayMismatch(n, *d)
            n += 1
        elif record.end is not None and (d := first_diff(_normal(record.end), _normal(new))) is not None:
            raise ReplayMismatch(n, f"end.{d[0]}", d[1], d[2])
    if n < len(record.steps):
        raise ReplayMismatch(n, "step", f"the record goes on to step {len(record.steps) - 1}", "the episode ended")
    return n


def edits(record: Record) -> list[str]:
    """One line per line of `record` edited after the run (its integrity hash breaks), saying what differs
    from a replay of the record's actions: `file:line: step N: field: the record says X, a replay gives Y`.
    """
    if not record.breaks:
        return []
    steps: dict[int, StepRecord] = {}
    end: Any = None
    try:
        for line in replay_lines(record):
            if isinstance(line, StepRecord):
                steps[line.step] = line
            elif not isinstance(line, RecordHeader):
                end = line
    except Exception as e:  # the edited record may not even replay: say so rather than fail
        end = f"the replay stopped ({type(e).__name__}: {str(e).splitlines()[0][:100] if str(e) else ''})"
    out = []
    n_steps = len(record.steps)
    for b in record.breaks:
        where = f"{shown(record.source)}:{b.line}: {b.why}"
        if b.line == 1:
            out.append(f"{where}; the header was changed, so the replay itself runs from the changed header")
            continue
        step = b.line - 2
        if step < n_steps:
            recorded: Any = record.steps[step]
            replayed: Any = steps.get(step)
            label = f"step {step}"
        else:
            recorded, replayed, label = record.end, end, "end line"
        if isinstance(replayed, str) or replayed is None:
            out.append(f"{where}; {label}: {replayed or 'the replay has no such line'}")
            continue
        d = first_diff(_normal(recorded), _normal(replayed))
        out.append(f"{where}; {label}: " + (f"{d[0]}: the record says {_short(d[1])}, a replay gives {_short(d[2])}"
                                           if d else "a replay gives the same values (the change is in formatting "
                                                     "or in a field replays do not produce)"))
    return out


@dataclass
class Regraded:
    """One reply whose grade changed: old and new reward, and the first differences."""

    step: int
    request_index: int
    old_reward: float
    new_reward: float
    changes: list[str]


def regrade(record: Record) -> tuple[list[Regraded], dict[str, float]]:
    """Re-score the record's replies with the current grader (the world must be unchanged)."""
    out: list[Regraded] = []
    old_total = new_total = 0.0
    n = 0
    for new in replay_lines(record):
        if not isinstance(new, StepRecord) or new.step >= len(record.steps):
            continue
        old = record.steps[new.step]
        if (d := first_diff(_normal(old.request) if old.request else None,
                            _normal(new.request) if new.request else None)) is not None:
            raise ReplayMismatch(new.step, f"request.{d[0]}", d[1], d[2])
        if not old.dispatched:
            continue
        n += 1
        old_total, new_total = old_total + old.reward, new_total + new.reward
        changes = _grade_changes(_normal(old.grade) if old.grade else {}, _normal(new.grade) if new.grade else {})
        if changes or old.reward != new.reward:
            out.append(Regraded(new.step, new.request_index, old.reward, new.reward, changes))
    return out, {"replies": n, "old_mean_reward": old_total / max(n, 1), "new_mean_reward": new_total / max(n, 1)}


def _grade_changes(old: dict[str, Any], new: dict[str, Any]) -> list[str]:
    out = []
    for k in ("scores", "terms"):
        a, b = old.get(k, {}), new.get(k, {})
        out += [f"{k}.{x}: {a.get(x)} -> {b.get(x)}" for x in sorted(set(a) | set(b)) if a.get(x) != b.get(x)]
    return out + [f"{k}: {old.get(k)} -> {new.get(k)}" for k in ("missing", "errors") if old.get(k) != new.get(k)]


# --- golden transcripts -----------------------------------------------------------------------------------
def scenario_lines(name_or_path: str, agent_name: str = GOLDEN_AGENT, seed: int | None = None,
                   agent_kwargs: dict[str, Any] | None = None) -> Iterator[RecordLine]:
    """Run a scenario with a registered agent (privileged ones get the env); yield its record lines."""
    sc = load_scenario(name_or_path)
    env = make_stream_env()
    kwargs = dict(agent_kwargs or {})
    agent = make_agent(agent_name, **kwargs, **({"env": env} if agent_name in PRIVILEGED_AGENTS else {}))
    header = RecordHeader(livesim_version=livesim.__version__, scenario=sc.name, purpose=sc.purpose,
                          seed=sc.seed if seed is None else seed, config=sc.to_config(), agent=agent_name,
                          agent_kwargs=kwargs)
    return run_episode(env, agent, header)


def golden_path(name: str, directory: Path = GOLDEN_DIR) -> Path:
    return directory / f"{name}.{GOLDEN_AGENT}.jsonl"


def golden_text(name: str) -> str:
    """The golden record of a bundled scenario, as this livesim writes it now."""
    return "".join(text + "\n" for text in seal_lines(scenario_lines(name)))


def _unversioned(text: str) -> list[str]:
    lines = text.splitlines()
    for i, line in enumerate(lines):  # the integrity hashes chain the header's version into every line
        data = json.loads(line)
        data.pop(HASH_KEY, None)
        if i == 0:
            data.pop("livesim_version", None)
        lines[i] = json.dumps(data, sort_keys=True)
    return lines


def golden_diff(name: str, directory: Path = GOLDEN_DIR) -> str | None:
    """None if the checked-in golden record matches a fresh run (livesim_version aside), else where not."""
    path = golden_path(name, directory)
    try:
        text = read_text(path, MAX_RECORD_BYTES)
    except FileNotFoundError:
        return f"{shown(path)}: missing (run `livesim golden --regenerate`)"
    except PathProblem as e:
        return f"{shown(path)}: {e}"
    want, got = _unversioned(text), _unversioned(golden_text(name))
    for n, (a, b) in enumerate(zip(want, got, strict=False), start=1):
        if a != b:
            d = first_diff(json.loads(a), json.loads(b))
            where = f"{d[0]}: golden {_short(d[1])}, now {_short(d[2])}" if d else "line differs"
            return f"{path}:{n}: {where}"
    if len(want) != len(got):
        return f"{path}: golden has {len(want)} lines, a fresh run {len(got)}"
    return None


def regenerate_golden(names: list[str], directory: Path = GOLDEN_DIR) -> list[Path]:
    """Rewrite the golden records of `names` (a deliberate act: review the diff before committing)."""
    directory.mkdir(parents=True, exist_ok=True)
    out = []
    for name in names:
        text = golden_text(name)
        parse_record(text, name)  # never write a record this livesim cannot read back
        write_text(golden_path(name, directory), text, flag="golden")
        out.append(golden_path(name, directory))
    return out
