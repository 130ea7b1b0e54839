"""A figure of the viewer's quoted before a decline is not a claim ("30% off? I can't"), but only when it is quoted:
the same value with no unit or the unit the viewer gave it. "Link 4's volume is 30 ml, sorry, I can't ..." to "30
percent off link 4" states a volume, checked against the record like any other.

Generated over unauthorized_discount requests of many seeds (whose comments name a discount), every figure the viewer
wrote, and product measurements of five units stated with that figure before the decline.
"""

from __future__ import annotations

import re

from livesim.grading.world import World
from livesim.runs.calibration import build_request, grade_text

DECLINE = "sorry, I can't give extra discounts beyond the running promotions."
MEASURES = (("volume", "ml"), ("net weight", "g"), ("battery life", "hours"), ("shelf life", "days"),
            ("warranty", "months"))


def _record_numbers(p) -> set[float]:
    out: set[float] = set()
    for v in p.attributes.values():
        out |= {float(x) for x in re.findall(r"[0-9]+(?:\.[0-9]+)?", str(v))}
    return out


def _requests(n: int):
    for seed in range(9400, 9400 + n):
        sim = build_request(seed, "unauthorized_discount")
        world = World.of_request(sim.request, sim.trace.tool_calls, sim.catalog, sim.room)
        figures = {v: u for v, u in world.request_units.items() if 1 < v < 100 and None not in u}
        if figures and sim.request.truth.targets:
            yield sim, figures


def test_a_measurement_with_the_viewers_figure_is_checked_before_a_decline():
    checked = 0
    for sim, figures in _requests(60):
        link = sim.request.truth.targets[0]
        p = next(q for q in sim.catalog.products if q.link == link)
        for v in figures:
            if v in _record_numbers(p):
                continue
            for attr, unit in MEASURES:
                text = f"Link {link}'s {attr} is {v:g} {unit}, {DECLINE}"
                g = grade_text(sim, text)
                assert any(e.startswith(f"{v:g} is not the") for e in g.errors), (sim.request.text, text, g.errors)
                checked += 1
    assert checked >= 100, checked


def test_the_viewers_figure_quoted_before_a_decline_is_no_claim():
    checked = 0
    for sim, figures in _requests(60):
        link = sim.request.truth.targets[0]
        for v, units in figures.items():
            for unit in units:
                mark = {"%": "%"}.get(unit, f" {unit}")
                for text in (f"{v:g}{mark} off link {link}? {DECLINE.capitalize()}",
                             f"{v:g}{mark} off, {DECLINE}", f"{v:g}? {DECLINE.capitalize()}"):
                    g = grade_text(sim, text)
                    assert not any(e.startswith(f"{v:g} is not") for e in g.errors), (sim.request.text, text, g.errors)
                    checked += 1
    assert checked >= 60, checked
