"""Fact extraction logic: coerce the input, scan numbers (masking dates, times, coupon codes and 2XL),
attach units and currency marks, then collect links, sizes, claims, promises and the boolean cues.
"""

from __future__ import annotations

import datetime as _dt
import functools
import re
from collections.abc import Callable
from typing import TypeVar

from livesim.grading.facts.patterns import (
    _CLAIM_RE,
    _COUPON_KW_RE,
    _COUPON_TOKEN_RE,
    _CUR_AFTER_RE,
    _CUR_BEFORE_RE,
    _DATE_RES,
    _ESCALATION_RE,
    _FLIP,
    _GREETING_RE,
    _LINK_CONT_RE,
    _LINK_RANGE_RE,
    _LINK_RE,
    _MDAYS,
    _MONTHS,
    _NOT_CODE_RE,
    _NOT_CODE_WORDS,
    _NUM_RE,
    _PRICE_KW_RE,
    _PRICE_OK_AFTER_RE,
    _PROMISE_RE,
    _RANGE_RE,
    _REFUSAL_RE,
    _SENT_END_RE,
    _SIZE_CI_RE,
    _SIZE_NUM_RE,
    _SIZE_UC_RES,
    _STOCK_RE,
    _TIME_RES,
    _TOK_CI_RE,
    _TOK_UC_RE,
    _UNIT_RE,
    _UNITS,
    _YOURE_RE,
    STOCK_NEG_RE,
    _negated,
    link_range,
)
from livesim.grading.facts.prefilter import Prefiltered
from livesim.grading.facts.types import ExtractedFacts, Quantity

# ---------------------------------------------------------------- helpers
_Span = tuple[int, int, str]  # (start, end, normalised value)

def _coerce(text: object) -> str:
    if type(text) is str:
        return text
    for conv in (str, repr):
        try:
            out = conv(text)
            return out if type(out) is str else str.__str__(out)
        except Exception:  # noqa: BLE001 - a hostile __str__ must not break grading
            continue
    return ""


def _in_question(text: str, end: int) -> bool:
    m = _SENT_END_RE.search(text, end, end + 200)
    return m is not None and m.group() == "?"


def _resolve(items: list[_Span]) -> list[_Span]:
    """Keep the earliest, then longest, of overlapping (start, end, value) items."""
    out: list[_Span] = []
    last = -1
    for it in sorted(items, key=lambda t: (t[0], -t[1])):
        if it[0] >= last:
            out.append(it)
            last = it[1]
    return out


def _fmt_date(y: int | None, mo: int, d: int) -> str | None:
    if not (1 <= mo <= 12 and 1 <= d <= _MDAYS[mo]):
        return None
    if y is None:
        return f"{mo:02d}-{d:02d}"
    try:
        _dt.date(y, mo, d)
    except ValueError:
        return None
    return f"{y:04d}-{mo:02d}-{d:02d}"


def _dates(text: str) -> list[_Span]:
    found: list[_Span] = []
    for rx in _DATE_RES:
        for m in rx.finditer(text):
            g = m.groupdict()
            y = int(g["y"]) if g.get("y") else None
            if g.get("a"):
                a, b = int(g["a"]), int(g["b"])
                mo, d = (b, a) if a > 12 else (a, b)  # D/M/Y only when unambiguous, else US M/D/Y
            else:
                mo = _MONTHS[g["mon"][:3].lower()] if g.get("mon") else int(g["m"])
                d = int(g["d"])
            iso = _fmt_date(y, mo, d)
            if iso:
                found.append((m.start(), m.end(), iso))
    return _resolve(found)


def _times(text: str) -> list[_Span]:
    found: list[_Span] = []
    for rx in _TIME_RES:
        for m in rx.finditer(text):
            h, mi, ap = int(m["h"]), int(m["mi"] or 0), (m["ap"] or "").lower()
            if ap and 1 <= h <= 12:
                h = (0 if h == 12 else h) + (12 if ap == "p" else 0)
            found.append((m.start(), m.end(), f"{h:02d}:{mi:02d}"))
    return _resolve(found)


