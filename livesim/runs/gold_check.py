"""Re-verify every gold reply against what its phrasing asks, independently of the grader's fact lists.

For every intent and each of its phrasings (stratified over seeds of `LiveStreamQA-v0`), the oracle's gold reply
is checked against the product and room records for the phrasing's typed ask (`livesim.world.asks`): the price
for a price question, the count for "how many left", a can't-tell of the courier plus the dispatch time for
"which courier". The same requests are also built with the truth of the intent alone (`livesim.world.answers`
switched off), which is what the gold was before truth followed the comment: the report counts the gold replies
that changed, the checks each version fails, and what the grader pays the old reply under the new truth.
"""

from __future__ import annotations

import contextlib
import re
from collections.abc import Callable, Iterator
from typing import Any

from livesim.world.answers import ANSWERS, natural_or_synthetic
from livesim.world.asks import UNKNOWN, ask_of
from livesim.world.catalog import ASPECT_KEYS, Product
from livesim.world.intents import BUILDERS
from livesim.world.phrasing import templates

# the sentence of an honest can't-tell (the verifier's own words, not the grader's)
_CANT = re.compile(r"(?i)\b(?:can['’]?t|cannot)\s+(?:tell|say)\b")
_SENT = re.compile(r"[^.!?]+[.!?]*")


@contextlib.contextmanager
def intent_truth_only() -> Iterator[None]:
    """Build requests with the truth of their intent alone (the gold before it followed the phrasing)."""
    saved = dict(ANSWERS)
    ANSWERS.clear()
    try:
        yield
    finally:
        ANSWERS.update(saved)


def _num(x: float) -> str:
    return f"{x:g}"


def _has_num(text: str, x: float) -> bool:
    return re.search(rf"(?<![0-9.]){re.escape(_num(x))}(?![0-9])", text) is not None


def _cant_tell(text: str, part: str) -> bool:
    return any(_CANT.search(s) and any(w in s.lower() for w in UNKNOWN[part].topic) for s in _SENT.findall(text))


class _Req:
    """What the checks read: the request's records and its one comment part."""

    def __init__(self, sim: Any) -> None:
        self.sim = sim
        self.truth = sim.request.truth
        self.text = sim.request.text
        self.catalog, self.room = sim.catalog, sim.room
        self.p: Product | None = self.catalog.by_link(self.truth.targets[0]) if self.truth.targets else None
        self.calls = {c.key: c.arguments for c in self.truth.calls}

    def region(self) -> str | None:
        region = (self.calls.get("get_shipping_policy") or {}).get("region")
        return str(region) if region and str(region).lower() in self.text.lower() else None


Check = Callable[[_Req, str], list[str]]
CHECKS: dict[str, Check] = {}


def check(*asks: str) -> Callable[[Check], Check]:
    def deco(fn: Check) -> Check:
        for a in asks:
            CHECKS[a] = fn
        return fn

    return deco


def _need(ok: bool, what: str) -> list[str]:
    return [] if ok else [what]


def _cant(part: str) -> Callable[[_Req, str], list[str]]:
    return lambda r, g: _need(_cant_tell(g, part), f"no can't-tell of {part}")


# ---------------------------------------------------------------------------------------------------- checks
@check("price")
def _price(r: _Req, g: str) -> list[str]:
    assert r.p is not None
    return _need(_has_num(g, r.room.current_price(r.catalog, r.p.link) or -1), "current price")


def _stock_state(r: _Req, g: str) -> tuple[bool, list[str]]:
    assert r.p is not None
    variant = r.calls["check_stock"].get("variant")
    left = sum(s.stock for s in r.p.sku_for(variant))
    said = "in stock" if left > 0 else "sold out"
    return left > 0, _need(said in g.lower(), f"says {said}")


@check("stock_variant")
def _stock(r: _Req, g: str) -> list[str]:
    return _stock_state(r, g)[1]


@check("stock_count")
def _count(r: _Req, g: str) -> list[str]:
    assert r.p is not None
    in_stock, out = _stock_state(r, g)
    left = sum(s.stock for s in r.p.sku_for(r.calls["check_stock"].get("variant")))
    return out + (_need(_has_num(g, left), f"the count ({left} left)") if in_stock else [])


@check("restock")
def _restock(r: _Req, g: str) -> list[str]:
    in_stock, out = _stock_state(r, g)
    return out + ([] if in_stock else _cant("restock")(r, g))


