"""The KV-cached decode loop: greedy actions identical to a fresh full-prefill `generate`, less prefill."""

from __future__ import annotations

import numpy as np
import pytest

torch = pytest.importorskip("torch")

import gymnasium as gym  # noqa: E402

import livesim  # noqa: E402,F401
from livesim.agents.kv_cache import PrefixCache, TurnEnd, _common_prefix  # noqa: E402
from livesim.agents.transformers_agent import TransformersAgent  # noqa: E402
from livesim.envs.rollout import run_batched  # noqa: E402
from livesim.harness import default_harness  # noqa: E402


class _Recording(TransformersAgent):
    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.seen: list[tuple[dict, str]] = []

    def act_batch(self, observations):
        actions = super().act_batch(observations)
        self.seen += list(zip(observations, actions, strict=True))
        return actions


@pytest.mark.parametrize("style", ["markdown", "compact"])
def test_cached_greedy_actions_equal_a_fresh_full_prefill_generate(tiny_model_dir, style) -> None:
    harness = default_harness()
    harness.prompt.style = style  # type: ignore[assignment]
    agent = _Recording(str(tiny_model_dir), device="cpu", max_new_tokens=20, batch_size=3)
    records = list(run_batched(lambda: gym.make("LiveStreamQA-v0", harness=harness), agent, [0, 1, 2, 3, 4], 3))
    assert len(records) == 5
    multi_turn = [obs for obs, _ in agent.seen if len(obs["messages"]) > 2]
    assert multi_turn, "some requests go on after the first turn (hook messages), so caches are reused"
    assert agent.stats["reused_tokens"] > 0
    assert agent.stats["prefill_tokens"] < agent.stats["prompt_tokens"] / 2
    reference = TransformersAgent(agent.model, tokenizer=agent.tokenizer, max_new_tokens=20, batch_size=1,
                                  kv_cache=False)
    for obs, action in agent.seen:
        assert reference.act(obs) == action  # model.generate on the whole prompt, one at a time
    assert reference.stats["prefill_tokens"] == reference.stats["prompt_tokens"]


def test_turn_end_rule() -> None:
    rule = TurnEnd(frozenset({0}), call_start=1, call_end=2)
    assert rule.end([5, 6, 0, 7]) == 3  # EOS kept, the rest cut
    assert rule.end([1, 5, 2, 9, 9]) is None  # a closed call: wait for another <tool_call>
    assert rule.end([1, 5, 2, 9, 9, 9]) == 3  # ...which did not come: cut after </tool_call>
    assert rule.end([1, 5, 2, 9, 1, 5, 2, 9, 9, 9]) == 7  # two calls in one turn
    assert TurnEnd(frozenset({0}), 1, 2, after_tool_call=False).end([1, 5, 2, 9, 9, 9]) is None


def test_prefix_cache_matches_longest_prefix_and_evicts() -> None:
    t = torch.zeros(1, 1, 4, 2)
    cache = PrefixCache(max_entries=2, min_prefix=2)
    cache.put([1, 2, 3, 4], [(t, t)])
    cache.put([1, 2, 9, 9], [(t, t)])
    assert cache.match([1, 2, 3, 4, 5]) == (0, 4)
    assert cache.match([7, 7]) == (None, 0)
    kv = cache.take(0, 3, consume=True)
    assert kv[0][0].shape[2] == 3 and 0 not in cache.entries
    cache.put([5], [(t, t)])
    cache.put([6], [(t, t)])
    assert len(cache.entries) == 2
    assert _common_prefix([1, 2, 3], [1, 2, 4, 5]) == 2 and _common_prefix([], [1]) == 0
    rng = np.random.default_rng(0)  # lists or arrays, it agrees with a plain scan everywhere
    for _ in range(200):
        a = rng.integers(0, 3, size=int(rng.integers(0, 40))).tolist()
        b = a[: int(rng.integers(0, len(a) + 1))] + rng.integers(0, 3, size=int(rng.integers(0, 5))).tolist()
        scan = next((i for i, (x, y) in enumerate(zip(a, b, strict=False)) if x != y), min(len(a), len(b)))
        assert _common_prefix(np.asarray(a, dtype=np.int64), np.asarray(b, dtype=np.int64)) == \
            _common_prefix(a, b) == scan


