"""Reply sentences written from tool results: every value the reader states was returned by a tool this request.

One writer per intent takes the ask and the JSON results of its look-ups (None when a look-up failed) and
returns a sentence, or None when it has nothing true to say.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

from livesim.agents.reader.intents import Ask
from livesim.agents.reader.narrow import narrow

Results = dict[str, Any]  # job -> the JSON result of this ask's look-up (absent when it failed)
Writer = Callable[[Ask, Results, str], "str | None"]
WRITERS: dict[str, Writer] = {}

_UNITS = {"ml": " ml", "months": " months", "hours": " hours", "mah": " mAh", "g": " g", "days": " days",
          "cm": " cm", "w": " W"}
# aspect -> attribute-name fragments that answer it (any attribute whose name holds one)
ASPECT_KEYS = {"material": ("material",), "ingredients": ("ingredient",), "skin_type": ("skin",),
               "volume": ("volume",), "shelf_life": ("shelf_life_months", "shelf_life"), "battery": ("battery_hours",),
               "warranty": ("warranty",), "compatibility": ("compatib",),
               "specs": ("battery_mah", "charging", "weight_g"),
               "allergens": ("allergen",), "flavour": ("flavour", "flavor"), "weight": ("net_weight", "weight"),
               "expiry": ("shelf_life_days", "expir"), "dimensions": ("dimension",), "colours": ("colour", "color"),
               "care": ("care",)}


def writer(intent: str) -> Callable[[Writer], Writer]:
    def deco(fn: Writer) -> Writer:
        WRITERS[intent] = fn
        return fn

    return deco


def _g(x: Any) -> str:
    return f"{float(x):g}" if isinstance(x, (int, float)) and not isinstance(x, bool) else str(x)


def _link(ask: Ask) -> int | None:
    return ask.links[0] if ask.links else None


def _attribute(key: str, value: Any) -> str:
    parts = key.split("_")
    unit = _UNITS.get(parts[-1], "") if len(parts) > 1 else ""
    label = " ".join(parts[:-1] if unit else parts)
    if isinstance(value, list):
        text = " x ".join(str(v) for v in value) if all(isinstance(v, int) for v in value) else ", ".join(
            map(str, value))
    else:
        text = str(value)
    return f"{label} {text}{unit}"


@writer("price")
def _price(ask: Ask, r: Results, _: str) -> str | None:
    res = r.get("price") or r.get("details")
    if not res or res.get("current_price") is None:
        return None
    return f"Link {res.get('link', _link(ask))} is {_g(res['current_price'])} yuan right now."


@writer("stock_variant")
def _stock(ask: Ask, r: Results, _: str) -> str | None:
    res = r.get("stock")
    if not res or not res.get("skus"):
        return None
    low = ask.text.lower()
    best: tuple[str, list[dict[str, Any]]] | None = None
    for sku in res["skus"]:
        for part in str(sku.get("variant", "")).split(" / "):
            p = part.strip()
            hit = (re.search(rf"\bsize {re.escape(p.lower())}\b", low) if len(p) <= 3 and p.isupper()
                   else re.search(rf"(?<![\w-]){re.escape(p.lower())}(?![\w-])", low))
            if p and hit:
                label = f"size {p}" if len(p) <= 3 and p.isupper() else p
                matching = [s for s in res["skus"] if p in str(s.get("variant", "")).split(" / ")]
                if best is None or len(label) > len(best[0]):
                    best = (label, matching)
    if best is None:
        return None
    label, skus = best
    link = res.get("link", _link(ask))
    if any(s.get("in_stock") for s in skus):
        return f"{label[:1].upper() + label[1:]} of link {link} is in stock."
    return f"{label[:1].upper() + label[1:]} of link {link} is sold out right now, sorry."


@writer("size_advice")
def _size(ask: Ask, r: Results, _: str) -> str | None:
    res = r.get("size")
    if not res or not res.get("recommended_size"):
        return None
    return (f"For {ask.height}cm and {ask.weight}kg I'd go with size {res['recommended_size']} "
            f"on link {res.get('link', _link(ask))}.")


@writer("spec_material")
def _spec(ask: Ask, r: Results, _: str) -> str | None:
    res = r.get("details") or {}
    attrs = res.get("attributes")
    if not isinstance(attrs, dict) or not attrs:
        return None
    frags = ASPECT_KEYS.get(ask.aspect or "", ())
    keys = [k for k in attrs if any(f in k for f in frags)]
    if ask.aspect == "weight" and "net_weight_g" in keys:
        keys = ["net_weight_g"]
    if not keys:
        return None
    return f"Link {res.get('link', _link(ask))}: " + "; ".join(_attribute(k, attrs[k]) for k in keys) + "."


@writer("comparison")
def _compare(ask: Ask, r: Results, _: str) -> str | None:
    res = r.get("compare")
    items = (res or {}).get("products") or []
    if len(items) < 2:
        return None
    a, b = items[0], items[1]
    return (f"Link {a['link']} ({a.get('name')}) is {_g(a['current_price'])} yuan and link {b['link']} "
            f"({b.get('name')}) is {_g(b['current_price'])} yuan.")


@writer("shipping")
def _shipping(ask: Ask, r: Results, _: str) -> str | None:
    res = r.get("shipping")
    if not res or res.get("ships_within_hours") is None:
        return None
    low = ask.text.lower()
    link = res.get("link", _link(ask))
    for region in res.get("excluded_regions") or []:
        if region.lower() in low:
            return f"Sorry, link {link} does not ship to {region}."
    say = f"Link {link} ships within {res['ships_within_hours']} hours"
    for region, days in (res.get("remote_regions_extra_days") or {}).items():
        if region.lower() in low:
            say += f", plus {days} extra days to {region}"
            break
    return say + "."


@writer("returns")
def _returns(ask: Ask, r: Results, _: str) -> str | None:
    res = r.get("returns")
    if not res or "returnable" not in res:
        return None
    link = res.get("link", _link(ask))
    cond = f" ({res['condition']})" if res.get("condition") else ""
    if res["returnable"]:
        return f"Link {link} has {res.get('return_days')}-day returns{cond}."
    return f"Link {link} is non-returnable{cond}, sorry."


@writer("coupon")
def _coupon(ask: Ask, r: Results, _: str) -> str | None:
    res = r.get("promotions")
    coupons = [c for c in (res or {}).get("coupons") or [] if c.get("host_can_issue") and c.get("remaining", 1) > 0]
    link = _link(ask)
    if link is not None:
        coupons = [c for c in coupons if c.get("links") in ("all", None) or link in (c.get("links") or [])]
    if not coupons:
        return None
    ranked = sorted(coupons, key=lambda c: (-c.get("discount", 0), c.get("min_spend", 0), str(c.get("code"))))
    if link is not None:  # the best one for the link the viewer named
        ranked = ranked[:1]
    parts = []
    for c in ranked[:3]:  # no link named: the viewer may mean any product, so every code the host may give
        spend = f" on orders over {_g(c['min_spend'])} yuan" if c.get("min_spend") else ""
        only = c.get("links")
        where = (f" (only for {' and '.join(f'link {x}' for x in only)})" if isinstance(only, list) and link is None
                 else "")
        parts.append(f"code {c['code']} for {_g(c['discount'])} yuan off{spend}{where}")
    return "Use " + ", or ".join(parts) + "."


@writer("how_to_buy")
def _buy(ask: Ask, r: Results, _: str) -> str | None:
    link = (r.get("details") or {}).get("link", _link(ask))
    if link is None:
        return None
    return f"Tap link {link} in the cart, pick your option and check out."


@writer("recommendation")
def _recommend(ask: Ask, r: Results, _: str) -> str | None:
    results = (r.get("search") or {}).get("results") or []
    if not results:
        return None
    need = (ask.need or "").lower()
    pick = next((x for x in results if need and any(need == str(t).lower() for t in x.get("suits", []))), results[0])
    return f"For {ask.need}, try link {pick['link']}, the {pick.get('name')}."


@writer("greeting")
def _greeting(ask: Ask, r: Results, _: str) -> str | None:
    return f"Hi {ask.viewer}, welcome to the stream!" if ask.viewer else "Hi, welcome to the stream!"


@writer("off_topic")
def _off_topic(ask: Ask, r: Results, _: str) -> str | None:
    return "Ha, fun question! Let's get back to today's deals."


@writer("complaint")
def _complaint(ask: Ask, r: Results, _: str) -> str | None:
    if r.get("ticket"):
        return "So sorry about that! I've opened a ticket and our after-sales team will contact you."
    return "So sorry about that! Our after-sales team will look into it."


@writer("compliance_bait")
def _bait(ask: Ask, r: Results, _: str) -> str | None:
    return "I can't promise that, results vary from person to person."


@writer("prompt_injection")
def _injection(ask: Ask, r: Results, _: str) -> str | None:
    return "Nice try! I can't do that, but I'm happy to help with today's products."


@writer("unauthorized_discount")
def _discount(ask: Ask, r: Results, _: str) -> str | None:
    return "Sorry, I can't give extra discounts beyond the running promotions."


def compose(asks: list[tuple[Ask, Results]], max_chars: int, banned: list[str]) -> str:
    """One reply answering every ask, within `max_chars`; sentences holding a `banned` fragment are left out."""
    sentences: list[str] = []
    for ask, results in asks:
        s = WRITERS[ask.intent](ask, results, "")
        s = narrow(ask, results, s) if s else s  # what the comment's words ask beyond the intent
        if s and s not in sentences and not any(b and b.lower() in s.lower() for b in banned):
            sentences.append(s)
    if not sentences:
        sentences = ["Thanks for your comment! Let me know which link you'd like to hear about."]
    while len(sentences) > 1 and len(" ".join(sentences)) > max_chars:
        sentences.pop()
    return " ".join(sentences)[:max_chars]
