"""Effectiveness: which of the request's required facts the reply states as answers (`effectiveness`), and
whether it sends the viewer to buy another product than the one asked about (`steering_errors`).

A fact is met only where it is asserted (not asked back, declined or echoed), of the right subject and, for a link,
where the reply points the viewer to it.
"""

from __future__ import annotations

import re
from typing import Any

from livesim.grading.act_checks import leads_answer
from livesim.grading.acts import ACTION_TOOLS
from livesim.grading.cues import (
    _BOTH_BEFORE,
    _COMPLY_RE,
    _DECLINE_RE,
    _EACH_AFTER,
    _ESCALATION_SUBJ_RE,
    _MACHINE_WASH_RE,
    _NO_RE,
    _NOT_SHIP_RE,
    _PROMOTION_ATTRS,
    _REGION_RE,
    _RETURN_CUE,
    _RETURN_NO_RE,
    _RETURN_YES_RE,
    _SHIP_YES_RE,
    _WORD_RE,
    BARE_CANT_RE,
    CANT_TELL_RE,
    REGION_OK_AFTER,
    _close,
    _rx,
    _word_regex,
    claim_stems,
    no_returns,
    returns_denied,
)
from livesim.grading.facts.extract import stock_and_sizes
from livesim.grading.facts.patterns import _CUT_RE, _LINK_RE, _REFUSAL_RE, FOLLOW_UP_VERBS, _negated
from livesim.grading.properties import true_attribute_stated, value_phrases
from livesim.grading.reading import _SZ, Reading
from livesim.grading.world import FACT_CUE, TIME_CUES, World
from livesim.world.answers import CODE_ENTRY_PHRASES
from livesim.world.catalog import Product
from livesim.world.truth import BUY_PHRASES, NOT_RETURNABLE_PHRASES, NOT_SHIP_PHRASES, STEER_PHRASES

_NOT_SHIP_WORDS = frozenset(NOT_SHIP_PHRASES)
_NOT_RETURN_WORDS = frozenset(NOT_RETURNABLE_PHRASES)
_RETRACT_RE = _rx(r"\b(?:just\s{1,2}kidding|jk|kidding|lol\s{1,2}jk|actually\s{1,2}(?:yes|i\s{1,2}can|sure|ok)|"
                  r"oh\s{1,2}fine|ok(?:ay)?\s{1,2}fine|"
                  r"but\s{1,2}(?:ok(?:ay)?|sure|fine)\s{0,2}[,!]|fine,\s{0,2}(?:take|here|you)|"
                  r"here\s{1,2}(?:it\s{1,2}is|you\s{1,2}go)|"
                  r"i['’]ll\s{1,2}make\s{1,2}an\s{1,2}exception|done!|approved)\b")
# what may come before a fronted phrase: a conjunction or a hedge (", and for X, try ...", ", probably for X, try ...")
_NOT_BEFORE_RE = re.compile(r"\b(?:not|isn['’]t|never)\s{1,2}$")  # "is not fragrance-free"
# whether a product has fragrance, in other words than the fact's phrases: (said so, the opposite denied)
_HAS_SCENT = re.compile(r"\b(?:contains?|has|have|with)\s{1,2}(?:some\s{1,2}|any\s{1,2}|added\s{1,2}|a\s{1,2}"
                        r"(?:little|light|bit\s{1,2}of)\s{1,2})?(?:fragrance|scent|perfume)\b|\b(?:lightly\s{1,2})?(?:scented|fragranced|"
                        r"perfumed)\b")
_NO_SCENT = re.compile(r"\bfragrance[\s-]?free\b|\bunscented\b|\b(?:no|zero|without)\s{1,2}(?:added\s{1,2})?"
                       r"(?:fragrance|scent|perfume)\b")
_FRAGRANCE_FORMS = {"has fragrance": (_HAS_SCENT, _NO_SCENT), "fragrance-free": (_NO_SCENT, _HAS_SCENT)}
_NOT_NEAR_RE = re.compile(r"(?:\bnot|n['’]t|\bnever)\s{1,2}(?:[a-z]{1,10}\s{1,2})?$")


_BUY_VERB_RE = re.compile(r"(?i)\b(?:tap|add|buy|grab|get|order|try|snag|go\s{1,2}(?:for|with)|pick(?:\s{1,2}up)?|"
                         r"check\s{1,2}out|recommend|suggest)\s{1,2}(?:on\s{1,2}|the\s{1,2}|with\s{1,2}|up\s{1,2})?$")
_STEER_INTENTS = frozenset({"how_to_buy", "recommendation"})
# a link sent to the cart by an arrow or "then" ("link 3 → cart → checkout")
_TO_CART_AFTER = re.compile(r"(?i)\s{0,2}(?:→|->|=>|>|,\s{0,2}then)\s{0,2}(?:add\s{1,2}(?:it\s{1,2})?to\s{1,2})?"
                            r"(?:the\s{1,2})?(?:cart|checkout|check\s{1,2}out|buy\s{1,2}now|basket|bag)\b")


def steering_errors(r: Reading, world: World) -> list[str]:
    """Where the viewer asked what to buy or how to buy one product, sending them to buy another is an off-target
    answer ("tap link 2 in the cart" to "how do I buy link 7", "try link 2" to "what's good for organising"): it
    meets no need, whatever else the reply says (effectiveness 0; nothing in it need be false).
    """
    if not _STEER_INTENTS & set(world.intents):
        return []
    # in a burst, another comment's product is steered to only where the reply never names the one asked how to buy
    # or asked to pick from ("Martin, open link 2 and add it to cart" to Martin's "how do I purchase link 5?" beside
    # Brady's comment on link 2)
    asked = frozenset().union(*(world.intent_links.get(i, frozenset()) for i in _STEER_INTENTS))
    named_asked = any(link in asked for _, _, link in r.mentions)
    for ms, me, link in r.mentions:
        if link <= 0 or link not in world.by_link or (link in world.targets and (named_asked or link in asked
                                                                                 or not asked)):
            continue
        si = r.sentence_at(ms)
        lo = max(r.sentences[si][0], ms - 24) if si < len(r.sentences) else max(0, ms - 24)
        clo = max([c for c in r.clause_cuts if lo <= c <= ms] or [lo])
        if (_BUY_VERB_RE.search(r.text, lo, ms) or (link in world.targets and (
                _imperative_to(r.text[clo:ms]) or _TO_CART_AFTER.match(r.text, me)))) \
                and not _negated(r.text, ms) and not r.question[si]:
            return [f"steers the viewer to link {link}, not what they asked for (links {world.targets})"]
    return []


