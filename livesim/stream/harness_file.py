"""Harness files: a harness of one's own in YAML or JSON, validated like scenarios (errors name line and field).

It sits in `livesim.stream` beside the scenario format, whose YAML loader and error types it shares.

A file holds either a whole harness (what `livesim harness show --format json` prints, with or without its
`{"harness": ...}` wrapper) or only the parts that differ from the canonical harness: every top-level field
is optional; a missing one is the canonical one, `prompt` is merged field by field, and a given `skills`,
`tools` or `hooks` list is merged with the canonical list by `key` (an item with a canonical key changes only
the fields it gives, a new key adds an item, canonical items not named are kept) unless `replace: true` (or
`replace: [tools, ...]`) says the given lists are the whole lists. Fields (see docs/harness-files.md):

- `skills`: list of {key, role, kind (reply|strategy|distractor), name, description, content}
- `tools`: list of {key (an implementation: load_skill or a key of livesim.tools.TOOL_IMPLS), name,
  description, params: [{key (the implementation's parameter), name, description, default?}]}
- `hooks`: list of {key, check (a name in livesim.hooks.CHECKS), event (request|tool|reply), params,
  retry_template, retry_limit, enabled}
- `prompt`: {style (markdown|xml|json|compact), blocks, titles, persona, rules, limits {max_reply_chars,
  turn_cap, max_tool_calls}, token_budget}
- `fallback_reply`: the reply sent when hook retries or the turn cap run out

No code is loaded from a harness file: checks come from the hook registry, tools from the implementations.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from livesim.harness.core import STYLES, Harness, default_harness
from livesim.harness.hooks import CHECKS
from livesim.harness.skills import REPLY_SKILLS
from livesim.harness.tools import TOOL_IMPLS
from livesim.stream.paths import shown
from livesim.stream.scenario import (
    MAX_SCENARIO_BYTES,
    DataFileError,
    Problem,
    field_path,
    locate,
    parse_yaml,
    pydantic_problems,
)
from livesim.stream.yaml_safe import FileProblem, read_text_file

MAX_HARNESS_BYTES = MAX_SCENARIO_BYTES
"""Largest harness or patch file read: a scenario's limit, 1 MiB (the canonical harness as JSON is about 14 KB)."""

TOP_LEVEL = ("version", "skills", "tools", "hooks", "prompt", "fallback_reply", "last_patch", "replace")
LISTS = ("skills", "tools", "hooks")
NAME_RE = re.compile(r"^[A-Za-z0-9_-]{1,64}$")  # what OpenAI-style function calling accepts for tool names


class HarnessFileError(DataFileError):
    kind = "harness file"


