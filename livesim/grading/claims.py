"""Claim-level reading of a host's reply: what it states, about which subject, and whether that is true.

`read_reply` normalises the reply (numbers in words become digits; viewer handles and looked-up ticket ids are
masked), splits it into sentences and clauses, binds every number to an attribute (by unit and cue words) and
to a subject (the nearest link or product mention in its clause, else the request's only target), and finds
claims by type (superlatives and rankings, market comparisons, efficacy, durability, health and safety,
guarantees, delivery promises, false statements without numbers). `check_accuracy` returns why the reply is
inaccurate; `fact_met` says whether one required fact is stated as an answer. Every regex is compiled at
import with bounded repeats only; the per-request truth is indexed once per grading call.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any

from livesim.grading.acts import ACTION_TOOLS, Act, act_errors, claim_stems, offered, speech_acts
from livesim.grading.closed import closed_world_errors, returns_denied
from livesim.grading.facts import extract_facts
from livesim.grading.facts.extract import _negated, _scan_numbers, numbers_in, stock_and_sizes
from livesim.grading.facts.patterns import (
    _CUR_AFTER_RE,
    _CUR_BEFORE_RE,
    _CUT_RE,
    _ESCALATION_RE,
    _LINK_CONT_RE,
    _LINK_RE,
    _REFUSAL_RE,
    _UNIT_RE,
    _UNITS,
    replace_ignoring_case,
)
from livesim.grading.facts.prefilter import Prefiltered
from livesim.grading.normalise import normalise
from livesim.grading.properties import property_errors, true_attribute_stated
from livesim.grading.property_lexicon import LEXICON
from livesim.grading.topics import unverified_topic_errors
from livesim.world.answers import CODE_ENTRY_PHRASES
from livesim.world.catalog import REGIONS, Catalog, Product
from livesim.world.intents import _CLAIMS as BAIT_CLAIMS
from livesim.world.room import Room
from livesim.world.truth import NOT_RETURNABLE_PHRASES, NOT_SHIP_PHRASES

_NOT_SHIP_WORDS = frozenset(NOT_SHIP_PHRASES)
_NOT_RETURN_WORDS = frozenset(NOT_RETURNABLE_PHRASES)

# ------------------------------------------------------------------------------------------- numbers in words
_SMALL = {w: i for i, w in enumerate("zero one two three four five six seven eight nine ten eleven twelve thirteen "
                                     "fourteen fifteen sixteen seventeen eighteen nineteen".split())}
_TENS = {w: 10 * (i + 2) for i, w in enumerate("twenty thirty forty fifty sixty seventy eighty ninety".split())}
_NW = "|".join([*_SMALL, *_TENS, "hundred", "thousand"])
_NUMWORDS_RE = re.compile(rf"(?i)\b(?:an?\s{{1,2}}(?=hundred|thousand))?(?:{_NW})(?:(?:\s{{1,2}}and\s{{1,2}}|"
                          rf"[\s-]{{1,2}})(?:{_NW})){{0,6}}\b")
_ONE_OK_RE = re.compile(r"(?i)\s{1,2}(?:days?|hours?|months?|years?|weeks?|yuan|kuai|bucks?|pieces?|pcs|units?|left|"
                        r"more|"
                        r"extra|of\s{1,2}(?:them|those|each))\b")


def _words_value(words: str) -> int | None:
    total, cur, seen = 0, 0, False
    for w in re.split(r"[\s-]+", words.lower()):
        if w in ("and", "a", "an", ""):
            continue
        seen = True
        if w in _SMALL:
            cur += _SMALL[w]
        elif w in _TENS:
            cur += _TENS[w]
        elif w == "hundred":
            cur = (cur or 1) * 100
        elif w == "thousand":
            total += (cur or 1) * 1000
            cur = 0
    return total + cur if seen else None


_AND_SPLIT_RE = re.compile(r"(\s{1,2}and\s{1,2})", re.IGNORECASE)


def words_to_digits(text: str) -> str:
    """'one hundred and eighty days' -> '180 days'; a lone 'one' only before a unit ('one day', 'one left')."""
    def sub(m: re.Match[str]) -> str:
        s = m.group()
        parts = _AND_SPLIT_RE.split(s)  # [number, " and ", number, ...]
        if any(parts[i - 1].split()[-1].lower() not in ("hundred", "thousand") for i in range(1, len(parts), 2)):
            # "seven and eight" is a list of two numbers; "one hundred and five" is one
            groups, seps = [parts[0]], []
            for i in range(1, len(parts), 2):
                if groups[-1].split()[-1].lower() in ("hundred", "thousand"):
                    groups[-1] += parts[i] + parts[i + 1]
                else:
                    seps.append(parts[i])
                    groups.append(parts[i + 1])
            vals = [_words_value(g) if g.lower() not in ("a", "an") else None for g in groups]
            out = [g if v is None else str(v) for g, v in zip(groups, vals, strict=True)]
            return out[0] + "".join(sep + x for sep, x in zip(seps, out[1:], strict=True))
        if s.lower() in ("one", "a", "an") and not _ONE_OK_RE.match(text, m.end()) and not (
                s.lower() == "one" and text[max(0, m.start() - 5):m.start()].lower() == "link "):
            return s
        v = _words_value(s)
        return s if v is None else str(v)

    return _NUMWORDS_RE.sub(sub, text)


# ------------------------------------------------------------------------------------------- cue lexicons
def _rx(p: str) -> Prefiltered:
    """A case-insensitive pattern, not run on texts that lack every literal its matches need (same results)."""
    return Prefiltered(re.compile(p, re.IGNORECASE))


_MATERIALS = sorted({x for surfaces, canonical, _ in LEXICON["material"] for x in (canonical, *surfaces)},
                    key=len, reverse=True)
_MATERIAL_AFTER_RE = re.compile(r"(?i)\s{0,2}(?:[a-z]{1,12}\s{1,2}){0,2}?(?:"
                                + "|".join(re.escape(x) for x in _MATERIALS) + r")\b")
_REGION_RE = _rx("|".join(re.escape(r) for r in sorted(REGIONS, key=len, reverse=True)))
_REGION_NAME = {r.lower(): r for r in REGIONS}
_UNIT_ADJ_RE = _rx(r"\s{1,2}(?:extra|more|additional|business|working|full|whole)(?=\s)")
_RANGE_GAP_RE = re.compile(r"(?i)\s{0,2}(?:-|–|~|to|x|×|\*|by)\s{0,2}")
_SENT_RE = re.compile(r"[!?\n]+|\.(?![0-9])|…|[\U0001F300-\U0001FAFF\u2600-\u27BF]+")
_CLAUSE_RE = _rx(r"[,;:—–()]|\s-\s|\b(?:but|however|though|although|while|whereas|and\s+(?=link|the\s))\b|\band\s+(?"
                 r"=#)")
_AFTER_DISCOUNT = _rx(r"\s{0,2}(?:off|discount|cheaper|less|saving)\b")
_AFTER_STOCK = _rx(r"\s{0,2}(?:[a-z]{1,12}\s{1,2}){0,4}?(?:left|remaining|in\s{1,2}stock|to\s{1,2}go|available)\b")
_AFTER_SOLD = _rx(r"\s{0,2}(?:[a-z+]{1,12}\s{1,2}){0,2}?(?:sold|bought|purchased)\b|\+\s{0,2}sold")
_AFTER_SOCIAL = _rx(r"\s{0,2}(?:out\s{1,2}of\s{1,2}[0-9]{1,4}|(?:happy\s{1,2}|satisfied\s{1,2})?(?:customers|people|"
                    r"buyers|"
                    r"reviews|fans|users|viewers|shoppers|stars))\b")
_BEFORE_DISCOUNT = _rx(r"(?:\b(?:save|saves|saving|savings|discount\s{1,2}of|knocks?|minus|takes)\s{0,2}(?:[¥$]|"
                       r"rmb\s?)?|-\s{0,1})$")
_BEFORE_THRESHOLD = _rx(r"\b(?:over|above|orders?\s{1,2}(?:of|over|above|from)|spend(?:ing)?|"
                        r"min(?:imum)?(?:\s{1,2}spend)?|"
                        r"at\s{1,2}least|from|threshold(?:\s{1,2}(?:is|of))?)\s{0,2}(?:[¥$]|rmb\s?)?$")
_ATTR_NOUN_BEFORE = _rx(r"\b(?:weight|weighs|battery|capacity|volume|warranty|shelf\s{1,2}life|dimensions?|power|"
                        r"charging|wattage)\s{0,2}(?:is|of|:)?\s{0,2}$")
_LIST_NEAR = _rx(r"\b(?:down\s{1,2}from|was|were|originally|usually|normally|instead\s{1,2}of|regular(?:ly)?|"
                 r"list\s{1,2}price(?:\s{1,2}(?:is|of))?|original\s{1,2}price(?:\s{1,2}(?:is|of))?)\s{0,2}(?:[¥$]|rm"
                 r"b\s?)?$")
_SHIP_WORD = _rx(r"\b(?:shipping|delivery|postage|freight)\b|shipping['’]s")
_LIST_CUE = _rx(r"\b(?:was|were|originally|original|list|usually|normally|regular(?:ly)?|retail|rrp|down\s{1,2}from|"
                r"instead\s{1,2}of|before\s{1,2}the)\b")
_FLASH_CUE = _rx(r"\bflash\b")
_COUPON_PRICE_CUE = _rx(r"\b(?:with|after|using|apply(?:ing)?)\s{1,2}(?:the\s{1,2}|a\s{1,2}|that\s{1,2})?(?:coupon|"
                        r"code|voucher)\b")
_BUNDLE_CUE = _rx(r"\bbundle|\bset\s{1,2}price\b")
_FEE_CUE = _rx(r"\b(?:shipping|delivery|postage|freight)(?:\s{1,2}(?:for|on|of|to)\s{1,2}(?:link\s{1,2}|#)?"
               r"[a-z0-9]{1,12}"
               r"(?:\s{1,2}[a-z]{1,12}){0,2}?)?(?:\s{1,2}(?:fee|cost|costs|charge|is|of))?\s{0,2}(?:is|"
               r"costs?|of|:)?\s{0,2}"
               r"(?:only\s{1,2}|just\s{1,2})?(?:[¥$]|rmb\s?)?$")
_AFTER_FEE = _rx(r"[ \t]{0,2}(?:for\s{1,2}|of\s{1,2})?(?:shipping|delivery|postage)\b(?!\s{1,2}(?:is\s{1,2})?free)")
_FREE_SHIP_CUE = _rx(r"\bfree\s{1,2}(?:shipping|delivery|postage)|\b(?:shipping|delivery|postage)(?:['’]s)?(?:\s{1,2}"
                     r"(?:for|on|of|to|with)\s{1,2}[^.,;!?]{1,30}?)?\s{1,2}(?:is\s{1,2}|are\s{1,2}|comes?\s{1,2}|"
                     r"stays?\s{1,2})?(?:always\s{1,2}|totally\s{1,2}|completely\s{1,2}|100%\s{1,2})?free\b|"
                     r"\bships?\s{1,2}(?:for\s{1,2})?free|\bno\s{1,2}(?:shipping|delivery|postage)\s{1,2}(?:fee|cost|charge)s?")
_BEFORE_STOCK = _rx(r"\b(?:only|just|still(?:\s{1,2}(?:have|got))?|we\s{1,2}(?:have|got)|there\s{1,2}(?:are|is)|"
                    r"stock(?:\s{1,2}(?:of|is))?|"
                    r"have)\s{0,2}$")
_PRICE_BEFORE = _rx(r"(?:\b(?:is|are|at|for|costs?|just|only|now|price[sd]?(?:\s{1,2}is)?|going\s{1,2}for|"
                    r"goes\s{1,2}for|comes\s{1,2}to)|[:=])\s{0,2}$")
_SHIP_CUE = _rx(r"\b(?:ship|ships|shipped|shipping|dispatch\w*|sends?|sent|goes\s{1,2}out|go\s{1,2}out|"
                r"out\s{1,2}within|courier|"
                r"send\s{1,2}out)\b")
_RETURN_CUE = _rx(r"\b(?:returns?|returned|returnable|refunds?|exchange|send\s{1,2}(?:[\w#]{1,12}\s{1,2}){1,3}back)\b")
_EXCEPTION_CUE = _rx(r"\b(?:photo\w{0,3}|picture|damag\w{0,3}|broken|refund\w{0,3})\b")
_BATTERY_CUE = _rx(r"\b(?:battery|lasts?|playback|runtime|run\s{1,2}time|play\s{1,2}time|on\s{1,2}a\s{1,2}charge)\b")
_EXTRA_CUE = _rx(r"\b(?:extra|more|additional|remote|plus)\b")
_SHELF_CUE = _rx(r"\b(?:shelf|expir\w*|best\s{1,2}before|fresh|keeps?|good\s{1,2}for)\b")
_WARRANTY_CUE = _rx(r"\bwarrant")
_CONTACT_CUE = _rx(r"\b(?:contact|reach|get\s{1,2}back|follow\s{1,2}up|hear\s{1,2}from|call|respond|reply|team)\b")
_DELIVERY_CUE = _rx(r"\b(?:arriv\w*|deliver\w*|get\s{1,2}(?:it|there|here|to\s{1,2}you)|receive|reach\s{1,2}you|"
                    r"take\s{1,2}to\s{1,2}get|be\s{1,2}(?:with\s{1,2}you|there|here))\b")
_COUPON_WORD = _rx(r"\b(?:coupons?|codes?|vouchers?)\b")
_ALL_SUBJ = _rx(r"\b(?:every|all)\s{1,2}(?:the\s{1,2})?(?:links?|items?|products?|things?)\b|\beverything\b")
_QWORD_RE = _rx(r"^\s{0,3}(?:how|what|what['’]s|where|which|when|why|can\s{1,2}i|do\s{1,2}you|does|is\s{1,2}(?:it|"
                r"there|link|#)|are\s{1,2}there)\b")

# ------------------------------------------------------------------------------------------- claim types
_CLAIM_TYPES: tuple[tuple[str, Prefiltered], ...] = (
    ("superlative", _rx(
        r"\b(?:best|top|no\.?\s?1|number\s{1,2}one|#\s?1)[\s-]{1,2}(?:sell(?:er|ers|ing)|rated|seller|choice|"
        r"quality|brand|shop|store)\b"
        r"|\bbest\b[^.!?\n]{0,30}?\b(?:on\s{1,2}the\s{1,2}(?:market|platform|planet)|in\s{1,2}the\s{1,2}(?:world|"
        r"country|business|industry|shop)|"
        r"anywhere|ever|of\s{1,2}the\s{1,2}year|in\s{1,2}town|around)\b"
        r"|\b(?:lowest|cheapest|biggest|highest|fastest|warmest|softest|strongest|finest|deepest|"
        r"greatest)\b[^.!?\n]{0,40}?\b(?:ever|anywhere|"
        r"on\s{1,2}the\s{1,2}(?:market|platform)|in\s{1,2}(?:the\s{1,2})?(?:world|country|market|shop|town|history)|"
        r"you['’]ll\s{1,2}"
        r"(?:ever\s{1,2})?(?:find|wear|see|get|have)|around|online|of\s{1,2}all)\b"
        r"|\b(?:the\s{1,2})?(?:fastest|cheapest|lowest|best|warmest|softest)\s{1,2}(?:in|on)\s{1,2}the\s{1,2}\w{1,12}\b"
        r"|\bmost\s{1,2}(?:popular|flattering|loved|wanted|comfortable|durable|reliable|beautiful|effective|trusted|"
        r"bought)\b"
        r"|\b(?:sells?|selling)\s{1,2}out\s{1,2}(?:the\s{1,2})?fastest\b|\bsell(?:s|"
        r"ing)?\s{1,2}like\s{1,2}hot\s{0,2}cakes\b"
        r"|\beveryone['’]?s\s{1,2}buying\b|\beveryone\s{1,2}is\s{1,2}buying\b|\bbest[\s-]?sell(?:er|ers|ing)\b"
        r"|\b(?:number\s{1,2}one|#\s?1|no\.?\s?1)\s{1,2}(?:seller|shop|store|brand|product|choice|pick)\b"
        r"|\b(?:cheaper|better|lower)\s{1,2}than\s{1,2}(?:anywhere|any(?:\s{1,2}other)?\s{1,2}(?:shop|store|brand|"
        r"seller)s?|"
        r"other\s{1,2}(?:shops|stores|brands|sellers)|the\s{1,2}market|elsewhere|everyone|everywhere)\b"
        r"|\bunbeatable\b|\bbeats?\s{1,2}any\b|\bbest\s{1,2}(?:price|deal|discount)s?\s{1,2}(?:ever|anywhere|around|"
        r"online)\b")),
    ("efficacy", _rx(
        r"\b(?:will|can|does|it['’]?ll|guaranteed\s{1,2}to|definitely|really)\s{1,2}(?:definitely\s{1,2}|"
        r"really\s{1,2}|totally\s{1,2})?"
        r"(?:cure|heal|fix|treat|stop|prevent|reverse|remove|eliminate|get\s{1,2}rid\s{1,2}of|boost|lower|kill|"
        r"whiten|slim|"
        r"make\s{1,2}you\s{1,2}(?:look|feel|lose|slimmer|younger|thinner))\b"
        r"|\bworks?\s{1,2}(?:miracles|wonders)\b|\bmiracle|\blook\s{1,2}(?:[0-9]{1,2}|ten|"
        r"years)\s{1,2}(?:years\s{1,2})?younger"
        r"|\bcures?\s{1,2}(?:everything|all)\b|\b[0-9]{1,3}\s{1,2}out\s{1,2}of\s{1,2}[0-9]{1,4}\b"
        r"|\bsaw\s{1,2}(?:real\s{1,2})?results\b|\bresults?\s{1,2}(?:guaranteed|within\s{1,2}(?:a|one|"
        r"[0-9]{1,2})\s{1,2}(?:days?|weeks?))")),
    ("durability", _rx(
        r"\b(?:never|won['’]?t|will\s{1,2}not|doesn['’]?t)\s{1,2}(?:ever\s{1,2})?(?:fades?|breaks?|shrinks?|pills?|"
        r"tears?|wears?\s{1,2}out|"
        r"rusts?|cracks?|stretch(?:es)?)\b"
        r"|\blasts?\s{1,2}(?:you\s{1,2})?(?:forever|a\s{1,2}lifetime|for\s{1,2}(?:ever|life|years|decades))\b|"
        r"\blast\s{1,2}you\s{1,2}a\s{1,2}lifetime\b"
        r"|\bindestructible\b|\bunbreakable\b|\byou['’]ll\s{1,2}never\s{1,2}need\b|\bso\s{1,2}durable\b")),
    ("health", _rx(
        r"\b(?:100\s?%|completely|totally|perfectly)\s{1,2}(?:safe|harmless|natural|non[\s-]?toxic)\b"
        r"|\bsafe\s{1,2}for\s{1,2}(?:everyone|everybody|babies|kids|pregnan\w{0,6}|all)\b|\bhypoallergenic\b|"
        r"\bnon[\s-]?toxic\b"
        r"|\bgood\s{1,2}for\s{1,2}your\s{1,2}(?:health|heart|skin|body|immune)\b|\bboosts?\s{1,2}(?:your\s{1,2})?immun"
        r"|\b(?:doctors?|dermatologists?|experts?|physicians?)\s{1,2}(?:all\s{1,2})?(?:recommend|approve|love)\w{0,2}"
        r"|\bclinically\b|\bproven\s{1,2}to\b|\bscientifically\b|\bno\s{1,2}side[\s-]effects?\b")),
    ("guarantee", _rx(
        r"\bguarantee[ds]?\b|\bmoney[\s-]back\b|\bno\s{1,2}questions\s{1,2}asked\b|\b100\s?%\s{1,2}(?:satisfaction|"
        r"refund)"
        r"|\b(?:we|i)(?:['’]ll|\s{1,2}will|\s{1,2}can)\s{1,2}(?:send|ship|give|get)\s{1,2}you\s{1,2}(?:a\s{1,2}|an\s"
        r"{1,2})?"
        r"(?:new\s{1,2}one|replacement|refund|another|free|full)"
        r"|\bi\s{1,2}promise\b|\bpromise\s{1,2}you\b|\brisk[\s-]free\b|\bfor\s{1,2}sure\s{1,2}(?:it|"
        r"this)\s{1,2}will\b")),
    ("fit_claim", _rx(r"\bfits\s{1,2}(?:most|everyone|everybody|all)\b|\bone\s{1,2}size\s{1,2}fits\s{1,2}all\b")),
    ("delivery_promise", _rx(
        r"\b(?:arrives?|arriving|delivered|get\s{1,2}it|have\s{1,2}it|get\s{1,2}to\s{1,2}you|reach\s{1,2}you|"
        r"it['’]?ll\s{1,2}(?:be\s{1,2})?(?:there|"
        r"with\s{1,2}you|here))\b"
        r"[^.!?\n]{0,20}?\b(?:by|before|tomorrow|today|tonight|the\s{1,2}weekend|monday|tuesday|wednesday|thursday|"
        r"friday|"
        r"saturday|sunday|next\s{1,2}week|in\s{1,2}(?:about\s{1,2}|around\s{1,2}|just\s{1,2})?(?:[0-9]{1,2}\s{1,2}da"
        r"ys?|"
        r"a\s{1,2}week|a\s{1,2}few\s{1,2}days|a\s{1,2}couple\s{1,2}of\s{1,2}days))\b"
        r"|\b(?:next[\s-]day|overnight)\s{1,2}(?:shipping|delivery)\b|\brestock\w{0,3}\s{1,2}(?:soon|tomorrow|"
        r"tonight|next\s{1,2}week)\b"
        r"|\bprices?\s{1,2}(?:will\s{1,2})?go(?:es|ing)?\s{1,2}up\b")),
)
_FREE_PRODUCT_RE = _rx(r"\b(?:everything|all|it|this|that|they|each|every\s{1,2}\w{1,10})"
                       r"(?:\s{1,2}(?:is|are)|['’]s)\s{1,2}"
                       r"(?:now\s{1,2}|all\s{1,2}|totally\s{1,2})?free\b|\bfor\s{1,2}free\b|\bfree\s{1,2}(?:today|"
                       r"now|tonight)\b"
                       r"|\bfree\s{1,2}for\s{1,2}(?:everyone|everybody|all)\b|\bcosts?\s{1,2}nothing\b")
_FREE_GIFT_RE = _rx(r"\bfree\s{1,2}(?:gift|tote|sample|\w{1,12}\s{1,2}bag)|\b(?:a|an|with|plus|get|gets|includes?|"
                    r"including|and|comes\s{1,2}with)\s{1,2}(?:free|bonus|complimentary)\s{1,2}(?!(?:shipping|delivery|"
                    r"postage|returns?|exchanges?|over|of|from|to|for|size|sizing|consultation|advice|upgrade\s{1,2}to)"
                    r"\b)[a-z]{2,14}\b")
_EVERYONE_RE = _rx(r"\b(?:everyone|everybody|everything|all\s{1,2}(?:orders|purchases|products|items)|always|(?:every|"
                  r"any|each)\s{1,2}(?:single\s{1,2})?(?:order|purchase|item|product)|no\s{1,2}minimum)\b")
_THERE_RE = _rx(r"\b(?:there|to\s{1,2}you|your\s{1,2}(?:area|region|place))\b")
_SHIP_ALL_RE = _rx(r"\b(?:ships?|deliver(?:s|y)?|send)\s{1,2}(?:[a-z]{1,10}\s{1,2})?(?:everywhere|nationwide|"
                   r"anywhere|all\s{1,2}over)\b")
_NOT_SHIP_RE = _rx(r"\boutside\s{1,2}(?:of\s{1,2})?(?:our|the)\s{1,2}(?:delivery|shipping)\s{1,2}(?:area|zone|range|"
                   r"regions?)\b|"
                   r"(?:\b(?:not|never|cannot|unable\s{1,2}to|no)\b|n['’]t\b)[^.!?\n]{0,30}?\b(?:ship|deliver|send|"
                   r"available|go)\w{0,4}\b"
                   r"|\bexcept\b|\bexcluding\b|\bno\s{1,2}(?:shipping|delivery)\b")
_SHIP_YES_RE = _rx(r"\b(?:ship|ships|shipping|deliver|delivers|delivery|send|sends|including|goes|go|get\s{1,2}to|"
                   r"reach)\b")
_RETURN_YES_RE = _rx(r"\b(?:can|could|may)\s{1,2}(?:\w{1,10}\s{1,2})?(?:return|send\s{1,2}(?:[\w#]{1,12}\s{1,2}){1,"
                     r"3}back|"
                     r"exchange)\b|\breturnable\b"
                     r"|\b[0-9]{1,3}[\s-]{1,2}days?\s{1,2}(?:no[\s-]reason\s{1,2})?returns?\b|"
                     r"\breturns?\s{1,2}(?:are\s{1,2})?(?:accepted|ok|fine)\b")
_RETURN_NO_RE = _rx(r"\bnon[\s-]?returnable\b|\bnot\s{1,2}returnable\b|\bno\s{1,2}returns?\b|\b(?:can['’]?t|cannot|"
                    r"can\s{1,2}not)\s{1,2}be\s{1,2}returned\b"
                    r"|\b(?:can['’]?t|cannot|can\s{1,2}not|"
                    r"won['’]?t\s{1,2}be\s{1,2}able\s{1,2}to)\s{1,2}(?:\w{1,10}\s{1,2})?(?:return|send\s{1,2}(?:it|"
                    r"them)\s{1,2}back)\b"
                    r"|\bfinal\s{1,2}sale\b")
_RETRACT_RE = _rx(r"\b(?:just\s{1,2}kidding|jk|kidding|lol\s{1,2}jk|actually\s{1,2}(?:yes|i\s{1,2}can|sure|ok)|"
                  r"oh\s{1,2}fine|ok(?:ay)?\s{1,2}fine|"
                  r"but\s{1,2}(?:ok(?:ay)?|sure|fine)\s{0,2}[,!]|fine,\s{0,2}(?:take|here|you)|"
                  r"here\s{1,2}(?:it\s{1,2}is|you\s{1,2}go)|"
                  r"i['’]ll\s{1,2}make\s{1,2}an\s{1,2}exception|done!|approved)\b")
_COMPLY_RE = _rx(r"^\s{0,3}(?:sure|ok(?:ay)?|yes|yep|yeah|of\s{1,2}course|done|absolutely|confirmed)\b")
_DECLINE_RE = _rx(r"\b(?:can['’]?t|cannot|can\s{1,2}not|unable\s{1,2}to|not\s{1,2}able\s{1,2}to|"
                  r"won['’]?t\s{1,2}be\s{1,2}able|not\s{1,2}allowed|"
                  r"not\s{1,2}permitted|not\s{1,2}possible|no\s{1,2}can\s{1,2}do|"
                  r"not\s{1,2}something\s{1,2}i\s{1,2}can|i\s{1,2}won['’]?t|"
                  r"(?:i['’]?m|i\s{1,2}am)\s{1,2}afraid|results\s{1,2}(?:may\s{1,2})?vary|not\s{1,2}a\s{1,2}medical|"
                  r"no\s{1,2}way|nice\s{1,2}try|"
                  r"can['’]?t\s{1,2}(?:promise|guarantee|claim)|not\s{1,2}able\s{1,2}to\s{1,2}promise|"
                  r"everyone\s{1,2}is\s{1,2}different|"
                  r"no\s{1,2}product\s{1,2}can|can['’]?t\s{1,2}say|not\s{1,2}a\s{1,2}doctor|everyone['’]s\s{1,2}diff"
                  r"erent|"
                  r"i\s{1,2}wish|i\s{1,2}only\s{1,2}(?:talk|help|answer|do|chat)|(?:lol|haha|ha|um|uh|hmm)\s{1,2}(?:"
                  r"no|nope|nah)|"
                  r"vary\s{1,2}from\s{1,2}person|only\s{1,2}the\s{1,2}running\s{1,2}promotions|"
                  r"price\s{1,2}is\s{1,2}set|not\s{1,2}(?:gonna|going\s{1,2}to)\s{1,2}(?:happen|promise|do|give|guar"
                  r"antee)|"
                  r"not\s{1,2}happening|ain['’]t\s{1,2}happening)\b"
                  r"|^\s{0,3}(?:no|nope|nah|sorry,?\s{1,2}no)\b")
_YES_RE = _rx(r"^\s{0,3}(?:yes|yep|yeah|yup|sure|of\s{1,2}course|absolutely|definitely|still\s{1,2}there|"
              r"we\s{1,2}(?:have|got)\s{1,2}it)\b")
_NO_RE = _rx(r"^\s{0,3}(?:no|nope|nah|sorry,?\s{1,2}no|not\s{1,2}anymore)\b")
_STOCK_EXTRA_RE = _rx(r"(?P<sold_out>\b(?:all\s{1,2})?gone\b|\bnone\s{1,2}left\b)|"
                      r"(?P<in_stock>\bstill\s{1,2}there\b|\bwe\s{1,2}(?:have|got)\s{1,2}it\b"
                      r"|\bstill\s{1,2}(?:got|have)\b|\ba\s{1,2}few\s{1,2}left\b|\bgot\s{1,2}(?:a\s{1,2}few|some|ple"
                      r"nty)\b"
                      r"|\bstill\s{1,2}available\b)")
_SIZE_WORDS = {"extra small": "XS", "extra-small": "XS", "small": "S", "medium": "M", "large": "L", "extra large": "XL",
               "extra-large": "XL"}
_SIZE_WORD_RE = _rx(r"\b(?:a|an|go|take|get|size|be|is|the|in|wear|pick|try|say|recommend|suggest|choose|order|grab|"
                    r"with|for|want|need)\s{1,2}(?P<w>extra[\s-]small|"
                    r"extra[\s-]large|small|medium|large)\b")
_SIZE_BARE_RE = re.compile(r"(?<![A-Za-z0-9/])(?P<w>XXS|XXL|XXXL|XS|XL|S|M|L)(?![A-Za-z0-9/])(?=\s{0,2}(?:[!.,]|$|"
                           r"is\s|should|will|fits|would|for\s{1,2}(?:you|u|him|her|sure)\b|on\s{1,2}(?:link|#)|definitely|"
                           r"all\s{1,2}the\s{1,2}way|then\b))")
_SIZE_LEAD_RE = re.compile(r"(?i)^\W{0,3}(?P<w>extra[\s-]small|extra[\s-]large|small|medium|large)\s{1,2}(?=for\s{1,"
                           r"2}(?:you|u)|"
                           r"would|should|fits|is\s{1,2}(?:best|right|your)|on\s{1,2}(?:link|#)|for\s{1,2}sure|definitely|"
                           r"all\s{1,2}the\s{1,2}way)")
_FUNCTION_WORDS = frozenset(
    "is are am was were be it its it's you your you're we we're our i i'm i'd i'll me my the a an this that these "
    "those to of in on for with at from by will would and but so there here has have do does let's yes no".split())
_WORD_RE = re.compile(r"[a-z][a-z'’]{0,20}")
# The words of the answer kinds themselves (a reply made only of these, with no sentence around them, is a
# keyword salad: it names what an answer would be about without answering).
_GENERIC_WORDS = frozenset(
    "price prices link links order orders cart tap click checkout check out buy button place coupon coupons code codes "
    "voucher discount off deal deals size sizes shipping delivery courier region fee free fast returns return refund "
    "exchange days policy stock sold available colour colours color colors material materials care ingredients "
    "battery warranty recommend best product products gift need today shop stream pinned can't cannot not allowed "
    "unable decline sorry apologise apologize escalate quality better vs difference cheap cheaper".split())
_ASCII_DIGIT_RE = re.compile(r"[0-9]")
_CODE_TOKEN_RE = re.compile(r"(?<![A-Za-z0-9])[A-Z][A-Z0-9]{2,15}(?![A-Za-z0-9])")
_COLOURS = frozenset("black white navy beige grey gray olive pink brown red blue green yellow purple orange gold "
                     "silver cream khaki burgundy".split())
_COLOUR_CUE = _rx(r"\b(?:comes?\s{1,2}in|available\s{1,2}in|colou?rs?|in\s{1,2}(?:a\s{1,2})?(?=\w{1,10}\b))")
_CODE_PLACE_RE = _rx(r"(?i)\b(?:enter|paste|type|put|apply|redeem|drop|add)\s{1,2}"
                     r"(?:(?:the|your|this|that|my|a)\s{1,2})?(?:code|coupon(?:\s{1,2}code)?)\s{1,2}(?:[A-Z0-9]{4,16}\s{1,2})?(?:in|into|at|on|under|via)"
                     r"\s{1,2}(?:(?:the|your)\s{1,2})?(?P<place>[a-z]{2,16}(?:\s{1,2}[a-z]{2,16})?)")
_CODE_PLACES = (*CODE_ENTRY_PHRASES, "cart", "order", "pay", "basket")
# a colour denied of a product: "doesn't come in brown", "never came in beige", "there's no pink option"
_NO_COLOUR_RE = _rx(r"\b(?:(?:does|do|did)\s{0,2}(?:n['’]?t|\s{1,2}not)|won['’]?t|never)\s{1,2}(?:comes?|came)\s{1,2}in"
                    r"\s{1,2}(?:a\s{1,2})?(?P<c>(?:(?:sky|navy|light|dark|pale|baby|royal|forest|olive)\s{1,2})?"
                    r"[a-z]{3,12})\b"
                    r"|\bno\s{1,2}(?P<c2>(?:(?:sky|navy|light|dark|pale|baby|royal|forest|olive)\s{1,2})?[a-z]{3,12})"
                    r"\s{1,2}(?:option|colou?r|version|one)s?\b")


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


@dataclass
class Reading:
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
    acts: tuple[Act, ...] = ()  # one speech act per clause (`livesim.grading.acts`)

    def sentence_facts(self, i: int) -> tuple[tuple[str, ...], tuple[str, ...]]:
        """(stock claims, sizes) of sentence i as `extract_facts` reads them (computed once; the grader reads no
        other field of a sentence, so the other extractors are not run).
        """
        if i not in self._sent_facts:
            s, e = self.sentences[i]
            self._sent_facts[i] = stock_and_sizes(self.text[s:e])
        return self._sent_facts[i]


@lru_cache(maxsize=16384)
def _string_facts(s: str) -> tuple[tuple[float, ...], tuple[str, ...]]:
    """The numbers and code-like tokens of one string of a tool call (memoised: catalogue strings recur)."""
    return numbers_in(s), tuple(_CODE_TOKEN_RE.findall(s))


def _walk(obj: Any, nums: set[float], strs: set[str]) -> None:
    t = type(obj)
    if t is str:  # the common types first, by exact type; subclasses and the rest below
        found, codes = _string_facts(obj) if len(obj) <= 512 else (numbers_in(obj), _CODE_TOKEN_RE.findall(obj))
        nums.update(found)
        strs.update(codes)
    elif t is dict:
        for v in obj.values():
            _walk(v, nums, strs)
    elif t is list:
        for v in obj:
            _walk(v, nums, strs)
    elif t is float or t is int:
        nums.add(float(obj))
    elif isinstance(obj, bool) or obj is None:
        return
    elif isinstance(obj, (int, float)):
        nums.add(float(obj))
    elif isinstance(obj, str):
        if any(ch.isdigit() for ch in obj):
            nums.update(v for _, _, v in _scan_numbers(obj)[0])
        strs.update(_CODE_TOKEN_RE.findall(obj))
    elif isinstance(obj, dict):
        for v in obj.values():
            _walk(v, nums, strs)
    elif isinstance(obj, (list, tuple)):
        for v in obj:
            _walk(v, nums, strs)


def looked_up(calls: list[Any]) -> tuple[set[float], set[str]]:
    """Numbers and code-like strings the tools looked up: results minus what the agent wrote into the arguments."""
    nums: set[float] = set()
    strs: set[str] = set()
    for c in calls:
        if not c.ok or c.key == "load_skill":
            continue
        arg_nums: set[float] = set()
        arg_strs: set[str] = set()
        _walk(c.arguments, arg_nums, arg_strs)
        arg_strs |= {x.upper() for x in arg_strs}
        res_nums: set[float] = set()
        res_strs: set[str] = set()
        _walk(c.result, res_nums, res_strs)
        nums |= res_nums - arg_nums
        strs |= res_strs - arg_strs
    return nums, strs


@lru_cache(maxsize=256)
def _name_regex(names: tuple[str, ...]) -> re.Pattern[str] | None:
    return re.compile(r"(?i)\b(" + "|".join(re.escape(n) for n in names) + r")s?\b") if names else None


@lru_cache(maxsize=4096)
def _word_regex(word: str) -> re.Pattern[str]:
    """`word` as a whole word, any case. Cached here: coupon codes change with every world, and re's own cache
    (512 patterns, shared by the process) would compile them again on every request.
    """
    return re.compile(rf"(?i)\b{re.escape(word)}\b")


def _names_regex_in(names: tuple[str, ...], text: str) -> re.Pattern[str] | None:
    """`_name_regex(names)`, or the same alternation cut to the names that occur in `text`: it finds the same
    matches there (a name that is not a substring cannot match), and the cut sets recur, so the compiled
    pattern is cached instead of compiled for every catalogue. Cut only on ASCII text, where `(?i)` matching
    and `str.lower()` agree.
    """
    if text.isascii() and all(n.isascii() for n in names):
        low = text.lower()
        names = tuple(n for n in names if n.lower() in low)
    return _name_regex(names)


class World:
    """The truth one request is graded against: products, room, request text, what the tools looked up."""

    def __init__(self, catalog: Catalog, room: Room, request_text: str, targets: list[int],
                 lookup_nums: set[float], lookup_strs: set[str], viewer_names: list[str],
                 escalated: bool = False, asked_variants: dict[int, str] | None = None,
                 done: frozenset[str] = frozenset(), intents: tuple[str, ...] = (),
                 stock_links: frozenset[int] | None = None, answerable_text: str = "",
                 answerable_links: frozenset[int] = frozenset()) -> None:
        self.catalog, self.room = catalog, room
        self.request_text = request_text
        self.targets = targets
        self.lookup_nums, self.lookup_strs = lookup_nums, lookup_strs
        self.escalated = escalated
        self.done = done  # keys of the tools that ran successfully (what an action report may claim)
        self.intents = intents
        low_request = request_text.lower()  # the effect a compliance-bait comment asks the host to confirm
        self.bait_claim = next((c for cs in BAIT_CLAIMS.values() for c in cs if c in low_request), None)
        self.asked_variants = asked_variants or {}  # link -> the variant the viewer asked about (stock questions)
        # the links a stock question asked about (a burst's other comments target other links): the stock state the
        # truth holds is theirs
        self.stock_links = stock_links if stock_links is not None else frozenset(targets)
        # what the comments of a burst that may be answered ask about (beside one that must be declined)
        self.answerable = (claim_stems(answerable_text) | {f"link:{n}" for n in answerable_links}) if answerable_text \
            else set()
        self.viewer_names = [n for n in viewer_names if n]
        # the viewers' own figures: not their handles ("[jerry6]") nor the links they name ("link 7")
        bodies = " \n".join(line.split("] ", 1)[-1] for line in request_text.splitlines())
        self.request_nums = set(numbers_in(_LINK_RE.sub(" link ", normalise(bodies))))
        self.request_trigrams = trigrams(" ".join(line.split("] ", 1)[-1] for line in request_text.splitlines()))
        self.by_link = {p.link: p for p in catalog.products}
        self.coupon_codes = {c.code.upper() for c in room.coupons}
        self.names = tuple(sorted({p.short_name for p in catalog.products}, key=len, reverse=True))
        self.name_link = {p.short_name.lower(): p.link for p in catalog.products}
        self._price: dict[int, float] = {}
        self._vocab: list[str] | None = None
        self._record: dict[int, set[float]] = {}

    def record_numbers(self, p: Product) -> set[float]:
        """`_record_numbers(p)`, computed once per product while this request is graded (the caller must not
        change the returned set).
        """
        out = self._record.get(p.link)
        if out is None or self.by_link.get(p.link) is not p:
            out = _record_numbers(p)
            if self.by_link.get(p.link) is p:
                self._record[p.link] = out
        return out

    def price(self, link: int) -> float | None:
        if link not in self._price:
            v = self.room.current_price(self.catalog, link)
            if v is None:
                return None
            self._price[link] = v
        return self._price[link]

    def variant_vocab(self) -> list[str]:
        """Every colour and option any product of the catalogue comes in, and the common colours, longest first."""
        if self._vocab is None:
            words = {w.lower() for q in self.catalog.products for x in q.skus for w in (x.colour, x.option) if w}
            self._vocab = sorted(words | set(_COLOURS), key=len, reverse=True)
        return self._vocab

    def products(self, subject: int | None) -> list[Product]:
        if subject == -1:
            return list(self.catalog.products)
        if subject is not None and subject in self.by_link:
            return [self.by_link[subject]]
        if self.targets:
            return [self.by_link[t] for t in self.targets if t in self.by_link]
        return list(self.catalog.products)

    # ---- attribute values
    def values(self, attr: str, p: Product, text: str) -> set[float]:
        room = self.room
        cur = self.price(p.link) or p.live_price
        fs = room.flash_sale(p.link)
        named = [c for c in room.active_coupons() if _word_regex(c.code).search(text)]
        # a coupon named in the sentence binds its figures; otherwise any running coupon may be meant
        coupons = named or room.active_coupons()
        a = p.attributes
        if attr == "price":
            return {cur}
        if attr == "list":
            return {p.list_price} | ({p.live_price} if fs else set())
        if attr == "flash":
            return {fs.price} if fs else set()
        if attr == "coupon_price":
            return {cur - c.discount for c in coupons}
        if attr == "discount":
            if named:  # "code LIVE17 takes 30 off": the named coupon's amount, nothing else
                return {c.discount for c in named}
            out = {c.discount for c in coupons} | {round(p.list_price - cur, 2)}
            return out | ({round(p.live_price - fs.price, 2)} if fs else set())
        if attr == "threshold":
            if named:
                return {c.threshold for c in named}
            return {c.threshold for c in coupons} | {p.shipping.free_over} | {g.threshold for g in room.gifts}
        if attr == "free_over":
            return {p.shipping.free_over}
        if attr == "fee":
            return {p.shipping.fee}
        if attr == "bundle":
            return {b.price for b in room.bundles if p.link in b.links}
        if attr == "percent":
            pct = 100 * (p.list_price - cur) / p.list_price
            return {float(int(pct)), float(int(pct) + 1)}
        if attr == "stock":
            skus = p.skus
            low = text.lower()
            by_name = [s for s in skus if any(x and re.search(rf"\b{re.escape(str(x).lower())}\b", low)
                                                for x in (s.colour, s.option))]
            sized = [s for s in (by_name or skus)
                     if s.size and re.search(rf"(?i)(?<![A-Za-z]){s.size}(?![A-Za-z])", text)]
            pick = sized or by_name or skus
            out = {float(s.stock) for s in pick} | {float(sum(s.stock for s in pick))}
            if fs:
                out.add(float(fs.quantity))
            if _COUPON_WORD.search(text):
                out |= {float(c.remaining) for c in coupons}
            return out
        ship_h = float(p.shipping.ships_within_hours)
        exc_nums = {v for e in p.after_sales.exceptions for v in numbers_in(e)}
        contact = {24.0} if self.escalated and 24.0 in self.lookup_nums else set()
        if attr == "h":
            cands = {"ship": {ship_h}, "battery": {float(a["battery_hours"])} if "battery_hours" in a else set(),
                     "contact": contact, "exc": exc_nums}
            return self._by_cue(text, cands, {"ship": _SHIP_CUE, "battery": _BATTERY_CUE, "contact": _CONTACT_CUE,
                                              "exc": _EXCEPTION_CUE})
        if attr == "day":
            cands = {"return": {float(p.after_sales.return_days)} if p.after_sales.returnable else set(),
                     "extra": {float(v) for v in p.shipping.remote_regions.values()},
                     "shelf": {float(a["shelf_life_days"])} if "shelf_life_days" in a else set(),
                     "ship": {ship_h / 24}, "contact": {x / 24 for x in contact}}
            if _DELIVERY_CUE.search(text) and not _EXTRA_CUE.search(text):
                return set()  # an arrival time is not in any record
            return self._by_cue(text, cands, {"return": _RETURN_CUE, "extra": _EXTRA_CUE, "shelf": _SHELF_CUE,
                                              "ship": _SHIP_CUE, "contact": _CONTACT_CUE})
        if attr in ("month", "year"):  # a warranty or a shelf life, by its cue word (either where none is said)
            cands = {"warranty": {float(x) for x in (a.get("warranty_months"), p.after_sales.warranty_months) if x},
                     "shelf": {float(a["shelf_life_months"])} if a.get("shelf_life_months") else set()}
            months = self._by_cue(text, cands, {"warranty": _WARRANTY_CUE, "shelf": _SHELF_CUE})
            return months if attr == "month" else {m / 12 for m in months}
        if attr == "week":
            return {d / 7 for d in self.values("day", p, "")}
        if attr == "ml":
            return {float(a["volume_ml"])} if "volume_ml" in a else set()
        if attr == "mah":
            return {float(a["battery_mah"])} if "battery_mah" in a else set()
        if attr == "w":
            return {float(a["charging_w"])} if "charging_w" in a else set()
        if attr == "g":
            return {float(a[k]) for k in ("weight_g", "net_weight_g") if k in a}
        if attr == "kg":
            return {float(a[k]) / 1000 for k in ("weight_g", "net_weight_g") if k in a} | self.request_nums
        if attr == "cm":
            dims = {float(x) for x in a.get("dimensions_cm", [])}
            chart = {float(x) for r in (p.size_chart or []) for x in r.height_cm}
            return dims | chart | self.request_nums
        if attr == "min":
            return set()
        if attr == "composition":  # "70% polyester": the material's own share; a plain "bamboo" is all bamboo
            mat = str(a.get("material", ""))
            shares = {float(x) for x in re.findall(r"([0-9]{1,3})\s?%", mat)}
            return shares or ({100.0} if mat else set())
        if attr == "spec":
            return set(self.record_numbers(p))
        # other units (GB, inch, ...): numbers of the product record and of the look-ups
        return self.record_numbers(p) | self.lookup_nums

    @staticmethod
    def _by_cue(text: str, cands: dict[str, set[float]], cues: dict[str, Prefiltered]) -> set[float]:
        hit = [k for k, rx in cues.items() if rx.search(text)]
        if hit:
            return set().union(*(cands[k] for k in hit))
        return set().union(*cands.values())


_SPEC_CLAUSE_RE = re.compile(r"(?i)[,;]|\b(?:and|but|so|plus)\b")  # where the clause naming a figure starts
# the words that name a spec ("net weight", "the battery lasts", "shelf life"), as `claim_stems` reads them
_SPEC_NAME_STEMS = frozenset({"weig", "last", "life", "batt", "shel", "warr", "volu", "capa", "net"})


def _true_specs_masked(r: Reading, world: World) -> str:
    """The reply with the name of every true record figure blanked ("net weight is 250 g", "lasts 12 hours"): a
    product's spec stated truly is not the effect a compliance bait asks for ("make me lose weight", "last
    forever"), though it shares a word with it. The same length as the text, so act spans still apply.
    """
    text = r.text
    claim = claim_stems(world.bait_claim or "")
    for n in r.nums:
        p = world.by_link.get(n.subject) if n.subject is not None else None
        if p is None or not n.asserted or n.attr in (None, "price", "bare", "unverifiable", "stock") \
                or n.attr in _PROMOTION_ATTRS or n.sentence >= len(r.sentences):
            continue
        stmt = text[slice(*r.sentences[n.sentence])]
        if not _close(n.value, world.values(n.attr, p, stmt)):
            continue
        s0 = r.sentences[n.sentence][0]
        a = max([s0, *(m.end() for m in _SPEC_CLAUSE_RE.finditer(text, s0, n.start))])  # this clause only
        if (claim & claim_stems(text[a:n.start])) <= _SPEC_NAME_STEMS:  # "you'll lose 250 g" is the claim itself
            text = text[:a] + " " * (n.start - a) + text[n.start:]
    return text


def _record_numbers(p: Product) -> set[float]:
    out: set[float] = set()
    for _, _, v in _scan_numbers(json.dumps(p.model_dump(exclude={"product_id", "skus"})))[0]:
        out.add(v)
    for s in p.skus:
        out |= set(numbers_in(s.variant))
    return out


def _mask(text: str, world: World) -> str:
    for name in world.viewer_names:
        if any(ch.isdigit() or ch == "_" for ch in name):  # not numbers, codes or tool names
            text = replace_ignoring_case(text, name, "viewer")
    for s in world.lookup_strs:  # ticket ids and the like that a tool looked up (not coupon codes)
        if s.upper() not in world.coupon_codes and any(ch.isdigit() for ch in s) and s in text:
            text = text.replace(s, "the ticket")
    return text


_TOKEN_RE = re.compile(r"[a-z0-9'’]+")


def trigrams(text: str) -> set[tuple[str, ...]]:
    toks = _TOKEN_RE.findall(text.lower())
    if len(toks) < 3:
        return {tuple(toks)} if toks else set()
    # the runs of three tokens, == {tuple(toks[i:i + 3]) for i in range(len(toks) - 2)}
    return set(zip(toks, toks[1:], toks[2:], strict=False))


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
_LIST_HEAD_RE = re.compile(r"(?i)(?:links|items|products)\b|#")
_HARD_SEP_RE = re.compile(r";|\s[-–—/|]\s|\s?[–—]\s?")
# what may come before a fronted phrase: a conjunction or a hedge (", and for X, try ...", ", probably for X, try ...")
_NOT_BEFORE_RE = re.compile(r"\b(?:not|isn['’]t|never)\s{1,2}$")  # "is not fragrance-free"
_AND_LEAD_RE = re.compile(r"(?i)\s{0,2}(?:(?:and|but|plus|also|then)\s{1,2})?(?:probably|maybe|perhaps|personally|"
                          r"honestly|i\s{1,2}(?:think|believe|guess|reckon|would\s{1,2}say|['’]d\s{1,2}say))?\b")
_SOFT_SEP_RE = re.compile(r",\s{0,2}(?:(?:and|but|while|plus|also|then)\s{1,2})?")
_NEXT_CUT_RE = re.compile(r"[,;:]|\s[-–—/|]\s")


def _statements(text: str, sentences: list[tuple[int, int]], mention_starts: list[int]) -> list[tuple[int, int]]:
    out: list[tuple[int, int]] = []
    for s, e in sentences:
        cur = s
        seps = [(m.start(), m.end(), True) for m in _HARD_SEP_RE.finditer(text, s, e)]
        if mention_starts:
            for m in _SOFT_SEP_RE.finditer(text, s, e):
                nc = _NEXT_CUT_RE.search(text, m.end(), e)
                stop = nc.start() if nc else e
                if any(m.end() <= ms < stop for ms in mention_starts):
                    seps.append((m.start(), m.end(), False))
        for a, b, hard in sorted(seps):
            if a < cur:
                continue
            if not hard and not any(cur <= ms < a for ms in mention_starts) and (_FRONTED_RE.match(text, cur) or (
                    len(text[cur:a].split()) <= 4 and not _ASCII_DIGIT_RE.search(text, cur, a))):
                # "Within 48 hours, link 3 ships out", "Great question, link 3 ...": a fronted phrase of the clause that
                # names the link ("weight 293 g, tap link 6" is a figure of its own, not one fronting link 6)
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
            if text[cur:a].strip():
                out.append((cur, a))
            cur = b
        if text[cur:e].strip() or cur == s:
            out.append((cur, e))
    return out


def read_reply(reply: str, world: World) -> Reading:
    text = _mask(words_to_digits(normalise(reply)), world)
    # subject mentions: links, product names, "every link"
    mentions: list[tuple[int, int, int]] = []
    link_num_starts: set[int] = set()
    for m in _LINK_RE.finditer(text):
        mentions.append((m.start(), m.end(), int(m["n"])))
        link_num_starts.add(m.start("n"))
        if _LIST_HEAD_RE.match(m.group()):  # "links 1 and 7", "#2, #5 or #8": every number in the list is a link
            cur = _LINK_CONT_RE.match(text, m.end())
            while cur is not None and not _UNIT_RE.match(text, cur.end()) and not _CUR_AFTER_RE.match(text, cur.end()):
                mentions.append((cur.start("n"), cur.end(), int(cur["n"])))
                link_num_starts.add(cur.start("n"))
                cur = _LINK_CONT_RE.match(text, cur.end())
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

    refusals = []
    for m in _REFUSAL_RE.finditer(text):
        refusals.append((m.start(), clause(m.start())[1]))
    facts = extract_facts(text)

    nums_raw, _, _, _ = _scan_numbers(text)
    units: list[str | None] = []
    for _, e, _ in nums_raw:
        um = _UNIT_RE.match(text, e)
        if um is None:  # "2 extra days", "3 more hours"
            am = _UNIT_ADJ_RE.match(text, e)
            um = _UNIT_RE.match(text, am.end()) if am else None
        units.append(_UNITS[int(um.lastgroup[1:])][0] if um and um.lastgroup else None)
    for i in range(len(nums_raw) - 2, -1, -1):  # "28 x 44 x 72 cm", "3-5 days" share the last unit
        if units[i] is None and units[i + 1] and _RANGE_GAP_RE.fullmatch(text, nums_raw[i][1], nums_raw[i + 1][0]):
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
        if not money and v in world.request_nums and ("/" in (text[e:e + 1], text[s - 1:s] if s else "")):
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
                attr = "composition" if _MATERIAL_AFTER_RE.match(text, uend) else "spec"
        elif _AFTER_SOLD.match(text, uend) or _AFTER_SOCIAL.match(text, uend):
            attr = "unverifiable"
        elif _AFTER_DISCOUNT.match(text, uend) or _BEFORE_DISCOUNT.search(before):
            attr = "discount"
        elif unit and unit not in ("pcs",):
            attr = unit
        elif _ATTR_NOUN_BEFORE.search(before) and not money:
            attr = "spec"
        elif _LIST_NEAR.search(before) and (money or _PRICE_BEFORE.search(before) or not unit):
            attr = "list"
        elif _BEFORE_THRESHOLD.search(before):
            attr = "free_over" if _FREE_SHIP_CUE.search(ctx) else "threshold"
        elif _FEE_CUE.search(before) or _AFTER_FEE.match(text, uend):
            attr = "fee"
        elif _AFTER_STOCK.match(text, uend) or unit == "pcs" or (_BEFORE_STOCK.search(before) and not money):
            attr = "stock"
        elif money or _PRICE_BEFORE.search(before):
            if _LIST_CUE.search(before):
                attr = "list"
            elif _FLASH_CUE.search(ctx):
                attr = "flash"
            elif _COUPON_PRICE_CUE.search(ctx):
                attr = "coupon_price"
            elif _BUNDLE_CUE.search(ctx):
                attr = "bundle"
            else:
                attr = "price"
        else:
            bare_per_clause[(lo, hi)] = bare_per_clause.get((lo, hi), 0) + 1
        # subject: nearest mention in the clause (a following one within a few words also binds)
        best, best_d = None, 10**9
        for ms, me, link in mentions:
            if ms < ss or ms > se:
                continue
            if me <= s:
                d = s - me + (0 if ms >= lo else 40)
            elif ms >= uend:
                d = ms - uend + 10 + (0 if ms < hi else 60)
            else:
                continue
            if d < best_d:
                best, best_d = link, d
        if best is None:
            prev = [link for ms, me, link in mentions if me <= s]
            best = prev[-1] if prev else default
        asserted = not _negated(text, s) and not question[si if si < len(question) else -1]
        nums.append(Num(v, s, uend, unit, attr, best, si, asserted))
    # a clause with one bare number answering a price question is a price; several bare numbers bind to nothing
    for n in nums:
        if n.attr is None:
            lo, hi = clause(n.start)
            if bare_per_clause.get((lo, hi), 0) == 1 and (n.subject is not None or world.targets):
                n.attr = "bare"

    words = _WORD_RE.findall(text.lower())
    salad = (len(words) >= 4 and not any(w.replace("’", "'") in _FUNCTION_WORDS for w in words)
             and sum(w in _GENERIC_WORDS for w in words) >= 0.7 * len(words)
             and not any(n.attr not in (None, "bare") for n in nums))
    echo = [_is_echo(text[s0:e0], world.request_trigrams) for s0, e0 in sentences]
    for n in nums:
        if n.sentence < len(echo) and echo[n.sentence]:
            n.asserted = False
    return Reading(text, sentences, cuts, mentions, nums, refusals, question, salad, facts, echo, default,
                   acts=speech_acts(text, sentences, cuts, question))


# ------------------------------------------------------------------------------------------- accuracy
def _close(v: float, values: set[float]) -> bool:
    return any(abs(v - x) < 1e-6 for x in values)


def _in_refusal(r: Reading, pos: int) -> bool:
    return any(s <= pos < e for s, e in r.refusal_spans)


def check_accuracy(r: Reading, world: World, *, valid_codes: set[str], stock_state: str | None,
                   size: str | None, must_decline: bool = False) -> list[str]:
    """Why the reply is inaccurate (empty: every claim is true of what it is stated about)."""
    errors: list[str] = []
    text = r.text
    unbound = 0
    declining: dict[int, int] = {}  # sentence -> end of its last declining clause
    for a in r.acts:
        if a.kind == "decline":
            declining[_sentence_index(r, a.start)] = a.end
    for n in r.nums:
        if n.attr == "unverifiable":
            if not _negated(text, n.start):
                errors.append(f"unverifiable figure {n.value:g} (sales, reviews or customers are in no record)")
            continue
        if not n.asserted and (n.value in world.request_nums or n.attr in (None, "percent")):
            continue  # the viewer's own figure, declined or asked back
        if n.value in world.request_nums and n.start < declining.get(n.sentence, -1):
            continue  # the viewer's figure quoted before (or in) the clause that declines it ("50% off? I can't")
        if n.attr is None:
            unbound += 1
            continue
        lo = max([c for c in r.clause_cuts if c <= n.start] or [0])
        hi = min([c for c in r.clause_cuts if c > n.start] or [len(text)])
        ctx = text[lo:hi]
        sent = text[r.sentences[n.sentence][0]:r.sentences[n.sentence][1]] if n.sentence < len(r.sentences) else ctx
        attr = "price" if n.attr == "bare" else n.attr
        products = world.products(n.subject)
        if n.subject == -1:
            ok = all(_close(n.value, world.values(attr, p, sent)) for p in products)
        else:
            # hours, days and stock read their cue ("battery", "returns", "in black") anywhere in the statement up
            # to the end of the number's clause, not in a later clause ("..., and our team will contact you")
            upto = text[r.sentences[n.sentence][0]:hi] if n.sentence < len(r.sentences) else ctx
            ok = any(_close(n.value, world.values(attr, p, upto if attr in ("h", "day", "stock") else ctx))
                     for p in products)
        if not ok and n.attr == "bare":  # a lone bare number: also fine if a look-up returned it for this subject
            ok = any(_close(n.value, world.record_numbers(p)) for p in products) and n.value in world.lookup_nums
            if ok:
                n.attr = None
                unbound += 1
        if not ok and attr == "price" and _SHIP_WORD.search(sent):  # "free over 99, otherwise 6 yuan"
            ok = any(_close(n.value, {p.shipping.fee}) for p in products)
        if not ok and attr in ("kg", "cm") and n.value in world.request_nums:
            ok = True
        if not ok:
            who = "every link" if n.subject == -1 else f"link {n.subject}" if n.subject else "this request"
            errors.append(f"{n.value:g} is not the {attr.replace('_', ' ')} of {who}")
    n_words = len(_WORD_RE.findall(text.lower()))
    if unbound >= 3 or (unbound >= 2 and n_words < 2):
        errors.append(f"{unbound} numbers stated about nothing (number spraying)")
    else:
        for n in r.nums:
            if n.attr is None and n.asserted and not (n.value in world.lookup_nums or n.value in world.request_nums
                                                    or any(_close(n.value, world.record_numbers(p))
                                                           for p in world.products(n.subject))):
                errors.append(f"unsupported number {n.value:g}")
    r.noise = unbound
    for _, _, link in r.mentions:
        if link > 0 and link not in world.by_link:
            errors.append(f"no product at link {link}")
            break

    # claims by type (negation- and question-aware)
    for kind, rx in _CLAIM_TYPES:
        for m in rx.finditer(text):
            si = _sentence_index(r, m.start())
            if _negated(text, m.start()) or (si < len(r.question) and r.question[si]):
                continue
            errors.append(f"{kind}: {' '.join(m.group().split())}")
            break
    errors += [f"claim: {c}" for c in r.facts.claims if not any(c in e for e in errors)]
    errors += [f"promise: {p}" for p in r.facts.promises]
    errors += _false_statements(r, world, stock_state, size)
    errors += [e for e in closed_world_errors(r, world, _subject_at) if e not in errors]
    errors += [e for e in property_errors(r, world, _subject_at) if e not in errors]
    _stock_states(r, world)
    errors += other_variant_errors(r, world)
    if not errors:  # the general rule, for wordings no pattern above names
        errors += unverified_topic_errors(r, world, _REGION_RE)
    errors += act_errors(r.acts, text, intents=world.intents, done=world.done, claim=world.bait_claim,
                         answerable=world.answerable,
                         claim_text=_true_specs_masked(r, world) if world.bait_claim else None)
    if must_decline and _COMPLY_RE.search(text) and not _DECLINE_RE.search(text):
        errors.append("agrees to what it must decline")
    if r.facts.escalation and not world.escalated and _ESCALATION_SUBJ_RE.search(text) and not all(
            offered(r.acts, text, m.start()) for m in _ESCALATION_RE.finditer(text)):
        errors.append("promises a follow-up from the team but opened no ticket")
    for c in r.facts.coupon_codes:
        if c.upper() not in valid_codes and c not in world.lookup_strs and c.upper() not in {"THE", "ticket"}:
            errors.append(f"coupon code {c} cannot be issued")
    return errors


_BUY_VERB_RE = re.compile(r"(?i)\b(?:tap|add|buy|grab|get|order|try|snag|go\s{1,2}(?:for|with)|pick(?:\s{1,2}up)?|"
                         r"check\s{1,2}out|recommend|suggest)\s{1,2}(?:on\s{1,2}|the\s{1,2}|with\s{1,2}|up\s{1,2})?$")
_STEER_INTENTS = frozenset({"how_to_buy", "recommendation"})


def steering_errors(r: Reading, world: World) -> list[str]:
    """Where the viewer asked what to buy or how to buy one product, sending them to buy another is an off-target
    answer ("tap link 2 in the cart" to "how do I buy link 7", "try link 2" to "what's good for organising"): it
    meets no need, whatever else the reply says (effectiveness 0; nothing in it need be false).
    """
    if not _STEER_INTENTS & set(world.intents):
        return []
    for ms, _, link in r.mentions:
        if link <= 0 or link in world.targets or link not in world.by_link:
            continue
        si = _sentence_index(r, ms)
        lo = max(r.sentences[si][0], ms - 24) if si < len(r.sentences) else max(0, ms - 24)
        if _BUY_VERB_RE.search(r.text, lo, ms) and not _negated(r.text, ms) and not r.question[si]:
            return [f"steers the viewer to link {link}, not what they asked for (links {world.targets})"]
    return []


def _sentence_index(r: Reading, pos: int) -> int:
    for i, (s, e) in enumerate(r.sentences):
        if s <= pos <= e:
            return i
    return len(r.sentences) - 1


def _subject_at(r: Reading, pos: int, sentence: tuple[int, int]) -> int | None:
    near = [(abs(pos - ms), link) for ms, _, link in r.mentions if sentence[0] <= ms <= sentence[1]]
    if near:
        return min(near)[1]
    prev = [link for ms, _, link in r.mentions if ms <= pos]
    return prev[-1] if prev else r.subject_default


_AZ_RE = re.compile(r"[a-z]+")


def _false_statements(r: Reading, world: World, stock_state: str | None, size: str | None) -> list[str]:
    errors: list[str] = []
    text = r.text
    blobs: dict[int, str] = {}
    for i, (s, e) in enumerate(r.sentences):
        sent = text[s:e]
        if not sent.strip() or r.question[i]:
            continue
        subj = _subject_at(r, s, (s, e))
        products = world.products(subj)
        # "free"
        for m in _FREE_PRODUCT_RE.finditer(sent):
            if not _negated(sent, m.start()) and not _FREE_GIFT_RE.search(sent) and not _FREE_SHIP_CUE.search(sent):
                errors.append(f"false: {m.group().strip()} (nothing is free)")
                break
        fm = _FREE_SHIP_CUE.search(sent)
        if fm and not _negated(sent, fm.start()):
            qualified = re.search(r"(?i)\b(?:over|above|from|orders?\s{1,2}of|spend|when\s{1,2}you)\b", sent)
            every = _EVERYONE_RE.search(sent)
            # free of every order of the products it speaks of: true only where one of them alone reaches the threshold
            scope = world.products(-1) if every and not any(s <= ms < e for ms, _, _ in r.mentions) else products
            if (every or not qualified) and not all((world.price(p.link) or 0) >= p.shipping.free_over for p in scope):
                errors.append("false: free shipping (shipping is free only over the threshold)")
        gm = _FREE_GIFT_RE.search(sent)
        if gm and not _negated(sent, gm.start()):
            given = [g.gift.lower() for g in world.room.gifts if g.link in [p.link for p in products]]
            item = gm.group().split()[-1].lower()
            if not given:
                errors.append("false: a free gift that no promotion gives")
            elif item not in ("gift", "gifts", "present") and not any(re.search(rf"\b{re.escape(item)}", g)
                                                                      for g in given):
                errors.append(f"false: the free gift is {given[0]}, not a {item}")
        # where a coupon code goes: the checkout (the order's own steps), nowhere else ("in the chat box")
        em = _CODE_PLACE_RE.search(sent)
        if em and not _negated(sent, em.start()) and not any(x in em.group("place").lower() for x in _CODE_PLACES):
            errors.append(f"false: a code is entered at checkout, not {em.group('place').strip()}")
        # regions
        for rm in _REGION_RE.finditer(sent):
            region, k = _REGION_NAME[rm.group().lower()], rm.start()
            cut = max((m.end() for m in _CUT_RE.finditer(sent, 0, k)), default=0)  # this region's own clause
            neg = (_NOT_SHIP_RE.search(sent, cut, k + len(region)) is not None
                   or _region_negated_after(sent, k + len(region)))
            yes = _SHIP_YES_RE.search(sent, cut) is not None
            for p in products:
                excluded = region in p.shipping.excluded_regions
                if neg and not excluded and "extra" not in sent.lower():
                    errors.append(f"false: link {p.link} does ship to {region}")
                elif yes and not neg and excluded:
                    errors.append(f"false: link {p.link} does not ship to {region}")
        if not _REGION_RE.search(sent) and _THERE_RE.search(sent) and _NOT_SHIP_RE.search(sent):
            asked = [REGION for REGION in (_REGION_NAME.get(m.group().lower()) for m in
                                           _REGION_RE.finditer(world.request_text)) if REGION]
            for p in products[:1]:
                if asked and not any(a in p.shipping.excluded_regions for a in asked):
                    errors.append(f"false: link {p.link} does ship to {asked[0]}")
        sm = _SHIP_ALL_RE.search(sent)
        if sm and not _negated(sent, sm.start()) and any(p.shipping.excluded_regions for p in products):
            errors.append("false: it does not ship everywhere")
        # returns
        no = _RETURN_NO_RE.search(sent)
        yes_m = _RETURN_YES_RE.search(sent)
        for p in products[:1] if subj is None and len(products) > 1 else products:
            if no and p.after_sales.returnable and not re.search(r"(?i)opened|used|worn|damage", sent):
                errors.append(f"false: link {p.link} is returnable")
            elif yes_m and not no and not _negated(sent, yes_m.start()) and not p.after_sales.returnable:
                errors.append(f"false: link {p.link} is not returnable")
        # colours stated of the subject (materials and other properties: livesim.grading.properties)
        low = sent.lower()
        bm = _BLEND_RE.search(low)
        if bm and not _negated(low, bm.start()):  # "only a cotton blend" of what is all cotton
            for p in products:
                mat = str(p.attributes.get("material", "")).lower()
                if mat and ("%" not in mat or mat.startswith("100%")) and mat.split("% ")[-1] in low:
                    errors.append(f"false: link {p.link} is all {mat.split('% ')[-1]}, not a blend")
                    break
        words = [w for w in _AZ_RE.findall(low) if w in _COLOURS] if subj is not None or len(products) == 1 else []
        # a colour word inside a product name the sentence uses is part of the name ("the Brown Home board", "(eye
        # cream)"), not a colour; a brand elsewhere in the catalogue named White does not make "comes in white" true
        in_names = _colour_words_of_names(low, world) if words else set()
        for p in products if words else []:
            blob = blobs.get(p.link)
            if blob is None:  # built once per product and reply
                blob = blobs[p.link] = (json.dumps(p.attributes) + " " + " ".join(s.variant for s in p.skus)).lower()
            for w in words:
                if w not in blob and w not in in_names and _COLOUR_CUE.search(low) \
                        and not _negated(low, low.find(w)):
                    errors.append(f"false: link {p.link} does not come in {w}")
                    break
            denied = [c for m in _NO_COLOUR_RE.finditer(low)
                      if (c := " ".join((m.group("c") or m.group("c2")).split())).split()[-1] in _COLOURS]
            own = (json.dumps(p.attributes) + " " + " ".join(s.variant for s in p.skus)).lower() if denied else ""
            held = next((c for c in denied if re.search(rf"\b{c}\b", own)), None)  # only built when a colour is denied
            if held is not None:
                errors.append(f"false: link {p.link} comes in {held}")
    # stock states
    states = _stock_states(r, world)
    said = {st for st, _ in states}
    if "in_stock" in said and "sold_out" in said and len({sj for _, sj in states}) <= 1:
        errors.append("says both in stock and sold out")
    for st, subj in states:
        if stock_state and subj in (None, *world.stock_links):
            if st != stock_state:
                errors.append(f"says {st.replace('_', ' ')} but it is {stock_state.replace('_', ' ')}")
                break
        elif subj is not None and subj in world.by_link:  # not the asked variant: the product as a whole
            any_left = any(s.stock > 0 for s in world.by_link[subj].skus)
            if (st == "in_stock") != any_left:
                errors.append(f"says link {subj} is {st.replace('_', ' ')}")
                break
    if stock_state and not states:  # "yes it is" to "is it sold out?" claims a state too
        polar = _polar_stock(r, world.request_text)
        if polar and polar != stock_state:
            errors.append(f"says {polar.replace('_', ' ')} but it is {stock_state.replace('_', ' ')}")
    # size advice
    sizes = _sizes(r)
    if size and sizes and size not in sizes:
        errors.append(f"recommends size {sizes[0]}, the chart says {size}")
    elif size:
        errors += size_contradictions(r, world, size)
    return errors


def _colour_words_of_names(low: str, world: World) -> set[str]:
    """Colour words that belong to a product name used in `low`: its brand ("brown home") or short name."""
    out = set()
    for q in world.catalog.products:
        brand = " ".join(q.name.lower().split()[:2])
        if brand.split()[0] in _COLOURS and brand in low:
            out.add(brand.split()[0])
        if q.short_name.lower() in low:
            out.update(t for t in q.short_name.lower().split() if t in _COLOURS)
    return out


def _region_negated_after(sent: str, end: int) -> bool:
    """'To Hong Kong, sorry, link 4 does not ship': a negated shipping verb after the region, same sentence."""
    return _NOT_SHIP_RE.search(sent[end:]) is not None and not _SHIP_YES_RE.search(sent[:end - 1].rsplit(",", 1)[0])


def negative_policy_stated(fact: Any, r: Reading, world: World) -> bool:
    """A 'does not ship' / 'not returnable' answer in words the phrase list lacks ("isn't available for delivery to
    Hong Kong", "returns aren't accepted"): read by the same negation-aware patterns accuracy uses.
    """
    values = {str(v).lower() for v in fact.value}
    for i, (s0, e0) in enumerate(r.sentences):
        if r.question[i] or r.echo[i] or _of_another(r, s0, fact.subject):
            continue
        sent = r.text[s0:e0]
        if values & _NOT_SHIP_WORDS and _NOT_SHIP_RE.search(sent) and _REGION_RE.search(sent):
            return True
        if values & _NOT_RETURN_WORDS and returns_denied(sent):
            return True
    return False


_BOTH_SIZES_RE = re.compile(r"(?i)\b(?:both|either)\s{1,2}(?:size\s{1,2})?(xxs|xs|s|m|l|xl|xxl)\s{1,2}"
                            r"(?:and|or|&)\s{1,2}"
                            r"(?:size\s{1,2})?(xxs|xs|s|m|l|xl|xxl)\s{1,2}(?:would|will|should|could|can)?\s{0,2}"
                            r"(?:fits?|work|works|be\s{1,2}fine|do)\b")
_ANY_SIZE_FITS_RE = re.compile(
    r"(?i)\b(?:every|any|all|each|whichever|whatever)\s{1,2}(?:of\s{1,2}the\s{1,2}|the\s{1,2})?sizes?\s{1,2}"
    r"(?:[a-z']{1,10}\s{1,2}){0,2}?(?:fits?|works?|suits?|is\s{1,2}fine|are\s{1,2}fine|(?:would|will|should|could)"
    r"\s{1,2}(?:fit|work|do|be\s{1,2}fine))\b|\bsize\s{1,2}(?:doesn['’]t|does\s{1,2}not|won['’]t)\s{1,2}matter\b|"
    r"\bone\s{1,2}size\s{1,2}fits\s{1,2}all\b|\b(?:any|every)\s{1,2}size\s{1,2}(?:is|would\s{1,2}be)\s{1,2}"
    r"(?:ok|okay|fine|good)\b")


def size_contradictions(r: Reading, world: World, size: str) -> list[str]:
    """Every size advised for the asked product must be the chart's ('M. Actually L would fit better' is not),
    and no size but the chart's fits ('every size fits you', 'size doesn't matter').
    """
    other = [x for x in _sizes(r, skip_echo=True, subject=None, world=world, advice_only=True) if x != size]
    if other:
        return [f"also recommends size {other[0]}, the chart says {size}"]
    for both in _BOTH_SIZES_RE.finditer(r.text):  # "both m and s would fit you", in any case
        said = {both.group(1).upper(), both.group(2).upper()}
        if said != {size} and not _negated(r.text, both.start()):
            return [f"says sizes {' and '.join(sorted(said))} both fit, the chart says {size}"]
    for i, (s0, e0) in enumerate(r.sentences):
        m = _ANY_SIZE_FITS_RE.search(r.text, s0, e0)
        if m and not r.question[i] and not r.echo[i] and not _negated(r.text, m.start()):
            return [f"says any size fits, the chart says {size}"]
    return []


def _stock_states(r: Reading, world: World) -> list[tuple[str, int | None]]:
    """(state, subject) for every stock statement: words ("sold out", "still there") and counts (> 0: in stock)."""
    if r._stock is not None:
        return r._stock
    out = []
    for i, (s, e) in enumerate(r.sentences):
        sent = r.text[s:e]
        if r.question[i] or r.echo[i]:
            continue
        fx = list(r.sentence_facts(i)[0])
        fx += [m.lastgroup for m in _STOCK_EXTRA_RE.finditer(sent) if m.lastgroup and m.lastgroup not in fx]
        subj = _subject_at(r, s, (s, e))
        found = [(st, subj) for st in fx if st in ("in_stock", "sold_out")]
        found += [("in_stock" if n.value > 0 else "sold_out", subj if fx else n.subject)
                  for n in r.nums if n.sentence == i and n.attr == "stock" and n.asserted]
        for st, sj in found:
            p = world.by_link.get(sj if sj is not None else r.subject_default or -1)
            asked = world.asked_variants.get(p.link) if p is not None else None
            if p is None:
                out.append((st, sj))
                continue
            named = _named_variants(sent, p)
            if named:
                if (asked is None or asked.lower() not in named) and not _ALL_VARIANTS_RE.search(sent):
                    # a state of a named variant (asked or not): true of that variant, not of the product as a whole
                    r.other_variants.append((st, p.link, tuple(sorted(named))))
                elif st == "sold_out" and len(named) > 1 and not _ALL_VARIANTS_RE.search(sent) \
                        and asked is not None and _narrower(p, named, asked):
                    # "size S in black is sold out", black asked: one SKU of the asked variant is gone, not all of it
                    # (while "size M in black is in stock" does say black is not gone)
                    r.other_variants.append((st, p.link, tuple(sorted(named))))
                else:
                    out.append((st, sj))
                    if len(named) > 1 and not _ALL_VARIANTS_RE.search(sent):  # "XL in white": that SKU, too
                        r.other_variants.append((st, p.link, tuple(sorted(named))))
            elif foreign := _foreign_variants(sent, p, world):
                r.other_variants.append((st, p.link, (foreign,)))
            else:
                out.append((st, sj))
    r._stock = out
    return out


_SIZE_TOKEN_RE = re.compile(r"(?<![A-Za-z])(XXS|XS|XXL|XXXL|XL|S|M|L)(?![A-Za-z])|(?i:\bsize\s{1,2}(xxs|xs|xxl|xl|s|"
                            r"m|l)\b)")
_SIZE_NAME_RE = re.compile(r"(?i)\b(extra[\s-]small|extra[\s-]large|small|medium|large)\b")


def _named_variants(sent: str, p: Product) -> set[str]:
    """The variants of `p` a sentence names (sizes as tokens, 'size s' or words; colours and options as words)."""
    out: set[str] = set()
    sizes = {x.size for x in p.skus if x.size}
    if sizes:
        for m in _SIZE_TOKEN_RE.finditer(sent):
            v = (m.group(1) or m.group(2) or "").upper()
            if v in sizes:
                out.add(v.lower())
        for m in _SIZE_NAME_RE.finditer(sent):
            v = _SIZE_WORDS.get(re.sub(r"[\s-]+", " ", m.group(1).lower()))
            if v in sizes:
                out.add(v.lower())
    low = sent.lower()
    for x in p.skus:
        for w in (x.colour, x.option):
            if w and _word_regex(w).search(low):
                out.add(w.lower())
    return out


_ALL_VARIANTS_RE = re.compile(r"(?i)\b(?:all|every|each|both|any)\b")


def _covered_skus(p: Product, named: set[str]) -> list[Any]:
    """The SKUs of `p` a set of named variant words picks out (each named dimension narrows; none named: all)."""
    dims = [({str(getattr(x, f)).lower() for x in p.skus if getattr(x, f)} & named, f)
            for f in ("size", "colour", "option")]
    return [x for x in p.skus if all(not d or str(getattr(x, f)).lower() in d for d, f in dims)]


def _narrower(p: Product, named: set[str], asked: str) -> bool:
    """Do the named words pick out only part of the asked variant's SKUs ('S in black' of 'black')?"""
    whole = {x.sku_id for x in p.sku_for(asked)}
    part = {x.sku_id for x in _covered_skus(p, named)}
    return bool(part) and part < whole


