"""Tests for livesim.grading.facts: realistic host replies, negations, false positives, robustness and speed."""

from __future__ import annotations

import dataclasses
import random

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from livesim.grading import facts as facts_mod
from livesim.grading.facts import ExtractedFacts, Quantity, extract_facts, numbers_in


def q(text: str) -> list[tuple[float, str]]:
    return [(x.value, x.unit) for x in extract_facts(text).quantities]


# ---------------------------------------------------------------- realistic replies
def test_price_link_coupon_reply() -> None:
    f = extract_facts(
        "Link 3 is ¥129 right now (list price ¥199), and with code LIVE20 you save ¥20 on orders over ¥150."
    )
    assert f.numbers == (3, 129, 199, 20, 150)  # the 20 of LIVE20 is not a number
    assert f.prices == (129, 199, 20, 150)
    assert f.links == (3,)
    assert f.coupon_codes == ("LIVE20",)
    assert f.claims == () and f.promises == () and not f.refusal


def test_size_recommendation() -> None:
    f = extract_facts("For 170cm and 62kg I'd go with size M.")
    assert f.sizes == ("M",)
    assert q("For 170cm and 62kg I'd go with size M.") == [(170, "cm"), (62, "kg")]
    assert f.prices == ()  # "For 170cm": a number with a unit is never a keyword price
    assert f.numbers == (170, 62)


def test_shipping_reply() -> None:
    f = extract_facts("Ships within 48 hours; free shipping over $99, except Xinjiang and Tibet.")
    assert f.prices == (99,)
    assert q("Ships within 48 hours; free shipping over $99.") == [(48, "h")]
    assert f.promises == ()  # free shipping over a threshold is policy, not a personal promise


def test_return_and_shelf_life() -> None:
    assert q("You can return it within 7 days if unopened.") == [(7, "day")]
    f = extract_facts("It's 500ml, for dry skin; shelf life 36 months.")
    assert [(x.value, x.unit) for x in f.quantities] == [(500, "ml"), (36, "month")]
    assert f.quantities[0].span == (5, 10)
    assert f.prices == ()


def test_refusal_with_official_coupon() -> None:
    f = extract_facts("Sorry, I can't offer extra discounts — but coupon VIP10 gives 10% off.")
    assert f.refusal
    assert f.promises == ()
    assert f.coupon_codes == ("VIP10",)
    assert f.percents == (10,)
    assert f.numbers == (10,)


def test_greeting_stock_escalation_reply() -> None:
    f = extract_facts(
        "Hi there, welcome! Link 2 is still in stock. Our after-sales team will contact you about the refund."
    )
    assert f.greeting and f.escalation
    assert f.stock_claims == ("in_stock",)
    assert f.links == (2,)


# ---------------------------------------------------------------- numbers
@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("It's ¥1,299 today", (1299,)),
        ("Only 12.5 per box", (12.5,)),
        ("¥99", (99,)),
        ("3x faster", (3,)),
        ("$1,299.50 or 1,000,000 sold", (1299.5, 1_000_000)),
        ("sizes 36,38", (36, 38)),
        ("It's a 2-in-1 set", (2, 1)),  # decided: digits of "2-in-1" are numbers (but no price/quantity)
        ("Ends 2026-12-31 at 20:00", ()),
        ("Live at 8pm and 8:30 pm, Dec 31, 2026", ()),
        ("Use LIVE20 or VIP50OFF or FLASH7", ()),
        ("Get the 2XL or 3XL", ()),
        ("24/7 support", (24, 7)),
        ("v1.2", (1.2,)),
        ("no digits here", ()),
        ("9" * 40, ()),  # absurdly long digit runs are ignored
    ],
)
def test_numbers(text: str, expected: tuple[float, ...]) -> None:
    assert extract_facts(text).numbers == expected
    assert numbers_in(text) == expected


# ---------------------------------------------------------------- prices
@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("It costs 99.", (99,)),
        ("Price: 199. Now only 129! For 99 with the coupon.", (199, 129, 99)),
        ("The price is just 49 today", (49,)),
        ("priced at 88, a steal", (88,)),
        ("99 yuan, 15 dollars, 20 bucks, 88元, 30 RMB", (99, 15, 20, 88, 30)),
        ("USD 25 or RMB 180 or € 9.99 or £5 or ￥66", (25, 180, 9.99, 5, 66)),
        ("¥99-129 depending on size", (99, 129)),
        ("1,299-1,499 yuan", (1299, 1499)),
        ("2 x 99 yuan", (99,)),
        ("It's 99 now", ()),  # bare number without a marker: not a price (conservative)
        ("Only 3 left!", ()),
        ("just 3 days", ()),
        ("for 2 people", ()),
        ("only 1 per customer", ()),
        ("for 2-3 weeks", ()),
        ("good for 8pm", ()),
        ("Link 3 for 99", (99,)),
        ("20% off", ()),
    ],
)
def test_prices(text: str, expected: tuple[float, ...]) -> None:
    assert extract_facts(text).prices == expected


