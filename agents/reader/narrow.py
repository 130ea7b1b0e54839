"""Questions narrower than their intent, read from the comment's words: "how many left", "which courier", "do
the coupons stack". The intent's sentence is then changed to answer them from the same look-up results, and what
no look-up returns gets an honest "I can't tell you that" instead of a neighbouring fact.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

from livesim.agents.reader.intents import Ask, correct

Results = dict[str, Any]
Narrower = Callable[[Ask, Results, str], str]
NARROWERS: dict[str, list[tuple[re.Pattern[str], Narrower]]] = {}

# what no look-up returns: the sentence the reader says instead of guessing
CANT = {
    "restock": "I can't tell you when it will be restocked.",
    "courier": "I can't tell you which courier takes it, that isn't listed.",
    "origin": "I can't tell you where it ships from, that isn't listed.",
    "arrival": "I can't tell you the exact arrival date, only the dispatch time.",
    "return_cost": "I can't tell you who pays the return shipping, that isn't listed.",
    "exchange": "I can't tell you whether exchanges are possible, that isn't listed.",
    "stacking": "I can't tell you whether codes can be combined, that isn't listed.",
    "payment": "I can't tell you which payment methods work, that isn't listed.",
    "durability": "I can't tell you which one lasts longer, that isn't listed.",
    "expiry": "I can't tell you the exact expiry date of the stock we ship.",
    "shrink": "I can't tell you whether it shrinks, that isn't listed.",
    "charge": "I can't tell you the exact charging time, it isn't listed.",
    "processor": "I can't tell you the processor or memory, they aren't listed.",
    "alcohol": "I can't tell you whether it has alcohol in it, that isn't listed.",
}
# fibres whose origin is common knowledge ("is it real or synthetic?")
_NATURAL = ("linen", "cotton", "denim", "wool", "cashmere", "bamboo", "silk")
_SYNTHETIC = ("polyester", "nylon", "spandex", "fleece", "polypropylene", "memory foam", "acrylic")


def narrower(intent: str, pattern: str) -> Callable[[Narrower], Narrower]:
    def deco(fn: Narrower) -> Narrower:
        NARROWERS.setdefault(intent, []).append((re.compile(pattern, re.IGNORECASE), fn))
        return fn

    return deco


def narrow(ask: Ask, results: Results, sentence: str) -> str:
    """`sentence` (the intent's answer) changed to answer what the comment's words narrow it to."""
    text = correct(ask.text)
    for rx, fn in NARROWERS.get(ask.intent, []):
        if rx.search(text):
            return fn(ask, results, sentence)
    return sentence


def _g(x: Any) -> str:
    return f"{float(x):g}"


def _then(key: str) -> Narrower:
    return lambda ask, r, s: f"{s} {CANT[key]}"


# ------------------------------------------------------------------------------------------------ stock
@narrower("stock_variant", r"how many\b.*\bleft")
def _count(ask: Ask, r: Results, s: str) -> str:
    skus = (r.get("stock") or {}).get("skus") or []
    label = s.split(" of link ")[0] if " of link " in s else ""
    hit = [x for x in skus if label and any(p.strip().lower() == label.lower().removeprefix("size ").strip()
                                            for p in str(x.get("variant", "")).split(" / "))]
    left = sum(int(x.get("stock") or 0) for x in hit)
    return s[:-1] + f", {left} left." if s.endswith("is in stock.") and left > 0 else s


@narrower("stock_variant", r"restock")
def _restock(ask: Ask, r: Results, s: str) -> str:
    return s if s.endswith("is in stock.") else f"{s} {CANT['restock']}"


# ------------------------------------------------------------------------------------------------ shipping
def _fee(link: Any, res: dict[str, Any]) -> str:
    fee, over = res.get("fee"), res.get("free_shipping_over")
    if fee == 0:
        return f"Shipping on link {link} is free."
    return f"Shipping on link {link} is free on orders over {_g(over)} yuan, otherwise {_g(fee)} yuan."


def _there(ask: Ask, res: dict[str, Any], s: str) -> str | None:
    """'Yes, it ships to X' for the region the comment names, when it does (None: no region, or not there)."""
    region = ask.region
    if not region or s.startswith("Sorry") or region.lower() not in ask.text.lower():
        return None
    extra = {k.lower(): v for k, v in (res.get("remote_regions_extra_days") or {}).items()}.get(region.lower())
    say = f"Yes, link {res.get('link')} ships to {region}, within {res['ships_within_hours']} hours"
    return say + (f" plus {extra} extra days." if extra else ".")


@narrower("shipping", r"courier")
def _courier(ask: Ask, r: Results, s: str) -> str:
    return f"{s} {CANT['courier']}"


@narrower("shipping", r"ships? from")
def _origin(ask: Ask, r: Results, s: str) -> str:
    return f"{s} {CANT['origin']}"


@narrower("shipping", r"extra fee")
def _region_fee(ask: Ask, r: Results, s: str) -> str:
    res = r.get("shipping") or {}
    there = _there(ask, res, s)
    return s if there is None else f"{there} {_fee(res.get('link'), res)}"


@narrower("shipping", r"shipping free|free shipping")
def _free(ask: Ask, r: Results, s: str) -> str:
    res = r.get("shipping") or {}
    return _fee(res.get("link"), res) if "fee" in res else s


@narrower("shipping", r"\barrive\b|weekend|make it")
def _arrival(ask: Ask, r: Results, s: str) -> str:
    return s if s.startswith("Sorry") else f"{s} {CANT['arrival']}"


@narrower("shipping", r"ship to|deliver\b.*\bto\b")
def _ships_to(ask: Ask, r: Results, s: str) -> str:
    return _there(ask, r.get("shipping") or {}, s) or s


# ------------------------------------------------------------------------------------------------ returns
@narrower("returns", r"\bpays?\b|returns on .*free")
def _return_cost(ask: Ask, r: Results, s: str) -> str:
    return s if "non-returnable" in s else f"{s} {CANT['return_cost']}"


@narrower("returns", r"exchange")
def _exchange(ask: Ask, r: Results, s: str) -> str:
    return f"{s} {CANT['exchange']}"


@narrower("returns", r"damaged")
def _damaged(ask: Ask, r: Results, s: str) -> str:
    res = r.get("returns") or {}
    rule = next((e for e in res.get("exceptions") or [] if "damaged" in e and "refund" in e), None)
    if rule is None or res.get("returnable"):
        return s
    tail = rule.split("(", 1)[1].rstrip(")") if "(" in rule else ""
    cond = f" ({res['condition']})" if res.get("condition") else ""
    said = f"if the package arrives damaged you get a refund{f' with a {tail}' if tail else ''}"
    return f"Link {res.get('link')} is non-returnable{cond}; {said}."


# ------------------------------------------------------------------------------------------------ coupons
@narrower("coupon", r"stack")
def _stack(ask: Ask, r: Results, s: str) -> str:
    return f"{s} {CANT['stacking']}"


@narrower("coupon", r"enter\b")
def _enter(ask: Ask, r: Results, s: str) -> str:
    m = re.match(r"Use code (\S+) (.*)\.$", s)
    return f"Enter code {m.group(1)} at checkout {m.group(2)}." if m else s


@narrower("coupon", r"bundle")
def _bundle(ask: Ask, r: Results, s: str) -> str:
    bundles = (r.get("promotions") or {}).get("bundles")
    if bundles is None:
        return s
    if not bundles:
        return f"No bundle is running right now. {s}"
    said = " ".join(f"The {' + '.join(f'link {x}' for x in b['links'])} bundle is {_g(b['price'])} yuan."
                    for b in bundles)
    return f"Yes! {said}"


# ------------------------------------------------------------------------------------------------ buying, chat
@narrower("how_to_buy", r"\bpay\b|payment|card")
def _pay(ask: Ask, r: Results, s: str) -> str:
    return f"{s} {CANT['payment']}"


@narrower("off_topic", r"real person|\bbot\b")
def _identity(ask: Ask, r: Results, s: str) -> str:
    return "I'm the shop's AI host! Let's get back to today's deals."


@narrower("comparison", r"longer")
def _longer(ask: Ask, r: Results, s: str) -> str:
    items = (r.get("compare") or {}).get("products") or []
    hours = [(x.get("link"), (x.get("attributes") or {}).get("battery_hours")) for x in items[:2]]
    if len(hours) == 2 and all(h is not None for _, h in hours):
        (la, ha), (lb, hb) = hours
        return f"On a charge, link {la} lasts {ha} hours and link {lb} lasts {hb} hours."
    return f"{s} {CANT['durability']}"


# ------------------------------------------------------------------------------------------------ specs
def _attrs(r: Results) -> dict[str, Any]:
    attrs = (r.get("details") or {}).get("attributes")
    return attrs if isinstance(attrs, dict) else {}


@narrower("spec_material", r"expir")
def _expiry(ask: Ask, r: Results, s: str) -> str:
    return f"{s} {CANT['expiry']}"


@narrower("spec_material", r"shrink")
def _shrink(ask: Ask, r: Results, s: str) -> str:
    return f"{s} {CANT['shrink']}"


@narrower("spec_material", r"how long to charge")
def _charge(ask: Ask, r: Results, s: str) -> str:
    watts = _attrs(r).get("charging_w")
    link = (r.get("details") or {}).get("link")
    return f"Link {link} charges at {watts} W. {CANT['charge']}" if watts is not None else f"{s} {CANT['charge']}"


@narrower("spec_material", r"processor|memory")
def _processor(ask: Ask, r: Results, s: str) -> str:
    return f"{s} {CANT['processor']}"


@narrower("spec_material", r"real or synthetic|synthetic|natural")
def _natural(ask: Ask, r: Results, s: str) -> str:
    material = str(_attrs(r).get("material", ""))
    low = material.lower()
    kind = "synthetic" if any(m in low for m in _SYNTHETIC) else "natural" if any(m in low for m in _NATURAL) else None
    link = (r.get("details") or {}).get("link")
    return f"Link {link} is {material}, a {kind} material." if kind else s


@narrower("spec_material", r"alcohol|fragrance")
def _fragrance(ask: Ask, r: Results, s: str) -> str:
    attrs, link = _attrs(r), (r.get("details") or {}).get("link")
    if "fragrance_free" not in attrs:
        return f"{s} {CANT['alcohol']}"
    said = f"Link {link} is fragrance-free." if attrs["fragrance_free"] else f"Link {link} has fragrance in it."
    return f"{said} {CANT['alcohol']}"
