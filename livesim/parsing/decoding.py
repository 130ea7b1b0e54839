"""Low-level text helpers shared by every format: value descriptions for messages, linear-time JSON
decoding of consecutive values, Markdown code fences, and the `_Finder` per-string search state.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from typing import Any

from livesim.parsing.types import _clip, _safe_repr


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

