"""Truth that follows the comment: the facts and gold reply for what a phrasing asks, not only for its intent.

An intent builder (`livesim.world.intents`) writes the truth of its intent's own question; `follow` narrows it to
the phrasing's ask (`livesim.world.asks`). An ask the records answer gets that fact ("how many left": the stock
count); an ask no record answers requires an honest can't-tell of that part plus what is known. No random draw
happens here, so a request's text and every later draw are the same whatever the ask.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from livesim.world.asks import UNKNOWN
from livesim.world.catalog import Catalog, Product
from livesim.world.room import Room
from livesim.world.truth import NOT_SHIP_PHRASES, Fact, Truth

# Fibres and materials whose origin is common knowledge (what "natural or synthetic?" turns on).
NATURAL = ("linen", "cotton", "denim", "wool", "cashmere", "bamboo", "silk")
SYNTHETIC = ("polyester", "nylon", "spandex", "fleece", "polypropylene", "memory foam", "acrylic")
# Where a coupon code goes: the shop's checkout flow (the ordering steps of `how_to_buy` end there too).
CODE_ENTRY_PHRASES = ("checkout", "check out", "checking out")
IDENTITY_PHRASES = ("an ai", "ai host", "ai assistant", "virtual host", "virtual assistant", "a bot",
                    "not a real person", "not a person")
BUNDLE_NONE_PHRASES = ("no bundle", "bundle is running", "no bundles", "isn't a bundle", "is no bundle",
                       "not running a bundle", "aren't any bundle", "no set deal")
DAMAGED_PHRASES = ("refund",)


@dataclass
class Asked:
    """One comment part's truth, what its phrasing asks and what the truth was drawn from."""

    ask: str
    truth: Truth
    slots: Mapping[str, Any]
    catalog: Catalog
    room: Room

    @property
    def product(self) -> Product | None:
        return self.catalog.by_link(self.truth.targets[0]) if self.truth.targets else None

    def with_(self, facts: list[Fact], say: str) -> Truth:
        return self.truth.model_copy(update={"facts": facts, "say": [say]})

    def plus_unknown(self, part: str, facts: list[Fact] | None = None, say: str | None = None) -> Truth:
        """The truth with a can't-tell of `part` required beside its known facts (and said after them)."""
        u = UNKNOWN[part]
        fact = Fact(kind="unknown", value=list(u.topic), label=f"says it can't tell ({part.replace('_', ' ')})")
        known = list(self.truth.facts) if facts is None else facts
        return self.with_([*known, fact], f"{say or ' '.join(self.truth.say)} {u.say}")


Answer = Callable[[Asked], Truth]
ANSWERS: dict[str, Answer] = {}


def answers(*asks: str) -> Callable[[Answer], Answer]:
    def deco(fn: Answer) -> Answer:
        for a in asks:
            ANSWERS[a] = fn
        return fn

    return deco


def follow(ask: str, truth: Truth, slots: Mapping[str, Any], catalog: Catalog, room: Room) -> Truth:
    """`truth` (of the comment's intent) narrowed to what its phrasing asks, with the ask recorded."""
    fn = ANSWERS.get(ask)
    out = fn(Asked(ask, truth, slots, catalog, room)) if fn is not None else truth
    return out.model_copy(update={"asks": [ask]})


def _g(x: float) -> str:
    return f"{x:g}"


@answers("processor_memory", "shrinkage", "expiry_date", "exchange", "coupon_stacking", "payment_methods",
         "after_opening")
def _unknown_only(a: Asked) -> Truth:
    return a.plus_unknown(a.ask)


# ------------------------------------------------------------------------------------------------ stock
def _asked_variant(a: Asked) -> str | None:
    return next((str(c.arguments["variant"]) for c in a.truth.calls if c.key == "check_stock"), None)


@answers("stock_count")
def _stock_count(a: Asked) -> Truth:
    p, variant = a.product, _asked_variant(a)
    if p is None or a.truth.stock_state != "in_stock":
        return a.truth  # sold out: "none left" is the count
    left = sum(s.stock for s in p.sku_for(variant))
    label = str(a.slots["variant"])
    count = Fact(kind="number", value=float(left), label=f"{left} {label} of link {p.link} left", subject=p.link,
                 attribute="stock_count")
    return a.with_([*a.truth.facts, count], f"{label[:1].upper() + label[1:]} of link {p.link} is in stock, "
                                            f"{left} left.")


@answers("restock")
def _restock(a: Asked) -> Truth:
    return a.truth if a.truth.stock_state == "in_stock" else a.plus_unknown("restock")


