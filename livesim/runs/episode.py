"""Playing an episode into record lines: `run_episode` plays an agent in `LiveStream-v0` (or the env a header
names) and yields the header, every step and the end line; `EpisodeRecorder` does the same for an env that
something else steps (batched evals). `livesim.stream.records` holds the format they are written in.
"""

from __future__ import annotations

from argparse import Namespace
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any

from livesim.envs.rollout import summarize
from livesim.harness.core import Harness
from livesim.parsing.safety import sanitize_action
from livesim.runs.build import make_env
from livesim.stream.records import (
    ENV_ID,
    ModelCall,
    Observer,
    RecordEnd,
    RecordHeader,
    RecordLine,
    RecordWriter,
    StepRecord,
)


def make_stream_env(wrappers: str | None = None, hsa_split: str | None = None, *, env_id: str = ENV_ID,
                    split: str | None = None, hsa_p: float | None = None, harness: Harness | None = None) -> Any:
    """A `LiveStream-v0` (or `env_id`) env with the HSA wrappers named as on the command line."""
    return make_env(env_id, Namespace(wrappers=wrappers, hsa_split=hsa_split, render_mode=None, split=split,
                                      hsa_p=hsa_p, harness_obj=harness))


def header_env(header: RecordHeader) -> Any:
    """The env a record's header describes."""
    return make_stream_env(header.wrappers, header.hsa_split, env_id=header.env_id, split=header.split,
                           hsa_p=header.hsa_p, harness=header.harness)


def episode_summary(infos: list[dict[str, Any]]) -> dict[str, Any]:
    """The episode's figures from its dispatched infos (`livesim.envs.rollout.summarize`, minus wall time)."""
    out = summarize(infos, 1, 0.0)
    # figures added to `summarize` after the record format was published stay out of the end line, so the
    # golden records keep their bytes
    for k in ("wall_s", "requests_per_s", "parse_failures", "tool_calls_per_request"):
        out.pop(k, None)
    return out


def agent_calls(agent: Any, n: int) -> list[ModelCall | None]:
    """The model calls of the agent's last `act`/`act_batch` over `n` observations, as record fields (None each
    for an agent that reports none: only model-server agents keep `last_calls`).
    """
    calls = getattr(agent, "last_calls", None)
    if not isinstance(calls, list) or len(calls) != n:
        return [None] * n
    return [ModelCall.model_validate(c) if isinstance(c, dict) else None for c in calls]


class EpisodeRecorder:
    """Turns one env's steps into record lines: call `before(obs)` before the agent acts, then `after(...)`."""

    def __init__(self, env: Any, seed: int) -> None:
        self.sim = env.unwrapped.sim
        self.seed = seed
        self.observe = Observer()
        self.infos: list[dict[str, Any]] = []
        self.step = 0
        self._failed: str | None = None  # why a model call of the current request failed
        self._pre: tuple[dict[str, Any], Any, float, int, int, int] | None = None

    def before(self, obs: dict[str, Any]) -> None:
        sim = self.sim
        trace = sim.trace
        self._pre = (self.observe(obs, sim), trace, sim.room.clock_s, sim.request.index, len(trace.tool_calls),
                     len(trace.hook_failures))

    def after(self, action: Any, reward: float, terminated: bool, truncated: bool, info: dict[str, Any],
              call: ModelCall | None = None) -> StepRecord:
        """The step's record line; `call` is the agent's model call for it (`agent_calls`). A request during
        which a call failed is marked `unmeasured` on its dispatch step and in the infos `end` summarises.
        """
        assert self._pre is not None, "call before() first"
        seen, trace, clock, index, n_calls, n_hooks = self._pre
        done = info["dispatched"]
        if call is not None and call.outcome == "failed":
            self._failed = self._failed or call.error or "failed call"
        unmeasured = None
        if done:
            unmeasured, self._failed = self._failed, None
            self.infos.append({**info, "reward": reward, "episode_seed": self.seed,
                               **({"unmeasured": unmeasured} if unmeasured else {})})
        line = StepRecord(  # the action as the env stepped on it (sanitised), so replaying it is exact
            step=self.step, clock_s=clock, request_index=index, **seen, action=sanitize_action(action).action,
            tool_calls=[c.model_copy(update={"result": None}) for c in trace.tool_calls[n_calls:]],
            hooks=trace.hook_failures[n_hooks:], dispatched=done,
            reward=float(reward), grade=info.get("grade"), reply=trace.reply if done else None,
            fallback=trace.fallback, latency_s=trace.latency_s if done else None, metrics=info.get("metrics"),
            harness_fingerprint=info["harness_fingerprint"], harness_version=info["harness_version"],
            terminated=terminated, truncated=truncated, call=call, unmeasured=unmeasured)
        self.step += 1
        self._pre = None
        return line

    def end(self) -> RecordEnd:
        return RecordEnd(steps=self.step, summary=episode_summary(self.infos))


def reset_from_header(env: Any, header: RecordHeader) -> tuple[Any, RecordHeader]:
    """Reset `env` as `header` says; return the first observation and the header with the harness in force."""
    options: dict[str, Any] = {"config": header.config}
    if header.harness is not None:
        options["harness"] = header.harness
    obs, _ = env.reset(seed=header.seed, options=options)
    sim = env.unwrapped.sim
    return obs, header.model_copy(update={"harness_fingerprint": sim.harness.fingerprint,
                                          "harness_version": sim.harness.version})


def run_episode(env: Any, agent: Any, header: RecordHeader) -> Iterator[RecordLine]:
    """Reset `env` from `header`, play `agent`; yield the header, every step, then the end line."""
    obs, first = reset_from_header(env, header)
    agent.reset()
    yield first
    rec = EpisodeRecorder(env, header.seed)
    while True:
        rec.before(obs)
        action = sanitize_action(agent.act(obs)).action  # what the env steps on; replaying it is exact
        call = agent_calls(agent, 1)[0]
        obs, reward, terminated, truncated, info = env.step(action)
        yield rec.after(action, reward, terminated, truncated, info, call)
        if terminated or truncated:
            break
    yield rec.end()


def write_lines(lines: Iterable[RecordLine], path: str | Path) -> None:
    """Write record lines to `path` as they come."""
    with RecordWriter(path) as w:
        for line in lines:
            w.write(line)
