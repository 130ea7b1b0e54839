"""The action boundary: any Python object an agent returns becomes a bounded, JSON-safe value, or a graded error.

`StreamSim.step` calls `sanitize_action` once, before parsing. What it returns is plain JSON data (str, dict
with str keys, list, finite float, int of at most 3,000 bits, bool, None) with no lone surrogates, no cycles, at most
`MAX_DEPTH` levels and `MAX_NODES` values and `MAX_CHARS` characters in all. What cannot be made so (a
circular reference, nesting ~1,000 deep, a numpy array, tuple keys, an object whose `__str__` raises) becomes
the canonical unreadable action `{UNREADABLE_KEY: reason}`, which the step grades as a parse error. Stepping
an action and stepping its sanitised form give the same result, so records store the sanitised form and
replay it exactly.

`bounded_value` applies the same bounds to what the parser decodes from text (tool-call arguments), so
nothing malformed reaches a request's state. `clean_text` replaces lone surrogates, so observations and
records are always valid UTF-8.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace
from typing import Any

from livesim.parsing.types import ParsedAction, ParseError

MAX_DEPTH = 32
"""Deepest nesting accepted in an action (an assistant message with tool calls needs about 6)."""
MAX_ARG_DEPTH = 16
"""Deepest nesting accepted inside one tool call's arguments."""
MAX_NODES = 20_000
"""Most values (strings, numbers, containers) in one action."""
MAX_CHARS = 1 << 20
"""Most characters in all the strings of one action together (the parser reads at most 65,536 of a reply)."""
MAX_INT_BITS = 3000
"""Largest integer accepted, in bits (about 900 digits; Python refuses to print ints over 4,300 digits)."""
UNREADABLE_KEY = "livesim_unreadable_action"
"""The key of the canonical unreadable action: `{UNREADABLE_KEY: reason}`."""
_MAX_REASON = 300


class Unreadable(ValueError):
    """The value cannot be turned into bounded JSON data; the message says why (shown to the agent)."""


def clean_text(s: str) -> str:
    """`s` with every lone surrogate replaced by U+FFFD (valid surrogate pairs are joined)."""
    try:
        s.encode("utf-8")
        return s
    except UnicodeEncodeError:
        return s.encode("utf-16", "surrogatepass").decode("utf-16", "replace")


def _type(obj: Any) -> str:
    try:
        return type(obj).__name__
    except Exception:  # pragma: no cover - a type whose name cannot be read
        return "object"


class _Budget:
    def __init__(self, max_nodes: int, max_chars: int) -> None:
        self.nodes = max_nodes
        self.chars = max_chars


def _bounded(obj: Any, depth: int, max_depth: int, budget: _Budget, where: str) -> Any:
    budget.nodes -= 1
    if budget.nodes < 0:
        raise Unreadable("the action holds too many values")
    t = type(obj)
    if t is str or isinstance(obj, str):
        s = str.__str__(obj)  # a str subclass's own __str__ is never called
        budget.chars -= len(s)
        if budget.chars < 0:
            raise Unreadable(f"the action is too large (more than {MAX_CHARS} characters)")
        return clean_text(s)
    if obj is None or t is bool:
        return obj
    if isinstance(obj, bool):  # pragma: no cover - bool cannot be subclassed
        return bool(obj)
    if isinstance(obj, int):
        v = int.__int__(obj)
        if v.bit_length() > MAX_INT_BITS:
            raise Unreadable(f"{where}: an integer out of range (more than {MAX_INT_BITS} bits)")
        return v
    if isinstance(obj, float):
        f = float.__float__(obj)
        if not math.isfinite(f):
            raise Unreadable(f"{where}: a number that is not finite ({f})")
        return f
    if depth >= max_depth:
        raise Unreadable(f"{where}: nested deeper than {max_depth} levels (or a circular reference)")
    if isinstance(obj, dict):
        out: dict[str, Any] = {}
        for k, v in dict.items(obj):
            if type(k) is not str:
                raise Unreadable(f"{where}: a key that is not a string ({_type(k)})")
            ck = clean_text(k)
            budget.chars -= len(ck)
            out[ck] = _bounded(v, depth + 1, max_depth, budget, f"{where}.{ck[:40]}" if where else ck[:40])
        return out
    if isinstance(obj, (list, tuple)):
        seq = list.__iter__(obj) if isinstance(obj, list) else tuple.__iter__(obj)
        return [_bounded(v, depth + 1, max_depth, budget, f"{where}[{i}]") for i, v in enumerate(seq)]
    raise Unreadable(f"{where or 'the action'}: a value of type {_type(obj)} is not JSON data")


