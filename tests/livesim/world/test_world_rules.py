"""The world obeys its own rules (issue 12): stock moves with orders, a coupon's budget is per person and only for
the viewers who asked, set_price respects max_extra_discount, ground truth cannot be drained by invented
viewers, and measured latency must be a finite, non-negative number.
"""

from __future__ import annotations

import json
import math

import gymnasium as gym
import numpy as np
import pytest

import livesim  # noqa: F401
from livesim.harness.tools import ToolContext, ToolError, run_tool
from livesim.stream.sim import StreamSim, qa_request
from livesim.world.identity import identity
from livesim.world.orders import book_order
from livesim.world.room import Permissions


def _sim(seed: int = 0) -> StreamSim:
    sim = StreamSim(seed)
    sim.advance_to(10.0)
    return sim


# --- stock -----------------------------------------------------------------------------------------------
def test_an_order_takes_one_unit_from_the_fullest_sku_and_never_goes_below_zero():
    sim = _sim()
    p = next(p for p in sim.catalog.products if sum(s.stock for s in p.skus) > 0)
    for s in p.skus:
        s.stock = 0
    p.skus[0].stock = 2
    assert book_order(sim.catalog, sim.room, p.link) == sim.room.current_price(sim.catalog, p.link)
    assert book_order(sim.catalog, sim.room, p.link) is not None
    assert book_order(sim.catalog, sim.room, p.link) is None  # sold out: nothing booked
    assert [s.stock for s in p.skus] == [0] * len(p.skus)


def test_a_flash_sale_order_also_takes_from_the_sale_quantity():
    sim = _sim(1)
    sim.advance_to(sim.config.duration_s * 0.45)  # the generated strategy's flash sale runs around here
    sale = next((f for f in sim.room.flash_sales if f.active(sim.room.clock_s)), None)
    if sale is None:
        pytest.skip("no flash sale running at this moment of this seed")
    q = sale.quantity
    assert book_order(sim.catalog, sim.room, sale.link) == sale.price
    assert sale.quantity == q - 1


def test_a_stream_books_orders_against_stock_and_none_on_sold_out_products():
    env = gym.make("LiveStream-v0")
    from livesim.agents import make_agent

    agent = make_agent("oracle", env=env)
    obs, _ = env.reset(seed=4)
    sim = env.unwrapped.sim
    for p in sim.catalog.products[::2]:  # half the products are sold out from the start
        for s in p.skus:
            s.stock = 0
    sold_out = {p.link for p in sim.catalog.products[::2]}
    before = {p.link: sum(s.stock for s in p.skus) for p in sim.catalog.products}
    agent.reset()
    term = trunc = False
    while not (term or trunc):
        obs, _, term, trunc, _ = env.step(agent.act(obs))
    after = {p.link: sum(s.stock for s in p.skus) for p in sim.catalog.products}
    assert all(v >= 0 for p in sim.catalog.products for v in (s.stock for s in p.skus))
    assert all(after[k] == 0 for k in sold_out)
    assert sum(before.values()) - sum(after.values()) == sim.metrics.orders > 0


# --- coupons -------------------------------------------------------------------------------------------
def _coupon_ctx(seed: int = 0, viewers: tuple[str, ...] = ("Amy", "Bob")):
    sim = _sim(seed)
    ctx = ToolContext(sim.catalog, sim.room, viewer=viewers[0], viewers=list(viewers))
    live = next(c for c in sim.room.coupons if c.issuable)
    return sim, ctx, live


VARIANTS = ["amy", "AMY", " Amy ", "A m y", "Am\u200by", "Am\u200dy", "\ufeffAmy", "\u0410my", "Am\u0443", "ＡＭＹ",
            "Amy\u00a0", "A\u0301my"]


@pytest.mark.parametrize("variant", VARIANTS)
def test_look_alike_names_are_one_identity(variant):
    assert identity(variant) == identity("Amy")


def test_distinct_names_stay_distinct():
    assert len({identity(n) for n in ["Amy", "Bob", "Anna", "Ann", "Mia", "Max"]}) == 6


def test_a_coupon_goes_once_per_person_however_the_name_is_spelt():
    _, ctx, live = _coupon_ctx()
    n = live.remaining
    run_tool("issue_coupon", ctx, {"code": live.code, "viewer": "Amy"})
    for v in VARIANTS:
        with pytest.raises(ToolError, match="already"):
            run_tool("issue_coupon", ctx, {"code": live.code.lower(), "viewer": v})
    assert live.remaining == n - 1


