"""Turn whatever an LLM emits (a string or an OpenAI assistant message) into reply text and tool calls.

Understands Hermes/Qwen ``<tool_call>`` tags, OpenAI ``tool_calls``, bare JSON, Python-style calls,
Llama 3.x (``<function=...>``, ``<|python_tag|>``) and Mistral ``[TOOL_CALLS]``. :func:`parse_action`
never raises: malformed calls become :class:`ParseError` entries and everything runs in linear time.
"""

from __future__ import annotations

import ast
import json
import re
from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

__all__ = [
    "MAX_ACTION_CHARS",
    "MAX_ERRORS",
    "MAX_NAME_CHARS",
    "ParseError",
    "ParsedAction",
    "ToolCall",
    "format_tool_call",
    "parse_action",
    "tool_calls_to_openai",
]

MAX_ACTION_CHARS = 65536
"""Longer actions are truncated to this many characters (with a ``too_long`` error)."""
MAX_NAME_CHARS = 128
"""Longest accepted tool name."""
MAX_ERRORS = 32
"""At most this many errors are reported; any more are summarised in one ``too_many_errors`` entry."""
_RAW_LIMIT = 200
_EXPECTED = 'Expected {"name": "<tool name>", "arguments": {...}}.'


@dataclass(frozen=True)
class ToolCall:
    """One well-formed tool call found in an action."""

    name: str
    arguments: dict[str, Any]
    id: str
    raw: str


@dataclass(frozen=True)
class ParseError:
    """A malformed tool call (or unusable action); ``message`` is meant to be shown to the model."""

    kind: str
    message: str
    raw: str = ""

    def __post_init__(self) -> None:
        raw = self.raw if isinstance(self.raw, str) else _safe_repr(self.raw)
        object.__setattr__(self, "raw", _clip(raw))


@dataclass(frozen=True)
class ParsedAction:
    """The result of :func:`parse_action`."""

    text: str
    tool_calls: tuple[ToolCall, ...]
    errors: tuple[ParseError, ...]
    format: str


# ----------------------------------------------------------------------------------------------------------
# small helpers


def _clip(s: str, limit: int = _RAW_LIMIT) -> str:
    return s if len(s) <= limit else s[: limit - 3] + "..."


def _safe_repr(obj: Any) -> str:
    try:
        return _clip(repr(obj), 4 * _RAW_LIMIT)
    except Exception:
        return f"<unrepresentable {type(obj).__name__}>"


def _safe_json(obj: Any) -> str:
    """Source text for a structured (non-string) call: JSON if possible, else a repr."""
    try:
        return json.dumps(obj, ensure_ascii=False, default=repr)
    except Exception:
        return _safe_repr(obj)


def _type_name(obj: Any) -> str:
    if obj is None:
        return "null"
    if isinstance(obj, bool):
        return "boolean"
    if isinstance(obj, (int, float)):
        return "number"
    if isinstance(obj, str):
        return "string"
    if isinstance(obj, Mapping):
        return "object"
    if isinstance(obj, (list, tuple)):
        return "array"
    return type(obj).__name__


def _quote(name: Any) -> str:
    return repr(_clip(name, 60)) if isinstance(name, str) else "?"


_WS_RE = re.compile(r"\s*")
_DECODER = json.JSONDecoder()


def _skip_ws(s: str, pos: int) -> int:
    m = _WS_RE.match(s, pos)
    return m.end() if m else pos


def _json_error(exc: BaseException) -> str:
    if isinstance(exc, json.JSONDecodeError):
        return f"{exc.msg} at line {exc.lineno} column {exc.colno}"
    if isinstance(exc, RecursionError):
        return "JSON is nested too deeply"
    return _clip(str(exc) or type(exc).__name__, 120)