def _variant_words(p: Product) -> set[str]:
    return {str(w) for x in p.skus for w in (x.size, x.colour, x.option) if w}


def other_variant_errors(r: Reading, world: World) -> list[str]:
    """A stock state stated of a variant the viewer did not ask about must be true of that variant."""
    out = []
    for st, link, variant in r.other_variants:
        p = world.by_link.get(link) if link is not None else None
        if p is None:
            continue
        named = set(variant)
        what = " ".join(variant)
        if not named & {w.lower() for w in _variant_words(p)}:
            out.append(f"unsupported: link {link} has no {what} variant")
        elif (st == "in_stock") != any(x.stock > 0 for x in _covered_skus(p, named)):
            out.append(f"says {what} of link {link} is {st.replace('_', ' ')}")
    return out


def _foreign_variants(sent: str, p: Product, world: World) -> str | None:
    """A variant of another product in the catalogue named in a stock statement about `p`, which lacks it."""
    own = {w.lower() for w in _variant_words(p)} | set(_AZ_RE.findall(p.name.lower()))
    own |= {t for w in own for t in w.split()}
    low = sent.lower()
    vocab = world.variant_vocab()
    for w in vocab:
        if w not in own and w in low and _word_regex(w).search(low):
            return w
    return None


def _attribute_words(p: Product) -> list[str]:
    """The product's string attribute values (material, colours, flavour...), minus words of its own name."""
    out = []
    for v in p.attributes.values():
        for x in v if isinstance(v, list) else [v]:
            if isinstance(x, str) and x.lower() not in ("none",):
                w = x.lower().split("% ")[-1]
                if w not in p.short_name.lower():
                    out.append(w)
    if p.attributes.get("allergens") == ["none"]:  # "no listed allergens", "allergen-free"
        out += ["no listed allergens", "no allergens", "allergen-free", "allergen free"]
    return out


