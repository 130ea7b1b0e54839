"""A colour denied of a product that comes in it is false ("link 6 doesn't come in brown" of a product sold in
brown); denying a colour it does not come in stays true. Generated over requests of several intents and seeds:
for every product in a request's scope with colour variants, each colour it holds and a colour it lacks, in
several wordings, appended to the gold reply (which earns full marks alone). The attack bench found the first
kind paid 1.000 beside a correct answer."""

from __future__ import annotations

import pytest

from livesim.grading.cues import _COLOURS
from livesim.runs.calibration import build_request, grade_text

DENIALS = ["Link {L} doesn't come in {C}.", "Link {L} does not come in {C}, sorry.",
           "There's no {C} option for link {L}.", "Heads up: link {L} never came in {C}."]


@pytest.mark.parametrize("intent", ["price", "stock_variant", "spec_material", "size_advice"])
def test_a_held_colour_denied_is_false_and_an_absent_one_true(intent):
    held_n = absent_n = 0
    for seed in range(8300, 8330):
        sim = build_request(seed, intent)
        t = sim.request.truth
        gold = " ".join(t.say)
        if t.intents != [intent] or grade_text(sim, gold).reward < 1.0 - 1e-9 or len(t.targets) != 1:
            continue
        p = sim.catalog.by_link(t.targets[0]) if hasattr(sim.catalog, "by_link") else next(
            q for q in sim.catalog.products if q.link == t.targets[0])
        held_set = {s.colour.lower() for s in p.skus if s.colour} & _COLOURS
        held = sorted(held_set)
        if not held:
            continue
        said = " ".join(s.variant for s in p.skus).lower().split()
        said += str(p.attributes).lower().replace(",", " ").replace("'", " ").split()
        absent = sorted(_COLOURS - held_set - {"gray", "grey"} - set(said))
        for i, tpl in enumerate(DENIALS):
            c = held[i % len(held)]
            g = grade_text(sim, f"{gold} {tpl.format(L=p.link, C=c)}")
            assert g.scores["accuracy"] == 0.0, (tpl, c, g.errors)
            held_n += 1
            a = absent[(seed + i) % len(absent)]
            g = grade_text(sim, f"{gold} {tpl.format(L=p.link, C=a)}")
            assert g.scores["accuracy"] == 1.0, (tpl, a, g.errors)
            absent_n += 1
    if intent in ("stock_variant", "size_advice"):  # apparel and home goods hold colours
        assert held_n >= 8 and absent_n >= 8
