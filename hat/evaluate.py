"""Evaluate any agent on the suites T1-T4: per-request rows, the paper's scores, latency and paired CIs.

Scores as the paper reports them: accuracy (binary), effectiveness (0 / 0.5 / 1) and their mean (AVG), per
suite, per intent and (T3) per subset; on T4 prompt- and instruction-level accuracy, strict and loose.
Latency per request, three ways: `sim` is the env's simulated latency (its tokenizer-free token estimate),
`tok` is the same latency model fed with the agent's real token counts (its tokenizer, where it has one; the
estimate otherwise), `gen` is the measured generation time (seconds the agent spent producing the request's
turns; batched turns share their batch's time). Differences between two models are paired by request and get
percentile-bootstrap 95% CIs (`livesim.runs.compare.paired_bootstrap`; ratio scores resample prompts).

Results are cached per (agent identity, suite version and content pin, limit, evaluation settings, prompt
render version) under `$LIVESIM_CACHE/evals` (default ~/.cache/livesim/evals), so a rerun evaluates only what is
missing.
"""

from __future__ import annotations

import hashlib
import inspect
import json
import os
import sys
import time
from collections import defaultdict
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from livesim.agents import AGENT_REGISTRY, AGENT_VERSIONS, agent_class, make_agent
from livesim.harness.prompt import PROMPT_RENDER_VERSION
from livesim.hat.edits import edited_harness
from livesim.hat.ifeval import check, load_ifeval_jsonl
from livesim.hat.samples import (
    if_sample,
    outcome_rates,
    qa_sample,
    samples_path,
    turn_record,
    write_samples,
)
from livesim.hat.suites import (
    T2_VARIANTS,
    IFPrompt,
    QARequest,
    Suite,
    check_content,
    get_suite,
    if_content,
    make_qa_env,
    qa_content,
    read_lock,
)
from livesim.runs.compare import paired_bootstrap
from livesim.stream.harness_file import harness_with_style
from livesim.stream.paths import MAX_PROMPT_FILE_BYTES, read_bytes, read_text, write_text

EVAL_VERSION = 2  # bump when what a row holds or how it is computed changes (invalidates the cache)
QA_METRICS = ("accuracy", "effectiveness", "avg", "reward")
IF_METRICS = ("prompt_strict", "prompt_loose", "inst_strict", "inst_loose")
PRIVILEGED = frozenset({"oracle", "memorizer"})
# scripted hosts of the stream: no answer to a plain (T4) prompt, so T4 is n/a for them
HOSTS_ONLY = PRIVILEGED | {"reader"}


# ------------------------------------------------------------------------------------------------ agents
@dataclass
class AgentSpec:
    """What to evaluate: a registry agent (`name`, `kwargs`) or a model (`model` for the transformers agent)."""

    name: str = "transformers"
    kwargs: dict[str, Any] = field(default_factory=dict)
    label: str | None = None

    @classmethod
    def for_model(cls, model: str | Path, label: str | None = None, **kwargs: Any) -> AgentSpec:
        return cls("transformers", {"model": str(model), **kwargs}, label)

    @property
    def display(self) -> str:
        if self.label:
            return self.label
        if self.name == "transformers":
            return f"model:{self.kwargs.get('model')}"
        extra = ",".join(f"{k}={v}" for k, v in sorted(self.kwargs.items()))
        return self.name + (f":{extra}" if extra else "")

    @property
    def privileged(self) -> bool:
        return self.name in PRIVILEGED

    def identity(self) -> dict[str, Any]:
        """What the cache keys on: the agent and its arguments, with a model directory replaced by its digest
        (and an agent of one's own by a digest of its module's source, so an edit to it is evaluated afresh).
        """
        kwargs = dict(self.kwargs)
        model = kwargs.get("model")
        if isinstance(model, str):
            kwargs["model"] = model_fingerprint(model)
        out: dict[str, Any] = {"name": self.name, "kwargs": kwargs}
        if self.name in AGENT_VERSIONS:  # a scripted policy that changes: its results key on its version
            out["version"] = AGENT_VERSIONS[self.name]
        if self.name not in AGENT_REGISTRY:
            out["source"] = source_fingerprint(agent_class(self.name))
        return out

    def build(self) -> Any:
        agent_class(self.name)  # an unknown name or a module:Class that cannot be imported: ValueError, one line
        try:
            return make_agent(self.name, **self.kwargs)
        except TypeError as e:
            raise ValueError(f"agent {self.name!r} refused its arguments {self.kwargs}: {e}") from None