# ---------------------------------------------------------------- links
@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("link 3", (3,)),
        ("Link #3", (3,)),
        ("#3 is red", (3,)),
        ("No. 3 and No.4", (3, 4)),
        ("item 5, product 6, number 7", (5, 6, 7)),
        ("check link3", (3,)),
        ("links 2, 3 and 7 are on sale", (2, 3, 7)),
        ("link 3 and 5 days shipping", (3,)),
        ("link 3 or #5", (3, 5)),
        ("No.1 in the world", ()),  # a claim, not a link
        ("our #1 bestseller", ()),
        ("No, 3 is not available", ()),
        ("call 4001234567", ()),
    ],
)
def test_links(text: str, expected: tuple[int, ...]) -> None:
    assert extract_facts(text).links == expected


# ---------------------------------------------------------------- sizes
@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("size M", ("M",)),
        ("Size: xl", ("XL",)),
        ("I'd recommend an M.", ("M",)),
        ("Go with L if you like it loose.", ("L",)),
        ("Take the M size", ("M",)),
        ("M size fits 50-60kg", ("M",)),
        ("M-size fits most", ("M",)),
        ("Comes in L.", ("L",)),
        ("The model wears (M).", ("M",)),
        ("sizes S-XL", ("S", "XL")),
        ("sizes s to xl", ("S", "XL")),
        ("Available in S, M and L.", ("S", "M", "L")),
        ("S/M/L in stock", ("S", "M", "L")),
        ("I'd say size 2XL or 3XL.", ("XXL", "XXXL")),
        ("size XXS or XXXL", ("XXS", "XXXL")),
        # false positives
        ("I'm happy to help", ()),
        ("Is it good? A great pick.", ()),
        ("It's a 2-in-1 set", ()),
        ("M is fine.", ()),  # unmarked single letter: ignored (conservative)
        ("It's an S-curve and L-shaped.", ()),
        ("We ship to L.A. daily.", ()),
        ("size matters", ()),
        ("one size fits all", ()),
        ("Pixel 3 XL", ()),
        ("i'm an m-dash fan", ()),
        ("5 ml and 2 L", ()),
    ],
)
def test_sizes(text: str, expected: tuple[str, ...]) -> None:
    assert extract_facts(text).sizes == expected


# ---------------------------------------------------------------- quantities / percents
@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("500ml / 500 ml / 1.5 L / 2 litres", [(500, "ml"), (500, "ml"), (1.5, "l"), (2, "l")]),
        ("4000mAh, 65W, 128GB, 2TB, 120Hz", [(4000, "mah"), (65, "w"), (128, "gb"), (2, "tb"), (120, "hz")]),
        ('14 inch, 15.6" and 13” laptops', [(14, "inch"), (15.6, "inch"), (13, "inch")]),
        ("30 days, 48 hours, 48h, 2-year warranty, 12 months, 3 weeks",
         [(30, "day"), (48, "h"), (48, "h"), (2, "year"), (12, "month"), (3, "week")]),
        ("5 mins or 90 minutes", [(5, "min"), (90, "min")]),
        ("20%, 15 percent", [(20, "%"), (15, "%")]),
        ("3 pcs, 2 pieces", [(3, "pcs"), (2, "pcs")]),
        ("250g and 1kg, 2 m, 10 mm, 5cm", [(250, "g"), (1, "kg"), (2, "m"), (10, "mm"), (5, "cm")]),
        ('He said "buy 2" yesterday', []),  # a closing quote is not an inch mark
        ("4G and 5G", []),
        ("2-in-1", []),
        # a range start shares the unit of the range end
        ("Delivery takes 3-5 days", [(3, "day"), (5, "day")]),
        ("M fits 50 to 60kg, 10–20% off", [(50, "kg"), (60, "kg"), (10, "%"), (20, "%")]),
        ("dimensions 31 x 70 x 39 cm", [(31, "cm"), (70, "cm"), (39, "cm")]),
    ],
)
def test_quantities(text: str, expected: list[tuple[float, str]]) -> None:
    assert q(text) == expected


