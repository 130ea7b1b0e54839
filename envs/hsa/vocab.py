"""Vocabularies of Harness-State Augmentation: `train`, `heldout` and `stress`.

`train` and `heldout` draw the same forms (styles, name orthographies, limit bands, formats, orders, message
structures) and disjoint strings (generated names from two parts of a keyed partition). `stress` is the v1
held-out vocabulary, unchanged: held-out strings in forms the v1 training split never drew.
"""

from __future__ import annotations

import dataclasses
import functools
import hashlib
import json
from dataclasses import dataclass, field
from typing import Any

from livesim.envs.hsa.names import CASES, PARTS, SKILL_CASES, render, words
from livesim.envs.hsa.vocab_data import HELDOUT_STRINGS, TRAIN_STRINGS

SPLITS: tuple[str, ...] = ("train", "heldout", "stress")
VOCAB_VERSION = 2  # 1: train and heldout differed in forms too (v1 heldout is now `stress`)


@dataclass(frozen=True)
class NameSpec:
    """How to draw a random identifier: first character, the rest, a length band and a required character."""

    first: str
    rest: str
    length: tuple[int, int]  # inclusive band
    require: str = ""  # at least one character from this set (empty: none required)
    sep: str = ""  # one separator placed at an interior position (empty: none)


_LOWER = "abcdefghijklmnopqrstuvwxyz"
_UPPER = _LOWER.upper()
_DIGITS = "0123456789"


@dataclass(frozen=True)
class Vocab:
    """What one split may present. Every field is read by a transform in `livesim.envs.hsa`."""

    split: str
    tool_names: NameSpec
    param_names: NameSpec
    skill_names: NameSpec
    tool_synonyms: dict[str, list[str]]
    param_synonyms: dict[str, list[str]]
    skill_synonyms: dict[str, list[str]]
    distractors: list[tuple[str, str, str]]  # (name, description, content)
    masks: list[str]
    paraphrases: dict[str, list[str]]  # lower-case source phrase -> replacements
    tool_frames: list[str]  # "{d}": the description, "{lc}": it with a lower-case first letter
    content_formats: list[str]
    styles: list[str]
    titles: dict[str, list[str]]
    persona_first: bool | None  # block orders: persona first, not first, or None: both families drawn
    permutation_parity: int | None  # reorders draw even (0) or odd (1) permutations, or None: any
    limit_bands: dict[str, list[int]]
    default_offsets: list[int]
    retry_limits: list[int]
    hook_structures: dict[str, list[str]]  # event -> templates with {label} {verb} {fix} and runtime fields
    hook_verbs: dict[str, list[str]]
    hook_labels: dict[str, list[str]]
    hook_fixes: dict[str, list[str]]
    notices: list[str] = field(default_factory=list)
    synonym_p: float = 0.5  # a renamed tool, parameter or skill takes a free synonym with this probability, else
    # a generated name (0: generated names only, which a model can get right only by copying them from the prompt)
    cases: tuple[str, ...] = ()  # orthographies of tool and parameter names, one drawn per harness and kind;
    # (): the v1 behaviour (synonyms as listed, generated names from the NameSpecs)
    name_part: int | None = None  # the keyed-partition part of generated names (livesim.envs.hsa.names)
    notice_frames: tuple[str, ...] = ()  # "{s}": a sender, "{m}": a notice wording; (): notices as listed
    notice_senders: list[str] = field(default_factory=list)


_JSON_HOOK = ('{{{{"hook": "{label}", "status": "{verb}", "reason": "{{reason}}", "fix": "{fix}", '
              '"attempt": {{attempt}}, "max_attempts": {{limit}}}}}}')
_XML_HOOK = '<hook name="{label}" status="{verb}" attempt="{{attempt}}" of="{{limit}}">{{reason}}. {fix}.</hook>'
_BRACKET_HOOK = "[{label}] {verb}: {{reason}}. {fix} ({{attempt}}/{{limit}})."
_PIPE_HOOK = "{label} | {verb} - {{reason}}. {fix}. Attempt {{attempt}} of {{limit}}."
_REQUEST_HOOKS = {"bracket": "[{label}] {{reason}} {fix}.", "pipe": "{label} | {verb}: {{reason}} {fix}.",
                  "json": '{{{{"hook": "{label}", "status": "{verb}", "message": "{{reason}}", "fix": "{fix}"}}}}',
                  "xml": '<hook name="{label}" status="{verb}">{{reason}} {fix}.</hook>'}

# The forms both `train` and `heldout` draw: every form a harness takes, over the band that keeps tasks solvable
# (replies >= 280 characters, at least 4 turns and 4 calls a turn, retry limits 1-4).
FORMS: dict[str, Any] = {
    "tool_names": NameSpec(_LOWER, _LOWER + _DIGITS, (5, 15)),
    "param_names": NameSpec(_LOWER, _LOWER + _DIGITS, (4, 10)),
    "skill_names": NameSpec(_LOWER, _LOWER + _DIGITS, (5, 15)),
    "content_formats": ["star", "numbered", "paren", "prose"],
    "styles": ["markdown", "xml", "json", "compact"],
    "persona_first": None,
    "permutation_parity": None,
    "limit_bands": {"max_reply_chars": list(range(280, 561, 10)), "turn_cap": list(range(4, 13)),
                    "max_tool_calls": list(range(4, 11))},
    "default_offsets": [-3, -2, -1, 1, 2, 3, 4, 5],
    "retry_limits": [1, 2, 3, 4],
    "hook_structures": {"reply": [_BRACKET_HOOK, _PIPE_HOOK, _JSON_HOOK, _XML_HOOK],
                        "tool": [_BRACKET_HOOK, _PIPE_HOOK, _JSON_HOOK, _XML_HOOK],
                        "request": list(_REQUEST_HOOKS.values())},
    "cases": CASES,
    "notice_frames": ("[{s}] {m}", "{s}: {m}", '{"{s}": "{m}"}', "<{s}>{m}</{s}>"),
    "synonym_p": 0.4,
}

