"""The system-prompt pipeline: ordered blocks rendered from the harness and the room in one of four styles.

Blocks: persona, rules, room_context, product_context, strategy, skill_index, tools, output_format. Styles:
Markdown headers, XML tags, one JSON object, or compact (short titles, terse lines, the room's blocks last, and
no Tools block: the schemas travel in the observation's `tools`, which every chat template renders, so listing
them again in the system prompt only doubles them). A token budget (`PromptSpec.token_budget`) switches a prompt that
would exceed it to the compact style. Limits (reply length, turn cap) are rendered from the harness, so the
prompt never states a number the harness does not hold.
"""

from __future__ import annotations

import json
from typing import Any

from livesim.grading.latency import count_tokens
from livesim.harness.core import Harness, terse_text
from livesim.world.catalog import Catalog
from livesim.world.room import Room

# Blocks whose content changes with the room (the clock, the links on sale, the active strategy). The compact
# style presents them after the others, in the harness's order within each group: every request under one
# harness then starts with the same tokens up to the room, and a prefix cache (the `transformers` agent's,
# vLLM's) prefills them once (static first, dynamic last). The other styles keep the harness's order as it is.
ROOM_BLOCKS = frozenset({"room_context", "product_context", "strategy"})

PROMPT_RENDER_VERSION = 2
"""Bumped whenever a rendered prompt changes for the same harness and room (2: compact puts the room last);
it enters the content keys of collected datasets, suite evaluations and dev-set evaluations (`livesim.hat`)."""

# Block titles of the compact style (HSA's prompt_titles and `PromptSpec.titles` still override them).
COMPACT_TITLES = {"persona": "Role", "rules": "Rules", "room_context": "Room", "product_context": "Links",
                  "strategy": "Strategy", "skill_index": "Skills", "tools": "Tools", "output_format": "Format"}


def _clock(t: float) -> str:
    return f"{int(t) // 60:02d}:{int(t) % 60:02d}"


def harness_blocks(harness: Harness) -> dict[str, Any]:
    """The blocks that depend on the harness alone (a stream computes them once per harness version)."""
    limits = harness.prompt.limits
    call = json.dumps({"name": "<tool name>", "arguments": {"<parameter>": "<value>"}})
    return {
        "rules": [harness.resolve_refs(r) for r in harness.prompt.rules],
        "skill_index": [f"{s.name}: {s.description}" for s in harness.skills if s.kind in ("reply", "distractor")]
        + [f"{s.name} (strategy, active when listed above): {s.description}" for s in harness.skills
           if s.kind == "strategy"],
        "tools": [f"{t.name}({', '.join(p.name for p in t.params)}): {t.description}" for t in harness.tools],
        "output_format": [
            f"To call tools, write one or more blocks <tool_call>{call}</tool_call>; you may call up to "
            f"{limits.max_tool_calls} tools in one turn.",
            "A message without tool calls is sent to the viewers as your reply.",
            f"Replies are plain chat text of at most {limits.max_reply_chars} characters.",
            f"You have at most {limits.turn_cap} turns per request.",
        ],
    }


def block_contents(harness: Harness, room: Room, catalog: Catalog,
                   static: dict[str, Any] | None = None) -> dict[str, Any]:
    """Each block's content as a string or a list of lines (style-independent). `static`: the harness's
    `harness_blocks`, if already computed for this harness.
    """
    by_role = {s.key: s for s in harness.skills}
    strategy = [f"{s.name}: {s.content}" for key in room.active_strategy_skills if (s := by_role.get(key))]
    fixed = static if static is not None else harness_blocks(harness)
    return {
        "persona": harness.prompt.persona + f" Tone: {room.tone}.",
        "rules": fixed["rules"],
        "room_context": [f"Stream time: {_clock(room.clock_s)}", f"Viewers online: {room.viewers_online}",
                         f"Pinned: link {room.pinned_link}"],
        "product_context": [f"link {p.link}: {p.name} ({p.category})" for p in catalog.products],
        "strategy": strategy or ["No special strategy right now."],
        "skill_index": fixed["skill_index"],
        "tools": fixed["tools"],
        "output_format": fixed["output_format"],
    }


def compact_contents(harness: Harness, room: Room, catalog: Catalog,
                     static: dict[str, Any] | None = None) -> dict[str, Any]:
    """The blocks in the compact style: the same facts, limits and names in fewer words."""
    limits = harness.prompt.limits
    full = block_contents(harness, room, catalog, static)
    call = json.dumps({"name": "<tool>", "arguments": {"<param>": "<value>"}})
    strategy_names = [s.name for s in harness.skills if s.kind == "strategy"]
    return {
        **full,
        "room_context": [f"time {_clock(room.clock_s)}, {room.viewers_online} viewers online, "
                         f"pinned link {room.pinned_link}"],
        "skill_index": [f"{s.name}: {terse_text(s.description)}" for s in harness.skills
                        if s.kind in ("reply", "distractor")]
        + ([f"strategy skills (active when listed above): {', '.join(strategy_names)}"] if strategy_names else []),
        "output_format": [
            f"Tool calls: <tool_call>{call}</tool_call>, up to {limits.max_tool_calls} per turn.",
            f"A message without tool calls is your reply: plain text, at most {limits.max_reply_chars} characters.",
            f"At most {limits.turn_cap} turns per request.",
        ],
    }


def is_compact(harness: Harness, room: Room, catalog: Catalog, static: dict[str, Any] | None = None) -> bool:
    """Whether the prompt is presented compact: the compact style, or a full prompt over the token budget."""
    spec = harness.prompt
    if spec.style == "compact":
        return True
    if spec.token_budget is None:
        return False
    full = _render(harness, room, catalog, False, static)
    return count_tokens(full) + count_tokens(json.dumps(harness.tool_schemas(terse=False))) > spec.token_budget


def render_prompt(harness: Harness, room: Room, catalog: Catalog, static: dict[str, Any] | None = None) -> str:
    """Render the system prompt in the harness's style and block order (`static`: see `block_contents`);
    compact when the style says so or the prompt would exceed the token budget.
    """
    return _render(harness, room, catalog, is_compact(harness, room, catalog, static), static)


def _render(harness: Harness, room: Room, catalog: Catalog, compact: bool, static: dict[str, Any] | None) -> str:
    spec = harness.prompt
    if compact:
        contents = compact_contents(harness, room, catalog, static)
        short = {b: spec.titles.get(b, COMPACT_TITLES[b]) for b in spec.blocks if b != "tools"}
        order = [b for b in spec.blocks if b not in ROOM_BLOCKS] + [b for b in spec.blocks if b in ROOM_BLOCKS]
        return "\n".join(f"# {short[b]}\n" + ("\n".join(f"- {x}" for x in c) if isinstance(c, list) else c)
                         for b in order if b in short and (c := contents[b]))
    contents = block_contents(harness, room, catalog, static)
    titles = {b: spec.titles.get(b, b.replace("_", " ").title()) for b in spec.blocks}
    if spec.style == "json":
        return json.dumps({titles[b]: contents[b] for b in spec.blocks}, indent=1, ensure_ascii=False)
    parts = []
    for b in spec.blocks:
        c = contents[b]
        body = "\n".join(f"- {line}" for line in c) if isinstance(c, list) else c
        if spec.style == "xml":
            tag = titles[b].lower().replace(" ", "_")
            parts.append(f"<{tag}>\n{body}\n</{tag}>")
        else:
            parts.append(f"## {titles[b]}\n{body}")
    return "\n\n".join(parts)
