"""HAT pipeline: collect determinism and TRL round trip, SFT learns, rollout masks, distill/RL steps, resume."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import pytest

pytest.importorskip("trl")

from livesim.hat import collect as collect_mod  # noqa: E402
from livesim.hat.collect import CollectConfig, cut_retries  # noqa: E402
from livesim.stream.paths import PathProblem, write_marker  # noqa: E402

COLLECT = CollectConfig(episodes=8, seed=3, oracle_error_rate=0.5, keep_retries=0.5, batch_size=4)


def _tree_digest(path: Path) -> dict[str, str]:
    return {str(p.relative_to(path)): hashlib.sha256(p.read_bytes()).hexdigest()
            for p in sorted(path.rglob("*")) if p.is_file()}


def _nulls(x) -> int:
    if x is None:
        return 1
    if isinstance(x, dict):
        return sum(_nulls(v) for v in x.values())
    if isinstance(x, list):
        return sum(_nulls(v) for v in x)
    return 0


@pytest.fixture(scope="module")
def data_dir(tmp_path_factory) -> Path:
    return collect_mod.run(COLLECT, tmp_path_factory.mktemp("collect") / "data", show_progress=False)


def test_collect_is_deterministic_and_arrow_safe(data_dir, tmp_path):
    again = collect_mod.run(COLLECT, tmp_path / "again", show_progress=False)
    assert _tree_digest(data_dir) == _tree_digest(again)  # same seed, same bytes
    other = collect_mod.run(COLLECT.model_copy(update={"seed": 4}), tmp_path / "other", show_progress=False)
    assert _tree_digest(other) != _tree_digest(data_dir)
    dd = collect_mod.load(data_dir)
    rows = list(dd["train"]) + list(dd["validation"])
    assert rows and _nulls(rows) == 0
    stats = collect_mod.stats(data_dir)
    assert stats["filter"]["kept"] == len(rows) and set(stats["variants"]) <= {"canonical", "augmented"}
    assert stats["retries"].get("cut", 0) + stats["retries"].get("kept", 0) > 0  # error_rate 0.5 made retries
    for r in rows:  # each row keeps the exact tool schemas it was played with, none merged with another's
        tools = json.loads(r["tools"])
        names = {t["function"]["name"] for t in tools}
        called = {c["function"]["name"] for m in r["messages"] for c in m["tool_calls"]}
        assert called <= names | {"load_skill"} or r["retries"] == "kept"
        if r["retries"] == "cut":  # no failed turn left: no hook/parser message after the first assistant turn
            first = next(i for i, m in enumerate(r["messages"]) if m["role"] == "assistant")
            assert all(m["role"] != "user" for m in r["messages"][first:])
    assert "# livesim SFT data" in (data_dir / "README.md").read_text()


def test_collect_never_takes_a_half_written_dataset_as_complete(data_dir, tmp_path):
    """A dataset folder (its marker says so) holding stats.json without data/: a rerun with the same settings
    collects again instead of returning it, and the result replaces it whole. Without the marker, the folder is
    not livesim's and is refused, whatever file names it holds."""
    half = tmp_path / "half"
    half.mkdir()
    (half / "stats.json").write_text((data_dir / "stats.json").read_text())
    assert not collect_mod.is_complete(half)
    with pytest.raises(FileNotFoundError, match="not a collected livesim dataset"):
        collect_mod.load(half)
    with pytest.raises(PathProblem, match="other files in it"):
        collect_mod.run(COLLECT, half, show_progress=False)
    write_marker(half, collect_mod.OUT_KIND)
    collect_mod.run(COLLECT, half, show_progress=False)
    assert _tree_digest(half) == _tree_digest(data_dir)
    assert sorted(p.name for p in tmp_path.iterdir()) == [".half.lock", "half"]


def test_collect_compact_prompt_style(tmp_path):
    """`prompt_style="compact"` presents the token-budgeted system prompt; same teacher, shorter conversations."""
    cfg = CollectConfig(episodes=4, seed=5, fixed_harness=True, oracle_error_rate=0.0, batch_size=4)
    full = collect_mod.load(collect_mod.run(cfg, tmp_path / "full", show_progress=False))
    compact = collect_mod.load(collect_mod.run(cfg.model_copy(update={"prompt_style": "compact"}),
                                               tmp_path / "compact", show_progress=False))
    assert cfg.key() != cfg.model_copy(update={"prompt_style": "compact"}).key()

    def systems(dd):
        return [m["content"] for split in dd for r in dd[split] for m in r["messages"] if m["role"] == "system"]

    s_full, s_compact = systems(full), systems(compact)
    assert s_full and len(s_full) == len(s_compact)
    assert all(len(c) < len(f) for c, f in zip(s_compact, s_full, strict=True))
    with pytest.raises(ValueError):
        CollectConfig(prompt_style="tiny")


def test_cut_retries_drops_failed_turns_only():
    msgs = [{"role": "system", "content": "s", "tool_calls": []}, {"role": "user", "content": "q", "tool_calls": []},
            {"role": "assistant", "content": "bad", "tool_calls": []},
            {"role": "user", "content": "[hook] retry", "tool_calls": []},
            {"role": "assistant", "content": "", "tool_calls": [{"type": "function",
                                                                  "function": {"name": "t", "arguments": "{}"}}]},
            {"role": "tool", "content": "r", "tool_calls": []},
            {"role": "assistant", "content": "good", "tool_calls": []}]
    out = cut_retries(msgs)
    assert [m["content"] for m in out] == ["s", "q", "", "r", "good"]