# ------------------------------------------------------------------------------------------------ specs
def natural_or_synthetic(material: str) -> str | None:
    """'natural' or 'synthetic' for a material whose main fibre is in the lists above, else None."""
    low = material.lower()
    if any(m in low for m in SYNTHETIC):
        return "synthetic"
    if any(m in low for m in NATURAL):
        return "natural"
    return None


@answers("natural_material")
def _natural(a: Asked) -> Truth:
    p = a.product
    material = str(p.attributes.get("material", "")) if p is not None else ""
    kind = natural_or_synthetic(material)
    if p is None or kind is None:
        return a.truth  # ceramic, glass, aluminium: the material itself answers
    fact = Fact(kind="keyword", value=[kind], label=f"{material} is {kind}", subject=p.link)
    return a.with_([*a.truth.facts, fact], f"Link {p.link} is {material}, a {kind} material.")


# the label of the fact a boolean attribute's record value answers with, per value (what says "it has fragrance")
BOOLEAN_LABELS: dict[str, dict[bool, str]] = {"fragrance_free": {True: "fragrance-free", False: "has fragrance"}}


@answers("fragrance")
def _fragrance(a: Asked) -> Truth:
    p = a.product
    if p is None or "fragrance_free" not in p.attributes:
        return a.plus_unknown("alcohol")
    free = bool(p.attributes["fragrance_free"])
    words = ["fragrance-free", "fragrance free", "no fragrance", "without fragrance", "unscented"] if free else \
        ["has fragrance", "contains fragrance", "fragranced", "with fragrance", "is scented", "has a scent"]
    fact = Fact(kind="keyword", value=words, label=BOOLEAN_LABELS["fragrance_free"][free], subject=p.link)
    said = f"Link {p.link} is fragrance-free." if free else f"Link {p.link} has fragrance in it."
    return a.plus_unknown("alcohol", facts=[fact], say=said)


@answers("charge_time")
def _charge_time(a: Asked) -> Truth:
    p = a.product
    watts = p.attributes.get("charging_w") if p is not None else None
    if p is None or watts is None:
        return a.plus_unknown("charge_time")
    fact = Fact(kind="number", value=float(watts), label=f"charges at {watts} W", subject=p.link,
                attribute="charging_w")
    return a.plus_unknown("charge_time", facts=[fact], say=f"Link {p.link} charges at {watts} W.")


# ------------------------------------------------------------------------------------------------ comparison
@answers("durability")
def _durability(a: Asked) -> Truth:
    ps = [a.catalog.by_link(x) for x in a.truth.targets]
    if len(ps) == 2 and all(p is not None and "battery_hours" in p.attributes for p in ps):
        facts = [Fact(kind="number", value=float(p.attributes["battery_hours"]), subject=p.link,
                      attribute="battery_hours", label=f"link {p.link} battery {p.attributes['battery_hours']}h")
                 for p in ps if p is not None]
        x, y = (p for p in ps if p is not None)
        return a.with_(facts, f"On a charge, link {x.link} lasts {x.attributes['battery_hours']} hours and link "
                              f"{y.link} lasts {y.attributes['battery_hours']} hours.")
    return a.plus_unknown("durability")


# ------------------------------------------------------------------------------------------------ shipping
def _region(a: Asked) -> str | None:
    region = a.slots.get("region")
    return str(region) if region else None


def _fee_fact(p: Product) -> Fact:
    s = p.shipping
    return Fact(kind="any", label=f"shipping fee {s.fee:g} / free over {s.free_over:g}", subject=p.link, any_of=[
        Fact(kind="number", value=s.fee, label=f"shipping fee {s.fee:g}", subject=p.link, attribute="fee"),
        Fact(kind="number", value=s.free_over, label=f"free shipping over {s.free_over:g}", subject=p.link,
             attribute="free_over")])


def _fee_sentence(p: Product) -> str:
    s = p.shipping
    if s.fee == 0:
        return f"Shipping on link {p.link} is free."
    return f"Shipping on link {p.link} is free on orders over {_g(s.free_over)} yuan, otherwise {_g(s.fee)} yuan."


def _ships_there(a: Asked, p: Product, region: str) -> tuple[Fact, str]:
    s = p.shipping
    say = f"Yes, link {p.link} ships to {region}, within {s.ships_within_hours} hours"
    if region in s.remote_regions:
        say += f" plus {s.remote_regions[region]} extra days"
    return Fact(kind="ships_to", value=region, label=f"ships to {region}", subject=p.link), say + "."


def _excluded(a: Asked) -> bool:
    p, region = a.product, _region(a)
    return p is None or region is None or region in p.shipping.excluded_regions


@answers("shipping")
def _shipping(a: Asked) -> Truth:
    p = a.product
    if p is None or _region(a) is not None or p.shipping.ships_within_hours is None:
        return a.truth
    # a region the builder drew but the comment does not name: the host cannot know it, so the gold reply does not
    # speak of it (the facts that hinge on it are required only when the text names it)
    return a.with_(list(a.truth.facts), f"Link {p.link} ships within {p.shipping.ships_within_hours} hours.")


