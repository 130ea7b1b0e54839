"""OpenAIAgent against a loopback stub server: native tools, retries, graded failures, concurrency."""

from __future__ import annotations

import json
import socket

import pytest
from agent_fixtures import TOOL_TURN, TOOLS, make_observation
from stub_server import StubChatServer

from livesim.agents import make_agent
from livesim.agents.openai_agent import OpenAIAgent

TOOL_CALL = {"id": "call_9", "type": "function",
             "function": {"name": "get_product", "arguments": '{"sku": "SKU-7"}'}}


@pytest.fixture
def server():
    with StubChatServer(responder=lambda body: "echo: " + body["messages"][-1]["content"]) as srv:
        yield srv


def agent_for(server, **kwargs):
    kwargs = {"timeout": 2.0, "backoff": 0.01, "max_retries": 2, **kwargs}
    return OpenAIAgent(server.base_url, "stub-model", **kwargs)


def test_tools_go_natively_and_tool_calls_come_back(server):
    server.queue({"role": "assistant", "content": None, "tool_calls": [TOOL_CALL]})
    agent = agent_for(server)
    reply = agent.act(make_observation("How much is SKU-7?", history=TOOL_TURN))
    assert reply == {"role": "assistant", "content": "", "tool_calls": [TOOL_CALL]}
    body = server.requests[0]
    assert body["model"] == "stub-model" and body["tools"] == TOOLS
    assert body["temperature"] == 0.0 and body["max_tokens"] == 512
    call = body["messages"][2]["tool_calls"][0]
    assert call["function"]["arguments"] == '{"sku": "SKU-7"}' and call["type"] == "function"
    assert body["messages"][3]["role"] == "tool" and body["messages"][3]["tool_call_id"] == "call_1"
    assert agent.stats["prompt_tokens"] == 7 and agent.stats["completion_tokens"] == 3


def test_dict_and_broken_arguments_are_sent_as_json_strings(server):
    history = [{"role": "assistant", "content": "", "tool_calls": [
        {"function": {"name": "a", "arguments": {"x": 1}}},
        {"function": {"name": "b", "arguments": "{oops"}}]}]
    agent_for(server).act(make_observation("q", history=history))
    calls = server.requests[0]["messages"][1]["tool_calls"]
    assert json.loads(calls[0]["function"]["arguments"]) == {"x": 1}
    assert json.loads(calls[1]["function"]["arguments"]) == "{oops"
    assert calls[0]["id"] and calls[1]["id"] and calls[0]["id"] != calls[1]["id"]


def test_text_mode_puts_tools_in_the_prompt(server):
    agent_for(server, tools_native=False).act(make_observation("And size M?", history=TOOL_TURN))
    body = server.requests[0]
    assert "tools" not in body
    messages = body["messages"]
    assert messages[0]["role"] == "system" and "<tools>" in messages[0]["content"]
    assert '"check_stock"' in messages[0]["content"]
    call_text = '<tool_call>\n{"name": "get_product", "arguments": {"sku": "SKU-7"}}\n</tool_call>'
    assert messages[2] == {"role": "assistant", "content": call_text}
    assert messages[3]["role"] == "user" and messages[3]["content"].startswith("<tool_response>")
    assert all(m["role"] != "tool" for m in messages)


def test_retries_on_500(server):
    server.fail_next(2, "500")
    agent = agent_for(server)
    assert agent.act(make_observation("hello"))["content"] == "echo: hello"
    assert agent.stats["retries"] == 2 and agent.stats["requests"] == 3 and agent.stats["errors"] == 0


def test_retries_on_timeout(server):
    server.fail_next(1, "timeout", delay=1.0)
    agent = agent_for(server, timeout=0.2)
    assert agent.act(make_observation("hello"))["content"] == "echo: hello"
    assert agent.stats["retries"] == 1


def test_exhausted_retries_give_an_empty_reply(server):
    server.fail_next(10, "500")
    agent = agent_for(server, max_retries=2)
    assert agent.act(make_observation("hello")) == {"role": "assistant", "content": ""}
    assert agent.stats["errors"] == 1 and agent.stats["requests"] == 3
    assert "gave up after 3 attempts" in agent.error_log[-1]


@pytest.mark.parametrize("mode", ["malformed", "empty"])
def test_malformed_body_is_graded_not_raised(server, mode):
    server.fail_next(1, mode)
    agent = agent_for(server)
    assert agent.act(make_observation("hello")) == {"role": "assistant", "content": ""}
    assert agent.stats["errors"] == 1 and agent.stats["requests"] == 1
    assert "malformed response" in agent.error_log[-1]
    assert agent.act(make_observation("again"))["content"] == "echo: again"


def test_client_errors_are_not_retried(server):
    agent = OpenAIAgent(server.base_url + "/wrong", "m", backoff=0.01)
    assert agent.act(make_observation("hello"))["content"] == ""
    assert agent.stats["requests"] == 1 and "HTTP 404" in agent.error_log[-1]


def test_connection_refused_is_retried_then_graded():
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    agent = OpenAIAgent(f"http://127.0.0.1:{port}/v1", "m", max_retries=1, backoff=0.01, timeout=1.0)
    assert agent.act(make_observation("hello")) == {"role": "assistant", "content": ""}
    assert agent.stats["retries"] == 1 and "connection refused" in agent.error_log[-1]


def test_act_batch_runs_concurrently_and_keeps_order(server):
    server.slow(0.15)
    agent = agent_for(server, concurrency=4)
    questions = [f"question {i}" for i in range(8)]
    replies = agent.act_batch([make_observation(q) for q in questions])
    assert [r["content"] for r in replies] == [f"echo: {q}" for q in questions]
    assert server.max_in_flight >= 2
    assert len(agent.last_latencies) == 8 and agent.stats["requests"] == 8
    assert agent.stats["observations"] == 8 and agent.stats["completion_tokens"] == 24
    assert 0.15 < agent.stats["generate_seconds"] < agent.stats["request_seconds"]
    assert agent.tokens_per_second > 0


def test_registry_and_extra_body(server):
    agent = make_agent("openai", base_url=server.base_url, model="m", seed=3,
                       extra_body={"chat_template_kwargs": {"enable_thinking": False}})
    agent.act(make_observation("hi"))
    body = server.requests[0]
    assert body["seed"] == 3 and body["chat_template_kwargs"] == {"enable_thinking": False}
