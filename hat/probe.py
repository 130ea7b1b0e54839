"""Does a model read the presented harness? Teacher-forced name accuracy on collected conversations.

The dev set says *whether* a model fails under HSA; this probe says *where*. For every tool call the teacher
made in a collected conversation (the validation split by default), it scores the model's next-token
predictions, teacher-forced, on the tokens of the names the call had to get right:

- ``tool``: the called tool's name (from the presented tool list),
- ``param``: each argument's name (from that tool's presented schema),
- ``skill``: the one argument of a call when it is a skill-shaped name found in the system prompt (what the
  load-skill tool takes: the name of a skill in the presented index).

Each name is classed by where it comes from: ``canonical`` (the canonical harness's name), ``synonym`` (one
of HSA's fixed synonym lists, train or held-out: a model can recall those) or ``generated`` (a random string
HSA drew for this episode alone: nothing to recall, so a model gets it right only by copying it from the
prompt). A model that copies scores about as well on ``generated`` as on ``canonical``; one that memorised
the training names scores high on ``canonical`` and near zero on ``generated``.

``exact`` is the share of names whose every token is the model's argmax (the name would come out whole under
greedy decoding, given the conversation so far); ``token_accuracy`` is over the names' tokens. A name token
that BPE merged with the quote before it counts as the name's. The first token of a tool or skill name is
also a *decision* (which tool, which skill); ``continuation_exact`` and ``continuation_accuracy`` score only
the tokens after it, on names of two or more tokens: given the name's start, does the model complete it? For
a generated name that is copying and nothing else.
"""

from __future__ import annotations

import json
import re
import time
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from livesim.harness.core import SKILL_NAME_PATTERN
from livesim.models.device import load_kwargs

KINDS = ("tool", "param", "skill")
ORIGINS = ("canonical", "synonym", "generated")
_CALL = re.compile(r"<tool_call>\s*(\{.*?\})\s*</tool_call>", re.DOTALL)
_SKILL_NAME = re.compile(SKILL_NAME_PATTERN)


def name_origins() -> dict[str, dict[str, str]]:
    """Map kind -> name -> origin, for every canonical and synonym name (anything else is ``generated``)."""
    from livesim.envs.hsa.vocab import VOCABS, synonym_forms
    from livesim.harness.core import default_harness

    h = default_harness()
    out: dict[str, dict[str, str]] = {k: {} for k in KINDS}
    for v in VOCABS.values():
        for kind in KINDS:  # every form a synonym is presented in (distractor names are skill synonyms)
            out[kind].update(dict.fromkeys(synonym_forms(v, kind), "synonym"))
    out["tool"].update({t.name: "canonical" for t in h.tools})
    out["param"].update({p.name: "canonical" for t in h.tools for p in t.params})
    out["skill"].update({s.name: "canonical" for s in h.skills})
    return out


def _targets(block: str, start: int, system: str) -> list[tuple[str, str, int, int]]:
    """(kind, name, char start, char end) of the names in one rendered `<tool_call>` JSON at offset `start`."""
    try:
        call = json.loads(block)
    except json.JSONDecodeError:
        return []
    if not isinstance(call, dict) or not isinstance(call.get("name"), str):
        return []
    out: list[tuple[str, str, int, int]] = []
    m = re.search(r'"name"\s*:\s*"' + re.escape(call["name"]) + '"', block)
    if m is None:
        return []
    name_at = m.end() - 1 - len(call["name"])
    out.append(("tool", call["name"], start + name_at, start + name_at + len(call["name"])))
    args = call.get("arguments")
    at = block.find('"arguments"')
    if not isinstance(args, dict) or at < 0:
        return out
    for key, value in args.items():
        k = re.compile('"' + re.escape(key) + r'"\s*:\s*').search(block, at)
        if k is None:
            continue
        out.append(("param", key, start + k.start() + 1, start + k.start() + 1 + len(key)))
        if len(args) == 1 and isinstance(value, str) and _SKILL_NAME.fullmatch(value) \
                and block.startswith('"' + value + '"', k.end()) \
                and re.search(r"(?<![\w-])" + re.escape(value) + r"(?![\w-])", system):
            out.append(("skill", value, start + k.end() + 1, start + k.end() + 1 + len(value)))
    return out


def _system_text(messages: list[dict[str, Any]]) -> str:
    return messages[0]["content"] if messages and messages[0]["role"] == "system" else ""


