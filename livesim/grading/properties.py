"""Product properties against a closed world: every clause that asserts a property of a product (a material,
ingredient, allergen, feature, certification, care rule, compatibility, origin, flavour; see
`property_lexicon`) is checked against that product's record. A property the record does not hold is
unsupported; a denied property it holds is false; a quantifier ("every size", "all of them", "each link",
"every order") is checked over every variant or product it covers. Couriers, invented dispatch speeds, region
delays and usage durations are service properties no record holds unless it says so. A need the catalogue tags
("for summer", "a great gift", "an office essential") claimed of a product is checked against the product's tags.
"""

from __future__ import annotations

import re
from functools import lru_cache
from typing import Any

from livesim.grading.cues import BARE_CANT_RE, CANT_TELL_RE
from livesim.grading.facts.patterns import _STOCK_RE
from livesim.grading.facts.prefilter import Prefiltered
from livesim.grading.property_lexicon import CLOSED_LISTS, COURIERS, LEXICON
from livesim.world.catalog import NEED_TAGS, REGIONS, Product

# kinds whose record lists every one: one said to be the only one must be the list ("only with Android")
_LISTED = {"compatibility": "compatibility", "allergen": "allergens"}
_ONLY_BEFORE = re.compile(r"(?i)\b(?:only|just|exclusively)\s{1,2}(?:(?:works?|compatible|pairs?|contains?|has)"
                          r"\s{1,2})?(?:with|on|for)?\s{0,2}$")
_ONLY_AFTER = re.compile(r"(?i)[\s-]{0,2}only\b")
_OPEN_LISTS = frozenset({"ingredient"})  # kinds whose record lists some, not all: an absence said is not known
_ABSENCE_BEFORE = re.compile(r"(?i)(?:\bno|\bzero|\bwithout|(?:doesn['’]t|does\s{1,2}not|don['’]t|do\s{1,2}not)\s{1,2}"
                             r"(?:contain|have|include|use)(?:\s{1,2}any)?)\s{1,2}(?:added\s{1,2})?$")
# a can't-tell in the clause after, of what was just named ("alcohol isn't listed, so I can't confirm that one")
_SO_CANT_TELL = re.compile(r"(?i)[\s,;—–-]{0,3}(?:and\s{1,2}|so\s{1,2}|and\s{1,2}so\s{1,2})?(?:i|we)\s{1,2}"
                           r"(?:can['’]?t|cannot|couldn['’]?t|don['’]?t|do\s{1,2}not)\s{1,2}(?:\w{1,12}\s{1,2}){0,2}?"
                           r"(?:tell|say|confirm|know|check|have)\s{1,2}(?:\w{1,12}\s{1,2}){0,2}?(?:that|it|this|those|them)\b")

# ------------------------------------------------------------------ the lexicon as a token index
_Entry = tuple[str, str, tuple[str, ...]]  # kind, canonical, record forms
_TOK_RE = re.compile(r"[a-z0-9]+(?:&[a-z0-9]+)?")


def _toks(s: str) -> tuple[str, ...]:
    return tuple(_TOK_RE.findall(s.lower()))


def _index() -> dict[str, list[tuple[tuple[str, ...], _Entry]]]:
    idx: dict[str, list[tuple[tuple[str, ...], _Entry]]] = {}
    for kind, rows in LEXICON.items():
        for surfaces, canonical, forms in rows:
            for s in surfaces:
                t = _toks(s)
                idx.setdefault(t[0], []).append((t, (kind, canonical, forms)))
    for c in COURIERS:
        t = _toks(c)
        idx.setdefault(t[0], []).append((t, ("courier", c, ())))
    for phrases in idx.values():
        phrases.sort(key=lambda x: -len(x[0]))  # longest first
    return idx


_INDEX = _index()
_FIRST = frozenset(_INDEX)

# ------------------------------------------------------------------ clause cues
_CUT = re.compile(r"(?i)[,;:—–()]|\s-\s|\b(?:but|however|though|although|while|whereas|unlike|so|because)\b")
_NEG = re.compile(r"(?i)\b(?:not|no|never|without|zero|nor|neither|none|lacks?|isn['’]?t|"
                  r"aren['’]?t|doesn['’]?t|don['’]?t|won['’]?t|can['’]?t|cannot|contains\s{1,2}no)\b|n['’]t\b")
_NOT_NEG = re.compile(r"(?i)(?:\bnot|n['’]t)\s{1,2}(?:only|just|merely)\b|"
                      r"\b(?:no\s{1,2}(?:doubt|wonder|matter|worries|problem)|"
                      r"without\s{1,2}(?:a\s{1,2})?doubt|(?:isn['’]?t|ain['’]?t)\s{1,2}(?:it|that)\s{1,2}(?:great|nice|"
                      r"amazing|awesome|cool|lovely))\b")
# what the viewer asked or wants, a check offered, a doubt, a condition: not a claim about the product
_HEDGE_RX = re.compile(
    r"(?i)\b(?:if|whether|(?:i['’]ll|i\s{1,2}will|i\s{1,2}can|we\s{1,2}can|we['’]ll|to|could|can)\s{1,2}(?:double[\s-])?"
    r"check|checking|check\s{1,2}(?:whether|if|with|for\s{1,2}you)|verify|let\s{1,2}me|not\s{1,2}sure|unsure|might|may|maybe|perhaps|possibly|"
    r"mention\w{0,4}|specif\w{1,7}|ask\w{0,3}|wonder\w{0,3}|question|"
    r"(?:you|u|i|we)\s{1,2}(?:need|want|prefer)\w{0,2}|(?:need|want)\w{0,2}\s{1,2}(?:it|something|one|a|an)|"
    r"looking\s{1,2}for|hope|wish|other\s{1,2}(?:shops?|brands?|stores?)|elsewhere|"
    r"(?:can['’]?t|cannot|to)\s{1,2}confirm|confirm\s{1,2}(?:whether|if)|"
    # a fault the viewer reports names a part, it does not claim one ("so sorry about the zipper", "the strap broke")
    r"sorry\s{1,2}(?:about|for)|(?:issue|problem|trouble)s?\s{1,2}with|broke|broken|torn|ripped|came\s{1,2}off|"
    r"fell\s{1,2}off|defect\w{0,4}|faulty)\b|\?")
# social openers that hold a hedge word ("Great question, ...") are not hedges of what follows
_SOCIAL_QUESTION = re.compile(r"(?i)\b(?:great|good|fun|nice|excellent|awesome|interesting|lovely|fair)\s{1,2}"
                              r"(?:question|q|ask)\b|\bthanks?\s{1,2}(?:you\s{1,2})?for\s{1,2}asking\b|"
                              r"\b(?:i\s{1,2})?hope\s{1,2}(?:that|this|it)\s{1,2}helps\b|\b(?:i\s{1,2})?hope\s{1,2}you\s{1,2}"
                              r"(?:enjoy\w{0,3}|like\s{1,2}it|love\s{1,2}it|have\s{1,2}(?:a|fun))\b")