def test_dataset_round_trips_through_sft_trainer_untruncated(data_dir, tiny_model_dir, tmp_path):
    from transformers import AutoModelForCausalLM, AutoTokenizer
    from trl import SFTConfig, SFTTrainer

    from livesim.hat.sft import check_no_truncation, measure_lengths, training_template

    tok = AutoTokenizer.from_pretrained(tiny_model_dir)
    train = collect_mod.load(data_dir)["train"].select_columns(["messages", "tools"])
    template = training_template(tok)
    lengths = measure_lengths(train, tok, template)
    args = SFTConfig(output_dir=str(tmp_path), max_length=max(lengths), assistant_only_loss=True, report_to=[],
                     use_cpu=True, bf16=False, max_steps=1)
    trainer = SFTTrainer(model=AutoModelForCausalLM.from_pretrained(tiny_model_dir), args=args, train_dataset=train,
                         processing_class=tok)
    check_no_truncation(trainer.train_dataset, max(lengths))
    for ex, raw, n in zip(trainer.train_dataset, train, lengths, strict=True):
        assert len(ex["input_ids"]) == n
        assert "labels" in ex  # TRL turns the assistant mask into labels (-100 = not trained)
        trained = tok.decode([t for t, lab in zip(ex["input_ids"], ex["labels"], strict=True) if lab != -100])
        last = [m for m in raw["messages"] if m["role"] == "assistant"][-1]
        assert trained.rstrip().endswith(last["content"] + "<|im_end|>")  # the final reply is trained, whole
        for m in raw["messages"]:
            for call in m["tool_calls"]:
                assert f'"name": "{call["function"]["name"]}", "arguments": {call["function"]["arguments"]}' in trained
    import datasets

    datasets.disable_caching()  # tokenized again, in 2 processes (`sft.tokenize_procs`): the same rows
    try:
        two = SFTTrainer(model=AutoModelForCausalLM.from_pretrained(tiny_model_dir), args=SFTConfig(
            output_dir=str(tmp_path / "two"), max_length=max(lengths), assistant_only_loss=True, report_to=[],
            use_cpu=True, bf16=False, max_steps=1, dataset_num_proc=2), train_dataset=train, processing_class=tok)
    finally:
        datasets.enable_caching()
    assert two.train_dataset["input_ids"] == trainer.train_dataset["input_ids"]
    assert two.train_dataset["labels"] == trainer.train_dataset["labels"]


def test_tokenize_procs_rule_and_stage_key(monkeypatch):
    from livesim.hat import sft
    from livesim.hat.train import TrainConfig, _stage_key

    monkeypatch.setattr(sft.os, "cpu_count", lambda: 16)
    cfg = sft.SFTStageConfig()
    assert sft.tokenize_procs(cfg, 9000) == 8 and sft.tokenize_procs(cfg, 100) is None
    assert sft.tokenize_procs(cfg.model_copy(update={"tokenize_procs": 3}), 100) == 3
    assert sft.tokenize_procs(cfg.model_copy(update={"tokenize_procs": 1}), 9000) is None
    monkeypatch.setattr(sft.os, "cpu_count", lambda: 2)
    assert sft.tokenize_procs(cfg, 9000) is None
    base = TrainConfig.from_preset("tiny")
    other = base.model_copy(update={"sft": base.sft.model_copy(update={"tokenize_procs": 4})})
    assert _stage_key(base, "sft", "b", "b", "c") == _stage_key(other, "sft", "b", "b", "c")


def test_sft_lowers_loss_and_changes_parameters(data_dir, tiny_model_dir, tmp_path):
    import torch
    from transformers import AutoModelForCausalLM

    from livesim.hat.sft import SFTStageConfig, run

    stats = run(SFTStageConfig(steps=2, lr=1e-2, batch_size=1, save_steps=2, val_examples=1), tiny_model_dir,
                data_dir, tmp_path / "sft", show_progress=False)
    assert stats["steps"] == 2 and stats["dropped_too_long"] == 0 and stats["val_examples"] == 1
    # the same held-out conversation, scored before and after (the per-step training loss is on different
    # conversations each step, so it is too noisy to compare over two steps)
    assert stats["eval_loss_after"] < stats["eval_loss_before"]
    before = AutoModelForCausalLM.from_pretrained(tiny_model_dir).state_dict()
    after = AutoModelForCausalLM.from_pretrained(tmp_path / "sft").state_dict()
    assert any(not torch.equal(before[k], after[k]) for k in before)
    assert (tmp_path / "sft" / "README.md").is_file()
    from livesim.agents import make_agent

    agent = make_agent("transformers", model=str(tmp_path / "sft"), device="cpu", max_new_tokens=4)
    assert isinstance(agent.act({"messages": [{"role": "user", "content": "hi"}], "tools": []}), str)


def _assert_same_training(a: dict, b: dict, dir_a: Path, dir_b: Path) -> None:
    """Two SFT runs took the same steps: the same loss at every step and the same weights (fp tolerance)."""
    import torch
    from transformers import AutoModelForCausalLM

    assert [r["loss"] for r in b["history"] if "loss" in r] == pytest.approx(
        [r["loss"] for r in a["history"] if "loss" in r], rel=1e-4)
    wa = AutoModelForCausalLM.from_pretrained(dir_a).state_dict()
    wb = AutoModelForCausalLM.from_pretrained(dir_b).state_dict()
    assert all(torch.allclose(wa[k], wb[k], atol=1e-4) for k in wa)


def test_micro_batches_of_one_train_as_the_padded_batch_does(data_dir, tiny_model_dir, tmp_path):
    # the tiny preset takes its 4 conversations a step as 4 unpadded micro-batches (fast SDPA kernel on a CPU):
    # the same conversations, and the loss normalised over all of them, so the same steps as one padded batch
    import torch
    from transformers import AutoModelForCausalLM

    from livesim.hat.sft import SFTStageConfig, run

    common = dict(steps=2, lr=1e-2, save_steps=2, val_examples=1)
    padded = run(SFTStageConfig(batch_size=2, grad_accum=1, **common), tiny_model_dir, data_dir, tmp_path / "a",
                 show_progress=False)
    micro = run(SFTStageConfig(batch_size=1, grad_accum=2, **common), tiny_model_dir, data_dir, tmp_path / "b",
                show_progress=False)
    _assert_same_training(padded, micro, tmp_path / "a", tmp_path / "b")
    a = AutoModelForCausalLM.from_pretrained(tmp_path / "a").state_dict()
    # and it is not vacuous: a different data order gives other weights
    other = run(SFTStageConfig(batch_size=1, grad_accum=2, seed=1, **common), tiny_model_dir, data_dir,
                tmp_path / "c", show_progress=False)
    c = AutoModelForCausalLM.from_pretrained(tmp_path / "c").state_dict()
    assert other["steps"] == 2 and not all(torch.allclose(a[k], c[k], atol=1e-4) for k in a)