def _decode_values(s: str, pos: int = 0) -> tuple[list[Any], int, str | None, int]:
    """Decode consecutive JSON objects/arrays (separated by whitespace, ``,`` or ``;``) from ``pos``.

    Returns the values, the index where decoding stopped, why nothing could be decoded (``None`` if
    something was) and an estimate of the work done (a decode error costs its absolute position, since
    :class:`json.JSONDecodeError` counts lines from the start of ``s``).
    """
    values: list[Any] = []
    n = len(s)
    start = pos = _skip_ws(s, pos)
    while pos < n:
        q = pos
        if values and s[q] in ",;":
            q = _skip_ws(s, q + 1)
            if q >= n:
                break
        if s[q] not in "{[":
            return values, pos, None if values else "expected a JSON object starting with '{'", q - start
        try:
            value, end = _DECODER.raw_decode(s, q)
        except (ValueError, RecursionError) as exc:
            reached = exc.pos if isinstance(exc, json.JSONDecodeError) else n
            return values, pos, None if values else _json_error(exc), 2 * reached - start
        values.append(value)
        pos = _skip_ws(s, end)
    return values, pos, None, pos - start


_FENCE_OPEN_RE = re.compile(r"```[ \t]*(?:[A-Za-z][\w+.-]{0,30})?[ \t]*(?:\r?\n|(?=[\[{]))")


def _strip_fence(s: str, require_close: bool = False) -> str | None:
    """Remove a surrounding Markdown code fence from stripped text ``s``.

    Returns ``s`` unchanged when it does not start with a fence, and ``None`` when ``require_close`` is set
    and the fence is not closed at the end.
    """
    if not s.startswith("```"):
        return s
    closed = len(s) >= 6 and s.endswith("```")
    if require_close and not closed:
        return None
    m = _FENCE_OPEN_RE.match(s)
    body = s[m.end() :] if m else s[3:]
    if closed and body.endswith("```"):
        body = body[:-3]
    return body.strip()


def _body_start(body: str, pos: int = 0) -> int:
    """Index of the first meaningful character of a tag body (skipping whitespace and an opening fence)."""
    p = _skip_ws(body, pos)
    if body.startswith("```", p):
        m = _FENCE_OPEN_RE.match(body, p)
        p = _skip_ws(body, m.end() if m else p + 3)
    return p


def _after_values(body: str, pos: int) -> int:
    """Index just past decoded JSON values, swallowing a closing code fence if one follows."""
    q = _skip_ws(body, pos)
    return q + 3 if body.startswith("```", q) else pos


def _closed_in_place(finder: _Finder, start: int, close_tag: str) -> tuple[list[Any], int] | None:
    """Decode JSON right after an opening tag and return ``(values, end)`` if ``close_tag`` follows it.

    Decoding the JSON first (rather than cutting at the first close tag) keeps strings that contain tag
    text, e.g. an argument quoting ``</tool_call>``, intact.
    """
    s = finder.s
    p = _body_start(s, start)
    if p >= len(s) or s[p] not in "{[":
        return None
    res = finder.decode(p)
    if res is None or not res[0]:
        return None
    q = _skip_ws(s, _after_values(s, res[1]))
    return (res[0], q + len(close_tag)) if s.startswith(close_tag, q) else None


class _Finder:
    """Per-string search state: ``str.find`` with a per-needle cache and a budget for in-place JSON decoding.

    The cache keeps repeated forward searches linear overall. In-place decoding (reading JSON straight from
    the action rather than from a tag's body) may read past the body; the budget caps the total it may read,
    after which callers fall back to decoding within the body, so adversarial input stays linear.
    """

    def __init__(self, s: str) -> None:
        self.s = s
        self.cache: dict[str, tuple[int, int]] = {}
        self.budget = 3 * len(s) + 4096

    def find(self, needle: str, pos: int) -> int:
        hit = self.cache.get(needle)
        if hit is not None:
            start, res = hit
            if start <= pos and (res == -1 or res >= pos):
                return res
        res = self.s.find(needle, pos)
        self.cache[needle] = (pos, res)
        return res

    def decode(self, pos: int) -> tuple[list[Any], int, str | None] | None:
        """:func:`_decode_values` on the whole string at ``pos``, or ``None`` once the budget is spent."""
        if self.budget <= 0:
            return None
        values, end, err, cost = _decode_values(self.s, pos)
        self.budget -= max(cost, 1)
        return values, end, err

    def decode_one(self, pos: int) -> tuple[Any, int] | None:
        """One JSON value at ``pos`` read in place, or ``None`` (invalid JSON or budget spent)."""
        if self.budget <= 0:
            return None
        try:
            value, end = _DECODER.raw_decode(self.s, pos)
        except (ValueError, RecursionError) as exc:
            reached = exc.pos if isinstance(exc, json.JSONDecodeError) else len(self.s)
            self.budget -= max(2 * reached - pos, 1)
            return None
        self.budget -= max(end - pos, 1)
        return value, end


