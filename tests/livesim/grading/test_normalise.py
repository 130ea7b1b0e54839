"""The normalise stage: idioms made plain, spoken amounts and durations made digits (generated values)."""

import numpy as np
import pytest

from livesim.grading.facts import numbers_in
from livesim.grading.facts.extract import _negated
from livesim.grading.normalise import deshout, normalise

_ONES = "zero one two three four five six seven eight nine".split()
_TENS = "_ _ twenty thirty forty fifty sixty seventy eighty ninety".split()
IDIOMS = ["No problem", "No problem,", "Not bad at all", "You can't go wrong", "No doubt", "Nothing beats it",
          "No worries", "Not a problem", "You won't regret it", "Not to mention", "It never disappoints"]


@pytest.mark.parametrize("idiom", IDIOMS)
def test_affirmative_idioms_do_not_negate_what_follows(idiom):
    rng = np.random.default_rng(len(idiom))
    for v in rng.integers(10, 2000, size=20):
        text = normalise(f"{idiom} it's {v} yuan")
        pos = text.index(str(v))
        assert not _negated(text, pos), text
        assert float(v) in numbers_in(text)


def test_real_negations_stay():
    for text in ("It's not 99 yuan", "No, it doesn't ship there", "I can't do 50% off", "Never fades? I can't "
                 "promise that"):
        assert normalise(text) == text


def test_spoken_prices():
    rng = np.random.default_rng(0)
    for v in rng.integers(120, 999, size=60):
        if v % 100 < 20:
            continue
        tail = _TENS[v % 100 // 10] + (f"-{_ONES[v % 10]}" if v % 10 else "")
        said = f"{_ONES[v // 100]} {tail}"
        for frame in ("It's {} today", "just {} yuan", "only {} on the live"):
            assert float(v) in numbers_in(normalise(frame.format(said))), (v, said, normalise(frame.format(said)))


def test_thousands_with_k():
    for v in (1.2, 2.5, 3, 12):
        assert v * 1000 in numbers_in(normalise(f"it's {v:g}k yuan")), v


@pytest.mark.parametrize("said,value,unit", [("within a day", 1, "day"), ("in a day", 1, "day"),
                                             ("a couple of days", 2, "days"), ("a couple days", 2, "days"),
                                             ("in a week", 1, "week"), ("within an hour", 1, "hour"),
                                             ("a day or two", 2, "days"), ("half a year", 6, "months")])
def test_spoken_durations(said, value, unit):
    for frame in ("It ships {}.", "Dispatch is {} after you order.", "No worries, it goes out {}!"):
        out = normalise(frame.format(said))
        assert f"{value} {unit}" in out, out


def test_half_off_is_fifty_percent():
    assert "50%" in normalise("can I get half off?")
    assert "50%" in normalise("lower the price to half")


@pytest.mark.parametrize(("shouted", "read"), [
    ("BOTH M AND S WOULD FIT YOU.", "both M and S would fit you."),
    ("USE CODE LIVE10 FOR 20 YUAN OFF. Hi there", "use code LIVE10 for 20 yuan off. Hi there"),
    ("LINK 2 IS NOT FRAGRANCE-FREE - Shipping", "link 2 is not fragrance-free - Shipping"),
    ("SIZE XL IS IN STOCK! I think", "size XL is in stock! I think"),
    ("Hi KEVIN, ok", "Hi KEVIN, ok"),  # a short run in capitals (a name) is left alone
])
def test_capitals_read_as_ordinary_case_with_sizes_and_codes_kept(shouted, read):
    assert deshout(shouted) == read
    assert len(deshout(shouted)) == len(shouted)
