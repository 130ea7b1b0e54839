"""What the reader sees: the system prompt (any style), the tool schemas and the conversation so far, parsed.

Everything here is read from the observation dict alone (`messages`, `tools`): block titles, names, order and
style may be anything, so lines are recognised by their shape, never by a title.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from typing import Any

from livesim.parsing import openai_call_parts

_SKILL_LINE = re.compile(r"^([a-z0-9][a-z0-9-]{0,63})( \(strategy[^)]*\))?: ?(.*)$", re.DOTALL)
_COMPACT_STRATEGY = re.compile(r"^strategy skills[^:]*: (.*)$", re.IGNORECASE)
_PRODUCT_LINE = re.compile(r"^link (\d+): (.+?) \((\w+)\)\s*$")
_PINNED = re.compile(r"\bpinned:? link (\d+)", re.IGNORECASE)
_CALLS = re.compile(r"up to (\d+) (?:tools|tool calls)? ?(?:in one turn|per turn)", re.IGNORECASE)
_CHARS = re.compile(r"at most (\d+) characters", re.IGNORECASE)
_TURNS = re.compile(r"at most (\d+) turns", re.IGNORECASE)
_COMMENT = re.compile(r"^\[([^\]\n]{1,60})\] ?(.*)$")


@dataclass(frozen=True)
class Param:
    """One presented parameter: its name, JSON type, description and whether it is required."""

    name: str
    type: str
    description: str
    required: bool


@dataclass(frozen=True)
class ToolView:
    """One presented tool, as its schema says."""

    name: str
    description: str
    params: tuple[Param, ...]


@dataclass(frozen=True)
class SkillView:
    """One entry of the presented skill index."""

    name: str
    description: str
    strategy: bool


@dataclass(frozen=True)
class Context:
    """The request-independent part of an observation: prompt facts, skills and tools as presented."""

    tools: tuple[ToolView, ...]
    skills: tuple[SkillView, ...]
    products: dict[int, tuple[str, str]]  # link -> (name, category)
    pinned: int | None
    max_calls: int
    max_chars: int
    turn_cap: int
    style: str


@dataclass
class Call:
    """A tool call the host made earlier in this request, with what came back."""

    name: str
    arguments: dict[str, Any]
    content: str
    at: int = 0  # the position of its result among the request's messages

    @property
    def failed(self) -> bool:
        """An error, a truncated result or a hook's rejection: anything but a JSON result or a skill's text."""
        return not self.content.startswith("# ") and self.result() is None

    def result(self) -> Any:
        """The JSON result, or None when the content is not a JSON object (an error, a skill's text)."""
        if not self.content.startswith("{"):
            return None
        try:
            return json.loads(self.content)
        except ValueError:
            return None


@dataclass
class Conversation:
    """The request's messages after the system prompt, split into what the reader needs."""

    comments: list[tuple[str, str]]  # (viewer name, text)
    request_text: str
    notices: list[str]  # user messages before the first assistant turn other than the comments
    feedback: list[str]  # user messages after assistant turns (hook retries, parser errors)
    calls: list[Call] = field(default_factory=list)
    turns: int = 0
    replies: list[str] = field(default_factory=list)  # assistant turns without tool calls (blocked replies)
    last_feedback: str | None = None  # the user message that answered the latest assistant turn, if any
    feedback_at: list[int] = field(default_factory=list)  # positions of the `feedback` messages


def _lines(system: str) -> list[str]:
    """Every item line of the prompt whatever its style (JSON lists, Markdown/XML bullets, plain lines)."""
    text = system.strip()
    if text.startswith("{"):
        try:
            data = json.loads(text)
        except ValueError:
            data = None
        if isinstance(data, dict):
            out: list[str] = []
            for value in data.values():
                items = value if isinstance(value, list) else [value]
                for item in items:
                    out.extend(str(item).split("\n"))
            return [x.strip().removeprefix("- ").strip() for x in out]
    return [x.strip().removeprefix("- ").strip() for x in text.split("\n")]


def _param_type(prop: dict[str, Any]) -> str:
    kind = prop.get("type")
    if kind is None:
        types = [o.get("type") for o in prop.get("anyOf", []) if o.get("type") != "null"]
        kind = types[0] if types else "string"
    return str(kind)


def parse_tools(schemas: list[dict[str, Any]]) -> tuple[ToolView, ...]:
    out = []
    for schema in schemas or []:
        fn = schema.get("function", schema)
        params = fn.get("parameters") or {}
        required = set(params.get("required") or [])
        props = params.get("properties") or {}
        out.append(ToolView(str(fn.get("name", "")), str(fn.get("description") or ""), tuple(
            Param(str(k), _param_type(v), str(v.get("description") or ""), k in required) for k, v in props.items())))
    return tuple(out)


def parse_context(system: str, schemas: list[dict[str, Any]]) -> Context:
    """The prompt's skill index, products, pinned link and limits, and the tool schemas."""
    lines = _lines(system)
    skills: dict[str, SkillView] = {}
    strategy: set[str] = set()
    products: dict[int, tuple[str, str]] = {}
    for line in lines:
        if m := _COMPACT_STRATEGY.match(line):
            strategy.update(x.strip() for x in m.group(1).split(",") if x.strip())
            continue
        if m := _PRODUCT_LINE.match(line):
            products[int(m.group(1))] = (m.group(2), m.group(3))
            continue
        if m := _SKILL_LINE.match(line):
            name, marked, desc = m.group(1), bool(m.group(2)), m.group(3).strip()
            if marked:
                strategy.add(name)
            if name not in skills:  # the index comes once; a strategy block repeats strategy names with content
                skills[name] = SkillView(name, desc, marked)
    views = tuple(SkillView(s.name, s.description, s.name in strategy) for s in skills.values())
    pinned = _PINNED.search(system)
    calls, chars, turns = _CALLS.search(system), _CHARS.search(system), _TURNS.search(system)
    style = "json" if system.lstrip().startswith("{") else "xml" if system.lstrip().startswith("<") else "markdown"
    return Context(parse_tools(schemas), views, products, int(pinned.group(1)) if pinned else None,
                   int(calls.group(1)) if calls else 4, int(chars.group(1)) if chars else 280,
                   int(turns.group(1)) if turns else 4, style)


def parse_conversation(messages: list[dict[str, Any]]) -> Conversation:
    """Comments, notices, the host's earlier calls with their results, and the env's feedback."""
    body = [m for m in messages if m.get("role") != "system"]
    first_user = next((m for m in body if m.get("role") == "user"), None)
    text = str(first_user.get("content") or "") if first_user else ""
    comments = []
    for line in text.split("\n"):
        found = _COMMENT.match(line)
        comments.append((found.group(1), found.group(2)) if found else ("", line))
    conv = Conversation(comments=[c for c in comments if c[1].strip()], request_text=text, notices=[], feedback=[])
    pending: dict[str, tuple[str, dict[str, Any]]] = {}
    entry: tuple[str, dict[str, Any]] | None
    order: list[tuple[str, dict[str, Any]]] = []
    seen_assistant = False
    for pos, m in enumerate(body):
        role = m.get("role")
        if m is first_user:
            continue
        if role == "assistant":
            seen_assistant = True
            conv.turns += 1
            conv.last_feedback = None
            tool_calls = m.get("tool_calls") or []
            if not tool_calls:
                conv.replies.append(str(m.get("content") or ""))
            order = []
            for call in tool_calls:
                name, args = openai_call_parts(call)
                entry = (str(name), args if isinstance(args, dict) else {})
                pending[str(call.get("id", len(pending)))] = entry
                order.append(entry)
        elif role == "tool":
            entry = pending.pop(str(m.get("tool_call_id")), None)
            entry = entry or (order.pop(0) if order else None)
            if entry is not None and entry in order:
                order.remove(entry)
            name, args = entry if entry is not None else (str(m.get("name", "")), {})
            conv.calls.append(Call(name, args, str(m.get("content") or ""), pos))
        elif role == "user":
            content = str(m.get("content") or "")
            if seen_assistant:
                conv.feedback.append(content)
                conv.feedback_at.append(pos)
                conv.last_feedback = content
            else:
                conv.notices.append(content)
    return conv
