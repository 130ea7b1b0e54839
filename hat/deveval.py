"""The small dev-set evaluation run after each training stage: mean reward, canonical and held-out HSA.

``n`` ``LiveStreamQA-v0`` requests from the *test* split (seeds from ``DEV_SEED0``; training uses the train
split, so no request is shared), once on the canonical harness and once under HSA with the *held-out*
vocabulary (p = 2/3), played greedily by the ``transformers`` agent (``train_hsa``, on request: HSA with the
train vocabulary). Each variant carries a call audit (`call_audit`): what the model's tool calls did and where
the names it used that the presented harness lacks come from. This is a training-time check, not the paper's
suites (those are ``livesim.hat.suites`` / ``evaluate``).
"""

from __future__ import annotations

import json
import time
from collections import Counter
from functools import lru_cache
from pathlib import Path
from typing import Any

import gymnasium as gym
import numpy as np

import livesim.envs  # noqa: F401  (registers the envs)
from livesim.agents import make_agent
from livesim.envs.hsa import make_wrappers
from livesim.envs.rollout import run_batched, summarize
from livesim.hat.common import progress, quiet_unless_progress
from livesim.models.device import select_device
from livesim.runs.compare import paired_bootstrap
from livesim.stream.harness_file import harness_with_style
from livesim.stream.paths import append_text, check_output_file, read_text, write_text

DEV_SEED0 = 900_000
MAX_CHECKPOINT_BYTES = 256 << 20
"""Largest dev-set checkpoint read back (a line per request; 50 requests take about 100 KB)."""
DEV_BATCH_SIZE = 8
"""Requests generated together by default (a dev cache file name carries the batch size only when it differs)."""
VARIANTS = ("canonical", "heldout_hsa")
"""The variants evaluated by default (after each training stage, and by `livesim hat dev`)."""
ALL_VARIANTS = (*VARIANTS, "train_hsa")
"""Also ``train_hsa``: HSA with the *train* vocabulary (still the test split's requests), a diagnosis that tells
failing on HSA itself from failing on the unseen vocabulary."""
_HSA_SPLIT = {"heldout_hsa": "heldout", "train_hsa": "train"}
"""The HSA vocabulary split each HSA variant presents."""
NAME_SOURCES = ("canonical", "hsa_train", "hsa_heldout", "other")
"""Where a name that the presented harness does not have comes from (`call_audit`)."""


@lru_cache(maxsize=1)
def _name_sources() -> dict[str, str]:
    """Every tool and skill name of the canonical harness and of HSA's two vocabularies, mapped to its source
    (built once per process; read only).
    """
    from livesim.envs.hsa.vocab import HELDOUT, STRESS, TRAIN, synonym_forms
    from livesim.harness.core import default_harness

    out: dict[str, str] = {}
    for split, voc in (("hsa_heldout", STRESS), ("hsa_heldout", HELDOUT), ("hsa_train", TRAIN)):
        for kind in ("tool", "skill"):  # every form a synonym is presented in (distractor names included)
            out.update({name: split for name in synonym_forms(voc, kind)})
    harness = default_harness()
    out.update({name: "canonical" for name in [t.name for t in harness.tools] + [k.name for k in harness.skills]})
    return out


