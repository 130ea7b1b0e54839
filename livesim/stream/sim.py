"""The bare simulator: a stream of requests, the host's turns inside each request, grading and outcomes.

`StreamSim` knows nothing of Gymnasium; the envs in `livesim.envs` wrap it. One seed fixes the world
(catalogue, strategy, viewers), the comment stream and the viewers' reactions, each from its own generator,
so an agent's actions never change which comments a seed produces.

Length (~470 lines): one class whose methods share the request's state (trace, clock, harness); it is
kept whole while the in-flight branches that edit it merge. The next split is the tool-call and reply
checks (`_run_call`, `_check_reply`) into their own module.
"""

from __future__ import annotations

import functools
import json
import pickle
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
from faker import Faker

from livesim.grading.facts import extract_facts
from livesim.grading.latency import count_tokens
from livesim.grading.terms import WEIGHTS, Grade, ToolCallRecord, Trace, grade
from livesim.grading.world import looked_up
from livesim.harness.core import Harness
from livesim.harness.fastcopy import fresh
from livesim.harness.hooks import HookContext, retry_message, run_hook
from livesim.harness.patches import apply_patch
from livesim.harness.prompt import is_compact, render_prompt
from livesim.harness.shared import pickled_schemas, shared_blocks, shared_default_harness
from livesim.harness.tools import ToolContext, ToolError, run_tool, validate_args
from livesim.parsing import ParsedAction, parse_action, tool_calls_to_openai
from livesim.parsing.safety import finite_seconds, sanitize_action, unreadable_parse, with_error
from livesim.stream.config import Metrics, ScriptedComment, StreamConfig
from livesim.world.catalog import generate_catalog
from livesim.world.comments import Request, make_comment, merge
from livesim.world.draws import seeded_rng
from livesim.world.orders import book_order
from livesim.world.phrasing import INTENTS
from livesim.world.room import Room, generate_strategy
from livesim.world.v1 import BlockRNG, LazyViewers, generate_viewers_v1
from livesim.world.viewers import PrefixViewers, Viewer, react

HarnessTransform = Callable[[Harness, np.random.Generator], Harness]
# A fault injector sees (canonical tool key, rng) and returns None or a fault kind: timeout, malformed, denied.
FaultInjector = Callable[[str, np.random.Generator], "str | None"]


@dataclass(frozen=True)
class _Stub:
    """A comment that has arrived but not been drawn yet: time, viewer index, generator seed."""

    t: float
    viewer: int
    seed: tuple[int, ...]
    script: ScriptedComment | None = None


@dataclass
class StepResult:
    reward: float
    dispatched: bool
    grade: Grade | None
    done: bool
    info: dict[str, Any]


_FAKER: Faker | None = None


def _faker(seed: int) -> Faker:
    """The process's Faker, re-seeded: same seed, same draws, without paying Faker's construction each time."""
    global _FAKER
    if _FAKER is None:
        _FAKER = Faker("en_US")
    _FAKER.seed_instance(seed)
    return _FAKER


