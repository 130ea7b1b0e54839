"""The live room: pinned product, promotions (coupons, flash sales, bundles, gifts) and the strategy timeline.

A strategy is a timed marketing plan; its events change the room and the harness's strategy skills while the
stream runs, and its permissions decide what the host's tools may do (which coupons may be issued, whether
the pin may change). Everything is keyed to the simulated clock in seconds.
"""

from __future__ import annotations

from typing import Any, Literal

import numpy as np
from pydantic import BaseModel, ConfigDict, Field

from livesim.world.catalog import Catalog
from livesim.world.draws import pick


class _Model(BaseModel):
    model_config = ConfigDict(extra="forbid")


class Coupon(_Model):
    code: str
    discount: float = Field(description="Amount off in yuan.")
    threshold: float = Field(description="Minimum order total for the coupon to apply.")
    expires_at_s: float = Field(description="Stream time (s) at which the coupon expires.")
    per_viewer_limit: int = 1
    remaining: int = Field(ge=0, description="How many can still be issued.")
    links: list[int] = Field(default_factory=list, description="Links it applies to; empty means all.")
    issuable: bool = Field(True, description="Whether the host may issue it on request (strategy permission).")

    def applies_to(self, link: int) -> bool:
        return not self.links or link in self.links


class FlashSale(_Model):
    link: int
    price: float
    start_s: float
    end_s: float
    quantity: int = Field(ge=0)

    def active(self, t: float) -> bool:
        return self.start_s <= t < self.end_s and self.quantity > 0


class Bundle(_Model):
    name: str
    links: list[int]
    price: float


class Gift(_Model):
    link: int
    gift: str
    threshold: float = 0.0


class Permissions(_Model):
    """What the strategy lets the host's tools do."""

    issue_coupons: bool = True
    pin_links: list[int] = Field(default_factory=list, description="Links the host may pin; empty means any.")
    change_prices: bool = False
    max_extra_discount: float = Field(default=0.0, ge=0, le=1, description="How far below the opening live price "
                                      "`set_price` may go, as a fraction (0.1: 10%).")


class StrategyEvent(_Model):
    """One timed step of a marketing plan."""

    at_s: float = Field(ge=0)
    kind: Literal["pin", "flash_sale", "add_coupon", "expire_coupon", "bundle", "gift", "activate_skill",
                  "deactivate_skill", "permissions", "tone"]
    params: dict[str, Any] = Field(default_factory=dict)


class Room(_Model):
    """Mutable state of the live room (the catalogue is shared, not copied)."""

    pinned_link: int
    coupons: list[Coupon] = Field(default_factory=list)
    flash_sales: list[FlashSale] = Field(default_factory=list)
    bundles: list[Bundle] = Field(default_factory=list)
    gifts: list[Gift] = Field(default_factory=list)
    permissions: Permissions = Field(default_factory=Permissions)
    active_strategy_skills: list[str] = Field(default_factory=list)
    tone: str = "warm and upbeat"
    viewers_online: int = 0
    clock_s: float = 0.0
    issued: dict[str, list[str]] = Field(default_factory=dict, description="coupon code -> viewers issued to")

    def active_coupons(self) -> list[Coupon]:
        return [c for c in self.coupons if c.expires_at_s > self.clock_s]

    def coupon(self, code: str) -> Coupon | None:
        for c in self.active_coupons():
            if c.code.upper() == code.strip().upper():
                return c
        return None

    def flash_sale(self, link: int) -> FlashSale | None:
        for f in self.flash_sales:
            if f.link == link and f.active(self.clock_s):
                return f
        return None

    def current_price(self, catalog: Catalog, link: int) -> float | None:
        """The price a viewer pays now, before coupons: flash-sale price if one runs, else the live price."""
        product = catalog.by_link(link)
        if product is None:
            return None
        fs = self.flash_sale(link)
        return fs.price if fs else product.live_price

    def best_coupon(self, link: int, price: float) -> Coupon | None:
        """The issuable active coupon that saves most on one unit of `link` (ties: lowest threshold)."""
        best = None
        for c in self.active_coupons():
            if not (c.issuable and c.remaining > 0 and c.applies_to(link) and price >= c.threshold):
                continue
            if best is None or (c.discount, -c.threshold) > (best.discount, -best.threshold):
                best = c
        return best

    def apply(self, event: StrategyEvent, catalog: Catalog) -> None:
        """Apply one strategy event to the room."""
        p = event.params
        if event.kind == "pin":
            self.pinned_link = int(p["link"])
        elif event.kind == "flash_sale":
            self.flash_sales.append(FlashSale(start_s=event.at_s, **p))
        elif event.kind == "add_coupon":
            self.coupons.append(Coupon(**p))
        elif event.kind == "expire_coupon":
            for c in self.coupons:
                if c.code == p["code"]:
                    c.expires_at_s = min(c.expires_at_s, event.at_s)
        elif event.kind == "bundle":
            self.bundles.append(Bundle(**p))
        elif event.kind == "gift":
            self.gifts.append(Gift(**p))
        elif event.kind == "activate_skill":
            if p["skill"] not in self.active_strategy_skills:
                self.active_strategy_skills.append(p["skill"])
        elif event.kind == "deactivate_skill":
            self.active_strategy_skills = [s for s in self.active_strategy_skills if s != p["skill"]]
        elif event.kind == "permissions":
            self.permissions = self.permissions.model_copy(update=p)
        elif event.kind == "tone":
            self.tone = str(p["tone"])