@check("size_advice")
def _size(r: _Req, g: str) -> list[str]:
    a = r.calls["recommend_size"]
    assert r.p is not None
    size = r.p.recommend_size(a["height_cm"], a["weight_kg"])
    return _need(re.search(rf"\bsize {size}\b", g) is not None, f"size {size}")


@check("comparison")
def _compare(r: _Req, g: str) -> list[str]:
    out = []
    for link in r.truth.targets[:2]:
        out += _need(_has_num(g, r.room.current_price(r.catalog, link) or -1), f"price of link {link}")
    return out


@check("durability")
def _durability(r: _Req, g: str) -> list[str]:
    ps = [r.catalog.by_link(x) for x in r.truth.targets[:2]]
    if all(p is not None and "battery_hours" in p.attributes for p in ps):
        return [f"battery of link {p.link}" for p in ps
                if p is not None and not _has_num(g, p.attributes["battery_hours"])]
    return _cant("durability")(r, g)


def _dispatch(r: _Req, g: str) -> list[str]:
    assert r.p is not None
    region = r.region()
    if region and region in r.p.shipping.excluded_regions:
        return _need(bool(re.search(r"(?i)\b(?:not|n't)\s+(?:ship|deliver)", g)) and region in g,
                     f"does not ship to {region}")
    out = _need(_has_num(g, r.p.shipping.ships_within_hours), "dispatch time")
    if region and region in r.p.shipping.remote_regions:
        out += _need(_has_num(g, r.p.shipping.remote_regions[region]), f"extra days to {region}")
    if not region and any(x in g for x in r.p.shipping.excluded_regions + list(r.p.shipping.remote_regions)):
        out.append("speaks of a region the comment does not name")
    return out


@check("shipping")
def _shipping(r: _Req, g: str) -> list[str]:
    return _dispatch(r, g)


def _fee(r: _Req, g: str) -> list[str]:
    assert r.p is not None
    s = r.p.shipping
    amounts = [x for x in (s.fee, s.free_over) if re.search(rf"(?<![0-9.]){re.escape(_num(x))} yuan", g)]
    return _need(bool(amounts) or (s.fee == 0 and "free" in g.lower()), "shipping fee or free-shipping threshold")


@check("shipping_fee")
def _shipping_fee(r: _Req, g: str) -> list[str]:
    return _fee(r, g)


def _ships_to(r: _Req, g: str) -> list[str]:
    assert r.p is not None
    region = r.region()
    if region is None:
        return ["the comment names no region"]
    if region in r.p.shipping.excluded_regions:
        return _dispatch(r, g)
    return _need(region in g and re.search(r"(?i)\b(?:ships?|deliver\w*)\s+to\b", g) is not None
                 and re.search(r"(?i)\bnot\b|n't", g) is None, f"ships to {region}")


@check("ships_to")
def _ships_to_check(r: _Req, g: str) -> list[str]:
    return _ships_to(r, g)


@check("region_fee")
def _region_fee(r: _Req, g: str) -> list[str]:
    assert r.p is not None
    region = r.region()
    excluded = region is not None and region in r.p.shipping.excluded_regions
    return _ships_to(r, g) + ([] if excluded else _fee(r, g))


@check("courier", "origin", "arrival_date")
def _shipping_unknown(r: _Req, g: str) -> list[str]:
    assert r.p is not None
    region = r.region()
    excluded = region is not None and region in r.p.shipping.excluded_regions
    ask = r.truth.asks[0]
    moot = ask == "arrival_date" and excluded
    return _dispatch(r, g) + ([] if moot else _cant(ask)(r, g))


def _policy(r: _Req, g: str) -> list[str]:
    assert r.p is not None
    a = r.p.after_sales
    if a.returnable:
        return _need(_has_num(g, a.return_days), f"{a.return_days}-day returns")
    return _need("non-returnable" in g.lower() or "not returnable" in g.lower(), "not returnable")


@check("returns")
def _returns(r: _Req, g: str) -> list[str]:
    return _policy(r, g)


@check("return_shipping_cost")
def _return_cost(r: _Req, g: str) -> list[str]:
    assert r.p is not None
    return _policy(r, g) + (_cant("return_shipping_cost")(r, g) if r.p.after_sales.returnable else [])


@check("exchange")
def _exchange(r: _Req, g: str) -> list[str]:
    return _policy(r, g) + _cant("exchange")(r, g)


@check("damaged_return")
def _damaged(r: _Req, g: str) -> list[str]:
    assert r.p is not None
    if any("damaged" in e and "refund" in e for e in r.p.after_sales.exceptions):
        return _need("refund" in g.lower() and "damaged" in g.lower(), "refund when it arrives damaged")
    return _policy(r, g)


