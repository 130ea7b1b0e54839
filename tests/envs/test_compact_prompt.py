"""The compact prompt: one presented form that drops the duplicated Tools block and keeps the task intact."""

from __future__ import annotations

import json

import gymnasium as gym

import livesim  # noqa: F401
from livesim.agents.oracle import OracleAgent
from livesim.envs.hsa import make_wrappers
from livesim.envs.rollout import episode_requests
from livesim.grading.latency import count_tokens
from livesim.harness.core import default_harness, terse_text


def _harness(style: str = "markdown", budget: int | None = None):
    h = default_harness()
    h.prompt.style = style  # type: ignore[assignment]
    h.prompt.token_budget = budget
    return h


def _size(obs: dict) -> int:
    return count_tokens(obs["messages"][0]["content"]) + count_tokens(json.dumps(obs["tools"]))


def test_compact_drops_the_tools_block_and_keeps_names_limits_and_types() -> None:
    full, _ = gym.make("LiveStreamQA-v0").reset(seed=3)
    small, _ = gym.make("LiveStreamQA-v0", harness=_harness("compact")).reset(seed=3)
    system = small["messages"][0]["content"]
    assert "## Tools" in full["messages"][0]["content"] and "# Tools" not in system
    assert "# Rules" in system and "# Skills" in system and "at most 320 characters" in system
    assert _size(small) < 0.7 * _size(full)
    assert [t["function"]["name"] for t in small["tools"]] == [t["function"]["name"] for t in full["tools"]]
    for a, b in zip(full["tools"], small["tools"], strict=True):
        pa, pb = a["function"]["parameters"], b["function"]["parameters"]
        assert list(pa["properties"]) == list(pb["properties"]) and pa.get("required") == pb.get("required")
        assert all("description" not in p for p in pb["properties"].values())
        assert len(b["function"]["description"]) <= len(a["function"]["description"])
    assert {"type": "string"} == small["tools"][1]["function"]["parameters"]["properties"]["category"]


def test_compact_puts_the_room_last_so_requests_share_their_opening() -> None:
    from livesim.harness.prompt import ROOM_BLOCKS

    systems = [gym.make("LiveStreamQA-v0", harness=_harness("compact")).reset(seed=s)[0]["messages"][0]["content"]
               for s in (3, 4)]
    titles = [line for line in systems[0].splitlines() if line.startswith("# ")]
    assert titles == ["# Role", "# Rules", "# Skills", "# Format", "# Room", "# Links", "# Strategy"]
    head = systems[0][: systems[0].index("# Room")]
    assert systems[1].startswith(head) and systems[0] != systems[1]  # everything before the room is shared
    # a reordered harness keeps its order within each group (HSA's block-order transform stays visible)
    h = _harness("compact")
    h.prompt.blocks = ["strategy", "skill_index", "product_context", "rules", "persona", "room_context",
                       "tools", "output_format"]
    system = gym.make("LiveStreamQA-v0", harness=h).reset(seed=3)[0]["messages"][0]["content"]
    titles = [line for line in system.splitlines() if line.startswith("# ")]
    assert titles == ["# Skills", "# Rules", "# Role", "# Format", "# Strategy", "# Links", "# Room"]
    assert {"room_context", "product_context", "strategy"} == ROOM_BLOCKS
    # the other styles present the harness's order as it is
    md = gym.make("LiveStreamQA-v0", harness=_harness("markdown")).reset(seed=3)[0]["messages"][0]["content"]
    assert md.index("## Room Context") < md.index("## Skill Index")


def test_terse_text_keeps_the_first_clause() -> None:
    assert terse_text("Get a product's details: name, category.") == "Get a product's details"
    assert terse_text("Issue a coupon to a viewer, if the current strategy allows it.") == "Issue a coupon to a viewer"
    assert terse_text("Short: x") == "Short: x"  # too short a head keeps the whole text


def test_token_budget_switches_an_oversized_prompt_to_compact() -> None:
    big, _ = gym.make("LiveStreamQA-v0", harness=_harness(budget=100_000)).reset(seed=1)
    cut, _ = gym.make("LiveStreamQA-v0", harness=_harness(budget=400)).reset(seed=1)
    small, _ = gym.make("LiveStreamQA-v0", harness=_harness("compact")).reset(seed=1)
    full, _ = gym.make("LiveStreamQA-v0").reset(seed=1)
    assert big == full and cut == small


def test_fingerprint_of_the_default_harness_is_unchanged_by_the_new_fields() -> None:
    assert default_harness().model_dump(exclude_none=True)["prompt"].keys() >= {"style", "limits"}
    assert "token_budget" not in default_harness().model_dump(exclude_none=True)["prompt"]


