"""Stage 3, HSA-RL: GRPO through TRL's ``GRPOTrainer`` with a ``rollout_func`` that plays the env multi-turn.

Each dataset row is one episode, carried in the prompt as ``{"livesim_episode": seed, "variant": ...}``, so
the ``num_generations`` rollouts of a group replay the same request under the same presented harness
(canonical or augmented with HSA's train vocabulary, with ``ToolFaults``), and the env never diverges from
TRL's transcript. :class:`EnvRollout` renders the env's observation with the training chat template,
samples a turn from the policy, steps the env with the raw text, and appends the env's answer (tool results,
hook retry messages, parser errors) as *env tokens*: the completion is model and env tokens interleaved, with
``env_mask`` 1 on model tokens (trained) and 0 on env tokens (masked from the loss). The env's own transcript,
rendered with the same template, is token-for-token the prompt plus completion whenever the policy's
text parses canonically (checked in tests).

Rewards: one reward function per graded term (accuracy, effectiveness, tool rationality, skill selection;
the env's gated scores, so a reply that meets no need scores 0 on every term) plus a length penalty, weighted
as the env's rubric; a rollout whose reply earned nothing (fell back, was cut) still gets the call credit of
its valid calls of the presented tools and skills (`call_credit`, bounded: see `livesim.grading.call_credit`);
per-term group normalisation (``multi_objective_aggregation="normalize_then_sum"``, GDPO) and sequence-level
importance sampling (``importance_sampling_level="sequence"``, GSPO) by default.

Segment-wise advantages (``segment_advantages=True``, single process): :class:`SegmentGRPOTrainer` replaces
TRL's per-sequence advantage by a per-token one: tokens of tool-calling turns get the group-normalised
tool terms (tool rationality + skill selection), tokens of the reply turn the group-normalised reply terms
(accuracy + effectiveness + length). TRL's loss accepts (B, T) advantages from subclasses; the override
reads the per-token segment ids that the rollout returns. Not supported across processes (groups are then
split over ranks before this hook sees them).
"""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any, Literal

import gymnasium as gym
import numpy as np
from pydantic import BaseModel, ConfigDict, Field

import livesim.envs  # noqa: F401  (registers the envs)
from livesim.agents.kv_cache import GenStats, PrefixCache, TurnEnd, generate_cached, share_group_prefixes
from livesim.agents.transformers_agent import normalize_messages
from livesim.envs.hsa import ToolFaults, make_wrappers
from livesim.grading import WEIGHTS
from livesim.grading.call_credit import CALL_CREDIT_SCALE, sim_call_credit
from livesim.harness.core import PromptStyleName
from livesim.hat.common import (
    atomic_dir,
    check_out,
    elapsed_before,
    elapsed_callback,
    last_checkpoint,
    log_history,
    quiet_trainer,
    quiet_unless_progress,
    trainer_common,
    write_model_card,
)
from livesim.hat.sft import training_template
from livesim.models.device import load_kwargs
from livesim.stream.harness_file import harness_with_style
from livesim.stream.paths import write_text

TERMS = ("accuracy", "effectiveness", "tool_rationality", "skill_selection")
SEG_ENV, SEG_TOOL, SEG_REPLY = 0, 1, 2

OUT_MARKER = "rl_stats.json"
OUT_KIND = "model folder written by `livesim hat rl`"


