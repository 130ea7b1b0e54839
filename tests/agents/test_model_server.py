"""The openai agent against a misbehaving server (the loopback stub): every call's outcome is data.

Each fault the stub can inject is a case: whether it is retried, how many HTTP requests it costs (the stub counts
them), what the call's outcome says, the server's words in the error line, the health check, fail-fast, seeded
backoff, OpenAI's content and usage forms, and tool_choice.
"""

from __future__ import annotations

import json
import random
import socket
import string

import pytest
from agent_fixtures import TOOLS, make_observation
from stub_server import FAULTS, StubChatServer

from livesim.agents.base import AgentUnavailable
from livesim.agents.chat_http import ERROR_CHARS, error_text, escaped
from livesim.agents.openai_agent import OpenAIAgent

RETRIED = {"500", "timeout", "drip", "truncate", "drop", "status"}  # status: 503 below
AT_ONCE = {"malformed", "garbage", "empty", "huge"}
assert RETRIED | AT_ONCE == set(FAULTS)


def _fault_kw(mode: str) -> dict:
    return {"timeout": {"delay": 1.5}, "drip": {"delay": 0.05}, "status": {"status": 503, "body": "overloaded"},
            "huge": {"size": 5000}}.get(mode, {})


def agent_for(server, **kw):
    kw = {"timeout": 0.5, "backoff": 0.001, "max_backoff": 0.01, "max_retries": 2, "max_body": 4096, **kw}
    return OpenAIAgent(server.base_url, "stub-model", **kw)


def closed_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@pytest.fixture
def server():
    with StubChatServer(responder=lambda body: "fine") as srv:
        yield srv


@pytest.mark.parametrize("mode", sorted(RETRIED))
@pytest.mark.parametrize("faults", [1, 2, 3])
def test_retryable_faults_are_retried_counted_and_named(server, mode, faults):
    server.fail_next(faults, mode, **_fault_kw(mode))
    agent = agent_for(server, deadline=30)
    reply = agent.act(make_observation("hi"))
    call = agent.last_calls[0]
    assert agent.stats["requests"] == server.chat_hits == min(faults + 1, 3) == call["attempts"]
    assert agent.stats["retries"] == len(call["retries"]) == min(faults, 2)
    timeouts = min(faults, 3) if mode in ("timeout", "drip") else 0
    assert agent.stats["timeouts"] == timeouts
    if faults < 3:
        assert call["outcome"] == "retried" and reply["content"] == "fine" and agent.stats["errors"] == 0
        assert agent.stats["retried_calls"] == 1
    else:
        assert call["outcome"] == "failed" and reply == {"role": "assistant", "content": ""}
        assert call["error"] == agent.error_log[-1] and call["error"].startswith("gave up after 3 attempts")
    assert all("\n" not in why for why in call["retries"])


@pytest.mark.parametrize("mode", sorted(AT_ONCE))
def test_answers_that_are_no_chat_completion_fail_at_once(server, mode):
    server.fail_next(1, mode, **_fault_kw(mode))
    agent = agent_for(server)
    assert agent.act(make_observation("hi")) == {"role": "assistant", "content": ""}
    call = agent.last_calls[0]
    assert call["outcome"] == "failed" and call["attempts"] == 1 == server.chat_hits
    assert ("over 4096 bytes" if mode == "huge" else "malformed response") in call["error"]
    assert call["error"].isprintable() and len(call["error"]) < 2 * ERROR_CHARS


def test_a_slow_drip_is_bounded_by_the_whole_request_not_each_read(server):
    server.fail_next(1, "drip", delay=0.05)  # ~200 bytes at one per 0.05 s: every read is quick
    agent = agent_for(server, max_retries=0)
    agent.act(make_observation("hi"))
    assert agent.last_calls[0]["outcome"] == "failed" and agent.stats["timeouts"] == 1
    assert "timeout: no complete answer within 0.5s" in agent.last_calls[0]["error"]


