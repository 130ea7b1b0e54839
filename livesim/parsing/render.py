"""The inverse direction: render tool calls as Hermes text or as an OpenAI ``tool_calls`` list."""

from __future__ import annotations

import json
from collections.abc import Sequence
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
