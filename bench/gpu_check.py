"""Batched generation throughput of TransformersAgent on CUDA (when present) and CPU, and their ratio.

    python bench/gpu_check.py                       # tiny model, batch 1 and 8, CPU (+ CUDA if available)
    python bench/gpu_check.py --model smollm2-135m --json
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from typing import Any

TOOLS = [
    {"type": "function", "function": {
        "name": "get_product", "description": "Get a product's details and current price.",
        "parameters": {"type": "object", "required": ["link"],
                       "properties": {"link": {"type": "integer", "description": "The product's link."}}}}},
    {"type": "function", "function": {
        "name": "check_stock", "description": "Check stock for a product's variants.",
        "parameters": {"type": "object", "required": ["link"],
                       "properties": {"link": {"type": "integer"}, "variant": {"type": "string"}}}}},
]
QUESTIONS = [
    "How much is link 3 today?", "Is the linen shirt available in size L?", "Do you ship to Hamburg?",
    "Can I return the keyboard if I don't like it?", "Which is better for dry skin, link 1 or link 6?",
    "Any coupons right now?", "I'm 175 cm and 70 kg, which size should I get?", "hi from Lisbon!",
]
SYSTEM = ("You are Mia, the AI host of a live-stream shop. Use the tools to look facts up; never guess "
          "prices, stock or policies. Answer briefly and warmly.")


def synthetic_observations(n: int) -> list[dict[str, Any]]:
    """``n`` observations shaped like the env's: system prompt, tools, one viewer question each."""
    return [{"messages": [{"role": "system", "content": SYSTEM},
                          {"role": "user", "content": QUESTIONS[i % len(QUESTIONS)]}], "tools": TOOLS}
            for i in range(n)]


def measure(model: str, device: str, batch_size: int, observations: list, max_new_tokens: int,
            ) -> dict[str, Any]:
    """Time ``act_batch`` over all observations after one warm-up call."""
    from livesim.agents.transformers_agent import TransformersAgent

    agent = TransformersAgent(model, device=device, batch_size=batch_size, max_new_tokens=max_new_tokens)
    agent.act_batch(observations[:batch_size])  # warm-up: kernels, caches, allocator
    if device.startswith("cuda"):
        import torch

        torch.cuda.synchronize()
    agent.stats.update(completion_tokens=0, generate_seconds=0.0, prompt_tokens=0, calls=0)
    t0 = time.perf_counter()
    agent.act_batch(observations)
    wall = time.perf_counter() - t0
    return {
        "device": device, "batch_size": batch_size, "observations": len(observations),
        "completion_tokens": int(agent.stats["completion_tokens"]),
        "prompt_tokens": int(agent.stats["prompt_tokens"]),
        "generate_seconds": round(agent.stats["generate_seconds"], 3), "wall_seconds": round(wall, 3),
        "tokens_per_s": round(agent.tokens_per_second, 1), "obs_per_s": round(len(observations) / wall, 2),
        "latency_p50_s": round(statistics.median(agent.last_latencies), 3),
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--model", default="tiny", help="zoo name (tiny, smollm2-135m) or a model directory")
    parser.add_argument("--batch-sizes", default="1,8", help="comma-separated batch sizes")
    parser.add_argument("--num-obs", type=int, default=16, help="observations per measurement")
    parser.add_argument("--max-new-tokens", type=int, default=32)
    parser.add_argument("--cpu-threads", type=int, default=0, help="torch threads on CPU (0: torch default)")
    parser.add_argument("--skip-cpu", action="store_true", help="measure CUDA only")
    parser.add_argument("--json", action="store_true", help="print one JSON object instead of a table")
    args = parser.parse_args(argv)

    import torch

    if args.cpu_threads:
        torch.set_num_threads(args.cpu_threads)
    devices = [] if args.skip_cpu else ["cpu"]
    notes = []
    if torch.cuda.is_available():
        devices.insert(0, "cuda")
    else:
        notes.append("CUDA not available: CPU only")
    observations = synthetic_observations(args.num_obs)
    sizes = [int(s) for s in args.batch_sizes.split(",")]
    results = [measure(args.model, dev, bs, observations, args.max_new_tokens)
               for dev in devices for bs in sizes]
    best = {dev: max((r["tokens_per_s"] for r in results if r["device"] == dev), default=0.0)
            for dev in devices}
    speedup = round(best["cuda"] / best["cpu"], 2) if best.get("cuda") and best.get("cpu") else None
    report = {
        "model": args.model, "torch": torch.__version__, "cpu_threads": torch.get_num_threads(),
        "cuda_device": torch.cuda.get_device_name(0) if torch.cuda.is_available() else None,
        "max_new_tokens": args.max_new_tokens, "results": results, "cuda_over_cpu": speedup, "notes": notes,
    }
    if args.json:
        print(json.dumps(report, indent=2))
        return 0
    print(f"model={args.model} torch={torch.__version__} cpu_threads={report['cpu_threads']} "
          f"cuda={report['cuda_device']}")
    print(f"{'device':<6} {'batch':>5} {'tokens':>7} {'gen_s':>7} {'tok/s':>8} {'obs/s':>7} {'p50_s':>7}")
    for r in results:
        print(f"{r['device']:<6} {r['batch_size']:>5} {r['completion_tokens']:>7} {r['generate_seconds']:>7} "
              f"{r['tokens_per_s']:>8} {r['obs_per_s']:>7} {r['latency_p50_s']:>7}")
    print(f"CUDA/CPU best tokens/s: {speedup}" if speedup else "; ".join(notes) or "")
    return 0


if __name__ == "__main__":
    sys.exit(main())
