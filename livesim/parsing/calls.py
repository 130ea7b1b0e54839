"""One decoded call object -> `_Pending` call or `ParseError`: name and argument checks, the accepted
call shapes (flat, OpenAI ``{"function": ...}``) and the detection of call-shaped JSON values.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from livesim.parsing.decoding import _json_error, _quote, _strip_fence, _type_name
from livesim.parsing.types import _EXPECTED, MAX_ACTION_CHARS, MAX_NAME_CHARS, ParseError, _Acc, _Pending


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

