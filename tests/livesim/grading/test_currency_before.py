"""A currency written before an amount ("RMB 256") makes it a price only on the same line and when the currency does
not belong to the amount before it: "free over 199 RMB. 256GB of link 8 is in stock" has one price, 199. The
`numbers_traceable` hook counts prices only from the look-ups, so reading 256 as a price held a true reply.

Generated over currencies, the amount's own mark before or after, sentence and line ends, and figures that follow
(a variant with digits, a count, a duration).
"""

from __future__ import annotations

import itertools

import pytest

from livesim.grading.facts.extract import prices_in

CURRENCIES = ("RMB", "rmb", "CNY", "USD")
ENDS = (". ", ".\n", "\n", "! ", ", ", " ")
AFTER = ("256GB of link 8 is in stock", "128 GB is sold out", "3 left in red", "48 hours to ship", "64gb too")


@pytest.mark.parametrize(("cur", "end"), list(itertools.product(CURRENCIES, ENDS)))
def test_a_currency_closing_an_amount_prices_nothing_after_it(cur, end):
    for after in AFTER:
        text = f"Free shipping over 199 {cur}{end}{after}"
        first, second = 199.0, float(after.split()[0].rstrip("GBgb"))
        got = prices_in(text)
        assert first in got and second not in got, (text, got)


@pytest.mark.parametrize("cur", CURRENCIES)
def test_a_currency_before_an_amount_still_prices_it(cur):
    for text in (f"It's {cur} 256 right now", f"only {cur} 129 today", f"Link 3: {cur} 99, link 4: {cur} 59"):
        got = prices_in(text)
        assert got and all(v in got for v in (256.0, 129.0, 99.0, 59.0) if f"{v:g}" in text), (text, got)
