"""Viewer comments and requests.

`make_comment` draws one comment for a viewer (intent from the persona, phrasing from `livesim.world.phrasing`,
ground truth from `livesim.world.intents`). `merge` turns the comments that arrive inside one merge window into one
`Request`, as a real host gets them.
"""

from __future__ import annotations

import numpy as np
from pydantic import BaseModel, ConfigDict

from livesim.world.answers import follow
from livesim.world.asks import ask_of, default_ask
from livesim.world.catalog import Catalog
from livesim.world.draws import WeightedIndex
from livesim.world.intents import BUILDERS, _Draw
from livesim.world.phrasing import add_noise, phrase_template, template_slots
from livesim.world.room import Room
from livesim.world.truth import DECLINE_PHRASES, Fact, GoldCall, Truth, merge_truths
from livesim.world.viewers import PERSONA_INTENTS, Viewer

__all__ = ["DECLINE_PHRASES", "Comment", "Fact", "GoldCall", "Request", "Truth", "draw_intent", "make_comment",
           "merge"]


class Comment(BaseModel):
    model_config = ConfigDict(extra="forbid")
    viewer_id: str
    name: str
    t: float
    text: str
    truth: Truth


class Request(BaseModel):
    """Comments merged into one unit of work for the host."""

    model_config = ConfigDict(extra="forbid")
    index: int
    t: float
    comments: list[Comment]
    truth: Truth

    @property
    def text(self) -> str:
        return "\n".join(f"[{c.name}] {c.text}" for c in self.comments)

    @property
    def viewer_ids(self) -> list[str]:
        return [c.viewer_id for c in self.comments]



def _intent_weights(persona: str) -> tuple[list[str], np.ndarray]:
    weights = PERSONA_INTENTS[persona]
    names = sorted(weights)
    p = np.array([weights[n] for n in names], dtype=float)
    return names, p / p.sum()


_INTENT_PICK = {persona: (names, WeightedIndex(p)) for persona, (names, p) in
                ((persona, _intent_weights(persona)) for persona in PERSONA_INTENTS)}


def draw_intent(rng: np.random.Generator, viewer: Viewer) -> str:
    """The intent of a viewer's comment, drawn from its persona's weights: the draw of
    `rng.choice(len(names), p=p)` (one `rng.random()` on the same normalised CDF, `livesim.world.draws`).
    """
    names, pick = _INTENT_PICK[viewer.persona]
    return names[pick(rng)]


class UnservableIntentError(ValueError):
    """A scripted comment's intent has nothing to be about in the room at that time (no coupon to issue, no
    apparel to size...): a scenario error, never a silent change of intent.
    """

    def __init__(self, intent: str, t: float, links: list[int] | None) -> None:
        self.intent, self.t = intent, t
        about = f" about links {links}" if links else ""
        super().__init__(f"the scripted {intent!r} comment at {t:g}s{about} cannot be served in this room at that "
                         f"time ({UNSERVABLE.get(intent, 'nothing in the room fits it')})")


UNSERVABLE = {"coupon": "no issuable coupon with uses left", "size_advice": "no apparel with a size chart",
              "comparison": "no two products to compare", "stock_variant": "no product with variants",
              "spec_material": "no product with such an attribute"}


def make_comment(rng: np.random.Generator, viewer: Viewer, t: float, catalog: Catalog, room: Room, *,
                 intent: str | None = None, multi_p: float = 0.12, noise: float = 1.0,
                 links: list[int] | None = None, text: str | None = None, strict: bool = False) -> Comment:
    """Draw one comment (sometimes asking two things at once) with its ground truth.

    A scripted comment fixes `intent`, the `links` it is about and optionally its verbatim `text`. A drawn
    intent the room cannot serve becomes a price question; with `strict` (scripted comments) a fixed one raises
    `UnservableIntentError` instead.
    """
    if intent is not None and intent not in BUILDERS:
        raise ValueError(f"unknown intent {intent!r}; expected one of {sorted(BUILDERS)}")
    d = _Draw(rng, viewer, catalog, room, list(links) if links else None, text=text)
    intents = [intent or draw_intent(rng, viewer)]
    if intent is None and rng.random() < multi_p:
        intents.append(draw_intent(rng, viewer))
    parts, truths = [], []
    for it in intents:
        built = BUILDERS[it](d)
        if built is None and strict and intent is not None:
            raise UnservableIntentError(it, t, links)
        if built is None:  # not applicable in this room (no apparel, no coupon...): ask the price instead
            it = "price"
            built = BUILDERS[it](d)
            assert built is not None
        slots, truth = built
        protect = [str(v) for v in slots.values()]
        phrased, template = phrase_template(it, slots, rng)
        # the truth follows what the phrasing asks (a verbatim scripted text asks its intent's own question), about
        # the slots it names: a region the viewer did not write is no part of the question
        aspect = str(slots["aspect"]) if "aspect" in slots else None
        ask = default_ask(it, aspect) if text else ask_of(it, template, aspect)
        named = template_slots(template) if not text else {k for k, v in slots.items()
                                                            if str(v).lower() in text.lower()}
        used = {k: v for k, v in slots.items() if k in named or k == "aspect"}
        truth = follow(ask, truth, used, catalog, room)
        if not text:
            truth = truth.model_copy(update={"phrasings": [template]})
        parts.append(add_noise(phrased, rng, typo_rate=0.04 * noise, slang_rate=0.3 * noise, emoji_rate=0.15 * noise,
                               protect=protect))
        truths.append(truth)
    joiner = [" and ", " also ", " + ", ". oh and ", "... and "][int(rng.integers(5))]
    return Comment(viewer_id=viewer.viewer_id, name=viewer.name, t=t, text=text or joiner.join(parts),
                   truth=merge_truths(truths))


def merge(index: int, comments: list[Comment], t: float) -> Request:
    """Comments inside one merge window become one request."""
    return Request(index=index, t=t, comments=comments, truth=merge_truths([c.truth for c in comments]))