def test_the_deadline_bounds_a_call_over_all_its_attempts(server):
    server.fail_next(10, "timeout", delay=1.0)
    agent = agent_for(server, timeout=0.3, deadline=0.5, max_retries=10)
    agent.act(make_observation("hi"))
    call = agent.last_calls[0]
    assert call["outcome"] == "failed" and 2 <= call["attempts"] <= 3 and "deadline 0.5s" in call["error"]


def _body(rng: random.Random) -> str:
    alphabet = string.ascii_letters + " ,.:'\"{}" + "\n\t\r\x1b\x00\x7f" + "é中文\u202e"
    return "".join(rng.choice(alphabet) for _ in range(rng.randint(1, 700)))


@pytest.mark.parametrize("seed", range(12))
def test_the_servers_words_are_in_the_error_line_escaped_and_cut(server, seed):
    rng = random.Random(seed)
    said = _body(rng)
    shape = seed % 5
    body = [json.dumps({"error": {"message": said, "type": "invalid_request_error"}}), json.dumps({"error": said}),
            json.dumps({"detail": said}), json.dumps({"message": said}), said][shape]
    status = rng.choice([400, 401, 404, 413, 422])
    server.fail_next(1, "status", status=status, body=body)
    agent = agent_for(server)
    agent.act(make_observation("hi"))
    error = agent.last_calls[0]["error"]
    assert error.startswith(f"HTTP {status}: ") and server.chat_hits == 1  # a 4xx is not retried
    assert error.isprintable() and len(error) <= len(f"HTTP {status}: ") + ERROR_CHARS + 20
    assert error[len(f"HTTP {status}: "):] == escaped(said.strip())


def test_context_length_message_reaches_the_user(server):
    said = "This model's maximum context length is 1024 tokens. However, you requested 1520 tokens."
    server.fail_next(1, "status", status=400, body=json.dumps({"error": {"message": said, "code": 400}}))
    agent = agent_for(server)
    agent.act(make_observation("hi"))
    assert agent.error_log[-1] == f"HTTP 400: {said}"


def test_error_text_of_an_empty_or_binary_body():
    assert error_text(b"") == "(empty body)"
    assert error_text(bytes(range(32))).isprintable()


@pytest.mark.parametrize("seed", range(6))
def test_retry_waits_are_jittered_seeded_and_replayable(server, seed):
    def waits(agent_seed):
        server.fail_next(6, "500")
        agent = agent_for(server, seed=agent_seed, backoff=0.2, max_backoff=1.0, max_retries=2)
        seen = []
        agent.sleep = seen.append
        agent.act_batch([make_observation("a"), make_observation("b")])
        return seen

    a, b, other = waits(seed), waits(seed), waits(seed + 100)
    assert a == b and a != other and len(a) == 4
    assert all(0.1 <= d < 0.4 for d in a + other)  # retry 0: [0.1, 0.2), retry 1: [0.2, 0.4)
    agent = agent_for(server, seed=seed, backoff=0.2, max_backoff=1.0)
    assert [agent.backoff_delay(7, k) for k in range(3)] == [agent.backoff_delay(7, k) for k in range(3)]
    assert all(0.5 * min(0.2 * 2 ** k, 1.0) <= agent.backoff_delay(7, k) < min(0.2 * 2 ** k, 1.0) for k in range(5))


def test_retry_after_is_honoured_up_to_max_backoff(server):
    server.fail_next(1, "status", status=429, body="slow down", retry_after=0.3)
    agent = agent_for(server, max_backoff=0.25)
    seen = []
    agent.sleep = seen.append
    agent.act(make_observation("hi"))
    assert seen == [0.25] and agent.last_calls[0]["retries"] == ["HTTP 429: slow down"]


