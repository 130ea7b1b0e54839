"""HSA transforms of tool schemas: names, parameter names, descriptions, order and numeric defaults.

Tools keep their canonical `key` and parameters their canonical `key`, so the environment maps every
presented call back to the same implementation; an omitted argument always takes the canonical default.
"""

from __future__ import annotations

from livesim.envs.hsa.core import Draws, choice, name_case, paraphrase, permute, present_name, transform
from livesim.envs.hsa.vocab import Vocab
from livesim.harness.core import Harness
from livesim.harness.tools import TOOL_IMPLS


@transform("tool_rename", "tool_schemas")
def tool_rename(h: Harness, d: Draws, v: Vocab) -> Harness:
    """Rename every tool (load_skill too) to a synonym or a random 5-15 character name."""
    taken: list[str] = []
    case = name_case(d, "tool", v)
    for t in h.tools:
        t.name = present_name(d.rng("tool_rename", t.key, t.name), v.tool_synonyms.get(t.key, []), v.tool_names,
                              taken, v, case)
        taken.append(t.name)
    return h


@transform("param_rename", "tool_schemas")
def param_rename(h: Harness, d: Draws, v: Vocab) -> Harness:
    """Rename every tool parameter to a synonym or a random 4-10 character name (unique within its tool)."""
    case = name_case(d, "param", v)
    for t in h.tools:
        taken: list[str] = []
        for p in t.params:
            p.name = present_name(d.rng("param_rename", t.key, p.key, p.name), v.param_synonyms.get(p.key, []),
                                  v.param_names, taken, v, case)
            taken.append(p.name)
    return h


@transform("tool_describe", "tool_schemas")
def tool_describe(h: Harness, d: Draws, v: Vocab) -> Harness:
    """Rewrite tool and parameter descriptions: paraphrased and set in one of the split's frames."""
    for t in h.tools:
        rng = d.rng("tool_describe", t.key, t.description)
        desc = paraphrase(t.description, rng, v)
        t.description = choice(rng, v.tool_frames).format(d=desc, lc=desc[:1].lower() + desc[1:])
        for p in t.params:
            p.description = paraphrase(p.description, d.rng("tool_describe", t.key, p.key, p.description), v)
    return h


@transform("tool_reorder", "tool_schemas")
def tool_reorder(h: Harness, d: Draws, v: Vocab) -> Harness:
    """Reorder the tools, and the parameters inside each tool."""
    h.tools = permute(h.tools, [t.key for t in h.tools], d, "tool_reorder", v.permutation_parity)
    for t in h.tools:
        t.params = permute(t.params, [p.key for p in t.params], d, f"tool_reorder:{t.key}", v.permutation_parity)
    return h


def canonical_default(tool_key: str, param_key: str) -> int | float | None:
    """The implementation's numeric default of a parameter (None if it has none or is not numeric)."""
    impl = TOOL_IMPLS.get(tool_key)
    if impl is None or param_key not in impl.args_model.model_fields:
        return None
    value = impl.args_model.model_fields[param_key].default
    return value if isinstance(value, (int, float)) and not isinstance(value, bool) else None


@transform("tool_defaults", "tool_schemas")
def tool_defaults(h: Harness, d: Draws, v: Vocab) -> Harness:
    """Present shifted numeric defaults (search_products.limit); omitted arguments keep the canonical one."""
    for t in h.tools:
        for p in t.params:
            base = canonical_default(t.key, p.key)
            if base is None:
                continue
            offset = choice(d.rng("tool_defaults", t.key, p.key), v.default_offsets)
            value = base + offset if base + offset >= 1 else base + abs(offset)
            p.default = type(base)(value)
    return h
