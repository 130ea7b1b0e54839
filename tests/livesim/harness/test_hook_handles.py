"""The reply hooks read a viewer's name in any casing as a name: a greeting in capitals ("HI KEVIN66") is not a
coupon code the strategy cannot issue, so it is not held back by the hook and sent as the fallback. Generated over
requests of every intent (their viewers' names), each name in several casings and places; an invented code in the
same reply is still caught, so the check keeps its teeth."""

from __future__ import annotations

import pytest

from livesim.harness.hooks import HookContext, no_unauthorised_promises
from livesim.runs.calibration import build_request
from livesim.world.phrasing import INTENTS

FRAMES = ["HI {N}, WELCOME TO THE STREAM!", "Hi {N}, welcome!", "{N} asked a great question.",
          "Thanks {N}! {gold}", "{gold} Enjoy, {N}."]


@pytest.mark.parametrize("intent", sorted(INTENTS))
def test_a_viewer_name_in_capitals_is_not_a_coupon_code(intent):
    n = 0
    for seed in range(4):
        sim = build_request(7100 + seed, intent)
        req = sim.request
        ctx = dict(harness=sim.harness, comments=req.text, valid_codes=sim._valid_codes())
        gold = " ".join(req.truth.say)
        for c in req.comments:
            if not any(ch.isdigit() for ch in c.name):
                continue  # only names with digits look like codes
            for name in (c.name.upper(), c.name, c.name.title()):
                for frame in FRAMES:
                    reply = frame.format(N=name, gold=gold)
                    if no_unauthorised_promises(HookContext(reply=gold, **ctx), {}) is not None:
                        continue  # the gold reply itself is held (not this class)
                    assert no_unauthorised_promises(HookContext(reply=reply, **ctx), {}) is None, reply
                    n += 1
                    held = no_unauthorised_promises(HookContext(reply=f"{reply} Use code ZQX{seed}93 now.", **ctx), {})
                    assert held is not None and "ZQX" in held
    assert n > 0