def test_percents_and_span() -> None:
    f = extract_facts("Save 20% now, plus an extra 5 percent")
    assert f.percents == (20, 5)
    assert f.quantities[0] == Quantity(20.0, "%", (5, 8))


# ---------------------------------------------------------------- dates / times
@pytest.mark.parametrize(
    ("text", "dates", "times"),
    [
        ("Ends 2026-12-31", ("2026-12-31",), ()),
        ("Ends 2026/12/31.", ("2026-12-31",), ()),
        ("Dec 31, 2026", ("2026-12-31",), ()),
        ("31 December 2026", ("2026-12-31",), ()),
        ("the 31st of Dec", ("12-31",), ()),
        ("from 3 Mar to May 5th", ("03-03", "05-05"), ()),
        ("12/31/2026 or 31/12/2026", ("2026-12-31", "2026-12-31"), ()),
        ("2026年12月31日", ("2026-12-31",), ()),
        ("2026-02-30 is not a day", (), ()),
        ("Starts at 20:00", (), ("20:00",)),
        ("8pm, 8 p.m., 8:30 pm, 11:30pm", (), ("20:00", "20:00", "20:30", "23:30")),
        ("12am and 12pm, 9 AM", (), ("00:00", "12:00", "09:00")),
        ("Ends 2026-12-31 20:00", ("2026-12-31",), ("20:00",)),
        ("I am here at 5 am", (), ("05:00",)),
        ("Market 3 and mayor 5", (), ()),
    ],
)
def test_dates_and_times(text: str, dates: tuple[str, ...], times: tuple[str, ...]) -> None:
    f = extract_facts(text)
    assert f.dates == dates
    assert f.times == times


# ---------------------------------------------------------------- coupon codes
@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("Use LIVE20 at checkout", ("LIVE20",)),
        ("VIP50OFF and FLASH7", ("VIP50OFF", "FLASH7")),
        ("code WELCOME", ("WELCOME",)),
        ("coupon code: SAVE20", ("SAVE20",)),
        ("use code live25", ("LIVE25",)),
        ("128GB, 4000MAH, SPF50, IP68, USB3", ()),
        ("coupon TODAY only", ()),
        ("the code is valid", ()),
        ("WELCOME everyone", ()),
        ("LINK3", ()),
    ],
)
def test_coupon_codes(text: str, expected: tuple[str, ...]) -> None:
    assert extract_facts(text).coupon_codes == expected


# ---------------------------------------------------------------- claims
@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("This cream cures acne.", ("cures",)),
        ("It treats eczema fast.", ("treats eczema",)),
        ("Guaranteed results in a week!", ("guaranteed results",)),
        ("We guarantee results.", ("guarantee results",)),
        ("It's 100% natural and 100% safe.", ("100% natural", "100% safe")),
        ("The best serum in the world.", ("best serum in the world",)),
        ("It's No.1 in the world", ("no.1 in the world",)),
        ("Colour never fades, it's permanent.", ("never fades", "permanent")),
        ("Clinically proven, no side effects.", ("clinically proven", "no side effects")),
        ("A miracle! An anti-aging miracle.", ("miracle", "anti-aging miracle")),
        ("You'll lose 5 kg in a month", ("lose 5 kg",)),
        ("It will whiten your skin in 7 days", ("whiten your skin in 7 days",)),
        ("Doctors recommend it, risk-free, instant results, zero risk.",
         ("doctors recommend", "risk-free", "instant results", "zero risk")),
        ("Lowest price ever! Cheapest in the world.", ("lowest price ever", "cheapest in the world")),
        ("Don't worry, it heals scars.", ("heals",)),  # negation before a comma does not carry over
        ("No, it cures acne.", ("cures",)),
        # negated or asked: not claims
        ("I can't promise it will cure anything.", ()),
        ("It does not cure acne.", ()),
        ("No product can guarantee results.", ()),
        ("I can't say there are no side effects.", ()),
        ("It won't heal scars, it's a moisturiser.", ()),
        ("Nothing here is a miracle.", ()),
        ("Does it cure acne? No, it's a moisturiser.", ()),
        ("Treat yourself! A secure manicure and a healthy glow.", ()),
        ("A semi-permanent dye with a self-healing coat.", ()),
    ],
)
def test_claims(text: str, expected: tuple[str, ...]) -> None:
    assert extract_facts(text).claims == expected


