"""A stand-in for the ``vllm`` package (tests only): ``LLM.chat`` answers deterministically, no GPU."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

CALLS: list[dict[str, Any]] = []
"""Every ``LLM.__init__`` and ``LLM.chat`` call, for assertions."""


@dataclass
class SamplingParams:
    temperature: float = 1.0
    top_p: float = 1.0
    max_tokens: int | None = 16
    seed: int | None = None


@dataclass
class CompletionOutput:
    text: str
    token_ids: list[int]
    index: int = 0
    finish_reason: str = "stop"


@dataclass
class RequestOutput:
    prompt_token_ids: list[int]
    outputs: list[CompletionOutput] = field(default_factory=list)


class LLM:
    def __init__(self, model: str, **kwargs: Any) -> None:
        self.model = model
        self.kwargs = kwargs
        CALLS.append({"call": "init", "model": model, **kwargs})

    def chat(self, messages, sampling_params=None, use_tqdm=True, chat_template=None,
             add_generation_prompt=True, tools=None, chat_template_kwargs=None, **kwargs):
        conversations = messages if messages and isinstance(messages[0], list) else [messages]
        params = sampling_params
        if not isinstance(params, list):
            params = [params] * len(conversations)
        assert len(params) == len(conversations)
        CALLS.append({"call": "chat", "conversations": conversations, "params": params, "tools": tools,
                      "chat_template_kwargs": chat_template_kwargs})
        outputs = []
        for conv, sp in zip(conversations, params, strict=True):
            for msg in conv:  # vLLM json.loads string tool-call arguments; fail the same way here
                for call in msg.get("tool_calls") or []:
                    json.loads(call["function"]["arguments"])
            last = next((m["content"] for m in reversed(conv) if m["role"] in ("user", "tool")), "")
            if tools and "price" in last:
                name = tools[0]["function"]["name"]
                text = f'<tool_call>\n{{"name": "{name}", "arguments": {{}}}}\n</tool_call>'
            else:
                text = f"reply to: {last}"
            if sp is not None and sp.temperature > 0:
                text += f" (seed {sp.seed})"
            prompt_len = sum(len(str(m.get("content") or "")) for m in conv) // 4 + 1
            outputs.append(RequestOutput(prompt_token_ids=list(range(prompt_len)),
                                         outputs=[CompletionOutput(text, list(range(len(text.split()))))]))
        return outputs