class _Hedges:
    """`_HEDGE_RX`, not matching inside a social opener (positions kept: the opener is blanked, not cut)."""

    @staticmethod
    def search(text: str, pos: int = 0, endpos: int | None = None) -> re.Match[str] | None:
        if _SOCIAL_QUESTION.search(text):
            text = _SOCIAL_QUESTION.sub(lambda m: " " * len(m.group()), text)
        return _HEDGE_RX.search(text, pos, len(text) if endpos is None else endpos)


_HEDGE = _Hedges()
_SORRY_ABOUT = re.compile(r"(?i)sorry\s{1,2}(?:about|for)")


def _hedged_before(sent: str, end: int, width: int) -> bool:
    """A hedge in the `width` characters before `end`; an apology ("so sorry about that, ...") only in the clause that
    ends there, where it names the fault the viewer reports, not in a clause before it.
    """
    lo = max(0, end - width)
    a = _clause(sent, max(0, end - 1))[0] if end else 0
    while (hm := _HEDGE.search(sent, lo, end)) is not None:
        if hm.start() >= a or not _SORRY_ABOUT.match(hm.group()):
            return True
        lo = hm.end()
    return False
# a question that states what it asks about ("did you know it's waterproof?")
_RHETORICAL = re.compile(r"(?i)\bdid\s{1,2}(?:you|u)\s{1,2}know\b|\b(?:isn['’]?t|ain['’]?t)\s{1,2}(?:it|that)\s{1,2}"
                         r"(?:great|nice|amazing|awesome|cool|lovely)\b|\bwho\s{1,2}doesn['’]?t\s{1,2}love\b|"
                         r"\bhow\s{1,2}(?:great|cool|nice|amazing|awesome)\s{1,2}is\s{1,2}(?:it|that)\b")
_ALLERGY = re.compile(r"(?i)\ballerg\w{0,4}|\bintoleran\w{1,4}")
_SUBJ_ALL = re.compile(r"(?i)\b(?:every|each|all)\s{1,2}(?:of\s{1,2})?(?:the\s{1,2}|our\s{1,2}|these\s{1,2})?"
                       r"(?:links?|products?|items?|things?|orders?)\b|\beverything\b|\ball\s{1,2}of\s{1,2}(?:them|"
                       r"these|those)\b|\b(?:both|they['’]re\s{1,2}all|they\s{1,2}are\s{1,2}all|they\s{1,2}all)\b")
# "everything" speaks of every product only as a subject ("everything here is vegan", not "everything you need")
_ALL_MEANT = re.compile(r"(?i)(?!everything\b)|everything\s{1,2}(?:(?:here|we\s{1,2}sell|in\s{1,2}the\s{1,2}\w{1,10}|"
                        r"on\s{1,2}(?:the\s{1,2})?\w{1,10})\s{1,2})?(?:is|are|['’]s)\b")
_ORDERS_ALL = Prefiltered(re.compile(r"(?i)\b(?:every|each|any|all)\s{1,2}(?:of\s{1,2}(?:our|the)\s{1,2})?"
                                     r"(?:orders?|parcels?|"
                         r"packages?|links?|products?|items?)\b|\beverything\b"))
_VARIANT_Q = Prefiltered(re.compile(
    r"(?i)\b(?:every|each|any|all(?:\s{1,2}(?:the|of\s{1,2}the|its|our))?|both(?:\s{1,2}the)?|whichever)\s{1,2}"
    r"(?:(?:two|three|four|five|six|[2-9])\s{1,2})?"
    r"(?P<dim>sizes?|colou?rs?|variants?|options?|versions?|flavou?rs?|styles?|models?|packs?)\b"
    r"|\b(?:all|both)\s{1,2}of\s{1,2}them\b|\b(?:are|is)\s{1,2}(?:all|both)\b|\bboth\s{1,2}(?:in[\s-]stock|"
    r"available|sold|out|left|gone)\b|\bthey['’]re\s{1,2}(?:all|both)\b|\bthey\s{1,2}(?:are\s{1,2})?"
    r"(?:all|both)\b"
    # a list said all of one state ("S, M and L, all in stock")
    r"|(?<=,\s)all\s{1,2}(?=(?:in[\s-]stock|available|sold\s{1,2}out|gone|left)\b)"
    # both of two variants named ("M is in stock in both black and navy")
    r"|\bboth\s{1,2}(?=[a-z][\w'’ -]{0,24}?\s(?:and|&)\s)"))
_IN_STOCK = re.compile(r"(?i)\b(?:in[\s-]stock|available|left|remaining|still\s{1,2}(?:there|have|got)|ready\s{1,2}"
                       r"to\s{1,2}(?:ship|go)|can\s{1,2}be\s{1,2}ordered)\b")
_TOO_RE = re.compile(r"(?i)\b(?:too|as\s{1,2}well|also)\b|^\W{0,3}(?:and\s{1,2}|but\s{1,2})?(?:so|as)\s{1,2}"
                     r"(?:is|are)\b")
_SOLD_OUT = re.compile(r"(?i)\b(?:sold[\s-]out|out\s{1,2}of\s{1,2}stock|gone|unavailable)\b")
_NOT_EVERY = re.compile(r"(?i)\bnot\s{1,2}(?:every|all|each|both)\b|\b(?:except|apart\s{1,2}from|other\s{1,2}than|"
                        r"besides|but|save\s{1,2}for|excluding)\b")
_NONE_OF = re.compile(r"(?i)\bnone\s{1,2}of\b|\bno\s{1,2}(?:size|colou?r|variant|option)s?\s{1,2}(?:is|are)\b")

# ------------------------------------------------------------------ service properties
_DISPATCH = Prefiltered(re.compile(
    r"(?i)\bsame[\s-]day\s{1,2}(?:dispatch|shipping|delivery|shipment)\b|\b(?:ships?|shipped|dispatch(?:ed|es)?|sends?|"
    r"sent|goes\s{1,2}out|go\s{1,2}out|posts?|posted)\s{1,2}(?:out\s{1,2})?(?:it\s{1,2}|them\s{1,2})?(?:today|tonight|"
    r"tomorrow|immediately|instantly|right\s{1,2}away|straight\s{1,2}away|at\s{1,2}once|asap|the\s{1,2}same\s{1,2}day|"
    r"same\s{1,2}day|within\s{1,2}(?:the|an|1)\s{1,2}hour|within\s{1,2}(?:a\s{1,2}few\s{1,2})?hours|in\s{1,2}(?:an|1)"
    r"\s{1,2}hour|overnight)\b|\b(?:express|expedited|priority|next[\s-]day|overnight)\s{1,2}(?:shipping|dispatch|"
    r"delivery|post|courier)\b|\bexpress\s{1,2}(?:mail|parcel)\b"))