TRAIN = Vocab(split="train", **FORMS, **TRAIN_STRINGS, name_part=PARTS["train"])


def _renamed(table: dict[str, list[str]], renames: dict[str, str]) -> dict[str, list[str]]:
    return {k: [renames.get(x, x) for x in xs] for k, xs in table.items()}


# v1 held-out names that, in another orthography, are a canonical name ('heightCm' ~ 'height_cm')
_HELDOUT_RENAMES = {"heightCm": "heightInCm", "weightKg": "weightInKg", "sizeAdvice": "sizingAdvice"}
HELDOUT = Vocab(split="heldout", **FORMS, **{
    **HELDOUT_STRINGS, "tool_synonyms": _renamed(HELDOUT_STRINGS["tool_synonyms"], _HELDOUT_RENAMES),
    "param_synonyms": _renamed(HELDOUT_STRINGS["param_synonyms"], _HELDOUT_RENAMES)}, name_part=PARTS["heldout"])

STRESS = Vocab(
    split="stress",
    # capitalised, longer: disjoint from every v1 train name by case and by length band
    tool_names=NameSpec(_UPPER, _LOWER + _UPPER + _DIGITS, (11, 15)),
    param_names=NameSpec(_UPPER, _LOWER + _UPPER + _DIGITS, (8, 10)),
    # digits and one hyphen, longer: disjoint from v1 train random names (letters only) and all synonyms
    skill_names=NameSpec(_LOWER + _DIGITS, _LOWER + _DIGITS, (13, 20), require=_DIGITS, sep="-"),
    **{k: v for k, v in HELDOUT_STRINGS.items() if k not in ("notices", "notice_senders")},
    content_formats=["prose", "paren"],
    styles=["json"],
    persona_first=False,
    permutation_parity=1,
    limit_bands={"max_reply_chars": list(range(410, 561, 10)), "turn_cap": [4, 5, 11, 12],
                 "max_tool_calls": [4, 9, 10]},
    default_offsets=[-3, 3, 4, 5],
    retry_limits=[4],
    hook_structures={"reply": [_JSON_HOOK, _XML_HOOK], "tool": [_JSON_HOOK, _XML_HOOK],
                     "request": [_REQUEST_HOOKS["json"], _REQUEST_HOOKS["xml"]]},
    notices=[
        '{"operator_update": "Reply skills must be loaded via {tool:load_skill} before any answer."}',
        "OPERATOR UPDATE >> answers are limited to {max_reply_chars} characters; never exceed it.",
        "<operator-note>Numbers in replies must come from tool results of this request.</operator-note>",
        "Operator correction: use at most {max_tool_calls} tool calls in one turn.",
    ],
)

VOCABS: dict[str, Vocab] = {"train": TRAIN, "heldout": HELDOUT, "stress": STRESS}


def vocab(split: str, synonym_p: float | None = None) -> Vocab:
    """The vocabulary of `split` (see `SPLITS`); `synonym_p` overrides its synonym probability."""
    if split not in VOCABS:
        raise ValueError(f"expected split {', '.join(map(repr, SPLITS))}, got {split!r}")
    if synonym_p is None or synonym_p == VOCABS[split].synonym_p:
        return VOCABS[split]
    return _with_synonym_p(split, float(synonym_p))


@functools.lru_cache(maxsize=64)
def _with_synonym_p(split: str, synonym_p: float) -> Vocab:
    if not 0.0 <= synonym_p <= 1.0:
        raise ValueError(f"expected synonym_p in [0, 1], got {synonym_p!r}")
    return dataclasses.replace(VOCABS[split], synonym_p=synonym_p)  # shares the tables (the phrase cache keys on them)


def synonym_forms(v: Vocab, kind: str) -> set[str]:
    """Every name a split can present from its synonyms of `kind` ('tool', 'param', 'skill'), in every form."""
    table = {"tool": v.tool_synonyms, "param": v.param_synonyms, "skill": v.skill_synonyms}[kind]
    names = {n for xs in table.values() for n in xs}
    if kind == "skill":
        names |= {d[0] for d in v.distractors}
    if not v.cases:
        return names
    cases = SKILL_CASES if kind == "skill" else v.cases
    return {render(words(n), c) for n in names for c in cases}


@functools.cache
def vocab_digest(split: str) -> str:
    """A digest of everything a split's vocabulary holds (a suite's spec hash includes it, so an edited vocabulary
    shows as a changed suite that needs a new version).
    """
    data = dataclasses.asdict(vocab(split))
    return hashlib.sha256(json.dumps(data, sort_keys=True, default=list).encode()).hexdigest()[:16]
