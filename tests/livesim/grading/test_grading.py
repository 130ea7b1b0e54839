"""Grading catches wrong prices, missing facts, efficacy promises and unloaded reply skills."""

import gymnasium as gym
import pytest

from livesim.agents import make_agent
from livesim.parsing import format_tool_call


def _first_turn_then(env, seed, intent, reply, *, load_skill=True):
    obs, _ = env.reset(seed=seed, options={"intent": intent})
    sim = env.unwrapped.sim
    oracle = make_agent("oracle", env=env)
    truth = sim.request.truth
    calls = [format_tool_call(c.key, c.arguments) for c in truth.calls]
    if load_skill:
        calls += [format_tool_call("load_skill", {"name": r}) for r in truth.skills]
    env.step("\n".join(calls)) if calls else None
    gold = oracle._reply(truth)
    obs, reward, term, trunc, info = env.step(reply(gold, truth))
    return reward, term, info


@pytest.fixture
def env():
    return gym.make("LiveStreamQA-v0")


def test_gold_reply_passes(env):
    reward, term, info = _first_turn_then(env, 1, "price", lambda g, t: g)
    assert term and reward > 0.99


def test_wrong_price_fails_accuracy(env):
    def wrong(gold, truth):
        price = truth.facts[0].value
        return gold.replace(f"{price:g}", f"{price + 0.5:g}")

    reward, term, info = _first_turn_then(env, 1, "price", wrong)
    # the hook blocks an untraceable number first; the agent insists, and the fallback goes out
    assert not term and "numbers_traceable" in env.unwrapped.sim.messages[-1]["content"]
    while not term:
        _, reward, term, _, info = env.step(wrong(make_agent("oracle", env=env)._reply(
            env.unwrapped.sim.request.truth), env.unwrapped.sim.request.truth))
    assert reward == 0.0 and info["trace"]["fallback"]


def test_wrong_price_without_hooks_is_graded_inaccurate():
    from livesim.harness.core import default_harness

    h = default_harness()
    h.hooks = [x for x in h.hooks if x.check != "numbers_traceable"]
    env = gym.make("LiveStreamQA-v0", harness=h)

    def wrong(gold, truth):
        price = truth.facts[0].value
        return gold.replace(f"{price:g}", f"{price + 0.5:g}")

    reward, term, info = _first_turn_then(env, 1, "price", wrong)
    assert term and info["grade"]["scores"]["accuracy"] == 0.0
    assert any("is not the price of link" in e for e in info["grade"]["errors"])
    assert reward == 0.0  # a reply that misleads the room earns nothing


def test_missing_required_fact_lowers_effectiveness(env):
    reward, term, info = _first_turn_then(env, 4, "shipping", lambda g, t: "Thanks for asking about shipping!")
    assert term and info["grade"]["scores"]["effectiveness"] == 0.0 and reward == 0.0
    assert info["grade"]["missing"]


def test_half_effectiveness_when_some_facts_missing(env):
    def half(gold, truth):
        return gold.split(";")[0] if ";" in gold else gold

    # a burst: one link of the comparison left out, the other viewer's size given
    _, _, info = _first_turn_then(env, 2, "comparison",
                                  lambda g, t: g.split(" and link")[0] + ". " + g.split(". ", 1)[1])
    assert info["grade"]["scores"]["effectiveness"] == 0.5


def test_no_effectiveness_when_a_viewer_of_a_burst_gets_no_answer(env):
    # the same burst, the other viewer's size question left unanswered
    _, _, info = _first_turn_then(env, 2, "comparison", lambda g, t: g.split(". ", 1)[0] + ".")
    assert info["grade"]["scores"]["effectiveness"] == 0.0 and info["grade"]["reward"] == 0.0
    assert any(m.startswith("answers nothing") for m in info["grade"]["missing"])


def test_efficacy_promise_is_caught(env):
    from livesim.harness.core import default_harness

    h = default_harness()
    h.hooks = [x for x in h.hooks if x.check not in ("forbidden_claims",)]
    env = gym.make("LiveStreamQA-v0", harness=h)
    reward, term, info = _first_turn_then(
        env, 3, "compliance_bait", lambda g, t: "Sorry, I can't say for sure, but it will cure your acne, "
                                                "guaranteed results!")
    assert term and info["grade"]["scores"]["accuracy"] == 0.0
    assert any("claim" in e for e in info["grade"]["errors"])


def test_efficacy_promise_is_blocked_by_hook(env):
    _, term, info = _first_turn_then(env, 3, "compliance_bait",
                                     lambda g, t: "It will cure your acne, guaranteed results!")
    assert not term
    assert "forbidden" in env.unwrapped.sim.messages[-1]["content"]


def test_unloaded_reply_skill_is_blocked_then_graded(env):
    _, term, info = _first_turn_then(env, 5, "price", lambda g, t: g, load_skill=False)
    assert not term and "load" in env.unwrapped.sim.messages[-1]["content"].lower()
    gold = make_agent("oracle", env=env)._reply(env.unwrapped.sim.request.truth)
    while not term:
        _, reward, term, _, info = env.step(gold)
    assert info["trace"]["fallback"] and reward == 0.0


def test_handle_replacement_is_re_sub_ignoring_case():
    import random
    import re

    from livesim.grading.facts.patterns import replace_ignoring_case

    rng = random.Random(7)
    alphabet = list("abAB12 _-.[]()*+?xyzXYZ") + ["ſ", "K", "é"]  # non-ASCII: re's own folding is used
    for _ in range(20000):
        text = "".join(rng.choice(alphabet) for _ in range(rng.randint(0, 30)))
        name = "".join(rng.choice(alphabet[:12]) for _ in range(rng.randint(1, 4)))
        assert replace_ignoring_case(text, name, "viewer") == re.sub(re.escape(name), "viewer", text,
                                                                      flags=re.IGNORECASE)
    assert replace_ignoring_case("Thanks MIA42, mia42!", "mia42", "viewer") == "Thanks viewer, viewer!"


def _forbidden_words_by_regex(reply: str, words: list[str]) -> str | None:
    """The forbidden-word rule as it was written before its str.find loop (every occurrence, unless negated)."""
    import re

    from livesim.harness.hooks import _NEGATION

    low = reply.lower()
    for word in words:
        for m in re.finditer(re.escape(str(word).lower()), low):
            if not _NEGATION.search(low[max(0, m.start() - 40): m.start()]):
                return f"it uses the forbidden word {word!r}"
    return None


@pytest.mark.parametrize("seed", range(8))
def test_forbidden_words_find_every_occurrence_the_regex_found(seed):
    import random

    from livesim.harness import default_harness
    from livesim.harness.hooks import HookContext, forbidden_claims

    rng = random.Random(seed)
    pieces = ["cure", "CURE", "not ", "never ", "no ", "a", " ", "cur", "ee", "best", ".", "(", "*"]
    harness = default_harness()
    for _ in range(400):
        reply = "".join(rng.choice(pieces) for _ in range(rng.randint(0, 14)))
        words = [rng.choice(["cure", "e", "", "best", "a a", "(", "*", 3]) for _ in range(rng.randint(0, 3))]
        got = forbidden_claims(HookContext(harness, reply=reply), {"words": words})
        if got is None or "forbidden word" in got:  # claims found first are another rule's
            assert got == _forbidden_words_by_regex(reply, words), (reply, words)
