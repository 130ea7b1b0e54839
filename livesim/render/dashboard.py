"""The terminal dashboard's pure half (rich): dashboard state -> a pure `render` function (the `Live` loop is
`livesim.runs.live.play`).

The state is fed record lines (`livesim.stream.records`), from a running episode or from a file, so a live run and
a replayed record look the same; `state_from_sim` builds a snapshot for `env.render()`.
"""

from __future__ import annotations

import io
import textwrap
from collections import deque
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from rich.console import Console, Group, RenderableType
from rich.panel import Panel
from rich.table import Table
from rich.text import Text

from livesim.grading.terms import Grade, ToolCallRecord
from livesim.render.terminal import visible
from livesim.render.transcript import action_text
from livesim.stream.records import RecordEnd, RecordHeader, RecordLine, RoomView, StepRecord, room_view

CHAT_LINES = 8
HOST_LINES = 14
ROOM_LINES = 9
WIDTH = 100
SAID_CHARS = 240  # a turn's text in the host panel; `livesim view --transcript` shows all of it
TERM_ABBR = {"accuracy": "acc", "effectiveness": "eff", "tool_rationality": "tools", "skill_selection": "skill",
             "hook_compliance": "hooks", "latency": "lat", "brevity": "brev"}


def clock(seconds: float) -> str:
    s = int(seconds)
    return f"{s // 60:02d}:{s % 60:02d}"


@dataclass
class DashboardState:
    """Everything a frame shows; `apply` folds one record line into it."""

    title: str = "stream"
    agent: str = ""
    seed: int | None = None
    duration_s: float = 0.0
    clock_s: float = 0.0
    step: int = 0
    request_index: int | None = None
    chat: deque[str] = field(default_factory=lambda: deque(maxlen=CHAT_LINES))
    host: deque[str] = field(default_factory=lambda: deque(maxlen=HOST_LINES))
    harness_version: int = 1
    harness_fingerprint: str = ""
    last_patch: str | None = None
    room: RoomView | None = None
    metrics: dict[str, Any] = field(default_factory=dict)
    summary: dict[str, Any] | None = None
    viewers: list[str] = field(default_factory=list)
    calls: dict[str, int] = field(default_factory=dict)
    """Model calls so far by outcome (answered, retried, failed) and `unmeasured` requests: model-server agents."""

    def apply(self, line: RecordLine) -> DashboardState:
        if isinstance(line, RecordHeader):
            self.title, self.agent, self.seed = line.scenario or line.env_id, line.agent, line.seed
            self.duration_s = line.config.duration_s
            self.harness_version, self.harness_fingerprint = line.harness_version, line.harness_fingerprint
        elif isinstance(line, StepRecord):
            self.clock_s, self.step, self.request_index = line.clock_s, line.step + 1, line.request_index
            if line.request is not None:
                self.chat.extend(chat_lines(line.request_index, line.request.comments))
                self.viewers = list(dict.fromkeys(c.name for c in line.request.comments))
            said = None if line.dispatched and not line.fallback else action_text(line.action)
            if line.call is not None:
                self.calls[line.call.outcome] = self.calls.get(line.call.outcome, 0) + 1
                self.host.extend(call_lines(line.request_index, line.call))
            if line.unmeasured:
                self.calls["unmeasured"] = self.calls.get("unmeasured", 0) + 1
            self.host.extend(host_lines(line.request_index, line.tool_calls, line.hooks,
                                        line.reply if line.dispatched else None, line.fallback, line.reward,
                                        said=said, viewers=self.viewers, grade=line.grade))
            self.harness_version, self.harness_fingerprint = line.harness_version, line.harness_fingerprint
            self.last_patch = line.last_patch or self.last_patch
            self.room = line.room or self.room
            self.metrics = line.metrics or self.metrics
        elif isinstance(line, RecordEnd):
            self.summary = line.summary
        return self


