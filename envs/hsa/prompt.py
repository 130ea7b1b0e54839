"""HSA transforms of the prompt pipeline: block and rule order, style, block titles and numeric limits.

Limits are perturbed inside bands that still let a correct answer through (reply >= 280 characters, at
least 4 turns and 4 tool calls a turn); the presented limits are the ones in force and graded.
"""

from __future__ import annotations

from livesim.envs.hsa.core import Draws, choice, permute, transform
from livesim.envs.hsa.vocab import Vocab
from livesim.harness.core import Harness, Limits


@transform("prompt_order", "prompt")
def prompt_order(h: Harness, d: Draws, v: Vocab) -> Harness:
    """Reorder the prompt blocks (two families: persona first, persona elsewhere) and the rules."""
    spec = h.prompt
    blocks = permute(spec.blocks, spec.blocks, d, "prompt_order", 0)
    if "persona" in blocks and len(blocks) > 1:
        blocks.remove("persona")
        first = v.persona_first if v.persona_first is not None else choice(d.rng("prompt_order", "family"),
                                                                            (True, False))
        at = 0 if first else int(d.rng("prompt_order", "persona").integers(1, len(blocks) + 1))
        blocks.insert(at, "persona")
    spec.blocks = blocks
    spec.rules = permute(spec.rules, spec.rules, d, "prompt_order:rules", v.permutation_parity)
    return h


@transform("prompt_style", "prompt")
def prompt_style(h: Harness, d: Draws, v: Vocab) -> Harness:
    """Switch the prompt style to another of the split's (Markdown, XML, JSON, compact; stress: JSON only)."""
    others = [s for s in v.styles if s != h.prompt.style] or list(v.styles)
    h.prompt.style = choice(d.rng("prompt_style"), others)  # type: ignore[arg-type,assignment]
    return h


@transform("prompt_titles", "prompt")
def prompt_titles(h: Harness, d: Draws, v: Vocab) -> Harness:
    """Rename the block titles from the split's title sets."""
    titles = dict(h.prompt.titles)
    for b in h.prompt.blocks:
        if b in v.titles:
            titles[b] = choice(d.rng("prompt_titles", b), v.titles[b])
    h.prompt.titles = titles
    return h


@transform("prompt_limits", "prompt")
def prompt_limits(h: Harness, d: Draws, v: Vocab) -> Harness:
    """Perturb the reply length, turn cap and tool calls per turn within the split's legal bands."""
    values = h.prompt.limits.model_dump()
    for name, band in v.limit_bands.items():
        values[name] = int(choice(d.rng("prompt_limits", name), band))
    h.prompt.limits = Limits.model_validate(values)
    return h
