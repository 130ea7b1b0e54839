"""HSA as Gymnasium wrappers: one per transform, per-dimension and full composites, and tool faults.

A wrapper changes nothing per step: it registers a harness transform on the base env's `augment`
(composing with any already there, so wrappers stack), which the env applies to a copy of the canonical
harness whenever it builds a stream. Every draw comes from the env's augmentation generator.
"""

from __future__ import annotations

import numbers
from dataclasses import dataclass, field
from typing import Any, ClassVar

import gymnasium as gym
import numpy as np

import livesim.envs.hsa.hooks
import livesim.envs.hsa.prompt
import livesim.envs.hsa.skills
import livesim.envs.hsa.tools  # noqa: F401  (these four register the transforms)
from livesim.envs.hsa.core import _2_POW_M53, DIMENSIONS, TRANSFORMS, Draws
from livesim.envs.hsa.vocab import SPLITS, vocab
from livesim.harness.core import Harness
from livesim.harness.faults import FaultConfig
from livesim.harness.shared import shared_default_harness
from livesim.harness.tools import TOOL_IMPLS

DEFAULT_P = 2 / 3
# The composite's order: distractors exist before renames and masks reach them; paraphrase precedes format.
ORDER: tuple[str, ...] = tuple(n for dim in ("skill_ids", "skill_content", "tool_schemas", "prompt", "hooks")
                               for n in DIMENSIONS[dim])


@dataclass(frozen=True)
class Augment:
    """A `HarnessTransform`: each named transform applied with probability `p`, in order (`synonym_p`: the
    vocabulary's synonym probability for renamed names, None for its own).
    """

    names: tuple[str, ...]
    split: str
    p: float
    synonym_p: float | None = None

    def __call__(self, harness: Harness, rng: np.random.Generator) -> Harness:
        v = vocab(self.split, self.synonym_p)
        for name, (coin, draws) in zip(self.names, _coins(rng, len(self.names)), strict=True):
            if coin < self.p:
                harness = TRANSFORMS[name].fn(harness, draws, v)
        return harness


def _coins(rng: np.random.Generator, n: int) -> list[tuple[float, Draws]]:
    """Per transform, in order: `rng.random()` (does it apply?) then `Draws(rng)` (its keyed generators), drawn
    whether or not it applies, so later draws never shift. With numpy's default PCG64 both draws take one 64-bit
    word each (`random()` is `(x >> 11) * 2**-53`, `integers(2**62)` is `x >> 2`), so the 2n words come in one
    call, the same values as the 2n scalar calls.
    """
    bits = getattr(rng, "bit_generator", None)
    if type(bits) is not np.random.PCG64:
        return [(float(rng.random()), Draws(rng)) for _ in range(n)]
    raw = bits.random_raw(2 * n).tolist()
    return [((raw[2 * i] >> 11) * _2_POW_M53, Draws(None, raw[2 * i + 1] >> 2)) for i in range(n)]


@dataclass(frozen=True)
class Chain:
    """Two harness transforms, one after the other (how stacked wrappers compose)."""

    first: Any
    second: Any

    def __call__(self, harness: Harness, rng: np.random.Generator) -> Harness:
        return self.second(self.first(harness, rng), rng)


def _base(env: Any) -> Any:
    if not isinstance(env, gym.Env):
        raise TypeError(f"expected a gymnasium.Env, got {type(env).__name__}")
    base = env.unwrapped
    if not hasattr(base, "augment") or not hasattr(base, "faults"):
        raise TypeError(f"expected a livesim env (LiveStream-v0 or LiveStreamQA-v0), got {type(base).__name__}")
    return base


class HarnessWrapper(gym.Wrapper[Any, Any, Any, Any]):
    """Base of the HSA wrappers: applies `transforms` (each with probability `p`) from the `split` vocabulary.

    `synonym_p` (default: the vocabulary's, 0.4; stress 0.5) is the probability that a renamed tool, parameter or
    skill takes
    one of the vocabulary's synonyms rather than a generated name; 0 presents generated names only (a training
    option: such names can only be copied from the prompt, not recalled). Records keep the wrapper spec, not
    this option, so a replay presents the default.
    """

    transforms: ClassVar[tuple[str, ...]] = ()

    def __init__(self, env: gym.Env[Any, Any], split: str = "train", p: float = DEFAULT_P,
                 synonym_p: float | None = None) -> None:
        base = _base(env)
        if split not in SPLITS:
            raise ValueError(f"expected split {', '.join(map(repr, SPLITS))}, got {split!r}")
        if isinstance(p, bool) or not isinstance(p, numbers.Real) or not 0.0 <= float(p) <= 1.0:
            raise ValueError(f"expected p in [0, 1], got {p!r}")
        if synonym_p is not None and (isinstance(synonym_p, bool) or not isinstance(synonym_p, numbers.Real)
                                      or not 0.0 <= float(synonym_p) <= 1.0):
            raise ValueError(f"expected synonym_p in [0, 1] or None, got {synonym_p!r}")
        super().__init__(env)
        self.split = split
        self.p = float(p)
        self.synonym_p = None if synonym_p is None else float(synonym_p)
        self.transform = Augment(tuple(self.transforms), split, self.p, self.synonym_p)
        base.augment = self.transform if base.augment is None else Chain(base.augment, self.transform)