def chat_lines(index: int, comments: Iterable[Any]) -> list[str]:
    """The comments of request `index`, tagged with it (the host's lines for that request carry the same tag)."""
    tag = f"#{index}".ljust(4)
    return [f"{tag}{clock(c.t)} {c.name}: {c.text}" for c in comments]


def call_lines(index: int, call: Any) -> list[str]:
    """A model call that did not simply answer: retried (how often, why) or failed (the cause)."""
    tag = f"#{index}".ljust(4)
    if call.outcome == "failed":
        return [f"{tag}MODEL   call failed after {call.attempts} attempt(s): {call.error}; request not measured"]
    if call.outcome == "retried":
        return [f"{tag}model   answered after {len(call.retries)} retries ({'; '.join(call.retries)})"]
    return []


def host_lines(index: int, calls: Iterable[Any], hooks: Iterable[str], reply: str | None, fallback: bool,
               reward: float, said: str | None = None, viewers: Iterable[str] = (),
               grade: Grade | None = None) -> list[str]:
    """The host's work on a request, one logical line each: what the model said when it was not a sent reply or
    only tool calls, skill loads, tool calls, hook blocks, the reply (whole, to the viewers it answers) and its
    weighted reward terms.
    """
    out, tag = [], f"#{index}".ljust(4)
    calls = list(calls)
    if said is not None and said.strip() and not calls:
        text = " ".join(said.split())
        out.append(f"{tag}said    {text[:SAID_CHARS]}{'…' if len(text) > SAID_CHARS else ''}")
    for c in calls:
        if c.key == "load_skill" and c.ok:
            out.append(f"{tag}skill   {c.arguments.get('name')}")
            continue
        call = f"{c.name}({', '.join(f'{k}={v!r}' for k, v in c.arguments.items())})"
        out.append(f"{tag}tool    {call}" if c.ok else f"{tag}FAILED  {call}: {c.error_kind}")
    out += [f"{tag}BLOCKED {h}" for h in hooks]
    if reply is not None:
        to = f" -> {', '.join(viewers)}" if viewers else ""
        if fallback:
            out.append(f"{tag}FALLBACK[{reward:.2f}]{to}: the harness's fallback reply went out")
        else:
            out.append(f"{tag}reply   [{reward:.2f}]{to}: {' '.join(reply.split())}")
        if grade is not None:
            out.append(f"{tag}terms   " + " ".join(f"{TERM_ABBR.get(k, k)} {v:.2f}" for k, v in grade.terms.items()))
    return out


def _wrapped(lines: Iterable[str], width: int, indent: int = 12) -> list[str]:
    """Logical lines wrapped to `width` columns, continuation rows indented under the text."""
    rows: list[str] = []
    for line in lines:
        rows += textwrap.wrap(visible(line), width=max(width, indent + 10), subsequent_indent=" " * indent,
                              break_long_words=True, break_on_hyphens=False) or [""]
    return rows


def _lines(lines: Iterable[str], height: int, newest: bool = True) -> Text:
    """Exactly `height` rows: the last ones (a feed) or, with `newest=False`, the first ones (a list)."""
    rows = [visible(line).replace("\n", " ") for line in lines]  # every string shown goes through `visible`
    rows = rows[-height:] if newest else rows[:height]
    rows += [""] * (height - len(rows))
    return Text("\n".join(rows), no_wrap=True, overflow="ellipsis")


def _room_lines(room: RoomView | None, height: int) -> Text:
    if room is None:
        return _lines(["(no room yet)"], height)
    rows = [f"pinned  link {room.pinned_link} {room.pinned_name}".rstrip()]
    rows += [f"flash   link {f['link']}: {f['price']:g} until {clock(f['end_s'])}, {f['quantity']} left"
             for f in room.flash_sales]
    rows += [f"coupon  {c['code']}: {c['discount']:g} off over {c['threshold']:g}"
             f"{' on links ' + ','.join(map(str, c['links'])) if c['links'] else ''}"
             f"{'' if c['issuable'] else ' (not issuable)'}" for c in room.coupons]
    rows += [f"bundle  {b['name']} at {b['price']:g}" for b in room.bundles]
    rows += [f"gift    {g['gift']} with link {g['link']}" for g in room.gifts]
    if len(rows) > height:
        rows = [*rows[:height - 1], f"(+{len(rows) - height + 1} more)"]
    return _lines(rows, height, newest=False)


