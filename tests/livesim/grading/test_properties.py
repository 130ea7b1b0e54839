"""Product properties against a closed world, generated over requests, products, categories and phrasings.

Every reply is built from the request's truth (the product record): properties the record holds stated right,
lexicon properties the record lacks, denials of held properties, quantifiers over variants and products, and
service properties (couriers, dispatch speeds, region delays, usage durations). The expected accuracy comes from
how the reply was built, never from the grader.
"""

import json
from functools import cache

import numpy as np
import pytest

from livesim.grading.property_lexicon import COURIERS, LEXICON
from livesim.runs.calibration import build_request, grade_text
from livesim.world.catalog import generate_catalog

SEEDS = range(30)


@cache
def _sim(seed, intent):
    sim = build_request(seed, intent)
    return sim if sim.request.truth.intents == [intent] else None


def _sims(intent, seeds=SEEDS):
    return [s for s in (_sim(seed, intent) for seed in seeds) if s is not None]


def _gold(sim):
    return " ".join(sim.request.truth.say)


def _target(sim):
    return sim.catalog.by_link(sim.request.truth.targets[0])


def _record_blob(p):
    """Everything the record says of the product, as lower-case text (the truth the labels come from)."""
    return json.dumps([p.attributes, [s.variant for s in p.skus], p.tags, p.short_name, p.category]).lower()


def _absent(p, kinds, rng, k):
    """k lexicon surfaces of `kinds` none of whose words-of-record occur in the product's record (no figures in
    them: figures are checked on their own)."""
    blob = _record_blob(p).replace("-", " ").replace("_", " ")
    pool = []
    for kind in kinds:
        for surfaces, _, forms in LEXICON[kind]:
            words = {w for f in forms for w in f.replace("+", " ").split()} | {w for s in surfaces for w in s.split()}
            if not any(w in blob for w in words):
                pool += [(kind, s) for s in surfaces if not any(ch.isdigit() for ch in s)]
    idx = rng.choice(len(pool), size=min(k, len(pool)), replace=False)
    return [pool[int(i)] for i in idx]


def _acc(sim, reply):
    g = grade_text(sim, reply)
    return g.scores["accuracy"], g


_CLAIM = {
    "material": ("It's made of {x}.", "Link {n} is {x}, feels lovely.", "The whole thing is {x}!"),
    "ingredient": ("It contains {x}.", "Link {n} has {x} in it.", "Good news, there's {x} in this one."),
    "allergen": ("It contains {x}.", "Heads up, link {n} has {x}.", "There is {x} in it."),
    "feature": ("It's {x}.", "Link {n} has {x} too!", "Plus it comes with {x}."),
    "certification": ("It's {x}.", "Link {n} is fully {x}.", "And yes, it is {x}!"),
    "care": ("It's {x}.", "Care is easy: {x}.", "Link {n} is {x}, no fuss."),
    "compatibility": ("It works with {x}.", "Link {n} is compatible with {x}.", "Pairs fine with {x}!"),
    "origin": ("It's {x}.", "Link {n} is {x}, great quality.", "This one is {x}!"),
    "flavour": ("It comes in {x}.", "Link {n} is {x} flavoured.", "The flavour is {x}!"),
}
_HEDGED = ("I can check whether it's {x} for you.", "Do you need it to be {x}?",
           "I'm not sure if it's {x}, let me check.", "Whether it's {x}, I can't say for sure.",
           "It isn't {x}, as far as the listing goes.")
_KINDS_FOR = {"apparel": ("material", "feature", "certification", "care", "origin"),
              "beauty": ("ingredient", "certification", "feature", "origin"),
              "electronics": ("feature", "compatibility", "certification", "material", "origin"),
              "food": ("allergen", "ingredient", "certification", "flavour", "origin"),
              "home": ("material", "feature", "care", "certification", "origin")}


def _held_sentences(p):
    """True statements of the record's own properties, several phrasings each."""
    a, n, out = p.attributes, p.link, []
    if "material" in a:
        fabric = a["material"].split("% ")[-1]
        out += [f"It's made of {fabric}.", f"Link {n} is {fabric}.", f"The material is {a['material']}."]
    for ing in a.get("ingredients", []):
        out += [f"It contains {ing}.", f"Link {n} has {ing} in it."]
    for al in a.get("allergens", []):
        out += ["No listed allergens." if al == "none" else f"It contains {al}."]
    if "allergens" in a and a["allergens"] != ["none"]:
        out.append(f"Heads up, link {n} contains {a['allergens'][0]}.")
    for c in a.get("compatibility", []):
        out += [f"It works with {c}.", f"Link {n} is compatible with {c}."]
    if "care" in a:
        out += [f"Care: {a['care']}.", f"It's {a['care']}." if "safe" in a["care"] else f"Just {a['care']}."]
    if "skin_type" in a:
        out += [f"It suits {a['skin_type']}.", f"Great for {a['skin_type']}!"]
    if "flavour" in a:
        out += [f"The flavour is {a['flavour']}."]
    if a.get("fragrance_free"):
        out += ["It's fragrance-free.", "No fragrance in it."]
    if "fit" in a:
        out += [f"It's a {a['fit']}."]
    return out


