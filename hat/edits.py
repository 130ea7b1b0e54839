"""Operator harness edits for the harness-edit test: the versioned patch set `EDITS_V1` and how to apply it.

Each patch names the failure mode it targets. The set was written by hand against failure modes the grader
names (missing link or unit, vague tool names, numbers not looked up); it was not derived automatically from a
dev-set run of one particular model. `append` adds rule lines to a skill (a `rewrite_skill` of its content).
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any

import yaml
from pydantic import TypeAdapter

from livesim.harness import Harness, default_harness
from livesim.harness.patches import HarnessPatch, apply_patch
from livesim.stream.harness_file import MAX_HARNESS_BYTES
from livesim.stream.paths import PathProblem, read_text, shown
from livesim.stream.yaml_safe import compose_bounded

EDITS_VERSION = 1
EDITS_V1: tuple[dict[str, Any], ...] = (
    {"targets": "price answers without the link", "op": "rewrite_skill", "name": "product-facts",
     "append": "- Always name the link number in the reply, e.g. 'link 3'."},
    {"targets": "coupon codes misquoted", "op": "rewrite_skill", "name": "promotions-ordering",
     "append": "- Call {tool:list_promotions} first and quote coupon codes exactly as listed."},
    {"targets": "a vague tool name (price vs product sheet)", "op": "rename_tool", "name": "get_price",
     "new_name": "get_live_price"},
    {"targets": "a vague tool name (stock vs product)", "op": "rename_tool", "name": "check_stock",
     "new_name": "check_variant_stock"},
    {"targets": "numbers quoted from memory", "op": "add_hook", "hook": {
        "key": "ops-lookup-notice", "check": "notice", "event": "request", "retry_template": "", "retry_limit": 0,
        "params": {"message": "Operator: look every number up with a tool; replies under {max_reply_chars} "
                              "characters, with the link number."}}},
)


def load_patches(path: str | Path | None) -> list[dict[str, Any]]:
    if path is None:
        return [dict(p) for p in EDITS_V1]
    try:
        _, data = compose_bounded(read_text(path, MAX_HARNESS_BYTES))
    except FileNotFoundError:
        raise FileNotFoundError(f"--patches: no such file '{shown(path)}'") from None
    except PathProblem as e:
        raise ValueError(f"--patches {shown(path)}: {e}") from None
    except yaml.YAMLError as e:
        raise ValueError(f"--patches {shown(path)}: not valid YAML ({str(e).splitlines()[0][:160]})") from None
    if not isinstance(data, list) or not all(isinstance(x, dict) for x in data):
        raise ValueError(f"--patches: {shown(path)} must hold a YAML list of patches (op: ..., name: ...)")
    return data


def edited_harness(patches: list[dict[str, Any]]) -> Harness:
    """The canonical harness with the patches applied in order (`append` adds rule lines to a skill)."""
    h = default_harness()
    adapter: TypeAdapter[Any] = TypeAdapter(HarnessPatch)
    for raw in patches:
        raw = {k: v for k, v in raw.items() if k != "targets"}
        if "append" in raw:
            skill = h.skill_by_name(raw["name"])
            if skill is None:
                raise ValueError(f"patch {raw}: no skill named {raw['name']!r}")
            raw = {**{k: v for k, v in raw.items() if k != "append"},
                   "content": skill.content.rstrip() + "\n" + raw["append"]}
        h = apply_patch(h, adapter.validate_python(raw))
    return h


def patches_key(patches: list[dict[str, Any]]) -> str:
    return hashlib.sha256(json.dumps(patches, sort_keys=True).encode()).hexdigest()[:16]