def test_oracle_reward_per_request_is_unchanged_under_compact() -> None:
    # Per request (LiveStreamQA-v0). In a whole stream a shorter prompt costs less simulated prefill time,
    # so the clock, and which comments arrive when, shift: as under every HSA prompt transform.
    env_id = "LiveStreamQA-v0"

    def rewards(harness, wrappers=None):
        kwargs = {"harness": harness} if harness else {}
        env = gym.make(env_id, **kwargs)
        if wrappers:
            env = make_wrappers(env, wrappers, split="train", p=1.0)
        agent = OracleAgent(env=env)
        seeds = range(60)
        return [r["reward"] for s in seeds for r in episode_requests(env, agent, s)]

    base = rewards(None)
    assert len(base) >= 20 and max(base) > 0.9
    assert rewards(_harness("compact")) == base
    assert rewards(_harness(budget=400)) == base
    # under HSA's prompt-structure dimension compact is one more presented form (train split)
    assert rewards(_harness("compact"), "hsa_prompt") == rewards(None, "hsa_prompt")


# --- what SmolLM2 sees: the compact prompt through the zoo's tool template --------------------------------------

SMOLLM2_BUDGET = 1200  # SmolLM2 tokens, all tools present (issue 9)
PROXY_BUDGET = 1100  # count_tokens (4 chars a token) undercounts SmolLM2 by 4-7% on these prompts: 1,100 -> < 1,200


def _smollm2_texts(style: str, seeds=range(12)) -> list[str]:
    import pytest

    chat = pytest.importorskip("transformers.utils.chat_template_utils")
    from livesim.models.zoo import SMOLLM2_TOOL_TEMPLATE

    harness = _harness(style)
    texts = []
    for seed in seeds:
        obs, _ = gym.make("LiveStreamQA-v0", harness=harness).reset(seed=seed)
        rendered, _ = chat.render_jinja_template(conversations=[obs["messages"]], tools=obs["tools"],
                                                 chat_template=SMOLLM2_TOOL_TEMPLATE, add_generation_prompt=True)
        texts.append(rendered[0])
    return texts


def test_smollm2_template_lists_terse_tools_one_line_each_and_full_schemas_as_json() -> None:
    compact, full = _smollm2_texts("compact", [3])[0], _smollm2_texts("markdown", [3])[0]
    assert "<tools>" in full and '"description": "' in full  # described schemas: Hermes JSON, as before
    assert "<tools>" not in compact and '"parameters"' not in compact
    for tool in _harness("compact").tool_schemas():
        fn = tool["function"]
        params = fn["parameters"]["properties"]
        line = next(x for x in compact.splitlines() if x.startswith(fn["name"] + "("))
        for name in params:  # every argument with its type; optional ones marked or given their default
            optional = name not in fn["parameters"].get("required", [])
            assert f"{name}{'?' if optional and 'default' not in params[name] else ''}: {params[name]['type']}" in line
        assert line.removesuffix("<|im_end|>").endswith(" - " + fn["description"])
    assert "limit: integer = 5" in compact and "max_price?: number" in compact


def test_compact_prompt_fits_the_smollm2_budget_by_the_tokenizer_free_proxy() -> None:
    compact = [count_tokens(t) for t in _smollm2_texts("compact")]
    markdown = [count_tokens(t) for t in _smollm2_texts("markdown")]
    assert max(compact) <= PROXY_BUDGET < min(markdown) / 2


def test_compact_prompt_fits_the_smollm2_budget_with_the_real_tokenizer() -> None:
    import pytest

    from livesim.models.zoo import ModelNotAvailableError, resolve_model

    try:
        path = resolve_model("smollm2-135m")
    except ModelNotAvailableError:
        pytest.skip("smollm2-135m is not prepared (livesim models prepare smollm2-135m)")
    tok = pytest.importorskip("transformers").AutoTokenizer.from_pretrained(path)
    counts = [len(tok(t, add_special_tokens=False)["input_ids"]) for t in _smollm2_texts("compact")]
    assert max(counts) <= SMOLLM2_BUDGET
    obs, _ = gym.make("LiveStreamQA-v0", harness=_harness("compact")).reset(seed=0)
    ids = tok.apply_chat_template(obs["messages"], tools=obs["tools"], add_generation_prompt=True, tokenize=True,
                                  return_dict=True)["input_ids"]
    assert len(ids) <= SMOLLM2_BUDGET  # the template the prepared model carries is the zoo's