def call_audit(records: list[dict[str, Any]]) -> dict[str, Any]:
    """What a model's tool calls and skill loads did, over the requests' traces: ``calls``, ``ok``, failures by
    kind (``unknown_tool``, ``skill_not_found``, ``invalid_args``, other kinds), and for the calls that named a
    tool or skill the presented harness does not have, where that name comes from (``unpresented``: counts per
    `NAME_SOURCES`; ``hsa_train`` is the vocabulary an HSA-trained model has seen, ``other`` an invented or
    random name; ``unpresented_names``: the 8 most frequent, with counts). Under held-out HSA this tells recall of
    training names from failure to read the prompt.
    """
    sources = _name_sources()
    names: Counter[str] = Counter()
    out: dict[str, Any] = {"calls": 0, "ok": 0, "failed": {}, "unpresented": dict.fromkeys(NAME_SOURCES, 0)}
    for rec in records:
        for call in rec["trace"]["tool_calls"]:
            out["calls"] += 1
            if call.get("ok"):
                out["ok"] += 1
                continue
            kind = call.get("error_kind") or "error"
            if kind == "not_found" and call.get("key") == "load_skill":
                kind = "skill_not_found"
            out["failed"][kind] = out["failed"].get(kind, 0) + 1
            if kind == "unknown_tool":
                name = call.get("name")
            elif kind == "skill_not_found":
                name = next((v for v in (call.get("arguments") or {}).values() if isinstance(v, str)), None)
            else:
                continue
            label = "(no name given)" if name is None else str(name)
            out["unpresented"][sources.get(label, "other")] += 1
            names[label] += 1
    out["failed"] = dict(sorted(out["failed"].items()))
    out["unpresented_names"] = dict(sorted(names.items(), key=lambda kv: (-kv[1], kv[0]))[:8])
    return out


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
    unknown = [v for v in variants if v not in ALL_VARIANTS]
    if unknown or not variants:
        raise ValueError(f"unknown dev-set variant(s) {unknown or list(variants)}; expected some of "
                         f"{list(ALL_VARIANTS)}")
    if n < 1:
        raise ValueError(f"the dev set needs at least one request, got {n}")


def _slim(rec: dict[str, Any], wall: float, segment: int) -> dict[str, Any]:
    """What `summarize` and `call_audit` read of a request's record (a checkpoint line), JSON-clean."""
    trace = rec["trace"]
    out = {"episode_seed": int(rec["episode_seed"]), "reward": float(rec["reward"]),
           "grade": {"scores": {k: float(v) for k, v in rec["grade"]["scores"].items()}},
           "reward_terms": {k: float(v) for k, v in rec["reward_terms"].items()},
           "truth": {"intents": list(rec["truth"]["intents"])},
           "trace": {"latency_s": float(trace["latency_s"]), "fallback": bool(trace["fallback"]),
                     "turns": int(trace["turns"]), "parse_errors": int(trace["parse_errors"]),
                     "tool_calls": [{k: c.get(k) for k in ("ok", "error_kind", "key", "name", "arguments")}
                                    for c in trace["tool_calls"]]},
           "_wall": wall, "_segment": segment}
    return json.loads(json.dumps(out, default=str))  # arguments hold what the model wrote: make it plain JSON


class DevCheckpoint:
    """Finished requests of one dev-set variant, one JSON line each, so a killed evaluation resumes where it
    stopped. The first line is the evaluation's identity (model, requests, tokens, batch size, prompt style,
    variant); a file made by another evaluation is an error, never mixed in. Requests run after a resume are
    batched with other requests than in an unbroken run, so under padding a greedy output can differ in
    floating point; the result says how many requests came from the checkpoint (`resumed`).
    """

    def __init__(self, path: Path, identity: dict[str, Any]) -> None:
        self.path, self.identity = path, identity
        self.records: list[dict[str, Any]] = []
        self.segment = 0
        check_output_file(path, force=True, flag="--out checkpoint")  # a link, folder or device is refused
        text = read_text(path, MAX_CHECKPOINT_BYTES) if path.is_file() else ""
        if text and not text.endswith("\n"):  # a line cut short by the kill: dropped, that request runs again
            text = text[:text.rfind("\n") + 1]
            write_text(path, text)
        if text.strip():
            lines = []
            for i, x in enumerate(text.splitlines(), 1):
                if not x.strip():
                    continue
                try:
                    lines.append(json.loads(x))
                except json.JSONDecodeError as e:
                    raise ValueError(f"{path} is not a dev-set checkpoint (line {i}: {e.msg}); remove it or give "
                                     "another --out") from None
            if not lines or lines[0] != {"identity": identity}:
                have = lines[0].get("identity") if lines and isinstance(lines[0], dict) else None
                raise ValueError(f"{path} is the checkpoint of another dev evaluation ({have}), not of {identity}; "
                                 "remove it or give another --out")
            self.records = lines[1:]
            self.segment = 1 + max((r["_segment"] for r in self.records), default=-1)
        else:  # new, or killed before its first line ended
            write_text(path, json.dumps({"identity": identity}) + "\n")

    @property
    def prior_wall_s(self) -> float:
        """Seconds the earlier runs spent (each run's last line holds its elapsed time)."""
        last: dict[int, float] = {}
        for r in self.records:
            last[r["_segment"]] = max(last.get(r["_segment"], 0.0), r["_wall"])
        return sum(last.values())

    def add(self, rec: dict[str, Any], wall: float) -> None:
        line = _slim(rec, wall, self.segment)
        append_text(self.path, json.dumps(line) + "\n", flag="evaluation checkpoint")


