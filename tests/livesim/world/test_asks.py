"""Truth that follows the comment: every phrasing has a typed ask, and the gold reply of every phrasing states it.

The requests are generated over every phrasing of every intent (and spec aspect) in several seeded worlds; the
checks of `livesim.runs.gold_check` read the product and room records, not the grader's fact lists.
"""

from __future__ import annotations

import string
from functools import cache
from types import SimpleNamespace
from typing import Any

import numpy as np
import pytest

from livesim.grading.terms import Trace, grade
from livesim.runs.calibration import build_request
from livesim.runs.gold_check import CHECKS, gold_problems, intent_truth_only
from livesim.world.answers import ANSWERS, follow
from livesim.world.asks import ASK_NAMES, UNKNOWN, ask_of, default_ask, is_own_question
from livesim.world.comments import Comment, Request
from livesim.world.intents import BUILDERS, _Draw
from livesim.world.phrasing import INTENTS, SPEC_ASPECTS, phrase_template, templates
from livesim.world.phrasing_data import ASK_OF
from livesim.world.viewers import draw_viewer

SEEDS = range(4)
# slots no builder supplies: these phrasings are never drawn (a complaint names no product; an injection is fixed)
NEVER_SUPPLIED = {"complaint": {"ref"}, "prompt_injection": {"injection"}}


def _fields(template: str) -> set[str]:
    return {name for _, name, _, _ in string.Formatter().parse(template) if name}


def _phrasings() -> list[tuple[str, str, str | None]]:
    out = []
    for intent in INTENTS:
        aspects: list[str | None] = list(SPEC_ASPECTS) if intent == "spec_material" else [None]
        out += [(intent, t, a) for a in aspects for t in templates(intent, a)]
    return out


PHRASINGS = _phrasings()


@cache
def _world(seed: int) -> Any:
    return build_request(seed, "price")


@cache
def _part(seed: int, intent: str, template: str, aspect: str | None, nth: int = 0) -> Any:
    """A request of one comment phrased with `template` (the `nth` draw that fits it), its truth before and after
    following the ask.
    """
    base = _world(seed)
    catalog, room = base.catalog, base.room
    viewer = draw_viewer(np.random.default_rng(seed), 0)
    for k in range(200):
        built = BUILDERS[intent](_Draw(np.random.default_rng([seed, k]), viewer, catalog, room))
        if built is None:
            return None
        slots, truth = built
        if (aspect is not None and slots.get("aspect") != aspect) or not _fields(template) <= set(slots):
            continue
        if nth:
            nth -= 1
            continue
        used = {n: slots[n] for n in _fields(template)}
        ask = ask_of(intent, template, aspect)
        after = follow(ask, truth, {**used, **({"aspect": aspect} if aspect else {})}, catalog, room)
        text = template.format_map({n: str(v) for n, v in used.items()})
        comment = Comment(viewer_id=viewer.viewer_id, name=viewer.name, t=0.0, text=text, truth=after)
        request = Request(index=0, t=0.0, comments=[comment], truth=after)
        return SimpleNamespace(request=request, catalog=catalog, room=room, before=truth, ask=ask)
    return None


def _effectiveness(part: Any, reply: str) -> float:
    g = grade(part.request, Trace(reply=reply), part.catalog, part.room, valid_codes={c.code for c in
              part.room.coupons}, latency_score=1.0, harness_reply_roles={})
    return g.scores["effectiveness"]


# ------------------------------------------------------------------------------------------------ declarations
def test_every_phrasing_has_a_known_ask() -> None:
    for intent, template, aspect in PHRASINGS:
        ask = ask_of(intent, template, aspect)
        assert ask in ASK_NAMES, (intent, template)
        assert ask in CHECKS, f"no record check for ask {ask!r}"
        assert is_own_question(ask) or ask in ANSWERS, f"ask {ask!r} of {template!r} has no answer"


