"""Benchmark: the operators one decode step launches, for a model's layer layout at toy widths (a host-cost proxy).

At SmolLM2's size a GPU decode step is bound by the host launching its operators, one kernel each, not by the
arithmetic. This builds the model's architecture from its config with every width shrunk (8 dims a head, a
2,048-token vocabulary: the same layers, heads and operators, negligible arithmetic), decodes a batch with
`generate_cached` on the CPU, and counts the ATen operators each decode step runs (`torch.profiler`), for the loop
that drops finished rows (`eager`) and the fixed-shape step that `cuda_graphs` captures as one graph on CUDA
(`fixed`; eager here). Counts, not times: on a GPU each counted operator is a kernel launch, which the graph
replays as one.

    python bench/decode_ops.py --model smollm2-135m --batch-size 32 --steps 16
"""

from __future__ import annotations

import argparse
import json
from collections import Counter


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--model", default="smollm2-135m", help="a zoo name or model directory (its config.json is read)")
    ap.add_argument("--batch-size", type=int, default=32)
    ap.add_argument("--steps", type=int, default=16, help="decode steps (new tokens) per row")
    ap.add_argument("--lookahead", type=int, default=0, help="prompt-lookup draft tokens per step (greedy)")
    ap.add_argument("--top", type=int, default=8, help="operators listed by count")
    args = ap.parse_args()
    if args.batch_size < 1 or args.steps < 1 or args.lookahead < 0:
        ap.error("--batch-size and --steps must be >= 1, --lookahead >= 0")

    import torch
    from transformers import AutoConfig, AutoModelForCausalLM

    from livesim.agents.kv_cache import GenStats, PrefixCache, TurnEnd, generate_cached
    from livesim.models import resolve_model

    try:
        config = AutoConfig.from_pretrained(resolve_model(args.model))
    except (OSError, ValueError) as e:
        ap.error(f"--model {args.model}: no model config there ({e})")
    text = config.get_text_config(decoder=True)
    heads, kv_heads = text.num_attention_heads, text.num_key_value_heads
    text.update({"hidden_size": 8 * heads, "head_dim": 8, "intermediate_size": 16 * heads, "vocab_size": 2048,
                 "attn_implementation": "sdpa"})
    config.update({"tie_word_embeddings": False})
    torch.manual_seed(0)
    model = AutoModelForCausalLM.from_config(config).eval()
    g = torch.Generator().manual_seed(0)
    prompts = [[1] * 64 + torch.randint(3, 2048, (32 + i,), generator=g).tolist() for i in range(args.batch_size)]
    def run(fixed: bool, steps: int) -> tuple[Counter[str], int]:
        stats = GenStats()
        with torch.profiler.profile(activities=[torch.profiler.ProfilerActivity.CPU]) as prof:
            generate_cached(model, prompts, PrefixCache(max_entries=2 * args.batch_size), TurnEnd(frozenset()),
                            max_new_tokens=steps, pad_id=0, lookahead=args.lookahead, stats=stats, cuda_graphs=fixed)
        return kernel_ops(prof.events()), stats.forward_calls - stats.prefill_calls

    rows = []
    for name, fixed in (("eager", False), ("fixed", True)):
        (short, n1), (long, n2) = run(fixed, args.steps), run(fixed, 2 * args.steps)
        per_step = Counter({k: (long[k] - short[k]) / (n2 - n1) for k in long})  # prefill and set-up cancel out
        rows.append({"path": name, "layers": text.num_hidden_layers, "heads": heads, "kv_heads": kv_heads,
                     "ops_per_step": round(sum(per_step.values()), 1),
                     "top": {k: round(v, 1) for k, v in per_step.most_common(args.top)}})
        print(json.dumps(rows[-1]), flush=True)
    print(f"\n{args.model} layout ({text.num_hidden_layers} layers, {heads} heads, {kv_heads} key/value heads) at toy "
          f"widths, batch {args.batch_size}, lookahead {args.lookahead}: operators called from Python "
          f"that compute (no views) per decode step, from runs of {args.steps} and {2 * args.steps} new tokens")
    print("| path | operators a step | most called |")
    print("|---|---|---|")
    for r in rows:
        top = ", ".join(f"{k.removeprefix('aten::')} {v:g}" for k, v in list(r["top"].items())[:6])
        print(f"| {r['path']} | {r['ops_per_step']:g} | {top} |")


VIEWS = {"aten::as_strided", "aten::view", "aten::slice", "aten::transpose", "aten::t", "aten::reshape",
         "aten::expand", "aten::select", "aten::unsqueeze", "aten::squeeze", "aten::permute", "aten::alias",
         "aten::resolve_conj", "aten::resolve_neg", "aten::detach", "aten::_unsafe_view", "aten::empty",
         "aten::empty_strided", "aten::lift_fresh", "aten::_reshape_alias", "aten::result_type", "aten::split",
         "aten::unbind", "aten::chunk", "aten::narrow", "aten::contiguous", "aten::item", "aten::_local_scalar_dense",
         "aten::to"}  # `to` calls `_to_copy` when it converts; alone it returns its input
"""Operators that only make a view or metadata, or return their input (no kernel on a GPU)."""


def kernel_ops(events: object) -> Counter[str]:
    """ATen operators called from Python (not from inside another operator) that compute, i.e. are not views or
    no-ops: about one kernel launch each on a GPU (a matmul, an attention call, an elementwise op)."""
    out: Counter[str] = Counter()
    for e in events:  # type: ignore[attr-defined]
        parent = e.cpu_parent
        while parent is not None and not parent.name.startswith("aten::"):
            parent = parent.cpu_parent
        if e.name.startswith("aten::") and e.name not in VIEWS and parent is None:
            out[e.name] += 1
    return out


if __name__ == "__main__":
    main()