def test_record_properties_stated_correctly_keep_accuracy():
    n = 0
    for sim in _sims("spec_material"):
        p = _target(sim)
        for sent in _held_sentences(p):
            acc, g = _acc(sim, f"{_gold(sim)} {sent}")
            assert acc == 1.0, (p.attributes, sent, g.errors)
            n += 1
    assert n >= 60


@pytest.mark.parametrize("template", range(3))
def test_invented_properties_are_unsupported(template):
    rng = np.random.default_rng(template)
    n = 0
    for sim in _sims("spec_material"):
        p = _target(sim)
        for kind, x in _absent(p, _KINDS_FOR[p.category], rng, 4):
            reply = f"{_gold(sim)} {_CLAIM[kind][template].format(x=x, n=p.link)}"
            acc, g = _acc(sim, reply)
            assert acc == 0.0, (p.short_name, reply)
            n += 1
    assert n >= 60


def test_hedged_asked_or_denied_absent_properties_keep_accuracy():
    rng = np.random.default_rng(7)
    n = 0
    for sim in _sims("spec_material"):
        p = _target(sim)
        # words another check reads on its own (urgency, health claims) are left to that check's tests
        absent = [(k, x) for k, x in _absent(p, ("feature", "certification"), rng, 8)
                  if not any(w in x for w in ("quick", "dermatolog", "clinical", "hypoallergenic", "safe", "toxic"))]
        for (_kind, x), tpl in zip(absent, _HEDGED, strict=False):
            reply = f"{_gold(sim)} {tpl.format(x=x)}"
            acc, g = _acc(sim, reply)
            assert acc == 1.0, (reply, g.errors)
            n += 1
    assert n >= 60


_DENY = ("It doesn't contain {x}.", "There's no {x} in link {n}.", "It's {x}-free.", "Totally free of {x}.",
         "Link {n} has zero {x}.")


def _held_denials(p):
    a = p.attributes
    held = list(a.get("ingredients", [])) + [x for x in a.get("allergens", []) if x != "none"]
    held += list(a.get("compatibility", []))
    if "material" in a:
        held.append(a["material"].split("% ")[-1])
    return held


def test_denied_held_properties_are_false():
    n = 0
    for sim in _sims("spec_material", range(60)):
        p = _target(sim)
        for i, x in enumerate(_held_denials(p)):
            if x in p.attributes.get("compatibility", []):
                sent = ("It doesn't work with {x}." if i % 2 else "Link {n} isn't compatible with {x}.")
            else:
                sent = _DENY[(i + p.link) % len(_DENY)]
            reply = f"{_gold(sim)} {sent.format(x=x, n=p.link)}"
            acc, g = _acc(sim, reply)
            assert acc == 0.0, (p.attributes, reply)
            n += 1
    assert n >= 40


def test_fragrance_label_follows_the_record():
    for sim in _sims("spec_material", range(120)):
        p = _target(sim)
        if "fragrance_free" not in p.attributes:
            continue
        acc, _ = _acc(sim, f"{_gold(sim)} It's fragrance-free.")
        assert acc == (1.0 if p.attributes["fragrance_free"] else 0.0), p.attributes


_ALL_SIZES = ("Every size is in stock!", "All sizes are available right now.", "Any size you pick is in stock.")
_ALL_VARIANTS = {"apparel": _ALL_SIZES, "home": ("All colours are in stock.", "Every colour is available!"),
                 "electronics": ("All the options are in stock.", "Every version is available now."),
                 "food": ("Both packs are in stock.", "All options are available today."),
                 "beauty": ("All options are in stock.", "Every version is available!")}


def test_quantifier_over_variants_must_hold_for_every_variant():
    seen = {0.0: 0, 1.0: 0}
    for sim in _sims("spec_material", range(80)):
        p = _target(sim)
        expected = 1.0 if all(s.stock > 0 for s in p.skus) else 0.0
        for sent in _ALL_VARIANTS[p.category]:
            acc, g = _acc(sim, f"{_gold(sim)} {sent}")
            assert acc == expected, ([(s.variant, s.stock) for s in p.skus], sent, g.errors)
            seen[expected] += 1
    assert seen[0.0] >= 20 and seen[1.0] >= 5


