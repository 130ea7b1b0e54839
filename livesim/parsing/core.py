"""The driver: `parse_action` normalises the action (str, bytes, message dict), strips reasoning blocks,
tries the tagged formats, then a whole-text JSON call, then Python-style calls, and assembles the result.
"""

from __future__ import annotations

import re
from collections.abc import Collection, Mapping
from typing import Any

from livesim.parsing.calls import _call_from_obj, _is_call_shaped, _is_tool_calls_wrapper, _items_from_values
from livesim.parsing.decoding import _decode_values, _safe_json, _strip_fence, _type_name
from livesim.parsing.pycall import _python_calls
from livesim.parsing.safety import Unreadable, bounded_value, clean_text
from livesim.parsing.tagged import _scan_markup
from livesim.parsing.types import (
    _RAW_LIMIT,
    MAX_ACTION_CHARS,
    ParsedAction,
    ParseError,
    ToolCall,
    _Acc,
    _safe_repr,
)

_SPECIAL_TOKENS = ("<|im_end|>", "<|eot_id|>", "<|eom_id|>", "<|endoftext|>", "<|end|>")
_STRAY_CLOSERS = ("</tool_call>", "[/TOOL_CALLS]", "</think>", *_SPECIAL_TOKENS)
_BLANK_LINES_RE = re.compile(r"\n{3,}")


def _strip_think(s: str) -> str:
    """Drop ``<think>...</think>`` blocks, a leading unclosed ``<think>`` (to the end of the text) and,
    when the reply starts mid-reasoning, everything before a ``</think>`` that has no opening tag.
    """
    close = s.find("</think>")
    if close != -1 and s.find("<think>", 0, close) == -1:
        s = s[close + len("</think>") :]
    if "<think>" not in s:
        return s
    out: list[str] = []
    i = 0
    while True:
        j = s.find("<think>", i)
        if j == -1:
            out.append(s[i:])
            break
        k = s.find("</think>", j + len("<think>"))
        if k == -1:
            out.append(s[i:j])
            if "".join(out).strip():  # not leading: keep the stray tag and what follows
                out.append(s[j:])
            break
        out.append(s[i:j])
        i = k + len("</think>")
    return "".join(out)


def _join(pieces: list[str]) -> str:
    """Concatenate prose pieces without doubled blanks where a tag was cut out."""
    out: list[str] = []
    for piece in pieces:
        if out and out[-1][-1:] in (" ", "\t"):
            if piece[:1] in (" ", "\t"):
                piece = piece.lstrip(" \t")
            if piece[:1] in ("\n", "\r"):
                out[-1] = out[-1].rstrip(" \t")
        if piece:
            out.append(piece)
    return "".join(out)


def _clean(text: str) -> str:
    """Tidy prose: drop stray closing tags and special tokens, squeeze blank lines, strip."""
    for tok in _STRAY_CLOSERS:
        if tok in text:
            text = text.replace(tok, "")
    return _BLANK_LINES_RE.sub("\n\n", text).strip()


def _truncate(s: str, acc: _Acc) -> str:
    if len(s) > MAX_ACTION_CHARS:
        acc.error(
            ParseError(
                "too_long",
                f"The reply is {len(s)} characters long; only the first {MAX_ACTION_CHARS} were read.",
                s[:_RAW_LIMIT],
            )
        )
        return s[:MAX_ACTION_CHARS]
    return s


# lives here rather than with the other formats: a ``tool_calls`` wrapper recurses into _parse_message
def _whole_json(text: str, known: frozenset[str] | None, acc: _Acc) -> str | None:
    """If the whole text is a JSON call (or list, or ``tool_calls`` wrapper), record it and return prose."""
    t = text.strip()
    if not t or t[0] not in "{[`":
        return None
    inner = _strip_fence(t, require_close=True)
    if not inner or inner[0] not in "{[":
        return None
    values, pos, err, _ = _decode_values(inner)
    if err is not None or pos != len(inner) or not values:
        return None
    for value in values:
        if isinstance(value, list):
            if not value or not all(_is_call_shaped(v) for v in value):
                return None
        elif not (_is_call_shaped(value) or _is_tool_calls_wrapper(value)):
            return None
    prose: list[str] = []
    for value in values:
        if _is_tool_calls_wrapper(value):
            prose.append(_parse_message(value, known, acc, "json"))
        else:
            _items_from_values([value], inner, "json", acc)
    return "\n".join(p for p in prose if p)



def _parse_text(s: str, known: frozenset[str] | None, acc: _Acc) -> str:
    """Parse one (already truncated) string; returns the prose left once the calls are removed."""
    s = _strip_think(s)
    prose: list[str] = []
    if _scan_markup(s, acc, prose):
        return _clean(_join(prose))
    for tok in _SPECIAL_TOKENS:  # e.g. a trailing <|im_end|> must not hide a bare JSON / Python call
        if tok in s:
            s = s.replace(tok, "")
    whole = _whole_json(s, known, acc)
    if whole is not None:
        return _clean(whole)
    if _python_calls(s, known, acc, "python"):
        return ""
    return _clean(s)


def _content_to_str(content: Any, acc: _Acc) -> str:
    if content is None:
        return ""
    if isinstance(content, str):
        return content
    if isinstance(content, (bytes, bytearray)):
        return bytes(content[: 4 * MAX_ACTION_CHARS + 4]).decode("utf-8", errors="replace")
    if isinstance(content, (list, tuple)):
        parts: list[str] = []
        size = 0
        for part in content:
            if isinstance(part, str):
                piece = part
            elif isinstance(part, Mapping) and isinstance(part.get("text"), str):
                piece = part["text"]
            else:
                continue  # images and other non-text parts carry no reply text
            parts.append(piece)
            size += len(piece)
            if size > MAX_ACTION_CHARS:
                break
        return "".join(parts)
    acc.error(
        ParseError(
            "not_text",
            f"The message 'content' must be a string or a list of text parts, got {_type_name(content)}.",
            _safe_repr(content),
        )
    )
    return ""


