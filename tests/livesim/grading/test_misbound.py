"""A figure or a word read as the claim it belongs to, not as a neighbouring one.

- A time stated of one record figure does not answer a question about another with the same value ("ships within
  48 hours" to "how long does the battery last?" when the battery lasts 48 hours).
- A price ended by a spaced dash and a new statement keeps its own reading ("every price is now 0 - 128GB of link 7
  is in stock" is a price of 0, not a range of sizes); a true range ("3 - 5 days") still shares its unit.
- A product said to be free ("link 7 is now free") is a false claim; "shipping on link 5 is free over 99" is not one.

Generated over requests, seeds, the required facts their truth holds and the cue words of every record figure.
"""

from __future__ import annotations

import pytest

from livesim.grading.answers import fact_met
from livesim.grading.reading import read_reply
from livesim.grading.world import FACT_CUE, TIME_CUES, World
from livesim.runs.calibration import build_request, grade_text

UNIT = {"ships_within_hours": "h", "battery_hours": "h", "return_days": "day", "remote_days": "day",
        "shelf_life_days": "day", "shelf_life_months": "month", "warranty_months": "month"}
WORD = {"h": "hours", "day": "days", "month": "months"}
SAYS = {"ship": "Link {n} ships within {v} {u}.", "battery": "Link {n}'s battery lasts {v} {u}.",
        "return": "You can return link {n} within {v} {u}.", "extra": "Link {n} takes {v} extra {u} to Qinghai.",
        "shelf": "Link {n} keeps for {v} {u} unopened.", "warranty": "Link {n}'s warranty is {v} {u}.",
        "contact": "Our team will contact you about link {n} within {v} {u}.",
        "exc": "Report damage to link {n} with a photo within {v} {u}."}


def _time_facts(intent: str, seeds: range):
    """(sim, a required time fact or one alternative of one, the label the grade's `missing` lists it by)."""
    for seed in seeds:
        sim = build_request(seed, intent)
        for top in sim.request.truth.facts:
            for f in (top.any_of or [top]):
                if f.kind == "number" and f.attribute in FACT_CUE and f.subject is not None:
                    yield sim, f, top.label


def _met(sim, fact, text: str) -> bool:
    """Is this one fact (an alternative of a required one, too) stated as an answer by `text`?"""
    world = World.of_request(sim.request, sim.trace.tool_calls, sim.catalog, sim.room)
    return fact_met(fact, read_reply(text, world), world, sim.request.text)


@pytest.mark.parametrize("intent", ["spec_material", "shipping", "returns"])
def test_a_time_answers_only_the_figure_its_statement_names(intent):
    n = 0
    for sim, f, _ in _time_facts(intent, range(9500, 9560)):
        unit = UNIT[f.attribute]
        v = int(f.value) if float(f.value).is_integer() else f.value
        own = FACT_CUE[f.attribute]
        for cue in TIME_CUES[unit]:
            text = SAYS[cue].format(n=f.subject, v=v, u=WORD[unit])
            assert _met(sim, f, text) == (cue == own), (text, f.label, f.attribute)
            n += 1
        bare = f"Link {f.subject}: {v} {WORD[unit]}."  # no cue: the figure answers the question it follows
        assert _met(sim, f, bare), (bare, f.label)
    assert n >= 10


@pytest.mark.parametrize("seed", range(9600, 9612))
def test_a_price_before_a_spaced_dash_is_a_price(seed):
    sim = build_request(seed, "price")
    link = sim.request.truth.targets[0]
    price = sim.room.current_price(sim.catalog, link)
    for wrong in (0, 1, int(price) + 7):
        for unit in ("GB", "ml", "cm", "days"):
            other = next(p.link for p in sim.catalog.products if p.link != link)
            text = f"Link {link} is now {wrong} - 128{unit} of link {other} is in stock."
            errs = grade_text(sim, text).errors
            assert any(f"{wrong:g} is not the price of link {link}" in e for e in errs), (text, errs)


@pytest.mark.parametrize("seed", range(9600, 9606))
def test_a_range_still_shares_its_unit(seed):
    sim = build_request(seed, "shipping")
    w = World.of_request(sim.request, sim.trace.tool_calls, sim.catalog, sim.room)
    for a, b, unit in ((3, 5, "days"), (28, 44, "cm"), (10, 12, "hours")):
        for gap in (" - ", "-", " to ", " ~ "):
            r = read_reply(f"Link 1 takes {a}{gap}{b} {unit}.", w)
            assert len(r.nums) == 2 and r.nums[0].unit == r.nums[1].unit is not None, (gap, unit, r.nums)


@pytest.mark.parametrize(("intent", "seed"), [(i, s) for i in ("price", "shipping", "comparison")
                                               for s in (9620, 9621)])