def _coupons(text: str) -> list[_Span]:
    found: list[_Span] = []
    for m in _COUPON_TOKEN_RE.finditer(text):
        tok = m.group()
        if not tok.isdigit() and any(c.isdigit() for c in tok) and not _NOT_CODE_RE.fullmatch(tok):
            found.append((m.start(), m.end(), tok))
    for m in _COUPON_KW_RE.finditer(text):
        tok = m["tok"]
        has_digit, has_alpha = any(c.isdigit() for c in tok), any(c.isalpha() for c in tok)
        if has_alpha and (tok.isupper() or has_digit) and not _NOT_CODE_RE.fullmatch(tok.upper()) \
                and tok not in _NOT_CODE_WORDS:
            found.append((m.start("tok"), m.end("tok"), tok.upper()))
    return _resolve(found)


def _inch_quote(text: str, s: int, e: int) -> int | None:
    """End index of a 14" / 14” inch mark, unless the quote plausibly closes a quotation."""
    q = text[e:e + 1]
    if q not in ('"', "”") or text[e + 1:e + 2].isalnum():
        return None
    before = text[max(0, s - 80):s]
    if (q == '"' and before.count('"') % 2) or (q == "”" and "“" in before):
        return None
    return e + 1


_Scan = tuple[tuple[tuple[int, int, float], ...], tuple[_Span, ...], tuple[_Span, ...], tuple[_Span, ...]]


def _scan_numbers(text: str) -> _Scan:
    """Numbers outside dates/times/coupon codes/2XL sizes, plus the dates, times and coupons found (tuples: the
    result is memoised for texts up to MEMO_MAX_CHARS, as the grader, the hooks and `numbers_in` scan the same reply).
    """
    return _scan_memo(text) if len(text) <= MEMO_MAX_CHARS else _scan(text)


def _scan(text: str) -> _Scan:
    if _DIGIT_RE.search(text) is None:  # every number, date, time and 2XL needs an ASCII digit: only codes to look for
        return (), (), (), tuple(_coupons(text))
    dates, times, coupons = _dates(text), _times(text), _coupons(text)
    mask = bytearray(len(text))
    spans = [(s, e) for s, e, _ in dates + times + coupons]
    spans += [m.span() for m in _SIZE_NUM_RE.finditer(text)]
    for s, e in spans:
        mask[s:e] = b"\x01" * (e - s)
    nums = tuple((m.start(), m.end(), float(m.group().replace(",", ""))) for m in _NUM_RE.finditer(text)
                 if not mask[m.start()])
    return nums, tuple(dates), tuple(times), tuple(coupons)


def _sizes(text: str) -> tuple[str, ...]:
    found: dict[int, str] = {}
    # Skip the scans that cannot match (same result, in the same order): the case-insensitive one needs the word
    # "size" (its prefilter), the others an upper-case size token.
    jobs: list[tuple[Prefiltered | re.Pattern[str], re.Pattern[str]]] = [(_SIZE_CI_RE, _TOK_CI_RE)]
    if _TOK_UC_RE.search(text) is not None:
        jobs += [(rx, _TOK_UC_RE) for rx in _SIZE_UC_RES]
    for rx, tok_rx in jobs:
        for m in rx.finditer(text):
            for t in tok_rx.finditer(text, m.start("c"), m.end("c")):
                tok = t.group().upper()
                found.setdefault(t.start(), {"2XL": "XXL", "3XL": "XXXL"}.get(tok, tok))
    return tuple(found[k] for k in sorted(found))


def _phrases(rx: Prefiltered | re.Pattern[str], text: str,
             skip_questions: bool) -> tuple[list[str], list[tuple[int, int]]]:
    kept: list[str] = []
    spans: list[tuple[int, int]] = []
    for m in rx.finditer(text):
        spans.append(m.span())
        if not _negated(text, m.start()) and not (skip_questions and _in_question(text, m.end())):
            kept.append(" ".join(m.group().lower().split()))
    return kept, spans


# ---------------------------------------------------------------- public API
_T = TypeVar("_T")


