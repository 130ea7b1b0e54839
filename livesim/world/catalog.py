"""The product catalogue: five categories with their own attributes, SKUs, prices and after-sales rules.

`generate_catalog(rng, n)` draws a catalogue from a seed (names from a seeded Faker); a catalogue can also be
loaded from a file through the pydantic models. Every fact a reply may state lives here.
"""

from __future__ import annotations

from typing import Any, Literal

import numpy as np
from faker import Faker
from pydantic import BaseModel, ConfigDict, Field

from livesim.world.draws import FakerLastName, pick, sample_without_replacement

Category = Literal["apparel", "beauty", "electronics", "food", "home"]
CATEGORIES: tuple[str, ...] = ("apparel", "beauty", "electronics", "food", "home")
SIZES: tuple[str, ...] = ("XS", "S", "M", "L", "XL", "XXL")


class _Model(BaseModel):
    model_config = ConfigDict(extra="forbid")


class SKU(_Model):
    """One purchasable variant with its own stock."""

    sku_id: str
    variant: str = Field(description="Human label, e.g. 'M / black' or '256GB'.")
    size: str | None = None
    colour: str | None = None
    option: str | None = None
    stock: int = Field(ge=0)


class SizeRow(_Model):
    """A row of an apparel size chart: the size that fits a height and weight range."""

    size: str
    height_cm: tuple[int, int]
    weight_kg: tuple[int, int]


class ShippingRule(_Model):
    ships_within_hours: int = Field(description="Dispatch time after payment.")
    fee: float = Field(description="Shipping fee below the free-shipping threshold.")
    free_over: float = Field(description="Order total from which shipping is free.")
    excluded_regions: list[str] = Field(default_factory=list, description="Regions it does not ship to.")
    remote_regions: dict[str, int] = Field(default_factory=dict, description="Region -> extra days.")


class AfterSalesRule(_Model):
    returnable: bool
    return_days: int = Field(0, description="No-reason return window in days (0 if not returnable).")
    condition: str = Field("", description="Condition for a return, e.g. 'unopened'.")
    warranty_months: int = 0
    exceptions: list[str] = Field(default_factory=list)


class Product(_Model):
    """A product in the live room, addressed by viewers as 'link N'."""

    link: int = Field(ge=1)
    product_id: str
    name: str
    short_name: str = Field(description="How viewers refer to it, e.g. 'linen shirt'.")
    brand: str
    category: Category
    list_price: float
    live_price: float
    attributes: dict[str, Any]
    skus: list[SKU]
    size_chart: list[SizeRow] | None = None
    shipping: ShippingRule
    after_sales: AfterSalesRule
    tags: list[str] = Field(default_factory=list, description="Needs it suits, used by recommendation.")

    def sku_for(self, variant: str | None) -> list[SKU]:
        """SKUs matching a free-text variant ('size L', 'black', '256GB'); all SKUs if None."""
        if not variant:
            return list(self.skus)
        v = variant.lower().replace("size", "").strip()
        out = [
            s
            for s in self.skus
            if v in {str(x).lower() for x in (s.size, s.colour, s.option) if x} or v == s.variant.lower()
        ]
        return out

    def recommend_size(self, height_cm: float, weight_kg: float) -> str | None:
        """The chart size for a body: the larger of the height-based and the weight-based sizes."""
        if not self.size_chart:
            return None
        order = [r.size for r in self.size_chart]

        def pick(value: float, attr: str) -> int:
            for i, row in enumerate(self.size_chart or []):
                lo, hi = getattr(row, attr)
                if value <= hi:
                    return i
            return len(order) - 1

        return order[max(pick(height_cm, "height_cm"), pick(weight_kg, "weight_kg"))]

    def aspect_facts(self, aspect: str) -> dict[str, Any]:
        """The attribute values that answer a spec question about `aspect` (empty if not applicable)."""
        key = ASPECT_KEYS.get(aspect, aspect)
        if isinstance(key, tuple):
            return {k: self.attributes[k] for k in key if k in self.attributes}
        return {key: self.attributes[key]} if key in self.attributes else {}


