"""A link is named by a word and its number on one line: "I'm happy to help with today's products\\n128GB of link 8
is in stock" names link 8, not "product 128" (which zeroed a true reply as "no product at link 128").

Generated over every word that names a link, line breaks, and figures that open the next line; and graded on stock
requests with a variant that has digits.
"""

from __future__ import annotations

import itertools

import pytest

from livesim.grading.facts.patterns import _LINK_RE
from livesim.runs.calibration import build_request, grade_text

WORDS = ("link", "links", "Link", "item", "items", "product", "products", "number", "no.", "No", "#")
BREAKS = ("\n", " \n", "\n ", "\r\n", "\n\n")
FIGURES = ("128GB of link 8 is in stock", "3 left in red", "48 hours to ship", "2 more days to Tibet", "99 yuan now")


@pytest.mark.parametrize(("word", "brk"), list(itertools.product(WORDS, BREAKS)))
def test_a_line_break_ends_a_link_reference(word, brk):
    for fig in FIGURES:
        text = f"Happy to help with today's {word}{brk}{fig}"
        links = [int(m["n"]) for m in _LINK_RE.finditer(text)]
        assert links == ([8] if "link 8" in fig else []), (text, links)
        same_line = f"Happy to help with {word} {fig.split()[0].rstrip('GB')}"
        assert [m["n"] for m in _LINK_RE.finditer(same_line)], same_line  # on one line it still names a link


def test_a_true_stock_reply_after_a_line_ending_in_a_link_word_is_paid():
    checked = 0
    for seed in range(9600, 9700):
        sim = build_request(seed, "stock_variant")
        calls = [c for c in sim.request.truth.calls if c.key == "check_stock" and c.arguments.get("variant")]
        if not calls or not any(ch.isdigit() for ch in str(calls[0].arguments["variant"])):
            continue
        gold = " ".join(sim.request.truth.say)
        for word in ("products", "items", "link"):
            g = grade_text(sim, f"Happy to help with today's {word}\n{gold}")
            assert not any("no product at link" in e for e in g.errors), (gold, g.errors)
            assert g.reward >= 0.9, (gold, g.reward, g.errors, g.missing)
            checked += 1
    assert checked >= 9, checked
