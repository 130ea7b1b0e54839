"""Synthetic observations shared by the agent tests (the env's observation shape, no env needed)."""

from __future__ import annotations

from typing import Any

TOOLS = [
    {"type": "function", "function": {
        "name": "get_product", "description": "Look up a product by SKU.",
        "parameters": {"type": "object", "properties": {"sku": {"type": "string"}}, "required": ["sku"]}}},
    {"type": "function", "function": {
        "name": "check_stock", "description": "Units in stock for a SKU and size.",
        "parameters": {"type": "object", "required": ["sku"],
                       "properties": {"sku": {"type": "string"}, "size": {"type": "string"}}}}},
]

TOOL_TURN = [
    {"role": "user", "content": "How much is SKU-7?"},
    {"role": "assistant", "content": None, "tool_calls": [{
        "id": "call_1", "type": "function",
        "function": {"name": "get_product", "arguments": '{"sku": "SKU-7"}'}}]},
    {"role": "tool", "tool_call_id": "call_1", "name": "get_product",
     "content": '{"price": 59.0, "stock": 3}'},
]


def make_observation(question: str, tools: list | None = None, history: list | None = None) -> dict[str, Any]:
    """A system prompt, optional history, then the viewer's question."""
    messages: list[dict[str, Any]] = [
        {"role": "system", "content": "You are the host of a live-stream shop."},
    ]
    messages += history or []
    messages.append({"role": "user", "content": question})
    return {"messages": messages, "tools": TOOLS if tools is None else tools}