def negative_policy_stated(fact: Any, r: Reading, world: World) -> bool:
    """A 'does not ship' / 'not returnable' answer in words the phrase list lacks ("isn't available for delivery to
    Hong Kong", "returns aren't accepted"): read by the same negation-aware patterns accuracy uses.
    """
    values = {str(v).lower() for v in fact.value}
    for i, (s0, e0) in enumerate(r.sentences):
        if r.question[i] or r.echo[i] or r.of_another(s0, fact.subject):
            continue
        sent = r.text[s0:e0]
        if values & _NOT_SHIP_WORDS and _NOT_SHIP_RE.search(sent) and _REGION_RE.search(sent):
            return True
        if values & _NOT_RETURN_WORDS and returns_denied(sent):
            return True
    return False


def _kind_said(p: Product, world: World) -> re.Pattern[str] | None:
    """What kind of thing `p` is, said of it ("link 1 is a pleated skirt", "link 5's a speaker"): a true fact that
    tells it apart where no other product of the request is of its kind (two coffee beans are not told apart so).
    """
    noun = p.short_name.lower().split()[-1]
    if any(noun in q.short_name.lower().split() for link in world.targets if link != p.link
           and (q := world.by_link.get(link)) is not None):
        return None
    # (or said just before its link, in apposition: "a pillow (link 6)", "the desk lamp, link 1")
    return re.compile(r"(?:\bis|\bare|['’]s)\s{1,2}(?:a|an|the|our)\s{1,2}(?:[a-z&'’-]{1,20}\s{1,2}){0,3}?"
                      + re.escape(noun) + r"s?\b|\b(?:a|an|the|our)\s{1,2}(?:[a-z&'’-]{1,20}\s{1,2}){0,3}?"
                      + re.escape(noun) + r"s?\s{0,2}(?:\(|,|:|—|–|-)\s{0,2}(?:on\s{1,2})?"
                      r"(?=(?:links?\b|#)\s{0,2}#?[0-9])")


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


_RETURN_UNITS = {"day": 1, "week": 7, "month": 30}  # a return window said in days, weeks or whole months
_NUM_FACT_UNITS = {"ships_within_hours": ("h", "day"), "return_days": ("day", "week", "month", "bare"),
                   "remote_days": ("day",), "discount": ("discount", "bare", "price"), "volume_ml": ("ml",),
                   "shelf_life_months": ("month", "year"), "battery_hours": ("h",),
                   "warranty_months": ("month", "year"),
                   "battery_mah": ("mah",), "charging_w": ("w",), "weight_g": ("g", "kg"), "net_weight_g": ("g", "kg"),
                   "shelf_life_days": ("day", "month", "year"), "dimensions_cm": ("cm",), "fee": ("fee", "price"),
                   "free_over": ("free_over", "threshold")}


_ESCALATION_MORE_RE = _rx(
    r"\b(?:passed|forwarded|sent|handed|raised|reported|flagged|escalated)\s{1,2}(?:it|this|your\s{1,2}\w{1,12})?\s"
    r"{0,2}"
    r"(?:on\s{1,2})?to\s{1,2}(?:our\s{1,2}|the\s{1,2})?(?:customer\s{1,2}(?:service|support|care)|after[\s-]?sales|s"
    r"upport|team|"
    r"colleagues|a\s{1,2}human)"
    r"|\b(?:someone|a\s{1,2}colleague|our\s{1,2}team|the\s{1,2}team|they)\s{1,2}(?:from\s{1,2}\w{1,12}\s{1,2})?"
    r"(?:will|['’]ll)\s{1,2}" + FOLLOW_UP_VERBS + r"|\bopened\s{1,2}a\s{1,2}ticket\b"
    r"|\b(?:our|the)\s{1,2}(?:[\w-]{1,12}\s{1,2}){1,2}team\b[^.!?\n]{0,40}?\b(?:will|['’]ll)\s{1,2}" + FOLLOW_UP_VERBS +
    # where the case now is, and what to expect from whom: "(your case) is with our after-sales team", "expect a
    # message from the team", "you'll hear back from support"
    r"|\b(?:is|['’]s|are)\s{1,2}(?:now\s{1,2})?with\s{1,2}(?:our\s{1,2}|the\s{1,2})?(?:customer\s{1,2}(?:service|support|care)|"
    r"after[\s-]?sales|support|team)\b"
    r"|\b(?:expect|you['’]ll\s{1,2}get|you\s{1,2}will\s{1,2}get)\s{1,2}(?:a|an)\s{1,2}(?:message|call|reply|email|update|"
    r"response)\s{1,2}from\b|\b(?:you['’]ll|you\s{1,2}will)\s{1,2}hear\s{1,2}(?:back\s{1,2})?from\b")
