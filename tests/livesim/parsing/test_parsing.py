"""Tests for livesim.parsing: every tool-call format, malformed input, round trips and fuzzing."""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from livesim.parsing import (
    MAX_ACTION_CHARS,
    MAX_ERRORS,
    ParsedAction,
    ParseError,
    ToolCall,
    format_tool_call,
    parse_action,
    tool_calls_to_openai,
)

FORMATS = {"text", "hermes", "openai", "json", "python", "llama", "mistral", "mixed"}


def calls(result: ParsedAction) -> list[tuple[str, dict[str, Any]]]:
    return [(c.name, c.arguments) for c in result.tool_calls]


def kinds(result: ParsedAction) -> list[str]:
    return [e.kind for e in result.errors]


def check_invariants(result: Any) -> None:
    """Shape every result must have, whatever the input."""
    assert isinstance(result, ParsedAction)
    assert isinstance(result.text, str)
    assert result.text == result.text.strip()
    assert isinstance(result.tool_calls, tuple)
    assert isinstance(result.errors, tuple)
    assert result.format in FORMATS
    for call in result.tool_calls:
        assert isinstance(call, ToolCall)
        assert isinstance(call.name, str) and call.name == call.name.strip()
        assert 0 < len(call.name) <= 128
        assert isinstance(call.arguments, dict)
        assert all(isinstance(k, str) for k in call.arguments)
        assert isinstance(call.id, str) and call.id
        assert isinstance(call.raw, str)
    ids = [c.id for c in result.tool_calls]
    assert len(ids) == len(set(ids)), "tool call ids must be unique"
    assert len(result.errors) <= MAX_ERRORS + 1
    for err in result.errors:
        assert isinstance(err, ParseError)
        assert isinstance(err.kind, str) and err.kind
        assert isinstance(err.message, str) and err.message
        assert isinstance(err.raw, str) and len(err.raw) <= 200
        assert err.kind != "internal_error", err
    if not result.tool_calls and not any(e.kind not in ("too_long", "not_text") for e in result.errors):
        assert result.format == "text"


# ----------------------------------------------------------------------------------------------------------
# Hermes / Qwen


def test_hermes_single_call_with_prose() -> None:
    r = parse_action(
        'Let me check!\n<tool_call>\n{"name": "get_price", "arguments": {"link": 3}}\n</tool_call>'
    )
    assert r.format == "hermes"
    assert calls(r) == [("get_price", {"link": 3})]
    assert r.text == "Let me check!"
    assert r.errors == ()
    assert r.tool_calls[0].id == "call_0"
    assert r.tool_calls[0].raw.startswith("<tool_call>") and r.tool_calls[0].raw.endswith("</tool_call>")


def test_hermes_several_calls_in_order_and_prose_kept() -> None:
    r = parse_action(
        'One sec <tool_call>{"name": "a", "arguments": {"x": 1}}</tool_call> and '
        '<tool_call>{"name": "b", "arguments": {}}</tool_call>\n<tool_call>{"name": "c"}</tool_call> done'
    )
    assert calls(r) == [("a", {"x": 1}), ("b", {}), ("c", {})]
    assert [c.id for c in r.tool_calls] == ["call_0", "call_1", "call_2"]
    assert r.text.startswith("One sec and")
    assert r.text.endswith("done")
    assert "<tool_call>" not in r.text and "{" not in r.text


@pytest.mark.parametrize(
    "body",
    [
        '{"name": "check_stock", "parameters": {"link": 2, "variant": "M"}}',
        '{"name": "check_stock", "arguments": "{\\"link\\": 2, \\"variant\\": \\"M\\"}"}',
        '\n\n   {"name": " check_stock ",\n "arguments": {"link": 2,\n "variant": "M"}}   \n',
        '```json\n{"name": "check_stock", "arguments": {"link": 2, "variant": "M"}}\n```',
        '```\n{"name": "check_stock", "arguments": {"link": 2, "variant": "M"}}\n```',
        '{"type": "function", "function": {"name": "check_stock", "arguments": {"link": 2, "variant": "M"}}}',
    ],
)
def test_hermes_tolerated_variants(body: str) -> None:
    r = parse_action(f"<tool_call>{body}</tool_call>")
    assert calls(r) == [("check_stock", {"link": 2, "variant": "M"})]
    assert r.errors == ()
    assert r.text == ""


def test_hermes_list_and_several_objects_inside_one_tag() -> None:
    r = parse_action('<tool_call>[{"name": "a"}, {"name": "b"}]</tool_call>')
    assert calls(r) == [("a", {}), ("b", {})]
    r = parse_action('<tool_call>{"name": "a"}\n{"name": "b"}</tool_call>')
    assert calls(r) == [("a", {}), ("b", {})]


def test_hermes_unclosed_tag_at_end_still_parses() -> None:
    r = parse_action('Checking <tool_call>{"name": "get_price", "arguments": {"link": 1}}')
    assert calls(r) == [("get_price", {"link": 1})]
    assert kinds(r) == ["unclosed_tag"]
    assert "never closed" in r.errors[0].message
    assert r.text == "Checking"


