"""What a model's tool calls name under T2's held-out harness: a diagnostic for a T2 score of 0.

Plays the first N requests of T2 (the canonical harness presented in `--prompt-style`, held-out HSA on top, as
`livesim hat eval` does) for a few turns with greedy decoding and counts, over every turn:

- replies (a turn without a tool call; before a reply skill is loaded, the reply gate rejects it);
- tool calls that name a tool of the presented harness, a canonical tool name that is not presented (a
  memorised name), or anything else;
- calls of the presented skill loader whose argument names a presented skill, a canonical skill, or neither.

    python tools/t2_calls.py --model ~/.cache/livesim/stages/sft-89a59e954689dcb8 --requests 8 --turns 3
"""

from __future__ import annotations

import argparse
import json
from collections import Counter
from typing import Any


def count_calls(model: str, requests: int, turns: int, prompt_style: str = "compact",
                max_new_tokens: int = 128) -> dict[str, Any]:
    from livesim.agents.transformers_agent import TransformersAgent
    from livesim.harness.core import default_harness
    from livesim.hat.suites import get_suite, make_qa_env
    from livesim.parsing.core import parse_action
    from livesim.stream.harness_file import harness_with_style

    canon = default_harness()
    canon_tools, canon_skills = {t.name for t in canon.tools}, {s.name for s in canon.skills}
    agent = TransformersAgent(model, max_new_tokens=max_new_tokens, batch_size=requests)
    harness = harness_with_style(None, prompt_style)
    envs, obss = [], []
    for r in get_suite("T2").requests[:requests]:
        env = make_qa_env(r.wrappers, r.hsa_split, r.hsa_p)
        options = r.reset_options()
        if harness is not None:
            options["harness"] = harness
        obs, _ = env.reset(seed=r.seed, options=options)
        envs.append(env)
        obss.append(obs)
    calls: Counter[str] = Counter()
    loads: Counter[str] = Counter()
    for _ in range(turns):
        live = [i for i, env in enumerate(envs) if not env.unwrapped.sim.done]
        if not live:
            break
        actions = agent.act_batch([obss[i] for i in live])
        for i, action in zip(live, actions, strict=True):
            h = envs[i].unwrapped.sim.harness  # the presented harness
            tools, skills = {t.name for t in h.tools}, {s.name for s in h.skills}
            loader = next((t.name for t in h.tools if t.key == "load_skill"), None)
            parsed = parse_action(action)
            if not parsed.tool_calls:
                calls["reply (no tool call)"] += 1
            for call in parsed.tool_calls:
                calls["presented tool" if call.name in tools else
                      "canonical tool, not presented" if call.name in canon_tools else "other name"] += 1
                if call.name == loader:
                    values = {str(v) for v in (call.arguments or {}).values()}
                    loads["presented skill" if values & skills else
                          "canonical skill" if values & canon_skills else "other"] += 1
            obss[i], *_ = envs[i].step(action)
    return {"model": model, "requests": requests, "turns": turns, "prompt_style": prompt_style,
            "calls": dict(calls), "skill_loads": dict(loads)}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--model", required=True, help="a model directory (or zoo name) for the transformers agent")
    ap.add_argument("--requests", type=int, default=8, help="first N requests of T2")
    ap.add_argument("--turns", type=int, default=3, help="turns per request")
    ap.add_argument("--prompt-style", default="compact", help="how the canonical prompt is presented")
    args = ap.parse_args(argv)
    if args.requests < 1 or args.turns < 1:
        raise SystemExit("error: --requests and --turns must be >= 1")
    print(json.dumps(count_calls(args.model, args.requests, args.turns, args.prompt_style), sort_keys=True))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
