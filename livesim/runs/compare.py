"""A/B comparison of agents on one scenario: per-metric means, paired-bootstrap 95% CIs, and pass^k.

Every agent plays the same world seeds (the scenario's seed replaced by each), `trials` times per seed with
its own sampling seed drawn from (world seed, trial). A *task* is one request of one world seed (keyed by
its first comment's time and viewer); a *trial* is one play of it. pass^k (tau-bench) is the chance that
k i.i.d. trials of a task all succeed (reward >= 0.99), estimated per task as C(c, k) / C(n, k).
"""

from __future__ import annotations

import inspect
import json
from collections import defaultdict
from dataclasses import dataclass, field
from math import comb
from typing import Any

import numpy as np
from rich.table import Table

import livesim
from livesim.agents import AGENT_REGISTRY, agent_class, make_agent
from livesim.harness.core import Harness
from livesim.runs.build import is_privileged
from livesim.runs.episode import make_stream_env, run_episode
from livesim.stream.records import RecordEnd, RecordHeader, StepRecord
from livesim.stream.scenario import Scenario

METRICS = ("mean_reward", "accuracy", "effectiveness", "pass_rate", "gmv", "ipv", "orders", "churned",
           "latency_p50", "latency_p95")
PASS_REWARD = 0.99
KS = (1, 2, 3, 4)


@dataclass(frozen=True)
class AgentSpec:
    """An agent on the command line: `NAME` or `NAME:key=value,key=value` (values parsed as JSON). NAME is a
    registry name or `module:Class`; the part after the last ':' is read as arguments only when it holds '='.
    """

    name: str
    kwargs: tuple[tuple[str, Any], ...] = ()

    @classmethod
    def parse(cls, text: str) -> AgentSpec:
        name, _, rest = text.rpartition(":")
        if name in AGENT_REGISTRY and "=" not in rest:
            raise ValueError(f"agent {text!r}: expected key=value after ':', got {rest!r}")
        if not name or "=" not in rest:
            name, rest = text, ""
        kwargs = []
        for item in filter(None, rest.split(",")):
            if "=" not in item:
                raise ValueError(f"agent {text!r}: expected key=value after ':', got {item!r}")
            k, v = item.split("=", 1)
            try:
                kwargs.append((k, json.loads(v)))
            except json.JSONDecodeError:
                kwargs.append((k, v))
        return cls(name, tuple(kwargs))

    @property
    def label(self) -> str:
        return self.name + (":" + ",".join(f"{k}={v}" for k, v in self.kwargs) if self.kwargs else "")


@dataclass
class AgentRuns:
    """What one agent did over all seeds and trials."""

    spec: AgentSpec
    per_seed: dict[int, list[dict[str, float]]] = field(default_factory=lambda: defaultdict(list))
    tasks: dict[tuple[Any, ...], list[bool]] = field(default_factory=lambda: defaultdict(list))

    def seed_means(self, metric: str, seeds: list[int]) -> np.ndarray:  # (S,): mean over trials
        return np.array([np.mean([m[metric] for m in self.per_seed[s]]) for s in seeds])


def _accepts_seed(name: str) -> bool:
    try:
        return "seed" in inspect.signature(agent_class(name)).parameters
    except (TypeError, ValueError):
        return False


def episode_metrics(summary: dict[str, Any]) -> dict[str, float]:
    business = summary.get("business", {})
    return {m: float(business.get(m, 0.0) if m in ("gmv", "ipv", "orders", "churned") else summary[m])
            for m in METRICS}


def run_agent(scenario: Scenario, spec: AgentSpec, seeds: list[int], trials: int,
              harness: Harness | None = None) -> AgentRuns:
    """Play `spec` on every seed, `trials` times each (on `harness` instead of the canonical one, if given)."""
    env = make_stream_env()
    runs = AgentRuns(spec)
    seeded = _accepts_seed(spec.name) and "seed" not in dict(spec.kwargs)
    config = scenario.to_config()
    for s in seeds:
        for t in range(trials):
            # the agent's own sampling seed: independent across trials and across world seeds
            agent_seed = int(np.random.SeedSequence([s, t]).generate_state(1)[0])
            kwargs = {**dict(spec.kwargs), **({"seed": agent_seed} if seeded else {})}
            agent = make_agent(spec.name, **kwargs, **({"env": env} if is_privileged(spec.name) else {}))
            header = RecordHeader(livesim_version=livesim.__version__, scenario=scenario.name, seed=s,
                                  config=config, agent=spec.name, agent_kwargs=kwargs, harness=harness)
            task: tuple[Any, ...] = ()
            for line in run_episode(env, agent, header):
                if isinstance(line, StepRecord):
                    if line.request is not None:
                        first = line.request.comments[0]
                        task = (s, round(first.t, 3), first.viewer_id)
                    if line.dispatched:
                        runs.tasks[task].append(line.reward >= PASS_REWARD)
                elif isinstance(line, RecordEnd):
                    runs.per_seed[s].append(episode_metrics(line.summary))
    return runs