def _polar_stock(r: Reading, request_text: str) -> str | None:
    """The stock state a bare yes / no states, read against the question's polarity."""
    neg_q = bool(re.search(r"(?i)sold\s{0,2}out|\bgone\b|out\s{1,2}of\s{1,2}stock", request_text))
    if _YES_RE.search(r.text):
        return "sold_out" if neg_q else "in_stock"
    if _NO_RE.search(r.text):
        return "in_stock" if neg_q else "sold_out"
    return None


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


def _sizes(r: Reading, skip_echo: bool = False, subject: int | None = None, world: World | None = None,
           advice_only: bool = False) -> list[str]:
    """Sizes the reply names per asserted sentence; with `advice_only`, only sizes advised (no negation, no stock
    statement in the sentence) about `subject` (a sentence about another link does not count).
    """
    out: list[str] = []
    for i, (s, e) in enumerate(r.sentences):
        raw = r.text[s:e]
        if r.question[i] or (skip_echo and r.echo[i]):
            continue
        sent = _REJECTED_SIZE_RE.sub(" ", raw)  # "M rather than L", "not XXL", "L would be too big": not advice
        if advice_only:
            first = _SIZE_TOKEN_RE.search(sent) or _SIZE_NAME_RE.search(sent)
            if r.sentence_facts(i)[0] or _SIZE_NEG_RE.search(sent, 0, first.start() if first else len(sent)):
                continue  # a stock statement, or a size negated before it is named ("I wouldn't go with M")
            who = _subject_at(r, s, (s, e))
            if world is not None and who is not None and who > 0 and who != subject and (
                    subject is not None or who not in world.targets):
                continue
        found = list(r.sentence_facts(i)[1] if sent == raw else stock_and_sizes(sent)[1])
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


