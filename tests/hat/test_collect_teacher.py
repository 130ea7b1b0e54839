"""Collect's default teacher (the reader under HSA, the oracle on the fixed harness) and `collect_stats`."""

from __future__ import annotations

import json

from livesim.hat.collect import CollectConfig, build_records, play
from livesim.hat.collect_stats import conversation_stats, orthography


def test_default_teacher_by_harness_mode_and_in_the_key():
    assert CollectConfig().teacher_name == "reader"
    assert CollectConfig(fixed_harness=True).teacher_name == "oracle"
    assert CollectConfig(teacher="oracle").teacher_name == "oracle"
    # the key holds the resolved teacher: a default and the same teacher named share data, another does not
    assert CollectConfig().key() == CollectConfig(teacher="reader").key() != CollectConfig(teacher="oracle").key()
    assert CollectConfig(fixed_harness=True).key() == CollectConfig(fixed_harness=True, teacher="oracle").key()


def _records(teacher: str | None, episodes: int = 24) -> list[dict]:
    cfg = CollectConfig(teacher=teacher, episodes=episodes, batch_size=6, hsa_p=1.0, canonical_fraction=0.0, seed=5)
    records, counts = build_records(cfg, play(cfg, show_progress=False))
    assert counts["kept"] >= episodes - 2, counts
    return records


def test_reader_data_every_choice_inferable_and_evidenced():
    stats = conversation_stats(_records(None))
    assert stats["conversations"] >= 22 and stats["choices"] > 40
    assert stats["inferable"] == 1.0
    assert stats["skill_loads_evidenced"] == 1.0 and stats["skill_loads_without_evidence"] == 0
    assert stats["forms"]["prompt_style"] and stats["tokens_per_conversation"] > 100


def test_oracle_loads_skills_it_cannot_know():
    """The oracle picks the right skill among ones the index says nothing about; the stats catch it."""
    stats = conversation_stats(_records("oracle", episodes=48))
    assert stats["inferable"] == 1.0  # it still only names what is presented
    assert stats["skill_loads_without_evidence"] > 0


def test_a_blind_pick_past_untried_candidates_is_counted():
    system = "## Skills\n- abcq-xyzzy: n/a\n- mmno-pqrst: n/a\n\n## Format\n- You have at most 5 turns per request."
    tools = [{"type": "function", "function": {"name": "ld", "description": "Load a skill by name.", "parameters": {
        "type": "object", "properties": {"nm": {"type": "string", "description": "skill name"}}, "required": ["nm"]}}}]

    def record(order: list[str]) -> dict:
        calls = [{"type": "function", "function": {"name": "ld", "arguments": json.dumps({"nm": n})}} for n in order]
        return {"tools": tools, "messages": [
            {"role": "system", "content": system}, {"role": "user", "content": "[a] hi"},
            {"role": "assistant", "content": "", "tool_calls": calls},
            *({"role": "tool", "content": f"# {n}\n- rules"} for n in order),
            {"role": "assistant", "content": "Hi a!", "tool_calls": []}]}

    in_order = conversation_stats([record(["abcq-xyzzy", "mmno-pqrst"])])
    skipped = conversation_stats([record(["mmno-pqrst"])])
    assert in_order["skill_loads_without_evidence"] == 0
    assert skipped["skill_loads_without_evidence"] == 1
    # two calls, each naming 'ld', 'nm' and a generated skill: six names, none canonical or a vocabulary synonym
    assert in_order["copy_targets_per_1000"] == 6000.0 and in_order["copy_target_share"] == 1.0
    assert orthography("fetchItem") == "camel" and orthography("get_price") == "snake" and orthography(
        "x9-ab") == "kebab" and orthography("Uwy0SuOhmhaR") == "mixed"
