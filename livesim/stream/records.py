"""Run records (JSONL): a versioned header, one line per env step, an end line; each flushed as it is written.

`livesim.runs.episode.run_episode` plays an agent (or a record's own actions) in `LiveStream-v0` and yields
those lines; `RecordWriter` writes them; `read_record` refuses a truncated or malformed file, naming the line and field;
`observations` rebuilds what the agent saw from the deltas. Replay and regrade: `livesim.runs.replay`.
"""

from __future__ import annotations

import contextlib
import difflib
import hashlib
import json
import os
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any, Final, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from livesim.grading.terms import Grade, ToolCallRecord
from livesim.harness.core import Harness
from livesim.parsing.safety import clean_text, lone_surrogate, sanitize_action
from livesim.stream.config import StreamConfig
from livesim.stream.integrity import HASH_KEY, ChainBreak, HashChain, verify_chain
from livesim.stream.paths import PathProblem, open_output, shown
from livesim.stream.scenario import DataFileError, Problem, field_path
from livesim.stream.yaml_safe import FileProblem, read_text_file

FORMAT_VERSION = 1
ENV_ID: Final = "LiveStream-v0"
ENV_IDS = ("LiveStream-v0", "LiveStreamQA-v0")
# Header fields added after format 1 was published: written only when set, so older records stay byte-equal.
_OPTIONAL_HEADER = ("split", "hsa_p", "harness")


class _Line(BaseModel):
    model_config = ConfigDict(extra="forbid")


class RecordHeader(_Line):
    """Line 1: everything needed to rebuild the episode's env (actions come from the step lines)."""

    kind: Literal["header"] = "header"
    format_version: int = Field(FORMAT_VERSION, description="Record format; readers refuse newer ones.")
    livesim_version: str = Field(description="The livesim that wrote the record.")
    env_id: Literal["LiveStream-v0", "LiveStreamQA-v0", "LiveStream-v1", "LiveStreamQA-v1"] = ENV_ID
    scenario: str | None = Field(None, description="Scenario name, if the run came from one.")
    purpose: str | None = None
    seed: int = Field(ge=0, lt=2**63, description="The seed passed to env.reset.")
    config: StreamConfig = Field(description="The full stream config (the scenario's, resolved).")
    agent: str
    agent_kwargs: dict[str, Any] = Field(default_factory=dict)
    wrappers: str | None = Field(None, max_length=1000,
                                 description="HSA wrappers around the env, as for `livesim run --wrappers`.")
    hsa_split: Literal["train", "heldout", "stress"] | None = None
    hsa_p: float | None = Field(None, ge=0.0, le=1.0,
                                description="Probability of each HSA transform (None: the default 2/3).")
    split: str | None = Field(None, max_length=100,
                              description="Request split of LiveStreamQA-v0 (None: the env's default).")
    harness: Harness | None = Field(None, description="The canonical harness given to the env (None: the default).")
    harness_fingerprint: str = Field("", description="Presented harness at reset.")
    harness_version: int = 0

    @field_validator("format_version")
    @classmethod
    def _readable(cls, v: int) -> int:
        if v != FORMAT_VERSION:
            raise ValueError(f"format_version {v} is not readable by this livesim (it reads {FORMAT_VERSION})")
        return v


class CommentView(_Line):
    t: float
    viewer_id: str
    name: str
    text: str


class RequestView(_Line):
    """A request as the host received it, with the intents and links of its ground truth."""

    index: int
    t: float
    comments: list[CommentView]
    intents: list[str]
    targets: list[int] = Field(default_factory=list)


class RoomView(_Line):
    """The live room: pinned link and the promotions running (written when it changed)."""

    pinned_link: int
    pinned_name: str = ""
    viewers_online: int = 0
    coupons: list[dict[str, Any]] = Field(default_factory=list)
    flash_sales: list[dict[str, Any]] = Field(default_factory=list)
    bundles: list[dict[str, Any]] = Field(default_factory=list)
    gifts: list[dict[str, Any]] = Field(default_factory=list)


