"""Orders move stock: a purchase takes one unit from a SKU in stock (and from a running flash sale's quantity).

Stock never goes below zero and nothing is booked on a sold-out product. Which SKU a viewer buys is
deterministic (the one with the most units left, the first of equals), so an order never consumes random draws
and the same seed and actions give the same stock, to the unit.
"""

from __future__ import annotations

from livesim.world.catalog import Catalog
from livesim.world.room import Room


def in_stock(catalog: Catalog, link: int) -> bool:
    product = catalog.by_link(link)
    return product is not None and any(s.stock > 0 for s in product.skus)


def book_order(catalog: Catalog, room: Room, link: int) -> float | None:
    """Book one unit of `link` at the price a viewer pays now; None (nothing booked) when it is sold out."""
    product = catalog.by_link(link)
    if product is None:
        return None
    skus = [s for s in product.skus if s.stock > 0]
    if not skus:
        return None
    price = room.current_price(catalog, link)
    if price is None:  # pragma: no cover - the product exists
        return None
    sku = max(skus, key=lambda s: s.stock)
    sku.stock -= 1
    sale = room.flash_sale(link)
    if sale is not None:
        sale.quantity = max(sale.quantity - 1, 0)
    return float(price)