# a delay is time added ("2 extra days", "takes longer", "delayed"), not any "more" ("stay tuned for more deals")
_DELAY = re.compile(r"(?i)\b(?:(?:extra|more|additional|longer)\s{1,2}(?:[a-z]{1,10}\s{1,2})?(?:days?|time|wait|"
                    r"hours?|weeks?)|takes?\s{1,2}(?:a\s{1,2}(?:bit|little)\s{1,2})?longer|delay\w{0,3}|slower|late|"
                    r"adds?\s{1,2}(?:[0-9]{1,2}|a|an|one|two|three|four|five)\s{1,2}(?:more\s{1,2}|extra\s{1,2})?(?:days?|hours?|weeks?)|"
                    r"later|extra|additional)\b(?!\s{1,2}(?:deals?|offers?|products?|items?|discounts?|info|details))")
_NO_DELAY = re.compile(r"(?i)\bno\s{1,2}(?:extra|additional)\s{1,2}(?:time|days?|delay|wait)\b|\bno\s{1,2}delays?\b|"
                       r"\bwithout\s{1,2}(?:any\s{1,2})?delay|\b(?:same|normal|usual|standard)\s{1,2}(?:speed|time|"
                       r"timing|delivery\s{1,2}time)\b|\bjust\s{1,2}as\s{1,2}(?:fast|quick)\b")
_REGION_RE = Prefiltered(re.compile(r"(?i)\b(" + "|".join(re.escape(r) for r in sorted(REGIONS, key=len, reverse=True))
                                     + r")\b"))
_REGION_NAME = {r.lower(): r for r in REGIONS}
_DAYS_RE = re.compile(r"(?i)\b([0-9]{1,2})\s{0,2}(?:-|to|~)?\s{0,2}(?:[0-9]{1,2}\s{1,2})?(?:extra\s{1,2}|more\s{1,2}|"
                      r"additional\s{1,2}|business\s{1,2}|working\s{1,2})?days?\b")
# how an order is paid: no record holds the payment methods ("yes, card works", "pay with Alipay at checkout")
_PAYMENT = Prefiltered(re.compile(
    r"(?i)\b(?:ali\s?pay|we\s?chat\s{1,2}pay|pay\s?pal|apple\s{1,2}pay|google\s{1,2}pay|union\s?pay|huabei|"
    r"(?:credit|debit|bank)\s{1,2}cards?|cards?|cash\s{1,2}on\s{1,2}delivery|cod|bank\s{1,2}transfers?|"
    r"instal{1,2}ments?|visa|master\s?card|amex|crypto|bitcoin)\b"))
_PAYMENT_CUE = re.compile(r"(?i)\b(?:pay\w{0,5}|accept\w{0,3}|takes?|works?|supported|checkout|check\s{1,2}out|"
                          r"through|via)\b")
_USAGE = Prefiltered(re.compile(
    r"(?i)\b(?:lasts?|will\s{1,2}last|last\s{1,2}you|lasting)\s{1,2}(?:you\s{1,2})?(?:for\s{1,2})?(?:about\s{1,2}|around"
    r"\s{1,2}|roughly\s{1,2}|up\s{1,2}to\s{1,2}|over\s{1,2}|at\s{1,2}least\s{1,2})?(?:[0-9]{1,4}|a|an|one|two|three|"
    r"several|many|a\s{1,2}few|a\s{1,2}couple\s{1,2}of|the\s{1,2}whole|all|a\s{1,2}full)\s{1,2}(?:\w{1,10}\s{1,2})?"
    r"(?:days?|weeks?|months?|years?|seasons?|uses|washes|applications|servings|cups|sessions|nights)\b"
    r"|\b(?:enough|good)\s{1,2}for\s{1,2}(?:about\s{1,2}|around\s{1,2}|up\s{1,2}to\s{1,2})?(?:[0-9]{1,4}|a|one|two|"
    r"three|several)\s{1,2}(?:\w{1,10}\s{1,2})?(?:uses|washes|applications|servings|cups|sessions|days?\s{1,2}of\s{1,2}"
    r"use|weeks?\s{1,2}of\s{1,2}use|months?\s{1,2}of\s{1,2}use)\b|\b(?:with|of)\s{1,2}(?:daily|regular|everyday)\s{1,2}"
    r"use\b|\b[0-9]{1,4}\s{1,2}(?:uses|washes|applications|servings)\b|\b(?:one|a|each)\s{1,2}(?:bottle|jar|tube|pack|"
    r"bag|box|tin|pot)\s{1,2}(?:\w{1,10}\s{1,2}){0,2}?(?:lasts?|is\s{1,2}enough|will\s{1,2}last)\b"
    r"|\b(?:use|used|wear|worn|using|wearing)\s{1,2}(?:it\s{1,2}|them\s{1,2})?for\s{1,2}(?:about\s{1,2}|around\s{1,2}|"
    r"up\s{1,2}to\s{1,2}|over\s{1,2})?(?:[0-9]{1,4}|a|an|one|two|three|several|many)\s{1,2}(?:days?|weeks?|months?|"
    r"years?|seasons?)\b|\b(?:[0-9]{1,3}|a|one|two|three|six)[\s-](?:day|week|month|year)['’]?s?\s{1,2}supply\b"))
_A_DAY = re.compile(r"(?i)\b(?:all|a|one|full|whole|the\s{1,2}whole|a\s{1,2}full)\s{1,2}day\b")
_DURATION = re.compile(r"(?i)\b([0-9]{1,4}|a|an|one)\s{1,2}(days?|weeks?|months?|years?)\b")
_RECORD_TIME = re.compile(r"(?i)\b(?:battery|charge|charging|playback|runtime|run\s{1,2}time|play\s{1,2}time|shelf|"
                          r"expir\w{0,4}|best\s{1,2}before|fresh|unopened|opened|keeps?|warrant\w{0,4}|returns?|"
                          r"refund\w{0,3}|coupon|code|sale|deal|promo\w{0,5}|offer|stream|live|discount)\b")


def _norm(s: str) -> str:
    return " " + " ".join(_TOK_RE.findall(s.lower().replace("’", "'"))) + " "


def record_text(p: Product) -> str:
    """The product's record as one normalised text: attribute values, variants, tags, name, category, care."""
    parts: list[str] = [p.short_name, p.category, *p.tags, *(s.variant for s in p.skus)]
    flags = []
    for key, v in p.attributes.items():
        if isinstance(v, bool):  # fragrance_free: one token when true (a free-from label), the base when false
            flags.append(f" {key} " if v else _norm(key.split("_")[0]))
        elif isinstance(v, list):
            parts += [str(x) for x in v]
        elif isinstance(v, str):
            parts.append(v)
    return " ; ".join(_norm(x) for x in parts) + " ; " + "".join(flags)


def _holds(forms: tuple[str, ...], rec: str) -> bool:
    return any(all(_norm(f) in rec for f in form.split("+")) for form in forms)


