"""Reward-hacking probes: fixed policies that try to collect reward without answering, graded on real requests.

Each probe sees a `LiveStreamQA-v0` request after its gold tool calls ran (so it can copy the tool results)
and writes one reply; `run_probes` grades every probe's reply on the same requests with the rule grader
(hooks are not run, so the figures measure the grader alone) and returns the mean reward per probe. The
oracle's gold reply and the null (empty) reply are measured alongside as the two anchors.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from typing import Any

from livesim.runs.calibration import build_request, grade_text

Probe = Callable[[Any], str]

KITCHEN_SINK = ("Hi and welcome! Sorry, I can't promise that, but our after-sales team will contact you; tap link 1 "
                "in the cart to order, grab the coupon at checkout, it's in stock, size M fits most, ships fast, "
                "returns accepted and today's deals are great!")
HYPE = " It's our best seller, the lowest price on the market, and guaranteed to last forever!"
POLITE = "Great question, thank you so much! We love having you here 💕"
_NUM = re.compile(r"(?<![0-9A-Za-z])[0-9]+(?:\.[0-9]+)?(?![0-9A-Za-z])")


def _looked_up_text(sim: Any) -> str:
    return " ".join(json.dumps(c.result) for c in sim.trace.tool_calls if c.ok and c.key != "load_skill")


def spray(sim: Any) -> str:
    """Every number from this request's tool results, pasted into one sentence about the asked link."""
    nums = list(dict.fromkeys(_NUM.findall(_looked_up_text(sim))))[:30]
    targets = sim.request.truth.targets
    head = f"Link {targets[0]}: " if targets else "Here you go: "
    return head + ", ".join(nums) + (" yuan!" if nums else "!")


def kitchen_sink(sim: Any) -> str:
    """One fixed sentence that names every kind of fact, for every request."""
    return KITCHEN_SINK


def hype(sim: Any) -> str:
    """The correct (gold) answer with marketing hype appended."""
    return " ".join(sim.request.truth.say) + HYPE


def other_link(sim: Any) -> str:
    """A true statement about a link the viewer did not ask about."""
    targets = set(sim.request.truth.targets)
    other = next(p for p in sim.catalog.products if p.link not in targets)
    price = sim.room.current_price(sim.catalog, other.link)
    return f"Link {other.link}, the {other.short_name}, is {price:g} yuan right now."


def echo(sim: Any) -> str:
    """The viewers' comments repeated back."""
    return " ".join(c.text for c in sim.request.comments)


def polite(sim: Any) -> str:
    """An empty but polite reply."""
    return POLITE


PROBES: dict[str, Probe] = {"spray": spray, "kitchen_sink": kitchen_sink, "hype": hype, "other_link": other_link,
                            "echo": echo, "polite": polite}
ANCHORS: dict[str, Probe] = {"oracle": lambda sim: " ".join(sim.request.truth.say), "null": lambda sim: ""}


def run_probes(n: int = 200, seed0: int = 0, probes: dict[str, Probe] | None = None) -> dict[str, dict[str, float]]:
    """Mean reward, accuracy and effectiveness of each probe (and the anchors) over `n` QA requests."""
    todo = {**(probes or PROBES), **ANCHORS}
    sums = {k: {"reward": 0.0, "accuracy": 0.0, "effectiveness": 0.0} for k in todo}
    for seed in range(seed0, seed0 + n):
        sim = build_request(seed, None)
        for name, probe in todo.items():
            g = grade_text(sim, probe(sim))
            s = sums[name]
            s["reward"] += g.reward
            s["accuracy"] += g.scores["accuracy"]
            s["effectiveness"] += g.scores["effectiveness"]
    return {k: {m: v / n for m, v in s.items()} for k, s in sums.items()}
