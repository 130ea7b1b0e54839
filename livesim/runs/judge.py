"""An optional LLM judge: accuracy and effectiveness of a reply, scored by a chat model from the truth.

`make_judge("openai:BASE_URL:MODEL")` returns a judge `(sim, reply) -> (accuracy, effectiveness) | None` that
sends `JUDGE_PROMPT` (the request, the ground truth, the records of the products involved, what the tools
looked up, and the reply) to any OpenAI-compatible server through `livesim.agents.openai_agent.OpenAIAgent`
(the agents' client and accounting: temperature 0, bounded retries, a deadline per call, a capped body). The
model must answer with one JSON object `{"accuracy": 0|1, "effectiveness": 0|0.5|1, "reason": "..."}`; a
failed call or any other answer is no verdict (None), counted in `judge.failed_calls` or `judge.unusable`.
`SecondOpinion` consults such a judge only where the rules are unsure (`uncertain`) and keeps the rules'
verdict where the judge gave none; the rule grader stays the default: deterministic and offline.
"""

from __future__ import annotations

import json
import re
from typing import Any

from livesim.agents.openai_agent import OpenAIAgent

JUDGE_PROMPT = """You grade one reply of a live-stream shopping host to viewer comments, from the ground truth.

accuracy (0 or 1): 1 only if every claim in the reply is true of the thing it is stated about, per the records
below. A value that is true of another product or another attribute is wrong. Superlatives, rankings, market
comparisons, efficacy, durability, health or guarantee claims, delivery dates and promises the host cannot make
(personal discounts, refunds, gifts) are not supported by any record: accuracy 0. A claim inside a refusal or a
question ("I can't promise it will cure...") is not a claim.
effectiveness (0, 0.5 or 1): 1 if the reply answers what the viewers asked (the required facts, stated as an
answer about the right product; any correct way of answering counts), 0.5 if it answers part of it, 0 if it
answers none of it. Keywords inside a refusal, a deflection or an echo of the question do not count.

Viewer comments:
{request}

Required facts (what a correct answer states): {facts}
A correct reply, for reference: {gold}
Records of the products involved: {products}
Running promotions: {promotions}
What the host's tools looked up: {lookups}

Reply to grade:
{reply}

Answer with one JSON object only: {{"accuracy": 0 or 1, "effectiveness": 0 or 0.5 or 1, "reason": "<one line>"}}"""

_JSON_RE = re.compile(r"\{[^{}]{0,2000}\}")


def parse_spec(spec: str) -> tuple[str, str]:
    """'openai:http://host:8000/v1:my-model' -> (base_url, model); a bad spec raises ValueError saying why."""
    if not spec.startswith("openai:") or spec.count(":") < 2:
        raise ValueError(f"--judge expects openai:BASE_URL:MODEL, got {spec!r}")
    base_url, _, model = spec[len("openai:"):].rpartition(":")
    if not base_url.startswith(("http://", "https://")) or not model:
        raise ValueError(f"--judge expects openai:BASE_URL:MODEL with an http(s) BASE_URL, got {spec!r}")
    return base_url, model


def judge_prompt(sim: Any, reply: str) -> str:
    req, truth = sim.request, sim.request.truth
    products = [sim.catalog.by_link(t).model_dump(exclude={"product_id"}) for t in truth.targets
                if sim.catalog.by_link(t)]
    for p in products:
        p["current_price"] = sim.room.current_price(sim.catalog, p["link"])
    room = sim.room
    promotions = {"coupons": [c.model_dump(include={"code", "discount", "threshold", "links", "issuable"})
                              for c in room.active_coupons()],
                  "flash_sales": [f.model_dump() for f in room.flash_sales if f.active(room.clock_s)],
                  "bundles": [b.model_dump() for b in room.bundles], "gifts": [g.model_dump() for g in room.gifts]}
    lookups = [{"tool": c.key, "result": c.result} for c in sim.trace.tool_calls if c.ok and c.key != "load_skill"]
    return JUDGE_PROMPT.format(request=req.text, facts="; ".join(f.label for f in truth.facts) or "(none)",
                               gold=" ".join(truth.say), products=json.dumps(products, ensure_ascii=False),
                               promotions=json.dumps(promotions, ensure_ascii=False),
                               lookups=json.dumps(lookups, ensure_ascii=False, default=str)[:4000], reply=reply)


