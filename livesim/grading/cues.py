"""The grader's shared vocabulary: cue patterns and word lists that more than one stage reads (the reading, the
world, the accuracy and answer checks), and the small pure helpers they are built with. Data and text helpers only:
no stage is reached through this module.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from functools import lru_cache

from livesim.grading.facts.patterns import DECLINE_IDIOMS, _negated
from livesim.grading.facts.prefilter import Prefiltered
from livesim.world.catalog import REGIONS


# ------------------------------------------------------------------------------------------- cue lexicons
def _rx(p: str) -> Prefiltered:
    """A case-insensitive pattern, not run on texts that lack every literal its matches need (same results)."""
    return Prefiltered(re.compile(p, re.IGNORECASE))


# a machine wash said with its object between ("machine wash the skirt in warm water", "wash it in the machine on cold")
_MACHINE_WASH_RE = re.compile(
    r"(?i)\bmachine[\s-]{1,2}wash(?:ed|able)?\s{1,2}(?:[\w'’-]{1,16}\s{1,2}){1,4}?(?:in|on|at)\s{1,2}(?:a\s{1,2})?"
    r"(?P<t>cold|warm)\b|\bwash\s{1,2}(?:[\w'’-]{1,16}\s{1,2}){1,4}?in\s{1,2}(?:the|a)\s{1,2}(?:washing\s{1,2})?machine"
    r"\s{1,2}(?:on|at|in)\s{1,2}(?:a\s{1,2})?(?P<t2>cold|warm)\b")
_REGION_RE = _rx("|".join(re.escape(r) for r in sorted(REGIONS, key=len, reverse=True)))
_FREE_SHIP_CUE = _rx(r"\bfree\s{1,2}(?:shipping|delivery|postage)|\b(?:shipping|delivery|postage)(?:['’]s)?(?:\s{1,2}"
                     r"(?:for|on|of|to|with)\s{1,2}[^.,;!?]{1,30}?)?\s{1,2}(?:is\s{1,2}|are\s{1,2}|comes?\s{1,2}|"
                     r"stays?\s{1,2})?(?:always\s{1,2}|totally\s{1,2}|completely\s{1,2}|100%\s{1,2})?free\b|"
                     r"\bships?\s{1,2}(?:for\s{1,2})?free|\bno\s{1,2}(?:shipping|delivery|postage)\s{1,2}(?:fee|cost|charge)s?")
_SHIP_CUE = _rx(r"\b(?:ship|ships|shipped|shipping|dispatch\w*|sends?|sent|goes\s{1,2}out|go\s{1,2}out|"
                r"out\s{1,2}within|courier|"
                r"send\s{1,2}out)\b")
_RETURN_CUE = _rx(r"\b(?:returns?|returned|returnable|refunds?|exchange|send\s{1,2}(?:[\w#]{1,12}\s{1,2}){1,3}back)\b")
_BATTERY_CUE = _rx(r"\b(?:battery|lasts?|playback|runtime|run\s{1,2}time|play\s{1,2}time|on\s{1,2}a\s{1,2}charge)\b")
_NOT_SHIP_RE = _rx(r"\boutside\s{1,2}(?:of\s{1,2})?(?:our|the)\s{1,2}(?:delivery|shipping)\s{1,2}(?:area|zone|range|"
                   r"regions?)\b|"
                   r"(?:\b(?:not|never|cannot|unable\s{1,2}to|no)\b|n['’]t\b)[^.!?\n]{0,30}?\b(?:ship|deliver|send|"
                   r"available|go)\w{0,4}\b"
                   r"|\bexcept\b|\bexcluding\b|\bexcluded\b|\bno\s{1,2}(?:shipping|delivery)\b")
_SHIP_YES_RE = _rx(r"\b(?:ship|ships|shipping|deliver|delivers|delivery|send|sends|including|goes|go|get\s{1,2}to|"
                   r"reach)\b")
# a region said to be served, right after its name ("Beijing's fine for link 8", "Hainan is covered", "Tianjin? No
# problem"): a yes to "does it ship to ...?"
REGION_OK_AFTER = re.compile(r"(?i)(?:['’]s|\s{1,2}(?:is|are))\s{1,2}(?:totally\s{1,2}|completely\s{1,2}|all\s{1,2}|"
                             r"also"
                             r"\s{1,2}|absolutely\s{1,2})?(?:fine|ok(?:ay)?|good|covered|included|no\s{1,2}problem|not\s"
                             r"{1,2}a\s{1,2}problem|supported|on\s{1,2}the\s{1,2}list)\b|\s{0,2}\?\s{0,2}(?:no\s{1,2}problem|"
                             r"sure|yes|yep|absolutely|of\s{1,2}course|definitely)\b"
                             # the region's delay said as what it adds ("Hainan adds 3 days")
                             r"|\s{1,2}(?:adds|takes)\s{1,2}(?:about\s{1,2}|an?\s{1,2})?(?:extra\s{1,2})?[0-9]{1,2}\s{1,2}"
                             r"(?:extra\s{1,2}|more\s{1,2})?days?\b")
# a figure said of each of the products spoken of ("159 each", "99 apiece", "129 for both")
# a figure said of both products compared ("both 259", "link 6 and link 1 are both 259")
_BOTH_BEFORE = re.compile(r"(?i)\bboth\s{1,2}(?:are\s{1,2}|cost\s{1,2}|at\s{1,2}|go\s{1,2}for\s{1,2}|priced\s{1,2}at"
                          r"\s{1,2})?(?:just\s{1,2}|only\s{1,2})?(?:[¥$]\s?)?$")
_EACH_AFTER = re.compile(r"(?i)\s{0,2}(?:each|apiece|a\s{1,2}piece|for\s{1,2}(?:both|each|either)"
                         r"(?:\s{1,2}of\s{1,2}them)?)\b")
# a condition of returns said with a denial ("opened products can't be returned", "not once worn"), in the denial's
# own clause: not "..., so sorry, I've opened a ticket"
_RETURN_QUALIFIER = re.compile(r"(?i)\b(?:opened(?!\s{1,2}(?:a|an|the|your)\s{1,2}(?:ticket|case|complaint|request))|"
                               r"used|"
                               r"worn|washed|damaged|tags?\s{1,2}(?:removed|off|cut)|once)\b")
_RETURN_CLAUSE_CUT = re.compile(r"(?i)[,;:!?.\n]|\b(?:but|so|and\s{1,2}(?:i|we))\b")


def qualified_return(sent: str, pos: int) -> bool:
    """Is the return denial at `pos` qualified by a condition in its own clause ("opened products can't be
    returned")?
    """
    cuts = [0, *(m.end() for m in _RETURN_CLAUSE_CUT.finditer(sent)), len(sent) + 1]
    spans = [(a, b - 1 if b <= len(sent) else len(sent)) for a, b in zip(cuts, cuts[1:], strict=False)]
    for a, b in spans:
        own = a <= pos < b + 1
        # its own clause, or a condition clause beside it ("Once opened, it cannot be returned", "..., if worn")
        if (own or _CONDITION_OPENS_RE.match(sent, a)) and _RETURN_QUALIFIER.search(sent, a, b) is not None:
            return True
    return False


_CONDITION_OPENS_RE = re.compile(r"(?i)\s{0,3}(?:once|if|when|after|unless|since)\b")


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
                    r"|\bfinal[\s-]{1,2}sale\b")
_COMPLY_RE = _rx(r"^\s{0,3}(?:sure|ok(?:ay)?|yes|yep|yeah|of\s{1,2}course|done|absolutely|confirmed)\b")
# no one and nothing can promise it ("no product can guarantee that", "nothing can promise results")
NOBODY_CAN_PROMISE = (r"(?:no\s{1,2}(?:[\w-]{1,12}\s{1,2}){0,2}?|nothing\s{1,2}|nobody\s{1,2})(?:can|could|will|would)"
                      r"\s{1,2}(?:honestly\s{1,2}|really\s{1,2}|truly\s{1,2}|ever\s{1,2})?(?:guarantee|promise)")
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
                  r"not\s{1,2}happening|ain['’]t\s{1,2}happening|" + NOBODY_CAN_PROMISE + "|" + DECLINE_IDIOMS + r")\b"
                  r"|^\s{0,3}(?:no|nope|nah|sorry,?\s{1,2}no)\b")
# not held by the record: "isn't on record", "not in our records", "nothing on file about it"
NOT_ON_RECORD = (r"\b(?:not|isn['’]t|aren['’]t|nothing)\s{1,2}(?:(?:on|in)\s{1,2}(?:the\s{1,2}|our\s{1,2}|my\s{1,2}|"
                 r"its\s{1,2})?"
                 r"(?:records?|file|listing|product\s{1,2}(?:page|sheet|info|details|description)|spec\s{1,2}sheet|"
                 r"label|description|system|info|information|notes|data|details)|recorded|documented)\b")
# An honest "I can't tell you that": a can't/don't/not-listed phrase (what the host cannot say, not what it refuses).
CANT_TELL_RE = re.compile(
    r"(?i)\b(?:can['’]?t|cannot|can\s{1,2}not|couldn['’]?t|unable\s{1,2}to|not\s{1,2}able\s{1,2}to)\s{1,2}"
    r"(?:\w{1,12}\s{1,2}){0,3}?(?:tell|say|confirm|see|check|promise|guarantee|know|find|give\s{1,2}you)\b"
    r"|\b(?:don['’]?t|do\s{1,2}not|doesn['’]?t|does\s{1,2}not)\s{1,2}(?:\w{1,12}\s{1,2}){0,3}?"
    r"(?:know|have|list|show|record|track|say|mention)\b"
    r"|\bnot\s{1,2}(?:sure|listed|recorded|stated|specified|shown|something\s{1,2}(?:i|we))\b"
    r"|\b(?:isn['’]t|aren['’]t|is\s{1,2}not|are\s{1,2}not)\s{1,2}(?:listed|recorded|stated|specified|shown|"
    r"something\s{1,2}(?:i|we))\b"
    r"|" + NOT_ON_RECORD +
    r"|\bno\s{1,2}(?:[\w-]{1,14},?\s{1,2}){0,4}?(?:info\w{0,8}|details?|record\w?|data|idea)\b|\bunknown\b")
# a can't-tell that is the whole sentence ("I can't say.", "We don't know!"): of a topic named alone before it
BARE_CANT_RE = re.compile(r"(?i)\W{0,3}(?:i|we)\s{1,2}(?:really\s{1,2}|honestly\s{1,2}|just\s{1,2})?(?:can['’]?t|"
                          r"cannot|don['’]?t|do\s{1,2}not)\s{1,2}(?:say|tell|know|see|confirm)\W*$")
_NO_RE = _rx(r"^\s{0,3}(?:no|nope|nah|sorry,?\s{1,2}no|not\s{1,2}anymore)\b")
_WORD_RE = re.compile(r"[a-z][a-z'’]{0,20}")
_COLOURS = frozenset("black white navy beige grey gray olive pink brown red blue green yellow purple orange gold "
                     "silver cream khaki burgundy".split())


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


_TOKEN_RE = re.compile(r"[a-z0-9'’]+")


def trigrams(text: str) -> set[tuple[str, ...]]:
    toks = _TOKEN_RE.findall(text.lower())
    if len(toks) < 3:
        return {tuple(toks)} if toks else set()
    # the runs of three tokens, == {tuple(toks[i:i + 3]) for i in range(len(toks) - 2)}
    return set(zip(toks, toks[1:], toks[2:], strict=False))


# ------------------------------------------------------------------------------------------- figures and words
def _close(v: float, values: set[float]) -> bool:
    """Is `v` one of `values` (to a millionth)?"""
    return any(abs(v - x) < 1e-6 for x in values)


_AZ_RE = re.compile(r"[a-z]+")
_ESCALATION_SUBJ_RE = _rx(r"\b(?:i|we|i['’]ve|i['’]ll|has|have|been|will|team|colleagues?|agents?|service|support|"
                          r"they)\b")
_PROMOTION_ATTRS = ("discount", "threshold", "coupon_price", "percent")


# ------------------------------------------------------------------------------------------- word stems
_STOP = frozenset("my me the a an all get make your you it will can does to of is i".split())
_WORD = re.compile(r"[a-z]{3,}")


def _stems(words: Sequence[str]) -> set[str]:
    return {w[:4] for w in words if w not in _STOP}


def claim_stems(text: str) -> set[str]:
    """The content words of `text` as `act_checks.restated` compares them (first four letters, filler dropped)."""
    return _stems(_WORD.findall(text.lower()))


# ------------------------------------------------------------------------------------------- returns stated
_RETURN_CLOSED_NO = _rx(
    r"\b(?:no|zero)\s{1,2}(?:refunds?|returns?)\b|\b(?:refunds?|returns?)\s{1,2}(?:are|is)(?:n['’]t|\s{1,2}not)\s{1,"
    r"2}(?:\w{1,10}"
    r"\s{1,2})?(?:possible|allowed|accepted|available|an\s{1,2}option|offered)\b|\b(?:can['’]?t|cannot|can\s{1,2}not|"
    r"won['’]?t)\s{1,2}(?:be\s{1,2})?(?:refund\w{0,3}|returned|exchanged|sent\s{1,2}back)\b|\b(?:non|not)[\s-]?"
    r"(?:refundable|returnable)\b|\b(?:can['’]?t|cannot|can\s{1,2}not|won['’]?t\s{1,2}be\s{1,2}able\s{1,2}to)\s{1,2}"
    r"(?:return|send)\s{1,2}(?:\w{1,12}\s{1,2}){0,3}?back\b|\b(?:can['’]?t|cannot|can\s{1,2}not)\s{1,2}return\b"
    r"|\ball\s{1,2}sales\s{1,2}(?:are\s{1,2})?final\b|\bfinal[\s-]{1,2}sale\b"
    # the negation contracted or said in other words ("isn't returnable", "not eligible for returns", "we don't
    # accept returns", "won't be taken back")
    r"|\b(?:is|are|was|were)n['’]t\s{1,2}(?:\w{1,10}\s{1,2})?(?:refundable|returnable)\b"
    r"|(?:\bnot|n['’]t|\bin)\s{0,2}eligible\s{1,2}for\s{1,2}(?:a\s{1,2}|any\s{1,2})?(?:returns?|refunds?)\b"
    r"|\b(?:do|does|can)(?:n['’]t|\s{1,2}not)\s{1,2}(?:accept|take|allow|offer|do)\s{1,2}(?:any\s{1,2})?"
    r"(?:returns?|refunds?)\b"
    r"|\b(?:won['’]t|will\s{1,2}not|can['’]?t|cannot)\s{1,2}be\s{1,2}(?:accepted|taken)\s{1,2}back\b")
_RETURN_CLOSED_YES = _rx(
    r"\b[0-9]{1,3}[\s-]{1,2}days?\s{1,2}(?:no[\s-]reason\s{1,2})?(?:returns?|refunds?)\b|\b(?:is|are|it['’]?s)\s{1,2}"
    r"(?:fully\s{1,2})?returnable\b|\b(?:can|could|may)\s{1,2}(?:\w{1,10}\s{1,2})?(?:return|refund|send\s{1,2}(?:\w"
    r"{1,12}"
    r"\s{1,2}){1,3}back|exchange)\b|\breturns?\s{1,2}(?:are\s{1,2})?(?:accepted|ok|fine|welcome)\b|\b(?:return|send"
    r"\s{1,2}"
    r"(?:\w{1,12}\s{1,2}){1,3}back)\s{1,2}within\b")


def return_statement(text: str) -> bool:
    """Does the text say whether returns are possible (checked against the after-sales rule by `closed`)?"""
    return _RETURN_CLOSED_NO.search(text) is not None or _RETURN_CLOSED_YES.search(text) is not None


def no_returns(rx: Prefiltered, text: str, negated: bool = False) -> re.Match[str] | None:
    """The first match of a "no returns" pattern (`_RETURN_NO_RE`, `_RETURN_CLOSED_NO`) in `text`, not counting a
    "final sale" said not to be one ("the jacket isn't final sale, you can return it"); `negated`: the first such
    "final sale" instead (it says returns are possible).
    """
    for m in rx.finditer(text):
        if _FROM_ME_RE.match(text, m.end()):
            continue  # "no refunds from me": the host refusing what was asked, not the product's policy
        if ("final" in m.group().lower() and _negated(text, m.start())) == negated:
            return m
    return None


_FROM_ME_RE = re.compile(r"(?i)\s{1,2}from\s{1,2}(?:me|us)\b")


def returns_denied(sent: str) -> bool:
    """Does the sentence say returns or refunds are not possible?"""
    return no_returns(_RETURN_CLOSED_NO, sent) is not None