@dataclass
class _Pending:
    name: str
    arguments: dict[str, Any]
    id: str | None
    raw: str


class _Acc:
    """Accumulates calls, errors and detected formats while parsing one action."""

    def __init__(self) -> None:
        self.calls: list[_Pending] = []
        self.errors: list[ParseError] = []
        self.formats: list[str] = []
        self.dropped = 0

    def _fmt(self, fmt: str | None) -> None:
        if fmt and fmt not in self.formats:
            self.formats.append(fmt)

    def error(self, err: ParseError, fmt: str | None = None) -> None:
        self._fmt(fmt)
        if len(self.errors) < MAX_ERRORS:
            self.errors.append(err)
        else:
            self.dropped += 1

    def add(self, res: _Pending | ParseError, fmt: str) -> None:
        if isinstance(res, ParseError):
            self.error(res, fmt)
        else:
            self._fmt(fmt)
            self.calls.append(res)


# ----------------------------------------------------------------------------------------------------------
# one call object -> _Pending | ParseError


def _check_name(name: Any, raw: str) -> str | ParseError:
    if name is None:
        return ParseError("missing_name", f"The tool call has no 'name'. {_EXPECTED}", raw)
    if not isinstance(name, str):
        return ParseError(
            "missing_name", f"The tool call 'name' must be a string, got {_type_name(name)}. {_EXPECTED}", raw
        )
    name = name.strip()
    if not name:
        return ParseError("missing_name", f"The tool call 'name' is empty. {_EXPECTED}", raw)
    if len(name) > MAX_NAME_CHARS:
        return ParseError(
            "bad_name",
            f"The tool name is {len(name)} characters long (at most {MAX_NAME_CHARS} allowed).",
            raw,
        )
    return name


def _check_arguments(args: Any, name: str, raw: str) -> dict[str, Any] | ParseError:
    where = f"Tool call {_quote(name)}"
    if args is None:
        return {}
    if isinstance(args, str):
        text = args.strip()
        if not text:
            return {}
        if len(text) > MAX_ACTION_CHARS:
            return ParseError(
                "too_long", f"{where}: the arguments string is too long ({len(text)} chars).", raw
            )
        text = _strip_fence(text) or ""
        try:
            args = json.loads(text)
        except (ValueError, RecursionError) as exc:
            return ParseError(
                "invalid_json", f"{where}: 'arguments' is not valid JSON ({_json_error(exc)}).", raw
            )
        if args is None:
            return {}
    if not isinstance(args, Mapping):
        return ParseError(
            "bad_arguments", f"{where}: 'arguments' must be a JSON object, got {_type_name(args)}.", raw
        )
    out = dict(args)
    for key in out:
        if not isinstance(key, str):
            return ParseError("bad_arguments", f"{where}: argument names must be strings, got {key!r}.", raw)
    return out


_ARG_KEYS = ("arguments", "parameters", "args")


def _call_from_obj(obj: Any, raw: str, default_id: str | None = None) -> _Pending | ParseError:
    """Convert one decoded call object (flat, OpenAI ``{"function": {...}}`` or similar) to a call."""
    if not isinstance(obj, Mapping):
        return ParseError(
            "invalid_call", f"A tool call must be a JSON object, got {_type_name(obj)}. {_EXPECTED}", raw
        )
    call_id = obj.get("id")
    call_id = call_id.strip()[:MAX_NAME_CHARS] if isinstance(call_id, str) and call_id.strip() else default_id
    fn = obj.get("function")
    src: Mapping[Any, Any] = fn if isinstance(fn, Mapping) else obj
    if "name" in src:
        name_value = src.get("name")
    elif isinstance(fn, str):
        name_value = fn
    else:
        name_value = None
    name = _check_name(name_value, raw)
    if isinstance(name, ParseError):
        return name
    args: Any = None
    for key in _ARG_KEYS:
        if key in src:
            args = src.get(key)
            break
    else:
        if src is not obj:
            for key in _ARG_KEYS:
                if key in obj:
                    args = obj.get(key)
                    break
    checked = _check_arguments(args, name, raw)
    if isinstance(checked, ParseError):
        return checked
    return _Pending(name, checked, call_id, raw)