class Catalog(_Model):
    products: list[Product]

    def by_link(self, link: int) -> Product | None:
        for p in self.products:
            if p.link == link:
                return p
        return None

    @property
    def links(self) -> list[int]:
        return [p.link for p in self.products]


# Which attribute keys answer which spec aspect (see livesim.world.phrasing.SPEC_ASPECTS).
ASPECT_KEYS: dict[str, str | tuple[str, ...]] = {
    "material": "material",
    "ingredients": "ingredients",
    "skin_type": "skin_type",
    "volume": "volume_ml",
    "shelf_life": "shelf_life_months",
    "battery": "battery_hours",
    "warranty": "warranty_months",
    "compatibility": "compatibility",
    "specs": ("battery_mah", "charging_w", "weight_g"),
    "allergens": "allergens",
    "flavour": "flavour",
    "weight": "net_weight_g",
    "expiry": "shelf_life_days",
    "dimensions": "dimensions_cm",
    "colours": "colours",
    "care": "care",
}

# The aspects a viewer can ask about, per category.
CATEGORY_ASPECTS: dict[str, tuple[str, ...]] = {
    "apparel": ("material", "colours", "care"),
    "beauty": ("ingredients", "skin_type", "volume", "shelf_life"),
    "electronics": ("battery", "warranty", "compatibility", "specs"),
    "food": ("allergens", "flavour", "weight", "expiry"),
    "home": ("dimensions", "material", "care", "colours"),
}

_ITEMS: dict[str, list[tuple[str, list[str]]]] = {
    "apparel": [
        ("linen shirt", ["summer", "office", "breathable"]),
        ("hoodie", ["casual", "winter", "gift"]),
        ("denim jacket", ["casual", "spring"]),
        ("pleated skirt", ["office", "summer"]),
        ("down jacket", ["winter", "cold weather", "outdoor"]),
        ("yoga leggings", ["sport", "running", "gym"]),
        ("wool sweater", ["winter", "gift", "cold weather"]),
        ("cargo pants", ["outdoor", "casual"]),
        ("cotton t-shirt", ["summer", "casual", "breathable"]),
        ("trench coat", ["spring", "office"]),
    ],
    "beauty": [
        ("hydrating serum", ["dry skin", "gift"]),
        ("mineral sunscreen", ["sensitive skin", "summer", "outdoor"]),
        ("clay mask", ["oily skin"]),
        ("cleansing oil", ["dry skin", "makeup removal"]),
        ("night cream", ["dry skin", "gift"]),
        ("lip tint", ["gift", "makeup"]),
        ("calming toner", ["sensitive skin", "oily skin"]),
        ("eye cream", ["gift", "dry skin"]),
    ],
    "electronics": [
        ("wireless earbuds", ["running", "commute", "gift"]),
        ("power bank", ["travel", "commute"]),
        ("smart watch", ["running", "sport", "gift"]),
        ("bluetooth speaker", ["outdoor", "party"]),
        ("mechanical keyboard", ["office", "gaming"]),
        ("action camera", ["travel", "outdoor", "sport"]),
        ("e-reader", ["travel", "gift", "reading"]),
    ],
    "food": [
        ("beef jerky", ["snack", "high protein", "sport"]),
        ("mixed nuts", ["snack", "healthy snack", "gift"]),
        ("matcha cookies", ["snack", "gift", "tea time"]),
        ("dried mango", ["snack", "healthy snack"]),
        ("dark chocolate", ["gift", "snack"]),
        ("coffee beans", ["office", "gift", "morning"]),
        ("wildflower honey", ["healthy snack", "gift", "tea time"]),
    ],
    "home": [
        ("throw blanket", ["winter", "gift", "cozy"]),
        ("storage box", ["organising", "small apartment"]),
        ("ceramic mug set", ["gift", "tea time", "kitchen"]),
        ("desk lamp", ["office", "reading"]),
        ("bamboo cutting board", ["kitchen"]),
        ("memory foam pillow", ["sleep", "gift"]),
        ("aroma diffuser", ["sleep", "cozy", "gift"]),
    ],
}