_GREET_RE = _rx(r"^\s{0,3}(?:hi+|hey+|hello+|hiya|heya|yo+|welcome)\b"
                r"|\b(?:glad|good|great|nice|happy|lovely)\s{1,2}to\s{1,2}(?:see|have)\s{1,2}you\b|\bglad\s{1,2}you["
                r"'’]re\s{1,2}here\b"
                r"|\bthanks?\s{1,2}for\s{1,2}(?:stopping|dropping|popping)\s{1,2}(?:by|in)\b"
                # a thanks that opens a statement and names the viewer ("Thanks Darryl!", "thank you so much, @ann")
                r"|(?:^|[.!?]\s{1,3})\s{0,3}(?:aw+,?\s{1,2})?(?:thanks?|thank\s{1,2}you|ty)(?:\s{1,2}so\s{1,2}much)?,?\s{1,2}"
                r"(?:(?-i:[A-Z@])|viewer\b)"  # (the reading writes a viewer's handle as "viewer")
                # or after the name ("Kayla, thank you so much!", "Kayla: thanks!", "Aww, Kayla, thanks")
                r"|(?:^|[.!?]\s{1,3})\s{0,3}(?:(?:aw+|oh|omg)\W{1,3})?(?:(?-i:[A-Z])[a-z]{1,20}|@?viewer)\s{0,2}[,:—–-]"
                r"\s{0,3}(?:thanks?|thank\s{1,2}you|ty|thx)\b")
# a clause that opens with a no ("Brady, sorry, no extra 30% off", "Tiffany, no immune claims from me"): a decline
# wherever it stands, as at the reply's start (not "no problem", "no worries")
_NO_OPENS_RE = re.compile(r"(?i)\W{0,3}(?:no|nope|nah)\b(?!\s{1,2}(?:problem|prob|worries|sweat|doubt|wonder)\b)")
_NONE_SAID_RE = re.compile(r"(?i)\bnone\b|\bno\s{1,2}(?:listed\s{1,2}|known\s{1,2}|common\s{1,2})?allergens?\b|"
                           r"\ballergen[\s-]free\b|\bfree\s{1,2}(?:of|from)\s{1,2}(?:all\s{1,2}|any\s{1,2})?allergens\b|"
                           r"\b(?:doesn['’]t|does\s{1,2}not)\s{1,2}(?:have|contain)\s{1,2}any\s{1,2}allergens\b")
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
_APOLOGY_WORD_RE = re.compile(r"(?i)sorry|apolog\w*")
_ANY_WORD_RE = re.compile(r"\w")
# an apology with its own object ("sorry about that", "sorry for the trouble", "sorry to hear it") is for that, not
# the opening of the news after it
_OWN_OBJECT_RE = re.compile(r"(?i)\s{1,2}(?:about|for|over|to\s{1,2}hear)\b")
_SKU_OF_RE = re.compile(r"\s{1,2}of\s{1,2}(?:link\s{0,2}|#)")  # (on the lower-cased text)
_SKU_SIZE_IN_RE = re.compile(r"\b(?:xxs|xs|s|m|l|xl|xxl|xxxl|size\s{1,2}[a-z0-9]{1,4})\s{1,2}in\s{1,2}$")
_EXTRA_DAYS_RE = re.compile(r"(?i)[0-9.]+\s{0,2}(?:extra|more|additional|further)\b")


_SHOP_OFFER_RE = re.compile(
    r"(?i)\bwhat\s{1,2}can\s{1,2}(?:i|we)\s{1,2}(?:find|get|show|pick\s{1,2}out|recommend)\s{1,2}(?:for\s{1,2})?you\b|"
    r"\b(?:anything|something)\s{1,2}(?:i|we)\s{1,2}can\s{1,2}help\s{1,2}you\s{1,2}(?:find|pick|choose|with)\b|"
    r"\bwhat\s{1,2}are\s{1,2}you\s{1,2}(?:shopping|looking)\s{1,2}for\b|"
    r"\b(?:looking|shopping)\s{1,2}for\s{1,2}anything\s{1,2}(?:in\s{1,2}particular|today|special)\b|"
    r"\bcan\s{1,2}(?:i|we)\s{1,2}help\s{1,2}you\s{1,2}(?:find|pick|choose|shop)\b")
