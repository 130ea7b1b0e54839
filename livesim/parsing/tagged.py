"""Tagged formats: Hermes/Qwen ``<tool_call>`` (and Qwen3-Coder ``<function=...>`` inside it), Llama 3.x
``<function=name>`` and ``<|python_tag|>``, and Mistral ``[TOOL_CALLS]``. `_scan_markup` walks an action
and dispatches on each tag it meets, sending the text between tags to the prose.
"""

from __future__ import annotations

import ast
import json
import re
from typing import Any

from livesim.parsing.calls import _call_from_obj, _check_name, _is_junk, _items_from_values
from livesim.parsing.decoding import (
    _DECODER,
    _after_values,
    _body_start,
    _closed_in_place,
    _decode_values,
    _Finder,
    _json_error,
    _quote,
    _skip_ws,
)
from livesim.parsing.pycall import _jsonable, _python_calls
from livesim.parsing.types import _EXPECTED, _RAW_LIMIT, MAX_NAME_CHARS, ParseError, _Acc


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

