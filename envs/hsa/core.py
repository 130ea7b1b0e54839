"""The machinery shared by HSA transforms: keyed random draws, identifiers, permutations, paraphrase, rules.

A transform is `fn(harness, draws, vocab) -> harness`; it edits the (already copied) harness in place. Each
element draws from its own generator keyed by its canonical identity and the field it changes, so the same
seed presents the same element the same way, and an operator patch changes the view only where it changed.
"""

from __future__ import annotations

import functools
import hashlib
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, TypeVar

import numpy as np

from livesim.envs.hsa.names import SKILL_CASES, generated_name, normal, render, words
from livesim.envs.hsa.vocab import VOCABS, NameSpec, Vocab, synonym_forms
from livesim.harness.core import Harness, default_harness

T = TypeVar("T")


_ONE = (1).to_bytes(8, "little")
_2_POW_M53 = 1.0 / float(1 << 53)  # a power of two: multiplying by it is exactly dividing by 2**53
_blake2b = hashlib.blake2b


class Stream:
    """A small deterministic generator for one element: BLAKE2b in counter mode, keyed by its seed bytes."""

    __slots__ = ("_key", "_n", "_keyed")

    def __init__(self, key: bytes) -> None:
        self._key = key
        self._n = 0
        self._keyed: Any = None

    def _u64(self) -> int:
        n = self._n = self._n + 1
        if n == 1:  # many streams draw once: hash directly
            return int.from_bytes(_blake2b(_ONE, key=self._key, digest_size=8).digest(), "little")
        # blake2b(data, key=k) == a copy of blake2b(key=k) updated with data; the copy skips the key block
        keyed = self._keyed
        if keyed is None:
            keyed = self._keyed = _blake2b(key=self._key, digest_size=8)
        h = keyed.copy()
        h.update(n.to_bytes(8, "little"))
        return int.from_bytes(h.digest(), "little")

    def random(self) -> float:
        """A float in [0, 1)."""
        return (self._u64() >> 11) * _2_POW_M53

    def integers(self, low: int, high: int | None = None) -> int:
        """An int in [low, high) (or [0, low) with one argument), as numpy's `Generator.integers`."""
        if high is None:
            low, high = 0, low
        if high <= low:
            raise ValueError(f"expected high > low, got [{low}, {high})")
        return low + self._u64() % (high - low)

    def uniform(self, low: float, high: float) -> float:
        return low + (high - low) * self.random()

    def sample(self, n: int, k: int) -> list[int]:
        """`k` distinct indices of range(n), in draw order."""
        pool = list(range(n))
        for i in range(min(k, n)):
            j = self.integers(i, n)
            pool[i], pool[j] = pool[j], pool[i]
        return pool[: min(k, n)]


class Draws:
    """Keyed element generators derived from one draw of the env's augmentation generator."""

    def __init__(self, rng: np.random.Generator | None, base: int | None = None) -> None:
        self.base = int(rng.integers(2**62)) if base is None else base  # type: ignore[union-attr]
        self._prefix = str(self.base)

    def rng(self, *parts: Any) -> Stream:
        """The generator of one element: the same parts give the same draws (in any process)."""
        return Stream(_blake2b("\x1f".join((self._prefix, *map(str, parts))).encode(), digest_size=32).digest())

    def randoms(self, tag: str, keys: Sequence[Any]) -> list[float]:
        """`[self.rng(tag, k).random() for k in keys]`: each element's first draw, without building its Stream."""
        head = "\x1f".join((self._prefix, str(tag), ""))
        return [(int.from_bytes(_blake2b(_ONE, key=_blake2b((head + str(k)).encode(), digest_size=32).digest(),
                                         digest_size=8).digest(), "little") >> 11) * _2_POW_M53 for k in keys]


TransformFn = Callable[[Harness, Draws, Vocab], Harness]


@dataclass(frozen=True)
class Transform:
    """One task-preserving change of the presented harness, in one of the five HSA dimensions."""

    name: str
    dimension: str
    fn: TransformFn
    doc: str


