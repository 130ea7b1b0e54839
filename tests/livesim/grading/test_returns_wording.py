"""How people say a return policy: "it isn't final sale" (a negated "final sale" says it can be returned), and a
return window of whole months ("within a month" of 30-day returns). Generated over returns requests: every
returnable target, each wording, checked for accuracy (and, for the window, as the answer); the same wordings of a
product that cannot be returned, or of a window that is not the record's, stay wrong. A careful reviewer's fresh
replies found "the down jacket isn't final sale, you can return it within 30 days" zeroed."""

from __future__ import annotations

import itertools

from livesim.runs.calibration import build_request, grade_text

NOT_FINAL = ["Link {n} isn't final sale, you can return it.", "Link {n} is not a final sale item.",
             "It's not final sale: link {n} can be returned.", "Link {n} isn't a final-sale product, returns are fine."]
FINAL = ["Link {n} is final sale.", "Sorry, link {n} is a final sale item.", "Link {n} is final sale, no returns."]
MONTHS = {1: ["a month", "one month", "1 month"], 2: ["two months", "2 months"], 3: ["three months"]}


def _targets(intent: str, seeds: range):
    for seed in seeds:
        sim = build_request(seed, intent)
        for link in sim.request.truth.targets:
            p = next(q for q in sim.catalog.products if q.link == link)
            yield sim, p


def test_final_sale_said_not_to_be_is_a_return_and_said_to_be_is_none():
    n = 0
    for sim, p in _targets("returns", range(8600, 8640)):
        ok = p.after_sales.returnable
        for form in NOT_FINAL:
            g = grade_text(sim, form.format(n=p.link))
            assert (g.scores["accuracy"] == 1.0) == ok, (form, ok, g.errors)
            n += 1
        for form in FINAL:
            g = grade_text(sim, form.format(n=p.link))
            assert (g.scores["accuracy"] == 1.0) == (not ok), (form, ok, g.errors)
            n += 1
    assert n >= 200, n


def test_a_return_window_in_whole_months_is_the_window_in_days():
    n = right = 0
    for sim, p in _targets("returns", range(8600, 8680)):
        days = p.after_sales.return_days
        if not p.after_sales.returnable:
            continue
        for k, words in MONTHS.items():
            for w, form in itertools.product(words, ["Link {n} can be returned within {w}.",
                                                     "You can return link {n} within {w}, {c}."]):
                g = grade_text(sim, form.format(n=p.link, w=w, c=p.after_sales.condition))
                assert (g.scores["accuracy"] == 1.0) == (k * 30 == days), (form, w, days, g.errors)
                if k * 30 == days:
                    assert not [m for m in g.missing if "returns" in m], (w, g.missing)
                    right += 1
                n += 1
    assert n >= 100 and right >= 10, (n, right)


def test_returns_even_once_opened_or_used_are_unsupported_in_any_wording():
    """"Even if you've opened it" is the "returns even after use" class with a contraction in between (a held-out
    fresh reply, "Yes, even if you've opened it, you can return it within 15 days", was paid 1.000)."""
    n = 0
    for sim, p in _targets("returns", range(8600, 8640)):
        if not p.after_sales.returnable:
            continue
        days = p.after_sales.return_days
        for who, verb in itertools.product(("you've", "you have", "they've", "it's been", "you"), ("opened", "used",
                                                                                                  "worn")):
            text = f"Yes, even if {who} {verb} it, you can return link {p.link} within {days} days."
            assert grade_text(sim, text).scores["accuracy"] == 0.0, text
            n += 1
    assert n >= 100, n