def _read(memo: Callable[[str], _T], text: object, default: _T) -> _T:
    """`memo(str(text))`, memoised for texts up to MEMO_MAX_CHARS; `default` if anything raises (the grader must
    never crash on model output).
    """
    try:
        s = _coerce(text)
        return memo(s) if len(s) <= MEMO_MAX_CHARS else memo.__wrapped__(s)  # type: ignore[attr-defined]
    except Exception:  # noqa: BLE001 - the grader must never crash on model output
        return default


def numbers_in(text: object) -> tuple[float, ...]:
    """Every digit-written number (see `ExtractedFacts.numbers`), without the other extractors."""
    return _read(_numbers_in, text, ())


_UNIT_ADJ_RE = Prefiltered(re.compile(r"\s{1,2}(?:extra|more|additional|business|working|full|whole)(?=\s)",
                                      re.IGNORECASE))


def unit_after(text: str, end: int) -> str | None:
    """The unit written after the number that ends at `end` ("30 ml", "2 extra days", "48hrs"), or None."""
    um = _UNIT_RE.match(text, end)
    if um is None:  # "2 extra days", "3 more hours"
        am = _UNIT_ADJ_RE.match(text, end)
        um = _UNIT_RE.match(text, am.end()) if am else None
    return _UNITS[int(um.lastgroup[1:])][0] if um and um.lastgroup else None


def extract_facts(text: object) -> ExtractedFacts:
    """Extract every verifiable fact from a host reply; non-str input is str()-ed; never raises."""
    return _read(_extract_memo, text, _NO_FACTS)


def prices_in(text: object) -> tuple[float, ...]:
    """`extract_facts(text).prices`, without the other extractors (the `numbers_traceable` hook needs no more)."""
    return _read(_prices_memo, text, ())


def stock_and_sizes(text: object) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """`(extract_facts(text).stock_claims, extract_facts(text).sizes)`, without the other extractors (what the
    grader reads of each sentence).
    """
    try:
        s = _coerce(text)
        return _stock_claims(s), _sizes(s)
    except Exception:  # noqa: BLE001 - the grader must never crash on model output
        return (), ()


# Memoised: all are pure functions of the text with immutable results (tuples, a frozen dataclass). The grader
# scans the same catalogue strings in every world and the same reply in several hooks, the grade and reactions.
_DIGIT_RE = re.compile(r"[0-9]")
_NO_FACTS = ExtractedFacts()  # frozen: one shared empty result
MEMO_MAX_CHARS = 4096
"""Longer texts are not memoised: the caches hold their keys, and an agent's replies can be 65,536 characters,
so 16,384 of them would keep about a gigabyte alive (measured under bench/fuzz.py: RSS +8.6 % in 10 minutes)."""


@functools.lru_cache(maxsize=16384)
def _numbers_in(text: str) -> tuple[float, ...]:
    if not _DIGIT_RE.search(text):  # _NUM_RE needs an ASCII digit: nothing to scan (most catalogue strings)
        return ()
    return tuple(v for _, _, v in _scan_numbers(text)[0])


@functools.lru_cache(maxsize=1024)
def _extract_memo(text: str) -> ExtractedFacts:
    return _extract(text)


# the scan and the prices are reused within one request (the same reply and comments read by the hooks, the grade
# and the reactions), so these caches stay small; catalogue strings are memoised by `_numbers_in` above
@functools.lru_cache(maxsize=512)
def _scan_memo(text: str) -> _Scan:
    return _scan(text)


@functools.lru_cache(maxsize=128)
def _prices_memo(text: str) -> tuple[float, ...]:
    return tuple(_quantities(text, _scan_numbers(text)[0])[1])


