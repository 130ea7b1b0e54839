"""The Harness: the data model (`core`), skills, tools, hooks, the prompt pipeline, patches and faults.

The package re-exports the data model of `livesim.harness.core`, so `from livesim.harness import Harness` works.
"""

from livesim.harness.core import (
    BLOCKS,
    DEFAULT_HOOKS,
    LOAD_SKILL_DESCRIPTION,
    SKILL_NAME_PATTERN,
    STYLES,
    Harness,
    Hook,
    Limits,
    Param,
    PromptSpec,
    Skill,
    Tool,
    default_harness,
)

__all__ = ["BLOCKS", "DEFAULT_HOOKS", "LOAD_SKILL_DESCRIPTION", "SKILL_NAME_PATTERN", "STYLES", "Harness", "Hook",
           "Limits", "Param", "PromptSpec", "Skill", "Tool", "default_harness"]