_VALUE_LABEL_RE = re.compile(r"[a-z_]+ = ")  # a keyword fact of one record value ("care = hand wash only")


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
        return subj is None or n_subject == subj or (n_subject is None and (len(world.targets) <= 1
                                                                           or subj == world.sole_subject))

    def count_of_its_variant(n: Any) -> bool:
        """A count said of no product in a statement that names the variant the count is of, which no other product
        of the request sells ("there are 129 black ones" in a reply that also names links 1 and 6).
        """
        if fact.attribute != "stock_count" or n.subject is not None or subj is None or n.sentence >= len(r.sentences):
            return False
        variant = fact.label.split(" of link ")[0].split(" ", 1)[-1].lower()
        if not _word_regex(variant).search(text[slice(*r.sentences[n.sentence])].lower()):
            return False
        key = variant.removeprefix("size ")  # ("size M": any product in sizes sells an M)
        return not any(key in {w.lower() for w in World.variant_words(p)} | set(World.listed_colours(p))
                       for link in world.targets if link != subj and (p := world.by_link.get(link)) is not None)

    if fact.kind in ("price", "number"):
        v = float(fact.value)
        for n in r.nums:
            if not n.asserted or r.in_refusal(n.start) or n.attr is None \
                    or not (subject_ok(n.subject) or count_of_its_variant(n)):
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
            cue = FACT_CUE.get(fact.attribute or "")
            if cue is not None and n.attr in TIME_CUES and n.sentence < len(r.sentences):
                # a time said of another record figure ("ships within 48 hours" to "how long does the battery
                # last?"): its statement, to the end of its clause, names another cue and not this one
                hi = min([c for c in r.clause_cuts if c > n.start] or [len(text)])
                lo = max([c for c in r.clause_cuts if c <= n.start] or [0])
                upto = text[r.cue_start(n.start, lo):hi]
                kinds = {k for k, rx in TIME_CUES[n.attr].items() if rx.search(upto)}
                if kinds and cue not in kinds:
                    continue
            if fact.attribute == "ships_within_hours" and _EXTRA_DAYS_RE.match(text, n.start):
                continue  # "3 extra days" to a remote region is a delay, not the dispatch time
            if fact.attribute == "ships_within_hours" and n.attr == "day":
                val *= 24
            if fact.attribute == "return_days" and n.attr in ("week", "month"):
                val *= 7 if n.attr == "week" else 30
            if fact.attribute in ("shelf_life_months", "warranty_months") and n.attr == "year":
                val *= 12
            if fact.attribute in ("weight_g", "net_weight_g") and n.attr == "kg":
                val *= 1000
            if fact.attribute == "shelf_life_days" and n.attr in ("month", "year"):
                val *= 30.44 if n.attr == "month" else 365
                if abs(val - v) <= 6:
                    return True
            if abs(val - v) < 1e-6:
                return True
        return False
    if fact.kind == "stock":
        states = r.stock_states(world)
        if {st for st, sj in states if sj in (None, subj)} == {"in_stock", "sold_out"}:
            return False  # both answers given: none is
        if any(st == fact.value and (sj is None or sj == subj or subj is None) for st, sj in states):
            return True
        if states:
            return False
        return r.polar_stock(request_text, subj) == fact.value
    if fact.kind == "size":
        return fact.value in r.sizes(skip_echo=True, subject=subj, world=world, advice_only=True) or (
            world.burst and any(link == subj and said == fact.value for _, link, said in r.sizes_to_viewers()))
    if fact.kind == "link":
        for ms, me, link in r.mentions:
            # (to "which one?", the fact of a recommendation; to "where do I buy it?", the asked link's)
            if link in fact.value and r.asserted_at(ms) \
                    and _presents(r, ms, me, claim_stems(_NEED_OF_RE.sub(" ", fact.label.split(":")[0]))
                                  if fact.label.startswith("a link suited") else None):
                return True
        return False
    if fact.kind == "keyword" and fact.negative and negative_policy_stated(fact, r, world):
        return True
    if fact.kind == "keyword" and fact.in_question and any(
            link > 0 and r.asserted_at(ms) for ms, _, link in r.mentions):
        return True  # talking about a product, by its link or name, steers back to the products
    if fact.kind == "keyword" and tuple(fact.value or ()) == STEER_PHRASES and _SHOP_OFFER_RE.search(text):
        return True  # so does an offer to help the viewer shop ("what can I find for you today?")
    if fact.kind == "keyword" and fact.in_question and r.facts.coupon_codes and any(
            c.code.upper() in {x.upper() for x in r.facts.coupon_codes}
            and r.asserted_at(max(0, low.find(c.code.lower()))) for c in world.room.active_coupons()):
        return True  # so does a running coupon's code offered (the steer phrases list "coupon")
    if fact.kind == "keyword" and [str(v).lower() for v in fact.value or []] == ["none"] and any(
            not r.question[i] and not r.echo[i] and _NONE_SAID_RE.search(text, s0, e0)
            and (subj is None or r.subject_at(s0, (s0, e0)) in (None, subj))
            for i, (s0, e0) in enumerate(r.sentences)):
        return True  # "no listed allergens", "allergen-free": the record's "none" in words
    if fact.kind == "keyword" and fact.label in _FRAGRANCE_FORMS:
        said_rx, denied_rx = _FRAGRANCE_FORMS[fact.label]  # ("does contain fragrance", "it isn't fragrance-free")
        for i, (s0, e0) in enumerate(r.sentences):
            if r.question[i] or r.echo[i]:
                continue
            for hit in said_rx.finditer(low, s0, e0):
                if not _NOT_NEAR_RE.search(low, max(s0, hit.start() - 14), hit.start()) \
                        and not r.of_another(hit.start(), subj):
                    return True
            for hit in denied_rx.finditer(low, s0, e0):
                if _NOT_NEAR_RE.search(low, max(s0, hit.start() - 14), hit.start()) \
                        and not r.of_another(hit.start(), subj):
                    return True
    if fact.kind in ("keyword", "apology"):
        negative_answer = fact.kind == "keyword" and fact.negative
        code_entry = set(fact.value or []) == set(CODE_ENTRY_PHRASES)
        codes = [c.code.lower() for c in world.room.active_coupons()] if code_entry else []
        p = world.by_link.get(subj) if subj else None
        # "which colours?", "only the one colour?": the answer is the list of the record's colours
        colour_list = p is not None and len(fact.value) >= 2 and [str(v).lower() for v in fact.value] == [
            str(c).lower() for c in p.attributes.get("colours") or []]

        def said(k: str, at: list[tuple[int, int]] | None = None) -> bool:
            spans = at if at is not None else [
                (m.start(), m.end()) for m in re.finditer(r"(?<![a-z])" + re.escape(str(k).lower()), low)]  # a word
            for ms, me in spans:
                if fact.kind == "apology":
                    if not (world.burst and _bad_news(r, ms)):
                        return True
                    continue  # in a burst, "sorry, link 8 doesn't ship to Hong Kong" is the other comment's bad news
                if negative_answer:  # "non-returnable", "doesn't ship": of the asked product, not another one
                    if not r.of_another(ms, subj):
                        return True
                    continue
                if k == "order" and (_ORDER_NOUN_BEFORE_RE.search(low, max(0, ms - 12), ms)
                                     or _ORDER_NOUN_AFTER_RE.match(low, me)):
                    continue  # the noun: a threshold ("on orders over 99") or someone's order, not how to order
                if fact.in_question and k in _WEAK_STEER and not _STEER_NOUN_RE.match(low, me):
                    continue  # "chat today", "the shop's AI host": not a steer back to the products
                if code_entry and not _CODE_WORD_RE.search(low, *r.sentences[r.sentence_at(ms)]) \
                        and not any(c in low[slice(*r.sentences[r.sentence_at(ms)])] for c in codes):
                    continue  # where a code goes: "tap link 2 in the cart and check out" says nothing of a code
                    # ("enter LIVE25 at checkout" names one)
                si = r.sentence_at(ms)
                if colour_list and (_SKU_OF_RE.match(low, me)
                                    or _SKU_SIZE_IN_RE.search(low, max(0, ms - 16), ms)):
                    continue  # a SKU named by its colour ("size XL in beige", "beige of link 8") lists no colours
                if r.of_another(ms, subj):
                    continue  # stated of another product
                if (r.asserted_at(ms) or (fact.in_question and not r.in_refusal(ms)
                                                   and not r.echo[si])) \
                        and not _negated(text, ms):
                    return True
            return False

        if colour_list:  # every colour of the list; one colour named is not it
            return all(said(k) for k in fact.value)
        keys = [*fact.value, *_BUY_ALIASES] if tuple(fact.value or ()) == BUY_PHRASES else fact.value
        if any(said(k) for k in keys):
            return True
        # a record value said in the shop's other words for it, or with other spacing ("hand-wash only", "wash it by
        # hand", "wipe it down" to "care = wipe clean"): the lexicon's phrases that name that value and no other
        if fact.label in ("care = machine wash cold", "care = machine wash warm"):
            # the machine wash said with its object between ("machine wash the skirt in warm water")
            spans = [(m.start(), m.end()) for m in _MACHINE_WASH_RE.finditer(text)
                     if (m.group("t") or m.group("t2")).lower() == fact.label.split()[-1]]
            if spans and said(str(fact.value[0]), spans):
                return True
        return _VALUE_LABEL_RE.match(fact.label) is not None and len(fact.value or ()) == 1 and said(
            fact.value[0], value_phrases(text, str(fact.value[0])))
    if fact.kind == "code":
        return any(c.upper() == str(fact.value).upper() and r.asserted_at(max(0, low.find(c.lower())))
                   for c in r.facts.coupon_codes)
    if fact.kind == "greeting":
        return r.facts.greeting or _GREET_RE.search(text) is not None
    if fact.kind == "decline":
        # (not the viewer's words said back, nor a condition: "if link 1 doesn't fix my back pain ...")
        dm = next((m for m in _DECLINE_RE.finditer(text) if not _echoed(r, m.start())
                   and not _IF_BEFORE_RE.search(text, max(0, m.start() - 40), m.start())), None) \
            or (_REFUSAL_RE.search(text) if r.facts.refusal else None) \
            or next((m for a in r.acts if a.kind == "decline" and not _echoed(r, a.start)
                     and (m := _NO_OPENS_RE.match(text, a.start, a.end)) is not None
                     and not _IF_BEFORE_RE.search(text, max(0, a.start - 40), a.start)), None)
        if dm is None:
            return False
        first_end = r.sentences[0][1] if r.sentences else len(text)
        complied = _COMPLY_RE.search(text) is not None and (dm.start() <= first_end or len(r.sentences) == 1)
        if complied and r.acts and r.acts[0].detail == "yes" and leads_answer(r.acts, 0, text, world.answerable):
            complied = False  # "Yes, link 4 ships to Shanghai, ..., I'm not able to do that": the yes answers the
            # burst's other comment
        retract = next((m for m in _RETRACT_RE.finditer(text, dm.start()) if not _negated(text, m.start())), None)
        if retract is not None or (complied and not _NO_RE.search(text)):  # ("isn't doctor approved" retracts nothing)
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
            # its price or an attribute's figure (a coupon's or a threshold's is the promotion's, not the product's);
            # one said of each ("159 each", "both 259", "link 6 and link 1 are both 259")
            each = n.subject != subj and subj in world.targets and (
                _EACH_AFTER.match(text, n.end) is not None or _BOTH_BEFORE.search(text, max(0, n.start - 24), n.start)
                is not None)
            if (n.subject == subj or each) and n.asserted and n.attr not in (None, "unverifiable", *_PROMOTION_ATTRS) \
                    and not r.in_refusal(n.start):
                attr = "price" if n.attr == "bare" else n.attr
                stmt = text[slice(*r.sentences[n.sentence])] if n.sentence < len(r.sentences) else text
                if _close(n.value, world.values(attr, p, stmt)):
                    return True
        any_left = any(x.stock > 0 for x in p.skus)
        if any(sj == subj and st == ("in_stock" if any_left else "sold_out") for st, sj in r.stock_states(world)):
            return True  # its stock state, stated truly
        if any(link == subj for _, link, _ in r.other_variants) and not world.variant_errors(r.other_variants):
            return True  # a named variant's stock, stated truly ("matcha of link 2 is in stock")
        for key, held in p.attributes.items():  # a yes/no attribute, stated truly ("link 6 is not fragrance-free")
            if not isinstance(held, bool):
                continue
            for m in re.finditer(r"\b" + key.replace("_", r"[\s-]") + r"\b", low):
                si = r.sentence_at(m.start())
                if si >= len(r.sentences) or r.question[si] or r.echo[si]:
                    continue
                denied = _NOT_BEFORE_RE.search(low, max(r.sentences[si][0], m.start() - 12), m.start()) is not None
                if r.subject_at(m.start(), r.sentences[si]) == subj and denied != held:
                    return True
        values = [*_attribute_words(p), *(str(t).lower() for t in p.tags)]  # (a need it suits: "link 1 is for sleep")
        kind = _kind_said(p, world)
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
                if (any(v in clause for v in values) or true_attribute_stated(clause, p)
                        or (kind is not None and (kind.search(clause) is not None
                                                  or kind.search(low, max(s0, ms - 60), ms + 8) is not None))) \
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
                if r.of_another(s0 + m.start(), subj):
                    continue  # "link 3 ships to Qinghai" says nothing of link 1
                if (_SHIP_YES_RE.search(sent, cut, end) or REGION_OK_AFTER.match(sent, m.end())) \
                        and not _NOT_SHIP_RE.search(sent, cut, end):
                    return True  # "yes, it ships to Beijing", in its own clause
        # (a yes taken back for the region asked: "yes, but not to Hainan")
        return r.yes_of(subj) and not _NOT_SHIP_RE.search(text) and re.search(
            r"(?i)\bnot\s{1,2}(?:to\s{1,2}|in\s{1,2}|for\s{1,2})?" + re.escape(str(fact.value)) + r"\b", text) is None
    if fact.kind == "returnable":
        p = world.by_link.get(subj) if subj else None
        if p is not None and any(n.attr in _RETURN_UNITS and n.asserted and not _close(
                n.value * _RETURN_UNITS[n.attr], {float(p.after_sales.return_days)}) for n in r.nums
                if _RETURN_CUE.search(text)):
            return False
        ym = _RETURN_YES_RE.search(text)
        if ym is not None and r.asserted_at(ym.start()) and not _negated(text, ym.start()) \
                and not no_returns(_RETURN_NO_RE, text) and not r.of_another(ym.start(), subj):
            return True
        return r.yes_of(subj) and "return" in request_text.lower() and not no_returns(_RETURN_NO_RE, text)
    return False