def source_fingerprint(cls: type) -> str:
    """A digest of the file that defines `cls` ("" when it has none, e.g. defined in a notebook)."""
    try:
        path = inspect.getsourcefile(cls)
    except TypeError:
        path = None
    return hashlib.sha256(Path(path).read_bytes()).hexdigest()[:24] if path and Path(path).is_file() else ""


def model_fingerprint(model: str) -> str:
    """A model directory becomes a digest of its config, tokenizer, chat template and weight files; so does a
    prepared downloaded zoo model (`smollm2-135m`: its name and its directory are one evaluation); any other
    name stays a name.
    """
    from livesim.models.zoo import prepared_dir

    path = prepared_dir(model) or Path(model)
    if not path.is_dir():
        return model
    h = hashlib.sha256()
    for f in sorted(path.iterdir()):
        if f.is_file() and (f.suffix in (".json", ".safetensors", ".bin", ".model", ".txt", ".jinja")
                            or f.name == "merges"):
            h.update(f.name.encode())
            data = f.read_bytes() if f.stat().st_size < 4 << 20 else _sample(f)
            h.update(hashlib.sha256(data).digest())
    return "dir:" + h.hexdigest()[:24]


def _sample(f: Path) -> bytes:
    size = f.stat().st_size
    with f.open("rb") as fh:
        head = fh.read(1 << 20)
        fh.seek(max(0, size // 2))
        mid = fh.read(1 << 20)
        fh.seek(max(0, size - (1 << 20)))
        return head + mid + fh.read() + str(size).encode()


# ------------------------------------------------------------------------------------------------ QA suites
@dataclass
class _Slot:
    req: QARequest
    env: Any
    obs: Any
    gen_s: float = 0.0
    tok_latency: float = 0.0
    tok_real: bool = False
    prev_prompt: int = 0
    calls_seen: int = 0
    hooks_seen: int = 0
    turn_log: list[dict[str, Any]] | None = None  # the conversation, when samples are kept


def _tokens(agent: Any, obs: Any, action: Any) -> tuple[int, int] | None:
    """Real (prompt, completion) token counts when the agent has a tokenizer."""
    tok = getattr(agent, "tokenizer", None)
    if tok is None or not hasattr(agent, "prompt_ids"):
        return None
    text = action if isinstance(action, str) else json.dumps(action, default=str)
    return len(agent.prompt_ids(obs)), len(tok(text, add_special_tokens=False)["input_ids"])


def run_qa(agent: Any, requests: tuple[QARequest, ...], batch_size: int = 8, privileged: bool = False,
           progress: Any = None, harness: Any = None, samples: list[dict[str, Any]] | None = None
           ) -> list[dict[str, Any]]:
    """Play every request (on `harness` instead of the canonical one, if given); one row each, in order.
    `samples`: a list that receives each request's conversation (`livesim.hat.samples`), in the rows' order.
    """
    rows: dict[str, dict[str, Any]] = {}
    kept: dict[str, dict[str, Any]] = {}
    groups: dict[Any, list[QARequest]] = defaultdict(list)
    for r in requests:
        groups[r.env_key].append(r)
    width = 1 if privileged or not hasattr(agent, "act_batch") else max(1, batch_size)
    for key, reqs in groups.items():
        envs = [make_qa_env(*key) for _ in range(min(width, len(reqs)))]
        queue = list(reqs)
        live: list[_Slot] = []

        def start(env: Any, queue: list[QARequest] = queue, live: list[_Slot] = live) -> None:
            r = queue.pop(0)
            options = r.reset_options()
            if harness is not None:
                options["harness"] = harness
            obs, _ = env.reset(seed=r.seed, options=options)
            agent.reset()
            live.append(_Slot(r, env, obs, turn_log=[] if samples is not None else None))

        for env in envs:
            if queue:
                start(env)
        while live:
            batch = list(live)
            t0 = time.perf_counter()
            if privileged:
                agent.bind(batch[0].env)
                actions = [agent.act(batch[0].obs)]
            elif width > 1:
                actions = agent.act_batch([s.obs for s in batch])
            else:
                actions = [agent.act(batch[0].obs)]
            elapsed = time.perf_counter() - t0
            measured = list(getattr(agent, "last_latencies", []) or [])
            if len(measured) != len(batch):
                measured = [elapsed / len(batch)] * len(batch)
            for slot, action, secs in zip(batch, actions, measured, strict=True):
                slot.gen_s += secs
                counts = _tokens(agent, slot.obs, action)
                seen = len(slot.obs["messages"])
                obs, reward, terminated, truncated, info = slot.env.step(action)
                sim = slot.env.unwrapped.sim
                new_calls = sim.trace.tool_calls[slot.calls_seen:]
                keys = [c.key for c in new_calls if c.key]
                slot.calls_seen = len(sim.trace.tool_calls)
                if slot.turn_log is not None:
                    answered = [] if info.get("dispatched") else obs["messages"][seen:]
                    slot.turn_log.append(turn_record(action, new_calls, sim.trace.hook_failures[slot.hooks_seen:],
                                                     answered, counts))
                    slot.hooks_seen = len(sim.trace.hook_failures)
                if counts is not None:
                    n_prompt, n_out = counts
                    slot.tok_real = True
                    slot.tok_latency += sim.config.latency.turn(max(0, n_prompt - slot.prev_prompt), n_out, keys)
                    slot.prev_prompt = n_prompt + n_out
                slot.obs = obs
                if info.get("dispatched"):
                    rows[slot.req.id] = _qa_row(slot, reward, info)
                    if slot.turn_log is not None:
                        kept[slot.req.id] = qa_sample(rows[slot.req.id], slot.req.seed, slot.turn_log, info)
                if terminated or truncated:
                    live.remove(slot)
                    if slot.req.id not in rows:  # truncated without a dispatch: scored as nothing said
                        rows[slot.req.id] = _qa_row(slot, 0.0, None)
                        if slot.turn_log is not None:
                            kept[slot.req.id] = qa_sample(rows[slot.req.id], slot.req.seed, slot.turn_log, None)
                    if progress:
                        progress(1)
                    if queue:
                        start(slot.env)
    if samples is not None:
        samples.extend(kept[r.id] for r in requests)
    return [rows[r.id] for r in requests]


def _qa_row(slot: _Slot, reward: float, info: dict[str, Any] | None) -> dict[str, Any]:
    r = slot.req
    if info is None:
        return {"id": r.id, "subset": r.subset, "intent": r.intent, "intents": [], "reward": 0.0, "accuracy": 0.0,
                "effectiveness": 0.0, "avg": 0.0, "pass": False, "fallback": True, "turns": 0, "parse_errors": 0,
                "latency_sim": 0.0, "latency_tok": 0.0, "gen_s": slot.gen_s, "tok_real": slot.tok_real,
                "content": qa_content(slot.env.unwrapped.sim.request)}
    scores, trace = info["grade"]["scores"], info["trace"]
    acc, eff = float(scores["accuracy"]), float(scores["effectiveness"])
    return {"id": r.id, "subset": r.subset, "intent": r.intent, "intents": list(info["truth"]["intents"]),
            "reward": float(reward), "accuracy": acc, "effectiveness": eff, "avg": (acc + eff) / 2,
            "pass": reward >= 0.99, "fallback": bool(trace["fallback"]), "turns": int(trace["turns"]),
            "parse_errors": int(trace["parse_errors"]), "latency_sim": float(trace["latency_s"]),
            "latency_tok": slot.tok_latency if slot.tok_real else float(trace["latency_s"]),
            "gen_s": slot.gen_s, "tok_real": slot.tok_real, "content": qa_content(info)}


# ------------------------------------------------------------------------------------------------ T4
def _text(action: Any) -> str:
    if isinstance(action, dict):
        return str(action.get("content") or "")
    return str(action or "")


def run_if(agent: Any, prompts: tuple[IFPrompt, ...], batch_size: int = 8, progress: Any = None,
           samples: list[dict[str, Any]] | None = None) -> list[dict[str, Any]]:
    """Answer every prompt once; one row each, in order (`samples`: receives each prompt and whole response)."""
    rows = []
    for start in range(0, len(prompts), max(1, batch_size)):
        chunk = prompts[start:start + max(1, batch_size)]
        obs = [{"messages": [{"role": "user", "content": p.prompt}], "tools": []} for p in chunk]
        t0 = time.perf_counter()
        agent.reset()
        actions = agent.act_batch(obs) if hasattr(agent, "act_batch") else [agent.act(o) for o in obs]
        elapsed = time.perf_counter() - t0
        measured = list(getattr(agent, "last_latencies", []) or [])
        if len(measured) != len(chunk):
            measured = [elapsed / len(chunk)] * len(chunk)
        for p, action, secs in zip(chunk, actions, measured, strict=True):
            text = _text(action)
            verdict = check(p, text)
            rows.append({"id": p.id, "instruction_ids": list(p.instruction_ids), **verdict, "gen_s": secs,
                         "chars": len(text), "response": text[:2000], "content": if_content(p)})
            if samples is not None:
                samples.append(if_sample(rows[-1], p.prompt, text))
        if progress:
            progress(len(chunk))
    return rows


# ------------------------------------------------------------------------------------------------ scores
def _pct(xs: list[float], q: float) -> float:
    return float(np.percentile(xs, q)) if xs else 0.0


def _qa_block(rows: list[dict[str, Any]]) -> dict[str, Any]:
    n = len(rows)
    out: dict[str, Any] = {"n": n}
    for m in QA_METRICS:
        out[m] = float(np.mean([r[m] for r in rows])) if n else 0.0
    out["pass_rate"] = float(np.mean([r["pass"] for r in rows])) if n else 0.0
    return out


def score_qa(rows: list[dict[str, Any]]) -> dict[str, Any]:
    out = _qa_block(rows)
    out["fallback_rate"] = float(np.mean([r["fallback"] for r in rows])) if rows else 0.0
    out["outcomes"] = outcome_rates(rows)  # pass (accuracy and effectiveness 1), answered, fallback, parse error
    by_intent: dict[str, list[dict[str, Any]]] = defaultdict(list)
    by_subset: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for r in rows:
        by_intent[r["intent"]].append(r)
        by_subset[r["subset"]].append(r)
        if r["subset"].startswith("fault_"):
            by_subset["tool_faults"].append(r)
        if r["subset"] in ("perturbation", "injection"):
            by_subset["prompt"].append(r)
    out["by_intent"] = {k: _qa_block(v) for k, v in sorted(by_intent.items())}
    if set(by_subset) != {"all"}:
        out["by_subset"] = {k: _qa_block(v) for k, v in sorted(by_subset.items())}
    out["latency"] = _latency(rows)
    return out


def _latency(rows: list[dict[str, Any]]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for name, key in (("sim", "latency_sim"), ("tok", "latency_tok"), ("gen", "gen_s")):
        xs = [float(r[key]) for r in rows if key in r]
        if xs:
            out[f"{name}_p50"], out[f"{name}_p95"] = _pct(xs, 50), _pct(xs, 95)
    if rows and "tok_real" in rows[0]:
        out["tok_source"] = "tokenizer" if all(r["tok_real"] for r in rows) else "estimate"
    return out


def score_if(rows: list[dict[str, Any]]) -> dict[str, Any]:
    n_inst = sum(len(r["strict"]) for r in rows)
    out: dict[str, Any] = {
        "n": len(rows), "n_instructions": n_inst,
        "prompt_strict": float(np.mean([r["prompt_strict"] for r in rows])) if rows else 0.0,
        "prompt_loose": float(np.mean([r["prompt_loose"] for r in rows])) if rows else 0.0,
        "inst_strict": sum(sum(r["strict"]) for r in rows) / n_inst if n_inst else 0.0,
        "inst_loose": sum(sum(r["loose"]) for r in rows) / n_inst if n_inst else 0.0,
    }
    out["avg"] = float(np.mean([out[m] for m in IF_METRICS]))
    by_type: dict[str, list[tuple[bool, bool]]] = defaultdict(list)
    for r in rows:
        for k, s, lo in zip(r["instruction_ids"], r["strict"], r["loose"], strict=True):
            by_type[k].append((s, lo))
    out["by_type"] = {k: {"n": len(v), "strict": float(np.mean([s for s, _ in v])),
                          "loose": float(np.mean([lo for _, lo in v]))} for k, v in sorted(by_type.items())}
    out["latency"] = _latency(rows)
    return out


# ------------------------------------------------------------------------------------------------ evaluation
def cache_dir() -> Path:
    root = os.environ.get("LIVESIM_CACHE")
    return (Path(root) if root else Path.home() / ".cache" / "livesim") / "evals"


def _cache_key(spec: AgentSpec, suite: Suite, limit: int | None, batch_size: int, extra: Any) -> str:
    pin = read_lock().get(suite.key, {})
    payload = {"v": EVAL_VERSION, "render": PROMPT_RENDER_VERSION, "agent": spec.identity(), "suite": suite.key,
               "content": pin.get("content_sha256"), "spec": suite.spec_sha256(), "limit": limit,
               "batch": batch_size if not spec.privileged else 1, "extra": extra}
    return hashlib.sha256(json.dumps(payload, sort_keys=True, default=str).encode()).hexdigest()[:24]


GENERATION_COUNTS = ("completion_tokens", "prompt_tokens", "prefill_tokens", "accepted_draft_tokens",
                     "cuda_graph_steps")
"""Counters of the `transformers` agent's `stats` a suite's result keeps (what this suite added to them)."""


def evaluate_suite(spec: AgentSpec, suite_name: str, limit: int | None = None, batch_size: int = 8,
                   agent: Any = None, ifeval_data: str | Path | None = None, use_cache: bool = True,
                   progress: Any = None, patches: list[dict[str, Any]] | None = None,
                   prompt_style: str = "full", cached_only: bool = False,
                   records: str | Path | None = None, samples: bool = True) -> dict[str, Any] | None:
    """One suite for one agent: {suite, version, n, scores, rows, cache_key} (from the cache when it is there;
    `cached_only`: None when it is not, nothing is run).

    `samples`: keep each request's conversation (`livesim.hat.samples`): a fresh result holds them under
    "samples" and writes them beside its cache file; a cached result whose samples file is there names it
    under "samples_file". Neither is part of the JSON written.

    `records`: a second, read-only folder of results under the same keys (`<cache_key>.json`), looked up after
    the cache: the evaluation records that `livesim hat reproduce` commits beside a table. The key holds the
    agent's identity (a model directory's digest), so a record serves only the very same weights.

    `patches` (QA suites): operator patches applied to the canonical harness first (the harness-edit test).
    `prompt_style` (QA suites): how the canonical harness's prompt is presented ('full': as the harness says,
    markdown; 'compact' for a small model on a CPU, ...): the same requests, another presented form; T2's HSA
    transforms apply on top of it (its prompt_style transform may switch it).
    """
    suite = get_suite(suite_name)
    prompts: tuple[Any, ...] | None = None
    extra: Any = None
    harness = None
    if patches is not None:
        if suite.kind != "qa":
            raise ValueError(f"harness patches apply to QA suites, not {suite.name}")
        harness = edited_harness(patches)
        extra = {"patches": patches}
    if prompt_style != "full" and suite.kind == "qa":
        harness = harness_with_style(harness, prompt_style)
        extra = {**(extra or {}), "prompt_style": prompt_style}
    if suite.kind == "if" and ifeval_data is not None:
        prompts = tuple(load_ifeval_jsonl(ifeval_data))
        extra = {"ifeval_data": hashlib.sha256(read_bytes(ifeval_data, MAX_PROMPT_FILE_BYTES)).hexdigest()[:16]}
    key = _cache_key(spec, suite, limit, batch_size, extra)
    path = cache_dir() / f"{key}.json"
    if use_cache:
        for found in [path] + ([Path(records) / f"{key}.json"] if records is not None else []):
            if found.exists():
                beside = samples_path(found)
                return {**json.loads(read_text(found, MAX_PROMPT_FILE_BYTES)), "cache_key": key,
                        **({"samples_file": str(beside)} if beside.is_file() else {})}
    if suite.kind == "if" and spec.name in HOSTS_ONLY:
        why = "reads the env's ground truth" if spec.privileged else "is a scripted stream host"
        result = {"suite": suite.name, "key": suite.key, "title": suite.title, "n": 0, "scores": None, "rows": [],
                  "note": f"{spec.name} {why} and has no answer to a plain prompt"}
        return result
    if cached_only:
        return None
    agent = agent if agent is not None else spec.build()
    before = dict(getattr(agent, "stats", None) or {})
    t0 = time.perf_counter()
    kept: list[dict[str, Any]] | None = [] if samples else None
    if suite.kind == "qa":
        reqs = suite.head(limit)
        rows = run_qa(agent, reqs, batch_size, privileged=spec.privileged, progress=progress, harness=harness,
                      samples=kept)
        if patches is None:  # the presented form changes no request
            check_content(suite, {r["id"]: r["content"] for r in rows})
        scores = score_qa(rows)
    else:
        items = prompts if prompts is not None else suite.requests
        items = items[:limit] if limit else items
        rows = run_if(agent, items, batch_size, progress=progress, samples=kept)
        if prompts is None:
            check_content(suite, {r["id"]: r["content"] for r in rows})
        scores = score_if(rows)
    result = {"suite": suite.name, "key": suite.key, "title": suite.title, "n": len(rows), "limit": limit,
              "patches": patches, **({"prompt_style": prompt_style} if suite.kind == "qa" and prompt_style != "full"
                                     else {}),
              "data": "ifeval-jsonl" if prompts is not None else "suite", "agent": spec.display,
              "wall_s": (wall := time.perf_counter() - t0), "requests_per_s": len(rows) / wall if wall > 0 else None,
              "scores": scores, "rows": rows, "cache_key": key}
    after = getattr(agent, "stats", None) or {}
    generation = {k: after[k] - before.get(k, 0) for k in GENERATION_COUNTS if isinstance(after.get(k), int | float)}
    if generation:  # a model agent's own counts for this suite (how it generated: tokens, CUDA-graph steps)
        result["generation"] = generation
    if use_cache:
        write_text(path, json.dumps(result, sort_keys=True), flag="evaluation cache")
        if kept is not None:
            write_samples(samples_path(path), kept, flag="evaluation cache")
    if kept is not None:
        result["samples"] = kept
    return result


def _suites_in_processes(spec: AgentSpec, names: list[str], workers: int, limit: int | None, batch_size: int,
                         ifeval_data: str | Path | None, use_cache: bool, prompt_style: str,
                         records: str | Path | None, samples: bool = True) -> dict[str, dict[str, Any]]:
    """`evaluate_suite` for each name, up to `workers` at a time, each in its own (spawned) process with its own
    agent; {} when the pool breaks (the caller then evaluates in process).
    """
    from livesim.stream.procs import WorkerDied, worker_pool

    try:  # spawned (a CUDA context is never forked), and they die with this process
        with worker_pool(min(workers, len(names)), "evaluation worker") as pool:
            futures = {name: pool.submit(evaluate_suite, spec, name, limit, batch_size, None, ifeval_data, use_cache,
                                         None, prompt_style=prompt_style, records=records, samples=samples)
                       for name in names}
            return {name: r for name, f in futures.items() if (r := f.result()) is not None}
    except WorkerDied as e:
        print(f"[evaluate] suites in processes failed ({e}); evaluating them in this process", file=sys.stderr)
        return {}


def evaluate(spec: AgentSpec, suites: list[str], limit: int | None = None, batch_size: int = 8,
             ifeval_data: str | Path | None = None, use_cache: bool = True, progress: Any = None,
             prompt_style: str = "full", cached_only: bool = False,
             records: str | Path | None = None, workers: int = 1, samples: bool = True) -> dict[str, Any]:
    """Every named suite for one agent (the agent is built once, and only if some suite is not cached).

    `cached_only`: only suites already in the evaluation cache (or in `records`, see `evaluate_suite`); the
    others are listed under "not_measured".
    `workers > 1`: the suites that are not cached run that many at a time, each in its own process with its own
    copy of the agent (on a GPU, where one process's host work leaves the device mostly idle); each suite's
    requests and batches are the same as in process, so are its cache key and, for a deterministic agent, its
    result. `samples`: keep each request's conversation (see `evaluate_suite`).
    """
    holder: dict[str, Any] = {}

    class _Lazy:  # builds the agent on first use, so fully cached evaluations never load a model
        def __getattr__(self, name: str) -> Any:
            if "agent" not in holder:
                holder["agent"] = spec.build()
            return getattr(holder["agent"], name)

    out: dict[str, Any] = {"agent": spec.display, "spec": {"name": spec.name, "kwargs": spec.kwargs},
                           "suites": {}}
    lazy = _Lazy()
    ran: dict[str, dict[str, Any]] = {}
    if workers > 1 and not cached_only:
        found = {name: evaluate_suite(spec, name, limit, batch_size, None, ifeval_data, use_cache,
                                      prompt_style=prompt_style, cached_only=True, records=records)
                 for name in dict.fromkeys(suites)}
        ran = {name: r for name, r in found.items() if r is not None}  # cached: read once, used as read
        pending = [name for name, r in found.items() if r is None]
        if len(pending) > 1:
            ran |= _suites_in_processes(spec, pending, workers, limit, batch_size, ifeval_data, use_cache,
                                        prompt_style, records, samples)
    for name in suites:
        result = ran.get(name) or evaluate_suite(spec, name, limit, batch_size, lazy, ifeval_data, use_cache,
                                                 progress, prompt_style=prompt_style, cached_only=cached_only,
                                                 records=records, samples=samples)
        if result is None:
            out.setdefault("not_measured", []).append(name)
        else:
            out["suites"][name] = result
    return out


# ------------------------------------------------------------------------------------------------ differences
def _boot_mean(a: np.ndarray, b: np.ndarray, rng: np.random.Generator, n_boot: int) -> dict[str, Any]:
    mean, lo, hi = paired_bootstrap(a, b, rng, n_boot)
    return {"mean": mean, "ci95": [lo, hi], "n": len(a)}


def _boot_ratio(num_a: np.ndarray, num_b: np.ndarray, den: np.ndarray, rng: np.random.Generator,
                n_boot: int) -> dict[str, Any]:
    idx = rng.integers(0, len(den), size=(n_boot, len(den)))  # (B, P): resampled prompts
    d = (num_b[idx].sum(1) - num_a[idx].sum(1)) / np.maximum(den[idx].sum(1), 1)  # (B,)
    lo, hi = np.percentile(d, [2.5, 97.5])
    return {"mean": float((num_b.sum() - num_a.sum()) / max(den.sum(), 1)), "ci95": [float(lo), float(hi)],
            "n": len(den)}


def paired_diff(rows_a: list[dict[str, Any]], rows_b: list[dict[str, Any]], kind: str, n_boot: int = 10_000,
                seed: int = 0, key: Any = None) -> dict[str, Any]:
    """B - A per metric over the requests both hold (matched by `key(row)`, default the id), with 95% CIs."""
    key = key or (lambda r: r["id"])
    a_by = {key(r): r for r in rows_a}
    pairs = [(a_by[key(r)], r) for r in rows_b if key(r) in a_by]
    rng = np.random.default_rng(seed)
    if not pairs:
        return {}
    out: dict[str, Any] = {}
    if kind == "qa":
        for m in QA_METRICS:
            out[m] = _boot_mean(np.array([float(a[m]) for a, _ in pairs]), np.array([float(b[m]) for _, b in pairs]),
                                rng, n_boot)
    else:
        for m in ("prompt_strict", "prompt_loose"):
            out[m] = _boot_mean(np.array([a[m] for a, _ in pairs]), np.array([b[m] for _, b in pairs]), rng, n_boot)
        den = np.array([len(a["strict"]) for a, _ in pairs], dtype=float)
        for m, field_ in (("inst_strict", "strict"), ("inst_loose", "loose")):
            out[m] = _boot_ratio(np.array([sum(a[field_]) for a, _ in pairs], dtype=float),
                                 np.array([sum(b[field_]) for _, b in pairs], dtype=float), den, rng, n_boot)
    return out


def suite_drop(result: dict[str, Any], a: str = "T1", b: str = "T2", n_boot: int = 10_000) -> dict[str, Any]:
    """Within one agent: suite b minus suite a over the same requests (T2 holds T1's requests, index for index)."""
    sa, sb = result["suites"].get(a), result["suites"].get(b)
    if not sa or not sb or not sa["rows"] or not sb["rows"]:
        return {}
    return paired_diff(sa["rows"], sb["rows"], "qa", n_boot, key=lambda r: r["id"].split("/", 1)[1])


def suite_drops(result: dict[str, Any], n_boot: int = 10_000) -> dict[str, dict[str, Any]]:
    """Within one agent: each of T2, T2-stress and the one-dimension T2 suites minus T1 (those evaluated), paired."""
    out = {}
    for name in ("T2", *T2_VARIANTS):
        d = suite_drop(result, "T1", name, n_boot)
        if d:
            out[name] = d
    return out


def compare_results(base: dict[str, Any], other: dict[str, Any], n_boot: int = 10_000) -> dict[str, Any]:
    """The difference `other - base` on every suite both evaluated, paired by request."""
    out = {}
    for name, sb in other["suites"].items():
        sa = base["suites"].get(name)
        if sa and sa["rows"] and sb["rows"]:
            kind = "if" if name == "T4" else "qa"
            out[name] = paired_diff(sa["rows"], sb["rows"], kind, n_boot)
    return out
