"""The host's tools: canonical implementations bound to stable keys, with schemas from their signatures.

Each tool is a small function `fn(ctx, **typed_args) -> dict`. Its argument model and JSON schema are
generated from the signature and the docstring's `Args:` section, never written by hand beside it. Domain
failures (unknown link, permission denied) come back as results with an error, never as exceptions.
"""

from __future__ import annotations

import inspect
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError, create_model

from livesim.world.catalog import Catalog, Product
from livesim.world.room import Room


@dataclass
class ToolContext:
    """What a tool can see and change: the world, and who is asking."""

    catalog: Catalog
    room: Room
    viewer: str = ""
    request_index: int = 0
    tickets: list[dict[str, Any]] = field(default_factory=list)


class ToolError(Exception):
    """A domain error a tool reports back to the host (kind: not_found, denied, invalid_args, ...)."""

    def __init__(self, kind: str, message: str) -> None:
        super().__init__(message)
        self.kind = kind
        self.message = message


@dataclass(frozen=True)
class ToolImpl:
    key: str
    description: str
    fn: Callable[..., dict[str, Any]]
    args_model: type[BaseModel]
    param_docs: dict[str, str]
    mutates: bool = False

    @property
    def params(self) -> list[str]:
        return list(self.args_model.model_fields)

    def json_schema(self) -> dict[str, Any]:
        """The canonical JSON schema of the arguments (titles stripped)."""
        schema = self.args_model.model_json_schema()
        schema.pop("title", None)
        for prop in schema.get("properties", {}).values():
            prop.pop("title", None)
            # Optional[X] renders as anyOf [X, null]; keep it, models handle it.
        schema["additionalProperties"] = False
        return schema


TOOL_IMPLS: dict[str, ToolImpl] = {}
_ARGS_RE = re.compile(r"^\s{4}(\w+):\s*(.+?)\s*$")


def _docs(fn: Callable[..., Any]) -> tuple[str, dict[str, str]]:
    doc = inspect.getdoc(fn) or ""
    summary, _, rest = doc.partition("\n\nArgs:")
    params = {}
    for line in rest.splitlines():
        m = _ARGS_RE.match(line)
        if m:
            params[m.group(1)] = m.group(2)
    return summary.strip(), params


ToolFn = Callable[..., dict[str, Any]]


def tool(key: str, *, mutates: bool = False) -> Callable[[ToolFn], ToolFn]:
    """Register `fn` as the canonical implementation of tool `key`, deriving its schema from the signature."""

    def deco(fn: ToolFn) -> ToolFn:
        summary, docs = _docs(fn)
        fields: dict[str, Any] = {}
        for name, p in list(inspect.signature(fn).parameters.items())[1:]:  # skip ctx
            if name not in docs:
                raise TypeError(f"tool {key}: parameter {name!r} has no 'Args:' doc line")
            default = ... if p.default is inspect.Parameter.empty else p.default
            fields[name] = (p.annotation, Field(default, description=docs[name]))
        model = create_model(f"{key}_args", __config__=ConfigDict(extra="forbid", strict=False), **fields)
        TOOL_IMPLS[key] = ToolImpl(key, summary, fn, model, docs, mutates)
        return fn

    return deco


def _product(ctx: ToolContext, link: int) -> Product:
    product = ctx.catalog.by_link(link)
    if product is None:
        raise ToolError("not_found", f"no product at link {link}; links in this room: {ctx.catalog.links}")
    return product


def _price_view(ctx: ToolContext, p: Product) -> dict[str, Any]:
    room = ctx.room
    current = room.current_price(ctx.catalog, p.link)
    assert current is not None
    fs = room.flash_sale(p.link)
    out: dict[str, Any] = {"link": p.link, "name": p.name, "list_price": p.list_price, "live_price": p.live_price,
                           "current_price": current}
    if fs:
        out["flash_sale"] = {"price": fs.price, "ends_at_s": fs.end_s, "remaining": fs.quantity}
    coupons = [c for c in room.active_coupons() if c.issuable and c.applies_to(p.link) and c.remaining > 0]
    out["coupons"] = [{"code": c.code, "discount": c.discount, "min_spend": c.threshold} for c in coupons]
    best = room.best_coupon(p.link, current)
    if best:
        out["price_with_best_coupon"] = current - best.discount
    return out