def _bad_news(r: Reading, pos: int) -> bool:
    """Does the apology at `pos` open a product's bad news ("sorry, link 8 doesn't ship to Hong Kong", "sorry, link 3
    is sold out", "sorry, link 5 can't be returned"): from it to the end of its statement, a product named, and that
    it does not ship, is not returnable, or is sold out? ("..., so sorry about that!" after the news opens none, nor
    does an apology with its own object: "so sorry about that, and link 3 is sold out".)
    """
    i = r.sentence_at(pos)
    if i >= len(r.sentences):
        return False
    e0 = r.sentences[i][1]
    word = _APOLOGY_WORD_RE.match(r.text, pos)
    if word is not None and _OWN_OBJECT_RE.match(r.text, word.end()):
        return False  # "so sorry about that, and link 3 is sold out": the apology is the complaint's
    if word is not None and not _ANY_WORD_RE.search(r.text, word.end(), e0) and i + 1 < len(r.sentences):
        e0 = r.sentences[i + 1][1]  # "great taste, sorry, link 8 doesn't ship ...": the news is the next statement
    after = r.text[pos:e0]
    if not any(link > 0 and pos <= ms < e0 for ms, _, link in r.mentions):
        return False
    return bool(_NOT_SHIP_RE.search(after) or returns_denied(after)
                or "sold_out" in stock_and_sizes(after)[0])  # (the extractor's stock words)