@pytest.mark.parametrize("parts", [
    [{"type": "text", "text": "fine "}, {"type": "text", "text": "thanks"}],
    ["fine ", {"type": "text", "text": "thanks"}],
    [{"type": "text", "text": "fine "}, {"type": "image_url", "image_url": {"url": "x"}}, {"text": "thanks"}],
])
def test_content_as_a_list_of_parts_is_text(server, parts):
    server.queue({"role": "assistant", "content": parts})
    agent = agent_for(server)
    assert agent.act(make_observation("hi"))["content"] == "fine thanks"
    assert agent.last_calls[0]["outcome"] == "answered"


@pytest.mark.parametrize("usage,counted", [
    ({"prompt_tokens": "12", "completion_tokens": "5"}, (12, 5)),
    ({"prompt_tokens": "12.0", "completion_tokens": None}, (12, 0)),
    ({"prompt_tokens": "many", "completion_tokens": [3]}, (0, 0)),
    ({"prompt_tokens": -4, "completion_tokens": 1e400}, (0, 0)),
    ("not a dict", (0, 0)),
])
def test_usage_in_other_forms_is_tolerated(server, usage, counted):
    server.usage = usage  # type: ignore[assignment]
    agent = agent_for(server)
    assert agent.act(make_observation("hi"))["content"] == "fine"
    assert (agent.stats["prompt_tokens"], agent.stats["completion_tokens"]) == counted


@pytest.mark.parametrize("choice", ["auto", "required", "none", "omit", {"type": "function",
                                                                          "function": {"name": "get_product"}}])
def test_tool_choice_is_sent_with_the_tools(server, choice):
    agent = agent_for(server, tool_choice=choice)
    agent.act(make_observation("hi", tools=TOOLS))
    agent.act(make_observation("hi", tools=[]))  # no tools offered: no tool_choice
    with_tools, without = server.requests
    assert with_tools.get("tool_choice", "omit") == choice and "tool_choice" not in without
    OpenAIAgent(server.base_url, "m", tools_native=False, tool_choice=choice).act(make_observation("x", tools=TOOLS))
    assert "tool_choice" not in server.requests[-1] and "tools" not in server.requests[-1]


def test_a_bad_tool_choice_is_refused():
    with pytest.raises(ValueError, match="tool_choice"):
        OpenAIAgent("http://127.0.0.1:1/v1", "m", tool_choice="sometimes")


def test_health_check_names_the_url_and_the_cause():
    url = f"http://127.0.0.1:{closed_port()}/v1"
    with pytest.raises(AgentUnavailable, match=f"{url} failed a health check .*connection refused"):
        OpenAIAgent(url, "m").check_server()


def test_health_check_of_a_server_that_accepts_and_never_answers():
    with socket.socket() as sock:  # listening, never accepting: the connection opens, no answer comes
        sock.bind(("127.0.0.1", 0))
        sock.listen(8)
        agent = OpenAIAgent(f"http://127.0.0.1:{sock.getsockname()[1]}/v1", "m", timeout=0.3)
        with pytest.raises(AgentUnavailable, match="timeout"):
            agent.check_server()


@pytest.mark.parametrize("status,passes", [(200, True), (404, True), (405, True), (401, False), (500, False)])
def test_health_check_statuses(server, status, passes):
    server.models_status = status
    agent = agent_for(server)
    if passes:
        agent.check_server()
    else:
        with pytest.raises(AgentUnavailable, match=f"HTTP {status}: models are not served"):
            agent.check_server()
    assert server.chat_hits == 0


@pytest.mark.parametrize("slots,expected", [(None, 1), (1, 1), (4, 4), (500, 64)])
def test_concurrency_defaults_to_the_servers_slots_or_one(server, slots, expected):
    server.slots = slots
    server.slow(0.05)
    agent = agent_for(server)
    agent.check_server()
    assert agent.concurrency == expected and agent.stats["probe_requests"] == 2
    agent.act_batch([make_observation(f"q{i}") for i in range(6)])
    assert server.max_in_flight <= expected and agent.stats["requests"] == server.chat_hits == 6
    assert agent_for(server, concurrency=3).concurrency == 3


