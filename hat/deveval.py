"""The small dev-set evaluation run after each training stage: mean reward, canonical and held-out HSA.

``n`` ``LiveStreamQA-v0`` requests from the *test* split (seeds from ``DEV_SEED0``; training uses the train
split, so no request is shared), once on the canonical harness and once under HSA with the *held-out*
vocabulary (p = 2/3), played greedily by the ``transformers`` agent. This is a training-time check, not the
paper's suites (those are ``livesim.hat.suites`` / ``evaluate``).
"""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

import gymnasium as gym
import numpy as np

import livesim.envs  # noqa: F401  (registers the envs)
from livesim.agents import make_agent
from livesim.envs.hsa import make_wrappers
from livesim.envs.rollout import run_batched, summarize
from livesim.hat.common import progress
from livesim.runs.compare import paired_bootstrap
from livesim.stream.harness_file import harness_with_style

DEV_SEED0 = 900_000
DEV_BATCH_SIZE = 8
"""Requests generated together by default (a dev cache file name carries the batch size only when it differs)."""
VARIANTS = ("canonical", "heldout_hsa")


def mean_ci95(values: list[float], n_boot: int = 10_000, seed: int = 0) -> list[float]:
    """Percentile bootstrap 95% interval of the mean of `values` (resampling requests; seeded): the project's
    `paired_bootstrap` against zeros.
    """
    if not values:
        return [0.0, 0.0]
    x = np.asarray(values, dtype=float)
    _, lo, hi = paired_bootstrap(np.zeros_like(x), x, np.random.default_rng(seed), n_boot)
    return [lo, hi]


def check_request(variants: tuple[str, ...], n: int) -> None:
    """Raise a ValueError naming the problem when `variants` or `n` cannot make a dev-set evaluation."""
    unknown = [v for v in variants if v not in VARIANTS]
    if unknown or not variants:
        raise ValueError(f"unknown dev-set variant(s) {unknown or list(variants)}; expected some of {list(VARIANTS)}")
    if n < 1:
        raise ValueError(f"the dev set needs at least one request, got {n}")


def evaluate_model(model_dir: str | Path, n: int = 50, max_new_tokens: int = 128, batch_size: int = DEV_BATCH_SIZE,
                   variants: tuple[str, ...] = VARIANTS, show_progress: bool = True,
                   prompt_style: str = "full") -> dict[str, Any]:
    """Mean reward (and per-term scores) of a model directory on the dev set, per harness variant;
    `prompt_style` presents the canonical harness ('full': as it is, markdown; 'compact', ...). Each variant also
    carries every request's reward in seed order (`rewards`) and a bootstrap 95% interval of the mean (`mean_ci95`).
    """
    check_request(variants, n)
    harness = harness_with_style(None, prompt_style)
    agent = make_agent("transformers", model=str(model_dir), device="cpu", max_new_tokens=max_new_tokens,
                       temperature=0.0, batch_size=batch_size)
    seeds = [DEV_SEED0 + i for i in range(n)]
    out: dict[str, Any] = {"n": n, "max_new_tokens": max_new_tokens, "prompt_style": prompt_style}
    for variant in variants:
        def make_env(variant: str = variant) -> Any:
            env = gym.make("LiveStreamQA-v0", split="test", harness=harness)
            return make_wrappers(env, "hsa", split="heldout") if variant == "heldout_hsa" else env

        t0 = time.perf_counter()
        bar = progress(total=n, desc=f"dev {variant}", disable=not show_progress)
        records = []
        for rec in run_batched(make_env, agent, seeds, batch_size):
            records.append(rec)
            bar.update(1)
        bar.close()
        summary = summarize(records, len(seeds), time.perf_counter() - t0)
        out[variant] = {k: summary[k] for k in ("mean_reward", "accuracy", "effectiveness", "pass_rate",
                                                "fallback_rate", "parse_failure_rate", "turns_mean", "scores",
                                                "wall_s")}
        rewards = [float(r["reward"]) for r in sorted(records, key=lambda r: r["episode_seed"])]
        out[variant].update(rewards=rewards, mean_ci95=mean_ci95(rewards))
    return out
