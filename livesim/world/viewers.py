"""Viewers: a seeded population with personas, budgets, interests and patience, and how they react.

Reactions turn a graded reply into the simulator's A/B metrics: satisfaction, churn, item-page views (IPV)
and purchases (GMV). Reactions draw from their own generator, so an agent's replies never change which
requests arrive later.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import Any, Literal

import numpy as np
from faker import Faker
from faker.providers.person.en_US import Provider
from pydantic import BaseModel, ConfigDict, Field

from livesim.world.catalog import CATEGORIES, REGIONS
from livesim.world.draws import WeightedIndex, sample_without_replacement

Persona = Literal["price_sensitive", "quality_focused", "impulsive", "sceptical", "troll", "returning_buyer"]
PERSONAS: tuple[str, ...] = ("price_sensitive", "quality_focused", "impulsive", "sceptical", "troll",
                             "returning_buyer")
# Share of each persona in a population, and the intents each persona tends to ask about (weights).
PERSONA_WEIGHTS = np.array([0.26, 0.2, 0.18, 0.14, 0.07, 0.15])
_PERSONA_INDEX = WeightedIndex(PERSONA_WEIGHTS)  # == rng.choice(len(PERSONAS), p=PERSONA_WEIGHTS)
PERSONA_INTENTS: dict[str, dict[str, float]] = {
    "price_sensitive": {"price": 4, "coupon": 4, "comparison": 2, "unauthorized_discount": 1.5, "shipping": 1.5,
                        "stock_variant": 1, "how_to_buy": 1, "greeting": 1},
    "quality_focused": {"spec_material": 5, "comparison": 2, "returns": 1.5, "size_advice": 2, "recommendation": 2,
                        "compliance_bait": 1, "price": 1},
    "impulsive": {"how_to_buy": 3, "stock_variant": 3, "price": 2, "size_advice": 2, "greeting": 2, "coupon": 1,
                  "recommendation": 1},
    "sceptical": {"compliance_bait": 3, "returns": 2, "spec_material": 2, "shipping": 1, "off_topic": 1},
    "troll": {"prompt_injection": 5, "off_topic": 3, "unauthorized_discount": 2, "compliance_bait": 1},
    "returning_buyer": {"complaint": 4, "returns": 2, "shipping": 2, "greeting": 1, "recommendation": 1},
}


class Viewer(BaseModel):
    model_config = ConfigDict(extra="forbid")

    viewer_id: str
    name: str
    persona: Persona
    budget: float = Field(description="Most they would spend on one order, in yuan.")
    interests: list[str]
    patience_s: float = Field(description="How long they wait for an answer before leaving.")
    region: str
    height_cm: int
    weight_kg: int
    satisfaction: float = 0.5
    active: bool = True


_FIRST_NAMES: tuple[str, ...] = ()


def _first_names() -> tuple[str, ...]:
    """Faker's en_US first names, in a fixed order (drawing from this list is ~100x faster than Faker calls)."""
    global _FIRST_NAMES
    if not _FIRST_NAMES:
        _FIRST_NAMES = tuple(sorted(Provider.first_names))
    return _FIRST_NAMES


def generate_viewers(rng: np.random.Generator, n: int, faker: Faker | None = None) -> list[Viewer]:
    """Draw `n` viewers with display names from Faker's name list, all choices drawn from `rng`.

    The draws are those of the original scalar numpy calls (`choice` with `p`, `clip`, `choice` without
    replacement, `uniform`), made through exact cheaper equivalents (`livesim.world.draws`): same seed, same viewers.
    """
    return [draw_viewer(rng, i) for i in range(n)]


class PrefixViewers(Sequence[Viewer]):
    """The v0 viewer population, drawn in order from the world's generator only as far as it is looked up.

    `generate_viewers(rng, n)` draws viewer 0, 1, ... from one generator; looking up viewer `i` here draws the
    viewers up to `i` that are not drawn yet, in the same order from the same generator, so every viewer is
    the one `generate_viewers` gives (the world's generator must not be drawn from by anything else after the
    viewers; a v0 world draws them last). A `LiveStreamQA` request looks at one or two viewers, so it draws
    about half of them on average; the ones it passes over keep their drawn fields and become `Viewer` objects
    only when looked up. A viewer not looked up yet has not left (`active_count`).
    """

    def __init__(self, rng: np.random.Generator, n: int) -> None:
        self._rng = rng
        self._n = n
        self._drawn: list[tuple[Any, ...]] = []  # the fields of viewers 0..k-1, in draw order
        self._built: dict[int, Viewer] = {}

    def __len__(self) -> int:
        return self._n

    def __getitem__(self, i: Any) -> Any:
        if isinstance(i, slice):
            return [self[j] for j in range(*i.indices(self._n))]
        i = int(i)
        if i < 0:
            i += self._n
        if not 0 <= i < self._n:
            raise IndexError(f"viewer index {i} out of range (0..{self._n - 1})")
        v = self._built.get(i)
        if v is None:
            drawn = self._drawn
            while len(drawn) <= i:
                drawn.append(_draw_fields(self._rng))
            v = self._built[i] = _make_viewer(i, drawn[i])
        return v

    def __iter__(self) -> Iterator[Viewer]:
        for i in range(self._n):
            yield self[i]

    def drawn_count(self) -> int:
        """How many viewers have been drawn from the generator (looked up or passed over)."""
        return len(self._drawn)

    def active_count(self) -> int:
        """Active viewers; one not looked up yet has not left."""
        return self._n - sum(1 for v in self._built.values() if not v.active)


