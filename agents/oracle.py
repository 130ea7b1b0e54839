"""The privileged teacher (`oracle`) and its fixed-harness contrast (`memorizer`).

The oracle reads the current request's ground truth from the environment and acts only through the
presented harness: it maps canonical tool keys, parameter keys and skill roles to whatever names the agent
sees. With `error_rate > 0` it sometimes errs first (forgets a skill, breaks a tool call, drafts a reply
that a hook blocks) and then recovers, which yields imperfect trajectories with hook retries.
The memorizer does the same but with the canonical names hard-coded, as a model trained on one fixed
harness would; it is as good as the oracle on the canonical harness and fails when names change.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from livesim.agents.base import BaseAgent, Observation
from livesim.parsing import format_tool_call

_ERRORS = ("skip_skill", "broken_call", "too_long", "claim", "untraceable")


class OracleAgent(BaseAgent):
    """Answers perfectly from the ground truth, acting through the presented harness."""

    name = "oracle"
    memorize = False

    def __init__(self, env: Any = None, *, error_rate: float = 0.0, seed: int = 0) -> None:
        super().__init__()
        if isinstance(error_rate, bool) or not isinstance(error_rate, int | float) or not 0.0 <= error_rate <= 1.0:
            raise ValueError(f"error_rate must be a number in [0, 1], got {error_rate!r}")
        if isinstance(seed, bool) or not isinstance(seed, int):
            raise ValueError(f"seed must be an integer, got {seed!r}")
        self.env = env
        self.error_rate = error_rate
        self.rng = np.random.default_rng(seed)
        self._key: tuple[Any, ...] | None = None
        self._plan: list[Any] = []  # tool-call lists per turn, or "reply"

    def bind(self, env: Any) -> OracleAgent:
        """Attach the environment whose ground truth the oracle reads."""
        self.env = env
        return self

    def reset(self) -> None:
        self._key = None

    # --- the presented harness ------------------------------------------------------------------------
    def _sim(self) -> Any:
        if self.env is None:
            raise RuntimeError("the oracle needs the environment: OracleAgent(env) or agent.bind(env)")
        return self.env.unwrapped.sim

    def _tool_name(self, harness: Any, key: str) -> str:
        if self.memorize:
            return key
        tool = harness.tool_by_key(key)
        return tool.name if tool else key

    def _call(self, harness: Any, key: str, arguments: dict[str, Any]) -> str:
        if self.memorize:
            return format_tool_call(key, arguments)
        tool = harness.tool_by_key(key)
        if tool is None:
            return format_tool_call(key, arguments)
        return format_tool_call(tool.name, harness.to_presented_args(tool, arguments))

    def _skill_calls(self, harness: Any, roles: list[str]) -> list[str]:
        out = []
        for role in roles:
            skill = harness.reply_skill_for(role)
            name = role if self.memorize or skill is None else skill.name
            out.append(self._call(harness, "load_skill", {"name": name}))
        return out

    # --- acting ---------------------------------------------------------------------------------------
    def act(self, observation: Observation) -> str:
        sim = self._sim()
        req, harness = sim.request, sim.harness
        key = (id(sim), sim.seed, req.index, req.t)
        if key != self._key:
            self._key = key
            self._retries = 0
            self._last_calls: list[str] = []
            err = _ERRORS[int(self.rng.integers(len(_ERRORS)))] if self.rng.random() < self.error_rate else None
            truth = req.truth
            skills = self._skill_calls(harness, truth.skills)
            calls = [self._call(harness, c.key, c.arguments) for c in truth.calls]
            per_turn = harness.prompt.limits.max_tool_calls
            lookup = skills + calls if err != "skip_skill" else calls
            self._plan = [lookup[i:i + per_turn] for i in range(0, len(lookup), per_turn)]
            if err == "skip_skill":
                self._plan += ["reply", skills, "reply"]
            elif err == "broken_call":
                self._plan = ["broken", *self._plan, "reply"]
            elif err is not None:
                self._plan += [err, "reply"]
            else:
                self._plan.append("reply")
        retry = self._failed_calls(observation)
        if retry and self._retries < 3:  # a tool timed out or broke: call it again, as a careful host would
            self._retries += 1
            self._last_calls = retry
            return "\n".join(retry)
        step = self._plan.pop(0) if self._plan else "reply"
        truth = req.truth
        if isinstance(step, list):  # a turn of tool calls
            self._last_calls = step
            return "\n".join(step)
        self._last_calls = []
        if step == "broken":
            return '<tool_call>{"name": "' + self._tool_name(harness, "get_product") + '", "arguments": {</tool_call>'
        reply = self._reply(truth)
        if step == "too_long":
            return reply + " " + "We have so many great things to show you today, stay tuned! " * 12
        if step == "claim":
            return reply + " It's a miracle product with guaranteed results!"
        if step == "untraceable":
            return reply + " Over 98765 sold today!"
        return reply

    def _failed_calls(self, observation: Observation) -> list[str]:
        """The calls of the last turn whose results were service errors (timeout, malformed, denied)."""
        if not self._last_calls:
            return []
        msgs = observation.get("messages", [])
        tail = []
        for m in reversed(msgs):
            if m.get("role") != "tool":
                break
            tail.append(m)
        tail.reverse()
        if len(tail) != len(self._last_calls):
            return []
        return [call for call, m in zip(self._last_calls, tail, strict=True) if _is_fault(m.get("content") or "")]

    def _reply(self, truth: Any) -> str:
        return " ".join(truth.say)


def _is_fault(content: str) -> bool:
    return content.startswith(("error: ", "error (")) and ("timed out" in content or "permission denied" in content) \
        or content.endswith("<truncated>")


class MemorizerAgent(OracleAgent):
    """The oracle with the canonical tool, parameter and skill names hard-coded."""

    name = "memorizer"
    memorize = True


def with_oracle(env: Any, agent: str = "oracle", **kwargs: Any) -> Any:
    """Wrap `env` so the oracle (or memorizer) acts inside it: `env.oracle_action()` answers the current
    observation. In an `AsyncVectorEnv`, whose envs live in worker processes the oracle cannot reach from
    outside, build each env with this and ask every worker at once with `venv.call("oracle_action")`::

        venv = AsyncVectorEnv([lambda: with_oracle(gym.make("LiveStreamQA-v0")) for _ in range(4)])
        obs, info = venv.reset(seed=0)
        obs, reward, terminated, truncated, info = venv.step(venv.call("oracle_action"))
    """
    import gymnasium as gym

    cls = MemorizerAgent if agent == "memorizer" else OracleAgent

    class _WithOracle(gym.Wrapper[Any, Any, Any, Any]):
        def __init__(self, inner: Any) -> None:
            super().__init__(inner)
            self.oracle = cls(self, **kwargs)
            self._obs: Any = None

        def reset(self, **kw: Any) -> Any:
            obs, info = self.env.reset(**kw)
            self.oracle.reset()
            self._obs = obs
            return obs, info

        def step(self, action: Any) -> Any:
            out = self.env.step(action)
            self._obs = out[0]
            return out

        def oracle_action(self) -> Any:
            """The oracle's action for the current observation."""
            return self.oracle.act(self._obs)

    return _WithOracle(env)
