import numpy as np
import pytest

from livesim.harness.tools import TOOL_IMPLS, ToolContext, ToolError, run_tool
from livesim.stream.config import StreamConfig
from livesim.stream.sim import StreamSim
from livesim.world.catalog import CATEGORIES, generate_catalog
from livesim.world.comments import make_comment
from livesim.world.phrasing import INTENTS


def test_catalog_covers_categories_with_their_own_attributes():
    cat = generate_catalog(np.random.default_rng(0), 10)
    assert {p.category for p in cat.products} == set(CATEGORIES)
    keys = {p.category: set(p.attributes) for p in cat.products}
    assert "material" in keys["apparel"] and "ingredients" in keys["beauty"]
    assert "battery_mah" in keys["electronics"] and "allergens" in keys["food"] and "dimensions_cm" in keys["home"]
    for p in cat.products:
        assert p.live_price < p.list_price and p.skus
        assert (p.size_chart is not None) == (p.category == "apparel")
    assert generate_catalog(np.random.default_rng(0), 10) == cat
    assert generate_catalog(np.random.default_rng(1), 10) != cat


def test_bad_catalog_size_is_refused():
    with pytest.raises(ValueError, match="n_products"):
        generate_catalog(np.random.default_rng(0), 0)


def test_every_intent_has_ground_truth_and_varied_wording():
    sim = StreamSim(3)
    sim.advance_to(200.0)
    for intent in INTENTS:
        texts = set()
        for k in range(40):
            c = make_comment(np.random.default_rng([k, 1]), sim.viewers[k % 20], 0.0, sim.catalog, sim.room,
                             intent=intent)
            assert c.truth.facts and c.truth.skills and c.truth.say
            texts.add(c.text)
        assert len(texts) >= 15, intent


def test_schemas_come_from_signatures():
    import inspect

    for key, impl in TOOL_IMPLS.items():
        params = list(inspect.signature(impl.fn).parameters)[1:]
        schema = impl.json_schema()
        assert list(schema["properties"]) == params, key
        required = [p for p, v in inspect.signature(impl.fn).parameters.items()
                    if v.default is inspect.Parameter.empty and p != "ctx"]
        assert schema.get("required", []) == required
    assert len(TOOL_IMPLS) >= 10


def _ctx(seed=0):
    sim = StreamSim(seed)
    sim.advance_to(10.0)
    return sim, ToolContext(sim.catalog, sim.room, viewer="amy")


def test_unauthorised_coupon_is_denied_and_changes_nothing():
    sim, ctx = _ctx()
    vip = next(c for c in sim.room.coupons if not c.issuable)
    before = sim.room.model_dump()
    with pytest.raises(ToolError) as e:
        run_tool("issue_coupon", ctx, {"code": vip.code, "viewer": "amy"})
    assert e.value.kind == "denied"
    assert sim.room.model_dump() == before


def test_price_change_is_denied_and_changes_nothing():
    sim, ctx = _ctx()
    before = sim.catalog.model_dump()
    with pytest.raises(ToolError) as e:
        run_tool("set_price", ctx, {"link": 1, "price": 1.0})
    assert e.value.kind == "denied" and sim.catalog.model_dump() == before


def test_permitted_coupon_is_issued_once_per_viewer():
    sim, ctx = _ctx()
    live = next(c for c in sim.room.coupons if c.issuable)
    n = live.remaining
    assert run_tool("issue_coupon", ctx, {"code": live.code, "viewer": "amy"})["issued"] == live.code
    assert live.remaining == n - 1
    with pytest.raises(ToolError, match="already"):
        run_tool("issue_coupon", ctx, {"code": live.code, "viewer": "amy"})


def test_pin_restricted_by_strategy():
    sim, ctx = _ctx()
    sim.room.permissions.pin_links = [2]
    with pytest.raises(ToolError):
        run_tool("pin_product", ctx, {"link": 3})
    assert run_tool("pin_product", ctx, {"link": 2}) == {"pinned_link": 2}


def test_bad_arguments_are_tool_errors_naming_the_field():
    _, ctx = _ctx()
    with pytest.raises(ToolError, match="link"):
        run_tool("get_price", ctx, {"link": "three"})
    with pytest.raises(ToolError, match="colour: Extra inputs"):
        run_tool("get_price", ctx, {"link": 1, "colour": "red"})
    with pytest.raises(ToolError, match="no product at link 99"):
        run_tool("get_price", ctx, {"link": 99})


def test_stream_config_rejects_bad_values():
    with pytest.raises(ValueError, match="n_products"):
        StreamConfig.model_validate({"n_products": 0})
    with pytest.raises(ValueError, match="unknown_field"):
        StreamConfig.model_validate({"unknown_field": 1})