def draw_viewer(rng: np.random.Generator, i: int) -> Viewer:
    """Viewer `i`, drawn from `rng` (the v0 world draws all of them from one generator, in order)."""
    return _make_viewer(i, _draw_fields(rng))


def _draw_fields(rng: np.random.Generator) -> tuple[Any, ...]:
    """A viewer's drawn fields, in draw order (what `draw_viewer` draws, without building the model)."""
    names = _first_names()
    integers, random, normal = rng.integers, rng.random, rng.normal
    persona = _PERSONA_INDEX(rng)
    height = normal(168, 9)
    bmi = float(normal(21.5, 2.5))
    first = names[int(integers(len(names)))]
    r = random()
    handle = first if r < 0.5 else (first, int(integers(1, 100))) if r < 0.8 else \
        (first, names[int(integers(len(names)))])
    budget = rng.lognormal(5.3, 0.7)
    interests = sample_without_replacement(rng, len(CATEGORIES), 2)
    patience = random()
    region = int(integers(len(REGIONS)))
    return persona, height, bmi, handle, budget, interests, patience, region


def _make_viewer(i: int, fields: tuple[Any, ...]) -> Viewer:
    persona, height_drawn, bmi, handle, budget, interests, patience, region = fields
    height = int(min(max(height_drawn, 150), 195))
    weight = int(min(max(bmi * (height / 100) ** 2, 40), 100))
    name = handle if isinstance(handle, str) else f"{handle[0].lower()}{handle[1]}" if isinstance(handle[1], int) \
        else f"{handle[0].lower()}_{handle[1][:3].lower()}"
    return Viewer.model_construct(
        viewer_id=f"v{i:04d}",
        name=name,
        persona=PERSONAS[persona],  # type: ignore[arg-type]
        budget=float(round(budget)),
        interests=[CATEGORIES[j] for j in interests],
        patience_s=10.0 + 30.0 * patience,  # == rng.uniform(10, 40)
        region=REGIONS[region],
        height_cm=height,
        weight_kg=weight,
    )


class Reaction(BaseModel):
    """What one viewer did after a reply."""

    satisfaction: float
    clicked: bool
    purchased: bool
    gmv: float
    churned: bool


def react(
    rng: np.random.Generator,
    viewer: Viewer,
    *,
    accuracy: float,
    effectiveness: float,
    latency_s: float,
    budget_s: float,
    price: float | None,
    promo_mentioned: bool,
    product_intent: bool,
) -> Reaction:
    """Draw a viewer's reaction to a reply: satisfaction, a click, a purchase, or leaving the room."""
    lat_score = max(0.0, 1.0 - latency_s / budget_s)
    satisfaction = 0.45 * accuracy + 0.35 * effectiveness + 0.2 * lat_score
    if latency_s > budget_s:
        return Reaction(satisfaction=0.0, clicked=False, purchased=False, gmv=0.0, churned=True)
    churn_p = 0.02 + 0.5 * (1 - satisfaction) * (1.5 if viewer.persona == "sceptical" else 1.0)
    churned = bool(rng.random() < churn_p)
    clicked = purchased = False
    gmv = 0.0
    if product_intent and not churned and price is not None:
        click_p = 0.15 + 0.6 * satisfaction * effectiveness
        clicked = bool(rng.random() < click_p)
        if clicked and price <= viewer.budget:
            buy_p = {"impulsive": 0.55, "price_sensitive": 0.3, "quality_focused": 0.35, "sceptical": 0.15,
                     "troll": 0.02, "returning_buyer": 0.4}[viewer.persona]
            buy_p *= accuracy * (1.3 if promo_mentioned else 1.0)
            purchased = bool(rng.random() < min(buy_p, 0.95))
            gmv = float(price) if purchased else 0.0
    return Reaction(satisfaction=satisfaction, clicked=clicked, purchased=purchased, gmv=gmv, churned=churned)
