"""Finding what the reader needs among the presented tools, parameters and skills, by what they say.

A *job* is what the reader wants done (look a price up, load a skill...). A presented tool is matched to a job
by its signature (how many parameters of which JSON type) and by the words of its name, description and
parameter descriptions; a skill is matched to a reply *topic* by the words of its description, name or, once
loaded, its content. Nothing here knows a presented name in advance.
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass

from livesim.agents.reader.observe import Param, SkillView, ToolView

Keywords = tuple[tuple[str, float], ...]


@dataclass(frozen=True)
class Slot:
    """A parameter a job fills: its JSON type and the words that name it."""

    role: str
    type: str
    words: Keywords = ()


@dataclass(frozen=True)
class Job:
    """What a tool is for: the words that describe it and the parameters it takes."""

    words: Keywords
    slots: tuple[Slot, ...]


_LINK = (("link", 2.0), ("listing", 2.0), ("item", 1.0), ("product", 1.0), ("number", 0.5))
JOBS: dict[str, Job] = {
    "load_skill": Job((("skill", 3.0), ("rules", 1.0), ("playbook", 2.0), ("guide", 1.0), ("load", 1.0)),
                      (Slot("name", "string"),)),
    "search": Job((("search", 3.0), ("keyword", 2.0), ("need", 1.0), ("find", 1.0), ("query", 1.0), ("browse", 1.0),
                   ("catalog", 1.0)),
                  (Slot("query", "string", (("keyword", 3.0), ("query", 2.0), ("search", 2.0), ("text", 1.0),
                                            ("terms", 1.0), ("need", 1.0))),
                   Slot("category", "string", (("categor", 3.0), ("type", 1.0), ("kind", 1.0), ("section", 1.0),
                                               ("dept", 1.0), ("segment", 1.0), ("filter", 1.0))),
                   Slot("max_price", "number"), Slot("limit", "integer"))),
    "details": Job((("detail", 3.0), ("attribute", 2.0), ("variants", 1.0), ("category", 1.0), ("record", 1.0),
                    ("describe", 1.0), ("info", 1.0), ("card", 1.0), ("name", 0.5)), (Slot("link", "integer"),)),
    "price": Job((("list price", 3.0), ("live price", 3.0), ("pric", 2.0), ("flash", 1.0), ("quote", 1.0)),
                 (Slot("link", "integer"),)),
    "stock": Job((("stock", 3.0), ("inventor", 2.0), ("availab", 2.0), ("sku", 1.0)),
                 (Slot("link", "integer"), Slot("variant", "string"))),
    "size": Job((("size", 3.0), ("height", 2.0), ("weight", 2.0), ("cloth", 1.0), ("chart", 1.0), ("fit", 1.0)),
                (Slot("link", "integer", _LINK),
                 Slot("height", "integer", (("height", 3.0), ("stature", 3.0), ("cm", 2.0), ("tall", 2.0))),
                 Slot("weight", "integer", (("weight", 3.0), ("mass", 3.0), ("kg", 2.0), ("kilo", 2.0))))),
    "shipping": Job((("ship", 3.0), ("deliver", 2.0), ("dispatch", 2.0), ("fee", 1.0), ("region", 1.0),
                     ("courier", 1.0)), (Slot("link", "integer"), Slot("region", "string"))),
    "returns": Job((("return", 3.0), ("warrant", 2.0), ("after-sales", 1.0), ("aftercare", 1.0), ("refund", 1.0)),
                   (Slot("link", "integer"),)),
    "promotions": Job((("promotion", 3.0), ("promo", 2.0), ("coupon", 1.0), ("flash sale", 1.0), ("bundle", 1.0),
                       ("gift", 1.0), ("deal", 1.0), ("offer", 1.0), ("campaign", 1.0)), ()),
    "ticket": Job((("ticket", 3.0), ("human", 2.0), ("escalat", 2.0), ("complain", 1.0), ("support", 1.0),
                   ("handoff", 1.0), ("contact", 1.0), ("case", 1.0)),
                  (Slot("reason", "string", (("problem", 3.0), ("issue", 3.0), ("reason", 3.0), ("wrong", 2.0),
                                             ("summary", 2.0), ("note", 1.0), ("describ", 1.0), ("case", 1.0))),
                   Slot("viewer", "string", (("viewer", 2.0), ("user", 2.0), ("handle", 2.0), ("buyer", 2.0),
                                             ("recipient", 2.0), ("display", 1.0), ("chat", 1.0), ("name", 1.0))))),
    "compare": Job((("compar", 3.0), ("contrast", 3.0), ("side by side", 2.0), ("two product", 2.0),
                    ("versus", 2.0)),
                   (Slot("link_a", "integer", (("first", 3.0), ("left", 2.0), ("one", 1.0), ("_a", 1.0))),
                    Slot("link_b", "integer", (("second", 3.0), ("right", 2.0), ("two", 1.0), ("_b", 1.0))))),
    "issue_coupon": Job((("issue", 2.0), ("send", 1.0), ("grant", 2.0), ("give", 1.0), ("coupon", 2.0),
                         ("voucher", 2.0)),
                        (Slot("code", "string", (("code", 3.0), ("coupon", 2.0), ("voucher", 2.0), ("promo", 1.0))),
                         Slot("viewer", "string", (("viewer", 2.0), ("user", 2.0), ("name", 1.0))))),
    "pin": Job((("pin", 3.0), ("top", 1.0), ("highlight", 2.0), ("feature", 1.0)), (Slot("link", "integer"),)),
    "set_price": Job((("change", 2.0), ("operator", 2.0), ("override", 2.0), ("edit", 1.0), ("update", 1.0),
                      ("pric", 1.0)), (Slot("link", "integer"), Slot("price", "number"))),
}


@functools.lru_cache(maxsize=4096)
def words_of(name: str) -> str:
    """An identifier as words: camelCase, snake_case and kebab-case split, lower case."""
    spaced = re.sub(r"(?<=[a-z0-9])(?=[A-Z])", " ", name)
    return re.sub(r"[_\-]+", " ", spaced).lower()


def score(text: str, words: Keywords) -> float:
    low = text.lower()
    return sum(w for k, w in words if k in low)


def _kind(t: str) -> str:
    return t if t in ("number", "integer") else "string"


def _signature(types: list[str]) -> tuple[str, ...]:
    return tuple(sorted(_kind(t) for t in types))


_JOB_SIGS = {name: _signature([s.type for s in job.slots]) for name, job in JOBS.items()}


def _tool_text(tool: ToolView) -> str:
    return " ".join([words_of(tool.name), tool.description, *(p.description for p in tool.params)])


@functools.lru_cache(maxsize=512)
def assign_tools(tools: tuple[ToolView, ...]) -> dict[str, tuple[ToolView, dict[str, str]]]:
    """Job -> (the presented tool, slot role -> presented parameter name), for every job a tool fits."""
    candidates = []
    sigs = [_signature([p.type for p in tool.params]) for tool in tools]
    texts = [_tool_text(tool) for tool in tools]
    for job_name, job in JOBS.items():
        for i, tool in enumerate(tools):
            if sigs[i] == _JOB_SIGS[job_name]:
                candidates.append((score(texts[i], job.words), -i, job_name, tool))
    out: dict[str, tuple[ToolView, dict[str, str]]] = {}
    used: set[str] = set()
    for s, _, job_name, tool in sorted(candidates, key=lambda c: (-c[0], -c[1], c[2])):
        if job_name in out or tool.name in used or s <= 0:
            continue
        out[job_name] = (tool, assign_params(JOBS[job_name], tool.params))
        used.add(tool.name)
    return out


def assign_params(job: Job, params: tuple[Param, ...]) -> dict[str, str]:
    """Slot role -> presented parameter: by type, then by the words of the name and description; the required
    string goes first where a job has several strings (a search's query).
    """
    out: dict[str, str] = {}
    free = list(params)
    ranked = sorted(job.slots, key=lambda s: -max((w for _, w in s.words), default=0.0))
    for slot in ranked:
        same = [p for p in free if _kind(p.type) == _kind(slot.type)]
        if not same:
            continue
        def key(p: Param, slot: Slot = slot) -> tuple[float, int]:
            bonus = 0.5 if slot.role == "query" and p.required else 0.0
            return (score(words_of(p.name) + " " + p.description, slot.words) + bonus, -params.index(p))
        best = max(same, key=key)
        out[slot.role] = best.name
        free.remove(best)
    return out


# ------------------------------------------------------------------------------------------------ skills
TOPICS: dict[str, Keywords] = {
    "product": (("price", 1.0), ("stock", 2.0), ("variant", 2.0), ("material", 2.0), ("ingredient", 2.0),
                ("spec", 2.0), ("attribute", 2.0), ("unit", 1.0), ("sold out", 2.0), ("product fact", 3.0),
                ("catalog", 1.0), ("merch", 1.0), ("listing", 1.0), ("goods", 1.0), ("item", 0.5), ("detail", 1.0),
                ("info", 0.5)),
    "size": (("size", 3.0), ("height", 2.0), ("weight", 2.0), ("fit", 1.0), ("chart", 1.0), ("garment", 2.0),
             ("measurement", 2.0), ("cloth", 1.0)),
    "compare": (("recommend", 2.0), ("compar", 3.0), ("need", 1.0), ("versus", 3.0), ("suggest", 1.0),
                ("difference", 2.0), ("contrast", 2.0), ("both links", 2.0), ("match", 1.0), ("pick", 1.0),
                ("shopping", 1.0), ("search", 1.0)),
    "shipping": (("ship", 3.0), ("deliver", 2.0), ("dispatch", 2.0), ("return", 3.0), ("warrant", 2.0),
                 ("after-sales", 2.0), ("region", 1.0), ("logistic", 2.0), ("fulfil", 2.0), ("post-purchase", 2.0)),
    "promotions": (("coupon", 3.0), ("promotion", 2.0), ("promo", 2.0), ("code", 1.0), ("minimum spend", 2.0),
                   ("check out", 2.0), ("checkout", 2.0), ("cart", 2.0), ("order", 1.0), ("voucher", 3.0),
                   ("deal", 1.0), ("offer", 1.0), ("purchase", 1.0), ("flash sale", 1.0), ("bundle", 1.0)),
    "smalltalk": (("greet", 3.0), ("welcome", 2.0), ("chit-chat", 3.0), ("off-topic", 3.0), ("small talk", 3.0),
                  ("small-talk", 3.0), ("social", 2.0), ("conversation", 2.0), ("banter", 2.0), ("chat", 1.0),
                  ("by name", 1.0), ("steer", 2.0), ("hello", 1.0)),
    "complaint": (("complain", 3.0), ("apolog", 3.0), ("sorry", 2.0), ("ticket", 2.0), ("empathy", 2.0),
                  ("escalat", 2.0), ("argu", 1.0), ("grievance", 3.0), ("customer-care", 2.0), ("care", 0.5),
                  ("problem", 1.0), ("issue", 1.0), ("compensation", 1.0), ("recovery", 1.0)),
    "safety": (("medical", 3.0), ("efficacy", 3.0), ("claim", 2.0), ("guarantee", 2.0), ("injection", 3.0),
               ("instructions", 2.0), ("absolute", 2.0), ("decline", 2.0), ("unauthori", 2.0), ("compliance", 3.0),
               ("safety", 3.0), ("risk", 2.0), ("trust", 2.0), ("policy", 1.0), ("safe", 1.0), ("guard", 1.0)),
}


def topic_scores(text: str) -> dict[str, float]:
    return {t: score(text, kw) for t, kw in TOPICS.items()}


def best_topic(text: str, margin: float = 1.0) -> str | None:
    """The topic a text is about, when it leads the runner-up by `margin`; None when it says nothing clear."""
    ranked = sorted(topic_scores(text).items(), key=lambda kv: -kv[1])
    (top, s1), (_, s2) = ranked[0], ranked[1]
    return top if s1 >= 2.0 and s1 - s2 >= margin else None


MASK_WORDS = frozenset({"", "n/a", "-", "none", "tbd", "todo", "?", "..."})


def is_masked(description: str) -> bool:
    """A description that says nothing: a placeholder, or bracketed/parenthesised filler."""
    d = description.strip().lower()
    return d in MASK_WORDS or (len(d) < 40 and (d[:1] in "([{<" or not re.search(r"[a-z]{3,}\s+[a-z]{3,}", d)))


def skill_topic(skill: SkillView) -> str | None:
    """The topic a skill's index entry states (its description, else its name's words)."""
    if not is_masked(skill.description):
        return best_topic(skill.description)
    return None


def name_topic(skill: SkillView) -> str | None:
    return best_topic(words_of(skill.name), margin=0.5)