def test_quantifier_over_named_variants():
    """'S and M are both in stock': only the named variants are covered."""
    n = 0
    for sim in _sims("spec_material", range(80)):
        p = _target(sim)
        if p.category != "apparel":
            continue
        colour = p.skus[0].colour
        sizes = [s for s in p.skus if s.colour == colour][:2]
        expected = 1.0 if all(s.stock > 0 for s in sizes) else 0.0
        sent = f"In {colour}, {sizes[0].size} and {sizes[1].size} are both in stock."
        acc, g = _acc(sim, f"{_gold(sim)} {sent}")
        assert acc == expected, ([(s.variant, s.stock) for s in p.skus], sent, g.errors)
        n += 1
    assert n >= 8


def test_property_of_one_product_stated_for_both():
    n = 0
    for sim in _sims("comparison", range(80)):
        a, b = (sim.catalog.by_link(x) for x in sim.request.truth.targets[:2])
        for p, q in ((a, b), (b, a)):
            words = [w for w in _held_denials(p) if w.lower() not in _record_blob(q)]
            if not words:
                continue
            for tpl in ("Both are {x}.", "Link {a} and link {b} both have {x}.", "They're both made with {x}."):
                reply = f"{_gold(sim)} {tpl.format(x=words[0], a=a.link, b=b.link)}"
                acc, g = _acc(sim, reply)
                assert acc == 0.0, (p.attributes, q.attributes, reply)
                n += 1
    assert n >= 15


@pytest.mark.parametrize("tpl", ("We ship it with {c}.", "It goes out via {c}.", "{c} delivers all our parcels."))
def test_couriers_are_unsupported(tpl):
    rng = np.random.default_rng(3)
    for sim in _sims("shipping", range(20)):
        c = COURIERS[int(rng.integers(len(COURIERS)))]
        c = c.upper() if len(c) <= 3 else c.title()
        acc, g = _acc(sim, f"{_gold(sim)} {tpl.format(c=c)}")
        assert acc == 0.0, (c, g.errors)


@pytest.mark.parametrize("sent", ("It ships the same day.", "We dispatch it immediately after payment.",
                                  "Express shipping on this one!", "It goes out within the hour."))
def test_invented_dispatch_speeds_are_unsupported(sent):
    for sim in _sims("shipping", range(20)):
        assert _acc(sim, f"{_gold(sim)} {sent}")[0] == 0.0


def test_region_delays_follow_the_shipping_rule():
    seen = {0.0: 0, 1.0: 0}
    from livesim.world.catalog import REGIONS
    for sim in _sims("shipping", range(60)):
        p = _target(sim)
        s = p.shipping
        plain = [r for r in REGIONS if r not in s.remote_regions and r not in s.excluded_regions
                 and r not in sim.request.text]
        remote = sorted(s.remote_regions)
        cases = [(f"Orders to {plain[0]} take 2 extra days.", 0.0),
                 (f"{plain[1]} is a bit slower, about 3 more days.", 0.0)]
        for r in remote:
            if r in sim.request.text:
                continue
            cases += [(f"For {r}, allow {s.remote_regions[r]} extra days.", 1.0),
                      (f"{r} takes {s.remote_regions[r] + 2} extra days.", 0.0),
                      (f"{r} has no extra delay.", 0.0)]
        for sent, expected in cases:
            acc, g = _acc(sim, f"{_gold(sim)} {sent}")
            assert acc == expected, (s, sent, g.errors)
            seen[expected] += 1
    assert seen[0.0] >= 40 and seen[1.0] >= 10


@pytest.mark.parametrize("sent", ("One jar lasts about two months.", "It's enough for 30 uses.",
                                  "It will last you a whole season with daily use.", "Good for 50 washes at least.",
                                  "You can use it for 5 years easily.", "That's a three-month supply."))
def test_invented_usage_durations_are_unsupported(sent):
    for sim in _sims("spec_material", range(20)):
        assert _acc(sim, f"{_gold(sim)} {sent}")[0] == 0.0, sent


def test_every_order_dispatch_time_covers_every_product():
    n = 0
    for sim in _sims("shipping", range(60)):
        hours = sorted({p.shipping.ships_within_hours for p in sim.catalog.products})
        if len(hours) < 2:
            continue
        acc, g = _acc(sim, f"{_gold(sim)} Every order ships within {hours[0]} hours.")
        assert acc == 0.0, (hours, g.errors)
        n += 1
    assert n >= 10


