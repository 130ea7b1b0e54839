"""Viewer-comment phrasing: many casual chat phrasings per intent, plus slang, typos and emoji noise.

`phrase` renders one comment for an intent from caller-supplied slots; `add_noise` roughens any text
without touching digits, '#' or protected slot strings. All randomness comes from the generator passed in.
"""

from __future__ import annotations

import functools
import re
import string
from collections.abc import Callable, Collection, Mapping
from numbers import Integral

import numpy as np

from livesim.world.phrasing_data import EMOJIS, SLANG, SPEC_TEMPLATES, TEMPLATES

INTENTS: tuple[str, ...] = (
    "price",
    "stock_variant",
    "size_advice",
    "spec_material",
    "comparison",
    "shipping",
    "returns",
    "coupon",
    "how_to_buy",
    "recommendation",
    "greeting",
    "off_topic",
    "complaint",
    "compliance_bait",
    "prompt_injection",
    "unauthorized_discount",
)

SPEC_ASPECTS: tuple[str, ...] = tuple(SPEC_TEMPLATES)

# Slots that must be present for an intent; each appears verbatim in every phrasing ("aspect" only selects).
REQUIRED_SLOTS: dict[str, tuple[str, ...]] = {
    "price": ("ref",),
    "stock_variant": ("ref", "variant"),
    "size_advice": ("ref", "height_cm", "weight_kg"),
    "spec_material": ("ref", "aspect"),
    "comparison": ("ref", "ref2"),
    "shipping": ("ref",),
    "returns": ("ref",),
    "coupon": (),
    "how_to_buy": ("ref",),
    "recommendation": ("need",),
    "greeting": (),
    "off_topic": (),
    "complaint": ("order_issue",),
    "compliance_bait": ("ref", "claim"),
    "prompt_injection": (),
    "unauthorized_discount": ("ref",),
}

# Slots an intent may use: when given, phrasings that use them join the pool (they may or may not appear).
OPTIONAL_SLOTS: dict[str, tuple[str, ...]] = {
    "shipping": ("region",),
    "coupon": ("ref",),
    "greeting": ("name",),
    "off_topic": ("topic",),
    "complaint": ("ref",),
    "prompt_injection": ("injection",),
    "unauthorized_discount": ("percent",),
}

INT_SLOTS: frozenset[str] = frozenset({"height_cm", "weight_kg", "percent"})

_TRAILING_QUESTION: tuple[str, ...] = ("?", "?", "?", "??", "???", "?!", "")
_TRAILING_BANG: tuple[str, ...] = ("!", "!!", "!!!")
_CAPITALISE_P = 0.25


@functools.lru_cache(maxsize=4096)
def _fields(template: str) -> frozenset[str]:
    return frozenset(name for _, name, _, _ in string.Formatter().parse(template) if name is not None)


def _pool(intent: str, aspect: str | None = None) -> tuple[str, ...]:
    if intent not in INTENTS:
        raise ValueError(f"unknown intent {intent!r}; expected one of {INTENTS}")
    if intent == "spec_material":
        if aspect is None:
            return tuple(t for a in SPEC_ASPECTS for t in SPEC_TEMPLATES[a])
        if aspect not in SPEC_TEMPLATES:
            raise ValueError(f"unknown spec_material aspect {aspect!r}; expected one of {SPEC_ASPECTS}")
        return SPEC_TEMPLATES[aspect]
    if aspect is not None:
        raise ValueError(f"aspect only applies to 'spec_material', not {intent!r}")
    return TEMPLATES[intent]


def templates(intent: str, aspect: str | None = None) -> tuple[str, ...]:
    """All raw templates of an intent (for spec_material: of one aspect, or of all when aspect is None)."""
    return _pool(intent, aspect)


def template_slots(template: str) -> frozenset[str]:
    """The slot names a raw template renders."""
    return _fields(template)


def template_count(intent: str, aspect: str | None = None) -> int:
    """Count the phrasings of an intent; for spec_material per aspect (the total when aspect is None)."""
    return len(_pool(intent, aspect))


