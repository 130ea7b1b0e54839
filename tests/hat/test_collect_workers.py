"""Collect in worker processes: the same dataset bytes for any number of workers and any lockstep batch size."""

from __future__ import annotations

import hashlib
from pathlib import Path

import pytest

pytest.importorskip("datasets")

from livesim.hat import collect  # noqa: E402
from livesim.hat.collect import CollectConfig  # noqa: E402

CFG = CollectConfig(episodes=12, seed=3, batch_size=4)


def _digest(path: Path) -> str:
    h = hashlib.sha256()
    for f in sorted((path / "data").rglob("*.arrow")):
        h.update(f.read_bytes())
    h.update((path / "stats.json").read_bytes())
    return h.hexdigest()


def test_same_bytes_for_any_workers_and_batch(tmp_path):
    one = collect.run(CFG, tmp_path / "one", show_progress=False)
    two = collect.run(CFG.model_copy(update={"workers": 2, "batch_size": 3}), tmp_path / "two", show_progress=False)
    assert CFG.key() == CFG.model_copy(update={"workers": 2, "batch_size": 3}).key()
    stats = collect.stats(one)
    assert stats["filter"]["candidates"] >= 12 and stats["variants"].get("augmented", 0) > 0
    assert _digest(one) == _digest(two)  # the arrow files and stats.json, byte for byte
    assert (one / "README.md").read_bytes() == (two / "README.md").read_bytes()
    a, b = collect.load(one), collect.load(two)
    assert a["train"]["id"] == b["train"]["id"] and a["validation"]["id"] == b["validation"]["id"]
    assert a["train"]["messages"] == b["train"]["messages"]


def test_plan_is_in_episode_order_and_seeded():
    plan = collect.episode_plan(CFG)
    assert [i for i, *_ in plan] == list(range(12))
    assert plan == collect.episode_plan(CFG)
    assert not any(aug for *_, aug in collect.episode_plan(CFG.model_copy(update={"fixed_harness": True})))


def test_token_lengths_equal_the_chat_template_one_at_a_time(tiny_model_dir):
    import json

    from transformers import AutoTokenizer

    records, _ = collect.build_records(CFG, collect.play(CFG, show_progress=False))
    tok = AutoTokenizer.from_pretrained(tiny_model_dir)
    one_by_one = [len(tok.apply_chat_template(r["messages"], tools=json.loads(r["tools"]), tokenize=True,
                                              return_dict=True)["input_ids"]) for r in records]
    assert len(records) >= 6 and collect.token_lengths(records, tok) == one_by_one
    assert collect.token_lengths([], tok) == []