class ModelCall(_Line):
    """How the agent's model call for a step went (agents that call a model server; absent for the others)."""

    outcome: Literal["answered", "retried", "failed"]
    attempts: int = Field(1, ge=1, description="HTTP requests the call took.")
    retries: list[str] = Field(default_factory=list, description="Why each retried attempt failed.")
    error: str | None = Field(None, description="Why the call failed: its action is no model reply.")


class StepRecord(_Line):
    """One env step: what the agent saw (as a delta), what it did, and what came of it."""

    kind: Literal["step"] = "step"
    step: int = Field(ge=0)
    clock_s: float = Field(description="Stream clock when the agent acted.")
    request_index: int
    request: RequestView | None = Field(None, description="Set on the first step of a request.")
    messages: list[dict[str, Any]] = Field(default_factory=list,
                                           description="New messages; a system prompt as a line diff.")
    tools: list[dict[str, Any]] | None = Field(None, description="Presented tool schemas, when they changed.")
    last_patch: str | None = Field(None, description="The harness's last patch, when it changed.")
    room: RoomView | None = Field(None, description="The room, when it changed.")
    action: str | dict[str, Any]
    tool_calls: list[ToolCallRecord] = Field(default_factory=list,
                                             description="Canonical calls; their results are in `messages`.")
    hooks: list[str] = Field(default_factory=list, description="Hook blocks this step ('hook: reason').")
    dispatched: bool = False
    reward: float = 0.0
    grade: Grade | None = Field(None, description="Terms, scores, missing facts and errors of the reply.")
    reply: str | None = None
    fallback: bool = False
    latency_s: float | None = None
    metrics: dict[str, Any] | None = Field(None, description="Running business metrics after a dispatch.")
    harness_fingerprint: str
    harness_version: int
    terminated: bool = False
    truncated: bool = False
    call: ModelCall | None = Field(None, description="The agent's model call for this step (model-server agents).")
    unmeasured: str | None = Field(None, description="On a dispatch: why the reply measures no model (a failed "
                                   "call during the request); left out of the summary's means.")


class RecordEnd(_Line):
    """Last line of a complete record."""

    kind: Literal["end"] = "end"
    steps: int
    summary: dict[str, Any]


RecordLine = RecordHeader | StepRecord | RecordEnd
_KINDS: dict[str, type[_Line]] = {"header": RecordHeader, "step": StepRecord, "end": RecordEnd}


def dump_line(line: RecordLine) -> str:
    """One JSON line; steps omit fields at their defaults, the header is written in full. Always valid UTF-8."""
    if isinstance(line, RecordHeader):
        return clean_text(line.model_dump_json(exclude={k for k in _OPTIONAL_HEADER if getattr(line, k) is None}))
    return clean_text(json.dumps({"kind": line.kind, **line.model_dump(mode="json", exclude_defaults=True)},
                                 ensure_ascii=False, separators=(",", ":"), allow_nan=False))


def seal_lines(lines: Iterable[RecordLine]) -> Iterator[str]:
    """The text of each line as a record file holds it: JSON with its integrity hash, without the newline."""
    chain = HashChain()
    for line in lines:
        yield chain.seal(dump_line(line))


@dataclass
class Record:
    header: RecordHeader
    steps: list[StepRecord] = field(default_factory=list)
    end: RecordEnd | None = None
    source: str = "<record>"
    chained: bool = False
    """Whether the lines carry integrity hashes (records written before they existed do not)."""
    breaks: list[ChainBreak] = field(default_factory=list)
    """Lines whose hash does not match: edited after the run (see `livesim.stream.integrity`)."""

    def lines(self) -> Iterator[RecordLine]:
        yield self.header
        yield from self.steps
        if self.end is not None:
            yield self.end