def _items_from_values(values: list[Any], raw: str, fmt: str, acc: _Acc) -> None:
    for value in values:
        if isinstance(value, list):
            if not value:
                acc.error(ParseError("invalid_call", f"Empty list of tool calls. {_EXPECTED}", raw), fmt)
            for item in value:
                acc.add(_call_from_obj(item, raw), fmt)
        else:
            acc.add(_call_from_obj(value, raw), fmt)


def _is_junk(rest: str) -> bool:
    """Whether text left over after the JSON inside a closed tag is more than stray brackets."""
    return bool(rest.strip().strip("}]),;` \t\r\n"))


# ----------------------------------------------------------------------------------------------------------
# tagged formats


def _decode_tag_body(finder: _Finder, start: int, body: str, p: int) -> tuple[list[Any], int, str | None]:
    """Decode JSON values at ``body[p:]`` (``body`` starts at ``start`` in the action); absolute end returned.

    Decodes within ``body`` first; if nothing decodes there, retries in place on the whole action, which
    recovers JSON whose strings contain tag text (e.g. an argument quoting ``[TOOL_CALLS]``).
    """
    values, pos, err, _ = _decode_values(body, p)
    if values:
        return values, start + pos, None
    if p < len(body) and body[p] in "{[":
        res = finder.decode(start + p)
        if res is not None and res[0]:
            return res
    return values, start + pos, err


def _python_literal(text: str) -> Any:
    """Read a Python dict/list literal (single quotes, True/None) with ``ast.literal_eval``, or None."""
    text = text.strip()
    if text.endswith("```"):
        text = text[:-3].rstrip()
    try:
        value = ast.literal_eval(text)
        return _jsonable(value) if isinstance(value, (dict, list)) else None
    except Exception:
        return None


def _hermes(s: str, m_start: int, start: int, finder: _Finder, acc: _Acc) -> int:
    """Hermes/Qwen ``<tool_call>{json}</tool_call>`` (or Qwen3-Coder ``<function=...>`` inside)."""
    close = finder.find("</tool_call>", start)
    nxt = finder.find("<tool_call>", start)
    closed = close != -1 and (nxt == -1 or close < nxt)
    body_end = close if closed else (nxt if nxt != -1 else len(s))
    closed_end = close + len("</tool_call>")
    body = s[start:body_end]
    p = _body_start(body)
    if body.startswith("<function=", p):
        end = closed_end if closed else body_end
        if not closed:
            acc.error(ParseError("unclosed_tag", _UNCLOSED_TOOL_CALL, s[m_start:end]), "hermes")
        inner = body[p:]
        sub_finder = _Finder(inner)
        pos = 0
        while pos < len(inner):
            q = sub_finder.find("<function=", pos)
            if q == -1:
                break
            pos = _function_tag(inner, q, q + len("<function="), sub_finder, acc, "hermes")
        return end
    values, pos, err, _ = _decode_values(body, p)
    if not (closed and values and not _is_junk(body[pos:])):
        # maybe a JSON string contains "</tool_call>" or "<tool_call>": decode in place instead
        fast = _closed_in_place(finder, start, "</tool_call>")
        if fast is not None:
            _items_from_values(fast[0], s[m_start : fast[1]], "hermes", acc)
            return fast[1]
    if closed and not values and p < len(body) and body[p] in "{[":
        literal = _python_literal(body[p:])  # e.g. {'name': 'a', 'arguments': {}} from small models
        if literal is not None:
            values, pos = [literal], len(body)
    if closed:
        end = closed_end
    elif values:
        end = start + _after_values(body, pos)
    else:
        end = _next_marker(s, start, body_end)
    raw = s[m_start:end]
    if not closed:
        acc.error(ParseError("unclosed_tag", _UNCLOSED_TOOL_CALL, raw), "hermes")
    if not values:
        what = "Empty <tool_call> block" if p >= len(body) else f"Invalid JSON inside <tool_call>: {err}"
        acc.error(ParseError("invalid_json", f"{what}. {_EXPECTED}", raw), "hermes")
        return end
    _items_from_values(values, raw, "hermes", acc)
    if closed and _is_junk(body[pos:]):
        msg = "Unexpected text after the JSON inside <tool_call>."
        acc.error(ParseError("invalid_json", msg, raw), "hermes")
    return end