def probe_conversation(model: Any, tokenizer: Any, messages: list[dict[str, Any]], tools: list[dict[str, Any]],
                       origins: dict[str, dict[str, str]]) -> list[dict[str, Any]] | None:
    """One row per name the teacher's calls contain: kind, origin, name, tokens, correct tokens, exact.

    None when the conversation's rendered text does not re-tokenize to the template's own ids (then the
    offsets cannot be trusted).
    """
    import torch

    text = tokenizer.apply_chat_template(messages, tools=tools, tokenize=False)
    enc = tokenizer(text, return_offsets_mapping=True, add_special_tokens=False)
    ids: list[int] = enc["input_ids"]
    ref = tokenizer.apply_chat_template(messages, tools=tools, tokenize=True, return_dict=True,
                                        return_assistant_tokens_mask=True)
    if list(ref["input_ids"]) != ids:
        return None
    mask = ref["assistant_masks"]
    offsets: list[tuple[int, int]] = enc["offset_mapping"]
    with torch.no_grad():
        logits = model(input_ids=torch.tensor([ids])).logits[0]
    pred = logits.argmax(-1).tolist()
    system = _system_text(messages)
    rows = []
    for m in _CALL.finditer(text):
        start = m.start(1)
        first = next((i for i, (a, b) in enumerate(offsets) if b > start), None)
        if first is None or not mask[first]:
            continue  # not an assistant's call (e.g. an example in a system prompt)
        for kind, name, s, e in _targets(m.group(1), start, system):
            toks = [i for i, (a, b) in enumerate(offsets) if a < e and b > s and i > 0]
            if not toks:
                continue
            hits = [pred[i - 1] == ids[i] for i in toks]
            rows.append({"kind": kind, "origin": origins[kind].get(name, "generated"), "name": name,
                         "tokens": len(toks), "correct": sum(hits), "exact": all(hits),
                         "rest_correct": sum(hits[1:])})
    return rows


def summarize(rows: Iterable[dict[str, Any]]) -> dict[str, dict[str, dict[str, float | None]]]:
    """Map kind -> origin -> {names, exact, token_accuracy, multi_token, continuation_exact,
    continuation_accuracy} (kinds/origins with no name are left out; the continuation figures are None when no
    name of that class has two tokens).
    """
    acc: dict[tuple[str, str], dict[str, int]] = {}
    for r in rows:
        a = acc.setdefault((r["kind"], r["origin"]), dict.fromkeys(
            ("names", "exact", "tokens", "correct", "multi", "rest_exact", "rest_tokens", "rest_correct"), 0))
        a["names"] += 1
        a["exact"] += int(r["exact"])
        a["tokens"] += r["tokens"]
        a["correct"] += r["correct"]
        if r["tokens"] > 1:
            a["multi"] += 1
            a["rest_exact"] += int(r["rest_correct"] == r["tokens"] - 1)
            a["rest_tokens"] += r["tokens"] - 1
            a["rest_correct"] += r["rest_correct"]
    out: dict[str, dict[str, dict[str, float | None]]] = {}
    for (kind, origin), a in sorted(acc.items()):
        out.setdefault(kind, {})[origin] = {
            "names": a["names"], "exact": a["exact"] / a["names"], "token_accuracy": a["correct"] / a["tokens"],
            "multi_token": a["multi"],
            "continuation_exact": a["rest_exact"] / a["multi"] if a["multi"] else None,
            "continuation_accuracy": a["rest_correct"] / a["rest_tokens"] if a["rest_tokens"] else None}
    return out


def run(model_dir: str | Path, data_dir: str | Path, split: str = "validation", limit: int | None = None,
        show_progress: bool = True) -> dict[str, Any]:
    """Probe ``model_dir`` on the ``split`` of the collected dataset at ``data_dir`` (first ``limit``
    conversations); returns the summary, the per-name rows and the counts.
    """
    import torch
    from transformers import AutoModelForCausalLM, AutoTokenizer

    from livesim.hat import collect
    from livesim.hat.sft import training_template

    data = collect.load(data_dir)
    if split not in data:
        raise ValueError(f"the dataset at {data_dir} has no split {split!r} (it has: {', '.join(data)})")
    rows_in = data[split]
    n = len(rows_in) if limit is None else min(limit, len(rows_in))
    if n == 0:
        raise ValueError(f"the {split!r} split of {data_dir} is empty")
    t0 = time.perf_counter()
    tokenizer = AutoTokenizer.from_pretrained(model_dir)
    tokenizer.chat_template = training_template(tokenizer)
    model = AutoModelForCausalLM.from_pretrained(model_dir, **load_kwargs(torch.float32)).eval()
    origins = name_origins()
    rows: list[dict[str, Any]] = []
    skipped = 0
    it: Iterable[int] = range(n)
    if show_progress:
        from tqdm.auto import tqdm

        it = tqdm(it, desc="probe", total=n)
    for i in it:
        ex = rows_in[i]
        got = probe_conversation(model, tokenizer, ex["messages"], json.loads(ex["tools"]), origins)
        if got is None:
            skipped += 1
            continue
        rows.extend({**r, "conversation": i} for r in got)
    return {"model": str(model_dir), "data": str(data_dir), "split": split, "conversations": n,
            "skipped_retokenize": skipped, "summary": summarize(rows), "rows": rows,
            "wall_s": time.perf_counter() - t0}