def test_plain_lm_head_trains_as_the_fused_one_and_keys_apart(data_dir, tiny_model_dir, tmp_path):
    # sft.lm_head="plain": the model's own loss (logits at labelled positions) instead of TRL's chunked LM head
    # (faster for a small vocabulary on a CPU); the same loss and weights, and a stage key of its own, while the
    # default key is unchanged

    from livesim.hat.sft import SFTStageConfig, cache_key_data, run

    common = dict(steps=2, lr=1e-2, batch_size=1, grad_accum=2, save_steps=2, val_examples=1)
    fused = run(SFTStageConfig(**common), tiny_model_dir, data_dir, tmp_path / "a", show_progress=False)
    plain = run(SFTStageConfig(lm_head="plain", **common), tiny_model_dir, data_dir, tmp_path / "b",
                show_progress=False)
    _assert_same_training(fused, plain, tmp_path / "a", tmp_path / "b")
    assert plain["eval_loss_after"] == pytest.approx(fused["eval_loss_after"], rel=1e-4)
    assert "lm_head" not in cache_key_data(SFTStageConfig())
    assert cache_key_data(SFTStageConfig(lm_head="plain"))["lm_head"] == "plain"


def test_plain_head_scores_only_labelled_positions_with_the_models_own_loss(tiny_model_dir):
    # the plain head's loss (logits at the labelled positions only) equals the model's own loss over full logits,
    # in value and gradient, on a padded batch of two with labels masked differently per row, with and without
    # TRL's num_items_in_batch; and the logits it makes are one row per label token, not one per position
    import torch
    from transformers import AutoModelForCausalLM

    from livesim.hat.sft import selected_loss

    torch.manual_seed(0)
    model = AutoModelForCausalLM.from_pretrained(tiny_model_dir)
    ids = torch.randint(5, model.config.vocab_size, (2, 24))
    mask = torch.ones_like(ids)
    mask[1, :5] = 0  # left padding on the second row
    labels = ids.clone()
    labels[0, :15] = -100
    labels[1, :9] = -100
    labels[1, 20:] = -100
    labels[mask == 0] = -100
    inputs = {"input_ids": ids, "attention_mask": mask, "labels": labels}
    n_labels = int((labels[:, 1:] != -100).sum())
    for n_items in (None, torch.tensor(n_labels + 3)):
        model.zero_grad()
        ref = model(**inputs, use_cache=False, num_items_in_batch=n_items).loss
        ref.backward()
        ref_grads = [p.grad.clone() for p in model.parameters() if p.grad is not None]
        model.zero_grad()
        loss, out = selected_loss(model, inputs, n_items)
        loss.backward()
        grads = [p.grad.clone() for p in model.parameters() if p.grad is not None]
        assert out.logits.shape == (n_labels, model.config.vocab_size)
        assert loss.item() == pytest.approx(ref.item(), rel=1e-5)
        assert len(grads) == len(ref_grads)
        assert all(torch.allclose(g, r, atol=1e-6, rtol=1e-4) for g, r in zip(grads, ref_grads, strict=True))


def test_killed_sft_resumes_from_checkpoint(data_dir, tiny_model_dir, tmp_path):
    from transformers import TrainerCallback

    from livesim.hat.sft import SFTStageConfig, run

    class Kill(TrainerCallback):
        def on_step_end(self, args, state, control, **kw):
            if state.global_step == 2:  # before step 2's checkpoint is written
                raise KeyboardInterrupt

    cfg = SFTStageConfig(steps=3, lr=1e-2, batch_size=1, save_steps=1)
    with pytest.raises(KeyboardInterrupt):
        run(cfg, tiny_model_dir, data_dir, tmp_path / "sft", tmp_path / "work", show_progress=False, callbacks=[Kill()])
    assert (tmp_path / "work" / "checkpoint-1").is_dir() and not (tmp_path / "sft").exists()
    class Evaluations(TrainerCallback):
        count = 0

        def on_evaluate(self, args, state, control, **kw):
            Evaluations.count += 1

    stats = run(cfg, tiny_model_dir, data_dir, tmp_path / "sft", tmp_path / "work", show_progress=False,
                callbacks=[Evaluations()])
    assert stats["resumed_from"].endswith("checkpoint-1") and stats["steps"] == 3
    # the validation loss before training is the killed run's (not evaluated again: one evaluation, the one after)
    assert Evaluations.count == 1
    assert stats["eval_loss_before"] == json.loads((tmp_path / "work" / "eval_before.json").read_text())["eval_loss"]
    # the stage's cost counts the killed run's time up to its checkpoint, not only the resumed stretch
    assert stats["wall_s"] > stats["wall_s_this_run"] > 0
    assert [r["step"] for r in stats["history"] if "loss" in r] == [1, 2, 3]  # step 1 restored, 2-3 run again
    # trained tokens (and so tokens/s) count steps 2-3 only: the batch the resumed loader skips is collated, not trained
    full = run(cfg, tiny_model_dir, data_dir, tmp_path / "full", tmp_path / "work-full", show_progress=False)
    first = run(cfg.model_copy(update={"steps": 1}), tiny_model_dir, data_dir, tmp_path / "one", tmp_path / "work-one",
                show_progress=False)
    assert full["resumed_from"] is None and stats["trained_tokens"] == full["trained_tokens"] - first["trained_tokens"]
    assert 0 < stats["trained_tokens"] < full["trained_tokens"]