def test_a_product_said_to_be_free_is_false(intent, seed):
    sim = build_request(seed, intent)
    for p in sim.catalog.products:
        for text in (f"Link {p.link} is now free.", f"Link {p.link} is totally free today!",
                     f"#{p.link}'s free right now.", f"The {p.short_name} is free, grab it!"):
            errs = grade_text(sim, text).errors
            assert any("nothing is free" in e for e in errs), (text, errs)
        for text in (f"Shipping on link {p.link} is free on orders over {p.shipping.free_over:g} yuan.",
                     f"Link {p.link} isn't free, sorry.", f"Link {p.link} is free of parabens.",
                     f"Link {p.link} is free to return within 7 days."):
            errs = grade_text(sim, text).errors
            assert not any("nothing is free" in e for e in errs), (text, errs)


@pytest.mark.parametrize("seed", range(9630, 9636))
def test_a_figure_with_its_own_unit_after_takes_is_no_discount(seed):
    """'Ningxia takes 4 extra days' is a remote region's delay ('takes 30 off' is a discount: no unit)."""
    sim = build_request(seed, "shipping")
    n = 0
    for p in sim.catalog.products:
        for region, days in p.shipping.remote_regions.items():
            for text in (f"Link {p.link} takes {days} extra days to {region}.",
                         f"{region} takes {days} extra days for link {p.link}.",
                         f"Shipping link {p.link} to {region} takes {days} more days."):
                assert grade_text(sim, text).errors == [], text
                n += 1
    assert n >= 3



def _stock_bursts(n: int):
    """Requests of two stock questions (no one stock state for the request), from the first seeds that have them."""
    out = []
    for seed in range(9700, 11700):
        sim = build_request(seed, "stock_variant")
        if len([c for c in sim.request.truth.calls if c.key == "check_stock"]) >= 2:
            out.append(seed)
            if len(out) == n:
                break
    return out


@pytest.mark.parametrize("sold", [False, True])
def test_each_asked_variant_of_a_stock_burst_is_checked_against_its_own_state(sold):
    """'Chili lime of link 3 is in stock. Red of link 1 is sold out.' to two stock questions: each state true of the
    variant asked, not of the product as a whole (red sold out while olive is in stock: 'red of link 1 is sold
    out' is true). With `sold`, each asked variant is made sold out while another SKU of its product stays in stock."""
    said = {"in_stock": "is in stock", "sold_out": "is sold out"}
    flip = {"in_stock": "sold_out", "sold_out": "in_stock"}
    n = 0
    for seed in _stock_bursts(6):
        sim = build_request(seed, "stock_variant")
        asked = [(c.arguments["variant"], c.arguments["link"]) for c in sim.request.truth.calls
                 if c.key == "check_stock"]
        parts = []
        for variant, link in asked:
            p = sim.catalog.by_link(link)
            skus = p.sku_for(variant)
            if sold and len(skus) < len(p.skus):
                for x in skus:
                    x.stock = 0
                for x in p.skus:
                    if x not in skus:
                        x.stock = max(x.stock, 5)
            parts.append((variant, link, "in_stock" if any(x.stock > 0 for x in skus) else "sold_out"))
        for sep in (". ", " - ", "; "):
            right = sep.join(f"{v.capitalize()} of link {link} {said[st]}" for v, link, st in parts) + "."
            errs = [e for e in grade_text(sim, right).errors if "sold out" in e or "in stock" in e]
            assert not errs, (right, errs)
            for k in range(len(parts)):
                wrong = sep.join(f"{v.capitalize()} of link {link} {said[flip[st] if i == k else st]}"
                                 for i, (v, link, st) in enumerate(parts)) + "."
                assert grade_text(sim, wrong).reward < 0.5, wrong
                n += 1
    assert n >= 20


def _colour_facts(n: int):
    out = []
    for seed in range(9800, 11800):
        sim = build_request(seed, "spec_material")
        for f in sim.request.truth.facts:
            if f.kind == "keyword" and str(f.label).startswith("colours:") and len(f.value or []) >= 2:
                out.append((seed, f.label))
        if len(out) >= n:
            return out
    return out


def test_which_colours_is_answered_by_the_list_not_by_skus_named_by_their_colour():
    """'Any other colours for link 8?': 'size XL in beige of link 8 is in stock, size M in brown of link 8 is in
    stock' names two SKUs, not the colours it comes in; 'link 8 comes in beige and brown' does, stock or no stock."""
    n = 0
    for seed, label in _colour_facts(10):
        sim = build_request(seed, "spec_material")
        f = next(x for x in sim.request.truth.facts if x.label == label)
        link, colours = f.subject, [str(c) for c in f.value]
        sizes = [x.size for x in sim.catalog.by_link(link).skus if x.size] or ["M"]
        skus = [f"Size {sizes[i % len(sizes)]} in {c} of link {link} is in stock" for i, c in enumerate(colours)]
        for text in (". ".join(skus) + ".", " - ".join(skus), ", and ".join(skus) + ".",
                     ". ".join(f"{c.capitalize()} of link {link} is sold out" for c in colours) + "."):
            assert not _met(sim, f, text), (text, label)
        listed = ", ".join(colours[:-1]) + f" and {colours[-1]}"
        for text in (f"Link {link} comes in {listed}.", f"Colours of link {link}: {listed}.",
                     f"Link {link} comes in {listed}, and {colours[0]} is in stock."):
            assert _met(sim, f, text), (text, label)
        n += 1
    assert n >= 5
