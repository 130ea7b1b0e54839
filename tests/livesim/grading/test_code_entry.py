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


def test_a_running_code_named_at_checkout_says_where_it_goes():
    """"Enter LIVE25 at checkout" answers "where do I enter the coupon code?" as "enter the code at checkout" does: a
    running code named in the sentence is the code; checking out with no code named still says nothing of one.
    Generated over coupon requests whose truth asks where the code goes, each verb x checkout wording x running code."""
    n = 0
    for seed in range(8400, 8460):
        sim = build_request(seed, "coupon")
        labels = [f.label for f in sim.request.truth.facts]
        if "enter the code at checkout" not in labels:
            continue
        codes = [c.code for c in sim.room.active_coupons()]
        for verb, where, code in itertools.product(VERBS[:4], RIGHT, codes[:2]):
            g = grade_text(sim, f"{verb} {code} {_prep(where)} {where}.")
            assert "enter the code at checkout" not in g.missing, (verb, code, where, g.missing)
            n += 1
        link = sim.catalog.products[0].link
        g = grade_text(sim, f"Tap link {link} in the cart and check out.")
        assert "enter the code at checkout" in g.missing
    assert n >= 40, n