def test_lora_sft_trains_the_added_token_rows_and_only_those(data_dir, tiny_model_dir, tmp_path):
    """LoRA cannot change embedding rows; the added tokens (`<tool_call>`...) start untrained, so SFT trains their
    rows (tied to the output head) and no other row; a killed run resumes with the rows from its checkpoint."""
    import torch
    from transformers import AutoModelForCausalLM, AutoTokenizer, TrainerCallback

    from livesim.hat.sft import ROWS_FILE, SFTStageConfig, added_token_ids, cache_key_data, run

    tok = AutoTokenizer.from_pretrained(tiny_model_dir)
    ids = added_token_ids(tok)
    assert tok.convert_ids_to_tokens(ids)[:2] == ["<tool_call>", "</tool_call>"]
    assert tok.convert_tokens_to_ids("<|im_end|>") not in ids  # special tokens are the base's own, not added
    before = AutoModelForCausalLM.from_pretrained(tiny_model_dir).get_input_embeddings().weight.detach()

    class Kill(TrainerCallback):
        def on_step_end(self, args, state, control, **kw):
            if state.global_step == 2:
                raise KeyboardInterrupt

    cfg = SFTStageConfig(steps=3, lr=5e-2, batch_size=1, save_steps=1, lora=True, lora_r=4, lora_alpha=8)
    with pytest.raises(KeyboardInterrupt):
        run(cfg, tiny_model_dir, data_dir, tmp_path / "sft", tmp_path / "work", show_progress=False, callbacks=[Kill()])
    assert (tmp_path / "work" / "checkpoint-1" / ROWS_FILE).is_file()
    stats = run(cfg, tiny_model_dir, data_dir, tmp_path / "sft", tmp_path / "work", show_progress=False)
    assert stats["resumed_from"].endswith("checkpoint-1") and stats["steps"] == 3
    assert stats["trained_token_rows"][:2] == ["<tool_call>", "</tool_call>"] and stats["token_rows_moved"] > 0
    model = AutoModelForCausalLM.from_pretrained(tmp_path / "sft")
    after = model.get_input_embeddings().weight.detach()
    others = [i for i in range(before.shape[0]) if i not in set(ids)]
    assert torch.equal(after[others], before[others])
    assert not torch.equal(after[ids[0]], before[ids[0]])  # `<tool_call>` occurs in every target
    if model.config.tie_word_embeddings:
        assert torch.equal(model.get_output_embeddings().weight, after)

    frozen = run(cfg.model_copy(update={"train_added_tokens": False, "steps": 1}), tiny_model_dir, data_dir,
                 tmp_path / "sft-frozen", show_progress=False)
    assert frozen["trained_token_rows"] == [] and frozen["token_rows_moved"] is None
    assert torch.equal(AutoModelForCausalLM.from_pretrained(tmp_path / "sft-frozen").get_input_embeddings().weight,
                       before)
    # the flag keys the stage cache only where it can change the weights (LoRA), so full fine-tuning keys stay
    full = SFTStageConfig()
    assert cache_key_data(full) == cache_key_data(full.model_copy(update={"train_added_tokens": False}))
    assert cache_key_data(cfg) != cache_key_data(cfg.model_copy(update={"train_added_tokens": False}))


THINK = "<think>\n\n</think>\n\n"  # what Qwen3's training template writes before every assistant turn


def test_rollout_masks_env_tokens_and_matches_the_env_transcript(tiny_model_dir):
    from transformers import AutoTokenizer

    from livesim.agents.oracle import OracleAgent
    from livesim.hat.rl import SEG_ENV, EnvRollout, RLStageConfig
    from livesim.hat.sft import training_template

    tok = AutoTokenizer.from_pretrained(tiny_model_dir)
    template = training_template(tok)
    cfg = RLStageConfig(tool_faults=False, max_turns=6, max_completion_length=4096)
    rollout = EnvRollout(cfg, tok, template)
    episodes = [(11, "canonical"), (12, "hsa")]
    # Play the oracle in identical envs first to script its actions.
    shadow = EnvRollout(cfg, tok, template)
    scripted: dict[int, list[str]] = {}
    for k, (seed, variant) in enumerate(episodes):
        env = shadow._env(variant, 0 if variant == "canonical" else 0)
        agent = OracleAgent(env, error_rate=0.0)
        obs, _ = env.reset(seed=seed)
        done, acts = False, []
        while not done:
            a = agent.act(obs)
            acts.append(a)
            obs, _, term, trunc, _ = env.step(a)
            done = term or trunc
        scripted[k] = acts
    turn = [0]

    def gen(contexts):
        live = [k for k in range(len(episodes)) if len(scripted[k]) > turn[0]]
        turn[0] += 1
        return [rollout.encode(THINK + scripted[k][turn[0] - 1]) + [rollout.eos_id] for k in live]

    out = rollout.play(None, episodes, generate=gen)
    for k in range(len(episodes)):
        prompt, comp, mask, seg = (out["prompt_ids"][k], out["completion_ids"][k], out["env_mask"][k],
                                   out["livesim_segments"][k])
        assert len(comp) == len(mask) == len(seg)
        model_tokens = [t for t, m in zip(comp, mask, strict=True) if m]
        expected = [t for a in scripted[k] for t in rollout.encode(THINK + a) + [rollout.eos_id]]
        assert model_tokens == expected  # every model token trained, nothing else
        assert all((s == SEG_ENV) == (m == 0) for s, m in zip(seg, mask, strict=True))
        transcript = rollout.last_transcripts[k]
        tools = rollout._pool[episodes[k][1]][0].unwrapped.sim.harness.tool_schemas()
        full = rollout.encode(rollout.render(transcript, tools, generation_prompt=False))
        assert prompt + comp == full[: len(prompt) + len(comp)]  # token for token the env's transcript
        assert tok.decode(full[len(prompt) + len(comp):]).strip() == ""
        assert out["livesim_dispatched"][k] and out["livesim_terms"][k]["accuracy"] == 1.0


