"""The numbers a tool looked up (`looked_up`, which the `numbers_traceable` hook and the grader read) hold every figure
a tool's result states and the totals a correct reply derives from them, and nothing the agent wrote in itself; so
the oracle's gold reply is never blocked by a reply hook. Found by the attack bench (seed 59): "Navy of link 1 is in
stock, 583 left", the stock of a colour summed over its sizes, and a shipping fee of 8 yuan on link 8 (the link number
was taken out of the result as if the agent had written the fee) were both blocked, so the env paid the gold 0."""

from __future__ import annotations

import itertools

from livesim.grading.terms import ToolCallRecord
from livesim.grading.world import looked_up
from livesim.harness.hooks import CHECK_EVENTS, HookContext, run_hook
from livesim.harness.tools import ToolContext, run_tool
from livesim.runs.calibration import build_request
from livesim.world.phrasing import INTENTS


def _call(sim, key: str, **args) -> ToolCallRecord:
    result = run_tool(key, ToolContext(sim.catalog, sim.room), args)
    return ToolCallRecord(name=key, key=key, arguments=args, ok=True, result=result)


def _figures(obj, out: list[float], skip_link: int | None = None, top: bool = True) -> list[float]:
    """Every number a result states (bools aside), but its top-level echo of the link asked."""
    if isinstance(obj, dict):
        for k, v in obj.items():
            if not (top and k in ("link", "pinned_link") and v == skip_link):
                _figures(v, out, skip_link, False)
    elif isinstance(obj, list):
        for v in obj:
            _figures(v, out, skip_link, False)
    elif isinstance(obj, (int, float)) and not isinstance(obj, bool):
        out.append(float(obj))
    return out


def _sims(intent: str, seeds: range):
    for seed in seeds:
        yield build_request(seed, intent)


def test_every_figure_a_tool_looked_up_for_a_link_is_traceable_even_one_equal_to_the_link():
    n = equal_to_link = 0
    for sim in itertools.islice(_sims("price", range(41000, 41400)), 0, None, 20):
        for p in sim.catalog.products:
            calls = [_call(sim, "get_price", link=p.link), _call(sim, "get_product", link=p.link),
                     _call(sim, "check_stock", link=p.link), _call(sim, "get_after_sales_policy", link=p.link)]
            calls += [_call(sim, "get_shipping_policy", link=p.link, region=r) for r in ("Shanghai", "Xinjiang")]
            for rec in calls:
                nums, _ = looked_up([rec])
                figures = _figures(rec.result, [], p.link)
                assert set(figures) <= nums, (rec.key, p.link, sorted(set(figures) - nums))
                equal_to_link += float(p.link) in figures
                n += len(figures)
    assert n >= 1000 and equal_to_link >= 5, (n, equal_to_link)


def test_a_figure_the_agent_wrote_into_the_arguments_is_not_looked_up():
    n = 0
    for sim in itertools.islice(_sims("size_advice", range(41000, 41200)), 0, None, 10):
        for p in sim.catalog.products:
            if not p.size_chart:
                continue
            for h, w in ((163, 57), (181, 88)):
                nums, _ = looked_up([_call(sim, "recommend_size", link=p.link, height_cm=h, weight_kg=w)])
                assert float(h) not in nums and float(w) not in nums, (p.link, h, w)
                n += 1
    assert n >= 10, n


def test_the_stock_of_a_variant_over_its_skus_is_looked_up():
    n = 0
    for sim in itertools.islice(_sims("stock_variant", range(42000, 42400)), 0, None, 20):
        for p in sim.catalog.products:
            variants = {x.colour for x in p.skus if x.colour} | {x.size for x in p.skus if x.size}
            for v in sorted(variants):
                rec = _call(sim, "check_stock", link=p.link, variant=v)
                total = sum(s["stock"] for s in rec.result["skus"])
                assert total == sum(s.stock for s in p.sku_for(v)), (p.link, v)
                assert float(total) in looked_up([rec])[0], (p.link, v, total)
                n += len(rec.result["skus"]) >= 2
    assert n >= 40, n


def _hook_failures(sim, reply: str) -> list[str]:
    """Every reply hook of the harness (enabled or not) run on `reply` as the env runs them."""
    ctx = HookContext(sim.harness, comments=sim.request.text, reply=reply,
                      loaded_skills=list(sim.trace.loaded_skills), tool_numbers=set(sim._tool_numbers),
                      prompt_numbers={float(x) for x in sim.catalog.links}, valid_codes=sim._valid_codes())
    return [f"{h.key}: {r}" for h in sim.harness.hooks
            if CHECK_EVENTS.get(h.check) == "reply" and (r := run_hook(h, ctx)) is not None]


def test_the_gold_reply_passes_every_reply_hook():
    n = counts = 0
    for intent in INTENTS:
        for seed in range(43000, 43030):
            sim = build_request(seed, intent)
            gold = " ".join(sim.request.truth.say)
            assert not _hook_failures(sim, gold), (intent, seed, gold, _hook_failures(sim, gold))
            n += 1
    # the counts of a variant over its sizes, the class the attack found, generated until enough are checked
    for seed in range(44000, 46000):
        sim = build_request(seed, "stock_variant")
        if not any(f.attribute == "stock_count" for f in sim.request.truth.facts):
            continue
        gold = " ".join(sim.request.truth.say)
        assert not _hook_failures(sim, gold), (seed, gold, _hook_failures(sim, gold))
        counts += 1
        if counts >= 25:
            break
    assert n == 30 * len(INTENTS) and counts >= 25, (n, counts)