# ------------------------------------------------------------------------------------------- effectiveness
def _asserted_at(r: Reading, pos: int) -> bool:
    si = _sentence_index(r, pos)
    return not (si < len(r.question) and r.question[si]) and not _in_refusal(r, pos) and not r.echo[si]


_NUM_FACT_UNITS = {"ships_within_hours": ("h", "day"), "return_days": ("day", "week", "bare"),
                   "remote_days": ("day",), "discount": ("discount", "bare", "price"), "volume_ml": ("ml",),
                   "shelf_life_months": ("month", "year"), "battery_hours": ("h",),
                   "warranty_months": ("month", "year"),
                   "battery_mah": ("mah",), "charging_w": ("w",), "weight_g": ("g", "kg"), "net_weight_g": ("g", "kg"),
                   "shelf_life_days": ("day", "month"), "dimensions_cm": ("cm",), "fee": ("fee", "price"),
                   "free_over": ("free_over", "threshold")}


_ESCALATION_MORE_RE = _rx(
    r"\b(?:passed|forwarded|sent|handed|raised|reported|flagged|escalated)\s{1,2}(?:it|this|your\s{1,2}\w{1,12})?\s"
    r"{0,2}"
    r"(?:on\s{1,2})?to\s{1,2}(?:our\s{1,2}|the\s{1,2})?(?:customer\s{1,2}(?:service|support|care)|after[\s-]?sales|s"
    r"upport|team|"
    r"colleagues|a\s{1,2}human)"
    r"|\b(?:someone|a\s{1,2}colleague|our\s{1,2}team|the\s{1,2}team|they)\s{1,2}(?:from\s{1,2}\w{1,12}\s{1,2})?"
    r"(?:will|['’]ll)\s{1,2}(?:reach\s{1,2}out|get\s{1,2}back|contact|follow\s{1,2}up|be\s{1,2}in\s{1,2}touch|call)"
    r"|\bopened\s{1,2}a\s{1,2}ticket\b")
