"""Python-style calls (``get_price(link=3)``, ``[a(x=1), b()]``), parsed with `ast` and keyword literals
only; also `_jsonable`, which makes `literal_eval` results JSON-friendly for the tagged formats.
"""

from __future__ import annotations

import ast
import re
from typing import Any

from livesim.parsing.calls import _check_name
from livesim.parsing.decoding import _quote, _strip_fence
from livesim.parsing.types import ParseError, _Acc, _Pending

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
