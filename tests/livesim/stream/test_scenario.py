"""Scenario files: bundled scenarios load and run, bad files are refused naming file, field and line."""

from __future__ import annotations

import re

import pytest

from livesim.cli import main
from livesim.stream.scenario import (
    BUNDLED_DIR,
    SCENARIO_PATH_ENV,
    ScenarioError,
    bundled_scenarios,
    load_scenario,
    parse_scenario,
)

THEMES = {"flash-sale-rush", "tool-rename-skill-rewrite", "apparel-size-advice", "prompt-injection-raid",
          "after-sales-faults", "compare-coupon-rules"}
HEAD = "name: x\npurpose: a test\nduration_s: 60\n"


def test_bundled_scenarios_cover_the_themes_and_load():
    names = bundled_scenarios()
    assert THEMES <= set(names)
    for name in names:
        sc = load_scenario(name)
        assert sc.name == name
        assert "\n" not in sc.purpose and sc.purpose
        assert 60 <= sc.duration_s <= 120  # golden records stay small
        cfg = sc.to_config()
        assert cfg.duration_s == sc.duration_s and cfg.script == sc.script and cfg.patches == sc.patches


def test_load_by_path_and_by_name_agree(tmp_path):
    by_name = load_scenario("flash-sale-rush")
    by_path = load_scenario(BUNDLED_DIR / "flash-sale-rush.yaml")
    assert by_name == by_path
    with pytest.raises(FileNotFoundError, match="flash-sale-rush"):  # lists the bundled names
        load_scenario("no-such-scenario")


def test_scenario_path_env_is_searched_first(tmp_path, monkeypatch):
    (tmp_path / "mine.yaml").write_text(HEAD.replace("name: x", "name: mine"))
    monkeypatch.setenv(SCENARIO_PATH_ENV, str(tmp_path))
    assert load_scenario("mine").name == "mine"
    assert "mine" in bundled_scenarios()


def test_inline_catalogue_and_verbatim_text_reach_the_stream():
    import gymnasium as gym

    import livesim  # noqa: F401

    sc = load_scenario("apparel-size-advice")
    env = gym.make("LiveStream-v0")
    env.reset(seed=sc.seed, options=sc.reset_options())
    sim = env.unwrapped.sim
    assert [p.name for p in sim.catalog.products] == [p.name for p in sc.catalog.products]
    verbatim = {c.text for c in sc.script if c.text}
    seen = set()
    from livesim.agents import make_agent

    agent = make_agent("oracle", env=env)
    obs, done = env.unwrapped.sim.observation(), False
    while not done:
        seen.update(c.text for c in sim.request.comments)
        obs, _, term, trunc, _ = env.step(agent.act(obs))
        done = term or trunc
    assert verbatim <= seen


BAD = {
    "yaml syntax": (HEAD + "script: [unclosed\n", None, 5),
    "unknown field": (HEAD + "colour: red\n", "colour", 4),
    "wrong type": ("name: x\npurpose: p\nduration_s: sixty\n", "duration_s", 3),
    "missing field": ("name: x\nduration_s: 60\n", "purpose", 1),
    "unknown intent": (HEAD + "script:\n  - at_s: 5\n    intent: pricee\n", "script[0].intent", 6),
    "link not in catalogue": (HEAD + "catalog: {n_products: 3}\nscript:\n  - {at_s: 5, intent: price, links: [9]}\n",
                              "script[0].links[0]", 6),
    "comment after the end": (HEAD + "script:\n  - {at_s: 500, intent: price}\n", "script[0].at_s", 5),
    "unknown patch op": (HEAD + "patches:\n  - op: rename_tol\n    name: get_price\n", "patches[0]", 5),
    "patch names a missing tool": (HEAD + "patches:\n  - op: rename_tool\n    name: get_pricez\n    new_name: a\n",
                                   "patches[0]", 5),
    "bad strategy params": (HEAD + "strategy:\n  - at_s: 0\n    kind: add_coupon\n    params: {code: A}\n",
                            "strategy[0].params.discount", 7),
    "fault rates over 1": (HEAD + "faults: {timeout: 0.7, denied: 0.6}\n", "faults", 4),
    "duplicate key": (HEAD + "seed: 1\nseed: 2\n", "seed", 5),
    "code in a tag": ("name: !!python/object/apply:os.system ['echo hi']\npurpose: p\nduration_s: 60\n", None, 1),
    "not a mapping": ("- a\n- b\n", None, 1),
    "empty file": ("", None, 1),
    "both catalogue kinds": (HEAD + "catalog:\n  n_products: 3\n  products: []\n", "catalog.products", 6),
    "inline product missing attributes": (
        HEAD + "catalog:\n  products:\n    - {link: 1, product_id: P1, name: Shirt, short_name: shirt, brand: B,\n"
        "       category: apparel, list_price: 99, live_price: 79, attributes: {material: cotton},\n"
        "       skus: [], shipping: {ships_within_hours: 24, fee: 6, free_over: 99},\n"
        "       after_sales: {returnable: true}}\n", "catalog.products[0].attributes", 7),
}


