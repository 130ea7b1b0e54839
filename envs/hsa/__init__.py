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
    HarnessPool,
    HarnessStateAugmentation,
    HarnessWrapper,
    HookAugmentation,
    HookCorrections,
    HookLimits,
    HookTemplates,
    ParamRename,
    Pooled,
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

__all__ = [
    "DEFAULT_P", "DIMENSIONS", "TRANSFORMS", "WRAPPERS", "Augment", "Chain", "Draws", "HarnessPool",
    "HarnessStateAugmentation", "HarnessWrapper", "HookAugmentation", "HookCorrections", "HookLimits", "HookTemplates",
    "ParamRename", "Pooled", "PromptAugmentation", "PromptLimits", "PromptOrder", "PromptStyle", "PromptTitles",
    "SkillContentAugmentation",
    "SkillDistractors", "SkillFormat", "SkillIdentifierAugmentation", "SkillMask", "SkillParaphrase",
    "SkillRename", "SkillReorder", "SkillRuleOrder", "ToolDefaults", "ToolDescribe", "ToolFaults", "ToolRename",
    "ToolReorder", "ToolSchemaAugmentation", "Transform", "make_wrappers", "parse_spec",
]
