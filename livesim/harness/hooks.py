"""Hooks: declarative checks at events (incoming request, before a tool runs, before a reply is sent).

A hook names a check from `CHECKS`, its parameters, a retry-message template and a retry limit. Checks are
plain functions `check(ctx, params) -> reason | None` (None means pass). No code is ever loaded from data:
a scenario or patch can only name checks that are registered here.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from livesim.grading.facts import extract_facts, numbers_in
from livesim.grading.facts.extract import prices_in
from livesim.grading.facts.patterns import _LINK_RE, replace_ignoring_case
from livesim.harness.core import Harness, Hook


@dataclass
class HookContext:
    """What a check can look at."""

    harness: Harness
    comments: str = ""
    reply: str = ""
    loaded_skills: list[str] = field(default_factory=list)  # canonical skill keys loaded in this request
    tool_numbers: set[float] = field(default_factory=set)  # numbers in this request's tool results
    prompt_numbers: set[float] = field(default_factory=set)  # numbers the prompt itself shows (link numbers)
    valid_codes: set[str] = field(default_factory=set)  # coupon codes the host may mention
    tool_error: str | None = None


Check = Callable[[HookContext, dict[str, Any]], str | None]
CHECKS: dict[str, Check] = {}
CHECK_EVENTS: dict[str, str] = {}


def check(name: str, event: str) -> Callable[[Check], Check]:
    def deco(fn: Check) -> Check:
        CHECKS[name] = fn
        CHECK_EVENTS[name] = event
        return fn

    return deco


_INJECTION = re.compile(
    r"ignore (all |any |the )?(previous|prior|above|your) (instructions|rules)|system prompt|developer mode|"
    r"you are now|new rules?:|</?system>|repeat (the|everything|all) (text )?above|jailbreak|"
    r"forget (all |your )?(rules|instructions)|pretend (that|the|you)|act as (an?|the) |override|"
    r"admin mode|reveal (your|the) (prompt|instructions|rules)|print your (prompt|instructions)",
    re.IGNORECASE,
)
_ABUSE = re.compile(r"\b(idiot|stupid|scam(mer)?|liar|trash|garbage|shut up)\b", re.IGNORECASE)
_NEGATION = re.compile(r"\b(not|no|never|cannot|can't|cant|won't|don't|doesn't|isn't|unable)\b[\w\s']{0,20}$",
                       re.IGNORECASE)
_FORMAT = [
    (re.compile(r"```"), "code fences"),
    (re.compile(r"^\s{0,3}#{1,6}\s", re.MULTILINE), "Markdown headers"),
    (re.compile(r"^\s*\|.*\|\s*$", re.MULTILINE), "a table"),
    (re.compile(r"</?(tool_call|function|tool|system|think)\b", re.IGNORECASE), "markup tags"),
    (re.compile(r"https?://", re.IGNORECASE), "a URL"),
]


@check("screen_request", "request")
def screen_request(ctx: HookContext, params: dict[str, Any]) -> str | None:
    """Flag comments that look like prompt injection or abuse (the host is warned, nothing is blocked)."""
    if _INJECTION.search(ctx.comments):
        return "A comment in this request looks like a prompt-injection attempt."
    if _ABUSE.search(ctx.comments):
        return "A comment in this request is abusive; stay polite and factual."
    return None


@check("validate_tool_args", "tool")
def validate_tool_args(ctx: HookContext, params: dict[str, Any]) -> str | None:
    """Reject a tool call whose arguments do not match the tool's schema."""
    return ctx.tool_error


@check("require_reply_skill", "reply")
def require_reply_skill(ctx: HookContext, params: dict[str, Any]) -> str | None:
    """At least one reply skill must be loaded in this request before replying."""
    reply_keys = {s.key for s in ctx.harness.skills if s.kind == "reply"}
    if not reply_keys.intersection(ctx.loaded_skills):
        return "no reply skill has been loaded for this request"
    return None


@check("max_length", "reply")
def max_length(ctx: HookContext, params: dict[str, Any]) -> str | None:
    """The reply must be non-empty and at most `max_chars` (default: the harness limit) characters."""
    limit = int(params.get("max_chars", ctx.harness.prompt.limits.max_reply_chars))
    if not ctx.reply.strip():
        return "the reply is empty"
    if len(ctx.reply) > limit:
        return f"the reply has {len(ctx.reply)} characters, the limit is {limit}"
    return None


@check("plain_format", "reply")
def plain_format(ctx: HookContext, params: dict[str, Any]) -> str | None:
    """Chat replies are plain text: no code fences, headers, tables, markup tags or URLs."""
    for pattern, what in _FORMAT:
        if pattern.search(ctx.reply):
            return f"the reply contains {what}"
    return None


