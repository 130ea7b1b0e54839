"""Each suite request's conversation, kept beside its scores, so a table can be audited and re-scored.

A suite result's samples are one gzip-compressed JSONL file, `<cache key>.samples.jsonl.gz`, beside its
`<cache key>.json` (in the evaluation cache and in a results folder's `evals/`): one line per request, in the
order of the result's rows and keyed by the row's `id`. A QA line holds every turn (the model's action as it was
written, the tool calls the env ran with their results, the hook blocks, the tool and env messages that answered
it, real token counts where the agent has a tokenizer), the reply, the grade (terms, scores, missing facts,
accuracy errors, violations) and the row's counters; a T4 line holds the prompt and the whole response.
"""

from __future__ import annotations

import gzip
import io
import json
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from livesim.stream.paths import MAX_PROMPT_FILE_BYTES, PathProblem, read_bytes, read_text, shown, write_bytes

SAMPLES_VERSION = 1
SUFFIX = ".samples.jsonl.gz"
MAX_SAMPLES_BYTES = MAX_PROMPT_FILE_BYTES  # compressed file read at most (and 4x that decompressed)

# outcome name -> (what it means, test on a QA row); `livesim view --outcome` filters by these
OUTCOMES: dict[str, tuple[str, Callable[[dict[str, Any]], bool]]] = {
    "pass": ("accuracy 1 and effectiveness 1", lambda r: r["accuracy"] >= 1.0 and r["effectiveness"] >= 1.0),
    "answered": ("effectiveness > 0", lambda r: r["effectiveness"] > 0),
    "fallback": ("the harness's fallback reply went out", lambda r: bool(r["fallback"])),
    "parse_error": ("at least one unparseable turn", lambda r: int(r.get("parse_errors", 0)) > 0),
    "acc0": ("accuracy 0 (a wrong or unsupported claim, or nothing said)", lambda r: r["accuracy"] <= 0.0),
    "eff0": ("effectiveness 0 (no need of the viewer met)", lambda r: r["effectiveness"] <= 0.0),
    "fail": ("not a pass", lambda r: not (r["accuracy"] >= 1.0 and r["effectiveness"] >= 1.0)),
}
RATES = ("pass", "answered", "fallback", "parse_error")
"""The outcome rates a table shows beside AVG."""


def outcome_rates(rows: Iterable[dict[str, Any]]) -> dict[str, float]:
    """Share of QA rows with each of `RATES` (empty rows: {})."""
    rows = list(rows)
    if not rows:
        return {}
    return {k: sum(OUTCOMES[k][1](r) for r in rows) / len(rows) for k in RATES}


def outcomes_of(row: dict[str, Any]) -> list[str]:
    """The outcome names a QA row has."""
    return [k for k, (_, test) in OUTCOMES.items() if test(row)]


# ------------------------------------------------------------------------------------------------ files
def samples_path(record: str | Path) -> Path:
    """`<key>.json` -> `<key>.samples.jsonl.gz` (any other name gets the suffix appended to its stem)."""
    p = Path(record)
    return p.with_name((p.name[:-5] if p.name.endswith(".json") else p.stem) + SUFFIX)


def encode(samples: list[dict[str, Any]]) -> bytes:
    """Gzip-compressed JSONL, the same bytes for the same samples (no time stamp in the gzip header)."""
    text = "".join(json.dumps(s, sort_keys=True, ensure_ascii=False, default=str) + "\n" for s in samples)
    buf = io.BytesIO()
    with gzip.GzipFile(fileobj=buf, mode="wb", mtime=0, compresslevel=6) as gz:
        gz.write(text.encode("utf-8"))
    return buf.getvalue()


def write_samples(path: str | Path, samples: list[dict[str, Any]], flag: str = "samples") -> Path:
    write_bytes(path, encode(samples), flag=flag)
    return Path(path)