def bounded_value(obj: Any, max_depth: int = MAX_ARG_DEPTH, max_nodes: int = MAX_NODES,
                  max_chars: int = MAX_CHARS, where: str = "") -> Any:
    """`obj` as bounded JSON data (see the module doc); raises `Unreadable` naming what is wrong."""
    try:
        return _bounded(obj, 0, max_depth, _Budget(max_nodes, max_chars), where)
    except Unreadable:
        raise
    except RecursionError:  # pragma: no cover - depth is bounded well below the interpreter's limit
        raise Unreadable("nested too deeply") from None
    except Exception as exc:  # a container whose items raise while read
        raise Unreadable(f"the value could not be read ({_type(exc)})") from None


@dataclass(frozen=True)
class SafeAction:
    """A sanitised action: `action` is JSON data (str or dict); `error` is set when it was unreadable."""

    action: str | dict[str, Any]
    error: str | None = None


def unreadable(reason: str) -> SafeAction:
    reason = clean_text(reason)[:_MAX_REASON]
    return SafeAction({UNREADABLE_KEY: reason}, reason)


def sanitize_action(action: Any) -> SafeAction:
    """The bounded JSON form of any action; never raises. Idempotent: sanitising the result changes nothing."""
    try:
        if action is None:
            return SafeAction("")
        if isinstance(action, (bytes, bytearray, memoryview)):
            # decoded first, then bounded as the text it is: over 4 bytes per character no text fits, and the
            # decoded string sanitises to itself (sanitising twice changes nothing)
            n = memoryview(action).nbytes
            if n > 4 * MAX_CHARS:
                return unreadable(f"the action is too large ({n} bytes; at most {MAX_CHARS} characters)")
            action = bytes(action).decode("utf-8", errors="replace")
        if type(action) is str or isinstance(action, str):
            s = str.__str__(action)
            if len(s) > MAX_CHARS:
                return unreadable(f"the action is too large ({len(s)} characters; at most {MAX_CHARS})")
            return SafeAction(clean_text(s))
        if isinstance(action, dict):
            if set(action) == {UNREADABLE_KEY} and type(action[UNREADABLE_KEY]) is str:
                return unreadable(action[UNREADABLE_KEY])
            value = bounded_value(action, MAX_DEPTH, where="")
            return SafeAction(value)
        return unreadable(f"The action must be a string or an assistant message dict, got {_type(action)}.")
    except Unreadable as e:
        return unreadable(f"The action cannot be read: {e}.")
    except Exception as exc:  # pragma: no cover - bounded_value wraps everything; last-resort net
        return unreadable(f"The action cannot be read ({_type(exc)}).")


def lone_surrogate(data: Any, path: tuple[str | int, ...] = ()) -> tuple[str | int, ...] | None:
    """The path of the first string (or key) in `data` holding a lone surrogate (not valid Unicode), or None."""
    if isinstance(data, str):
        try:
            data.encode("utf-8")
        except UnicodeEncodeError:
            return path
        return None
    if isinstance(data, dict):
        for k, v in data.items():
            if (hit := lone_surrogate(k, (*path, str(k)[:20]))) is not None:
                return hit
            if (hit := lone_surrogate(v, (*path, str(k)))) is not None:
                return hit
    elif isinstance(data, list):
        for i, v in enumerate(data):
            if (hit := lone_surrogate(v, (*path, i))) is not None:
                return hit
    return None


def finite_seconds(value: Any, limit: float = 1e6) -> float | None:
    """`value` as seconds if it is a real, finite number in [0, limit] (bool excluded), else None."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return None
    try:
        f = float(value)
    except (OverflowError, ValueError):
        return None
    return f if math.isfinite(f) and 0.0 <= f <= limit else None


def unreadable_parse(reason: str) -> ParsedAction:
    """The parse result of an unreadable action: no text, no calls, one `unreadable_action` error."""
    return ParsedAction(text="", tool_calls=(), errors=(ParseError("unreadable_action", reason),), format="text")


def with_error(parsed: ParsedAction, kind: str, message: str) -> ParsedAction:
    """`parsed` with one more error, first."""
    return replace(parsed, errors=(ParseError(kind, message), *parsed.errors))