class _Scan:
    """Tokens of the reply text with their character spans (offsets into the graded text)."""

    def __init__(self, text: str, masked: list[tuple[int, int]]) -> None:
        self.text = text
        low = text.lower()
        self.toks: list[tuple[str, int, int]] = []
        if _FIRST.isdisjoint(_TOK_RE.findall(low)):
            return  # no phrase of the lexicon can start anywhere (most replies)
        self.toks = [(m.group(), m.start(), m.end()) for m in _TOK_RE.finditer(low)
                     if not masked or not any(a <= m.start() < b for a, b in masked)]

    def matches(self, lo: int, hi: int) -> list[tuple[int, int, int, int, _Entry]]:
        """(first token, end token, start char, end char, entry) of every lexicon phrase between lo and hi."""
        toks = self.toks
        out: list[tuple[int, int, int, int, _Entry]] = []
        if not toks:
            return out
        i = next((k for k, t in enumerate(toks) if t[1] >= lo), len(toks))
        while i < len(toks) and toks[i][1] < hi:
            for phrase, entry in _INDEX.get(toks[i][0], ()):
                n = len(phrase)
                if i + n <= len(toks) and toks[i + n - 1][2] <= hi and all(
                        toks[i + k][0] == phrase[k] and (k == 0 or toks[i + k][1] - toks[i + k - 1][2] <= 2)
                        for k in range(n)):
                    out.append((i, i + n, toks[i][1], toks[i + n - 1][2], entry))
                    i += n - 1
                    break
            i += 1
        return out


def value_phrases(text: str, value: str) -> list[tuple[int, int]]:
    """Spans of the lexicon's phrases in `text` that name the record value `value` and no other: a row that maps
    only to it ("wash it by hand" -> "hand wash only"), or a row of synonyms that holds it ("relaxed fit" for
    "loose fit"). Tokens, so any spacing or hyphen between the words ("hand-wash only") reads the same.
    """
    target = _norm(value)
    out = []
    for _, _, cs, ce, (_, canonical, forms) in _Scan(text, []).matches(0, len(text)):
        normed = {_norm(f) for f in forms}
        if normed == {target} or (target in normed and canonical in forms):
            out.append((cs, ce))
    return out


def _clause(sent: str, pos: int) -> tuple[int, int]:
    lo = 0
    for m in _CUT.finditer(sent, 0, pos):
        lo = m.end()
    m2 = _CUT.search(sent, pos)
    return lo, (m2.start() if m2 else len(sent))


def _denied(before: str) -> bool:
    window = before[-36:]
    return _NEG.search(window) is not None and not _NOT_NEG.search(window)


_FREE_THINGS = frozenset("shipping delivery gift gifts returns return sample samples postage size sizes".split())


def _free_label(text: str, toks: list[tuple[str, int, int]], i: int, j: int) -> bool:
    """'paraben-free', 'free of parabens', 'free from nuts'."""
    if j < len(toks) and toks[j][0] == "free" and toks[j][1] - toks[j - 1][2] <= 1:
        # "free shipping", not "free - shipping ..." nor "free\nShipping ..."
        joined = j + 1 < len(toks) and text[toks[j][2]:toks[j + 1][1]] in (" ", "  ")
        return not joined or toks[j + 1][0] not in _FREE_THINGS  # not "cotton, free shipping"
    return i >= 2 and toks[i - 2][0] == "free" and toks[i - 1][0] in ("of", "from")


def _verdict(kind: str, forms: tuple[str, ...], p: Product, rec: str, free: bool, denied: bool,
             absent: bool = False) -> str:
    """The verdict for one product: "ok", "unsupported" or "false" (`absent`: said to have none of it)."""
    held = _holds(forms, rec)
    if free and not denied:  # a free-from label: true when the record says so or its closed list lacks it
        if held:
            return "false"
        closed = CLOSED_LISTS.get(kind)
        label_held = any(f" {_norm(f).strip().replace(' ', '_')}_free " in rec for f in forms)
        return "ok" if label_held or (closed is not None and closed in p.attributes) else "unsupported"
    if denied and not free:
        # ("no alcohol" of a product whose record lists only its key ingredients is no more known than "alcohol-free",
        # unless the record holds the label: "no fragrance" of a fragrance-free one)
        if held or not absent:
            return "false" if held else "ok"
        return "ok" if any(f" {_norm(f).strip().replace(' ', '_')}_free " in rec for f in forms) else "unsupported"
    return "ok" if held else "unsupported"


def _products_in(r: Any, world: Any, s: int, e: int, a: int, b: int) -> tuple[list[Product], bool]:
    """The products a clause speaks of and whether it speaks of all of them (a quantifier or a named subject)."""
    sent = r.text[s:e]
    named = [link for ms, _, link in r.mentions if s + a <= ms < s + b]
    if any(link == -1 and _ALL_MEANT.match(r.text, ms) for ms, _, link in r.mentions if s + a <= ms < s + b):
        return list(world.catalog.products), True
    named = [x for x in named if x != -1]
    if _SUBJ_ALL.search(sent):
        links = sorted({link for ms, _, link in r.mentions if s <= ms < e and link > 0})
        if len(links) >= 2:
            return [world.by_link[x] for x in links if x in world.by_link], True
        if not links and len(world.targets) >= 2 and re.search(r"(?i)\bboth\b|\ball\s{1,2}of\s{1,2}them\b|"
                                                               r"\bthey\b", sent):
            return [world.by_link[x] for x in world.targets if x in world.by_link], True
        if not links and re.search(r"(?i)\b(?:every|each|all)\s{1,2}(?:of\s{1,2})?(?:the\s{1,2}|our\s{1,2})?"
                                   r"(?:links?|products?|items?)\b|\beverything\b", sent):
            return list(world.catalog.products), True
    if named:
        link = named[-1] if named[-1] in world.by_link else None
        return ([world.by_link[link]] if link else []), True
    if (dm := _DISTRIBUTIVE_OPEN_RE.match(sent, a)) is not None and (placed := _by_place(r, world, dm, s + a)):
        return placed, len(placed) == 1  # "..., one for sensitive skin": one of the products named before
    subj = r.subject_at(s + a, (s, e))
    products = world.products(subj)
    return products, subj is not None and subj != -1 and len(products) == 1


