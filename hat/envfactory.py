"""An ``environment_factory`` adapter: the canonical harness as a TRL tool environment (GRPO's own tool loop).

``GRPOTrainer(..., environment_factory=canonical_environment_class(), reward_funcs=[reply_reward])`` with a
dataset from :func:`episode_dataset` (each row: the episode's system prompt and comments, and its seed).
TRL renders the class's public methods as tools, parses the model's tool calls, calls the methods and
appends their results; when the model replies without a tool call the rollout ends, and :func:`reply_reward`
steps the env with that reply and returns its graded reward.

Limits (why ``rollout_func`` is the main RL path):
- Tool names and parameters are fixed per class (TRL reads them from the methods), so HSA's per-episode
  renamed tools, parameters and descriptions cannot be expressed: canonical harness only.
- TRL ends the rollout at the first reply: hook retries ("reply blocked ... try again") cannot be fed back,
  so a blocked reply is graded as dispatched-or-fallback by one more env step, not retried by the model.
- Every tool call is one env step (one turn), so a turn with several calls spends several of the harness's
  turn cap; ``ToolFaults`` reach the model as tool results, as in the env.
- One reward (the env's total); the per-term split of ``rollout_func`` training is not available here.
"""

from __future__ import annotations

import inspect
import json
from typing import Any

import gymnasium as gym

import livesim.envs  # noqa: F401  (registers the envs)
from livesim.envs.hsa import ToolFaults
from livesim.harness import default_harness

_JSON_TYPES = {"integer": int, "number": float, "string": str, "boolean": bool, "array": list, "object": dict}


def _tool_method(schema: dict[str, Any]) -> Any:
    fn_schema = schema["function"]
    name = fn_schema["name"]
    props = fn_schema.get("parameters", {}).get("properties", {})
    required = set(fn_schema.get("parameters", {}).get("required", []))

    def method(self: Any, **kwargs: Any) -> str:
        return self._call(name, kwargs)

    params = [inspect.Parameter("self", inspect.Parameter.POSITIONAL_OR_KEYWORD)]
    annotations: dict[str, Any] = {}
    for p, spec in props.items():
        typ = _JSON_TYPES.get(spec.get("type", "string"), str)
        default = inspect.Parameter.empty if p in required else None
        params.append(inspect.Parameter(p, inspect.Parameter.KEYWORD_ONLY, default=default,
                                        annotation=typ if p in required else typ | None))
        annotations[p] = typ if p in required else typ | None
    annotations["return"] = str
    method.__signature__ = inspect.Signature(params, return_annotation=str)  # type: ignore[attr-defined]
    method.__annotations__ = annotations
    method.__name__ = method.__qualname__ = name
    args_doc = "\n".join(f"    {p}: {(spec.get('description') or p).strip()}" for p, spec in props.items())
    method.__doc__ = (f"{fn_schema.get('description') or name}\n\nArgs:\n{args_doc}\n\nReturns:\n"
                      "    The tool's result as text." if props else
                      f"{fn_schema.get('description') or name}\n\nReturns:\n    The tool's result as text.")
    return method


def canonical_environment_class(tool_faults: bool = False) -> type:
    """A class whose methods are the canonical harness's tools, backed by one ``LiveStreamQA-v0`` episode."""
    def reset(self: Any, **row: Any) -> None:
        if self.env is None:
            env = gym.make("LiveStreamQA-v0", split="train")
            self.env = ToolFaults(env) if tool_faults else env
        self.env.reset(seed=int(row["episode_seed"]))
        self.reward, self.done = 0.0, False
        return None

    def _call(self: Any, name: str, arguments: dict[str, Any]) -> str:
        if self.done:
            return "error: the reply was already sent"
        args = {k: v for k, v in arguments.items() if v is not None}
        call = {"id": "call_0", "type": "function", "function": {"name": name, "arguments": json.dumps(args)}}
        obs, reward, term, trunc, info = self.env.step({"role": "assistant", "content": "", "tool_calls": [call]})
        if term or trunc:
            self.done, self.reward = True, float(reward)
        tail = [m for m in obs["messages"] if m["role"] == "tool"]
        return str(tail[-1]["content"]) if tail else ""

    def reply(self: Any, text: str) -> float:
        """Send the final reply; return the env's reward (blocked replies get one fallback step, see module)."""
        for _ in range(8):
            if self.done:
                break
            _, reward, term, trunc, _ = self.env.step(text)
            if term or trunc:
                self.done, self.reward = True, float(reward)
        return self.reward

    ns: dict[str, Any] = {"env": None, "reward": 0.0, "done": False, "reset": reset, "_call": _call,
                          "_reply": reply, "__doc__": "The canonical livesim harness as TRL tools."}
    for schema in default_harness().tool_schemas():
        ns[schema["function"]["name"]] = _tool_method(schema)
    return type("LiveSimCanonicalEnv", (), ns)


def reply_reward(completions: list[Any], environments: list[Any], **_: Any) -> list[float]:
    """GRPO reward function: the env's graded reward of each rollout's final reply."""
    out = []
    for completion, env in zip(completions, environments, strict=True):
        text = completion[-1]["content"] if isinstance(completion, list) else str(completion)
        out.append(env._reply(text or ""))
    return out


def episode_dataset(n: int, seed: int = 0) -> list[dict[str, Any]]:
    """Rows ``{"prompt": [system, comments...], "episode_seed": s}`` on the canonical harness (train split)."""
    env = gym.make("LiveStreamQA-v0", split="train")
    rows = []
    for i in range(n):
        s = 6_000_000 + seed * 100_003 + i
        obs, _ = env.reset(seed=s)
        rows.append({"prompt": [{"role": m["role"], "content": m["content"]} for m in obs["messages"]],
                     "episode_seed": s})
    return rows