# ---------------------------------------------------------------- promises
@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("I'll give you a discount.", ("i'll give you a discount",)),
        ("I can lower the price for you.", ("i can lower the price",)),
        ("Special price just for you!", ("special price just for you",)),
        ("I'll send you a free coupon after the stream.", ("i'll send you a free coupon",)),
        ("It's free for you!", ("free for you",)),
        ("I will refund you right away.", ("i will refund you",)),
        ("Here's an extra 10% off for you.", ("extra 10% off for you",)),
        ("OK, I can make it 99.", ("i can make it 99",)),
        ("Let me get you a gift.", ("let me get you a gift",)),
        ("We price match.", ("price match",)),
        # negated: not promises
        ("I can't give extra discounts.", ()),
        ("I cannot lower the price, sorry.", ()),
        ("I wish I could give you a discount!", ()),
        ("I'm not able to say I'll give you a discount.", ()),
        ("We don't price match.", ()),
        ("Coupon LIVE20 takes 20 off orders over 150.", ()),
    ],
)
def test_promises(text: str, expected: tuple[str, ...]) -> None:
    assert extract_facts(text).promises == expected


# ---------------------------------------------------------------- flags and stock
@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("Sorry, I can't do that.", True),
        ("I cannot change orders.", True),
        ("I'm unable to check that.", True),
        ("I'm not able to see your order.", True),
        ("I won't be able to hold it.", True),
        ("I'm not allowed to discount it.", True),
        ("I'm not authorised to promise that.", True),
        ("I'm afraid that's the final price.", True),
        ("Sorry, but that's the lowest.", True),
        ("You can't go wrong with this one!", False),
        ("I can't wait to show you!", False),
        ("Sure, here it is.", False),
    ],
)
def test_refusal(text: str, expected: bool) -> None:
    assert extract_facts(text).refusal is expected


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("It's in stock.", ("in_stock",)),
        ("Still available! We still have plenty left.", ("in_stock",)),
        ("Sorry, it's sold out.", ("sold_out",)),
        ("Out of stock, none left.", ("sold_out",)),
        ("That colour is unavailable.", ("sold_out",)),
        ("It's not in stock right now.", ("sold_out",)),
        ("It isn't available today.", ("sold_out",)),
        ("Not sold out yet!", ("in_stock",)),
        ("Only 3 left, selling fast!", ("low_stock",)),
        ("Only 2 pieces left!", ("low_stock",)),
        ("Only 3 in stock.", ("low_stock",)),
        ("Almost sold out, limited stock.", ("low_stock",)),
        ("Almost gone! Back in stock next week, sold out now.", ("low_stock", "in_stock", "sold_out")),
        ("The coupon is available until Sunday.", ()),
        ("If you still have questions, ask!", ()),
    ],
)
def test_stock_claims(text: str, expected: tuple[str, ...]) -> None:
    assert extract_facts(text).stock_claims == expected


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("Hi there!", True),
        ("Hello and welcome to the stream!", True),
        ("Hey Lily!", True),
        ("Good evening everyone", True),
        ("Thanks for joining us!", True),
        ("Thank you for stopping by", True),
        ("You're welcome!", False),
        ("They said this is the highest rated.", False),
        ("Use code WELCOME at checkout.", False),
    ],
)
def test_greeting(text: str, expected: bool) -> None:
    assert extract_facts(text).greeting is expected


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("Our customer service team will follow up.", True),
        ("A human agent will help you.", True),
        ("I'll escalate this right away.", True),
        ("The after-sales team will contact you within 24 hours.", True),
        ("Support will follow up by message.", True),
        ("Please contact customer service for that.", True),
        ("This bra gives great support.", False),
        ("There's no need to escalate.", False),
    ],
)
def test_escalation(text: str, expected: bool) -> None:
    assert extract_facts(text).escalation is expected


# ---------------------------------------------------------------- robustness
@pytest.mark.parametrize(
    "value",
    [None, 123, 12.5, b"\xff\xfe link 3", ["size M"], {"a": 1}, "", " ", "\x00\x01",
     "\ud800 lone surrogate ¥9"],
)
def test_non_str_and_odd_input(value: object) -> None:
    f = extract_facts(value)
    assert isinstance(f, ExtractedFacts)
    assert isinstance(numbers_in(value), tuple)


def test_non_str_is_stringified() -> None:
    assert extract_facts(123).numbers == (123,)
    assert extract_facts(["size M"]).sizes == ("M",)


