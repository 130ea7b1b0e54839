"""A shelf life kept in days, said in whole months or years ("keeps for a year" of 365 days, "6 months" of 180), is
the same span; other spans stay wrong. A fresh reply ("the cookies keep for a year") was zeroed. Generated over
every food product with a shelf life in days, in several wordings."""

from __future__ import annotations

from livesim.runs.calibration import build_request, grade_text

FORMS = ["Link {n} keeps for {span}.", "Link {n}'s shelf life is {span}.", "Unopened, link {n} lasts {span}."]


def _spans(days: int) -> dict[str, bool]:
    months = {f"{k} months": abs(days - 30.44 * k) <= 6 for k in (3, 6, 9, 12, 18, 24)}
    years = {"a year": abs(days - 365) <= 6, "one year": abs(days - 365) <= 6, "2 years": abs(days - 730) <= 6}
    return {**months, **years}


def test_a_shelf_life_in_days_said_in_months_or_years():
    n = right = 0
    for intent in ("spec_material", "comparison", "price"):
        for seed in range(8900, 8960):
            sim = build_request(seed, intent)
            for p in sim.catalog.products:
                days = p.attributes.get("shelf_life_days")
                if not days or p.link not in sim.request.truth.targets:
                    continue
                for span, ok in _spans(int(days)).items():
                    for form in FORMS:
                        g = grade_text(sim, form.format(n=p.link, span=span))
                        assert (not [x for x in g.errors if "is not the" in x]) == ok, (form, span, days, g.errors)
                        right += ok
                        n += 1
    assert n >= 100 and right >= 10, (n, right)