class RLStageConfig(BaseModel):
    """The RL stage's settings (the policy path is passed to :func:`run`)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    steps: int = Field(20, ge=1, description="Optimizer steps.")
    lr: float = Field(1e-5, gt=0, description="Peak learning rate.")
    num_generations: int = Field(4, ge=2, description="Rollouts per episode (the GRPO group).")
    episodes_per_step: int = Field(2, ge=1, description="Episodes (groups) per optimizer step.")
    episodes: int = Field(64, ge=1, description="Distinct training episodes (LiveStreamQA-v0 train split).")
    seed: int = Field(0, ge=0, description="Seeds the episodes, the harness mix and sampling.")
    max_turns: int = Field(4, ge=1, description="Model turns per episode before it is cut (reward 0).")
    max_new_tokens: int = Field(96, ge=1, description="Tokens sampled per turn.")
    max_completion_length: int = Field(768, ge=16, description="Cap on model + env tokens after the prompt.")
    temperature: float = Field(1.0, gt=0, description="Sampling temperature.")
    fixed_harness: bool = Field(False, description="Canonical harness only (the fixed-harness RL ablation).")
    wrappers: str = Field("hsa", description="HSA wrapper spec applied to augmented episodes.")
    hsa_split: str = Field("train", description="HSA vocabulary for training (never 'heldout').")
    hsa_p: float = Field(2 / 3, ge=0, le=1, description="Probability of each HSA transform.")
    canonical_fraction: float = Field(0.25, ge=0, le=1, description="Share of episodes on the canonical harness.")
    tool_faults: bool = Field(True, description="ToolFaults on every episode (timeouts, malformed, denied).")
    length_penalty: float = Field(0.05, ge=0, description="Weight of the length penalty reward.")
    length_target: int = Field(160, ge=1, description="Model tokens per episode above which the penalty grows.")
    multi_objective_aggregation: str = Field("normalize_then_sum", description="GDPO per-term normalisation "
                                             "('normalize_then_sum') or TRL's default 'sum_then_normalize'.")
    importance_sampling_level: str = Field("sequence", description="'sequence' (GSPO) or 'token' (GRPO).")
    segment_advantages: bool = Field(False, description="Per-segment advantages (tool-call vs reply tokens).")
    loss_type: str | None = Field(None, description="TRL loss_type; None: 'grpo' with sequence-level IS (GSPO "
                                  "as published), TRL's default 'dapo' otherwise.")
    beta: float = Field(0.0, ge=0, description="KL coefficient toward the initial policy (0: no reference model).")
    save_steps: int = Field(10, ge=1, description="Checkpoint every N steps.")
    kv_cache: bool = Field(True, description="Sample rollouts through livesim's prefix KV cache (a group's shared "
                           "prompt and each earlier turn prefilled once; livesim.agents.kv_cache) instead of "
                           "model.generate, which prefills the whole context again every turn. Same sampling "
                           "distribution, other draws.")
    gradient_checkpointing: bool = Field(True, description="Recompute activations in the backward pass: a GRPO "
                                         "step trains on whole episodes (SmolLM2: 4 x ~3,000 tokens held ~20 GB "
                                         "of activations without it). Memory only: not in the stage key.")
    prompt_style: Literal["full", PromptStyleName] = Field(
        "full", description="How the canonical harness's prompt is presented ('full': as the harness says, "
        "markdown; 'compact': the token-budgeted style). HSA episodes may switch it (a prompt_style transform).")
    call_credit: float = Field(CALL_CREDIT_SCALE, ge=0, le=1, description="Scale of the call credit paid to "
                               "rollouts whose reply earned nothing (fell back, was cut, or was graded 0): tool "
                               "rationality and skill selection for valid calls of the presented tools and skills "
                               "(livesim.grading.call_credit; bounded, loops cost credit). 0: no credit, as stages "
                               "trained before the field.")

    def key_data(self) -> dict[str, Any]:
        """The fields that make a stage's content key (``prompt_style`` only when set, ``kv_cache`` only when on:
        keys of stages trained before they existed stay valid; the cached sampler draws other rollouts, so it
        is a new key).
        """
        data = self.model_dump(exclude={"gradient_checkpointing"})  # how memory is spent, not what is trained
        if data["prompt_style"] == "full":
            del data["prompt_style"]
        if not data["kv_cache"]:  # model.generate, as stages trained before the field were
            del data["kv_cache"]
        if data["call_credit"] == 0:  # no call credit, as stages trained before the field were
            del data["call_credit"]
        return data

    def harness(self) -> Any:
        """The canonical harness the episodes start from (None: the env's default)."""
        return harness_with_style(None, self.prompt_style)

    def weights(self) -> list[float]:
        return [WEIGHTS[t] for t in TERMS] + [self.length_penalty]


def episode_prompt(seed: int, variant: str) -> list[dict[str, str]]:
    """The dataset prompt of one episode: it carries the seed and the harness variant (canonical / hsa)."""
    return [{"role": "user", "content": json.dumps({"livesim_episode": int(seed), "variant": variant})}]


def parse_episode_prompt(prompt: Any) -> tuple[int, str]:
    text = prompt[-1]["content"] if isinstance(prompt, list) else str(prompt)
    try:
        obj = json.loads(text)
        return int(obj["livesim_episode"]), str(obj["variant"])
    except (ValueError, KeyError, TypeError):
        raise ValueError(f"expected a livesim episode prompt {{'livesim_episode': SEED, 'variant': ...}}, got "
                         f"{text[:80]!r}") from None


def episode_rows(cfg: RLStageConfig) -> list[dict[str, Any]]:
    rng = np.random.default_rng([cfg.seed, 5])
    rows = []
    for i in range(cfg.episodes):
        variant = "canonical" if cfg.fixed_harness or rng.random() < cfg.canonical_fraction else "hsa"
        seed = 5_000_000 + cfg.seed * 100_003 + i
        rows.append({"prompt": episode_prompt(seed, variant), "episode_seed": seed, "variant": variant})
    return rows


class EnvRollout:
    """The ``rollout_func``: plays ``LiveStreamQA-v0`` episodes with the policy, model and env tokens split."""

    def __init__(self, cfg: RLStageConfig, tokenizer: Any, chat_template: str | None = None) -> None:
        self.cfg = cfg
        self.tokenizer = tokenizer
        self.template = chat_template or tokenizer.chat_template
        self.eos_id = tokenizer.convert_tokens_to_ids(tokenizer.eos_token)
        self.pad_id = tokenizer.pad_token_id if tokenizer.pad_token_id is not None else self.eos_id
        self.calls = 0
        self.gen_stats = GenStats()  # prefilled / reused prompt tokens of the cached sampler, over every play
        self.rollouts, self.rollout_seconds = 0, 0.0  # episodes played and their wall seconds, over every play
        self._pool: dict[str, list[Any]] = {"canonical": [], "hsa": []}
        self.last_transcripts: list[list[dict[str, Any]]] = []

    # --- envs -----------------------------------------------------------------------------------------
    def _env(self, variant: str, k: int) -> Any:
        pool = self._pool[variant]
        while len(pool) <= k:
            env = gym.make("LiveStreamQA-v0", split="train", harness=self.cfg.harness())
            if self.cfg.tool_faults:
                env = ToolFaults(env)
            if variant == "hsa":
                env = make_wrappers(env, self.cfg.wrappers, split=self.cfg.hsa_split, p=self.cfg.hsa_p)
            pool.append(env)
        return pool[k]

    # --- rendering ------------------------------------------------------------------------------------
    def render(self, messages: list[dict[str, Any]], tools: list[dict[str, Any]], generation_prompt: bool) -> str:
        return self.tokenizer.apply_chat_template(normalize_messages(messages), tools=tools, tokenize=False,
                                                  add_generation_prompt=generation_prompt,
                                                  chat_template=self.template)

    def encode(self, text: str) -> list[int]:
        return self.tokenizer(text, add_special_tokens=False)["input_ids"]

    def env_text(self, messages: list[dict[str, Any]], n_before: int, tools: list[dict[str, Any]]) -> str:
        """The text the env adds after the assistant turn ``messages[n_before - 1]``, up to the next turn's start.

        It is the difference of two renders (the template is prefix-preserving), plus whatever the template
        puts after the assistant's end-of-turn token (e.g. a newline).
        """
        prev = self.render(messages[:n_before], tools, generation_prompt=False)
        nxt = self.render(messages, tools, generation_prompt=True)
        if not nxt.startswith(prev):
            raise RuntimeError("the chat template is not prefix-preserving; use the training template")
        eos = self.tokenizer.eos_token
        cut = prev.rfind(eos)
        tail = prev[cut + len(eos):] if cut != -1 else ""
        return tail + nxt[len(prev):]

    # --- generation -----------------------------------------------------------------------------------
    def _generate_cached(self, model: Any, contexts: list[list[int]], cache: PrefixCache) -> list[list[int]]:
        """One turn for every live rollout through `generate_cached`: within a `play` the weights are fixed, so
        the group's common prompt is prefilled once and each turn only prefills what the env added.
        """
        import torch

        device = next(model.parameters()).device
        was_training = model.training
        model.eval()
        try:
            gen = torch.Generator(device=device).manual_seed(self.cfg.seed * 1_000_003 + self.calls)
            self.calls += 1
            groups: dict[tuple[int, ...], list[list[int]]] = {}
            for ctx in contexts:  # a GRPO group's rollouts start identical: its prompt is prefilled once
                groups.setdefault(tuple(ctx), []).append(ctx)
            with torch.no_grad():
                share_group_prefixes(model, [g for g in groups.values() if len(g) > 1], cache, self.gen_stats)
                return generate_cached(model, contexts, cache, TurnEnd(frozenset({self.eos_id}), after_tool_call=False),
                                       max_new_tokens=self.cfg.max_new_tokens, pad_id=self.pad_id,
                                       temperature=self.cfg.temperature, generator=gen, stats=self.gen_stats)
        finally:
            model.train(was_training)

    def _generate(self, model: Any, contexts: list[list[int]]) -> list[list[int]]:
        import torch

        width = max(len(c) for c in contexts)
        ids = torch.full((len(contexts), width), self.pad_id, dtype=torch.long)
        att = torch.zeros((len(contexts), width), dtype=torch.long)
        for r, c in enumerate(contexts):
            ids[r, width - len(c):] = torch.tensor(c)
            att[r, width - len(c):] = 1
        device = next(model.parameters()).device
        was_training = model.training
        model.eval()
        try:
            with torch.random.fork_rng(devices=[]), torch.no_grad():
                torch.manual_seed(self.cfg.seed * 1_000_003 + self.calls)
                self.calls += 1
                out = model.generate(input_ids=ids.to(device), attention_mask=att.to(device), do_sample=True,
                                     temperature=self.cfg.temperature, top_k=0, top_p=1.0,
                                     max_new_tokens=self.cfg.max_new_tokens, eos_token_id=self.eos_id,
                                     pad_token_id=self.pad_id)
        finally:
            model.train(was_training)
        result = []
        for row in out[:, width:].tolist():
            end = next((i for i, t in enumerate(row) if t == self.eos_id), None)
            result.append(row if end is None else row[: end + 1])
        return result

    def play(self, model: Any, episodes: list[tuple[int, str]], generate: Any = None) -> dict[str, Any]:
        """Play one rollout per ``(seed, variant)``; ``generate(contexts) -> new ids`` overrides the model."""
        t0 = time.perf_counter()
        n = len(episodes)
        if generate is not None:
            gen = generate
        elif self.cfg.kv_cache:
            cache = PrefixCache(max_entries=max(16, 2 * n))  # this play's weights only
            gen = lambda ctx: self._generate_cached(model, ctx, cache)  # noqa: E731
        else:
            gen = lambda ctx: self._generate(model, ctx)  # noqa: E731
        envs, state = [], []
        counters: dict[str, int] = {"canonical": 0, "hsa": 0}
        for seed, variant in episodes:
            env = self._env(variant, counters[variant])
            counters[variant] += 1
            obs, _ = env.reset(seed=seed)
            prompt_ids = self.encode(self.render(obs["messages"], obs["tools"], generation_prompt=True))
            envs.append(env)
            state.append({"prompt_ids": prompt_ids, "completion": [], "mask": [], "segments": [], "turns": 0,
                          "done": False, "info": None, "tools": obs["tools"], "model_tokens": 0, "truncated": 0})
        while True:
            live = [i for i in range(n) if not state[i]["done"]]
            if not live:
                break
            outs = gen([state[i]["prompt_ids"] + state[i]["completion"] for i in live])
            for i, new in zip(live, outs, strict=True):
                s = state[i]
                text_ids = new[:-1] if new and new[-1] == self.eos_id else new
                action = self.tokenizer.decode(text_ids, skip_special_tokens=False)
                sim = envs[i].unwrapped.sim
                before = len(sim.messages)
                _, _, term, trunc, info = envs[i].step(action)
                s["turns"] += 1
                seg = SEG_REPLY if info.get("dispatched") else SEG_TOOL
                s["completion"] += new
                s["mask"] += [1] * len(new)
                s["segments"] += [seg] * len(new)
                s["model_tokens"] += len(new)
                if not new or new[-1] != self.eos_id:  # cut at max_new_tokens: close the turn as the env would
                    s["truncated"] += 1
                    s["completion"].append(self.eos_id)
                    s["mask"].append(0)
                    s["segments"].append(SEG_ENV)
                if term or trunc:
                    s["done"], s["info"] = True, info
                    continue
                messages = sim.messages
                env_ids = self.encode(self.env_text(messages, before + 1, s["tools"]))
                over = len(s["completion"]) + len(env_ids) + self.cfg.max_new_tokens > self.cfg.max_completion_length
                if s["turns"] >= self.cfg.max_turns or over:
                    s["done"] = True
                    continue
                s["completion"] += env_ids
                s["mask"] += [0] * len(env_ids)
                s["segments"] += [SEG_ENV] * len(env_ids)
        self.last_transcripts = [list(e.unwrapped.sim.messages) for e in envs]
        self.rollouts += n
        seconds = time.perf_counter() - t0
        self.rollout_seconds += seconds
        terms, dispatched = [], []
        for s, env in zip(state, envs, strict=True):
            info = s["info"] or {}
            ok = bool(info.get("dispatched"))
            dispatched.append(ok)
            rt = info.get("reward_terms", {}) if ok else {}
            terms.append(rollout_terms(rt, env.unwrapped.sim, self.cfg.call_credit))
        return {
            "prompt_ids": [s["prompt_ids"] for s in state],
            "completion_ids": [s["completion"] for s in state],
            "logprobs": None,
            "env_mask": [s["mask"] for s in state],
            "livesim_terms": terms,
            "livesim_dispatched": dispatched,
            "livesim_model_tokens": [s["model_tokens"] for s in state],
            "livesim_segments": [s["segments"] for s in state],
            "livesim_seed": [seed for seed, _ in episodes],
            # this play's wall time and generated tokens, logged once a step as livesim/rollout_s and
            # livesim/rollout_tokens beside TRL's step_time (the rollouts' share of a step)
            "livesim_rollout_s": [seconds] * n,
            "livesim_rollout_tokens": [sum(s["model_tokens"] for s in state)] * n,
        }

    def __call__(self, prompts: list[Any], trainer: Any) -> dict[str, Any]:
        model = trainer.accelerator.unwrap_model(trainer.model)
        return self.play(model, [parse_episode_prompt(p) for p in prompts])


def rollout_terms(reward_terms: dict[str, float], sim: Any, credit: float) -> dict[str, float]:
    """Per-term rewards of one rollout (unweighted, TERMS plus the weighted `reward`): the graded terms of its
    dispatched reply; where those are all 0 (a fallback, a cut rollout, a reply that earned nothing), the call
    credit of its valid calls (`livesim.grading.call_credit`, scaled by `credit`; 0 disables it).
    """
    out = {t: float(reward_terms.get(t, 0.0)) / WEIGHTS[t] for t in TERMS}
    out["reward"] = float(sum(reward_terms.values()))
    if credit > 0 and out["reward"] == 0.0:
        out.update(sim_call_credit(sim, credit))
        out["reward"] = sum(WEIGHTS[t] * out[t] for t in TERMS)
    return out


def reward_functions(cfg: RLStageConfig) -> list[Any]:
    """One reward function per graded term, then the length penalty (names show in TRL's logs)."""

    def term_fn(term: str) -> Any:
        def fn(prompts: list[Any], completions: list[Any], livesim_terms: list[dict[str, float]], **_: Any
               ) -> list[float]:
            return [t[term] for t in livesim_terms]

        fn.__name__ = term
        return fn

    def length(prompts: list[Any], completions: list[Any], livesim_model_tokens: list[int], log_metric: Any = None,
               livesim_rollout_s: list[float] | None = None, livesim_rollout_tokens: list[int] | None = None,
               **_: Any) -> list[float]:
        if log_metric is not None and livesim_rollout_s:  # TRL's hook for a scalar a step, averaged per log row
            log_metric("livesim/rollout_s", float(livesim_rollout_s[0]))
            log_metric("livesim/rollout_tokens", float((livesim_rollout_tokens or [0])[0]))
        return [-min(1.0, max(0, n - cfg.length_target) / cfg.length_target) for n in livesim_model_tokens]

    length.__name__ = "length_penalty"
    return [term_fn(t) for t in TERMS] + [length]


def segment_advantages(segments: list[list[int]], terms: list[dict[str, float]], model_tokens: list[int],
                       cfg: RLStageConfig, group: int, width: int) -> Any:
    """(B, T) advantages: group-normalised tool terms on tool-call tokens, reply terms on reply tokens."""
    import torch

    tool = np.array([WEIGHTS["tool_rationality"] * t["tool_rationality"] + WEIGHTS["skill_selection"]
                     * t["skill_selection"] for t in terms])
    pen = np.array([-min(1.0, max(0, n - cfg.length_target) / cfg.length_target) for n in model_tokens])
    reply = np.array([WEIGHTS["accuracy"] * t["accuracy"] + WEIGHTS["effectiveness"] * t["effectiveness"]
                      for t in terms]) + cfg.length_penalty * pen

    def norm(x: np.ndarray) -> np.ndarray:
        g = x.reshape(-1, group)
        return ((g - g.mean(1, keepdims=True)) / (g.std(1, keepdims=True) + 1e-4)).reshape(-1)

    a_tool, a_reply = norm(tool), norm(reply)
    adv = torch.zeros((len(segments), width))
    for b, seg in enumerate(segments):
        s = torch.tensor(seg[:width] + [SEG_ENV] * (width - len(seg[:width])))
        adv[b] = torch.where(s == SEG_TOOL, float(a_tool[b]), torch.where(s == SEG_REPLY, float(a_reply[b]), 0.0))
    return adv


def _segment_trainer_class() -> Any:
    from trl import GRPOTrainer

    class SegmentGRPOTrainer(GRPOTrainer):
        """GRPO with per-segment (tool-call vs reply) advantages; see the module docstring."""

        def _generate_and_score_completions(self, inputs: list[dict[str, Any]]) -> dict[str, Any]:
            out = super()._generate_and_score_completions(inputs)
            if self.accelerator.num_processes != 1:
                raise RuntimeError("segment_advantages needs a single process (groups span ranks otherwise)")
            cfg: RLStageConfig = getattr(self, "_livesim_cfg")  # noqa: B009
            group = int(self.num_generations or cfg.num_generations)
            adv = segment_advantages([x["livesim_segments"] for x in inputs], [x["livesim_terms"] for x in inputs],
                                     [x["livesim_model_tokens"] for x in inputs], cfg, group,
                                     out["completion_ids"].shape[1])
            out["advantages"] = adv.to(out["completion_ids"].device)
            return out

    return SegmentGRPOTrainer


@quiet_unless_progress
def run(cfg: RLStageConfig, model_dir: str | Path, out_dir: str | Path, work_dir: str | Path | None = None,
        show_progress: bool = True, callbacks: list[Any] | None = None) -> dict[str, Any]:
    """GRPO on ``model_dir`` in the env; save the policy to ``out_dir``; return stats (per-term rewards)."""
    import torch
    from datasets import Dataset
    from transformers import AutoModelForCausalLM, AutoTokenizer
    from trl import GRPOConfig, GRPOTrainer

    out = Path(out_dir)
    check_out(out, OUT_KIND, inputs=(model_dir,))
    work = Path(work_dir) if work_dir else out.with_name(out.name + ".work")
    t0 = time.perf_counter()
    tokenizer = AutoTokenizer.from_pretrained(model_dir)
    tokenizer.chat_template = training_template(tokenizer)
    model = AutoModelForCausalLM.from_pretrained(model_dir, **load_kwargs(torch.float32))
    rows = episode_rows(cfg)
    dataset = Dataset.from_list(rows)
    batch = cfg.episodes_per_step * cfg.num_generations
    common = trainer_common(work, steps=cfg.steps, lr=cfg.lr, batch_size=batch, grad_accum=1, seed=cfg.seed,
                            save_steps=cfg.save_steps)
    common["gradient_checkpointing"] = cfg.gradient_checkpointing
    args = GRPOConfig(
        **common,
        num_generations=cfg.num_generations, max_completion_length=cfg.max_completion_length,
        temperature=cfg.temperature, beta=cfg.beta, reward_weights=cfg.weights(),
        multi_objective_aggregation=cfg.multi_objective_aggregation,
        importance_sampling_level=cfg.importance_sampling_level, shuffle_dataset=True,
        log_completions=False,
        loss_type=cfg.loss_type or ("grpo" if cfg.importance_sampling_level == "sequence" else "dapo"),
    )
    args.disable_tqdm = not show_progress
    rollout = EnvRollout(cfg, tokenizer)
    cls = _segment_trainer_class() if cfg.segment_advantages else GRPOTrainer
    trainer = cls(model=model, reward_funcs=reward_functions(cfg), args=args, train_dataset=dataset,
                  processing_class=tokenizer, rollout_func=rollout, callbacks=callbacks)
    quiet_trainer(trainer)
    setattr(trainer, "_livesim_cfg", cfg)  # noqa: B010  (read by SegmentGRPOTrainer)
    resumed_from = last_checkpoint(work)
    prior_s = elapsed_before(resumed_from)  # a resumed stage reports its whole cost
    trainer.add_callback(elapsed_callback(t0, prior_s))
    trainer.train(resume_from_checkpoint=resumed_from)
    history = log_history(trainer)
    rewards = [r["reward"] for r in history if "reward" in r]
    per_term = {t: [r.get(f"rewards/{t}/mean") for r in history if f"rewards/{t}/mean" in r]
                for t in (*TERMS, "length_penalty")}
    stats = {
        "stage": "rl", "config": cfg.model_dump(), "model": str(model_dir), "steps": trainer.state.global_step,
        "resumed_from": resumed_from,
        "reward_start": rewards[0] if rewards else None, "reward_end": rewards[-1] if rewards else None,
        "per_term_start": {k: v[0] for k, v in per_term.items() if v},
        "per_term_end": {k: v[-1] for k, v in per_term.items() if v},
        "wall_s": prior_s + time.perf_counter() - t0, "history": history,
        "rollout_tokens": {"prefilled": rollout.gen_stats.prefill_tokens, "reused": rollout.gen_stats.reused_tokens,
                           "sampler": "kv_cache" if cfg.kv_cache else "model.generate",
                           # forward passes in all, and decode steps replayed from a CUDA graph (`cuda_graphs`)
                           "forward_passes": rollout.gen_stats.forward_calls,
                           "cuda_graph_steps": rollout.gen_stats.graph_steps},
        # every episode played in a batch (all live rollouts of a step generate together); requests = episodes
        "rollouts": rollout.rollouts, "rollout_s": rollout.rollout_seconds,
        "rollouts_per_s": rollout.rollouts / rollout.rollout_seconds if rollout.rollout_seconds else None,
        "device": str(trainer.args.device), "bf16": bool(trainer.args.bf16),
    }
    if trainer.accelerator.is_main_process:  # under accelerate launch only rank 0 writes
        with atomic_dir(out, OUT_KIND, inputs=(model_dir,)) as tmp:
            model_out: Any = trainer.model
            model_out.save_pretrained(tmp)
            tokenizer.save_pretrained(tmp)
            write_model_card(tmp, "livesim HSA-RL model", [
                f"GRPO (TRL `GRPOTrainer`, rollout_func playing LiveStreamQA-v0, "
                f"{'canonical harness' if cfg.fixed_harness else 'HSA train vocabulary'}"
                f"{', ToolFaults' if cfg.tool_faults else ''}) from `{model_dir}`: {stats['steps']} steps, "
                f"aggregation {cfg.multi_objective_aggregation}, importance sampling "
                f"{cfg.importance_sampling_level}, segment advantages {cfg.segment_advantages}; reward "
                f"{stats['reward_start']} -> {stats['reward_end']}.",
            ])
            write_text(tmp / OUT_MARKER, json.dumps(stats, indent=2, default=str) + "\n")
    trainer.accelerator.wait_for_everyone()
    return stats