def test_cached_rollout_sampler_matches_model_generate_and_prefills_a_group_once(tiny_model_dir):
    import torch
    from transformers import AutoModelForCausalLM, AutoTokenizer

    from livesim.hat.rl import EnvRollout, RLStageConfig
    from livesim.hat.sft import training_template

    tok = AutoTokenizer.from_pretrained(tiny_model_dir)
    model = AutoModelForCausalLM.from_pretrained(tiny_model_dir, dtype=torch.float32)
    model.train()  # as GRPOTrainer holds it between steps
    template = training_template(tok)
    # a group: the same episode four times (GRPO's num_generations), as TRL hands it to the rollout_func
    episodes = [(21, "canonical")] * 4 + [(22, "hsa")] * 4
    outs = {}
    for kv in (True, False):
        # near-zero temperature: sampling is the argmax on both paths, so the two samplers must agree token for token
        cfg = RLStageConfig(tool_faults=False, max_turns=2, max_new_tokens=12, temperature=1e-4, kv_cache=kv)
        rollout = EnvRollout(cfg, tok, template)
        outs[kv] = (rollout.play(model, episodes), rollout.gen_stats)
    (cached, stats), (plain, _) = outs[True], outs[False]
    for key in ("prompt_ids", "completion_ids", "env_mask", "livesim_terms", "livesim_segments"):
        assert cached[key] == plain[key], key
    assert model.training  # sampled in eval mode, handed back in train mode
    prompt_tokens = sum(len(p) for p in cached["prompt_ids"])
    assert stats.reused_tokens > 0 and stats.prefill_tokens < prompt_tokens / 2  # a group's prompt once, not 4x
    assert "kv_cache" in RLStageConfig().key_data() and "kv_cache" not in RLStageConfig(kv_cache=False).key_data()


def test_rollouts_with_the_cuda_graph_steps_sample_what_the_loop_samples(tiny_model_dir, monkeypatch):
    """GRPO's sampler on CUDA decodes with fixed-shape steps (`cuda_graphs` default): forced here on the CPU (run
    eagerly), a real temperature draws the same tokens as the loop that drops finished rows."""
    import torch
    from transformers import AutoModelForCausalLM, AutoTokenizer

    from livesim.agents import kv_cache
    from livesim.hat.rl import EnvRollout, RLStageConfig
    from livesim.hat.sft import training_template

    tok = AutoTokenizer.from_pretrained(tiny_model_dir)
    model = AutoModelForCausalLM.from_pretrained(tiny_model_dir, dtype=torch.float32)
    episodes = [(21, "canonical")] * 3 + [(22, "hsa")] * 3
    cfg = RLStageConfig(tool_faults=False, max_turns=2, max_new_tokens=24, temperature=1.0)
    static_calls = []
    real = kv_cache._decode_static
    monkeypatch.setattr(kv_cache, "_decode_static", lambda *a, **k: static_calls.append(1) or real(*a, **k))
    outs = {}
    for fixed in (False, True):
        monkeypatch.setattr(kv_cache, "use_cuda_graphs", lambda device, fixed=fixed: fixed)
        outs[fixed] = EnvRollout(cfg, tok, training_template(tok)).play(model, episodes)
        assert bool(static_calls) == fixed  # the default decides the path, turn by turn
    assert outs[True]["completion_ids"] == outs[False]["completion_ids"]
    assert outs[True]["livesim_terms"] == outs[False]["livesim_terms"]


def test_segment_advantages_split_tool_and_reply_tokens():
    from livesim.hat.rl import RLStageConfig, segment_advantages

    terms = [{"accuracy": 1.0, "effectiveness": 1.0, "tool_rationality": 0.0, "skill_selection": 0.0},
             {"accuracy": 0.0, "effectiveness": 0.0, "tool_rationality": 1.0, "skill_selection": 1.0}]
    adv = segment_advantages([[1, 1, 0, 2], [1, 0, 2, 2]], terms, [4, 4], RLStageConfig(), group=2, width=5)
    assert adv.shape == (2, 5)
    assert adv[0, 0] < 0 < adv[0, 3] and adv[1, 0] > 0 > adv[1, 2]
    assert adv[0, 2] == 0 and adv[0, 4] == 0


def test_distill_and_rl_run_and_log_per_term_rewards(tiny_model_dir, tmp_path):
    from livesim.hat.distill import DistillStageConfig
    from livesim.hat.distill import run as distill
    from livesim.hat.rl import RLStageConfig
    from livesim.hat.rl import run as rl

    d = distill(DistillStageConfig(steps=1, batch_size=2, prompts=4, max_completion_length=6), tiny_model_dir,
                tiny_model_dir, tmp_path / "distill", show_progress=False)
    assert d["steps"] == 1 and d["loss_start"] is not None
    r = rl(RLStageConfig(steps=1, num_generations=2, episodes_per_step=1, episodes=2, max_new_tokens=6,
                         max_turns=2), tmp_path / "distill", tmp_path / "rl", show_progress=False)
    row = next(h for h in r["history"] if "reward" in h)
    for term in ("accuracy", "effectiveness", "tool_rationality", "skill_selection", "length_penalty"):
        assert f"rewards/{term}/mean" in row
    # the rollouts' share of a step is logged with it (beside TRL's step_time)
    assert 0 < row["livesim/rollout_s"] <= row["step_time"] and row["livesim/rollout_tokens"] >= 2
    sampled = r["rollout_tokens"]  # how the rollouts were generated: forward passes, none from a CUDA graph here
    assert sampled["forward_passes"] >= 2 and sampled["cuda_graph_steps"] == 0
    assert (tmp_path / "rl" / "config.json").is_file()
    seg = rl(RLStageConfig(steps=1, num_generations=2, episodes_per_step=1, episodes=2, max_new_tokens=6,
                           max_turns=2, segment_advantages=True, multi_objective_aggregation="sum_then_normalize",
                           importance_sampling_level="token"), tmp_path / "distill", tmp_path / "rl-seg",
             show_progress=False)
    assert seg["steps"] == 1 and (tmp_path / "rl-seg" / "config.json").is_file()


def test_instruction_generator_is_seeded_and_tagged(tmp_path):
    from livesim.hat import instructions

    a, b = instructions.generate(20), instructions.generate(20)
    assert a == b and len({r["prompt"][0]["content"] for r in a}) > 10
    assert all(r["id"].startswith("hat-distill/") for r in a)
    assert instructions.generate(5, family="other") != instructions.generate(5)
    path = tmp_path / "p.jsonl"
    path.write_text('{"prompt": "Say hi."}\n')
    assert instructions.load_jsonl(path)[0]["prompt"] == [{"role": "user", "content": "Say hi."}]
    path.write_text("not json\n")
    with pytest.raises(ValueError, match="p.jsonl:1"):
        instructions.load_jsonl(path)