def test_a_batch_common_prefix_is_prefilled_once_and_shared(tiny_model_dir) -> None:
    from transformers import AutoModelForCausalLM

    from livesim.agents.kv_cache import GenStats, generate_cached

    model = AutoModelForCausalLM.from_pretrained(tiny_model_dir).eval()
    prefix = [(7 * i) % 200 + 5 for i in range(40)]
    prompts = [prefix + [11, 12, 13], prefix + [21, 22], prefix + [31, 32, 33, 34]]
    rule = TurnEnd(frozenset({0}))
    cache, stats = PrefixCache(min_prefix=16), GenStats()
    outs = generate_cached(model, prompts, cache, rule, max_new_tokens=6, pad_id=0, stats=stats)
    # the 40 shared tokens once, then each row's own tail
    assert stats.prefill_tokens == 40 + 3 + 2 + 4
    shared = [e for e in cache.entries.values() if e.shared]
    assert len(shared) == 1 and shared[0].ids == prefix  # read by every row, consumed by none
    for prompt, out in zip(prompts, outs, strict=True):  # as if each prompt were generated alone, from scratch
        assert generate_cached(model, [prompt], PrefixCache(), rule, max_new_tokens=6, pad_id=0) == [out]
    # a batch whose prefix is cached already: nothing is prefilled twice
    again = GenStats()
    generate_cached(model, [prefix + [41, 42], prefix + [51]], cache, rule, max_new_tokens=2, pad_id=0, stats=again)
    assert again.prefill_tokens == 2 + 1
    # no common prefix worth sharing: rows are prefilled as they are
    alone = GenStats()
    generate_cached(model, [[5, 6, 7], [8, 9]], PrefixCache(min_prefix=16), rule, max_new_tokens=2, pad_id=0,
                    stats=alone)
    assert alone.prefill_tokens == 5


def test_prompt_lookup_keeps_greedy_actions_and_saves_forward_passes(tiny_model_dir) -> None:
    harness = default_harness()
    harness.prompt.style = "compact"  # type: ignore[assignment]
    runs = {}
    for lookahead in (0, 8):
        agent = _Recording(str(tiny_model_dir), device="cpu", max_new_tokens=40, batch_size=3, lookahead=lookahead)
        list(run_batched(lambda: gym.make("LiveStreamQA-v0", harness=harness), agent, list(range(6)), 3))
        runs[lookahead] = agent
    plain, drafted = runs[0], runs[8]
    assert [a for _, a in drafted.seen] == [a for _, a in plain.seen]
    assert plain.stats["draft_tokens"] == 0 and drafted.stats["accepted_draft_tokens"] > 0
    assert drafted.gen_stats.forward_calls < plain.gen_stats.forward_calls
    assert drafted.stats["completion_tokens"] == plain.stats["completion_tokens"]


def test_lookup_drafts_follow_the_latest_earlier_occurrence() -> None:
    from livesim.agents.kv_cache import _Lookup

    lk = _Lookup([1, 2, 3, 4, 5, 9, 2, 3])
    assert lk.draft(2) == [4, 5]  # (2, 3) occurred before, followed by 4, 5
    lk.extend([4, 7, 7])
    assert lk.draft(3) == []  # (4, 7, 7), (7, 7): never seen before
    lk.extend([1, 2, 3])
    assert lk.draft(8) == [4, 5, 9, 2, 3, 4, 7, 7]  # what followed the earlier (1, 2, 3)
    assert lk.draft(50) == [4, 5, 9, 2, 3, 4, 7, 7, 1, 2, 3]  # at most up to the end of the sequence
    assert _Lookup([5]).draft(4) == []