class RecordError(DataFileError):
    kind = "record"


# --- reading ----------------------------------------------------------------------------------------------
def parse_record(text: str, source: str = "<record>") -> Record:
    """Validate a record; raise `RecordError` naming the line and field of the first problems."""
    # a record copied through a Windows tool ends its lines in CRLF; the CR is no part of the line (JSON escapes
    # every CR inside a string), so the integrity chain is checked without it
    lines = [x[:-1] if x.endswith("\r") else x for x in text.split("\n")]
    if lines and lines[-1] == "":
        lines.pop()
    elif lines:
        raise RecordError(source, [Problem("", len(lines), "truncated: the last line has no newline (the run "
                                           "stopped while writing it); delete it to keep the steps before it")])
    if not lines:
        raise RecordError(source, [Problem("", 1, "the file is empty; expected a header line")])
    problems: list[Problem] = []
    parsed: list[RecordLine] = []
    for n, raw in enumerate(lines, start=1):
        if len(problems) >= 10:
            break
        line, probs = _parse_line(raw, n, expect_header=n == 1)
        if n == 1 and probs and probs[0].field in ("", "kind"):  # not a record at all: say so once
            raise RecordError(source, [Problem(probs[0].field, 1, "not a livesim record: " + probs[0].message)])
        problems += probs
        if line is None:
            continue
        prev = parsed[-1] if parsed else None
        expected = 0 if not isinstance(prev, StepRecord) else prev.step + 1
        if isinstance(prev, RecordEnd):
            problems.append(Problem("kind", n, "a line after the end line"))
        elif isinstance(line, StepRecord) and line.step != expected:
            problems.append(Problem("step", n, f"expected step {expected}, got {line.step} (a line is missing "
                                    "or out of order)"))
        elif isinstance(line, RecordEnd) and line.steps != expected:
            problems.append(Problem("steps", n, f"the end line counts {line.steps} steps, the record has {expected}"))
        parsed.append(line)
    if problems:
        raise RecordError(source, problems)
    header = parsed[0]
    assert isinstance(header, RecordHeader)
    end = parsed[-1] if isinstance(parsed[-1], RecordEnd) else None
    chained, breaks = verify_chain(lines)
    return Record(header, [x for x in parsed if isinstance(x, StepRecord)], end, source, chained, breaks)


MAX_LINE_DEPTH = 48  # a step line nests about 12 deep (grade errors, tool-call arguments)


def _reject_constant(name: str) -> Any:
    raise ValueError(f"{name} is not a finite number")


def _depth(obj: Any, limit: int) -> bool:
    """Whether `obj` nests at most `limit` levels (iterative, so any depth is measured safely)."""
    stack = [(obj, 0)]
    while stack:
        x, d = stack.pop()
        if d > limit:
            return False
        if isinstance(x, dict):
            stack.extend((v, d + 1) for v in x.values())
        elif isinstance(x, list):
            stack.extend((v, d + 1) for v in x)
    return True