def test_invented_viewers_cannot_drain_a_coupon_or_change_later_ground_truth():
    sim, ctx, live = _coupon_ctx(3)
    fresh = _sim(3)
    n = live.remaining
    for k in range(500):
        with pytest.raises(ToolError, match="only to the viewers of this request"):
            run_tool("issue_coupon", ctx, {"code": live.code, "viewer": f"bot{k}"})
    assert live.remaining == n and sim.room.issued.get(live.code, []) == []
    for k in range(20):  # a coupon question asked later sees the same world as in a stream without the attack
        a = qa_request(sim, np.random.default_rng([k, 5]), intent="coupon")
        b = qa_request(fresh, np.random.default_rng([k, 5]), intent="coupon")
        assert a.truth == b.truth


def test_the_env_tells_the_agent_why_a_coupon_was_denied():
    env = gym.make("LiveStreamQA-v0")
    obs, _ = env.reset(seed=2)
    sim = env.unwrapped.sim
    live = next(c for c in sim.room.active_coupons() if c.issuable)
    call = {"name": "issue_coupon", "arguments": {"code": live.code, "viewer": "ghost"}}
    obs, *_ = env.step(f"<tool_call>{json.dumps(call)}</tool_call>")
    assert "only to the viewers of this request" in obs["messages"][-1]["content"]
    asker = sim.request.comments[0].name
    call["arguments"]["viewer"] = f" {asker.upper()} "
    obs, *_ = env.step(f"<tool_call>{json.dumps(call)}</tool_call>")
    assert '"issued"' in obs["messages"][-1]["content"]


# --- prices --------------------------------------------------------------------------------------------
def test_set_price_respects_max_extra_discount():
    sim = _sim()
    ctx = ToolContext(sim.catalog, sim.room, viewer="amy")
    p = sim.catalog.products[0]
    base = p.live_price
    sim.room.permissions.change_prices = True
    for bad in (1e-300, 0.0, -1.0, float("nan"), float("inf"), base * 0.99, p.list_price * 2):
        with pytest.raises(ToolError) as e:
            run_tool("set_price", ctx, {"link": p.link, "price": bad})
        assert e.value.kind == "invalid_args" and p.live_price == base
    assert run_tool("set_price", ctx, {"link": p.link, "price": p.list_price})["live_price"] == p.list_price
    sim.room.permissions.max_extra_discount = 0.2
    with pytest.raises(ToolError, match="20%"):
        run_tool("set_price", ctx, {"link": p.link, "price": base * 0.7})
    assert run_tool("set_price", ctx, {"link": p.link, "price": base * 0.8})["live_price"] == pytest.approx(base * 0.8)


def test_max_extra_discount_is_a_fraction():
    from pydantic import ValidationError

    with pytest.raises(ValidationError):
        Permissions(max_extra_discount=5)


# --- measured latency ----------------------------------------------------------------------------------
@pytest.mark.parametrize("bad", [float("nan"), -1e9, float("inf"), -0.5, 1e308, "3"])
def test_bad_measured_latency_is_a_graded_error_and_earns_nothing(bad):
    env = gym.make("LiveStreamQA-v0", config={"latency": {"mode": "measured"}})
    obs, _ = env.reset(seed=1)
    obs, reward, term, _, info = env.step({"role": "assistant", "content": "Hi there!", "latency_s": bad})
    assert not term and reward == 0.0 and not info["dispatched"]
    assert "latency_s" in obs["messages"][-1]["content"] or "not finite" in obs["messages"][-1]["content"]


def test_a_stream_with_nan_latency_on_every_step_still_ends():
    env = gym.make("LiveStream-v0", config={"latency": {"mode": "measured"}, "duration_s": 60.0})
    obs, _ = env.reset(seed=3)
    clock = env.unwrapped.sim.room.clock_s
    steps = 0
    while steps < 2000:
        steps += 1
        obs, reward, term, trunc, _ = env.step({"content": "ok", "latency_s": float("nan")})
        assert math.isfinite(reward) and env.unwrapped.sim.room.clock_s >= clock
        clock = env.unwrapped.sim.room.clock_s
        if term or trunc:
            break
    assert term, f"the stream did not end in {steps} steps"


def test_good_measured_latency_is_used():
    env = gym.make("LiveStreamQA-v0", config={"latency": {"mode": "measured"}})
    env.reset(seed=1)
    env.step({"role": "assistant", "content": "Hi there!", "latency_s": 12.0})
    assert env.unwrapped.sim.trace.latency_s >= 12.0
