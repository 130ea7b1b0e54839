"""The domain tokenizer of the ``tiny`` training preset: a byte-level BPE trained on simulator text, seeded.

(The zoo's own ``tiny`` trains a smaller one on canonical-harness text from the bare simulator, since the zoo
sits below the envs; this one also sees HSA's train vocabulary, through the envs and the oracle.)

The corpus is what a model meets in training: oracle conversations played in ``LiveStreamQA-v0`` on the
canonical harness and under HSA's *train* vocabulary (never the held-out one), rendered with the preset's
chat template (:data:`TINY_CHAT_TEMPLATE`) (system prompt, tool schemas as JSON, tool calls, tool results, hook
messages, replies).
Merges learnt there make a livestream prompt about as many tokens under a 4k vocabulary as under
SmolLM2's 49k one, instead of about twice as many under a generic small BPE.
"""

from __future__ import annotations

import hashlib
import json
from typing import Any

import gymnasium as gym

import livesim.envs  # noqa: F401  (registers the envs)
from livesim.agents.oracle import OracleAgent
from livesim.envs.hsa import make_wrappers
from livesim.models.zoo import _TINY_CORPUS

CORPUS_VERSION = "sim-v3"
"""Bumped whenever the corpus recipe or the oracle's replies change (it is part of the tiny build hash); sim-v3:
the gold replies follow what each comment's phrasing asks (`livesim.world.truth.TRUTH_VERSION` 2)."""

TINY_CHAT_TEMPLATE = r"""{%- if messages and messages[0].role == 'system' -%}
    {%- set system_message = messages[0].content if messages[0].content is string else '' -%}
    {%- set loop_messages = messages[1:] -%}
{%- else -%}
    {%- set system_message = '' -%}
    {%- set loop_messages = messages -%}
{%- endif -%}
{{- '<|im_start|>system\n' + system_message -}}
{%- if tools -%}
    {{- '\n\n# Functions\nCall: <tool_call>\n{"name": <name>, "arguments": {<arg>: <value>}}\n</tool_call>' -}}
    {%- for tool in tools -%}
        {%- set f = tool.function if tool.function is defined else tool -%}
        {%- set params = f.parameters if f.parameters is defined and f.parameters else {} -%}
        {%- set required = params.required if params.required is defined else [] -%}
        {{- '\n- ' + f.name + ': ' + (f.description if f.description is defined else '') -}}
        {%- if params.properties is defined -%}
            {%- for pname, p in params.properties.items() -%}
                {{- '\n  ' + pname + ('' if pname in required else '?') + ' (' -}}
                {%- if p.type is defined -%}{%- set ptype = p.type -%}
                {%- elif p.anyOf is defined -%}{%- set ptype = p.anyOf | map(attribute='type') | reject('equalto', 'null') | join('|') -%}
                {%- else -%}{%- set ptype = 'any' -%}{%- endif -%}
                {{- ptype + '): ' + (p.description if p.description is defined else '') -}}
            {%- endfor -%}
        {%- endif -%}
    {%- endfor -%}
{%- endif -%}
{{- '<|im_end|>\n' -}}
{%- for message in loop_messages -%}
    {%- set content = message.content if message.content is string else '' -%}
    {%- if message.role == 'assistant' -%}
        {{- '<|im_start|>assistant\n' -}}
        {%- generation -%}
        {{- content -}}
        {%- for tool_call in (message.tool_calls or []) -%}
            {%- set call = tool_call.function if tool_call.function is defined else tool_call -%}
            {%- if content or not loop.first -%}{{- '\n' -}}{%- endif -%}
            {{- '<tool_call>\n{"name": "' + call.name + '", "arguments": ' -}}
            {%- if call.arguments is string -%}{{- call.arguments -}}
            {%- else -%}{{- call.arguments | tojson -}}{%- endif -%}
            {{- '}\n</tool_call>' -}}
        {%- endfor -%}
        {{- '<|im_end|>' -}}
        {%- endgeneration -%}
        {{- '\n' -}}
    {%- elif message.role == 'tool' -%}
        {%- if loop.first or loop_messages[loop.index0 - 1].role != 'tool' -%}{{- '<|im_start|>user' -}}
        {%- endif -%}
        {{- '\n<tool_response>\n' + content + '\n</tool_response>' -}}
        {%- if loop.last or loop_messages[loop.index0 + 1].role != 'tool' -%}{{- '<|im_end|>\n' -}}
        {%- endif -%}
    {%- else -%}
        {{- '<|im_start|>' + message.role + '\n' + content + '<|im_end|>\n' -}}
    {%- endif -%}
{%- endfor -%}
{%- if add_generation_prompt -%}{{- '<|im_start|>assistant\n' -}}{%- endif -%}
"""
"""The chat template of the ``tiny`` training preset: ChatML with Hermes tool calls (``<tool_call>`` JSON, as
every livesim parser reads), ``{% generation %}`` markers (TRL's assistant-only loss needs no patch), prefix-
preserving, no thinking block, and the tool schemas as one line per function plus one per argument (name,
``?`` when optional, type, description) instead of JSON: the same facts in about half the tokens (the prompt is
the CPU cost driver). Tool-call arguments are still JSON."""