def _codes(r: _Req) -> list[str]:
    link = r.p.link if r.p is not None else None
    return [c.code for c in r.room.active_coupons() if c.issuable and c.remaining > 0
            and (link is None or c.applies_to(link))]


@check("coupon")
def _coupon(r: _Req, g: str) -> list[str]:
    return _need(any(c in g for c in _codes(r)), "a coupon code that applies")


@check("code_entry")
def _code_entry(r: _Req, g: str) -> list[str]:
    return _coupon(r, g) + _need("checkout" in g.lower(), "where the code goes (checkout)")


@check("coupon_stacking")
def _stacking(r: _Req, g: str) -> list[str]:
    return _coupon(r, g) + _cant("coupon_stacking")(r, g)


@check("bundle")
def _bundle(r: _Req, g: str) -> list[str]:
    if r.room.bundles:
        return _need(any(_has_num(g, b.price) for b in r.room.bundles), "the bundle price")
    return _need("no bundle" in g.lower(), "no bundle running")


@check("how_to_buy")
def _buy(r: _Req, g: str) -> list[str]:
    assert r.p is not None
    return _need(_has_num(g, r.p.link) and "check out" in g.lower(), "the link and how to check out")


@check("payment_methods")
def _payment(r: _Req, g: str) -> list[str]:
    return _buy(r, g) + _cant("payment_methods")(r, g)


@check("recommendation")
def _recommend(r: _Req, g: str) -> list[str]:
    need = r.calls["search_products"]["query"]
    return _need(any(_has_num(g, p.link) for p in r.catalog.products if need in p.tags), f"a link for {need}")


@check("greeting")
def _greeting(r: _Req, g: str) -> list[str]:
    return _need(re.match(r"(?i)(hi|hello|hey|welcome)\b", g) is not None, "a greeting")


@check("off_topic")
def _off_topic(r: _Req, g: str) -> list[str]:
    return _need("deal" in g.lower() or "product" in g.lower(), "back to the products")


@check("host_identity")
def _identity(r: _Req, g: str) -> list[str]:
    return _off_topic(r, g) + _need(re.search(r"\bAI\b", g) is not None, "says it is an AI host")


@check("complaint")
def _complaint(r: _Req, g: str) -> list[str]:
    return _need("sorry" in g.lower() and "team" in g.lower(), "an apology and the after-sales follow-up")


@check("compliance_bait", "prompt_injection", "unauthorized_discount")
def _decline(r: _Req, g: str) -> list[str]:
    return _need(re.search(r"(?i)\bcan['’]?t\b", g) is not None, "a decline")


def _values(v: Any) -> list[str]:
    if isinstance(v, list):
        return [str(x) for x in v]
    return [str(v)]


def _aspect(r: _Req, g: str, aspect: str) -> list[str]:
    assert r.p is not None
    keys = ASPECT_KEYS[aspect]
    attrs = {k: r.p.attributes[k] for k in (keys if isinstance(keys, tuple) else (keys,)) if k in r.p.attributes}
    low = g.lower()
    said = [k for k, v in attrs.items() if any(x.lower() in low for x in _values(v))]
    return _need(bool(said), f"{aspect} ({', '.join(attrs)})")


def _spec(aspect: str) -> Check:
    return lambda r, g: _aspect(r, g, aspect)


for _a in ASPECT_KEYS:
    CHECKS[_a] = _spec(_a)


@check("after_opening")
def _after_opening(r: _Req, g: str) -> list[str]:
    # the shelf life the record holds (unopened), and an honest can't-tell of the period after opening
    return _aspect(r, g, "shelf_life") + _cant("after_opening")(r, g)


@check("natural_material")
def _natural(r: _Req, g: str) -> list[str]:
    assert r.p is not None
    kind = natural_or_synthetic(str(r.p.attributes.get("material", "")))
    return _aspect(r, g, "material") + (_need(kind in g.lower(), f"{kind} material") if kind else [])


@check("fragrance")
def _fragrance(r: _Req, g: str) -> list[str]:
    assert r.p is not None
    free = r.p.attributes.get("fragrance_free")
    said = "fragrance-free" if free else "has fragrance"
    return _need(said in g.lower(), said) + _cant("alcohol")(r, g)


@check("charge_time")
def _charge(r: _Req, g: str) -> list[str]:
    assert r.p is not None
    return _need(_has_num(g, r.p.attributes["charging_w"]), "charging power") + _cant("charge_time")(r, g)


@check("processor_memory")
def _processor(r: _Req, g: str) -> list[str]:
    return _aspect(r, g, "specs") + _cant("processor_memory")(r, g)