def test_hermes_unclosed_followed_by_another_tag() -> None:
    r = parse_action('<tool_call>{"name": "a"}\n<tool_call>{"name": "b"}</tool_call>')
    assert calls(r) == [("a", {}), ("b", {})]
    assert kinds(r) == ["unclosed_tag"]


def test_hermes_unclosed_with_incomplete_json() -> None:
    r = parse_action('Sure <tool_call>{"name": "get_price", "arguments": {"link": 3}')
    assert r.tool_calls == ()
    assert kinds(r) == ["unclosed_tag", "invalid_json"]
    assert r.text == "Sure"
    assert r.format == "hermes"


def test_hermes_extra_closing_brace_is_tolerated() -> None:
    r = parse_action('<tool_call>{"name": "a", "arguments": {"x": 1}}}</tool_call>')
    assert calls(r) == [("a", {"x": 1})]
    assert r.errors == ()


def test_hermes_python_dict_literal_is_accepted_safely() -> None:
    r = parse_action("<tool_call>{'name': 'a', 'arguments': {'x': True, 'y': (1, 2), 'z': None}}</tool_call>")
    assert calls(r) == [("a", {"x": True, "y": [1, 2], "z": None})]
    assert r.errors == ()
    r = parse_action("<tool_call>{'name': 'a', 'arguments': {'x': __import__('os').getcwd()}}</tool_call>")
    assert r.tool_calls == () and kinds(r) == ["invalid_json"]


def test_hermes_trailing_junk_is_an_error_but_call_kept() -> None:
    r = parse_action('<tool_call>{"name": "a"} and more words</tool_call>')
    assert calls(r) == [("a", {})]
    assert kinds(r) == ["invalid_json"]


def test_hermes_malformed_calls_do_not_stop_the_rest() -> None:
    r = parse_action(
        "Hi!"
        '<tool_call>{"name": "get_price", "arguments": {"link": 1</tool_call>'  # broken JSON
        '<tool_call>{"arguments": {"link": 1}}</tool_call>'  # missing name
        '<tool_call>{"name": 5, "arguments": {}}</tool_call>'  # name not a string
        '<tool_call>{"name": "get_price", "arguments": [1, 2]}</tool_call>'  # arguments not an object
        '<tool_call>{"name": "get_price", "arguments": "{not json"}</tool_call>'  # bad argument string
        '<tool_call>"just a string"</tool_call>'
        "<tool_call>   </tool_call>"
        '<tool_call>{"name": "ok", "arguments": {"link": 2}}</tool_call>'
    )
    assert calls(r) == [("ok", {"link": 2})]
    assert r.tool_calls[0].id == "call_0"
    assert kinds(r) == [
        "invalid_json",
        "missing_name",
        "missing_name",
        "bad_arguments",
        "invalid_json",
        "invalid_json",
        "invalid_json",
    ]
    assert r.text == "Hi!"
    assert "JSON" in r.errors[0].message
    assert "string" in r.errors[2].message
    assert "get_price" in r.errors[3].message and "object" in r.errors[3].message


def test_hermes_tags_inside_json_strings() -> None:
    args = {"note": "use </tool_call> then <tool_call> and [TOOL_CALLS] <function=x>"}
    r = parse_action("Hi " + format_tool_call("say", args) + " bye")
    assert calls(r) == [("say", args)]
    assert r.errors == ()
    assert r.text == "Hi bye"


def test_hermes_too_long_name_and_empty_name() -> None:
    r = parse_action(format_tool_call("x" * 129, {}))
    assert kinds(r) == ["bad_name"]
    r = parse_action(format_tool_call("  ", {}))
    assert kinds(r) == ["missing_name"]
    r = parse_action(format_tool_call("y" * 128, {}))
    assert calls(r) == [("y" * 128, {})]


def test_qwen3_coder_xml_parameters() -> None:
    text = (
        "<tool_call>\n<function=check_stock>\n<parameter=link>\n2\n</parameter>\n"
        "<parameter=variant>\nM\n</parameter>\n</function>\n</tool_call>"
    )
    r = parse_action(text)
    assert calls(r) == [("check_stock", {"link": 2, "variant": "M"})]
    assert r.format == "hermes"
    assert r.errors == ()


# ----------------------------------------------------------------------------------------------------------
# OpenAI messages


def test_openai_message_with_tool_calls() -> None:
    msg = {
        "role": "assistant",
        "content": None,
        "tool_calls": [
            {
                "id": "call_abc",
                "type": "function",
                "function": {"name": "get_price", "arguments": '{"link": 3}'},
            },
            {
                "id": "call_def",
                "type": "function",
                "function": {"name": "check_stock", "arguments": {"link": 1}},
            },
            {"id": "call_ghi", "type": "function", "function": {"name": "list_products", "arguments": ""}},
        ],
    }
    r = parse_action(msg)
    assert r.format == "openai"
    assert calls(r) == [("get_price", {"link": 3}), ("check_stock", {"link": 1}), ("list_products", {})]
    assert [c.id for c in r.tool_calls] == ["call_abc", "call_def", "call_ghi"]
    assert r.text == ""
    assert r.errors == ()


