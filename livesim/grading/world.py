"""The closed world one request is graded against (`World`): the catalogue, the room's promotions, the request's
text and targets, and what the tools looked up, indexed once per grading call. Its methods answer what is true
(`values`, `products`, `variant_errors`); they never read the reply.
"""

from __future__ import annotations

import json
import re
from functools import cached_property, lru_cache
from typing import Any

from livesim.grading.acts import MUST_DECLINE
from livesim.grading.cues import _BATTERY_CUE, _COLOURS, _RETURN_CUE, _SHIP_CUE, _rx, _word_regex, claim_stems, trigrams
from livesim.grading.facts.extract import _scan_numbers, numbers_in, unit_after
from livesim.grading.facts.patterns import _LINK_RE
from livesim.grading.facts.prefilter import Prefiltered
from livesim.grading.normalise import normalise
from livesim.world.catalog import Catalog, Product
from livesim.world.intents import _CLAIMS as BAIT_CLAIMS
from livesim.world.room import Room

_EXCEPTION_CUE = _rx(r"\b(?:photo\w{0,3}|picture|damag\w{0,3}|broken|refund\w{0,3})\b")
_EXTRA_CUE = _rx(r"\b(?:extra|more|additional|remote|plus|adds?|added|longer)\b")
_SHELF_CUE = _rx(r"\b(?:shelf|expir\w*|best\s{1,2}before|fresh|keeps?|good\s{1,2}for)\b")
_WARRANTY_CUE = _rx(r"\bwarrant")
_CONTACT_CUE = _rx(r"\b(?:contact|reach|get\s{1,2}back|follow\s{1,2}up|hear\s{1,2}from|call|respond|reply|team)\b")
_DELIVERY_CUE = _rx(r"\b(?:arriv\w*|deliver\w*|get\s{1,2}(?:it|there|here|to\s{1,2}you)|receive|reach\s{1,2}you|"
                    r"take\s{1,2}to\s{1,2}get|be\s{1,2}(?:with\s{1,2}you|there|here))\b")
_COUPON_WORD = _rx(r"\b(?:coupons?|codes?|vouchers?)\b")
_BAIT_CLAIMS = tuple(c for cs in BAIT_CLAIMS.values() for c in cs)  # in the order they are looked for
_CODE_TOKEN_RE = re.compile(r"(?<![A-Za-z0-9])[A-Z][A-Z0-9]{2,15}(?![A-Za-z0-9])")


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


# a tool argument that selects a product: a link number is no figure the agent could plant, so a result's figure
# equal to it stays looked up ("link 8 ships ..., otherwise 8 yuan"), and only the result's echo of it is dropped
_ID_ARGS = frozenset({"link", "link_a", "link_b"})
_ID_ECHOES = frozenset({"link", "pinned_link"})
# a result's counts add up: the stock of a variant over its sizes is the sum of its SKUs' stock ("navy: 583 left")
_COUNT_KEYS = ("stock", "remaining")


def _count_totals(obj: Any, nums: set[float]) -> None:
    """Add the total of each count field over every list of records in `obj` (a list of two or more)."""
    if isinstance(obj, dict):
        for v in obj.values():
            _count_totals(v, nums)
    elif isinstance(obj, list):
        records = [x for x in obj if isinstance(x, dict)]
        if len(records) >= 2:
            for key in _COUNT_KEYS:
                vals = [x[key] for x in records if type(x.get(key)) in (int, float)]
                if len(vals) >= 2:
                    nums.add(float(sum(vals)))
        for v in records:
            _count_totals(v, nums)


def looked_up(calls: list[Any]) -> tuple[set[float], set[str]]:
    """Numbers and code-like strings the tools looked up: results minus what the agent wrote into the arguments
    (a link number selects a product: only its echo is dropped), with the totals of a result's counts.
    """
    nums: set[float] = set()
    strs: set[str] = set()
    for c in calls:
        if not c.ok or c.key == "load_skill":
            continue
        args = c.arguments if isinstance(c.arguments, dict) else {}
        ids = {k: v for k, v in args.items() if k in _ID_ARGS}
        arg_nums: set[float] = set()
        arg_strs: set[str] = set()
        _walk({k: v for k, v in args.items() if k not in ids} if ids else c.arguments, arg_nums, arg_strs)
        arg_strs |= {x.upper() for x in arg_strs}
        result = c.result
        if ids and isinstance(result, dict):
            echoed = set(ids.values())
            result = {k: v for k, v in result.items() if not (k in _ID_ECHOES and v in echoed)}
        res_nums: set[float] = set()
        res_strs: set[str] = set()
        _walk(result, res_nums, res_strs)
        _count_totals(result, res_nums)
        nums |= res_nums - arg_nums
        strs |= res_strs - arg_strs
    return nums, strs