def _parse_line(raw: str, n: int, expect_header: bool) -> tuple[RecordLine | None, list[Problem]]:
    try:
        data = json.loads(raw, parse_constant=_reject_constant)
    except json.JSONDecodeError as e:
        return None, [Problem("", n, f"not valid JSON ({e.msg} at column {e.colno})")]
    except RecursionError:
        return None, [Problem("", n, f"not valid JSON (nested more than {MAX_LINE_DEPTH} levels)")]
    except ValueError as e:  # NaN / Infinity, or an integer of more than 4,300 digits
        return None, [Problem("", n, f"not valid JSON ({str(e).splitlines()[0][:120]})")]
    if not isinstance(data, dict):
        return None, [Problem("", n, f"expected a JSON object, got {type(data).__name__}")]
    if not _depth(data, MAX_LINE_DEPTH):
        return None, [Problem("", n, f"nested more than {MAX_LINE_DEPTH} levels (no record line does)")]
    if "\\u" in raw and (where := lone_surrogate(data)) is not None:
        return None, [Problem(field_path(where), n, "not valid Unicode (a lone surrogate escape)")]
    data.pop(HASH_KEY, None)
    if data.get("kind") == "step" and "action" in data:
        action = data["action"]
        if sanitize_action(action).action != action:
            return None, [Problem("action", n, "not an action as livesim records it (unbounded, or not JSON data "
                                  "the env reads as is)")]
    kind = data.get("kind")
    if kind not in _KINDS:
        return None, [Problem("kind", n, f"unknown kind {kind!r}; expected one of {sorted(_KINDS)}")]
    if expect_header != (kind == "header"):
        msg = f"expected the header first, got kind {kind!r}" if expect_header else "a second header line"
        return None, [Problem("kind", n, msg)]
    try:
        return _KINDS[kind].model_validate(data), []  # type: ignore[return-value]
    except ValidationError as e:
        return None, [Problem(field_path(x["loc"]), n, x["msg"]) for x in e.errors()]


MAX_RECORD_BYTES = 512 << 20


def read_record(path: str | Path) -> Record:
    """Read and validate a record file (`FileNotFoundError` if there is none; `RecordError` otherwise)."""
    if Path(path).is_dir():
        raise RecordError(str(path), [Problem("", None, "is a directory; expected one record file (.jsonl)")])
    try:
        text = read_text_file(path, MAX_RECORD_BYTES)
    except FileProblem as e:
        raise RecordError(str(path), [Problem("", None, str(e))]) from None
    return parse_record(text, str(path))


class RecordWriter:
    """Writes record lines, flushing each, so a crash loses at most the line being written.

    The file is opened by `livesim.stream.paths.open_output`: never through a symbolic link, never over one of
    `inputs`, an existing file only with `overwrite`, and locked, so a second writer is refused (`PathProblem`).
    """

    def __init__(self, path: str | Path, overwrite: bool = True, inputs: Iterable[str | Path] = (),
                 flag: str = "--record") -> None:
        self.path = Path(path)
        self._flag = flag
        self._f: IO[str] = open_output(self.path, inputs=inputs, force=overwrite, flag=flag)
        self._id = (lambda st: (st.st_dev, st.st_ino))(os.fstat(self._f.fileno()))
        self._chain = HashChain()

    def write(self, line: RecordLine) -> None:
        try:
            self._f.write(self._chain.seal(dump_line(line)) + "\n")
            self._f.flush()
        except OSError as e:
            self._abort(e)

    def close(self) -> None:
        if self._f.closed:
            return
        try:
            self._f.close()
        except OSError as e:
            self._abort(e)

    def discard(self) -> None:
        """Close and remove the record (still the file this writer created): a run that cannot finish it."""
        with contextlib.suppress(OSError):
            self._f.close()
        with contextlib.suppress(OSError):
            st = os.lstat(self.path)
            if (st.st_dev, st.st_ino) == self._id:
                os.unlink(self.path)

    def _abort(self, e: OSError) -> None:
        """A write the disk refused (full, I/O error): the partial record is removed (a record that stops short
        would read as an incomplete run), and the refusal is one line (`PathProblem`).
        """
        self.discard()
        raise PathProblem(f"{self._flag} {shown(self.path)}: cannot write it ({e.strerror or e}); the partial "
                          "record was removed") from None

    def __enter__(self) -> RecordWriter:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


# --- observation deltas -----------------------------------------------------------------------------------
def _line_diff(old: str, new: str) -> list[list[Any]]:
    """Opcodes [i1, i2, new_lines] turning `old` into `new`, line by line."""
    a, b = old.split("\n"), new.split("\n")
    ops = difflib.SequenceMatcher(a=a, b=b, autojunk=False).get_opcodes()
    return [[i1, i2, b[j1:j2]] for tag, i1, i2, j1, j2 in ops if tag != "equal"]