def test_openai_content_only_and_content_parts() -> None:
    r = parse_action({"content": "  Hello viewers!  "})
    assert (r.text, r.tool_calls, r.errors, r.format) == ("Hello viewers!", (), (), "text")
    r = parse_action(
        {
            "role": "assistant",
            "content": [
                {"type": "text", "text": "Hi "},
                {"type": "image_url", "image_url": {}},
                {"type": "text", "text": "there"},
            ],
        }
    )
    assert r.text == "Hi there"
    r = parse_action({"role": "assistant"})
    assert (r.text, r.tool_calls, r.errors) == ("", (), ())


def test_openai_content_with_embedded_calls_is_mixed() -> None:
    msg = {
        "role": "assistant",
        "content": 'Looking <tool_call>{"name": "a", "arguments": {}}</tool_call>',
        "tool_calls": [{"id": "t1", "type": "function", "function": {"name": "b", "arguments": "{}"}}],
    }
    r = parse_action(msg)
    assert calls(r) == [("a", {}), ("b", {})]
    assert r.format == "mixed"
    assert r.text == "Looking"
    assert [c.id for c in r.tool_calls] == ["call_0", "t1"]


def test_openai_malformed_tool_calls() -> None:
    msg = {
        "role": "assistant",
        "content": "ok",
        "tool_calls": [
            {"id": "1", "type": "function", "function": {"name": "a", "arguments": "{bad json"}},
            {"id": "2", "type": "function", "function": {"arguments": "{}"}},
            {"id": "3", "type": "function", "function": {"name": "c", "arguments": "[1]"}},
            {"id": "4", "type": "function", "function": {"name": "d", "arguments": {1: "x"}}},
            "not a dict",
            {"id": "5", "type": "function", "function": {"name": "e", "arguments": {"ok": True}}},
        ],
    }
    r = parse_action(msg)
    assert calls(r) == [("e", {"ok": True})]
    assert kinds(r) == ["invalid_json", "missing_name", "bad_arguments", "bad_arguments", "invalid_call"]
    assert r.text == "ok"
    r = parse_action({"role": "assistant", "tool_calls": "nope"})
    assert kinds(r) == ["invalid_call"]


def test_openai_duplicate_ids_are_made_unique() -> None:
    tc = {"id": "same", "type": "function", "function": {"name": "a", "arguments": "{}"}}
    r = parse_action({"role": "assistant", "tool_calls": [tc, tc, {"function": {"name": "b"}}]})
    assert [c.id for c in r.tool_calls] == ["same", "call_1", "call_2"]


def test_openai_legacy_function_call_and_bare_call_dict() -> None:
    r = parse_action(
        {"role": "assistant", "content": None, "function_call": {"name": "a", "arguments": '{"x": 1}'}}
    )
    assert calls(r) == [("a", {"x": 1})]
    r = parse_action({"name": "get_price", "arguments": {"link": 3}})
    assert calls(r) == [("get_price", {"link": 3})]
    assert r.format == "json"


def test_openai_bad_dict_shapes() -> None:
    r = parse_action({"foo": 1})
    assert (r.text, r.tool_calls, kinds(r)) == ("", (), ["not_text"])
    r = parse_action({"role": "assistant", "content": 42})
    assert kinds(r) == ["not_text"]


# ----------------------------------------------------------------------------------------------------------
# bare JSON


@pytest.mark.parametrize(
    "text",
    [
        '{"name": "get_price", "arguments": {"link": 3}}',
        '  {"name": "get_price", "parameters": {"link": 3}}  ',
        '```json\n{"name": "get_price", "arguments": {"link": 3}}\n```',
        '[{"name": "get_price", "arguments": {"link": 3}}]',
        '{"function": {"name": "get_price", "arguments": "{\\"link\\": 3}"}}',
        '{"type": "function", "function": {"name": "get_price", "arguments": {"link": 3}}}',
        '{"tool_calls": [{"id": "c1", "type": "function", '
        '"function": {"name": "get_price", "arguments": "{\\"link\\": 3}"}}]}',
        '{"name": "get_price", "arguments": {"link": 3}}<|im_end|>',
    ],
)
def test_bare_json_call(text: str) -> None:
    r = parse_action(text)
    assert calls(r) == [("get_price", {"link": 3})]
    assert r.format == "json"
    assert r.errors == ()
    assert r.text == ""


def test_bare_json_several_calls() -> None:
    r = parse_action('[{"name": "a", "arguments": {"x": 1}}, {"name": "b", "arguments": {"y": "z"}}]')
    assert calls(r) == [("a", {"x": 1}), ("b", {"y": "z"})]
    r = parse_action('{"name": "a"}\n{"name": "b"}')
    assert calls(r) == [("a", {}), ("b", {})]


