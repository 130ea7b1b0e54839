"""A statement naming several variants of its product, each in a clause of its own ("the family pack is in stock, but
the classic is sold out"), is read clause by clause: each state is of the variants its own clause names. Before, the
sentence's states were pooled (a true reply zeroed as "both in stock and sold out", and a false "... and the classic
is in stock too" paid). Generated over stock requests that ask for one variant of a product with others: every other
variant, both orders, several joiners, with each state true or false."""

from __future__ import annotations

import itertools

from livesim.runs.calibration import build_request, grade_text

JOIN = [", but ", " and ", ", while ", "; "]


def _state(stock: int) -> str:
    return "in stock" if stock > 0 else "sold out"


def _flip(stock: int) -> str:
    return "sold out" if stock > 0 else "in stock"


def _variant_requests():
    """(sim, product, asked variant) of stock requests about one product that name a variant."""
    for seed in range(8800, 8860):
        sim = build_request(seed, "stock_variant")
        calls = [c for c in sim.request.truth.calls if c.key == "check_stock" and c.arguments.get("variant")]
        if len(sim.request.truth.targets) == 1 and calls:
            p = next(q for q in sim.catalog.products if q.link == sim.request.truth.targets[0])
            yield sim, p, str(calls[0].arguments["variant"])


def _state_asked(sim) -> bool:
    """The request asks for a stock state (not "how many are left")."""
    return all(f.kind == "stock" and f.value in ("in_stock", "sold_out") for f in sim.request.truth.facts)


def test_each_clause_states_the_stock_of_its_own_variants():
    n = wrong = 0
    for sim, p, variant in _variant_requests():
        asked = variant.lower()
        state_asked = _state_asked(sim)
        options = {(x.option or x.colour or "").lower(): x.stock for x in p.skus if not x.size}
        if asked not in options or len(options) < 2:
            continue
        for other, join in itertools.product([o for o in options if o and o != asked], JOIN):
            mine = f"the {asked} of link {p.link} is {_state(options[asked])}"
            for theirs, ok in ((f"the {other} is {_state(options[other])}", True),
                               (f"the {other} is {_flip(options[other])}", False)):
                for text in (f"{mine[:1].upper()}{mine[1:]}{join}{theirs}.",):
                    g = grade_text(sim, text)
                    assert (g.scores["accuracy"] == 1.0) == ok, (text, g.errors)
                    if ok and state_asked:
                        assert g.scores["effectiveness"] == 1.0, (text, g.missing)
                    wrong += not ok
                    n += 1
    assert n >= 60 and wrong >= 30, (n, wrong)


def test_a_variant_available_for_the_product_is_its_stock():
    n = 0
    for sim, p, asked in _variant_requests():
        stock = sum(x.stock for x in p.sku_for(asked))
        for form in ("{v} is available for the {name}.", "The {v} is available for link {link}."):
            text = form.format(v=asked[:1].upper() + asked[1:], name=p.short_name, link=p.link)
            g = grade_text(sim, text)
            assert (g.scores["accuracy"] == 1.0) == (stock > 0), (text, g.errors)
            if stock > 0 and _state_asked(sim):
                assert g.scores["effectiveness"] == 1.0, (text, g.missing)
            n += 1
    assert n >= 30, n