# a statement that points the viewer to a product ("try link 4", "it's link 6", "link 6 is the one", "tap link 6",
# "link 8 makes a great gift") rather than one that states something else about it ("link 6 is 139 yuan")
# a clause that points the viewer to a product: where it is ("tap link 6", "it's link 6", "try link 4") ...
_POINT_RE = re.compile(
    r"(?i)\b(?:try|go\s{1,2}(?:with|for)|get(?!\s{1,2}back)|grab|pick|choose|check\s{1,2}(?:out|it)|tap|click|buy\w*|"
    r"add|find|head|order\s{1,2}(?:it|one|now|here|from)|look\s{1,2}at|here|this\s{1,2}is|(?:it|that)['’]?s\s{1,2}(?:"
    r"the|your|our|my|at|on|in|under)|is\s{1,2}(?:the|your|our|my)\s{1,2}(?:one|pick|choice|favou?rite|best|go-to|top)|"
    r"in\s{1,2}the\s{1,2}(?:shopping\s{1,2}|yellow\s{1,2})?(?:cart|bag|basket|shop|store)|pinned|"
    # "link 1 is right there", "it's up in the shop": where it is
    r"(?:is|are|['’]s)\s{1,2}(?:right\s{1,2}|up\s{1,2}|still\s{1,2})?(?:there|here|listed|up|live\s{1,2}(?:now|in|on)))\b")
# a clause whose subject is a size ("Size L is the one ...", "an M is your best bet"): size advice, not a product pick
_SIZE_SUBJECT_RE = re.compile(r"\W{0,3}(?i:(?:a|an|the|i['’]?d\s{1,2}say)\s{1,2})?(?i:size\s{1,2})?" + _SZ
                              + r"(?![A-Za-z])(?i:\s{1,2}size)?\s{0,2}$")
# ... and, to "which one?" only, why it is the one ("a great pick", "our best seller") ...
_NEED_OF_RE = re.compile(r"^a link suited to ")  # the truth's label of a recommendation fact names the need
_PICK_RE = re.compile(
    r"(?i)\b(?:recommend\w*|suggest\w*|is\s{1,2}(?:a|an|the)\s{1,2}(?:\w+\s{1,2})?(?:match|fit|pick|choice|option|bet|"
    r"gift|buy)|(?:perfect|ideal|great|best|good|lovely|nice)\s{1,2}(?:pick|choice|option|one|gift)|makes?\s{1,2}an?"
    r"\s{1,2}\w+\s{1,2}(?:gift|pick|choice)|favou?rite|go-to|winner|top\s{1,2}pick|\w*sell\w*|number\s{1,2}one|"
    r"popular)\b")
# ... or that it suits the need the viewer named ("suits dry skin" answers "for dry skin?", not "for a gift?")
# (or that it goes with what the need is about: "perfect with tea", "pairs nicely with your morning coffee")
_SUITS_RE = re.compile(r"(?i)\b(?:suits?|(?:perfect|ideal|great|best|good|lovely|nice|made)\s{1,2}(?:for|with)|"
                       r"works\s{1,2}(?:well\s{1,2})?for|(?:goes|go|pairs?|pairing)\s{1,2}(?:(?:so|really|very)\s{1,2})?(?:well|"
                       r"great|nicely|perfectly|beautifully)?\s{0,2}with)\s{1,2}((?:[\w'’-]+\s{0,2}){1,4})")
# ... or plainly what it is for ("wool sweater on link 2 for cold weather")
_FOR_NEED_RE = re.compile(r"(?i)\bfor\s{1,2}((?:[\w'’-]+\s{0,2}){1,4})")
# what a clause that only names a product holds besides the name ("Link 6, the lip tint", "it's link 6")
_NAMING_WORDS = frozenset("the a an is are it it's its that that's this they they're on at in under as called named "
                          "listed our your just yes sure ok okay".split())