_UNCLOSED_TOOL_CALL = "<tool_call> was opened but never closed with </tool_call>."


def _xml_value(value: str) -> Any:
    if value and value[0] in '[{"-0123456789tfn':
        try:
            return json.loads(value)
        except (ValueError, RecursionError):
            return value
    return value


def _xml_params(body: str) -> dict[str, Any]:
    """Parse Qwen3-Coder style ``<parameter=key>value</parameter>`` blocks."""
    args: dict[str, Any] = {}
    finder = _Finder(body)
    pos = 0
    while True:
        p = finder.find("<parameter=", pos)
        if p == -1:
            return args
        k0 = p + len("<parameter=")
        gt = body.find(">", k0, k0 + 4 * MAX_NAME_CHARS)
        if gt == -1:
            return args
        key = body[k0:gt].strip()
        close = finder.find("</parameter>", gt + 1)
        nxt = finder.find("<parameter=", gt + 1)
        if close != -1 and (nxt == -1 or close < nxt):
            v_end, pos = close, close + len("</parameter>")
        else:
            v_end = nxt if nxt != -1 else len(body)
            pos = v_end
        if key:
            args[key] = _xml_value(body[gt + 1 : v_end].strip())


def _function_tag(s: str, m_start: int, start: int, finder: _Finder, acc: _Acc, fmt: str) -> int:
    """Llama 3.1 ``<function=name>{json}</function>`` (or a ``<parameter=...>`` body); return end."""
    gt = s.find(">", start, start + 4 * MAX_NAME_CHARS)
    if gt == -1:
        msg = "'<function=' must be followed by the tool name and '>'."
        acc.error(ParseError("invalid_call", msg, s[m_start : m_start + _RAW_LIMIT]), fmt)
        return start
    close = finder.find("</function>", gt + 1)
    nxt = finder.find("<function=", gt + 1)
    closed = close != -1 and (nxt == -1 or close < nxt)
    body_end = close if closed else (nxt if nxt != -1 else len(s))
    body = s[gt + 1 : body_end]
    p = _body_start(body)
    value: Any = {}
    problem = None
    pos = len(body)
    if body.startswith("<parameter=", p):
        value = _xml_params(body[p:])
    elif p < len(body):
        try:
            if body[p] not in "{[":
                raise ValueError("expected a JSON object starting with '{'")
            value, pos = _DECODER.raw_decode(body, p)
        except (ValueError, RecursionError) as exc:
            problem = _json_error(exc)
        if (problem is not None or not closed or _is_junk(body[pos:])) and body[p] == "{":
            # maybe a JSON string contains "</function>" or "<function=": decode in place instead
            one = finder.decode_one(gt + 1 + p)
            q = _skip_ws(s, _after_values(s, one[1])) if one is not None else -1
            if one is not None and s.startswith("</function>", q):
                value, problem, closed, pos = one[0], None, True, len(body)
                close = q
    if closed:
        end = close + len("</function>")
    elif problem is None:
        end = gt + 1 + _after_values(body, pos)
    else:
        end = _next_marker(s, gt + 1, body_end)
    raw = s[m_start:end]
    if not closed:
        msg = "<function=...> was opened but never closed with </function>."
        acc.error(ParseError("unclosed_tag", msg, raw), fmt)
    name = _check_name(s[start:gt], raw)
    if isinstance(name, ParseError):
        acc.error(name, fmt)
    elif problem is not None:
        msg = f"Tool call {_quote(name)}: the arguments are not valid JSON ({problem})."
        acc.error(ParseError("invalid_json", msg, raw), fmt)
    else:
        acc.add(_call_from_obj({"name": name, "arguments": value}, raw), fmt)
        if closed and _is_junk(body[pos:]):
            msg = f"Tool call {_quote(name)}: unexpected text after the arguments."
            acc.error(ParseError("invalid_json", msg, raw), fmt)
    return end


