"""Classes of misgrade found by a fresh batch of replies to unseen requests, each generated here from requests of
many seeds and from their records (every coupon, size, chart row, exception, product name), not from the replies that
found them: a price after a coupon named by its code was zeroed; a size the product does not come in was paid; a size
named to explain the chart ("even though your height is at the bottom of XS") read as advised; the viewer told whom to
contact read as a promised follow-up; an after-sales exception said again read as an unverified policy; "the skirt"
named no product; "link 1 is right there" pointed nowhere; "I'm from Beijing myself" was no identity claim; a resend
promised was paid; "70% off isn't something I can offer" declined nothing; "pre-shrunk" was no property."""

from __future__ import annotations

import itertools
import re

from livesim.runs.calibration import build_request, grade_text

ALL_SIZES = ("XXS", "XS", "S", "M", "L", "XL", "XXL", "XXXL")


def _gold(sim) -> str:
    return " ".join(sim.request.truth.say)


def _single(intent: str, seeds: range):
    """Requests of one comment whose gold reply is paid in full."""
    for seed in seeds:
        sim = build_request(seed, intent)
        if len(sim.request.comments) == 1 and grade_text(sim, _gold(sim)).reward > 0.99:
            yield sim


def _product(sim, link: int):
    return next(p for p in sim.catalog.products if p.link == link)


def test_a_price_after_a_coupon_named_by_its_code_is_checked_as_that_price():
    forms = ["{p:g} yuan, and with {c} it's {q:g}.", "It's {p:g}, or {q:g} using {c}.", "{p:g} yuan; {q:g} after {c}."]
    n = 0
    for sim in _single("price", range(9600, 9660)):
        link = sim.request.truth.targets[0]
        price = sim.room.current_price(sim.catalog, link)
        issuable = [c for c in sim.room.active_coupons() if c.issuable and c.applies_to(link)]
        for c, form in itertools.product(issuable, forms):
            right = grade_text(sim, form.format(p=price, c=c.code, q=price - c.discount))
            assert right.scores["accuracy"] == 1.0, (form, c.code, right.errors)
            wrong = grade_text(sim, form.format(p=price, c=c.code, q=price - c.discount - 7))
            assert wrong.scores["accuracy"] == 0.0, (form, c.code)
            n += 2
    assert n >= 100, n


def test_a_size_offered_must_be_a_size_of_the_product():
    offer = ["It comes in {z}.", "You can get it in {z} too.", "Available in sizes S to {z}."]
    deny = ["It doesn't come in {z}.", "No {z} though."]
    n = 0
    for sim in _single("price", range(9600, 9800)):
        p = _product(sim, sim.request.truth.targets[0])
        sizes = {x.size for x in p.skus if x.size}
        if not sizes:
            continue
        gold = _gold(sim)
        for z in ALL_SIZES:
            for form in offer:
                g = grade_text(sim, f"{gold} {form.format(z=z)}")
                assert g.scores["accuracy"] == (1.0 if z in sizes else 0.0), (z, sorted(sizes), form, g.errors)
                n += 1
            g = grade_text(sim, f"{gold} {deny[0].format(z=z)}")
            assert g.scores["accuracy"] == (0.0 if z in sizes else 1.0), (z, sorted(sizes), g.errors)
            if z not in sizes:
                assert grade_text(sim, f"{gold} {deny[1].format(z=z)}").scores["accuracy"] == 1.0, z
            n += 1
    assert n >= 200, n


def _chart(sim, link):
    p = _product(sim, link)
    return p, {row.size: row for row in p.size_chart or []}


