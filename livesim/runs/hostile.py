"""Hostile actions: what a policy under RL, or a broken client, may hand to `env.step`.

`hostile_action(rng, tools)` draws one from a seeded generator: malformed and adversarial tool-call text
(deep JSON, lone surrogates, NaN, huge numbers, special tokens, unclosed tags), assistant-message dicts with
wrong types, measured-latency values that are not finite or negative, world attacks (coupons for invented and
look-alike viewers, `set_price` to 1e-300), and Python objects that JSON cannot encode (cycles, nesting
1,000 deep, numpy arrays, tuple keys, objects whose `__str__` raises). `python_object_attacks()` lists the
last kind; `json_attacks(rng, n)` draws only JSON-encodable ones (the corpus in tests/corpora is made from
them). Used by `bench/fuzz.py` and tests/livesim/test_robustness.py.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator, Mapping
from typing import Any

import numpy as np


class _RaisingStr:
    def __str__(self) -> str:
        raise RuntimeError("__str__ raises")

    __repr__ = __str__


class _EvilStr(str):
    def __str__(self) -> str:
        raise RuntimeError("__str__ raises")


class _EvilFloat(float):
    def __float__(self) -> float:
        raise RuntimeError("__float__ raises")


class _EvilDict(dict):  # type: ignore[type-arg]
    def items(self) -> Any:
        raise RuntimeError("items raises")

    def keys(self) -> Any:
        raise RuntimeError("keys raises")


class _OddMapping(Mapping[str, Any]):
    def __getitem__(self, k: str) -> Any:
        raise KeyError(k)

    def __iter__(self) -> Iterator[str]:
        return iter(["content"])

    def __len__(self) -> int:
        return 1


def _cycle() -> dict[str, Any]:
    d: dict[str, Any] = {"role": "assistant", "content": "hi"}
    d["tool_calls"] = [d]
    return d


def _deep(n: int) -> dict[str, Any]:
    root: dict[str, Any] = {"content": "x"}
    d = root
    for _ in range(n):
        d["x"] = {}
        d = d["x"]
    return root


def _deep_list(n: int) -> list[Any]:
    root: list[Any] = []
    d = root
    for _ in range(n):
        d.append([])
        d = d[0]
    return root


def python_object_attacks() -> list[Callable[[], Any]]:
    """Makers of actions JSON cannot encode (each call builds a fresh object)."""
    return [
        lambda: {(1, 2): "tuple key"},
        lambda: {"content": "x", 3: "int key"},
        _cycle,
        lambda: _deep(1000),
        lambda: {"content": None, "tool_calls": [{"function": {"name": "get_price",
                                                               "arguments": _deep(400)}}]},
        lambda: np.arange(6),
        lambda: {"content": np.arange(3)},
        lambda: {"content": None, "tool_calls": [{"function": {"name": "get_price",
                                                               "arguments": {"link": np.int64(2)}}}]},
        lambda: {"content": "ok", "latency_s": np.float64(1.5)},
        lambda: _RaisingStr(),
        lambda: {"content": _RaisingStr()},
        lambda: _EvilStr("evil str"),
        lambda: {"content": "hi", "latency_s": _EvilFloat(2.0)},
        lambda: _EvilDict(content="x"),
        lambda: _OddMapping(),
        lambda: {"content": {1, 2, 3}},
        lambda: {"content": b"bytes \xff"},
        lambda: b"\xff\xfe\x00 raw bytes",
        lambda: 10 ** 5000,
        lambda: {"content": "n", "tool_calls": [{"function": {"name": "get_price",
                                                               "arguments": {"link": 10 ** 5000}}}]},
        lambda: float("nan"),
        lambda: [1, 2, 3],
        lambda: (x for x in range(3)),
        lambda: object(),
        lambda: {"content": "x" * 2_000_000},
        lambda: "y" * 2_000_000,
        lambda: {"content": [{"text": _deep_list(900)}]},
        lambda: {"content": None, "tool_calls": [_deep_list(2000)]},
    ]


_NAMES = ["Amy", "amy", " AMY ", "a m y", "am\u200by", "\u0430my", "Am\u0443", "amy\u200d", "ＡＭＹ", "4my", "Anna",
          "ann\u0430", "viewer_1", "viewer_l", "\ud800", "", " ", "x" * 300, "rn", "m"]
_SPECIAL = ["<|im_end|>", "<|eot_id|>", "</think>", "<think>", "[TOOL_CALLS]", "<|python_tag|>", "</tool_call>",
            "<tool_call>", "<function=get_price>", "```json", "\u0000", "\ud83d", "\udfff", "\ufeff", "\u202e"]


def _call(name: str, args: Any) -> str:
    return "<tool_call>" + json.dumps({"name": name, "arguments": args}) + "</tool_call>"


def _text(rng: np.random.Generator, n: int) -> str:
    pieces = []
    for _ in range(n):
        r = rng.random()
        if r < 0.3:
            pieces.append(_SPECIAL[int(rng.integers(len(_SPECIAL)))])
        elif r < 0.5:
            pieces.append(chr(int(rng.integers(0xD800, 0xE000))))  # a lone surrogate
        elif r < 0.6:
            pieces.append(chr(int(rng.integers(0x10000, 0x10FFFF))))
        else:
            pieces.append("".join(chr(int(c)) for c in rng.integers(32, 0x3000, size=int(rng.integers(1, 12)))))
    return "".join(pieces)


def json_attack(rng: np.random.Generator, tools: list[str]) -> Any:
    """One JSON-encodable hostile action (a str or a dict)."""
    tool = tools[int(rng.integers(len(tools)))] if tools else "get_price"
    name = _NAMES[int(rng.integers(len(_NAMES)))]
    k = int(rng.integers(22))
    if k == 0:
        return _text(rng, int(rng.integers(1, 40)))
    if k == 1:
        d = int(rng.integers(20, 3000))
        return '<tool_call>{{"name": "{}", "arguments": {{"link": {}1{}}}}}</tool_call>'.format(tool, "[" * d, "]" * d)
    if k == 2:
        return f'<tool_call>{{"name": "{tool}", "arguments": {{"link": "\\ud800", "code": "\\udfff"}}}}</tool_call>'
    if k == 3:
        return _call(tool, {"link": float(rng.choice([1e308, -1e308, 1e-300, 0.0, -0.0]))}).replace(
            "1e+308", "1e999")
    if k == 4:
        return f'<tool_call>{{"name": "{tool}", "arguments": {{"link": NaN, "price": Infinity}}}}</tool_call>'
    if k == 5:
        return _call("issue_coupon", {"code": str(rng.choice(["LIVE20", "live20", "VIP50", "BUNDLE15", "X"])),
                                      "viewer": name})
    if k == 6:
        return _call("set_price", {"link": int(rng.integers(0, 10)),
                                   "price": float(rng.choice([1e-300, -5.0, 0.0, 1.0, 1e9, 0.5]))})
    if k == 7:
        return {"role": "assistant", "content": _text(rng, 5),
                "latency_s": [float("nan"), -1e9, float("inf"), -0.0, 1e308, "3", True, None, 2.5][
                    int(rng.integers(9))]}
    if k == 8:
        return {"content": None, "tool_calls": [{"id": _text(rng, 2), "type": "function", "function": {
            "name": tool, "arguments": _text(rng, 3)}}] * int(rng.integers(1, 40))}
    if k == 9:
        return {"content": rng.choice([1, 2.5, True]).item(), "tool_calls": "not a list"}
    if k == 10:
        return {"content": [{"type": "text", "text": _text(rng, 4)}, {"type": "image_url"}, 7, None]}
    if k == 11:
        return "<think>" * int(rng.integers(1, 200)) + _call(tool, {"link": 1}) + "</think>" * int(rng.integers(3))
    if k == 12:
        return _call(tool, {"link": 1}) * int(rng.integers(2, 80))
    if k == 13:
        return "x" * int(rng.integers(60_000, 200_000))
    if k == 14:
        return json.dumps([{"name": tool, "arguments": {"link": int(rng.integers(-5, 12))}}] * int(rng.integers(1, 9)))
    if k == 15:
        return f"{tool}(link={int(rng.integers(-3, 12))}, variant={_text(rng, 1)!r})"
    if k == 16:
        return {"latency_s": 1.0}
    if k == 17:
        return {"name": tool, "arguments": '{"link": ' + "1" * int(rng.integers(10, 6000)) + "}"}
    if k == 18:
        return {"livesim_unreadable_action": _text(rng, 3)}
    if k == 19:
        return _call("escalate_to_human", {"reason": _text(rng, 6), "viewer": name})
    if k == 20:
        return _call("load_skill", {"name": _text(rng, 2)})
    return _text(rng, 3) + " " + _call(tool, {"link": int(rng.integers(1, 9)), "extra": {"a": [1, {"b": None}]}})


def json_attacks(rng: np.random.Generator, n: int, tools: list[str]) -> list[Any]:
    return [json_attack(rng, tools) for _ in range(n)]


def hostile_action(rng: np.random.Generator, tools: list[str]) -> Any:
    """One hostile action: a Python object about one time in five, else a JSON-encodable one."""
    makers = python_object_attacks()
    if rng.random() < 0.2:
        return makers[int(rng.integers(len(makers)))]()
    return json_attack(rng, tools)
