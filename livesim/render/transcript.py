"""The whole conversation of each request in a record: the comments, every model turn's text and tool calls,
the tool results and hook or parser messages the env answered with, and the reply with its grade terms.

`conversations(record)` folds a record's steps into `RequestTranscript`s; `markdown(...)` writes them as plain
Markdown (what `livesim view --transcript` prints, escaped by `livesim.render.terminal.visible`);
`dashboard.render` shows the same turns, shorter.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from livesim.grading.terms import Grade, ToolCallRecord
from livesim.harness.core import default_harness
from livesim.render.terminal import visible
from livesim.stream.records import CommentView, Record, apply_diff, content_ref


def clock(seconds: float) -> str:
    s = int(seconds)
    return f"{s // 60:02d}:{s % 60:02d}"


@dataclass
class Turn:
    """One model turn: what the env added before it (tool results, hook and parser messages) and what it said."""

    step: int
    clock_s: float
    inputs: list[tuple[str, str]] = field(default_factory=list)  # (who, text): "tool NAME", "env"
    text: str = ""
    tool_calls: list[ToolCallRecord] = field(default_factory=list)
    hooks: list[str] = field(default_factory=list)


@dataclass
class RequestTranscript:
    """One request from its comments to its reply."""

    index: int
    t: float
    comments: list[CommentView]
    intents: list[str]
    targets: list[int]
    system: str = ""
    turns: list[Turn] = field(default_factory=list)
    reply: str | None = None
    fallback: bool = False
    reward: float | None = None
    grade: Grade | None = None
    latency_s: float | None = None

    @property
    def viewers(self) -> list[str]:
        """The names the reply answers, in order of their first comment."""
        return list(dict.fromkeys(c.name for c in self.comments))


def action_text(action: str | dict[str, Any]) -> str:
    """The model's output as it was written: a raw string, or an assistant message's content and tool calls."""
    if isinstance(action, str):
        return action
    parts = [str(action.get("content") or "")]
    for call in action.get("tool_calls") or []:
        fn = call.get("function", call) if isinstance(call, dict) else call
        parts.append(json.dumps(fn, ensure_ascii=False, default=str))
    return "\n".join(p for p in parts if p)


def conversations(record: Record) -> list[RequestTranscript]:
    """Every request of `record`, in order, with all its turns (long repeated contents resolved)."""
    out: list[RequestTranscript] = []
    system, contents = "", dict[str, str]()
    for s in record.steps:
        if s.request is not None or not out:
            r = s.request
            out.append(RequestTranscript(index=s.request_index, t=r.t if r else s.clock_s,
                                         comments=list(r.comments) if r else [], intents=list(r.intents) if r else [],
                                         targets=list(r.targets) if r else []))
        req = out[-1]
        turn = Turn(step=s.step, clock_s=s.clock_s, text=action_text(s.action), tool_calls=list(s.tool_calls),
                    hooks=list(s.hooks))
        first_user = True
        for m in s.messages:
            m = dict(m)
            if "diff" in m:
                m["content"] = apply_diff(system, m.pop("diff"))
            if "content_ref" in m:
                m["content"] = contents.get(m.pop("content_ref"), "(content not in this record)")
            content = m.get("content") or ""
            if m["role"] == "system":
                system = req.system = content
                continue
            if ref := content_ref(content):
                contents[ref] = content
            if m["role"] == "assistant":
                continue  # the env's echo of the previous turn: its text is that turn's action
            if m["role"] == "tool":
                turn.inputs.append((f"tool {m.get('name', '')}".rstrip(), content))
            elif m["role"] == "user" and first_user and s.request is not None:
                first_user = False  # the merged comments, shown from the request's own view
            else:
                turn.inputs.append(("env", content))
        req.system = req.system or system
        req.turns.append(turn)
        if s.dispatched:
            req.reply, req.fallback, req.reward, req.grade, req.latency_s = (s.reply, s.fallback, s.reward, s.grade,
                                                                              s.latency_s)
    return out


def call_text(c: ToolCallRecord) -> str:
    call = f"{c.name}({', '.join(f'{k}={v!r}' for k, v in c.arguments.items())})"
    return call if c.ok else f"{call} FAILED: {c.error_kind}" + (f" ({c.error})" if c.error else "")


def _fence(text: str) -> list[str]:
    ticks = "```"
    while ticks in text:
        ticks += "`"
    return [ticks + "text", text, ticks]


def grade_lines(grade: Grade) -> list[str]:
    """The reward terms (weighted) with their raw scores, then what was missing or wrong."""
    terms = ", ".join(f"{k} {v:.3f} ({grade.scores.get(k, 0):.2f})" for k, v in grade.terms.items())
    out = [f"terms (weighted, raw score in brackets): {terms}"]
    if grade.missing:
        out.append(f"missing facts: {'; '.join(grade.missing)}")
    if grade.errors:
        out.append(f"accuracy errors: {'; '.join(grade.errors)}")
    return out


def request_markdown(req: RequestTranscript, system: bool = False, fallback: str = "") -> str:
    """One request as Markdown (`fallback`: the harness's fallback reply, what goes out when the model's does not)."""
    head = f"## Request {req.index} · {clock(req.t)}"
    if req.intents:
        head += f" · intents: {', '.join(req.intents)}"
    if req.targets:
        head += f" · links {', '.join(map(str, req.targets))}"
    out = [head, "", "### Comments", ""]
    out += [f"- {clock(c.t)} **{c.name}**: {c.text}" for c in req.comments] or ["- (none recorded)"]
    if system and req.system:
        out += ["", "### System prompt", "", *_fence(req.system)]
    for n, turn in enumerate(req.turns, start=1):
        out += ["", f"### Turn {n} · step {turn.step} · {clock(turn.clock_s)}", ""]
        for who, text in turn.inputs:
            out += [f"{who}:", "", *_fence(text), ""]
        out += ["model:", "", *_fence(turn.text or "(empty)")]
        if turn.tool_calls:
            out += ["", "tool calls:", *[f"- {call_text(c)}" for c in turn.tool_calls]]
        if turn.hooks:
            out += ["", "blocked by hooks:", *[f"- {h}" for h in turn.hooks]]
    out.append("")
    if req.reply is None:
        out.append("### No reply (the record ends before this request was answered)")
    else:
        kind = "Fallback reply (the harness's, sent for the model)" if req.fallback else "Reply"
        latency = f" · latency {req.latency_s:.2f} s" if req.latency_s is not None else ""
        out += [f"### {kind} to {', '.join(req.viewers) or 'the chat'} · reward {req.reward or 0:.3f}{latency}", ""]
        sent = fallback if req.fallback else req.reply
        out += [f"> {line}" if line else ">" for line in sent.split("\n")]
        if req.fallback and req.reply:
            out += ["", "(the model's last reply, not sent, is its last turn above)"]
        if req.grade is not None:
            out += ["", *grade_lines(req.grade)]
    return visible("\n".join(out) + "\n")  # model, viewer and file text: seen, never obeyed by the terminal


def markdown(record: Record, requests: Iterable[int] | None = None, system: bool = False) -> str:
    """The record's header line and the conversations of `requests` (request indices; default all)."""
    h = record.header
    wanted = None if requests is None else set(requests)
    title = f"# {h.scenario or h.env_id} · agent {h.agent} · seed {h.seed}"
    parts = [title + "\n", f"record: {record.source}\n"]
    fallback = (h.harness or default_harness()).fallback_reply
    parts += [request_markdown(r, system, fallback) for r in conversations(record)
              if wanted is None or r.index in wanted]
    if record.end is not None:
        s = record.end.summary
        parts.append(f"mean reward {s.get('mean_reward', 0):.3f} over {s.get('requests', 0)} request(s)\n")
    return visible("\n".join(parts))
