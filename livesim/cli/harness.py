"""`livesim harness show` and `livesim harness diff`: the harness an agent sees, and what changed.

`show` prints the canonical or presented harness of one seed (optionally under HSA wrappers); `diff` compares
canonical and presented for a seed, two harness JSON files, or a harness before and after a patch file.
Elements are matched by canonical identity (tool/skill/hook key), so renames show as renames.
"""

from __future__ import annotations

import argparse
import json
from typing import Any

import gymnasium as gym
from pydantic import TypeAdapter, ValidationError
from rich.console import Console
from rich.panel import Panel
from rich.table import Table
from rich.text import Text

from livesim.cli.common import fail
from livesim.envs import ENV_IDS
from livesim.envs.hsa import make_wrappers
from livesim.envs.hsa.wrappers import DEFAULT_P
from livesim.harness.core import Harness, default_harness
from livesim.harness.patches import HarnessPatch, PatchError, apply_patch
from livesim.harness.prompt import render_prompt
from livesim.stream.harness_file import MAX_HARNESS_BYTES, load_harness_file
from livesim.stream.scenario import DataFileError, Problem, field_path, locate, parse_yaml, pydantic_problems
from livesim.stream.yaml_safe import FileProblem, read_text_file

Row = dict[str, str]


# --- loading -------------------------------------------------------------------------------------------------
def load_harness(path: str) -> Harness:
    """A harness file (YAML/JSON): a whole harness, `livesim harness show --format json` output, or the parts
    that differ from the canonical harness (livesim.stream.harness_file).
    """
    try:
        return load_harness_file(path)
    except DataFileError as e:
        fail(e.first)


def load_patches(path: str) -> list[Any]:
    """Patches from a JSON or YAML file: a list, one patch, or a mapping with a `patches` list.

    A malformed file exits with one line per problem naming the file, line and field.
    """

    class _Error(DataFileError):
        kind = "patch file"

    try:
        try:
            text = read_text_file(path, MAX_HARNESS_BYTES)
        except FileNotFoundError:
            raise _Error(path, [Problem("", None, "no such file")]) from None
        except FileProblem as e:
            raise _Error(path, [Problem("", None, str(e))]) from None
        data, node = parse_yaml(text, path, _Error)
        prefix: tuple[str | int, ...] = ()
        single = False
        if isinstance(data, dict) and "patches" in data:
            data, prefix = data["patches"], ("patches",)
        elif isinstance(data, dict):
            data, single = [data], True
        try:
            return TypeAdapter(list[HarnessPatch]).validate_python(data or [])
        except ValidationError as e:
            problems = pydantic_problems(e, node, prefix)
            if single:  # the errors' first location component is the index 0 we added
                problems = [Problem(field_path(locate(node, tuple(x["loc"][1:]))[0]),
                                    locate(node, tuple(x["loc"][1:]))[1], x["msg"]) for x in e.errors()]
            raise _Error(path, problems) from None
    except DataFileError as e:
        fail(e.first)


def env_harness(args: argparse.Namespace) -> tuple[Harness, Harness, Any]:
    """(canonical, presented, sim) of the env reset with `args.seed` under `args.wrappers`."""
    if args.env not in ENV_IDS:
        raise SystemExit(f"error: unknown env {args.env!r}; choose from {', '.join(ENV_IDS)}")
    harness = load_harness(args.harness) if getattr(args, "harness", None) else None
    kwargs: dict[str, Any] = {"harness": harness} if harness is not None else {}
    env = gym.make(args.env, **kwargs)
    if args.wrappers:
        try:
            env = make_wrappers(env, args.wrappers, split=args.hsa_split or "train", p=args.p)
        except ValueError as e:
            raise SystemExit(f"error: --wrappers: {e}") from None
    env.reset(seed=args.seed)
    sim = env.unwrapped.sim  # type: ignore[attr-defined]  # a livesim env
    return sim.canonical, sim.harness, sim


# --- diff ------------------------------------------------------------------------------------------------------
def _by_key(items: list[Any]) -> dict[str, Any]:
    return {x.key: x for x in items}


def _fields(section: str, ident: str, a: Any, b: Any, fields: tuple[str, ...], rows: list[Row]) -> None:
    for f in fields:
        x, y = getattr(a, f), getattr(b, f)
        if x != y:
            rows.append({"section": section, "element": ident, "field": f, "before": _s(x), "after": _s(y)})


def _s(value: Any) -> str:
    return value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)