_FRONTED_NEED_RE = re.compile(r"(?i)\W{0,3}(?:and\s{1,2}|but\s{1,2})?for\s{1,2}((?:[\w'’-]{1,20}\s{1,2}){0,3}"
                              r"[\w'’-]{1,20})"
                              r"\s{0,2}[,:—–-]\s{0,3}(?:(?:i['’]d\s{1,2}say|go\s{1,2}with|the)\s{1,2})?$")
# how to order in the shop's other words: the buttons and steps of a checkout ("then Buy Now", "add to bag")
_BUY_ALIASES = ("buy now", "add to bag", "add to basket", "purchase", "place your order", "pay now", "order now")
# an imperative that leads the clause to the link ("open link 1", "head over to #3", "then hit link 2"): a verb first,
# after a filler, then at most a particle; these words before a link are no such verb
_IMPERATIVE_TO_RE = re.compile(r"(?i)^(?:(?:just|please|pls|then|now|simply|so|first|next|and)\s{1,2})*(go|[a-z]{3,12})"
                               r"(?:\s{1,2}(?:to|on|up|into|over|at|through|back\s{1,2}to|over\s{1,2}to)){0,2}"
                               r"(?:\s{1,2}the)?$")
_NOT_POINTING = frozenset("and but also both like unlike than with without plus only even for from about between "
                          "versus not skip avoid ignore forget ditch except unless after before since the this that "
                          "these those its his her their our your are was were has have had does did will would can "
                          "could should may "
                          "might must yes yeah sure okay maybe perhaps still currently hi hey hello love".split())


def _imperative_to(before: str) -> bool:
    """Does `before` (the clause up to a link's mention) end in an imperative that sends the viewer to it?"""
    m = _IMPERATIVE_TO_RE.match(before.strip(" \t,:;.!-—–"))
    return m is not None and m.group(1).lower() not in _NOT_POINTING and not m.group(1).lower().endswith("ly")


_IF_BEFORE_RE = re.compile(r"(?i)\b(?:if|unless|whether)\b[^.!?,;]{0,40}$")


def _echoed(r: Reading, pos: int) -> bool:
    si = r.sentence_at(pos)
    return si < len(r.echo) and r.echo[si]


# a need said in the other words the shop uses for it ("great for cold weather" to "anything for winter?"), by stem
_SAME_NEED = tuple(frozenset(g) for g in (("wint", "cold", "chil"), ("summ", "hot"), ("slee", "bedt"),
                                          ("cozy", "cosy")))


# the word of a need that names when, not what ("tea time"): the need's other words say it ("perfect with tea")
_NEED_FRAME = frozenset({"time", "weat"})  # (stems: "tea time" said "with tea", "cold weather" "for the cold")


def _need_said(need: set[str], said: set[str]) -> bool:
    """Is every word of the need in `said` (but a word that only frames it, `_NEED_FRAME`, where the need has others),
    or in the shop's other words for it (`_SAME_NEED`)?
    """
    words = need - _NEED_FRAME if need - _NEED_FRAME else need
    return all(w in said or any(w in g and g & said for g in _SAME_NEED) for w in words)


_IS_AFTER_MENTION_RE = re.compile(r"(?:^|(?<=\s))['’]s\b")


def _presents(r: Reading, ms: int, me: int, need: set[str] | None) -> bool:
    """Does the clause holding the mention at `ms` point the viewer to it (the answer to "where do I buy it?"; to
    "which one?", with `need` the words of the need asked, also why it is the one, or that it suits that need), or
    name it and nothing else ("Link 6!", "Link 6, the lip tint")? A fact stated of it ("link 6 is 139 yuan right
    now", "link 2 suits dry skin" to "something for a gift?") points nowhere.
    """
    si = r.sentence_at(ms)
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
    rest = _IS_AFTER_MENTION_RE.sub(" is", " ".join([*parts, r.text[cur:hi]]))  # "link 8's the diffuser": is

    def points(rx: re.Pattern[str]) -> bool:
        # "Size L is the one for you on link 8": the size is what "is the one", not the product it is a size of
        return any(not (m.group().lower().startswith("is") and _SIZE_SUBJECT_RE.match(rest, 0, m.start()))
                   for m in rx.finditer(rest))

    fm = _FRONTED_NEED_RE.match(r.text, s0, ms) if need is not None else None
    if fm is not None and need is not None and _need_said(need, claim_stems(fm.group(1))):
        return True  # "For snacking, link 2's mixed nuts": the need asked, fronted before the link
    return not [w for w in _WORD_RE.findall(rest.lower()) if w not in _NAMING_WORDS] \
        or points(_POINT_RE) or _imperative_to(r.text[lo:ms]) or _TO_CART_AFTER.match(r.text, me) is not None \
        or _BUY_IT_NEXT_RE.match(r.text, hi, e0) is not None or (hi == e0 and si + 1 < len(r.sentences) and (
            _BUY_IT_NEXT_RE.match(r.text, *r.sentences[si + 1]) is not None)) \
        or (need is not None and (points(_PICK_RE) or any(
            _need_said(need, claim_stems(m.group(1))) for rx in (_SUITS_RE, _FOR_NEED_RE)
            for m in rx.finditer(rest))))  # every word of the need


_SENTENCE_RE = re.compile(r"[^.!?\n]+[.!?\n]*")
# the next clause sends the viewer to buy what the mention's clause named, by a pronoun ("link 5 is in stock, tap it in
# the cart and check out", "link 2's 49 yuan, grab it now")
_BUY_IT_NEXT_RE = re.compile(r"(?i)\W{0,3}(?:(?:and|so|just|then)\s{1,2})*(?:tap|add|grab|get|buy|order|pick\s{1,2}up|"
                             r"put|check\s{1,2}out\s{1,2}with)\s{1,2}(?:it|them|this\s{1,2}one)\b(?!\s{1,2}(?:if|when)\b)")