def _single(name: str) -> type[HarnessWrapper]:
    t = TRANSFORMS[name]
    cls_name = "".join(part.capitalize() for part in name.split("_"))
    return type(cls_name, (HarnessWrapper,), {"transforms": (name,), "__doc__": f"{t.doc}",
                                              "__module__": __name__})


SkillRename = _single("skill_rename")
SkillDistractors = _single("skill_distractors")
SkillMask = _single("skill_mask")
SkillReorder = _single("skill_reorder")
SkillParaphrase = _single("skill_paraphrase")
SkillRuleOrder = _single("skill_rule_order")
SkillFormat = _single("skill_format")
ToolRename = _single("tool_rename")
ParamRename = _single("param_rename")
ToolDescribe = _single("tool_describe")
ToolReorder = _single("tool_reorder")
ToolDefaults = _single("tool_defaults")
PromptOrder = _single("prompt_order")
PromptStyle = _single("prompt_style")
PromptTitles = _single("prompt_titles")
PromptLimits = _single("prompt_limits")
HookTemplates = _single("hook_templates")
HookLimits = _single("hook_limits")
HookCorrections = _single("hook_corrections")


class HarnessStateAugmentation(HarnessWrapper):
    """All HSA transforms of the five dimensions, each applied with probability `p` (default 2/3)."""

    transforms = ORDER


class SkillIdentifierAugmentation(HarnessWrapper):
    """Skill identifiers: rename, distractors, masked descriptions, index order."""

    transforms = tuple(DIMENSIONS["skill_ids"])


class SkillContentAugmentation(HarnessWrapper):
    """Skill content: paraphrase, rule order, formatting."""

    transforms = tuple(DIMENSIONS["skill_content"])


class ToolSchemaAugmentation(HarnessWrapper):
    """Tool schemas: tool and parameter names, descriptions, order, numeric defaults."""

    transforms = tuple(DIMENSIONS["tool_schemas"])


class PromptAugmentation(HarnessWrapper):
    """Prompt structure: block and rule order, style, titles, numeric limits."""

    transforms = tuple(DIMENSIONS["prompt"])


class HookAugmentation(HarnessWrapper):
    """Hooks: retry-message templates and structure, retry limits, simulated corrections."""

    transforms = tuple(DIMENSIONS["hooks"])


class ToolFaults(gym.Wrapper[Any, Any, Any, Any]):
    """Tool services that time out, return malformed output or deny permission, at set rates per call.

    Faults reach the agent as tool messages (never exceptions) and are not task-preserving: they are for
    robustness training and evaluation (T3). `tools` limits faults to some canonical keys (default: all).
    """

    def __init__(self, env: gym.Env[Any, Any], timeout: float = 0.1, malformed: float = 0.05,
                 denied: float = 0.05, tools: list[str] | None = None) -> None:
        base = _base(env)
        rates = {"timeout": timeout, "malformed": malformed, "denied": denied}
        for name, rate in rates.items():
            if isinstance(rate, bool) or not isinstance(rate, numbers.Real) or not 0.0 <= float(rate) <= 1.0:
                raise ValueError(f"expected {name} in [0, 1], got {rate!r}")
        if sum(rates.values()) > 1.0 + 1e-12:
            raise ValueError(f"expected timeout + malformed + denied <= 1, got {sum(rates.values()):g}")
        tools = list(tools or [])
        unknown = [t for t in tools if t not in TOOL_IMPLS]
        if unknown:
            raise ValueError(f"expected canonical tool keys from {sorted(TOOL_IMPLS)}, got {unknown}")
        super().__init__(env)
        self.config = FaultConfig(timeout=timeout, malformed=malformed, denied=denied, tools=tools)
        base.faults = self.config.injector()


POOL_SIZE = 256