# The needs the catalogue tags products with (what a recommendation asks for: "anything for summer?")
ITEM_KINDS: tuple[str, ...] = tuple(name for items in _ITEMS.values() for name, _ in items)  # what a product may be
NEED_TAGS: tuple[str, ...] = tuple(sorted({t for items in _ITEMS.values() for _, tags in items for t in tags}))

# Materials (apparel, home) and flavours (food) that make sense for each item.
_FITTING: dict[str, list[str]] = {
    "linen shirt": ["linen"], "hoodie": ["cotton", "polyester"], "denim jacket": ["denim"],
    "pleated skirt": ["polyester", "chiffon"], "down jacket": ["nylon", "polyester"],
    "yoga leggings": ["nylon", "spandex"], "wool sweater": ["wool", "cashmere"], "cargo pants": ["cotton"],
    "cotton t-shirt": ["cotton"], "trench coat": ["cotton", "polyester"],
    "beef jerky": ["original", "spicy", "black pepper"], "mixed nuts": ["sea salt", "honey roasted", "original"],
    "matcha cookies": ["matcha"], "dried mango": ["classic", "chili lime"], "dark chocolate": ["sea salt", "classic"],
    "coffee beans": ["dark roast", "medium roast"], "wildflower honey": ["wildflower"],
    "throw blanket": ["cotton", "fleece"], "storage box": ["polypropylene", "bamboo"], "ceramic mug set": ["ceramic"],
    "desk lamp": ["aluminium"], "bamboo cutting board": ["bamboo"], "memory foam pillow": ["memory foam"],
    "aroma diffuser": ["glass", "ceramic"],
}
_COLOURS = ["black", "white", "navy", "beige", "grey", "olive", "pink", "brown", "red", "sky blue"]
_REGIONS_EXCLUDED = ["Xinjiang", "Tibet", "Hong Kong", "Macau", "Taiwan"]
_REGIONS_REMOTE = ["Hainan", "Qinghai", "Inner Mongolia", "Ningxia", "Gansu"]
REGIONS: tuple[str, ...] = (
    "Shanghai", "Beijing", "Guangdong", "Zhejiang", "Sichuan", "Jiangsu", "Hubei", "Fujian",
    *_REGIONS_REMOTE, *_REGIONS_EXCLUDED,
)
_SIZE_HEIGHTS = {"XS": (150, 158), "S": (159, 165), "M": (166, 172), "L": (173, 178), "XL": (179, 184),
                 "XXL": (185, 195)}
_SIZE_WEIGHTS = {"XS": (38, 47), "S": (48, 55), "M": (56, 64), "L": (65, 73), "XL": (74, 83),
                 "XXL": (84, 100)}


_LAST_NAME = FakerLastName()


def _sample(rng: np.random.Generator, seq: list[Any] | tuple[Any, ...], k: int) -> list[Any]:
    # the draws of rng.choice(len(seq), size=min(k, len(seq)), replace=False), made cheaper (livesim.world.draws)
    idx = sample_without_replacement(rng, len(seq), min(k, len(seq)))
    return [seq[i] for i in sorted(idx)]