def parse_harness(text: str, source: str = "<string>") -> Harness:
    """Validate a harness file's text; raise `HarnessFileError` naming the line and field of each problem."""
    data, node = parse_yaml(text, source, HarnessFileError)  # JSON is YAML: one parser, line numbers for both
    prefix: tuple[str | int, ...] = ()
    if isinstance(data, dict) and isinstance(data.get("harness"), dict):
        data, prefix = data["harness"], ("harness",)
    if not isinstance(data, dict):
        raise HarnessFileError(source, [Problem("", 1, f"expected a mapping of harness fields, got "
                                                      f"{type(data).__name__}")])
    unknown = [k for k in data if k not in TOP_LEVEL]
    if unknown:
        raise HarnessFileError(source, [Problem(str(k), locate(node, (*prefix, k))[1],
                                                f"unknown field; expected one of {list(TOP_LEVEL)}")
                                        for k in unknown])
    replace = data.pop("replace", False)
    if replace is True or replace is False:
        replaced = set(LISTS) if replace else set()
    elif isinstance(replace, list) and all(x in LISTS for x in replace):
        replaced = set(replace)
    else:
        raise HarnessFileError(source, [Problem("replace", locate(node, (*prefix, "replace"))[1],
                                                f"expected true, false or a list of {list(LISTS)}, got {replace!r}")])
    key_problems = [Problem(field_path(path), locate(node, (*prefix, *path))[1], msg)
                    for kind in LISTS for path, msg in _key_problems(data.get(kind), (kind,))]
    if key_problems:  # before merging by key: a key that is not a string or is given twice has no one item
        raise HarnessFileError(source, key_problems)
    base = default_harness().model_dump(mode="json")
    merged = {**base, **data}
    if isinstance(data.get("prompt"), dict):
        merged["prompt"] = {**base["prompt"], **data["prompt"]}
    for kind in LISTS:
        if kind not in replaced and isinstance(data.get(kind), list):
            merged[kind] = merge_by_key(base[kind], data[kind])
    def in_file(path: tuple[Any, ...]) -> tuple[Any, ...]:
        """A merged item's path as the file's path (the file holds only the items it changes, matched by key)."""
        if not path or path[0] not in LISTS or path[0] not in data:
            return path
        out: list[Any] = [path[0]]
        got: Any = merged[path[0]]
        mine: Any = data[path[0]]
        rest = list(path[1:])
        while rest and isinstance(rest[0], int) and isinstance(got, list) and isinstance(mine, list):
            i = rest.pop(0)
            item = got[i] if i < len(got) else None
            key = item.get("key") if isinstance(item, dict) else None
            found = [j for j, x in enumerate(mine) if isinstance(x, dict) and x.get("key") == key and key is not None]
            if not found:
                return tuple(out)  # a canonical item the file does not name: point at the list
            out.append(found[0])
            got, mine = item, mine[found[0]]
            if rest and rest[0] == "params" and isinstance(got, dict) and isinstance(mine, dict):
                out.append(rest.pop(0))
                got, mine = got.get("params"), mine.get("params")
            else:
                break
        return (*out, *rest)

    try:
        harness = Harness.model_validate(merged)
    except ValidationError as e:
        problems = pydantic_problems(e, None)
        for i, x in enumerate(e.errors()):
            path, line = locate(node, (*prefix, *in_file(tuple(x["loc"]))))
            problems[i] = Problem(field_path(path), line, problems[i].message)
        raise HarnessFileError(source, problems) from None
    problems = [Problem(field_path(in_file(path)), locate(node, (*prefix, *in_file(path)))[1], msg)
                for path, msg in semantic_problems(harness)]
    if problems:
        raise HarnessFileError(source, problems)
    return harness


def _key_problems(items: Any, path: tuple[str | int, ...]) -> list[tuple[tuple[str | int, ...], str]]:
    """Items of a harness list (and a tool's `params`) whose `key` is not a string, or names an item twice."""
    if not isinstance(items, list):
        return []
    out: list[tuple[tuple[str | int, ...], str]] = []
    seen: dict[str, int] = {}
    for i, x in enumerate(items):
        if not isinstance(x, dict):
            continue
        key = x.get("key")
        if key is not None and not isinstance(key, str):
            out.append(((*path, i, "key"), f"expected a string key, got {type(key).__name__}"))
        elif isinstance(key, str) and key in seen:
            out.append(((*path, i, "key"), f"duplicate key '{shown(key)}': item {seen[key]} has it too; give each "
                                           "key once"))
        elif isinstance(key, str):
            seen[key] = i
        out += _key_problems(x.get("params"), (*path, i, "params"))
    return out


def merge_by_key(canonical: list[dict[str, Any]], given: list[Any]) -> list[Any]:
    """`given` items merged into the `canonical` ones by `key`, field by field (a tool's `params` by their `key`
    too); canonical items not given are kept in their place, new keys come after them in the file's order. A list
    that names every canonical key keeps the file's order (a whole list, as `harness show` prints it).
    """
    by_key = {x.get("key"): x for x in given if isinstance(x, dict) and x.get("key") is not None}

    def merged(base: dict[str, Any], item: dict[str, Any]) -> dict[str, Any]:
        out = {**base, **item}
        if isinstance(base.get("params"), list) and isinstance(item.get("params"), list):
            out["params"] = merge_by_key(base["params"], item["params"])
        return out

    base_by_key = {x["key"]: x for x in canonical}
    if set(base_by_key) <= set(by_key):
        return [merged(base_by_key[x["key"]], x) if isinstance(x, dict) and x.get("key") in base_by_key else x
                for x in given]
    out: list[Any] = [merged(x, by_key[x["key"]]) if x["key"] in by_key else x for x in canonical]
    return out + [x for x in given if not (isinstance(x, dict) and x.get("key") in base_by_key)]


