"""The reader's policy: a pure function of the observation (no episode state), so batches and replays agree.

Each turn it re-reads the conversation: what the comments ask, which look-ups came back, which skills were
loaded and what they said, and what the environment answered (errors, hook messages); then it calls what is
still missing, or replies.
"""

from __future__ import annotations

import functools
import hashlib
import json
import re
from typing import Any

from livesim.agents.base import BaseAgent, Observation
from livesim.agents.reader.compose import compose
from livesim.agents.reader.intents import TOPIC, Ask, read_comment
from livesim.agents.reader.match import assign_tools, is_masked, name_topic, skill_topic, topic_scores
from livesim.agents.reader.observe import Context, Conversation, SkillView, parse_context, parse_conversation
from livesim.parsing import format_tool_call

ERRORS = ("skip_skill", "broken_call", "too_long", "claim", "untraceable")
_FAULT = re.compile(r"timed out|try again|permission denied|<truncated>", re.IGNORECASE)
_SKILL_LIST = re.compile(r"skills?: \[([^\]]*)\]")
_LIMIT = re.compile(r"the limit is (\d+)")
_NUMBER = re.compile(r"the number ([\d.]+)")
_QUOTED = re.compile(r"\(['\"](.+?)['\"]\)|word ['\"](.+?)['\"]|code that cannot be issued \((\w+)\)")
_JUNK = {"too_long": " " + "We have so many great things to show you today, stay tuned! " * 12,
         "claim": " It's a miracle product with guaranteed results!", "untraceable": " Over 98765 sold today!"}


@functools.lru_cache(maxsize=256)
def _context(system: str, tools_json: str) -> Context:
    return parse_context(system, json.loads(tools_json))


def lookups(ask: Ask) -> list[tuple[str, dict[str, Any]]]:
    """The look-ups (job, slot values) an ask needs, before anything is known."""
    link = ask.links[0] if ask.links else None
    one = {"price": "price", "stock_variant": "stock", "spec_material": "details", "returns": "returns"}
    if ask.intent in one and link is not None:
        return [(one[ask.intent], {"link": link})]
    if ask.intent == "size_advice" and link is not None and ask.height and ask.weight:
        return [("size", {"link": link, "height": ask.height, "weight": ask.weight})]
    if ask.intent == "comparison" and len(ask.links) >= 2:
        return [("compare", {"link_a": ask.links[0], "link_b": ask.links[1]})]
    if ask.intent == "shipping" and link is not None:
        return [("shipping", {"link": link, **({"region": ask.region} if ask.region else {})})]
    if ask.intent == "coupon":
        return [("promotions", {})]
    if ask.intent == "how_to_buy" and link is not None and not ask.named:
        return [("details", {"link": link})]
    if ask.intent == "recommendation" and ask.need:
        return [("search", {"query": ask.need})]
    if ask.intent == "complaint":
        return [("ticket", {"reason": ask.text.strip()[:120], "viewer": ask.viewer})]
    return []


