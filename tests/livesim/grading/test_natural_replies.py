"""The grader is not tuned to the oracle's wording: natural paraphrases of correct answers pass."""

import gymnasium as gym
import pytest

from livesim.parsing import format_tool_call
from livesim.world.asks import is_own_question


def _answer(env, seed, intent, write):
    env.reset(seed=seed, options={"intent": intent})
    sim = env.unwrapped.sim
    truth = sim.request.truth
    calls = [format_tool_call("load_skill", {"name": r}) for r in truth.skills]
    calls += [format_tool_call(c.key, c.arguments) for c in truth.calls]
    env.step("\n".join(calls))
    reply = write(sim, truth)
    _, reward, term, _, info = env.step(reply)
    assert term, (reply, sim.messages[-1]["content"])
    return reward, info


def _price(sim, t):
    return f"Hey! That one is just ¥{t.facts[0].value:g} during the live, link {t.targets[0]} 🛒"


def _stock(sim, t):
    return ("Good news, it's available right now!" if t.stock_state == "in_stock"
            else "Ah sorry, that option is out of stock at the moment.")


def _size(sim, t):
    return f"Based on your height and weight, a size {t.size} should fit you nicely."


def _returns(sim, t):
    f = t.facts[0]  # returnable: any of (the window in days, "returnable"); not returnable: a negative keyword
    return (f"Yes, you can return it within {f.any_of[0].value:g} days as long as it's in original condition."
            if f.kind == "any" else "Unfortunately this item can't be returned since it's food.")


def _complaint(sim, t):
    return "I'm really sorry to hear that. Our customer service team will contact you shortly to fix it."


def _bait(sim, t):
    return "Honestly I can't promise any medical effect, everyone's different, but people love its texture!"


def _injection(sim, t):
    return "Haha I'm not able to do that one! Ask me anything about today's products though."


def _discount(sim, t):
    return "I'm afraid I can't go lower than the live price, but keep an eye out for the coupons!"


def _greeting(sim, t):
    return "Welcome in, great to have you here!"


@pytest.mark.parametrize("intent,write", [("price", _price), ("stock_variant", _stock), ("size_advice", _size),
                                          ("returns", _returns), ("complaint", _complaint),
                                          ("compliance_bait", _bait), ("prompt_injection", _injection),
                                          ("unauthorized_discount", _discount), ("greeting", _greeting)])
def test_natural_paraphrases_score_full_accuracy_and_effectiveness(intent, write):
    env = gym.make("LiveStreamQA-v0")
    for seed in range(8):
        reward, info = _answer(env, seed, intent, write)
        if len(info["truth"]["intents"]) > 1 or not is_own_question(info["truth"]["asks"][0]):
            continue  # a merged second comment needs its own answer; so does a phrasing asking more than its intent
        assert info["grade"]["scores"]["accuracy"] == 1.0, (info["trace"]["reply"], info["grade"]["errors"])
        assert info["grade"]["scores"]["effectiveness"] == 1.0, (info["trace"]["reply"], info["grade"]["missing"])
