"""In a burst, an off-topic comment is steered back to the products by an answer to another comment's product
question, even one that names the product as "it" ("yes, it ships to Sichuan"): talking about a product is the steer
(a link or product name said was already one). Filler with no product in it is not, and an answer that meets no
product fact does not steer.

Generated over off-topic bursts of many seeds whose other comments ask about a product (price, shipping, stock,
sizes, materials, recommendations): the gold answer to the other comment, with every "link N" said as "it".
"""

from __future__ import annotations

import re

from livesim.grading.answers import _of_a_product
from livesim.runs.calibration import build_request, grade_text

STEER = "steers back to the products"


def _bursts(n: int):
    out = []
    for seed in range(9900, 11400):
        sim = build_request(seed, "off_topic")
        others = [f for f in sim.request.truth.facts if f.label != STEER]
        if len(sim.request.comments) > 1 and others and all(_of_a_product(f) for f in others):
            out.append(sim)
            if len(out) == n:
                break
    return out


def _as_it(text: str) -> str:
    text = re.sub(r"\b[Ll]ink \d+\b", "it", text)
    return re.sub(r"(^|[.!?]\s+)it\b", lambda m: m.group(1) + "It", text)


def test_an_answer_about_it_steers_an_off_topic_comment_back():
    sims = _bursts(40)
    assert len(sims) >= 30
    for sim in sims:
        answer = " ".join(s for s in sim.request.truth.say if "back to today" not in s)
        g = grade_text(sim, _as_it(answer))
        assert STEER not in g.missing and g.reward >= 0.9, (_as_it(answer), g.missing, g.errors)


def test_filler_and_unmet_answers_do_not_steer():
    for sim in _bursts(15):
        for text in ("Love the energy in chat today!", "Haha my outfit is a secret, love you all.",
                     "It ships to Atlantis next year."):
            assert STEER in grade_text(sim, text).missing, text