@pytest.mark.parametrize(
    "text",
    [
        '{"price": 99, "currency": "EUR"}',
        '{"name": "Blue hoodie", "price": 99}',
        "[1, 2, 3]",
        "[]",
        "{}",
        '{"name": "a", "arguments": {}} is what I would call',
        "{not json at all}",
    ],
)
def test_json_looking_prose_stays_text(text: str) -> None:
    r = parse_action(text)
    assert r.tool_calls == () and r.errors == ()
    assert r.format == "text"
    assert r.text == text.strip()


def test_bare_json_malformed_calls_are_errors() -> None:
    assert kinds(parse_action('{"name": 5}')) == ["missing_name"]
    assert kinds(parse_action('{"name": "a", "arguments": [1]}')) == ["bad_arguments"]
    assert kinds(parse_action('{"name": "a", "arguments": 7}')) == ["bad_arguments"]
    r = parse_action('[{"name": "a"}, {"name": null}]')
    assert calls(r) == [("a", {})]
    assert kinds(r) == ["missing_name"]


# ----------------------------------------------------------------------------------------------------------
# Python-style calls


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("get_price(link=3)", [("get_price", {"link": 3})]),
        ('check_stock(link=2, variant="M")', [("check_stock", {"link": 2, "variant": "M"})]),
        ("get_price(link=1)\nget_price(link=2)", [("get_price", {"link": 1}), ("get_price", {"link": 2})]),
        ('[a(x=1), b(y="z")]', [("a", {"x": 1}), ("b", {"y": "z"})]),
        ("list_products()", [("list_products", {})]),
        (
            "f(a=[1, (2, 3)], b={'k': None}, c=-1.5, d=True)",
            [("f", {"a": [1, [2, 3]], "b": {"k": None}, "c": -1.5, "d": True})],
        ),
        ("f(a=true, b=false, c=null)", [("f", {"a": True, "b": False, "c": None})]),
        ("```python\nget_price(link=3)\n```", [("get_price", {"link": 3})]),
        ("a(x=1); b(y=2)", [("a", {"x": 1}), ("b", {"y": 2})]),
    ],
)
def test_python_calls(text: str, expected: list[tuple[str, dict[str, Any]]]) -> None:
    r = parse_action(text)
    assert calls(r) == expected
    assert r.format == "python"
    assert r.errors == ()
    assert r.text == ""


def test_python_calls_bad_arguments() -> None:
    r = parse_action("get_price(3)")
    assert r.tool_calls == () and kinds(r) == ["bad_arguments"]
    assert "keyword" in r.errors[0].message
    assert kinds(parse_action("get_price(link=some_variable)")) == ["bad_arguments"]
    assert kinds(parse_action("get_price(link=__import__('os').getcwd())")) == ["bad_arguments"]
    assert kinds(parse_action("get_price(**kw)")) == ["bad_arguments"]
    r = parse_action("get_price(link=1)\nget_price(2)")
    assert calls(r) == [("get_price", {"link": 1})]
    assert kinds(r) == ["bad_arguments"]


def test_python_calls_known_tools() -> None:
    r = parse_action("get_price(link=3)", known_tools=["get_price", "check_stock"])
    assert calls(r) == [("get_price", {"link": 3})]
    r = parse_action("get_price(link=3)", known_tools=["check_stock"])
    assert r.tool_calls == () and r.errors == ()
    assert r.text == "get_price(link=3)"
    r = parse_action("Hello(everyone)", known_tools={"get_price"})
    assert (r.text, r.errors) == ("Hello(everyone)", ())
    # tagged calls are never filtered: the environment decides whether the tool exists
    r = parse_action(format_tool_call("nope", {}), known_tools=["get_price"])
    assert calls(r) == [("nope", {})]


@pytest.mark.parametrize(
    "text",
    [
        "Link 3 (the blue one) costs 99",
        "link #3 (blue)",
        "Hello (everyone)!",
        "Great question (really)",
        "Yes (see link 2)",
        "Price: $99 (incl. VAT)",
        "(laughs) thanks for watching",
        "I can check that for you: get_price(link=3)",
        "get_price(link=3) is what I'd call",
        "Thanks! :)",
        "f(x)(y)",
        "x = get_price(link=3)",
        "print('hi') if True else None",
        "The sizes are S, M, L; see [link 3](https://shop.example/3)",
        "Try 2*(3+4) = 14",
    ],
)
def test_prose_stays_text(text: str) -> None:
    r = parse_action(text)
    assert r.tool_calls == ()
    assert r.errors == ()
    assert r.format == "text"
    assert r.text == text


# ----------------------------------------------------------------------------------------------------------
# Llama and Mistral