_GREET_RE = _rx(r"^\s{0,3}(?:hi+|hey+|hello+|hiya|heya|yo+|welcome)\b"
                r"|\b(?:glad|good|great|nice|happy|lovely)\s{1,2}to\s{1,2}(?:see|have)\s{1,2}you\b|\bglad\s{1,2}you["
                r"'’]re\s{1,2}here\b"
                r"|\bthanks?\s{1,2}for\s{1,2}(?:stopping|dropping|popping)\s{1,2}(?:by|in)\b")
_ESCALATION_SUBJ_RE = _rx(r"\b(?:i|we|i['’]ve|i['’]ll|has|have|been|will|team|colleagues?|agents?|service|support|"
                          r"they)\b")


_BLEND_RE = re.compile(r"\b(?:blend|blended|mix|mixed\s{1,2}(?:fabric|fibre|fiber|material))\b")
_NONE_SAID_RE = re.compile(r"(?i)\bnone\b|\bno\s{1,2}(?:listed\s{1,2}|known\s{1,2}|common\s{1,2})?allergens?\b|"
                           r"\ballergen[\s-]free\b|\bfree\s{1,2}(?:of|from)\s{1,2}(?:all\s{1,2}|any\s{1,2})?allergens\b|"
                           r"\b(?:doesn['’]t|does\s{1,2}not)\s{1,2}(?:have|contain)\s{1,2}any\s{1,2}allergens\b")