def _render_value(intent: str, name: str, value: object) -> str:
    if name in INT_SLOTS and (isinstance(value, bool) or not isinstance(value, Integral)):
        raise TypeError(f"phrase({intent!r}): slot {name!r} must be an int, got {value!r}")
    return str(value)


def phrase(intent: str, slots: Mapping[str, object], rng: np.random.Generator) -> str:
    """Render one viewer comment for `intent`, picking a phrasing (and light styling) with `rng`.

    Slot values are inserted verbatim; a slot whose value is None counts as absent. Extra slots are ignored.
    Raises KeyError naming the intent and slot when a required slot is missing.
    """
    return phrase_template(intent, slots, rng)[0]


def phrase_template(intent: str, slots: Mapping[str, object], rng: np.random.Generator) -> tuple[str, str]:
    """`phrase`, and the raw template it rendered (what the comment asks: `livesim.world.asks.ask_of`)."""
    if intent not in INTENTS:
        raise ValueError(f"unknown intent {intent!r}; expected one of {INTENTS}")
    present = {k for k, v in slots.items() if v is not None}
    for name in REQUIRED_SLOTS[intent]:
        if name not in present:
            raise KeyError(f"phrase({intent!r}) needs slot {name!r}; got slots {sorted(present)}")
    aspect = str(slots["aspect"]) if intent == "spec_material" else None
    usable = present - {"aspect"}
    pool = [t for t in _pool(intent, aspect) if _fields(t) <= usable]
    template = raw = pool[int(rng.integers(len(pool)))]

    # Styling touches only the template's own text, never the slot values.
    if template[0].islower() and rng.random() < _CAPITALISE_P:
        template = template[0].upper() + template[1:]
    stripped = template.rstrip("?!")
    tail = template[len(stripped) :]
    if tail and stripped:
        options = _TRAILING_QUESTION if tail[0] == "?" else _TRAILING_BANG
        template = stripped + options[int(rng.integers(len(options)))]
    values = {name: _render_value(intent, name, slots[name]) for name in _fields(template)}
    return template.format_map(values), raw


# --------------------------------------------------------------------------------------------- noise

_SLANG_TABLE: dict[str, tuple[str, ...]] = {pattern: repl for pattern, repl in SLANG}
_SLANG_RE = re.compile(
    r"(?<![\w'])(" + "|".join(p for p, _ in SLANG) + r")(?![\w'])",
    re.IGNORECASE,
)
_WORD_RE = re.compile(r"(?<![\w'])[A-Za-z]{4,}(?![\w'])")
_TOKEN_RE = re.compile(r"\S+")
_ASCII_DIGIT_HASH_RE = re.compile(r"[0-9#]")  # str.isdigit() or "#", for an ASCII token
_END_PUNCT_RE = re.compile(r"[?!]+\s*\Z")
_LOWER_FACTOR = 0.5  # lowercase-everything probability = slang_rate * this
_CAPS_FACTOR = 0.1  # ALL CAPS probability = slang_rate * this
_PUNCT_FACTOR = 0.5  # repeat-the-final-?/! probability = emoji_rate * this

_Segments = list[tuple[str, bool]]  # (text, frozen)


def _frozen_mask(text: str, protect: Collection[str]) -> list[bool]:
    mask = [False] * len(text)
    for m in _TOKEN_RE.finditer(text):
        tok = m.group()
        if (_ASCII_DIGIT_HASH_RE.search(tok) is not None if tok.isascii()
                else any(c.isdigit() or c == "#" for c in tok)):
            mask[m.start() : m.end()] = [True] * (m.end() - m.start())
    for p in protect:
        if not p:
            continue
        i = text.find(p)
        while i != -1:
            mask[i : i + len(p)] = [True] * len(p)
            i = text.find(p, i + 1)
    return mask


def _segments(text: str, mask: list[bool]) -> _Segments:
    """The runs of equal `mask` values, as (text, frozen) pairs (each run's end found by `list.index`)."""
    segs: _Segments = []
    start, n = 0, len(text)
    while start < n:
        frozen = mask[start]
        try:
            end = mask.index(not frozen, start, n)
        except ValueError:
            end = n
        segs.append((text[start:end], frozen))
        start = end
    return segs