TRANSFORMS: dict[str, Transform] = {}
DIMENSIONS: dict[str, list[str]] = {}


def transform(name: str, dimension: str) -> Callable[[TransformFn], TransformFn]:
    """Register `fn` as transform `name` of `dimension` (composite order is registration order)."""

    def deco(fn: TransformFn) -> TransformFn:
        TRANSFORMS[name] = Transform(name, dimension, fn, (fn.__doc__ or "").strip().splitlines()[0])
        DIMENSIONS.setdefault(dimension, []).append(name)
        return fn

    return deco


def choice(rng: Stream, items: Sequence[T]) -> T:
    n = len(items)
    if n <= 0:
        raise ValueError(f"expected high > low, got [0, {n})")
    return items[rng._u64() % n]  # == items[rng.integers(n)]


def random_name(rng: Stream, spec: NameSpec) -> str:
    """A random identifier drawn from `spec` (length band, alphabets, required character, separator)."""
    n = int(rng.integers(spec.length[0], spec.length[1] + 1))
    chars = [choice(rng, spec.first)] + [choice(rng, spec.rest) for _ in range(n - 1)]
    inner = list(range(1, n))
    if spec.sep:
        at = int(rng.integers(2, n - 2))
        chars[at] = spec.sep
        inner = [i for i in inner if i != at]
    if spec.require and not any(c in spec.require for c in chars):
        chars[choice(rng, inner)] = choice(rng, spec.require)
    return "".join(chars)


def fresh_name(rng: Stream, synonyms: Sequence[str], spec: NameSpec, taken: Sequence[str],
               synonym_p: float = 0.5) -> str:
    """A synonym (with probability `synonym_p`, when one is free) or else a random name, not in `taken`."""
    used = set(taken)
    free = [s for s in synonyms if s not in used]
    if free and rng.random() < synonym_p:
        return choice(rng, free)
    while True:
        name = random_name(rng, spec)
        if name not in used:
            return name


@functools.cache
def reserved_names() -> frozenset[str]:
    """Normal forms no generated name may take: every split's synonyms and distractors, and the canonical names."""
    h = default_harness()
    out = {normal(n) for v in VOCABS.values() for kind in ("tool", "param", "skill") for n in synonym_forms(v, kind)}
    out |= {normal(n) for n in [t.name for t in h.tools] + [p.name for t in h.tools for p in t.params]
            + [s.name for s in h.skills]}
    return frozenset(out)


def name_case(d: Draws, kind: str, v: Vocab) -> str:
    """The orthography of one kind of name ('tool', 'param', 'skill') in one presented harness ('' under v1)."""
    if not v.cases:
        return ""
    return choice(d.rng("name_case", kind), SKILL_CASES if kind == "skill" else v.cases)


def present_name(rng: Stream, synonyms: Sequence[str], spec: NameSpec, taken: Sequence[str], v: Vocab,
                 case: str) -> str:
    """A renamed element's presented name: a free synonym in `case` (with probability `synonym_p`) or else a
    generated name of the split's part (v1 vocabularies: `fresh_name`).
    """
    if not v.cases or v.name_part is None:
        return fresh_name(rng, synonyms, spec, taken, v.synonym_p)
    used = set(taken)
    free = [n for n in (render(words(s), case) for s in synonyms) if n not in used]
    if free and rng.random() < v.synonym_p:
        return choice(rng, free)
    return generated_name(rng, case, spec.length, v.name_part, reserved_names(), taken)


def parity(order: Sequence[int]) -> int:
    """0 for an even permutation, 1 for an odd one."""
    seen, odd = [False] * len(order), 0
    for i in range(len(order)):
        j, length = i, 0
        while not seen[j]:
            seen[j] = True
            j = order[j]
            length += 1
        if length:
            odd ^= (length - 1) & 1
    return odd


def permute(items: Sequence[T], keys: Sequence[Any], draws: Draws, tag: str, want_parity: int | None) -> list[T]:
    """Items in a keyed random order of the given parity (None: either; one item: unchanged)."""
    weights = draws.randoms(tag, keys)
    order = sorted(range(len(items)), key=lambda i: (weights[i], i))
    if want_parity is not None and len(order) > 1 and parity(order) != want_parity:
        order[-1], order[-2] = order[-2], order[-1]
    return [items[i] for i in order]