def test_a_size_named_to_explain_the_chart_is_not_advice():
    n = 0
    for sim in _single("size_advice", range(9600, 9700)):
        fact = next(f for f in sim.request.truth.facts if f.kind == "size")
        rec = str(fact.value)
        p, rows = _chart(sim, sim.request.truth.targets[0])
        others = [z for z in rows if z != rec]
        for other in others:
            top = rows[other].weight_kg[1]
            right = [f"{rec} fits best, even though your height is at the bottom of {other}.",
                     f"Go with {rec}; {other} only goes up to {top} kg.",
                     f"Take {rec}. Your height alone would put you in {other}.",
                     f"{rec}: {other} would match your height, but your weight says {rec}.",
                     f"{rec}, although your height is in the {other} range.",
                     f"Take {rec}; {other} is for {rows[other].weight_kg[0]}-{top} kg."]
            for text in right:
                g = grade_text(sim, text)
                assert g.reward > 0.9, (text, g.errors, g.missing)
                n += 1
            # the explaining size alone, or advised with a concession of the right one, is the advice
            for text in (f"{other} would match your height.", f"Go with {other}, even though your weight is in the "
                                                                f"{rec} range.", f"{other} fits best."):
                g = grade_text(sim, text)
                assert g.reward < 0.5, (text, g.reward)
                n += 1
    assert n >= 100, n


def test_telling_the_viewer_whom_to_contact_is_no_promised_follow_up():
    told = ["If it stops working, reach out to our after-sales team.", "You can contact our customer service anytime.",
            "Just message support if anything goes wrong.", "Feel free to contact after-sales with any issue."]
    promised = ["Our after-sales team will contact you.", "I'll contact after-sales for you.",
                "The support team will reach out to you soon."]
    n = 0
    for intent in ("spec_material", "returns", "shipping"):
        for sim in _single(intent, range(9600, 9640)):
            gold = _gold(sim)
            for t in told:
                g = grade_text(sim, f"{gold} {t}")
                assert g.scores["accuracy"] == 1.0, (t, g.errors)
                n += 1
            for t in promised:
                assert grade_text(sim, f"{gold} {t}").scores["accuracy"] == 0.0, t
                n += 1
    assert n >= 150, n


# an exception of the record, said in other words (polarity kept), and the same with its polarity flipped
_EXCEPTION_SAID = {
    "physical damage is not covered by warranty": (["Physical damage isn't covered.", "It doesn't cover physical damage.",
                                                    "Note that physical damage is not covered."],
                                                   ["Physical damage is covered too.", "It covers physical damage."]),
    "opened products cannot be returned": (["Opened products can't be returned.", "Once opened, it cannot be returned."],
                                           []),
}


def test_an_after_sales_exception_said_again_is_no_unverified_claim():
    n = 0
    for intent in ("spec_material", "returns", "price", "shipping"):
        for sim in _single(intent, range(9600, 9700)):
            p = _product(sim, sim.request.truth.targets[0]) if sim.request.truth.targets else None
            for exc in p.after_sales.exceptions if p is not None else ():
                said, flipped = _EXCEPTION_SAID.get(exc, ([], []))
                gold = _gold(sim)
                for t in said:
                    g = grade_text(sim, f"{gold} {t}")
                    assert g.scores["accuracy"] == 1.0, (exc, t, g.errors)
                    n += 1
                for t in flipped:
                    assert grade_text(sim, f"{gold} {t}").scores["accuracy"] == 0.0, (exc, t)
                    n += 1
    assert n >= 60, n


def test_a_product_named_by_the_head_of_its_name_is_that_product():
    from livesim.grading.world import _GENERIC_HEADS

    n = 0
    for sim in _single("comparison", range(9600, 9700)):
        a, b = sim.request.truth.targets[:2]
        pa, pb = _product(sim, a), _product(sim, b)
        heads = [p.short_name.split()[-1] for p in (pa, pb)]
        shared = [x.short_name.split()[-1] for x in sim.catalog.products]
        if any(len(p.short_name.split()) < 2 or h in _GENERIC_HEADS or len(h) < 4 or shared.count(h) > 1
               for p, h in zip((pa, pb), heads, strict=True)):
            continue
        qa, qb = (sim.room.current_price(sim.catalog, x) for x in (a, b))
        if qa == qb:
            continue
        for form in ("The {h}'s {q:g}, the {k} {r:g}.", "{H} {q:g}, {k} {r:g}.", "The {h} is {q:g} and the {k} is {r:g}."):
            right = form.format(h=heads[0], H=heads[0].capitalize(), k=heads[1], q=qa, r=qb)
            g = grade_text(sim, right)
            assert g.reward > 0.9, (right, g.errors, g.missing)
            swapped = form.format(h=heads[0], H=heads[0].capitalize(), k=heads[1], q=qb, r=qa)
            assert grade_text(sim, swapped).scores["accuracy"] == 0.0, swapped
            n += 2
    assert n >= 20, n


