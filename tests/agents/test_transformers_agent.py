"""TransformersAgent on the tiny model: determinism, batching, left padding, stats, decoding, truncation."""

from __future__ import annotations

import subprocess
import sys

import pytest
from agent_fixtures import TOOL_TURN, make_observation

torch = pytest.importorskip("torch")

from livesim.agents import make_agent  # noqa: E402
from livesim.agents.transformers_agent import TransformersAgent, normalize_messages  # noqa: E402

QUESTIONS = ["Is the blue jacket waterproof?", "price?", "Do you ship to Berlin, and how long does it take?"]


@pytest.fixture(scope="module")
def agent(tiny_model_dir):
    return TransformersAgent(str(tiny_model_dir), device="cpu", max_new_tokens=12, batch_size=8)


@pytest.fixture
def full_prefill_agent(tiny_model_dir):
    """The agent on its full-prefill `generate` path (kv_cache=False), which the spies below patch."""
    return TransformersAgent(str(tiny_model_dir), device="cpu", max_new_tokens=12, batch_size=8, kv_cache=False)


def test_greedy_is_deterministic(agent):
    obs = make_observation(QUESTIONS[0])
    first, second = agent.act(obs), agent.act(obs)
    assert isinstance(first, str) and first
    assert first == second


def test_batch_equals_singles_for_greedy(agent):
    observations = [make_observation(q) for q in QUESTIONS]
    singles = [agent.act(obs) for obs in observations]
    assert agent.act_batch(observations) == singles
    assert len(set(singles)) > 1, "the tiny model's greedy output should depend on the prompt"


def test_batches_are_left_padded(full_prefill_agent, monkeypatch):
    agent = full_prefill_agent
    seen = {}
    real = agent.model.generate

    def spy(**kwargs):
        seen.update(kwargs)
        return real(**kwargs)

    monkeypatch.setattr(agent.model, "generate", spy)
    agent.act_batch([make_observation("hi"), make_observation(QUESTIONS[2])])
    mask = seen["attention_mask"]  # (B, T)
    assert mask[:, -1].tolist() == [1, 1], "every row ends with a real token"
    assert mask[0, 0].item() == 0 and mask[1, 0].item() == 1, "the shorter prompt is padded on the left"
    assert (seen["input_ids"][0][mask[0] == 0] == agent._pad_id).all()


def test_stats_and_latencies(tiny_model_dir):
    agent = TransformersAgent(str(tiny_model_dir), device="cpu", max_new_tokens=5, batch_size=2)
    agent.act_batch([make_observation(q) for q in QUESTIONS])
    stats = agent.stats
    assert stats["calls"] == 2 and stats["observations"] == 3
    assert stats["prompt_tokens"] > 100 and 3 <= stats["completion_tokens"] <= 15
    assert stats["generate_seconds"] > 0 and agent.tokens_per_second > 0
    assert len(agent.last_latencies) == 3 and all(t > 0 for t in agent.last_latencies)


def test_sampling_is_seeded(tiny_model_dir):
    def run(seed):
        agent = TransformersAgent(str(tiny_model_dir), device="cpu", max_new_tokens=12, temperature=1.0,
                                  seed=seed)
        obs = make_observation(QUESTIONS[0])
        return [agent.act(obs), agent.act(obs)]

    first = run(1)
    assert first == run(1)
    assert first[0] != first[1], "successive calls draw fresh samples"
    assert first != run(2)


def test_decoding_keeps_tool_tags_and_stops_at_eos(full_prefill_agent, monkeypatch):
    agent = full_prefill_agent
    tok = agent.tokenizer
    reply = '<tool_call>\n{"name": "get_product", "arguments": {"sku": "SKU-7"}}\n</tool_call>'
    tail = tok(reply + "<|im_end|>", add_special_tokens=False)["input_ids"] + [agent._pad_id] * 3
    tail += tok("garbage after the end", add_special_tokens=False)["input_ids"]

    def fake_generate(input_ids, attention_mask, **kwargs):
        return torch.cat([input_ids, torch.tensor([tail] * input_ids.shape[0])], dim=1)

    monkeypatch.setattr(agent.model, "generate", fake_generate)
    assert agent.act(make_observation("price of SKU-7?")) == reply


def test_history_with_tool_calls_renders(agent):
    obs = make_observation("And in size M?", history=TOOL_TURN)
    text = agent.tokenizer.decode(agent.prompt_ids(obs))
    assert '<tool_call>\n{"name": "get_product", "arguments": {"sku": "SKU-7"}}\n</tool_call>' in text
    assert "<tool_response>\n{\"price\": 59.0, \"stock\": 3}\n</tool_response>" in text
    assert '"name": "check_stock"' in text  # tools listed in the system block


def test_normalize_messages_parses_json_arguments():
    out = normalize_messages(TOOL_TURN)
    assert out[1]["content"] == ""
    assert out[1]["tool_calls"][0]["function"]["arguments"] == {"sku": "SKU-7"}
    assert TOOL_TURN[1]["content"] is None, "the input is not mutated"


def test_long_prompts_are_cut_from_the_left_keeping_system(tiny_model_dir):
    agent = TransformersAgent(str(tiny_model_dir), device="cpu", max_new_tokens=2, max_prompt_tokens=400)
    history = [{"role": "user", "content": f"old question {i} " * 20} for i in range(12)]
    obs = make_observation("latest question", history=history)
    ids = agent.prompt_ids(obs)
    text = agent.tokenizer.decode(ids)
    assert len(ids) <= 400
    assert text.startswith("<|im_start|>system\nYou are the host") and "latest question" in text
    assert agent.stats["truncated_prompts"] == 1
    tight = TransformersAgent(str(tiny_model_dir), device="cpu", max_new_tokens=2, max_prompt_tokens=60)
    assert len(tight.prompt_ids(make_observation("x" * 500, tools=[]))) == 60


def test_preloaded_model_keeps_training_mode(agent):
    model = agent.model.train()
    wrapped = TransformersAgent(model, tokenizer=agent.tokenizer, max_new_tokens=3)
    assert isinstance(wrapped.act(make_observation("hi")), str)
    assert model.training
    model.eval()


def test_registry_builds_it(tiny_model_dir):
    built = make_agent("transformers", model=str(tiny_model_dir), device="cpu", max_new_tokens=2)
    assert isinstance(built, TransformersAgent)


def test_agents_import_without_torch():
    code = (
        "import sys\n"
        "sys.modules['torch'] = sys.modules['transformers'] = sys.modules['vllm'] = None\n"
        "import livesim.agents, livesim.agents.transformers_agent, livesim.agents.openai_agent\n"
        "import livesim.agents.vllm_agent, livesim.agents.mock, livesim.models.zoo\n"
        "assert livesim.models.zoo.list_models()\n"
    )
    subprocess.run([sys.executable, "-c", code], check=True, timeout=60)
