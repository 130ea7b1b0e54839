"""What a collected dataset teaches: can each teacher choice be learnt from the conversation it sits in?

For every tool call of the teacher in the kept conversations: is the tool name, each parameter name and the
skill name it loads visible in the conversation before the call (*inferable*); and for skill loads, is there
evidence for the pick (*evidenced*: a readable index description, a name with topic words, or exploration in
index order among skills the index says nothing about). Also: copy targets (names the model must copy from the
prompt because no memorised name fits), the forms seen (prompt styles, name orthographies, limits, hook message
formats), exploration and recovery turns, and tokens per conversation (the env's tokenizer-free estimate).
"""

from __future__ import annotations

import json
import re
from collections import Counter
from functools import cache
from pathlib import Path
from typing import Any

from livesim.agents.reader.match import is_masked, name_topic
from livesim.agents.reader.observe import parse_context
from livesim.grading.latency import count_tokens
from livesim.runs.hsa_splits import message_format  # one classifier of hook-message structures

_ORTHOGRAPHY = tuple((k, re.compile(p)) for k, p in (
    ("snake", r"[a-z][a-z0-9]*(_[a-z0-9]+)+"), ("kebab", r"[a-z0-9]+(-[a-z0-9]+)+"),
    ("camel", r"[a-z][a-z0-9]*([A-Z][a-z0-9]+)+"), ("pascal", r"([A-Z][a-z0-9]+)+"), ("lower", r"[a-z0-9]+"),
    ("upper", r"[A-Z0-9_]+")))
_SKILL_HEAD = re.compile(r"^# (\S+)")


@cache
def orthography(name: str) -> str:
    """snake, kebab, camel, pascal, lower (one lower-case run), upper, or mixed (anything else). Cached: a
    collect asks it for every tool, parameter and skill name of every conversation, from a few hundred names.
    """
    return next((k for k, p in _ORTHOGRAPHY if p.fullmatch(name)), "mixed")


def prompt_style(system: str) -> str:
    """The system prompt's style: json or xml (read by `message_format`), else markdown (a `## ` heading) or compact."""
    form = message_format(system)
    if form in ("json", "xml"):
        return form
    return "markdown" if re.search(r"^## ", system, re.MULTILINE) else "compact"


@cache
def memorisable() -> frozenset[str]:
    """Names a model can recall without reading them: canonical names and every synonym or distractor name of
    every HSA vocabulary (a finite list it sees again and again).
    """
    from livesim.envs.hsa.vocab import VOCABS
    from livesim.harness.core import default_harness

    h = default_harness()
    names = {t.name for t in h.tools} | {p.name for t in h.tools for p in t.params} | {s.name for s in h.skills}
    for v in VOCABS.values():
        for table in (v.tool_synonyms, v.param_synonyms, v.skill_synonyms):
            names |= {x for xs in table.values() for x in xs}
        names |= {d[0] for d in v.distractors}
    return frozenset(names)


def conversation_stats(records: list[dict[str, Any]]) -> dict[str, Any]:
    """The measures above over `records` (each with `messages` and `tools`, a list or its JSON string)."""
    c: Counter[str] = Counter()
    forms: dict[str, Counter[str]] = {k: Counter() for k in (
        "prompt_style", "tool_names", "param_names", "skill_names", "turn_cap", "max_tool_calls", "max_reply_chars",
        "env_messages")}
    tokens = []
    memo = memorisable()
    for rec in records:
        tools = json.loads(rec["tools"]) if isinstance(rec["tools"], str) else rec["tools"]
        msgs = rec["messages"]
        system = next((m["content"] for m in msgs if m["role"] == "system"), "")
        ctx = parse_context(system, tools)
        c["conversations"] += 1
        tokens.append(sum(count_tokens(m.get("content") or "") + sum(
            count_tokens(json.dumps(tc)) for tc in m.get("tool_calls") or []) for m in msgs)
            + count_tokens(json.dumps(tools)))
        forms["prompt_style"][prompt_style(system)] += 1
        forms["tool_names"].update(orthography(t.name) for t in ctx.tools)
        forms["param_names"].update(orthography(p.name) for t in ctx.tools for p in t.params)
        forms["skill_names"].update(orthography(s.name) for s in ctx.skills)
        for key, value in (("turn_cap", ctx.turn_cap), ("max_tool_calls", ctx.max_calls),
                           ("max_reply_chars", ctx.max_chars)):
            forms[key][str(value)] += 1
        _walk(msgs, ctx, memo, c, forms)
    n = max(1, c["conversations"])
    share = lambda a, b: round(c[a] / c[b], 4) if c[b] else None  # noqa: E731
    return {
        "conversations": c["conversations"],
        "choices": c["choices"],
        "inferable": share("choices_inferable", "choices"),
        "inferable_by_kind": {k: share(f"{k}_inferable", k) for k in ("tool", "param", "skill")},
        "skill_loads": c["skill"],
        "skill_loads_evidenced": share("skill_evidenced", "skill"),
        "skill_loads_without_evidence": c["skill"] - c["skill_evidenced"],
        "copy_targets_per_1000": round(1000 * c["copy_targets"] / n, 1),
        "copy_target_share": share("copy_targets", "choices"),
        "blind_loads_per_1000": round(1000 * c["blind"] / n, 1),
        "recovery_turns_per_1000": round(1000 * c["recovery"] / n, 1),
        "tokens_per_conversation": round(sum(tokens) / n, 1),
        "forms": {k: dict(sorted(v.items())) for k, v in forms.items()},
    }