@dataclass(frozen=True)
class Pooled:
    """A finite pool of `size` presented harnesses per canonical harness: an episode draws one variant index
    from its augmentation generator, and variant k is `inner` applied once with its own generator
    (`SeedSequence(seed, spawn_key=(k,))`), then shared by every episode that draws k (not copied, never edited).

    What a seed presents differs from exact HSA (another draw, and K variants instead of one per episode),
    so pooled and exact runs are different augmentations; both are deterministic. `cache_limit` bounds the
    variants kept (all canonical harnesses together; the oldest are dropped first).
    """

    inner: Any
    size: int = POOL_SIZE
    seed: int = 0
    cache_limit: int = 4 * POOL_SIZE
    _cache: dict[tuple[str, int], tuple[Harness, str]] = field(default_factory=dict, compare=False, repr=False)

    def pooled(self, canonical: Harness, canonical_fp: str, rng: np.random.Generator) -> tuple[Harness, str]:
        """(presented harness, its fingerprint) for an episode; the harness is shared: never edit it."""
        return self._variant(canonical, canonical_fp, int(rng.integers(self.size)))

    def _variant(self, canonical: Harness, canonical_fp: str, k: int) -> tuple[Harness, str]:
        key = (canonical_fp, k)
        hit = self._cache.get(key)
        if hit is None:
            k_rng = np.random.default_rng(np.random.SeedSequence(self.seed, spawn_key=(key[1],)))
            presented = self.inner(canonical.clone(), k_rng)
            hit = (presented, presented.fingerprint)
            while len(self._cache) >= self.cache_limit:
                self._cache.pop(next(iter(self._cache)))
            self._cache[key] = hit
        return hit

    def prebuild(self, canonical: Harness) -> None:
        """Build all `size` variants of `canonical` now (otherwise each is built the first time it is drawn)."""
        fp = canonical.fingerprint
        for k in range(self.size):
            if (fp, k) not in self._cache:
                self._variant(canonical, fp, k)

    def __call__(self, harness: Harness, rng: np.random.Generator) -> Harness:
        """As a plain transform (e.g. under a later wrapper, which edits what it gets): a copy of the variant."""
        return self.pooled(harness, harness.fingerprint, rng)[0].clone()


class HarnessPool(gym.Wrapper[Any, Any, Any, Any]):
    """Makes the HSA wrappers below it draw from a finite pool of `size` presented harnesses (see `Pooled`).

    Exact HSA builds a new presented harness for every episode (~2 ms: most of a `LiveStreamQA` request); the pool
    builds each variant once per canonical harness and shares it, schemas and prompt blocks included. Put it
    after the HSA wrappers: `make_wrappers(env, "hsa,hsa_pool")`. Records keep the wrapper spec, so a replay
    rebuilds the pool at the default size and seed; other sizes are for Python use.
    """

    def __init__(self, env: gym.Env[Any, Any], size: int = POOL_SIZE, seed: int = 0) -> None:
        base = _base(env)
        if base.augment is None:
            raise ValueError("hsa_pool pools the HSA wrappers below it, but none is applied; "
                             "put it after them, e.g. 'hsa,hsa_pool'")
        if isinstance(size, bool) or not isinstance(size, numbers.Integral) or size < 1:
            raise ValueError(f"expected size >= 1, got {size!r}")
        if isinstance(seed, bool) or not isinstance(seed, numbers.Integral) or seed < 0:
            raise ValueError(f"expected seed >= 0, got {seed!r}")
        super().__init__(env)
        self.size, self.seed = int(size), int(seed)
        self.pool: Pooled = Pooled(base.augment, self.size, self.seed, max(4 * self.size, POOL_SIZE))
        base.augment = self.pool

    def prebuild(self) -> HarnessPool:
        """Build every variant of the env's canonical harness now, so that no episode pays for one (a run that
        must not pay the first-draw cost, e.g. a benchmark or RL workers). Returns self.
        """
        harness = _base(self.env).harness
        self.pool.prebuild(shared_default_harness()[0] if harness is None else harness)
        return self


WRAPPERS: dict[str, type[gym.Wrapper[Any, Any, Any, Any]]] = {
    "hsa": HarnessStateAugmentation,
    "hsa_skill_ids": SkillIdentifierAugmentation,
    "hsa_skill_content": SkillContentAugmentation,
    "hsa_tools": ToolSchemaAugmentation,
    "hsa_prompt": PromptAugmentation,
    "hsa_hooks": HookAugmentation,
    **{name: globals()["".join(part.capitalize() for part in name.split("_"))] for name in ORDER},
    "tool_faults": ToolFaults,
    "hsa_pool": HarnessPool,
}


def parse_spec(spec: str | list[str] | tuple[str, ...]) -> list[str]:
    """'hsa' or 'skill_rename,tool_rename' (or a list) -> wrapper names, checked against `WRAPPERS`."""
    names = [s.strip() for s in spec.split(",")] if isinstance(spec, str) else [str(s).strip() for s in spec]
    names = [n for n in names if n]
    if not names:
        raise ValueError(f"expected wrapper names from {sorted(WRAPPERS)}, got {spec!r}")
    unknown = [n for n in names if n not in WRAPPERS]
    if unknown:
        raise ValueError(f"unknown wrapper(s) {unknown}; valid names: {', '.join(sorted(WRAPPERS))}")
    return names


def make_wrappers(env: gym.Env[Any, Any], spec: str | list[str] | tuple[str, ...], split: str = "train",
                  p: float = DEFAULT_P, synonym_p: float | None = None) -> gym.Env[Any, Any]:
    """Wrap `env` in the named wrappers, in order: `make_wrappers(gym.make(...), "hsa", split="heldout")`."""
    for name in parse_spec(spec):
        cls = WRAPPERS[name]
        env = cls(env, split=split, p=p, synonym_p=synonym_p) if issubclass(cls, HarnessWrapper) else cls(env)
    return env