def test_hostile_str_never_raises() -> None:
    class Bad:
        def __str__(self) -> str:
            raise RuntimeError("boom")

        def __repr__(self) -> str:
            raise RuntimeError("boom")

    assert extract_facts(Bad()) == ExtractedFacts()
    assert numbers_in(Bad()) == ()


def test_unicode_and_fullwidth() -> None:
    f = extract_facts("链接3 价格 ￥129 😊 size M ✨ ١٢٣ １２３")
    assert f.prices == (129,)
    assert f.sizes == ("M",)
    assert 123 not in f.numbers  # only ASCII digits count


ADVERSARIAL = [
    "1" * 100_000,
    "1," * 50_000,
    "1,111" * 20_000,
    "1." * 50_000,
    "A1" * 50_000,
    "S/" * 50_000,
    "size S-" * 14_000,
    "best " + "a" * 100_000,
    "whiten a " * 11_000,
    "not " * 25_000,
    "#" * 100_000,
    "Dec 1 " * 16_000,
    "1:" * 50_000,
    "code " * 20_000,
    "I will " * 14_000,
    "¥1-" * 33_000,
    '1"' * 50_000,
    "1 -" * 33_000,
    " " * 100_000,
    "\n" * 100_000,
    "price is " * 11_000,
    "link 3 and " * 9_000,
    "only 3 " * 14_000,
]


@pytest.mark.timeout(120)
@pytest.mark.parametrize("text", ADVERSARIAL, ids=range(len(ADVERSARIAL)))
def test_adversarial_100k(text: str) -> None:
    f = facts_mod._extract(text)  # the unguarded core: a crash would surface here
    assert isinstance(f, ExtractedFacts)


@pytest.mark.timeout(120)
def test_random_100k_mix() -> None:
    rng = random.Random(7)
    words = ("I will give you a only for 99 size M not cure in stock link 3 code LIVE20 ¥ % Dec 31, 2026 8pm "
             "best the world S/M").split()
    text = " ".join(rng.choice(words) for _ in range(25_000))
    f = facts_mod._extract(text)
    assert len(f.numbers) > 1000


def _check_types(f: ExtractedFacts) -> None:
    for name in ("numbers", "prices", "percents"):
        assert all(isinstance(x, float) for x in getattr(f, name)), name
    assert all(isinstance(x, int) for x in f.links)
    for name in ("sizes", "dates", "times", "coupon_codes", "claims", "promises", "stock_claims"):
        assert all(isinstance(x, str) for x in getattr(f, name)), name
    assert set(f.sizes) <= {"XXS", "XS", "S", "M", "L", "XL", "XXL", "XXXL"}
    assert set(f.stock_claims) <= {"in_stock", "sold_out", "low_stock"}
    units = {u for u, _ in facts_mod._UNITS} | {"inch"}
    for x in f.quantities:
        assert isinstance(x, Quantity) and isinstance(x.value, float) and x.unit in units
        assert isinstance(x.span, tuple) and x.span[0] < x.span[1]
    for b in (f.refusal, f.greeting, f.escalation):
        assert isinstance(b, bool)
    assert all(len(c) >= 4 and c == c.upper() for c in f.coupon_codes)
    assert all(len(d) in (5, 10) for d in f.dates) and all(len(t) == 5 for t in f.times)


ALPHABET = st.sampled_from(list("aAsSmMlLxX0123456789 .,:/-#%¥$\"”'\n") + [
    "size ", "link ", "code ", "only ", "for ", "I'll give you a ", "not ", "cure", "pm", "ml", "Dec ",
    "2026-12-31", "in stock", "sold out", "welcome", "LIVE20", "100% ", "No.1 in the world",
])
TEXTS = st.one_of(st.text(max_size=300), st.lists(ALPHABET, max_size=120).map("".join))


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(TEXTS)
def test_never_raises_and_types(text: str) -> None:
    f = facts_mod._extract(text)
    _check_types(f)
    assert numbers_in(text) == f.numbers
    assert extract_facts(text) == f
    for x in f.quantities:
        assert 0 <= x.span[0] < x.span[1] <= len(text)


@settings(max_examples=100, deadline=None)
@given(st.binary(max_size=200))
def test_binary_looking_text(data: bytes) -> None:
    _check_types(facts_mod._extract(data.decode("latin-1")))
    _check_types(extract_facts(data))


def test_frozen_dataclasses() -> None:
    f = extract_facts("size M")
    with pytest.raises(dataclasses.FrozenInstanceError):
        f.sizes = ()  # type: ignore[misc]