@quiet_unless_progress
def evaluate_model(model_dir: str | Path, n: int = 50, max_new_tokens: int = 128, batch_size: int = DEV_BATCH_SIZE,
                   variants: tuple[str, ...] = VARIANTS, show_progress: bool = True,
                   prompt_style: str = "full", checkpoint: str | Path | None = None) -> dict[str, Any]:
    """Mean reward (and per-term scores) of a model directory on the dev set, per harness variant;
    `prompt_style` presents the canonical harness ('full': as it is, markdown; 'compact', ...). Each variant also
    carries every request's reward in seed order (`rewards`) and a bootstrap 95% interval of the mean (`mean_ci95`).

    `checkpoint`: a path prefix; each variant's finished requests are appended to `<prefix>.<variant>.jsonl` as
    they finish, and a rerun with the same arguments takes them from there and plays only the rest
    (`DevCheckpoint`). The caller removes the files once the result is kept (`remove_checkpoints`).
    """
    check_request(variants, n)
    harness = harness_with_style(None, prompt_style)
    agent = make_agent("transformers", model=str(model_dir), device=select_device().device,
                       max_new_tokens=max_new_tokens,
                       temperature=0.0, batch_size=batch_size)
    seeds = [DEV_SEED0 + i for i in range(n)]
    out: dict[str, Any] = {"n": n, "max_new_tokens": max_new_tokens, "prompt_style": prompt_style}
    for variant in variants:
        def make_env(variant: str = variant) -> Any:
            env = gym.make("LiveStreamQA-v0", split="test", harness=harness)
            split = _HSA_SPLIT.get(variant)
            return make_wrappers(env, "hsa", split=split) if split else env

        t0 = time.perf_counter()
        ckpt = None
        records: list[dict[str, Any]] = []
        if checkpoint is not None:
            identity = {"model": str(model_dir), "n": n, "max_new_tokens": max_new_tokens, "batch_size": batch_size,
                        "prompt_style": prompt_style, "variant": variant}
            ckpt = DevCheckpoint(checkpoint_path(checkpoint, variant), identity)
            records = list(ckpt.records)
        done = {r["episode_seed"] for r in records}
        todo = [s for s in seeds if s not in done]
        bar = progress(total=n, desc=f"dev {variant}", disable=not show_progress)
        bar.update(len(records))
        for rec in run_batched(make_env, agent, todo, batch_size) if todo else ():
            records.append(rec)
            if ckpt is not None:
                ckpt.add(rec, time.perf_counter() - t0)
            bar.update(1)
        bar.close()
        wall = time.perf_counter() - t0 + (ckpt.prior_wall_s if ckpt is not None else 0.0)
        summary = summarize(records, len(seeds), wall)
        out[variant] = {k: summary[k] for k in ("mean_reward", "accuracy", "effectiveness", "pass_rate",
                                                "fallback_rate", "parse_failure_rate", "turns_mean", "scores",
                                                "wall_s")}
        rewards = [float(r["reward"]) for r in sorted(records, key=lambda r: r["episode_seed"])]
        out[variant].update(rewards=rewards, mean_ci95=mean_ci95(rewards), calls=call_audit(records))
        if ckpt is not None and ckpt.records:
            out[variant]["resumed"] = len(ckpt.records)
    return out


def checkpoint_path(prefix: str | Path, variant: str) -> Path:
    """The checkpoint file of one variant under a path prefix."""
    return Path(f"{prefix}.{variant}.jsonl")


def remove_checkpoints(prefix: str | Path, variants: tuple[str, ...]) -> None:
    """Remove the variants' checkpoint files (once their result is written elsewhere)."""
    for v in variants:
        checkpoint_path(prefix, v).unlink(missing_ok=True)