def test_turn_layer_grows_and_keeps_rows() -> None:
    from livesim.agents.kv_cache import _turn_layer_class

    layer = _turn_layer_class()(2)
    k = torch.arange(2 * 1 * 3 * 2, dtype=torch.float32).view(2, 1, 3, 2)
    keys, values = layer.update(k, -k)
    assert layer.capacity >= 3 and layer.get_seq_length() == 3 and torch.equal(keys, k) and torch.equal(values, -k)
    layer.update(k[:, :, :1], k[:, :, :1])
    layer.keep_rows(torch.tensor([1]))
    assert layer.keys.shape == (1, 1, 4, 2) and torch.equal(layer.keys[0, :, :3], k[1])


def test_grouped_sdpa_equals_repeated_heads_and_the_model_gets_its_attention_back(tiny_model_dir) -> None:
    from types import SimpleNamespace

    from transformers.integrations.sdpa_attention import repeat_kv

    from livesim.agents.kv_cache import _grouped_sdpa

    g = torch.Generator().manual_seed(0)
    q, k, v = (torch.randn(2, h, n, 8, generator=g) for h, n in ((6, 3), (2, 10), (2, 10)))
    mask = torch.ones(2, 1, 3, 10, dtype=torch.bool)
    mask[0, :, :, :4] = False  # left padding of row 0
    mask[:, :, :, 7:] = torch.tril(torch.ones(3, 3, dtype=torch.bool))  # causal among the fed tokens
    out, _ = _grouped_sdpa(SimpleNamespace(num_key_value_groups=3), q, k, v, mask, scaling=0.3)
    ref = torch.nn.functional.scaled_dot_product_attention(q, repeat_kv(k, 3), repeat_kv(v, 3), attn_mask=mask,
                                                           scale=0.3).transpose(1, 2)
    assert out.shape == (2, 3, 6, 8) and torch.allclose(out, ref, atol=1e-6)
    # a long query on a one-layer model: cheaper unfolded (repeat_kv) with the additive mask made once
    from livesim.agents import kv_cache

    q, k, v = (torch.randn(2, h, n, 8, generator=g) for h, n in ((6, 40), (2, 50), (2, 50)))
    mask = torch.ones(2, 1, 40, 50, dtype=torch.bool)
    mask[1, :, :, :7] = False
    mask[:, :, :, 10:] = torch.tril(torch.ones(40, 40, dtype=torch.bool))
    module = SimpleNamespace(num_key_value_groups=3, config=SimpleNamespace(num_hidden_layers=1), is_causal=True)
    out, _ = _grouped_sdpa(module, q, k, v, mask, scaling=0.3)
    assert kv_cache._FOLDED_MASK[1][2] is False  # (n_rep, dtype, folded)
    ref = torch.nn.functional.scaled_dot_product_attention(q, repeat_kv(k, 3), repeat_kv(v, 3), attn_mask=mask,
                                                           scale=0.3).transpose(1, 2)
    assert torch.allclose(out, ref, atol=1e-5)
    kv_cache._FOLDED_MASK = None
    agent = TransformersAgent(str(tiny_model_dir), device="cpu", max_new_tokens=4)
    before = agent.model.config._attn_implementation
    agent.act({"messages": [{"role": "user", "content": "hi"}], "tools": []})
    assert agent.model.config._attn_implementation == before == "sdpa"


def test_turn_end_scanner_fed_in_pieces_equals_the_whole_scan() -> None:
    rule = TurnEnd(frozenset({0}), call_start=1, call_end=2)
    rng = np.random.default_rng(0)
    for _ in range(300):
        ids = rng.choice([0, 1, 2, 5, 9], size=int(rng.integers(0, 14)), p=[0.05, 0.15, 0.2, 0.3, 0.3]).tolist()
        scan, got, k = rule.scanner(), None, 0
        while k < len(ids) and got is None:
            step = int(rng.integers(1, 4))
            got = scan.feed(ids[k : k + step])
            k += step
        assert got == rule.end(ids)