@pytest.mark.parametrize("kind", sorted(BAD))
def test_malformed_scenarios_are_refused_with_file_field_and_line(kind):
    text, field, line = BAD[kind]
    with pytest.raises(ScenarioError) as err:
        parse_scenario(text, f"bad-{kind.replace(' ', '-')}.yaml")
    msg = str(err.value)
    first = err.value.problems[0]
    assert f"bad-{kind.replace(' ', '-')}.yaml:{line}:" in msg, msg
    assert first.line == line, msg
    if field is not None:
        assert any(p.field == field for p in err.value.problems), msg


def test_every_problem_is_listed_not_just_the_first():
    text = HEAD + "script:\n  - {at_s: 5, intent: nope}\n  - {at_s: 6, intent: price, links: [99]}\n"
    with pytest.raises(ScenarioError) as err:
        parse_scenario(text, "two.yaml")
    assert [p.field for p in err.value.problems] == ["script[0].intent", "script[1].links[0]"]
    assert [p.line for p in err.value.problems] == [5, 6]


def test_cli_refuses_a_bad_scenario_before_anything_is_written(tmp_path, capsys):
    bad = tmp_path / "bad.yaml"
    bad.write_text(BAD["unknown intent"][0])
    out = tmp_path / "run.jsonl"
    assert main(["run", "--scenario", str(bad), "--agent", "oracle", "--record", str(out)]) == 2
    err = capsys.readouterr().err
    assert re.search(r"bad\.yaml:6: script\[0\]\.intent: unknown intent 'pricee'", err), err
    assert not out.exists()
    assert main(["scenarios", "--check", str(bad)]) == 2


def _rewards_around(agent_name: str, patch_s: float) -> tuple[list[float], list[float]]:
    import gymnasium as gym

    from livesim.agents import make_agent

    sc = load_scenario("tool-rename-skill-rewrite")
    env = gym.make("LiveStream-v0")
    agent = make_agent(agent_name, env=env)
    obs, _ = env.reset(seed=sc.seed, options=sc.reset_options())
    agent.reset()
    before, after, done = [], [], False
    while not done:
        obs, reward, term, trunc, info = env.step(agent.act(obs))
        done = term or trunc
        if info["dispatched"]:
            (before if info["request"]["t"] < patch_s else after).append(reward)
    return before, after


def test_tool_rename_keeps_the_oracle_and_breaks_the_memorizer():
    patch_s = min(p.at_s for p in load_scenario("tool-rename-skill-rewrite").patches)
    before, after = _rewards_around("oracle", patch_s)
    assert len(before) >= 4 and len(after) >= 4
    assert min(before + after) > 0.99
    mem_before, mem_after = _rewards_around("memorizer", patch_s)
    assert min(mem_before) > 0.99  # the canonical names still work before the patch
    assert sum(mem_after) / len(mem_after) < 0.5  # and stop working after it