def property_errors(r: Any, world: Any) -> list[str]:
    """Errors for product properties, variant quantifiers and service properties stated as facts."""
    text = r.text
    # (not a product's name, nor a viewer's said as a vocative: "Alexa: standard is available")
    masked = sorted([*((ms, me) for ms, me, link in r.mentions if link > 0), *r.vocatives])
    scan = _Scan(text, masked)
    recs: dict[int, str] = {}
    errors: list[str] = []

    def rec(p: Product) -> str:
        if p.link not in recs:
            recs[p.link] = record_text(p)
        return recs[p.link]

    extra = {t for p in world.catalog.products for t in p.tags if t not in _NEED_SET}
    needs = _needs_of(frozenset(extra)) if extra else _NEEDS_DEFAULT
    payment = _PAYMENT.found(text)  # a payment method named anywhere: then each sentence is read for one
    for si, (s, e) in enumerate(r.sentences):
        sent = text[s:e]
        if (r.question[si] and not _RHETORICAL.search(sent)) or r.echo[si]:
            continue
        if si + 1 < len(r.sentences) and len(sent.split()) <= 3 and BARE_CANT_RE.match(text, *r.sentences[si + 1]):
            continue  # a topic named alone before "I can't say." ("Alcohol I can't say."): what it cannot tell
        spans = []
        for i, j, cs, ce, (kind, canonical, forms) in scan.matches(s, e):
            spans.append((cs, ce))
            a, b = _clause(sent, cs - s)
            clause = sent[a:b]
            if _HEDGE.search(clause) or (kind == "allergen" and _ALLERGY.search(clause)):
                continue  # a hedge, a condition, the viewer's need; "not for nut allergies" speaks of people
            if CANT_TELL_RE.search(clause) or _SO_CANT_TELL.match(sent, b) is not None:
                continue  # what the host says it cannot tell ("alcohol isn't listed, so I can't confirm that one")
            said = text[cs:ce]
            denied = _denied(sent[a:cs - s])
            if kind == "courier":
                if not denied and (canonical != "sf" or said == "SF") and (len(canonical) > 3 or said.isupper()):
                    errors.append(f"unsupported courier: {said!r} (no record says which courier carries it)")
                continue
            products, strict = _products_in(r, world, s, e, a, b)
            free = _free_label(text, scan.toks, i, j)
            if free and denied:  # "not gluten-free": it contains the base
                free, denied = False, False
            absent = kind in _OPEN_LISTS and _ABSENCE_BEFORE.search(sent, a, cs - s) is not None
            verdicts = {p.link: _verdict(kind, forms, p, rec(p), free, denied, absent) for p in products}
            if not verdicts or (not strict and "ok" in verdicts.values()):
                continue
            if not strict and "false" not in verdicts.values():
                errors.append(f"unsupported property: {said!r} ({kind}) is in the record of none of links "
                              f"{sorted(verdicts)}")
                continue
            for link, v in verdicts.items():
                if v == "false":
                    what = f"{said}-free" if free else said
                    errors.append(f"false: link {link} {'is not' if free else 'does have'} {what!r} ({kind})")
                    break
                if v == "unsupported":
                    what = f"free of {said}" if free else said
                    errors.append(f"unsupported property: link {link} {what!r} ({kind}) is not in its record")
                    break
                if v == "ok" and kind in _LISTED and not free and not denied and (
                        _ONLY_BEFORE.search(sent, a, cs - s) or _ONLY_AFTER.match(text, ce)):
                    # "only with Android" of what works with Android and macOS: the others named in the clause too
                    held = [str(x) for x in world.by_link[link].attributes.get(_LISTED[kind]) or ()]
                    if any(x.lower() not in clause.lower() for x in held):
                        errors.append(f"false: link {link} is not {said!r} only ({kind}: {', '.join(held)})")
                        break
        errors += _free_of_errors(r, world, sent, s, e, spans, rec)
        errors += _attribute_value_errors(r, world, sent, s, e, rec)
        errors += _variant_quantifier_errors(r, world, sent, s, e)
        errors += _service_errors(r, world, sent, s, e, payment)
        errors += _need_errors(r, world, sent, s, e, needs)
    out: list[str] = []
    for x in errors:
        if x not in out:
            out.append(x)
    return out


# "<thing>-free" of a product ("a glare-free screen", "mess-free", "pain-free"): a property, whatever the thing; the
# lexicon's own free-from claims are read above, and a few words are idioms of no property ("hassle-free")
# Likewise the other compound shapes of a made feature: "pre-shrunk", "stain-proof", "fade-resistant", "anti-static",
# "non-toxic" (a shape, not a list: the words inside are whatever a host invents)
_ANY_FREE = Prefiltered(re.compile(r"(?i)\b([a-z]{3,15})-(?:free|proof|resistant|repellent)\b"
                                   r"|\b(?:pre|anti|non)-([a-z]{3,15})\b"))
_FREE_IDIOMS = frozenset("hassle worry stress care duty toll interest tax fee cost charge commission fuss "
                         "stop negotiable refundable returnable order orders ordered sale sales sell selling "
                         "existent issue problem starter fool".split())


def _free_of_errors(r: Any, world: Any, sent: str, s: int, e: int, spans: list[tuple[int, int]],
                    rec: Any) -> list[str]:
    for m in _ANY_FREE.finditer(sent):
        thing = (m.group(1) or m.group(2)).lower()
        if thing in _FREE_IDIOMS or any(cs < s + m.end() and s + m.start() < ce for cs, ce in spans):
            continue
        a, b = _clause(sent, m.start())
        if _HEDGE.search(sent[a:b]) or _denied(sent[a:m.start()]):
            continue
        products, _ = _products_in(r, world, s, e, a, b)
        missing = [p for p in products if not re.search(rf"\b{thing}", rec(p))]
        if products and missing:
            return [f"unsupported property: link {missing[0].link} {m.group()!r} (feature) is not in its record"]
    return []


# "<attribute> is <value>": a typed claim (subject, attribute, value) checked against the record's own value for that
# attribute, whatever the value's words ("the flavour is original" of a medium roast is false; "its fit is slim" of a
# product whose record has no fit is unsupported)
_ATTR_IS = re.compile(
    r"(?i)\b(?P<attr>flavou?r|taste|fit|fabric|material|care(?:\s{1,2}instructions?)?|storage|skin\s{1,2}type)"
    r"(?:\s{1,2}(?:is|would\s{1,2}be|will\s{1,2}be)\s{1,2}|\s{0,2}[:=]\s{0,2}|\s{1,2}-\s{1,2})"
    r"(?P<val>[a-z][a-z'’ -]{0,40}?)\s{0,2}(?=$|[.,;!?()]|\s(?:and|but|so|which|too|as|if|for|on|in|with|from|"
    # ... or a word that opens the next statement, run on ("flavour is wildflower hello and welcome", "... I believe")
    r"though|i|hello|hi|hey|welcome|thanks|thank|great|love|sorry|tap|hope|probably|"
    r"you|your|you['’]re|we|we['’]re|our|it|it['’]s|they|this|these|that['’]s|link|enjoy|let['’]s|check|grab|please|"
    r"also|plus|yes|yeah|absolutely|perfect|nice|good|happy)\b)")
_ATTR_KEY = {"flavour": "flavour", "flavor": "flavour", "taste": "flavour", "fit": "fit", "fabric": "material",
             "material": "material", "care": "care", "storage": "storage", "skin": "skin_type"}
_VALUE_FILLER = frozenset("a an the very really so quite pure just its it's it s our their this that".split())
# words that judge rather than name a value ("the fit is great", "the taste is amazing"): not a typed claim
_JUDGING = frozenset("great good nice amazing perfect lovely awesome excellent fantastic wonderful delicious yummy "
                     "tasty comfortable comfy soft true to size easy simple fine ok okay lovely super incredible "
                     "unbeatable premium top quality best better decent solid rich smooth fresh light heavy strong "
                     "mild "
                     "different same unique special similar".split())


