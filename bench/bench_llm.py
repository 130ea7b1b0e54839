"""Benchmark: the `transformers` agent's old path against the new one, on the same requests, in one run.

Paths (each plays the same LiveStreamQA-v0 seeds to the end of every request, `--batch-size` at a time):
- old:        the canonical (markdown) prompt, the whole conversation prefilled on every turn
              (`model.generate`), a turn ends at EOS or the token budget, float32 (the agent before issue 9)
- kv:         the same prompt, each conversation's KV cache kept between turns (only new tokens prefilled) in
              per-turn preallocated buffers, a turn also ends after a closed tool call; one token a step
- kv+compact: as kv, with the prompt presented in the compact style (terse schemas, which the SmolLM2
              template lists one line per tool) and prompt-lookup drafts verified in the decode step
              (`lookahead=8`, greedy output unchanged)
- new:        kv+compact in bfloat16 (`dtype=bfloat16`; on a CPU with AMX/AVX512-BF16, oneDNN runs it natively);
              on CUDA its decode steps are replayed as a CUDA graph (`generate_cached(cuda_graphs=None)`)
- new-eager:  new without the CUDA graph (`cuda_graphs=False`): the same as `new` on a CPU

Prints requests/s, completion tokens/s, process CPU seconds (the same work under other jobs' load), prompt
tokens (rendered / actually prefilled), decode forward passes, turns and mean reward per model and path, a digest
of every action (equal digests: the same replies), and each path's requests/s (and CPU-seconds) ratio to `old`.
Greedy; the same per-turn token budget everywhere. With `--device cuda` each path first plays two requests
untimed (CUDA start-up and kernel selection would otherwise be charged to the first path).

    python bench/bench_llm.py --models tiny,smollm2-135m --requests 16 --batch-size 8
    python bench/bench_llm.py --models tiny --paths kv+compact --requests 96 --batch-size 16 \
        --prefill-pass-cost 1000000000        # every batch prefilled in one padded pass (the CPU default groups rows)
    python bench/bench_llm.py --device cuda --models smollm2-135m --paths new-eager,new --requests 128 \
        --batch-size 128                       # on a GPU: the decode step eager, then as a CUDA graph
    python bench/bench_llm.py --models tiny,oracle --samples-overhead T1 --requests 16
                                               # a suite evaluation without, then with its conversations kept

`--samples-overhead SUITE` times `evaluate_suite` on the first `--requests` requests of SUITE twice on one loaded
agent (a model, or a registry agent such as oracle), without and with the conversations kept, and prints wall and
process CPU seconds of each and the compressed size of the samples.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import time
from typing import Any

import gymnasium as gym

import livesim  # noqa: F401
from livesim.agents import kv_cache
from livesim.agents.transformers_agent import TransformersAgent
from livesim.envs.rollout import run_batched
from livesim.harness import default_harness

PATHS: dict[str, dict[str, Any]] = {
    "old": {"kv_cache": False, "stop_after_tool_call": False, "style": None, "lookahead": 0, "dtype": "float32"},
    "kv": {"kv_cache": True, "stop_after_tool_call": True, "style": None, "lookahead": 0, "dtype": "float32"},
    "kv+compact": {"kv_cache": True, "stop_after_tool_call": True, "style": "compact", "lookahead": 8,
                   "dtype": "float32"},
    "new": {"kv_cache": True, "stop_after_tool_call": True, "style": "compact", "lookahead": 8, "dtype": "bfloat16"},
    "new-eager": {"kv_cache": True, "stop_after_tool_call": True, "style": "compact", "lookahead": 8,
                  "dtype": "bfloat16", "cuda_graphs": False},
}


def run_path(model: str, path: str, seeds: list[int], batch_size: int, max_new_tokens: int,
             loaded: dict[str, Any], device: str = "cpu") -> dict[str, Any]:
    """Play `seeds` on one path; `loaded` maps a dtype to an already loaded (model, tokenizer)."""
    cfg = PATHS[path]
    harness = None
    if cfg["style"]:
        harness = default_harness()
        harness.prompt.style = cfg["style"]

    def make_env() -> gym.Env:
        return gym.make("LiveStreamQA-v0", **({"harness": harness} if harness else {}))

    kwargs = {"max_new_tokens": max_new_tokens, "batch_size": batch_size, "kv_cache": cfg["kv_cache"],
              "stop_after_tool_call": cfg["stop_after_tool_call"], "lookahead": cfg["lookahead"],
              "cuda_graphs": cfg.get("cuda_graphs")}
    if cfg["dtype"] in loaded:
        model_obj, tok = loaded[cfg["dtype"]]
        agent = TransformersAgent(model_obj, tokenizer=tok, **kwargs)
    else:
        agent = TransformersAgent(model, device=device, dtype=cfg["dtype"], **kwargs)
        loaded[cfg["dtype"]] = (agent.model, agent.tokenizer)
    actions: list[str] = []
    act_batch = agent.act_batch

    def recording(observations: list[Any]) -> list[Any]:
        out = act_batch(observations)
        actions.extend(out)
        return out

    agent.act_batch = recording  # type: ignore[method-assign]
    t0, c0 = time.perf_counter(), time.process_time()
    records = list(run_batched(make_env, agent, seeds, batch_size))
    wall, cpu = time.perf_counter() - t0, time.process_time() - c0
    s, g = agent.stats, agent.gen_stats
    return {"model": model, "path": path, "requests": len(records), "wall_s": round(wall, 2), "cpu_s": round(cpu, 2),
            "requests_per_s": len(records) / wall, "completion_tokens": int(s["completion_tokens"]),
            "completion_tokens_per_s": s["completion_tokens"] / wall, "prompt_tokens": int(s["prompt_tokens"]),
            "prefill_tokens": int(s["prefill_tokens"]), "turns": int(s["observations"]),
            "decode_forwards": g.forward_calls - g.prefill_calls if cfg["kv_cache"] else None,
            "prefill_forwards": g.prefill_calls if cfg["kv_cache"] else None,
            "prefill_slots": g.prefill_slots if cfg["kv_cache"] else None,  # positions computed, padding included
            "accepted_draft_tokens": int(s["accepted_draft_tokens"]),
            "prefill_s": round(g.prefill_seconds, 2), "decode_s": round(g.decode_seconds, 2),
            "mean_reward": sum(r["reward"] for r in records) / max(1, len(records)),
            "actions_digest": hashlib.sha256(json.dumps(actions).encode()).hexdigest()[:12], "device": device,
            "load_avg_1m": round(os.getloadavg()[0], 2)}


def run_samples_overhead(model: str, suite: str, n: int, batch_size: int, max_new_tokens: int) -> list[dict[str, Any]]:
    """`evaluate_suite` of `suite` (first `n` requests) without and then with samples, on one agent."""
    from livesim.agents import AGENT_REGISTRY
    from livesim.hat.evaluate import AgentSpec, evaluate_suite
    from livesim.hat.samples import encode

    spec = (AgentSpec(model, {}) if model in AGENT_REGISTRY and model != "transformers" else
            AgentSpec.for_model(model, max_new_tokens=max_new_tokens, batch_size=batch_size))
    agent = spec.build()
    rows = []
    for kept in (False, True):
        t0, c0 = time.perf_counter(), time.process_time()
        result = evaluate_suite(spec, suite, n, batch_size, agent=agent, use_cache=False, samples=kept)
        wall, cpu = time.perf_counter() - t0, time.process_time() - c0
        assert result is not None
        size = len(encode(result["samples"])) if kept else 0
        rows.append({"model": model, "suite": suite, "samples": kept, "requests": result["n"],
                     "wall_s": round(wall, 2), "cpu_s": round(cpu, 2), "samples_bytes": size,
                     "bytes_per_request": round(size / max(1, result["n"])),
                     "load_avg_1m": round(os.getloadavg()[0], 2)})
    return rows


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--models", default="tiny,smollm2-135m", help="comma-separated zoo names or paths")
    p.add_argument("--paths", default="old,kv,kv+compact,new", help=f"comma-separated, from {list(PATHS)}")
    p.add_argument("--requests", type=int, default=16, help="LiveStreamQA-v0 seeds 0..N-1")
    p.add_argument("--batch-size", type=int, default=8)
    p.add_argument("--max-new-tokens", type=int, default=128, help="per-turn token budget (all paths)")
    p.add_argument("--device", default="cpu", choices=["cpu", "cuda"])
    p.add_argument("--prefill-pass-cost", type=int, default=None, help="on a CPU, the padded positions a separate "
                   "prefill pass for some rows must save (kv_cache.PREFILL_GROUP_TOKENS, default 64; a huge number "
                   "prefills every batch in one pass)")
    p.add_argument("--json", action="store_true", help="one JSON object per line instead of a table")
    p.add_argument("--samples-overhead", default=None, metavar="SUITE",
                   help="instead of the paths: time a suite evaluation without and with its conversations kept")
    args = p.parse_args()
    if args.samples_overhead:
        print(f"# {os.cpu_count()} CPUs, load average {os.getloadavg()[0]:.2f} at start", flush=True)
        for model in args.models.split(","):
            for row in run_samples_overhead(model, args.samples_overhead, args.requests, args.batch_size,
                                            args.max_new_tokens):
                print(json.dumps(row) if args.json else
                      f"{model:14s} {row['suite']:4s} samples={row['samples']!s:5s} {row['requests']:3d} req  "
                      f"{row['wall_s']:8.2f} s  cpu {row['cpu_s']:8.2f} s  {row['samples_bytes']:8d} B "
                      f"({row['bytes_per_request']} B/request)  load {row['load_avg_1m']:.2f}", flush=True)
        print(f"# load average {os.getloadavg()[0]:.2f} at end", flush=True)
        return
    if args.prefill_pass_cost is not None:
        if args.prefill_pass_cost < 0:
            p.error(f"--prefill-pass-cost must be >= 0, got {args.prefill_pass_cost}")
        kv_cache.PREFILL_GROUP_TOKENS = args.prefill_pass_cost
    unknown = [path for path in args.paths.split(",") if path not in PATHS]
    if unknown:
        p.error(f"unknown path {unknown[0]!r}; expected one of {list(PATHS)}")
    seeds = list(range(args.requests))
    rows = []
    print(f"# {os.cpu_count()} CPUs, load average {os.getloadavg()[0]:.2f} at start", flush=True)
    for model in args.models.split(","):
        loaded: dict[str, Any] = {}
        if args.device == "cuda":  # CUDA context, cuBLAS handles and kernel choice would land in the first path
            for path in dict.fromkeys(args.paths.split(",")):
                run_path(model, path, seeds[:2], args.batch_size, args.max_new_tokens, loaded, args.device)
        for path in args.paths.split(","):
            row = run_path(model, path, seeds, args.batch_size, args.max_new_tokens, loaded, args.device)
            rows.append(row)
            print(json.dumps(row) if args.json else
                  f"{model:14s} {path:11s} {row['requests']:3d} req  {row['wall_s']:8.1f} s  "
                  f"cpu {row['cpu_s']:8.1f} s  "
                  f"{row['requests_per_s']:7.4f} req/s  {row['completion_tokens_per_s']:7.2f} tok/s  "
                  f"prompt {row['prompt_tokens']:7d} prefilled {row['prefill_tokens']:7d}  turns {row['turns']:3d}  "
                  f"reward {row['mean_reward']:.3f}  actions {row['actions_digest']}  load {row['load_avg_1m']:.2f}",
                  flush=True)
        base = next((r for r in rows if r["model"] == model and r["path"] == "old"), None)
        for r in rows:
            if base and r["model"] == model and r["path"] != "old":
                print(f"{model:14s} {r['path']:11s} requests/s x{r['requests_per_s'] / base['requests_per_s']:.1f} "
                      f"vs old (CPU seconds x{base['cpu_s'] / max(r['cpu_s'], 1e-9):.1f})", flush=True)
    print(f"# load average {os.getloadavg()[0]:.2f} at end", flush=True)


if __name__ == "__main__":
    main()