def cant_tell_met(fact: Any, text: str) -> bool:
    """Does a statement (not a question) in `text` say the host cannot tell the part of the ask that `fact`
    names (one of its topic words in the same sentence)?
    """
    # the sentence before was the topic asked back ("Payment methods? Not something I have on record.") or named
    # alone, fronted ("Arrival I can't say.", cut after the topic as a run-on: "Arrival. I can't say.")
    asked = False
    for m in _SENTENCE_RE.finditer(text):
        sent = m.group()
        low = sent.lower()
        if sent.rstrip().endswith("?") or not CANT_TELL_RE.search(sent):
            asked = (sent.rstrip().endswith("?") or len(_WORD_RE.findall(low)) <= 3) \
                and any(str(w).lower() in low for w in fact.value or ())
            continue
        if any(str(w).lower() in low for w in fact.value or ()) or asked and (
                _ELLIPTIC_RE.match(sent) or BARE_CANT_RE.match(sent)):
            return True
        asked = False
        if _ANAPHOR_RE.search(sent) and not _SAYS_OTHER_RE.search(sent):
            return True  # the ask named back ("not on record who covers it", "I can't tell you that"), nothing else
    return False


# a can't-tell with no subject of its own, answering the topic just asked back ("Not something I have on record.")
_ELLIPTIC_RE = re.compile(r"(?i)\W{0,3}(?:sorry,?\s{1,2}|sadly,?\s{1,2}|honestly,?\s{1,2})?(?:not|no|nothing|none|"
                          r"unknown|"
                          r"can['’]?t|couldn['’]?t|don['’]?t|never)\b")
# a word that names the ask back, and what would make the sentence about something else (a figure, a product, a code)
_ANAPHOR_RE = re.compile(r"(?i)\b(?:that|this|it|who|whether|which|those)\b")
_SAYS_OTHER_RE = re.compile(r"(?i)[0-9#]|\blinks?\b|\b(?:promise|guarantee|share|reveal|do|give|offer)\b")


def required_fact_met(fact: Any, reading: Reading, world: World, request_text: str) -> bool:
    """One required fact stated as an answer: a can't-tell of what no record holds (kind 'unknown', here), any other
    kind by `fact_met`.
    """
    if fact.kind == "unknown":
        return not getattr(reading, "salad", False) and cant_tell_met(fact, reading.text)
    if fact.any_of and any(f.kind == "unknown" for f in fact.any_of):
        return any(required_fact_met(f, reading, world, request_text) for f in fact.any_of)
    return fact_met(fact, reading, world, request_text)


def about_other_product(reading: Any, targets: list[int]) -> bool:
    """A partial answer that names only products the viewer did not ask about answers another question."""
    named = {link for _, _, link in reading.mentions if link > 0}
    return bool(targets) and bool(named) and not named & set(targets)


_PRODUCT_FACTS = frozenset({"price", "stock", "size", "number", "link", "ships_to", "returnable"})


def _of_a_product(fact: Any) -> bool:
    """A fact stated of a product (its price, stock, sizes, figures, link, where it ships, whether it is returnable)."""
    return fact.kind in _PRODUCT_FACTS or (fact.kind == "any" and bool(fact.any_of)
                                           and all(_of_a_product(f) for f in fact.any_of))


def _is_steer(fact: Any) -> bool:
    return fact.kind == "keyword" and fact.in_question and tuple(fact.value or ()) == STEER_PHRASES


def _ignored_viewers(required: list[Any], met: list[bool], world: World) -> list[str]:
    """The viewers of a burst who asked more than a greeting and of whose required facts the reply meets none."""
    ok = {id(f): m for f, m in zip(required, met, strict=True)}
    out = []
    for name, facts in world.comment_facts:
        mine = [f for f in facts if id(f) in ok]
        if mine and any(f.kind != "greeting" for f in mine) and not any(ok[id(f)] for f in mine):
            out.append(name)
    return out


def answer_terms(truth: Any, reading: Reading, world: World, rtext: str) -> tuple[float, list[str]]:
    """(effectiveness, the labels of the facts missing) of the reply `reading` read: 1 where every required fact is
    stated, 0.5 where some are, 0 where none is, where it only says back the link the viewer wrote, or where it sends
    the viewer to buy another product. Facts that hinge on words the viewer did not write are not required.
    """
    text = reading.text
    low = rtext.lower()
    required = [f for f in truth.facts if (f.if_text is None or f.if_text.lower() in low)
                and (f.unless_text is None or f.unless_text.lower() not in low)]
    met = [required_fact_met(f, reading, world, rtext) for f in required] if text.strip() else [False] * len(required)
    # a burst's off-topic comment is steered back by an answer to another comment's product question, even one that
    # names the product as "it" ("yes, it ships to Sichuan"): talking about a product is the steer
    if any(ok and _of_a_product(f) for f, ok in zip(required, met, strict=True)):
        met = [ok or _is_steer(f) for f, ok in zip(required, met, strict=True)]
    missing = [f.label for f, ok in zip(required, met, strict=True) if not ok]
    # the link number the viewer wrote, said back, answers nothing ("how do I buy link 4?" -> "link 4 is great")
    if any(met) and all(f.kind == "link" for f, ok in zip(required, met, strict=True) if ok) and all(
            set(f.value or []) <= {int(m["n"]) for m in _LINK_RE.finditer(rtext)}
            for f, ok in zip(required, met, strict=True) if ok):
        met = [False] * len(required)
        missing = [f.label for f in required]
    if not text.strip() or not required or not any(met):
        effectiveness = 0.0 if (not text.strip() or required) else 1.0
    else:
        effectiveness = 1.0 if all(met) else 0.0 if about_other_product(reading, truth.targets) else 0.5
    if effectiveness == 0.5 and (ignored := _ignored_viewers(required, met, world)):
        # a burst's viewer whose question none of the reply answers is not served by answers to the others: the
        # reply is off-target for them (a greeting left unreturned is partial credit)
        effectiveness, missing = 0.0, [*missing, *(f"answers nothing {name} asked" for name in ignored)]
    steered = steering_errors(reading, world) if text.strip() else []
    if steered:  # sent to buy another product than the one asked for (or suited): off-target
        effectiveness, missing = 0.0, [*missing, *steered]

    return effectiveness, missing
