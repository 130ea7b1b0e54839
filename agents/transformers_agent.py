"""A local Hugging Face causal LM as a livesim agent.

Renders the observation with the tokenizer's chat template (tools included), generates in batches, and
returns the decoded completion with tool-call tags kept, for the env to parse. By default each
conversation's KV cache is kept between turns and only the new tokens are prefilled
(`livesim.agents.kv_cache`); `kv_cache=False` is the full-prefill `model.generate` path.
"""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any

from livesim.agents.base import Action, BaseAgent, Observation
from livesim.agents.kv_cache import GenStats, PrefixCache, TurnEnd, generate_cached, stopping_criteria
from livesim.models.device import load_kwargs, select_device
from livesim.models.zoo import resolve_model_source

# Tags a completion must keep even when a tokenizer marks them special.
KEEP_TOKENS = ("<tool_call>", "</tool_call>", "<think>", "</think>")


def normalize_messages(messages: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Copy OpenAI messages into the shape HF chat templates expect: str content, dict tool-call arguments."""
    out = []
    for msg in messages:
        msg = dict(msg)
        if msg.get("content") is None:
            msg["content"] = ""
        if msg.get("tool_calls"):
            calls = []
            for call in msg["tool_calls"]:
                call = dict(call)
                fn = dict(call.get("function", call))
                if isinstance(fn.get("arguments"), str):
                    try:
                        parsed = json.loads(fn["arguments"])
                    except ValueError:
                        parsed = None
                    if isinstance(parsed, dict):
                        fn["arguments"] = parsed
                call["function"] = fn
                call.setdefault("type", "function")
                calls.append(call)
            msg["tool_calls"] = calls
        out.append(msg)
    return out


_GEN_STATS = {"prefill_tokens": "prefill_tokens", "reused_tokens": "reused_tokens", "draft_tokens": "drafted_tokens",
              "accepted_draft_tokens": "accepted_tokens", "cuda_graph_steps": "graph_steps"}
"""The agent's `stats` keys kept from `GenStats` fields of the KV path."""


class TransformersAgent(BaseAgent):
    """Generate with ``transformers`` from a zoo name (``tiny``, ``smollm2-135m``) or a local model directory.

    ``model`` may also be a preloaded ``PreTrainedModel`` (pass ``tokenizer=``); it is used on its own device
    and dtype. ``temperature=0`` is greedy. Sampling is seeded per ``generate`` call from ``seed`` and a
    call counter, so a fresh agent replays the same samples. ``stats`` accumulates prompt/completion
    tokens, generation seconds, calls and observations; ``last_latencies`` holds per-observation seconds
    of the last batch (its render time plus its batch's generation time). ``lookahead`` (KV path, greedy):
    prompt-lookup draft tokens verified per decode step (0: one token a step; the output is the same).
    ``cuda_graphs`` (KV path): decode steps of fixed shape replayed as a CUDA graph (None: on CUDA unless
    ``LIVESIM_CUDA_GRAPHS=0``; the same output, see `livesim.agents.kv_cache.generate_cached`).
    """

    name = "transformers"

    def __init__(
        self,
        model: Any = "tiny",
        *,
        device: str = "auto",
        max_new_tokens: int = 256,
        temperature: float = 0.0,
        top_p: float = 1.0,
        seed: int = 0,
        batch_size: int = 8,
        dtype: str = "auto",
        max_prompt_tokens: int | None = None,
        tokenizer: Any = None,
        cache_dir: str | Path | None = None,
        chat_template_kwargs: dict[str, Any] | None = None,
        kv_cache: bool = True,
        stop_after_tool_call: bool = True,
        cache_entries: int | None = None,
        lookahead: int = 8,
        cuda_graphs: bool | None = None,
    ) -> None:
        super().__init__()
        import torch

        if batch_size < 1 or max_new_tokens < 1:
            raise ValueError(f"expected batch_size, max_new_tokens >= 1, got {batch_size}, {max_new_tokens}")
        if temperature < 0 or not 0 < top_p <= 1:
            raise ValueError(f"expected temperature >= 0 and 0 < top_p <= 1, got {temperature}, {top_p}")
        if device == "auto":
            device = select_device().device
        self.device = torch.device(device)
        self.max_new_tokens, self.temperature, self.top_p = max_new_tokens, temperature, top_p
        self.seed, self.batch_size, self.max_prompt_tokens = seed, batch_size, max_prompt_tokens
        self.chat_template_kwargs = dict(chat_template_kwargs or {})
        self.model, self.tokenizer = self._load(model, tokenizer, dtype, cache_dir)
        self.model_name = str(getattr(self.model, "name_or_path", model))

        added = getattr(self.tokenizer, "added_tokens_decoder", {})
        special = set(self.tokenizer.all_special_ids) | {i for i, t in added.items() if t.special}
        vocab = self.tokenizer.get_vocab()
        keep = {vocab[t] for t in KEEP_TOKENS if t in vocab}
        self._skip_ids = special - keep
        gen_eos = self.model.generation_config.eos_token_id
        eos = set(gen_eos if isinstance(gen_eos, list) else [gen_eos] if gen_eos is not None else [])
        if self.tokenizer.eos_token_id is not None:
            eos.add(self.tokenizer.eos_token_id)
        self._eos_ids = sorted(eos)
        pad = self.tokenizer.pad_token_id
        self._pad_id = pad if pad is not None else (self._eos_ids[0] if self._eos_ids else 0)
        vocab_ids = self.tokenizer.get_vocab()
        self.turn_end = TurnEnd(frozenset(self._eos_ids), vocab_ids.get("<tool_call>"), vocab_ids.get("</tool_call>"),
                                after_tool_call=stop_after_tool_call)
        self.kv_cache = kv_cache
        if lookahead < 0:
            raise ValueError(f"expected lookahead >= 0, got {lookahead}")
        self.lookahead = lookahead
        self.cuda_graphs = cuda_graphs
        self.cache = PrefixCache(max_entries=cache_entries or max(16, 2 * batch_size))
        self.gen_stats = GenStats()
        self._calls = 0
        self.last_latencies: list[float] = []
        self.latency_log: list[float] = []  # every turn's measured seconds (batched turns share the batch time)
        self.stats.update(prompt_tokens=0, completion_tokens=0, generate_seconds=0.0, calls=0, observations=0,
                          truncated_prompts=0, **dict.fromkeys(_GEN_STATS, 0))

    def _load(self, model: Any, tokenizer: Any, dtype: str, cache_dir: str | Path | None) -> tuple[Any, Any]:
        import torch
        from transformers import AutoModelForCausalLM, AutoTokenizer

        if not isinstance(model, (str, Path)):
            # A preloaded model (e.g. mid-training) is used where it is, in its dtype, and never moved.
            if tokenizer is None:
                raise ValueError("expected a tokenizer with a preloaded model, got tokenizer=None")
            self.device = next(model.parameters()).device
            return model, tokenizer
        torch_dtype: Any
        if dtype == "auto":
            kind = self.device.type if self.device.type in ("cuda", "cpu") else "cpu"  # other backends: fp32
            torch_dtype = getattr(torch, select_device(kind).infer_dtype)
        else:
            torch_dtype = getattr(torch, str(dtype), None)
            if not isinstance(torch_dtype, torch.dtype):
                raise ValueError(f"expected dtype 'auto', 'float32', 'bfloat16' or 'float16', got {dtype!r}")

        source = resolve_model_source(model, cache_dir)
        tokenizer = tokenizer or AutoTokenizer.from_pretrained(source)
        loaded = AutoModelForCausalLM.from_pretrained(source, **load_kwargs(torch_dtype))
        return loaded.to(self.device).eval(), tokenizer  # type: ignore[arg-type]  # transformers' typed .to

    @property
    def tokens_per_second(self) -> float:
        """Completion tokens per second of generation, over the agent's lifetime."""
        secs = self.stats["generate_seconds"]
        return self.stats["completion_tokens"] / secs if secs > 0 else 0.0

    def _render(self, messages: list[dict[str, Any]], tools: list | None, generation_prompt: bool = True):
        text = self.tokenizer.apply_chat_template(
            messages, tools=tools, add_generation_prompt=generation_prompt, tokenize=False,
            **self.chat_template_kwargs,
        )
        return self.tokenizer(text, add_special_tokens=False)["input_ids"]

    def prompt_ids(self, observation: Observation) -> list[int]:
        """Token ids of the rendered prompt, cut to ``max_prompt_tokens`` from the left (system kept)."""
        messages = normalize_messages(list(observation.get("messages", [])))
        tools = observation.get("tools") or None
        ids = self._render(messages, tools)
        limit = self.max_prompt_tokens
        if limit is None or len(ids) <= limit:
            return ids
        self.stats["truncated_prompts"] += 1
        head = 1 if messages and messages[0].get("role") == "system" else 0
        while len(messages) - head > 1 and len(ids) > limit:  # drop the oldest turns first
            del messages[head]
            ids = self._render(messages, tools)
        if len(ids) <= limit:
            return ids
        system_ids = self._render(messages[:head], tools, generation_prompt=False) if head else []
        keep = limit - len(system_ids)
        if system_ids and keep > 0 and ids[: len(system_ids)] == system_ids:
            return system_ids + ids[-keep:]
        return ids[-limit:]

    def act(self, observation: Observation) -> Action:
        return self.act_batch([observation])[0]

    def act_batch(self, observations: list[Observation]) -> list[Action]:
        """Generate for every observation, ``batch_size`` at a time, similar lengths batched together."""
        render_secs, prompts = [], []
        for obs in observations:
            t0 = time.perf_counter()
            prompts.append(self.prompt_ids(obs))
            render_secs.append(time.perf_counter() - t0)
        order = sorted(range(len(prompts)), key=lambda i: len(prompts[i]))
        texts: list[str] = [""] * len(prompts)
        latencies = [0.0] * len(prompts)
        for start in range(0, len(order), self.batch_size):
            idx = order[start : start + self.batch_size]
            t0 = time.perf_counter()
            batch = [prompts[i] for i in idx]
            outs = self._generate_cached(batch) if self.kv_cache else self._generate(batch)
            elapsed = time.perf_counter() - t0
            for i, text in zip(idx, outs, strict=True):
                texts[i] = text
                latencies[i] = render_secs[i] + elapsed
        self.last_latencies = latencies
        self.latency_log.extend(latencies)
        self.stats["observations"] += len(observations)
        return list(texts)

    def _generate(self, batch: list[list[int]]) -> list[str]:
        import torch

        width = max(len(ids) for ids in batch)
        input_ids = torch.full((len(batch), width), self._pad_id, dtype=torch.long)  # (B, T), left-padded
        attention = torch.zeros((len(batch), width), dtype=torch.long)
        for row, ids in enumerate(batch):
            if ids:
                input_ids[row, width - len(ids) :] = torch.tensor(ids, dtype=torch.long)
                attention[row, width - len(ids) :] = 1
        kwargs: dict[str, Any] = dict(max_new_tokens=self.max_new_tokens, pad_token_id=self._pad_id,
                                      eos_token_id=self._eos_ids or None)
        if self.turn_end.after_tool_call:
            kwargs["stopping_criteria"] = [stopping_criteria(self.turn_end, width)]
        if self.temperature > 0:
            kwargs.update(do_sample=True, temperature=self.temperature, top_p=self.top_p, top_k=0)
        else:
            kwargs.update(do_sample=False, temperature=None, top_p=None, top_k=None)
        devices = [self.device.index or 0] if self.device.type == "cuda" else []
        t0 = time.perf_counter()
        was_training = self.model.training
        self.model.eval()
        try:
            with torch.random.fork_rng(devices=devices), torch.inference_mode():
                torch.manual_seed(self.seed * 1_000_003 + self._calls)  # reproducible per (seed, call index)
                out = self.model.generate(
                    input_ids=input_ids.to(self.device), attention_mask=attention.to(self.device), **kwargs
                )
        finally:
            self.model.train(was_training)
        self.stats["generate_seconds"] += time.perf_counter() - t0
        self._calls += 1
        self.stats["calls"] += 1
        self.stats["prefill_tokens"] += sum(len(ids) for ids in batch)
        return self._decode(batch, [self.turn_end.cut(ids) for ids in out[:, width:].tolist()])

    def _decode(self, batch: list[list[int]], completions: list[list[int]]) -> list[str]:
        texts = []
        for ids in completions:
            self.stats["completion_tokens"] += len(ids)
            kept = [tok for tok in ids if tok not in self._skip_ids]
            texts.append(self.tokenizer.decode(kept, skip_special_tokens=False))
        self.stats["prompt_tokens"] += sum(len(ids) for ids in batch)
        return texts

    def _generate_cached(self, batch: list[list[int]]) -> list[str]:
        """Generate with the prefix cache: only the tokens no cached sequence starts with are prefilled."""
        import torch

        devices = [self.device.index or 0] if self.device.type == "cuda" else []
        t0 = time.perf_counter()
        was_training = self.model.training
        self.model.eval()
        before = {field: getattr(self.gen_stats, field) for field in _GEN_STATS.values()}
        try:
            with torch.random.fork_rng(devices=devices):
                gen = None
                if self.temperature > 0:
                    gen = torch.Generator(device=self.device)
                    gen.manual_seed(self.seed * 1_000_003 + self._calls)  # reproducible per (seed, call index)
                completions = generate_cached(
                    self.model, batch, self.cache, self.turn_end, max_new_tokens=self.max_new_tokens,
                    pad_id=self._pad_id, temperature=self.temperature, top_p=self.top_p, generator=gen,
                    stats=self.gen_stats, lookahead=self.lookahead, cuda_graphs=self.cuda_graphs)
        finally:
            self.model.train(was_training)
        self.stats["generate_seconds"] += time.perf_counter() - t0
        for key, field in _GEN_STATS.items():  # what this call added to the sampler's counters
            self.stats[key] += getattr(self.gen_stats, field) - before[field]
        self._calls += 1
        self.stats["calls"] += 1
        return self._decode(batch, completions)
