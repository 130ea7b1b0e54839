"""A need the catalogue tags ("for summer", "a great gift", "an office essential") claimed of a product is checked
against the product's tags, as the recommendation's truth is; the same words used otherwise are no claim.

Generated over requests of several intents and seeds, every product of each catalogue, every need the catalogue
tags (those the property lexicon does not read already) and several wordings, with another product's statement
beside it in the same sentence.
"""

from __future__ import annotations

import pytest

from livesim.grading.properties import _need_regex
from livesim.runs.calibration import build_request, grade_text
from livesim.world.catalog import NEED_TAGS

_, FORMS = _need_regex(NEED_TAGS)
NEEDS = sorted(set(FORMS.values()))
CLAIMS = ("For {t}, try link {n}.", "Link {n} is perfect for {t}.", "Link {n} is a great {t} pick!",
          "Link {n} is great for {t}, and link {m} is sold out.", "For {t}, link {n}; link {m} is another option.")
GIFT_CLAIMS = ("Link {n} makes a lovely gift.", "Link {n} is the perfect gift!", "Get link {n} as a gift.")
CASES = [(intent, seed) for intent in ("recommendation", "price", "comparison") for seed in (9400, 9401, 9402)]


def _suitability(errors: list[str]) -> list[str]:
    return [e for e in errors if "suitability" in e or "is tagged for" in e]


@pytest.mark.parametrize(("intent", "seed"), CASES)
def test_a_need_claimed_of_a_product_is_checked_against_its_tags(intent, seed):
    sim = build_request(seed, intent)
    links = [p.link for p in sim.catalog.products]
    checked = 0
    for p in sim.catalog.products:
        other = next(x for x in links if x != p.link)
        for t in NEEDS:
            wordings = [w.format(t=t, n=p.link, m=other) for w in CLAIMS]
            if t == "gift":
                wordings += [w.format(n=p.link) for w in GIFT_CLAIMS]
            for text in wordings:
                errs = _suitability(grade_text(sim, text).errors)
                if t in p.tags:
                    assert not errs, (text, p.tags, errs)
                else:
                    assert errs and f"link {p.link} " in errs[0], (text, p.tags, errs)
                checked += 1
    assert checked > 500


@pytest.mark.parametrize(("intent", "seed"), CASES)
def test_a_need_denied_of_a_product_that_holds_it_is_false(intent, seed):
    sim = build_request(seed, intent)
    for p in sim.catalog.products:
        for t in NEEDS:
            errs = _suitability(grade_text(sim, f"Link {p.link} isn't for {t}.").errors)
            assert bool(errs) == (t in p.tags), (p.link, t, p.tags, errs)


@pytest.mark.parametrize("seed", range(9410, 9430))
def test_the_suited_pick_for_the_asked_need_is_right(seed):
    """Every link the truth holds suited to the asked need, said to suit it: no error, that fact met."""
    sim = build_request(seed, "recommendation")
    facts = [f for f in sim.request.truth.facts if f.label.startswith("a link suited to ")]
    assert facts
    for fact in facts:
        need = fact.label.split("a link suited to ", 1)[1].split(":")[0]
        for n in fact.value:
            name = sim.catalog.by_link(n).short_name
            for text in (f"For {need}, try link {n}, the {name}.", f"Link {n} is perfect for {need}!",
                         f"Link {n}, the {name}, is a great pick for {need}."):
                g = grade_text(sim, text)  # (a burst's other comment may ask more: only this fact is asked here)
                assert not g.errors and fact.label not in g.missing, (text, g.errors, g.missing)


@pytest.mark.parametrize(("intent", "seed"), CASES)
def test_the_need_words_used_otherwise_are_no_claim(intent, seed):
    """Thanks, a promotion's gift, the viewer's own need, a condition, a question: nothing claimed of a product."""
    sim = build_request(seed, intent)
    for p in sim.catalog.products:
        for t in NEEDS:
            for text in (f"Thanks for {t}!", f"If you need something for {t}, just ask.",
                         f"Looking for {t}? Let me check link {p.link} for you.", f"Is link {p.link} good for {t}?",
                         f"You get a free gift with link {p.link} over 199 yuan.",
                         f"Not sure link {p.link} is made for {t}."):
                errs = _suitability(grade_text(sim, text).errors)
                assert not errs, (text, errs)


@pytest.mark.parametrize("seed", range(9440, 9452))
def test_a_hedged_fronted_need_goes_with_the_pick_after_it(seed):
    """'Link 8 is 69 yuan today. I think for dry skin, try link 2.': the need is said of link 2, not of link 8 (the
    statement before), after any hedge."""
    sim = build_request(seed, "recommendation")
    fact = next(f for f in sim.request.truth.facts if f.label.startswith("a link suited to "))
    need = fact.label.split("a link suited to ", 1)[1].split(":")[0]
    pick = fact.value[0]
    other = next(p for p in sim.catalog.products if p.link not in fact.value)
    price = sim.room.current_price(sim.catalog, other.link)
    for hedge in ("I think", "Probably", "Honestly", "I'd say", "Personally"):
        text = f"Link {other.link} is only {price:g} yuan today. {hedge} for {need}, try link {pick}."
        g = grade_text(sim, text)
        assert not [e for e in g.errors if need in e], (text, g.errors)
        assert fact.label not in g.missing, (text, g.missing)