def _parse_message(msg: Mapping[Any, Any], known: frozenset[str] | None, acc: _Acc, fmt: str) -> str:
    """Parse an OpenAI-style assistant message: ``content`` (with embedded calls) plus ``tool_calls``."""
    text = _content_to_str(msg.get("content"), acc)
    text = _parse_text(_truncate(text, acc), known, acc) if text else ""
    tool_calls = msg.get("tool_calls")
    if tool_calls is not None:
        if isinstance(tool_calls, (list, tuple)):
            for item in tool_calls:
                acc.add(_call_from_obj(item, _safe_json(item)), fmt)
        else:
            acc.error(
                ParseError(
                    "invalid_call",
                    f"'tool_calls' must be a list of tool calls, got {_type_name(tool_calls)}.",
                    _safe_repr(tool_calls),
                ),
                fmt,
            )
    function_call = msg.get("function_call")
    if function_call is not None:
        acc.add(_call_from_obj(function_call, _safe_json(function_call)), fmt)
    return text


def _known_set(known_tools: Any) -> frozenset[str] | None:
    if known_tools is None:
        return None
    if isinstance(known_tools, str):
        return frozenset({known_tools.strip()})
    try:
        return frozenset(t.strip() for t in known_tools if isinstance(t, str))
    except Exception:
        return None


def _finish(text: str, acc: _Acc) -> ParsedAction:
    used: set[str] = set()
    calls: list[ToolCall] = []
    for i, pending in enumerate(acc.calls):
        call_id = pending.id if pending.id and pending.id not in used else None
        if call_id is None:
            call_id, k = f"call_{i}", 0
            while call_id in used:
                k += 1
                call_id = f"call_{i}_{k}"
        used.add(call_id)
        try:  # nothing malformed gets past the parser: bounded JSON data, no lone surrogates
            arguments = bounded_value(pending.arguments)
        except Unreadable as e:
            acc.error(ParseError("bad_arguments", f"Tool call {clean_text(pending.name)[:60]!r}: the arguments "
                                 f"cannot be used: {e}.", clean_text(pending.raw)))
            continue
        calls.append(ToolCall(clean_text(pending.name), arguments, clean_text(call_id), clean_text(pending.raw)))
    errors = [e if _is_clean(e) else ParseError(e.kind, clean_text(e.message), clean_text(e.raw))
              for e in acc.errors]
    if acc.dropped:
        errors.append(
            ParseError("too_many_errors", f"{acc.dropped} more malformed tool calls were not reported.")
        )
    fmt = "text" if not acc.formats else acc.formats[0] if len(acc.formats) == 1 else "mixed"
    return ParsedAction(text=clean_text(text), tool_calls=tuple(calls), errors=tuple(errors), format=fmt)


def _is_clean(err: ParseError) -> bool:
    return clean_text(err.message) is err.message and clean_text(err.raw) is err.raw


def _parse(action: Any, known_tools: Any) -> ParsedAction:
    acc = _Acc()
    known = _known_set(known_tools)
    if action is None:
        return _finish("", acc)
    if isinstance(action, (bytes, bytearray, memoryview)):
        action = bytes(action[: 4 * MAX_ACTION_CHARS + 4]).decode("utf-8", errors="replace")
    if isinstance(action, str):
        return _finish(_parse_text(_truncate(str(action[:]), acc), known, acc), acc)
    if isinstance(action, Mapping):
        if any(key in action for key in ("content", "tool_calls", "function_call", "role")):
            return _finish(_parse_message(action, known, acc, "openai"), acc)
        if _is_call_shaped(action):
            acc.add(_call_from_obj(action, _safe_json(action)), "json")
            return _finish("", acc)
        acc.error(
            ParseError(
                "not_text",
                "A dict action must be an assistant message with 'content' and/or 'tool_calls'.",
                _safe_repr(action),
            )
        )
        return _finish("", acc)
    acc.error(
        ParseError(
            "not_text",
            f"The action must be a string or an assistant message dict, got {type(action).__name__}.",
            _safe_repr(action),
        )
    )
    return _finish("", acc)


# ----------------------------------------------------------------------------------------------------------
# public API


def parse_action(action: Any, known_tools: Collection[str] | None = None) -> ParsedAction:
    """Split an LLM action into reply text, tool calls and parse errors. Never raises.

    ``action`` may be a string, bytes (decoded as UTF-8 with replacement), ``None`` (empty reply) or an
    OpenAI-style assistant message dict (``content`` str/None/list of text parts, ``tool_calls``; a dict
    that is itself a single ``{"name", "arguments"}`` call is accepted too). Anything else yields empty
    text and a ``not_text`` error. ``known_tools`` only gates Python-style calls (``get_price(link=3)``):
    when given, text whose call names are not all known stays plain text.
    """
    try:
        return _parse(action, known_tools)
    except Exception as exc:  # pragma: no cover - last-resort safety net; should be unreachable
        err = ParseError(
            "internal_error", f"The action could not be parsed ({type(exc).__name__}).", _safe_repr(action)
        )
        return ParsedAction(text="", tool_calls=(), errors=(err,), format="text")