def _quantities(text: str, nums: tuple[tuple[int, int, float], ...]) -> tuple[list[Quantity], list[float], set[int]]:
    """The quantities (a number with its unit), the prices, and the starts of the numbers that are either."""
    units: list[tuple[str, int] | None] = []  # (unit, end of the unit) per number
    for s, e, _ in nums:
        um = _UNIT_RE.match(text, e)
        inch_end = None if um else _inch_quote(text, s, e)
        units.append((_UNITS[int(um.lastgroup[1:])][0], um.end()) if um and um.lastgroup else
                     ("inch", inch_end) if inch_end else None)
    after = [_CUR_AFTER_RE.match(text, e) is not None for _, e, _ in nums]
    for i in range(len(nums) - 2, -1, -1):  # "3-5 days", "99 to 129 yuan", "31 x 70 cm" share the mark
        gap = _RANGE_RE.fullmatch(text, nums[i][1], nums[i + 1][0])
        nxt = units[i + 1]
        if gap and nxt:
            units[i] = units[i] or (nxt[0], nums[i][1])
        if gap and gap["r"]:
            after[i] = after[i] or after[i + 1]
    quantities: list[Quantity] = []
    prices: list[float] = []
    is_price_or_unit: set[int] = set()
    for (s, e, v), unit, money_after in zip(nums, units, after, strict=True):
        if unit:
            quantities.append(Quantity(v, unit[0], (s, unit[1])))
            is_price_or_unit.add(s)
        money = money_after or _CUR_BEFORE_RE.search(text[max(0, s - 24):s])
        keyword = _PRICE_KW_RE.search(text[max(0, s - 40):s]) and _PRICE_OK_AFTER_RE.match(text, e)
        if money or (not unit and keyword):
            prices.append(v)
            is_price_or_unit.add(s)
    return quantities, prices, is_price_or_unit


def _stock_claims(text: str) -> tuple[str, ...]:
    stock: list[str] = []
    for m in _STOCK_RE.finditer(text):
        label = m.lastgroup or ""
        if _negated(text, m.start(), width=24, neg=STOCK_NEG_RE):
            label = _FLIP.get(label, "")
        if label and label not in stock:
            stock.append(label)
    return tuple(stock)


def _extract(text: str) -> ExtractedFacts:
    nums, dates, times, coupons = _scan_numbers(text)
    quantities, prices, is_price_or_unit = _quantities(text, nums)
    claims, claim_spans = _phrases(_CLAIM_RE, text, skip_questions=True)
    promises, _ = _phrases(_PROMISE_RE, text, skip_questions=False)

    num_starts = {s for s, _, _ in nums}
    in_claim = bytearray(len(text) + 1)
    for cs, ce in claim_spans:
        in_claim[cs:ce] = b"\x01" * (ce - cs)
    links: dict[int, int] = {}
    done = 0  # end of the last link list walked, so each list is walked once (linear time)
    for m in _LINK_RE.finditer(text):
        if m.start() < done or in_claim[m.start()] or in_claim[m.end() - 1]:
            continue
        cur: re.Match[str] | None = m
        while cur is not None:
            n_start = cur.start("n")
            if n_start not in num_starts or (cur is not m and n_start in is_price_or_unit):
                break
            links.setdefault(n_start, int(cur["n"]))
            done = cur.end()
            last = int(cur["n"])
            cur = _LINK_CONT_RE.match(text, cur.end())
            if cur is None:  # "links 1 to 8": the range's end is a link too
                rg = _LINK_RANGE_RE.match(text, done)
                if rg is not None and link_range(last, rg) and rg.start("n") in num_starts \
                        and rg.start("n") not in is_price_or_unit:
                    links.setdefault(rg.start("n"), int(rg["n"]))
                    done = rg.end()

    code_starts = {s for s, _, _ in coupons}
    greeting = any(
        m.start() not in code_starts
        and (m.group().lower() != "welcome" or not _YOURE_RE.search(text[max(0, m.start() - 24):m.start()]))
        for m in _GREETING_RE.finditer(text)
    )
    return ExtractedFacts(
        numbers=tuple(v for _, _, v in nums),
        prices=tuple(prices),
        links=tuple(links[k] for k in sorted(links)),
        sizes=_sizes(text),
        quantities=tuple(quantities),
        percents=tuple(q.value for q in quantities if q.unit == "%"),
        dates=tuple(v for _, _, v in dates),
        times=tuple(v for _, _, v in times),
        coupon_codes=tuple(v for _, _, v in coupons),
        claims=tuple(claims),
        promises=tuple(promises),
        refusal=_REFUSAL_RE.search(text) is not None,
        stock_claims=_stock_claims(text),
        greeting=greeting,
        escalation=any(not _negated(text, m.start()) for m in _ESCALATION_RE.finditer(text)),
    )