def pass_hat_k(tasks: dict[Any, list[bool]], k: int) -> float | None:
    """Mean over tasks with at least k trials of C(c, k) / C(n, k); None if there are none."""
    vals = [comb(sum(v), k) / comb(len(v), k) for v in tasks.values() if len(v) >= k]
    return float(np.mean(vals)) if vals else None


def paired_bootstrap(a: np.ndarray, b: np.ndarray, rng: np.random.Generator, n_boot: int = 10_000,
                     confidence: float = 0.95) -> tuple[float, float, float]:
    """Mean of b - a over paired seeds and its percentile bootstrap interval (resampling seeds)."""
    d = b - a  # (S,)
    idx = rng.integers(0, len(d), size=(n_boot, len(d)))  # (B, S)
    boots = d[idx].mean(axis=1)  # (B,)
    lo, hi = np.percentile(boots, [(1 - confidence) / 2 * 100, (1 + confidence) / 2 * 100])
    return float(d.mean()), float(lo), float(hi)


def compare(scenario: Scenario, specs: list[AgentSpec], seeds: list[int], trials: int = 4, n_boot: int = 10_000,
            bootstrap_seed: int = 0, harness: Harness | None = None) -> dict[str, Any]:
    """Run every agent on the same seeds (on `harness`, if given); compare each with the first (the baseline)."""
    if len(specs) < 2:
        raise ValueError(f"compare needs at least two agents, got {len(specs)}")

    for spec in specs:
        agent_class(spec.name)  # an unknown name or a module:Class that cannot be imported: one line, before any play
    if trials < 1 or not seeds:
        raise ValueError(f"need trials >= 1 and at least one seed, got trials={trials}, seeds={seeds}")
    labels = [s.label for s in specs]
    if len(set(labels)) != len(labels):
        labels = [f"{i}:{x}" for i, x in enumerate(labels)]
    runs = {lab: run_agent(scenario, spec, seeds, trials, harness) for lab, spec in zip(labels, specs, strict=True)}
    base = labels[0]
    rng = np.random.default_rng(bootstrap_seed)
    metrics: dict[str, Any] = {}
    for m in METRICS:
        means = {lab: r.seed_means(m, seeds) for lab, r in runs.items()}  # each (S,)
        diffs = {}
        for lab in labels[1:]:
            mean, lo, hi = paired_bootstrap(means[base], means[lab], rng, n_boot)
            diffs[lab] = {"mean": mean, "ci95": [lo, hi]}
        metrics[m] = {"mean": {lab: float(v.mean()) for lab, v in means.items()}, "diff": diffs}
    return {
        "scenario": scenario.name, "seeds": seeds, "trials": trials, "agents": labels, "baseline": base,
        "bootstrap": {"resamples": n_boot, "seed": bootstrap_seed, "confidence": 0.95},
        "metrics": metrics,
        "pass_hat_k": {lab: {str(k): pass_hat_k(r.tasks, k) for k in KS} for lab, r in runs.items()},
        "tasks": {lab: len(r.tasks) for lab, r in runs.items()},
    }


def render_comparison(result: dict[str, Any]) -> Any:
    """A rich table of the comparison: means, differences with CIs, then pass^k."""
    labels, base = result["agents"], result["baseline"]
    table = Table(title=f"{result['scenario']}: {len(result['seeds'])} seeds x {result['trials']} trials "
                        f"(diff = agent - {base}, 95% paired bootstrap CI)")
    table.add_column("metric")
    for lab in labels:
        table.add_column(lab, justify="right")
    for lab in labels[1:]:
        table.add_column(f"diff {lab}", justify="right")
    for m, row in result["metrics"].items():
        diffs = [f"{d['mean']:+.3f} [{d['ci95'][0]:+.3f}, {d['ci95'][1]:+.3f}]" for d in row["diff"].values()]
        table.add_row(m, *(f"{row['mean'][lab]:.3f}" for lab in labels), *diffs)
    for k in KS:
        vals = [result["pass_hat_k"][lab][str(k)] for lab in labels]
        table.add_row(f"pass^{k}", *("-" if v is None else f"{v:.3f}" for v in vals), *[""] * (len(labels) - 1))
    table.add_row("tasks", *(str(result["tasks"][lab]) for lab in labels), *[""] * (len(labels) - 1))
    return table