def test_lexicon_covers_the_catalogue_vocabulary():
    """Every string value the catalogue generates is a surface of the lexicon (so a drift is seen here)."""
    surfaces = {s for rows in LEXICON.values() for surf, _, _ in rows for s in surf}
    forms = {f for rows in LEXICON.values() for _, _, fs in rows for f in fs}
    missing = set()
    for seed in range(40):
        for p in generate_catalog(np.random.default_rng(seed), 8).products:
            for key in ("material", "ingredients", "allergens", "compatibility", "care", "skin_type", "flavour",
                        "storage", "fit"):
                for v in p.attributes.get(key, []) if isinstance(p.attributes.get(key), list) else \
                        [p.attributes.get(key)]:
                    if v is None or v == "none" or key in ("material",) and False:
                        continue
                    word = str(v).lower().split("% ")[-1]
                    if word not in surfaces and word not in forms and key not in ("flavour",):
                        missing.add((key, word))
    assert not missing, sorted(missing)


def test_hypernyms_and_name_words_of_the_record_are_held():
    """'plastic' of polypropylene, 'metal' of aluminium, 'wooden' of bamboo, 'nuts' of the mixed nuts."""
    n = 0
    for sim in _sims("spec_material", range(120)):
        p = _target(sim)
        words = {"polypropylene": "plastic", "aluminium": "metal", "bamboo": "wooden", "ceramic": "ceramic"}
        m = str(p.attributes.get("material", "")).split("% ")[-1]
        if m in words:
            for tpl in ("It's {x}.", "Link {n} is {x}, sturdy too."):
                acc, g = _acc(sim, f"{_gold(sim)} {tpl.format(x=words[m], n=p.link)}")
                assert acc == 1.0, (m, g.errors)
                n += 1
    assert n >= 4


@pytest.mark.parametrize("tpl", ("We have {x} in today's lineup!", "Today everything is {x}."))
def test_a_property_of_the_shop_must_hold_of_some_or_every_product(tpl):
    """Unscoped ('we've got cotton pieces'): some product must hold it; 'everything is' : every product."""
    seen = {0.0: 0, 1.0: 0}
    for sim in _sims("greeting", range(40)):
        mats = [str(p.attributes.get("material", "")) + " " + p.short_name for p in sim.catalog.products]
        for x in ("cotton", "wool", "linen", "polyester"):
            holds = [x in m for m in mats]
            expected = 1.0 if (all(holds) if "everything" in tpl else any(holds)) else 0.0
            acc, g = _acc(sim, f"{_gold(sim)} {tpl.format(x=x)}")
            assert acc == expected, (mats, x, g.errors)
            seen[expected] += 1
    assert seen[0.0] >= 20 and (seen[1.0] >= 5 or "everything" in tpl)


def test_allergy_talk_and_exceptions_are_not_claims_about_every_variant():
    n = 0
    for sim in _sims("spec_material", range(120)):
        p = _target(sim)
        if p.category == "food":
            acc, g = _acc(sim, f"{_gold(sim)} If you have a nut allergy, please check the label first.")
            assert acc == 1.0, g.errors
            n += 1
        sold = [s for s in p.skus if s.stock == 0]
        if p.category == "apparel" and len(sold) == 1 and sold[0].size:
            acc, g = _acc(sim, f"{_gold(sim)} Every size is in stock except {sold[0].size} in {sold[0].colour}.")
            assert acc == 1.0, g.errors
            n += 1
    assert n >= 8


@pytest.mark.parametrize("tpl", ("Did you know it's {x}?", "I believe it's {x}.", "As far as I know it is {x}.",
                                 "Isn't it great that it's {x}?"))
def test_softened_and_rhetorical_assertions_still_assert(tpl):
    rng = np.random.default_rng(11)
    for sim in _sims("spec_material", range(20)):
        p = _target(sim)
        for _kind, x in _absent(p, ("certification",), rng, 2):
            acc, g = _acc(sim, f"{_gold(sim)} {tpl.format(x=x)}")
            assert acc == 0.0, (tpl, x)


@pytest.mark.parametrize("tpl", ("Check it out, it's {x}!", "Go for link {n} instead, it's {x}.",
                                 "Check it out: {x} and great value."))
def test_words_near_a_hedge_do_not_shield_a_claim(tpl):
    rng = np.random.default_rng(5)
    for sim in _sims("spec_material", range(20)):
        p = _target(sim)
        for _kind, x in _absent(p, ("feature", "certification"), rng, 2):
            acc, g = _acc(sim, f"{_gold(sim)} {tpl.format(x=x, n=p.link)}")
            assert acc == 0.0, (tpl, x)
