"""Harness-State Augmentation (HSA): task-preserving transforms of the presented harness, as env wrappers.

`make_wrappers(gym.make("LiveStreamQA-v0"), "hsa", split="heldout")` builds the full composite; names in
`WRAPPERS` pick single transforms, dimensions or tool faults. See docs/hsa.md.
"""

from __future__ import annotations

from livesim.envs.hsa.core import DIMENSIONS, TRANSFORMS, Draws, Transform
from livesim.envs.hsa.wrappers import (
    DEFAULT_P,
    WRAPPERS,
    Augment,
    Chain,
    HarnessStateAugmentation,
    HarnessWrapper,
    HookAugmentation,
    HookCorrections,
    HookLimits,
    HookTemplates,
    ParamRename,
    PromptAugmentation,
    PromptLimits,
    PromptOrder,
    PromptStyle,
    PromptTitles,
    SkillContentAugmentation,
    SkillDistractors,
    SkillFormat,
    SkillIdentifierAugmentation,
    SkillMask,
    SkillParaphrase,
    SkillRename,
    SkillReorder,
    SkillRuleOrder,
    ToolDefaults,
    ToolDescribe,
    ToolFaults,
    ToolRename,
    ToolReorder,
    ToolSchemaAugmentation,
    make_wrappers,
    parse_spec,
)


def bench_hsa(n_requests: int = 300, seed: int = 0) -> dict[str, float]:
    """Requests/s of LiveStreamQA-v0 driven by the oracle, bare and under the `hsa` composite (lazy import)."""
    from livesim.envs.hsa.measure import bench_hsa as _bench

    return _bench(n_requests, seed)


__all__ = [
    "DEFAULT_P", "DIMENSIONS", "TRANSFORMS", "WRAPPERS", "Augment", "Chain", "Draws", "HarnessStateAugmentation",
    "HarnessWrapper", "HookAugmentation", "HookCorrections", "HookLimits", "HookTemplates", "ParamRename",
    "PromptAugmentation", "PromptLimits", "PromptOrder", "PromptStyle", "PromptTitles", "SkillContentAugmentation",
    "SkillDistractors", "SkillFormat", "SkillIdentifierAugmentation", "SkillMask", "SkillParaphrase",
    "SkillRename", "SkillReorder", "SkillRuleOrder", "ToolDefaults", "ToolDescribe", "ToolFaults", "ToolRename",
    "ToolReorder", "ToolSchemaAugmentation", "Transform", "bench_hsa", "make_wrappers", "parse_spec",
]