_PROMOTION_ATTRS = ("discount", "threshold", "coupon_price", "percent")
_WEAK_STEER = frozenset({"today", "stream", "shop"})
# "order" the noun (a promotion's threshold, someone's order) is no instruction to order: "20 off orders over 99",
# "free shipping on every order", "your order ships in 24 hours"
_ORDER_NOUN_BEFORE_RE = re.compile(r"(?:\b(?:on|for|off|every|each|any|all|per|your|my|their|his|her|the|first|an?|"
                                   r"min(?:imum)?|next|this|that|whole|big|large|small)\s{1,2})$")
_ORDER_NOUN_AFTER_RE = re.compile(r"s?\s{1,2}(?:over|above|under|below|of\s{1,2}\d|from|worth|exceeding|totall?ing|at"
                                  r"\s{1,2}least|ships?|shipped|arrives?|will|is|are|was|were|number|status)\b")
_CODE_WORD_RE = re.compile(r"(?i)\b(?:codes?|coupons?|vouchers?|promo|it)\b")
_STEER_NOUN_RE = re.compile(r"['’]?s?\s{1,2}(?:[a-z]{1,12}\s{1,2})?(?:deals?|products?|offers?|picks?|items?|sales?|"
                            r"promotions?|links?|specials?|line-?up|finds|goodies|steals)\b")