class ReaderAgent(BaseAgent):
    """Acts only on the observation: finds tools and skills from what they say, explores, recovers, answers
    from tool results. `error_rate` (with `seed`) makes it err once in some requests (skip the skill, break a
    call, draft a reply a hook blocks) and recover, as the oracle's does; the draw hashes the request's text,
    so the agent keeps no state.
    """

    name = "reader"

    def __init__(self, error_rate: float = 0.0, seed: int = 0, explore: int = 3) -> None:
        super().__init__()
        if not 0.0 <= error_rate <= 1.0:
            raise ValueError(f"error_rate must be in [0, 1], got {error_rate}")
        if explore < 1:
            raise ValueError(f"explore must be >= 1, got {explore}")
        self.error_rate = error_rate
        self.seed = seed
        self.explore = explore

    # --- the one entry point ---------------------------------------------------------------------------
    def act(self, observation: Observation) -> str:
        messages = observation.get("messages") or []
        system = next((str(m.get("content") or "") for m in messages if m.get("role") == "system"), "")
        ctx = _context(system, json.dumps(observation.get("tools") or [], sort_keys=True))
        conv = parse_conversation(messages)
        asks = [a for viewer, text in conv.comments for a in read_comment(viewer, text, ctx.products, ctx.pinned)]
        err = self._error(system, conv.request_text)
        if err == "broken_call" and conv.turns == 0:
            loader = assign_tools(ctx.tools).get("details") or assign_tools(ctx.tools).get("load_skill")
            name = loader[0].name if loader else "tool"
            return '<tool_call>{"name": "' + name + '", "arguments": {</tool_call>'
        left = ctx.turn_cap - conv.turns
        calls = [] if left <= 1 else self._next_calls(ctx, conv, asks, skip_skills=err == "skip_skill"
                                                      and not conv.feedback)
        if calls:
            return "\n".join(calls[:ctx.max_calls])
        reply = self._reply(ctx, conv, asks)
        if err in _JUNK and not conv.replies:
            reply += _JUNK[err]
        return reply

    def _error(self, system: str, request: str) -> str | None:
        if self.error_rate <= 0:
            return None
        h = hashlib.sha256(f"{self.seed}\0{system}\0{request}".encode()).digest()
        if int.from_bytes(h[:4], "big") / 2**32 >= self.error_rate:
            return None
        return ERRORS[h[4] % len(ERRORS)]

    # --- calls -----------------------------------------------------------------------------------------
    def _next_calls(self, ctx: Context, conv: Conversation, asks: list[Ask], skip_skills: bool) -> list[str]:
        jobs = assign_tools(ctx.tools)
        out: list[str] = []
        for ask in asks:
            for job, values in lookups(ask):
                call = self._lookup_call(job, values, jobs, conv)
                if call and call not in out:
                    out.append(call)
        if skip_skills:
            return out
        budget = max(1, ctx.max_calls - len(out))
        last_chance = ctx.turn_cap - conv.turns <= 2
        loads = self._skill_loads(ctx, conv, asks, jobs, budget if last_chance else min(budget, self.explore))
        return out + loads

    def _lookup_call(self, job: str, values: dict[str, Any], jobs: dict[str, Any], conv: Conversation
                     ) -> str | None:
        """The call still to make for one look-up, or None (done, failed for good, or no tool for it)."""
        if job not in jobs:
            return None
        tool, params = jobs[job]
        for attempt in _param_orders(job, params):
            args = {attempt[role]: v for role, v in values.items() if role in attempt}
            same = [c for c in conv.calls if c.name == tool.name and c.arguments == args]
            if any(not c.failed for c in same):
                return None
            faults = [c for c in same if _FAULT.search(c.content)]
            if len(same) > len(faults):  # a real error for this argument order: try the next one
                continue
            if len(faults) >= 6:  # a service that keeps failing: answer without it
                return None
            return format_tool_call(tool.name, args)
        return None

    def _skill_loads(self, ctx: Context, conv: Conversation, asks: list[Ask], jobs: dict[str, Any],
                     budget: int) -> list[str]:
        if "load_skill" not in jobs:
            return []
        tool, params = jobs["load_skill"]
        param = params.get("name")
        if param is None:
            return []
        loaded = _loaded(conv, tool.name, param)
        tried = {str(c.arguments.get(param)) for c in conv.calls if c.name == tool.name}
        if conv.last_feedback and "no reply skill" in conv.last_feedback:  # none of them was a reply skill
            loaded = {}
        topics = list(dict.fromkeys(TOPIC[a.intent] for a in asks)) or ["smalltalk"]
        out: list[str] = []
        skills = _known_skills(ctx, conv)
        listed = any(c.content.startswith("error") and _SKILL_LIST.search(c.content) for c in conv.calls)
        todo = [t for t in topics if not any(x == t for x in loaded.values())]
        # topics a skill's description or name points to go first, so exploring for another topic never takes it
        todo.sort(key=lambda t: min((r for r, _ in _candidates(skills, t, tried)), default=9) > 1)
        for topic in todo:
            ranked = _candidates(skills, topic, tried)
            if not ranked and not listed and topic not in tried and len(out) < budget:
                out.append(format_tool_call(tool.name, {param: topic}))  # nothing fits: the error lists them all
                tried.add(topic)
                continue
            take = 1 if ranked and ranked[0][0] <= 1 else budget
            for _, skill in ranked[:take]:
                if len(out) >= budget:
                    break
                out.append(format_tool_call(tool.name, {param: skill.name}))
                tried.add(skill.name)
        return out

    # --- the reply -------------------------------------------------------------------------------------
    def _reply(self, ctx: Context, conv: Conversation, asks: list[Ask]) -> str:
        jobs = assign_tools(ctx.tools)
        limit = ctx.max_chars
        banned: list[str] = []
        for f in conv.feedback:
            if m := _LIMIT.search(f):
                limit = min(limit, int(m.group(1)))
            if m := _NUMBER.search(f):
                banned.append(m.group(1).rstrip(".").removesuffix(".0"))
            if m := _QUOTED.search(f):
                banned.append(next(g for g in m.groups() if g))
        pairs = []
        for ask in asks:
            results: dict[str, Any] = {}
            for job, values in lookups(ask):
                res = _result(job, values, jobs, conv)
                if res is not None:
                    results[job] = res
            pairs.append((ask, results))
        return compose(pairs, max(40, limit - 10), banned)