def _python_tag(s: str, m_start: int, start: int, finder: _Finder, acc: _Acc) -> int:
    """Llama 3.x ``<|python_tag|>{"name": ..., "parameters": ...}`` (or Python calls); return end."""
    ends = [finder.find(tok, start) for tok in ("<|python_tag|>", "<|eom_id|>", "<|eot_id|>")]
    body_end = min((e for e in ends if e != -1), default=len(s))
    body = s[start:body_end]
    p = _body_start(body)
    if p >= len(body):
        msg = f"Empty <|python_tag|> call. {_EXPECTED}"
        acc.error(ParseError("invalid_json", msg, s[m_start:body_end]), "llama")
        return body_end
    values, pos, err = _decode_tag_body(finder, start, body, p)
    if values:
        end = _after_values(s, pos)
        _items_from_values(values, s[m_start:end], "llama", acc)
        return end
    if _python_calls(body, None, acc, "llama"):
        return body_end
    end = _next_marker(s, start, body_end)
    msg = f"Invalid JSON after <|python_tag|>: {err}. {_EXPECTED}"
    acc.error(ParseError("invalid_json", msg, s[m_start:end]), "llama")
    return end


def _mistral(s: str, m_start: int, start: int, finder: _Finder, acc: _Acc) -> int:
    """Mistral ``[TOOL_CALLS][{...}, ...]`` (close tag optional) or ``[TOOL_CALLS]name[ARGS]{...}``."""
    close = finder.find("[/TOOL_CALLS]", start)
    nxt = finder.find("[TOOL_CALLS]", start)
    closed = close != -1 and (nxt == -1 or close < nxt)
    body_end = close if closed else (nxt if nxt != -1 else len(s))
    closed_end = close + len("[/TOOL_CALLS]")
    body = s[start:body_end]
    p = _body_start(body)
    if p >= len(body):
        end = closed_end if closed else body_end
        msg = f"Empty [TOOL_CALLS] block. {_EXPECTED}"
        acc.error(ParseError("invalid_call", msg, s[m_start:end]), "mistral")
        return end
    if body[p] in "[{":
        values, pos, err = _decode_tag_body(finder, start, body, p)
        if values:
            end = _after_values(s, pos)
            q = _skip_ws(s, end)
            if s.startswith("[/TOOL_CALLS]", q):
                end = q + len("[/TOOL_CALLS]")
            _items_from_values(values, s[m_start:end], "mistral", acc)
            return end
        end = closed_end if closed else _next_marker(s, start, body_end)
        msg = f"Invalid JSON after [TOOL_CALLS]: {err}. {_EXPECTED}"
        acc.error(ParseError("invalid_json", msg, s[m_start:end]), "mistral")
        return end
    # newer tokenizers: [TOOL_CALLS]name[CALL_ID]id[ARGS]{...}
    args_at = body.find("[ARGS]", p)
    if args_at == -1:
        end = closed_end if closed else _next_marker(s, start, body_end)
        msg = f"[TOOL_CALLS] must be followed by a JSON list of calls. {_EXPECTED}"
        acc.error(ParseError("invalid_json", msg, s[m_start:end]), "mistral")
        return end
    head, call_id = body[p:args_at], None
    id_at = head.find("[CALL_ID]")
    if id_at != -1:
        call_id, head = head[id_at + len("[CALL_ID]") :].strip() or None, head[:id_at]
    q = _skip_ws(body, args_at + len("[ARGS]"))
    value: Any = {}
    problem = None
    pos = q
    if q < len(body):
        try:
            if body[q] not in "{[":
                raise ValueError("expected a JSON object starting with '{'")
            value, pos = _DECODER.raw_decode(body, q)
        except (ValueError, RecursionError) as exc:
            problem = _json_error(exc)
    if closed:
        end = closed_end
    elif problem is None:
        end = start + _after_values(body, pos)
    else:
        end = _next_marker(s, start, body_end)
    raw = s[m_start:end]
    name = _check_name(head, raw)
    if isinstance(name, ParseError):
        acc.error(name, "mistral")
    elif problem is not None:
        msg = f"Tool call {_quote(name)}: the arguments are not valid JSON ({problem})."
        acc.error(ParseError("invalid_json", msg, raw), "mistral")
    else:
        acc.add(_call_from_obj({"name": name, "arguments": value, "id": call_id}, raw), "mistral")
    return end