def _two_turns(model, prompts, rule, **kwargs):
    """Two turns of `generate_cached` (the second extends each prompt by its completion and three env tokens)."""
    from livesim.agents.kv_cache import GenStats, generate_cached

    stats, cache, outs = GenStats(), PrefixCache(), []
    for turn in range(2):
        batch = prompts if turn == 0 else [p + o + [7, 8, 9] for p, o in zip(prompts, outs[-1], strict=True)]
        outs.append(generate_cached(model, batch, cache, rule, max_new_tokens=30, pad_id=0,
                                    generator=torch.Generator().manual_seed(3), stats=stats, **kwargs))
    entries = [e.ids for e in cache.entries.values()]
    kv = [e.kv[0][0] for e in cache.entries.values()]
    return outs, stats, entries, kv


@pytest.mark.parametrize("temperature,lookahead", [(0.0, 0), (0.0, 4), (1.0, 0)])
def test_fixed_shape_decode_equals_the_loop(tiny_model_dir, temperature, lookahead) -> None:
    """The CUDA-graph path's fixed-shape steps, run eagerly: same completions, cache entries and counts as the loop
    that drops finished rows, with rows ending at different steps, drafts, sampling and a second, cached turn."""
    from dataclasses import asdict

    from transformers import AutoModelForCausalLM

    model = AutoModelForCausalLM.from_pretrained(str(tiny_model_dir)).eval()
    g = torch.Generator().manual_seed(0)
    prompts = [[5] * 40 + torch.randint(3, model.config.vocab_size, (20 + 7 * i,), generator=g).tolist()
               for i in range(6)]
    loop = _two_turns(model, prompts, TurnEnd(frozenset({0}), 1, 2), temperature=temperature, lookahead=lookahead,
                      cuda_graphs=False)
    # end-of-turn ids taken from the loop's own output, so that rows stop at different steps
    ends = frozenset(row[len(row) * 3 // 4] for row in loop[0][0][::3])
    loop = _two_turns(model, prompts, TurnEnd(ends, 1, 2), temperature=temperature, lookahead=lookahead,
                      cuda_graphs=False)
    fixed = _two_turns(model, prompts, TurnEnd(ends, 1, 2), temperature=temperature, lookahead=lookahead,
                       cuda_graphs=True)
    lengths = {len(o) for o in loop[0][0]}
    assert len(lengths) > 2, lengths  # rows left the batch at different steps
    assert fixed[0] == loop[0]
    assert fixed[2] == loop[2]  # the same cached sequences...
    assert all(torch.allclose(a, b, atol=1e-5) for a, b in zip(fixed[3], loop[3], strict=True))  # ...and states
    counts = {k: v for k, v in asdict(fixed[1]).items() if not k.endswith("seconds")}
    assert counts == {k: v for k, v in asdict(loop[1]).items() if not k.endswith("seconds")}
    if lookahead:
        assert fixed[1].accepted_tokens > 0


def test_cuda_graphs_default_to_cuda_devices_only(monkeypatch) -> None:
    from livesim.agents.kv_cache import CUDA_GRAPHS_ENV, use_cuda_graphs

    monkeypatch.delenv(CUDA_GRAPHS_ENV, raising=False)
    assert use_cuda_graphs(torch.device("cuda")) and not use_cuda_graphs(torch.device("cpu"))
    monkeypatch.setenv(CUDA_GRAPHS_ENV, "0")
    assert not use_cuda_graphs(torch.device("cuda"))


@pytest.mark.gpu
def test_captured_decode_equals_the_loop_on_cuda(tiny_model_dir) -> None:
    from transformers import AutoModelForCausalLM

    from livesim.agents import kv_cache

    if not torch.cuda.is_available():
        pytest.skip("needs a CUDA device")
    model = AutoModelForCausalLM.from_pretrained(str(tiny_model_dir)).eval().cuda()
    g = torch.Generator().manual_seed(0)
    prompts = [[5] * 40 + torch.randint(3, model.config.vocab_size, (20 + 7 * i,), generator=g).tolist()
               for i in range(6)]
    rule = TurnEnd(frozenset({0}), 1, 2)
    for lookahead in (0, 4):
        loop = _two_turns(model, prompts, rule, lookahead=lookahead, cuda_graphs=False)
        graphed = _two_turns(model, prompts, rule, lookahead=lookahead, cuda_graphs=True)
        assert not kv_cache._GRAPH_FAILURES, kv_cache._GRAPH_FAILURES
        assert graphed[0] == loop[0] and graphed[2] == loop[2]


def test_agent_actions_with_fixed_shape_steps_equal_the_loop(tiny_model_dir) -> None:
    harness = default_harness()
    harness.prompt.style = "compact"  # type: ignore[assignment]
    seen = {}
    for fixed in (False, True):
        agent = _Recording(str(tiny_model_dir), device="cpu", max_new_tokens=40, batch_size=3, cuda_graphs=fixed)
        list(run_batched(lambda: gym.make("LiveStreamQA-v0", harness=harness), agent, list(range(5)), 3))
        seen[fixed] = [a for _, a in agent.seen]
    assert len(seen[True]) > 5 and seen[True] == seen[False]


def _trace_fixed_shape_step(model, monkeypatch, lookahead):
    """TorchDynamo's account of the fixed-shape decode step `generate_cached` would capture on CUDA."""
    import torch._dynamo

    from livesim.agents import kv_cache

    seen = []

    def explain(step):
        seen.append(torch._dynamo.explain(step)())
        return None, None  # not captured: the loop goes on eagerly

    monkeypatch.setattr(kv_cache, "_capturable", lambda device: True)
    monkeypatch.setattr(kv_cache, "_capture", explain)
    prompts = [[5] * 20 + [7 + i] * (3 + i) for i in range(3)]
    kv_cache.generate_cached(model, prompts, PrefixCache(), TurnEnd(frozenset({0})), max_new_tokens=3, pad_id=0,
                             lookahead=lookahead, cuda_graphs=True)
    assert len(seen) == 1
    return seen[0]


@pytest.mark.parametrize("lookahead", [0, 4])
def test_the_fixed_shape_step_traces_as_one_graph(tiny_model_dir, monkeypatch, lookahead) -> None:
    """What CUDA-graph capture needs, checked on the CPU: TorchDynamo traces the whole decode step (model forward,
    cache writes, the mask) as one graph, with no break (a host sync such as `.item()`, or Python branching on a
    tensor's value, would break it and fail the capture)."""
    from transformers import AutoModelForCausalLM

    model = AutoModelForCausalLM.from_pretrained(str(tiny_model_dir)).eval()
    explained = _trace_fixed_shape_step(model, monkeypatch, lookahead)
    assert explained.graph_break_count == 0 and explained.graph_count == 1, explained.break_reasons


def test_the_smollm2_step_traces_as_one_graph_in_bf16(monkeypatch) -> None:
    """The same for the model the GPU preset trains, in the GPU's precision, with drafts (needs `livesim models
    prepare smollm2-135m`)."""
    from transformers import AutoModelForCausalLM

    from livesim.models.zoo import prepared_dir

    if prepared_dir("smollm2-135m") is None:
        pytest.skip("smollm2-135m is not prepared (livesim models prepare smollm2-135m)")
    model = AutoModelForCausalLM.from_pretrained(prepared_dir("smollm2-135m"), dtype=torch.bfloat16).eval()
    explained = _trace_fixed_shape_step(model, monkeypatch, 8)
    assert explained.graph_break_count == 0 and explained.graph_count == 1, explained.break_reasons


def test_prefill_groups_split_long_rows_from_short_ones() -> None:
    from livesim.agents.kv_cache import prefill_groups

    assert prefill_groups([5, 1000, 6, 7], 64) == [[0, 2, 3], [1]]  # 4 x 1000 slots -> 3 x 7 + 1000 + a pass
    assert prefill_groups([5, 1000, 6, 7], None) == [[0, 2, 3, 1]]  # one pass, shortest first
    assert prefill_groups([50, 60, 70], 64) == [[0, 1, 2]]  # splitting saves less than a pass costs
    assert prefill_groups([9], 64) == [[0]] and prefill_groups([], 64) == [[]]


def test_prefill_by_row_groups_equals_one_pass(tiny_model_dir, monkeypatch) -> None:
    """A second turn that mixes rows with a long new prompt and rows with a few new tokens is prefilled in groups;
    the completions, the cached states and the counts of tokens are those of one padded pass."""
    from dataclasses import asdict

    from transformers import AutoModelForCausalLM

    from livesim.agents import kv_cache

    model = AutoModelForCausalLM.from_pretrained(str(tiny_model_dir)).eval()
    g = torch.Generator().manual_seed(1)
    prompts = [[5] * 30 + torch.randint(3, model.config.vocab_size, (10 + 3 * i,), generator=g).tolist()
               for i in range(6)]
    extra = [torch.randint(3, model.config.vocab_size, (n,), generator=g).tolist() for n in (3, 90, 4, 2, 120, 5)]
    runs = {}
    for per_pass in (10 ** 9, 64):  # one pass, then groups
        monkeypatch.setattr(kv_cache, "PREFILL_GROUP_TOKENS", per_pass)
        stats, cache, outs = kv_cache.GenStats(), PrefixCache(), []
        for turn in range(2):
            batch = prompts if turn == 0 else [p + o + e for p, o, e in zip(prompts, outs[-1], extra, strict=True)]
            outs.append(kv_cache.generate_cached(model, batch, cache, TurnEnd(frozenset({0})), max_new_tokens=12,
                                                 pad_id=0, stats=stats, lookahead=4))
        runs[per_pass] = (outs, stats, [e.ids for e in cache.entries.values()],
                          [e.kv[-1][1] for e in cache.entries.values()])
    one, grouped = runs[10 ** 9], runs[64]
    assert grouped[1].prefill_calls > one[1].prefill_calls  # the second turn took more than one pass...
    assert grouped[1].prefill_tokens <= grouped[1].prefill_slots < one[1].prefill_slots  # ...computing less padding
    assert grouped[0] == one[0] and grouped[2] == one[2]
    assert all(torch.allclose(a, b, atol=1e-5) for a, b in zip(grouped[3], one[3], strict=True))
    assert {k: v for k, v in asdict(grouped[1]).items() if not k.endswith(("seconds", "calls", "slots"))} == \
        {k: v for k, v in asdict(one[1]).items() if not k.endswith(("seconds", "calls", "slots"))}


def test_a_step_that_cannot_be_captured_falls_back_once_with_one_warning(tiny_model_dir, monkeypatch) -> None:
    """On the CPU a capture is bound to fail (no CUDA streams): one warning, the same output from eager steps, and
    no second attempt in the process."""
    from transformers import AutoModelForCausalLM

    from livesim.agents import kv_cache

    monkeypatch.setattr(kv_cache, "_GRAPH_FAILURES", [])
    monkeypatch.setattr(kv_cache, "_capturable", lambda device: True)
    attempts = []
    real_capture = kv_cache._capture
    monkeypatch.setattr(kv_cache, "_capture", lambda step: attempts.append(1) or real_capture(step))
    model = AutoModelForCausalLM.from_pretrained(str(tiny_model_dir)).eval()
    prompts = [[5] * 20 + [7 + i] * (3 + i) for i in range(3)]

    def run(**kw):
        return kv_cache.generate_cached(model, prompts, PrefixCache(), TurnEnd(frozenset({0})), max_new_tokens=6,
                                        pad_id=0, lookahead=2, **kw)

    with pytest.warns(UserWarning, match="could not be captured as a CUDA graph"):
        first = run(cuda_graphs=True)
    assert first == run(cuda_graphs=False) and len(kv_cache._GRAPH_FAILURES) == 1
    assert run(cuda_graphs=True) == first and attempts == [1]  # not tried again
