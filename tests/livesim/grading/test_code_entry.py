"""Where a coupon code is entered: at checkout (the records' answer, `livesim.world.answers.CODE_ENTRY_PHRASES`),
so an invented place ("enter the code in the chat box") is false and the checkout, the cart or the order is not.
Generated over coupon and how-to-buy requests: each verb x place x wording appended to the gold reply (which earns
full marks alone). The attack bench found the invented place paid 1.000."""

from __future__ import annotations

import itertools

import pytest

from livesim.runs.calibration import build_request, grade_text

VERBS = ["Enter", "Paste", "Type", "Apply", "Redeem", "Put"]
WRONG = ["the chat box", "the comments", "the live chat", "your profile", "the app settings", "the search bar"]
RIGHT = ["checkout", "the checkout page", "checkout when you pay"]
FORMS = ["{V} the code {P} {where} to activate it.", "{V} your coupon {P} {where}.", "Just {v} the code {P} {where}!"]


def _prep(where: str) -> str:
    return "at" if where.startswith("checkout") else "in"


@pytest.mark.parametrize("intent", ["coupon", "how_to_buy"])
def test_a_code_entered_anywhere_but_checkout_is_false(intent):
    n = 0
    for seed in range(8400, 8420):
        sim = build_request(seed, intent)
        t = sim.request.truth
        gold = " ".join(t.say)
        if t.intents != [intent] or grade_text(sim, gold).reward < 1.0 - 1e-9:
            continue
        for (verb, form), (where, ok) in itertools.product(
                itertools.product(VERBS, FORMS), [(w, False) for w in WRONG] + [(w, True) for w in RIGHT]):
            if (seed + n) % 5:  # a fifth of the grid per request keeps it fast; the seeds vary which fifth
                n += 1
                continue
            sent = form.format(V=verb, v=verb.lower(), P=_prep(where), where=where)
            g = grade_text(sim, f"{gold} {sent}")
            assert (g.scores["accuracy"] == 1.0) == ok, (sent, g.errors)
            n += 1
    assert n >= 100
