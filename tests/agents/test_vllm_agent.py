"""VLLMAgent against a stand-in ``vllm`` module (tests/agents/fake_vllm): batching, tools, seeds, stats."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
from agent_fixtures import TOOL_TURN, make_observation

from livesim.agents import make_agent
from livesim.agents.vllm_agent import VLLMAgent, import_vllm

FAKE = Path(__file__).parent / "fake_vllm"


@pytest.fixture
def fake_vllm(monkeypatch):
    monkeypatch.delitem(sys.modules, "vllm", raising=False)
    monkeypatch.syspath_prepend(str(FAKE))
    module = import_vllm()
    assert module.__file__.startswith(str(FAKE))
    module.CALLS.clear()
    yield module
    monkeypatch.delitem(sys.modules, "vllm", raising=False)


def test_missing_vllm_says_how_to_install(monkeypatch):
    monkeypatch.setitem(sys.modules, "vllm", None)
    with pytest.raises(ImportError, match=r"pip install 'livesim\[vllm\]'"):
        VLLMAgent("some/model")


def test_engine_arguments(fake_vllm, tiny_model_dir):
    VLLMAgent(str(tiny_model_dir), tensor_parallel_size=2, max_model_len=4096, seed=5,
              llm_kwargs={"enforce_eager": True})
    init = fake_vllm.CALLS[0]
    assert init["model"] == str(tiny_model_dir) and init["tensor_parallel_size"] == 2
    assert init["max_model_len"] == 4096 and init["seed"] == 5 and init["gpu_memory_utilization"] == 0.85
    assert init["enforce_eager"] is True


def test_hub_ids_pass_through(fake_vllm):
    assert VLLMAgent("Qwen/Qwen3-0.6B").model_name == "Qwen/Qwen3-0.6B"


def test_batches_group_by_tools_and_keep_order(fake_vllm):
    agent = VLLMAgent("org/model", max_new_tokens=32)
    observations = [make_observation("price of SKU-7?"), make_observation("hi", tools=[]),
                    make_observation("and the price in M?", history=TOOL_TURN)]
    replies = agent.act_batch(observations)
    assert replies[0].startswith("<tool_call>\n{\"name\": \"get_product\"")
    assert replies[1] == "reply to: hi"
    assert replies[2].startswith("<tool_call>")
    chats = [c for c in fake_vllm.CALLS if c["call"] == "chat"]
    assert len(chats) == 2 and [len(c["conversations"]) for c in chats] == [2, 1]
    assert chats[1]["tools"] is None
    params = chats[0]["params"]
    assert params[0].max_tokens == 32 and params[0].temperature == 0.0 and params[0].seed != params[1].seed
    assert agent.stats["calls"] == 2 and agent.stats["observations"] == 3
    assert agent.stats["completion_tokens"] > 0 and agent.stats["prompt_tokens"] > 0
    assert len(agent.last_latencies) == 3


def test_sampling_seeds_replay(fake_vllm):
    def run():
        agent = VLLMAgent("org/model", temperature=0.8, seed=7)
        return [agent.act(make_observation("hi")) for _ in range(2)]

    first = run()
    assert first == run() and first[0] != first[1]


def test_registry_and_template_kwargs(fake_vllm):
    agent = make_agent("vllm", model="org/model", chat_template_kwargs={"enable_thinking": False})
    agent.act(make_observation("hi"))
    assert fake_vllm.CALLS[-1]["chat_template_kwargs"] == {"enable_thinking": False}
