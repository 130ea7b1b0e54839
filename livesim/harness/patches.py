"""Operator patches: typed, timed changes to the harness while a stream runs.

A patch adds, removes, renames or rewrites a skill, renames a tool or one of its parameters, adds or removes
a hook, or changes a limit. Patches change the canonical harness the operator runs (not augmentation), bump
its version and fingerprint, and apply between requests: the next request's prompt and tools show them.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from livesim.harness.core import Harness, Hook, Skill
from livesim.harness.hooks import CHECK_EVENTS


class _Patch(BaseModel):
    model_config = ConfigDict(extra="forbid")
    at_s: float = Field(0.0, ge=0, description="Stream time (s) from which the patch is in force.")


class AddSkill(_Patch):
    op: Literal["add_skill"] = "add_skill"
    skill: Skill


class RemoveSkill(_Patch):
    op: Literal["remove_skill"] = "remove_skill"
    name: str = Field(description="Presented name of the skill to remove.")


class RenameSkill(_Patch):
    op: Literal["rename_skill"] = "rename_skill"
    name: str
    new_name: str = Field(min_length=1, max_length=64, pattern=r"^[a-z0-9]+(-[a-z0-9]+)*$")


class RewriteSkill(_Patch):
    op: Literal["rewrite_skill"] = "rewrite_skill"
    name: str
    description: str | None = None
    content: str | None = None


class RenameTool(_Patch):
    op: Literal["rename_tool"] = "rename_tool"
    name: str = Field(description="Presented name of the tool.")
    new_name: str = Field(min_length=1, max_length=64, pattern=r"^[A-Za-z_][A-Za-z0-9_.-]*$")


class RenameParam(_Patch):
    op: Literal["rename_param"] = "rename_param"
    tool: str = Field(description="Presented name of the tool.")
    name: str = Field(description="Presented name of the parameter.")
    new_name: str = Field(min_length=1, max_length=64, pattern=r"^[A-Za-z_][A-Za-z0-9_]*$")


class AddHook(_Patch):
    op: Literal["add_hook"] = "add_hook"
    hook: Hook


class RemoveHook(_Patch):
    op: Literal["remove_hook"] = "remove_hook"
    key: str


class SetLimit(_Patch):
    op: Literal["set_limit"] = "set_limit"
    limit: Literal["max_reply_chars", "turn_cap", "max_tool_calls"]
    value: int


HarnessPatch = Annotated[AddSkill | RemoveSkill | RenameSkill | RewriteSkill | RenameTool | RenameParam | AddHook
                         | RemoveHook | SetLimit, Field(discriminator="op")]


class PatchError(ValueError):
    """A patch that cannot apply to the harness in force (names what is missing)."""


def apply_patch(harness: Harness, patch: Any) -> Harness:
    """Return a new harness with `patch` applied, version bumped and `last_patch` describing it."""
    h = harness.model_copy(deep=True)
    op = patch.op

    def skill(name: str) -> Skill:
        s = h.skill_by_name(name)
        if s is None:
            raise PatchError(f"{op}: no skill named {name!r}; skills: {[x.name for x in h.skills]}")
        return s

    def tool(name: str) -> Any:
        t = h.tool_by_name(name)
        if t is None:
            raise PatchError(f"{op}: no tool named {name!r}; tools: {[x.name for x in h.tools]}")
        return t

    if op == "add_skill":
        if h.skill_by_name(patch.skill.name) or h.skill_by_key(patch.skill.key):
            raise PatchError(f"add_skill: a skill named {patch.skill.name!r} (key {patch.skill.key!r}) exists")
        h.skills.append(patch.skill)
        desc = f"added skill {patch.skill.name}"
    elif op == "remove_skill":
        s = skill(patch.name)
        h.skills = [x for x in h.skills if x is not s]
        desc = f"removed skill {patch.name}"
    elif op == "rename_skill":
        if h.skill_by_name(patch.new_name):
            raise PatchError(f"rename_skill: {patch.new_name!r} is taken")
        skill(patch.name).name = patch.new_name
        desc = f"renamed skill {patch.name} -> {patch.new_name}"
    elif op == "rewrite_skill":
        s = skill(patch.name)
        if patch.description is not None:
            s.description = patch.description
        if patch.content is not None:
            s.content = patch.content
        desc = f"rewrote skill {patch.name}"
    elif op == "rename_tool":
        if h.tool_by_name(patch.new_name):
            raise PatchError(f"rename_tool: {patch.new_name!r} is taken")
        tool(patch.name).name = patch.new_name
        desc = f"renamed tool {patch.name} -> {patch.new_name}"
    elif op == "rename_param":
        t = tool(patch.tool)
        p = next((x for x in t.params if x.name == patch.name), None)
        if p is None:
            raise PatchError(f"rename_param: tool {patch.tool!r} has no parameter {patch.name!r}; "
                             f"parameters: {[x.name for x in t.params]}")
        if any(x.name == patch.new_name for x in t.params):
            raise PatchError(f"rename_param: {patch.new_name!r} is taken in {patch.tool!r}")
        p.name = patch.new_name
        desc = f"renamed {patch.tool}.{patch.name} -> {patch.new_name}"
    elif op == "add_hook":
        if patch.hook.check not in CHECK_EVENTS:
            raise PatchError(f"add_hook: unknown check {patch.hook.check!r}; registered: {sorted(CHECK_EVENTS)}")
        if CHECK_EVENTS[patch.hook.check] != patch.hook.event:
            raise PatchError(f"add_hook: check {patch.hook.check!r} runs at event "
                             f"{CHECK_EVENTS[patch.hook.check]!r}, not {patch.hook.event!r}")
        if any(x.key == patch.hook.key for x in h.hooks):
            raise PatchError(f"add_hook: a hook with key {patch.hook.key!r} exists")
        h.hooks.append(patch.hook)
        desc = f"added hook {patch.hook.key}"
    elif op == "remove_hook":
        if not any(x.key == patch.key for x in h.hooks):
            raise PatchError(f"remove_hook: no hook {patch.key!r}; hooks: {[x.key for x in h.hooks]}")
        h.hooks = [x for x in h.hooks if x.key != patch.key]
        desc = f"removed hook {patch.key}"
    elif op == "set_limit":
        limits = h.prompt.limits.model_copy(update={patch.limit: patch.value})
        h.prompt.limits = type(limits).model_validate(limits.model_dump())  # validates the range
        desc = f"set {patch.limit} = {patch.value}"
    else:  # pragma: no cover - the discriminated union admits no other op
        raise PatchError(f"unknown patch op {op!r}")
    h.version = harness.version + 1
    h.last_patch = f"t={patch.at_s:g}s: {desc}"
    return h
