"""The inverse direction: render tool calls as Hermes text or as an OpenAI ``tool_calls`` list, and read one entry of
such a list back (name and decoded arguments) without the full parser.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any

from livesim.parsing.types import ToolCall


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


def openai_call_parts(call: Mapping[str, Any]) -> tuple[Any, Any]:
    """Name and arguments of one OpenAI ``tool_calls`` entry (or a bare ``{"name", "arguments"}`` object). Arguments
    given as a JSON string are decoded; a string that is not JSON is returned as it is.
    """
    fn = call.get("function", call)
    args = fn.get("arguments", {})
    if isinstance(args, str):
        try:
            args = json.loads(args)
        except ValueError:
            pass
    return fn.get("name", ""), args