def _members(section: str, a: list[Any], b: list[Any], fields: tuple[str, ...], rows: list[Row],
             prefix: str = "") -> None:
    ka, kb = _by_key(a), _by_key(b)
    for key, x in ka.items():
        if key not in kb:
            rows.append({"section": section, "element": prefix + key, "field": "removed",
                         "before": getattr(x, "name", key), "after": ""})
            continue
        y = kb[key]
        _fields(section, prefix + key, x, y, fields, rows)
        if section == "tool":
            _members("param", x.params, y.params, ("name", "description", "default"), rows, prefix=f"{key}.")
    for key, y in kb.items():
        if key not in ka:
            rows.append({"section": section, "element": prefix + key, "field": "added", "before": "",
                         "after": getattr(y, "name", key)})
    common = [k for k in ka if k in kb]
    order_b = [k for k in kb if k in ka]
    if common != order_b:
        rows.append({"section": section, "element": prefix + "*", "field": "order", "before": ", ".join(common),
                     "after": ", ".join(order_b)})


def harness_diff(a: Harness, b: Harness) -> list[Row]:
    """What differs from `a` to `b`, element by element (matched by canonical key)."""
    rows: list[Row] = []
    _members("tool", a.tools, b.tools, ("name", "description"), rows)
    _members("skill", a.skills, b.skills, ("name", "kind", "role", "description", "content"), rows)
    _members("hook", a.hooks, b.hooks, ("check", "event", "params", "retry_template", "retry_limit", "enabled"),
             rows)
    pa, pb = a.prompt, b.prompt
    _fields("prompt", "-", pa, pb, ("style", "blocks", "persona", "rules"), rows)
    for block in sorted(set(pa.titles) | set(pb.titles)):
        default = block.replace("_", " ").title()  # as livesim.harness.prompt renders an untitled block
        x, y = pa.titles.get(block, default), pb.titles.get(block, default)
        if x != y:
            rows.append({"section": "prompt", "element": block, "field": "title", "before": x, "after": y})
    _fields("limits", "-", pa.limits, pb.limits, tuple(type(pa.limits).model_fields), rows)
    _fields("harness", "-", a, b, ("fallback_reply", "version", "last_patch"), rows)
    return rows


# --- rendering -------------------------------------------------------------------------------------------------
def _console(console: Any = None) -> Any:
    return console or Console()


def print_show(h: Harness, title: str, console: Any = None, prompt: str | None = None) -> None:
    """Print a harness as rich tables: header, tools, skills, hooks, prompt and limits."""
    c = _console(console)
    c.print(Text.assemble((title, "bold"), "  fingerprint ", (h.fingerprint, "cyan"), f"  version {h.version}",
                          f"  last patch: {h.last_patch}" if h.last_patch else ""))
    t = Table(title="tools (presented order)", expand=True)
    for col in ("name", "key", "parameters (name <- key = default)", "description"):
        t.add_column(col, overflow="fold")
    for tool in h.tools:
        params = ", ".join(p.name + ("" if p.name == p.key else f" <- {p.key}")
                           + ("" if p.default is None else f" = {p.default:g}") for p in tool.params)
        t.add_row(*map(Text, (tool.name, tool.key, params or "-", tool.description)))
    c.print(t)
    t = Table(title="skills (index order)", expand=True)
    for col in ("name", "kind", "key", "description"):
        t.add_column(col, overflow="fold")
    for s in h.skills:
        t.add_row(*map(Text, (s.name, s.kind, s.key, s.description)))
    c.print(t)
    t = Table(title="hooks", expand=True)
    for col in ("key", "check", "event", "retries", "retry template"):
        t.add_column(col, overflow="fold")
    for hook in h.hooks:
        t.add_row(*map(Text, (hook.key, hook.check, hook.event, str(hook.retry_limit), hook.retry_template)))
    c.print(t)
    p = h.prompt
    blocks = ", ".join(f"{b} ({p.titles[b]})" if b in p.titles else b for b in p.blocks)
    c.print(f"[bold]prompt[/bold] style {p.style}; blocks: {blocks}")
    c.print("[bold]limits[/bold] " + ", ".join(f"{k}={v}" for k, v in p.limits.model_dump().items()))
    if prompt is not None:
        c.print(Panel(Text(prompt), title="system prompt", expand=True))


