"""General instruction prompts for stage 2 (on-policy distillation): seeded, varied, with verifiable constraints.

Each prompt is a general task (not a livestream one) plus zero to two constraints of IFEval's verifiable kinds
(word limits, bullet counts, required or forbidden words, case, ending phrase, JSON, sections). Prompts are
fully determined by ``(family, seed, index)``; this generator's family tag is ``"hat-distill"`` and its seeds
start at ``DISTILL_SEED0`` (2_000_000), disjoint by construction from the evaluation prompts of issue 11's T4
suite (family ``"t4-eval"``, seeds from 4_000_000): the family enters the generator's seed, and the test
suite checks that no generated prompt text equals an evaluation prompt. Any JSONL file of ``{"prompt": ...}``
(string or chat messages) can be used instead (``load_jsonl``).
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any

import numpy as np

from livesim.stream.paths import MAX_PROMPT_FILE_BYTES, PathProblem, read_text, shown

FAMILY = "hat-distill"
DISTILL_SEED0 = 2_000_000

_TASKS = (
    "Write a short note to a neighbour about {topic}.",
    "Explain {topic} to a twelve-year-old.",
    "Give advice to someone who is starting with {topic}.",
    "Summarise the pros and cons of {topic}.",
    "Write a product-free blog intro about {topic}.",
    "Describe a typical day of someone who works in {field}.",
    "List things to check before {activity}.",
    "Write a friendly reminder email about {activity}.",
    "Compare {a} and {b} for a beginner.",
    "Write a haiku-style poem about {topic}.",
    "Answer the question: why do people enjoy {activity}?",
    "Draft three interview questions for a job in {field}.",
    "Tell a very short story that involves {topic}.",
    "Give step-by-step instructions for {activity}.",
    "Write a motivational message about {topic}.",
)
_TOPICS = ("recycling", "learning a language", "morning routines", "public libraries", "urban gardening",
           "saving money", "rainy weekends", "board games", "cycling to work", "time zones", "volcanoes",
           "the water cycle", "chess openings", "baking bread", "night skies", "team sports", "museums",
           "old maps", "honeybees", "train travel", "solar power", "winter hiking", "jazz music", "origami")
_FIELDS = ("nursing", "carpentry", "astronomy", "teaching", "software testing", "journalism", "farming",
           "architecture", "translation", "marine biology")
_ACTIVITIES = ("a long car trip", "moving house", "a job interview", "planting tomatoes", "a first marathon",
               "hosting a dinner", "camping in spring", "painting a room", "learning to swim", "a museum visit")
_PAIRS = (("tea", "coffee"), ("trains", "buses"), ("paper books", "e-readers"), ("running", "swimming"),
          ("cities", "villages"), ("cats", "dogs"))
_WORDS = ("simple", "bright", "careful", "together", "future", "patience", "journey", "balance", "curious")


def _constraint(rng: np.random.Generator) -> tuple[str, dict[str, Any]]:
    kind = ("max_words", "bullets", "include", "exclude", "lowercase", "uppercase", "end_phrase", "json",
            "sections", "min_words")[int(rng.integers(10))]
    if kind == "max_words":
        n = int(rng.integers(30, 120))
        return f"Answer in fewer than {n} words.", {"kind": kind, "n": n}
    if kind == "min_words":
        n = int(rng.integers(40, 150))
        return f"Answer in at least {n} words.", {"kind": kind, "n": n}
    if kind == "bullets":
        n = int(rng.integers(2, 6))
        return f"Use exactly {n} markdown bullet points.", {"kind": kind, "n": n}
    if kind in ("include", "exclude"):
        w = _WORDS[int(rng.integers(len(_WORDS)))]
        text = f"Include the word '{w}'." if kind == "include" else f"Do not use the word '{w}'."
        return text, {"kind": kind, "word": w}
    if kind == "lowercase":
        return "Write everything in lowercase letters.", {"kind": kind}
    if kind == "uppercase":
        return "Write everything in capital letters.", {"kind": kind}
    if kind == "end_phrase":
        p = ("Is there anything else I can help with?", "That is all.", "Have a nice day.")[int(rng.integers(3))]
        return f"End your answer with the exact phrase '{p}'.", {"kind": kind, "phrase": p}
    if kind == "json":
        return "Wrap your whole answer in JSON.", {"kind": kind}
    n = int(rng.integers(2, 4))
    return f"Split your answer into {n} sections, each starting with 'SECTION X'.", {"kind": "sections", "n": n}


def generate(n: int, seed: int = DISTILL_SEED0, family: str = FAMILY) -> list[dict[str, Any]]:
    """``n`` rows ``{"prompt": [user message], "constraints": [...], "id": ...}``, fixed by (family, seed)."""
    fam = int.from_bytes(hashlib.blake2b(family.encode(), digest_size=4).digest(), "little")
    rows = []
    for i in range(n):
        rng = np.random.default_rng([fam, seed, i])
        task = _TASKS[int(rng.integers(len(_TASKS)))]
        a, b = _PAIRS[int(rng.integers(len(_PAIRS)))]
        topic = _TOPICS[int(rng.integers(len(_TOPICS)))]
        field = _FIELDS[int(rng.integers(len(_FIELDS)))]
        text = task.format(topic=topic, field=field, activity=_ACTIVITIES[int(rng.integers(len(_ACTIVITIES)))],
                           a=a, b=b)
        constraints = []
        kinds: set[str] = set()
        for _ in range(int(rng.integers(0, 3))):
            c_text, c = _constraint(rng)
            if c["kind"] in kinds or {c["kind"], *kinds} >= {"lowercase", "uppercase"}:
                continue
            kinds.add(c["kind"])
            constraints.append(c)
            text += " " + c_text
        rows.append({"id": f"{family}/{seed}/{i}", "prompt": [{"role": "user", "content": text}],
                     "constraints": json.dumps(constraints)})
    return rows


def load_jsonl(path: str | Path) -> list[dict[str, Any]]:
    """Rows from a JSONL of ``{"prompt": str | messages}``; a string becomes one user message."""
    rows = []
    try:
        text = read_text(path, MAX_PROMPT_FILE_BYTES)
    except PathProblem as e:
        raise ValueError(f"{shown(path)}: {e}") from None
    for k, line in enumerate(text.splitlines()):
        if not line.strip():
            continue
        try:
            obj = json.loads(line)
        except ValueError as e:
            raise ValueError(f"{shown(path)}:{k + 1}: not JSON ({e})") from None
        prompt = obj.get("prompt") if isinstance(obj, dict) else None
        if isinstance(prompt, str):
            prompt = [{"role": "user", "content": prompt}]
        if not isinstance(prompt, list) or not prompt:
            raise ValueError(f"{path}:{k + 1}: expected a 'prompt' string or list of messages")
        rows.append({"id": f"{Path(path).name}/{k}", "prompt": prompt, "constraints": "[]"})
    return rows
