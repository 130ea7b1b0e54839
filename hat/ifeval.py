"""T4 instruction following: IFEval's verifiable instructions on the project's own seeded prompts.

Checkers come from the Apache-2.0 package `if-verifiable` (IFEval's reference checkers; its data loader needs
the Hugging Face hub and is never called here). One thing does not work offline in it: sentence counting loads
NLTK's `punkt_tab` data, which is not shipped; when that data is missing, sentence splitting (in
`length_constraints:number_sentences` and, through `word_tokenize`, `change_case:capital_word_frequency`)
uses NLTK's untrained `PunktSentenceTokenizer` (same algorithm, no learned abbreviation list), so counts can
differ from the reference on abbreviations such as "Mr.". Everything else runs as in the reference.

Prompts: a task sentence (live-stream shop writing and general writing tasks) plus one to three instruction
descriptions rendered by the checkers themselves, with every argument drawn from a `numpy` generator seeded by
`(family, seed, index)`, conflicts excluded with IFEval's own conflict table. The T4 family is `"t4-eval"`
with seeds from `T4_SEED0`; distillation prompt generators must use another family tag (the issue-10 generator
uses its own) so evaluation prompts never appear in training. The real IFEval JSONL (`key`, `prompt`,
`instruction_id_list`, `kwargs` per line) loads with `load_ifeval_jsonl`.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from livesim.stream.paths import MAX_PROMPT_FILE_BYTES, PathProblem, read_text, shown

T4_FAMILY = "t4-eval"
T4_SEED0 = 4_000_000

@dataclass(frozen=True)
class IFPrompt:
    """One instruction-following prompt: the text and IFEval instruction ids with their arguments."""

    id: str
    prompt: str
    instruction_ids: tuple[str, ...]
    kwargs: tuple[dict[str, Any], ...]
    subset: str = "all"


TASKS = (
    "Write a short announcement for viewers of a live-stream shop about tonight's flash sale on {item}.",
    "Describe {item} for a shopper who cannot see the product.",
    "Write a reply to a viewer who asks whether {item} is worth its price.",
    "Explain to a new viewer how to order {item} during a live stream.",
    "Write a short apology to a viewer whose {item} arrived late.",
    "Write a product comparison of two kinds of {item}.",
    "Give advice on choosing {item} as a gift.",
    "Write a short story about a street market that sells {item}.",
    "Summarise the benefits of buying {item} online instead of in a store.",
    "Write a letter to a friend recommending {item}.",
    "Explain how to care for {item} so that it lasts longer.",
    "Write a poem about {item}.",
    "Write a blog post about the history of {item}.",
    "List things to check before returning {item}.",
    "Write a dialogue between a host and a viewer about {item}.",
    "Write a short guide to packing {item} for a trip.",
)
ITEMS = ("a rain jacket", "a ceramic teapot", "running shoes", "a power bank", "wildflower honey", "a wool scarf",
         "noise-cancelling headphones", "a cast-iron pan", "a desk lamp", "a face serum", "a hiking backpack",
         "an e-reader", "green tea", "a cotton t-shirt", "a smart watch", "a yoga mat")
KEYWORDS = ("quality", "shipping", "discount", "comfort", "warranty", "season", "gift", "colour", "price", "stock",
            "durable", "light", "family", "weekend", "morning", "favourite")
LANGS = ("fr", "de", "es", "it", "pt")
LETTERS = "aeiorstln"
TYPES = (
    "keywords:existence", "keywords:frequency", "keywords:forbidden_words", "keywords:letter_frequency",
    "language:response_language", "length_constraints:number_sentences", "length_constraints:number_paragraphs",
    "length_constraints:number_words", "length_constraints:nth_paragraph_first_word",
    "detectable_content:number_placeholders", "detectable_content:postscript",
    "detectable_format:number_bullet_lists", "detectable_format:constrained_response",
    "detectable_format:number_highlighted_sections", "detectable_format:multiple_sections",
    "detectable_format:json_format", "detectable_format:title", "combination:two_responses",
    "combination:repeat_prompt", "startend:end_checker", "change_case:capital_word_frequency",
    "change_case:english_capital", "change_case:english_lowercase", "punctuation:no_comma", "startend:quotation",
)


def _registry() -> tuple[dict[str, Any], dict[str, set[str]]]:
    try:
        _offline_sentences()
        from if_verifiable.ifeval.instructions_registry import (
            INSTRUCTION_CONFLICTS,
            INSTRUCTION_DICT,
            conflict_make,
        )
    except ImportError as e:
        raise ImportError(f"T4 needs the IFEval checkers of the package if-verifiable (Python >= 3.11): "
                          f"pip install 'livesim[train]' or pip install if-verifiable ({e})") from None

    return INSTRUCTION_DICT, conflict_make({k: set(v) for k, v in INSTRUCTION_CONFLICTS.items()})


_PATCHED = False


def _offline_sentences() -> None:
    """Fall back to an untrained Punkt tokenizer when NLTK's punkt data is not installed."""
    global _PATCHED
    if _PATCHED:
        return
    import nltk
    from if_verifiable.ifeval import instructions_util as util

    try:
        util._get_sentence_tokenizer()
    except LookupError:
        tokenizer = nltk.tokenize.punkt.PunktSentenceTokenizer()
        util._get_sentence_tokenizer = lambda: tokenizer
        # word_tokenize (capital_word_frequency) splits sentences first, through the same missing data
        nltk.tokenize._get_punkt_tokenizer = lambda language="english": tokenizer
    _PATCHED = True