def _said_value(m: re.Match[str]) -> tuple[str, str, list[str]]:
    """An `_ATTR_IS` match: the attribute word said, the record key it names, the value's words (filler dropped)."""
    attr = m["attr"].lower().split()[0]
    return attr, _ATTR_KEY["flavour" if attr.startswith("flavo") else attr], [
        t for t in _TOK_RE.findall(m["val"].lower()) if t not in _VALUE_FILLER]


def _held_words(held: Any) -> set[str]:
    return set(_TOK_RE.findall(" ".join(map(str, held)).lower() if isinstance(held, list) else str(held).lower()))


def _attribute_value_errors(r: Any, world: Any, sent: str, s: int, e: int, rec: Any) -> list[str]:
    out: list[str] = []
    for m in _ATTR_IS.finditer(sent):
        attr, key, val = _said_value(m)
        if not val or _JUDGING.intersection(val) or _hedged_before(sent, m.start(), 40):
            continue
        if val[-1] == "of":  # "flavour is classic classic of link 5 is sold out": where the value ends is not known
            continue
        a, b = _clause(sent, m.start())
        products, strict = _products_in(r, world, s, e, a, max(b, m.end()))
        if not strict or len(products) != 1:
            continue
        p = products[0]
        said = " ".join(val)
        lex = _Scan(f"{said} {attr}", []).matches(0, 10**6) or _Scan(said, []).matches(0, 10**6)
        if lex:  # a value the lexicon knows: its own record forms decide ("relaxed fit" is a loose fit)
            if not any(_holds(entry[2], rec(p)) for *_, entry in lex):
                out.append(f"false: link {p.link}'s {key.replace('_', ' ')} is not {said!r}")
            continue
        held = p.attributes.get(key)
        if held is None or isinstance(held, bool):
            out.append(f"unsupported property: link {p.link} has no {key.replace('_', ' ')} in its record ({said!r})")
            continue
        if not set(val) <= _held_words(held) | {key, attr}:
            out.append(f"false: link {p.link}'s {key.replace('_', ' ')} is {held!r}, not {said!r}")
    return out


# a value said of the product itself ("link 2 is ceramic", "it's made of 100% cotton"), not a name said with an
# article ("link 2 is the ceramic mug set")
_PREDICATE = (r"(?i)\b(?:is|are|made\s{1,2}(?:out\s{1,2})?(?:of|from|with)|crafted\s{1,2}(?:of|from))\s{1,2}"
              r"(?:(?:all|pure|solid|real|[0-9]{1,3}\s?%)\s{1,2})?")
_NOT_BEFORE = re.compile(r"(?i)(?:\bnot|n['’]t|\bnever)\s{1,2}(?:\S+\s{1,2})?$")


def true_attribute_stated(text: str, p: Product) -> bool:
    """An '<attribute> is <value>' in `text` whose value is the record's ("its material is ceramic" of a ceramic mug
    set: a true fact about it, though the value is also a word of its name), or the record's material or flavour said
    of the product ("link 2 is made of ceramic", "link 7 is chili lime").
    """
    for m in _ATTR_IS.finditer(text):
        _, key, val = _said_value(m)
        held = p.attributes.get(key)
        if not val or held is None or isinstance(held, bool):
            continue
        if set(val) <= _held_words(held):
            return True
    for key in ("material", "flavour"):
        held = p.attributes.get(key)
        if isinstance(held, str) and held.lower() != "none":
            value = held.lower().split("% ")[-1]
            for m in re.finditer(_PREDICATE + re.escape(value).replace(r"\ ", r"[\s-]{1,2}") + r"\b", text):
                if not _NOT_BEFORE.search(text, max(0, m.start() - 12), m.start()):
                    return True  # (not "link 2 isn't made of ceramic", "it's not made of ceramic")
    return False


def _variant_quantifier_errors(r: Any, world: Any, sent: str, s: int, e: int) -> list[str]:
    """'every size is in stock', 'all of them are sold out': true of every variant it covers."""
    q = _VARIANT_Q.search(sent)
    if q is None or _NOT_EVERY.search(sent):
        return []
    qa, qb = _clause(sent, q.start())
    if _hedged_before(sent, qb, qb - max(0, qa - 30)):  # a hedge in (or just before) the quantifier's clause
        return []

    # the state after the quantifier, or before it in its clause ("black is in stock in every size")
    # (also the stock words of the reading's lexicon: "restocked", "hasn't been restocked", "there's plenty")
    said = {g: [m for m in _STOCK_RE.finditer(sent, qa) if m.lastgroup == g] for g in ("in_stock", "sold_out")}
    instock = _IN_STOCK.search(sent, q.start()) or _IN_STOCK.search(sent, qa, q.start()) or next(iter(said["in_stock"]),
                                                                                                 None)
    soldout = _SOLD_OUT.search(sent, q.start()) or _SOLD_OUT.search(sent, qa, q.start()) or next(iter(said["sold_out"]),
                                                                                                 None)
    state = instock or soldout
    if state is None and _TOO_RE.search(sent, qa, qb):
        # the state of the clause before, said again ("black is in stock, and navy too in every size")
        instock = next(reversed(list(_IN_STOCK.finditer(sent, 0, qa))), None)
        soldout = next(reversed(list(_SOLD_OUT.finditer(sent, 0, qa))), None)
        if instock and soldout:
            instock, soldout = (instock, None) if instock.start() > soldout.start() else (None, soldout)
        state = instock or soldout
    if state is None:
        return []
    claim = "in_stock" if (instock and not soldout) else "sold_out"
    if _NONE_OF.search(sent) or _denied(sent[q.end():state.start()]):
        claim = "sold_out" if claim == "in_stock" else "in_stock"
    products, _ = _products_in(r, world, s, e, 0, e - s)
    dim = (q.group("dim") or "").lower()
    field = "size" if dim.startswith("size") else "colour" if dim.startswith("col") else "option"
    out = []
    for p in products:
        # the variants named in the quantifier's clause, and of the dimensions it names none of, those named in the
        # rest of the sentence ("In black, S and M are both in stock": black; "S, and every colour is in stock in M":
        # M, not S)
        named = r.named_variants(sent[qa:qb], p)
        vals = {f: {str(getattr(x, f)).lower() for x in p.skus if getattr(x, f)} for f in ("size", "colour", "option")}
        here = {f for f, v in vals.items() if named & v}
        named |= {w for w in r.named_variants(f"{sent[:qa]} {sent[qb:]}", p)
                  if not any(w in vals[f] for f in here)}
        fields = [f for f in ("size", "colour", "option") if not (dim and f == field)]
        picks = {f: named & {str(getattr(x, f)).lower() for x in p.skus if getattr(x, f)} for f in fields}
        if dim or any(picks.values()):  # "every size in black", "S and M in black": each named dimension must match
            covered = [x for x in p.skus if all(not v or str(getattr(x, f)).lower() in v for f, v in picks.items())]
        else:  # "they're both in stock" of two links: each product as a whole
            if (any(x.stock > 0 for x in p.skus)) != (claim == "in_stock"):
                out.append(f"false: link {p.link} is not {claim.replace('_', ' ')}")
            continue
        bad = [x.variant for x in covered if (x.stock > 0) != (claim == "in_stock")]
        sized = {x.size for x in p.skus if x.size}
        if sized and claim == "in_stock" and not bad:  # "every colour is in stock in XS" of a product with no XS
            bad = sorted(r.sizes_named(sent[qa:qb]) - sized)
        if dim and field != "option" and claim == "in_stock" and not bad:
            # every colour the record lists, not only those it has SKUs of: "every colour is in stock in XL" is false
            # of a listed colour no SKU in XL carries
            held = {str(getattr(x, field)).lower() for x in covered if getattr(x, field)}
            bad = [v for v in (world.listed_colours(p) if field == "colour" else
                               dict.fromkeys(str(x.size).lower() for x in p.skus if x.size)) if v not in held]
        if bad:
            out.append(f"false: not every variant of link {p.link} is {claim.replace('_', ' ')} ({bad[0]})")
    return out