def _code(rng: np.random.Generator, stem: str) -> str:
    return f"{stem}{int(rng.integers(1, 10)) * 5 + int(rng.integers(0, 5))}"


def generate_strategy(rng: np.random.Generator, catalog: Catalog, duration_s: float) -> list[StrategyEvent]:
    """Draw a marketing plan: opening pin and coupon, a mid-stream push with a flash sale, a bundle, a gift."""
    links = catalog.links
    order = [int(x) for x in rng.permutation(links)]
    push = order[0]
    events = [
        StrategyEvent(at_s=0, kind="pin", params={"link": order[-1]}),
        StrategyEvent(at_s=0, kind="activate_skill", params={"skill": "welcome-new-viewers"}),
        StrategyEvent(at_s=0, kind="add_coupon", params={
            "code": _code(rng, "LIVE"), "discount": float(pick(rng, (10, 20, 30))),
            "threshold": float(pick(rng, (99, 149, 199))), "expires_at_s": float(duration_s * 2),
            "remaining": int(rng.integers(50, 300))}),
        StrategyEvent(at_s=0, kind="add_coupon", params={
            "code": _code(rng, "VIP"), "discount": float(pick(rng, (50, 80))),
            "threshold": float(pick(rng, (399, 499))),
            "expires_at_s": float(duration_s * 2), "remaining": 20, "issuable": False}),
    ]
    t_push = float(round(duration_s * rng.uniform(0.2, 0.4)))
    product = catalog.by_link(push)
    assert product is not None
    events += [
        StrategyEvent(at_s=t_push, kind="pin", params={"link": push}),
        StrategyEvent(at_s=t_push, kind="activate_skill", params={"skill": "flash-sale-push"}),
        StrategyEvent(at_s=t_push, kind="flash_sale", params={
            "link": push, "price": float(int(product.live_price * 0.8) // 10 * 10 + 9),
            "end_s": t_push + float(round(duration_s * 0.25)), "quantity": int(rng.integers(50, 200))}),
        StrategyEvent(at_s=t_push + float(round(duration_s * 0.25)), kind="deactivate_skill",
                      params={"skill": "flash-sale-push"}),
    ]
    if len(order) >= 3:
        a, b = sorted(order[1:3])
        pa, pb = catalog.by_link(a), catalog.by_link(b)
        assert pa is not None and pb is not None
        t_bundle = float(round(duration_s * rng.uniform(0.5, 0.7)))
        events += [
            StrategyEvent(at_s=t_bundle, kind="bundle", params={
                "name": f"{pa.short_name} + {pb.short_name} set", "links": [a, b],
                "price": float(int((pa.live_price + pb.live_price) * 0.85) // 10 * 10 + 9)}),
            StrategyEvent(at_s=t_bundle, kind="activate_skill", params={"skill": "bundle-upsell"}),
            StrategyEvent(at_s=t_bundle, kind="add_coupon", params={
                "code": _code(rng, "BUNDLE"), "discount": 15.0, "threshold": 0.0,
                "expires_at_s": float(duration_s * 2), "remaining": 100, "links": [a, b]}),
        ]
    events.append(StrategyEvent(at_s=float(round(duration_s * 0.1)), kind="gift", params={
        "link": order[1 % len(order)], "gift": "a free tote bag", "threshold": 0.0}))
    return sorted(events, key=lambda e: e.at_s)
