"""The result types of fact extraction: `Quantity` and `ExtractedFacts`, whose docstring states the rules."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Quantity:
    """A number with a normalised unit; ``span`` covers the number and its unit in the source text."""

    value: float
    unit: str
    span: tuple[int, int]


@dataclass(frozen=True)
class ExtractedFacts:
    """Facts found in one reply. List fields keep every occurrence in text order, except
    ``stock_claims`` (unique labels, first-seen order).

    Rules (conservative by design):
    * numbers: ASCII-digit numbers ("1,299" -> 1299; >15 integer digits ignored), except the digits of
      dates, times, coupon codes and "2XL"/"3XL". Range starts ("3-5 days", "99 to 129 yuan") share
      the unit or trailing currency word of the range end; dimensions ("31 x 70 cm") share the unit.
    * prices: a number with a currency mark before (¥ ￥ $ € £ RMB CNY USD EUR GBP HKD, also the second
      end of "¥99-129") or after (yuan dollars bucks euros kuai RMB CNY USD 元 块), or a bare number
      directly after price/prices/priced (at)/cost(s)/only/just/for (optionally + is/was/of/at/now/
      just/only/today/down to) that has no unit and is followed by punctuation, the end, or one of
      now today tonight only each apiece total instead after with during until here so but if.
      "It's 99 now", "orders over 150" are not prices.
    * sizes: XXS XS S M L XL XXL XXXL (2XL, 3XL) only when marked: after "size(s) [is|:]" (any case);
      upper-case after a/an, go with/for, take, get, choose, pick, try, order, buy, recommend, suggest,
      say, wear, grab, in, into; before "size"; inside "( )"; or a slash/dash list such as "S/M/L", "S-XL".
      Ranges give their end points. Never from "I'm", "A", "S-curve", "L.A." or an unmarked "M is fine".
    * claims and promises are dropped when a negation (not, no, never, n't, cannot, without, nothing,
      none, nobody, unable, wish, ...) occurs earlier in the same clause (<= 48 chars, cut at . ! ? ; , :
      dashes, but, however, though); claims inside a question sentence (next end mark is "?") are dropped.
      Promises are first-person ("I'll/I can/let me give you a discount") or "... just for you" phrases.
    """

    numbers: tuple[float, ...] = ()
    prices: tuple[float, ...] = ()
    links: tuple[int, ...] = ()
    sizes: tuple[str, ...] = ()
    quantities: tuple[Quantity, ...] = ()
    percents: tuple[float, ...] = ()
    dates: tuple[str, ...] = ()
    times: tuple[str, ...] = ()
    coupon_codes: tuple[str, ...] = ()
    claims: tuple[str, ...] = ()
    promises: tuple[str, ...] = ()
    refusal: bool = False
    stock_claims: tuple[str, ...] = ()
    greeting: bool = False
    escalation: bool = False