def parse_verdict(content: str) -> tuple[float, float] | None:
    for m in _JSON_RE.finditer(content or ""):
        try:
            d = json.loads(m.group())
            acc, eff = float(d["accuracy"]), float(d["effectiveness"])
        except (ValueError, KeyError, TypeError):
            continue
        if acc in (0.0, 1.0) and eff in (0.0, 0.5, 1.0):
            return acc, eff
    return None


class LLMJudge:
    """Verdicts from a chat model; `calls`, `failed_calls` (the server gave no answer: the cause is in
    `client.error_log`) and `unusable` (it answered, but with no verdict) count what happened.
    """

    def __init__(self, base_url: str, model: str, **client_kw: Any) -> None:
        client_kw = {"max_tokens": 200, "concurrency": 1, "max_body": 1 << 20, **client_kw}
        self.client = OpenAIAgent(base_url, model, tools_native=True, **client_kw)
        self.calls = 0
        self.failed_calls = 0
        self.unusable = 0

    @property
    def failures(self) -> int:
        """Replies left without a verdict, for whatever reason."""
        return self.failed_calls + self.unusable

    def check_server(self) -> None:
        """Raise `AgentUnavailable` (URL and cause) if the judge's server cannot answer a health check."""
        self.client.check_server()

    def __call__(self, sim: Any, reply: str) -> tuple[float, float] | None:
        self.calls += 1
        msg = self.client.act({"messages": [{"role": "user", "content": judge_prompt(sim, reply)}], "tools": []})
        if self.client.last_calls and self.client.last_calls[0]["outcome"] == "failed":
            self.failed_calls += 1
            return None
        verdict = parse_verdict(msg.get("content", "") if isinstance(msg, dict) else str(msg))
        if verdict is None:
            self.unusable += 1
        return verdict

    def accounting(self) -> dict[str, Any]:
        """What the verdicts cost and how many came: for `grader calibrate` (text and --json)."""
        stats = self.client.stats
        log = self.client.error_log
        return {"calls": self.calls, "verdicts": self.calls - self.failures, "failed_calls": self.failed_calls,
                "unusable_answers": self.unusable, "http_requests": int(stats["requests"]),
                "retries": int(stats["retries"]), "timeouts": int(stats["timeouts"]),
                "first_error": log[0] if log else None}


def make_judge(spec: str, **client_kw: Any) -> LLMJudge:
    base_url, model = parse_spec(spec)
    return LLMJudge(base_url, model, **client_kw)


UNVERIFIED = "unverified "  # the prefix of the topic rule's errors, the rules' weakest evidence


def uncertain(grade: Any) -> list[str]:
    """Why the rule grade of a reply is unsure (empty: the rules are sure): accuracy failed only on the general
    topic rule, effectiveness is partial, or accurate with numbers bound to nothing.
    """
    why = []
    if grade.errors and all(e.startswith(UNVERIFIED) for e in grade.errors):
        why.append("only unverified-topic errors")
    if grade.scores.get("effectiveness") == 0.5:
        why.append("partial effectiveness")
    if not grade.errors and grade.scores.get("brevity", 1.0) < 1.0 and grade.scores.get("accuracy") == 1.0:
        why.append("numbers bound to nothing")
    return why


class SecondOpinion:
    """A judge `(sim, reply) -> (accuracy, effectiveness)`: the rule grade, replaced by `llm`'s verdict where the
    rules are unsure and the LLM answered. `consulted`, `no_verdict` (the rules' verdict kept) and `overruled`
    count what happened.
    """

    def __init__(self, llm: Any) -> None:
        self.llm = llm
        self.consulted = 0
        self.no_verdict = 0
        self.overruled = 0

    def check_server(self) -> None:
        check = getattr(self.llm, "check_server", None)
        if callable(check):
            check()

    def __call__(self, sim: Any, reply: str) -> tuple[float, float]:
        from livesim.runs.calibration import grade_text

        g = grade_text(sim, reply)
        rule = (g.scores["accuracy"], g.scores["effectiveness"])
        if not uncertain(g):
            return rule
        self.consulted += 1
        verdict = self.llm(sim, reply)
        if verdict is None:
            self.no_verdict += 1
            return rule  # no usable answer: keep the rules' verdict
        self.overruled += int(verdict != rule)
        return verdict