def _service_errors(r: Any, world: Any, sent: str, s: int, e: int, payment: bool = True) -> list[str]:
    """Dispatch speeds, region delays, every-order dispatch times, usage durations and payment methods no record
    holds.
    """
    out: list[str] = []
    if not (_DISPATCH.search(sent) or _REGION_RE.search(sent) or _ORDERS_ALL.search(sent) or _USAGE.search(sent)
            or payment and _PAYMENT.search(sent)):
        return out
    for m in _PAYMENT.finditer(sent) if payment else ():
        a, b = _clause(sent, m.start())
        if not _PAYMENT_CUE.search(sent, a, b) or _denied(sent[a:m.start()]) or _HEDGE.search(sent[a:b]) \
                or CANT_TELL_RE.search(sent, a, b):  # "card payment isn't something we can see"
            continue  # "can't confirm card payment", "if you pay by card", "a greeting card"
        out.append(f"unsupported payment method: {m.group()!r} (no record says how an order is paid)")
        break
    products, _ = _products_in(r, world, s, e, 0, e - s)
    for m in _DISPATCH.finditer(sent):
        a, b = _clause(sent, m.start())
        if _denied(sent[a:m.start()]) or _HEDGE.search(sent[a:b]):
            continue
        if re.match(r"(?i)next[\s-]day|ships?\s{1,2}(?:out\s{1,2})?tomorrow", m.group()) and products and all(
                p.shipping.ships_within_hours <= 24 for p in products):
            continue
        out.append(f"unsupported dispatch speed: {m.group()!r} (the record holds the dispatch time only)")
        break
    regions = [(m, _REGION_NAME[m.group(1).lower()]) for m in _REGION_RE.finditer(sent)]
    for m, region in regions:
        a, b = _clause(sent, m.start())
        span = sent if len(regions) == 1 else sent[a:b]
        if _HEDGE.search(span):
            continue
        for p in products:
            if region in p.shipping.excluded_regions:
                dm = _DELAY.search(span)  # a delay to where it does not ship says it ships there ("Macau adds 3 days")
                if dm is not None and not _denied(span[:dm.start()]) and not _NO_DELAY.search(span):
                    out.append(f"false: link {p.link} does not ship to {region} (a delay to it said)")
                continue
            extra = p.shipping.remote_regions.get(region)
            if _NO_DELAY.search(span):
                if extra:
                    out.append(f"false: link {p.link} takes {extra} extra days to {region}")
                continue
            dm = _DELAY.search(span)
            if dm is None or _denied(span[:dm.start()]):
                continue
            days = [int(x.group(1)) for x in _DAYS_RE.finditer(span)]
            if not extra:
                out.append(f"unsupported region delay: link {p.link} has no extra time to {region} on record")
            elif days and extra not in days:
                out.append(f"false: link {p.link} takes {extra} extra days to {region}, not {days[0]}")
    om = _ORDERS_ALL.search(sent)
    if om and not _HEDGE.search(sent):
        hm = re.search(r"(?i)\b(?:ships?|dispatch\w{0,3}|sent|goes\s{1,2}out)\s{1,2}(?:out\s{1,2})?(within|in)\s{1,2}"
                       r"([0-9]{1,3})\s{0,2}(h|hrs?|hours?|days?)\b", sent)
        if hm:
            hours = int(hm.group(2)) * (24 if hm.group(3).lower().startswith("d") else 1)
            pool = list(world.catalog.products) if re.search(r"(?i)order|parcel|package|everything", om.group()) \
                else products
            slow = [p for p in pool if (p.shipping.ships_within_hours > hours if hm.group(1).lower() == "within"
                                        else p.shipping.ships_within_hours != hours)]
            if slow and not _denied(sent[:om.start()]):
                out.append(f"false: link {slow[0].link} ships within {slow[0].shipping.ships_within_hours} hours, "
                           f"not every order within {hours}")
    for m in _USAGE.finditer(sent):
        a, b = _clause(sent, m.start())
        if _RECORD_TIME.search(sent) or _HEDGE.search(sent[a:b]) or _denied(sent[a:m.start()]):
            continue
        if any(p.attributes.get("battery_hours", 0) >= 8 for p in products) and _A_DAY.search(m.group()):
            continue  # "lasts all day" of a battery that does
        said = _DURATION.search(m.group())
        if said and _days(said) in _record_days(products):
            continue  # the shelf life, warranty or return window, said as how long it lasts: checked as a figure
        out.append(f"unsupported usage duration: {m.group()!r} (no record says how long it lasts in use)")
        break
    return out


def _days(m: re.Match[str]) -> float:
    n = 1.0 if m.group(1).lower() in ("a", "an", "one") else float(m.group(1))
    return n * {"d": 1, "w": 7, "m": 30, "y": 365}[m.group(2)[0].lower()]


def _record_days(products: list[Product]) -> set[float]:
    out: set[float] = set()
    for p in products:
        a = p.attributes
        out |= {30.0 * a[k] for k in ("shelf_life_months", "warranty_months") if k in a}
        out |= {365.0 * a[k] / 12 for k in ("shelf_life_months", "warranty_months") if k in a and a[k] % 12 == 0}
        out |= {float(a["shelf_life_days"])} if "shelf_life_days" in a else set()
        out |= {float(p.after_sales.return_days)} if p.after_sales.returnable else set()
    return out


# ------------------------------------------------------------------ needs the catalogue tags
# A product suits a need ("for summer", "perfect for travel", "a great gift", "an office essential") only where its
# record's tags hold it: the recommendation's truth is read from the same tags. Needs the lexicon already reads as
# properties (skin types, "breathable") are left to it.
_LEXICON_SURFACES = frozenset(" ".join(_toks(x)) for rows in LEXICON.values() for surfaces, _, _ in rows
                              for x in surfaces)
_NEED_FORMS = {"organising": ("organizing", "organisation", "organization"), "gift": ("gifts", "gifting"),
               "commute": ("commuting", "commutes"), "travel": ("travelling", "traveling", "travels", "trips"),
               "snack": ("snacks", "snacking"), "party": ("parties",), "sport": ("sports",)}