def test_killed_train_resumes_from_cache(tmp_path, monkeypatch, killed_once, capfd):
    from livesim.hat import distill as distill_mod
    from livesim.hat.train import TrainConfig, plan, train

    monkeypatch.setenv("LIVESIM_CACHE", str(tmp_path / "cache"))
    cfg = TrainConfig.from_preset("tiny", ci=True).model_copy(update={
        "stages": ("sft", "distill"), "dev_requests": 0, "out_dir": tmp_path / "run", "show_progress": False})
    killed_once(distill_mod, "run", train, cfg)
    capfd.readouterr()
    result = train(cfg)
    out, err = capfd.readouterr()  # show_progress=False: no trainer rows, no library warnings or bars
    assert "{'loss'" not in out + err and "Warning" not in err and "Loading weights" not in err, (out, err)
    assert result.wall_s["collect"] == 0.0 and result.wall_s["sft"] == 0.0  # served from the stage cache
    # ... yet the report shows what they cost when they were made, marked cached
    assert result.made_s["collect"] > 0 and result.made_s["sft"] > 0 and result.made_s["distill"] > 0
    report = (tmp_path / "run" / "report.md").read_text()
    assert f"{result.made_s['collect']:.1f} (cached)" in report and f"{result.made_s['sft']:.1f} (cached)" in report
    assert (tmp_path / "run" / "train.log").is_file()  # library warnings go there
    assert result.wall_s["distill"] > 0
    assert set(result.stage_dirs) == {"sft", "distill"}
    planned = plan(cfg)  # the stage cache paths, without training
    assert {k: Path(v) for k, v in result.stage_dirs.items()} == {k: planned[k] for k in ("sft", "distill")}
    assert (tmp_path / "run" / "report.md").is_file() and (tmp_path / "run" / "curves.png").is_file()
    assert (tmp_path / "run" / "config.yaml").is_file()
    rows = [json.loads(x) for x in (tmp_path / "run" / "metrics.jsonl").read_text().splitlines()]
    assert {r["stage"] for r in rows} >= {"sft", "distill"}
    history = {st: json.loads(next(Path(d).glob("*_stats.json")).read_text())["history"]
               for st, d in result.stage_dirs.items()}
    curve = [r for r in rows if r["kind"] == "train" and r["stage"] == "sft"]
    assert len(curve) == len(history["sft"]) and not any(r.get("from_cache") for r in curve)  # logged once
    # a new run dir over cached stages still gets every stage's curve, copied from the stage and marked so
    again = train(cfg.model_copy(update={"out_dir": tmp_path / "run2"}))
    assert again.wall_s["sft"] == again.wall_s["distill"] == 0.0
    rows2 = [json.loads(x) for x in (tmp_path / "run2" / "metrics.jsonl").read_text().splitlines()]
    for st in ("sft", "distill"):
        curve = [r for r in rows2 if r["kind"] == "train" and r["stage"] == st]
        assert len(curve) == len(history[st]) and all(r["from_cache"] for r in curve)
        assert {r["stage_key"] for r in curve} == {Path(result.stage_dirs[st]).name}
    assert (tmp_path / "run2" / "curves.png").is_file()


def test_sft_in_two_processes_trains_as_one_process(data_dir, tiny_model_dir, tmp_path):
    """DDP on a CPU (gloo): `accelerate launch --multi_gpu --num_processes 2` of `livesim hat sft` (accelerate's
    `--cpu` launcher starts one process) takes the same steps as one process: each rank gets every other
    conversation of the step, and the gradients are synchronised (an `evaluate()` before `train()` used to switch
    DDP off, so each rank trained on its own shard)."""
    import os
    import subprocess
    import sys

    from livesim.hat.sft import SFTStageConfig, run

    common = ["--steps", "3", "--lr", "1e-2", "--batch-size", "1", "--save-steps", "3", "--val-examples", "2"]
    one = run(SFTStageConfig(steps=3, lr=1e-2, batch_size=1, grad_accum=2, save_steps=3, val_examples=2),
              tiny_model_dir, data_dir, tmp_path / "one", show_progress=False)
    out = tmp_path / "ddp"
    cmd = [sys.executable, "-m", "accelerate.commands.launch", "--multi_gpu", "--num_processes", "2",
           "--num_machines", "1", "--mixed_precision", "no", "--dynamo_backend", "no", "--main_process_port", "0",
           "-m", "livesim.cli", "hat", "sft", "--model", str(tiny_model_dir), "--data", str(data_dir),
           "--out", str(out), *common, "--grad-accum", "1", "--lm-head", "plain", "--quiet"]
    env = {**os.environ, "OMP_NUM_THREADS": "1", "CUDA_VISIBLE_DEVICES": ""}
    proc = subprocess.run(cmd, capture_output=True, text=True, env=env, timeout=1800)
    assert proc.returncode == 0, proc.stderr[-2000:]
    ddp = json.loads((out / "sft_stats.json").read_text())
    assert ddp["processes"] == 2 and one["processes"] == 1 and ddp["steps"] == 3
    _assert_same_training(one, ddp, tmp_path / "one", out)
    assert ddp["eval_loss_after"] == pytest.approx(one["eval_loss_after"], rel=1e-4)


def test_cli_bad_input_is_one_line(tiny_model_dir, tmp_path):
    from livesim.cli import main

    with pytest.raises(SystemExit, match="error: .*neither a zoo model"):
        main(["hat", "sft", "--model", str(tmp_path / "none"), "--data", "x", "--out", str(tmp_path / "o")])
    with pytest.raises(SystemExit, match="not a collected livesim dataset"):
        main(["hat", "sft", "--model", str(tiny_model_dir), "--data", str(tmp_path), "--out", str(tmp_path / "o")])
    with pytest.raises(SystemExit, match="unknown field 'nope'"):
        main(["hat", "train", "--preset", "tiny", "--set", "sft.nope=1"])
    with pytest.raises(SystemExit, match="unknown stage"):
        main(["hat", "train", "--preset", "tiny", "--ci", "--stages", "sft,foo"])


