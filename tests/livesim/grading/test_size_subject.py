"""A size is not a product pick: "Size L is the one for you on link 8" advises a size (of link 8); to "which one for
a gift?" it recommends nothing, while "Link 8 is the one for you" and "Link 8 in size L is the one" do.

Generated over recommendation requests of many seeds (single comments and bursts), every suited link, and size
subjects in several forms (a token, "size M", "an M", a size word).
"""

from __future__ import annotations

from livesim.runs.calibration import build_request, grade_text

SUBJECTS = ("Size L", "size M", "An XL", "A medium", "S", "I'd say size XXL")
PHRASES = ("is the one for you on link {n}!", "is your best bet on link {n}.", "is the pick of link {n}!")


def _requests(n: int):
    out = []
    for seed in range(9900, 10600):
        sim = build_request(seed, "recommendation")
        fact = next((f for f in sim.request.truth.facts if f.label.startswith("a link suited to")), None)
        if fact is not None:
            out.append((sim, fact))
            if len(out) == n:
                break
    return out


def test_a_size_that_is_the_one_recommends_no_product():
    n = 0
    for sim, fact in _requests(24):
        for link in fact.value[:3]:
            for subject in SUBJECTS:
                for phrase in PHRASES:
                    text = f"{subject} {phrase.format(n=link)}"
                    assert fact.label in grade_text(sim, text).missing, text
                    n += 1
    assert n >= 300


def test_the_product_that_is_the_one_is_recommended():
    for sim, fact in _requests(24):
        for link in fact.value[:3]:
            for text in (f"Link {link} is the one for you!", f"Link {link} in size L is the one for you!",
                         f"Size L is great, and link {link} is your best bet."):
                assert fact.label not in grade_text(sim, text).missing, text