def decode(data: bytes, where: str) -> list[dict[str, Any]]:
    """The lines of a samples file; `PathProblem` (one line naming `where`) when it is not one."""
    try:
        with gzip.GzipFile(fileobj=io.BytesIO(data)) as gz:
            raw = gz.read(4 * MAX_SAMPLES_BYTES + 1)
    except (OSError, EOFError) as e:
        raise PathProblem(f"{where} is not a gzip-compressed samples file ({e})") from None
    if len(raw) > 4 * MAX_SAMPLES_BYTES:
        raise PathProblem(f"{where} holds more than {4 * MAX_SAMPLES_BYTES >> 20} MiB of samples")
    out = []
    for n, line in enumerate(raw.decode("utf-8", errors="replace").splitlines(), start=1):
        if not line.strip():
            continue
        try:
            obj = json.loads(line)
        except ValueError:
            raise PathProblem(f"{where} line {n} is not JSON") from None
        if not isinstance(obj, dict) or "id" not in obj:
            raise PathProblem(f"{where} line {n} is not a sample (an object with an id)")
        out.append(obj)
    return out


def read_samples(path: str | Path) -> list[dict[str, Any]]:
    return decode(read_bytes(path, MAX_SAMPLES_BYTES), shown(path))


def result_samples(result: dict[str, Any]) -> list[dict[str, Any]] | None:
    """A suite result's samples: kept in memory by a fresh evaluation, or the file it was read beside."""
    if result.get("samples") is not None:
        return list(result["samples"])
    path = result.get("samples_file")
    return read_samples(path) if path and Path(path).is_file() else None


TRANSIENT = ("samples", "samples_file", "cache_key")
"""Keys of a suite result that live in memory only (never in its JSON record)."""


def without_transient(result: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in result.items() if k not in TRANSIENT}


# ------------------------------------------------------------------------------------------------ lines
def turn_record(action: Any, calls: list[Any], hooks: list[str], messages: list[dict[str, Any]],
                tokens: tuple[int, int] | None) -> dict[str, Any]:
    """One model turn: its action as written, the tool calls the env ran (canonical, with results), the hook
    blocks, and the tool and env messages that answered it (`messages`: the ones the observation gained).
    """
    answered = []
    for m in messages:
        role = m.get("role")
        if role == "assistant":
            continue  # the env's echo of this very action
        who = f"tool {m.get('name', '')}".rstrip() if role == "tool" else "env"
        answered.append([who, str(m.get("content") or "")])
    out: dict[str, Any] = {"action": action, "calls": [c.model_dump(mode="json") if hasattr(c, "model_dump") else c
                                                       for c in calls],
                           "hooks": list(hooks), "answered": answered}
    if tokens is not None:
        out["tokens"] = {"prompt": tokens[0], "completion": tokens[1]}
    return out


QA_ROW_KEYS = ("subset", "intent", "intents", "reward", "accuracy", "effectiveness", "avg", "fallback", "turns",
               "parse_errors", "latency_sim")
"""The row's counters a QA line repeats (not its measured seconds: a line is the same bytes in any run)."""


def qa_sample(row: dict[str, Any], seed: int, turns: list[dict[str, Any]], info: dict[str, Any] | None
              ) -> dict[str, Any]:
    """A QA request's line: its row's counters, the request, every turn, the reply and its grade."""
    out: dict[str, Any] = {"v": SAMPLES_VERSION, "id": row["id"], "seed": seed,
                           **{k: row[k] for k in QA_ROW_KEYS if k in row}, "turn_log": turns}
    if info is not None:
        out["request"] = (info.get("request") or {}).get("text", "")
        out["reply"] = (info.get("trace") or {}).get("reply", "")
        out["grade"] = info.get("grade")
    tokens = [t["tokens"] for t in turns if "tokens" in t]
    if tokens:
        out["generation"] = {"prompt_tokens": sum(t["prompt"] for t in tokens),
                             "completion_tokens": sum(t["completion"] for t in tokens), "turns": len(turns)}
    return out