def test_llama_function_tag() -> None:
    r = parse_action('Checking. <function=get_price>{"link": 3}</function>')
    assert calls(r) == [("get_price", {"link": 3})]
    assert r.format == "llama"
    assert r.text == "Checking."
    r = parse_action('<function=a>{"x": 1}</function><function=b>{}</function>')
    assert calls(r) == [("a", {"x": 1}), ("b", {})]
    r = parse_action("<function=a></function>")
    assert calls(r) == [("a", {})]


def test_llama_function_tag_errors() -> None:
    r = parse_action('<function=a>{"x": }</function>')
    assert kinds(r) == ["invalid_json"] and r.tool_calls == ()
    r = parse_action('<function=a>{"x": 1}')
    assert calls(r) == [("a", {"x": 1})] and kinds(r) == ["unclosed_tag"]
    r = parse_action("<function=>{}</function>")
    assert kinds(r) == ["missing_name"]
    r = parse_action("<function=" + "x" * 600)
    assert kinds(r) == ["invalid_call"]


def test_llama_python_tag() -> None:
    r = parse_action('<|python_tag|>{"name": "get_price", "parameters": {"link": 3}}<|eom_id|>')
    assert calls(r) == [("get_price", {"link": 3})]
    assert r.format == "llama"
    assert r.text == ""
    r = parse_action('<|python_tag|>{"name": "a", "parameters": {}}; {"name": "b", "parameters": {"x": 2}}')
    assert calls(r) == [("a", {}), ("b", {"x": 2})]
    r = parse_action('<|python_tag|>brave_search.call(query="hoodies")<|eom_id|>')
    assert calls(r) == [("brave_search.call", {"query": "hoodies"})]
    r = parse_action("<|python_tag|>not a call")
    assert kinds(r) == ["invalid_json"]


def test_mistral() -> None:
    r = parse_action('[TOOL_CALLS][{"name": "a", "arguments": {"x": 1}}, {"name": "b", "arguments": {}}]')
    assert calls(r) == [("a", {"x": 1}), ("b", {})]
    assert r.format == "mistral"
    r = parse_action('Sure [TOOL_CALLS] [{"name": "a", "arguments": {"x": 1}}][/TOOL_CALLS] done')
    assert calls(r) == [("a", {"x": 1})]
    assert r.text == "Sure done"
    r = parse_action(
        '[TOOL_CALLS]get_price[ARGS]{"link": 3}[TOOL_CALLS]check_stock[CALL_ID]abc123xyz[ARGS]{}'
    )
    assert calls(r) == [("get_price", {"link": 3}), ("check_stock", {})]
    assert r.tool_calls[1].id == "abc123xyz"


def test_mistral_errors() -> None:
    assert kinds(parse_action("[TOOL_CALLS][{broken")) == ["invalid_json"]
    assert kinds(parse_action("[TOOL_CALLS]")) == ["invalid_call"]
    assert kinds(parse_action('[TOOL_CALLS][{"arguments": {}}]')) == ["missing_name"]
    assert kinds(parse_action("[TOOL_CALLS]just words")) == ["invalid_json"]


def test_mixed_formats() -> None:
    r = parse_action(
        'A <tool_call>{"name": "h", "arguments": {}}</tool_call> B <function=l>{"x": 1}</function> '
        'C [TOOL_CALLS][{"name": "m", "arguments": {}}]'
    )
    assert calls(r) == [("h", {}), ("l", {"x": 1}), ("m", {})]
    assert r.format == "mixed"
    assert r.text == "A B C"


# ----------------------------------------------------------------------------------------------------------
# <think> blocks


@pytest.mark.parametrize(
    ("text", "expected_text", "n_calls"),
    [
        ("<think>Let me think.</think>Hello!", "Hello!", 0),
        ("<think>\nmulti\nline\n</think>\n\nHi <think>again</think>there", "Hi there", 0),
        ("<think>never closed, still thinking", "", 0),
        ("reasoning that began in the prompt</think>\nThe answer", "The answer", 0),
        ('<think>maybe <tool_call>{"name": "x"}</tool_call>?</think>No calls', "No calls", 0),
        ('<think>ok</think><tool_call>{"name": "y"}</tool_call>', "", 1),
        ("Hi <think>stray open tag", "Hi <think>stray open tag", 0),
    ],
)
def test_think_blocks(text: str, expected_text: str, n_calls: int) -> None:
    r = parse_action(text)
    assert r.text == expected_text
    assert len(r.tool_calls) == n_calls
    assert r.errors == ()


# ----------------------------------------------------------------------------------------------------------
# non-string inputs and size limits


def test_non_string_inputs() -> None:
    r = parse_action(None)
    assert (r.text, r.tool_calls, r.errors, r.format) == ("", (), (), "text")
    r = parse_action(b'Hi \xff <tool_call>{"name": "a"}</tool_call>')
    assert calls(r) == [("a", {})]
    assert r.text == "Hi \ufffd"
    r = parse_action(bytearray(b"hello"))
    assert r.text == "hello"
    for bad in (42, 3.5, True, [1, 2], ("a",), object(), {1, 2}, ParseError):
        r = parse_action(bad)
        check_invariants(r)
        assert r.text == "" and r.tool_calls == ()
        assert kinds(r) == ["not_text"]