@pytest.mark.parametrize("stop_after", [1, 2, 4])
def test_a_dead_server_stops_the_run_after_stop_after_failed_calls_in_a_row(stop_after):
    agent = OpenAIAgent(f"http://127.0.0.1:{closed_port()}/v1", "m", max_retries=1, backoff=0.001,
                        stop_after=stop_after)
    for _ in range(stop_after - 1):
        assert agent.act(make_observation("hi")) == {"role": "assistant", "content": ""}
    with pytest.raises(AgentUnavailable, match=f"failed {stop_after} calls in a row; last: .*connection refused"):
        agent.act(make_observation("hi"))
    assert agent.stats["errors"] == stop_after and agent.stats["requests"] == 2 * stop_after


def test_an_answer_resets_the_failure_streak(server):
    agent = agent_for(server, max_retries=0, stop_after=2)
    for _ in range(4):
        server.fail_next(1, "500")
        agent.act(make_observation("fails"))
        agent.act(make_observation("answered"))
    assert agent.stats["errors"] == 4 and agent.stats["requests"] == server.chat_hits == 8


@pytest.mark.parametrize("answers", [0, 1, 3])
def test_a_server_that_dies_mid_run(answers):
    with StubChatServer() as srv:
        srv.die_after(answers) if answers else srv.close()
        agent = agent_for(srv, max_retries=1, stop_after=3)
        outcomes = []
        with pytest.raises(AgentUnavailable, match="3 calls in a row"):
            for _ in range(answers + 5):
                agent.act(make_observation("hi"))
                outcomes.append(agent.last_calls[0]["outcome"])
        assert outcomes == ["answered"] * answers + ["failed"] * 2
        assert srv.chat_hits == answers and agent.stats["requests"] == answers + 2 * 3


def test_stop_after_zero_never_stops():
    agent = OpenAIAgent(f"http://127.0.0.1:{closed_port()}/v1", "m", max_retries=0, stop_after=0)
    agent.act_batch([make_observation("hi")] * 12)
    assert agent.stats["errors"] == 12 and [c["outcome"] for c in agent.last_calls] == ["failed"] * 12


@pytest.mark.parametrize("concurrency", [None, 8])
def test_a_one_slot_server_is_not_flooded_and_every_request_is_counted(server, concurrency):
    server.one_slot = True
    server.slow(0.1)
    agent = agent_for(server, timeout=0.35, concurrency=concurrency, max_retries=2, stop_after=0)
    agent.check_server()
    agent.act_batch([make_observation(f"q{i}") for i in range(8)])
    calls = agent.last_calls
    assert agent.stats["requests"] == server.chat_hits == 8 + agent.stats["retries"]
    assert agent.stats["retries"] == sum(len(c["retries"]) for c in calls)
    assert agent.stats["timeouts"] == sum(why.startswith("timeout") for c in calls for why in c["retries"]) + sum(
        c["outcome"] == "failed" and "timeout" in c["error"] for c in calls)
    if concurrency is None:  # one at a time: nothing queues behind a client that gave up
        assert server.max_in_flight == 1 and agent.stats["retries"] == 0
    else:  # eight at once behind one slot: the queue outlasts the timeout, and the retries say so
        assert agent.stats["retries"] > 0


def test_the_api_key_may_come_from_the_environment(monkeypatch):
    monkeypatch.setenv("LIVESIM_API_KEY", "sk-from-env")
    assert OpenAIAgent("http://127.0.0.1:1/v1", "m").api_key == "sk-from-env"
    assert OpenAIAgent("http://127.0.0.1:1/v1", "m", api_key="given").api_key == "given"
    monkeypatch.delenv("LIVESIM_API_KEY")
    assert OpenAIAgent("http://127.0.0.1:1/v1", "m").api_key == "EMPTY"