# which record figure a time is, by the cue words of its statement ("ships within 48 hours", "the battery lasts 48
# hours", "30-day returns"), per unit; `World.values` reads a time by them, and a required time fact is met only by a
# time whose statement names its cue or none of them
TIME_CUES: dict[str, dict[str, Prefiltered]] = {
    "h": {"ship": _SHIP_CUE, "battery": _BATTERY_CUE, "contact": _CONTACT_CUE, "exc": _EXCEPTION_CUE},
    "day": {"return": _RETURN_CUE, "extra": _EXTRA_CUE, "shelf": _SHELF_CUE, "ship": _SHIP_CUE,
            "contact": _CONTACT_CUE},
    "month": {"warranty": _WARRANTY_CUE, "shelf": _SHELF_CUE, "return": _RETURN_CUE},
}
TIME_CUES["week"], TIME_CUES["year"] = TIME_CUES["day"], TIME_CUES["month"]
FACT_CUE = {"ships_within_hours": "ship", "battery_hours": "battery", "return_days": "return", "remote_days": "extra",
            "shelf_life_days": "shelf", "shelf_life_months": "shelf", "warranty_months": "warranty"}


def _whole_months(days: Any) -> set[float]:
    """A span of days said in months where it is a whole number of them, to within a sixth of a month (180 days: 6
    months, 365: 12, 270: 9).
    """
    if not days:
        return set()
    months = float(days) / 30.44
    return {float(round(months))} if round(months) and abs(months - round(months)) <= 0.2 else set()


def _asked_variants(truth: Any) -> dict[int, str]:
    """Link -> the variant a stock question named (from the gold `check_stock` calls; the first per link)."""
    out: dict[int, str] = {}
    for c in truth.calls:
        if c.key == "check_stock" and c.arguments.get("variant"):
            out.setdefault(int(c.arguments["link"]), str(c.arguments["variant"]))
    return out


def _address_names(handle: str) -> set[str]:
    """How a reply may address a viewer: the first name of the handle ("brad_kev": "brad"), or "viewer" where the
    reading masks the handle (one with a digit or an underscore).
    """
    out = set()
    if m := re.match(r"[A-Za-z]{3,}", handle):
        out.add(m.group().lower())
    out.add("viewer" if any(ch.isdigit() or ch == "_" for ch in handle) else handle.lower())
    return out


@lru_cache(maxsize=1024)
def _vocative_re(handles: tuple[str, ...]) -> tuple[tuple[str, ...], re.Pattern[str]] | None:
    """`World.vocative_re` for these viewer handles (the same handles recur over a stream's requests)."""
    names = sorted({k for n in handles for k in _address_names(n) if k != "viewer"}, key=lambda k: (-len(k), k))
    if not names:
        return None
    alts = "|".join(re.escape(k) for k in names)
    return tuple(names), re.compile(r"(?i)(?<![\w@])@?(?:" + alts + r")\b(?!['’]s\b)")


def _viewer_links(request: Any) -> dict[str, int]:
    """A burst's viewer names -> the link the viewer's comment asks about (comments about one link each; a name two
    viewers share is nobody's).
    """
    if len(request.comments) < 2:
        return {}
    out: dict[str, int | None] = {}
    for c in request.comments:
        link = c.truth.targets[0] if len(c.truth.targets) == 1 else None
        for key in _address_names(c.name or ""):
            out[key] = link if out.get(key, link) == link else None
    return {k: v for k, v in out.items() if v is not None}


def _viewer_sizes(request: Any) -> dict[str, str]:
    """A burst's viewer names -> the one size the chart gives the viewer (a name two viewers share is nobody's)."""
    if len(request.comments) < 2:
        return {}
    out: dict[str, str | None] = {}
    for c in request.comments:
        sizes = {f.value for f in c.truth.facts if f.kind == "size"}
        size = sizes.pop() if len(sizes) == 1 else None
        for key in _address_names(c.name or ""):
            out[key] = size if key not in out else None
    return {k: v for k, v in out.items() if v is not None}