def _metric_lines(m: dict[str, Any]) -> Text:
    def f(key: str, fmt: str = "{:.3f}") -> str:
        return fmt.format(m[key]) if key in m else "-"

    rows = [f"requests       {f('requests', '{}')}", f"mean reward    {f('mean_reward')}",
            f"accuracy       {f('accuracy')}", f"effectiveness  {f('effectiveness')}",
            f"GMV            {f('gmv', '{:.0f}')}   orders {f('orders', '{}')}",
            f"IPV            {f('ipv', '{}')}   lost {f('churned', '{}')}",
            f"viewers        {f('viewers_online', '{}')}",
            f"latency P50/95 {f('latency_p50', '{:.2f}')} / {f('latency_p95', '{:.2f}')} s"]
    return _lines(rows, 8)


def shown_clock(state: DashboardState) -> float:
    """The stream clock as the header shows it: the last reply may end after the stream does (the env lets the
    request in flight finish), but the clock stops at the stream's length.
    """
    return min(state.clock_s, state.duration_s) if state.duration_s > 0 else state.clock_s


def render(state: DashboardState, width: int = WIDTH) -> RenderableType:
    """One frame of the dashboard (a pure function of `state`) for a console `width` columns wide."""
    head = Text(no_wrap=True, overflow="ellipsis")
    head.append(visible(f"livesim · {state.title}"), style="bold")
    head.append(visible(f" · {state.agent or '-'}") + f" · seed {state.seed if state.seed is not None else '-'}"
                f" · t {clock(shown_clock(state))}/{clock(state.duration_s)} · step {state.step}"
                f" · request {state.request_index if state.request_index is not None else '-'}")
    if state.calls:
        c = state.calls
        head.append(f" · calls {sum(c.get(k, 0) for k in ('answered', 'retried', 'failed'))}"
                    f" ({c.get('retried', 0)} retried, {c.get('failed', 0)} failed)")
        if c.get("unmeasured"):
            head.append(f" · {c['unmeasured']} not measured", style="bold red")
    if state.summary is not None:
        head.append(" · done", style="bold green")
    harness = _lines([f"version {state.harness_version} · fingerprint {state.harness_fingerprint or '-'}",
                      "last patch:" + ("" if state.last_patch else " none"), f"  {state.last_patch or ''}"], 3)
    inner = width * 5 // 9 - 4  # the left column's share of the grid, less the panel's border and padding
    left = Group(Panel(_lines(_wrapped(state.chat, inner, indent=4), CHAT_LINES), title="chat", title_align="left"),
                 Panel(_lines(_wrapped(state.host, inner), HOST_LINES),
                       title="host: said, skills, tools, replies", title_align="left"))
    right = Group(Panel(harness, title="harness", title_align="left"),
                  Panel(_room_lines(state.room, ROOM_LINES), title="room & promotions", title_align="left"),
                  Panel(_metric_lines(state.metrics), title="metrics", title_align="left"))
    grid = Table.grid(expand=True)
    grid.add_column(ratio=5)
    grid.add_column(ratio=4)
    grid.add_row(left, right)
    return Group(head, grid)