def test_name_probe_aligns_each_name_with_its_tokens(data_dir, tiny_model_dir, tmp_path, capsys):
    import torch
    from transformers import AutoTokenizer

    from livesim.hat import probe
    from livesim.hat.sft import training_template

    tok = AutoTokenizer.from_pretrained(tiny_model_dir)
    tok.chat_template = training_template(tok)
    origins = probe.name_origins()
    assert origins["tool"]["load_skill"] == "canonical" and origins["tool"]["open_skill"] == "synonym"
    assert "q7zx3" not in origins["param"]  # anything else is generated

    class Shifted(torch.nn.Module):
        """Logits whose argmax is the next token of `ids` shifted by `shift` (0: a perfect model)."""

        def __init__(self, ids: list[int], shift: int) -> None:
            super().__init__()
            self.ids, self.shift = ids, shift

        def forward(self, input_ids):  # noqa: D401
            n = input_ids.shape[1]
            logits = torch.zeros(1, n, len(tok))
            for t in range(n - 1):
                logits[0, t, self.ids[min(n - 1, t + 1 + self.shift)]] = 1.0
            return type("Out", (), {"logits": logits})()

    data = collect_mod.load(data_dir)["train"]
    checked = 0
    for ex in data:
        messages, tools = ex["messages"], json.loads(ex["tools"])
        calls = [c["function"] for m in messages if m["role"] == "assistant" for c in m["tool_calls"]]
        if not calls:
            continue
        text = tok.apply_chat_template(messages, tools=tools, tokenize=False)
        ids = tok(text, add_special_tokens=False)["input_ids"]
        rows = probe.probe_conversation(Shifted(ids, 0), tok, messages, tools, origins)
        assert rows is not None
        # every call's tool name and argument names, in call order, each with its tokens, all right
        assert [r["name"] for r in rows if r["kind"] == "tool"] == [c["name"] for c in calls]
        assert [r["name"] for r in rows if r["kind"] == "param"] == [k for c in calls
                                                                     for k in json.loads(c["arguments"])]
        assert all(r["tokens"] >= 1 and r["exact"] for r in rows)
        wrong = probe.probe_conversation(Shifted(ids, 1), tok, messages, tools, origins)
        assert not any(r["exact"] for r in wrong)  # off by one token: no name comes out whole
        checked += 1
    assert checked >= 3
    # the first token is the decision, the rest the completion: a name wrong only at its start still completes
    summary = probe.summarize([
        {"kind": "tool", "origin": "generated", "tokens": 3, "correct": 2, "exact": False, "rest_correct": 2},
        {"kind": "tool", "origin": "generated", "tokens": 1, "correct": 1, "exact": True, "rest_correct": 0},
        {"kind": "param", "origin": "canonical", "tokens": 1, "correct": 0, "exact": False, "rest_correct": 0}])
    assert summary["tool"]["generated"] == {"names": 2, "exact": 0.5, "token_accuracy": 0.75, "multi_token": 1,
                                            "continuation_exact": 1.0, "continuation_accuracy": 1.0}
    assert summary["param"]["canonical"]["continuation_exact"] is None

    from livesim.cli import main

    out = tmp_path / "probe.json"
    assert main(["hat", "probe", "--model", str(tiny_model_dir), "--data", str(data_dir), "--split", "train",
                 "--limit", "3", "--out", str(out), "--quiet"]) == 0
    result = json.loads(out.read_text())
    assert result["conversations"] == 3 and result["rows"]
    assert sum(r["names"] for k in result["summary"].values() for r in k.values()) == len(result["rows"])
    assert "name probe" in capsys.readouterr().out
    with pytest.raises(SystemExit, match="no split 'nope'"):
        main(["hat", "probe", "--model", str(tiny_model_dir), "--data", str(data_dir), "--split", "nope"])
    with pytest.raises(SystemExit, match="--limit must be >= 1"):
        main(["hat", "probe", "--model", str(tiny_model_dir), "--data", str(data_dir), "--limit", "0"])


def test_dev_command_keeps_every_request_and_a_bootstrap_interval(tiny_model_dir, tmp_path, capsys):
    from livesim.cli import main
    from livesim.hat.deveval import mean_ci95

    out = tmp_path / "dev.json"
    main(["hat", "dev", "--model", str(tiny_model_dir), "--requests", "3", "--variants", "canonical,train_hsa",
          "--max-new-tokens", "4", "--quiet", "--out", str(out)])
    result = json.loads(out.read_text())
    assert set(result) >= {"model", "canonical", "train_hsa", "n"} and "heldout_hsa" not in result
    canon = result["canonical"]
    # every variant audits its tool calls (an untrained model's calls all fail or it makes none)
    for v in ("canonical", "train_hsa"):
        assert result[v]["calls"]["ok"] <= result[v]["calls"]["calls"] and len(result[v]["rewards"]) == 3
    assert len(canon["rewards"]) == 3 and canon["mean_reward"] == pytest.approx(sum(canon["rewards"]) / 3)
    assert canon["mean_ci95"][0] <= canon["mean_reward"] <= canon["mean_ci95"][1]
    assert "dev set" in capsys.readouterr().out
    assert not list(tmp_path.glob("dev.json.*.jsonl"))  # the checkpoints are gone once the result is written
    # the interval: seeded (same values, same bounds), around the mean, wider for fewer requests
    values = [0.0, 1.0, 0.5, 0.0, 1.0, 0.25]
    lo, hi = mean_ci95(values)
    assert mean_ci95(values) == [lo, hi] and lo < sum(values) / 6 < hi
    lo2, hi2 = mean_ci95(values * 8)
    assert hi2 - lo2 < hi - lo
    with pytest.raises(SystemExit, match="unknown dev-set variant"):
        main(["hat", "dev", "--model", str(tiny_model_dir), "--variants", "canonical,nope"])
    with pytest.raises(SystemExit, match="at least one request, got 0"):
        main(["hat", "dev", "--model", str(tiny_model_dir), "--requests", "0"])


