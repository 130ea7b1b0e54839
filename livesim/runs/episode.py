"""Playing a stream into record lines: `run_episode` plays an agent in `LiveStream-v0` and yields the header,
every step and the end line (`livesim.stream.records` holds the format they are written in)."""

from __future__ import annotations

from argparse import Namespace
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any

from livesim.envs.rollout import summarize
from livesim.runs.build import make_env
from livesim.stream.records import ENV_ID, Observer, RecordEnd, RecordHeader, RecordLine, RecordWriter, StepRecord


def make_stream_env(wrappers: str | None = None, hsa_split: str | None = None) -> Any:
    """A `LiveStream-v0` env with the HSA wrappers named as on the command line."""
    return make_env(ENV_ID, Namespace(wrappers=wrappers, hsa_split=hsa_split, render_mode=None))


def episode_summary(infos: list[dict[str, Any]]) -> dict[str, Any]:
    """The episode's figures from its dispatched infos (`livesim.envs.rollout.summarize`, minus wall time)."""
    out = summarize(infos, 1, 0.0)
    for k in ("wall_s", "requests_per_s"):
        out.pop(k, None)
    return out


def run_episode(env: Any, agent: Any, header: RecordHeader) -> Iterator[RecordLine]:
    """Reset `env` from `header`, play `agent`; yield the header, every step, then the end line."""
    obs, _ = env.reset(seed=header.seed, options={"config": header.config})
    agent.reset()
    sim = env.unwrapped.sim
    yield header.model_copy(update={"harness_fingerprint": sim.harness.fingerprint,
                                    "harness_version": sim.harness.version})
    observe, infos, step = Observer(), [], 0
    while True:
        seen = observe(obs, sim)
        trace, clock, index = sim.trace, sim.room.clock_s, sim.request.index
        n_calls, n_hooks = len(trace.tool_calls), len(trace.hook_failures)
        action = agent.act(obs)
        obs, reward, terminated, truncated, info = env.step(action)
        done = info["dispatched"]
        if done:
            infos.append({**info, "reward": reward, "episode_seed": header.seed})
        yield StepRecord(
            step=step, clock_s=clock, request_index=index, **seen, action=action,
            tool_calls=[c.model_copy(update={"result": None}) for c in trace.tool_calls[n_calls:]],
            hooks=trace.hook_failures[n_hooks:], dispatched=done,
            reward=float(reward), grade=info.get("grade"), reply=trace.reply if done else None,
            fallback=trace.fallback, latency_s=trace.latency_s if done else None, metrics=info.get("metrics"),
            harness_fingerprint=info["harness_fingerprint"], harness_version=info["harness_version"],
            terminated=terminated, truncated=truncated)
        step += 1
        if terminated or truncated:
            break
    yield RecordEnd(steps=step, summary=episode_summary(infos))


def write_lines(lines: Iterable[RecordLine], path: str | Path) -> None:
    """Write record lines to `path` as they come."""
    with RecordWriter(path) as w:
        for line in lines:
            w.write(line)
