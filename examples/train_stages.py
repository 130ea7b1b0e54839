"""The training stages from Python: collect teacher trajectories, fine-tune a model on them (HSA-SFT), evaluate
it on suite T1. CI size by default (the `tiny` model, a few steps: about a minute on a laptop CPU); the presets
of `livesim hat train` are the full-size runs.

    python examples/train_stages.py --episodes 16 --steps 4 --limit 4
"""

from __future__ import annotations

import argparse
from pathlib import Path


def main(argv: list[str] | None = None) -> dict[str, float]:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--out", default="runs/examples/train", help="where the dataset and the model go")
    p.add_argument("--episodes", type=int, default=16, help="teacher episodes to collect")
    p.add_argument("--steps", type=int, default=4, help="SFT optimizer steps")
    p.add_argument("--limit", type=int, default=4, help="T1 requests to evaluate")
    p.add_argument("--max-new-tokens", type=int, default=48, help="generation cap per turn in the evaluation")
    args = p.parse_args(argv)
    from livesim.hat import collect, sft  # the training stack: pip install -e '.[train]'
    from livesim.hat.collect import CollectConfig
    from livesim.hat.evaluate import AgentSpec, evaluate
    from livesim.hat.sft import SFTStageConfig
    from livesim.models import resolve_model

    out = Path(args.out)
    base = resolve_model("tiny")  # built locally in seconds the first time
    # 1. the reader teacher under HSA (it acts on the observation alone; the oracle teaches only the canonical
    #    harness); kept when the grader passes it -> a DatasetDict (train/validation)
    data_dir = collect.run(CollectConfig(episodes=args.episodes, oracle_error_rate=0.2, seed=0), out / "data",
                           show_progress=False)
    dataset = collect.load(data_dir)  # == datasets.load_from_disk(data_dir / "data")
    print(f"collected {len(dataset['train'])} train / {len(dataset['validation'])} validation conversations")
    # 2. HSA-SFT with TRL's SFTTrainer (assistant-only loss)
    cfg = SFTStageConfig(steps=args.steps, batch_size=2, lr=1e-3, val_examples=2)
    stats = sft.run(cfg, base, data_dir, out / "sft", show_progress=False)
    print(f"SFT: {stats['steps']} steps, validation loss {stats['eval_loss_before']:.3f} -> "
          f"{stats['eval_loss_after']:.3f}")
    # 3. evaluate base and SFT model on the first requests of T1 (Live-Stream QA)
    scores = {}
    for name, model in (("base", base), ("sft", out / "sft")):
        spec = AgentSpec.for_model(model, max_new_tokens=args.max_new_tokens)
        result = evaluate(spec, ["T1"], limit=args.limit, batch_size=4, use_cache=False)
        scores[name] = result["suites"]["T1"]["scores"]["avg"]
        print(f"{name}: T1 AVG {scores[name] * 100:.1f} over {args.limit} requests")
    return scores


if __name__ == "__main__":
    main()