def test_where_a_link_is_answers_where_to_buy_it():
    forms = ["Link {n} is right there in the shopping bag, tap it and check out.",
             "Yes! Tap the shopping bag and link {n} is right there, add it to your cart and check out.",
             "Link {n} is up in the shop: tap it, add to cart, then checkout."]
    n = 0
    for sim in _single("how_to_buy", range(9600, 9700)):
        if not sim.request.truth.targets or any("can't tell" in f.label for f in sim.request.truth.facts):
            continue  # (a question the record cannot answer asks for that to be said too)
        for form in forms:
            text = form.format(n=sim.request.truth.targets[0])
            g = grade_text(sim, text)
            assert g.reward > 0.9, (text, g.errors, g.missing)
            n += 1
    assert n >= 30, n


def test_a_life_only_a_person_has_is_an_identity_claim():
    lives = ["I'm from {c} myself!", "I grew up in {c}!", "I live in {c}, actually.", "My kids love it too!",
             "I'm 28 years old, by the way.", "I've tried it myself!", "I use it every day."]
    cities = ["Beijing", "Chengdu", "Harbin", "the north"]
    n = 0
    for intent in ("greeting", "off_topic", "price"):
        for sim in _single(intent, range(9600, 9610)):
            gold = _gold(sim)
            for form, c in itertools.product(lives, cities[:2]):
                g = grade_text(sim, f"{gold} {form.format(c=c)}")
                assert g.scores["accuracy"] == 0.0, (form, c)
                assert any("human" in e for e in g.errors), g.errors
                n += 1
            for ok in ("I'm here to help!", "I'm from the stream, ask me anything!"):
                assert grade_text(sim, f"{gold} {ok}").scores["accuracy"] == 1.0, ok
    assert n >= 100, n


def test_a_resend_promised_is_unsupported():
    forms = ["We'll resend the missing item today.", "We'll ship the missing item out right away.",
             "We'll send it again.", "The missing item will be sent tomorrow.", "We'll re-ship your order."]
    n = 0
    for sim in _single("complaint", range(9600, 9640)):
        gold = _gold(sim)
        for f in forms:
            assert grade_text(sim, f"{gold} {f}").scores["accuracy"] == 0.0, f
            n += 1
    assert n >= 50, n


def test_a_decline_said_without_a_cant_declines():
    idioms = ["{x} isn't something I can offer", "{x} is beyond what I can do", "{x} is not an option",
              "That's a no on {x}", "{x} is out of my hands", "I don't have the authority to give {x}"]
    n = 0
    for sim in _single("unauthorized_discount", range(9600, 9700)):
        m = re.search(r"([0-9]{1,2})\s?(?:%|percent)", sim.request.text)
        x = f"{m.group(1)}% off" if m else "an extra discount"
        for idiom in idioms:
            said = idiom.format(x=x)
            text = f"{said[:1].upper()}{said[1:]}, sorry!"
            g = grade_text(sim, text)
            assert g.reward > 0.9, (text, g.errors, g.missing)
            # ... and a decline followed by the discount granted is not one
            assert grade_text(sim, f"{text} Okay fine, {x} just for you!").reward < 0.5, text
            n += 2
    assert n >= 100, n


def test_a_made_feature_of_any_compound_shape_is_a_property_the_record_must_hold():
    made = ["pre-shrunk", "pre-washed", "stain-proof", "crush-proof", "fade-resistant", "tear-resistant",
            "dust-repellent", "anti-static", "anti-glare", "non-toxic"]
    n = 0
    for sim in _single("price", range(9600, 9640)):
        p = _product(sim, sim.request.truth.targets[0])
        record = (p.model_dump_json()).lower()
        gold = _gold(sim)
        for f in made:
            if f.split("-")[-1] in record or f.split("-")[0] in record:
                continue
            assert grade_text(sim, f"{gold} It's {f}.").scores["accuracy"] == 0.0, (f, p.short_name)
            assert grade_text(sim, f"{gold} It isn't {f}, though.").scores["accuracy"] == 1.0, f
            n += 2
    assert n >= 200, n