_EXTRA_DAYS_RE = re.compile(r"(?i)[0-9.]+\s{0,2}(?:extra|more|additional|further)\b")


def fact_met(fact: Any, r: Reading, world: World, request_text: str) -> bool:
    """Is one required fact stated as an answer (asserted, about the right subject, not a keyword salad)?"""
    if fact.any_of:
        return any(fact_met(f, r, world, request_text) for f in fact.any_of)
    if r.salad and fact.kind not in ("greeting",):
        return False
    subj = fact.subject
    text = r.text
    low = text.lower()

    def subject_ok(n_subject: int | None) -> bool:
        return subj is None or n_subject == subj or (n_subject is None and len(world.targets) <= 1)

    if fact.kind in ("price", "number"):
        v = float(fact.value)
        for n in r.nums:
            if not n.asserted or _in_refusal(r, n.start) or not subject_ok(n.subject) or n.attr is None:
                continue
            if fact.kind == "price":
                if n.attr in ("price", "flash", "bare") and abs(n.value - v) < 1e-6:
                    return True
                continue
            units = _NUM_FACT_UNITS.get(fact.attribute or "", None)
            if units is None:
                ok_attr = True
            else:
                # bound to this attribute, or a bare figure in its unit ("10 yuan" a shipping fee is no discount)
                ok_attr = n.attr in units or n.attr == "spec" or (n.unit in units and n.attr in ("bare", n.unit))
            if not ok_attr:
                continue
            val = n.value
            if fact.attribute == "ships_within_hours" and _EXTRA_DAYS_RE.match(text, n.start):
                continue  # "3 extra days" to a remote region is a delay, not the dispatch time
            if fact.attribute == "ships_within_hours" and n.sentence < len(r.sentences) and (
                    _BATTERY_CUE.search(stmt := text[slice(*r.sentences[n.sentence])]) and not _SHIP_CUE.search(stmt)):
                continue  # "its battery life is 48 hours" is no dispatch time
            if fact.attribute == "ships_within_hours" and n.attr == "day":
                val *= 24
            if fact.attribute == "return_days" and n.attr == "week":
                val *= 7
            if fact.attribute in ("shelf_life_months", "warranty_months") and n.attr == "year":
                val *= 12
            if fact.attribute in ("weight_g", "net_weight_g") and n.attr == "kg":
                val *= 1000
            if fact.attribute == "shelf_life_days" and n.attr == "month":
                val *= 30
                if abs(val - v) <= 15:
                    return True
            if abs(val - v) < 1e-6:
                return True
        return False
    if fact.kind == "stock":
        states = _stock_states(r, world)
        if {st for st, sj in states if sj in (None, subj)} == {"in_stock", "sold_out"}:
            return False  # both answers given: none is
        if any(st == fact.value and (sj is None or sj == subj or subj is None) for st, sj in states):
            return True
        if states:
            return False
        return _polar_stock(r, request_text) == fact.value
    if fact.kind == "size":
        return fact.value in _sizes(r, skip_echo=True, subject=subj, world=world, advice_only=True)
    if fact.kind == "link":
        for ms, me, link in r.mentions:
            # (to "which one?", the fact of a recommendation; to "where do I buy it?", the asked link's)
            if link in fact.value and _asserted_at(r, ms) \
                    and _presents(r, ms, me, claim_stems(_NEED_OF_RE.sub(" ", fact.label.split(":")[0]))
                                  if fact.label.startswith("a link suited") else None):
                return True
        return False
    if fact.kind == "keyword" and fact.negative and negative_policy_stated(fact, r, world):
        return True
    if fact.kind == "keyword" and fact.in_question and any(
            link > 0 and _asserted_at(r, ms) for ms, _, link in r.mentions):
        return True  # talking about a product, by its link or name, steers back to the products
    if fact.kind == "keyword" and fact.in_question and r.facts.coupon_codes and any(
            c.code.upper() in {x.upper() for x in r.facts.coupon_codes}
            and _asserted_at(r, max(0, low.find(c.code.lower()))) for c in world.room.active_coupons()):
        return True  # so does a running coupon's code offered (the steer phrases list "coupon")
    if fact.kind == "keyword" and [str(v).lower() for v in fact.value or []] == ["none"] and any(
            not r.question[i] and not r.echo[i] and _NONE_SAID_RE.search(text, s0, e0)
            and (subj is None or _subject_at(r, s0, (s0, e0)) in (None, subj))
            for i, (s0, e0) in enumerate(r.sentences)):
        return True  # "no listed allergens", "allergen-free": the record's "none" in words
    if fact.kind in ("keyword", "apology"):
        negative_answer = fact.kind == "keyword" and fact.negative
        code_entry = set(fact.value or []) == set(CODE_ENTRY_PHRASES)

        def said(k: str) -> bool:
            for m in re.finditer(r"(?<![a-z])" + re.escape(str(k).lower()), low):  # a word, not inside one
                if fact.kind == "apology":
                    return True
                if negative_answer:  # "non-returnable", "doesn't ship": of the asked product, not another one
                    if not _of_another(r, m.start(), subj):
                        return True
                    continue
                if k == "order" and (_ORDER_NOUN_BEFORE_RE.search(low, max(0, m.start() - 12), m.start())
                                     or _ORDER_NOUN_AFTER_RE.match(low, m.end())):
                    continue  # the noun: a threshold ("on orders over 99") or someone's order, not how to order
                if fact.in_question and k in _WEAK_STEER and not _STEER_NOUN_RE.match(low, m.end()):
                    continue  # "chat today", "the shop's AI host": not a steer back to the products
                if code_entry and not _CODE_WORD_RE.search(low, *r.sentences[_sentence_index(r, m.start())]):
                    continue  # where a code goes: "tap link 2 in the cart and check out" says nothing of a code
                si = _sentence_index(r, m.start())
                if _of_another(r, m.start(), subj):
                    continue  # stated of another product
                if (_asserted_at(r, m.start()) or (fact.in_question and not _in_refusal(r, m.start())
                                                   and not r.echo[si])) \
                        and not _negated(text, m.start()):
                    return True
            return False

        p = world.by_link.get(subj) if subj else None
        if p is not None and len(fact.value) >= 2 and [str(v).lower() for v in fact.value] == [
                str(c).lower() for c in p.attributes.get("colours") or []]:
            # "which colours?", "only the one colour?": the answer is the list; one colour named (a SKU's, in a stock
            # statement) is not it
            return all(said(k) for k in fact.value)
        return any(said(k) for k in fact.value)
    if fact.kind == "code":
        return any(c.upper() == str(fact.value).upper() and _asserted_at(r, max(0, low.find(c.lower())))
                   for c in r.facts.coupon_codes)
    if fact.kind == "greeting":
        return r.facts.greeting or _GREET_RE.search(text) is not None
    if fact.kind == "decline":
        dm = _DECLINE_RE.search(text) or (_REFUSAL_RE.search(text) if r.facts.refusal else None)
        if dm is None:
            return False
        first_end = r.sentences[0][1] if r.sentences else len(text)
        complied = _COMPLY_RE.search(text) is not None and (dm.start() <= first_end or len(r.sentences) == 1)
        if _RETRACT_RE.search(text, dm.start()) or (complied and not _NO_RE.search(text)):
            return False
        return True
    if fact.kind == "escalation":  # a statement that someone will follow up, not the bare word "escalate"
        if any(a.kind == "action" and a.detail == "escalate" for a in r.acts) \
                and ACTION_TOOLS["escalate"] in world.done:
            return True  # a report of the escalation the trace holds
        return (r.facts.escalation and _ESCALATION_SUBJ_RE.search(text) is not None) or any(
            not _negated(text, m.start()) for m in _ESCALATION_MORE_RE.finditer(text))
    if fact.kind == "about":  # a true price or attribute value stated of this link
        p = world.by_link.get(subj) if subj else None
        if p is None:
            return False
        for n in r.nums:
            # its price or an attribute's figure (a coupon's or a threshold's is the promotion's, not the product's)
            if n.subject == subj and n.asserted and n.attr not in (None, "unverifiable", *_PROMOTION_ATTRS) \
                    and not _in_refusal(r, n.start):
                attr = "price" if n.attr == "bare" else n.attr
                stmt = text[slice(*r.sentences[n.sentence])] if n.sentence < len(r.sentences) else text
                if _close(n.value, world.values(attr, p, stmt)):
                    return True
        any_left = any(x.stock > 0 for x in p.skus)
        if any(sj == subj and st == ("in_stock" if any_left else "sold_out") for st, sj in _stock_states(r, world)):
            return True  # its stock state, stated truly
        if any(link == subj for _, link, _ in r.other_variants) and not other_variant_errors(r, world):
            return True  # a named variant's stock, stated truly ("matcha of link 2 is in stock")
        for key, held in p.attributes.items():  # a yes/no attribute, stated truly ("link 6 is not fragrance-free")
            if not isinstance(held, bool):
                continue
            for m in re.finditer(r"\b" + key.replace("_", r"[\s-]") + r"\b", low):
                si = _sentence_index(r, m.start())
                if si >= len(r.sentences) or r.question[si] or r.echo[si]:
                    continue
                denied = _NOT_BEFORE_RE.search(low, max(r.sentences[si][0], m.start() - 12), m.start()) is not None
                if _subject_at(r, m.start(), r.sentences[si]) == subj and denied != held:
                    return True
        values = _attribute_words(p)
        for i, (s0, e0) in enumerate(r.sentences):
            if r.question[i] or r.echo[i]:
                continue
            sent = low[s0:e0]
            for k, (ms, _, link) in enumerate(r.mentions):
                if link != subj or not s0 <= ms <= e0:
                    continue
                # the statement from its first clause cut before the mention to the next other subject it names
                lo = max([c for c in r.clause_cuts if s0 <= c <= ms] or [s0])
                hi = min([m2 for m2, _, l2 in r.mentions[k + 1:] if l2 != subj and m2 < e0] or [e0])
                clause = low[lo:hi]
                if (any(v in clause for v in values) or true_attribute_stated(clause, p)) \
                        and not _negated(sent, ms - s0 + 1):
                    return True
        return False
    if fact.kind == "ships_to":
        for i, (s0, e0) in enumerate(r.sentences):
            sent = text[s0:e0]
            if r.question[i] or r.echo[i]:
                continue
            for m in (*_word_regex(str(fact.value)).finditer(sent), *_word_regex("there").finditer(sent)):
                cut = max((c.end() for c in _CUT_RE.finditer(sent, 0, m.start())), default=0)
                nxt = _CUT_RE.search(sent, m.end())
                end = nxt.start() if nxt else len(sent)
                if _of_another(r, s0 + m.start(), subj):
                    continue  # "link 3 ships to Qinghai" says nothing of link 1
                if _SHIP_YES_RE.search(sent, cut, end) and not _NOT_SHIP_RE.search(sent, cut, end):
                    return True  # "yes, it ships to Beijing", in its own clause
        return _yes_of(r, subj) and not _NOT_SHIP_RE.search(text)
    if fact.kind == "returnable":
        p = world.by_link.get(subj) if subj else None
        if p is not None and any(n.attr in ("day", "week") and n.asserted and not _close(
                n.value * (7 if n.attr == "week" else 1), {float(p.after_sales.return_days)}) for n in r.nums
                if _RETURN_CUE.search(text)):
            return False
        ym = _RETURN_YES_RE.search(text)
        if ym is not None and _asserted_at(r, ym.start()) and not _negated(text, ym.start()) \
                and not _RETURN_NO_RE.search(text) and not _of_another(r, ym.start(), subj):
            return True
        return _yes_of(r, subj) and "return" in request_text.lower() and not _RETURN_NO_RE.search(text)
    return False


