"""vLLM's offline engine as a livesim agent (GPU machines): batched ``LLM.chat`` with tools.

vllm is imported lazily; without it the agent raises an ImportError that says how to install it.
"""

from __future__ import annotations

import importlib
import json
import time
from pathlib import Path
from typing import Any

from livesim.agents.base import Action, BaseAgent, Observation
from livesim.agents.openai_agent import native_messages
from livesim.models.zoo import resolve_model_source


def import_vllm() -> Any:
    """Import vllm, or explain how to get it."""
    try:
        return importlib.import_module("vllm")
    except ImportError as exc:
        raise ImportError(
            "the vllm agent needs vLLM, which runs on CUDA GPUs: on a CUDA machine run "
            "`pip install 'livesim[vllm]'` (or use the openai agent against `vllm serve`)"
        ) from exc


class VLLMAgent(BaseAgent):
    """Generate with ``vllm.LLM.chat``: one engine call per distinct tool list in a batch.

    Each conversation gets its own ``SamplingParams`` seeded from ``seed`` and a running request counter,
    so sampled runs replay. ``stats`` counts prompt/completion tokens from the engine's token ids.
    """

    name = "vllm"

    def __init__(
        self,
        model: str,
        *,
        tensor_parallel_size: int = 1,
        max_new_tokens: int = 256,
        temperature: float = 0.0,
        top_p: float = 1.0,
        seed: int = 0,
        gpu_memory_utilization: float = 0.85,
        max_model_len: int = 8192,
        dtype: str = "auto",
        cache_dir: str | Path | None = None,
        chat_template_kwargs: dict[str, Any] | None = None,
        llm_kwargs: dict[str, Any] | None = None,
    ) -> None:
        super().__init__()
        vllm = import_vllm()

        self.model_name = resolve_model_source(model, cache_dir)
        self.llm = vllm.LLM(
            model=self.model_name, tensor_parallel_size=tensor_parallel_size, seed=seed, dtype=dtype,
            gpu_memory_utilization=gpu_memory_utilization, max_model_len=max_model_len, **(llm_kwargs or {}),
        )
        self._sampling_params = vllm.SamplingParams
        self.max_new_tokens, self.temperature, self.top_p = max_new_tokens, temperature, top_p
        self.seed = seed
        self.chat_template_kwargs = chat_template_kwargs
        self._requests = 0
        self.last_latencies: list[float] = []
        self.stats.update(prompt_tokens=0, completion_tokens=0, generate_seconds=0.0, calls=0, observations=0)

    def _params(self) -> Any:
        self._requests += 1
        return self._sampling_params(
            temperature=self.temperature, top_p=self.top_p, max_tokens=self.max_new_tokens,
            seed=self.seed * 1_000_003 + self._requests,
        )

    def act(self, observation: Observation) -> Action:
        return self.act_batch([observation])[0]

    def act_batch(self, observations: list[Observation]) -> list[Action]:
        """Generate for all observations; those sharing a tool list go to the engine together."""
        groups: dict[str, list[int]] = {}
        for i, obs in enumerate(observations):
            groups.setdefault(json.dumps(obs.get("tools") or [], sort_keys=True), []).append(i)
        texts = [""] * len(observations)
        latencies = [0.0] * len(observations)
        for idx in groups.values():
            tools = observations[idx[0]].get("tools") or None
            conversations = [native_messages(list(observations[i].get("messages", []))) for i in idx]
            params = [self._params() for _ in idx]
            t0 = time.perf_counter()
            extra = {"chat_template_kwargs": self.chat_template_kwargs} if self.chat_template_kwargs else {}
            outputs = self.llm.chat(conversations, params, use_tqdm=False, tools=tools, **extra)
            elapsed = time.perf_counter() - t0
            self.stats["generate_seconds"] += elapsed
            self.stats["calls"] += 1
            for i, out in zip(idx, outputs, strict=True):
                completion = out.outputs[0]
                texts[i] = completion.text
                latencies[i] = elapsed
                self.stats["prompt_tokens"] += len(out.prompt_token_ids or [])
                self.stats["completion_tokens"] += len(completion.token_ids)
        self.stats["observations"] += len(observations)
        self.last_latencies = latencies
        return list(texts)

    @property
    def tokens_per_second(self) -> float:
        """Completion tokens per second of engine time, over the agent's lifetime."""
        secs = self.stats["generate_seconds"]
        return self.stats["completion_tokens"] / secs if secs > 0 else 0.0
