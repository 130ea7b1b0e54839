"""GRPO with TRL against the env: your own `GRPOTrainer`, with livesim's multi-turn rollout (the policy plays
LiveStreamQA-v0 under HSA, tool results and hook messages fed back as masked env tokens) and the project's
reward functions (one per graded term, plus a length penalty). CI size by default: the `tiny` model, 2 steps.

GRPO learns only from differences within a group of rollouts. The zoo's `tiny` model is untrained: it never
writes a valid tool call, so every rollout scores 0 on every term, every advantage is 0 and nothing is learnt
(the loop runs, which is what the CI-size default checks). Start where there is signal: a model that sometimes
succeeds, e.g. a `tiny` preset SFT stage (`livesim hat train --preset tiny --stages sft` prints its folder under
"stage_dirs"), sampled as the preset samples (T=0.7, half the episodes on the canonical harness; the defaults
below). The script says so when a run had no signal.

    python examples/grpo_trl.py --steps 2
    python examples/grpo_trl.py --model ~/.cache/livesim/stages/sft-<key> --steps 8 --max-new-tokens 96
"""

from __future__ import annotations

import argparse


def main(argv: list[str] | None = None) -> list[dict[str, float]]:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--model", default="tiny", help="zoo name or model directory (e.g. an SFT stage's output)")
    p.add_argument("--out", default="runs/examples/grpo")
    p.add_argument("--steps", type=int, default=2)
    p.add_argument("--max-new-tokens", type=int, default=16, help="tokens sampled per turn")
    p.add_argument("--temperature", type=float, default=0.7, help="sampling temperature (the tiny preset's)")
    p.add_argument("--canonical-fraction", type=float, default=0.5,
                   help="share of episodes on the canonical harness (the tiny preset's; an SFT model succeeds "
                        "there first)")
    args = p.parse_args(argv)
    import torch  # the training stack: pip install -e '.[train]'
    from datasets import Dataset
    from transformers import AutoModelForCausalLM, AutoTokenizer
    from trl import GRPOConfig, GRPOTrainer

    from livesim.hat.rl import EnvRollout, RLStageConfig, episode_rows, reward_functions
    from livesim.hat.sft import training_template
    from livesim.models import resolve_model

    cfg = RLStageConfig(num_generations=2, episodes_per_step=1, episodes=4, max_turns=2,
                        max_new_tokens=args.max_new_tokens, max_completion_length=256,
                        temperature=args.temperature, canonical_fraction=args.canonical_fraction)
    model_dir = resolve_model(args.model)
    tokenizer = AutoTokenizer.from_pretrained(model_dir)
    tokenizer.chat_template = training_template(tokenizer)
    model = AutoModelForCausalLM.from_pretrained(model_dir, dtype=torch.float32)
    trainer = GRPOTrainer(
        model=model, processing_class=tokenizer,
        train_dataset=Dataset.from_list(episode_rows(cfg)),  # one row per episode: its seed and harness variant
        reward_funcs=reward_functions(cfg),  # accuracy, effectiveness, tool_rationality, skill_selection, length
        rollout_func=EnvRollout(cfg, tokenizer),  # plays the env; returns model + env tokens and an env mask
        args=GRPOConfig(output_dir=args.out, max_steps=args.steps, learning_rate=1e-5, logging_steps=1,
                        per_device_train_batch_size=cfg.num_generations, num_generations=cfg.num_generations,
                        max_completion_length=cfg.max_completion_length, reward_weights=cfg.weights(),
                        multi_objective_aggregation="normalize_then_sum", beta=0.0, report_to=[],
                        save_strategy="no", use_cpu=not torch.cuda.is_available(), bf16=False),
    )
    trainer.train()
    logged = [{k: v for k, v in row.items() if k == "reward" or k.startswith("rewards/")}
              for row in trainer.state.log_history if "reward" in row]
    for step, row in enumerate(logged, start=1):
        print(f"step {step}: reward {row['reward']:.3f}  " + "  ".join(
            f"{k.split('/')[1]} {v:.3f}" for k, v in row.items() if k.endswith("/mean")))
    if logged and all(row["reward"] == 0 for row in logged):
        print("no signal: every rollout scored 0 on every term, so every advantage was 0 and GRPO learnt nothing; "
              "start from a model that sometimes succeeds (--model a tiny preset SFT stage; see the docstring)")
    return logged


if __name__ == "__main__":
    main()