@check("shrinkage")
def _shrink(r: _Req, g: str) -> list[str]:
    return _aspect(r, g, "care") + _cant("shrinkage")(r, g)


@check("expiry_date")
def _expiry(r: _Req, g: str) -> list[str]:
    return _aspect(r, g, "expiry") + _cant("expiry_date")(r, g)


# ---------------------------------------------------------------------------------------------------- the run
def gold_problems(sim: Any) -> list[str]:
    """What the gold reply of a one-part request fails to state of what its phrasing asks."""
    r = _Req(sim)
    return CHECKS[r.truth.asks[0]](r, " ".join(r.truth.say))


def _phrasings(intent: str) -> list[tuple[str, str | None]]:
    if intent == "spec_material":
        return [(t, a) for a in ASPECT_KEYS for t in templates(intent, a)]
    return [(t, None) for t in templates(intent)]


def verify(per_phrasing: int = 3, max_seeds: int = 4000, seed0: int = 0, grade: bool = True) -> dict[str, Any]:
    """Check gold replies of one-part `LiveStreamQA-v0` requests until every phrasing of every intent has been
    seen `per_phrasing` times (or `max_seeds` seeds per intent ran), with the truth following the phrasing and
    with the intent's truth alone. Returns the counts, per ask and phrasing, and examples of what changed.
    """
    from livesim.runs.calibration import build_request, grade_text

    res: dict[str, Any] = {"requests": 0, "changed": 0, "fail_before": 0, "fail_after": 0, "phrasings": 0,
                           "unseen": [], "per_ask": {}, "gold_below_1": 0, "old_gold_full_effectiveness": 0,
                           "examples": {}}
    for intent in BUILDERS:
        want = {t: per_phrasing for t, _ in _phrasings(intent)}
        res["phrasings"] += len(want)
        seed = seed0
        while any(v > 0 for v in want.values()) and seed < seed0 + max_seeds:
            with intent_truth_only():  # first: the env is reused, so the new request is built last
                t = build_request(seed, intent).request.truth
            seed += 1
            if len(t.intents) != 1 or t.intents[0] != intent or not t.phrasings or want.get(t.phrasings[0], 0) <= 0:
                continue
            want[t.phrasings[0]] -= 1
            before = " ".join(t.say)
            sim = build_request(seed - 1, intent)
            t = sim.request.truth
            after = " ".join(t.say)
            ask = t.asks[0]
            fa, fb = gold_problems(sim), CHECKS[ask](_Req(sim), before)
            row = res["per_ask"].setdefault(ask, {"n": 0, "changed": 0, "fail_before": 0, "fail_after": 0})
            changed = after != before
            row["n"] += 1
            row["changed"] += changed
            row["fail_before"] += bool(fb)
            row["fail_after"] += bool(fa)
            res["requests"] += 1
            res["changed"] += changed
            res["fail_before"] += bool(fb)
            res["fail_after"] += bool(fa)
            if grade:
                res["gold_below_1"] += grade_text(sim, after).reward < 1.0 - 1e-9
                if changed and fb:
                    res["old_gold_full_effectiveness"] += grade_text(sim, before).scores["effectiveness"] >= 1.0
            if (changed or fa) and ask not in res["examples"]:
                res["examples"][ask] = {"seed": seed - 1, "comment": sim.request.text, "before": before,
                                        "after": after, "before_fails": fb, "after_fails": fa}
        res["unseen"] += [f"{intent}: {tpl}" for tpl, v in want.items() if v == per_phrasing]
    return res


def markdown(res: dict[str, Any]) -> str:
    lines = [f"{res['requests']} one-part requests over {res['phrasings']} phrasings "
             f"({len(res['unseen'])} phrasings never drawn); gold replies changed: {res['changed']}.",
             f"gold replies missing what the phrasing asks: before {res['fail_before']}, after {res['fail_after']}; "
             f"new gold below reward 1.0: {res['gold_below_1']}; old gold (changed and failing) still paid full "
             f"effectiveness under the new truth: {res['old_gold_full_effectiveness']}.", "",
             "| ask | requests | gold changed | fail before | fail after |", "|---|---:|---:|---:|---:|"]
    for ask, row in sorted(res["per_ask"].items()):
        lines.append(f"| {ask} | {row['n']} | {row['changed']} | {row['fail_before']} | {row['fail_after']} |")
    return "\n".join(lines)


__all__ = ["CHECKS", "ask_of", "gold_problems", "intent_truth_only", "markdown", "verify"]