@functools.cache
def _phrase_re(split: str, sources: tuple[str, ...]) -> re.Pattern[str]:
    alternatives = "|".join(re.escape(s) for s in sorted(sources, key=len, reverse=True))
    # the lookahead only skips positions where no phrase can start (same matches, scanned ~1.6x faster)
    first = "".join(sorted({c for s in sources if s for c in (s[0].lower(), s[0].upper())}))
    return re.compile(rf"\b(?=[{re.escape(first)}])(?:{alternatives})\b", re.IGNORECASE)


_TABLE_RE: dict[int, tuple[dict[str, Any], re.Pattern[str]]] = {}  # id(phrase table) -> (table, pattern)


@functools.lru_cache(maxsize=4096)
def _phrase_spans(pattern: re.Pattern[str], text: str) -> tuple[tuple[int, int, str], ...]:
    """Where `pattern` matches in `text` (the scan is the costly part, and the texts recur in every episode)."""
    return tuple((m.start(), m.end(), m.group(0)) for m in pattern.finditer(text))


def paraphrase(text: str, rng: Stream, v: Vocab, p: float = 0.8) -> str:
    """Replace known phrases by the split's paraphrases (each with probability `p`), keeping the capital.

    The same as `pattern.sub(replace, text)`: the matches are taken in order and each draws as it did there.
    """
    table = v.paraphrases
    hit = _TABLE_RE.get(id(table))
    if hit is None or hit[0] is not table:  # the table's pattern, without hashing its phrases on every call
        if len(_TABLE_RE) >= 64:  # tables are few (one per split); bound the map all the same
            _TABLE_RE.clear()
        hit = _TABLE_RE[id(table)] = (table, _phrase_re(v.split, tuple(table)))
    spans = _phrase_spans(hit[1], text)
    if not spans:
        return text
    parts, at = [], 0
    for start, end, found in spans:
        parts.append(text[at:start])
        if rng.random() >= p:
            parts.append(found)
        else:
            new = choice(rng, table[found.lower()])
            parts.append(new[0].upper() + new[1:] if found[0].isupper() else new)
        at = end
    parts.append(text[at:])
    return "".join(parts)


_BULLET = re.compile(r"^\s*(?:[-*\u2022]|\d+[.)])\s+")
_SENTENCE = re.compile(r"(?<=[.!?])\s+(?=[A-Z])")


def split_rules(content: str) -> list[str]:
    """The rules of a skill's content, whatever its format (bullets, numbers or prose)."""
    lines = [line for line in content.splitlines() if line.strip()]
    if len(lines) > 1 or (lines and _BULLET.match(lines[0])):
        return [_BULLET.sub("", line).strip() for line in lines]
    return [s for s in _SENTENCE.split(content.strip()) if s]


def join_rules(rules: Sequence[str], fmt: str) -> str:
    """Render rules as `dash`, `star`, `numbered` (1.), `paren` (1)) lines or `prose`."""
    if fmt == "prose":
        return " ".join(r if r[-1:] in ".!?" else r + "." for r in rules)
    if fmt == "numbered":
        return "\n".join(f"{i}. {r}" for i, r in enumerate(rules, 1))
    if fmt == "paren":
        return "\n".join(f"{i}) {r}" for i, r in enumerate(rules, 1))
    bullet = {"dash": "-", "star": "*"}[fmt]
    return "\n".join(f"{bullet} {r}" for r in rules)


def rules_format(content: str) -> str:
    """The format `join_rules` would need to reproduce `content`."""
    lines = [line for line in content.splitlines() if line.strip()]
    if not lines or not _BULLET.match(lines[0]):
        return "prose" if len(lines) <= 1 else "dash"
    head = lines[0].lstrip()
    if head[0] == "*":
        return "star"
    if head[0].isdigit():
        return "paren" if re.match(r"\d+\)", head) else "numbered"
    return "dash"
