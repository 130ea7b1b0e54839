"""Statements run together without punctuation ("Link 3's battery life is 20 hours Link 8's charging power is 10 W")
bind each number to its own statement's product: a mention right after a number (nothing but spaces between) does not
take it when the number already has a product before it or the mention opens a statement of its own ("Link 8's",
"link 8 is", "link 8 (the lamp)").

Generated from the attack bench's fragments (labelled by how they were built from the request's truth): every ordered
pair of true fact fragments with a number, about two different links, whose grade with full stops between them has no
number error, must have none run together.
"""

from __future__ import annotations

import itertools
import re

from livesim.runs.attack_fragments import build_pool
from livesim.runs.calibration import build_request, grade_text
from livesim.world.phrasing import INTENTS

NUM_ERR = re.compile(r"^[0-9.]+ is not the ")
LINK = re.compile(r"^link (\d+)", re.I)


def test_run_on_statements_bind_their_own_numbers():
    cases = 0
    for intent, seed in itertools.product(INTENTS, range(9500, 9503)):
        sim = build_request(seed, intent)
        facts = [f.text for f in build_pool(sim).fragments
                 if f.label == "true" and re.search(r"[0-9]", f.text) and LINK.match(f.text)]
        for a, b in itertools.permutations(facts, 2):
            if LINK.match(a)[1] == LINK.match(b)[1]:
                continue
            if any(NUM_ERR.match(e) for e in grade_text(sim, f"{a}. {b}.").errors):
                continue
            cases += 1
            bad = [e for e in grade_text(sim, f"{a} {b}").errors if NUM_ERR.match(e)]
            assert not bad, (f"{a} {b}", bad)
    assert cases >= 150, cases


def test_a_following_mention_still_binds_a_number_with_no_product_before_it():
    sim = build_request(9500, "price")
    link = sim.request.truth.targets[0]
    p = next(q for q in sim.catalog.products if q.link == link)
    other = next(q for q in sim.catalog.products if q.link != link)
    price = sim.room.current_price(sim.catalog, link)
    assert not [e for e in grade_text(sim, f"Only {price:g} yuan for link {link} today!").errors if NUM_ERR.match(e)]
    wrong = grade_text(sim, f"Only {price:g} yuan for link {other.link} today!")
    if sim.room.current_price(sim.catalog, other.link) != price:
        assert any(NUM_ERR.match(e) for e in wrong.errors), wrong.errors
    assert p.link != other.link