def summary_rows(summary: dict[str, Any]) -> list[tuple[str, Any]]:
    """The (metric, value) rows of a run summary, as `eval` and `run` print them.

    Reward terms (weighted, they sum to the reward) and raw scores (0-1 per rubric) are separate sections;
    stream metrics (GMV, viewers lost) appear only for whole streams.
    """
    rows: list[tuple[str, Any]] = [("requests", summary["requests"]), ("mean reward", f"{summary['mean_reward']:.3f}"),
                                   ("pass rate (reward >= 0.99)", f"{summary.get('pass_rate', 0):.3f}")]
    rows.append(("reward terms (weighted, sum = reward)", ""))
    rows += [(f"  {k}", f"{v:.3f}") for k, v in summary.get("terms", {}).items()]
    # raw scores are before the gates: accuracy 1 (nothing false said) sits beside a low reward when the replies
    # answer nothing the viewer needed (effectiveness 0 zeroes every term; docs/grading.md, "Gates")
    rows.append(("raw scores (0-1), before the gates (effectiveness 0 or accuracy 0 zero every term)", ""))
    rows += [(f"  {k}", f"{v:.3f}") for k, v in summary["scores"].items()]
    business = summary.get("business")
    if business:
        rows.append(("stream", ""))
        rows += [("  GMV", f"{business.get('gmv', 0):.0f}"), ("  IPV", f"{business.get('ipv', 0):.0f}"),
                 ("  orders", f"{business.get('orders', 0):.0f}"),
                 ("  viewers lost", f"{business.get('churned', 0):.0f}")]
    rows.append(("behaviour", ""))
    rows += [("  latency P50 (s)", f"{summary['latency_p50']:.2f}"),
             ("  latency P95 (s)", f"{summary['latency_p95']:.2f}"),
             ("  turns per request", f"{summary.get('turns_mean', 0):.2f}")]
    if "tool_calls_per_request" in summary:
        rows.append(("  tool calls per request", f"{summary['tool_calls_per_request']:.2f}"))
    rows += [("  fallback rate", f"{summary.get('fallback_rate', 0):.3f}"),
             ("  parse failures per turn", f"{summary['parse_failure_rate']:.3f}"
                                           + (f" ({summary['parse_failures']} in all)" if "parse_failures" in summary
                                              else ""))]
    if "agent_errors" in summary:
        rows.append(("  agent errors", summary["agent_errors"]))
    if summary.get("unmeasured_requests"):
        rows.append(("  requests not measured (left out)", summary["unmeasured_requests"]))
    calls = summary.get("model_calls")
    if calls:
        rows.append(("model calls", ""))
        rows += [("  calls (retried / failed)", f"{calls['calls']} ({calls['retried_calls']} / {calls['failed']})"),
                 ("  HTTP requests (+ probes)", f"{calls['http_requests']} (+{calls['probe_requests']})"),
                 ("  retries / timeouts", f"{calls['retries']} / {calls['timeouts']}")]
    if summary.get("aborted"):
        rows.append(("stopped", summary["aborted"]))
    if "completion_tokens" in summary:
        rows.append(("model", ""))
        rows += [("  prompt tokens (prefilled)", f"{summary.get('prompt_tokens', 0)} "
                                                f"({summary.get('prefill_tokens', summary.get('prompt_tokens', 0))})"),
                 ("  completion tokens", summary["completion_tokens"]),
                 ("  completion tokens/s", f"{summary.get('tokens_per_s', 0):.1f}")]
    if "wall_s" in summary:
        rows += [("wall time (s)", f"{summary['wall_s']:.1f}"), ("requests/s", f"{summary['requests_per_s']:.3f}")]
    if "harness" in summary:
        rows.append(("harness", summary["harness"]))
    return rows


def summary_table(summary: dict[str, Any], title: str) -> RenderableType:
    """The end-of-run figures (the same rows as `livesim run`)."""
    table = Table(title=title)
    table.add_column("metric")
    table.add_column("value", justify="right")
    for k, v in summary_rows(summary):
        table.add_row(k, str(v))
    return table


def frame_text(state: DashboardState, width: int = WIDTH) -> str:
    """The frame as plain text (what `env.render()` returns in "ansi" mode)."""
    console = Console(file=io.StringIO(), width=width, color_system=None, force_terminal=False)
    console.print(render(state, width))
    return console.file.getvalue()  # type: ignore[attr-defined]