def apply_diff(old: str, ops: list[list[Any]]) -> str:
    lines = old.split("\n")
    for i1, i2, new in reversed(ops):
        lines[i1:i2] = new
    return "\n".join(lines)


def content_ref(content: Any) -> str | None:
    if not isinstance(content, str) or len(content) < 64:
        return None
    return hashlib.sha256(content.encode()).hexdigest()[:16]


def _digest(obj: Any) -> str:
    return hashlib.sha256(json.dumps(obj, sort_keys=True, default=str).encode()).hexdigest()


class Observer:
    """Turns successive observations into deltas: new messages, changed tools, room and patch."""

    def __init__(self) -> None:
        self.request: int | None = None
        self.seen = 0
        self.system = ""
        self.tools = ""
        self.room: RoomView | None = None
        self.patch: str | None = None
        self.contents: set[str] = set()

    def __call__(self, obs: dict[str, Any], sim: Any) -> dict[str, Any]:
        out: dict[str, Any] = {}
        msgs = obs["messages"]
        if sim.request.index != self.request:
            self.request, self.seen = sim.request.index, 0
            r = sim.request
            out["request"] = RequestView(index=r.index, t=r.t, intents=r.truth.intents, targets=r.truth.targets,
                                         comments=[CommentView(t=c.t, viewer_id=c.viewer_id, name=c.name,
                                                               text=c.text) for c in r.comments])
        delta = [dict(m) for m in msgs[self.seen:]]
        self.seen = len(msgs)
        for m in delta:  # a long content seen before (skill texts, promotions) is written once
            if m["role"] != "system" and (ref := content_ref(m.get("content"))):
                if ref in self.contents:
                    m["content_ref"] = ref
                    del m["content"]
                self.contents.add(ref)
        if delta and delta[0]["role"] == "system" and self.system:
            content = delta[0].pop("content")
            delta[0]["diff"] = _line_diff(self.system, content)
            self.system = content
        elif delta and delta[0]["role"] == "system":
            self.system = delta[0]["content"]
        out["messages"] = delta
        if (d := _digest(obs["tools"])) != self.tools:
            self.tools, out["tools"] = d, obs["tools"]
        if (room := room_view(sim)) != self.room:
            self.room = out["room"] = room
        if sim.harness.last_patch != self.patch:
            self.patch = out["last_patch"] = sim.harness.last_patch
        return out


def room_view(sim: Any) -> RoomView:
    room, cat = sim.room, sim.catalog
    pinned = cat.by_link(room.pinned_link)
    return RoomView(
        pinned_link=room.pinned_link, pinned_name=pinned.short_name if pinned else "",
        viewers_online=room.viewers_online,
        coupons=[c.model_dump(include={"code", "discount", "threshold", "remaining", "issuable", "links"})
                 for c in room.active_coupons()],
        flash_sales=[f.model_dump() for f in room.flash_sales if f.active(room.clock_s)],
        bundles=[b.model_dump() for b in room.bundles], gifts=[g.model_dump() for g in room.gifts])


def observations(record: Record) -> Iterator[dict[str, Any]]:
    """Rebuild, from the deltas, the observation the agent saw before each step."""
    messages: list[dict[str, Any]] = []
    tools: list[dict[str, Any]] = []
    system = ""
    contents: dict[str, str] = {}
    for s in record.steps:
        if s.request is not None:
            messages = []
        for m in s.messages:
            m = dict(m)
            if "diff" in m:
                m["content"] = apply_diff(system, m.pop("diff"))
            if "content_ref" in m:
                m["content"] = contents[m.pop("content_ref")]
            if m["role"] == "system":
                system = m["content"]
            elif ref := content_ref(m.get("content")):
                contents[ref] = m["content"]
            messages.append(m)
        tools = s.tools if s.tools is not None else tools
        yield {"messages": [dict(m) for m in messages], "tools": tools}