@tool("search_products")
def search_products(ctx: ToolContext, query: str, category: str | None = None,
                    max_price: float | None = None, limit: int = 5) -> dict[str, Any]:
    """Search the products in this live room by keywords, need or category.

    Args:
        query: Keywords, e.g. 'linen shirt' or 'gift for dry skin'.
        category: Optional category filter: apparel, beauty, electronics, food or home.
        max_price: Optional upper bound on the current price.
        limit: How many results to return at most (1-10).

    """
    words = {w for w in re.findall(r"[a-z]+", query.lower()) if len(w) > 2}
    scored = []
    for p in ctx.catalog.products:
        if category and p.category != category.lower().strip():
            continue
        price = ctx.room.current_price(ctx.catalog, p.link) or p.live_price
        if max_price is not None and price > max_price:
            continue
        text = " ".join([p.name, p.short_name, p.category, *p.tags, str(p.attributes)]).lower()
        score = sum(2 if w in p.short_name or any(w in t for t in p.tags) else 1 for w in words if w in text)
        if score or not words:
            scored.append((-score, p.link, p, price))
    scored.sort(key=lambda x: (x[0], x[1]))
    return {"results": [{"link": p.link, "name": p.name, "category": p.category, "current_price": price,
                         "suits": p.tags} for _, _, p, price in scored[: max(1, min(limit, 10))]]}


@tool("get_product")
def get_product(ctx: ToolContext, link: int) -> dict[str, Any]:
    """Get a product's details: name, category, attributes, variants and current price.

    Args:
        link: The product's link number in the live room.

    """
    p = _product(ctx, link)
    return {"link": p.link, "name": p.name, "brand": p.brand, "category": p.category, "attributes": p.attributes,
            "variants": [s.variant for s in p.skus], "suits": p.tags,
            "current_price": ctx.room.current_price(ctx.catalog, link)}


@tool("get_price")
def get_price(ctx: ToolContext, link: int) -> dict[str, Any]:
    """Get the list price, live price, any flash sale and the coupons that apply to a product.

    Args:
        link: The product's link number in the live room.

    """
    return _price_view(ctx, _product(ctx, link))


@tool("check_stock")
def check_stock(ctx: ToolContext, link: int, variant: str | None = None) -> dict[str, Any]:
    """Check stock for a product's variants (size, colour or option).

    Args:
        link: The product's link number in the live room.
        variant: Optional variant to check, e.g. 'L', 'black' or '256GB'.

    """
    p = _product(ctx, link)
    skus = p.sku_for(variant)
    if variant and not skus:
        raise ToolError("not_found", f"link {link} has no variant {variant!r}; variants: {[s.variant for s in p.skus]}")
    return {"link": link, "skus": [{"variant": s.variant, "in_stock": s.stock > 0, "stock": s.stock} for s in skus]}


@tool("recommend_size")
def recommend_size(ctx: ToolContext, link: int, height_cm: int, weight_kg: int) -> dict[str, Any]:
    """Recommend a clothing size from the product's size chart for a viewer's height and weight.

    Args:
        link: The product's link number in the live room.
        height_cm: The viewer's height in centimetres.
        weight_kg: The viewer's weight in kilograms.

    """
    p = _product(ctx, link)
    if not p.size_chart:
        raise ToolError("not_applicable", f"link {link} ({p.category}) has no size chart")
    if not (100 <= height_cm <= 230 and 25 <= weight_kg <= 200):
        raise ToolError("invalid_args", "height_cm must be 100-230 and weight_kg 25-200")
    return {"link": link, "recommended_size": p.recommend_size(height_cm, weight_kg),
            "size_chart": [{"size": r.size, "height_cm": list(r.height_cm), "weight_kg": list(r.weight_kg)}
                           for r in p.size_chart]}


@tool("get_shipping_policy")
def get_shipping_policy(ctx: ToolContext, link: int, region: str | None = None) -> dict[str, Any]:
    """Get shipping time, fees and regional exceptions for a product.

    Args:
        link: The product's link number in the live room.
        region: Optional destination region or province to check.

    """
    s = _product(ctx, link).shipping
    out: dict[str, Any] = {"link": link, "ships_within_hours": s.ships_within_hours, "fee": s.fee,
                           "free_shipping_over": s.free_over, "excluded_regions": s.excluded_regions,
                           "remote_regions_extra_days": s.remote_regions}
    if region:
        r = region.strip().lower()
        excluded = any(r == x.lower() for x in s.excluded_regions)
        extra = next((d for x, d in s.remote_regions.items() if x.lower() == r), 0)
        out["region"] = {"name": region, "ships_there": not excluded, "extra_days": extra}
    return out


@tool("get_after_sales_policy")
def get_after_sales_policy(ctx: ToolContext, link: int) -> dict[str, Any]:
    """Get the return window, return conditions, warranty and exceptions for a product.

    Args:
        link: The product's link number in the live room.

    """
    a = _product(ctx, link).after_sales
    return {"link": link, **a.model_dump()}


