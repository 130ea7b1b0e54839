"""A census of what each HSA split presents: the forms it covers and where its renamed names come from.

python -m livesim.runs.hsa_splits --harnesses 2000     # the docs/hsa.md split table (markdown)
python -m livesim.runs.hsa_splits --json               # the same as one JSON object
"""

from __future__ import annotations

import argparse
import json
import re
from collections import Counter
from typing import Any

import numpy as np

from livesim.envs.hsa.core import rules_format
from livesim.envs.hsa.vocab import SPLITS, VOCABS, synonym_forms
from livesim.envs.hsa.wrappers import DEFAULT_P, ORDER, Augment
from livesim.harness.core import Harness, default_harness

KINDS = ("tool", "param", "skill")


def orthography(name: str) -> str:
    """The orthography of a name: token (holds a digit), snake, kebab, camel, mixed, or word (one lower-case word,
    which any of the four word orthographies writes the same).
    """
    if re.search(r"[0-9]", name):
        return "token"
    if "_" in name:
        return "snake"
    if "-" in name:
        return "kebab"
    if name[:1].isupper():
        return "mixed"
    return "camel" if re.search(r"[A-Z]", name) else "word"


def message_format(text: str) -> str:
    """json, xml, bracket or pipe (a hook message's or notice's structure); plain otherwise."""
    s = text.lstrip()
    if s.startswith("{"):
        return "json"
    if s.startswith("<"):
        return "xml"
    if s.startswith("["):
        return "bracket"
    return "pipe" if " | " in s else "plain"


def _names(h: Harness) -> dict[str, list[tuple[str, str]]]:
    """Per kind: (canonical or listed name, presented name) of every element."""
    canon = default_harness()
    tools = {t.key: t for t in canon.tools}
    skills = {s.key: s.name for s in canon.skills}
    out: dict[str, list[tuple[str, str]]] = {k: [] for k in KINDS}
    for t in h.tools:
        out["tool"].append((tools[t.key].name, t.name))
        cp = {p.key: p.name for p in tools[t.key].params}
        out["param"] += [(cp[p.key], p.name) for p in t.params]
    for s in h.skills:
        out["skill"].append((skills.get(s.key, s.key.removeprefix("distractor:")), s.name))
    return out


def census(split: str, harnesses: int = 1000, p: float = DEFAULT_P, seed0: int = 0) -> dict[str, Any]:
    """Forms covered and name origins over `harnesses` presented harnesses of `split` (the full `hsa` composite)."""
    v = VOCABS[split]
    synonyms = {k: synonym_forms(v, k) for k in KINDS}
    forms: dict[str, Counter[Any]] = {k: Counter() for k in (
        "style", "turn_cap", "max_tool_calls", "max_reply_chars", "retry_limit", "hook_message", "notice",
        "block_family", "rule_format", "tool_case", "param_case", "skill_case")}
    origins: dict[str, Counter[str]] = {k: Counter() for k in KINDS}
    augment = Augment(ORDER, split, p)
    for i in range(harnesses):
        h = augment(default_harness(), np.random.default_rng(seed0 + i))
        lim = h.prompt.limits
        forms["style"][h.prompt.style] += 1
        forms["turn_cap"][lim.turn_cap] += 1
        forms["max_tool_calls"][lim.max_tool_calls] += 1
        forms["max_reply_chars"][lim.max_reply_chars] += 1
        forms["block_family"]["persona first" if h.prompt.blocks[0] == "persona" else "persona later"] += 1
        for hook in h.hooks:
            if hook.check == "notice":
                forms["notice"][message_format(str(hook.params.get("message", "")))] += 1
            else:
                forms["hook_message"][message_format(hook.retry_template)] += 1
                if hook.event != "request":
                    forms["retry_limit"][hook.retry_limit] += 1
        forms["rule_format"].update(rules_format(s.content) for s in h.skills)
        for kind, pairs in _names(h).items():
            for before, now in pairs:
                if now == before:
                    continue
                origins[kind]["synonym" if now in synonyms[kind] else "generated"] += 1
                forms[f"{kind}_case"][orthography(now)] += 1
    renamed = sum(sum(c.values()) for c in origins.values())
    generated = sum(c["generated"] for c in origins.values())
    return {"split": split, "harnesses": harnesses, "p": p, "synonym_p": v.synonym_p,
            "forms": {k: dict(sorted(c.items(), key=lambda kv: (str(type(kv[0])), kv[0]))) for k, c in forms.items()},
            "origins": {k: dict(c) for k, c in origins.items()}, "renamed_slots": renamed,
            "generated_share": generated / renamed if renamed else 0.0}


def render_table(results: list[dict[str, Any]]) -> str:
    """One row per form (the values each split drew), then the generated-name share."""
    keys = list(results[0]["forms"])
    lines = ["| form | " + " | ".join(r["split"] for r in results) + " |", "|---|" + "---|" * len(results)]

    def cell(values: dict[Any, int]) -> str:
        ks = list(values)
        if ks and all(isinstance(k, int) for k in ks) and len(ks) > 4:
            return f"{min(ks)}-{max(ks)} ({len(ks)} values)"
        return ", ".join(str(k) for k in ks)

    for k in keys:
        lines.append(f"| {k} | " + " | ".join(cell(r["forms"][k]) for r in results) + " |")
    lines.append("| generated names / renamed slots | " + " | ".join(
        f"{r['generated_share'] * 100:.1f}% of {r['renamed_slots']}" for r in results) + " |")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m livesim.runs.hsa_splits", description=__doc__.splitlines()[0])
    ap.add_argument("--harnesses", type=int, default=1000, help="presented harnesses per split")
    ap.add_argument("--p", type=float, default=DEFAULT_P, help="probability of each transform")
    ap.add_argument("--splits", default=",".join(SPLITS))
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args(argv)
    splits = [s.strip() for s in args.splits.split(",") if s.strip()]
    bad = [s for s in splits if s not in SPLITS]
    if bad or args.harnesses < 1 or not 0 <= args.p <= 1:
        ap.error(f"expected splits from {SPLITS}, harnesses >= 1 and p in [0, 1]; got {args.splits!r}, "
                 f"{args.harnesses}, {args.p}")
    results = [census(s, args.harnesses, args.p) for s in splits]
    print(json.dumps(results, sort_keys=True, default=str) if args.json else render_table(results))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