def semantic_problems(h: Harness) -> list[tuple[tuple[str | int, ...], str]]:
    """What a harness must hold beyond its field types: known implementations, checks and unique names."""
    out: list[tuple[tuple[str | int, ...], str]] = []
    for kind, items in (("skills", h.skills), ("tools", h.tools), ("hooks", h.hooks)):
        for field in ("name", "key") if kind != "hooks" else ("key",):
            seen: set[str] = set()
            for i, x in enumerate(items):
                value = getattr(x, field)
                if value in seen:
                    out.append(((kind, i, field), f"duplicate {field} {value!r}"))
                seen.add(value)
    if not any(s.kind == "reply" for s in h.skills):
        out.append((("skills",), "expected at least one skill of kind 'reply'"))
    for i, s in enumerate(h.skills):
        if s.kind == "reply" and s.role not in REPLY_SKILLS:
            out.append((("skills", i, "role"), f"unknown reply role {s.role!r}; expected one of "
                                               f"{sorted(REPLY_SKILLS)}"))
    for i, t in enumerate(h.tools):
        for path, name in (((), t.name), *((("params", j), p.name) for j, p in enumerate(t.params))):
            if not NAME_RE.match(name):
                out.append((("tools", i, *path, "name"), f"{name!r} is not a usable tool or parameter name: "
                                                          "1-64 letters, digits, '_' or '-'"))
        if t.key == "load_skill":
            params = ["name"]
        elif t.key in TOOL_IMPLS:
            params = list(TOOL_IMPLS[t.key].params)
        else:
            out.append((("tools", i, "key"), f"unknown tool implementation {t.key!r}; expected load_skill or one "
                                             f"of {sorted(TOOL_IMPLS)}"))
            continue
        for j, p in enumerate(t.params):
            if p.key not in params:
                out.append((("tools", i, "params", j, "key"), f"{t.key} has no parameter {p.key!r}; it takes "
                                                              f"{params}"))
    for i, hk in enumerate(h.hooks):
        if hk.check not in CHECKS:
            out.append((("hooks", i, "check"), f"unknown check {hk.check!r}; expected one of {sorted(CHECKS)}"))
    return out


def load_harness_file(path: str | Path) -> Harness:
    """Read and validate a harness file (YAML or JSON)."""
    try:
        text = read_text_file(path, MAX_HARNESS_BYTES)
    except FileNotFoundError:
        raise HarnessFileError(str(path), [Problem("", None, "no such file")]) from None
    except FileProblem as e:
        raise HarnessFileError(str(path), [Problem("", None, str(e))]) from None
    return parse_harness(text, str(path))


def dump_harness(h: Harness) -> str:
    """A harness as the JSON a harness file may hold (`parse_harness(dump_harness(h)) == h`)."""
    return json.dumps(h.model_dump(mode="json", exclude_none=True), indent=1, ensure_ascii=False)


def harness_with_style(h: Harness | None, style: str | None) -> Harness | None:
    """`h` (or the canonical harness) presented in `style`; `h` itself when `style` is None or "full" (as the
    harness says). Any other style must be one of `STYLES` (ValueError otherwise).
    """
    if style is None or style == "full":
        return h
    if style not in STYLES:
        raise ValueError(f"prompt_style must be 'full' or one of {list(STYLES)}, got {style!r}")
    out = (h or default_harness()).model_copy(deep=True)
    out.prompt.style = style  # type: ignore[assignment]
    return out


def as_data(h: Harness) -> dict[str, Any]:
    return h.model_dump(mode="json", exclude_none=True)