_COMMA_AFTER = re.compile(r"\s{0,2},")
_THANKS = re.compile(r"(?i)\bthanks?\s{1,2}(?:you\s{1,2})?(?:so\s{1,2}much\s{1,2})?$")


@lru_cache(maxsize=256)
def _need_regex(tags: tuple[str, ...]) -> tuple[Prefiltered | None, dict[str, str]]:
    """The suitability pattern over `tags` and each surface form's tag."""
    forms: dict[str, str] = {}
    for t in tags:
        if " ".join(_toks(t)) in _LEXICON_SURFACES or not _toks(t):
            continue
        for f in (t, *_NEED_FORMS.get(t, ())):
            forms[" ".join(f.lower().split())] = t
    if not forms:
        return None, forms
    alt = "|".join(re.escape(f).replace("\\ ", " ").replace(" ", r"\s{1,2}")  # re.escape escapes spaces
                   for f in sorted(forms, key=lambda x: (-len(x), x)))
    gift = "gift" in tags
    rx = (rf"\b(?:for|suits?|suited\s{{1,2}}(?:to|for))\s{{1,2}}(?:(?:the|a|an|your|some|any|hot|cold|long|daily|"
          rf"everyday|busy)\s{{1,2}})?(?P<n1>{alt})\b"
          rf"|\b(?P<n2>{alt})\s{{1,2}}(?:pick|essential|must[\s-]have|favou?rite|go-to|staple|wear|outfit)s?\b")
    if gift:
        rx += (r"|\bmakes?\s{1,2}(?:a|an)\s{1,2}(?:[a-z]{1,12}\s{1,2})?(?P<g1>gift)\b"
               r"|\b(?:perfect|great|ideal|lovely|nice|thoughtful|good|wonderful|best|top)\s{1,2}(?P<g2>gift)s?\b"
               r"(?!\s{1,2}(?:with|when|if|on|over|for\s{1,2}(?:every|orders?|any|spending)))"
               r"|\bas\s{1,2}an?\s{1,2}(?:[a-z]{1,12}\s{1,2})?(?P<g3>gift)\b")
    return Prefiltered(re.compile(rx, re.IGNORECASE)), forms


_NEEDS_DEFAULT = _need_regex(NEED_TAGS)  # the generated catalogue's needs (and the prefilter tests' pattern)
_NEED_SET = frozenset(NEED_TAGS)


@lru_cache(maxsize=256)
def _needs_of(extra: frozenset[str]) -> tuple[Prefiltered | None, dict[str, str]]:
    """`_need_regex` over the catalogue's needs and `extra` (tags a hand-written catalogue adds), built once."""
    return _need_regex(tuple(sorted(_NEED_SET | extra)))


# a clause whose subject is one of the products named before it, by its place ("one for the kitchen", "the other
# one's for cosy nights", "the latter is for travel")
_DISTRIBUTIVE_HEAD = (r"(?i)[\s,;:—–-]{0,4}(?:and\s{1,2}|while\s{1,2}|whereas\s{1,2})?(?:(?:the\s{1,2})?"
                      r"(?P<w>other|first|second|former|latter)(?:\s{1,2}one)?|one|either)")
_DISTRIBUTIVE_RE = re.compile(_DISTRIBUTIVE_HEAD + r"(?:['’]s|\s{1,2}(?:is|'s|are|goes|works))?(?:\s{1,2}(?:more|"
                              r"mostly|great|best|perfect|ideal|good|made|meant|better))?\s{0,2}")


# ... and a clause opened by one ("one's for sensitive skin", "the latter is for travel")
_DISTRIBUTIVE_OPEN_RE = re.compile(_DISTRIBUTIVE_HEAD + r"(?:['’]s\b|\s{1,2}(?:is|are|goes|works|for|has|comes|"
                                   r"suits)\b)")


def _by_place(r: Any, world: Any, dm: re.Match[str], pos: int) -> list[Product]:
    """The products a distributive subject (`dm`: "one", "the other", "the first", "the latter") may be: of the links
    named before `pos`, the one its place names, else any of them.
    """
    prior = list(dict.fromkeys(lk for ms, _, lk in r.mentions if ms < pos and lk > 0))
    pick = {"first": 0, "former": 0, "second": 1, "latter": 1}.get((dm.group("w") or "").lower())
    chosen = [prior[pick]] if pick is not None and pick < len(prior) else prior
    return [world.by_link[lk] for lk in chosen if lk in world.by_link]


def _need_errors(r: Any, world: Any, sent: str, s: int, e: int,
                 needs: tuple[Prefiltered | None, dict[str, str]]) -> list[str]:
    """'for summer, try link 1', 'link 3 makes a great gift': a need claimed of a product its tags lack."""
    rx, forms = needs
    if rx is None:
        return []
    out: list[str] = []
    for m in rx.finditer(sent):
        said = next(g for g in m.groups() if g)
        need = "gift" if m.group("n1") is None and m.group("n2") is None else forms[" ".join(said.lower().split())]
        a, b = _clause(sent, m.start())
        if _HEDGE.search(sent[a:b]) or _THANKS.search(sent, max(0, m.start() - 24), m.start()):
            continue  # the viewer's need, a condition, a doubt; "thanks for reading"
        # a fronted "For summer, try link 1" (or a capital "For" starting a new statement) speaks of what follows it
        dm = _DISTRIBUTIVE_RE.fullmatch(sent, a, m.start())  # "one for the kitchen, ...": its subject, not fronted
        fronted = m.group("n1") is not None and dm is None and (sent[m.start()] == "F" or _COMMA_AFTER.match(sent,
                                                                                                          m.end()))
        if fronted:  # (the next statement, where this one ends at the phrase: "... in stock For snack, try link 1")
            k = r.sentences.index((s, e))
            end = r.sentences[k + 1][1] if not sent[m.end():].strip(" ,") and k + 1 < len(r.sentences) else e
            after = [link for ms, _, link in r.mentions if s + m.end() <= ms < end and link != 0]
            link = after[0] if after else r.subject_at(s + m.start(), (s, e))
        else:
            in_clause = [(ms, link) for ms, _, link in r.mentions if s + a <= ms < s + b and link != 0]
            before = [link for ms, link in in_clause if ms < s + m.start()]
            link = before[-1] if before else in_clause[0][1] if in_clause else r.subject_at(s + m.start(), (s, e))
        products = world.products(link)
        strict = link is not None and (link == -1 or len(products) == 1)
        if dm is not None and not in_clause:  # "one for the kitchen, the other for cosy nights"
            products = _by_place(r, world, dm, s + m.start()) or products
            strict = len(products) == 1
        held = {p.link: need in p.tags for p in products}
        if not held or (not strict and any(held.values())):
            continue
        if not fronted and _denied(sent[a:m.start()]):  # "link 2 isn't for summer"
            if strict and all(held.values()):
                out.append(f"false: link {products[0].link} is tagged for {need!r}")
            continue
        for lk, ok in held.items():
            if not ok:
                out.append(f"unsupported suitability: link {lk} for {need!r} is not among its tags")
                break
    return out
