"""Grading stage 1: a reply's wording normalised before it is read. Affirmative idioms that hold a negation word
("no problem", "can't go wrong", "nothing beats") become plain affirmatives, so a negation test does not flip
the clause they open; amounts and durations spoken the way people say them ("one twenty-nine", "1.2k",
"a couple of days", "within a day", "half off") become digits. Numbers written as words ("a hundred and
twenty-nine") become digits too (`words_to_digits`), and statements run on with no mark between get a full stop
(`punctuate_run_ons`). `normalise_reply` does all three, once per reply.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from livesim.grading.facts.prefilter import Prefiltered


def _rx(p: str) -> Prefiltered:
    return Prefiltered(re.compile(p, re.IGNORECASE))


# (pattern, replacement): each replacement keeps what the idiom asserts and drops its negation word
_IDIOMS: tuple[tuple[Prefiltered, str], ...] = (
    (_rx(r"\b(?:no|not\s{1,2}a)\s{1,2}(?:problem|prob|worries|worry|biggie)o?s?\b|\bno\s{1,2}need\s{1,2}to\s{1,2}"
         r"worry\b"), "all good"),
    (_rx(r"\bnot\s{1,2}(?:too\s{1,2}|half\s{1,2})?bad(?:\s{1,2}at\s{1,2}all)?\b"), "pretty good"),
    (_rx(r"\b(?:you\s{1,2})?(?:can['’]?t|cannot|won['’]?t|will\s{1,2}not)\s{1,2}go\s{1,2}wrong\b"), "you will do well"),
    (_rx(r"\b(?:no|without\s{1,2}(?:a|any))\s{1,2}doubt(?:\s{1,2}about\s{1,2}it)?\b"), "certainly"),
    (_rx(r"\bnot\s{1,2}only\b"), "both"),
    (_rx(r"\bbut\s{1,2}also\b"), "and also"),
    (_rx(r"\bnothing\s{1,2}(?:beats|compares\s{1,2}to|tops)\b"), "I love"),
    (_rx(r"\b(?:never|won['’]?t|doesn['’]?t)\s{1,2}(?:disappoints?|fails?\s{1,2}to\s{1,2}(?:impress|please))\b"),
     "always pleases"),
    (_rx(r"\byou['’]?ll\s{1,2}never\s{1,2}regret\b|\byou\s{1,2}won['’]?t\s{1,2}regret\b"), "you will enjoy"),
    (_rx(r"\bnot\s{1,2}to\s{1,2}mention\b"), "also"),
    (_rx(r"\bno\s{1,2}wonder\b"), "naturally"),
    (_rx(r"\bwhy\s{1,2}not\b(?!\s{1,2}\w)"), "sure"),
    (_rx(r"\b(?:can['’]?t|cannot)\s{1,2}recommend\s{1,2}(?:it|this|them|that)\s{1,2}enough\b"), "highly recommend it"),
    (_rx(r"\bcouldn['’]?t\s{1,2}(?:be\s{1,2})?(?:happier|better)\b"), "is great"),
    (_rx(r"\bnothing\s{1,2}but\b"), "only"),
    (_rx(r"\b(?:can['’]?t|cannot)\s{1,2}(?:beat|wait|resist|get\s{1,2}enough\s{1,2}of)\b"), "love"),
    # a hedged assertion, not a condition: "if I remember right, X" asserts X
    (_rx(r"\bif\s{1,2}(?:i\s{1,2}(?:remember|recall)\s{1,2}(?:right|rightly|correctly)|i['’]m\s{1,2}not\s{1,2}"
         r"mistaken|memory\s{1,2}serves(?:\s{1,2}me)?(?:\s{1,2}right)?)\b"), "I believe"),
)

_DIGITS = {w: i for i, w in enumerate("zero one two three four five six seven eight nine".split())}
_TENS = {w: 10 * (i + 2) for i, w in enumerate("twenty thirty forty fifty sixty seventy eighty ninety".split())}
# "one twenty-nine", "two fifty", "three ninety-nine": hundreds then a two-digit tail, as prices are said
_SPOKEN_RE = _rx(r"\b(?P<h>one|two|three|four|five|six|seven|eight|nine)\s{1,2}(?P<t>twenty|thirty|forty|"
                 r"fifty|sixty|seventy|eighty|ninety)(?:[\s-](?P<u>one|two|three|four|five|six|seven|eight|nine))?\b"
                 r"(?!\s{0,2}(?:am|pm|a\.m|p\.m|o['’]clock)\b)")
_KILO_RE = _rx(r"(?<![\w.])(?P<n>[0-9]{1,4}(?:\.[0-9]{1,3})?)\s?k\b")
_DURATIONS: tuple[tuple[Prefiltered, str], ...] = (
    (_rx(r"\ba\s{1,2}couple\s{1,2}(?:of\s{1,2})?(?=(?:days?|hours?|weeks?|months?)\b)"), "2 "),
    (_rx(r"\b(?:a\s{1,2}|one\s{1,2})?(?:day|week)\s{1,2}or\s{1,2}two\b"), "RANGE"),
    (_rx(r"\b(?P<p>within|in|under|inside|about|around|after|for|takes|take|only|just|lasts?|keeps?|of|life\s{1,2}is|"
         r"have|has|had|get|gets|got|give|gives|given|full)"
         r"\s{1,2}(?:a|an|one)\s{1,2}(?P<u>day|week|month|year|hour)\b(?!\s{1,2}(?:ago|off|or)\b)"), "UNIT"),
    # a duration before what it is for ("a month to return it unused", "a week to decide")
    (_rx(r"(?<=\s)(?P<p>)(?:a|one)\s{1,2}(?P<u>day|week|month|year)(?=\s{1,2}to\s{1,2}(?:return|send|exchange|decide|"
         r"change|try|ask)\b)"), "UNIT1"),
    # a duration that opens a statement ("A week, as long as ...", "One month: ...")
    (_rx(r"(?:^|(?<=[.!?;:]\s)|(?<=[.!?;:]))(?P<p>\s{0,2})(?:a|an|one)\s{1,2}(?P<u>day|week|month|year)\b"
         r"(?=\s{0,2}[,:;!.—–-])"), "UNIT"),
    (_rx(r"\b(?:a|one)\s{1,2}(?P<u>day|week|month|year)['’]?s?\s{1,2}(?=(?:returns?|warranty|shipping|dispatch)\b)"),
     "UNIT1"),
    (_rx(r"\b(?:a|one)[\s-]{1,2}(?P<u>day|week|month|year)[\s-](?=(?:returns?|warranty)\b)"), "UNIT1"),
    (_rx(r"\bhalf\s{1,2}(?:a|an)\s{1,2}(?P<u>year|day)\b"), "HALF"),
    (_rx(r"\bhalf\s{1,2}(?=off\b|price\b)|\b(?<=to\s)half\b"), "50% "),
)
_HALF = {"year": "6 months", "day": "12 hours"}
# a word each idiom (each duration) must contain; checked first, so a reply without one skips the list
# "Last one in 256GB!", "it's the last one", "we're down to the last one": one left (not "the last one you asked
# about", "link 3 is the last one on the list"): said at a statement's start or after "it's", "down to", "just"
_LAST_ONE_RE = _rx(r"(?:^|(?<=[.!?]\s)|(?<=[.!?]\s\s)|(?<=\bit['’]s\s)|(?<=\bthat['’]s\s)|(?<=\bdown\s{1}to\s)|"
                   r"(?<=\bjust\s)|(?<=\bonly\s))(?:the\s{1,2})?last\s{1,2}one(?=\s{1,2}in\s|\s{0,2}[!.,;]|\s{0,2}$)")
# a skin type with "skin" left out at a clause's end ("link 3 for oily skin, link 8 for dry."): the skin type
_SKIN_ELIDED_RE = _rx(r"\bfor\s{1,2}(?:dry|oily|sensitive|combination|normal|mature|acne[\s-]prone)"
                      r"(?=\s{0,2}(?:[,.;!?)]|$)|\s{1,2}(?:and|or)\s{1,2}(?:link|#|the)\b)")
_IDIOM_WORDS = Prefiltered(re.compile(r"(?i)\b(?:if|no|not|without|can['’]?t|cannot|won['’]?t|will|doesn['’]?t|never|"
                                      r"nothing|you['’]?ll|you|but|why|couldn['’]?t)\b"))
_DURATION_WORDS = Prefiltered(re.compile(r"(?i)\b(?:days?|weeks?|months?|years?|hours?|half)\b"))
# (both are asked only whether they match: `found` reads an ASCII text's lower case, without folding case)


_CURRENCY_AFTER = re.compile(r"(?i)\s{0,2}(?:yuan|kuai|bucks?|rmb|dollars?|元|块)\b")


def _spoken(m: re.Match[str]) -> str:
    """'one twenty-nine' is how a price is said: the figure, in yuan unless a currency word follows."""
    v = 100 * _DIGITS[m["h"].lower()] + _TENS[m["t"].lower()] + (_DIGITS[m["u"].lower()] if m["u"] else 0)
    return str(v) if _CURRENCY_AFTER.match(m.string, m.end()) else f"{v} yuan"


def _duration(rep: str) -> Callable[[re.Match[str]], str]:
    def sub(m: re.Match[str]) -> str:
        if rep == "UNIT":
            return f"{m['p']} 1 {m['u']}"
        if rep == "UNIT1":
            return f"1 {m['u']} "
        if rep == "HALF":
            return _HALF[m["u"].lower()]
        if rep == "RANGE":
            return "2 " + ("weeks" if "week" in m.group().lower() else "days")
        return rep
    return sub


# a shouted stretch: between punctuation marks, at least 8 letters and no lowercase letter
_SHOUT_SEP_RE = re.compile(r"[.!?;,:()\n]|\s[-–—/|]\s")
_KEEP_UPPER_RE = re.compile(r"^(?:XXS|XS|S|M|L|XL|XXL|XXXL|[23]XL|[A-Z]{1,3}[0-9][A-Z0-9]*|[A-Z]+[0-9]+[A-Z0-9]*)$")
_WORD_RE = re.compile(r"[A-Za-z][A-Za-z0-9_'’]*")
_TWO_CAPS_RE = re.compile(r"[A-Z][A-Z]")


def _lower_word(m: re.Match[str]) -> str:
    w = m.group()
    return w if _KEEP_UPPER_RE.match(w) else w.lower()


# three or more words in capitals in a row ("..., and BOTH XL AND S WOULD FIT YOU", "TAP LINK 7 IN THE CART")
_CAPS_WORDS_RE = re.compile(r"\b[A-Z][A-Z0-9'’_-]*(?:\s{1,3}(?:[A-Z][A-Z0-9'’_-]*|[0-9]{1,4}(?:['’]S)?)){2,}\b")


_NUM_S_RE = re.compile(r"(?<=[0-9])(['’])S\b")  # "LINK 1'S" -> "link 1's"


def _lower_caps(m: re.Match[str]) -> str:
    words = m.group()
    if sum(c.isalpha() for c in words) < 8:
        return words
    return _NUM_S_RE.sub(r"\1s", _WORD_RE.sub(_lower_word, words))


def _deshout(run: str) -> str:
    letters = sum(c.isalpha() for c in run)
    if letters < 8:
        return run
    if any(c.islower() for c in run):
        return _CAPS_WORDS_RE.sub(_lower_caps, run)
    # "BOTH M AND S WOULD FIT YOU" -> "both M and S would fit you"; "LINK 2'S FIT" -> "link 2's fit"
    return _NUM_S_RE.sub(r"\1s", _WORD_RE.sub(_lower_word, run))


def deshout(text: str) -> str:
    """Stretches written in capitals read as ordinary case; sizes ("M", "XL") and codes with digits ("LIVE10")
    keep theirs. The same length, so positions in the text do not move.
    """
    if _TWO_CAPS_RE.search(text) is None:  # no word with two capitals in a row: nothing is shouted
        return text
    out, last = [], 0
    for m in _SHOUT_SEP_RE.finditer(text):
        out += [_deshout(text[last:m.start()]), m.group()]
        last = m.end()
    out.append(_deshout(text[last:]))
    return "".join(out)


def normalise(text: str) -> str:
    """The reply with capitals made ordinary, affirmative idioms made plain and spoken amounts and durations made
    digits.
    """
    text = deshout(text)
    if _IDIOM_WORDS.found(text):  # every idiom holds one of these words: most replies skip them
        for rx, rep in _IDIOMS:
            if rx.possible(text):
                text = rx.rx.sub(rep, text)
    if _SPOKEN_RE.possible(text):
        text = _SPOKEN_RE.rx.sub(_spoken, text)
    if _LAST_ONE_RE.possible(text):
        text = _LAST_ONE_RE.rx.sub("only 1 left", text)
    if _SKIN_ELIDED_RE.possible(text):
        text = _SKIN_ELIDED_RE.rx.sub(r"\g<0> skin", text)
    if _KILO_RE.possible(text):
        text = _KILO_RE.rx.sub(lambda m: f"{float(m['n']) * 1000:g}", text)
    if _DURATION_WORDS.found(text):
        for rx, rep in _DURATIONS:
            if rx.possible(text):
                text = rx.rx.sub(_duration(rep), text)
    return text


# ------------------------------------------------------------------------------------------- numbers in words
_SMALL = {w: i for i, w in enumerate("zero one two three four five six seven eight nine ten eleven twelve thirteen "
                                     "fourteen fifteen sixteen seventeen eighteen nineteen".split())}
_NW = "|".join([*_SMALL, *_TENS, "hundred", "thousand"])
_NUMWORDS_RE = _rx(rf"\b(?:an?\s{{1,2}}(?=hundred|thousand))?(?:{_NW})(?:(?:\s{{1,2}}and\s{{1,2}}|"
                   rf"[\s-]{{1,2}})(?:{_NW})){{0,6}}\b")
_ONE_OK_RE = re.compile(r"(?i)\s{1,2}(?:days?|hours?|months?|years?|weeks?|yuan|kuai|bucks?|pieces?|pcs|units?|left|"
                        r"more|"
                        r"extra|of\s{1,2}(?:them|those|each))\b")


# a number word that names a kind of thing, not a figure ("four way stretch", "two-tone", "three-in-one", "2-ply")
_LABEL_AFTER_RE = re.compile(r"(?i)[\s-]{1,2}(?:way|tone|sided|seasons?|ply|in[\s-]one)\b")
# "only one 256GB power bank left": a count of what is left, a few words on
_ONE_LEFT_RE = re.compile(r"(?i)(?:\s{1,2}[\w-]{1,15}){1,3}\s{1,2}(?:left|remaining|in\s{1,2}stock)\b")
_ONLY_BEFORE_RE = re.compile(r"(?i)\b(?:only|just|exactly)\s{1,2}$")


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
_ZERO_LABEL_AFTER_RE = re.compile(r"(?i)[\s-]{1,2}(?:waste|emissions?|carbon|plastic|risk)\b")


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
                s.lower() == "one" and text[max(0, m.start() - 5):m.start()].lower() == "link ") and not (
                s.lower() == "one" and _ONE_LEFT_RE.match(text, m.end())
                and _ONLY_BEFORE_RE.search(text, max(0, m.start() - 10), m.start())):
            return s
        if _LABEL_AFTER_RE.match(text, m.end()):
            return s  # a kind, not a figure: "four way stretch", "a two-tone finish", "three-in-one"
        if s.lower() == "zero" and (text[max(0, m.start() - 4):m.start()].lower() == "net "
                                    or _ZERO_LABEL_AFTER_RE.match(text, m.end())):
            return s  # a label, not a figure: "net zero", "zero waste"
        v = _words_value(s)
        return s if v is None else str(v)

    return _NUMWORDS_RE.sub(sub, text)


# ------------------------------------------------------------------------------------------- run-on statements
# Statements run together with no mark between ("Love the energy in chat today Link 1 doesn't come in navy",
# "Thanks for watching I've sent a coupon to your account"): a capitalised word that opens a statement, right after a
# word or figure that is not capitalised, starts a new one, and a full stop is put before it, so that a decline, a
# negation, a subject or a cue word never reaches from one statement into the next.
_OPENERS = frozenset(
    "tap use enter size sizes shipping returns return hello hi hey thanks thank love hope great welcome stay so sorry "
    "that's thats that this these it it's its your our we we're we've we'll you you're yes no yeah yep sure absolutely "
    "unfortunately also plus enjoy let's let check grab probably maybe perhaps honestly personally as if for with "
    "every each all everything done free please ha haha lol nice good happy cheers don't what how which when where "
    "why nope okay ok oh wow here there there's both just today tonight only".split())
_I_FORMS = frozenset(("i", "i'm", "i've", "i'll", "i'd"))
# words after which "I ..." goes on with the same statement ("sorry I can't", "hope I helped", "that I can do")
_I_GOES_ON = frozenset(
    "that what if when because so and but or nor as than hope think know guess say wish where which who how why before "
    "after until unless since while once whether all something anything everything way reason sure glad sorry afraid "
    "believe reckon feel mean promise bet tell told said says thought not cos cause tbh honestly".split())
# a bare "I" or "I'd" may go on with the statement ("the one I like", "the size I'd pick"); these open one, as does
# "I" before a refusal, a report or a hedge ("... anywhere I can't guarantee that", "... I can do I have added it",
# "... 270 days I believe link 2 ...")
_I_OPENS = frozenset(("i'm", "i've", "i'll"))
_I_OPENS_RE = re.compile(r"(?i)i[ \t]{1,2}(?:can['’]?t|cannot|won['’]?t|have|am|will|just|promise|guarantee|swear)\b"
                         # a hedge that opens a statement ("... in stock I think link 2 is 99 yuan"), not one inside a
                         # relative clause ("the one I think is best")
                         r"|i[ \t]{1,2}(?:think|believe|guess|reckon)\b(?![ \t]{1,2}(?:is|are|was|were|will|would|"
                         r"fits?|suits?|works?|looks?|of|about|so)\b)")
# "that" after one of these is the thing itself, not "that" leading into what follows ("sorry about that I've ...")
_THAT_ENDS = frozenset("about for with of on in at to do did done fix like take see hear handle".split())
# words that lead into a link named after them ("for Link 1", "tap Link 7", "and Link 3 has", "not sure Link 1 is");
# ("only" is not one: "hand wash only Link 5 is ..." is a run-on, and "only Link 3 is" reads the same either way)
_LEADS_INTO = frozenset(
    "and or but so then also plus for of on in at to from with than like vs versus about is are was were be been buy "
    "get try grab tap check pick recommend choose add order see love prefer suggest want need as if because since "
    "while whereas where when both either neither into onto over under between compared unlike beside besides via per "
    "sure think say guess reckon believe hope bet maybe perhaps probably honestly personally definitely yes yeah not "
    # what a statement is said, promised or known of ("I can't promise Link 8 will never fade")
    "promise guarantee confirm swear claim know expect imagine suppose assume tell".split())
# after a link mention, words that go on with the statement it is named in ("check out Link 3 today", "tap Link 3
# and Link 4", "go for Link 3 in navy"); any other word makes the mention the subject of a statement of its own
# ("... navy Link 4 won an award", "... 10 W Link 2's weight is 31 g")
_AFTER_NAMED = frozenset(
    "today now tonight for in and or with at on too as before after instead then here there please right first asap "
    "if when while because but so than to of from by via".split())
# a variant that opens a statement: "Standard of link 6 is in stock", "Dark roast of #6 is sold out"
_VARIANT_OF_RE = re.compile(r"[A-Z][a-z-]*(?:[ \t][a-z][a-z-]*){0,3}[ \t]of[ \t](?i:links?[ \t]?|#)[0-9]")
_NEXT_WORD_RE = re.compile(r"[ \t]{0,2}([A-Za-z'’]+|[^A-Za-z\s]|$)")
_CAP_AFTER_RE = re.compile(r"(?<=[A-Za-z0-9%’')])[ \t]{1,2}(?=[A-Z]|#[0-9]|i(?:['’](?:m|ve|ll|d))?\b)")
_WORD_AT_RE = re.compile(r"#?[A-Za-z'’]+")
_UPPER = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZ")
_LINK_AT_RE = re.compile(r"(?:Links?|Items?|LINKS?|ITEMS?)[ \t]{0,2}#?[0-9]{1,4}(?![0-9])|#[0-9]{1,4}(?![0-9])")


_DECLINED_VERBS = frozenset("promise guarantee confirm say do offer give change allow approve share tell arrange "
                            "honour honor match".split())


def _word_before(text: str, end: int) -> tuple[int, str]:
    """The word that ends at `end` (lower case, "’" read as "'") and where the space before it is (-1: none)."""
    if end <= 0:
        return -1, ""
    space = text.rfind(" ", 0, end)
    return space, text[space + 1:end].lower().replace("’", "'")


def _that_itself(text: str, gap: int) -> bool:
    """Is the word ending at `gap` a "that" which is the thing itself ("sorry about that"; see `_THAT_ENDS`)?"""
    space, word = _word_before(text, gap)
    return word == "that" and _word_before(text, space)[1] in _THAT_ENDS


def _said_again(text: str, gap: int, at: int) -> bool:
    """Is the "I" at `at` (after "that", which ends at `gap`) followed by the verb said before "that"? ("I can't
    promise that I promise it will ...": "that" is the thing declined, and the second "promise" opens a statement.)
    """
    space, that = _word_before(text, gap)
    if that != "that" or text[at:at + 1] not in "Ii" or text[at + 1:at + 2] not in " \t'’":
        return False
    verb = _word_before(text, space)[1]
    if verb in _DECLINED_VERBS and text[at:at + 4].lower().replace("’", "'") == "i've":
        return True  # "I can't promise that I've lowered the price": a report, not what is promised
    return verb.isalpha() and text[at + 1:at + 3 + len(verb)].lower().split()[:1] == [verb]


# in lower case, a few openers are plain enough to cut before: a link as the subject ("... is in stock link 2's shelf
# life is 180 days", "... original link 2 is 19 yuan", "... in stock link 4 arrives ...", "... try link 6 link 4:
# colours grey, pink", "... is 509 yuan link 6 (cotton t-shirt) is 99 yuan"), a code to use ("... right now use code
# bundle41 for 15 yuan off"), a size as the subject ("... after opening size m is the one for you", "... on link 4
# size l in navy of link 4 is in stock"), a need fronted before a pick ("... is in stock for travel, try link 5"), a
# tap or click on a link ("... a synthetic material tap link 5 in the cart") and a variant the catalogue sells, named
# "of link N" ("... 24 hours pro of link 1 is sold out"), after a word that does not lead into them ("check link 2's",
# "you can tap link 5", "which link 2 is", "the pro of link 1", "great for travel, try link 5")
_LOWER_OPENERS = (
    # a link as the subject
    r"link[ \t]?[0-9]{1,4}(?:['’]s[ \t]|:|[ \t]{1,2}\(|[ \t]{1,2}(?:is|isn['’]t|has|hasn['’]t|does|doesn['’]t|can|"
    r"can['’]t|will|won['’]t|[a-z]{2,12}s)\b)",
    # a size as the subject
    r"size[ \t]{1,2}(?:x{0,3}[sml]|X{0,3}[SML]|[0-9]{1,3})[ \t]{1,2}(?:is|fits|would|should|will|in[ \t]{1,2}"
    r"[a-z]{3,12}[ \t]{1,2}of[ \t]{1,2}link|of[ \t]{1,2}(?:link|#)[ \t]?[0-9]{1,4}[ \t]{1,2}(?:is|are|isn['’]t|has))\b",
    r"(?:tap|click)[ \t]{1,2}(?:on[ \t]{1,2})?(?:links?[ \t]?#?[0-9]|#[0-9])",  # a tap on a link
    r"use[ \t]{1,2}code[ \t]{1,2}[a-z0-9]",  # a code to use
    r"for[ \t]{1,2}[a-z][a-z -]{0,24},[ \t]{1,2}(?:try|go[ \t]{1,2}for|pick|get|grab)[ \t]{1,2}(?:link|#)",  # a need
    r"no[ \t]{1,2}[a-z-]{3,16}[ \t]{1,2}(?:is|are)[ \t]{1,2}(?:running|on|available|active|included|needed|left)\b",
    # a service of a link as the subject ("... a cool dry place shipping for link 2 is 10 yuan"; not "free shipping")
    r"(?<![Ff]ree[ \t])(?<![Ff]ast[ \t])(?<![Ee]xpress[ \t])(?<![Ss]tandard[ \t])(?:shipping|delivery|postage)"
    r"[ \t]{1,2}(?:for|on|of|to)[ \t]{1,2}(?:link[ \t]?[0-9]{1,4}|#[0-9]{1,4})[ \t]{1,2}(?:is|are|costs?|takes)\b",
    # every variant as the subject ("... and check out every option of link 2 is in stock")
    r"(?:every|all|each|both)[ \t]{1,2}(?:of[ \t]{1,2}the[ \t]{1,2})?(?:options?|colou?rs?|sizes?|variants?|versions?|"
    r"flavou?rs?)[ \t]{1,2}(?:of[ \t]{1,2}(?:link[ \t]?[0-9]{1,4}|#[0-9]{1,4})[ \t]{1,2})?(?:is|are)\b",
)
# openers that open a statement after any word but one that leads into what follows ("and", "that", "promise"): a
# decline whose subject is no product ("... will contact you no product can promise that") or that is not something
# the host does ("... will contact you that's not something i can do"), the viewer's measures fronted before advice
# ("... is 100 g for 170cm and 53kg i'd go with size m"), a steer back to the shop ("... beyond the running
# promotions stay tuned for more deals")
_FITS = frozenset("fits fit suits suit works work size sizes one xxs xs s m l xl xxl xxxl small medium large".split())
_MODALS = frozenset("that can could will would should must might may do does did please just to i'll you'll we'll "
                    "can't won't don't".split())
_STRONG_OPEN_RE = re.compile(
    r"(?<=[A-Za-z0-9%)])[ \t]{1,2}(?=that(?:['’]s|[ \t]{1,2}is)[ \t]{1,2}not[ \t]{1,2}something[ \t]{1,2}(?:i|we)\b"
    r"|for[ \t]{1,2}(?:someone[ \t]{1,2})?[0-9]{2,3}[ \t]?cm\b"
    r"|no[ \t]{1,2}(?:product|item|one|cream|serum|oil)[ \t]{1,2}(?:can|could|will)"
    r"[ \t]{1,2}(?:promise|guarantee|cure|fix|treat|heal)\b|(?:stay[ \t]{1,2}tuned|don['’]t[ \t]{1,2}miss|"
    r"check[ \t]{1,2}"
    r"out[ \t]{1,2}"
    r"(?:today['’]s|our|the[ \t]{1,2}(?:deals|links|shop)))\b)")
# a steer back to the shop run on after a statement or a decline ("sorry, I can't promise that let's get back to
# today's deals", "that's not something I can do back to the deals now!", "... check out link 1 while it's on sale"):
# "let's" always opens a clause; "back to the deals" does after any word but a verb that goes back to something ("come
# back to the stream"), and "check out link N" after any word but one that leads into it
_STEER_OPEN_RE = re.compile(
    r"(?<=[A-Za-z0-9%)])[ \t]{1,2}(?=(?P<lets>[Ll]et['’]s[ \t]{1,2}(?:get|go|head|look|check|see|focus|talk|jump|dive|"
    r"turn|move|take|keep)\b)|(?P<back>[Bb]ack[ \t]{1,2}to[ \t]{1,2}(?:the|today['’]s|our)[ \t]{1,2}(?:deals?|"
    r"products?|shop|stream|links?|sales?|show)\b)|[Cc]heck[ \t]{1,2}out[ \t]{1,2}(?:links?[ \t]?#?[0-9]|#[0-9]))")
_GOES_BACK = frozenset("go goes going gone went come comes coming came get gets getting got head heads heading headed "
                       "bring brings bringing brought take takes taking took send sends sending sent put puts putting "
                       "move moves moving moved turn turning switch switching jump jumping way right straight is are "
                       "be been".split())
# a decline whose "do" ends it ("that's not something I can do for 166cm and 68kg i'd go with size l": the measures
# open the advice)
_DECLINE_DONE_RE = re.compile(r"(?i)\b(?:something|anything)[ \t]{1,2}(?:i|we)(?:[ \t]{1,2}(?:can|could))?[ \t]{1,2}"
                              r"do$")
_LOWER_OPEN_RE = re.compile(r"(?<=[A-Za-z0-9%)])[ \t]{1,2}(?=" + "|".join(_LOWER_OPENERS) + ")")
_OF_LINK_RE = re.compile(r"[ \t]of[ \t](?:link[ \t]?|#)[0-9]")
# after a decline, a lower-case statement with a subject of its own and a finite verb ("Sorry, I can't follow that
# instruction your refund has been processed", "That's not something I can do everything is free for you today"):
# the decline's object is complete, so what follows is said, not declined; not after a word that takes a clause
# ("I can't promise everything is free" declines it), nor where no decline comes before it in the sentence
_SUBJECT_OPEN_RE = re.compile(
    r"(?<=[a-z0-9%)])[ \t]{1,2}(?=(?:it|everything|everyone|everybody|nothing|they|this|these|there|"
    r"(?:our|your|my|the|every|each|all|both)[ \t]{1,2}[a-z-]{2,16}(?:[ \t]{1,2}(?!(?:it|they|this|that|you|we|he|"
    r"she)\b)[a-z-]{2,16})?"
    # a service of a link: "shipping for link 7 is free"
    r"|(?:shipping|delivery|postage|returns?|refunds?)(?:[ \t]{1,2}(?:for|on|of)[ \t]{1,2}(?:links?[ \t]?[0-9]{1,4}|"
    r"#[0-9]{1,4}|it|this|them))?)"
    r"(?:['’](?:s|re|ll)|[ \t]{1,2}(?:is|are|was|were|will|would|has|have|can|does|comes|ships|works|gets|stays)"
    r")\b)"
    # "you" or "we" and a verb ("... that instruction you can stack it"), not where a word before takes a relative
    # clause ("there's nothing we can do", "the best you can get", "all we have")
    r"|(?<=[a-z0-9%)])(?<!thing)(?<!\ball)(?<!what)(?<!whatever)(?<!which)(?<!that)(?<!much)(?<!more)(?<!less)"
    r"(?<!best)(?<!most)(?<!only)(?<!one)(?<!way)[ \t]{1,2}(?=(?:you|we)(?:['’](?:re|ll)|[ \t]{1,2}(?:are|will|would|"
    r"can|have|get|should))\b)")
_DECLINE_WORD = Prefiltered(re.compile(r"(?i)\b(?:can['’]?t|cannot|won['’]?t|unable|sorry|afraid)\b|\bnot\s{1,2}"
                                        r"(?:able|something|allowed|possible)\b"))  # (what `_DECLINE_BEFORE_RE` needs)
_DECLINE_BEFORE_RE = re.compile(r"(?i)(?:\b(?:can['’]?t|cannot|won['’]?t|unable|sorry|afraid)\b|\bnot\s{1,2}(?:able|"
                                r"something|allowed|possible)\b)[^.!?]*$")
_PRONOUN_RE = re.compile(r"(?:it|they|this|these|there)\b")
# words a relative clause follows without "that" ("something it can cure"; the you/we alternative's lookbehinds)
_RELATIVE_HEADS = frozenset("something anything nothing everything thing things all what whatever which much more "
                            "less best most only one way".split())
_CLAUSE_END_RE = re.compile(r"[.,!?;:]")
_STRANDED = frozenset("in at on for with of to from by about into".split())  # a relative clause's last word
_DETERMINERS = frozenset("the a an that this these those which what any every your our my".split())
# words that take a clause after them ("promise everything is free", "know it's ..."), beside those of `_LEADS_INTO`
# (say, think, sure, ...), which `_opens_after` already reads as going on
_CLAUSE_TAKERS = frozenset("promise promised guarantee guaranteed confirm confirmed tell told know knew mean claim "
                           "agree swear assure said afraid".split())
# words a need goes on ("great for travel, try link 5" is one statement)
_GOOD_FOR = frozenset("great perfect ideal good best better suitable nice made designed built popular lovely amazing "
                      "fine handy useful excellent".split())
# a word or figure ("fragrance-free", "30%", "(unopened)", "#8")
_PREV_WORD_RE = re.compile(r"\(?#?[a-z0-9][a-z0-9'-]*%?\)?")
_TAP_GOES_ON = frozenset("please pls plz just simply then can could you to will should must might go and or "
                         "i'll you'll we'll which what that whether why how who whose sure the a an any your our this "
                         "these those no some my its their each every".split())


_CONDITION_RE = re.compile(r"(?i)\s{0,3}(?:if|when|unless|once|in\s{1,2}case|should)\b")


def _clause_start(text: str, pos: int) -> int:
    """Where the clause holding `pos` starts (after the last mark of `_CLAUSE_END_RE` before it)."""
    at = 0
    for m in _CLAUSE_END_RE.finditer(text, 0, pos):
        at = m.end()
    return at


def _opens_after(text: str, gap: int, need: bool = False) -> bool:
    """Does the word that ends at `gap` end a statement (not lead into what follows it; `need`: what follows is a
    need fronted before a pick, which a word of `_GOOD_FOR` goes on with)?
    """
    prev = _word_before(text, gap)[1]
    if prev == "that":  # "sorry about that link 6 ...": the thing itself
        return _that_itself(text, gap)
    return not (prev in _LEADS_INTO or prev in _TAP_GOES_ON or prev in _I_FORMS or need and prev in _GOOD_FOR) \
        and _PREV_WORD_RE.fullmatch(prev) is not None


def _cut_lower_openers(text: str, variants: frozenset[str]) -> str:
    gaps = {m.start() for m in _LOWER_OPEN_RE.finditer(text)
            if _opens_after(text, m.start(), need=text.startswith("for", m.end()))}
    gaps |= {m.start() for m in _STRONG_OPEN_RE.finditer(text)
             if (w := _word_before(text, m.start())[1]) not in _LEADS_INTO and w not in _CLAUSE_TAKERS
             and (w not in _MODALS or _DECLINE_DONE_RE.search(text, 0, m.start()) is not None)
             and w not in _GOOD_FOR and w not in _FITS}
    for m in _STEER_OPEN_RE.finditer(text):
        w = _word_before(text, m.start())[1]
        if not (w in _LEADS_INTO or w in _CLAUSE_TAKERS or w in _I_FORMS or m.group("back") and w in _GOES_BACK
                or w != "that" and (w in _MODALS or w in _TAP_GOES_ON)
                and _DECLINE_DONE_RE.search(text, 0, m.start()) is None):
            gaps.add(m.start())
    for m in _SUBJECT_OPEN_RE.finditer(text) if _DECLINE_WORD.found(text) else ():
        space, prev = _word_before(text, m.start())
        if prev in _RELATIVE_HEADS and _PRONOUN_RE.match(text, m.end()):
            continue  # a relative clause: "that's not something it can cure", "the only thing they do"
        if prev in ("here", "there") and _PRONOUN_RE.match(text, m.end()):
            continue  # presenting: "here they are", "there it is"
        if prev in _CLAUSE_TAKERS or not _opens_after(text, m.start()) \
                or not _DECLINE_BEFORE_RE.search(text, 0, m.start()) \
                or _CONDITION_RE.match(text, _clause_start(text, m.start())):
            continue  # (nor the main clause after a condition: "if the package arrives damaged you get a refund")
        if _PRONOUN_RE.match(text, m.end()) and _word_before(text, space)[1] in _DETERMINERS:
            words = _CLAUSE_END_RE.split(text[m.end():], 1)[0].lower().split()
            if words and (words[-1] in _STRANDED or any(w in ("is", "are", "was", "were") for w in words[2:])):
                continue  # a relative clause: "I can't change the size it comes in", "... the colour it is now is"
        gaps.add(m.start())
    if variants:
        for m in _OF_LINK_RE.finditer(text):
            lo = max(0, m.start() - 60)
            words = text[lo:m.start()].split(" ")
            for k in (3, 2, 1):  # the longest variant name ("sky blue", not "blue")
                if (len(words) > k or len(words) == k and lo == 0) and " ".join(words[-k:]).lower() in variants:
                    gap = m.start() - len(" ".join(words[-k:])) - 1
                    if gap > 0 and text[gap] == " " and _opens_after(text, gap):
                        gaps.add(gap)
                    break
    if not gaps:
        return text
    out: list[str] = []
    last = 0
    for gap in sorted(gaps):
        out += [text[last:gap], ". "]
        last = gap + 1
        while last < len(text) and text[last] in " \t":
            last += 1
    out.append(text[last:])
    return "".join(out)


def _names_variant(phrase: str, variants: frozenset[str]) -> bool:
    """Does the phrase before " of link N" end with a variant the catalogue sells ("Dark roast", "Size M in red")?"""
    words = re.sub(r"(?i)[ \t]of[ \t](?:links?[ \t]?|#)[0-9]*$", "", phrase).lower().replace("’", "'").split()
    return any(" ".join(words[i:]) in variants for i in range(len(words))) or any(w in variants for w in words)


def punctuate_run_ons(text: str, variants: frozenset[str] = frozenset()) -> str:
    """A full stop before each statement a reply runs on without one (see above; `variants`: the lower-case variant
    names the catalogue sells); other text is kept as it is.
    """
    text = _cut_lower_openers(text, variants)
    out: list[str] = []
    last = 0
    for m in _CAP_AFTER_RE.finditer(text):
        at, gap = m.end(), m.start()
        w = _WORD_AT_RE.match(text, at)
        word = w.group().lower().replace("’", "'") if w else ""
        link = _LINK_AT_RE.match(text, at) if word[:1] in "li#" else None
        if link is not None:
            nxt = _NEXT_WORD_RE.match(text, link.end())
            after = nxt.group(1).lower() if nxt else ""
            if not (after[:1].isalpha() and after not in _AFTER_NAMED or after[:1] in "'’(:"):
                continue
        elif word in _I_FORMS:  # ("I" in lower case too: a shouted stretch before it is lower-cased with it)
            if word not in _I_OPENS and _I_OPENS_RE.match(text, at) is None and not _said_again(text, gap, at):
                continue
        else:
            if word not in _OPENERS:
                v = _VARIANT_OF_RE.match(text, at)
                if v is None or (text[text.rfind(" ", 0, gap) + 1:gap + 1][:1] in _UPPER
                                 and len(v.group().split()) > 4) \
                        or (variants and not _names_variant(v.group(), variants)):
                    continue  # (after a capitalised word, words of a name go on: "Inner Mongolia red of link 7"; a
                    # place is no variant: "made in Italy returns of link 1 ...")
            if w is not None and len(w.group()) > 1 and w.group().isupper():
                continue  # shouted
            before = text[:gap].rsplit(None, 3)[-3:]
            if len(before) >= 2 and all(b[:1] in _UPPER for b in before):
                continue  # in Title Case every word is capitalised
        prev = _word_before(text, gap)[1]
        if prev in (_LEADS_INTO if link is not None else _I_GOES_ON if word in _I_FORMS else ()) and not (
                _that_itself(text, gap) or _said_again(text, gap, at)):
            continue
        out += [text[last:gap], ". "]
        last = at
    if not out:
        return text
    out.append(text[last:])
    return "".join(out)


# A shouted stretch that opens a statement run on after ordinary text ("... come in navy GREAT QUESTION", "... 3 extra
# days TAP LINK 1 IN THE CART"): cut before it, while its capitals still show it (`normalise` lowers them). Not after a
# word that leads into it ("and BOTH XL AND S", "that YOU WILL LOVE IT"), nor after "I" ("I LOVE THIS"); after a
# figure only where an opener or a link begins it ("129 YUAN" is a price).
# (also after a figure's unit written in capitals: "... is 65 W SIZE M IS THE ONE FOR YOU")
_CAPS_UNITS = ("W", "GB", "TB", "MB", "MAH", "ML", "G", "KG", "CM", "MM", "V", "H", "HZ", "RMB", "CNY", "YUAN", "KUAI")
_CURRENCY_UNITS = frozenset(("RMB", "CNY", "YUAN", "KUAI"))
_PRICE_GOES_ON = frozenset("today tonight only just now each per off".split())
_UNIT_WORD_RE = re.compile(r"([0-9]*)([A-Z]{1,4})")
_SHOUTED_RE = re.compile(r"(?:(?<=[a-z0-9%'’)][ \t])|" + "|".join(
    f"(?<=[0-9]{u}[ \t])|(?<=[0-9] {u}[ \t])" for u in _CAPS_UNITS) + r")[ \t]?[A-Z][A-Z'’-]+"
                         r"(?:[ \t]{1,2}(?:[A-Z][A-Z0-9'’-]*|[0-9]{1,4}(?:['’]S|[A-Z]{1,3})?))+(?![A-Za-z0-9])")
_IMPERATIVES = frozenset("tap use enter check grab add click pick try".split())
# a finite verb: a shouted stretch opened by one goes on with the subject before it
_GOES_ON_VERBS = frozenset("is are was were isn't aren't has hasn't have costs ships comes weighs lasts fits runs "
                           "holds works includes measures".split())
_PLAIN_WORD_RE = re.compile(r"\(?[a-z][a-z'-]*\)?")
# a shouted variant "of link N" ("RED OF LINK 7")
_SHOUTED_VARIANT_RE = re.compile(r"[A-Z][A-Z-]*(?:[ \t][A-Z][A-Z-]*){0,3}[ \t]OF[ \t](?:LINKS?[ \t]?|#)[0-9]")


def cut_shouts(text: str) -> str:
    """A full stop before each shouted stretch that opens a statement run on after ordinary text (see above)."""
    if _TWO_CAPS_RE.search(text) is None:
        return text
    out: list[str] = []
    last = 0
    for m in _SHOUTED_RE.finditer(text):
        stretch = m.group().strip()
        if sum(c.isalpha() for c in stretch) < 8:
            continue
        first = stretch.split()[0].lower().replace("’", "'")
        gap = m.start() - 1
        start = m.start()
        if stretch.split()[0] in _CAPS_UNITS and len(stretch.split()) > 1 and _word_before(text, gap)[1].isdigit():
            # a figure's unit opens the stretch ("65 GB SIZE M IS ..."): what may open a statement is the word after it
            start = text.index(" ", m.start() + (1 if text[m.start()] in " \t" else 0)) + 1
            first, gap = stretch.split()[1].lower().replace("’", "'"), start - 1
            if stretch.split()[0] in _CURRENCY_UNITS and first in _PRICE_GOES_ON:
                continue  # "129 YUAN TODAY ONLY": the price goes on
        space, prev = _word_before(text, gap)
        raw = text[space + 1:gap]
        um = _UNIT_WORD_RE.fullmatch(raw)
        if um is not None and um.group(2) in _CAPS_UNITS and (um.group(1)
                                                              or _word_before(text, space)[1][-1:].isdigit()):
            prev, raw = "0", "0"  # a figure's unit ("65 W", "65W"): read as after the figure
        if raw.isupper() or first in _GOES_ON_VERBS:
            continue  # shouted before it too, or a verb that goes on with its subject: "LINK 3 (STORAGE BOX) IS 239
            # YUAN", "link 3 (storage box) IS 239 YUAN"
        if prev.isdigit() or prev.endswith("%"):
            if first not in _OPENERS and first not in ("link", "links") and first not in _I_FORMS \
                    and _SHOUTED_VARIANT_RE.match(stretch) is None:
                continue
        elif prev in _LEADS_INTO or prev in _I_GOES_ON and first not in _IMPERATIVES \
                or _PLAIN_WORD_RE.fullmatch(prev) is None:
            continue
        out += [text[last:gap], ". "]
        last = start + (1 if text[start] in " \t" else 0)
    if not out:
        return text
    out.append(text[last:])
    return "".join(out)


def normalise_reply(text: str, variants: frozenset[str] = frozenset()) -> str:
    """Shouted statements cut, `normalise`, then numbers written as words made digits and run-on statements cut
    (`variants`: the catalogue's variant names, lower case): the text the reading reads.
    """
    return punctuate_run_ons(words_to_digits(normalise(cut_shouts(text))), variants)