def test_a_killed_dev_evaluation_resumes_from_its_checkpoint(tiny_model_dir, tmp_path, monkeypatch):
    from livesim.hat import deveval

    kw = dict(n=4, max_new_tokens=6, batch_size=1, variants=("canonical",), show_progress=False)
    whole = deveval.evaluate_model(tiny_model_dir, **kw)
    real = deveval.run_batched

    def killed(*args, **kwargs):  # two requests finish, then the process is "killed"
        for i, rec in enumerate(real(*args, **kwargs)):
            if i == 2:
                raise KeyboardInterrupt
            yield rec

    prefix = tmp_path / "dev.json"
    monkeypatch.setattr(deveval, "run_batched", killed)
    with pytest.raises(KeyboardInterrupt):
        deveval.evaluate_model(tiny_model_dir, checkpoint=prefix, **kw)
    monkeypatch.setattr(deveval, "run_batched", real)
    ckpt = deveval.checkpoint_path(prefix, "canonical")
    assert len(ckpt.read_text().splitlines()) == 3  # identity + 2 requests
    with ckpt.open("a") as f:
        f.write('{"episode_seed": 9000')  # a line the kill cut short: ignored, that request runs again
    resumed = deveval.evaluate_model(tiny_model_dir, checkpoint=prefix, **kw)
    assert resumed["canonical"].pop("resumed") == 2
    for r in (whole, resumed):
        r["canonical"].pop("wall_s")
    assert resumed == whole  # batch size 1: the resumed run is the unbroken one, request for request
    # a checkpoint of another evaluation is refused, not mixed in
    with pytest.raises(ValueError, match="checkpoint of another dev evaluation"):
        deveval.evaluate_model(tiny_model_dir, checkpoint=prefix, **{**kw, "max_new_tokens": 7})
    deveval.remove_checkpoints(prefix, ("canonical",))
    assert not ckpt.exists()


def test_dev_checkpoint_survives_a_cut_line_and_refuses_a_foreign_file(tmp_path):
    from livesim.hat.deveval import DevCheckpoint

    path, identity = tmp_path / "ck.jsonl", {"model": "m", "n": 2}
    path.write_text('{"ident')  # killed before the identity line ended: starts afresh
    assert DevCheckpoint(path, identity).records == []
    assert path.read_text() == '{"identity": {"model": "m", "n": 2}}\n'
    path.write_text(path.read_text() + "not json\n")
    with pytest.raises(ValueError, match="is not a dev-set checkpoint \\(line 2"):
        DevCheckpoint(path, identity)
    path.write_text('{"identity": {"model": "other", "n": 2}}\n')
    with pytest.raises(ValueError, match="checkpoint of another dev evaluation .*'other'"):
        DevCheckpoint(path, identity)


def test_rerun_into_the_same_run_dir_logs_a_cached_dev_eval_once(tmp_path):
    from livesim.hat.train import TrainConfig, _Run

    cfg = TrainConfig.from_preset("tiny", ci=True).model_copy(update={"dev_requests": 2, "dev_max_new_tokens": 8})
    model = tmp_path / "stages" / "sft-x"
    model.mkdir(parents=True)
    from livesim.harness.prompt import PROMPT_RENDER_VERSION

    (model.parent / f"sft-x.dev-2-8-r{PROMPT_RENDER_VERSION}.json").write_text(
        json.dumps({"canonical": {"mean_reward": 0.5}}))
    (tmp_path / "run").mkdir()
    for _ in range(2):  # the second run of `train` into the same dir finds the row already there
        assert _Run(cfg, tmp_path / "run").dev_eval("sft", model) == {"canonical": {"mean_reward": 0.5}}
    rows = [json.loads(x) for x in (tmp_path / "run" / "metrics.jsonl").read_text().splitlines()]
    assert rows == [{"stage": "sft", "kind": "dev_eval", "canonical": {"mean_reward": 0.5}}]


def test_a_dev_batch_size_other_than_the_default_has_its_own_dev_cache(tmp_path):
    from livesim.harness.prompt import PROMPT_RENDER_VERSION
    from livesim.hat.train import TrainConfig, _Run

    model = tmp_path / "stages" / "sft-x"
    model.mkdir(parents=True)
    (model.parent / f"sft-x.dev-2-8-r{PROMPT_RENDER_VERSION}.json").write_text(json.dumps({"batch": "default"}))
    (model.parent / f"sft-x.dev-2-8-b4-r{PROMPT_RENDER_VERSION}.json").write_text(json.dumps({"batch": 4}))
    base = TrainConfig.from_preset("tiny", ci=True).model_copy(update={"dev_requests": 2, "dev_max_new_tokens": 8})
    for bs, want in ((8, {"batch": "default"}), (4, {"batch": 4})):
        cfg = base.model_copy(update={"dev_batch_size": bs})
        (tmp_path / f"run{bs}").mkdir()
        assert _Run(cfg, tmp_path / f"run{bs}").dev_eval("sft", model) == want


def test_rl_prompt_style_presents_the_canonical_harness_and_keeps_old_stage_keys(tiny_model_dir):
    from transformers import AutoTokenizer

    from livesim.hat.rl import EnvRollout, RLStageConfig
    from livesim.hat.sft import training_template
    from livesim.hat.train import TrainConfig, _rl_config

    assert "prompt_style" not in RLStageConfig().key_data()  # stages trained before the field keep their keys
    assert RLStageConfig(prompt_style="compact").key_data()["prompt_style"] == "compact"
    tok = AutoTokenizer.from_pretrained(tiny_model_dir)
    cfg = RLStageConfig(prompt_style="compact", tool_faults=False)
    env = EnvRollout(cfg, tok, training_template(tok))._env("canonical", 0)
    env.reset(seed=5)
    assert env.unwrapped.sim.harness.prompt.style == "compact"
    run = TrainConfig.from_preset("smollm2-135m")
    assert run.collect.prompt_style == "compact" and _rl_config(run).prompt_style == "compact"  # one presentation


def test_sft_validation_size_does_not_change_the_stage_key():
    from livesim.hat.train import TrainConfig, _stage_key

    cfg = TrainConfig.from_preset("tiny")
    capped = cfg.model_copy(update={"sft": cfg.sft.model_copy(update={"val_examples": 3})})
    assert _stage_key(cfg, "sft", "b", "b", "c") == _stage_key(capped, "sft", "b", "b", "c")
    other = cfg.model_copy(update={"sft": cfg.sft.model_copy(update={"steps": 7})})
    assert _stage_key(cfg, "sft", "b", "b", "c") != _stage_key(other, "sft", "b", "b", "c")