def _args(kind: str, rng: np.random.Generator, task: str) -> dict[str, Any]:
    rel = ("less than", "at least")[int(rng.integers(2))]
    pick = lambda xs: xs[int(rng.integers(len(xs)))]  # noqa: E731
    if kind == "keywords:existence":
        return {"keywords": sorted(rng.choice(KEYWORDS, size=2, replace=False).tolist())}
    if kind == "keywords:frequency":
        return {"keyword": pick(KEYWORDS), "frequency": int(rng.integers(1, 4)), "relation": rel}
    if kind == "keywords:forbidden_words":
        return {"forbidden_words": sorted(rng.choice(KEYWORDS, size=2, replace=False).tolist())}
    if kind == "keywords:letter_frequency":
        return {"letter": pick(LETTERS), "let_frequency": int(rng.integers(2, 8)), "let_relation": rel}
    if kind == "language:response_language":
        return {"language": pick(LANGS)}
    if kind == "length_constraints:number_sentences":
        return {"num_sentences": int(rng.integers(2, 8)), "relation": rel}
    if kind == "length_constraints:number_paragraphs":
        return {"num_paragraphs": int(rng.integers(2, 5))}
    if kind == "length_constraints:number_words":
        return {"num_words": int(rng.integers(3, 16)) * 10, "relation": rel}
    if kind == "length_constraints:nth_paragraph_first_word":
        n = int(rng.integers(2, 5))
        return {"num_paragraphs": n, "nth_paragraph": int(rng.integers(1, n + 1)), "first_word": pick(KEYWORDS)}
    if kind == "detectable_content:number_placeholders":
        return {"num_placeholders": int(rng.integers(1, 4))}
    if kind == "detectable_content:postscript":
        return {"postscript_marker": pick(("P.S.", "P.P.S"))}
    if kind == "detectable_format:number_bullet_lists":
        return {"num_bullets": int(rng.integers(2, 6))}
    if kind == "detectable_format:number_highlighted_sections":
        return {"num_highlights": int(rng.integers(1, 4))}
    if kind == "detectable_format:multiple_sections":
        return {"section_spliter": pick(("Section", "SECTION")), "num_sections": int(rng.integers(2, 5))}
    if kind == "combination:repeat_prompt":
        return {"prompt_to_repeat": task}
    if kind == "startend:end_checker":
        return {"end_phrase": pick(("Any other questions?", "Is there anything else I can help with?",
                                    "See you in the next stream."))}
    if kind == "change_case:capital_word_frequency":
        return {"capital_frequency": int(rng.integers(1, 6)), "capital_relation": rel}
    return {}


