"""The system-prompt pipeline: ordered blocks rendered from the harness and the room in one of three styles.

Blocks: persona, rules, room_context, product_context, strategy, skill_index, tools, output_format. Styles:
Markdown headers, XML tags, or one JSON object. Limits (reply length, turn cap) are rendered from the
harness, so the prompt never states a number the harness does not hold.
"""

from __future__ import annotations

import json
from typing import Any

from livesim.harness.core import Harness
from livesim.world.catalog import Catalog
from livesim.world.room import Room


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


def render_prompt(harness: Harness, room: Room, catalog: Catalog, static: dict[str, Any] | None = None) -> str:
    """Render the system prompt in the harness's style and block order (`static`: see `block_contents`)."""
    spec = harness.prompt
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
