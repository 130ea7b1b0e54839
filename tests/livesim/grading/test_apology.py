"""In a burst, an apology that opens another comment's bad news about a product ("sorry, link 8 doesn't ship to
Hong Kong", "sorry, link 5 can't be returned") is that news, not the complaint's apology; an apology of its own
statement, or with its own object ("so sorry about that, and link 3 is sold out"), is one, and with one comment any
apology is to it.

Generated over complaint requests of many seeds (bursts and single comments), every product and the bad news its
record holds (an excluded region, non-returnable).
"""

from __future__ import annotations

from livesim.runs.calibration import build_request, grade_text


def _complaints(burst: bool, n: int):
    out = []
    for seed in range(9900, 11900):
        sim = build_request(seed, "complaint")
        if (len(sim.request.comments) > 1) == burst:
            out.append(seed)
            if len(out) == n:
                break
    return out


def _bad_news(sim):
    for p in sim.catalog.products:
        for region in p.shipping.excluded_regions:
            yield f"link {p.link} doesn't ship to {region}"
        if not p.after_sales.returnable:
            yield f"link {p.link} can't be returned"


def _cases(burst: bool, n: int):
    """(sim, the apology fact's label, a product's bad news) over complaint requests."""
    for seed in _complaints(burst, n):
        sim = build_request(seed, "complaint")
        label = next(f.label for f in sim.request.truth.facts if f.kind == "apology")
        for news in _bad_news(sim):
            yield sim, label, news


def test_a_bursts_apology_inside_another_comments_bad_news_is_no_apology():
    n = 0
    for sim, label, news in _cases(True, 12):
        for text in (f"Sorry, {news}.", f"Probably sorry, {news}.", f"So sorry, {news}!",
                     f"You have great taste, sorry, {news}.", f"Sorry to say, {news}."):
            assert label in grade_text(sim, text).missing, text
        for text in (f"So sorry about that! {news.capitalize()}.", f"We apologise for the trouble. {news}.",
                     f"Sorry, {news}, so sorry about that!", f"{news.capitalize()}, and sorry about the mix-up.",
                     f"So sorry about that, and {news}.", f"Sorry for the trouble, {news}.",
                     f"Really sorry to hear that, {news}!"):
            assert label not in grade_text(sim, text).missing, text
        n += 1
    assert n >= 20


def test_with_one_comment_any_apology_is_to_it():
    n = 0
    for sim, label, news in _cases(False, 8):
        assert label not in grade_text(sim, f"Sorry, {news}.").missing, news
        n += 1
    assert n >= 10
