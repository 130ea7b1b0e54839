"""MockAgent: replies keyed on the last user/tool message by exact string or regex."""

from __future__ import annotations

from agent_fixtures import TOOL_TURN, make_observation

from livesim.agents import make_agent
from livesim.agents.mock import MockAgent, last_prompt


def test_exact_then_regex_then_default():
    agent = MockAgent({"hi": "hello!", r"price|cost": "It is $5.", "a.c": "regex"}, default="?")
    assert agent.act(make_observation("hi")) == "hello!"
    assert agent.act(make_observation("what does it cost")) == "It is $5."
    assert agent.act(make_observation("abc")) == "regex"
    assert agent.act(make_observation("zzz")) == "?"
    assert agent.stats == {"calls": 4, "unmatched": 1}
    assert agent.prompts[-1] == "zzz"


def test_lists_advance_then_repeat_and_reset_rewinds():
    call = {"role": "assistant", "content": "", "tool_calls": [
        {"type": "function", "function": {"name": "get_product", "arguments": '{"sku": "SKU-7"}'}}]}
    agent = MockAgent({"SKU-7": [call, "It costs $59."]})
    obs = make_observation("How much is SKU-7?")
    first = agent.act(obs)
    assert first == call and first is not call
    assert agent.act(obs) == "It costs $59." and agent.act(obs) == "It costs $59."
    agent.reset()
    assert agent.act(obs) == call


def test_keys_on_the_last_tool_message():
    obs = make_observation("ignored", history=[])
    obs["messages"] = obs["messages"][:1] + TOOL_TURN
    assert last_prompt(obs) == '{"price": 59.0, "stock": 3}'
    assert MockAgent({r'"price": 59': "It is $59."}).act(obs) == "It is $59."


def test_callable_script_and_invalid_regex_keys():
    assert MockAgent(lambda obs: f"n={len(obs['messages'])}").act(make_observation("x")) == "n=2"
    assert MockAgent({"price?(": "literal"}).act(make_observation("the price?( is")) == "literal"


def test_registry():
    agent = make_agent("mock", script={"hi": "yo"})
    assert agent.act_batch([make_observation("hi"), make_observation("no")]) == ["yo", ""]
