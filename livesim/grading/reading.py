"""The reading of a host's reply (`read_reply`), the pipeline's second stage after the world is built.

`read_reply` normalises the reply (numbers in words become digits; viewer handles and looked-up ticket ids are
masked), splits it into sentences and clauses, reads a speech act per clause (`livesim.grading.acts`), binds every
number to an attribute (by unit and cue words) and to a subject (the nearest link or product mention in its clause,
else the request's only target) as a typed `Num`, and extracts the claims the keyword extractor names
(`livesim.grading.facts`). The returned `Reading` is what the later stages (`answers`, `accuracy`) read: its fields
and its query methods (the sentence or subject at a position, whether a position is asserted, the stock states and
sizes stated); no later stage calls back into this module's functions. Every regex is compiled at import with
bounded repeats only.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from livesim.grading.acts import _OFFER_BEFORE, ACTION_TOOLS, Act, speech_acts
from livesim.grading.cues import _AZ_RE, _FREE_SHIP_CUE, _NO_RE, _WORD_RE, _names_regex_in, _rx, _word_regex, trigrams
from livesim.grading.facts import extract_facts
from livesim.grading.facts.extract import _scan_numbers, stock_and_sizes, unit_after
from livesim.grading.facts.patterns import (
    _CUR_AFTER_RE,
    _CUR_BEFORE_RE,
    _FLIP,
    _LINK_CONT_RE,
    _LINK_RANGE_RE,
    _LINK_RE,
    _REFUSAL_RE,
    _UNIT_RE,
    STOCK_NEG_RE,
    _negated,
    link_range,
    replace_ignoring_case,
)
from livesim.grading.normalise import normalise_reply
from livesim.grading.property_lexicon import LEXICON
from livesim.grading.world import World
from livesim.world.catalog import Product

_MATERIALS = sorted({x for surfaces, canonical, _ in LEXICON["material"] for x in (canonical, *surfaces)},
                    key=len, reverse=True)
_MATERIAL_AFTER_RE = re.compile(r"(?i)\s{0,2}(?:[a-z]{1,12}\s{1,2}){0,2}?(?:"
                                + "|".join(re.escape(x) for x in _MATERIALS) + r")\b")
# a fill said as a share ("95% down", "90% goose down"): a composition, though "down" alone is no material word
_FILL_AFTER_RE = re.compile(r"(?i)\s{0,2}(?:(?:duck|goose|white|grey)\s{1,2})?(?:down|feathers?)\b")
_SPACED_DASH_RE = re.compile(r"\s{1,2}[-–—]\s{1,2}")
_RANGE_GAP_RE = re.compile(r"(?i)\s{0,2}(?:-|–|~|to|x|×|\*|by)\s{0,2}")
_SENT_RE = re.compile(r"[!?\n]+|\.(?![0-9])|…|[\U0001F300-\U0001FAFF\u2600-\u27BF]+")
_CLAUSE_RE = _rx(r"[,;:—–()]|\s-\s|\b(?:but|however|though|although|while|whereas|and\s+(?=link|the\s))\b|\band\s+(?"
                 r"=#)")
# a figure that is an amount taken off: "30 off", "80 yuan below list", "50 under the usual price", "40 lower"
_AFTER_DISCOUNT = _rx(r"\s{0,2}(?:off(?![\s-]{1,2}(?:stream|air|line|season)\b)|discount|cheaper|less|saving|lower|"
                      r"(?:below|under|beneath)\s{1,2}(?:the\s{1,2}|"
                      r"its\s"
                      r"{1,2})?(?:list|original|usual|normal|regular|retail|rrp|msrp|full|sticker|tag|marked))\b")
# a figure that counts the kinds of a product ("two colours", "4 sizes", "three flavours to pick from")
_AFTER_COUNT = _rx(r"\s{1,2}(?:different\s{1,2}|gorgeous\s{1,2}|lovely\s{1,2}|great\s{1,2})?(?P<n>colou?rs|sizes|"
                   r"flavou?rs|options|variants|versions|shades)\b")
_COUNT_DIM = {"colo": "colours", "size": "sizes", "flav": "options", "opti": "options", "vari": "options",
              "vers": "options", "shad": "colours"}
_AFTER_STOCK = _rx(r"\s{0,2}(?:[a-z]{1,12}\s{1,2}){0,4}?(?:left|remaining|in\s{1,2}stock|to\s{1,2}go|available)\b")
# ("2000 sold", "500+ bought"; not "79 but sold out": a price, and a stock state)
_AFTER_SOLD = _rx(r"\s{0,2}(?:(?!(?:but|and|so|yet|though|now|already|currently)\b)[a-z+]{1,12}\s{1,2}){0,2}?"
                  r"(?:sold(?![\s-]{1,2}out)|bought|purchased)\b|\+\s{0,2}sold")
_AFTER_SOCIAL = _rx(r"\s{0,2}(?:out\s{1,2}of\s{1,2}[0-9]{1,4}|(?:happy\s{1,2}|satisfied\s{1,2})?(?:customers|people|"
                    r"buyers|"
                    r"reviews|fans|users|viewers|shoppers|stars))\b")
# ("(it's 809 normally)", "269 (349 before)", "349 previously, now 269")
_LIST_AFTER = _rx(r"\s{0,2}(?:normally|usually|originally|regularly|previously|formerly|before\s{1,2}(?:the\s{1,2})?"
                  r"(?:live|sale|stream|discounts?|promo(?:tion)?|deal)|before(?=\s{0,2}(?:[).,;:!?—–]|$|and\b|but\b|"
                  r"now\b|so\b))|at\s{1,2}list|list|rrp|full\s{1,2}price|(?:at\s{1,2})?(?:the\s{1,2})?(?:regular|usual|"
                  r"original|normal)\s{1,2}price|off[\s-]stream|pre[\s-]?(?:sale|discount))\b")
# ("save another 20": a discount on top)
_BEFORE_DISCOUNT = _rx(r"(?:\b(?:save|saves|saving|savings|discount\s{1,2}of|knocks?|minus|takes|(?:down|reduced|cut|"
                       r"lowered|dropped|marked\s{1,2}down|slashed)\s{1,2}by)\s{0,2}(?:(?:another|an\s{1,2}extra|a\s{1,2}further|"
                       r"extra)\s{1,2})?(?:[¥$]|"
                       r"rmb\s?)?|-\s{0,1})$")
_NO_FEE_RE = _rx(r"\bno\s{1,2}(?:shipping\s{1,2}|delivery\s{1,2})?fee\b|\b(?:shipping|delivery)\s{1,2}fee\s{1,2}"
                 r"(?:is\s{1,2})?waived\b")
_BEFORE_UNDER = _rx(r"\b(?:under|below|less\s{1,2}than)\s{0,2}$")
# a bound said of what an order comes to, of a coupon or of shipping, not of an item's price ("orders under 99")
_ORDER_CUE_RE = _rx(r"\b(?:orders?|spend|cart|basket|total|subtotal|coupons?|codes?|vouchers?|minimum|threshold|"
                    r"shipping|delivery|postage|fees?|discount|off)\b")
_FREE_SHIPPING_WORDS = _rx(r"\b(?:shipping|delivery|postage)\b[^.!?]{0,40}\bfree\b|\bfree\b[^.!?]{0,40}\b(?:shipping|"
                           r"delivery|postage)\b")
_BEFORE_THRESHOLD = _rx(r"\b(?:over|above|orders?\s{1,2}(?:of|over|above|from)|spend(?:ing)?|"
                        r"min(?:imum)?(?:\s{1,2}spend)?|"
                        r"at\s{1,2}least|from|threshold(?:\s{1,2}(?:is|of))?|"
                        # what the order comes to ("when your order's 199 or more", "once your basket hits 199")
                        r"(?:order|cart|basket|total|subtotal|purchase|bill)(?:['’]s|\s{1,2}(?:is|totals?|comes\s{1,2}to|"
                        r"hits|reaches))(?:\s{1,2}(?:at\s{1,2}least|over|above))?|"
                        r"you\s{1,2}(?:hit|reach))\s{0,2}(?:[¥$]|rmb\s?)?$")
# "the 99 minimum", "a 149-yuan minimum spend": the threshold named after its figure
_AFTER_THRESHOLD = _rx(r"[ \t]{0,2}(?:-?\s{0,2}(?:yuan|rmb|元)\s{0,2})?[\s-]{0,2}(?:minimum|min[\s.]{1,2}(?:spend|"
                       r"order|purchase)|threshold)\b")
_ATTR_NOUN_BEFORE = _rx(r"\b(?:weight|weighs|battery|capacity|volume|warranty|shelf\s{1,2}life|dimensions?|power|"
                        r"charging|wattage)\s{0,2}(?:is|of|:)?\s{0,2}$")
# "down from 689", "a big drop from 689"
_FROM_LIST = r"(?:down|drop(?:ped)?|reduced|cut|slashed|marked\s{1,2}down|discounted)\s{1,2}from"
# "down to 259 from 379": the figure after "from" is the list price
_TO_FROM_LIST = (r"(?:down|reduced|cut|drop(?:ped)?|lowered|slashed|marked\s{1,2}down|discounted)\s{1,2}to\s{1,2}"
                 r"(?:[¥$]|rmb\s?)?[0-9][0-9.,]{0,8}(?:\s{0,2}(?:yuan|rmb|元))?\s{1,2}from")
# "it's already 79 from 129": the figure a price comes from
_TO_FIGURE_FROM = r"(?<![0-9])[0-9][0-9.,]{0,8}(?:\s{0,2}(?:yuan|rmb|元))?,?\s{1,2}(?:down\s{1,2})?from"
_LIST_NEAR = _rx(r"\b(?:" + _FROM_LIST + r"|" + _TO_FIGURE_FROM + r"|" + _TO_FROM_LIST + r"|was|were|originally|"
                 r"usually|normally|instead\s{1,2}of|regular(?:ly)?|"
                 r"list(?:\s{1,2}price)?(?:\s{1,2}(?:is|of|was))?|rrp|msrp|retail(?:\s{1,2}price)?|original\s{1,2}price(?:\s{1,2}"
                 r"(?:is|of))?)\s{0,2}(?:[¥$]|rm"
                 r"b\s?)?$")
_LIST_CUE = _rx(r"\b(?:was|were|originally|original|list|usually|normally|regular(?:ly)?|retail|rrp|"
                + _FROM_LIST + r"|instead\s{1,2}of|before\s{1,2}the)\b")
_FLASH_CUE = _rx(r"\bflash\b")
_COUPON_PRICE_CUE = _rx(r"\b(?:with|after|using|apply(?:ing)?)\s{1,2}(?:the\s{1,2}|a\s{1,2}|that\s{1,2})?(?:coupon|"
                        r"code|voucher|[a-z]{2,12}[0-9]{1,4}\b)")  # or the code itself: "with LIVE15 it's 279"
# the coupon the reply names, taken up by a pronoun ("LIVE10: 10 off over 199. Link 2 comes to 279 with it.")
_WITH_IT_RE = _rx(r"\b(?:with|after|using|applying)\s{1,2}(?:it|that|this\s{1,2}one)\b")
_BUNDLE_CUE = _rx(r"\bbundle|\bset\s{1,2}price\b")
_FEE_CUE = _rx(r"\b(?:shipping|delivery|postage|freight)(?:\s{1,2}(?:for|on|of|to)\s{1,2}(?:link\s{1,2}|#)?"
               r"[a-z0-9]{1,12}"
               r"(?:\s{1,2}[a-z]{1,12}){0,2}?)?(?:\s{1,2}(?:fee|cost|costs|charge|is|of))?\s{0,2}(?:is|"
               r"costs?|of|:)?\s{0,2}"
               r"(?:only\s{1,2}|just\s{1,2})?(?:[¥$]|rmb\s?)?$")
# (not a fee where the shipping noun opens a statement of its own, run on: "... 229 yuan shipping for link 2 is 10")
_AFTER_FEE = _rx(r"[ \t]{0,2}(?:for\s{1,2}|of\s{1,2})?(?:shipping|delivery|postage)\b(?!\s{1,2}(?:is\s{1,2})?free)"
                 r"(?!\s{1,2}(?:for|on|of|to)\s{1,2}(?:link\s{0,2}[0-9]{1,4}|#[0-9]{1,4}|it|this|them)\s{1,2}(?:is|costs?|are)\b)")
# (not "it's only 29", "for just 29": a price said low)
_BEFORE_STOCK = _rx(r"(?:(?<!\bis\s)(?<!\bit['’]s\s)(?<!\bthat['’]s\s)(?<!\bat\s)(?<!\bfor\s)(?<!\bare\s)(?<!\bnow\s)"
                    r"\b(?:only|just|exactly)"
                    r"|\b(?:still(?:\s{1,2}(?:have|got))?|we\s{1,2}(?:have|got)|there\s{1,2}(?:are|is)|"
                    r"stock(?:\s{1,2}(?:of|is))?|"
                    r"have|has))\s{0,2}$")
# "plenty of the standard lip tint, 459 to be exact": a count that makes a stock word exact
_EXACT_AFTER = _rx(r"\s{0,2}(?:to\s{1,2}be\s{1,2}(?:exact|precise)|exactly|in\s{1,2}total|all\s{1,2}told)\b")
_PLENTY_BEFORE = _rx(r"\b(?:plenty|lots|loads|tons|heaps|left|in[\s-]stock|available|stock|still\s{1,2}(?:there|have|"
                     r"got))\b")
# a count in brackets after a stock state ("white's still there (458)", "in stock (3)")
_STATE_PAREN_RE = _rx(r"\b(?:in[\s-]stock|available|still\s{1,2}(?:there|here|around)|left|remaining|restocked)"
                      r"\s{0,2}\(\s{0,2}$")
# "still got black, 41 of them": a count of what is held
_OF_THEM_RE = _rx(r"\s{1,2}of\s{1,2}(?:them|those|these)\b")
_HAVE_CUE = _rx(r"\b(?:got|have|has|left|in[\s-]stock|still|there['’]s|there\s{1,2}(?:are|is))\b")
# a part of a stock statement that says the same of another variant: "..., and so is standard", "M too"
_SO_IS_RE = _rx(r"^\W{0,3}(?:and\s{1,2}|but\s{1,2})?(?:so|as)\s{1,2}(?:is|are|does|do)\b|\b(?:too|as\s{1,2}well|also)"
                r"\W{0,3}$|^\W{0,3}(?:and\s{1,2})?(?:same|ditto)\s{1,2}(?:for|with|goes\s{1,2}for)\b")
_ONLY_BEFORE_RE = _rx(r"\b(?:only|just)\s{0,2}$")
# the same figure then and now ("was and still is 69", "it was 69 yuan and it still is"): the price, not a former one
_NOW_AFTER_RE = _rx(r"\b(?:now|today|tonight|currently|these\s{1,2}days|right\s{1,2}now)\b")
_STILL_IS_BEFORE = _rx(r"\b(?:was|were|has\s{1,2}been|have\s{1,2}been)\s{0,2},?\s{1,2}and\s{1,2}(?:(?:it|they|that)"
                       r"\s{1,2})?(?:(?:still|now|today)\s{1,2})?(?:is|are|remains?|stays?)\s{1,2}(?:(?:at|only|just)"
                       r"\s{1,2})?(?:[¥$]|rmb\s?)?$")
_STILL_IS_AFTER = _rx(r"[ \t]{0,2}(?:,\s{0,2})?(?:(?:and|but)\s{1,2})?(?:(?:it|that|they)(?:['’]s|\s{1,2}(?:is|are))?"
                      r"\s{1,2})?still(?:\s{1,2}(?:is|are))?\b(?!\s{1,2}(?:in\s{1,2}stock|available|there|here|left|on\s{1,2}"
                      r"sale|around)\b)")
# a count come down to ("matcha is down to 1", "we're down to the last 3"): stock, not a price cut (a figure with its
# currency, or said of the price, is one: "down to 59 yuan", "the price is down to 59")
_DOWN_TO_RE = _rx(r"\bdown\s{1,2}to\s{1,2}(?:(?:the|our|its|my|just|only)\s{1,2}){0,2}(?P<last>(?:last|final)"
                  r"\s{1,2})?$")
_DOWN_HEAD_RE = _rx(r"(?:\s{1,2}(?:is|are|has|have|['’]s|['’]re|['’]ve)\b)?(?:\s{1,2}(?:now|already|just|gone|got|come|"
                    r"been)\b){0,2}\s{0,2}$")
_DOWN_HOLDER_RE = _rx(r"\b(?:we|stocks?|inventory|supply|supplies|quantities|units|pieces)$")
_PRICE_WORD_RE = _rx(r"\b(?:prices?|costs?|deal|offer|discount)\b")


def _names_code(text: str, world: World) -> bool:
    """Does the reply name a running coupon by its code?"""
    return any(_word_regex(c.code).search(text) for c in world.room.active_coupons())


def _list_cued(before: str) -> bool:
    """Does a list cue lead to the figure after `before`, not one the present has taken over from ("was 399 yuan and is
    now 359", "was 399, today 359")?
    """
    cues = list(_LIST_CUE.finditer(before))
    return bool(cues) and _NOW_AFTER_RE.search(before, cues[-1].end()) is None


def _same_now(text: str, before: str, end: int) -> bool:
    """Is the figure ending at `end` said to be the price then and now ("was and still is 69", "was 69 and still
    is")?
    """
    return _STILL_IS_BEFORE.search(before) is not None or _STILL_IS_AFTER.match(text, end) is not None


def _count_down_to(text: str, lo: int, s: int, world: World) -> bool:
    """Is the figure at `s` a count the stock has come down to: after "down to the last", or "down to" said of what
    is held ("we're", "stock") or of a variant ("matcha is down to 1", "M is down to 2"), in the clause from `lo`?
    """
    m = _DOWN_TO_RE.search(text, lo, s)
    if m is None:
        return False
    if m["last"]:
        return True
    head = text[lo:m.start()]
    head = head[:_DOWN_HEAD_RE.search(head).start()].lower().rstrip()  # type: ignore[union-attr]
    if not head or _PRICE_WORD_RE.search(head):
        return False
    if _DOWN_HOLDER_RE.search(head) or re.search(r"(?<![A-Za-z])" + _SZ + r"$", text[lo:lo + len(head)]):
        return True
    return any(head.endswith(v) and (len(head) == len(v) or not head[-len(v) - 1].isalnum())
               for v in world.variant_names())
_PRICE_BEFORE = _rx(r"(?:\b(?:is|are|at|for|costs?|just|only|now|price[sd]?(?:\s{1,2}is)?|going\s{1,2}for|"
                    r"goes\s{1,2}for|comes\s{1,2}to)|[:=])\s{0,2}$")
_ALL_SUBJ = _rx(r"\b(?:every|all)\s{1,2}(?:the\s{1,2})?(?:links?|items?|products?|things?)\b|\beverything\b")
_QWORD_RE = _rx(r"^\s{0,3}(?:how|what|what['’]s|where|which|when|why|can\s{1,2}i|do\s{1,2}you|does|is\s{1,2}(?:it|"
                r"there|link|#)|are\s{1,2}there)\b")
_YES_RE = _rx(r"^\s{0,3}(?:yes|yep|yeah|yup|sure|of\s{1,2}course|absolutely|definitely|still\s{1,2}there|"
              r"we\s{1,2}(?:have|got)\s{1,2}it)\b"
              # the question's verb said back as the answer ("We do!", "It does.", "You sure can!")
              r"|^\s{0,3}(?:we|it|you|they)\s{1,2}(?:sure\s{1,2}|certainly\s{1,2}|definitely\s{1,2})?(?:do|does|can|will)"
              r"(?=\s{0,2}(?:[!.,;:]|$))")
_STOCK_EXTRA_RE = _rx(r"(?P<sold_out>\b(?:all\s{1,2})?gone\b|\bnone\s{1,2}left\b)|"
                      r"(?P<in_stock>\bstill\s{1,2}there\b|\bwe\s{1,2}(?:have|got)\s{1,2}it\b"
                      r"|\bstill\s{1,2}(?:got|have)\b|\ba\s{1,2}few\s{1,2}left\b|\bgot\s{1,2}(?:a\s{1,2}few|some|ple"
                      r"nty)\b"
                      r"|\bstill\s{1,2}available\b)")
_ALNUM_RE = re.compile(r"[A-Za-z0-9]")
# a state not yet reached ("nearly gone", "almost all gone"): low stock, not sold out
_NOT_YET_RE = re.compile(r"(?i)\b(?:almost|nearly|about\s{1,2}to\s{1,2}be|close\s{1,2}to(?:\s{1,2}being)?|not\s{1,2}"
                         r"quite|practically|virtually)\s{1,2}(?:all\s{1,2})?$")


def _extra_states(sent: str) -> list[str]:
    """The stock states `_STOCK_EXTRA_RE` reads in `sent`, each flipped where negated ("not gone", "far from gone");
    "nearly gone" states none.
    """
    out: list[str] = []
    for m in _STOCK_EXTRA_RE.finditer(sent):
        st = m.lastgroup or ""
        if st == "sold_out" and _NOT_YET_RE.search(sent, max(0, m.start() - 30), m.start()):
            continue
        if _negated(sent, m.start(), width=24, neg=STOCK_NEG_RE):
            st = _FLIP[st]
        out.append(st)
    return out


_SIZE_WORDS = {"extra small": "XS", "extra-small": "XS", "small": "S", "medium": "M", "large": "L", "extra large": "XL",
               "extra-large": "XL"}
_SIZE_WORD_RE = _rx(r"\b(?:a|an|go|take|get|size|be|is|the|in|wear|pick|try|say|recommend|suggest|choose|order|grab|"
                    r"with|for|want|need)\s{1,2}(?P<w>extra[\s-]small|"
                    r"extra[\s-]large|small|medium|large)\b")
_SIZE_BARE_RE = re.compile(r"(?<![A-Za-z0-9/])(?P<w>XXS|XXL|XXXL|XS|XL|S|M|L)(?![A-Za-z0-9/])(?=\s{0,2}(?:[!.,:]|$|"
                           r"is\s|should|will|fits|would|for\s{1,2}(?:you|u|him|her|sure|[0-9]{2,3}\s?(?:cm|kg))\b|"
                           r"on\s{1,2}(?:link|#)|definitely|"
                           r"all\s{1,2}the\s{1,2}way|then\b))")
_SIZE_LEAD_RE = re.compile(r"(?i)^\W{0,3}(?P<w>extra[\s-]small|extra[\s-]large|small|medium|large)\s{1,2}(?=for\s{1,"
                           r"2}(?:you|u)|"
                           r"would|should|fits|is\s{1,2}(?:best|right|your|her|his|their|the\s{1,2}one|perfect|ideal|the\s{1,2}"
                           r"(?:best|safest|right)|a\s{1,2}(?:good|safe|great)\s{1,2}(?:fit|bet|choice))|for\s{1,2}(?:her|him|"
                           r"them)\b|on\s{1,2}(?:link|#)|for\s{1,2}sure|definitely|"
                           r"all\s{1,2}the\s{1,2}way)")
_FUNCTION_WORDS = frozenset(
    "is are am was were be it its it's you your you're we we're our i i'm i'd i'll me my the a an this that these "
    "those to of in on for with at from by will would and but so there here has have do does let's yes no".split())
# The words of the answer kinds themselves (a reply made only of these, with no sentence around them, is a
# keyword salad: it names what an answer would be about without answering).
_GENERIC_WORDS = frozenset(
    "price prices link links order orders cart tap click checkout check out buy button place coupon coupons code codes "
    "voucher discount off deal deals size sizes shipping delivery courier region fee free fast returns return refund "
    "exchange days policy stock sold available colour colours color colors material materials care ingredients "
    "battery warranty recommend best product products gift need today shop stream pinned can't cannot not allowed "
    "unable decline sorry apologise apologize escalate quality better vs difference cheap cheaper".split())
_ASCII_DIGIT_RE = re.compile(r"[0-9]")


# ------------------------------------------------------------------------------------------- the reading
@dataclass
class Num:
    value: float
    start: int
    end: int
    unit: str | None
    attr: str | None  # None: not bound to any attribute
    subject: int | None  # a link, -1 for "every link", None when unknown
    sentence: int
    asserted: bool  # not negated, not in a question


_SZ_WORD = r"(?:XXXL|XXL|XXS|XS|XL|S|M|L)"
_SIZE_LIST_RE = re.compile(r"(?<![A-Za-z])" + _SZ_WORD + r"(?:\s{0,2},\s{0,2}" + _SZ_WORD + r")*\s{0,2}(?:,\s{0,2})?"
                           r"(?:and|or|&|,)\s{1,2}" + _SZ_WORD + r"(?![A-Za-z])")
_SIZE_RANGE_RE = re.compile(r"(?i)(?<![a-z])" + _SZ_WORD + r"\s{0,2}(?:to|-|–|through|thru|up\s{1,2}to)\s{0,2}"
                            + _SZ_WORD + r"(?![a-z])")
_LIST_GLUE = frozenset(("and", "or", "&"))  # ("olive too" says a state again: a clause of its own)


def _only_names(part: str, names: set[str]) -> bool:
    """Is a clause nothing but variant names and the words that join a list ("M, L and XL")?"""
    low = part.lower()
    for n in sorted(names, key=len, reverse=True):
        low = _word_regex(n).sub(" ", low)
    return all(w in _LIST_GLUE for w in re.findall(r"[a-z0-9&]+", low))


@dataclass
class Reading:
    """A reply as the later stages read it: the normalised text, its statements and clause cuts, subject mentions,
    numbers as typed claims, refusal scopes, questions and echoes per statement, the speech acts, the extracted claims;
    and the queries the answer and accuracy stages ask of it.
    """

    text: str
    sentences: list[tuple[int, int]]
    clause_cuts: list[int]
    mentions: list[tuple[int, int, int]]  # start, end, link
    nums: list[Num]
    refusal_spans: list[tuple[int, int]]
    question: list[bool]  # per sentence
    salad: bool
    facts: Any
    echo: list[bool]
    subject_default: int | None
    errors: list[str] = field(default_factory=list)
    noise: int = 0
    _sent_facts: dict[int, tuple[tuple[str, ...], tuple[str, ...]]] = field(default_factory=dict)
    _stock: list[tuple[str, int | None]] | None = None
    # (state, link, the variant's words): stock states of named variants
    other_variants: list[tuple[str, int | None, tuple[str, ...]]] = field(default_factory=list)
    # the indices of `other_variants` whose sizes were listed ("in S, M, L and XL"), not given as a range ("S to XL")
    size_lists: set[int] = field(default_factory=set)
    acts: tuple[Act, ...] = ()  # one speech act per clause (`livesim.grading.acts`)
    # a burst's viewer addressed by name ("Brad, within 48 hours"): what follows is about the link
    # that viewer asked about, until another product is named
    addressed: list[tuple[int, int, str]] = field(default_factory=list)  # (position, link, the name said)
    # where any viewer of the request is addressed by first name: a name there, not a word of the sentence
    vocatives: list[tuple[int, int]] = field(default_factory=list)
    # per statement that names no product: the one product of the request (or named in the reply) that sells the
    # variants it names ("... size M on link 3. There are 243 sea salt ones" of a burst that asks of link 6's)
    owners: dict[int, int] = field(default_factory=dict)

    def verified(self, done: frozenset[str]) -> list[tuple[int, int]]:
        """Spans of the action reports that a successful tool call (`done`: their keys) did."""
        return [(a.start, a.end) for a in self.acts if a.kind == "action" and ACTION_TOOLS.get(a.detail) in done]

    def offered(self, pos: int) -> bool:
        """Is the word at `pos` inside a clause that offers ("I can escalate this if you need") rather than states?"""
        for a in self.acts:
            if a.start <= pos < a.end:
                return a.kind == "question" or _OFFER_BEFORE.search(self.text[a.start:a.end]) is not None
        return False

    def sentence_facts(self, i: int) -> tuple[tuple[str, ...], tuple[str, ...]]:
        """(stock claims, sizes) of sentence i as `extract_facts` reads them (computed once; the grader reads no
        other field of a sentence, so the other extractors are not run).
        """
        if i not in self._sent_facts:
            s, e = self.sentences[i]
            self._sent_facts[i] = stock_and_sizes(self.text[s:e])
        return self._sent_facts[i]

    def sentence_at(self, pos: int) -> int:
        """The index of the statement holding `pos` (the last one past the end)."""
        for i, (s, e) in enumerate(self.sentences):
            if s <= pos <= e:
                return i
        return len(self.sentences) - 1

    def cue_start(self, pos: int, lo: int) -> int:
        """Where the words that say what a figure at `pos` (in the clause starting at `lo`) measures begin: its
        statement's start, or its clause's where a conjunction joins that clause and it names its own product before
        the figure ("... when it arrives, it is 129 yuan and link 1's shelf life is 270 days").
        """
        si = self.sentence_at(pos)
        start = self.sentences[si][0] if si < len(self.sentences) else lo
        if lo > start and _CONJ_CLAUSE_RE.match(self.text, lo) and any(lo <= ms < pos for ms, _, _ in self.mentions):
            return lo
        return start

    def subject_at(self, pos: int, sentence: tuple[int, int]) -> int | None:
        """The link a statement at `pos` speaks of: the nearest mention in `sentence`, else the last one before `pos`,
        else the request's only target (-1: every link; None: unknown).
        """
        near = [(abs(pos - ms), link) for ms, _, link in self.mentions if sentence[0] <= ms <= sentence[1]]
        if near:
            return min(near)[1]
        if self.owners and (owner := self.owners.get(self.sentence_at(sentence[0]))) is not None:
            return owner
        # a viewer addressed at the statement's head ("... 15 days. Lacey: 128GB is available") or at its end ("...
        # black XL is in stock, Bill!") is its subject
        upto = max([pos, *(a for a, _, name in self.addressed if sentence[0] <= a <= sentence[1]
                           and (_VOCATIVE_HEAD_RE.fullmatch(self.text, sentence[0], a)
                                or _VOCATIVE_TAIL_BEFORE.search(self.text, sentence[0], a) is not None
                                and _VOCATIVE_TAIL_RE.fullmatch(self.text, a + len(name) + (self.text[a] == "@"),
                                                                sentence[1]) is not None))])
        return _last_before(self.mentions, self.addressed, pos, upto, self.subject_default)

    def in_refusal(self, pos: int) -> bool:
        """Is `pos` in the scope of a refusal ("can't / unable / sorry, but" to the end of its clause)?"""
        return any(s <= pos < e for s, e in self.refusal_spans)

    def asserted_at(self, pos: int) -> bool:
        """Is what stands at `pos` asserted (not in a question, a refusal's scope or the viewer's words echoed)?"""
        si = self.sentence_at(pos)
        return not (si < len(self.question) and self.question[si]) and not self.in_refusal(pos) and not self.echo[si]

    def of_another(self, pos: int, subj: int | None) -> bool:
        """Is the statement at `pos` about a product other than `subj` ("link 3 is returnable" of a link 4 question)?"""
        if subj is None:
            return False
        si = self.sentence_at(pos)
        who = self.subject_at(pos, self.sentences[si]) if si < len(self.sentences) else None
        return who is not None and who > 0 and who != subj

    def yes_of(self, subj: int | None) -> bool:
        """A bare yes, not in a statement about another product ("yes, link 3 is" answers nothing of link 4)."""
        return any(not self.of_another(m.start(), subj) for m in _YES_RE.finditer(self.text))

    def sizes_to_viewers(self) -> list[tuple[str, int, str]]:
        """(name, link, size) for each viewer of a burst addressed by name whose stretch of the reply (to the next
        name addressed) names one size and does not negate it ("Beth, M; Danielle, L.").
        """
        marks = sorted(self.addressed)
        out = []
        for k, (pos, link, name) in enumerate(marks):
            seg = self.text[pos:marks[k + 1][0] if k + 1 < len(marks) else len(self.text)]
            said = {(m.group(1) or m.group(2)).upper(): m.start() for m in _SIZE_TOKEN_RE.finditer(seg)}
            for m in _SIZE_NAME_RE.finditer(seg):
                said.setdefault(_SIZE_WORDS[re.sub(r"[\s-]+", " ", m.group(1).lower())], m.start())
            if len(said) == 1 and not _SIZE_NEG_RE.search(seg, 0, next(iter(said.values()))):
                out.append((name, link, next(iter(said))))
        return out

    def polar_stock(self, request_text: str, subject: int | None = None, at_start: bool = True) -> str | None:
        """The stock state a bare yes / no states, read against the question's polarity: at the reply's start (unless
        not `at_start`), or after the name of the viewer who asked about `subject` ("Stephanie, yes! Jodi, ...").
        """
        neg_q = bool(re.search(r"(?i)sold\s{0,2}out|\bgone\b|out\s{1,2}of\s{1,2}stock", request_text))
        # (what is said to that viewer first: in a burst the reply's first word may answer another comment)
        for said in [*(self.text[a + len(name) + (self.text[a] == "@"):].lstrip(" ,:;—–-")
                       for a, link, name in self.addressed if link == subject), *([self.text] if at_start else [])]:
            if _YES_RE.search(said):
                return "sold_out" if neg_q else "in_stock"
            if _NO_RE.search(said):
                return "in_stock" if neg_q else "sold_out"
        return None

    def stock_states(self, world: World) -> list[tuple[str, int | None]]:
        """(state, subject) for every stock statement: words ("sold out", "still there") and counts (> 0: in stock).
        A statement naming several variants of its product in clauses of their own ("the family pack is in stock,
        but the classic is sold out") is read clause by clause: each state is of the variants its clause names.
        """
        if self._stock is not None:
            return self._stock
        out: list[tuple[str, int | None]] = []
        for i, (s, e) in enumerate(self.sentences):
            if self.question[i] or self.echo[i]:
                continue
            subj = self.subject_at(s, (s, e))
            p = world.by_link.get(subj if subj is not None else self.subject_default or -1)
            stated = any(x in ("in_stock", "sold_out") for x in self.sentence_facts(i)[0]) \
                or _STOCK_EXTRA_RE.search(self.text, s, e) is not None
            parts = self._variant_parts(s, e, p) if p is not None and stated else [(s, e)]
            carried: list[str] = []
            for a, b in parts:
                carried = self._stock_of(world, i, a, b, subj, out, whole=len(parts) == 1, carried=carried)
        self._stock = out
        return out

    def _named_state(self, st: str, link: int, named: set[str], sent: str) -> None:
        """Record a stock state said of named variants (`other_variants`), and whether its sizes were a list."""
        if _SIZE_LIST_RE.search(sent) and not _SIZE_RANGE_RE.search(sent):
            self.size_lists.add(len(self.other_variants))
        self.other_variants.append((st, link, tuple(sorted(named))))

    def _last_named(self, lo: int, hi: int, p: Product, sizes: set[str]) -> str | None:
        """The variant of `p` other than a size named last in `text[lo:hi]` (None: none)."""
        names = self.named_variants(self.text[lo:hi], p) - sizes - {x.size.lower() for x in p.skus if x.size}
        low = self.text[lo:hi].lower()
        at = {n: max((m.start() for m in _word_regex(n).finditer(low)), default=-1) for n in names}
        best = max(at, key=lambda n: (at[n], n), default=None)
        return best if best is not None and at[best] >= 0 else None

    def _variant_parts(self, s: int, e: int, p: Product) -> list[tuple[int, int]]:
        """The statement cut before each clause that names a variant of `p` when one before it names another."""
        sent = self.text[s:e]
        # (with the colours its record lists but has no SKU of: "sky blue is sold out, but grey is in stock")
        listed = [c for c in World.listed_colours(p) if c in sent.lower()]

        def names(part: str) -> set[str]:
            low = part.lower()
            return self.named_variants(part, p) | {c for c in listed if c in low and _word_regex(c).search(low)}

        if len(names(sent)) < 2 or _ALL_VARIANTS_RE.search(sent):
            return [(s, e)]
        cuts = [c for c in self.clause_cuts if s < c < e]
        parts: list[tuple[int, int]] = []
        lo, named = s, False
        for a, b in zip([s, *cuts], [*cuts, e], strict=True):
            found = names(self.text[a:b])
            # an item of a list ("in S, M, L and XL"): names and nothing else, no clause of its own
            here = bool(found) and not _only_names(self.text[a:b], found)
            if here and named:
                parts.append((lo, a))
                lo = a
            named = named or here
        return [*parts, (lo, e)]

    def _stock_of(self, world: World, i: int, s: int, e: int, subj: int | None, out: list[tuple[str, int | None]],
                  whole: bool, carried: Sequence[str] = ()) -> list[str]:
        """Read the stock states of the statement's part [s, e) into `out` (and `other_variants`); returns them. A
        part with none that says the same of another variant ("white's in stock, and so is standard") takes
        `carried`, the states of the part before it.
        """
        sent = self.text[s:e]
        fx = list(self.sentence_facts(i)[0] if whole else stock_and_sizes(sent)[0])
        fx += [st for st in _extra_states(sent) if st not in fx]
        if carried and not any(st in ("in_stock", "sold_out") for st in fx) and _SO_IS_RE.search(sent):
            fx += list(carried)
        found = [(st, subj) for st in fx if st in ("in_stock", "sold_out")]
        found += [("in_stock" if n.value > 0 else "sold_out", subj if fx else n.subject)
                  for n in self.nums if n.sentence == i and s <= n.start < e and n.attr == "stock" and n.asserted]
        for st, sj in found:
            p = world.by_link.get(sj if sj is not None else self.subject_default or -1)
            asked = world.asked_variants.get(p.link) if p is not None else None
            if p is None:
                out.append((st, sj))
                continue
            if unsold := _listed_unsold(sent, p):
                # a colour the record lists but has no SKU of cannot be bought: "it's in stock in sky blue" is false,
                # "sky blue is sold out" true
                if st == "in_stock":
                    self.other_variants.append((st, p.link, (unsold,)))
                continue
            named = self.named_variants(sent, p)
            if named and (ex := _EXCEPT_RE.search(sent)) is not None and _ALL_VARIANTS_RE.search(sent, 0, ex.start()):
                # "every size is in stock except M in white": what follows the exception is not what is said
                named = self.named_variants(sent[:ex.start()], p)
            sizes_only = bool(named) and not named - {x.size.lower() for x in p.skus if x.size}
            if sizes_only and (before := self._last_named(self.sentences[i][0], s, p, named)):
                # "navy is in stock in S and M, but L is sold out": sizes alone after another variant was named
                # in the statement are sizes of that one
                named = named | {before}
            elif sizes_only and asked is not None and asked.lower() not in named \
                    and asked.lower() in self.named_variants(self.text[:e], p):
                # "black is in stock in S and XL; M and L are sold out": sizes alone, after the asked colour was
                # named, are sizes of that colour
                named = named | {asked.lower()}
            if named and asked is None and not named & {x.size.lower() for x in p.skus if x.size} \
                    and any(x.size for x in p.skus) and not _ALL_VARIANTS_RE.search(sent) \
                    and len(adv := set(self.sizes(subject=p.link, world=world, advice_only=True))) == 1:
                # "M, and it's in stock in navy": a colour's stock after the one size advised is of that size
                named = named | {adv.pop().lower()}
            if named:
                if asked is None or asked.lower() not in named:
                    # a state of a named variant (asked or not): true of that variant, not of the product as a whole
                    # (a quantifier ranges over the variants named: "L is sold out in both grey and pink" is of L in
                    # those colours; each one is checked by the quantifier's own check)
                    self._named_state(st, p.link, named, sent)
                elif st == "sold_out" and len(named) > 1 and not _ALL_VARIANTS_RE.search(sent) \
                        and asked is not None and world.narrower(p, named, asked):
                    # "size S in black is sold out", black asked: one SKU of the asked variant is gone, not
                    # all of it (while "size M in black is in stock" does say black is not gone)
                    self._named_state(st, p.link, named, sent)
                else:
                    out.append((st, sj))
                    if len(named) > 1 and not _ALL_VARIANTS_RE.search(sent):  # "XL in white": that SKU, too
                        self._named_state(st, p.link, named, sent)
            elif foreign := self.foreign_variants(sent, p, world):
                self.other_variants.append((st, p.link, (foreign,)))
            else:
                out.append((st, sj))
        return [st for st in fx if st in ("in_stock", "sold_out")]

    def sizes(self, skip_echo: bool = False, subject: int | None = None, world: World | None = None,
               advice_only: bool = False) -> list[str]:
        """Sizes the reply names per asserted sentence; with `advice_only`, only sizes advised (no negation, no stock
        statement in the sentence) about `subject` (a sentence about another link does not count).
        """
        if advice_only and _EXPLAINS_SOME_RE.search(self.text):
            # a clause that explains the chart ("your height is at the bottom of XS", "XS only goes up to 47 kg")
            # advises nothing where another clause advises a size; where none does, it is the advice
            told = self._sizes(skip_echo, subject, world, True, explained=True)
            if told:
                return told
        return self._sizes(skip_echo, subject, world, advice_only)

    def _sizes(self, skip_echo: bool, subject: int | None, world: World | None, advice_only: bool,
               explained: bool = False) -> list[str]:
        out: list[str] = []
        for i, (s, e) in enumerate(self.sentences):
            raw = self.text[s:e]
            if self.question[i] or (skip_echo and self.echo[i]):
                continue
            if explained:
                raw = _blank_explained(raw)
            if advice_only and self.sentence_facts(i)[0]:
                # a size in a clause that states stock is not advice ("M fits, and we have lots of M in grey": the
                # first clause advises M, the second states stock)
                cuts = [s, *(c for c in self.clause_cuts if s < c < e), e]
                raw = "".join(_ALNUM_RE.sub(" ", raw[a - s:b - s]) if stock_and_sizes(raw[a - s:b - s])[0]
                              else raw[a - s:b - s] for a, b in zip(cuts, cuts[1:], strict=False))
            # "M rather than L", "not XXL", "L would be too big": not advice (each form names a size token)
            sent = _REJECTED_SIZE_RE.sub(" ", raw) if _SIZE_ANY_RE.search(raw) is not None else raw
            if advice_only:
                first = _SIZE_TOKEN_RE.search(sent) or _SIZE_NAME_RE.search(sent)
                if _SIZE_NEG_RE.search(sent, 0, first.start() if first else len(sent)):
                    continue  # a size negated before it is named ("I wouldn't go with M")
                who = self.subject_at(s, (s, e))
                if world is not None and who is not None and who > 0 and who != subject and (
                        subject is not None or who not in world.targets):
                    continue
            found = list(self.sentence_facts(i)[1] if sent == self.text[s:e] else stock_and_sizes(sent)[1])
            if re.search(r"(?<![A-Za-z])(?:XXS|XS|S|M|L|XL|XXL)\s?/\s?(?:XS|S|M|L|XL|XXL)\s?/", sent):
                continue  # a list of every size is not advice
            for m in _SIZE_WORD_RE.finditer(sent):
                found.append(_SIZE_WORDS[re.sub(r"\s+", " ", m["w"].lower())])
            for m in _SIZE_BARE_RE.finditer(sent):
                found.append(m["w"])
            lead = _SIZE_LEAD_RE.match(sent)
            if lead:
                found.append(_SIZE_WORDS[re.sub(r"[\s-]+", " ", lead["w"].lower()).replace("extra ", "extra ")])
            out += [x for x in found if x not in out]
        return out

    @staticmethod
    def sizes_named(sent: str) -> set[str]:
        """Every size a sentence names as a token ("XS", "size m") or a word ("extra small"), upper case."""
        out = {(m.group(1) or m.group(2) or "").upper() for m in _SIZE_TOKEN_RE.finditer(sent)}
        out |= {v for m in _SIZE_NAME_RE.finditer(sent) if (v := _SIZE_WORDS.get(re.sub(r"[\s-]+", " ",
                                                                                        m.group(1).lower())))}
        return out - {""}

    @staticmethod
    def named_variants(sent: str, p: Product) -> set[str]:
        """The variants of `p` a sentence names (sizes as tokens, 'size s' or words; colours and options as words)."""
        sizes = {x.size for x in p.skus if x.size}
        out = {v.lower() for v in Reading.sizes_named(sent) if v in sizes} if sizes else set()
        low = sent.lower()
        for x in p.skus:
            for w in (x.colour, x.option):
                if w and _word_regex(w).search(low):
                    out.add(w.lower())
        return out

    @staticmethod
    def foreign_variants(sent: str, p: Product, world: World) -> str | None:
        """A variant of another product in the catalogue named in a stock statement about `p`, which lacks it."""
        own = {w.lower() for w in world.variant_words(p)} | set(_AZ_RE.findall(p.name.lower()))
        own |= {t for w in own for t in w.split()}
        low = sent.lower()
        vocab = world.variant_vocab()
        for w in vocab:
            if w not in own and w in low and _word_regex(w).search(low):
                return w
        return None


def _listed_unsold(sent: str, p: Product) -> str | None:
    """A colour `p`'s attributes list that none of its SKUs comes in, named in `sent` where it names no colour of a
    SKU (a statement of several colours is read by the colours its SKUs come in).
    """
    held = {str(x.colour).lower() for x in p.skus if x.colour}
    low = sent.lower()
    if any(_word_regex(c).search(low) for c in held):
        return None
    return next((c for c in World.listed_colours(p) if c not in held and c in low and _word_regex(c).search(low)),
                None)


def _mask(text: str, world: World) -> str:
    for name in world.viewer_names:
        if any(ch.isdigit() or ch == "_" for ch in name):  # not numbers, codes or tool names
            text = replace_ignoring_case(text, name, "viewer")
    for s in world.lookup_strs:  # ticket ids and the like that a tool looked up (not coupon codes)
        if s.upper() not in world.coupon_codes and any(ch.isdigit() for ch in s) and s in text:
            text = text.replace(s, "the ticket")
    return text


def _is_echo(sentence: str, request_grams: set[tuple[str, ...]]) -> bool:
    """Is the sentence the viewer's own words repeated (most of its word trigrams are in the request)?"""
    grams = trigrams(sentence)
    return bool(grams) and sum(g in request_grams for g in grams) >= 0.6 * len(grams)


def _spans(text: str, rx: re.Pattern[str]) -> list[tuple[int, int]]:
    out, last = [], 0
    for m in rx.finditer(text):
        if m.start() > last:
            out.append((last, m.start()))
        last = m.end()
    if last < len(text):
        out.append((last, len(text)))
    return out or [(0, len(text))]


# statements a reply strings together without a full stop: "A; B", "A - B", "A / B", and ", and link 4 ..." (a
# comma clause that names its own subject). Each is read as a sentence of its own, so that a decline, a negation,
# a subject or a stock word in one never reaches into the next.
_FRONTED_RE = re.compile(r"(?i)\s{0,3}(?:within|for|in|at|on|by|after|before|from|to|with|without|under|over|about|"
                         r"around|at\s{1,2}just|for\s{1,2}only|only|just|starting|from\s{1,2}today|today|tonight|"
                         r"right\s{1,2}now|if|when|once|as\s{1,2}for|compared\s{1,2}to)\b")
_FRONTED_COND_RE = re.compile(r"(?i)\s{0,3}(?:if|when|once)\b")
_LIST_HEAD_RE = re.compile(r"(?i)(?:links|items|products)\b|#")
_HARD_SEP_RE = re.compile(r";|\s[-–—/|]\s|\s?[–—]\s?")
_AND_LEAD_RE = re.compile(r"(?i)\s{0,2}(?:(?:and|but|plus|also|then)\s{1,2})?(?:probably|maybe|perhaps|personally|"
                          r"honestly|i(?:\s{1,2}(?:think|believe|guess|reckon|would\s{1,2}say)|['’]d\s{1,2}say))?\b")
_SOFT_SEP_RE = re.compile(r",\s{0,2}(?:(?:and|but|while|plus|also|then)\s{1,2})?")
_NEXT_CUT_RE = re.compile(r"[,;:]|\s[-–—/|]\s")
# (a need, not a person or a time: "I've reserved one for you, tap link 3" runs nothing on)
_TRAILING_NEED_RE = re.compile(r"(?i)\s(for\s{1,2}(?!(?:you|u|ya|yourself|yourselves|them|her|him|me|us|everyone|"
                               r"all|now|today|tonight|sure|real|free|ages|a\s{1,2}(?:bit|while|moment|sec|second|minute)|(?:our|the|my|your)\s{1,2}"
                               r"(?:team|staff|colleagues?|support|after[\s-]?sales|manager|supervisor))\b)"
                               r"(?:[\w'’-]{1,15}\s{1,2}){0,2}[\w'’-]{1,15})\s{0,2}$")
_TRY_LINK_RE = re.compile(r"(?i)\s{0,3}(?:try|check\s{1,2}out|go\s{1,2}(?:for|with)|grab|get|see|pick|tap)\s{1,2}"
                          r"(?:links?|#|the\s{1,2}|our\s{1,2})")
_CONJ_CLAUSE_RE = re.compile(r"(?i)[,;]?\s{0,2}(?:and|but|while|whereas|plus)\b")  # a clause cut that joins another


def _statements(text: str, sentences: list[tuple[int, int]], mention_starts: list[int]) -> list[tuple[int, int]]:
    out: list[tuple[int, int]] = []
    for s, e in sentences:
        cur = s
        seps = [(m.start(), m.end(), True) for m in _HARD_SEP_RE.finditer(text, s, e)]
        if mention_starts:
            for m in _SOFT_SEP_RE.finditer(text, s, e):
                if text.count("(", s, m.start()) > text.count(")", s, m.start()):
                    continue  # inside brackets: "the toner (link 3, 209) or the mask (link 8, 109)"
                nc = _NEXT_CUT_RE.search(text, m.end(), e)
                stop = nc.start() if nc else e
                if any(m.end() <= ms < stop for ms in mention_starts):
                    seps.append((m.start(), m.end(), False))
        for a, b, hard in sorted(seps):
            if a < cur:
                continue
            lead0 = _AND_LEAD_RE.match(text, cur)  # (after a hedge: "I think for dry skin, try link 2")
            fronted = _FRONTED_RE.match(text, lead0.end() if lead0 else cur)
            if fronted is not None and _FRONTED_COND_RE.match(fronted.group()) and len(text[cur:a].split()) > 8:
                fronted = None  # a condition with its own main clause: "if the package arrives damaged you get a
                # refund with a photo within 48 hours, I think link 6 is 289" fronts nothing
            if not hard and text[a:b].strip() == "," and not any(cur <= ms < a for ms in mention_starts) and (
                    fronted or (len(text[cur:a].split()) <= 4 and not _ASCII_DIGIT_RE.search(text, cur, a))):
                # "Within 48 hours, link 3 ships out", "Great question, link 3 ...": a fronted phrase of the clause that
                # names the link ("weight 293 g, tap link 6" is a figure of its own, not one fronting link 6); a clause
                # joined by a conjunction fronts nothing ("if it arrives damaged you get a refund within 48 hours, and
                # link 1 ...")
                continue
            # (only before a bare clause: in "ships to X, within 72 hours, and link 3 ..." the phrase trails)
            k = text.rfind(",", cur, a) if not hard and text[a:b].strip() == "," else -1
            lead = _AND_LEAD_RE.match(text, k + 1) if k > cur else None  # ", and for high protein, try link 7"
            if k > cur and _FRONTED_RE.match(text, lead.end() if lead else k + 1) \
                    and len(text[lead.end() if lead else k + 1:a].split()) <= 4 \
                    and not any(k < ms < a for ms in mention_starts):
                # "size L on link 2, for oily skin, try link 4": the fronted phrase goes with the clause it fronts
                out.append((cur, k))
                cur = k + 1
                continue
            fm = _TRAILING_NEED_RE.search(text, cur, a) if not hard and text[a:b].strip() == "," \
                and _TRY_LINK_RE.match(text, b) else None
            if fm is not None and fm.start(1) > cur and not any(fm.start(1) < ms < a for ms in mention_starts):
                # "results vary from person to person for cold weather, try link 6": run on, the need fronts the
                # clause after the comma, as "For cold weather, try link 6" does
                out.append((cur, fm.start(1)))
                cur = fm.start(1)
                continue
            if text[cur:a].strip():
                out.append((cur, a))
            cur = b
        if text[cur:e].strip() or cur == s:
            out.append((cur, e))
    return out


# a verb a figure with its unit follows, said again before a bare figure ("lasts 20 hours, link 2 lasts 8")
_UNIT_VERB_BEFORE = re.compile(r"(?i)\b(lasts?|runs?|charges?|weighs?|holds?|takes?|gets?)\s{1,2}(?:about\s{1,2}|"
                               r"around\s{1,2}"
                               r"|up\s{1,2}to\s{1,2}|only\s{1,2}|just\s{1,2})?$")


_FULL_STOP_RE = re.compile(r"[.!?\n]")


def _carry_units(text: str, nums: list[Num]) -> None:
    """A bare figure after the same verb as a figure with a unit before it in the sentence takes that unit."""
    for k, n in enumerate(nums):
        if n.unit is not None or n.attr not in (None, "bare") \
                or (v := _UNIT_VERB_BEFORE.search(text, max(0, n.start - 24), n.start)) is None:
            continue
        for m in reversed(nums[:k]):
            if m.unit is not None and m.attr == m.unit and not _FULL_STOP_RE.search(text, m.end, n.start) and (
                    w := _UNIT_VERB_BEFORE.search(text, max(0, m.start - 24), m.start)) is not None \
                    and w.group(1).lower() == v.group(1).lower():
                n.unit, n.attr = m.unit, m.attr
                break


_VS_RE = re.compile(r"(?i)\s{0,2}(?:[a-z¥￥$]{0,6}\s{0,2})?(?:vs\.?|versus|v\.|against|compared\s{1,2}(?:to|with))"
                    r"\s{0,2}(?:[¥￥$]\s{0,2})?")
_PRICE_WORDS_RE = re.compile(r"(?i)\b(?:cheap\w{0,3}|pric\w{1,3}|cost\w{0,2}|expensive|dearer|yuan|kuai|rmb|spend|"
                             r"budget|affordable)\b|[¥￥$]")


def _pair_figures(text: str, nums: list[Num], mentions: list[tuple[int, int, int]], world: World) -> None:
    """Two figures set against each other ("Link 4's cheaper (369 vs 509)") are of the two products compared: the
    first of the product the statement names, the second of the other one; of the same attribute (a price, where
    the statement speaks of prices and neither figure has one).
    """
    for a, b in zip(nums, nums[1:], strict=False):
        if a.sentence != b.sentence or not _VS_RE.fullmatch(text, a.end, b.start):
            continue
        pair = set(world.targets) if len(world.targets) == 2 else {link for _, _, link in mentions if link > 0}
        if len(pair) != 2 or a.subject not in pair:
            continue
        b.subject = next(iter(pair - {a.subject}))
        if a.attr is None and b.attr is None and _PRICE_WORDS_RE.search(text, max(0, a.start - 60), b.end + 12):
            a.attr = b.attr = "price"
        elif b.attr is None:
            b.attr = a.attr


# what joins the items of a list said in order ("links 3 and 8", "309 vs 169 yuan", "309, 169 and 99")
_ITEM_SEP_RE = re.compile(r"(?i)\s{0,2}(?:(?:yuan|rmb|kuai|元)\s{0,2})?(?:,\s{0,2}(?:and\s{1,2})?|\s(?:and|&|vs\.?|"
                          r"versus|/)\s|\s{0,2}/\s{0,2})\s{0,2}(?:[¥￥$]\s{0,2})?")
# what may stand between a list of links and the list of their figures ("Link 3 and link 8 are", "links 3 and 8:")
_TO_FIGURES_RE = re.compile(r"(?i)\s{0,2}(?:[:=(—–-]|(?:are|is|cost|costs|come\s{1,2}to|go\s{1,2}for|at|priced"
                            r"\s{1,2}at|sit\s{1,2}at)\b)?\s{0,2}(?:(?:only|just|now|priced\s{1,2}at|at)\s{1,2})?(?:[¥￥$]\s{0,2})?")


def _respective(text: str, nums: list[Num], mentions: list[tuple[int, int, int]]) -> None:
    """Figures listed after as many links listed ("Link 3 vs link 8: 309 vs 169 yuan", "links 2 and 7 are 59 and 89
    yuan respectively") are theirs in order: the first of the first link, and so on.
    """
    i = 0
    while i < len(nums):
        j = i
        while j + 1 < len(nums) and nums[j + 1].sentence == nums[i].sentence \
                and _ITEM_SEP_RE.fullmatch(text, nums[j].end, nums[j + 1].start):
            j += 1
        run = nums[i:j + 1]
        i = j + 1
        if len(run) < 2 or len({(n.attr in (None, "bare", "price"), n.unit) for n in run}) != 1:
            continue
        before = [m for m in mentions if m[1] <= run[0].start]
        if len(before) < len(run) or not _TO_FIGURES_RE.fullmatch(text, before[-1][1], run[0].start):
            continue
        links = before[-len(run):]
        if any(m[2] <= 0 for m in links) or len({m[2] for m in links}) != len(links) or not all(
                _ITEM_SEP_RE.fullmatch(text, a[1], b[0]) for a, b in zip(links, links[1:], strict=False)):
            continue
        if len(before) > len(run) and _ITEM_SEP_RE.fullmatch(text, before[-len(run) - 1][1], links[0][0]):
            continue  # more links listed than figures: which is whose is not said
        for n, m in zip(run, links, strict=True):
            n.subject = m[2]


def _last_before(mentions: list[tuple[int, int, int]], addressed: list[tuple[int, int, str]], pos: int, upto: int,
                 default: int | None, ends: bool = False) -> int | None:
    """The link of the last mention (ending, with `ends`, at or) starting before `pos`, or of the last viewer
    addressed before it if that comes later; else `default`.
    """
    best, at = default, -1
    for ms, me, link in mentions:
        if (me if ends else ms) <= pos:
            best, at = link, ms
    for a, link, _ in addressed:
        if at < a <= upto:
            best, at = link, a
    return best


_ADDRESS_BEFORE = re.compile(r"(?i)(?:^|[.!?;:,—–(\n]|\b(?:hi|hey|hello|thanks|thank\s{1,2}you|sorry|welcome|dear|and|"
                             r"so|oh|ok|okay|aww?|yo|@))\s{0,3}$")
# what may stand before a vocative that opens a statement ("Lacey: ...", "and sorry Sean, ...")
_VOCATIVE_HEAD_RE = re.compile(r"(?i)[\W_]*(?:(?:and|so|oh|ok|okay|hi|hey|hello|sorry|thanks|thank\s{1,2}you|welcome|"
                               r"dear|aww?|yo)\W*)*")
# a vocative that ends a statement: after a comma or a dash, with nothing but marks after it ("..., Bill! 🙌")
_VOCATIVE_TAIL_BEFORE = re.compile(r"\w[,—–]\s{0,2}@?$")
_VOCATIVE_TAIL_RE = re.compile(r"[\W_]*")
# (where a name is a vocative and not a word of the sentence: not after "and", "so" or "(": "cotton and silk")
_VOCATIVE_BEFORE = re.compile(r"(?i)(?:^|[.!?;:,—–\n]|\b(?:hi|hey|hello|thanks|thank\s{1,2}you|sorry|welcome|dear|"
                              r"oh|ok|okay|aww?|yo))\s{0,3}$")
_ADDRESS_AFTER = re.compile(r"\s{0,2}(?:[,:;!—–]|$)")


def _addressed(text: str, world: World) -> list[tuple[int, int, str]]:
    """Where the reply addresses a viewer of the burst by name (a vocative: "Brad, ...", "sorry Dominique;"), and the
    link that viewer asked about.
    """
    rx = world.address_re()
    if rx is None:
        return []
    return [(m.start(), world.viewer_links[m["n"].lower()], m["n"].lower()) for m in rx.finditer(text)
            if _ADDRESS_BEFORE.search(text, max(0, m.start() - 16), m.start()) or _ADDRESS_AFTER.match(text, m.end())]


def _variant_owners(text: str, sentences: list[tuple[int, int]], mentions: list[tuple[int, int, int]],
                    world: World) -> dict[int, int]:
    """Per statement that names no product, in a request of several: the one product of the request (or named in the
    reply) that sells a variant it names, where only one does.
    """
    links = {*world.targets, *(link for _, _, link in mentions if link > 0)}
    if len(links) < 2:
        return {}
    products = [p for link in sorted(links) if (p := world.by_link.get(link)) is not None]
    out: dict[int, int] = {}
    k = 0
    for i, (s, e) in enumerate(sentences):
        while k < len(mentions) and mentions[k][0] < s:
            k += 1
        if k < len(mentions) and mentions[k][0] <= e:
            continue  # a product named in it
        sent = text[s:e]
        sellers = [p.link for p in products if Reading.named_variants(sent, p)]
        if len(sellers) == 1:
            out[i] = sellers[0]
    return out


def _vocatives(text: str, world: World) -> list[tuple[int, int]]:
    """Spans where the reply addresses a viewer of the request by first name (as `_addressed` reads a vocative)."""
    voc = world.vocative_re
    if voc is None:
        return []
    names, rx = voc
    low = text.lower()
    if not any(n in low for n in names):
        return []
    return [(m.start(), m.end()) for m in rx.finditer(text)
            if _VOCATIVE_BEFORE.search(text, max(0, m.start() - 16), m.start())]


def read_reply(reply: str, world: World) -> Reading:
    text = _mask(normalise_reply(reply, world.variant_names()), world)
    # subject mentions: links, product names, "every link"
    mentions: list[tuple[int, int, int]] = []
    link_num_starts: set[int] = set()
    for m in _LINK_RE.finditer(text):
        mentions.append((m.start(), m.end(), int(m["n"])))
        link_num_starts.add(m.start("n"))
        end, last = m.end(), int(m["n"])
        if _LIST_HEAD_RE.match(m.group()):  # "links 1 and 7", "#2, #5 or #8": every number in the list is a link
            cur = _LINK_CONT_RE.match(text, m.end())
            while cur is not None and not _UNIT_RE.match(text, cur.end()) and not _CUR_AFTER_RE.match(text, cur.end()):
                mentions.append((cur.start("n"), cur.end(), int(cur["n"])))
                link_num_starts.add(cur.start("n"))
                end, last = cur.end(), int(cur["n"])
                cur = _LINK_CONT_RE.match(text, cur.end())
        rg = _LINK_RANGE_RE.match(text, end)  # "links 1 to 8": the range's end is a link, not a figure of link 1
        if rg is not None and link_range(last, rg) and not _UNIT_RE.match(text, rg.end()) \
                and not _CUR_AFTER_RE.match(text, rg.end()):
            mentions.append((rg.start("n"), rg.end(), int(rg["n"])))
            link_num_starts.add(rg.start("n"))
    name_re = _names_regex_in(world.names, text)
    if name_re is not None:
        for m in name_re.finditer(text):
            mentions.append((m.start(), m.end(), world.name_link[m.group(1).lower()]))
    for m in _ALL_SUBJ.finditer(text):
        mentions.append((m.start(), m.end(), -1))
    if re.search(r"(?i)\bpinned\b", text):
        for m in re.finditer(r"(?i)\bpinned\b", text):
            mentions.append((m.start(), m.end(), world.room.pinned_link))
    mentions.sort()
    addressed = _addressed(text, world)
    sentences = _statements(text, _spans(text, _SENT_RE), [ms for ms, _, _ in mentions])
    sent_of = bytearray(len(text) + 1)
    question = []
    for i, (s, e) in enumerate(sentences):
        sent_of[s:e + 1] = bytes([min(i, 255)]) * (e + 1 - s)
        end_mark = text[e:e + 1]
        question.append(end_mark == "?" or bool(_QWORD_RE.match(text[s:e])) and end_mark != "!")
    cuts = sorted({m.start() for m in _CLAUSE_RE.finditer(text)} | {s for s, _ in sentences} | {len(text)})

    def clause(pos: int) -> tuple[int, int]:
        lo = max([c for c in cuts if c <= pos] or [0])
        hi = min([c for c in cuts if c > pos] or [len(text)])
        return lo, hi

    default = world.targets[0] if len(world.targets) == 1 else None
    owners = _variant_owners(text, sentences, mentions, world)

    refusals = []
    for m in _REFUSAL_RE.finditer(text):
        refusals.append((m.start(), clause(m.start())[1]))
    facts = extract_facts(text)

    nums_raw, _, _, _ = _scan_numbers(text)
    units = [unit_after(text, e) for _, e, _ in nums_raw]
    for i in range(len(nums_raw) - 2, -1, -1):  # "28 x 44 x 72 cm", "3-5 days" share the last unit
        if units[i] is None and units[i + 1] and _RANGE_GAP_RE.fullmatch(text, nums_raw[i][1], nums_raw[i + 1][0]) \
                and not (_SPACED_DASH_RE.fullmatch(text, nums_raw[i][1], nums_raw[i + 1][0])
                         and _PRICE_BEFORE.search(text, clause(nums_raw[i][0])[0], nums_raw[i][0])):
            # (not a price ended by a spaced dash and a new statement: "every price is now 0 - 128GB of link 7 ...")
            units[i] = units[i + 1]
    nums: list[Num] = []
    bare_per_clause: dict[tuple[int, int], int] = {}
    for (s, e, v), unit in zip(nums_raw, units, strict=True):
        if s in link_num_starts:
            continue
        um = _UNIT_RE.match(text, e)
        uend = um.end() if um else e
        money = bool(_CUR_AFTER_RE.match(text, e)) or bool(_CUR_BEFORE_RE.search(text[max(0, s - 24):s])) or (
            e - s > 3 and text[e - 3] == "." and unit is None)  # "129.00": two decimals are money
        if money:
            cm = _CUR_AFTER_RE.match(text, e)
            uend = cm.end() if cm else uend
        if not money and "/" in (text[e:e + 1], text[s - 1:s] if s else "") and v in world.request_nums:
            continue  # the viewer's own "186/77" (height/weight), not a price
        lo, hi = clause(s)
        si = sent_of[s]
        ss, se = sentences[si] if si < len(sentences) else (lo, hi)
        before = text[lo:s]
        ctx = text[lo:hi]
        attr: str | None = None
        if unit == "%":
            if _AFTER_DISCOUNT.match(text, uend) or _BEFORE_DISCOUNT.search(before):
                attr = "percent"
            else:  # "70% polyester" is the material's share; any other "30% ..." is checked against the record
                attr = "composition" if _MATERIAL_AFTER_RE.match(text, uend) or _FILL_AFTER_RE.match(text, uend) \
                    else "spec"
        elif (cm := _AFTER_COUNT.match(text, uend)) is not None and unit is None and not money:
            attr = "count_" + _COUNT_DIM[cm.group("n").lower()[:4]]  # "two colours": how many the record lists
        elif _AFTER_SOLD.match(text, uend) or _AFTER_SOCIAL.match(text, uend):
            attr = "unverifiable"
        elif (_AFTER_DISCOUNT.match(text, uend) or _BEFORE_DISCOUNT.search(before)) and unit in (None, "pcs"):
            # (a figure with its own unit is that: "Ningxia takes 4 extra days" is no discount)
            attr = "discount"
        elif unit and unit not in ("pcs",):
            attr = unit
        elif _ATTR_NOUN_BEFORE.search(before) and not money:
            attr = "spec"
        elif _LIST_NEAR.search(before) and (money or _PRICE_BEFORE.search(before) or not unit) \
                and not _same_now(text, before, uend):
            attr = "list"
        elif _LIST_AFTER.match(text, uend) and (money or not unit):
            attr = "list"  # "(it's 809 normally)"
        elif _BEFORE_THRESHOLD.search(before) or _AFTER_THRESHOLD.match(text, uend):
            attr = "free_over" if _FREE_SHIP_CUE.search(ctx) or _NO_FEE_RE.search(ctx) else "threshold"
        elif _BEFORE_UNDER.search(before) and _FREE_SHIPPING_WORDS.search(ctx):
            attr = "free_over"  # "shipping isn't free under 99 yuan", "delivery costs 8 below 99": the threshold
        elif _BEFORE_UNDER.search(before) and unit is None and not _ORDER_CUE_RE.search(ctx) \
                and not _negated(text, s):
            attr = "price_ceiling"  # "it's under 250 yuan", "well below 300": a bound the price is under (not "I
            # can't go below 309": the price, declined to be cut)
        elif _FEE_CUE.search(before) or _AFTER_FEE.match(text, uend):
            attr = "fee"
        elif _AFTER_STOCK.match(text, uend) or unit == "pcs" or (not money and unit is None
                                                                 and _count_down_to(text, lo, s, world)) \
                or (_BEFORE_STOCK.search(before) and not money and v > 0) or (  # ("has zero niacinamide": none)
                not money and (_STATE_PAREN_RE.search(text, max(0, s - 32), s)  # "still there (458)"
                               or _OF_THEM_RE.match(text, uend) and _HAVE_CUE.search(text, ss, s)
                               # "41 of them"; "plenty of the standard, 459 to be exact"
                               or _EXACT_AFTER.match(text, uend) and _PLENTY_BEFORE.search(text, ss, s))):
            attr = "stock"
        elif money or _PRICE_BEFORE.search(before):
            if _list_cued(before) and not _same_now(text, before, uend):
                attr = "list"
            elif _FLASH_CUE.search(ctx):
                attr = "flash"
            elif _COUPON_PRICE_CUE.search(ctx) or (_WITH_IT_RE.search(ctx) and _names_code(text, world)):
                attr = "coupon_price"
            elif _BUNDLE_CUE.search(ctx):
                attr = "bundle"
            else:
                attr = "price"
        else:
            bare_per_clause[(lo, hi)] = bare_per_clause.get((lo, hi), 0) + 1
        # subject: nearest mention in the clause (a following one within a few words also binds, not one in a clause
        # joined after it: "... within 48 hours and link 1 ..." opens a statement about link 1)
        best, best_d = None, 10**9
        joined = _CONJ_CLAUSE_RE.match(text, hi) is not None
        for ms, me, link in mentions:
            if ms < ss or ms > se:
                continue
            if me <= s:
                if _VS_WORD_RE.search(text, me, s):
                    continue  # the other side of a comparison ("309 for link 6 vs 449 for link 1": not the 449's)
                # (a mention right before the figure binds it across a bracket: "power bank (link 6) 309 yuan")
                d = s - me + (0 if ms >= lo or not text[me:s].strip() else 40)
            elif ms >= uend and not (joined and ms >= hi) and not _SERVICE_OF_BEFORE.search(text, uend, ms) \
                    and not _VS_FIGURE_RE.search(text, uend, ms) and not _VS_WORD_RE.search(text, uend, ms):
                # ("20 hours vs 8 hours for link 2": its is the 8; "309 yuan vs keyboard (link 1)": the keyboard is
                # the other side)
                # (not "... 229 yuan shipping for link 2 is 10": the link a service is of opens its own statement)
                d = ms - uend + 10 + (0 if ms < hi else 60)
            else:
                continue
            if d < best_d:
                best, best_d = link, d
        if best is None:
            best = owners.get(si) or _last_before(mentions, addressed, s, s, default, ends=True)
        asserted = not _negated(text, s) and not question[si if si < len(question) else -1]
        nums.append(Num(v, s, uend, unit, attr, best, si, asserted))
    _pair_figures(text, nums, mentions, world)
    _carry_units(text, nums)
    _respective(text, nums, mentions)
    for n in nums:  # "Only 49, 79 before the promo!": "only" a figure set against a list price is a price
        if n.attr == "stock" and n.unit is None and not _AFTER_STOCK.match(text, n.end) \
                and _ONLY_BEFORE_RE.search(text, max(0, n.start - 12), n.start) \
                and any(m.attr == "list" and m.sentence == n.sentence and m.subject == n.subject for m in nums):
            n.attr = "price"
    # a clause with one bare number answering a price question is a price; several bare numbers bind to nothing
    for n in nums:
        if n.attr is None:
            lo, hi = clause(n.start)
            if bare_per_clause.get((lo, hi), 0) == 1 and (n.subject is not None or world.targets):
                n.attr = "coupon_price" if _COUPON_PRICE_CUE.search(text, lo, hi) else "bare"

    words = _WORD_RE.findall(text.lower())
    # (not steps joined by arrows: "tap link 5 → cart → checkout" is an instruction)
    salad = (len(words) >= 4 and "→" not in text and "->" not in text
             and not any(w.replace("’", "'") in _FUNCTION_WORDS for w in words)
             and sum(w in _GENERIC_WORDS for w in words) >= 0.7 * len(words)
             and not any(n.attr not in (None, "bare") for n in nums))
    echo = [_is_echo(text[s0:e0], world.request_trigrams) for s0, e0 in sentences]
    for n in nums:
        if n.sentence < len(echo) and echo[n.sentence]:
            n.asserted = False
    return Reading(text, sentences, cuts, mentions, nums, refusals, question, salad, facts, echo, default,
                   acts=speech_acts(text, sentences, cuts, question), addressed=addressed,
                   vocatives=_vocatives(text, world), owners=owners)


_SIZE_TOKEN_RE = re.compile(r"(?<![A-Za-z])(XXS|XS|XXL|XXXL|XL|S|M|L)(?![A-Za-z])|(?i:\bsize\s{1,2}(xxs|xs|xxl|xl|s|"
                            r"m|l)\b)")
_SIZE_NAME_RE = re.compile(r"(?i)\b(extra[\s-]small|extra[\s-]large|small|medium|large)\b")


# a size named to explain the chart rather than to advise it: "your height is at the bottom of XS", "XS would match
# your height", "XS only goes up to 47 kg", "the S range", or any size in a clause that concedes ("even though ...")
_EXPLAINS_SOME_RE = _rx(r"\b(?:height|weight|range|bottom|edge|limit|middle|territory|bracket|though|although|whereas|"
                        r"despite|goes\s{1,2}up|tops\s{1,2}out|puts?\s{1,2}you|starts?\s{1,2}at|kg|cm)\b|[0-9](?:kg|cm)\b")
_EXPLAINS_RE = re.compile(r"(?i)\b(?:even\s{1,2}though|although|though|whereas|despite)\b")
_SZ_TOK = r"(?<![A-Za-z])(?P<t>XXXL|XXL|XXS|XS|XL|S|M|L)(?![A-Za-z])"
_EXPLAINED_SIZE_RE = re.compile(
    r"(?i:\b(?:range|bottom|top|end|edge|limit|middle)\s{1,2}of\s{1,2}(?:the\s{1,2})?(?:size\s{1,2})?|"
    r"\b(?:height|weight|measurements?|build)\s{1,2}(?:alone\s{1,2})?(?:(?:would|will)\s{1,2})?(?:fits?|match(?:es)?|"
    r"is\s{1,2}in|puts?\s{1,2}you\s{1,2}in|says|points?\s{1,2}to|falls?\s{1,2}in(?:to)?|is\s{1,2}(?:an?|size))\s{1,2}(?:the\s{1,2})?"
    r"(?:size\s{1,2})?|\bputs?\s{1,2}you\s{1,2}(?:in|at)\s{1,2}(?:the\s{1,2})?(?:size\s{1,2})?)" + _SZ_TOK
    + r"|" + _SZ_TOK.replace("P<t>", "P<u>") + r"(?=(?:['’]s)?\s{1,2}(?i:range|territory|bracket|band)\b|\s{1,2}"
    r"(?i:(?:would|will|only|just|probably|also)\s{1,2}){0,2}(?i:match(?:es)?|fits?|suits?|is\s{1,2}for|covers?|"
    r"goes\s{1,2}up\s{1,2}to|tops\s{1,2}out|starts?\s{1,2}at|runs?\s{1,2}(?:from|up))\b[^,;:.!?]{0,40}?(?i:\b(?:height|weight|tall|cm|kg)\b|[0-9]))")
_CLAUSE_SPLIT_RE = re.compile(r"[,;:—–()]|(?<!even)\s(?=(?:but|though|although|even\s{1,2}though|while|whereas|since|"
                              r"because|so)\s)", re.I)


def _blank_explained(sent: str) -> str:
    """`sent` with each size that explains the chart blanked, and each clause that concedes (same length)."""
    out, at = [], 0
    for m in [*_CLAUSE_SPLIT_RE.finditer(sent), None]:
        end = m.start() if m is not None else len(sent)
        piece = sent[at:end]
        if _EXPLAINS_RE.match(piece.lstrip(" ,")):
            piece = " " * len(piece)
        out.append(piece)
        if m is not None:
            out.append(sent[m.start():m.end()])
            at = m.end()
    text = "".join(out)
    for m in reversed(list(_EXPLAINED_SIZE_RE.finditer(text))):
        g = "t" if m.group("t") else "u"
        text = text[:m.start(g)] + " " * (m.end(g) - m.start(g)) + text[m.end(g):]
    return text


_SERVICE_OF_BEFORE = re.compile(r"(?i)\b(?:shipping|delivery|postage|returns?|refunds?)\s{1,2}(?:for|on|of|to)\s{1,2}$")
_EXCEPT_RE = re.compile(r"(?i)\b(?:except(?:\s{1,2}for)?|apart\s{1,2}from|other\s{1,2}than|besides|save\s{1,2}for|"
                        r"but\s{1,2}not)\b")
_ALL_VARIANTS_RE = re.compile(r"(?i)\b(?:all|every|each|both|any)\b")
_VS_WORD_RE = re.compile(r"(?i)\b(?:vs\.?|versus|compared\s{1,2}(?:to|with))(?=\s)")
_VS_FIGURE_RE = re.compile(r"(?i)\b(?:vs\.?|versus|against|compared\s{1,2}(?:to|with))\s{0,2}(?:[¥$]\s?)?[0-9]")


_SIZE_NEG_RE = re.compile(r"(?i)\b(?:not|never|avoid|skip|instead\s{1,2}of|rather\s{1,2}than)\b|n['’]t\b")


_SZ = r"(?:XXXL|XXL|XXS|XS|XL|[23]XL|S|M|L|(?i:extra[\s-](?:small|large)|small|medium|large))"
_REJECTED_SIZE_RE = re.compile(
    r"(?i:\b(?:rather\s{1,2}than|instead\s{1,2}of|not|than|over|vs\.?|versus|skip|avoid|except|but\s{1,2}not|"
    r"(?:wouldn['’]?t|don['’]?t|do\s{1,2}not|never|not)\s{1,2}(?:go\s{1,2}(?:with|for)|take|get|pick|choose|"
    r"recommend|suggest|size\s{1,2}(?:up|down)\s{1,2}to))\s{1,2}(?:(?:a|an|the|size)\s{1,2})?)(?<![A-Za-z])"
    + _SZ + r"(?![A-Za-z])"
    r"|(?<![A-Za-z])" + _SZ + r"(?![A-Za-z])(?=\s{1,2}(?i:(?:would|might|could|will|may)\s{1,2}(?:probably\s{1,2})?"
    r"be|is|runs|feels|['’]s)\s{1,2}(?:\w{1,10}\s{1,2})?(?:too|a\s{1,2}bit|way|kind\s{1,2}of|slightly)\s{1,2}"
    r"(?:big|small|baggy|tight|loose|large|long|short|snug|roomy)\b)")
_SIZE_ANY_RE = re.compile(r"(?<![A-Za-z])" + _SZ + r"(?![A-Za-z])")  # a size token: what every rejected size names