def print_diff(rows: list[Row], title: str, console: Any = None) -> None:
    """Print diff rows as one rich table (or say that nothing differs)."""
    c = _console(console)
    if not rows:
        c.print(Text.assemble((title, "bold"), ": no differences"))
        return
    t = Table(title=Text(f"{title}: {len(rows)} differences"), expand=True, show_lines=True)
    for col, ratio in (("section", 2), ("element", 3), ("field", 3), ("before", 6), ("after", 6)):
        t.add_column(col, overflow="fold", ratio=ratio)
    for r in rows:
        t.add_row(*(Text(r[k]) for k in ("section", "element", "field", "before", "after")))
    c.print(t)


def _dump(h: Harness) -> dict[str, Any]:
    return {"fingerprint": h.fingerprint, "version": h.version, "harness": h.model_dump(mode="json")}


# --- commands --------------------------------------------------------------------------------------------------
def cmd_show(args: argparse.Namespace) -> int:
    canonical, presented, sim = env_harness(args)
    h = presented if args.view == "presented" else canonical
    if args.format == "json":
        print(json.dumps(_dump(h), indent=1, ensure_ascii=False))
        return 0
    where = f"seed {args.seed}" + (f", wrappers {args.wrappers} ({args.hsa_split or 'train'})" if args.wrappers
                                   else "") + (f", from {args.harness}" if getattr(args, "harness", None) else "")
    prompt = None
    if args.prompt:
        prompt = render_prompt(h, sim.room, sim.catalog)
    print_show(h, f"{args.view} harness, {where}", prompt=prompt)
    return 0


def cmd_diff(args: argparse.Namespace) -> int:
    if args.files and len(args.files) != 2:
        raise SystemExit(f"error: diff takes two harness files or none, got {len(args.files)}")
    if args.files:
        a, b = load_harness(args.files[0]), load_harness(args.files[1])
        title = f"{args.files[0]} -> {args.files[1]}"
    elif args.patch:
        a = load_harness(args.base) if args.base else default_harness()
        b = a
        try:
            for patch in load_patches(args.patch):
                b = apply_patch(b, patch)
        except PatchError as e:
            raise SystemExit(f"error: {args.patch}: {e}") from None
        title = f"before -> after {args.patch} (fingerprint {a.fingerprint} -> {b.fingerprint})"
    else:
        args.wrappers = args.wrappers or "hsa"
        a, b, _ = env_harness(args)
        title = (f"canonical -> presented, seed {args.seed}, wrappers {args.wrappers} "
                 f"({args.hsa_split or 'train'})")
    rows = harness_diff(a, b)
    if args.format == "json":
        print(json.dumps({"before": a.fingerprint, "after": b.fingerprint, "rows": rows}, indent=1,
                         ensure_ascii=False))
    else:
        print_diff(rows, title)
    return 0


def _env_args(p: argparse.ArgumentParser) -> None:
    p.add_argument("--env", default="LiveStreamQA-v0", help="LiveStreamQA-v0 or LiveStream-v0 (or their -v1)")
    p.add_argument("--seed", type=int, default=0, help="env seed (the augmentation is drawn from it)")
    p.add_argument("--wrappers", default=None, help="HSA wrappers: 'hsa' or a comma-separated list of names")
    p.add_argument("--hsa-split", choices=["train", "heldout", "stress"], default=None, help="transform split")
    p.add_argument("--p", type=float, default=DEFAULT_P, help="probability of each transform (default 2/3)")
    p.add_argument("--format", choices=["text", "json"], default="text", help="rich text or JSON on stdout")


def register(subparsers: Any) -> None:
    """Add `livesim harness show|diff` to the CLI."""
    parser = subparsers.add_parser("harness", help="show a harness, or diff two (HSA, patches, files)")
    sub = parser.add_subparsers(dest="harness_command", required=True)
    p = sub.add_parser("show", help="print the canonical or presented harness of a seed")
    p.add_argument("--view", choices=["presented", "canonical"], default="presented", help="which harness")
    p.add_argument("--prompt", action="store_true", help="also print the rendered system prompt")
    p.add_argument("--harness", default=None, metavar="FILE",
                   help="a harness file: preview the harness an agent is given with it (partial lists merged)")
    _env_args(p)
    p.set_defaults(func=cmd_show)
    p = sub.add_parser("diff", help="canonical vs presented for a seed, two harness files, or a patch file")
    p.add_argument("files", nargs="*", help="two harness JSON files (e.g. from `show --format json`)")
    p.add_argument("--patch", default=None, help="a JSON/YAML file of patches: diff before/after applying them")
    p.add_argument("--base", default=None, help="harness JSON the patches apply to (default: canonical)")
    _env_args(p)
    p.set_defaults(func=cmd_diff)