class StreamSim:
    """One live stream: world, harness, comment stream, and the host's conversation on the current request."""

    def __init__(self, seed: int, config: StreamConfig | None = None, harness: Harness | None = None, *,
                 augment: HarnessTransform | None = None, faults: FaultInjector | None = None,
                 world: int = 0) -> None:
        self.seed = int(seed)
        self.config = config or StreamConfig()
        world_rng: Any = np.random.default_rng(self._child_seed(0))
        if world == 1:  # LiveStream*-v1: the same generators, values from bulk draws (livesim.world.v1)
            world_rng = BlockRNG(world_rng)
        elif world != 0:
            raise ValueError(f"world must be 0 or 1, got {world!r}")
        self.world = world
        self.faker = _faker(self.seed)
        cfg = self.config
        self.catalog = (cfg.catalog.model_copy(deep=True) if cfg.catalog
                        else generate_catalog(world_rng, cfg.n_products, self.faker))
        self.strategy = list(cfg.strategy) if cfg.strategy is not None else generate_strategy(
            world_rng, self.catalog, cfg.duration_s)
        # v0: drawn in order from the world's generator as far as they are looked up (the generator is not used
        # after this line, so each viewer is the one generate_viewers would give); v1: each from its own generator
        self.viewers: Sequence[Viewer] = (PrefixViewers(world_rng, cfg.n_viewers) if world == 0
                                          else generate_viewers_v1(self.seed, cfg.n_viewers))
        self.room = Room(pinned_link=self.catalog.links[0])
        # The canonical harness is read-only here (copy-on-write: patches and HSA work on copies), so the
        # process's default is shared, not copied; a caller's harness is copied once, as it may change it.
        self._canonical_fp: str | None
        if harness is None:
            self.canonical, self._canonical_fp = shared_default_harness()
        else:
            self.canonical, self._canonical_fp = harness.clone(), None
        self.augment = augment
        self.faults = faults or (cfg.faults.injector() if cfg.faults else None)
        self.harness = self._present()
        self.tool_ctx = ToolContext(self.catalog, self.room)
        self.metrics = Metrics()
        self._events = sorted(self.strategy, key=lambda e: e.at_s)
        self._event_i = 0
        self._comment_k = 0
        self._next_arrival_t: float | None = None  # drawn when first needed (a LiveStreamQA request never needs it)
        self._pending: list[_Stub] = []
        self._formed = 0
        self._patches = sorted(cfg.patches, key=lambda p: p.at_s)
        self._patch_i = 0
        self._script = sorted(cfg.script, key=lambda c: c.at_s)
        self._script_i = 0
        if cfg.scripted_only:
            self._next_arrival = float("inf")
        self.request: Request | None = None
        self.messages: list[dict[str, Any]] = []
        self.trace = Trace()
        self._hook_attempts: dict[str, int] = {}
        self._prompt_tokens_seen = 0
        self._terse_tools = False
        self.done = False
        self.advance_to(0.0)

    # --- generators -----------------------------------------------------------------------------------
    # World, arrivals, outcomes, augmentation and faults draw from the five children of SeedSequence(seed)
    # (`SeedSequence(seed).spawn(5)[i]` is `SeedSequence(seed, spawn_key=(i,))`); each generator is built
    # when first used, so a request that never draws arrivals or faults does not pay for their generators.
    def _child_seed(self, i: int) -> np.random.SeedSequence:
        return np.random.SeedSequence(self.seed, spawn_key=(i,))

    @functools.cached_property
    def arrival_rng(self) -> np.random.Generator:
        return np.random.default_rng(self._child_seed(1))

    @functools.cached_property
    def outcome_rng(self) -> np.random.Generator:
        return np.random.default_rng(self._child_seed(2))

    @functools.cached_property
    def aug_rng(self) -> np.random.Generator:
        return np.random.default_rng(self._child_seed(3))

    @functools.cached_property
    def fault_rng(self) -> np.random.Generator:
        return np.random.default_rng(self._child_seed(4))

    @property
    def _next_arrival(self) -> float:
        """When the next generated comment arrives (the first gap is drawn on first use)."""
        t = self._next_arrival_t
        if t is None:
            t = self._next_arrival_t = float(self.arrival_rng.exponential(60.0 / self.config.comments_per_min))
        return t

    @_next_arrival.setter
    def _next_arrival(self, t: float) -> None:
        self._next_arrival_t = t

    # --- harness ------------------------------------------------------------------------------------
    def _present(self) -> Harness:
        """The presented harness, with its fingerprint and tool schemas computed once per harness version."""
        if self._canonical_fp is None:
            self._canonical_fp = self.canonical.fingerprint
        self.canonical_fingerprint = self._canonical_fp
        pool = getattr(self.augment, "pooled", None)
        if self.augment is None:
            presented = self.canonical  # shared: nothing edits a harness in place
            self.presented_fingerprint = self._canonical_fp
        else:
            # The same draws each time, so a patch changes the presented view only where it changed the canonical.
            self.aug_rng = np.random.default_rng(self._child_seed(3))
            if pool is not None:  # a finite pool of presented harnesses (HarnessPool): built once, shared
                presented, self.presented_fingerprint = pool(self.canonical, self._canonical_fp, self.aug_rng)
            else:
                presented = self.augment(self.canonical.clone(), self.aug_rng)
                self.presented_fingerprint = presented.fingerprint
        shared = pool is not None or presented is shared_default_harness()[0]
        self._schemas = pickled_schemas(presented, shared=shared)
        self._harness_blocks = shared_blocks(presented, shared)  # the prompt blocks of the harness alone
        return presented

    def set_harness(self, harness: Harness) -> None:
        """Replace the canonical harness (operator patch); the next request shows it. The sim keeps `harness`
        as it is (it is never edited in place here), so the caller must not edit it afterwards either.
        """
        self.canonical, self._canonical_fp = harness, None
        self.harness = self._present()

    # --- world clock ----------------------------------------------------------------------------------
    def _apply_patches(self, t: float) -> bool:
        """Apply the operator patches due by `t`; True if the harness changed."""
        changed = False
        while self._patch_i < len(self._patches) and self._patches[self._patch_i].at_s <= t:
            self.canonical = apply_patch(self.canonical, self._patches[self._patch_i])  # a new harness
            self._canonical_fp = None
            self._patch_i += 1
            changed = True
        if changed:
            self.harness = self._present()
        return changed

    def advance_to(self, t: float) -> None:
        while self._event_i < len(self._events) and self._events[self._event_i].at_s <= t:
            self.room.apply(self._events[self._event_i], self.catalog)
            self._event_i += 1
        self.room.clock_s = max(self.room.clock_s, t)
        viewers = self.viewers
        active = (viewers.active_count() if isinstance(viewers, (LazyViewers, PrefixViewers))
                  else sum(v.active for v in viewers))
        self.room.viewers_online = active * self.config.audience_per_viewer

    def _arrive(self, until: float) -> None:
        """Queue the comments that arrive up to `until`. Their text and ground truth are drawn when they
        become a request, from their own generator and the room as it is then, so truth and tools agree.
        """
        cfg = self.config
        while self._script_i < len(self._script) and self._script[self._script_i].at_s <= until:
            sc = self._script[self._script_i]
            viewer = sc.viewer if sc.viewer is not None else self._script_i % len(self.viewers)
            if viewer >= len(self.viewers):
                raise ValueError(f"scripted comment at {sc.at_s}s names viewer {viewer}, but there are "
                                 f"{len(self.viewers)} viewers")
            self._pending.append(_Stub(sc.at_s, viewer, (self.seed, 8, self._script_i), sc))
            self._script_i += 1
        while self._next_arrival <= until and self._next_arrival <= cfg.duration_s:
            t = self._next_arrival
            k = self._comment_k
            self._comment_k += 1
            rng = seeded_rng(self.seed, 7, k)
            burst = 1 + (int(rng.integers(1, cfg.max_merge)) if cfg.max_merge > 1 and rng.random() < cfg.burst_p
                         else 0)
            for j in range(burst):
                tj = t + j * float(rng.uniform(0.3, max(cfg.merge_window_s, 0.6) / burst))
                viewer = int(rng.integers(len(self.viewers)))
                if self.viewers[viewer].active:
                    self._pending.append(_Stub(tj, viewer, (self.seed, 7, k, j)))
            self._next_arrival = t + float(self.arrival_rng.exponential(60.0 / cfg.comments_per_min))

    def next_request(self) -> Request | None:
        """Form the next request from pending comments (waiting for the next arrival if none)."""
        cfg = self.config
        now = self.room.clock_s
        self._arrive(now)
        while True:
            while not self._pending:
                upcoming = min(self._next_arrival if self._next_arrival <= cfg.duration_s else float("inf"),
                               self._script[self._script_i].at_s if self._script_i < len(self._script)
                               else float("inf"))
                if upcoming == float("inf"):
                    return None
                now = max(now, upcoming)
                self._arrive(now)
            # comments that waited past their viewer's patience are lost, and so is the viewer
            keep = []
            for c in sorted(self._pending, key=lambda c: (c.t, c.viewer)):
                viewer = self.viewers[c.viewer]
                if now - c.t > viewer.patience_s:
                    self.metrics.ignored += 1
                    if viewer.active:
                        viewer.active = False
                        self.metrics.churned += 1
                elif viewer.active:
                    keep.append(c)
            self._pending = keep
            if keep:
                break
        first = keep[0]
        group = [c for c in keep if c.t <= first.t + cfg.merge_window_s][: cfg.max_merge]
        self._pending = [c for c in keep if c not in group]
        t = max(now, group[-1].t)
        self.advance_to(t)
        intents = cfg.intents
        comments = []
        self._apply_patches(t)
        for stub in group:
            rng = seeded_rng(*stub.seed)
            sc = stub.script
            if sc is not None:
                comments.append(make_comment(rng, self.viewers[stub.viewer], stub.t, self.catalog, self.room,
                                             intent=sc.intent, multi_p=0.0, noise=cfg.noise, links=sc.links,
                                             text=sc.text, strict=True))
                continue
            intent = intents[int(rng.integers(len(intents)))] if intents else None
            comments.append(make_comment(rng, self.viewers[stub.viewer], stub.t, self.catalog, self.room,
                                         intent=intent, multi_p=cfg.multi_intent_p, noise=cfg.noise))
        self._formed += 1
        return merge(self._formed - 1, comments, t)

    def _viewer(self, viewer_id: str) -> Viewer:
        return self.viewers[int(viewer_id[1:])]

    # --- the host's conversation on one request ---------------------------------------------------------
    def begin(self, request: Request) -> None:
        """Start a new conversation for `request`."""
        self.request = request
        self.trace = Trace()
        self._hook_attempts = {}
        self.tool_ctx.viewer = request.comments[0].name
        self.tool_ctx.viewers = [c.name for c in request.comments]
        self.tool_ctx.request_index = request.index
        self._tool_numbers: set[float] = set()
        system = render_prompt(self.harness, self.room, self.catalog, self._harness_blocks)
        self._terse_tools = is_compact(self.harness, self.room, self.catalog, self._harness_blocks)
        self.messages = [{"role": "system", "content": system}, {"role": "user", "content": request.text}]
        self._prompt_tokens_seen = 0
        for hook in self.harness.hooks:
            if hook.enabled and hook.event == "request":
                reason = run_hook(hook, HookContext(self.harness, comments=request.text))
                if reason:
                    self.messages.append({"role": "user", "content": retry_message(hook, reason, 1)})

    def observation(self) -> dict[str, Any]:
        """A fresh copy of the conversation and the presented tool schemas."""
        # the schemas change only with the harness: kept pickled, unpickled into new objects (3x faster than a copy)
        if self._terse_tools and self.harness.prompt.style != "compact":  # over the token budget: terse schemas
            return {"messages": fresh(self.messages), "tools": self.harness.tool_schemas(terse=True)}
        return {"messages": fresh(self.messages), "tools": pickle.loads(self._schemas)}

    def _new_prompt_tokens(self) -> int:
        total = sum(count_tokens(str(m.get("content") or "")) for m in self.messages)
        new = total - self._prompt_tokens_seen
        self._prompt_tokens_seen = total
        return max(new, 0)

    def _valid_codes(self) -> set[str]:
        if not self.room.permissions.issue_coupons:
            return set()
        return {c.code.upper() for c in self.room.active_coupons() if c.issuable}

    def _run_call(self, name: str, arguments: dict[str, Any]) -> tuple[ToolCallRecord, str]:
        """Run one presented tool call; returns its canonical record and the tool message content."""
        tool = self.harness.tool_by_name(name)
        if tool is None:
            names = [t.name for t in self.harness.tools]
            msg = f"error: there is no tool named {name!r}; available tools: {names}"
            return ToolCallRecord(name=name, key=None, arguments=arguments, ok=False, error_kind="unknown_tool",
                                  error=msg), msg
        args = self.harness.to_canonical_args(tool, arguments)
        unknown = self.harness.unknown_args(tool, arguments)  # canonical names count once they are renamed
        if tool.key == "load_skill":
            skill = self.harness.skill_by_name(str(args.get("name", "")))
            if skill is None or unknown:
                names = [s.name for s in self.harness.skills]
                msg = (f"error: {self.harness.unknown_args_message(tool, unknown)}" if unknown
                       else f"error: no skill named {args.get('name')!r}; skills: {names}")
                return ToolCallRecord(name=name, key=tool.key, arguments=args, ok=False, error_kind="not_found",
                                      error=msg), msg
            if skill.key not in self.trace.loaded_skills:
                self.trace.loaded_skills.append(skill.key)
            return (ToolCallRecord(name=name, key=tool.key, arguments=args, ok=True, result=skill.name),
                    f"# {skill.name}\n{skill.content}")
        try:
            if unknown:
                raise ToolError("invalid_args", self.harness.unknown_args_message(tool, unknown))
            validate_args(tool.key, args)
        except ToolError as e:
            reason = self.harness.present_message(tool, e.message)
            hook = next((h for h in self.harness.hooks if h.enabled and h.check == "validate_tool_args"), None)
            if hook is not None:
                n = self._hook_attempts.get(hook.key, 0) + 1
                self._hook_attempts[hook.key] = n
                msg = retry_message(hook, run_hook(hook, HookContext(self.harness, tool_error=reason)) or reason, n)
            else:
                msg = f"error: {reason}"
            return ToolCallRecord(name=name, key=tool.key, arguments=args, ok=False, error_kind="invalid_args",
                                  error=reason), msg
        fault = self.faults(tool.key, self.fault_rng) if self.faults else None
        if fault == "timeout":
            msg = f"error: {name} timed out; try again"
            return ToolCallRecord(name=name, key=tool.key, arguments=args, ok=False, error_kind="fault_timeout",
                                  error=msg), msg
        if fault == "denied":
            msg = f"error: permission denied for {name}"
            return ToolCallRecord(name=name, key=tool.key, arguments=args, ok=False, error_kind="fault_denied",
                                  error=msg), msg
        try:
            result = run_tool(tool.key, self.tool_ctx, args)
        except ToolError as e:
            msg = f"error ({e.kind}): {self.harness.present_message(tool, e.message)}"
            return ToolCallRecord(name=name, key=tool.key, arguments=args, ok=False, error_kind=e.kind,
                                  error=e.message), msg
        content = json.dumps(result, ensure_ascii=False, sort_keys=False)
        if fault == "malformed":
            content = content[: max(1, len(content) // 2)] + "\u0000<truncated>"
            return ToolCallRecord(name=name, key=tool.key, arguments=args, ok=False, error_kind="fault_malformed",
                                  error="malformed output"), content
        return ToolCallRecord(name=name, key=tool.key, arguments=args, ok=True, result=result), content

    def step(self, action: Any) -> StepResult:
        """Apply one assistant output to the current request."""
        assert self.request is not None, "call begin() first"
        safe = sanitize_action(action)  # the boundary: from here on the action is bounded JSON data
        action = safe.action
        self.trace.turns += 1
        parsed: ParsedAction = (parse_action(action, known_tools=[t.name for t in self.harness.tools])
                                if safe.error is None else unreadable_parse(safe.error))
        limits = self.harness.prompt.limits
        out_text = action if isinstance(action, str) else json.dumps(action) if action else ""
        measured = None
        if isinstance(action, dict) and "latency_s" in action and self.config.latency.mode == "measured":
            measured = finite_seconds(action["latency_s"])
            if measured is None:
                parsed = with_error(parsed, "bad_latency", "latency_s must be a finite number of seconds >= 0 "
                                    f"(at most 1e6), got {str(action['latency_s'])[:40]}")
        assistant: dict[str, Any] = {"role": "assistant", "content": parsed.text}
        if parsed.tool_calls:
            assistant["tool_calls"] = tool_calls_to_openai(parsed.tool_calls)
        new_tokens = self._new_prompt_tokens()
        self.messages.append(assistant)
        keys: list[str] = []
        dispatched = False
        if parsed.tool_calls:
            for i, call in enumerate(parsed.tool_calls):
                if i >= limits.max_tool_calls:
                    rec = ToolCallRecord(name=call.name, key=None, arguments=call.arguments, ok=False,
                                         error_kind="too_many_calls", error="tool-call limit for one turn")
                    content = f"error: at most {limits.max_tool_calls} tool calls per turn; this one was not run"
                else:
                    rec, content = self._run_call(call.name, call.arguments)
                self.trace.tool_calls.append(rec)
                if rec.key:
                    keys.append(rec.key)
                if rec.ok and rec.key != "load_skill":  # what the tool looked up, not what the agent wrote in
                    self._tool_numbers.update(looked_up([rec])[0])
                self.messages.append({"role": "tool", "tool_call_id": call.id, "name": call.name, "content": content})
        if parsed.errors:
            self.trace.parse_errors += len(parsed.errors)
            self.messages.append({"role": "user", "content": "[parser] " + " ".join(
                e.message for e in parsed.errors[:3])})
        elif not parsed.tool_calls:
            dispatched = self._check_reply(parsed.text)
        self.trace.latency_s += self.config.latency.turn(new_tokens, count_tokens(out_text), keys)
        if measured is not None:  # measured mode: the agent's own seconds replace the modelled decode time
            self.trace.latency_s += measured - self.config.latency.turn(0, count_tokens(out_text), [])
        if not dispatched and self.trace.turns >= limits.turn_cap:
            self.trace.fallback = True
            dispatched = True
        if not dispatched:
            return StepResult(0.0, False, None, False, self.info(None))
        return self._dispatch()

    def _check_reply(self, text: str) -> bool:
        """Run the before-reply hooks; True when the reply (or the fallback) is dispatched."""
        self.trace.reply = text
        ctx = HookContext(self.harness, comments=self.request.text if self.request else "", reply=text,
                          loaded_skills=list(self.trace.loaded_skills), tool_numbers=set(self._tool_numbers),
                          prompt_numbers={float(x) for x in self.catalog.links}, valid_codes=self._valid_codes())
        for hook in self.harness.hooks:
            if not hook.enabled or hook.event != "reply":
                continue
            reason = run_hook(hook, ctx)
            if reason is None:
                continue
            n = self._hook_attempts.get(hook.key, 0) + 1
            self._hook_attempts[hook.key] = n
            self.trace.hook_failures.append(f"{hook.key}: {reason}")
            if n > hook.retry_limit:
                self.trace.fallback = True
                return True
            self.messages.append({"role": "user", "content": retry_message(hook, reason, n)})
            return False
        return True

    def _dispatch(self) -> StepResult:
        req = self.request
        assert req is not None
        lat = self.config.latency
        reply_roles = {s.key: s.role for s in self.harness.skills if s.kind == "reply"}
        g = grade(req, self.trace, self.catalog, self.room, valid_codes=self._valid_codes(),
                  latency_score=lat.score(self.trace.latency_s), harness_reply_roles=reply_roles,
                  max_reply_chars=self.harness.prompt.limits.max_reply_chars)
        self._react(req, g)
        m = self.metrics
        m.requests += 1
        m.reward_sum += g.reward
        m.accuracy_sum += g.scores["accuracy"]
        m.effectiveness_sum += g.scores["effectiveness"]
        m.latencies.append(self.trace.latency_s)
        self.room.clock_s += self.trace.latency_s
        info = self.info(g)
        if self.trace.fallback:
            self.messages.append({"role": "assistant", "content": self.harness.fallback_reply})
        return StepResult(g.reward, True, g, False, info)

    def _react(self, req: Request, g: Grade) -> None:
        facts = extract_facts(self.trace.reply if not self.trace.fallback else "")
        promo = bool(facts.coupon_codes) or any(self.room.flash_sale(t) for t in req.truth.targets)
        product_intent = bool(req.truth.targets)
        price = self.room.current_price(self.catalog, req.truth.targets[0]) if product_intent else None
        for c in req.comments:
            viewer = self._viewer(c.viewer_id)
            r = react(self.outcome_rng, viewer, accuracy=g.scores["accuracy"],
                      effectiveness=g.scores["effectiveness"], latency_s=self.trace.latency_s,
                      budget_s=self.config.latency.budget_s, price=price, promo_mentioned=promo,
                      product_intent=product_intent)
            viewer.satisfaction = r.satisfaction
            self.metrics.ipv += int(r.clicked)
            # an order takes stock; nothing is booked on a sold-out product (the draw is made either way)
            paid = book_order(self.catalog, self.room, req.truth.targets[0]) if r.purchased else None
            self.metrics.orders += int(paid is not None)
            self.metrics.gmv += paid or 0.0
            if r.churned and viewer.active:
                viewer.active = False
                self.metrics.churned += 1

    def info(self, g: Grade | None) -> dict[str, Any]:
        req = self.request
        info: dict[str, Any] = {
            "dispatched": g is not None,
            "turn": self.trace.turns,
            "harness_fingerprint": self.presented_fingerprint,
            "harness_version": self.harness.version,
            "harness_canonical_fingerprint": self.canonical_fingerprint,
            "harness_last_patch": self.harness.last_patch,
            "request_index": req.index if req else None,
            "sim_seed": self.seed,
            "reward_terms": dict(g.terms) if g else {k: 0.0 for k in WEIGHTS},
        }
        if g is not None and req is not None:
            info.update({
                "request": {"index": req.index, "t": req.t, "text": req.text, "viewers": req.viewer_ids},
                "truth": req.truth.model_dump(mode="json"),
                "grade": g.model_dump(mode="json"),
                "trace": self.trace.model_dump(mode="json"),
                "metrics": self.metrics.summary(self.room.viewers_online),
            })
        return info


def qa_request(sim: StreamSim, rng: np.random.Generator, intent: str | None = None) -> Request:
    """One request at a random moment of the stream (LiveStreamQA-v0); intents uniform unless given."""
    t = float(rng.uniform(0, sim.config.duration_s))
    sim.advance_to(t)
    intent = intent or INTENTS[int(rng.integers(len(INTENTS)))]
    viewer = sim.viewers[int(rng.integers(len(sim.viewers)))]
    comments = [make_comment(rng, viewer, t, sim.catalog, sim.room, intent=intent,
                             multi_p=sim.config.multi_intent_p, noise=sim.config.noise)]
    if rng.random() < sim.config.burst_p:
        other = sim.viewers[int(rng.integers(len(sim.viewers)))]
        comments.append(make_comment(rng, other, t + 1.0, sim.catalog, sim.room, multi_p=0.0, noise=sim.config.noise))
    return merge(0, comments, t + (1.0 if len(comments) > 1 else 0.0))
