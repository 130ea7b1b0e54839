"""Turn whatever an LLM emits (a string or an OpenAI assistant message) into reply text and tool calls.

Understands Hermes/Qwen ``<tool_call>`` tags, OpenAI ``tool_calls``, bare JSON, Python-style calls,
Llama 3.x (``<function=...>``, ``<|python_tag|>``) and Mistral ``[TOOL_CALLS]``. :func:`parse_action`
never raises: malformed calls become :class:`ParseError` entries and everything runs in linear time.
"""

from __future__ import annotations

from livesim.parsing.core import parse_action
from livesim.parsing.render import format_tool_call, openai_call_parts, tool_calls_to_openai
from livesim.parsing.types import MAX_ACTION_CHARS, MAX_ERRORS, MAX_NAME_CHARS, ParsedAction, ParseError, ToolCall

__all__ = [
    "MAX_ACTION_CHARS",
    "MAX_ERRORS",
    "MAX_NAME_CHARS",
    "ParseError",
    "ParsedAction",
    "ToolCall",
    "format_tool_call",
    "openai_call_parts",
    "parse_action",
    "tool_calls_to_openai",
]