def test_too_long_is_truncated() -> None:
    r = parse_action("a" * (MAX_ACTION_CHARS + 10))
    assert kinds(r) == ["too_long"]
    assert len(r.text) == MAX_ACTION_CHARS
    call = format_tool_call("a", {})
    r = parse_action(call + "x" * MAX_ACTION_CHARS + call)
    assert calls(r) == [("a", {})]
    assert kinds(r) == ["too_long"]
    r = parse_action({"role": "assistant", "content": "b" * (MAX_ACTION_CHARS + 1)})
    assert kinds(r) == ["too_long"]


def test_error_count_is_capped() -> None:
    r = parse_action("<tool_call>{bad}</tool_call>" * 100)
    assert len(r.errors) == MAX_ERRORS + 1
    assert r.errors[-1].kind == "too_many_errors"


def test_error_raw_is_truncated() -> None:
    r = parse_action("<tool_call>{" + "x" * 1000 + "</tool_call>")
    assert len(r.errors[0].raw) <= 200
    assert len(ParseError("k", "m", "z" * 500).raw) == 200


ADVERSARIAL = {
    "open_tags": "<tool_call>" * 5000,
    "braces": "{" * 60000,
    "brackets": "[" * 60000,
    "parens": "(" * 60000,
    "nested_calls": "f(" * 30000 + ")" * 30000,
    "unary": "f(x=" + "-" * 60000 + "1)",
    "attr_chain": "a" + ".a" * 30000 + "(x=1)",
    "think_open": "<think>" * 9000,
    "think_pairs": "<think></think>" * 4000,
    "empty_tags": "<tool_call></tool_call>" * 2800,
    "function_open": "<function=" * 6000,
    "function_named": "<function=x>" * 5000,
    "parameters": "<tool_call><function=x>" + "<parameter=a>" * 5000,
    "python_tags": "<|python_tag|>" * 4600,
    "mistral_tags": "[TOOL_CALLS]" * 5400,
    "mistral_args": "[TOOL_CALLS]a[ARGS]" * 3000,
    "fences": "```" * 20000,
    "open_string": '<tool_call>{"name": "' + "a" * 60000,
    "many_calls": "get_price(link=3)\n" * 3600,
    "many_tags": format_tool_call("a", {"x": 1}) * 1100,
    "digits": "f(x=" + "1" * 60000 + ")",
    "json_digits": '{"name":"a","arguments":{"x":' + "1" * 60000 + "}}",
    "deep_json": '{"name":"a","arguments":' + '{"a":' * 20000 + "1" + "}" * 20000 + "}",
    "close_in_strings": '<tool_call>["</tool_call>",' * 2500,
    "open_in_strings": '<tool_call>{"a":"<tool_call>",' * 2500,
    "quote_runs": '<tool_call>["' * 6000,
    "mistral_strings": '[TOOL_CALLS]["[TOOL_CALLS]",' * 2500,
    "newlines": "\n" * 65536,
    "soup": ('<tool_call>{"name":"a"}<function=b>{}<|python_tag|>{}[TOOL_CALLS]x</think>') * 700,
}


@pytest.mark.parametrize("name", sorted(ADVERSARIAL))
def test_adversarial_inputs_finish(name: str) -> None:
    r = parse_action(ADVERSARIAL[name])
    check_invariants(r)


# ----------------------------------------------------------------------------------------------------------
# round trips


@pytest.mark.parametrize(
    ("name", "arguments"),
    [
        ("get_price", {"link": 3}),
        ("list_products", {}),
        ("reply", {"text": 'Grüße 👋 — "quoted" \\ back\nslash', "tags": ["a", "b"], "n": None}),
        ("nested", {"a": {"b": [1, 2.5, {"c": False}]}}),
        ("tricky", {"s": '</tool_call><tool_call>{"name": "evil"}</tool_call>'}),
    ],
)
def test_format_tool_call_round_trip(name: str, arguments: dict[str, Any]) -> None:
    text = format_tool_call(name, arguments)
    assert text.startswith("<tool_call>\n") and text.endswith("\n</tool_call>")
    assert json.loads(text[len("<tool_call>\n") : -len("\n</tool_call>")]) == {
        "name": name,
        "arguments": arguments,
    }
    r = parse_action(text)
    assert calls(r) == [(name, arguments)]
    assert r.errors == () and r.text == "" and r.format == "hermes"


def test_format_tool_call_keeps_unicode() -> None:
    assert "é" in format_tool_call("a", {"x": "é"})


