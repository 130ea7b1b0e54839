"""Partial harness files merge with the canonical harness by key; names are validated; `harness show --harness`."""

from __future__ import annotations

import pytest

from livesim.cli import main
from livesim.harness import default_harness
from livesim.stream.harness_file import HarnessFileError, parse_harness

RENAME = "tools:\n  - {key: get_price, name: price_lookup}\n"


def test_a_partial_tools_list_changes_only_the_tools_it_names():
    canonical = default_harness()
    h = parse_harness(RENAME)
    assert [t.key for t in h.tools] == [t.key for t in canonical.tools]  # load_skill and the rest are kept
    price = next(t for t in h.tools if t.key == "get_price")
    assert price.name == "price_lookup" and price.params == next(t for t in canonical.tools
                                                                 if t.key == "get_price").params
    skills = parse_harness("skills:\n  - {key: small-talk, name: chit-chat}\n").skills
    assert len(skills) == len(canonical.skills) and "chit-chat" in [s.name for s in skills]


def test_replace_true_makes_the_given_lists_whole():
    h = parse_harness("replace: true\n" + RENAME.replace("price_lookup}", "price_lookup, description: d, "
                                                         "params: [{key: link, name: link, description: n}]}"))
    assert [t.key for t in h.tools] == ["get_price"]
    only_tools = parse_harness("replace: [tools]\n" + RENAME.replace("price_lookup}", "price_lookup, "
                               "description: d, params: []}") + "skills:\n  - {key: small-talk, name: chit}\n")
    assert len(only_tools.tools) == 1 and len(only_tools.skills) == len(default_harness().skills)
    with pytest.raises(HarnessFileError, match="replace: expected true, false or a list"):
        parse_harness("replace: sometimes\n")


def test_a_bad_tool_name_is_one_line_at_its_own_line():
    with pytest.raises(HarnessFileError) as err:
        parse_harness('# mine\ntools:\n  - {key: get_price, name: "price lookup!"}\n', "h.yaml")
    assert str(err.value).startswith("invalid harness file h.yaml:3: tools[0].name: 'price lookup!' is not a usable")


def test_the_oracle_scores_the_same_on_a_renamed_tool_and_show_previews_it(tmp_path, capsys):
    path = tmp_path / "h.yaml"
    path.write_text(RENAME)
    assert main(["eval", "--agent", "oracle", "--episodes", "6", "--quiet", "--json", "--harness", str(path)]) == 0
    renamed = capsys.readouterr().out
    assert main(["eval", "--agent", "oracle", "--episodes", "6", "--quiet", "--json"]) == 0
    canonical = capsys.readouterr().out
    import json

    assert json.loads(renamed)["mean_reward"] == json.loads(canonical)["mean_reward"] > 0.9
    assert main(["harness", "show", "--harness", str(path)]) == 0
    out = capsys.readouterr().out
    assert "price_lookup" in out and "load_skill" in out and f"from {path}" in " ".join(out.split())