_MARKER_RE = re.compile(r"<tool_call>|<function=|<\|python_tag\|>|\[TOOL_CALLS\]")


def _next_marker(s: str, start: int, end: int) -> int:
    """Where the next tool-call tag of any kind starts in ``s[start:end]`` (``end`` if none)."""
    m = _MARKER_RE.search(s, start, end)
    return m.start() if m else end


def _scan_markup(s: str, acc: _Acc, prose: list[str]) -> bool:
    """Extract every tagged call in order, prose to ``prose``; return whether any tag was seen."""
    finder = _Finder(s)
    pos = 0
    found = False
    while True:
        m = _MARKER_RE.search(s, pos)
        if m is None:
            prose.append(s[pos:])
            return found
        found = True
        prose.append(s[pos : m.start()])
        tok = m.group()
        if tok == "<tool_call>":
            pos = _hermes(s, m.start(), m.end(), finder, acc)
        elif tok == "<function=":
            pos = _function_tag(s, m.start(), m.end(), finder, acc, "llama")
        elif tok == "<|python_tag|>":
            pos = _python_tag(s, m.start(), m.end(), finder, acc)
        else:
            pos = _mistral(s, m.start(), m.end(), finder, acc)


# ----------------------------------------------------------------------------------------------------------
# whole-text formats: bare JSON and Python calls

_FLAT_CALL_KEYS = frozenset({"name", "arguments", "parameters", "args", "id", "type", "call_id"})
_OPENAI_CALL_KEYS = frozenset(
    {"function", "id", "type", "index", "call_id", "arguments", "parameters", "args"}
)
_MESSAGE_KEYS = frozenset({"tool_calls", "role", "content", "reasoning_content", "refusal", "function_call"})


def _is_call_shaped(obj: Any) -> bool:
    if not isinstance(obj, Mapping):
        return False
    keys = set(obj)
    if isinstance(obj.get("function"), (Mapping, str)) and keys <= _OPENAI_CALL_KEYS:
        return True
    return "name" in keys and keys <= _FLAT_CALL_KEYS


def _is_tool_calls_wrapper(obj: Any) -> bool:
    return isinstance(obj, Mapping) and isinstance(obj.get("tool_calls"), list) and set(obj) <= _MESSAGE_KEYS


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


_PY_START_RE = re.compile(r"[\[(]?\s*[^\W\d][\w.]*\(")
_PY_CONSTANTS = {"true": True, "false": False, "null": None}
_LINE_SPLIT_RE = re.compile(r"\r\n|\r|\n")


def _dotted_name(node: ast.AST) -> str | None:
    parts: list[str] = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    if not isinstance(node, ast.Name):
        return None
    parts.append(node.id)
    return ".".join(reversed(parts))


def _jsonable(value: Any) -> Any:
    """Make a ``literal_eval`` result JSON-friendly (tuples/sets -> lists, bytes -> str); reject the rest."""
    if value is None or isinstance(value, (str, bool, int, float)):
        return value
    if isinstance(value, bytes):
        return value.decode("utf-8", errors="replace")
    if isinstance(value, (list, tuple, set, frozenset)):
        return [_jsonable(v) for v in value]
    if isinstance(value, dict):
        return {(k if isinstance(k, str) else str(_jsonable(k))): _jsonable(v) for k, v in value.items()}
    raise ValueError(f"unsupported value {type(value).__name__}")


def _py_value(node: ast.AST) -> Any:
    if isinstance(node, ast.Name) and node.id in _PY_CONSTANTS:
        return _PY_CONSTANTS[node.id]
    return _jsonable(ast.literal_eval(node))


class _Source:
    """Maps ``ast`` positions (UTF-8 byte columns) back to text."""

    def __init__(self, text: str) -> None:
        self.lines = [line.encode("utf-8", errors="surrogatepass") for line in _LINE_SPLIT_RE.split(text)]

    def byte_at(self, lineno: int, col: int) -> bytes:
        if 1 <= lineno <= len(self.lines):
            return self.lines[lineno - 1][col : col + 1]
        return b""

    def segment(self, node: ast.AST) -> str:
        try:
            first, last = node.lineno - 1, node.end_lineno - 1  # type: ignore[attr-defined]
            c0, c1 = node.col_offset, node.end_col_offset  # type: ignore[attr-defined]
            if first == last:
                chunk = self.lines[first][c0:c1]
            else:
                chunk = b"\n".join(
                    [self.lines[first][c0:], *self.lines[first + 1 : last], self.lines[last][:c1]]
                )
            return chunk.decode("utf-8", errors="replace")
        except Exception:
            return ""