def test_tool_calls_to_openai_round_trip() -> None:
    r = parse_action(
        format_tool_call("get_price", {"link": 3})
        + format_tool_call("check_stock", {"link": 1, "variant": "ß"})
    )
    openai_calls = tool_calls_to_openai(r.tool_calls)
    assert openai_calls == [
        {"id": "call_0", "type": "function", "function": {"name": "get_price", "arguments": '{"link": 3}'}},
        {
            "id": "call_1",
            "type": "function",
            "function": {"name": "check_stock", "arguments": '{"link": 1, "variant": "ß"}'},
        },
    ]
    back = parse_action({"role": "assistant", "content": None, "tool_calls": openai_calls})
    assert calls(back) == calls(r)
    assert [c.id for c in back.tool_calls] == ["call_0", "call_1"]
    assert back.format == "openai"
    # and through a JSON round trip of the whole message, as it would be stored in a dataset
    again = parse_action(json.loads(json.dumps({"role": "assistant", "tool_calls": openai_calls})))
    assert calls(again) == calls(r)
    assert tool_calls_to_openai([]) == []


def test_dataclasses_are_frozen() -> None:
    r = parse_action("hi")
    with pytest.raises(AttributeError):
        r.text = "x"  # type: ignore[misc]
    with pytest.raises(AttributeError):
        ParseError("a", "b", "c").kind = "d"  # type: ignore[misc]


# ----------------------------------------------------------------------------------------------------------
# property tests

FUZZ = settings(max_examples=200, deadline=None, database=None, suppress_health_check=[HealthCheck.too_slow])

json_scalars = st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=20)
json_values = st.recursive(
    json_scalars,
    lambda children: (
        st.lists(children, max_size=4) | st.dictionaries(st.text(max_size=8), children, max_size=4)
    ),
    max_leaves=20,
)
json_objects = st.dictionaries(st.text(max_size=8), json_values, max_size=5)
KEYS = [
    "role",
    "content",
    "tool_calls",
    "function_call",
    "name",
    "arguments",
    "parameters",
    "id",
    "type",
    "function",
    "text",
]
json_dicts = st.recursive(
    st.dictionaries(st.sampled_from(KEYS) | st.text(max_size=8), json_scalars, max_size=5),
    lambda children: st.dictionaries(
        st.sampled_from(KEYS) | st.text(max_size=8),
        children | json_scalars | st.lists(children | json_scalars, max_size=3),
        max_size=5,
    ),
    max_leaves=25,
)
weird_leaves = (
    json_scalars
    | st.floats()
    | st.binary(max_size=10)
    | st.complex_numbers()
    | st.builds(object)
    | st.sets(st.integers(), max_size=3)
    | st.just(Ellipsis)
)
weird_values = st.recursive(
    weird_leaves,
    lambda children: (
        st.lists(children, max_size=4)
        | st.tuples(children, children)
        | st.dictionaries(
            st.sampled_from(KEYS) | st.integers() | st.text(max_size=5) | st.none(), children, max_size=4
        )
    ),
    max_leaves=25,
)
tool_call_items = st.fixed_dictionaries(
    {},
    optional={
        "id": st.text(max_size=10) | st.integers() | st.none(),
        "type": st.just("function"),
        "function": st.fixed_dictionaries(
            {},
            optional={
                "name": st.text(max_size=20) | st.integers() | st.none(),
                "arguments": st.text(max_size=30) | json_values | json_objects.map(json.dumps),
            },
        )
        | weird_values,
    },
)
messages = st.fixed_dictionaries(
    {"role": st.just("assistant")},
    optional={
        "content": st.none()
        | st.text(max_size=100)
        | st.lists(
            st.fixed_dictionaries({"type": st.just("text"), "text": st.text(max_size=30)}) | weird_values,
            max_size=3,
        )
        | weird_values,
        "tool_calls": st.lists(tool_call_items | weird_values, max_size=4) | weird_values,
    },
)
FRAGMENTS = [
    "<tool_call>",
    "</tool_call>",
    "<function=",
    "<function=get_price>",
    "</function>",
    "<|python_tag|>",
    "<|eom_id|>",
    "[TOOL_CALLS]",
    "[/TOOL_CALLS]",
    "[ARGS]",
    "[CALL_ID]",
    "<think>",
    "</think>",
    "<parameter=link>",
    "</parameter>",
    "```",
    "```json\n",
    "{",
    "}",
    "[",
    "]",
    "(",
    ")",
    '"',
    "\\",
    ",",
    ":",
    "\n",
    " ",
    '"name"',
    '"arguments"',
    '"parameters"',
    '"get_price"',
    '{"link": 3}',
    '{"name": "a", "arguments": {}}',
    "get_price(",
    "link=3",
    "null",
    "true",
    "5",
    "é",
    "\x00",
    "\ud800",
    "<|im_end|>",
]
markup_soup = st.lists(st.sampled_from(FRAGMENTS) | st.text(max_size=5), max_size=40).map("".join)


@FUZZ
@given(st.text())
def test_fuzz_text(text: str) -> None:
    check_invariants(parse_action(text))