def _param_orders(job: str, params: dict[str, str]) -> list[dict[str, str]]:
    """The argument orders to try: the matched one, then (size) the other ways to place its three numbers."""
    orders = [params]
    if job == "size" and len(params) == 3:
        names = [params[r] for r in ("link", "height", "weight") if r in params]
        if len(names) == 3:
            import itertools

            for perm in itertools.permutations(names):
                alt = dict(zip(("link", "height", "weight"), perm, strict=True))
                if alt != params:
                    orders.append(alt)
    return orders


def _result(job: str, values: dict[str, Any], jobs: dict[str, Any], conv: Conversation) -> Any:
    if job not in jobs:
        return None
    tool, params = jobs[job]
    for attempt in _param_orders(job, params):
        args = {attempt[role]: v for role, v in values.items() if role in attempt}
        for c in reversed(conv.calls):
            if c.name == tool.name and c.arguments == args and not c.failed:
                return c.result()
    return None


def _loaded(conv: Conversation, loader: str, param: str) -> dict[str, str | None]:
    """Skill name -> the topic its content is about, for every skill loaded in this request."""
    out: dict[str, str | None] = {}
    gates = [at for at, f in zip(conv.feedback_at, conv.feedback, strict=True) if "no reply skill" in f]
    for c in conv.calls:
        if any(at > c.at for at in gates):  # loaded before the reply gate said no reply skill was: not one
            out[str(c.arguments.get(param))] = None
        elif c.name == loader and c.content.startswith("# "):
            scores = topic_scores(c.content)
            top = max(scores, key=lambda t: scores[t])
            out[str(c.arguments.get(param))] = top if scores[top] >= 2.0 else None
    return out


def _known_skills(ctx: Context, conv: Conversation) -> list[SkillView]:
    """The skill index, plus names an error message listed (when the index could not be read)."""
    skills = list(ctx.skills)
    names = {s.name for s in skills}
    for c in conv.calls:
        if c.content.startswith("error") and (m := _SKILL_LIST.search(c.content)):
            for raw in m.group(1).split(","):
                name = raw.strip().strip("'\"")
                if name and name not in names:
                    skills.append(SkillView(name, "", False))
                    names.add(name)
    return skills


def _candidates(skills: list[SkillView], topic: str, tried: set[str]) -> list[tuple[int, SkillView]]:
    """Skills that may answer `topic`, best first: 0 its description says so, 1 its name does, 2 nothing is
    known, 3 its description is unclear, 4 its name points elsewhere; a description about another topic is out.
    """
    out = []
    for s in skills:
        if s.strategy or s.name in tried:
            continue
        said = skill_topic(s)
        if said is not None and said != topic:
            continue
        named = name_topic(s)
        if said == topic:
            rank = 0
        elif named == topic:
            rank = 1
        elif s.description and said is None and not is_masked(s.description):
            rank = 3
        elif named is not None:
            rank = 4
        else:
            rank = 2
        out.append((rank, s))
    return sorted(out, key=lambda x: x[0])


__all__ = ["ERRORS", "ReaderAgent", "lookups"]
