"""Result types and limits of tool-call parsing (`ToolCall`, `ParseError`, `ParsedAction`, the caps),
plus the per-action accumulator (`_Acc`) that every format records its calls and errors into.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

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