@FUZZ
@given(markup_soup, st.none() | st.lists(st.sampled_from(["get_price", "a", "f"]), max_size=2))
def test_fuzz_markup_soup(text: str, known: list[str] | None) -> None:
    check_invariants(parse_action(text, known_tools=known))


@FUZZ
@given(st.binary())
def test_fuzz_binary(data: bytes) -> None:
    check_invariants(parse_action(data))


@FUZZ
@given(json_values)
def test_fuzz_json_text(value: Any) -> None:
    check_invariants(parse_action(json.dumps(value)))
    check_invariants(parse_action(value))
    check_invariants(parse_action("<tool_call>" + json.dumps(value) + "</tool_call>"))
    check_invariants(parse_action("[TOOL_CALLS]" + json.dumps(value)))


@FUZZ
@given(json_dicts)
def test_fuzz_dicts(value: dict[Any, Any]) -> None:
    check_invariants(parse_action(value))
    check_invariants(parse_action(json.dumps(value)))


@FUZZ
@given(messages)
def test_fuzz_messages(msg: dict[str, Any]) -> None:
    check_invariants(parse_action(msg))


@FUZZ
@given(weird_values)
def test_fuzz_nested_structures(value: Any) -> None:
    check_invariants(parse_action(value))
    check_invariants(parse_action({"role": "assistant", "content": value, "tool_calls": value}))
    check_invariants(
        parse_action({"content": None, "tool_calls": [{"function": {"name": "a", "arguments": value}}]})
    )


def test_circular_structures() -> None:
    args: dict[str, Any] = {}
    args["self"] = args
    check_invariants(
        parse_action({"role": "assistant", "tool_calls": [{"function": {"name": "a", "arguments": args}}]})
    )
    msg: dict[str, Any] = {"role": "assistant"}
    msg["content"] = [msg]
    msg["tool_calls"] = [msg]
    check_invariants(parse_action(msg))


names = st.text(min_size=1, max_size=40).map(str.strip).filter(lambda n: 0 < len(n) <= 128)
plain_values = st.recursive(
    st.none()
    | st.booleans()
    | st.integers()
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(max_size=20),
    lambda children: (
        st.lists(children, max_size=3) | st.dictionaries(st.text(max_size=8), children, max_size=3)
    ),
    max_leaves=15,
)
plain_args = st.dictionaries(st.text(max_size=10), plain_values, max_size=5)


def _no_think(obj: Any) -> bool:
    return "<think>" not in json.dumps(obj, ensure_ascii=False) and "</think>" not in json.dumps(
        obj, ensure_ascii=False
    )


@FUZZ
@given(names, plain_args, st.text(max_size=30))
def test_round_trip_property(name: str, arguments: dict[str, Any], prose: str) -> None:
    assume(_no_think([name, arguments, prose]))
    text = format_tool_call(name, arguments)
    r = parse_action(text)
    assert calls(r) == [(name, arguments)]
    assert r.errors == () and r.text == ""
    back = parse_action(
        {"role": "assistant", "content": None, "tool_calls": tool_calls_to_openai(r.tool_calls)}
    )
    assert calls(back) == [(name, arguments)]
    # prose around the call is kept (minus surrounding whitespace) and the call still parses
    assume(not any(tag in prose for tag in ("<tool_call>", "<function=", "<|python_tag|>", "[TOOL_CALLS]")))
    r = parse_action("Hi " + text + " " + prose)
    assert calls(r) == [(name, arguments)]
    check_invariants(r)


@FUZZ
@given(st.lists(st.tuples(names, plain_args), min_size=1, max_size=4))
def test_several_formatted_calls_round_trip(pairs: list[tuple[str, dict[str, Any]]]) -> None:
    assume(_no_think(pairs))
    r = parse_action("\n".join(format_tool_call(n, a) for n, a in pairs))
    assert calls(r) == pairs
    assert [c.id for c in r.tool_calls] == [f"call_{i}" for i in range(len(pairs))]


def test_non_finite_arguments_are_graded_errors() -> None:
    # NaN and Infinity are not JSON data: the call is refused with a message, never carried into the world
    for bad in ("NaN", "Infinity", "-Infinity", "1e999"):
        r = parse_action('<tool_call>{"name": "a", "arguments": {"x": ' + bad + '}}</tool_call>')
        assert r.tool_calls == () and [e.kind for e in r.errors] == ["bad_arguments"], bad
        assert "not finite" in r.errors[0].message


def test_openai_call_parts_decodes_json_arguments_and_keeps_anything_else():
    from livesim.parsing import openai_call_parts

    entry = {"id": "c1", "type": "function", "function": {"name": "get_price", "arguments": '{"link": 2}'}}
    assert openai_call_parts(entry) == ("get_price", {"link": 2})
    assert openai_call_parts({"name": "x", "arguments": {"a": 1}}) == ("x", {"a": 1})  # a bare call, already decoded
    assert openai_call_parts({"function": {"name": "x", "arguments": "not json"}}) == ("x", "not json")
    assert openai_call_parts({"function": {}}) == ("", {})