def _python_calls(text: str, known: frozenset[str] | None, acc: _Acc, fmt: str) -> bool:
    """If the whole text is one or more Python-style calls, record them and return True.

    Otherwise nothing is recorded and False is returned.
    """
    t = _strip_fence(text.strip(), require_close=True)
    if not t or t[-1] not in ")]" or not _PY_START_RE.match(t):
        return False
    try:
        tree = ast.parse(t, mode="exec")
    except Exception:
        return False
    calls: list[ast.Call] = []
    for stmt in tree.body:
        if not isinstance(stmt, ast.Expr):
            return False
        value = stmt.value
        if isinstance(value, ast.Call):
            calls.append(value)
        elif (
            isinstance(value, (ast.List, ast.Tuple))
            and value.elts
            and all(isinstance(e, ast.Call) for e in value.elts)
        ):
            calls.extend(value.elts)  # type: ignore[arg-type]
        else:
            return False
    if not calls:
        return False
    src = _Source(t)
    names: list[str] = []
    for call in calls:
        name = _dotted_name(call.func)
        # the name must be immediately followed by "(" so that prose such as "Hello (everyone)" stays text
        if name is None or src.byte_at(call.func.end_lineno or 0, call.func.end_col_offset or 0) != b"(":
            return False
        if known is not None and name not in known:
            return False
        names.append(name)
    for call, name in zip(calls, names, strict=True):
        raw = src.segment(call)
        checked = _check_name(name, raw)
        if isinstance(checked, ParseError):
            acc.error(checked, fmt)
            continue
        if call.args:
            acc.error(
                ParseError(
                    "bad_arguments",
                    f"Tool call {_quote(name)}: positional arguments are not "
                    f"supported; use keyword arguments, e.g. {name}(key=value).",
                    raw,
                ),
                fmt,
            )
            continue
        args: dict[str, Any] = {}
        problem = None
        for kw in call.keywords:
            if kw.arg is None:
                problem = "'**' arguments are not supported"
                break
            try:
                args[kw.arg] = _py_value(kw.value)
            except Exception:
                problem = (
                    f"the value of {kw.arg!r} must be a literal (string, number, list, dict, true/false/null)"
                )
                break
        if problem:
            acc.error(ParseError("bad_arguments", f"Tool call {_quote(name)}: {problem}.", raw), fmt)
        else:
            acc.add(_Pending(checked, args, None, raw), fmt)
    return True


# ----------------------------------------------------------------------------------------------------------
# text and message level

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
        calls.append(ToolCall(pending.name, pending.arguments, call_id, pending.raw))
    errors = list(acc.errors)
    if acc.dropped:
        errors.append(
            ParseError("too_many_errors", f"{acc.dropped} more malformed tool calls were not reported.")
        )
    fmt = "text" if not acc.formats else acc.formats[0] if len(acc.formats) == 1 else "mixed"
    return ParsedAction(text=text, tool_calls=tuple(calls), errors=tuple(errors), format=fmt)


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


def format_tool_call(name: str, arguments: dict[str, Any]) -> str:
    """Render one call in Hermes form: ``<tool_call>``, the JSON object, ``</tool_call>`` on three lines."""
    body = json.dumps({"name": name, "arguments": arguments}, ensure_ascii=False, default=str)
    return f"<tool_call>\n{body}\n</tool_call>"


def tool_calls_to_openai(calls: Sequence[ToolCall]) -> list[dict[str, Any]]:
    """Render calls as the ``tool_calls`` list of an OpenAI assistant message (arguments as a JSON string)."""
    return [
        {
            "id": call.id,
            "type": "function",
            "function": {
                "name": call.name,
                "arguments": json.dumps(call.arguments, ensure_ascii=False, default=str),
            },
        }
        for call in calls
    ]