def _dispatch(a: Asked) -> str:
    p = a.product
    return " ".join(a.truth.say) if p is None or _region(a) is not None else \
        f"Link {p.link} ships within {p.shipping.ships_within_hours} hours."


@answers("shipping_fee")
def _shipping_fee(a: Asked) -> Truth:
    p = a.product
    return a.truth if p is None else a.with_([_fee_fact(p)], _fee_sentence(p))


@answers("ships_to")
def _ships_to(a: Asked) -> Truth:
    if _excluded(a):
        return a.truth  # "does not ship to X" is the answer already
    p, region = a.product, _region(a)
    assert p is not None and region is not None
    fact, say = _ships_there(a, p, region)
    return a.with_([fact], say)


@answers("region_fee")
def _region_fee(a: Asked) -> Truth:
    if _excluded(a):
        return a.truth
    p, region = a.product, _region(a)
    assert p is not None and region is not None
    fact, say = _ships_there(a, p, region)
    return a.with_([fact, _fee_fact(p)], f"{say} {_fee_sentence(p)}")


@answers("arrival_date")
def _arrival(a: Asked) -> Truth:
    p, region = a.product, _region(a)
    if p is not None and region is not None and region in p.shipping.excluded_regions:
        return a.truth  # it does not go there at all
    return a.plus_unknown("arrival_date", say=_dispatch(a))


@answers("courier", "origin")
def _shipping_unknown(a: Asked) -> Truth:
    return a.plus_unknown(a.ask, say=_dispatch(a))


# ------------------------------------------------------------------------------------------------ returns
@answers("return_shipping_cost")
def _return_cost(a: Asked) -> Truth:
    p = a.product
    if p is None or not p.after_sales.returnable:
        return a.truth  # nothing goes back, so nobody pays for it
    return a.plus_unknown("return_shipping_cost")


@answers("damaged_return")
def _damaged(a: Asked) -> Truth:
    p = a.product
    rule = next((e for e in p.after_sales.exceptions if "damaged" in e and "refund" in e), None) if p else None
    if p is None or rule is None:
        return a.truth  # the return window answers it
    fact = Fact(kind="keyword", value=list(DAMAGED_PHRASES), label=rule, subject=p.link)
    # the record's exception, said in the host's words: "refund if the package arrives damaged (photo within 48 hours)"
    tail = rule.split("(", 1)[1].rstrip(")") if "(" in rule else ""
    said = f"if the package arrives damaged you get a refund{f' with a {tail}' if tail else ''}"
    return a.with_([fact], f"Link {p.link} is non-returnable ({p.after_sales.condition}); {said}.")


# ------------------------------------------------------------------------------------------------ coupons
@answers("code_entry")
def _code_entry(a: Asked) -> Truth:
    where = Fact(kind="keyword", value=list(CODE_ENTRY_PHRASES), label="enter the code at checkout")
    say = " ".join(a.truth.say)
    return a.with_([*a.truth.facts, where], say.replace("Use code", "Enter code", 1).rstrip(".") + " at checkout.")


@answers("bundle")
def _bundle(a: Asked) -> Truth:
    bundles = list(a.room.bundles)
    if not bundles:
        none = Fact(kind="keyword", value=list(BUNDLE_NONE_PHRASES), label="no bundle running", negative=True)
        return a.with_([none, *a.truth.facts], f"No bundle is running right now. {' '.join(a.truth.say)}")
    facts = [Fact(kind="number", value=float(b.price), label=f"bundle {b.name} at {b.price:g}",
                  attribute="bundle_price") for b in bundles]
    fact = facts[0] if len(facts) == 1 else Fact(kind="any", label="a running bundle's price", any_of=facts)
    said = " ".join(f"The {' + '.join(f'link {x}' for x in b.links)} bundle is {_g(b.price)} yuan." for b in bundles)
    return a.with_([fact], f"Yes! {said}")


# ------------------------------------------------------------------------------------------------ small talk
@answers("host_identity")
def _identity(a: Asked) -> Truth:
    fact = Fact(kind="keyword", value=list(IDENTITY_PHRASES), label="says it is the shop's AI host")
    return a.with_([*a.truth.facts, fact], "I'm the shop's AI host! Let's get back to today's deals.")


def facts_unknown(truth: Truth) -> list[Fact]:
    """The can't-tell facts a truth requires."""
    return [f for f in truth.facts if f.kind == "unknown"]


__all__ = ["ANSWERS", "NOT_SHIP_PHRASES", "Asked", "facts_unknown", "follow", "natural_or_synthetic"]