@check("forbidden_claims", "reply")
def forbidden_claims(ctx: HookContext, params: dict[str, Any]) -> str | None:
    """No efficacy, medical or absolute claims, and none of the forbidden words (unless negated)."""
    claims = extract_facts(ctx.reply).claims
    if claims:
        return f"it makes a forbidden claim ({claims[0]!r})"
    low = ctx.reply.lower()
    for word in params.get("words", []):
        w = str(word).lower()
        step = len(w) or 1  # the occurrences `re.finditer(re.escape(w), low)` finds: left to right, not overlapping
        at = low.find(w)
        while at != -1:
            if not _NEGATION.search(low[max(0, at - 40): at]):
                return f"it uses the forbidden word {word!r}"
            at = low.find(w, at + step) if at < len(low) else -1
    return None


_HANDLE = re.compile(r"^\[([^\]\n]{1,64})\]", re.MULTILINE)  # the name before each comment of `Request.text`


@check("no_unauthorised_promises", "reply")
def no_unauthorised_promises(ctx: HookContext, params: dict[str, Any]) -> str | None:
    """No personal discounts, refunds or gifts, and no coupon codes the strategy does not allow."""
    facts = extract_facts(ctx.reply)
    if facts.promises:
        return f"it promises something the host may not grant ({facts.promises[0]!r})"
    handles = {h.upper() for h in _HANDLE.findall(ctx.comments)}  # a viewer's name in capitals is not a code
    bad = [c for c in facts.coupon_codes if c.upper() not in ctx.valid_codes and c.upper() not in handles]
    if bad:
        return f"it names a coupon code that cannot be issued ({bad[0]})"
    return None


@check("notice", "request")
def notice(ctx: HookContext, params: dict[str, Any]) -> str | None:
    """Send an operator notice with every request (never blocks).

    `{tool:KEY}`, `{max_reply_chars}`, `{turn_cap}` and `{max_tool_calls}` resolve against the harness in
    force, so the notice never goes stale under renames, patches or perturbed limits.
    """
    message = ctx.harness.resolve_refs(str(params.get("message", "")).strip())
    for name, value in ctx.harness.prompt.limits.model_dump().items():
        message = message.replace("{" + name + "}", str(value))
    return message or None


def traceable(value: float, allowed: set[float] | frozenset[float]) -> bool:
    """A number is traceable if it is an allowed number or the sum/difference of two of them."""
    return _traceable(round(value, 6), _keys(allowed))


def _keys(allowed: set[float] | frozenset[float]) -> frozenset[float]:
    return frozenset(round(a, 6) for a in allowed)


def _traceable(v: float, keys: frozenset[float]) -> bool:
    """`traceable` with the value and the allowed numbers already rounded (the keys built once per reply)."""
    return v in keys or any(round(v - a, 6) in keys or round(a - v, 6) in keys for a in keys)


_HANDLE_RE = re.compile(r"^\[([^\]\n]{1,60})\]", re.MULTILINE)


@check("numbers_traceable", "reply")
def numbers_traceable(ctx: HookContext, params: dict[str, Any]) -> str | None:
    """Every number in the reply is traceable: a price only to what this request's tools looked up (never to
    what the agent wrote into a tool's arguments, nor to a link number or a figure in the comments); other
    numbers also to the comments or the prompt. Link references and viewer handles are not numbers.
    """
    reply = ctx.reply
    for name in _HANDLE_RE.findall(ctx.comments):
        if any(ch.isdigit() for ch in name):
            reply = replace_ignoring_case(reply, name, "viewer")
    reply = _LINK_RE.sub(" link ", reply)
    looked = set(ctx.tool_numbers)
    allowed = looked | set(numbers_in(ctx.comments)) | set(ctx.prompt_numbers)
    prices = set(prices_in(reply))
    keys: dict[bool, frozenset[float]] = {}  # price -> the rounded allowed numbers, built once per reply
    for n in numbers_in(reply):
        price = n in prices
        if price not in keys:
            keys[price] = _keys(looked if price else allowed)
        if not _traceable(round(n, 6), keys[price]):
            return f"the number {n:g} is not in any tool result of this request"
    return None


def run_hook(hook: Hook, ctx: HookContext) -> str | None:
    """Run one hook's check; returns the failure reason, or None if it passes."""
    return CHECKS[hook.check](ctx, hook.params)


def retry_message(hook: Hook, reason: str, attempt: int) -> str:
    """Render a hook's retry message (missing fields render empty rather than raising)."""
    fields = {"hook": hook.key, "reason": reason, "attempt": attempt, "limit": hook.retry_limit}
    try:
        return hook.retry_template.format_map(_Default(fields))
    except (ValueError, IndexError):
        return f"[{hook.key}] {reason}"


class _Default(dict):  # type: ignore[type-arg]
    def __missing__(self, key: str) -> str:
        return ""