def example_state() -> DashboardState:
    """A fixed state (the golden frame of the tests and the docs)."""
    st = DashboardState(title="flash-sale-rush", agent="oracle", seed=7, duration_s=100.0, clock_s=47.25, step=23,
                        request_index=11, harness_version=2, harness_fingerprint="fc636bb7bced",
                        last_patch="t=45s: renamed tool get_price -> lookup_live_price",
                        room=RoomView(pinned_link=1, pinned_name="power bank", viewers_online=468,
                                      coupons=[{"code": "LIVE20", "discount": 20.0, "threshold": 199.0,
                                                "remaining": 97, "issuable": True, "links": []}],
                                      flash_sales=[{"link": 1, "price": 599.0, "start_s": 20.0, "end_s": 80.0,
                                                    "quantity": 31}],
                                      gifts=[{"link": 3, "gift": "a free tote bag", "threshold": 0.0}]),
                        metrics={"requests": 11, "mean_reward": 0.9545, "accuracy": 1.0, "effectiveness": 0.9545,
                                 "gmv": 1797.0, "ipv": 14, "orders": 3, "churned": 1, "viewers_online": 468,
                                 "latency_p50": 2.31, "latency_p95": 3.48})
    st.chat.extend(["#10 00:41 Jimmy: what's the flash price on link 1",
                    "#11 00:44 Jimmy: flash sale on link 1?? how much now",
                    "#11 00:45 Eric: the power bank in white available???",
                    "#11 00:46 phyllis19: how do I use the coupon, first time here"])
    calls = [ToolCallRecord(name="load_skill", key="load_skill", arguments={"name": n}, ok=True)
             for n in ("promotions-ordering", "product-facts")]
    calls += [ToolCallRecord(name="lookup_live_price", key="get_price", arguments={"link": 1}, ok=True),
              ToolCallRecord(name="check_stock", key="check_stock", arguments={"link": 1, "variant": "white"},
                             ok=False, error_kind="timeout")]
    st.host.extend(host_lines(10, [], [], "Link 1 is 599 yuan in the flash sale until 01:20.", False, 1.0,
                              viewers=["Jimmy"]))
    st.host.extend(host_lines(11, calls, [], None, False, 0.0))
    st.host.extend(host_lines(11, [], ["numbers_traceable: 42 is not in this request's tool results"], None, False,
                              0.0, said="Link 1 is 599 yuan, 42 left in white! Code LIVE20 takes 20 off over 199."))
    grade = Grade(reward=0.93, terms={"accuracy": 0.3, "effectiveness": 0.3, "tool_rationality": 0.08,
                                      "skill_selection": 0.1, "hook_compliance": 0.05, "latency": 0.05,
                                      "brevity": 0.05}, scores={})
    st.host.extend(host_lines(11, [], [], "Link 1 is 599 yuan now. White is out of stock for the moment. Use code "
                              "LIVE20 for 20 off over 199!", False, 0.93, viewers=["Jimmy", "Eric", "phyllis19"],
                              grade=grade))
    return st


def state_from_sim(sim: Any, title: str = "LiveStream-v0") -> DashboardState:
    """A snapshot of a running `StreamSim`: the current request, the host's work on it, room and metrics."""
    st = DashboardState(title=title, duration_s=sim.config.duration_s, clock_s=sim.room.clock_s,
                        harness_version=sim.harness.version, harness_fingerprint=sim.harness.fingerprint,
                        last_patch=sim.harness.last_patch, room=room_view(sim),
                        metrics=sim.metrics.summary(sim.room.viewers_online))
    if sim.request is not None:
        st.request_index, st.step = sim.request.index, sim.trace.turns
        st.chat.extend(chat_lines(sim.request.index, sim.request.comments))
        st.host.extend(host_lines(sim.request.index, sim.trace.tool_calls, sim.trace.hook_failures, None, False, 0.0))
    return st