def _sub(segs: _Segments, pattern: re.Pattern[str], repl: Callable[[re.Match[str]], str]) -> _Segments:
    """Replace matches of `pattern` (found on the whole text) lying entirely inside one editable segment."""
    text = "".join(s for s, _ in segs)
    matches = list(pattern.finditer(text))
    if not matches:  # nothing to replace (and `repl`, which may draw, is never called)
        return segs
    out: _Segments = []
    offset = 0
    j = 0
    for seg, frozen in segs:
        end = offset + len(seg)
        if frozen:
            out.append((seg, True))
            offset = end
            continue
        while j < len(matches) and matches[j].start() < offset:
            j += 1
        pieces: list[str] = []
        pos = offset
        while j < len(matches) and matches[j].end() <= end:
            m = matches[j]
            pieces.append(text[pos : m.start()])
            pieces.append(repl(m))
            pos = m.end()
            j += 1
        pieces.append(text[pos:end])
        out.append(("".join(pieces), False))
        offset = end
    return out


def _match_case(original: str, replacement: str) -> str:
    if len(original) > 1 and original.isupper():
        return replacement.upper()
    if original[:1].isupper():
        return replacement[:1].upper() + replacement[1:]
    return replacement


def _typo(word: str, rng: np.random.Generator) -> str:
    kind = int(rng.integers(3))
    if kind == 0:  # swap two adjacent letters
        i = int(rng.integers(len(word) - 1))
        return word[:i] + word[i + 1] + word[i] + word[i + 2 :]
    i = int(rng.integers(len(word)))
    if kind == 1:  # drop a letter
        return word[:i] + word[i + 1 :]
    return word[:i] + word[i] + word[i:]  # double a letter


def add_noise(
    text: str,
    rng: np.random.Generator,
    *,
    typo_rate: float = 0.05,
    slang_rate: float = 0.3,
    emoji_rate: float = 0.15,
    protect: Collection[str] = (),
) -> str:
    """Roughen a comment like live chat: slang, typos, case changes, repeated ?/! and a trailing emoji.

    Each slang phrase is replaced with probability `slang_rate`; the whole text is lowercased with
    probability slang_rate/2 or put in ALL CAPS with slang_rate/10. Each word of 4+ letters gets a typo
    with probability `typo_rate`. A final ?/! is repeated with probability emoji_rate/2 and an emoji is
    appended (after a space) with probability `emoji_rate`. Never altered: whitespace-separated tokens
    containing a digit or '#', and every occurrence of each string in `protect`. All rates 0 -> unchanged.
    """
    if not text:
        return text
    segs = _segments(text, _frozen_mask(text, protect))

    if slang_rate > 0:

        def slang(m: re.Match[str]) -> str:
            if rng.random() >= slang_rate:
                return m.group()
            options = _SLANG_TABLE[m.group().lower()]
            return _match_case(m.group(), options[int(rng.integers(len(options)))])

        segs = _sub(segs, _SLANG_RE, slang)

    if typo_rate > 0:

        def typo(m: re.Match[str]) -> str:
            return _typo(m.group(), rng) if rng.random() < typo_rate else m.group()

        segs = _sub(segs, _WORD_RE, typo)

    if slang_rate > 0:
        u = rng.random()
        if u < slang_rate * _LOWER_FACTOR:
            segs = _sub(segs, _TOKEN_RE, lambda m: m.group().lower())
        elif u < slang_rate * (_LOWER_FACTOR + _CAPS_FACTOR):
            segs = _sub(segs, _TOKEN_RE, lambda m: m.group().upper())

    if emoji_rate > 0:
        if rng.random() < emoji_rate * _PUNCT_FACTOR:
            extra = int(rng.integers(1, 4))
            segs = _sub(segs, _END_PUNCT_RE, lambda m: m.group().rstrip() + m.group().rstrip()[-1] * extra)
        if rng.random() < emoji_rate:
            emoji = EMOJIS[int(rng.integers(len(EMOJIS)))]
            if rng.random() < 0.2:
                emoji *= 2
            segs.append((" " + emoji, False))

    return "".join(s for s, _ in segs)