def _intent_links(request: Any) -> dict[str, frozenset[int]]:
    """Intent -> the links the request's comments of that intent ask about."""
    out: dict[str, set[int]] = {}
    for c in request.comments:
        for intent in c.truth.intents:
            out.setdefault(intent, set()).update(c.truth.targets)
    return {k: frozenset(v) for k, v in out.items()}


def _sole_subject(facts: Any) -> int | None:
    """The one product the request's required facts are about (None: none, or several)."""
    subjects = {f.subject for f in facts} | {g.subject for f in facts for g in f.any_of}
    subjects.discard(None)
    return subjects.pop() if len(subjects) == 1 else None


def _answerable(request: Any) -> dict[str, Any]:
    """What the comments of a burst that may be answered ask about, beside one that must be declined."""
    if len(request.comments) < 2 or not MUST_DECLINE & set(request.truth.intents):
        return {}
    ok = [c for c in request.comments if not MUST_DECLINE & set(c.truth.intents)]
    return {"answerable_text": " ".join(c.text for c in ok),
            "answerable_links": frozenset(n for c in ok for n in c.truth.targets)}


def _decline_names(request: Any) -> frozenset[str]:
    """The names (`_viewer_links`'s) of a burst's viewers whose comment must be declined and no other viewer has."""
    if len(request.comments) < 2 or not MUST_DECLINE & set(request.truth.intents):
        return frozenset()
    bait = {k for c in request.comments if MUST_DECLINE & set(c.truth.intents) for k in _address_names(c.name or "")}
    return frozenset(bait - {k for c in request.comments if not MUST_DECLINE & set(c.truth.intents)
                             for k in _address_names(c.name or "")})


_GENERIC_HEADS = frozenset("set sets pack box bank nuts oil oils honey chocolate cream mango beans".split())
_CatalogIndex = tuple[dict[int, Product], tuple[str, ...], dict[str, int]]
_last_index: list[Any] = [None, None, 0, None]  # catalogue, its product list, that list's length, the index
_last_variants: list[Any] = [None, None, 0, frozenset()]  # the same, and the catalogue's variant names


def _catalog_index(catalog: Catalog) -> _CatalogIndex:
    """Link -> product, the short names (longest first) and short name -> link: built once per catalogue and kept
    for the next request while the catalogue holds the same product list (a stream grades many requests against
    one catalogue; nothing renames or relinks a product).
    """
    cat, products, n, index = _last_index
    if cat is catalog and products is catalog.products and n == len(products):
        return index  # type: ignore[no-any-return]
    products = catalog.products
    name_link = {p.short_name.lower(): p.link for p in products}
    # the head noun of a short name names its product too ("the skirt" of the pleated skirt, "the pants" of the cargo
    # pants) where no other product of the catalogue shares it and it is no word a reply uses of other things (a
    # colour, an ingredient, an allergen, a pack or set)
    heads: dict[str, set[int]] = {}
    for p in products:
        words = p.short_name.lower().split()
        if len(words) > 1:
            heads.setdefault(words[-1], set()).add(p.link)
    for head, links in heads.items():
        if len(links) == 1 and len(head) >= 4 and head not in _GENERIC_HEADS and head not in name_link:
            name_link[head] = next(iter(links))
    index = ({p.link: p for p in products},
             tuple(sorted(name_link, key=len, reverse=True)),
             name_link)
    _last_index[:] = [catalog, products, len(products), index]
    return index


