"""HSA transforms of skills: identifiers (rename, distractors, masked descriptions, index order) and content
(paraphrased, reordered and reformatted rules). Roles and keys never change, so grading is unchanged.
"""

from __future__ import annotations

from livesim.envs.hsa.core import (
    Draws,
    choice,
    join_rules,
    name_case,
    paraphrase,
    permute,
    present_name,
    rules_format,
    split_rules,
    transform,
)
from livesim.envs.hsa.vocab import Vocab
from livesim.harness.core import Harness, Skill


@transform("skill_distractors", "skill_ids")
def skill_distractors(h: Harness, d: Draws, v: Vocab) -> Harness:
    """Insert 1-3 plausible but useless skills (kind 'distractor': loading one is not a reply skill)."""
    rng = d.rng("skill_distractors")
    names = [s.name for s in h.skills]
    keys = [s.key for s in h.skills]
    pool = [x for x in v.distractors if x[0] not in names and f"distractor:{x[0]}" not in keys]
    k = min(int(rng.integers(1, 4)), len(pool))
    for i in rng.sample(len(pool), k):
        name, description, content = pool[int(i)]
        skill = Skill(key=f"distractor:{name}", role="distractor", kind="distractor", name=name,
                      description=description, content=content)
        h.skills.insert(int(rng.integers(len(h.skills) + 1)), skill)
    return h


@transform("skill_rename", "skill_ids")
def skill_rename(h: Harness, d: Draws, v: Vocab) -> Harness:
    """Rename every skill to a semantic synonym of its role or a random valid skill name."""
    taken: list[str] = []
    case = name_case(d, "skill", v)
    for s in h.skills:
        s.name = present_name(d.rng("skill_rename", s.key, s.name), v.skill_synonyms.get(s.role, []),
                              v.skill_names, taken, v, case)
        taken.append(s.name)
    return h


@transform("skill_mask", "skill_ids")
def skill_mask(h: Harness, d: Draws, v: Vocab) -> Harness:
    """Replace the descriptions of a random half or more of the skills by a placeholder."""
    rng = d.rng("skill_mask")
    fraction = float(rng.uniform(0.5, 1.0))
    mask = choice(rng, v.masks)
    for s in h.skills:
        if d.rng("skill_mask", s.key).random() < fraction:
            s.description = mask
    return h


@transform("skill_reorder", "skill_ids")
def skill_reorder(h: Harness, d: Draws, v: Vocab) -> Harness:
    """Reorder the skills (and so the skill index in the prompt)."""
    h.skills = permute(h.skills, [s.key for s in h.skills], d, "skill_reorder", v.permutation_parity)
    return h


@transform("skill_paraphrase", "skill_content")
def skill_paraphrase(h: Harness, d: Draws, v: Vocab) -> Harness:
    """Paraphrase the rules and descriptions of skills with the split's phrase table."""
    for s in h.skills:
        s.content = paraphrase(s.content, d.rng("skill_paraphrase", s.key, s.content), v)
        s.description = paraphrase(s.description, d.rng("skill_paraphrase", s.key, s.description), v)
    return h


@transform("skill_rule_order", "skill_content")
def skill_rule_order(h: Harness, d: Draws, v: Vocab) -> Harness:
    """Reorder the rules inside each skill's content (keeping its format)."""
    for s in h.skills:
        rules = split_rules(s.content)
        if len(rules) > 1:
            shuffled = permute(rules, rules, d, f"skill_rule_order:{s.key}", v.permutation_parity)
            s.content = join_rules(shuffled, rules_format(s.content))
    return h


@transform("skill_format", "skill_content")
def skill_format(h: Harness, d: Draws, v: Vocab) -> Harness:
    """Render every skill's rules in one of the split's formats (star bullets, 1., 1) or prose)."""
    fmt = choice(d.rng("skill_format"), v.content_formats)
    for s in h.skills:
        rules = split_rules(s.content)
        if rules:
            s.content = join_rules(rules, fmt)
    return h