def test_declared_asks_belong_to_real_phrasings() -> None:
    all_templates = {t for _, t, _ in PHRASINGS}
    assert set(ASK_OF) <= all_templates
    assert len([t for _, t, _ in PHRASINGS]) == len(all_templates)  # a template's ask cannot depend on its intent
    used_unknown = {part for part in UNKNOWN if part in ASK_OF.values()} | {"alcohol"}
    assert used_unknown == set(UNKNOWN)


def test_default_asks() -> None:
    assert default_ask("price") == "price"
    assert default_ask("spec_material", "care") == "care"
    for bad in (("spec_material", None), ("nope", None)):
        with pytest.raises(ValueError):
            default_ask(*bad)


def test_phrase_template_keeps_the_draws_of_phrase() -> None:
    slots = {"ref": "link 3", "region": "Hainan"}
    a, b = np.random.default_rng(7), np.random.default_rng(7)
    from livesim.world.phrasing import phrase

    for _ in range(30):
        text, template = phrase_template("shipping", slots, a)
        assert text == phrase("shipping", slots, b)
        assert template in templates("shipping")


# ------------------------------------------------------------------------------------------------ the gold reply
@pytest.mark.parametrize(("intent", "template", "aspect"), PHRASINGS,
                         ids=[f"{i}:{t[:40]}" for i, t, _ in PHRASINGS])
def test_gold_reply_states_what_the_phrasing_asks(intent: str, template: str, aspect: str | None) -> None:
    parts = [p for seed in SEEDS if (p := _part(seed, intent, template, aspect)) is not None]
    if not parts:
        never = bool(_fields(template) & NEVER_SUPPLIED.get(intent, set()))
        assert never or aspect is not None, f"{template!r} is never drawn"
        pytest.skip("no world of these seeds has a product with this aspect")
    for part in parts:
        gold = " ".join(part.request.truth.say)
        assert gold_problems(part) == [], (part.request.text, gold)
        assert _effectiveness(part, gold) == 1.0, (part.request.text, gold)
        old = " ".join(part.before.say)
        if not is_own_question(part.ask) and old != gold:
            # the intent's own answer is a neighbouring fact: the records say so and the grader does not pay it
            assert gold_problems(_with_say(part, old)), (part.request.text, old)
            assert _effectiveness(part, old) < 1.0, (part.request.text, old)


def _with_say(part: Any, say: str) -> Any:
    truth = part.request.truth.model_copy(update={"say": [say]})
    return SimpleNamespace(request=part.request.model_copy(update={"truth": truth}), catalog=part.catalog,
                           room=part.room)


@pytest.mark.parametrize("part_name", sorted(UNKNOWN))
def test_a_bare_decline_or_the_known_part_alone_is_not_a_full_answer(part_name: str) -> None:
    seen = 0
    for intent, template, aspect in PHRASINGS:
        if ask_of(intent, template, aspect) not in (part_name, "fragrance"):
            continue
        for seed, nth in ((seed, nth) for seed in SEEDS for nth in range(12)):
            part = _part(seed, intent, template, aspect, nth)
            unknown = [f for f in part.request.truth.facts if f.kind == "unknown"] if part else []
            if not unknown or part_name.replace("_", " ") not in unknown[0].label:
                continue
            known = [f for f in part.request.truth.facts if f.kind != "unknown"]
            sentence = UNKNOWN[part_name].say
            gold = " ".join(part.request.truth.say)
            assert _effectiveness(part, gold.replace(sentence, "").strip()) < 1.0  # the known part alone
            if known:
                assert _effectiveness(part, sentence) < 1.0  # the can't-tell alone
            seen += 1
    assert seen, f"no generated request asks what no record holds ({part_name})"


def test_env_requests_follow_their_phrasing_deterministically() -> None:
    for seed in range(6):
        for intent in ("shipping", "coupon", "stock_variant"):
            a = build_request(seed, intent).request
            b = build_request(seed, intent).request
            assert a.model_dump() == b.model_dump()
            assert a.truth.asks and a.truth.phrasings
            assert a.truth.asks[0] == ask_of(intent, a.truth.phrasings[0])
            with intent_truth_only():
                old = build_request(seed, intent).request
            assert old.text == a.text  # following the ask draws nothing: the same comment