class World:
    """The truth one request is graded against: products, room, request text, what the tools looked up."""

    def __init__(self, catalog: Catalog, room: Room, request_text: str, targets: list[int],
                 lookup_nums: set[float], lookup_strs: set[str], viewer_names: list[str],
                 escalated: bool = False, asked_variants: dict[int, str] | None = None,
                 done: frozenset[str] = frozenset(), intents: tuple[str, ...] = (),
                 stock_links: frozenset[int] | None = None, answerable_text: str = "",
                 answerable_links: frozenset[int] = frozenset(), burst: bool = False,
                 request: Any = None) -> None:
        self.catalog, self.room = catalog, room
        self.request_text = request_text
        self.targets = targets
        self.lookup_nums, self.lookup_strs = lookup_nums, lookup_strs
        self.escalated = escalated
        self.done = done  # keys of the tools that ran successfully (what an action report may claim)
        self.intents = intents
        self.burst = burst  # several comments answered at once
        low_request = request_text.lower()  # the effect a compliance-bait comment asks the host to confirm
        self.bait_claim = next((c for c in _BAIT_CLAIMS if c in low_request), None)
        self.asked_variants = asked_variants or {}  # link -> the variant the viewer asked about (stock questions)
        # the links a stock question asked about (a burst's other comments target other links): the stock state the
        # truth holds is theirs
        self.stock_links = stock_links if stock_links is not None else frozenset(targets)
        # what the comments of a burst that may be answered ask about (beside one that must be declined)
        self.answerable = (claim_stems(answerable_text) | {f"link:{n}" for n in answerable_links}) if answerable_text \
            else set()
        self.viewer_names = [n for n in viewer_names if n]
        # the request itself (None: a world built by hand), read only where a reply needs it (the cached properties
        # below: most grades never ask)
        self._request = request
        self._address_re: re.Pattern[str] | None = None
        self.request_trigrams = trigrams(" ".join(line.split("] ", 1)[-1] for line in request_text.splitlines()))
        self.by_link, self.names, self.name_link = _catalog_index(catalog)
        self.coupon_codes = {c.code.upper() for c in room.coupons}
        self._price: dict[int, float] = {}
        self._vocab: list[str] | None = None
        self._record: dict[int, set[float]] = {}

    @cached_property
    def request_units(self) -> dict[float, frozenset[str | None]]:
        """The viewers' own figures, each with the units they gave it (None: none): not their handles ("[jerry6]")
        nor the links they name ("link 7"). Read when first asked (most replies never ask: their numbers are
        asserted and no clause declines).
        """
        bodies = " \n".join(line.split("] ", 1)[-1] for line in self.request_text.splitlines())
        text = _LINK_RE.sub(" link ", normalise(bodies))
        units: dict[float, set[str | None]] = {}
        for _, e, v in _scan_numbers(text)[0]:
            units.setdefault(v, set()).add(unit_after(text, e))
        return {v: frozenset(u) for v, u in units.items()}

    @cached_property
    def request_nums(self) -> set[float]:
        """The viewers' own figures (`request_units`)."""
        return set(self.request_units)

    def quotes_viewer(self, value: float, unit: str | None, money: bool = False) -> bool:
        """Is a reply's figure the viewer's own, quoted: the same value, and no unit or one the viewer gave it ("30%
        off? I can't" quotes "30 percent off"; "link 4 is 30 ml, sorry" does not)? A sum of money (`money`) quotes
        only a figure the viewer gave without a unit ("59 yuan" does not quote "59kg").
        """
        units = self.request_units.get(value)
        if money:
            return units is not None and None in units
        return units is not None and (unit is None or unit in units)

    @classmethod
    def of_request(cls, request: Any, calls: list[Any], catalog: Catalog, room: Room) -> World:
        """The world one request's reply is graded against, given the tool calls the host made for it."""
        truth = request.truth
        lookup_nums, lookup_strs = looked_up(calls)
        return cls(catalog, room, request.text, list(truth.targets), lookup_nums, lookup_strs,
                   [c.name for c in request.comments],
                   escalated=any(c.ok and c.key == "escalate_to_human" for c in calls),
                   asked_variants=_asked_variants(truth),
                   done=frozenset(c.key for c in calls if c.ok and c.key), intents=tuple(truth.intents),
                   stock_links=frozenset(int(c.arguments["link"]) for c in truth.calls
                                         if c.key == "check_stock" and "link" in c.arguments) or None,
                   burst=len(request.comments) > 1, request=request, **_answerable(request))

    @cached_property
    def viewer_sizes(self) -> dict[str, str]:
        """A burst's viewers as a reply addresses them -> the size the chart gives each one who asked for a size."""
        return _viewer_sizes(self._request) if self._request is not None else {}

    @cached_property
    def viewer_links(self) -> dict[str, int]:
        """A burst's viewers as a reply addresses them ("Brad, ...", "@viewer") -> the one link each asks about."""
        return _viewer_links(self._request) if self._request is not None else {}

    @cached_property
    def sole_subject(self) -> int | None:
        """The one product every required fact of the request is about, if one."""
        return _sole_subject(self._request.truth.facts) if self._request is not None else None

    @cached_property
    def decline_names(self) -> frozenset[str]:
        """The names (`viewer_links`'s) of the burst's viewers whose comment must be declined."""
        return _decline_names(self._request) if self._request is not None else frozenset()

    @cached_property
    def comment_facts(self) -> list[tuple[str, tuple[Any, ...]]]:
        """A burst's comments as (the viewer's name, the facts that comment requires); empty for one comment."""
        if self._request is None or len(self._request.comments) < 2:
            return []
        return [(c.name or "", tuple(c.truth.facts)) for c in self._request.comments]

    @cached_property
    def intent_links(self) -> dict[str, frozenset[int]]:
        """Intent -> the links the comments of that intent ask about."""
        return _intent_links(self._request) if self._request is not None else {}

    @property
    def vocative_re(self) -> tuple[tuple[str, ...], re.Pattern[str]] | None:
        """The first names of every viewer of the request (a burst's or one comment's), and them as one pattern:
        where a reply says one as a vocative ("Alexa: standard is available") it is a name, not a word of the lexicon.
        """
        return _vocative_re(tuple(self.viewer_names))

    def address_re(self) -> re.Pattern[str] | None:
        """The names `viewer_links` holds, as one pattern (None: no burst viewer to address)."""
        if self._address_re is None and self.viewer_links:
            alts = "|".join(re.escape(k) for k in sorted(self.viewer_links, key=lambda k: (-len(k), k)))
            self._address_re = re.compile(r"(?i)(?<![\w@])@?(?P<n>" + alts + r")\b(?!['’]s\b)")
        return self._address_re

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
            self._vocab = sorted(words | set(_COLOURS), key=lambda w: (-len(w), w))  # ties by name: any process
        return self._vocab

    def variant_names(self) -> frozenset[str]:
        """`variant_vocab` as a set, kept per catalogue like its index (the run-on cuts read it for every reply)."""
        cat, products, n, names = _last_variants
        if cat is self.catalog and products is self.catalog.products and n == len(products):
            return names  # type: ignore[no-any-return]
        names = frozenset(self.variant_vocab())
        _last_variants[:] = [self.catalog, self.catalog.products, len(self.catalog.products), names]
        return names

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
        if attr == "coupon_price":  # one item's price after a coupon that applies to it and whose minimum it meets
            return {cur - c.discount for c in coupons if c.applies_to(p.link) and cur >= c.threshold}
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
        if attr.startswith("count_"):  # how many colours, sizes or options the record lists
            dim = attr.removeprefix("count_")
            if dim == "colours":
                return {float(len(a.get("colours") or {x.colour for x in p.skus if x.colour}))}
            if dim == "sizes":
                return {float(len({x.size for x in p.skus if x.size}))}
            return {float(len({x.variant for x in p.skus}))}
        if attr == "percent":
            pct = 100 * (p.list_price - cur) / p.list_price
            return {float(int(pct)), float(int(pct) + 1)}
        if attr == "stock":
            skus = p.skus
            low = text.lower()
            by_name = [s for s in skus if any(x and re.search(rf"\b{re.escape(str(x).lower())}\b", low)
                                                for x in (s.colour, s.option))]
            sized = [s for s in (by_name or skus)
                     if s.size and re.search(rf"(?i)(?<![A-Za-z'’]){s.size}(?![A-Za-z])", text)]  # (not "it's")
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
            return self._by_cue(text, cands, TIME_CUES["h"])
        if attr == "day":
            cands = {"return": {float(p.after_sales.return_days)} if p.after_sales.returnable else set(),
                     "extra": {float(v) for v in p.shipping.remote_regions.values()},
                     "shelf": {float(a["shelf_life_days"])} if "shelf_life_days" in a else set(),
                     "ship": {ship_h / 24}, "contact": {x / 24 for x in contact}}
            if _DELIVERY_CUE.search(text) and not _EXTRA_CUE.search(text):
                return set()  # an arrival time is not in any record
            return self._by_cue(text, cands, TIME_CUES["day"])
        if attr in ("month", "year"):  # a warranty, a shelf life or a return window of whole months ("returns within
            # a month" of 30-day returns), by its cue word (any where none is said)
            days = p.after_sales.return_days
            cands = {"warranty": {float(x) for x in (a.get("warranty_months"), p.after_sales.warranty_months) if x},
                     "shelf": ({float(a["shelf_life_months"])} if a.get("shelf_life_months") else set())
                     | _whole_months(a.get("shelf_life_days")),  # "keeps for a year" of 365 days
                     "return": {days / 30} if p.after_sales.returnable and days and days % 30 == 0 else set()}
            months = self._by_cue(text, cands, TIME_CUES["month"])
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
            chart = {float(x) for r in (p.size_chart or []) for x in r.weight_kg}  # "S is for 48-55 kg"
            return {float(a[k]) / 1000 for k in ("weight_g", "net_weight_g") if k in a} | chart | self.request_nums
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

    @staticmethod
    def covered_skus(p: Product, named: set[str]) -> list[Any]:
        """The SKUs of `p` a set of named variant words picks out (each named dimension narrows; none named: all)."""
        dims = [({str(getattr(x, f)).lower() for x in p.skus if getattr(x, f)} & named, f)
                for f in ("size", "colour", "option")]
        return [x for x in p.skus if all(not d or str(getattr(x, f)).lower() in d for d, f in dims)]

    @staticmethod
    def narrower(p: Product, named: set[str], asked: str) -> bool:
        """Do the named words pick out only part of the asked variant's SKUs ('S in black' of 'black')?"""
        whole = {x.sku_id for x in p.sku_for(asked)}
        part = {x.sku_id for x in World.covered_skus(p, named)}
        return bool(part) and part < whole

    @staticmethod
    def listed_colours(p: Product) -> list[str]:
        """Every colour a product's record lists, lower case: its SKUs' and its attributes' (which may name colours
        no SKU comes in).
        """
        return list(dict.fromkeys([*(str(x.colour).lower() for x in p.skus if x.colour),
                                   *(str(c).lower() for c in p.attributes.get("colours") or ())]))

    @staticmethod
    def variant_words(p: Product) -> set[str]:
        return {str(w) for x in p.skus for w in (x.size, x.colour, x.option) if w}

    def variant_errors(self, other_variants: list[tuple[str, int | None, tuple[str, ...]]],
                       size_lists: set[int] | frozenset[int] = frozenset()) -> list[str]:
        """A stock state stated of a variant the viewer did not ask about must be true of that variant; of a list of
        sizes (`size_lists`: the indices of those said as one), of each size listed.
        """
        out = []
        for k, (st, link, variant) in enumerate(other_variants):
            p = self.by_link.get(link) if link is not None else None
            if p is None:
                continue
            named = set(variant)
            what = " ".join(variant)
            if not named & {w.lower() for w in self.variant_words(p)}:
                out.append(f"unsupported: link {link} has no {what} variant")
                continue
            covered = self.covered_skus(p, named)
            if (st == "in_stock") != any(x.stock > 0 for x in covered):
                out.append(f"says {what} of link {link} is {st.replace('_', ' ')}")
            elif st == "in_stock" and k in size_lists and (miss := _listed_sold_out(p, named, covered)):
                # a list of sizes or colours said to be in stock ("navy is in stock in S, M, L and XL"): each one is
                out.append(f"says {miss} of link {link} is in stock")
        return out


def _listed_sold_out(p: Product, named: set[str], covered: list[Any]) -> str | None:
    """Of two or more sizes named together, the first none of whose `covered` SKUs is in stock (sizes only: a colour
    or an option can be a word of the product's name, "matcha" of the matcha cookies).
    """
    for f in ("size",):
        values = [v for v in dict.fromkeys(str(getattr(x, f)).lower() for x in p.skus if getattr(x, f)) if v in named]
        if len(values) >= 2:
            for v in values:
                if not any(x.stock > 0 for x in covered if str(getattr(x, f)).lower() == v):
                    return " ".join([v, *sorted(named - set(values))])
    return None


def _record_numbers(p: Product) -> set[float]:
    out: set[float] = set()
    for _, _, v in _scan_numbers(json.dumps(p.model_dump(exclude={"product_id", "skus"})))[0]:
        out.add(v)
    for s in p.skus:
        out |= set(numbers_in(s.variant))
    return out
