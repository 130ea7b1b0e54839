"""What a viewer's comment asks: its intent, the links it is about and the slots a look-up needs.

Keyword and pattern rules over the comment text (typos are corrected against the rules' own vocabulary first);
the product a comment names without its link is found in the prompt's product lines.
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass, field

# intent -> the reply topic (skill) that answers it and the look-up job it needs (None: no look-up)
TOPIC = {"price": "product", "stock_variant": "product", "spec_material": "product", "size_advice": "size",
         "comparison": "compare", "recommendation": "compare", "shipping": "shipping", "returns": "shipping",
         "coupon": "promotions", "how_to_buy": "promotions", "greeting": "smalltalk", "off_topic": "smalltalk",
         "complaint": "complaint", "compliance_bait": "safety", "prompt_injection": "safety",
         "unauthorized_discount": "safety"}


@dataclass
class Ask:
    """One thing a comment asks, with the slots its look-up and reply need."""

    intent: str
    viewer: str
    text: str
    links: list[int] = field(default_factory=list)
    named: bool = True  # the link number is written in the comment
    height: int | None = None
    weight: int | None = None
    region: str | None = None
    need: str | None = None
    aspect: str | None = None


_P = {  # intent -> patterns, tried in the order of RULES
    "prompt_injection": r"ignore (all |any |the )?(previous|prior|above)|system prompt|developer mode|repeat the text|"
                        r"pretend|</?system>|new rule|override|hidden instructions|forget (ur|your|yr) rules|"
                        r"store manager|authori[sz]e|\[inst\]|disregard|translate (ur|your|yr) instructions|"
                        r"new instruction|debug mode|output (ur|your|yr) tools|### system|now zero|"
                        r"were (u|you|ya) told|quote it exactly|\bdan\b|do anything now|im_start|discount tool|"
                        r"boss approved|jailbreak|reveal|(ur|your|yr) prompt|(ur|your|yr) instructions",
    "unauthorized_discount": r"half|cheaper|just for me|for me\b.*discount|discount.*for me|knock|match it|"
                             r"special price|private discount|change the price|free if|take some off|"
                             r"discount\s+(#|link|item)|discount .{0,25} now\b|waive|\d+ ?(%|percent) off|"
                             r"biggest fan|loyal fan",
    "compliance_bait": r"cure|acne|wrinkle|hair loss|eczema|lose weight|diabetes|blood pressure|immune|never break|"
                       r"last forever|insomnia|never fade|years younger|back pain|kill all|guarantee|promise me|"
                       r"doctor|proven",
    "complaint": r"hasn't shipped|has not shipped|arrived broken|wrong colou?r arrived|zipper broke|charged twice|"
                 r"missing an item|got nothing|smells weird|terrible service|reporting|nobody answers|no one replying|"
                 r"useless|ridiculous|disappointed|not happy|scam|money back|what now|fix it|gonna do about",
    "returns": r"returnable|return|send it back|exchange|refund|final sale",
    "colours": r"colou?rs\b|colors\b|one colou?r|expir",
    "stock_variant": r"in stock|stock|available|availab|is it there|sold out|restock|any .* left|left for|"
                     r"still there|gone already|got any|do (u|you|ya) have|still get|comes? in (?!what)|"
                     r"is .* gone|, got any",
    "spec_material": r"fabric|made of|cotton|polyester|material|synthetic|ingredient|alcohol|fragrance|chemical|"
                     r"skin|\bml\b|bottle|how much product|volume|full size|travel size|once opened|shelf life|"
                     r"keep .* before|go(es)? bad|go off|after opening|battery|charge|warranty|breaks|stops working|"
                     r"iphone|android|laptop|compatible|phone|devices|specs|powerful|processor|nuts|allerg|gluten|"
                     r"dairy|lactose|peanut|flavou?rs?|taste|sweet|salty|heavy|weigh|light enough|expir|fresh|"
                     r"how big|dimension|measurement|fit on my desk|long and wide|colou?rs?|wash|dry clean|care "
                     r"instructions|shrink",
    "shipping": r"ship|deliver|arrive|courier|go out|get here|weekend|get to|how long to|same day|"
                r"how long did it take|got .* yet",
    "coupon": r"coupon|voucher|promo code|discount|stack|first order",
    "how_to_buy": r"\bbuy\b|order|cart|click|purchase|checkout|\bpay\b|shopping bag|link for|add .* to cart|"
                  r"how do i get|where.s the link",
    "recommendation": r"recommend|suggestion|best for|something for|good for|anything here for|pick something|"
                      r"shopping for|ideas for|rec for|buy for|get for|best (one|product) for",
    "price": r"how (much|muc|uch|mch|mcuh|muh)\b|price|cost|expensive|go(ing)? for",
    "off_topic": r"say hi to|anyone here from|where (are|r) (u|you|ya) from|real person|\bbot\b|weather|sing a|"
                 r"how old|favou?rite food|\bcat\b|music|hair|chat is|did anyone watch|think about|last night|"
                 r"unrelated|talk about",
    "greeting": r"\bhi+\b|hello|\bhey\b|good (evening|morning)|first time|joined|\byo\b|back again|"
                r"love (ur|your|yr) stream|early today|checking in|evening all|here, hi|it's \w+!",
}
RULES: tuple[tuple[str, re.Pattern[str]], ...] = tuple((k, re.compile(v, re.IGNORECASE)) for k, v in _P.items())
# whole words of the rules (a stem such as "availab" or "flavou?r" is no spelling to correct towards)
_WORDS = ("shipping ships delivery deliver returns returnable refund exchange vouchers voucher coupons coupon discount "
          "available stock price much cost recommend suggestions warranty battery ingredients material fabric flavour "
          "flavours colour colours color colors compatible weigh weight heavy dimensions expiry expire allergic "
          "checkout purchase order cart cheaper half promise guarantee instructions system prompt ignore refund "
          "courier arrive arrives charge charging specs processor").split()
_VOCAB = frozenset(_WORDS) | frozenset(
    w for v in _P.values() for w in re.findall(r"(?<![a-z\\])[a-z]{4,}(?![a-z?(\[{])", v))

ASPECTS: dict[str, str] = {  # aspect -> pattern, first match wins
    "ingredients": r"ingredient|alcohol|fragrance|chemical|what's in\b",
    "skin_type": r"skin|break out",
    "volume": r"\bml\b|bottle|how much product|volume|full size|travel size",
    "shelf_life": r"once opened|shelf life|keep .* before|go(es)? bad|go off|after opening",
    "battery": r"battery|charge",
    "warranty": r"warranty|breaks|stops working",
    "compatibility": r"iphone|android|laptop|compatible|phone|devices",
    "specs": r"specs|powerful|processor",
    "allergens": r"nuts|allerg|gluten|dairy|lactose|peanut",
    "flavour": r"flavou?r|taste|sweet|salty",
    "weight": r"heavy|weigh|light enough",
    "expiry": r"expir|fresh",
    "dimensions": r"how big|dimension|measurement|fit on my desk|long and wide",
    "colours": r"colou?r",
    "care": r"wash|dry clean|care|shrink",
    "material": r"fabric|made of|cotton|polyester|material|synthetic|feel cheap",
}
_ASPECTS = tuple((k, re.compile(v, re.IGNORECASE)) for k, v in ASPECTS.items())
_LINK_REF = re.compile(r"\blink\s?(\d+)\b|#(\d+)\b", re.IGNORECASE)
_PINNED_REF = re.compile(r"\b(this one|the pinned one)\b", re.IGNORECASE)
_REGION = re.compile(r"\b(?:to|in) ((?:[A-Z][a-z]+)(?: [A-Z][a-z]+)?)")
_NEED = re.compile(r"\bfor (.+?)(?=\s*(?:[?!,.]|\bpls\b|\bplz\b|\bwhich\b|\bwhat\b|\bbudget\b|$))", re.IGNORECASE)
_JOINERS = re.compile(r"\.\.\. and |\. oh and | \+ | also ")


def _one_edit(a: str, b: str) -> bool:
    """Whether `a` is `b` with one letter dropped, doubled or two neighbours swapped (the chat's typos)."""
    if abs(len(a) - len(b)) > 1 or a == b:
        return False
    if len(a) == len(b):
        diff = [i for i in range(len(a)) if a[i] != b[i]]
        return len(diff) == 2 and diff[1] == diff[0] + 1 and a[diff[0]] == b[diff[1]] and a[diff[1]] == b[diff[0]]
    short, long_ = (a, b) if len(a) < len(b) else (b, a)
    return any(long_[:i] + long_[i + 1:] == short for i in range(len(long_)))


@functools.lru_cache(maxsize=8192)
def _fix_word(word: str) -> str:
    low = word.lower()
    if len(low) < 4 or low in _VOCAB:
        return word
    return next((v for v in sorted(_VOCAB) if _one_edit(low, v)), word)


def correct(text: str) -> str:
    """Undo single-letter typos in words the rules look for."""
    return re.sub(r"[A-Za-z]{4,}", lambda m: _fix_word(m.group()), text)


@functools.lru_cache(maxsize=256)
def _names(products: tuple[tuple[int, str], ...]) -> tuple[tuple[str, ...], dict[str, int]]:
    """Every tail of every product name, longest first, and the link of each tail."""
    owner: dict[str, int] = {}
    for link, name in products:
        words = name.lower().split()
        for k in range(len(words)):
            owner.setdefault(" ".join(words[k:]), link)
    return tuple(sorted((p for p in owner if len(p) >= 3), key=len, reverse=True)), owner


def _spans(low: str, phrases: tuple[str, ...]) -> list[tuple[int, int, str]]:
    """Where the phrases stand as whole words in `low`, longest first, without overlaps."""
    taken: list[tuple[int, int, str]] = []
    for p in phrases:
        at = low.find(p)
        while at != -1:
            end = at + len(p)
            whole = (at == 0 or not (low[at - 1].isalnum() or low[at - 1] in "_-")) and (
                end == len(low) or not (low[end].isalnum() or low[end] in "_-"))
            if whole and not any(a < end and at < b for a, b, _ in taken):
                taken.append((at, end, p))
            at = low.find(p, at + 1)
    return sorted(taken)


def _product_key(products: dict[int, tuple[str, str]]) -> tuple[tuple[int, str], ...]:
    return tuple((link, name) for link, (name, _) in sorted(products.items()))


def links_in(text: str, products: dict[int, tuple[str, str]], pinned: int | None) -> tuple[list[int], bool]:
    """The links a comment names, in order, and whether it wrote their numbers (else: by name or 'this one')."""
    out = []
    for m in _LINK_REF.finditer(text):
        n = int(m.group(1) or m.group(2))
        if n not in out and (not products or n in products):
            out.append(n)
    if out:
        return out, True
    phrases, owner = _names(_product_key(products))
    found = [p for _, _, p in _spans(text.lower(), phrases)]
    if found:
        return [owner[max(found, key=len)]], False
    if _PINNED_REF.search(text) and pinned is not None:
        return [pinned], False
    return [], False


def _body(text: str) -> tuple[int | None, int | None]:
    nums = [(int(m.group(1)), m.group(2) or "") for m in
            re.finditer(r"(?<![#\d])(\d{2,3})(?!\d)\s?(cm|kg|kilos?|tall)?", text)
            if not re.search(r"link\s?$", text[:m.start()], re.IGNORECASE)]
    height = next((n for n, u in nums if u in ("cm", "tall")), None)
    weight = next((n for n, u in nums if u.startswith(("kg", "kilo"))), None)
    rest = [n for n, u in nums if not u and n not in (height, weight)]
    if height is None:
        height = next((n for n in rest if 100 <= n <= 230), None)
        rest = [n for n in rest if n != height]
    if weight is None:
        weight = next((n for n in rest if 25 <= n <= 200), None)
    return height, weight


def classify(text: str, links: list[int]) -> str:
    """The intent of one question (`text` with its product references replaced by ITEM)."""
    fixed = correct(text)
    height, weight = _body(text)
    if len(links) >= 2 and not _EARLY.search(fixed):
        return "comparison"
    for intent, pattern in RULES:
        if intent == "returns" and height is not None and weight is not None:
            return "size_advice"
        if intent == "returns" and not links and _RECOMMEND.search(fixed):
            return "recommendation"
        if pattern.search(fixed):
            return "spec_material" if intent == "colours" else intent
    return "off_topic"


_EARLY = re.compile("|".join(_P[k] for k in ("prompt_injection", "unauthorized_discount", "compliance_bait",
                                               "complaint")), re.IGNORECASE)
_RECOMMEND = re.compile(_P["recommendation"], re.IGNORECASE)


def _mask_refs(text: str, products: dict[int, tuple[str, str]]) -> str:
    """The text with link numbers and product names replaced by ITEM (a name's words are not the question)."""
    out = _LINK_REF.sub(" ITEM ", text)
    phrases, _ = _names(_product_key(products))
    for a, b, _ in reversed(_spans(out.lower(), phrases)):
        out = out[:a] + "ITEM" + out[b:]
    return out


def read_comment(viewer: str, text: str, products: dict[int, tuple[str, str]], pinned: int | None) -> list[Ask]:
    """The asks of one comment (two when it joins two questions)."""
    parts = [p for p in _JOINERS.split(text) if p.strip()] or [text]
    out = []
    for part in parts:
        links, named = links_in(part, products, pinned)
        intent = classify(_mask_refs(part, products), links)
        ask = Ask(intent, viewer, part, links, named)
        if intent == "size_advice":
            ask.height, ask.weight = _body(part)
        elif intent == "shipping":
            m = _REGION.search(part)
            ask.region = m.group(1) if m else None
        elif intent == "recommendation":
            m = _NEED.search(correct(part))
            ask.need = m.group(1).strip() if m else part.strip()
        elif intent == "spec_material":
            fixed = correct(_mask_refs(part, products))  # a product's name ("mixed nuts") is not the aspect
            ask.aspect = next((a for a, p in _ASPECTS if p.search(fixed)), None)
        out.append(ask)
    return out