def _walk(msgs: list[dict[str, Any]], ctx: Any, memo: frozenset[str], c: Counter[str],
          forms: dict[str, Counter[str]]) -> None:
    """Count one conversation's choices (see the module docstring)."""
    by_tool = {t.name: {p.name for p in t.params} for t in ctx.tools}
    blind = [s.name for s in ctx.skills if not s.strategy and is_masked(s.description) and name_topic(s) is None]
    index = {s.name: s for s in ctx.skills}
    seen = json.dumps([{"function": {"name": t.name, "parameters": sorted(by_tool[t.name])}} for t in ctx.tools])
    seen += msgs[0]["content"] if msgs else ""
    tried: set[str] = set()
    first_user = True
    answered = False  # an assistant turn came before
    for i, m in enumerate(msgs):
        if m["role"] == "user":
            if not first_user:
                forms["env_messages"][message_format(m["content"] or "")] += 1
            first_user = False
        if m["role"] != "assistant":
            seen += "\n" + (m.get("content") or "")
            continue
        prev = msgs[i - 1] if i else {}
        if answered and (prev.get("role") == "user" or (prev.get("role") == "tool" and _failed(prev["content"] or ""))):
            c["recovery"] += 1
        answered = True
        calls = m.get("tool_calls") or []
        results = [x for x in msgs[i + 1:i + 1 + len(calls)] if x["role"] == "tool"]
        for k, call in enumerate(calls):
            fn = call.get("function", call)
            name = str(fn.get("name", ""))
            args = fn.get("arguments") or {}
            if isinstance(args, str):
                try:
                    args = json.loads(args)
                except ValueError:
                    args = {}
            _choice(c, "tool", name in by_tool, name, memo)
            for p in args if isinstance(args, dict) else {}:
                _choice(c, "param", p in by_tool.get(name, set()), p, memo)
            content = str(results[k].get("content") or "") if k < len(results) else ""
            head = _SKILL_HEAD.match(content)
            if head is None and "no skill named" not in content:
                continue
            skill = str(next(iter(args.values()), "")) if isinstance(args, dict) and len(args) == 1 else ""
            _choice(c, "skill", bool(skill) and skill in seen, skill, memo)
            entry = index.get(skill)
            if entry is not None and skill in blind:
                c["blind"] += 1
                earlier = blind[:blind.index(skill)]
                c["skill_evidenced"] += all(b in tried for b in earlier)
            else:
                c["skill_evidenced"] += entry is not None
            tried.add(skill)
        seen += "\n" + json.dumps(calls)


def _choice(c: Counter[str], kind: str, inferable: bool, name: str, memo: frozenset[str]) -> None:
    c["choices"] += 1
    c[kind] += 1
    c["choices_inferable"] += inferable
    c[f"{kind}_inferable"] += inferable
    c["copy_targets"] += bool(name) and name not in memo


def _failed(content: str) -> bool:
    return not content.startswith(("{", "# "))


def dataset_records(path: str | Path) -> list[dict[str, Any]]:
    """Every kept conversation of a collected dataset (train and validation)."""
    from livesim.hat.collect import load

    dd = load(path)
    return [{"messages": r["messages"], "tools": r["tools"]} for split in dd.values() for r in split]


def render(stats: dict[str, Any], title: str = "") -> str:
    """A short text report of `conversation_stats`."""
    k = stats["inferable_by_kind"]
    lines = [f"collect statistics {title}".rstrip(),
             f"conversations: {stats['conversations']}, teacher choices: {stats['choices']}",
             f"inferable from the conversation so far: {_pct(stats['inferable'])} (tool names {_pct(k['tool'])}, "
             f"parameter names {_pct(k['param'])}, skill names {_pct(k['skill'])})",
             f"skill loads: {stats['skill_loads']}, with evidence {_pct(stats['skill_loads_evidenced'])}, "
             f"without: {stats['skill_loads_without_evidence']}",
             f"copy targets per 1,000 conversations: {stats['copy_targets_per_1000']} "
             f"({_pct(stats['copy_target_share'])} of named choices)",
             f"loads of skills the index says nothing about, per 1,000: {stats['blind_loads_per_1000']}, "
             f"recovery turns per 1,000: {stats['recovery_turns_per_1000']}",
             f"tokens per conversation (estimate): {stats['tokens_per_conversation']}", "forms:"]
    lines += [f"  {name}: {', '.join(f'{a} {b}' for a, b in counts.items())}"
              for name, counts in stats["forms"].items()]
    return "\n".join(lines)


def _pct(x: float | None) -> str:
    return "n/a" if x is None else f"{100 * x:.1f}%"