def _price(rng: np.random.Generator, lo: int, hi: int) -> tuple[float, float]:
    """A list price ending in 9 and a live price 10-45% below it, also ending in 9."""
    list_price = float(int(rng.integers(lo, hi)) // 10 * 10 + 9)
    cut = 0.10 + (0.45 - 0.10) * rng.random()  # == rng.uniform(0.10, 0.45)
    live = float(max(9, int(list_price * (1 - cut)) // 10 * 10 + 9))
    return list_price, min(live, list_price - 10)


def _attributes(category: str, item: str, rng: np.random.Generator) -> dict[str, Any]:
    if category == "apparel":
        fabric = pick(rng, _FITTING.get(item, ["cotton", "polyester", "modal"]))
        return {
            "material": f"{int(pick(rng, [60, 70, 80, 95, 100]))}% {fabric}",
            "colours": _sample(rng, _COLOURS, int(rng.integers(2, 5))),
            "care": pick(rng, ["machine wash cold", "hand wash only", "dry clean only", "machine wash warm"]),
            "fit": pick(rng, ["regular fit", "slim fit", "loose fit"]),
        }
    if category == "beauty":
        return {
            "ingredients": _sample(rng, ["hyaluronic acid", "niacinamide", "ceramides", "vitamin C", "squalane",
                                         "zinc oxide", "green tea extract", "panthenol", "kaolin clay"], 3),
            "skin_type": pick(rng, ["dry skin", "oily skin", "sensitive skin", "all skin types",
                                       "combination skin"]),
            "volume_ml": int(pick(rng, [15, 30, 50, 100, 150, 200])),
            "shelf_life_months": int(pick(rng, [12, 24, 36])),
            "fragrance_free": bool(rng.random() < 0.5),
        }
    if category == "electronics":
        return {
            "battery_hours": int(pick(rng, [8, 10, 12, 20, 30, 48])),
            "battery_mah": int(pick(rng, [500, 1200, 3000, 5000, 10000, 20000])),
            "charging_w": int(pick(rng, [10, 18, 20, 30, 65])),
            "weight_g": int(rng.integers(20, 600)),
            "warranty_months": int(pick(rng, [6, 12, 24])),
            "compatibility": _sample(rng, ["iOS", "Android", "Windows", "macOS", "HarmonyOS"], 2),
        }
    if category == "food":
        return {
            "net_weight_g": int(pick(rng, [100, 150, 200, 250, 500, 1000])),
            "flavour": pick(rng, _FITTING.get(item, ["original", "classic"])),
            "allergens": _sample(rng, ["peanuts", "tree nuts", "milk", "soy", "wheat", "eggs", "sesame"],
                                 int(rng.integers(0, 3))) or ["none"],
            "shelf_life_days": int(pick(rng, [90, 180, 270, 365])),
            "storage": pick(rng, ["keep in a cool dry place", "refrigerate after opening"]),
        }
    # home
    a, b, c = (int(rng.integers(10, 80)) for _ in range(3))
    return {
        "dimensions_cm": [a, b, c],
        "material": pick(rng, _FITTING.get(item, ["polyester", "cotton"])),
        "colours": _sample(rng, _COLOURS, int(rng.integers(1, 4))),
        "care": pick(rng, ["wipe clean", "machine wash cold", "dishwasher safe", "hand wash only"]),
    }


def _skus(category: str, attrs: dict[str, Any], pid: str, rng: np.random.Generator) -> list[dict[str, Any]]:
    def stock() -> int:
        # about one SKU in six is sold out, one in six nearly gone
        r = rng.random()
        return 0 if r < 1 / 6 else int(rng.integers(1, 6)) if r < 2 / 6 else int(rng.integers(20, 500))

    out: list[dict[str, Any]] = []
    if category == "apparel":
        colours = attrs["colours"][:2]
        for colour in colours:
            for size in SIZES[1:5]:
                out.append(dict(sku_id=f"{pid}-{size}-{colour[:3]}", variant=f"{size} / {colour}", size=size,
                               colour=colour, stock=stock()))
    elif category == "electronics":
        for opt in _sample(rng, ["standard", "pro", "black", "white", "128GB", "256GB"], 2):
            out.append(dict(sku_id=f"{pid}-{opt}", variant=opt, option=opt, stock=stock()))
    elif category == "food":
        out.append(dict(sku_id=f"{pid}-1", variant=attrs["flavour"], option=attrs["flavour"], stock=stock()))
        out.append(dict(sku_id=f"{pid}-2", variant="family pack", option="family pack", stock=stock()))
    else:
        for colour in attrs.get("colours", ["standard"])[:3]:
            out.append(dict(sku_id=f"{pid}-{colour[:3]}", variant=colour, colour=colour, stock=stock()))
    return out


def _after_sales(category: str, rng: np.random.Generator, attrs: dict[str, Any]) -> dict[str, Any]:
    if category == "food":
        return dict(returnable=False, condition="perishable goods",
                              exceptions=["refund if the package arrives damaged (photo within 48 hours)"])
    if category == "beauty":
        return dict(returnable=True, return_days=int(pick(rng, [7, 15])), condition="unopened",
                              exceptions=["opened products cannot be returned"])
    if category == "electronics":
        return dict(returnable=True, return_days=int(pick(rng, [7, 15, 30])),
                              condition="with all accessories", warranty_months=attrs["warranty_months"],
                              exceptions=["physical damage is not covered by warranty"])
    return dict(returnable=True, return_days=int(pick(rng, [7, 15, 30])),
                          condition="tags attached, unworn" if category == "apparel" else "unused",
                          exceptions=[])


def generate_catalog(rng: np.random.Generator, n_products: int = 8, faker: Faker | None = None) -> Catalog:
    """Draw a catalogue of `n_products` (covering every category when n >= 5) from `rng`."""
    if n_products < 1:
        raise ValueError(f"n_products must be >= 1, got {n_products}")
    fake = faker or Faker("en_US")
    if faker is None:
        fake.seed_instance(int(rng.integers(2**31)))
    cats = list(CATEGORIES) * (n_products // len(CATEGORIES) + 1)
    order = rng.permutation(len(CATEGORIES))
    cats = [CATEGORIES[int(order[i % len(CATEGORIES)])] for i in range(n_products)]
    used: set[str] = set()
    products: list[dict[str, Any]] = []
    # Faker's en_US last_name() without rebuilding its weights per call (the same draws from fake.random)
    last_name = _LAST_NAME if getattr(fake, "locales", None) == ["en_US"] else (lambda f: f.last_name())
    for i, cat in enumerate(cats):
        choices = [it for it in _ITEMS[cat] if it[0] not in used] or _ITEMS[cat]
        item, tags = pick(rng, choices)
        used.add(item)
        pid = f"P{int(rng.integers(10000, 99999))}"
        brand = last_name(fake) + pick(rng, [" Studio", " & Co", " Lab", " Home", " Goods", ""])
        attrs = _attributes(cat, item, rng)
        lo, hi = {"apparel": (99, 600), "beauty": (79, 500), "electronics": (129, 1500), "food": (29, 160),
                  "home": (49, 400)}[cat]
        list_price, live_price = _price(rng, lo, hi)
        excluded = _sample(rng, _REGIONS_EXCLUDED, int(rng.integers(1, 3)))
        remote = {r: int(rng.integers(2, 5)) for r in _sample(rng, _REGIONS_REMOTE, 2)}
        products.append(dict(
            link=i + 1,
            product_id=pid,
            name=f"{brand} {item.title()}",
            short_name=item,
            brand=brand,
            category=cat,
            list_price=list_price,
            live_price=live_price,
            attributes=attrs,
            skus=_skus(cat, attrs, pid, rng),
            size_chart=[dict(size=s, height_cm=_SIZE_HEIGHTS[s], weight_kg=_SIZE_WEIGHTS[s]) for s in SIZES]
            if cat == "apparel" else None,
            shipping=dict(ships_within_hours=int(pick(rng, [24, 48, 72])),
                                  fee=float(pick(rng, [6, 8, 10])), free_over=float(pick(rng, [59, 99, 199])),
                                  excluded_regions=excluded,
                                  remote_regions=remote),
            after_sales=_after_sales(cat, rng, attrs),
            tags=list(tags),
        ))
    # one validation of the whole tree: several times faster than a constructor call per nested model
    return Catalog.model_validate({"products": products})
