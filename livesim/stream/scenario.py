"""Scenario files: YAML, validated by pydantic, refused with file, field and line before anything runs.

A `Scenario` fixes a catalogue (inline or generated), viewer traffic (a timed script and/or generator
parameters), the strategy timeline, harness patches, faults, duration and seed; `to_config()` turns it into a
`StreamConfig`. `load_scenario` takes a bundled name (`flash-sale-rush`) or a path. See docs/scenarios.md.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml
from pydantic import BaseModel, ConfigDict, Field, ValidationError, create_model, model_validator

from livesim.grading.latency import LatencyModel
from livesim.harness.core import default_harness
from livesim.harness.faults import FaultConfig, FaultInjector
from livesim.harness.patches import HarnessPatch, PatchError, apply_patch
from livesim.harness.tools import TOOL_IMPLS
from livesim.stream.config import MAX_COMMENTS, MAX_SCRIPT, ScriptedComment, StreamConfig, expected_comments
from livesim.stream.paths import shown
from livesim.stream.yaml_safe import FileProblem, compose_bounded, lone_surrogate, non_finite, read_text_file
from livesim.world.catalog import ASPECT_KEYS, CATEGORY_ASPECTS, Catalog, Product
from livesim.world.phrasing import INTENTS
from livesim.world.room import Bundle, Coupon, Gift, Permissions, StrategyEvent

# Bundled scenarios live in the repository's scenarios/ folder (found from this file in a source tree or an
# editable install); LIVESIM_SCENARIO_PATH (os.pathsep-separated folders) is searched first.
SCENARIO_PATH_ENV = "LIVESIM_SCENARIO_PATH"
BUNDLED_DIR = Path(__file__).resolve().parents[2] / "scenarios"
MAX_SCENARIO_BYTES = 1 << 20  # a scenario file of more than 1 MiB is refused before it is parsed

# Generator parameters a scenario may set, with StreamConfig's own types, bounds and defaults.
TRAFFIC_FIELDS = ("n_viewers", "comments_per_min", "burst_p", "merge_window_s", "max_merge", "multi_intent_p",
                  "noise", "intents", "audience_per_viewer", "scripted_only")
Traffic = create_model(  # type: ignore[call-overload]
    "Traffic", __config__=ConfigDict(extra="forbid"),
    **{f: (StreamConfig.model_fields[f].annotation, StreamConfig.model_fields[f]) for f in TRAFFIC_FIELDS})
Traffic.__doc__ = "Viewer traffic: StreamConfig's generator parameters, and whether only the script arrives."


class CatalogSpec(BaseModel):
    """The catalogue: `n_products` drawn from the seed, or inline `products` (exactly one of the two)."""

    model_config = ConfigDict(extra="forbid")
    n_products: int | None = Field(None, ge=1, le=50, description="Products in a generated catalogue.")
    products: list[Product] | None = Field(None, min_length=1, max_length=50, description="An inline catalogue.")

    @model_validator(mode="after")
    def _one_of(self) -> CatalogSpec:
        if (self.n_products is None) == (self.products is None):
            raise ValueError("give exactly one of n_products (generated) or products (inline)")
        return self

    @property
    def links(self) -> list[int]:
        if self.products:
            return [p.link for p in self.products]
        return list(range(1, (self.n_products or 0) + 1))


class Scenario(BaseModel):
    """A replayable stream: what the viewers do, what the operator changes, and when."""

    model_config = ConfigDict(extra="forbid")
    name: str = Field(pattern=r"^[a-z0-9]+(-[a-z0-9]+)*$", max_length=64, description="A slug.")
    purpose: str = Field(min_length=1, max_length=160, pattern=r"^[^\n]+$", description="What it shows.")
    seed: int = Field(0, ge=0, lt=2**63, description="Seed of env.reset (world, comments, reactions).")
    duration_s: float = Field(gt=0, le=7200, description="Stream length in simulated seconds.")
    catalog: CatalogSpec = Field(default_factory=lambda: CatalogSpec(n_products=8))
    traffic: Traffic = Field(default_factory=Traffic)  # type: ignore[valid-type]
    script: list[ScriptedComment] = Field(default_factory=list, max_length=MAX_SCRIPT,
                                          description="Comments at fixed times.")
    strategy: list[StrategyEvent] | None = Field(None, max_length=1000,
                                                 description="Strategy timeline (omit: generated).")
    patches: list[HarnessPatch] = Field(default_factory=list, max_length=500,
                                        description="Operator harness patches in time.")
    faults: FaultConfig | None = Field(None, description="Tool faults injected at set rates.")
    latency: LatencyModel = Field(default_factory=LatencyModel)

    def to_config(self) -> StreamConfig:
        """Build the `StreamConfig` this scenario stands for (reset the env with it and `self.seed`)."""
        cat = self.catalog
        return StreamConfig(
            duration_s=self.duration_s, n_products=cat.n_products or len(cat.products or []),
            catalog=Catalog(products=cat.products) if cat.products else None, strategy=self.strategy,
            script=self.script, patches=self.patches, faults=self.faults, latency=self.latency,
            **self.traffic.model_dump(exclude_unset=True))

    def reset_options(self) -> dict[str, Any]:
        """`env.reset(seed=scenario.seed, options=scenario.reset_options())`."""
        return {"config": self.to_config()}


# --- errors that name file, field and line ----------------------------------------------------------------
@dataclass(frozen=True)
class Problem:
    """One thing wrong with a data file: where (field path, line) and what."""

    field: str
    line: int | None
    message: str

    def format(self, source: str) -> str:
        where = f"{shown(source)}:{self.line}" if self.line else shown(source)
        return f"{where}: {self.field or '(top level)'}: {self.message}"


MAX_PROBLEMS = 20  # listed in a DataFileError's message; the rest are counted


class DataFileError(ValueError):
    """A data file (scenario, record) refused before anything ran; `problems` say where and what."""

    kind = "data file"

    def __init__(self, source: str, problems: list[Problem]) -> None:
        self.source = source
        self.problems = problems
        lines = [p.format(source) for p in problems[:MAX_PROBLEMS]]
        if len(lines) == 1:  # one problem, one line
            super().__init__(f"invalid {self.kind} {lines[0]}")
            return
        if len(problems) > MAX_PROBLEMS:
            lines.append(f"... and {len(problems) - MAX_PROBLEMS} more")
        super().__init__(f"invalid {self.kind} {shown(source)} ({len(problems)} problem"
                         f"{'s' if len(problems) != 1 else ''}):\n  " + "\n  ".join(lines))

    @property
    def first(self) -> str:
        """The first problem, on one line: `file:line: field: message`."""
        if not self.problems:
            return f"invalid {self.kind} {shown(self.source)}"
        more = len(self.problems) - 1
        return self.problems[0].format(self.source) + (f" (and {more} more problem{'s' if more > 1 else ''})"
                                                       if more else "")


class ScenarioError(DataFileError):
    kind = "scenario"


Loc = tuple[str | int, ...]


def field_path(loc: Loc) -> str:
    """('script', 3, 'intent') -> 'script[3].intent'."""
    out = ""
    for part in loc:
        out += f"[{part}]" if isinstance(part, int) else (f".{part}" if out else str(part))
    return out


def locate(root: yaml.Node, loc: Loc) -> tuple[Loc, int]:
    """Walk `loc` through a composed YAML node tree; return the matched path and the 1-based line.

    Components with no node (pydantic's union tags, a missing field) are skipped, except a missing last
    field, which is kept in the path and reported at its parent's line.
    """
    node: yaml.Node = root
    line = node.start_mark.line + 1
    path: list[str | int] = []
    for i, part in enumerate(loc):
        if isinstance(node, yaml.MappingNode):
            hit = next(((k, v) for k, v in node.value if str(k.value) == str(part)), None)
            if hit is not None:
                path.append(part)
                line, node = hit[0].start_mark.line + 1, hit[1]
                continue
        elif isinstance(node, yaml.SequenceNode) and isinstance(part, int) and 0 <= part < len(node.value):
            path.append(part)
            node = node.value[part]
            line = node.start_mark.line + 1
            continue
        if i == len(loc) - 1 and isinstance(part, str) and not part.startswith(("function-", "union[")):
            path.append(part)
    return tuple(path), line


def _duplicates(node: yaml.Node, path: Loc = ()) -> list[tuple[Loc, int, str]]:
    """Keys that appear twice in one mapping (PyYAML keeps the last one silently)."""
    out: list[tuple[Loc, int, str]] = []
    if isinstance(node, yaml.MappingNode):
        seen: dict[str, int] = {}
        for k, v in node.value:
            key = str(k.value)
            if key in seen:
                msg = f"duplicate key {key!r} (first at line {seen[key]})"
                out.append(((*path, key), k.start_mark.line + 1, msg))
            seen.setdefault(key, k.start_mark.line + 1)
            out += _duplicates(v, (*path, key))
    elif isinstance(node, yaml.SequenceNode):
        for i, v in enumerate(node.value):
            out += _duplicates(v, (*path, i))
    return out


def pydantic_problems(err: ValidationError, root: yaml.Node | None, prefix: Loc = ()) -> list[Problem]:
    """Map pydantic errors to problems with field paths and lines (`root`: the composed YAML, if any)."""
    out = []
    for e in err.errors():
        loc = (*prefix, *e["loc"])
        path, line = locate(root, loc) if root is not None else (loc, None)
        msg = e["msg"]
        value = e.get("input")
        if e["type"] != "missing" and isinstance(value, (str, int, float, bool)) and len(repr(value)) < 60:
            msg += f" (got {value!r})"
        out.append(Problem(field_path(path), line, msg))
    return out


def parse_yaml(text: str, source: str, error: type[DataFileError] = ScenarioError) -> tuple[Any, yaml.Node]:
    """Parse YAML safely (no tags that build objects; aliases, depth and size bounded by
    `livesim.stream.yaml_safe.BoundedLoader`), keeping the node tree for line numbers.
    """
    try:
        node, data = compose_bounded(text)
    except yaml.MarkedYAMLError as e:
        mark = e.problem_mark or e.context_mark
        raise error(source, [Problem("", mark.line + 1 if mark else None,
                                     f"not valid YAML: {e.problem or e.context}")]) from None
    except yaml.YAMLError as e:  # e.g. a NUL or other unprintable character (the reader names its position)
        pos = getattr(e, "position", None)
        line = text.count("\n", 0, pos) + 1 if isinstance(pos, int) else None
        reason = getattr(e, "reason", None)
        char = getattr(e, "character", None)
        code = ord(char) if isinstance(char, str) and len(char) == 1 else char
        what = (f"{reason} (character U+{code:04X})" if reason and isinstance(code, int)
                else " ".join(str(e).split())[:200])
        raise error(source, [Problem("", line, f"not valid YAML: {what}")]) from None
    except UnicodeEncodeError as e:  # a str holding lone surrogates (only from a caller, never from a file)
        raise error(source, [Problem("", text.count("\n", 0, e.start) + 1,
                                     "not valid Unicode (a lone surrogate)")]) from None
    except RecursionError:  # pragma: no cover - depth is bounded below the interpreter's limit
        raise error(source, [Problem("", None, "not valid YAML: nested too deeply")]) from None
    if node is None:
        raise error(source, [Problem("", 1, "the file is empty; expected a mapping of scenario fields")])
    dups = _duplicates(node)
    if dups:
        raise error(source, [Problem(field_path(p), line, msg) for p, line, msg in dups])
    if (bad := non_finite(data)) is not None:
        loc, value = bad
        raise error(source, [Problem(field_path(locate(node, loc)[0]), locate(node, loc)[1],
                                     f"{value} is not a finite number")])
    if (where := lone_surrogate(data)) is not None:
        raise error(source, [Problem(field_path(locate(node, where)[0]), locate(node, where)[1],
                                     "not valid Unicode (a lone surrogate escape)")])
    return data, node


# --- checks that need more than one field -----------------------------------------------------------------
def _params(name: str, **fields: Any) -> type[BaseModel]:
    return create_model(name, __config__=ConfigDict(extra="forbid"), **fields)


# The parameters each strategy event kind takes (livesim.world.room.Room.apply builds these from them).
_EVENT_PARAMS: dict[str, type[BaseModel]] = {
    "pin": _params("PinParams", link=(int, ...)),
    "flash_sale": _params("FlashSaleParams", link=(int, ...), price=(float, Field(gt=0)), end_s=(float, ...),
                          quantity=(int, Field(ge=0))),  # the sale starts at the event's at_s
    "add_coupon": Coupon, "bundle": Bundle, "gift": Gift, "permissions": Permissions,
    "expire_coupon": _params("ExpireParams", code=(str, ...)),
    "activate_skill": _params("SkillParams", skill=(str, ...)),
    "deactivate_skill": _params("SkillParams", skill=(str, ...)),
    "tone": _params("ToneParams", tone=(str, ...)),
}


def _links_in(kind: str, params: dict[str, Any]) -> list[int]:
    if kind in ("pin", "flash_sale", "gift"):
        return [int(params["link"])]
    return [int(x) for x in params.get("links", [])] + [int(x) for x in params.get("pin_links", [])]


def semantic_problems(sc: Scenario) -> list[tuple[Loc, str]]:
    """Check what per-field validation cannot see.

    Links that exist, times inside the stream, patches that apply in order, strategy parameters that fit
    their event kind, intents and tools that exist.
    """
    out: list[tuple[Loc, str]] = []

    def add(*loc: str | int, msg: str) -> None:
        out.append((loc, msg))

    links, end = set(sc.catalog.links), sc.duration_s
    after_end = f"after the stream ends (duration_s {end:g})"
    intents = f"expected one of {list(INTENTS)}"
    for i, p in enumerate(sc.catalog.products or []):
        need = {k for a in CATEGORY_ASPECTS[p.category] for k in _as_tuple(ASPECT_KEYS[a])}
        missing = sorted(need - set(p.attributes))
        if missing:
            add("catalog", "products", i, "attributes",
                msg=f"{p.category} products need attributes {sorted(need)}; missing {missing}")
    if sc.catalog.products and len(links) != len(sc.catalog.products):
        add("catalog", "products", msg="two products share a link number")
    traffic: Any = sc.traffic  # a model built by create_model: mypy cannot see its fields
    for i, c in enumerate(sc.script):
        if c.intent not in INTENTS:
            add("script", i, "intent", msg=f"unknown intent {c.intent!r}; {intents}")
        for j, link in enumerate(c.links):
            if link not in links:
                add("script", i, "links", j, msg=f"no product at link {link}; links are {sorted(links)}")
        if c.at_s > end:
            add("script", i, "at_s", msg=f"at {c.at_s:g}s, {after_end}")
        if c.viewer is not None and c.viewer >= traffic.n_viewers:
            add("script", i, "viewer", msg=f"no viewer {c.viewer} (n_viewers is {traffic.n_viewers})")
    for i, it in enumerate(traffic.intents or []):
        if it not in INTENTS:
            add("traffic", "intents", i, msg=f"unknown intent {it!r}; {intents}")
    if (n := expected_comments(sc.duration_s, traffic.comments_per_min)) > MAX_COMMENTS:
        add("traffic", "comments_per_min", msg=f"{traffic.comments_per_min:g} a minute for {end:g}s is about "
            f"{n:.0f} comments; at most {MAX_COMMENTS} per stream (unbounded work)")
    if traffic.scripted_only and not sc.script:
        add("traffic", "scripted_only", msg="scripted_only is true but the script is empty: no comments")
    for i, ev in enumerate(sc.strategy or []):
        try:
            _EVENT_PARAMS[ev.kind].model_validate(ev.params)
        except ValidationError as e:
            for x in e.errors():
                add("strategy", i, "params", *x["loc"], msg=f"{ev.kind}: {x['msg']}")
            continue
        for link in _links_in(ev.kind, ev.params):
            if link not in links:
                add("strategy", i, "params", msg=f"{ev.kind}: no product at link {link}")
    harness = default_harness()
    for i, patch in sorted(enumerate(sc.patches), key=lambda x: x[1].at_s):
        if patch.at_s > end:
            add("patches", i, "at_s", msg=f"at {patch.at_s:g}s, {after_end}")
        try:
            harness = apply_patch(harness, patch)
        except (PatchError, ValueError) as e:
            add("patches", i, msg=str(e).splitlines()[0])
    if sc.faults is not None:
        try:
            FaultInjector(sc.faults)
        except ValueError as e:
            add("faults", msg=str(e))
        for i, key in enumerate(sc.faults.tools):
            if key not in TOOL_IMPLS:
                add("faults", "tools", i, msg=f"unknown tool {key!r}; canonical tools: {sorted(TOOL_IMPLS)}")
    return out


def _as_tuple(x: str | tuple[str, ...]) -> tuple[str, ...]:
    return x if isinstance(x, tuple) else (x,)


# --- loading -----------------------------------------------------------------------------------------------
def parse_scenario(text: str, source: str = "<string>") -> Scenario:
    """Validate scenario YAML; raise `ScenarioError` listing every problem with its field and line."""
    data, root = parse_yaml(text, source)
    if not isinstance(data, dict):
        msg = f"expected a mapping of scenario fields, got {type(data).__name__}"
        raise ScenarioError(source, [Problem("", root.start_mark.line + 1, msg)])
    try:
        sc = Scenario.model_validate(data)
    except ValidationError as e:
        raise ScenarioError(source, pydantic_problems(e, root)) from None
    problems = []
    for loc, msg in semantic_problems(sc):
        problems.append(Problem(field_path(loc), locate(root, loc)[1], msg))
    if problems:
        raise ScenarioError(source, problems)
    return sc


def scenario_dirs() -> list[Path]:
    """Where bundled names are looked up: $LIVESIM_SCENARIO_PATH, then the repository's scenarios/."""
    extra = [Path(p) for p in os.environ.get(SCENARIO_PATH_ENV, "").split(os.pathsep) if p]
    return [*extra, BUNDLED_DIR]


def bundled_scenarios() -> list[str]:
    """Names of the scenarios found in `scenario_dirs()` (file stems), sorted, first folder wins."""
    names: set[str] = set()
    for d in scenario_dirs():
        if d.is_dir():
            names.update(p.stem for p in d.glob("*.yaml"))
    return sorted(names)


def resolve_scenario(name_or_path: str | os.PathLike[str]) -> Path:
    """Find a scenario file by path or bundled name; `FileNotFoundError` lists the bundled names."""
    path = Path(name_or_path)
    try:
        if path.exists() and (path.suffix in (".yaml", ".yml") or os.sep in str(name_or_path) or path.is_file()):
            return path  # a path (a directory or device here is refused, with its name, when read)
    except (OSError, ValueError):  # a NUL byte or an over-long name: not a path that can exist
        raise FileNotFoundError(f"no scenario file or bundled scenario named '{shown(name_or_path)}'") from None
    for d in scenario_dirs():
        for ext in (".yaml", ".yml"):
            cand = d / f"{name_or_path}{ext}"
            if cand.is_file():
                return cand
    raise FileNotFoundError(f"no scenario file or bundled scenario named '{shown(name_or_path)}'; bundled: "
                            f"{', '.join(bundled_scenarios()) or '(none found)'}")


def load_scenario(name_or_path: str | os.PathLike[str]) -> Scenario:
    """Load and validate a scenario by bundled name or path."""
    path = resolve_scenario(name_or_path)
    try:
        text = read_text_file(path, MAX_SCENARIO_BYTES)
    except FileProblem as e:
        raise ScenarioError(str(path), [Problem("", None, str(e))]) from None
    return parse_scenario(text, str(path))
