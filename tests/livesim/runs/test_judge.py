"""The optional LLM judge talks to an OpenAI-compatible server (here the local stub) and parses its verdict."""

import json
import sys
from pathlib import Path

import pytest

from livesim.runs.calibration import calibrate, load_items
from livesim.runs.judge import make_judge, parse_spec, parse_verdict

sys.path.insert(0, str(Path(__file__).parents[2] / "agents"))
from stub_server import StubChatServer  # noqa: E402


def test_spec_parsing_and_bad_specs():
    assert parse_spec("openai:http://127.0.0.1:8000/v1:qwen") == ("http://127.0.0.1:8000/v1", "qwen")
    for bad in ("vllm:x", "openai:nourl:m", "openai:http://h/v1:"):
        with pytest.raises(ValueError, match="openai:BASE_URL:MODEL"):
            parse_spec(bad)


def test_verdict_parsing():
    assert parse_verdict('Sure. {"accuracy": 1, "effectiveness": 0.5, "reason": "partial"}') == (1.0, 0.5)
    assert parse_verdict('{"accuracy": 2, "effectiveness": 1}') is None
    assert parse_verdict("no json here") is None


def test_calibrate_with_a_stub_judge():
    items = [i for i in load_items(split="test") if i.intent == "price"][:4]
    seen = []

    def responder(body):
        prompt = body["messages"][0]["content"]
        seen.append(prompt)
        return json.dumps({"accuracy": 1, "effectiveness": 1, "reason": "stub"})

    with StubChatServer(responder) as srv:
        judge = make_judge(f"openai:{srv.base_url}:stub", max_retries=0)
        res = calibrate(items, judge)
    assert res["n"] == 4 and judge.failures == 0 and len(seen) == 4
    assert "Required facts" in seen[0] and items[0].reply in seen[0]
    assert res["accuracy_agreement"] == sum(i.accuracy == 1 for i in items) / 4


def test_second_opinion_consults_only_where_the_rules_are_unsure():
    from livesim.runs.calibration import build_request, grade_text, rule_judge
    from livesim.runs.judge import SecondOpinion, uncertain

    items = [i for i in load_items(split="all") if i.kind in ("paraphrase", "partial", "deflection")][:24]
    calls = []

    def responder(body):
        calls.append(1)
        return json.dumps({"accuracy": 1, "effectiveness": 1, "reason": "stub"})

    with StubChatServer(responder) as srv:
        judge = SecondOpinion(make_judge(f"openai:{srv.base_url}:stub", max_retries=0))
        res = calibrate(items, judge)
    unsure = sum(bool(uncertain(grade_text(build_request(i.seed, i.intent), i.reply))) for i in items)
    assert judge.consulted == unsure == len(calls) and unsure > 0
    assert res["n"] == len(items)
    # where the rules are sure, the combined judge is the rule judge
    sure = [i for i in items if not uncertain(grade_text(build_request(i.seed, i.intent), i.reply))]
    assert sure and all(judge(build_request(i.seed, i.intent), i.reply) == rule_judge(build_request(i.seed, i.intent),
                                                                                      i.reply) for i in sure[:3])


def test_second_opinion_needs_a_judge(capsys):
    from livesim.cli.main import main

    assert main(["grader", "calibrate", "--second-opinion"]) == 2
    assert "--judge" in capsys.readouterr().err