def describe(kind: str, kwargs: dict[str, Any]) -> str:
    """The instruction's text, as IFEval's checker renders it for these arguments."""
    registry, _ = _registry()
    checker = registry[kind](kind)
    return str(checker.build_description(**kwargs)).strip()


def generate_prompts(n: int, seed: int, family: str = T4_FAMILY) -> list[IFPrompt]:
    """`n` prompts, each a task and 1-3 non-conflicting instructions, fully determined by (family, seed)."""
    _, conflicts = _registry()
    fam = int.from_bytes(hashlib.blake2b(family.encode(), digest_size=4).digest(), "little")
    out = []
    for i in range(n):
        rng = np.random.default_rng([fam, seed, i])
        task = TASKS[int(rng.integers(len(TASKS)))].format(item=ITEMS[int(rng.integers(len(ITEMS)))])
        k = int(rng.choice([1, 2, 3], p=[0.4, 0.4, 0.2]))
        kinds: list[str] = []
        for kind in rng.permutation(TYPES).tolist():
            if len(kinds) == k:
                break
            if kind in kinds or any(kind in conflicts.get(x, set()) or x in conflicts.get(kind, set())
                                    for x in kinds):
                continue
            kinds.append(kind)
        kwargs = [_args(kind, rng, task) for kind in kinds]
        text = " ".join([task] + [describe(kind, kw) for kind, kw in zip(kinds, kwargs, strict=True)])
        out.append(IFPrompt(id=f"T4/{i:04d}", prompt=text, instruction_ids=tuple(kinds), kwargs=tuple(kwargs)))
    return out


def check(prompt: IFPrompt, response: str) -> dict[str, Any]:
    """IFEval's verdicts: per instruction strict/loose, and the prompt-level all-pass (strict/loose)."""
    from if_verifiable.common import evaluate_instructions

    registry, _ = _registry()
    unknown = [k for k in prompt.instruction_ids if k not in registry]
    if unknown:
        raise ValueError(f"{prompt.id}: unknown IFEval instruction {unknown[0]!r}; known: {sorted(registry)}")
    results, _ = evaluate_instructions(response=response, instruction_id_list=list(prompt.instruction_ids),
                                       kwargs_list=[dict(k) for k in prompt.kwargs], prompt=prompt.prompt,
                                       instruction_registry=registry)
    strict = [r.strict_pass for r in results] or [False] * len(prompt.instruction_ids)
    loose = [r.loose_pass for r in results] or [False] * len(prompt.instruction_ids)
    return {"strict": strict, "loose": loose, "prompt_strict": float(all(strict)), "prompt_loose": float(all(loose))}


def load_ifeval_jsonl(path: str | Path) -> list[IFPrompt]:
    """The real IFEval set (one JSON object a line: key, prompt, instruction_id_list, kwargs)."""
    path = Path(path)
    try:
        text = read_text(path, MAX_PROMPT_FILE_BYTES)
    except FileNotFoundError:
        raise FileNotFoundError(f"--ifeval-data: no such file '{shown(path)}'") from None
    except PathProblem as e:
        raise ValueError(f"--ifeval-data {shown(path)}: {e}") from None
    registry, _ = _registry()
    out = []
    for n, line in enumerate(text.splitlines(), 1):
        if not line.strip():
            continue
        try:
            row = json.loads(line)
            ids, kwargs = list(row["instruction_id_list"]), list(row["kwargs"])
            prompt = str(row["prompt"])
        except (ValueError, KeyError, TypeError) as e:
            raise ValueError(f"{shown(path)}:{n}: expected a JSON object with prompt, instruction_id_list, kwargs ({e})"
                             ) from None
        keep = [(i, {k: v for k, v in kw.items() if v is not None}) for i, kw in zip(ids, kwargs, strict=False)
                if i in registry]
        out.append(IFPrompt(id=f"IFEval/{row.get('key', n)}", prompt=prompt,
                            instruction_ids=tuple(i for i, _ in keep), kwargs=tuple(kw for _, kw in keep)))
    if not out:
        raise ValueError(f"--ifeval-data: {path} holds no prompts")
    return out