def if_sample(row: dict[str, Any], prompt: str, response: str) -> dict[str, Any]:
    """A T4 prompt's line: the prompt, the whole response and the verdict per instruction."""
    return {"v": SAMPLES_VERSION, "id": row["id"], "prompt": prompt, "response": response,
            **{k: row[k] for k in ("instruction_ids", "strict", "loose", "prompt_strict", "prompt_loose")
               if k in row}}


# ------------------------------------------------------------------------------------------------ opening results
@dataclass
class Stored:
    """One evaluated (row, suite) of a results folder or file: its record (with rows) and its samples file."""

    row: str
    suite: str
    result: dict[str, Any] | None
    samples_file: Path | None
    why_none: str = ""  # why there are no samples (or no record)

    @property
    def kind(self) -> str:
        return "if" if self.suite == "T4" else "qa"

    def samples(self) -> list[dict[str, Any]]:
        return read_samples(self.samples_file) if self.samples_file is not None else []


def _load_json(path: Path) -> Any:
    try:
        return json.loads(read_text(path, MAX_SAMPLES_BYTES))
    except ValueError as e:
        if isinstance(e, PathProblem):
            raise
        raise PathProblem(f"{shown(path)} is not JSON ({str(e).splitlines()[0]})") from None


def open_results(path: str | Path) -> list[Stored]:
    """Every (row, suite) that `path` holds: a results folder or its `results.json` (rows -> `evals/<key>.json`
    and samples beside), a `livesim hat eval --out` file (suites with `samples_at`), or one evaluation record
    `<key>.json`. `PathProblem` (one line) when it is none of these.
    """
    p = Path(path)
    if p.is_dir():
        if not (p / "results.json").is_file():
            raise PathProblem(f"{shown(p)} has no results.json; expected a results folder written by "
                              "`livesim hat reproduce`, a `livesim hat eval --out` file or an evaluation record")
        p = p / "results.json"
    if not p.is_file():
        raise PathProblem(f"{shown(p)} does not exist")
    data = _load_json(p)
    if not isinstance(data, dict):
        raise PathProblem(f"{shown(p)} is not a results file (a JSON object)")
    if isinstance(data.get("rows"), list) and "preset" in data:  # a results.json
        return _from_results(data, p.parent)
    if isinstance(data.get("suites"), dict) and "agent" in data:  # hat eval --out
        out = []
        for name, r in data["suites"].items():
            kept = p.parent / r["samples_at"] if r.get("samples_at") else None
            ok = kept is not None and kept.is_file()
            out.append(Stored(str(data["agent"]), name, r, kept if ok else None,
                              "" if ok else "evaluated with --no-samples or its samples file is missing"))
        return out
    if "suite" in data and isinstance(data.get("rows"), list):  # one evaluation record
        kept = samples_path(p)
        return [Stored(str(data.get("agent", p.stem)), str(data["suite"]), data, kept if kept.is_file() else None,
                       "" if kept.is_file() else "no samples beside this record")]
    raise PathProblem(f"{shown(p)} is neither a results.json, a `hat eval --out` file nor an evaluation record")


def _from_results(data: dict[str, Any], folder: Path) -> list[Stored]:
    out = []
    for r in data["rows"]:
        if r.get("status") != "ok":
            continue
        for name, s in (r.get("suites") or {}).items():
            key = (s or {}).get("cache_key")
            record = folder / "evals" / f"{key}.json" if key else None
            if (s or {}).get("scores") is None:
                out.append(Stored(r["row"], name, None, None, (s or {}).get("note") or "not measured"))
                continue
            if record is None or not record.is_file():
                out.append(Stored(r["row"], name, None, None, (s or {}).get("samples_note") or "no evaluation record"))
                continue
            kept = samples_path(record)
            why = "" if kept.is_file() else ((s or {}).get("samples_note") or "no samples beside its record")
            out.append(Stored(r["row"], name, {**_load_json(record), "cache_key": key},
                              kept if kept.is_file() else None, why))
    return out