@tool("list_promotions")
def list_promotions(ctx: ToolContext) -> dict[str, Any]:
    """List the promotions running now: coupons, flash sales, bundles and gifts.

    Args:

    """
    room = ctx.room
    return {
        "coupons": [{"code": c.code, "discount": c.discount, "min_spend": c.threshold,
                     "links": c.links or "all", "host_can_issue": c.issuable and room.permissions.issue_coupons,
                     "remaining": c.remaining} for c in room.active_coupons()],
        "flash_sales": [{"link": f.link, "price": f.price, "ends_at_s": f.end_s, "remaining": f.quantity}
                        for f in room.flash_sales if f.active(room.clock_s)],
        "bundles": [b.model_dump() for b in room.bundles],
        "gifts": [g.model_dump() for g in room.gifts],
        "pinned_link": room.pinned_link,
    }


@tool("issue_coupon", mutates=True)
def issue_coupon(ctx: ToolContext, code: str, viewer: str) -> dict[str, Any]:
    """Issue a coupon to a viewer, if the current strategy allows it.

    Args:
        code: The coupon code to issue.
        viewer: The viewer's display name.

    """
    room = ctx.room
    c = room.coupon(code)
    if c is None:
        raise ToolError("not_found", f"no active coupon {code!r}")
    if not (room.permissions.issue_coupons and c.issuable):
        raise ToolError("denied", f"the current strategy does not allow issuing {c.code}")
    if c.remaining <= 0:
        raise ToolError("denied", f"{c.code} is all gone")
    given = room.issued.setdefault(c.code, [])
    if given.count(viewer) >= c.per_viewer_limit:
        raise ToolError("denied", f"{viewer} already has {c.code}")
    given.append(viewer)
    c.remaining -= 1
    return {"issued": c.code, "viewer": viewer, "discount": c.discount, "min_spend": c.threshold}


@tool("pin_product", mutates=True)
def pin_product(ctx: ToolContext, link: int) -> dict[str, Any]:
    """Pin a product at the top of the live room, if the strategy allows it.

    Args:
        link: The product's link number to pin.

    """
    _product(ctx, link)
    allowed = ctx.room.permissions.pin_links
    if allowed and link not in allowed:
        raise ToolError("denied", f"the current strategy only allows pinning links {allowed}")
    ctx.room.pinned_link = link
    return {"pinned_link": link}


@tool("set_price", mutates=True)
def set_price(ctx: ToolContext, link: int, price: float) -> dict[str, Any]:
    """Change a product's live price (operators only unless the strategy allows it).

    Args:
        link: The product's link number.
        price: The new live price.

    """
    p = _product(ctx, link)
    if not ctx.room.permissions.change_prices:
        raise ToolError("denied", "price changes are not allowed by the current strategy")
    if not 0 < price <= p.list_price:
        raise ToolError("invalid_args", f"price must be in (0, {p.list_price}]")
    p.live_price = float(price)
    return {"link": link, "live_price": p.live_price}


@tool("escalate_to_human", mutates=True)
def escalate_to_human(ctx: ToolContext, reason: str, viewer: str) -> dict[str, Any]:
    """Open a ticket so the human after-sales team contacts a viewer (complaints, orders, refunds).

    Args:
        reason: A short description of the problem.
        viewer: The viewer's display name.

    """
    ticket = {"ticket_id": f"T{ctx.request_index:04d}{len(ctx.tickets) + 1}", "viewer": viewer, "reason": reason}
    ctx.tickets.append(ticket)
    return {**ticket, "status": "opened", "team_will_contact_within_hours": 24}


@tool("compare_products")
def compare_products(ctx: ToolContext, link_a: int, link_b: int) -> dict[str, Any]:
    """Compare two products side by side: prices, category, key attributes and what they suit.

    Args:
        link_a: The first product's link number.
        link_b: The second product's link number.

    """
    out = []
    for link in (link_a, link_b):
        p = _product(ctx, link)
        out.append({**_price_view(ctx, p), "category": p.category, "attributes": p.attributes, "suits": p.tags})
    return {"products": out}


def validate_args(key: str, arguments: dict[str, Any]) -> dict[str, Any]:
    """Validate canonical arguments for tool `key`; raises ToolError('invalid_args') naming the problem."""
    impl = TOOL_IMPLS[key]
    try:
        return impl.args_model.model_validate(arguments).model_dump()
    except ValidationError as e:
        problems = "; ".join(f"{'.'.join(str(x) for x in err['loc']) or 'arguments'}: {err['msg']}"
                             for err in e.errors()[:4])
        raise ToolError("invalid_args", problems) from None


def run_tool(key: str, ctx: ToolContext, arguments: dict[str, Any]) -> dict[str, Any]:
    """Validate and run a canonical tool; domain errors raise ToolError (the caller grades them)."""
    args = validate_args(key, arguments)
    return TOOL_IMPLS[key].fn(ctx, **args)