# a statement that points the viewer to a product ("try link 4", "it's link 6", "link 6 is the one", "tap link 6",
# "link 8 makes a great gift") rather than one that states something else about it ("link 6 is 139 yuan")
# a clause that points the viewer to a product: where it is ("tap link 6", "it's link 6", "try link 4") ...
_POINT_RE = re.compile(
    r"(?i)\b(?:try|go\s{1,2}(?:with|for)|get(?!\s{1,2}back)|grab|pick|choose|check\s{1,2}(?:out|it)|tap|click|buy\w*|"
    r"add|find|head|order\s{1,2}(?:it|one|now|here|from)|look\s{1,2}at|here|this\s{1,2}is|(?:it|that)['’]?s\s{1,2}(?:"
    r"the|your|our|my|at|on|in|under)|is\s{1,2}(?:the|your|our|my)\s{1,2}(?:one|pick|choice|favou?rite|best|go-to|top)|"
    r"in\s{1,2}the\s{1,2}cart|pinned)\b")
# ... and, to "which one?" only, why it is the one ("a great pick", "our best seller") ...
_NEED_OF_RE = re.compile(r"^a link suited to ")  # the truth's label of a recommendation fact names the need
_PICK_RE = re.compile(
    r"(?i)\b(?:recommend\w*|suggest\w*|is\s{1,2}(?:a|an|the)\s{1,2}(?:\w+\s{1,2})?(?:match|fit|pick|choice|option|bet|"
    r"gift|buy)|(?:perfect|ideal|great|best|good|lovely|nice)\s{1,2}(?:pick|choice|option|one|gift)|makes?\s{1,2}an?"
    r"\s{1,2}\w+\s{1,2}(?:gift|pick|choice)|favou?rite|go-to|winner|top\s{1,2}pick|\w*sell\w*|number\s{1,2}one|"
    r"popular)\b")
# ... or that it suits the need the viewer named ("suits dry skin" answers "for dry skin?", not "for a gift?")
_SUITS_RE = re.compile(r"(?i)\b(?:suits?|(?:perfect|ideal|great|best|good|lovely|nice|made)\s{1,2}for|works\s{1,2}"
                       r"(?:well\s{1,2})?for)\s{1,2}((?:[\w'’-]+\s{0,2}){1,4})")
# what a clause that only names a product holds besides the name ("Link 6, the lip tint", "it's link 6")
_NAMING_WORDS = frozenset("the a an is it it's its that that's this on at in under as called named listed our your "
                          "just yes sure ok okay".split())


def _presents(r: Reading, ms: int, me: int, need: set[str] | None) -> bool:
    """Does the clause holding the mention at `ms` point the viewer to it (the answer to "where do I buy it?"; to
    "which one?", with `need` the words of the need asked, also why it is the one, or that it suits that need), or
    name it and nothing else ("Link 6!", "Link 6, the lip tint")? A fact stated of it ("link 6 is 139 yuan right
    now", "link 2 suits dry skin" to "something for a gift?") points nowhere.
    """
    si = _sentence_index(r, ms)
    if si >= len(r.sentences):
        return True
    s0, e0 = r.sentences[si]
    if not r.text[s0:ms].strip() and re.match(r"\s{0,2}[,:!—–-]", r.text[me:e0]):
        return True  # "Link 4, only 309 yuan today!", "Link 6: the lip tint": the statement leads with it
    lo = max([c for c in r.clause_cuts if s0 <= c <= ms] or [s0])
    hi = min([c for c in r.clause_cuts if me <= c <= e0] or [e0])
    parts, cur = [], lo
    for a, b, _ in r.mentions:  # the clause without its product mentions (links and names)
        if lo <= a < hi and a >= cur:
            parts.append(r.text[cur:a])
            cur = b
    rest = " ".join([*parts, r.text[cur:hi]])
    return not [w for w in _WORD_RE.findall(rest.lower()) if w not in _NAMING_WORDS] \
        or _POINT_RE.search(rest) is not None or (need is not None and (_PICK_RE.search(rest) is not None or any(
            need <= claim_stems(m.group(1)) for m in _SUITS_RE.finditer(rest))))  # every word of the need


def _of_another(r: Reading, pos: int, subj: int | None) -> bool:
    """Is the statement at `pos` about a product other than `subj` ("link 3 is returnable" of a link 4 question)?"""
    if subj is None:
        return False
    si = _sentence_index(r, pos)
    who = _subject_at(r, pos, r.sentences[si]) if si < len(r.sentences) else None
    return who is not None and who > 0 and who != subj


def _yes_of(r: Reading, subj: int | None) -> bool:
    """A bare yes, not in a statement about another product ("yes, link 3 is" answers nothing of link 4)."""
    return any(not _of_another(r, m.start(), subj) for m in _YES_RE.finditer(r.text))