SPECIAL_TOKENS = ["<|endoftext|>", "<|im_start|>", "<|im_end|>"]
# Added but not special, as in Qwen3: decoding with skip_special_tokens=True keeps them.
TAG_TOKENS = ["<tool_call>", "</tool_call>", "<tool_response>", "</tool_response>", "<think>", "</think>"]


def preset_tokenizer(vocab_size: int, episodes: int, seed: int) -> Any:
    """The tokenizer of the ``tiny`` training preset: BPE on :func:`simulator_corpus` plus generic lines."""
    return train_bpe(simulator_corpus(episodes, seed) + _TINY_CORPUS * 4, vocab_size, TINY_CHAT_TEMPLATE)


def simulator_corpus(episodes: int = 120, seed: int = 0) -> list[str]:
    """Rendered oracle conversations: half canonical, half under HSA (train split), a few with retries.

    Deterministic: the same ``episodes`` and ``seed`` give the same texts in any process.
    """
    from jinja2 import Environment

    template = Environment(trim_blocks=False, lstrip_blocks=False, extensions=["jinja2.ext.loopcontrols"]
                           ).from_string(TINY_CHAT_TEMPLATE.replace("{%- generation -%}", "").replace(
                               "{%- endgeneration -%}", ""))
    texts: list[str] = []
    for variant in ("canonical", "hsa"):
        env = gym.make("LiveStreamQA-v0")
        if variant == "hsa":
            env = make_wrappers(env, "hsa", split="train")
        agent = OracleAgent(env, error_rate=0.15, seed=seed)
        for i in range(episodes // 2):
            obs, _ = env.reset(seed=seed * 1_000_003 + i)
            agent.reset()
            done = False
            while not done:
                obs, _, term, trunc, _ = env.step(agent.act(obs))
                done = term or trunc
            messages = [_plain(m) for m in obs["messages"]]
            texts.append(template.render(messages=messages, tools=obs["tools"], add_generation_prompt=False,
                                         tojson=_tojson))
    return texts


def _tojson(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False)


def _plain(message: dict[str, Any]) -> dict[str, Any]:
    out = {"role": message["role"], "content": message.get("content") or ""}
    if message.get("tool_calls"):
        out["tool_calls"] = [{"type": "function", "function": {
            "name": c["function"]["name"], "arguments": c["function"]["arguments"]}} for c in message["tool_calls"]]
    return out


def corpus_hash(texts: list[str]) -> str:
    return hashlib.sha256("\x1e".join(texts).encode()).hexdigest()[:16]


def train_bpe(texts: list[str], vocab_size: int, chat_template: str, model_max_length: int = 8192) -> Any:
    """Train a byte-level BPE on ``texts`` and wrap it as a ``PreTrainedTokenizerFast`` with Qwen3's tokens."""
    from tokenizers import AddedToken, Tokenizer, decoders, models, pre_tokenizers, trainers
    from transformers import PreTrainedTokenizerFast

    tok = Tokenizer(models.BPE())
    tok.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    tok.decoder = decoders.ByteLevel()
    trainer = trainers.BpeTrainer(
        vocab_size=vocab_size, min_frequency=2, special_tokens=SPECIAL_TOKENS,
        initial_alphabet=pre_tokenizers.ByteLevel.alphabet(), show_progress=False,
    )
    tok.add_special_tokens([AddedToken(t, special=True, normalized=False) for t in SPECIAL_TOKENS])
    tok.add_tokens([AddedToken(t, special=False, normalized=False) for t in TAG_TOKENS])
    tok.train_from_iterator(texts, trainer=trainer)
    fast = PreTrainedTokenizerFast(
        tokenizer_object=tok, eos_token="<|im_end|>", pad_token="<|endoftext|>", model_max_length=model_max_length,
    )
    fast.chat_template = chat_template
    return fast
